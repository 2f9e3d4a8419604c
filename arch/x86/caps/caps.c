/* SPDX-License-Identifier: MIT */
/*
 * trace_caps_decode(): CPUID leaves and capability MSRs in, trace-capability record out. Pure.
 * Register layouts come from the hardware contract (arch/x86/hw/cpuid.h, pmu_regs.h,
 * lbr_regs.h), each with its source; the per-model facts from lbr_models.c. Where a source
 * marks a fact unconfirmed, the comment says so and the code does not lean on it beyond what
 * is stated there.
 */
#include "arch/x86/caps/caps.h"
#include <stdarg.h>
#include "arch/x86/caps/cpu_ident.h"
#include "arch/x86/caps/lbr_models.h"
#include "arch/x86/hw/cpuid.h"
#include "arch/x86/hw/lbr_regs.h"
#include "arch/x86/hw/pmu_regs.h"
#include "lib/fmt.h"
#include "lib/string.h"

static const char VENDOR_INTEL[] = "GenuineIntel";
/* KVM's CPUID.40000000H signature, "KVMKVMKVM\0\0\0" (Linux arch/x86/include/uapi/asm/kvm_para.h
 * KVM_SIGNATURE). */
static const char HV_VENDOR_KVM[] = "KVMKVMKVM";
static const char VENDOR_AMD[] = "AuthenticAMD";

/* Architectural-perfmon version thresholds (SDM Vol. 3B 18.2; Linux intel_pmu_init). */
#define ARCH_EVENTS_KNOWN	GENMASK(6, 0) /* CPUID.0AH:EBX bits 0-6 name architectural events */
#define PERFMON_V_FIXED		2	      /* fixed counters and global MSRs appear */
#define PERFMON_V_LAST_EDX_ONLY 4 /* the last version counting fixed counters in EDX only */
#define PERFMON_V_FIXED_BITMAP	5 /* ECX holds the fixed-counter bitmap */
/*
 * Linux quirk (references.md 1.2, Linux intel/core.c intel_pmu_init): for versions 2-4, outside a
 * hypervisor, assume at least 3 fixed counters, because v2 parts under-report EDX[4:0]. Our Core 2
 * Merom record shows it: 0AH:EDX = 0, yet IA32_FIXED_CTR0-2 exist with 40 implemented bits.
 */
#define LINUX_MIN_FIXED_V2_V4 3

/* Freeze flavours by version (SDM Vol. 3B 17.4.7. */
#define PERFMON_V_FREEZE_LEGACY	     2
#define PERFMON_V_FREEZE_STREAMLINED 4

/* Core 2 Merom/Clovertown: Linux disables PEBS (errata AJ67, AJ68, AJ69, AJ106; references.md 8
 * intel_clovertown_quirk). Penryn/Dunnington are not affected. */
#define FAMILY_6	  0x6u
#define MODEL_CORE2_MEROM 0x0fu

/* The masks against values of recorded processors (arch/x86/caps/cpu_records.h). */
_Static_assert(FIELD_GET(PCAP_LBR_FORMAT, 0x33c5) == 5, "Skylake LBR format 5");
_Static_assert(FIELD_GET(PCAP_PEBS_FORMAT, 0x33c5) == 3, "Skylake PEBS format 3");
_Static_assert(FIELD_GET(C0A_EAX_GP_WIDTH, 0x07300404) == 48, "Skylake GP width 48");
_Static_assert(FIELD_GET(C0A_EAX_GP_COUNT, 0x07300404) == 4, "Skylake 4 GP counters");
_Static_assert(FIELD_GET(C0A_EDX_FIXED_WIDTH, 0x503) == 40, "Penryn fixed width 40");
_Static_assert(FIELD_GET(C0A_EDX_FIXED_COUNT, 0x503) == 3, "Penryn 3 fixed counters");
_Static_assert(FIELD_GET(C1C_EAX_DEPTH_MASK, 0x4000000b) == 0x0b, "Arrow Lake depths 8/16/32");
_Static_assert(FIELD_GET(C1A_EAX_CORE_TYPE, 0x20000003) == CORE_TYPE_INTEL_ATOM, "E-core");

/* ---- small helpers ---- */

