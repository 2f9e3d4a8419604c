// clang-format off
// UNIT-SOURCES: arch/x86/model/spmu.c arch/x86/model/arch_lbr.c arch/x86/model/counters.c arch/x86/model/lbr.c arch/x86/model/bts.c arch/x86/model/pebs.c arch/x86/model/personality.c arch/x86/caps/caps.c arch/x86/caps/lbr_models.c arch/x86/caps/cpu_ident.c lib/fmt.c
// clang-format on
/*
 * The software PMU's MSR file and branch path: personalities decode as their processors,
 * refused writes become model #GPs with a reason, LBR MSRs sit at the personality's addresses,
 * and a branch reaches the LBR stack and the DS BTS buffer as the SDM says.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "arch/x86/model/spmu.h"
#include "arch/x86/caps/lbr_models.h"

#define DS_LIN	0x200000ull
#define BTS_LIN 0x201000ull

static uint8_t mem[0x4000]; /* DS area at DS_LIN, BTS buffer at BTS_LIN */

static void *lin(uint64_t a)
{
	if (a < DS_LIN || a >= DS_LIN + sizeof(mem))
		return NULL;
	return mem + (a - DS_LIN);
}

/*
 * Where each personality keeps its LBR stack (model/personality.c, the model's side) and where
 * the capability decoder says that processor keeps it (caps/lbr_models.c, from Linux's
 * intel_pmu_lbr_init_* rows) are written independently: the sessions use only the latter,
 * so they must agree on every personality with legacy LBR.
 */
static void personalities_lbr_registers_match_the_caps_table(void **state)
{
	(void)state;
	static struct spmu m;
	unsigned legacy = 0;
	for (unsigned i = 0; spmu_personality_at(i); i++) {
		const struct spmu_personality *p = spmu_personality_at(i);
		spmu_init(&m, p, lin);
		if (m.caps.lbr.kind != TC_LBR_LEGACY)
			continue;
		legacy++;
		assert_int_equal(m.caps.lbr.from_base, p->lbr_from_base);
		assert_int_equal(m.caps.lbr.to_base, p->lbr_to_base);
		assert_int_equal(m.caps.lbr.info_base, p->lbr_info_base);
		assert_int_equal(m.caps.lbr.has_select, p->lbr_select);
		assert_int_equal(!!(m.caps.lbr.quirks & LBR_QUIRK_NHM_SELECT),
				 p->lbr_select_erratum);
	}
	assert_true(legacy >= 4); /* skylake, nehalem, core2, icelake */
}

static void personalities_decode_as_their_processors(void **state)
{
	(void)state;
	static struct spmu m;
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	assert_int_equal(m.caps.lbr.kind, TC_LBR_LEGACY);
	assert_int_equal(m.caps.lbr.format, 5);
	assert_int_equal(m.caps.lbr.depth, 32);
	assert_int_equal(m.caps.bts.kind, TC_BTS_CPL_QUALIFIED);
	assert_int_equal(m.caps.freeze.kind, TC_FREEZE_STREAMLINED);
	spmu_init(&m, spmu_personality_find("nehalem"), lin);
	assert_int_equal(m.caps.lbr.format, 3);
	assert_int_equal(m.caps.lbr.depth, 16);
	assert_int_equal(m.caps.freeze.kind, TC_FREEZE_LEGACY);
	spmu_init(&m, spmu_personality_find("core2"), lin);
	assert_int_equal(m.caps.lbr.kind, TC_LBR_LEGACY);
	assert_int_equal(m.caps.lbr.depth, 4);
	assert_int_equal(m.caps.pebs.format, 0);
	assert_int_equal(m.ctr.pebs_valid, BIT(0)); /* PEBS on PMC0 only */
	assert_int_equal(m.caps.freeze.kind, TC_FREEZE_LEGACY);
	spmu_init(&m, spmu_personality_find("icelake"), lin);
	assert_int_equal(m.caps.perfmon.version, 5);
	assert_true(m.caps.pebs.adaptive);
	assert_int_equal(m.caps.lbr.format, 5);
	spmu_init(&m, spmu_personality_find("arrowlake"), lin);
	assert_int_equal(m.caps.lbr.kind, TC_LBR_ARCH);
	assert_int_equal(m.caps.lbr.depth, 32);
	assert_true(m.caps.pebs.adaptive);
	uint64_t v;
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_LBR_DEPTH, &v), STATUS_OK);
	assert_int_equal(v, 32);
	assert_int_equal(spmu_rdmsr(&m, 0x680, &v), STATUS_REFUSED); /* no legacy LBR MSRs */
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_LBR_CTL, LBR_CTL_LBREN | LBR_CTL_OS | LBR_CTL_JCC),
			 STATUS_OK);
	spmu_branch(&m, 0xffffffff80001000ull, 0xffffffff80000f00ull, X86_BR_JCC, 0, 0);
	spmu_branch(&m, 0xffffffff80001010ull, 0xffffffff80002000ull, X86_BR_CALL_REL, 0, 0);
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_LBR_FROM0, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff80001000ull); /* the call was not selected */
	assert_null(spmu_personality_find("pentium"));
}

