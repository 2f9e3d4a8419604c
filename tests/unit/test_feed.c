// clang-format off
// UNIT-SOURCES: arch/x86/model/feed.c arch/x86/model/spmu.c arch/x86/model/arch_lbr.c arch/x86/model/counters.c arch/x86/model/lbr.c arch/x86/model/bts.c arch/x86/model/pebs.c arch/x86/model/personality.c arch/x86/caps/caps.c arch/x86/caps/lbr_models.c arch/x86/caps/cpu_ident.c lib/fmt.c
// clang-format on
/*
 * A counted loop's runs fed at once (spmu_feed_loop, its batched way loop_again and
 * spmu_lbr_again) leave the model as the same runs fed one block at a time
 * (spmu_feed_block, what per-block stepping feeds for each run, itself held against
 * single-stepping by block.t): the whole struct spmu, statistics, LBR stack, TOS, cycle counts
 * and all, on every personality, with the LBRs recording, filtering the Jcc out (LBR_SELECT's
 * JCC and CPL bits, SDM Vol. 3B 17.9.2), off, under TR alone (where the personality leaves the
 * stack undefined then, SDM 17.4.4) and with BTS storing nothing at the loop's ring (BTS_OFF_OS,
 * SDM 17.4.9.3), for runs fewer than, as many as and more than the stack is deep.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "arch/x86/hw/lbr_regs.h"
#include "arch/x86/hw/msr.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/model/model.h"
#include "arch/x86/model/spmu.h"

static void *no_memory(uint64_t a)
{
	(void)a;
	return NULL;
}

struct setup {
	uint64_t debugctl, select, arch_ctl;
};

static const struct setup setups[] = {
    {DEBUGCTL_LBR, 0, 0},
    {DEBUGCTL_LBR, LBR_SELECT_JCC, 0},
    {DEBUGCTL_LBR, LBR_SELECT_CPL_EQ_0, 0},
    {0, 0, 0},
    {DEBUGCTL_TR, 0, 0},
    {DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_OS, 0, 0},
    {DEBUGCTL_LBR | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_OS, 0, 0},
    {0, 0, LBR_CTL_LBREN | LBR_CTL_OS | LBR_CTL_JCC},
};

/* The model of personality i after one branch elsewhere and then `runs` runs of a loop. */
static void fed(struct spmu *m, unsigned i, const struct setup *s, uint64_t runs, bool at_once)
{
	spmu_init(m, spmu_personality_at(i), no_memory);
	(void)spmu_wrmsr(m, MSR_IA32_DEBUGCTL, s->debugctl); /* refused bits: stays as it is */
	if (s->select)
		(void)spmu_wrmsr(m, MSR_LBR_SELECT, s->select);
	if (s->arch_ctl)
		(void)spmu_wrmsr(m, MSR_IA32_LBR_CTL, s->arch_ctl);
	const struct run_with_branch before = {
	    .n = 3, .from = 0x9000, .to = 0x1000, .kind = X86_BR_JMP_REL, .taken = true};
	assert_true(spmu_feed_block(m, &before));
	const struct run_with_branch run = {
	    .n = 5, .from = 0x1014, .to = 0x1000, .kind = X86_BR_JCC, .taken = true};
	if (at_once) {
		assert_true(spmu_feed_loop_room(m, &run, runs));
		spmu_feed_loop(m, &run, runs);
	} else {
		for (uint64_t k = 0; k < runs; k++)
			assert_true(spmu_feed_block(m, &run));
	}
}

static void loop_at_once_as_block_by_block(void **state)
{
	(void)state;
	static const uint64_t runs[] = {1, 2, 3, 7, 8, 31, 32, 33, 100, 1000};
	static struct spmu once, each;
	unsigned compared = 0;
	for (unsigned i = 0; spmu_personality_at(i); i++)
		for (unsigned s = 0; s < sizeof(setups) / sizeof(setups[0]); s++)
			for (unsigned r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
				fed(&once, i, &setups[s], runs[r], true);
				fed(&each, i, &setups[s], runs[r], false);
				if (memcmp(&once, &each, sizeof(once)) != 0)
					fail_msg("%s, setup %u, %lu runs: the model differs",
						 spmu_personality_at(i)->name, s,
						 (unsigned long)runs[r]);
				compared++;
			}
	assert_true(compared > 100);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(loop_at_once_as_block_by_block),
};

UNIT_MAIN(tests)
