// UNIT-SOURCES: arch/x86/smp/pit_rate.c
/*
 * The TSC rate from latched PIT reads. The expected counts come from the 8254's definition, not
 * from the code: channel 2 in mode 0, loaded with FFFFH, decrements once per input clock
 * (1.193182 MHz on PC-compatible machines) and keeps decrementing past zero, so at time t its
 * count is (FFFFH - floor(t x 1193182)) mod 65536 (Intel 8254 data sheet, "Mode 0: Interrupt on
 * Terminal Count"). The TSC here runs at a known 2.4 GHz.
 */
#include "tests/unit/unit.h"
#include "arch/x86/smp/pit_rate.h"

#define TSC_HZ	 2400000000ull
#define READ_CYC 2400 /* 1 us for one latch-and-read */
#define POLL_CYC 4800 /* 2 us from one read to the next */
#define MS	 (TSC_HZ / 1000)

static uint16_t count_at(uint64_t tsc)
{
	uint64_t ticks = (unsigned __int128)tsc * PIT_HZ / TSC_HZ;
	return (uint16_t)((0xffffu - ticks) % 65536);
}

/* Reads every POLL_CYC cycles from `start` for `ms` of reading, with one pause of `pause_ms`
 * after `pause_at_ms`; the latch falls in the middle of each bracket. */
static void read_for(struct pit_run *run, uint64_t start, uint64_t ms, uint64_t pause_at_ms,
		     uint64_t pause_ms)
{
	uint64_t t = start;
	bool paused = false;
	while (t < start + (ms + pause_ms) * MS) {
		pit_run_add(run, t, count_at(t + READ_CYC / 2), t + READ_CYC);
		t += POLL_CYC;
		if (!paused && pause_ms && t >= start + pause_at_ms * MS) {
			t += pause_ms * MS;
			paused = true;
		}
	}
}

static void assert_rate_near(uint64_t hz, uint64_t want, uint64_t ppm)
{
	uint64_t diff = hz > want ? hz - want : want - hz;
	assert_true(diff * 1000000 <= want * ppm);
}

static void steady_reads_give_the_rate(void **state)
{
	(void)state;
	struct pit_run run = {0};
	read_for(&run, 5 * MS, 20, 0, 0);
	/* 20 ms at 1.193182 MHz: 23863 ticks counted from the start mark */
	uint64_t since = pit_run_ticks_since_start(&run);
	assert_true(since >= 23850 && since <= 23870);
	uint64_t ppm = 0, hz = pit_run_rate(&run, &ppm);
	/* one tick in 23863 (42 ppm) of quantisation, and 1 us brackets over 20 ms (100 ppm) */
	assert_rate_near(hz, TSC_HZ, 150);
	assert_true(ppm >= 140 && ppm <= 150);
}

static void the_counter_passing_zero_is_counted(void **state)
{
	(void)state;
	/* 80 ms is more than one turn (65536 ticks = 54.9 ms): the sum of consecutive reads'
	 * differences, not the first minus the last, holds the ticks */
	struct pit_run run = {0};
	read_for(&run, 0, 80, 0, 0);
	uint64_t ppm = 0, hz = pit_run_rate(&run, &ppm);
	assert_true(pit_run_ticks_since_start(&run) > 65536);
	assert_rate_near(hz, TSC_HZ, 100);
	assert_true(ppm <= 150);
}

static void a_pause_that_cannot_hide_a_turn_is_trusted(void **state)
{
	(void)state;
	/* a vCPU descheduled for 20 ms in 50: 23863 ticks pass unseen but are counted (fewer
	 * than 65536 passed between the two reads around the pause), and a turn hidden in it
	 * would have made it more than half the run */
	struct pit_run run = {0};
	read_for(&run, 0, 30, 10, 20);
	uint64_t ppm = 0, hz = pit_run_rate(&run, &ppm);
	assert_rate_near(hz, TSC_HZ, 100);
	assert_true(ppm <= 150);
}

static void a_pause_of_a_whole_turn_is_refused(void **state)
{
	(void)state;
	/* pauses of 56 to 130 ms in 20 ms of reads (one or two turns of 54.9 ms pass between two
	 * reads): the count alone cannot tell, so the figure is refused however the remainder
	 * falls */
	static const uint64_t pauses[] = {56, 60, 80, 100, 110, 130};
	for (unsigned i = 0; i < sizeof(pauses) / sizeof(pauses[0]); i++) {
		struct pit_run run = {0};
		read_for(&run, 0, 20, 10, pauses[i]);
		uint64_t ppm = 0;
		pit_run_rate(&run, &ppm);
		assert_int_equal(ppm, PIT_UNCERTAINTY_WHOLE);
	}
}

static void too_few_reads_or_a_still_counter_give_nothing(void **state)
{
	(void)state;
	struct pit_run run = {0};
	uint64_t ppm = 7;
	for (unsigned i = 0; i < 2 * PIT_RATE_END_SAMPLES - 1; i++)
		pit_run_add(&run, i * POLL_CYC, count_at(i * POLL_CYC), i * POLL_CYC + READ_CYC);
	assert_int_equal(pit_run_rate(&run, &ppm), 0);
	struct pit_run still = {0};
	for (unsigned i = 0; i < 100; i++)
		pit_run_add(&still, i * POLL_CYC, 0xffff, i * POLL_CYC + READ_CYC);
	assert_int_equal(pit_run_rate(&still, &ppm), 0);
	assert_int_equal(ppm, 7);
}

static void the_narrowest_bracket_at_each_end_is_used(void **state)
{
	(void)state;
	/* every read but one at each end takes 1 ms (a slow port access): the rate comes from
	 * the two 1 us reads, so the uncertainty is theirs */
	struct pit_run run = {0};
	uint64_t t = 0;
	for (unsigned i = 0; i < 40; i++) {
		bool fast = i == 3 || i == 36;
		uint64_t width = fast ? READ_CYC : MS;
		pit_run_add(&run, t, count_at(t + width / 2), t + width);
		t += width + POLL_CYC;
	}
	uint64_t ppm = 0, hz = pit_run_rate(&run, &ppm);
	assert_rate_near(hz, TSC_HZ, 100);
	/* 2 us of brackets over about 33 ms (60 ppm), one tick in about 40000 (25 ppm) */
	assert_true(ppm < 100);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(steady_reads_give_the_rate),
    cmocka_unit_test(the_counter_passing_zero_is_counted),
    cmocka_unit_test(a_pause_that_cannot_hide_a_turn_is_trusted),
    cmocka_unit_test(a_pause_of_a_whole_turn_is_refused),
    cmocka_unit_test(too_few_reads_or_a_still_counter_give_nothing),
    cmocka_unit_test(the_narrowest_bracket_at_each_end_is_used),
};

UNIT_MAIN(tests)