static void refused_accesses_are_model_gps(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t v;
	spmu_init(&m, spmu_personality_find("nehalem"), lin);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, BIT(20)), STATUS_REFUSED);
	assert_non_null(strstr(m.gp_reason, "DEBUGCTL"));
	assert_int_equal(m.gp_msr, MSR_IA32_DEBUGCTL);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, DEBUGCTL_TR | DEBUGCTL_BTS), STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DS_AREA, 0x0000800000000000ull), STATUS_REFUSED);
	assert_int_equal(spmu_wrmsr(&m, MSR_LBR_SELECT, BIT(9)), STATUS_REFUSED); /* call stack */
	assert_int_equal(spmu_wrmsr(&m, 0x345, 0), STATUS_REFUSED);		  /* read-only */
	assert_int_equal(spmu_rdmsr(&m, 0xdc0, &v), STATUS_REFUSED); /* no LBR_INFO on format 3 */
	assert_int_equal(spmu_rdmsr(&m, 0x680 + 16, &v), STATUS_REFUSED); /* beyond depth 16 */
	assert_int_equal(spmu_rdmsr(&m, 0x680 + 15, &v), STATUS_OK);
	assert_int_equal(spmu_rdmsr(&m, 0x12345, &v), STATUS_REFUSED);
	assert_int_equal(m.stats.gp_faults, 7);
	assert_int_equal(spmu_rdmsr(&m, 0x345, &v), STATUS_OK);
	assert_int_equal(v, 0x11c3);
}

/* The kvm personality's DEBUGCTL and LER, as Linux 6.x arch/x86/kvm/vmx/vmx.c vmx_set_msr
 * treats a guest's write: "if (invalid & (DEBUGCTLMSR_BTF|DEBUGCTLMSR_LBR))" the bits are
 * dropped, "if (invalid) return 1" (#GP); supported are DEBUGCTLMSR_LBR_MASK (LBR |
 * FREEZE_LBRS_ON_PMI) with the LBRs virtualized. kvm_get_msr_common reads
 * MSR_IA32_LASTINTFROMIP/TOIP as 0. */
