// clang-format off
// UNIT-SOURCES: arch/x86/caps/pmi_ack.c arch/x86/caps/caps.c arch/x86/caps/format.c arch/x86/caps/lbr_models.c arch/x86/caps/cpu_ident.c lib/fmt.c lib/string.c
// clang-format on
/*
 * The trace-capability decoder against recorded processors (arch/x86/caps/cpu_records.h says where
 * each value comes from). Every expected conclusion carries its justification: "ref N" is a
 * section of shared/reference/intel-trace-hw.md, SDM sections are the seeds of
 * shared/reference/sdm/. Then the formatters: one valid JSON line that re-decodes to the same
 * record, and a table that states the conclusions.
 */
#include "tests/unit/unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/x86/caps/pmi_ack.h"
#include "arch/x86/caps/caps.h"
#include "arch/x86/caps/cpu_records.h"

#define OUT_SIZE TRACE_CAPS_TEXT_MAX

static struct trace_caps decode(const struct cpu_snapshot *s)
{
	struct trace_caps c;
	trace_caps_decode(s, &c);
	return c;
}

static void expect_reason(const char *reason, const char *part)
{
	if (!strstr(reason, part))
		fail_msg("reason \"%s\" lacks \"%s\"", reason, part);
}

static void expect_lbr(const struct trace_caps *c, enum tc_lbr kind, unsigned format,
		       unsigned depth)
{
	assert_int_equal(c->lbr.kind, kind);
	assert_int_equal(c->lbr.depth, depth);
	if (kind == TC_LBR_LEGACY)
		assert_int_equal(c->lbr.format, format);
	assert_true(kind == TC_LBR_NONE ? c->lbr.reason[0] != 0 : c->lbr.reason[0] == 0);
}

static void expect_kinds(const struct trace_caps *c, enum tc_lbr lbr, enum tc_bts bts,
			 enum tc_pebs pebs, enum tc_freeze freeze)
{
	assert_int_equal(c->lbr.kind, lbr);
	assert_int_equal(c->bts.kind, bts);
	assert_int_equal(c->pebs.kind, pebs);
	assert_int_equal(c->freeze.kind, freeze);
}

static void expect_pebs(const struct trace_caps *c, unsigned format, bool adaptive)
{
	assert_int_equal(c->pebs.kind, TC_PEBS_YES);
	assert_int_equal(c->pebs.format, format);
	assert_int_equal(c->pebs.adaptive, adaptive);
	assert_string_equal(c->pebs.reason, "");
}

static void core2_merom(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_core2_merom);
	assert_int_equal(c.vendor, TC_VENDOR_INTEL);
	assert_int_equal(c.model, 0x0f);
	/* 0AH:EDX reads 0 on this v2 part; Linux's "at least 3 fixed counters for v2-v4" (ref
	 * 1.2) applies, and the record's IA32_FIXED_CTR0-2 (40 bits) show it is right. */
	assert_int_equal(c.perfmon.version, 2);
	assert_int_equal(c.perfmon.gp_counters, 2);
	assert_int_equal(c.perfmon.fixed_counters, 3);
	assert_true(c.perfmon.fixed_count_assumed);
	assert_int_equal(c.perfmon.fixed_width, 40);
	/* PERF_CAPABILITIES 0x82: LBR format 2 (EIP), fault-like PEBS (bit 6 clear), format 0;
	 * depth 4 for Core 2 (references.md 3.3 init_core). */
	expect_lbr(&c, TC_LBR_LEGACY, 2, 4);
	assert_false(c.perf_cap.pebs_trap);
	/* DS, DTES64, DS-CPL set, MISC_ENABLE[11] clear: CPL-qualified BTS (SDM 17.4.6). */
	assert_int_equal(c.bts.kind, TC_BTS_CPL_QUALIFIED);
	/* Merom/Clovertown: PEBS errata AJ67/68/69/106, Linux disables PEBS (references.md 8). */
	assert_int_equal(c.pebs.kind, TC_PEBS_NO);
	expect_reason(c.pebs.reason, "AJ67");
	/* Version 2: legacy freeze (SDM 17.4.7); PERF_CAPABILITIES[12] clear. */
	assert_int_equal(c.freeze.kind, TC_FREEZE_LEGACY);
	assert_false(c.freeze.while_smm);
}

static void core2_penryn(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_core2_penryn);
	/* 0AH:EDX = 0x503: 3 fixed counters of 40 bits, no quirk needed (references.md 1.2). */
	assert_int_equal(c.perfmon.fixed_counters, 3);
	assert_false(c.perfmon.fixed_count_assumed);
	assert_int_equal(c.perfmon.fixed_width, 40);
	/* 0x10c2: LBR format 2 depth 4 (references.md 3.3); PEBS format 0, trap-like; Penryn is not
	 * in Linux's Clovertown quirk (references.md 8), so PEBS is usable. Bit 12:
	 * freeze-while-SMM. */
	expect_lbr(&c, TC_LBR_LEGACY, 2, 4);
	expect_pebs(&c, 0, false);
	assert_true(c.pebs.trap_like);
	assert_int_equal(c.bts.kind, TC_BTS_CPL_QUALIFIED);
	assert_int_equal(c.freeze.kind, TC_FREEZE_LEGACY);
	assert_true(c.freeze.while_smm);
}