static struct cpuid_leaf_regs leaf(const struct cpu_snapshot *s, uint32_t n,
				   const struct cpuid_leaf_regs *r)
{
	/* A leaf beyond the maximum is not data (Intel returns the highest leaf's values). */
	if (s->max_basic_leaf < n)
		return (struct cpuid_leaf_regs){0, 0, 0, 0};
	return *r;
}

static unsigned fls32(uint32_t v)
{
	return v ? 32u - (unsigned)__builtin_clz(v) : 0;
}

static size_t bounded_len(const char *b)
{
	size_t n = 0;
	while (n < TRACE_CAPS_REASON_LEN && b[n])
		n++;
	return n;
}

/* Append to a reason buffer (TRACE_CAPS_REASON_LEN bytes, NUL-terminated), truncating. */
__attribute__((format(printf, 2, 3))) static void say(char *reason, const char *fmt, ...)
{
	size_t n = bounded_len(reason);
	va_list ap;
	if (n + 1 >= TRACE_CAPS_REASON_LEN)
		return;
	va_start(ap, fmt);
	fmt_vsnprintf(reason + n, TRACE_CAPS_REASON_LEN - n, fmt, ap);
	va_end(ap);
}

/* A list "missing A, B, C" of unmet CPUID requirements; returns whether `have`. */
static bool need(char *reason, bool have, const char *what)
{
	if (!have)
		say(reason, "%s%s", reason[0] ? ", " : "missing ", what);
	return have;
}

static bool vendor_is_intel(struct trace_caps *c, char *reason)
{
	if (c->vendor == TC_VENDOR_INTEL)
		return true;
	if (c->vendor == TC_VENDOR_AMD)
		/* The reference (Intel facts only) has nothing on AMD's LBRv2/IBS. */
		say(reason, "vendor AuthenticAMD: AMD's branch and sampling facilities are not "
			    "Intel LBR/BTS/PEBS; not supported by baretrace");
	else
		say(reason, "vendor \"%s\" is not GenuineIntel: no Intel facility assumed",
		    c->raw.vendor);
	return false;
}

/* ---- decoding the inputs ---- */

static void decode_ident(struct trace_caps *c)
{
	const struct cpu_snapshot *s = &c->raw;
	struct cpuid_leaf_regs l01 = leaf(s, CPUID_LEAF_VERSION, &s->leaf_01);
	struct cpuid_leaf_regs l07 = leaf(s, CPUID_LEAF_EXT_FEAT, &s->leaf_07);
	struct cpuid_leaf_regs l1a = leaf(s, CPUID_LEAF_HYBRID, &s->leaf_1a);
	struct cpu_signature sig = cpu_signature_decode(l01.eax);

	if (memcmp(s->vendor, VENDOR_INTEL, CPUID_VENDOR_LEN) == 0)
		c->vendor = TC_VENDOR_INTEL;
	else if (memcmp(s->vendor, VENDOR_AMD, CPUID_VENDOR_LEN) == 0)
		c->vendor = TC_VENDOR_AMD;
	else
		c->vendor = TC_VENDOR_OTHER;
	c->family = sig.family;
	c->model = sig.model;
	c->stepping = sig.stepping;

	c->ds = l01.edx & C01_EDX_DS;
	c->dtes64 = l01.ecx & C01_ECX_DTES64;
	c->ds_cpl = l01.ecx & C01_ECX_DS_CPL;
	c->pdcm = l01.ecx & C01_ECX_PDCM;
	c->x2apic = l01.ecx & C01_ECX_X2APIC;
	c->hypervisor = l01.ecx & C01_ECX_HYPERVISOR;
	c->kvm = c->hypervisor && memcmp(s->hv_vendor, HV_VENDOR_KVM, sizeof(HV_VENDOR_KVM)) == 0;
	c->hybrid = l07.edx & C07_EDX_HYBRID;

	c->core_type_raw = (uint32_t)FIELD_GET(C1A_EAX_CORE_TYPE, l1a.eax);
	c->native_model_id = (uint32_t)FIELD_GET(C1A_EAX_NATIVE_MODEL, l1a.eax);
	if (c->core_type_raw == 0)
		c->core_type = TC_CORE_NONE;
	else if (c->core_type_raw == CORE_TYPE_INTEL_ATOM)
		c->core_type = TC_CORE_ATOM;
	else if (c->core_type_raw == CORE_TYPE_INTEL_CORE)
		c->core_type = TC_CORE_CORE;
	else
		c->core_type = TC_CORE_OTHER;
}

