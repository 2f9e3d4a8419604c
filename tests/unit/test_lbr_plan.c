// clang-format off
// UNIT-SOURCES: arch/x86/drivers/lbr_plan.c arch/x86/model/lbr.c arch/x86/model/arch_lbr.c arch/x86/caps/lbr_models.c lib/list.c lib/fmt.c
// clang-format on
/*
 * LBR filter -> MSR_LBR_SELECT / IA32_LBR_CTL values against hand-computed constants (bit
 * meanings spelled out), the Nehalem/Westmere erratum widening, refusals, quirks, Arch LBR
 * depth choice, every legacy format's decoding and Arch LBR_INFO decoding (also against the
 * software PMU's encoders), and the filter parser.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/drivers/lbr_plan.h"
#include "arch/x86/caps/lbr_models.h"
#include "arch/x86/model/arch_lbr.h"
#include "arch/x86/model/lbr.h"
#include "kernel/arch_trace.h"

static char why[256];

static struct trace_caps legacy(uint32_t model, unsigned format, unsigned depth, const char *name)
{
	struct trace_caps c = {.vendor = TC_VENDOR_INTEL, .family = 6, .model = model};
	c.stepping = 10;
	c.lbr.kind = TC_LBR_LEGACY;
	c.lbr.format = format;
	c.lbr.depth = depth;
	c.lbr.uarch = name;
	/* The per-model facts as the capability decoder takes them: from the table's row. */
	const struct lbr_model *m = lbr_model_find(6, model);
	assert_non_null(m);
	c.lbr.quirks = m->quirks;
	c.lbr.has_select = !(m->quirks & LBR_QUIRK_NO_SELECT);
	return c;
}

#define SKYLAKE	   legacy(0x5e, 5, 32, "Skylake")
#define HASWELL	   legacy(0x3c, 4, 16, "Haswell")
#define SANDY	   legacy(0x2a, 3, 16, "Sandy Bridge")
#define NEHALEM	   legacy(0x1e, 3, 16, "Nehalem")
#define WESTMERE   legacy(0x2c, 3, 16, "Westmere-EP")
#define PENRYN	   legacy(0x17, 2, 4, "Core 2 (Penryn)")
#define BONNELL	   legacy(0x1c, 1, 8, "Atom (Bonnell)")
#define SILVERMONT legacy(0x37, 1, 8, "Atom (Silvermont)")

static struct trace_caps arch(bool cpl, bool filter, bool call_stack)
{
	struct trace_caps c = {.vendor = TC_VENDOR_INTEL, .family = 6, .model = 0xc6};
	c.lbr.kind = TC_LBR_ARCH;
	c.lbr.depth = 32;
	c.arch_lbr = (struct tc_arch_lbr){.present = true, .depth_mask = 0x0f, .max_depth = 32};
	c.arch_lbr.cpl_filter = cpl;
	c.arch_lbr.branch_filter = filter;
	c.arch_lbr.call_stack = call_stack;
	c.arch_lbr.mispredict = c.arch_lbr.timed = c.arch_lbr.branch_type = true;
	return c;
}

static const struct lbr_filter user_all = {.user = true, .branch_types = LBR_F_ALL};
static const struct lbr_filter kernel_all = {.kernel = true, .branch_types = LBR_F_ALL};
static const struct lbr_filter both_all = {.user = true, .kernel = true, .branch_types = LBR_F_ALL};
static const struct lbr_filter both_calls = {
    .user = true, .kernel = true, .branch_types = LBR_F_CALLS};
static const struct lbr_filter user_stack = {.user = true, .call_stack = true};

static uint64_t select_ok(struct trace_caps c, const struct lbr_filter *f, bool *sw)
{
	uint64_t v = ~0ull;
	why[0] = 0;
	assert_int_equal(lbr_select_value(&c, f, &v, sw, why, sizeof(why)), STATUS_OK);
	assert_string_equal(why, "");
	return v;
}

