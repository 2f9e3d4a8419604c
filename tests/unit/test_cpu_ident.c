// UNIT-SOURCES: arch/x86/caps/cpu_ident.c
/* CPUID.01H:EAX decoding against signatures of real processors (SDM Vol. 2A, CPUID). */
#include "tests/unit/unit.h"
#include "arch/x86/caps/cpu_ident.h"

static void check(uint32_t eax, uint32_t family, uint32_t model, uint32_t stepping)
{
	struct cpu_signature s = cpu_signature_decode(eax);
	assert_int_equal(s.family, family);
	assert_int_equal(s.model, model);
	assert_int_equal(s.stepping, stepping);
}

static void decodes_real_signatures(void **state)
{
	(void)state;
	check(0x000006fb, 0x6, 0x0f, 0xb);  /* Core 2 Duo (Merom) */
	check(0x000106a5, 0x6, 0x1a, 0x5);  /* Nehalem-EP */
	check(0x000306c3, 0x6, 0x3c, 0x3);  /* Haswell client */
	check(0x000506e3, 0x6, 0x5e, 0x3);  /* Skylake client */
	check(0x000606a6, 0x6, 0x6a, 0x6);  /* Ice Lake server */
	check(0x000806f8, 0x6, 0x8f, 0x8);  /* Sapphire Rapids */
	check(0x00090672, 0x6, 0x97, 0x2);  /* Alder Lake */
	check(0x000706a8, 0x6, 0x7a, 0x8);  /* Goldmont Plus */
	check(0x00000f29, 0xf, 0x02, 0x9);  /* Pentium 4 (family 0FH, no extension) */
	check(0x00830f10, 0x17, 0x31, 0x0); /* AMD Zen 2 (Rome) */
	check(0x00a10f11, 0x19, 0x11, 0x1); /* AMD Zen 4 (Genoa) */
	/* Extended model is ignored outside families 06H and 0FH. */
	check(0x00010543, 0x5, 0x4, 0x3);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(decodes_real_signatures),
};
UNIT_MAIN(tests)
