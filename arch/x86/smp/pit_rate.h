/* SPDX-License-Identifier: MIT */
/*
 * The TSC rate from a run of latched reads of an 8254 counter that counts down modulo 65536
 * (mode 0 keeps decrementing after the terminal count: Intel 8254 data sheet, "Mode 0:
 * Interrupt on Terminal Count"). Pure arithmetic, host-tested; timer.c does the port I/O.
 */
#ifndef ARCH_X86_SMP_PIT_RATE_H
#define ARCH_X86_SMP_PIT_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define PIT_HZ		      1193182 /* 8254 input clock on PC-compatible machines */
#define PIT_COUNTER_MODULUS   65536
#define PIT_RATE_END_SAMPLES  8	      /* reads at each end, the narrowest-bracketed kept */
#define PIT_UNCERTAINTY_WHOLE 1000000 /* ppm: a figure that cannot be trusted at all */

/* One end of the measurement: a read's midpoint, its bracket and the ticks counted up to it. */
struct pit_mark {
	uint64_t tsc;	/* midpoint of the RDTSCs around the latch-and-read */
	uint64_t width; /* cycles between those RDTSCs: the read's uncertainty */
	uint64_t ticks; /* PIT ticks counted from the run's first read to this one */
};

struct pit_run {
	unsigned reads;
	uint16_t last_count;
	uint64_t first_after;	    /* RDTSC after the first read: its latch came before */
	uint64_t last_before;	    /* RDTSC before the latest read: its latch came after */
	uint64_t ticks;		    /* each pair of consecutive reads' difference, summed */
	uint64_t longest_gap;	    /* most cycles two consecutive latches can be apart */
	struct pit_mark start, end; /* narrowest of the first / of the latest END_SAMPLES */
	struct pit_mark recent[PIT_RATE_END_SAMPLES];
};

/* Adds one latched read of `count`, bracketed by RDTSC values `before` and `after`. */
void pit_run_add(struct pit_run *run, uint64_t before, uint16_t count, uint64_t after);

/* PIT ticks counted since the run's start mark (the loop's stopping test). */
uint64_t pit_run_ticks_since_start(const struct pit_run *run);

/*
 * TSC Hz between the start and end marks, 0 if the PIT did not count. *uncertainty_ppm is the
 * two marks' brackets over the span plus one tick in those counted, or PIT_UNCERTAINTY_WHOLE when a
 * whole turn of the counter (65536 ticks, 55 ms) may have passed unseen between two consecutive
 * reads: a vCPU descheduled that long on a loaded host would make the rate off by any amount.
 */
uint64_t pit_run_rate(const struct pit_run *run, uint64_t *uncertainty_ppm);

#endif
