// clang-format off
// UNIT-SOURCES: arch/x86/model/feed.c arch/x86/model/spmu.c arch/x86/model/arch_lbr.c arch/x86/model/counters.c arch/x86/model/lbr.c arch/x86/model/bts.c arch/x86/model/pebs.c arch/x86/model/personality.c arch/x86/caps/caps.c arch/x86/caps/lbr_models.c arch/x86/caps/cpu_ident.c lib/fmt.c
// clang-format on
/*
 * The code cache's batches (spmu_feed_runs, after spmu_feed_runs_room said yes) leave the model
 * exactly as the same runs fed the per-run way: each run's plain steps through
 * spmu_feed_plain_n, then (unless its kind is X86_BR_NONE) its branch alone through
 * spmu_feed_block, the path per-block stepping takes and block.t and the QEMU-log oracle tests
 * hold against single-stepping. Two models set up alike get random batches (random n, kinds,
 * taken or not, addresses, sizes 1..1009, ring 3 and ring 0), model A through spmu_feed_runs,
 * model B run by run; then everything observable is compared: the legacy LBR stack slot by
 * slot and TOS, the Architectural LBR entries, every counter, GLOBAL_CTRL/STATUS, the
 * statistics field by field, steps_since_lbr, last_from/last_to, pmi_pending, DEBUGCTL, the DS
 * area and BTS buffer byte for byte, and finally the whole struct spmu. The setups cover both
 * ways spmu_feed_runs takes a batch (spmu_runs_branches' fast path for the legacy stack, the
 * per-run fallback for Architectural LBR, call-stack mode, the Nehalem erratum, BTS stored,
 * frozen LBRs, TR on a Core 2) and the refusals (BTF, a pending PMI, a counter or BTS threshold
 * too near). And spmu_counters_quiet_runs against its definition, with the off-by-one edge.
 */
#include "tests/unit/unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/x86/hw/lbr_regs.h"
#include "arch/x86/hw/msr.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/model/model.h"
#include "arch/x86/model/spmu.h"

/* ---- the two models and their memory ------------------------------------------------------ */

#define DS_LIN	       0x200000ull
#define BTS_LIN	       0x201000ull
#define BTS_RECORDS    9000u /* the BTS buffer's capacity: a few batches' worth */
#define MEM_SIZE       (0x1000u + BTS_RECORDS * sizeof(struct bts_record))
#define MAX_RUNS       1009u
#define LARGE_N_MAX    100000u /* runs longer than LBR_INFO's 16-bit cycle count */
#define SEEDS	       64u     /* per setup; FEED_RUNS_SEEDS=N in the environment: more */
#define BATCHES	       5u
#define BRANCH_CTR_MAX 1500u /* CTR_BRANCHES_NEAR: the branch counter's ticks left, at most */

/* One DS memory per model, at the same linear addresses: `lin` reaches the one of the model
 * being driven (use()), so that both models hold the same callback and compare whole. */
static uint8_t mem_a[MEM_SIZE], mem_b[MEM_SIZE];
static uint8_t *mem_now;
static struct spmu model_a, model_b;

static void *lin(uint64_t a)
{
	if (!mem_now || a < DS_LIN || a >= DS_LIN + MEM_SIZE)
		return NULL;
	return mem_now + (a - DS_LIN);
}

static struct spmu *use(struct spmu *m)
{
	mem_now = m == &model_a ? mem_a : mem_b;
	return m;
}

/* xorshift64*: the inputs are a function of the seed alone (a failure names its seed). */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return n ? rnd(s) % n : 0;
}

/* ---- the setups --------------------------------------------------------------------------- */

enum ctr_plan {
	CTR_OFF,	   /* no counter counts */
	CTR_FAR,	   /* fixed and GP counters of instructions, branches, cycles, far from
			    * overflow: every batch fits */
	CTR_NEAR,	   /* the same within 60000 ticks of overflow: some batches are refused */
	CTR_BRANCHES_NEAR, /* PMC0 alone counts branches (C4H), within BRANCH_CTR_MAX of overflow */
	CTR_FAR_PEBS,	   /* CTR_FAR with PEBS enabled on PMC0 (and fixed counter 0 where
			    * adaptive PEBS has it): none armed, so no record is due */
	CTR_MEMORY,	   /* a memory event counted (loads): every step has its own way */
};

enum bts_plan {
	BTS_NO_DS,     /* no DS area */
	BTS_CIRCULAR,  /* a buffer, no interrupt threshold (above the absolute maximum) */
	BTS_THRESHOLD, /* a buffer with its interrupt threshold inside it */
};

enum pmi_plan {
	PMI_NONE,
	PMI_TAKEN,   /* a counter overflowed with INT before the batches, its PMI taken (the
		      * freeze bits in DEBUGCTL decide what froze, SDM Vol. 3B 17.4.7) */
	PMI_PENDING, /* ... and left pending: every batch must be refused */
};

enum path { PATH_FAST = 1, PATH_SLOW = 2, PATH_BOTH = 3, PATH_NONE = 4 };

#define RANDOM_SELECT UINT64_MAX /* LBR_SELECT bits 8:0 drawn per seed */

struct setup {
	const char *name;
	const char *personality;
	unsigned format, depth; /* the legacy stack's format and depth instead of the
				 * personality's (0: its own) */
	uint64_t debugctl, select;
	uint64_t arch_ctl, arch_depth; /* IA32_LBR_CTL, IA32_LBR_DEPTH (0: not written) */
	enum bts_plan bts;
	enum ctr_plan ctr;
	enum pmi_plan pmi;
	int cpl;	   /* 3 or 0, or -1: either, drawn per batch */
	enum path path;	   /* how spmu_feed_runs takes the batches it is given */
	bool all_accepted; /* spmu_feed_runs_room says yes to every batch (not vacuous) */
};

#define LBR   DEBUGCTL_LBR
#define CS    LBR_SELECT_CALLSTACK_MUST_SET
#define ALLBR (LBR_CTL_LBREN | LBR_CTL_OS | LBR_CTL_USR | LBR_CTL_BRANCHES)
#define FRZ_L DEBUGCTL_FREEZE_LBRS_ON_PMI
#define FRZ_C DEBUGCTL_FREEZE_PERFMON_ON_PMI