static void select_refused(struct trace_caps c, const struct lbr_filter *f, const char *needle)
{
	uint64_t v = 0x5a5a;
	bool sw = true;
	why[0] = 0;
	assert_int_not_equal(lbr_select_value(&c, f, &v, &sw, why, sizeof(why)), STATUS_OK);
	assert_non_null(strstr(why, needle));
	assert_int_equal(v, 0x5a5a); /* untouched */
}

static void test_select_values(void **state)
{
	bool sw = true;
	(void)state;
	/* User only: bit 0 CPL_EQ_0 set = ring-0 branches suppressed; bits 2-8 clear = every
	 * class recorded. */
	assert_int_equal(select_ok(SKYLAKE, &user_all, &sw), 0x001);
	assert_false(sw);
	/* Kernel only: bit 1 CPL_NEQ_0 set = ring > 0 suppressed. */
	assert_int_equal(select_ok(SKYLAKE, &kernel_all, NULL), 0x002);
	/* Both rings, every class: nothing suppressed. */
	assert_int_equal(select_ok(SKYLAKE, &both_all, NULL), 0x000);
	/* Near calls only: suppress JCC (bit 2, 0x4), NEAR_RET (5, 0x20), NEAR_IND_JMP (6, 0x40),
	 * NEAR_REL_JMP (7, 0x80), FAR_BRANCH (8, 0x100) = 0x1e4. */
	assert_int_equal(select_ok(SKYLAKE, &both_calls, &sw), 0x1e4);
	assert_false(sw);
	/* The same on Sandy Bridge: the Nehalem erratum is fixed there (SDM 17.8). */
	assert_int_equal(select_ok(SANDY, &both_calls, &sw), 0x1e4);
	assert_false(sw);
	/* Call stack, user only: CPL_EQ_0 (0x1) | JCC 0x4 | NEAR_IND_JMP 0x40 | NEAR_REL_JMP 0x80
	 * | FAR 0x100 | EN_CALLSTACK bit 9 (0x200, positive sense) = 0x3c5; calls and returns
	 * (bits 3-5) clear, as SDM 17.9 requires. */
	uint64_t v = select_ok(HASWELL, &user_stack, &sw);
	assert_int_equal(v, 0x3c5);
	assert_false(sw);
	assert_null(lbr_select_check(v, true)); /* the software PMU accepts it */
	struct lbr_filter stack_calls = user_stack;
	stack_calls.branch_types = LBR_F_CALLS | LBR_F_NEAR_RET;
	assert_int_equal(select_ok(SKYLAKE, &stack_calls, NULL), 0x3c5);
	/* Silvermont shares Bonnell's depth and format but has LBR_SELECT (references.md 3.3). */
	assert_int_equal(select_ok(SILVERMONT, &user_all, NULL), 0x001);
}

static void test_select_nehalem_erratum(void **state)
{
	bool sw = false;
	(void)state;
	/* Calls need REL_JMP + IND_JMP (+ FAR) captured too: only JCC (0x4) and NEAR_RET (0x20)
	 * stay suppressed = 0x24; the jumps and far branches are surplus for software. */
	uint64_t v = select_ok(NEHALEM, &both_calls, &sw);
	assert_int_equal(v, 0x24);
	assert_true(sw);
	struct lbr_branch jmp = {.from = 1, .to = 2, .cls = LBR_CLASS_NEAR_REL_JMP, .cpl_to = 3};
	assert_true(lbr_select_allows(v, &jmp)); /* the surplus the caller must drop */
	/* Indirect calls need indirect jumps: suppress JCC 0x4 | NEAR_REL_CALL 0x8 | NEAR_RET
	 * 0x20 | NEAR_REL_JMP 0x80 | FAR 0x100 = 0x1ac. */
	struct lbr_filter ind = {.user = true, .kernel = true, .branch_types = LBR_F_NEAR_IND_CALL};
	sw = false;
	assert_int_equal(select_ok(WESTMERE, &ind, &sw), 0x1ac);
	assert_true(sw);
	/* Conditional branches only: no widening, every class but JCC suppressed = 0x1f8. */
	struct lbr_filter cond = {.user = true, .kernel = true, .branch_types = LBR_F_COND};
	sw = true;
	assert_int_equal(select_ok(NEHALEM, &cond, &sw), 0x1f8);
	assert_false(sw);
	/* Calls together with all jumps and far: nothing surplus. */
	struct lbr_filter wide = {
	    .user = true, .kernel = true, .branch_types = LBR_F_CALLS | LBR_F_JMPS | LBR_F_FAR};
	sw = true;
	assert_int_equal(select_ok(NEHALEM, &wide, &sw), 0x24);
	assert_false(sw);
}