static void atom_bonnell_stepping_2(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_atom_bonnell);
	/* v3 with EDX[4:0] = 1: the Linux quirk raises it to 3 (IA32_FIXED_CTR0-2 are there). */
	assert_int_equal(c.perfmon.fixed_counters, 3);
	assert_true(c.perfmon.fixed_count_assumed);
	/* Model 1CH below stepping 10: LBR with freeze-on-PMI not operational (references.md 3.3,
	 * 8). */
	assert_int_equal(c.lbr.kind, TC_LBR_NONE);
	expect_reason(c.lbr.reason, "stepping 2 < 10");
	assert_int_equal(c.perf_cap.lbr_format, 1); /* still decoded and reported */
	/* 0xc1: PEBS format 0, trap-like; BTS CPL-qualified (ECX[4]). */
	expect_pebs(&c, 0, false);
	assert_int_equal(c.bts.kind, TC_BTS_CPL_QUALIFIED);
	assert_int_equal(c.freeze.kind, TC_FREEZE_LEGACY);
}

static void nehalem(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_nehalem);
	assert_int_equal(c.model, 0x1e);
	/* 0AH:EBX = 0x44 with length 7: reference cycles (2) and branch mispredicts (6) are
	 * unavailable (Nehalem AAJ80 concerns the latter, references.md 8). */
	assert_int_equal(c.perfmon.events_unavailable, 0x44);
	assert_int_equal(c.perfmon.version, 3);
	/* Composed PERF_CAPABILITIES 0x11c3: LBR format 3, 16 deep (references.md 3.3 init_nhm);
	 * PEBS format 1 (references.md 6.4). */
	expect_lbr(&c, TC_LBR_LEGACY, 3, 16);
	assert_string_equal(c.lbr.uarch, "Nehalem");
	expect_pebs(&c, 1, false);
	assert_int_equal(c.bts.kind, TC_BTS_CPL_QUALIFIED);
	assert_int_equal(c.freeze.kind, TC_FREEZE_LEGACY); /* v3 (SDM 17.4.7) */
}

static void haswell_and_broadwell(void **state)
{
	(void)state;
	const struct cpu_snapshot *recs[] = {&rec_haswell, &rec_broadwell};
	for (size_t i = 0; i < ARRAY_SIZE(recs); i++) {
		struct trace_caps c = decode(recs[i]);
		/* 0x32c4: LBR format 4 (EIP_FLAGS2), 16 deep (references.md 3.3 init_hsw); PEBS
		 * format 2 (references.md 6.4); full-width writes; v3 => legacy freeze. */
		expect_lbr(&c, TC_LBR_LEGACY, 4, 16);
		expect_pebs(&c, 2, false);
		assert_true(c.perf_cap.full_width_write);
		assert_int_equal(c.bts.kind, TC_BTS_CPL_QUALIFIED);
		assert_int_equal(c.freeze.kind, TC_FREEZE_LEGACY);
		assert_int_equal(c.perfmon.gp_counters, 4);
		assert_int_equal(c.perfmon.fixed_width, 48);
	}
	assert_int_equal(decode(&rec_haswell).model, 0x3c);
	assert_int_equal(decode(&rec_broadwell).model, 0x3d);
}

static void skylake(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_skylake);
	/* 0x33c5: LBR format 5 (INFO), 32 deep (references.md 3.3 init_skl); PEBS format 3, no
	 * baseline (references.md 6.4); v4 => streamlined freeze (SDM 17.4.7); bit 12 =>
	 * freeze-while-SMM. */
	expect_lbr(&c, TC_LBR_LEGACY, 5, 32);
	expect_pebs(&c, 3, false);
	assert_int_equal(c.bts.kind, TC_BTS_CPL_QUALIFIED);
	assert_int_equal(c.freeze.kind, TC_FREEZE_STREAMLINED);
	assert_true(c.freeze.while_smm);
	assert_int_equal(c.perfmon.version, 4);
	assert_int_equal(c.perfmon.fixed_mask, 0x7);
	assert_false(c.arch_lbr.present);
	assert_true(c.x2apic);
	/* A baseline bit below PEBS format 4 does not make PEBS adaptive (references.md 1.5). */
	struct cpu_snapshot s = rec_skylake;
	s.perf_capabilities |= BIT(14);
	c = decode(&s);
	expect_pebs(&c, 3, false);
}

/*
 * A KVM guest on a Skylake host, from the rules of upstream Linux 6.x (cpu_records.h cites each):
 * the LBRs stay (format 5 passed through), DS is masked so BTS and PEBS are not there, perfmon
 * is capped at version 2 (legacy freeze), and the two DEBUGCTL rules are data for the drivers.
 * With -cpu host alone (migratable) QEMU passes LBR format 0, and KVM gives no LBRs.
 */
