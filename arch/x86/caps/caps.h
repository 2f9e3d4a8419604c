/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU trace capabilities as data ("Capabilities are data", README.md).
 *
 * A struct cpu_snapshot holds the raw inputs: CPUID leaves and the two capability MSRs.
 * trace_caps_collect() fills it on the running CPU (the only impure part); a software PMU
 * supplies its own. trace_caps_decode() turns a snapshot into a struct trace_caps: the decoded
 * fields and one conclusion per facility (LBR, BTS, PEBS, freeze-on-PMI), each "no" carrying
 * its reason. Drivers consult the record, never CPUID.
 *
 * The rule for MSRs: read (and believe) IA32_PERF_CAPABILITIES only when CPUID.01H:ECX.PDCM[15]
 * = 1 and IA32_MISC_ENABLE's BTS/PEBS bits only when CPUID.01H:EDX.DS[21] = 1 (SDM Vol. 3B
 * 17.4.9; reference intel-trace-hw.md 1.1, 1.5, 1.6). Never "the RDMSR did not fault": QEMU's
 * TCG reads 0 from every MSR without faulting (reference qemu-ovmf-facts.md). The decoder
 * re-applies the same gates, so a snapshot holding MSR values its CPUID does not vouch for is
 * decoded as if they were absent.
 *
 * Sources are cited beside each field: SDM sections and the source keys of
 * docs/references.md (written "references.md 1.4" for its section 1.4).
 */
#ifndef ARCH_X86_CAPS_CAPS_H
#define ARCH_X86_CAPS_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/hw/cpuid.h"
#include "arch/x86/hw/msr.h"
#include "lib/bits.h"

/* ---- inputs -------------------------------------------------------------------------------- */

struct cpuid_leaf_regs {
	uint32_t eax, ebx, ecx, edx;
};

struct cpu_snapshot {
	char vendor[CPUID_VENDOR_LEN + 1]; /* NUL-terminated */
	uint32_t max_basic_leaf;	   /* CPUID.0:EAX */
	struct cpuid_leaf_regs leaf_01;
	struct cpuid_leaf_regs leaf_07; /* sub-leaf 0; zero if max_basic_leaf < 07H */
	struct cpuid_leaf_regs leaf_0a; /* zero if max_basic_leaf < 0AH */
	struct cpuid_leaf_regs leaf_1a; /* zero if max_basic_leaf < 1AH */
	struct cpuid_leaf_regs leaf_1c; /* zero if max_basic_leaf < 1CH */
	bool has_perf_capabilities;	/* read because CPUID.01H:ECX.PDCM = 1 */
	uint64_t perf_capabilities;
	bool has_misc_enable; /* read because CPUID.01H:EDX.DS = 1 */
	uint64_t misc_enable;
	/* CPUID.40000000H:EBX,ECX,EDX as characters, NUL-terminated, read only when
	 * CPUID.01H:ECX[31] says a hypervisor is present (KVM: "KVMKVMKVM"). */
	char hv_vendor[CPUID_VENDOR_LEN + 1];
};

/*
 * Fill *s on the current CPU: CPUID leaves up to the maximum basic leaf (Intel returns the
 * highest basic leaf's data for a leaf beyond it, SDM Vol. 2A CPUID, so leaves are never read
 * past it), then the two MSRs behind their CPUID gates. Kernel only
 * (arch/x86/caps/collect.c).
 */
void trace_caps_collect(struct cpu_snapshot *s);

/* ---- the record ---------------------------------------------------------------------------- */

enum tc_vendor { TC_VENDOR_OTHER, TC_VENDOR_INTEL, TC_VENDOR_AMD };

/* CPUID.1AH:EAX[31:24] (SDM Vol. 2A CPUID leaf 1AH; references.md 8 "hybrid parts"). */
enum tc_core_type {
	TC_CORE_NONE,  /* leaf absent or 0: not a hybrid-enumerating part */
	TC_CORE_ATOM,  /* 20H: E-core */
	TC_CORE_CORE,  /* 40H: P-core */
	TC_CORE_OTHER, /* any other value, kept in core_type_raw */
};

enum tc_lbr {
	TC_LBR_NONE,
	TC_LBR_LEGACY, /* model-specific LBR: format from PERF_CAPABILITIES, depth per model */
	TC_LBR_ARCH,   /* Architectural LBR: CPUID.07H.0:EDX[19], depth from CPUID.1CH */
};

enum tc_bts {
	TC_BTS_NO,
	TC_BTS_YES,
	TC_BTS_CPL_QUALIFIED, /* also BTS_OFF_OS / BTS_OFF_USR (CPUID.01H:ECX.DS-CPL) */
};

enum tc_pebs { TC_PEBS_NO, TC_PEBS_YES };

/* SDM Vol. 3B 17.4.7: by CPUID.0AH:EAX.ArchPerfMonVerID. */
enum tc_freeze {
	TC_FREEZE_NONE,	       /* version < 2 */
	TC_FREEZE_LEGACY,      /* versions 2-3: DEBUGCTL.LBR / GLOBAL_CTRL cleared on PMI */
	TC_FREEZE_STREAMLINED, /* version >= 4: GLOBAL_STATUS.LBR_Frz / CTR_Frz */
};