static const struct setup setups[] = {
    /* spmu_runs_branches' fast path: the legacy stack recording or off, no BTS record stored */
    {"skylake lbr", "skylake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_OFF, PMI_NONE, 3, PATH_FAST,
     true},
    {"skylake lbr ring 0", "skylake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_OFF, PMI_NONE, 0,
     PATH_FAST, true},
    {"skylake lbr counters", "skylake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE, -1,
     PATH_FAST, true},
    {"skylake lbr counters near", "skylake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_NEAR, PMI_NONE, -1,
     PATH_FAST, false},
    {"skylake lbr branch counter near", "skylake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_BRANCHES_NEAR,
     PMI_NONE, -1, PATH_FAST, false},
    {"skylake lbr random select", "skylake", 0, 0, LBR, RANDOM_SELECT, 0, 0, BTS_NO_DS, CTR_FAR,
     PMI_NONE, -1, PATH_FAST, true},
    {"skylake CPL_EQ_0", "skylake", 0, 0, LBR, LBR_SELECT_CPL_EQ_0, 0, 0, BTS_NO_DS, CTR_OFF,
     PMI_NONE, -1, PATH_FAST, true},
    {"skylake CPL_NEQ_0", "skylake", 0, 0, LBR, LBR_SELECT_CPL_NEQ_0, 0, 0, BTS_NO_DS, CTR_FAR,
     PMI_NONE, -1, PATH_FAST, true},
    {"skylake JCC suppressed", "skylake", 0, 0, LBR, LBR_SELECT_JCC, 0, 0, BTS_NO_DS, CTR_OFF,
     PMI_NONE, 3, PATH_FAST, true},
    {"skylake calls and returns suppressed", "skylake", 0, 0, LBR,
     LBR_SELECT_NEAR_REL_CALL | LBR_SELECT_NEAR_IND_CALL | LBR_SELECT_NEAR_RET, 0, 0, BTS_NO_DS,
     CTR_OFF, PMI_NONE, 3, PATH_FAST, true},
    {"skylake jumps suppressed", "skylake", 0, 0, LBR,
     LBR_SELECT_NEAR_REL_JMP | LBR_SELECT_NEAR_IND_JMP, 0, 0, BTS_NO_DS, CTR_OFF, PMI_NONE, 3,
     PATH_FAST, true},
    {"skylake every class suppressed", "skylake", 0, 0, LBR, GENMASK(8, 2), 0, 0, BTS_NO_DS,
     CTR_FAR, PMI_NONE, 3, PATH_FAST, true},
    {"skylake lbr off", "skylake", 0, 0, 0, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE, -1, PATH_FAST,
     true},
    {"skylake TR alone", "skylake", 0, 0, DEBUGCTL_TR, 0, 0, 0, BTS_NO_DS, CTR_OFF, PMI_NONE, -1,
     PATH_FAST, true},
    {"skylake fmt3 depth 16", "skylake", LBR_FMT_EIP_FLAGS, 16, LBR, 0, 0, 0, BTS_NO_DS, CTR_FAR,
     PMI_NONE, -1, PATH_FAST, true},
    {"skylake fmt3 depth 4", "skylake", LBR_FMT_EIP_FLAGS, 4, LBR, LBR_SELECT_JCC, 0, 0, BTS_NO_DS,
     CTR_OFF, PMI_NONE, -1, PATH_FAST, true},
    {"skylake fmt4 depth 8", "skylake", LBR_FMT_EIP_FLAGS2, 8, LBR, 0, 0, 0, BTS_NO_DS, CTR_FAR,
     PMI_NONE, -1, PATH_FAST, true},
    {"skylake fmt6 depth 4", "skylake", LBR_FMT_TIME, 4, LBR, 0, 0, 0, BTS_NO_DS, CTR_OFF, PMI_NONE,
     -1, PATH_FAST, true},
    {"skylake fmt6 depth 16", "skylake", LBR_FMT_TIME, 16, LBR, RANDOM_SELECT, 0, 0, BTS_NO_DS,
     CTR_NEAR, PMI_NONE, -1, PATH_FAST, false},
    {"skylake fmt7 depth 8", "skylake", LBR_FMT_INFO2, 8, LBR, 0, 0, 0, BTS_NO_DS, CTR_OFF,
     PMI_NONE, 3, PATH_FAST, true},
    {"skylake fmt5 depth 4", "skylake", LBR_FMT_INFO, 4, LBR, 0, 0, 0, BTS_NO_DS, CTR_OFF, PMI_NONE,
     -1, PATH_FAST, true},
    {"skylake BTS not stored at ring 3", "skylake", 0, 0,
     LBR | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_USR, 0, 0, 0, BTS_CIRCULAR, CTR_FAR,
     PMI_NONE, 3, PATH_FAST, true},
    {"skylake counters frozen", "skylake", 0, 0, LBR | FRZ_C, 0, 0, 0, BTS_NO_DS, CTR_FAR,
     PMI_TAKEN, -1, PATH_FAST, true},
    {"icelake lbr counters", "icelake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE, -1,
     PATH_FAST, true},
    {"kvm lbr counters", "kvm", 0, 0, LBR, LBR_SELECT_CPL_EQ_0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE,
     -1, PATH_FAST, true},
    {"core2 lbr counters", "core2", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE, -1, PATH_FAST,
     true},
    {"core2 legacy freeze", "core2", 0, 0, LBR | FRZ_L | FRZ_C, 0, 0, 0, BTS_NO_DS, CTR_FAR,
     PMI_TAKEN, -1, PATH_FAST, true},
    {"nehalem lbr off", "nehalem", 0, 0, 0, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE, -1, PATH_FAST,
     true},
    {"nehalem legacy LBR freeze", "nehalem", 0, 0, LBR | FRZ_L, 0, 0, 0, BTS_NO_DS, CTR_FAR,
     PMI_TAKEN, -1, PATH_FAST, true},
    {"arrowlake arch lbr off", "arrowlake", 0, 0, 0, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE, -1,
     PATH_FAST, true},
    {"arrowlake DEBUGCTL.LBR (no legacy stack)", "arrowlake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS,
     CTR_OFF, PMI_NONE, -1, PATH_FAST, true},
    {"skylake PEBS enabled", "skylake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_FAR_PEBS, PMI_NONE, -1,
     PATH_FAST, true},
    {"icelake adaptive PEBS enabled", "icelake", 0, 0, LBR, LBR_SELECT_NEAR_RET, 0, 0, BTS_NO_DS,
     CTR_FAR_PEBS, PMI_NONE, -1, PATH_FAST, true},
    /* the per-run fallback */
    {"skylake BTS stored", "skylake", 0, 0, LBR | DEBUGCTL_TR | DEBUGCTL_BTS, 0, 0, 0, BTS_CIRCULAR,
     CTR_FAR, PMI_NONE, -1, PATH_SLOW, false},
    {"skylake BTS threshold", "skylake", 0, 0, LBR | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT,
     LBR_SELECT_JCC, 0, 0, BTS_THRESHOLD, CTR_OFF, PMI_NONE, 3, PATH_SLOW, false},
    {"skylake BTS not stored at ring 3, stored at 0", "skylake", 0, 0,
     DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_USR, 0, 0, 0, BTS_CIRCULAR, CTR_OFF, PMI_NONE,
     -1, PATH_BOTH, false},
    {"skylake call stack", "skylake", 0, 0, LBR, CS, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE, -1,
     PATH_SLOW, true},
    {"skylake user call stack", "skylake", 0, 0, LBR, CS | LBR_SELECT_CPL_EQ_0, 0, 0, BTS_NO_DS,
     CTR_OFF, PMI_NONE, -1, PATH_SLOW, true},
    {"skylake fmt4 depth 16 call stack", "skylake", LBR_FMT_EIP_FLAGS2, 16, LBR, CS, 0, 0,
     BTS_NO_DS, CTR_OFF, PMI_NONE, 3, PATH_SLOW, true},
    {"skylake LBRs frozen", "skylake", 0, 0, LBR | FRZ_L, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_TAKEN,
     -1, PATH_SLOW, true},
    {"nehalem lbr (erratum)", "nehalem", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_NONE, -1,
     PATH_SLOW, true},
    {"nehalem erratum drops calls", "nehalem", 0, 0, LBR, LBR_SELECT_NEAR_REL_JMP, 0, 0, BTS_NO_DS,
     CTR_OFF, PMI_NONE, 3, PATH_SLOW, true},
    {"core2 TR (stack undefined)", "core2", 0, 0, LBR | DEBUGCTL_TR, 0, 0, 0, BTS_NO_DS, CTR_OFF,
     PMI_NONE, -1, PATH_SLOW, true},
    {"arrowlake arch lbr", "arrowlake", 0, 0, 0, 0, ALLBR, 32, BTS_NO_DS, CTR_FAR, PMI_NONE, -1,
     PATH_SLOW, true},
    {"arrowlake arch lbr depth 8 user", "arrowlake", 0, 0, 0, 0,
     LBR_CTL_LBREN | LBR_CTL_USR | LBR_CTL_BRANCHES, 8, BTS_NO_DS, CTR_NEAR, PMI_NONE, -1,
     PATH_SLOW, false},
    {"arrowlake arch lbr Jcc", "arrowlake", 0, 0, 0, 0, LBR_CTL_LBREN | LBR_CTL_USR | LBR_CTL_JCC,
     16, BTS_NO_DS, CTR_OFF, PMI_NONE, 3, PATH_SLOW, true},
    {"arrowlake arch call stack", "arrowlake", 0, 0, 0, 0,
     LBR_CTL_LBREN | LBR_CTL_USR | LBR_CTL_OS | LBR_CTL_CALL_STACK | LBR_CTL_NEAR_REL_CALL |
	 LBR_CTL_NEAR_IND_CALL | LBR_CTL_NEAR_RET,
     32, BTS_NO_DS, CTR_OFF, PMI_NONE, -1, PATH_SLOW, true},
    {"arrowlake arch lbr frozen", "arrowlake", 0, 0, FRZ_L, 0, ALLBR, 32, BTS_NO_DS, CTR_FAR,
     PMI_TAKEN, -1, PATH_SLOW, true},
    /* refused: nothing may be fed */
    {"skylake BTF", "skylake", 0, 0, LBR | DEBUGCTL_BTF, 0, 0, 0, BTS_NO_DS, CTR_OFF, PMI_NONE, -1,
     PATH_NONE, false},
    {"skylake PMI pending", "skylake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_FAR, PMI_PENDING, -1,
     PATH_NONE, false},
    {"skylake memory event counted", "skylake", 0, 0, LBR, 0, 0, 0, BTS_NO_DS, CTR_MEMORY, PMI_NONE,
     -1, PATH_NONE, false},
};