static void kvm_guest(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_kvm_skylake);
	assert_true(c.hypervisor);
	assert_true(c.kvm);
	expect_lbr(&c, TC_LBR_LEGACY, 5, 32);
	expect_kinds(&c, TC_LBR_LEGACY, TC_BTS_NO, TC_PEBS_NO, TC_FREEZE_LEGACY);
	expect_reason(c.bts.reason, "CPUID.01H:EDX.DS[21]");
	expect_reason(c.bts.reason, "KVM guest");
	expect_reason(c.pebs.reason, "KVM guest");
	assert_int_equal(c.perfmon.version, 2);
	assert_true(c.freeze.perfmon_refused);
	assert_false(c.freeze.while_smm);
	assert_true(c.btf_dropped);
	assert_true(c.perf_cap.full_width_write);

	struct cpu_snapshot s = rec_kvm_skylake;
	s.perf_capabilities &= ~0x3full;
	c = decode(&s);
	expect_lbr(&c, TC_LBR_NONE, 0, 0);
	expect_reason(c.lbr.reason, "migratable=no");

	/* Another hypervisor with the same CPUID is not KVM: none of its rules are assumed. */
	memcpy(s.hv_vendor, "VMwareVMware", 13);
	c = decode(&s);
	assert_true(c.hypervisor);
	assert_false(c.kvm);
	assert_false(c.btf_dropped);
	assert_false(c.freeze.perfmon_refused);
	/* And no hypervisor bit: the signature is not believed. */
	s = rec_kvm_skylake;
	s.leaf_01.ecx &= ~BIT(31);
	c = decode(&s);
	assert_false(c.kvm);
}

static void icelake(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_icelake);
	/* v5: ECX = 0xf is the fixed-counter bitmap (4 counters incl. slots), EDX[15] AnyThread
	 * deprecated (references.md 1.2). */
	assert_int_equal(c.perfmon.version, 5);
	assert_int_equal(c.perfmon.gp_counters, 8);
	assert_int_equal(c.perfmon.fixed_mask, 0xf);
	assert_int_equal(c.perfmon.fixed_counters, 4);
	assert_true(c.perfmon.anythread_deprecated);
	assert_int_equal(c.perfmon.events_unavailable, 0);
	/* Ice Lake has no Arch LBR (07H:EDX[19] clear): legacy LBR, format 5, 32 deep
	 * (references.md 3.3). Composed 0xf4c5: PEBS format 4 with the baseline bit => adaptive
	 * (references.md 1.5, 6.3). */
	expect_lbr(&c, TC_LBR_LEGACY, 5, 32);
	expect_pebs(&c, 4, true);
	assert_int_equal(c.freeze.kind, TC_FREEZE_STREAMLINED);
}

static void arrowlake_p_and_e_core(void **state)
{
	(void)state;
	struct trace_caps p = decode(&rec_arrowlake_p), e = decode(&rec_arrowlake_e);
	/* 1AH:EAX[31:24]: 40H = Core (P), 20H = Atom (E); 07H:EDX[15] hybrid. */
	assert_int_equal(p.core_type, TC_CORE_CORE);
	assert_int_equal(e.core_type, TC_CORE_ATOM);
	assert_true(p.hybrid && e.hybrid);
	assert_int_equal(p.native_model_id, 3);
	assert_int_equal(p.model, 0xc6);
	/* Arch LBR (07H:EDX[19]); 1CH:EAX[7:0] = 0x0b => depths 8/16/32, the largest is used
	 * (references.md 1.4). CPL/branch filtering, call stack, mispredict, timed, branch type all
	 * set; branch counters 0xf; deep C-state reset (EAX[30]) on both. */
	for (int i = 0; i < 2; i++) {
		const struct trace_caps *c = i ? &e : &p;
		expect_lbr(c, TC_LBR_ARCH, 0, 32);
		assert_int_equal(c->arch_lbr.depth_mask, 0x0b);
		assert_true(c->arch_lbr.cpl_filter && c->arch_lbr.branch_filter &&
			    c->arch_lbr.call_stack);
		assert_true(c->arch_lbr.mispredict && c->arch_lbr.timed && c->arch_lbr.branch_type);
		assert_int_equal(c->arch_lbr.branch_counters, 0xf);
		assert_true(c->arch_lbr.deep_cstate_reset);
		assert_int_equal(c->perfmon.version, 6);
		assert_int_equal(c->perfmon.fixed_mask, 0x7);
		assert_int_equal(c->bts.kind, TC_BTS_CPL_QUALIFIED);
		/* Composed PERF_CAPABILITIES: PEBS format 4 + baseline => adaptive. */
		expect_pebs(c, 4, true);
		assert_int_equal(c->freeze.kind, TC_FREEZE_STREAMLINED);
	}
	/* They differ: only the E-core records linear IPs (1CH:EAX[31]); only the (composed)
	 * P-core has perf metrics. */
	assert_false(p.arch_lbr.lip);
	assert_true(e.arch_lbr.lip);
	assert_true(p.perf_cap.perf_metrics);
	assert_false(e.perf_cap.perf_metrics);
	/* PERF_CAPABILITIES[5:0] = 3FH is not consulted once Arch LBR is enumerated
	 * (references.md 1.5). */
	assert_int_equal(p.perf_cap.lbr_format, 0x3f);
}

