/* SPDX-License-Identifier: MIT */
#include "arch/x86/smp/pit_rate.h"

#define PPM	       1000000
#define ROUNDING_TICKS 16

void pit_run_add(struct pit_run *run, uint64_t before, uint16_t count, uint64_t after)
{
	if (run->reads == 0) {
		run->first_after = after;
	} else {
		/* Counting down: the ticks since the previous read, modulo one turn. */
		run->ticks += (uint16_t)(run->last_count - count);
		/* The two latches lie within [previous before, this after]. */
		if (after - run->last_before > run->longest_gap)
			run->longest_gap = after - run->last_before;
	}
	struct pit_mark m = {
	    .tsc = before + (after - before) / 2, .width = after - before, .ticks = run->ticks};
	if (run->reads < PIT_RATE_END_SAMPLES && (run->reads == 0 || m.width < run->start.width))
		run->start = m;
	run->recent[run->reads % PIT_RATE_END_SAMPLES] = m;
	run->last_count = count;
	run->last_before = before;
	run->reads++;
}

uint64_t pit_run_ticks_since_start(const struct pit_run *run)
{
	return run->ticks - run->start.ticks;
}

/*
 * Could a whole turn have passed between two consecutive reads? If one had, that gap would hold
 * at least 65536 of the run's T + 65536 true ticks (T: the ticks counted), so
 * gap / span >= 65536 / (T + 65536). Tested with ROUNDING_TICKS of room for the latches falling
 * anywhere in their brackets and the counts' one-tick steps; the span is its shortest bound
 * (first read's after to last read's before), the gap its longest.
 */
static bool turn_may_be_hidden(const struct pit_run *run)
{
	if (run->last_before <= run->first_after)
		return true;
	uint64_t span = run->last_before - run->first_after;
	return run->longest_gap * (run->ticks + PIT_COUNTER_MODULUS + ROUNDING_TICKS) >=
	       span * (PIT_COUNTER_MODULUS - ROUNDING_TICKS);
}

uint64_t pit_run_rate(const struct pit_run *run, uint64_t *uncertainty_ppm)
{
	if (run->reads < 2 * PIT_RATE_END_SAMPLES)
		return 0;
	struct pit_mark end = run->recent[0];
	for (unsigned i = 1; i < PIT_RATE_END_SAMPLES; i++)
		if (run->recent[i].width < end.width)
			end = run->recent[i];
	uint64_t ticks = end.ticks - run->start.ticks;
	if (ticks == 0 || end.tsc <= run->start.tsc)
		return 0;
	uint64_t cycles = end.tsc - run->start.tsc;
	*uncertainty_ppm = turn_may_be_hidden(run)
			       ? PIT_UNCERTAINTY_WHOLE
			       : (run->start.width + end.width) * PPM / cycles + PPM / ticks;
	return cycles * PIT_HZ / ticks;
}