static void decode_perfmon(struct trace_caps *c)
{
	struct cpuid_leaf_regs a = leaf(&c->raw, CPUID_LEAF_PERFMON, &c->raw.leaf_0a);
	struct tc_perfmon *p = &c->perfmon;
	uint32_t len_mask;
	unsigned fixed;

	/* 0AH is Intel's architectural-perfmon leaf; AMD enumerates its PMU elsewhere. */
	if (c->vendor != TC_VENDOR_INTEL)
		return;
	p->version = (unsigned)FIELD_GET(C0A_EAX_VERSION, a.eax);
	p->gp_counters = (unsigned)FIELD_GET(C0A_EAX_GP_COUNT, a.eax);
	p->gp_width = (unsigned)FIELD_GET(C0A_EAX_GP_WIDTH, a.eax);
	p->events_len = (unsigned)FIELD_GET(C0A_EAX_EBX_LEN, a.eax);
	/* EBX bit i set = event i NOT available; events at or past the length are not enumerated
	 * and count as unavailable too. (Linux refuses the whole driver when the length < 7, ref
	 * 1.2; we only report.) */
	len_mask = p->events_len >= 32 ? UINT32_MAX : (uint32_t)(BIT(p->events_len) - 1);
	p->events_unavailable = (uint32_t)(((a.ebx & len_mask) | ~len_mask) & ARCH_EVENTS_KNOWN);

	if (p->version < PERFMON_V_FIXED)
		return; /* version 1: no fixed counters (references.md 1.2) */
	fixed = (unsigned)FIELD_GET(C0A_EDX_FIXED_COUNT, a.edx);
	p->fixed_width = (unsigned)FIELD_GET(C0A_EDX_FIXED_WIDTH, a.edx);
	if (p->version <= PERFMON_V_LAST_EDX_ONLY && !c->hypervisor &&
	    fixed < LINUX_MIN_FIXED_V2_V4) {
		fixed = LINUX_MIN_FIXED_V2_V4;
		p->fixed_count_assumed = true;
		if (p->fixed_width == 0) {
			/* Linux uses one counter width for all counters (cntval_bits). */
			p->fixed_width = p->gp_width;
			p->fixed_width_assumed = true;
		}
	}
	p->fixed_mask = (uint32_t)(BIT(fixed) - 1);
	/*
	 * v5+: ECX is a bitmap of supported fixed counters. Linux takes fls(ECX)
	 * (references.md 1.2); the SDM's rule "counter i supported if ECX[i] or EDX[4:0] > i" is
	 * not confirmed here from the SDM's text. Taking the union satisfies both
	 * whenever they agree.
	 */
	if (p->version >= PERFMON_V_FIXED_BITMAP) {
		p->fixed_mask |= a.ecx;
		p->anythread_deprecated = a.edx & C0A_EDX_ANYTHREAD_DEPRECATED;
	}
	p->fixed_counters = fls32(p->fixed_mask);
}

static void decode_arch_lbr(struct trace_caps *c)
{
	struct cpuid_leaf_regs l07 = leaf(&c->raw, CPUID_LEAF_EXT_FEAT, &c->raw.leaf_07);
	struct cpuid_leaf_regs l1c = leaf(&c->raw, CPUID_LEAF_ARCH_LBR, &c->raw.leaf_1c);
	struct tc_arch_lbr *a = &c->arch_lbr;

	if (c->vendor != TC_VENDOR_INTEL || !(l07.edx & C07_EDX_ARCH_LBR))
		return;
	a->present = true;
	a->depth_mask = (uint32_t)FIELD_GET(C1C_EAX_DEPTH_MASK, l1c.eax);
	/* Linux programs the largest enumerated depth: fls(mask) * 8 (Linux intel/lbr.c). */
	a->max_depth = ARCH_LBR_DEPTH_STEP * fls32(a->depth_mask);
	a->deep_cstate_reset = l1c.eax & C1C_EAX_DEEP_CSTATE_RESET;
	a->lip = l1c.eax & C1C_EAX_LIP;
	a->cpl_filter = l1c.ebx & C1C_EBX_CPL_FILTER;
	a->branch_filter = l1c.ebx & C1C_EBX_BRANCH_FILTER;
	a->call_stack = l1c.ebx & C1C_EBX_CALL_STACK;
	a->mispredict = l1c.ecx & C1C_ECX_MISPREDICT;
	a->timed = l1c.ecx & C1C_ECX_TIMED;
	a->branch_type = l1c.ecx & C1C_ECX_BRANCH_TYPE;
	a->branch_counters = (uint32_t)FIELD_GET(C1C_ECX_BRANCH_COUNTERS, l1c.ecx);
}