static void kvm_guest_debugctl_rules(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t v;
	spmu_init(&m, spmu_personality_find("kvm"), lin);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, DEBUGCTL_BTF), STATUS_OK);
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_DEBUGCTL, &v), STATUS_OK);
	assert_int_equal(v, 0); /* dropped */
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL,
				    DEBUGCTL_LBR | DEBUGCTL_BTF | DEBUGCTL_FREEZE_LBRS_ON_PMI),
			 STATUS_OK);
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_DEBUGCTL, &v), STATUS_OK);
	assert_int_equal(v, DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI);
	const uint64_t refused[] = {DEBUGCTL_TR,
				    DEBUGCTL_BTS,
				    DEBUGCTL_BTINT,
				    DEBUGCTL_BTS_OFF_OS,
				    DEBUGCTL_BTS_OFF_USR,
				    DEBUGCTL_FREEZE_PERFMON_ON_PMI,
				    DEBUGCTL_FREEZE_WHILE_SMM,
				    DEBUGCTL_LBR | DEBUGCTL_TR};
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, refused[i]), STATUS_REFUSED);
		assert_non_null(strstr(m.gp_reason, "KVM guest"));
	}
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_DEBUGCTL, &v), STATUS_OK);
	assert_int_equal(v, DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI); /* unchanged */
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_DS_AREA, &v), STATUS_REFUSED);
	spmu_branch(&m, 0xffffffff80001000ull, 0xffffffff80002000ull, X86_BR_JMP_REL, 0, 0);
	spmu_exception(&m, 14);
	assert_int_equal(spmu_rdmsr(&m, 0x1dd, &v), STATUS_OK);
	assert_int_equal(v, 0);
	assert_int_equal(spmu_rdmsr(&m, 0x1de, &v), STATUS_OK);
	assert_int_equal(v, 0);
	/* The LBRs themselves record. */
	assert_int_equal(spmu_rdmsr(&m, 0x1c9, &v), STATUS_OK);
	assert_int_equal(spmu_rdmsr(&m, 0x680 + v, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff80001000ull);
}

static void branches_reach_lbr_and_bts(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t v;
	memset(mem, 0, sizeof(mem));
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	struct ds_area64 *ds = lin(DS_LIN);
	ds->bts_base = ds->bts_index = BTS_LIN;
	ds->bts_abs_max = BTS_LIN + 100 * 24;
	ds->bts_threshold = ds->bts_abs_max + 24; /* circular, no interrupt */
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DS_AREA, DS_LIN), STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_LBR_SELECT, LBR_SELECT_NEAR_RET), STATUS_OK);
	assert_int_equal(
	    spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, DEBUGCTL_LBR | DEBUGCTL_TR | DEBUGCTL_BTS),
	    STATUS_OK);
	struct spmu_regs regs = {0};
	struct spmu_step st = {0x1000, 0x1001, false, 0, 0, &regs, false, false, 0, 0};
	for (int i = 0; i < 5; i++)
		spmu_retire(&m, &st);
	spmu_branch(&m, 0xffffffff80001000ull, 0xffffffff80002000ull, X86_BR_CALL_REL, 0, 0);
	spmu_branch(&m, 0xffffffff80002010ull, 0xffffffff80001005ull, X86_BR_RET, 0, 0);
	/* LBR: the return is suppressed by LBR_SELECT; the call is at TOS with 5 cycles. */
	assert_int_equal(m.stats.lbr_recorded, 1);
	assert_int_equal(m.stats.lbr_filtered, 1);
	assert_int_equal(spmu_rdmsr(&m, MSR_LBR_TOS, &v), STATUS_OK);
	assert_int_equal(v, 1);
	assert_int_equal(spmu_rdmsr(&m, 0x680 + 1, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff80001000ull);
	assert_int_equal(spmu_rdmsr(&m, 0x6c0 + 1, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff80002000ull);
	assert_int_equal(spmu_rdmsr(&m, 0xdc0 + 1, &v), STATUS_OK);
	assert_int_equal(v & 0xffff, 5);
	/* BTS: both branches, in order, flagged predicted. */
	assert_int_equal(ds->bts_index, BTS_LIN + 48);
	const struct bts_record *r = lin(BTS_LIN);
	assert_int_equal(r[0].from, 0xffffffff80001000ull);
	assert_int_equal(r[1].to, 0xffffffff80001005ull);
	assert_int_equal(r[1].flags, BTS_FLAG_PREDICTED);
	/* BTS_OFF_OS: ring-0 branches are no longer stored. */
	assert_int_equal(
	    spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_OS),
	    STATUS_OK);
	spmu_branch(&m, 0xffffffff80001000ull, 0xffffffff80002000ull, X86_BR_JMP_REL, 0, 0);
	assert_int_equal(ds->bts_index, BTS_LIN + 48);
	assert_int_equal(m.stats.bts_not_stored, 1);
	spmu_branch(&m, 0x401000, 0x402000, X86_BR_JMP_REL, 3, 3);
	assert_int_equal(ds->bts_index, BTS_LIN + 72);
}