/* CPUID.0AH, Intel only (references.md 1.2, Linux perf_event.h cpuid10_*); zero elsewhere. */
struct tc_perfmon {
	unsigned version;	     /* EAX[7:0] ArchPerfMonVerID */
	unsigned gp_counters;	     /* EAX[15:8] */
	unsigned gp_width;	     /* EAX[23:16] */
	unsigned events_len;	     /* EAX[31:24], length of the EBX vector */
	uint32_t events_unavailable; /* bit i: architectural event i (0-6) unavailable */
	uint32_t fixed_mask;	     /* supported fixed counters (bit m = IA32_FIXED_CTRm) */
	unsigned fixed_counters;     /* highest supported index + 1 */
	unsigned fixed_width;	     /* EDX[12:5] */
	bool fixed_count_assumed;    /* Linux's v2-v4 "at least 3" quirk raised the count */
	bool fixed_width_assumed;    /* width 0 reported with the quirk: GP width used */
	bool anythread_deprecated;   /* EDX[15], v5+ */
};

/* CPUID.07H.0:EDX[19] and CPUID.1CH (references.md 1.3, 1.4, Linux perf_event.h cpuid28_*). */
struct tc_arch_lbr {
	bool present;
	uint32_t depth_mask;	  /* EAX[7:0]: bit n => depth 8 * (n + 1) */
	unsigned max_depth;	  /* 8 * fls(depth_mask), what Linux programs */
	bool deep_cstate_reset;	  /* EAX[30] */
	bool lip;		  /* EAX[31]: LIP rather than EIP */
	bool cpl_filter;	  /* EBX[0] */
	bool branch_filter;	  /* EBX[1] */
	bool call_stack;	  /* EBX[2] */
	bool mispredict;	  /* ECX[0] */
	bool timed;		  /* ECX[1] */
	bool branch_type;	  /* ECX[2] */
	uint32_t branch_counters; /* ECX[19:16] bitmap (event logging) */
};

/* IA32_PERF_CAPABILITIES (references.md 1.5; SDM Vol. 3B 18.4.4.2 for bits 6-11). */
struct tc_perf_cap {
	bool present;
	unsigned lbr_format;	  /* [5:0] */
	bool pebs_trap;		  /* [6] trap-like PEBS (IP one instruction late) */
	bool pebs_arch_regs;	  /* [7] */
	unsigned pebs_format;	  /* [11:8] */
	bool smm_freeze;	  /* [12] DEBUGCTL.FREEZE_WHILE_SMM supported */
	bool full_width_write;	  /* [13] IA32_A_PMCx */
	bool pebs_baseline;	  /* [14] adaptive PEBS */
	bool perf_metrics;	  /* [15] */
	bool pebs_output_pt;	  /* [16] */
	bool pebs_timing_info;	  /* [17] */
	bool rdpmc_metrics_clear; /* [19] */
};

/* IA32_MISC_ENABLE (references.md 1.6; SDM Vol. 3B 17.4.9. */
struct tc_misc_enable {
	bool present;
	bool emon;	       /* [7] performance monitoring available */
	bool bts_unavailable;  /* [11] */
	bool pebs_unavailable; /* [12] */
};

#define TRACE_CAPS_REASON_LEN 320

/*
 * What a KVM guest gets, each rule with where upstream Linux 6.x and QEMU decide it (docs/kvm.md
 * has the whole list). Said beside the facility a rule takes away.
 */
#define TC_KVM_RULE_DS                                                                             \
	"KVM guest: DS is exposed only with PEBS on hosts with EPT-friendly PEBS (Ice Lake "       \
	"server and later Xeons), BTS never (Linux arch/x86/kvm/vmx/vmx.c vmx_set_cpu_caps)"
#define TC_KVM_RULE_LBR                                                                            \
	"KVM guest: LBRs only with the host's legacy LBR format passed through (QEMU -cpu "        \
	"host,migratable=no or lbr-fmt=; Arch LBR is not virtualized; Linux "                      \
	"arch/x86/kvm/vmx/vmx.c vmx_get_perf_capabilities)"
#define TC_KVM_RULE_BTF                                                                            \
	"KVM guest: IA32_DEBUGCTL.BTF writes are dropped without #GP (Linux "                      \
	"arch/x86/kvm/vmx/vmx.c vmx_set_msr)"
#define TC_KVM_RULE_DEBUGCTL                                                                       \
	"KVM guest: an IA32_DEBUGCTL bit other than LBR and FREEZE_LBRS_ON_PMI raises #GP (Linux " \
	"arch/x86/kvm/vmx/vmx.c vmx_get_supported_debugctl)"

struct trace_caps {
	struct cpu_snapshot raw; /* the inputs, kept so dumps can be re-decoded on the host */