static void test_select_refusals(void **state)
{
	(void)state;
	select_refused(PENRYN, &user_all, "no MSR_LBR_SELECT");
	select_refused(BONNELL, &user_all, "no MSR_LBR_SELECT");
	select_refused(SANDY, &user_stack, "Haswell");
	select_refused(NEHALEM, &user_stack, "Haswell");
	select_refused(SILVERMONT, &user_stack, "Haswell");
	struct lbr_filter f = {.branch_types = LBR_F_ALL};
	select_refused(SKYLAKE, &f, "no ring");
	f = (struct lbr_filter){.user = true};
	select_refused(SKYLAKE, &f, "no branch class");
	f = (struct lbr_filter){.user = true, .call_stack = true, .branch_types = LBR_F_COND};
	select_refused(SKYLAKE, &f, "call_stack records near calls and returns only");
	f = (struct lbr_filter){.user = true, .branch_types = 0x80};
	select_refused(SKYLAKE, &f, "unknown branch-class bits");
	select_refused(arch(true, true, true), &user_all, "IA32_LBR_CTL");
	struct trace_caps none;
	memset(&none, 0, sizeof(none));
	strcpy(none.lbr.reason, "vendor is not Intel");
	select_refused(none, &user_all, "vendor is not Intel");
}

static uint64_t ctl_ok(struct trace_caps c, const struct lbr_filter *f)
{
	uint64_t v = ~0ull;
	struct arch_lbr model;
	struct arch_lbr_caps mc = {c.arch_lbr.depth_mask, c.arch_lbr.cpl_filter,
				   c.arch_lbr.branch_filter, c.arch_lbr.call_stack,
				   c.arch_lbr.timed};
	const char *reason = NULL;
	assert_int_equal(arch_lbr_ctl_value(&c, f, &v, why, sizeof(why)), STATUS_OK);
	arch_lbr_init(&model, &mc);
	assert_int_equal(arch_lbr_write_ctl(&model, v, &reason), 0); /* the model accepts it */
	return v;
}

static void ctl_refused(struct trace_caps c, const struct lbr_filter *f, const char *needle)
{
	uint64_t v = 0x5a5a;
	why[0] = 0;
	assert_int_not_equal(arch_lbr_ctl_value(&c, f, &v, why, sizeof(why)), STATUS_OK);
	assert_non_null(strstr(why, needle));
	assert_int_equal(v, 0x5a5a);
}