static void exceptions_set_ler_and_debug_clears_lbr(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t v;
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, DEBUGCTL_LBR), STATUS_OK);
	spmu_branch(&m, 0xffffffff80001000ull, 0xffffffff80002000ull, X86_BR_JMP_REL, 0, 0);
	spmu_branch(&m, 0xffffffff80002010ull, 0xffffffff80003000ull, X86_BR_CALL_IND, 0, 0);
	spmu_exception(&m, 14); /* a #PF: the LER takes the last branch before it */
	assert_int_equal(spmu_rdmsr(&m, 0x1dd, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff80002010ull);
	assert_int_equal(spmu_rdmsr(&m, 0x1de, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff80003000ull);
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_DEBUGCTL, &v), STATUS_OK);
	assert_int_equal(v, DEBUGCTL_LBR); /* only a #DB clears it */
	spmu_exception(&m, 1);
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_DEBUGCTL, &v), STATUS_OK);
	assert_int_equal(v, 0);
	uint64_t tos;
	assert_int_equal(spmu_rdmsr(&m, 0x1c9, &tos), STATUS_OK);
	spmu_branch(&m, 0x1000, 0x2000, X86_BR_JMP_REL, 0, 0);
	assert_int_equal(spmu_rdmsr(&m, 0x1c9, &v), STATUS_OK);
	assert_int_equal(v, tos); /* no longer recording; the records are kept */
	assert_int_equal(spmu_rdmsr(&m, 0x680 + tos, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff80002010ull);
}

/* SDM Vol. 3B 16.4.2 (253668-032US): "If the LBR flag is cleared and TR flag in the
 * IA32_DEBUGCTL MSR remains set, the processor will continue to update LBR stack MSRs." A BTS
 * session (TR|BTS, LBR clear) therefore moves the legacy LBR stack; Architectural LBR is
 * controlled by IA32_LBR_CTL alone (SDM 18.1.2, LBREn). */
static void tr_alone_updates_the_legacy_lbr_stack(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t tos, v;
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, DEBUGCTL_TR), STATUS_OK);
	spmu_branch(&m, 0xffffffff80001000ull, 0xffffffff80002000ull, X86_BR_JMP_REL, 0, 0);
	assert_int_equal(m.stats.lbr_recorded, 1);
	assert_int_equal(spmu_rdmsr(&m, MSR_LBR_TOS, &tos), STATUS_OK);
	assert_int_equal(spmu_rdmsr(&m, 0x680 + tos, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff80001000ull);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, 0), STATUS_OK);
	spmu_branch(&m, 0x1000, 0x2000, X86_BR_JMP_REL, 0, 0);
	assert_int_equal(m.stats.lbr_recorded, 1); /* neither flag: no update */
	/* SDM Vol. 3B 17.4.4: "For P6 processor family, Pentium M processor family, processors
	 * based on Intel Core microarchitecture, TR and LBR bits" cannot be set together; the LBR
	 * stack is undefined while TR is set: core2 (Penryn) records nothing then. */
	static struct spmu c;
	spmu_init(&c, spmu_personality_find("core2"), lin);
	assert_int_equal(spmu_wrmsr(&c, MSR_IA32_DEBUGCTL, DEBUGCTL_TR | DEBUGCTL_LBR), STATUS_OK);
	spmu_branch(&c, 0x1000, 0x2000, X86_BR_JMP_REL, 0, 0);
	assert_int_equal(c.stats.lbr_recorded, 0);
	assert_int_equal(c.stats.lbr_undefined_tr, 1);
	assert_int_equal(spmu_wrmsr(&c, MSR_IA32_DEBUGCTL, DEBUGCTL_LBR), STATUS_OK);
	spmu_branch(&c, 0x1000, 0x2000, X86_BR_JMP_REL, 0, 0);
	assert_int_equal(c.stats.lbr_recorded, 1);
	static struct spmu a;
	spmu_init(&a, spmu_personality_find("arrowlake"), lin);
	assert_int_equal(spmu_wrmsr(&a, MSR_IA32_DEBUGCTL, DEBUGCTL_TR), STATUS_OK);
	spmu_branch(&a, 0x1000, 0x2000, X86_BR_JMP_REL, 0, 0);
	assert_int_equal(a.stats.lbr_recorded, 0);
}