static void decode_msrs(struct trace_caps *c)
{
	uint64_t v = c->raw.perf_capabilities;
	uint64_t m = c->raw.misc_enable;

	/* Believe an MSR value only when CPUID says the MSR exists (header comment). */
	c->perf_cap.present = c->raw.has_perf_capabilities && c->pdcm;
	if (c->perf_cap.present) {
		c->perf_cap.lbr_format = (unsigned)FIELD_GET(PCAP_LBR_FORMAT, v);
		c->perf_cap.pebs_trap = v & PCAP_PEBS_TRAP;
		c->perf_cap.pebs_arch_regs = v & PCAP_PEBS_ARCH_REG;
		c->perf_cap.pebs_format = (unsigned)FIELD_GET(PCAP_PEBS_FORMAT, v);
		c->perf_cap.smm_freeze = v & PCAP_SMM_FREEZE;
		c->perf_cap.full_width_write = v & PCAP_FULL_WIDTH_WRITE;
		c->perf_cap.pebs_baseline = v & PCAP_PEBS_BASELINE;
		c->perf_cap.perf_metrics = v & PCAP_PERF_METRICS;
		c->perf_cap.pebs_output_pt = v & PCAP_PEBS_OUTPUT_PT;
		c->perf_cap.pebs_timing_info = v & PCAP_PEBS_TIMING_INFO;
		c->perf_cap.rdpmc_metrics_clear = v & PCAP_RDPMC_METRICS_CLEAR;
	}
	c->misc.present = c->raw.has_misc_enable && c->ds;
	if (c->misc.present) {
		c->misc.emon = m & MISC_EMON;
		c->misc.bts_unavailable = m & MISC_BTS_UNAVAILABLE;
		c->misc.pebs_unavailable = m & MISC_PEBS_UNAVAILABLE;
	}
}

/* ---- conclusions ---- */

static void conclude_arch_lbr(struct trace_caps *c)
{
	if (c->arch_lbr.max_depth == 0) {
		say(c->lbr.reason,
		    c->raw.max_basic_leaf < CPUID_LEAF_ARCH_LBR
			? "Arch LBR enumerated (CPUID.07H.0:EDX[19]) but max basic leaf < 1CH"
			: "Arch LBR enumerated (CPUID.07H.0:EDX[19]) but CPUID.1CH:EAX[7:0] lists "
			  "no depth");
		return;
	}
	c->lbr.kind = TC_LBR_ARCH;
	c->lbr.depth = c->arch_lbr.max_depth;
	c->lbr.from_base = MSR_IA32_LBR_FROM0;
	c->lbr.to_base = MSR_IA32_LBR_TO0;
	c->lbr.info_base = MSR_IA32_LBR_INFO0;
}

