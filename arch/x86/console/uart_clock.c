/* SPDX-License-Identifier: MIT */
/* Baud-rate arithmetic for the 16550 driver, host-testable (tests/unit/test_uart_clock.c). */
#include "arch/x86/console/uart16550.h"

#define UART_OVERSAMPLE	  16 /* the 16550 samples each bit 16 times: baud = clock / 16 / DL */
#define UART_DIVISOR_MAX  0xffff
#define RATE_TOLERANCE	  50	 /* 1/50 = 2 percent: what 8N1 framing tolerates end to end */
#define LPSS_FRACTION_MAX 0x7fff /* M and N are 15-bit fields */

static bool within_tolerance(uint64_t got, uint64_t want)
{
	uint64_t diff = got > want ? got - want : want - got;
	return diff * RATE_TOLERANCE <= want;
}

uint32_t uart_divisor(uint32_t clock, uint32_t baud)
{
	if (!clock || !baud)
		return 0;
	uint64_t unit = (uint64_t)baud * UART_OVERSAMPLE;
	uint64_t dl = (clock + unit / 2) / unit;
	if (dl == 0 || dl > UART_DIVISOR_MAX)
		return 0;
	return within_tolerance(clock / (UART_OVERSAMPLE * dl), baud) ? (uint32_t)dl : 0;
}

bool lpss_fraction(uint32_t input, uint32_t target, uint32_t *m, uint32_t *n)
{
	if (!input || !target || target > input)
		return false;
	uint64_t best_err = UINT64_MAX;
	for (uint64_t nn = 1; nn <= LPSS_FRACTION_MAX; nn++) {
		uint64_t mm = ((uint64_t)target * nn + input / 2) / input;
		if (mm == 0 || mm > nn)
			continue;
		uint64_t out = (uint64_t)input * mm; /* output x nn */
		uint64_t want = (uint64_t)target * nn;
		uint64_t err = out > want ? out - want : want - out;
		/* compare err/nn across candidates: err * best_n < best_err * nn */
		if (best_err == UINT64_MAX || err * *n < best_err * nn) {
			best_err = err;
			*m = (uint32_t)mm;
			*n = (uint32_t)nn;
			if (err == 0)
				break;
		}
	}
	return best_err != UINT64_MAX && within_tolerance((uint64_t)input * *m / *n, target);
}