/* An exception's delivery and its handler's IRET are recorded like branches of the far class
 * ("taken branches, interrupts, and exceptions", SDM Vol. 3B 17.4.8.1; Table 17-13 FAR_BRANCH
 * covers them), so LBR_SELECT's FAR_BRANCH bit suppresses both; neither arms BTF. */
static void transfers_are_far_branches_without_btf(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t v;
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, DEBUGCTL_LBR | DEBUGCTL_BTF), STATUS_OK);
	spmu_transfer(&m, 0x1000, 0xffffffff80009000ull, X86_BR_INT, 3, 0);
	spmu_transfer(&m, 0xffffffff8000a000ull, 0x1000, X86_BR_IRET, 0, 3);
	assert_int_equal(m.stats.lbr_recorded, 2);
	assert_false(spmu_btf_trap(&m));
	assert_int_equal(spmu_rdmsr(&m, MSR_LBR_TOS, &v), STATUS_OK);
	assert_int_equal(spmu_rdmsr(&m, 0x680 + v, &v), STATUS_OK);
	assert_int_equal(v, 0xffffffff8000a000ull); /* the IRET, newest */
	assert_int_equal(spmu_wrmsr(&m, MSR_LBR_SELECT, LBR_SELECT_FAR_BRANCH), STATUS_OK);
	spmu_transfer(&m, 0x1000, 0xffffffff80009000ull, X86_BR_INT, 3, 0);
	spmu_transfer(&m, 0xffffffff8000a000ull, 0x1000, X86_BR_IRET, 0, 3);
	assert_int_equal(m.stats.lbr_recorded, 2);
	assert_int_equal(m.stats.lbr_filtered, 2);
	spmu_branch(&m, 0x1000, 0x1010, X86_BR_JMP_REL, 3, 3); /* a branch does arm it */
	assert_true(spmu_btf_trap(&m));
}

/* A PEBS counter that overflows writes a record, reloads from its DS reset slot, and the
 * buffer threshold raises OvfDSBuffer (GLOBAL_STATUS[62]) with a PMI request. */
/* PEBS on PMC0 counting instructions from -3 (reset -3), a buffer of `records` records of
 * `size` bytes with the threshold at record `threshold`; PMC0 is also globally enabled. */
static struct ds_area64 *pebs_setup(struct spmu *m, const char *personality, size_t size,
				    unsigned records, unsigned threshold, uint64_t global_ctrl)
{
	memset(mem, 0, sizeof(mem));
	spmu_init(m, spmu_personality_find(personality), lin);
	struct ds_area64 *ds = lin(DS_LIN);
	ds->pebs_base = ds->pebs_index = BTS_LIN;
	ds->pebs_abs_max = BTS_LIN + records * size;
	ds->pebs_threshold = BTS_LIN + threshold * size;
	ds->pebs_counter_reset[0] = 0xfffffffffffdull; /* period 3, 48-bit counter */
	assert_int_equal(spmu_wrmsr(m, MSR_IA32_DS_AREA, DS_LIN), STATUS_OK);
	assert_int_equal(spmu_wrmsr(m, MSR_IA32_PMC0, (uint64_t)-3), STATUS_OK);
	assert_int_equal(spmu_wrmsr(m, MSR_IA32_PERFEVTSEL0, 0xc0 | EVTSEL_EN | EVTSEL_OS),
			 STATUS_OK);
	assert_int_equal(spmu_wrmsr(m, MSR_IA32_PEBS_ENABLE, 1), STATUS_OK);
	assert_int_equal(spmu_wrmsr(m, MSR_IA32_PERF_GLOBAL_CTRL, global_ctrl), STATUS_OK);
	return ds;
}

/* n retired instructions from 0x1000, one byte each. */
static void retire(struct spmu *m, unsigned n, const struct spmu_regs *regs)
{
	for (uint64_t i = 0; i < n; i++) {
		struct spmu_step st = {0x1000 + i, 0x1001 + i, false, 0, 7,
				       regs,	   false,      false, 0, 0};
		spmu_retire(m, &st);
	}
}