static void conclude_legacy_lbr(struct trace_caps *c)
{
	unsigned fmt = c->perf_cap.lbr_format;
	const struct lbr_model *m;

	if (!c->perf_cap.present) {
		say(c->lbr.reason, "no Arch LBR (CPUID.07H.0:EDX[19]=0) and legacy LBR format "
				   "unknown: ");
		if (c->pdcm)
			say(c->lbr.reason, "IA32_PERF_CAPABILITIES not in the snapshot");
		else
			say(c->lbr.reason,
			    "missing CPUID.01H:ECX.PDCM[15] (IA32_PERF_CAPABILITIES)");
		return;
	}
	if (fmt == LBR_FMT_NO_LEGACY_3F) {
		say(c->lbr.reason, "PERF_CAPABILITIES[5:0]=3FH (\"no legacy LBR\" in third-party "
				   "code, unconfirmed) and no Arch LBR");
		return;
	}
	if (fmt > LBR_FMT_LAST_KNOWN) {
		say(c->lbr.reason,
		    "legacy LBR format %#x unknown (formats 0-7 known, references.md 1.5)", fmt);
		return;
	}
	c->lbr.format = fmt; /* reported even when no depth can be given */
	m = lbr_model_find(c->family, c->model);
	if (!m) {
		say(c->lbr.reason,
		    "legacy LBR format %u enumerated, but CPU %02X_%02XH is not in the LBR depth "
		    "table (lbr_models.c, references.md 3.3): depth unknown",
		    fmt, c->family, c->model);
		return;
	}
	if ((m->quirks & LBR_QUIRK_STEPPING_10) && c->stepping < LBR_MIN_STEPPING_10) {
		say(c->lbr.reason,
		    "%s stepping %u < %u: LBR with freeze-on-PMI not operational "
		    "(Linux disables it, references.md 3.3)",
		    m->name, c->stepping, LBR_MIN_STEPPING_10);
		return;
	}
	if ((m->quirks & LBR_QUIRK_KNL_FORMAT) && fmt == LBR_FMT_LIP)
		fmt = LBR_FMT_EIP_FLAGS; /* has the mispredict bit despite reporting LIP */
	c->lbr.kind = TC_LBR_LEGACY;
	c->lbr.format = fmt;
	c->lbr.depth = m->depth;
	c->lbr.uarch = m->name;
	c->lbr.quirks = m->quirks;
	c->lbr.has_select = !(m->quirks & LBR_QUIRK_NO_SELECT);
	c->lbr.from_base = m->regs == LBR_REGS_CORE ? MSR_LBR_CORE_FROM : MSR_LBR_NHM_FROM;
	c->lbr.to_base = m->regs == LBR_REGS_CORE ? MSR_LBR_CORE_TO : MSR_LBR_NHM_TO;
	/* LBR_INFO exists with formats 5 and 7 (SDM Vol. 3B 17.12). */
	c->lbr.info_base = fmt == LBR_FMT_INFO || fmt == LBR_FMT_INFO2 ? MSR_LBR_INFO_0 : 0;
}

static void conclude_lbr(struct trace_caps *c)
{
	if (!vendor_is_intel(c, c->lbr.reason))
		return;
	/* Arch LBR wins when enumerated: SPR/ADL and later have no legacy init (references.md 3.3).
	 */
	if (c->arch_lbr.present)
		conclude_arch_lbr(c);
	else if (c->kvm && c->perf_cap.present && c->perf_cap.lbr_format == 0)
		/* KVM reports format 0 when it gives no LBRs; the format-0 stack of a real
		 * processor (32-bit LIPs) is never virtualized. */
		say(c->lbr.reason, "IA32_PERF_CAPABILITIES[5:0]=0; " TC_KVM_RULE_LBR);
	else
		conclude_legacy_lbr(c);
}

/*
 * BTS (references.md 1.1, 1.6, 5; SDM Vol. 3B 17.4.9: Debug Store, the 64-bit DS layout (Linux
 * refuses BTS/PEBS without DTES64 and a long-mode kernel cannot use the 32-bit layout,
 * references.md 1.1 and 5.2), and IA32_MISC_ENABLE.BTS_UNAVAILABLE clear. DS-CPL adds the CPL
 * filters (SDM 17.4.6).
 */
static void conclude_bts(struct trace_caps *c)
{
	char *r = c->bts.reason;
	bool ok;

	if (!vendor_is_intel(c, r))
		return;
	ok = need(r, c->ds, "CPUID.01H:EDX.DS[21]");
	ok &= need(r, c->dtes64, "CPUID.01H:ECX.DTES64[2] (64-bit DS layout)");
	if (!ok) {
		if (c->kvm)
			say(r, "; " TC_KVM_RULE_DS);
		return;
	}
	if (!c->misc.present) {
		say(r, "IA32_MISC_ENABLE not in the snapshot: BTS availability unknown");
		return;
	}
	if (c->misc.bts_unavailable) {
		say(r, "IA32_MISC_ENABLE[11] BTS_UNAVAILABLE=1");
		return;
	}
	c->bts.kind = c->ds_cpl ? TC_BTS_CPL_QUALIFIED : TC_BTS_YES;
}