	enum tc_vendor vendor;
	uint32_t family, model, stepping; /* display values (cpu_signature_decode) */
	bool hypervisor;		  /* CPUID.01H:ECX[31] */
	bool kvm;			  /* and CPUID.40000000H says "KVMKVMKVM" */
	bool hybrid;			  /* CPUID.07H.0:EDX[15], hybrid part (references.md 1.3) */
	enum tc_core_type core_type;
	uint32_t core_type_raw;	  /* CPUID.1AH:EAX[31:24] */
	uint32_t native_model_id; /* CPUID.1AH:EAX[23:0] */

	/* CPUID.01H (references.md 1.1, Linux cpu/intel.c; SDM 17.4.6 for DS-CPL, 17.4.9 for DS) */
	bool ds;     /* EDX[21] Debug Store */
	bool dtes64; /* ECX[2] 64-bit DS layout */
	bool ds_cpl; /* ECX[4] CPL-qualified BTS */
	bool pdcm;   /* ECX[15] IA32_PERF_CAPABILITIES present */
	bool x2apic; /* ECX[21] */

	struct tc_perfmon perfmon;   /* CPUID.0AH */
	struct tc_arch_lbr arch_lbr; /* CPUID.07H.0:EDX[19], CPUID.1CH */
	struct tc_perf_cap perf_cap; /* IA32_PERF_CAPABILITIES */
	struct tc_misc_enable misc;  /* IA32_MISC_ENABLE */

	/* ---- conclusions: empty reason when the facility is usable ---- */
	struct {
		enum tc_lbr kind;
		unsigned
		    format; /* legacy format (quirks applied); also set when the depth is unknown */
		unsigned depth;	   /* entries */
		const char *uarch; /* legacy: the depth table's row name, else NULL */
		/* Where the stack lives (hw/msr.h), for silicon and model alike: legacy from
		 * the depth table's row, Arch LBR the architectural IA32_LBR_* MSRs. */
		uint32_t from_base, to_base, info_base; /* info_base 0: no LBR_INFO MSRs */
		bool has_select;			/* MSR_LBR_SELECT exists */
		unsigned quirks;			/* LBR_QUIRK_* of the row (lbr_models.h) */
		char reason[TRACE_CAPS_REASON_LEN];
	} lbr;
	struct {
		enum tc_bts kind;
		char reason[TRACE_CAPS_REASON_LEN];
	} bts;
	struct {
		enum tc_pebs kind;
		unsigned format; /* PEBS record format */
		bool adaptive;	 /* baseline bit with format >= 4 */
		bool trap_like;	 /* PERF_CAPABILITIES[6] */
		char reason[TRACE_CAPS_REASON_LEN];
	} pebs;
	struct {
		enum tc_freeze kind;
		bool while_smm; /* DEBUGCTL.FREEZE_WHILE_SMM may be set (PERF_CAPABILITIES[12]) */
		/* A KVM guest: DEBUGCTL.FREEZE_PERFMON_ON_PMI takes #GP (TC_KVM_RULE_DEBUGCTL);
		 * FREEZE_LBRS_ON_PMI is emulated (perfmon v2-3). */
		bool perfmon_refused;
		char reason[TRACE_CAPS_REASON_LEN];
	} freeze;
	/* DEBUGCTL.BTF is written and read back as set (not so in a KVM guest, which drops the
	 * write: TC_KVM_RULE_BTF). */
	bool btf_dropped;
};

/* Pure: decode *s into *c (all of *c is written). */
void trace_caps_decode(const struct cpu_snapshot *s, struct trace_caps *c);

/* ---- presentation (arch/x86/caps/format.c) ------------------------------------------ */

/* Stable lower-case names, also the JSON values. */
const char *trace_caps_vendor_name(enum tc_vendor v);
const char *trace_caps_core_type_name(enum tc_core_type t);
const char *trace_caps_lbr_name(enum tc_lbr k);
const char *trace_caps_bts_name(enum tc_bts k);
const char *trace_caps_pebs_name(enum tc_pebs k);
const char *trace_caps_freeze_name(enum tc_freeze k);
/* Legacy LBR record format name ("INFO" for 5, ...; references.md 1.5 table), "?" if unknown. */
const char *trace_caps_lbr_format_name(unsigned format);

/*
 * Both return what C99 snprintf returns: the length of the complete output, writing at most
 * size - 1 characters and a NUL (nothing when size is 0).
 * The table is several lines for the serial console, each ending in '\n'.
 * The JSON is one object on one line, no newline; key names are stable (version "v").
 * TRACE_CAPS_TEXT_MAX bytes hold either output for any record (the JSON is about 2 KiB).
 */
#define TRACE_CAPS_TEXT_MAX 4096
size_t trace_caps_format_table(const struct trace_caps *c, unsigned cpu, uint32_t apic_id,
			       char *buf, size_t size);
size_t trace_caps_format_json(const struct trace_caps *c, unsigned cpu, uint32_t apic_id, char *buf,
			      size_t size);

#endif