#define N_SETUPS (sizeof(setups) / sizeof(setups[0]))

/* ---- setting a model up ------------------------------------------------------------------- */

static void wr(struct spmu *m, uint32_t msr, uint64_t v)
{
	if (spmu_wrmsr(m, msr, v) != STATUS_OK)
		fail_msg("%s: wrmsr %#x <- %#llx refused: %s", m->p->name, (unsigned)msr,
			 (unsigned long long)v, m->gp_reason);
}

/* A GP counter's count `left` ticks before its overflow, through the legacy alias: bits 31:0
 * written, sign-extended to the counter's width (SDM Vol. 3B 18.2.6), so left < 2^31. */
static void gp_left(struct spmu *m, unsigned n, uint64_t left)
{
	wr(m, MSR_IA32_PMC0 + n, (uint32_t)(0 - (left + 1)));
}

static void fixed_left(struct spmu *m, unsigned n, uint64_t left)
{
	wr(m, MSR_IA32_FIXED_CTR0 + n, genmask(m->ctr.fixed_width - 1, 0) - left);
}

#define SEL(event, umask, flags) ((uint64_t)(event) | (uint64_t)(umask) << 8 | (flags) | EVTSEL_EN)

/* What a seed draws for a setup: both models get the same. */
struct draw {
	uint64_t select;
	uint64_t left[SPMU_MAX_GP], fixed_left[SPMU_MAX_FIXED];
	uint64_t bts_first, bts_threshold; /* records before the index, the threshold's */
	uint64_t prefix_blocks, prefix_plain;
	uint64_t prefix_seed;
};