/*
 * PEBS (references.md 1.1, 1.5, 1.6, 6; SDM Vol. 3B 18.4.4.2: Debug Store with the 64-bit layout,
 * PDCM so the record format can be read, a counter to arm (architectural perfmon), and
 * IA32_MISC_ENABLE.PEBS_UNAVAILABLE clear.
 */
static void conclude_pebs(struct trace_caps *c)
{
	char *r = c->pebs.reason;
	unsigned fmt = c->perf_cap.pebs_format;
	bool ok;

	if (!vendor_is_intel(c, r))
		return;
	ok = need(r, c->ds, "CPUID.01H:EDX.DS[21]");
	ok &= need(r, c->dtes64, "CPUID.01H:ECX.DTES64[2]");
	ok &= need(r, c->pdcm, "CPUID.01H:ECX.PDCM[15] (record format)");
	ok &= need(r, c->perfmon.version && c->perfmon.gp_counters,
		   "CPUID.0AH general-purpose counters");
	if (!ok) {
		if (c->kvm && !c->ds)
			say(r, "; " TC_KVM_RULE_DS);
		return;
	}
	if (!c->misc.present) {
		say(r, "IA32_MISC_ENABLE not in the snapshot: PEBS availability unknown");
		return;
	}
	if (c->misc.pebs_unavailable) {
		say(r, "IA32_MISC_ENABLE[12] PEBS_UNAVAILABLE=1");
		return;
	}
	/* IA32_MISC_ENABLE[7] "Performance Monitoring Available" (SDM Vol. 4 Table 2-2): with it
	 * clear the counters PEBS rides on are not there. */
	if (!c->misc.emon) {
		say(r, "IA32_MISC_ENABLE[7] performance monitoring available = 0");
		return;
	}
	if (!c->perf_cap.present) {
		say(r, "IA32_PERF_CAPABILITIES not in the snapshot: PEBS record format unknown");
		return;
	}
	if (fmt > PEBS_FORMAT_LAST_KNOWN) {
		say(r, "PEBS record format %u unknown (formats 0-%u known, references.md 6.4)", fmt,
		    PEBS_FORMAT_LAST_KNOWN);
		return;
	}
	if (c->family == FAMILY_6 && c->model == MODEL_CORE2_MEROM) {
		say(r, "Core 2 Merom/Clovertown (06_0FH): PEBS errata AJ67/AJ68/AJ69/AJ106, Linux "
		       "disables PEBS (references.md 8)");
		return;
	}
	/* Microcode-dependent PEBS quirks (Sandy Bridge, references.md 8) need the microcode
	 * revision, which the snapshot does not carry: a driver concern, not decided here. */
	c->pebs.kind = TC_PEBS_YES;
	c->pebs.format = fmt;
	c->pebs.adaptive = c->perf_cap.pebs_baseline && fmt >= PEBS_FORMAT_ADAPTIVE;
	c->pebs.trap_like = c->perf_cap.pebs_trap;
}

/* Freeze on PMI (SDM Vol. 3B 17.4.7 and freeze while in SMM (SDM 253668-032US 16.4.1. */
static void conclude_freeze(struct trace_caps *c)
{
	unsigned v = c->perfmon.version;

	if (!vendor_is_intel(c, c->freeze.reason))
		return;
	c->freeze.while_smm = c->perf_cap.present && c->perf_cap.smm_freeze && !c->kvm;
	c->freeze.perfmon_refused = c->kvm;
	if (v < PERFMON_V_FREEZE_LEGACY)
		say(c->freeze.reason, "CPUID.0AH:EAX[7:0] ArchPerfMonVerID %u < 2 (SDM 17.4.7)", v);
	else if (v < PERFMON_V_FREEZE_STREAMLINED)
		c->freeze.kind = TC_FREEZE_LEGACY;
	else
		c->freeze.kind = TC_FREEZE_STREAMLINED;
}

void trace_caps_decode(const struct cpu_snapshot *s, struct trace_caps *c)
{
	memset(c, 0, sizeof(*c));
	c->raw = *s;
	c->raw.vendor[CPUID_VENDOR_LEN] = '\0';
	decode_ident(c);
	decode_perfmon(c);
	decode_arch_lbr(c);
	decode_msrs(c);
	conclude_lbr(c);
	conclude_bts(c);
	conclude_pebs(c);
	conclude_freeze(c);
	c->btf_dropped = c->kvm;
}