static void wildcatlake_pebs_unavailable(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_wildcatlake_p);
	/* Recorded MISC_ENABLE 0x851089: bit 12 set => no PEBS whatever CPUID says
	 * (references.md 1.6, SDM 17.4.9); bit 11 clear => BTS stays. */
	assert_int_equal(c.pebs.kind, TC_PEBS_NO);
	expect_reason(c.pebs.reason, "IA32_MISC_ENABLE[12] PEBS_UNAVAILABLE=1");
	assert_int_equal(c.bts.kind, TC_BTS_CPL_QUALIFIED);
	expect_lbr(&c, TC_LBR_ARCH, 0, 32);
	assert_int_equal(c.core_type, TC_CORE_CORE);
}

static void atoms_silvermont_and_goldmont_plus(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_silvermont);
	/* 0x32c1: LBR format 1 (LIP), 8 deep (references.md 3.3 init_slm); PEBS format 2; v3, 2 GP
	 * x 40. */
	expect_lbr(&c, TC_LBR_LEGACY, 1, 8);
	expect_pebs(&c, 2, false);
	assert_int_equal(c.perfmon.gp_counters, 2);
	assert_int_equal(c.perfmon.fixed_width, 40);
	assert_int_equal(c.freeze.kind, TC_FREEZE_LEGACY);

	/* Composed 0x33c7: LBR format 7 (INFO2, no TSX bits; GLP is the platform references.md 1.5
	 * names), 32 deep (references.md 3.3 init_skl for Goldmont Plus); PEBS format 3; v4. */
	c = decode(&rec_goldmont_plus);
	expect_lbr(&c, TC_LBR_LEGACY, 7, 32);
	assert_string_equal(c.lbr.uarch, "Atom (Goldmont Plus)");
	expect_pebs(&c, 3, false);
	assert_int_equal(c.freeze.kind, TC_FREEZE_STREAMLINED);
	assert_int_equal(c.core_type, TC_CORE_NONE);
}

static void amd_zen(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_amd_zen);
	assert_int_equal(c.vendor, TC_VENDOR_AMD);
	assert_int_equal(c.family, 0x17);
	/* Our drivers are Intel's; the reference has no AMD facts: all "no", naming the vendor. */
	expect_kinds(&c, TC_LBR_NONE, TC_BTS_NO, TC_PEBS_NO, TC_FREEZE_NONE);
	expect_reason(c.lbr.reason, "AuthenticAMD");
	expect_reason(c.bts.reason, "not supported by baretrace");
	expect_reason(c.pebs.reason, "AuthenticAMD");
	expect_reason(c.freeze.reason, "AuthenticAMD");
	assert_int_equal(c.perfmon.version, 0); /* 0AH is not decoded for AMD */
}

static void qemu_tcg(void **state)
{
	(void)state;
	struct trace_caps c = decode(&rec_qemu_tcg);
	/* An Intel vendor and a known model, but CPUID enumerates none of the facilities
	 * (qemu-ovmf-facts.md): every reason names the missing CPUID bits. */
	assert_int_equal(c.vendor, TC_VENDOR_INTEL);
	assert_true(c.hypervisor);
	expect_kinds(&c, TC_LBR_NONE, TC_BTS_NO, TC_PEBS_NO, TC_FREEZE_NONE);
	expect_reason(c.lbr.reason, "CPUID.07H.0:EDX[19]=0");
	expect_reason(c.lbr.reason, "missing CPUID.01H:ECX.PDCM[15]");
	expect_reason(c.bts.reason, "missing CPUID.01H:EDX.DS[21], CPUID.01H:ECX.DTES64[2]");
	expect_reason(c.pebs.reason, "CPUID.01H:ECX.PDCM[15]");
	expect_reason(c.pebs.reason, "CPUID.0AH general-purpose counters");
	expect_reason(c.freeze.reason, "ArchPerfMonVerID 0 < 2");
	/* With the hypervisor bit the v2-v4 fixed-counter quirk never applies (references.md 1.2).
	 */
	assert_false(c.perfmon.fixed_count_assumed);
}