static void pebs_overflow_reload_and_threshold(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t v;
	/* 200-byte format 3 records, the second reaches the threshold */
	struct ds_area64 *ds = pebs_setup(&m, "skylake", 200, 10, 2, 1);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_PEBS_ENABLE, BIT(5)),
			 STATUS_REFUSED); /* 4 counters */
	/* Period 3: the counter overflows at instructions 3 and 7, and "an overflow condition
	 * in the counter will arm PEBS. On the subsequent event following overflow, the
	 * processor will generate a PEBS event" (SDM Vol. 3B 18.4.4): records at 4 and 8. */
	struct spmu_regs regs = {.rax = 0x42};
	for (uint64_t i = 0; i < 8; i++) {
		struct spmu_step st = {0x1000 + i, 0x1001 + i, false, 0, 7,
				       &regs,	   false,      false, 0, 0};
		spmu_retire(&m, &st);
		if (i == 2) /* third instruction: the overflow arms PEBS, no record yet */
			assert_int_equal(m.stats.pebs_records, 0);
		if (i == 3) /* fourth instruction: first record, no threshold yet */
			assert_false(m.pmi_pending);
	}
	assert_int_equal(m.stats.pebs_records, 2);
	assert_int_equal(ds->pebs_index, BTS_LIN + 400);
	assert_true(m.pmi_pending);
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_STATUS, &v), STATUS_OK);
	assert_true(v & GLOBAL_STATUS_DS_BUFFER);
	/* "store the data record ..., clear the counter overflow status, and reload the counter"
	 * (SDM Vol. 3B 18.4.4.1): PMC0's overflow bit is clear after each record. */
	assert_false(v & BIT(0));
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_PMC0, &v), STATUS_OK);
	assert_int_equal(v, 0xfffffffffffdull); /* reloaded after the second record */
	const struct pebs_record_fmt3 *r = lin(BTS_LIN);
	assert_int_equal(r[0].f2.eventing_ip, 0x1003); /* the fourth instruction */
	assert_int_equal(r[0].f2.f1.g.rip, 0x1004);    /* trap-like: the next one */
	assert_int_equal(r[1].f2.eventing_ip, 0x1007);
	assert_int_equal(r[0].f2.f1.g.rax, 0x42);
	assert_int_equal(r[0].tsc, 7);
}

/*
 * SDM 253668-032US 16.4.9.2: BTS records have the 64-bit format "with the exception that the
 * branch predicted bit is not supported by Intel Core microarchitecture or Intel Atom
 * microarchitecture": Core 2 (Penryn) records carry no flag, Skylake's do (bit 4).
 */
static void bts_predicted_flag_only_where_the_sdm_has_it(void **state)
{
	(void)state;
	static struct spmu m;
	static const struct {
		const char *personality;
		uint64_t flags;
	} cases[] = {{"core2", 0}, {"skylake", BIT(4)}};
	for (unsigned i = 0; i < 2; i++) {
		memset(mem, 0, sizeof(mem));
		spmu_init(&m, spmu_personality_find(cases[i].personality), lin);
		struct ds_area64 *ds = lin(DS_LIN);
		ds->bts_base = ds->bts_index = BTS_LIN;
		ds->bts_abs_max = BTS_LIN + 10 * 24;
		ds->bts_threshold = ds->bts_abs_max + 24;
		assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DS_AREA, DS_LIN), STATUS_OK);
		assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, DEBUGCTL_TR | DEBUGCTL_BTS),
				 STATUS_OK);
		spmu_branch(&m, 0xffffffff80001000ull, 0xffffffff80001040ull, X86_BR_JMP_REL, 0, 0);
		const struct bts_record *r = lin(BTS_LIN);
		assert_int_equal(r[0].from, 0xffffffff80001000ull);
		assert_int_equal(r[0].flags, cases[i].flags);
	}
}

/*
 * "If the bounds checks fail, the PEBS will be skipped entirely" (SDM Vol. 3B 18.4.4.1): with
 * room for one record, the second armed PEBS writes nothing, leaves the overflow status set
 * and does not reload the counter (it wrapped and counts on from 0).
 */
