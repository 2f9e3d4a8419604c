/* SPDX-License-Identifier: MIT */
// LINK: -lgmp
/* A real program on Debian's GMP (static): 120!, a power modulo a prime, a gcd and a
 * primality test of big integers. Output: the numbers in decimal. */
#include <gmp.h>
#include <stdio.h>

int main(void)
{
	mpz_t f, p, r, g;
	mpz_inits(f, p, r, g, NULL);
	mpz_fac_ui(f, 120);
	gmp_printf("120! = %Zd\n", f);
	mpz_set_str(p, "170141183460469231731687303715884105727", 10); /* 2^127 - 1 */
	mpz_powm_ui(r, f, 65537, p);
	gmp_printf("120!^65537 mod (2^127-1) = %Zd\n", r);
	mpz_gcd(g, f, r);
	gmp_printf("gcd = %Zd\n", g);
	printf("2^127-1 is %s\n", mpz_probab_prime_p(p, 20) ? "prime" : "composite");
	mpz_clears(f, p, r, g, NULL);
	return 0;
}