static uint64_t ctr_left(const struct setup *s, uint64_t *seed)
{
	if (s->ctr == CTR_NEAR)
		return below(seed, 60000);
	return (1ull << 30) + below(seed, 1ull << 30); /* CTR_FAR: < 2^31 for the legacy alias */
}

static struct draw draw_for(const struct setup *s, uint64_t *seed)
{
	struct draw d = {0};
	d.select = s->select == RANDOM_SELECT ? below(seed, 1u << 9) : s->select;
	for (unsigned i = 0; i < SPMU_MAX_GP; i++)
		d.left[i] = s->ctr == CTR_BRANCHES_NEAR ? below(seed, BRANCH_CTR_MAX + 1)
							: ctr_left(s, seed);
	for (unsigned i = 0; i < SPMU_MAX_FIXED; i++)
		d.fixed_left[i] = ctr_left(s, seed);
	d.bts_first = below(seed, 64);
	d.bts_threshold = d.bts_first + 200 + below(seed, 3000);
	d.prefix_blocks = below(seed, 40);
	d.prefix_plain = below(seed, 3) ? below(seed, 100) : below(seed, 70000);
	d.prefix_seed = rnd(seed);
	return d;
}

static void setup_counters(struct spmu *m, const struct setup *s, const struct draw *d)
{
	unsigned gp = m->ctr.n_gp, fx = m->ctr.n_fixed;
	if (s->ctr == CTR_OFF)
		return;
	if (s->ctr == CTR_MEMORY) {
		/* MEM_INST_RETIRED.ALL_LOADS (D0H/81H, the loads event personality.c gives
		 * Skylake, counters.h) */
		wr(m, MSR_IA32_PERFEVTSEL0,
		   SEL(EVENT_MEM_INST_RETIRED, UMASK_ALL_LOADS, EVTSEL_USR | EVTSEL_OS));
		gp_left(m, 0, d->left[0]);
		return;
	}
	if (s->ctr == CTR_BRANCHES_NEAR) {
		/* BR_INST_RETIRED.ALL_BRANCHES, architectural event C4H umask 00H (SDM Vol. 3B
		 * 18.2.1.2, Table 18-1), with its PMI */
		wr(m, MSR_IA32_PERFEVTSEL0,
		   SEL(ARCH_EVENT_BRANCHES, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT));
		gp_left(m, 0, d->left[0]);
		return;
	}
	/* instructions (C0H), branches (C4H) at both rings and at ring 0 alone, core cycles
	 * (3CH) at ring 3 (the model's cycle is an instruction), each with its PMI; the fixed
	 * counters (instructions, core and reference cycles) at both rings, every other one with
	 * its PMI */
	static const uint64_t sel[] = {
	    SEL(ARCH_EVENT_INSTRUCTIONS, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT),
	    SEL(ARCH_EVENT_BRANCHES, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT),
	    SEL(ARCH_EVENT_BRANCHES, 0, EVTSEL_OS | EVTSEL_INT),
	    SEL(ARCH_EVENT_CORE_CYCLES, 0, EVTSEL_USR | EVTSEL_INT),
	    SEL(ARCH_EVENT_CORE_CYCLES, 1, EVTSEL_USR | EVTSEL_OS),
	    SEL(ARCH_EVENT_INSTRUCTIONS, 0, EVTSEL_OS | EVTSEL_INT),
	    SEL(ARCH_EVENT_BRANCHES, 0, EVTSEL_USR),
	    SEL(ARCH_EVENT_INSTRUCTIONS, 0, EVTSEL_USR | EVTSEL_INT),
	};
	for (unsigned n = 0; n < gp; n++) {
		wr(m, MSR_IA32_PERFEVTSEL0 + n, sel[n]);
		gp_left(m, n, d->left[n]);
	}
	uint64_t fixed_ctrl = 0;
	for (unsigned n = 0; n < fx; n++) {
		fixed_ctrl |=
		    FIXED_CTRL_OS(n) | FIXED_CTRL_USR(n) | (n % 2 ? 0 : FIXED_CTRL_PMI(n));
		fixed_left(m, n, d->fixed_left[n]);
	}
	wr(m, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl);
	wr(m, MSR_IA32_PERF_GLOBAL_CTRL,
	   genmask(gp - 1, 0) | genmask(GLOBAL_FIXED_SHIFT + fx - 1, GLOBAL_FIXED_SHIFT));
	if (s->ctr == CTR_FAR_PEBS)
		wr(m, MSR_IA32_PEBS_ENABLE,
		   BIT(0) | (m->ctr.adaptive_pebs ? GLOBAL_STATUS_FIXED(0) : 0));
}

static void setup_bts(struct spmu *m, const struct setup *s, const struct draw *d)
{
	if (s->bts == BTS_NO_DS)
		return;
	struct ds_area64 *ds = lin(DS_LIN);
	ds->bts_base = BTS_LIN;
	ds->bts_index = BTS_LIN + d->bts_first * sizeof(struct bts_record);
	ds->bts_abs_max = BTS_LIN + BTS_RECORDS * sizeof(struct bts_record);
	/* SDM Vol. 3B 17.4.9.3: a threshold above the absolute maximum, no interrupt */
	ds->bts_threshold = s->bts == BTS_THRESHOLD
				? BTS_LIN + d->bts_threshold * sizeof(struct bts_record)
				: ds->bts_abs_max + sizeof(struct bts_record);
	wr(m, MSR_IA32_DS_AREA, DS_LIN);
}

/* A counter overflows with INT set (the last GP counter: instructions, its count at the
 * maximum) on a plain step: the PMI is requested, freezing what DEBUGCTL's freeze bits say
 * (SDM Vol. 3B 17.4.7: legacy v2/v3 clears DEBUGCTL.LBR and GLOBAL_CTRL, streamlined v4+ sets
 * LBR_Frz and CTR_Frz); taken by spmu_feed, or left pending. */