static void pebs_skipped_entirely_when_full(void **state)
{
	(void)state;
	static struct spmu m;
	uint64_t v;
	pebs_setup(&m, "skylake", 200, 1, 10, 1); /* room for one record, threshold never */
	/* Overflows at 3 and 7 arm PEBS; the record of 4 is stored, the one of 8 fails. */
	struct spmu_regs regs = {0};
	retire(&m, 8, &regs);
	assert_int_equal(m.stats.pebs_records, 1);
	assert_int_equal(m.stats.pebs_dropped, 1);
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_STATUS, &v), STATUS_OK);
	assert_true(v & BIT(0)); /* the skipped overflow stays */
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_PMC0, &v), STATUS_OK);
	assert_int_equal(v, 1); /* wrapped at the seventh, counted the eighth, not reloaded */
}

/*
 * PEBS formats 1 and 2 store IA32_PERF_GLOBAL_STATUS in the record (SDM Vol. 3B 18.8.1.1, the
 * Nehalem PEBS record's field at 90H): on Nehalem, PMC1 overflowing before PMC0's PEBS
 * event shows in the record's status next to PMC0's own bit.
 */
static void pebs_format1_status_is_the_global_status(void **state)
{
	(void)state;
	static struct spmu m;
	pebs_setup(&m, "nehalem", 176, 10, 9, 3); /* 176-byte format 1 records; PMC0 and PMC1 */
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_PMC0 + 1, (uint64_t)-2), STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0 + 1, 0xc0 | EVTSEL_EN | EVTSEL_OS),
			 STATUS_OK);
	struct spmu_regs regs = {0};
	retire(&m, 4, &regs);
	assert_int_equal(m.stats.pebs_records, 1);
	const struct pebs_record_fmt1 *r = lin(BTS_LIN);
	assert_int_equal(r->status & (BIT(0) | BIT(1)), BIT(0) | BIT(1));
}

/* One instruction at 0x1000 + i with the given data accesses (0: none). */
static void retire_mem(struct spmu *m, uint64_t i, uint64_t load, uint64_t store)
{
	static const struct spmu_regs regs = {0};
	struct spmu_step st = {0x1000 + i, 0x1001 + i, false,	   0,	 7,
			       &regs,	   load != 0,  store != 0, load, store};
	spmu_retire(m, &st);
}

/* Skylake's MEM_INST_RETIRED.ALL_LOADS (D0H/81H) counts instructions that load; PEBS writes
 * on the load after the overflow (SDM Vol. 3B 18.4.4), and its "Load/Store Data Linear Address
 * (Offset 98H): This field will contain the linear address of the source of the load, or
 * linear address of the destination of the store" (18.9.4.1). Instructions without a load
 * do not count; ALL_STORES (D0H/82H) records the store's destination. */
static void pebs_memory_events_carry_the_data_address(void **state)
{
	(void)state;
	static struct spmu m;
	struct ds_area64 *ds = pebs_setup(&m, "skylake", 200, 8, 8, 1);
	assert_int_equal(
	    spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xd0 | 0x81 << 8 | EVTSEL_EN | EVTSEL_OS),
	    STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_PMC0, (uint64_t)-2), STATUS_OK);
	for (uint64_t i = 0; i < 6; i++) /* loads at 0, 2, 4: the overflow at 2, the record at 4 */
		retire_mem(&m, i, i % 2 ? 0 : 0x9000 + 0x40 * i, i % 2 ? 0x8000 : 0);
	assert_int_equal(m.stats.pebs_records, 1);
	const struct pebs_record_fmt3 *r = lin(BTS_LIN);
	assert_int_equal(r->f2.eventing_ip, 0x1004);
	assert_int_equal(r->f2.f1.dla, 0x9000 + 0x40 * 4);
	assert_int_equal(r->f2.f1.latency, 0); /* not the load-latency event */
	/* ALL_STORES: stores at 1, 3, 5 (period 2): the record at 5 holds its destination. */
	ds = pebs_setup(&m, "skylake", 200, 8, 8, 1);
	assert_int_equal(
	    spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xd0 | 0x82 << 8 | EVTSEL_EN | EVTSEL_OS),
	    STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_PMC0, (uint64_t)-2), STATUS_OK);
	for (uint64_t i = 0; i < 6; i++)
		retire_mem(&m, i, i % 2 ? 0 : 0x9000, i % 2 ? 0x8000 + 8 * i : 0);
	assert_int_equal(m.stats.pebs_records, 1);
	assert_int_equal(r->f2.eventing_ip, 0x1005);
	assert_int_equal(r->f2.f1.dla, 0x8000 + 8 * 5);
	(void)ds;
}