static void test_lbr_ctl(void **state)
{
	(void)state;
	/* LBREn 0x1 | OS 0x2 | USR 0x4 | branch classes 16-22 (0x7f0000) = 0x7f0007. */
	assert_int_equal(ctl_ok(arch(true, true, true), &both_all), 0x7f0007);
	/* User-only near calls: LBREn 0x1 | USR 0x4 | NEAR_REL_CALL bit 19 (0x80000) |
	 * NEAR_IND_CALL bit 20 (0x100000) = 0x180005. */
	struct lbr_filter f = {.user = true, .branch_types = LBR_F_CALLS};
	assert_int_equal(ctl_ok(arch(true, true, true), &f), 0x180005);
	/* Kernel call stack: LBREn 0x1 | OS 0x2 | CALL_STACK 0x8 | calls and NEAR_RET (bits
	 * 19-21, 0x380000) = 0x38000b. */
	f = (struct lbr_filter){.kernel = true, .call_stack = true};
	assert_int_equal(ctl_ok(arch(true, true, true), &f), 0x38000b);
	/* Without CPL filtering, both rings: OS/USR stay clear (not enumerated) = 0x7f0001. */
	assert_int_equal(ctl_ok(arch(false, true, false), &both_all), 0x7f0001);
	/* Without branch filtering, every class: bits 16-22 stay clear = 0x7. */
	assert_int_equal(ctl_ok(arch(true, false, false), &both_all), 0x7);

	ctl_refused(arch(false, true, true), &user_all, "CPUID.1CH:EBX[0]");
	ctl_refused(arch(true, false, true), &both_calls, "CPUID.1CH:EBX[1]");
	struct lbr_filter both_stack = {.user = true, .kernel = true, .call_stack = true};
	ctl_refused(arch(true, true, false), &both_stack, "EBX[2]");
	ctl_refused(arch(false, true, true), &both_stack, "EBX[2]");
	ctl_refused(arch(true, true, true), &(struct lbr_filter){.user = true}, "no branch class");
	ctl_refused(SKYLAKE, &both_all, "MSR_LBR_SELECT");
}

static int quirk(struct trace_caps c, const struct lbr_filter *f, uint64_t debugctl)
{
	why[0] = 0;
	return lbr_check_quirks(&c, f, debugctl, why, sizeof(why));
}

static void test_quirks(void **state)
{
	const uint64_t lbr_frz = DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI;
	const uint64_t bts_frz = DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_FREEZE_LBRS_ON_PMI;
	struct trace_caps old = BONNELL;
	(void)state;
	/* Call stack + FREEZE_LBRS_ON_PMI, legacy and Arch LBR; either alone is fine. */
	assert_int_equal(quirk(SKYLAKE, &user_stack, lbr_frz), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "TOS"));
	assert_int_equal(quirk(arch(true, true, true), &user_stack, lbr_frz), STATUS_UNSUPPORTED);
	assert_int_equal(quirk(SKYLAKE, &user_stack, DEBUGCTL_LBR), STATUS_OK);
	assert_int_equal(quirk(SKYLAKE, &user_all, lbr_frz), STATUS_OK);
	/* Bonnell: stepping 10 is fine, 9 is not (references.md 3.3, 8). */
	assert_int_equal(quirk(old, &user_all, DEBUGCTL_LBR), STATUS_OK);
	old.stepping = 9;
	assert_int_equal(quirk(old, &user_all, DEBUGCTL_LBR), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "stepping 9"));
	/* Old Atoms clear TR when FREEZE_LBRS_ON_PMI is set: only the combination is refused,
	 * and not on Silvermont. */
	assert_int_equal(quirk(BONNELL, &user_all, bts_frz), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "DEBUGCTL.TR"));
	assert_int_equal(quirk(BONNELL, &user_all, DEBUGCTL_TR | DEBUGCTL_BTS), STATUS_OK);
	assert_int_equal(quirk(BONNELL, &user_all, lbr_frz), STATUS_OK);
	assert_int_equal(quirk(SILVERMONT, &user_all, bts_frz), STATUS_OK);
}

static void test_pick_depth(void **state)
{
	(void)state;
	/* 0x0f: depths 8, 16, 24, 32. */
	assert_int_equal(arch_lbr_pick_depth(0x0f, 0), 32);
	assert_int_equal(arch_lbr_pick_depth(0x0f, 20), 16);
	assert_int_equal(arch_lbr_pick_depth(0x0f, 32), 32);
	assert_int_equal(arch_lbr_pick_depth(0x0f, 100), 32);
	assert_int_equal(arch_lbr_pick_depth(0x0f, 4), 8); /* none <= 4: the smallest */
	/* 0x0a: depths 16 and 32. */
	assert_int_equal(arch_lbr_pick_depth(0x0a, 24), 16);
	assert_int_equal(arch_lbr_pick_depth(0x0a, 8), 16);
	assert_int_equal(arch_lbr_pick_depth(0x0a, 31), 16);
	assert_int_equal(arch_lbr_pick_depth(0x80, 0), 64);
	assert_int_equal(arch_lbr_pick_depth(0, 0), 0);
	assert_int_equal(arch_lbr_pick_depth(0, 16), 0);
}