static void msr_values_without_cpuid_are_ignored(void **state)
{
	(void)state;
	/* A collector that read the MSRs anyway on TCG: no fault, 0 for PERF_CAPABILITIES and
	 * 0x1 for MISC_ENABLE (qemu-ovmf-facts.md). CPUID decides: nothing changes. */
	struct cpu_snapshot s = rec_qemu_tcg;
	s.has_perf_capabilities = true;
	s.perf_capabilities = 0;
	s.has_misc_enable = true;
	s.misc_enable = 0x1;
	struct trace_caps c = decode(&s);
	assert_false(c.perf_cap.present);
	assert_false(c.misc.present);
	struct trace_caps ref = decode(&rec_qemu_tcg);
	assert_string_equal(c.lbr.reason, ref.lbr.reason);
	assert_string_equal(c.bts.reason, ref.bts.reason);
	assert_string_equal(c.pebs.reason, ref.pebs.reason);
}

static void leaves_beyond_the_maximum_are_ignored(void **state)
{
	(void)state;
	/* Penryn's maximum is 0AH; Intel answers higher leaves with 0AH's data (the VBox record
	 * says so: "unknown CPUID = last standard leaf"). A careless collector would store it. */
	struct cpu_snapshot s = rec_core2_penryn;
	s.leaf_1a = s.leaf_0a;
	s.leaf_1c = s.leaf_0a;
	struct trace_caps c = decode(&s);
	assert_int_equal(c.core_type, TC_CORE_NONE);
	assert_int_equal(c.core_type_raw, 0);
	/* And an Arch LBR bit without leaf 1CH in range yields no depth, and says why. */
	s.max_basic_leaf = 0x0d;
	s.leaf_07.edx = (uint32_t)BIT(19);
	c = decode(&s);
	assert_int_equal(c.lbr.kind, TC_LBR_NONE);
	expect_reason(c.lbr.reason, "max basic leaf < 1CH");
}

static void misc_enable_says_bts_unavailable(void **state)
{
	(void)state;
	/* Hypothetical: Skylake with IA32_MISC_ENABLE[11] set (firmware or a VMM hiding BTS). */
	struct cpu_snapshot s = rec_skylake;
	s.misc_enable |= BIT(11);
	struct trace_caps c = decode(&s);
	assert_int_equal(c.bts.kind, TC_BTS_NO);
	assert_string_equal(c.bts.reason, "IA32_MISC_ENABLE[11] BTS_UNAVAILABLE=1");
	expect_pebs(&c, 3, false); /* bit 12 still clear */
	expect_lbr(&c, TC_LBR_LEGACY, 5, 32);
}

static void unknown_model_with_lbr_format(void **state)
{
	(void)state;
	/* Hypothetical 06_FFH reporting LBR format 5 without Arch LBR: the format is known, the
	 * depth is not (it lives only in the per-model table, references.md 3.3), so no LBR and say
	 * why. */
	struct cpu_snapshot s = rec_skylake;
	s.leaf_01.eax = 0x000f06f0;
	struct trace_caps c = decode(&s);
	assert_int_equal(c.model, 0xff);
	assert_int_equal(c.perf_cap.lbr_format, 5);
	assert_int_equal(c.lbr.kind, TC_LBR_NONE);
	assert_int_equal(c.lbr.format, 5);
	assert_int_equal(c.lbr.depth, 0);
	expect_reason(c.lbr.reason, "legacy LBR format 5 enumerated, but CPU 06_FFH is not in the "
				    "LBR depth table");
	expect_reason(c.lbr.reason, "depth unknown");
	/* Unknown legacy formats are refused too. */
	s = rec_skylake;
	s.perf_capabilities = (s.perf_capabilities & ~GENMASK(5, 0)) | 0x09;
	c = decode(&s);
	assert_int_equal(c.lbr.kind, TC_LBR_NONE);
	expect_reason(c.lbr.reason, "format 0x9 unknown");
}

/* ---- formatters ---- */

static const struct cpu_snapshot *const all_records[] = {
    &rec_core2_merom,	&rec_core2_penryn, &rec_atom_bonnell,  &rec_nehalem,	 &rec_haswell,
    &rec_broadwell,	&rec_skylake,	   &rec_icelake,       &rec_arrowlake_p, &rec_arrowlake_e,
    &rec_wildcatlake_p, &rec_silvermont,   &rec_goldmont_plus, &rec_amd_zen,	 &rec_qemu_tcg,
};

/* A minimal JSON validator: returns the end of one value, NULL if malformed. */
static const char *json_value(const char *p);

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\')
			continue;
		if (*++p == 'u') {
			for (int i = 1; i <= 4; i++)
				if (!p[i] || !strchr("0123456789abcdefABCDEF", p[i]))
					return NULL;
			p += 4;
		} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return p + 1;
}

static const char *json_list(const char *p, char close, bool keys)
{
	p++;
	if (*p == close)
		return p + 1;
	for (;;) {
		if (keys) {
			if (!(p = json_string(p)) || *p++ != ':')
				return NULL;
		}
		if (!(p = json_value(p)))
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p)
{
	if (*p == '{')
		return json_list(p, '}', true);
	if (*p == '[')
		return json_list(p, ']', false);
	if (*p == '"')
		return json_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		p += *p == '-';
		while (*p >= '0' && *p <= '9')
			p++;
		return p;
	}
	return NULL;
}