/* Load latency (SDM Vol. 3B 18.8.1.2, 18.9.4.2): MEM_TRANS_RETIRED "IA32_PerfEvtSelX[15:0] =
 * 1CDH"; "Loads with latencies greater than this value are eligible for counting and latency
 * data reporting"; "both the PEBS_EN_CTRX and LL_EN_CTRX bits must be set". With the model's
 * cache (spmu.h: a hit takes SPMU_LAT_L1 = 4 cycles, source 01H; a miss SPMU_LAT_L2, source 03H)
 * and a threshold of 4, only misses count. */
static void load_latency_counts_loads_above_the_threshold(void **state)
{
	(void)state;
	static struct spmu m;
	pebs_setup(&m, "skylake", 200, 8, 8, 1);
	assert_int_equal(
	    spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xcd | 0x01 << 8 | EVTSEL_EN | EVTSEL_OS),
	    STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_PMC0, (uint64_t)-2), STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_PEBS_LD_LAT, 4), STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_PEBS_ENABLE, BIT(0) | BIT(32)), STATUS_OK);
	/* X miss (1), X hit, Y miss (2: overflow), Y hit, Z miss: the record. */
	static const uint64_t loads[] = {0x10000, 0x10008, 0x20000, 0x20010, 0x30000};
	for (uint64_t i = 0; i < 5; i++)
		retire_mem(&m, i, loads[i], 0);
	assert_int_equal(m.stats.pebs_records, 1);
	const struct pebs_record_fmt3 *r = lin(BTS_LIN);
	assert_int_equal(r->f2.eventing_ip, 0x1004);
	assert_int_equal(r->f2.f1.dla, 0x30000);
	assert_int_equal(r->f2.f1.dse, SPMU_DSE_L2_HIT);
	assert_int_equal(r->f2.f1.latency, SPMU_LAT_L2);
	/* Without LL_EN_CTR0 the event counts nothing. */
	pebs_setup(&m, "skylake", 200, 8, 8, 1);
	assert_int_equal(
	    spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xcd | 0x01 << 8 | EVTSEL_EN | EVTSEL_OS),
	    STATUS_OK);
	uint64_t before, after;
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_PMC0, &before), STATUS_OK);
	for (uint64_t i = 0; i < 5; i++)
		retire_mem(&m, i, 0x40000 + 0x40 * i, 0);
	assert_int_equal(spmu_rdmsr(&m, MSR_IA32_PMC0, &after), STATUS_OK);
	assert_int_equal(before, after);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(pebs_overflow_reload_and_threshold),
    cmocka_unit_test(exceptions_set_ler_and_debug_clears_lbr),
    cmocka_unit_test(transfers_are_far_branches_without_btf),
    cmocka_unit_test(tr_alone_updates_the_legacy_lbr_stack),
    cmocka_unit_test(pebs_memory_events_carry_the_data_address),
    cmocka_unit_test(load_latency_counts_loads_above_the_threshold),
    cmocka_unit_test(personalities_decode_as_their_processors),
    cmocka_unit_test(personalities_lbr_registers_match_the_caps_table),
    cmocka_unit_test(refused_accesses_are_model_gps),
    cmocka_unit_test(kvm_guest_debugctl_rules),
    cmocka_unit_test(branches_reach_lbr_and_bts),
    cmocka_unit_test(bts_predicted_flag_only_where_the_sdm_has_it),
    cmocka_unit_test(pebs_skipped_entirely_when_full),
    cmocka_unit_test(pebs_format1_status_is_the_global_status),
};
UNIT_MAIN(tests)