static struct lbr_entry dec(unsigned fmt, uint64_t from, uint64_t to, uint64_t info)
{
	struct lbr_entry e;
	memset(&e, 0xa5, sizeof(e)); /* every field must be written */
	lbr_decode_legacy(fmt, from, to, info, &e);
	return e;
}

#define KADDR 0xffffffff81000010ull /* a canonical kernel address: bits 63:47 set */
#define UADDR 0x0000000000401000ull

/* The entry's flags as letters: M mispred, m mispred_valid, T in_tx, A abort, t tsx_valid,
 * c cycles_valid; then checks the addresses, the cycles and the flags. */
static void check(struct lbr_entry e, uint64_t from, uint64_t to, unsigned cycles,
		  const char *flags)
{
	char got[8], *p = got;
	const bool bits[] = {e.mispred, e.mispred_valid, e.in_tx,
			     e.abort,	e.tsx_valid,	 e.cycles_valid};
	for (int i = 0; i < 6; i++)
		if (bits[i])
			*p++ = "MmTAtc"[i];
	*p = 0;
	assert_int_equal(e.from, from);
	assert_int_equal(e.to, to);
	assert_int_equal(e.cycles, cycles);
	assert_string_equal(got, flags);
}

static void test_decode_legacy(void **state)
{
	(void)state;
	/* Format 0: FROM in FROM_MSR[31:0], TO in FROM_MSR[63:32]; the TO MSR is ignored. */
	check(dec(0, 0x8048123400401000ull, 0xdeadbeef, ~0ull), 0x00401000, 0x80481234, 0, "");
	assert_int_equal(dec(0, 0, 0, 0).br_type, -1);
	/* Formats 1, 2: 64-bit addresses as read, bit 63 is no flag. */
	check(dec(1, 0x8000000000401000ull, KADDR, ~0ull), 0x8000000000401000ull, KADDR, 0, "");
	check(dec(2, 0x8000000000401000ull, KADDR, ~0ull), 0x8000000000401000ull, KADDR, 0, "");
	/* Format 3: FROM[63] mispredict, address sign-extended from bit 62 (bit 62 alone shows
	 * it is the sign bit); TO as read. */
	check(dec(3, KADDR & ~(1ull << 63), KADDR, ~0ull), KADDR, KADDR, 0, "m");
	check(dec(3, 0x4000000000401000ull, UADDR, 0), 0xc000000000401000ull, UADDR, 0, "m");
	check(dec(3, (1ull << 63) | UADDR, UADDR, 0), UADDR, UADDR, 0, "Mm");
	/* Format 4: mispredict 63, IN_TX 62, ABORT 61; address sign-extended from bit 60. */
	check(dec(4, KADDR & 0x1fffffffffffffffull, KADDR, 0), KADDR, KADDR, 0, "mt");
	check(dec(4, 0x1000000000401000ull, UADDR, 0), 0xf000000000401000ull, UADDR, 0, "mt");
	check(dec(4, 0xe000000000000000ull | UADDR, UADDR, 0), UADDR, UADDR, 0, "MmTAt");
	check(dec(4, 0x4000000000000000ull | UADDR, UADDR, 0), UADDR, UADDR, 0, "mTt");
	check(dec(4, 0x2000000000000000ull | UADDR, UADDR, 0), UADDR, UADDR, 0, "mAt");
	/* Format 5: full FROM/TO; INFO mispredict 63, IN_TX 62, ABORT 61, cycles 15:0. */
	check(dec(5, KADDR, UADDR, (1ull << 63) | (1ull << 61) | 0x1234), KADDR, UADDR, 0x1234,
	      "MmAtc");
	check(dec(5, UADDR, KADDR, (1ull << 62) | 0xffff), UADDR, KADDR, 0xffff, "mTtc");
	/* Format 6: FROM[63] mispredict, address from bit 62; TO[63:48] cycles, TO address
	 * sign-extended from bit 47; no TSX. */
	check(dec(6, (1ull << 63) | UADDR, 0x1234ffff81000000ull, ~0ull), UADDR,
	      0xffffffff81000000ull, 0x1234, "Mmc");
	check(dec(6, 0x4000000000401000ull, 0x0000800000401000ull, 0), 0xc000000000401000ull,
	      0xffff800000401000ull, 0, "mc");
	check(dec(6, KADDR & ~(1ull << 63), 0x00ff000000401000ull, 0), KADDR, UADDR, 0xff, "mc");
	/* Format 7: like 5, the TSX bits ignored. */
	check(dec(7, KADDR, UADDR, 0xe000000000000042ull), KADDR, UADDR, 0x42, "Mmc");
	/* Unknown format: raw, nothing valid. */
	check(dec(8, 0x8000000000000001ull, 2, ~0ull), 0x8000000000000001ull, 2, 0, "");
}