static void json_is_one_valid_line_with_stable_keys(void **state)
{
	(void)state;
	/* Stable key names, space-separated. */
	static const char keys[] =
	    "\"type\":\"trace_caps\" \"v\":1 \"cpu\": \"apic_id\": \"vendor\": \"family\": "
	    "\"core_type\": \"perfmon\":{ \"arch_lbr\":{ \"perf_cap\":{ \"misc_enable\":{ "
	    "\"lbr\":{\"kind\": \"bts\":{\"kind\": \"pebs\":{\"kind\": \"freeze\":{\"kind\": "
	    "\"raw\":{";
	char buf[OUT_SIZE];
	for (size_t i = 0; i < ARRAY_SIZE(all_records); i++) {
		struct trace_caps c = decode(all_records[i]);
		size_t n =
		    trace_caps_format_json(&c, (unsigned)i, 2 * (uint32_t)i, buf, sizeof(buf));
		assert_true(n < sizeof(buf));
		assert_int_equal(n, strlen(buf));
		assert_true(trace_caps_format_table(&c, 0, 0, NULL, 0) < TRACE_CAPS_TEXT_MAX);
		assert_null(strchr(buf, '\n'));
		const char *end = json_value(buf);
		if (!end || *end)
			fail_msg("record %zu: invalid JSON near \"%.40s\"", i, end ? end : buf);
		for (const char *k = keys; *k; k += strcspn(k, " ") + (k[strcspn(k, " ")] == ' ')) {
			char key[32] = "";
			strncat(key, k, strcspn(k, " "));
			if (!strstr(buf, key))
				fail_msg("record %zu: key %s missing", i, key);
		}
	}
	struct trace_caps c = decode(&rec_skylake);
	trace_caps_format_json(&c, 3, 6, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"cpu\":3,\"apic_id\":6,"));
	assert_non_null(strstr(buf, "\"lbr\":{\"kind\":\"legacy\",\"format\":5,\"depth\":32,"));
	assert_non_null(strstr(buf, "\"bts\":{\"kind\":\"cpl_qualified\",\"reason\":\"\"}"));
	assert_non_null(strstr(buf, "\"pebs\":{\"kind\":\"yes\",\"format\":3,\"adaptive\":false"));
	assert_non_null(strstr(buf, "\"freeze\":{\"kind\":\"streamlined\",\"while_smm\":true"));
	assert_non_null(strstr(buf, "\"l01\":[\"0x506e3\",\"0x2100800\",\"0x7ffafbbf\","));
	assert_non_null(strstr(buf, "\"perf_cap\":\"0x33c5\""));
}

static uint64_t hex_at(const char *json, const char *key)
{
	const char *p = strstr(json, key);
	assert_non_null(p);
	p += strlen(key);
	assert_true(*p == '"');
	return strtoull(p + 1, NULL, 16);
}

static void leaf_at(const char *json, const char *key, struct cpuid_leaf_regs *l)
{
	char k[16];
	snprintf(k, sizeof(k), "\"%s\":[", key);
	const char *p = strstr(json, k);
	assert_non_null(p);
	p += strlen(k);
	uint32_t *r[] = {&l->eax, &l->ebx, &l->ecx, &l->edx};
	for (int i = 0; i < 4; i++) {
		char *end;
		*r[i] = (uint32_t)strtoul(p + 1, &end, 16);
		p = end + 2; /* past '"' and ',' or ']' */
	}
}

static void json_raw_redecodes_to_the_same_record(void **state)
{
	(void)state;
	static char buf[OUT_SIZE], buf2[OUT_SIZE];
	for (size_t i = 0; i < ARRAY_SIZE(all_records); i++) {
		struct trace_caps c = decode(all_records[i]);
		trace_caps_format_json(&c, 0, 0, buf, sizeof(buf));
		const char *raw = strstr(buf, "\"raw\":{");
		assert_non_null(raw);
		struct cpu_snapshot s;
		memset(&s, 0, sizeof(s));
		const char *v = strstr(raw, "\"vendor\":\"") + strlen("\"vendor\":\"");
		memcpy(s.vendor, v, CPUID_VENDOR_LEN);
		s.max_basic_leaf = (uint32_t)hex_at(raw, "\"max_leaf\":");
		leaf_at(raw, "l01", &s.leaf_01);
		leaf_at(raw, "l07", &s.leaf_07);
		leaf_at(raw, "l0a", &s.leaf_0a);
		leaf_at(raw, "l1a", &s.leaf_1a);
		leaf_at(raw, "l1c", &s.leaf_1c);
		s.has_perf_capabilities = strstr(raw, "\"has_perf_cap\":true") != NULL;
		s.perf_capabilities = hex_at(raw, "\"perf_cap\":");
		s.has_misc_enable = strstr(raw, "\"has_misc_enable\":true") != NULL;
		s.misc_enable = hex_at(raw, "\"misc_enable\":");
		/* Same record: the same JSON, decoded fields and conclusions included. */
		struct trace_caps again = decode(&s);
		trace_caps_format_json(&again, 0, 0, buf2, sizeof(buf2));
		if (strcmp(buf, buf2) != 0)
			fail_msg("record %zu does not re-decode to the same record", i);
	}
}

