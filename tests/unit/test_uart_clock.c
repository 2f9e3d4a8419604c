// UNIT-SOURCES: arch/x86/console/uart_clock.c
/*
 * Baud-rate arithmetic of the console driver. Expectations from the definitions, not from the
 * code: a 16550 sends at clock / (16 x divisor) (PC16550D data sheet, "Programmable Baud
 * Generator"); an LPSS UART's clock is input x M / N with 15-bit M and N (Linux
 * drivers/mfd/intel-lpss.c: the fractional divider at bits 15:1 and 30:16).
 */
#include "tests/unit/unit.h"
#include "arch/x86/console/uart16550.h"

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void divisors_of_the_pc_clock(void **state)
{
	(void)state;
	/* 1.8432 MHz / 16 = 115200: divisor = 115200 / baud for the standard rates */
	static const uint32_t rates[] = {115200, 57600, 38400, 19200, 9600, 4800, 2400, 1200, 300};
	for (unsigned i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		assert_int_equal(uart_divisor(1843200, rates[i]), 115200 / rates[i]);
	/* 7000: nearest divisor 16 gives 7200, 2.9% off: beyond the 2% 8N1 tolerates */
	assert_int_equal(uart_divisor(1843200, 7000), 0);
	/* 56000: divisor 2 gives 57600, 2.86% off: refused; 110 (divisor 1047, 0.03%) kept */
	assert_int_equal(uart_divisor(1843200, 56000), 0);
	assert_int_equal(uart_divisor(1843200, 110), 1047);
	/* a faster clock: 24 MHz / 16 / 13 = 115384.6, 0.16% off 115200 */
	assert_int_equal(uart_divisor(24000000, 115200), 13);
	/* rates above clock / 16 cannot be made; neither can 0 */
	assert_int_equal(uart_divisor(1843200, 230400), 0);
	assert_int_equal(uart_divisor(1843200, 0), 0);
	assert_int_equal(uart_divisor(0, 115200), 0);
	/* below clock / (16 x 65535) the 16-bit divisor runs out */
	assert_int_equal(uart_divisor(1843200, 1), 0);
}

/* LPSS input clocks 100 and 120 MHz (intel-lpss-pci.c bxt_uart_info, spt_uart_info); the UART
 * needs 16 x baud at divisor 1. Where target/input reduces to a fraction with N < 2^15 the
 * result must be exact, with that smallest N. */
static void lpss_fractions(void **state)
{
	(void)state;
	static const uint32_t inputs[] = {100000000, 120000000};
	static const uint32_t bauds[] = {9600,	  115200,  230400,  460800,  921600, 1000000,
					 1500000, 2000000, 3000000, 3686400, 4000000};
	for (unsigned i = 0; i < 2; i++)
		for (unsigned j = 0; j < sizeof(bauds) / sizeof(bauds[0]); j++) {
			uint64_t target = (uint64_t)bauds[j] * 16, in = inputs[i];
			uint32_t m = 0, n = 0;
			assert_true(lpss_fraction(inputs[i], (uint32_t)target, &m, &n));
			assert_true(m >= 1 && m <= n && n <= 0x7fff);
			uint64_t g = gcd(target, in);
			if (in / g <= 0x7fff) {
				assert_int_equal((uint64_t)m * in, (uint64_t)n * target);
				assert_int_equal(n, in / g);
			} else {
				/* best approximation: within 2% (it is far closer) */
				uint64_t got = in * m / n;
				assert_true((got > target ? got - target : target - got) * 50 <=
					    target);
			}
		}
	uint32_t m, n;
	assert_false(lpss_fraction(100000000, 100000001, &m, &n)); /* M <= N */
	assert_false(lpss_fraction(100000000, 0, &m, &n));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(divisors_of_the_pc_clock),
    cmocka_unit_test(lpss_fractions),
};

UNIT_MAIN(tests)