static void overflow_before(struct spmu *m, const struct setup *s)
{
	unsigned n = m->ctr.n_gp - 1;
	wr(m, MSR_IA32_PERFEVTSEL0 + n,
	   SEL(ARCH_EVENT_INSTRUCTIONS, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT));
	gp_left(m, n, 0);
	if (m->ctr.version >= 2)
		wr(m, MSR_IA32_PERF_GLOBAL_CTRL, m->ctr.global_ctrl | BIT(n));
	if (s->pmi == PMI_PENDING) {
		const struct spmu_step st = {.retired = 0x401000, .next = 0x401003, .cpl = 3};
		spmu_retire(m, &st);
		assert_true(m->pmi_pending);
		return;
	}
	const struct spmu_feed_step st = {.retired = 0x401000,
					  .next = 0x401003,
					  .insn = {.length = 3},
					  .outcome = X86_STEP_SEQUENTIAL,
					  .cpl_from = 3,
					  .cpl_to = 3};
	assert_int_equal(spmu_feed(m, &st), SPMU_FEED_PMI);
	assert_false(m->pmi_pending);
	assert_true(m->ctr.global_status & BIT(n));
}

static uint64_t address(uint64_t *seed, unsigned cpl)
{
	uint64_t x = rnd(seed);
	if ((x & 15) == 0)
		return x; /* any 64 bits: the formats' address fields masked and sign-extended */
	return (cpl ? 0x400000ull : 0xffffffff81000000ull) + ((x >> 8) & 0xfffff);
}

/* One run: its plain steps and its branch (kinds of every LBR class but far; X86_BR_NONE: a
 * run of plain steps alone, its taken, from and to to be ignored). */
static struct run_with_branch run_of(uint64_t *seed, unsigned cpl)
{
	static const enum x86_branch_kind kinds[] = {
	    X86_BR_NONE,    X86_BR_JCC,	     X86_BR_JCC,      X86_BR_JCC,     X86_BR_JCXZ_LOOP,
	    X86_BR_JMP_REL, X86_BR_CALL_REL, X86_BR_CALL_REL, X86_BR_RET,     X86_BR_RET,
	    X86_BR_JMP_IND, X86_BR_CALL_IND, X86_BR_NONE,     X86_BR_JMP_REL,
	};
	struct run_with_branch r = {0};
	r.kind = kinds[below(seed, sizeof(kinds) / sizeof(kinds[0]))];
	r.n = below(seed, 64) ? below(seed, 33) : below(seed, LARGE_N_MAX);
	r.cpl = cpl;
	r.from = address(seed, cpl);
	r.to = address(seed, cpl);
	bool conditional = r.kind == X86_BR_JCC || r.kind == X86_BR_JCXZ_LOOP;
	r.taken = conditional || r.kind == X86_BR_NONE ? rnd(seed) & 1 : true;
	return r;
}

/* The per-run way, the reference: spmu_feed_plain_n for the plain steps (within
 * spmu_plain_room, as per-block stepping asks), then the branch alone through spmu_feed_block. */
static bool per_run(struct spmu *m, const struct run_with_branch *r, size_t k, size_t *bad)
{
	for (size_t i = 0; i < k; i++) {
		*bad = i;
		if (spmu_plain_room(m, r[i].cpl) < r[i].n)
			return false;
		spmu_feed_plain_n(m, r[i].n, r[i].cpl);
		if (r[i].kind == X86_BR_NONE)
			continue;
		struct run_with_branch b = r[i];
		b.n = 0;
		b.next_n = 0;
		if (!spmu_feed_block(m, &b))
			return false;
	}
	return true;
}

static void prepare(struct spmu *m, const struct setup *s, const struct draw *d)
{
	use(m);
	memset(mem_now, 0, MEM_SIZE);
	spmu_init(m, spmu_personality_find(s->personality), lin);
	assert_non_null(m->p);
	if (s->format) {
		/* another generation's stack on the same processor (the record formats of
		 * IA32_PERF_CAPABILITIES[5:0], SDM Vol. 3B 17.4.8.1, and the depths of Table
		 * 17-4): what the model makes of a format and depth depends on nothing else */
		assert_int_equal(m->caps.lbr.kind, TC_LBR_LEGACY);
		m->lbr.format = (enum lbr_format)s->format;
		m->lbr.depth = s->depth;
	}
	if (s->arch_depth)
		wr(m, MSR_IA32_LBR_DEPTH, s->arch_depth);
	if (s->arch_ctl)
		wr(m, MSR_IA32_LBR_CTL, s->arch_ctl);
	if (d->select)
		wr(m, MSR_LBR_SELECT, d->select);
	setup_bts(m, s, d);
	setup_counters(m, s, d);
	wr(m, MSR_IA32_DEBUGCTL, s->debugctl);
	if (s->pmi != PMI_NONE)
		overflow_before(m, s);
	/* some branches and plain steps before the batches, as per-block stepping feeds them:
	 * TOS and the steps since the last record anywhere */
	uint64_t seed = d->prefix_seed;
	for (uint64_t i = 0; i < d->prefix_blocks; i++) {
		struct run_with_branch b = run_of(&seed, below(&seed, 2) ? 3 : 0);
		if (b.kind == X86_BR_NONE)
			b.kind = X86_BR_JMP_REL;
		(void)spmu_feed_block(m, &b); /* refused alike by both models */
	}
	if (spmu_plain_room(m, 3) >= d->prefix_plain)
		spmu_feed_plain_n(m, d->prefix_plain, 3);
}

/* ---- comparing ---------------------------------------------------------------------------- */

struct where {
	const char *setup;
	uint64_t seed;
	unsigned batch, cpl;
	size_t k;
};

static void dump_batch(const struct run_with_branch *r, size_t k)
{
	for (size_t i = 0; i < k && i < 80; i++)
		fprintf(stderr,
			"#   r[%zu] = {n %llu, from %#llx, to %#llx, kind %d, cpl %u, %s}\n", i,
			(unsigned long long)r[i].n, (unsigned long long)r[i].from,
			(unsigned long long)r[i].to, (int)r[i].kind, r[i].cpl,
			r[i].taken ? "taken" : "not taken");
	if (k > 80)
		fprintf(stderr, "#   ... %zu runs in all (the seed reproduces them)\n", k);
}

#define DIFFER(w, what, got, want)                                                                 \
	fail_msg("%s, seed %llu, batch %u (%zu runs at ring %u): %s: spmu_feed_runs %#llx, per "   \
		 "run %#llx",                                                                      \
		 (w)->setup, (unsigned long long)(w)->seed, (w)->batch, (w)->k, (w)->cpl, what,    \
		 (unsigned long long)(got), (unsigned long long)(want))