/* The software PMU's encodings of formats 3-7 decode back to the branch. */
static void test_decode_model_roundtrip(void **state)
{
	(void)state;
	for (unsigned fmt = 3; fmt <= 7; fmt++)
		for (int k = 0; k < 2; k++) {
			struct lbr_branch b = {.from = k ? KADDR : UADDR,
					       .to = k ? UADDR : 0xffffffff81234567ull,
					       .mispredicted = k,
					       .cycles = (uint16_t)(77 + k)};
			uint64_t from, to, info;
			lbr_encode((enum lbr_format)fmt, &b, &from, &to, &info);
			struct lbr_entry e = dec(fmt, from, to, info);
			assert_int_equal(e.from, b.from);
			assert_int_equal(e.to, b.to);
			assert_int_equal(e.mispred, b.mispredicted);
			if (fmt >= 5)
				assert_int_equal(e.cycles, b.cycles);
		}
}

static void test_decode_arch(void **state)
{
	struct lbr_entry e;
	(void)state;
	/* MISPRED 63 | CYC_CNT_VALID 60 | BR_TYPE 4 in 59:56 | CYC_CNT 0x1234. */
	arch_lbr_decode(KADDR, UADDR, 0x9400000000001234ull, &e);
	assert_int_equal(e.from, KADDR);
	assert_int_equal(e.to, UADDR);
	assert_true(e.mispred && e.cycles_valid && !e.in_tx && !e.abort);
	assert_int_equal(e.cycles, 0x1234);
	assert_int_equal(e.br_type, 4);
	assert_string_equal(arch_lbr_br_type_name(e.br_type), "near_rel_call");
	/* IN_TX 62 | ABORT 61 | BR_TYPE 9; no CYC_CNT_VALID: the count 0x55 is not reported. */
	arch_lbr_decode(UADDR, KADDR, 0x6900000000000055ull, &e);
	assert_true(e.in_tx && e.abort && !e.mispred && !e.cycles_valid);
	assert_int_equal(e.cycles, 0);
	assert_int_equal(e.br_type, 9);
	static const char *const names[] = {"jcc",	     "near_ind_jmp",  "near_rel_jmp",
					    "near_ind_call", "near_rel_call", "near_ret"};
	for (int t = 0; t < 6; t++)
		assert_string_equal(arch_lbr_br_type_name(t), names[t]);
	assert_string_equal(arch_lbr_br_type_name(6), "other");
	assert_string_equal(arch_lbr_br_type_name(15), "other");
	assert_string_equal(arch_lbr_br_type_name(16), "unknown");
	assert_string_equal(arch_lbr_br_type_name(-1), "unknown");
	/* Against the software PMU's Arch LBR record. */
	struct arch_lbr a;
	struct arch_lbr_caps caps = {0x0f, true, true, true, true};
	const char *reason;
	arch_lbr_init(&a, &caps);
	assert_int_equal(arch_lbr_write_ctl(&a, 0x7f0007, &reason), 0);
	struct lbr_branch b = {
	    .from = UADDR, .to = KADDR, .cls = LBR_CLASS_NEAR_IND_CALL, .cpl_to = 0, .cycles = 9};
	assert_true(arch_lbr_record(&a, &b));
	arch_lbr_decode(a.from[0], a.to[0], a.info[0], &e);
	assert_int_equal(e.br_type, ARCH_BR_NEAR_IND_CALL);
	assert_true(e.cycles_valid);
	assert_int_equal(e.cycles, 9);
	assert_int_equal(e.to, KADDR);
}