static void json_escapes_odd_vendor_strings(void **state)
{
	(void)state;
	struct cpu_snapshot s = rec_qemu_tcg;
	memcpy(s.vendor, "Odd\"Vend\\r\x01", CPUID_VENDOR_LEN);
	struct trace_caps c = decode(&s);
	assert_int_equal(c.vendor, TC_VENDOR_OTHER);
	char buf[OUT_SIZE];
	trace_caps_format_json(&c, 0, 0, buf, sizeof(buf));
	const char *end = json_value(buf);
	assert_true(end && !*end);
	assert_non_null(strstr(buf, "\"vendor\":\"Odd\\\"Vend\\\\r\\u0001\""));
	/* The validator itself refuses what it must. */
	assert_null(json_value("{\"a\":1,}"));
	assert_null(json_value("[\"\\q\"]"));
	assert_non_null(json_value("[\"\\\\x\",-1]"));
}

static void table_states_the_conclusions(void **state)
{
	(void)state;
	char buf[OUT_SIZE];
	struct trace_caps c = decode(&rec_skylake);
	size_t n = trace_caps_format_table(&c, 1, 2, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	assert_int_equal(buf[n - 1], '\n');
	assert_non_null(strstr(buf, "cpu 1 (APIC 0x2): GenuineIntel family 0x6 model 0x5e"));
	assert_non_null(strstr(buf, "LBR:    legacy, format 5 (INFO), depth 32 [Skylake]\n"));
	assert_non_null(strstr(buf, "BTS:    cpl_qualified\n"));
	assert_non_null(strstr(buf, "PEBS:   yes, format 3, adaptive no, trap-like\n"));
	assert_non_null(strstr(buf, "freeze: streamlined (perfmon v4), freeze-while-SMM yes\n"));

	c = decode(&rec_arrowlake_e);
	trace_caps_format_table(&c, 2, 0x10, buf, sizeof(buf));
	assert_non_null(strstr(buf, "core type atom"));
	assert_non_null(strstr(buf, "LBR:    arch, depth 32 (supported mask 0xb)\n"));

	c = decode(&rec_qemu_tcg);
	trace_caps_format_table(&c, 0, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "BTS:    no -- missing CPUID.01H:EDX.DS[21]"));
	assert_non_null(strstr(buf, "PEBS:   no -- missing "));
	assert_non_null(strstr(buf, "freeze: none (perfmon v0)"));
	assert_non_null(strstr(buf, "note:   hypervisor present"));
}

/* The LVTPC unmask moment by generation (Linux late_ack / mid_ack, references.md 7.4). */
static void pmi_ack_by_generation(void **state)
{
	(void)state;
	struct {
		const struct cpu_snapshot *rec;
		enum pmi_ack want;
	} cases[] = {
	    {&rec_core2_penryn, PMI_ACK_EARLY},	 {&rec_atom_bonnell, PMI_ACK_EARLY},
	    {&rec_nehalem, PMI_ACK_EARLY},	 {&rec_silvermont, PMI_ACK_EARLY},
	    {&rec_goldmont_plus, PMI_ACK_EARLY}, /* format 7: an Atom before Tremont */
	    {&rec_haswell, PMI_ACK_LATE},	 {&rec_broadwell, PMI_ACK_LATE},
	    {&rec_skylake, PMI_ACK_LATE},	 {&rec_icelake, PMI_ACK_LATE},
	    {&rec_arrowlake_p, PMI_ACK_LATE},	 {&rec_wildcatlake_p, PMI_ACK_LATE},
	    {&rec_arrowlake_e, PMI_ACK_MID}, /* hybrid E-core: after Tremont */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace_caps c = decode(cases[i].rec);
		enum pmi_ack got = pmi_ack_for(&c);
		if (got != cases[i].want) /* the enums themselves: names could coincide */
			fail_msg("case %zu: PMI ack %d (%s), want %d (%s)", i, got,
				 pmi_ack_name(got), cases[i].want, pmi_ack_name(cases[i].want));
	}
}