#define SAME(w, field)                                                                             \
	do {                                                                                       \
		if (a->field != b->field)                                                          \
			DIFFER(w, #field, a->field, b->field);                                     \
	} while (0)

#define SAME_AT(w, field, i)                                                                       \
	do {                                                                                       \
		if (a->field[i] != b->field[i]) {                                                  \
			char what_[64];                                                            \
			snprintf(what_, sizeof(what_), "%s[%u]", #field, (unsigned)(i));           \
			DIFFER(w, what_, a->field[i], b->field[i]);                                \
		}                                                                                  \
	} while (0)

/* Every field of the statistics (a new one must be added here). */
_Static_assert(sizeof(struct spmu_stats) == 18 * sizeof(uint64_t), "struct spmu_stats changed");

static void same_models(const struct where *w)
{
	const struct spmu *a = &model_a, *b = &model_b;
	/* The legacy stack: TOS names the most recent record, the slots below it the older ones
	 * in turn, modulo the depth (SDM Vol. 3B 17.4.8.1); LBR_INFO's cycle count (formats 5,
	 * 7; TO[63:48] in format 6) is the "elapsed core clocks since last update to the LBR
	 * stack" (17.12.1), here the instructions since the previous record. */
	SAME(w, lbr.tos);
	SAME(w, lbr.depth);
	SAME(w, lbr.format);
	SAME(w, lbr.select);
	for (unsigned i = 0; i < LBR_MAX_DEPTH; i++) {
		SAME_AT(w, lbr.from, i);
		SAME_AT(w, lbr.to, i);
		SAME_AT(w, lbr.info, i);
	}
	/* Architectural LBR: entry 0 the newest */
	SAME(w, arch_lbr.ctl);
	SAME(w, arch_lbr.depth);
	for (unsigned i = 0; i < ARCH_LBR_MAX_DEPTH; i++) {
		SAME_AT(w, arch_lbr.from, i);
		SAME_AT(w, arch_lbr.to, i);
		SAME_AT(w, arch_lbr.info, i);
	}
	/* the counters (SDM Vol. 3B 18.2) */
	for (unsigned i = 0; i < SPMU_MAX_GP; i++) {
		SAME_AT(w, ctr.pmc, i);
		SAME_AT(w, ctr.evtsel, i);
	}
	for (unsigned i = 0; i < SPMU_MAX_FIXED; i++)
		SAME_AT(w, ctr.fixed, i);
	SAME(w, ctr.fixed_ctrl);
	SAME(w, ctr.global_ctrl);
	SAME(w, ctr.global_status);
	SAME(w, ctr.pebs_enable);
	SAME(w, ctr.pebs_armed);
	SAME(w, ctr.live);
	SAME(w, ctr.counts_memory);
	/* the rest of the model */
	SAME(w, debugctl);
	SAME(w, ds_area);
	SAME(w, steps_since_lbr);
	SAME(w, last_from);
	SAME(w, last_to);
	SAME(w, ler_from);
	SAME(w, ler_to);
	SAME(w, pmi_pending);
	SAME(w, btf_trap);
	SAME(w, stats.branches);
	SAME(w, stats.lbr_recorded);
	SAME(w, stats.lbr_filtered);
	SAME(w, stats.bts_stored);
	SAME(w, stats.bts_not_stored);
	SAME(w, stats.bts_dropped);
	SAME(w, stats.bts_threshold_pmis);
	SAME(w, stats.gp_faults);
	SAME(w, stats.pmis_requested);
	SAME(w, stats.lbr_frozen_skips);
	SAME(w, stats.pebs_records);
	SAME(w, stats.pebs_dropped);
	SAME(w, stats.pebs_threshold_pmis);
	SAME(w, stats.btf_traps);
	SAME(w, stats.loads);
	SAME(w, stats.stores);
	SAME(w, stats.l1_misses);
	SAME(w, stats.lbr_undefined_tr);
	/* the DS area and the BTS buffer (SDM Vol. 3B 17.4.9: the index, the records in order) */
	for (size_t i = 0; memcmp(mem_a, mem_b, MEM_SIZE) != 0 && i < MEM_SIZE; i++)
		if (mem_a[i] != mem_b[i]) {
			char what[64];
			snprintf(what, sizeof(what), "DS memory at %#llx",
				 (unsigned long long)(DS_LIN + i));
			DIFFER(w, what, mem_a[i], mem_b[i]);
		}
	/* and whatever else struct spmu holds (both were zeroed whole by spmu_init) */
	if (memcmp(a, b, sizeof(*a)) != 0)
		DIFFER(w, "struct spmu (a field not compared above)", 0, 0);
}

/* ---- the equivalence ---------------------------------------------------------------------- */

static size_t batch_size(uint64_t *seed, unsigned depth)
{
	switch (below(seed, 11)) {
	case 0:
		return 1;
	case 10:
		return below(seed, 2); /* none at all, or one */
	case 1:
		return depth - 1 ? depth - 1 : 1;
	case 2:
		return depth;
	case 3:
		return depth + 1;
	case 4:
		return 2 * depth + 1;
	case 5:
		return MAX_RUNS;
	default:
		return 1 + below(seed, MAX_RUNS);
	}
}

struct tally {
	unsigned accepted, refused, fast, slow;
	uint64_t runs, recorded;
};

/* Whether spmu_feed_runs will take the batch its fast way: spmu_runs_branches on a copy (it
 * reaches no DS memory: it declines where a BTS record would be stored). */
static bool fast_way(const struct run_with_branch *r, size_t k)
{
	static struct spmu probe;
	probe = model_a;
	return spmu_runs_branches(&probe, r, k);
}

static uint64_t seeds(void)
{
	const char *e = getenv("FEED_RUNS_SEEDS");
	return e && strtoull(e, NULL, 10) ? strtoull(e, NULL, 10) : SEEDS;
}

static void one_setup(const struct setup *s, struct tally *t)
{
	static struct run_with_branch r[MAX_RUNS];
	for (uint64_t seed0 = 1, n = seeds(); seed0 <= n; seed0++) {
		uint64_t seed = seed0 * 0x9e3779b97f4a7c15ull + (uint64_t)(s - setups);
		(void)rnd(&seed);
		const struct draw d = draw_for(s, &seed);
		prepare(&model_a, s, &d);
		prepare(&model_b, s, &d);
		struct where w = {s->name, seed0, 0, 0, 0};
		same_models(&w);
		unsigned depth =
		    model_a.caps.lbr.kind == TC_LBR_LEGACY ? model_a.lbr.depth : LBR_MAX_DEPTH;
		for (unsigned batch = 0; batch < BATCHES; batch++) {
			unsigned cpl = s->cpl >= 0 ? (unsigned)s->cpl : below(&seed, 2) ? 3 : 0;
			size_t k = batch_size(&seed, depth);
			uint64_t steps = 0;
			for (size_t i = 0; i < k; i++) {
				r[i] = run_of(&seed, cpl);
				steps += r[i].n + (r[i].kind != X86_BR_NONE);
			}
			w = (struct where){s->name, seed0, batch, cpl, k};
			/* the code cache's question, before the runs (xlate.c: each run ends in one
			 * branch at most, so k bounds the branches and BTS records) */
			bool room = spmu_feed_runs_room(use(&model_a), cpl, steps, k);
			if (room != spmu_feed_runs_room(use(&model_b), cpl, steps, k))
				DIFFER(&w, "spmu_feed_runs_room", room, !room);
			/* the branch counter alone counts: room for k runs iff k <= its ticks
			 * left (spmu_counters_quiet_runs, below) */
			uint64_t left = genmask(model_a.ctr.gp_width - 1, 0) - model_a.ctr.pmc[0];
			if (s->ctr == CTR_BRANCHES_NEAR && room != (k <= left))
				fail_msg("%s, seed %llu: room for %zu runs with %llu ticks left on "
					 "the branch counter: %d",
					 s->name, (unsigned long long)seed0, k,
					 (unsigned long long)left, room);
			if (!room) {
				t->refused++;
				continue;
			}
			t->accepted++;
			t->runs += k;
			/* (an empty batch goes neither way: there is nothing to do) */
			if (k && fast_way(r, k))
				t->fast++;
			else if (k)
				t->slow++;
			uint64_t recorded = model_a.stats.lbr_recorded;
			if (!spmu_feed_runs(use(&model_a), r, k))
				DIFFER(&w, "spmu_feed_runs' answer (a PMI came due)", 0, 1);
			t->recorded += model_a.stats.lbr_recorded - recorded;
			size_t bad = 0;
			if (!per_run(use(&model_b), r, k, &bad)) {
				dump_batch(r, k);
				fail_msg(
				    "%s, seed %llu, batch %u: spmu_feed_runs_room promised %zu "
				    "runs, but the per-run way cannot take run %zu quietly",
				    s->name, (unsigned long long)seed0, batch, k, bad);
			}
			if (memcmp(&model_a, &model_b, sizeof(model_a)) != 0 ||
			    memcmp(mem_a, mem_b, MEM_SIZE) != 0)
				dump_batch(r, k);
			same_models(&w);
		}
	}
}

static void runs_at_once_as_run_by_run(void **state)
{
	(void)state;
	unsigned fast = 0, slow = 0;
	for (size_t i = 0; i < N_SETUPS; i++) {
		const struct setup *s = &setups[i];
		struct tally t = {0};
		one_setup(s, &t);
		print_message(
		    "# %-44s accepted %3u refused %3u (fast %3u, per run %3u), %llu runs, "
		    "%llu LBR records\n",
		    s->name, t.accepted, t.refused, t.fast, t.slow, (unsigned long long)t.runs,
		    (unsigned long long)t.recorded);
		if (s->path == PATH_NONE) {
			if (t.accepted)
				fail_msg("%s: %u batches accepted", s->name, t.accepted);
			continue;
		}
		/* not vacuous: batches were fed, the way the setup is for */
		if (!t.accepted || (s->all_accepted && t.refused))
			fail_msg("%s: %u batches accepted, %u refused", s->name, t.accepted,
				 t.refused);
		if (!!(s->path & PATH_FAST) != !!t.fast || !!(s->path & PATH_SLOW) != !!t.slow)
			fail_msg("%s: %u batches fed the fast way, %u per run", s->name, t.fast,
				 t.slow);
		fast += t.fast;
		slow += t.slow;
	}
	assert_true(fast > 500 && slow > 300);
}

/* ---- spmu_counters_quiet_runs against its definition -------------------------------------- */

/*
 * A counter of BR_INST_RETIRED.ALL_BRANCHES (C4H, umask 00H) ticks once a branch, every other
 * counter the model has at most once a step (SDM Vol. 3B 18.2.1.2, Table 18-1); a counter
 * overflows when it wraps, on the tick after the one that leaves it at its maximum (the
 * model's bump, and the PMI that overflow requests with INT set, SDM Vol. 3B 18.2). So with L ticks
 * left on the branch counter, `steps` steps of which `branches` are branches are quiet iff branches
 * <= L, and with L' left on an instruction counter iff also steps <= L'.
 */
static void quiet_runs_by_definition(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t seed = 0x5eed;
	unsigned checked = 0, quiet = 0;
	for (unsigned trial = 0; trial < 3000; trial++) {
		spmu_init(&m, spmu_personality_find("skylake"), lin);
		uint64_t lb = below(&seed, 3000), li = below(&seed, 20000),
			 lf = below(&seed, 20000);
		bool inst = below(&seed, 2), fixed = below(&seed, 2);
		wr(&m, MSR_IA32_PERFEVTSEL0,
		   SEL(ARCH_EVENT_BRANCHES, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT));
		gp_left(&m, 0, lb);
		uint64_t ctrl = BIT(0);
		if (inst) {
			wr(&m, MSR_IA32_PERFEVTSEL0 + 1,
			   SEL(ARCH_EVENT_INSTRUCTIONS, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT));
			gp_left(&m, 1, li);
			ctrl |= BIT(1);
		}
		if (fixed) {
			wr(&m, MSR_IA32_FIXED_CTR_CTRL,
			   FIXED_CTRL_OS(0) | FIXED_CTRL_USR(0) | FIXED_CTRL_PMI(0));
			fixed_left(&m, 0, lf);
			ctrl |= GLOBAL_STATUS_FIXED(0);
		}
		wr(&m, MSR_IA32_PERF_GLOBAL_CTRL, ctrl);
		for (unsigned q = 0; q < 20; q++) {
			/* around each bound, and anywhere */
			uint64_t branches = q < 3   ? lb + q - (lb ? 1 : 0)
					    : q < 6 ? below(&seed, lb + 2)
						    : below(&seed, 4000);
			uint64_t base = q % 2 ? li : lf;
			uint64_t steps = q >= 6 && q < 12 ? base + below(&seed, 3) - (base ? 1 : 0)
							  : below(&seed, 25000);
			if (steps < branches)
				steps = branches;
			bool want =
			    branches <= lb && (!inst || steps <= li) && (!fixed || steps <= lf);
			if (spmu_counters_quiet_runs(&m.ctr, steps, branches) != want)
				fail_msg("L %llu (branches), %s %llu, %s %llu: %llu steps, %llu "
					 "branches: quiet_runs says %d",
					 (unsigned long long)lb, inst ? "instructions" : "(off)",
					 (unsigned long long)li, fixed ? "fixed 0" : "(off)",
					 (unsigned long long)lf, (unsigned long long)steps,
					 (unsigned long long)branches, !want);
			checked++;
			quiet += want;
		}
	}
	assert_true(quiet > 10000 && checked - quiet > 10000);

	/* what makes it say no whatever the counts (spmu_counters_quiet's): a memory event
	 * counted (MEM_INST_RETIRED.ALL_LOADS D0H/81H on Skylake), or a PEBS record armed */
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	assert_true(spmu_counters_quiet_runs(&m.ctr, UINT64_MAX, UINT64_MAX));
	wr(&m, MSR_IA32_PERFEVTSEL0 + 2,
	   SEL(EVENT_MEM_INST_RETIRED, UMASK_ALL_LOADS, EVTSEL_USR | EVTSEL_OS));
	assert_false(spmu_counters_quiet_runs(&m.ctr, 0, 0));
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	m.ctr.pebs_armed = BIT(0);
	assert_false(spmu_counters_quiet_runs(&m.ctr, 0, 0));
	/* and yes: counters frozen (CTR_Frz, SDM Vol. 3B 17.4.7) count nothing */
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	wr(&m, MSR_IA32_PERFEVTSEL0, SEL(ARCH_EVENT_INSTRUCTIONS, 0, EVTSEL_USR | EVTSEL_OS));
	gp_left(&m, 0, 5);
	assert_false(spmu_counters_quiet_runs(&m.ctr, 6, 0));
	m.ctr.global_status |= GLOBAL_STATUS_CTR_FRZ;
	assert_true(spmu_counters_quiet_runs(&m.ctr, 6, 0));
}

/*
 * The edge, through the model's entries: a branch counter with L ticks left takes a batch of L
 * runs that each end in a branch (spmu_feed_runs_room yes, no overflow, no PMI, the counter at
 * its maximum after), but not L + 1 (the room check says no); and that no is exact, not
 * cautious: one more branch the long way (spmu_feed) overflows the counter and asks for its PMI.
 */
static void branch_counter_edge(void **state)
{
	(void)state;
	static struct run_with_branch r[MAX_RUNS];
	uint64_t seed = 0xed6e;
	for (unsigned trial = 0; trial < 200; trial++) {
		struct spmu *a = use(&model_a);
		spmu_init(a, spmu_personality_find(trial % 2 ? "skylake" : "icelake"), lin);
		uint64_t left = 1 + below(&seed, 400);
		unsigned cpl = below(&seed, 2) ? 3 : 0;
		wr(a, MSR_IA32_DEBUGCTL, DEBUGCTL_LBR);
		wr(a, MSR_IA32_PERFEVTSEL0,
		   SEL(ARCH_EVENT_BRANCHES, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT));
		gp_left(a, 0, left);
		/* an instruction counter far from overflow alongside */
		wr(a, MSR_IA32_PERFEVTSEL0 + 1,
		   SEL(ARCH_EVENT_INSTRUCTIONS, 0, EVTSEL_USR | EVTSEL_OS | EVTSEL_INT));
		gp_left(a, 1, 1u << 30);
		wr(a, MSR_IA32_PERF_GLOBAL_CTRL, BIT(0) | BIT(1));
		uint64_t steps = 0;
		for (size_t i = 0; i < left; i++) {
			do
				r[i] = run_of(&seed, cpl);
			while (r[i].kind == X86_BR_NONE);
			steps += r[i].n + 1;
		}
		model_b = model_a;
		assert_false(spmu_feed_runs_room(a, cpl, steps + 1, left + 1));
		assert_true(spmu_feed_runs_room(a, cpl, steps, left));
		assert_true(spmu_feed_runs(a, r, left));
		assert_int_equal(a->ctr.global_status, 0);
		assert_false(a->pmi_pending);
		assert_int_equal(a->ctr.pmc[0], genmask(a->ctr.gp_width - 1, 0));
		assert_int_equal(a->stats.pmis_requested, 0);
		/* the per-run way ends the same, quietly */
		size_t bad;
		assert_true(per_run(use(&model_b), r, left, &bad));
		assert_memory_equal(&model_a, &model_b, sizeof(model_a));
		/* now no room for one more branch, but for plain steps (the branch counter does
		 * not count them) */
		assert_false(spmu_feed_runs_room(a, cpl, 1, 1));
		assert_true(spmu_feed_runs_room(a, cpl, 1000, 0));
		/* the branch the long way: the counter wraps, GLOBAL_STATUS bit 0, a PMI */
		const struct spmu_feed_step st = {.retired = r[0].from,
						  .next = r[0].to,
						  .insn = {.length = 2, .branch = X86_BR_JMP_REL},
						  .outcome = X86_STEP_TAKEN,
						  .cpl_from = cpl,
						  .cpl_to = cpl};
		assert_int_equal(spmu_feed(a, &st), SPMU_FEED_PMI);
		assert_int_equal(a->ctr.global_status, BIT(0));
		assert_int_equal(a->ctr.pmc[0], 0);
	}
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(runs_at_once_as_run_by_run),
    cmocka_unit_test(quiet_runs_by_definition),
    cmocka_unit_test(branch_counter_edge),
};

UNIT_MAIN(tests)