static void test_index_newest(void **state)
{
	(void)state;
	assert_int_equal(lbr_index_newest(3, 0, 16), 3);
	assert_int_equal(lbr_index_newest(3, 3, 16), 0);
	assert_int_equal(lbr_index_newest(3, 4, 16), 15);
	assert_int_equal(lbr_index_newest(3, 15, 16), 4);
	assert_int_equal(lbr_index_newest(0, 1, 4), 3);
	assert_int_equal(lbr_index_newest(17, 0, 16), 1); /* TOS bits above log2(depth) */
	assert_int_equal(lbr_index_newest(2, 5, 12), 9);  /* not a power of two */
	assert_int_equal(lbr_index_newest(2, 30, 12), 8);
	assert_int_equal(lbr_index_newest(5, 1, 0), 0);
}

/* Option lbr.filter's bits (kernel/options.c parses the words; tests/unit/test_options.c). */
static void test_filter_from_options(void **state)
{
	struct lbr_filter f;
	(void)state;
	lbr_filter_from_options(TRACE_LBR_USER | TRACE_LBR_NEAR_REL_CALL | TRACE_LBR_NEAR_IND_CALL |
				    TRACE_LBR_NEAR_RET,
				&f);
	assert_true(f.user && !f.kernel && !f.call_stack);
	assert_int_equal(f.branch_types, LBR_F_CALLS | LBR_F_NEAR_RET);
	lbr_filter_from_options(TRACE_LBR_KERNEL | TRACE_LBR_NEAR_IND_JMP | TRACE_LBR_FAR, &f);
	assert_true(!f.user && f.kernel);
	assert_int_equal(f.branch_types, LBR_F_NEAR_IND_JMP | LBR_F_FAR);
	lbr_filter_from_options(TRACE_LBR_COND, &f);
	assert_true(f.user && f.kernel); /* no ring: both */
	assert_int_equal(f.branch_types, LBR_F_COND);
	lbr_filter_from_options(TRACE_LBR_USER, &f);
	assert_int_equal(f.branch_types, LBR_F_ALL); /* no class: any */
	lbr_filter_from_options(0, &f);
	assert_true(f.user && f.kernel && f.branch_types == LBR_F_ALL && !f.call_stack);
	lbr_filter_from_options(TRACE_LBR_CALL_STACK | TRACE_LBR_USER, &f);
	assert_true(f.call_stack && f.user && !f.kernel);
	assert_int_equal(f.branch_types, 0); /* implied by call_stack */
	/* Then program: user near calls on Skylake = CPL_EQ_0 | 0x1e4. */
	lbr_filter_from_options(TRACE_LBR_USER | TRACE_LBR_NEAR_REL_CALL | TRACE_LBR_NEAR_IND_CALL,
				&f);
	assert_int_equal(select_ok(SKYLAKE, &f, NULL), 0x1e5);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_select_values),
    cmocka_unit_test(test_select_nehalem_erratum),
    cmocka_unit_test(test_select_refusals),
    cmocka_unit_test(test_lbr_ctl),
    cmocka_unit_test(test_quirks),
    cmocka_unit_test(test_pick_depth),
    cmocka_unit_test(test_decode_legacy),
    cmocka_unit_test(test_decode_model_roundtrip),
    cmocka_unit_test(test_decode_arch),
    cmocka_unit_test(test_index_newest),
    cmocka_unit_test(test_filter_from_options),
};

UNIT_MAIN(tests)