static void formatters_truncate_like_snprintf(void **state)
{
	(void)state;
	char full[OUT_SIZE], small[32];
	struct trace_caps c = decode(&rec_icelake);
	size_t n = trace_caps_format_json(&c, 0, 0, full, sizeof(full));
	memset(small, 'x', sizeof(small));
	assert_int_equal(trace_caps_format_json(&c, 0, 0, small, sizeof(small)), n);
	assert_int_equal(small[sizeof(small) - 1], '\0');
	assert_memory_equal(small, full, sizeof(small) - 1);
	assert_int_equal(trace_caps_format_json(&c, 0, 0, NULL, 0), n);
	n = trace_caps_format_table(&c, 0, 0, full, sizeof(full));
	assert_int_equal(trace_caps_format_table(&c, 0, 0, small, sizeof(small)), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

/*
 * Where each recorded CPU's legacy LBR stack lives, written out from Linux's
 * arch/x86/events/intel/lbr.c (not from caps/lbr_models.c): intel_pmu_lbr_init_core and _atom
 * use MSR_LBR_CORE_FROM/TO (40H/60H) with no lbr_sel_map (no LBR_SELECT); _slm the same bases
 * with LBR_SELECT; _nhm, _snb, _hsw, _skl and _knl MSR_LBR_NHM_FROM/TO (680H/6C0H) with
 * LBR_SELECT; LBR_INFO (DC0H) with formats 5 and 7. Knights Landing (06_57H, depth 8) is the
 * case a depth rule gets wrong.
 */
static void lbr_registers_per_microarchitecture(void **state)
{
	(void)state;
	struct cpu_snapshot knl = rec_silvermont;
	knl.leaf_01.eax = 0x00050671; /* family 6, model 57H (Knights Landing), stepping 1 */
	struct cpu_snapshot bonnell = rec_atom_bonnell;
	bonnell.leaf_01.eax = (bonnell.leaf_01.eax & ~0xfu) | 0xa; /* stepping 10: LBR usable */
	const struct {
		const char *what;
		const struct cpu_snapshot *rec;
		uint32_t from, to, info;
		bool select;
	} cases[] = {
	    {"Penryn", &rec_core2_penryn, 0x40, 0x60, 0, false},
	    {"Bonnell", &bonnell, 0x40, 0x60, 0, false},
	    {"Silvermont", &rec_silvermont, 0x40, 0x60, 0, true},
	    {"Nehalem", &rec_nehalem, 0x680, 0x6c0, 0, true},
	    {"Skylake", &rec_skylake, 0x680, 0x6c0, 0xdc0, true},
	    {"Knights Landing", &knl, 0x680, 0x6c0, 0, true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace_caps c = decode(cases[i].rec);
		if (c.lbr.kind != TC_LBR_LEGACY || c.lbr.from_base != cases[i].from ||
		    c.lbr.to_base != cases[i].to || c.lbr.info_base != cases[i].info ||
		    c.lbr.has_select != cases[i].select)
			fail_msg("%s: kind %d from %#x to %#x info %#x select %d (%s)",
				 cases[i].what, c.lbr.kind, c.lbr.from_base, c.lbr.to_base,
				 c.lbr.info_base, c.lbr.has_select, c.lbr.reason);
	}
}

/* IA32_MISC_ENABLE[7], "Performance Monitoring Available" (SDM Vol. 4 Table 2-2): clear, there
 * are no counters for PEBS to ride on, whatever PERF_CAPABILITIES says. */
static void pebs_needs_emon(void **state)
{
	(void)state;
	struct cpu_snapshot s = rec_skylake;
	assert_int_equal(decode(&s).pebs.kind, TC_PEBS_YES);
	s.misc_enable &= ~(uint64_t)BIT(7);
	struct trace_caps c = decode(&s);
	assert_int_equal(c.pebs.kind, TC_PEBS_NO);
	expect_reason(c.pebs.reason, "IA32_MISC_ENABLE[7]");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(core2_merom),
    cmocka_unit_test(core2_penryn),
    cmocka_unit_test(atom_bonnell_stepping_2),
    cmocka_unit_test(nehalem),
    cmocka_unit_test(haswell_and_broadwell),
    cmocka_unit_test(skylake),
    cmocka_unit_test(icelake),
    cmocka_unit_test(arrowlake_p_and_e_core),
    cmocka_unit_test(wildcatlake_pebs_unavailable),
    cmocka_unit_test(atoms_silvermont_and_goldmont_plus),
    cmocka_unit_test(amd_zen),
    cmocka_unit_test(qemu_tcg),
    cmocka_unit_test(kvm_guest),
    cmocka_unit_test(msr_values_without_cpuid_are_ignored),
    cmocka_unit_test(leaves_beyond_the_maximum_are_ignored),
    cmocka_unit_test(misc_enable_says_bts_unavailable),
    cmocka_unit_test(unknown_model_with_lbr_format),
    cmocka_unit_test(json_is_one_valid_line_with_stable_keys),
    cmocka_unit_test(json_raw_redecodes_to_the_same_record),
    cmocka_unit_test(json_escapes_odd_vendor_strings),
    cmocka_unit_test(table_states_the_conclusions),
    cmocka_unit_test(formatters_truncate_like_snprintf),
    cmocka_unit_test(pmi_ack_by_generation),
    cmocka_unit_test(lbr_registers_per_microarchitecture),
    cmocka_unit_test(pebs_needs_emon),
};
UNIT_MAIN(tests)
