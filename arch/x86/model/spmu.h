/* SPDX-License-Identifier: MIT */
/*
 * The software PMU: an SDM-faithful model of the trace MSRs and the DS area, per CPU, driven
 * by the single-step engine. It presents as a named processor (a personality: the CPUID leaves
 * and capability MSRs that detection reads), so detection, drivers and decoding run as they
 * would on that processor. A write the hardware would refuse becomes a model #GP, reported
 * with the MSR, value and reason, so driver bugs surface instead of hiding.
 * Modelled: IA32_DEBUGCTL (BTF included), IA32_DS_AREA and BTS (Table 17-6), the legacy LBR
 * stack with LBR_SELECT (and the Nehalem erratum), TOS and FROM/TO/INFO, Architectural LBR,
 * the last exception record MSRs, read-only IA32_PERF_CAPABILITIES / IA32_MISC_ENABLE, the
 * counters with overflow, PMI requests and freeze-on-PMI in both flavours
 * (counters.c), and PEBS formats 0-4 with adaptive groups (pebs.c), all in arch/x86/model/.
 * docs/engine.md lists what it does not do.
 */
#ifndef ARCH_X86_MODEL_SPMU_H
#define ARCH_X86_MODEL_SPMU_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/status.h"
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/model/arch_lbr.h"
#include "arch/x86/model/counters.h"
#include "arch/x86/model/lbr.h"
#include "arch/x86/model/pebs.h"
#include "arch/x86/step/run.h"
#include "arch/x86/caps/caps.h"
#include "arch/x86/model/model.h"
#include "lib/x86_decode.h"

struct spmu_personality {
	const char *name;
	const char *what;
	const struct cpu_snapshot *snap; /* what CPUID and the capability MSRs say */
	uint32_t lbr_from_base, lbr_to_base, lbr_info_base; /* info 0: no LBR_INFO MSRs */
	bool lbr_select;				    /* MSR_LBR_SELECT exists */
	bool lbr_select_erratum; /* the Nehalem/Westmere LBR_SELECT erratum (model/lbr.c) */
	/* SDM Vol. 3B 17.4.4: "For P6 processor family, Pentium M processor family, processors
	 * based on Intel Core microarchitecture, TR and LBR bits" cannot be set at the same
	 * time, and the LBR stack's content is undefined while TR is set. */
	bool tr_undefines_lbr;
	/* BTS records carry the "branch predicted" flag (bit 4 of the flags field). SDM
	 * 253668-032US 16.4.9.2: "the branch predicted bit is not supported by Intel Core
	 * microarchitecture or Intel Atom microarchitecture". */
	bool bts_predicted;
	struct spmu_mem_events mem_events; /* the memory events it counts (counters.h) */
	/* A KVM guest's view (upstream Linux 6.x arch/x86/kvm/vmx/vmx.c vmx_set_msr and
	 * vmx_get_supported_debugctl): DEBUGCTL keeps LBR and FREEZE_LBRS_ON_PMI only (with the
	 * LBRs virtualized), drops BTF (and LBR without them) silently and takes #GP for any
	 * other bit; the last exception record MSRs read 0 (x86.c kvm_get_msr_common). */
	bool kvm_guest;
	bool explicit_only; /* left out of spmu=all: a guest's view, not a processor */
};

struct spmu_stats {
	uint64_t branches;
	uint64_t lbr_recorded, lbr_filtered;
	uint64_t bts_stored, bts_not_stored, bts_dropped, bts_threshold_pmis;
	uint64_t gp_faults;
	uint64_t pmis_requested;
	uint64_t lbr_frozen_skips; /* branches not recorded while the LBRs were frozen */
	uint64_t pebs_records, pebs_dropped, pebs_threshold_pmis;
	uint64_t btf_traps;
	uint64_t loads, stores, l1_misses; /* data accesses of stepped instructions */
	uint64_t lbr_undefined_tr; /* branches the LBRs did not record: TR set (tr_undefines_lbr) */
};

/*
 * The model's data cache, for load latency and its data source (SDM Vol. 3B 18.8.1.2, Table
 * 18-24): a documented, deterministic stand-in for silicon, which tags loads at random and
 * times them in a real hierarchy. One direct-mapped level of SPMU_L1_LINES 64-byte lines,
 * filled by every load and store of a stepped instruction and empty when the session starts:
 * a load that hits takes SPMU_LAT_L1 cycles ("the minimum detectable load latency is 4 core
 * clock cycles", 18.8.1.2) with data source 01H ("Minimal latency core cache hit"), a miss
 * SPMU_LAT_L2 cycles with data source 03H ("satisfied by the L2"). Every load is tagged.
 */
#define SPMU_L1_LINES	   64
#define SPMU_L1_LINE_SHIFT 6
#define SPMU_LAT_L1	   4
#define SPMU_LAT_L2	   14
#define SPMU_DSE_L1_HIT	   0x01
#define SPMU_DSE_L2_HIT	   0x03

struct spmu {
	const struct spmu_personality *p;
	struct trace_caps caps; /* decoded from p->snap, exactly as for a real CPU */
	uint64_t debugctl;
	uint64_t ds_area;
	struct lbr_stack lbr;	  /* model-specific LBR (caps.lbr.kind == TC_LBR_LEGACY) */
	struct arch_lbr arch_lbr; /* Architectural LBR (caps.lbr.kind == TC_LBR_ARCH) */
	struct spmu_counters ctr;
	struct pebs_config pebs;
	uint64_t pebs_data_cfg, pebs_ld_lat;
	uint64_t ler_from, ler_to;
	uint64_t last_from, last_to; /* the most recent taken branch */
	uint64_t steps_since_lbr;
	bool pmi_pending;
	bool btf_trap; /* a taken branch under DEBUGCTL.BTF: the next #DB is due */
	struct spmu_stats stats;
	uint64_t l1_tag[SPMU_L1_LINES]; /* line number + 1 per set; 0 empty */
	/* The last refused access, for the report. */
	uint32_t gp_msr;
	uint64_t gp_value;
	const char *gp_reason;
	void *(*lin)(uint64_t linear); /* how the model reaches DS memory; NULL if unmapped */
	/* Reads the XMM registers as the workload left them, for the adaptive XMM group (the
	 * kernel never touches them); NULL: the group is zero. */
	void (*read_xmm)(struct pebs_xmm *out);
};

void spmu_init(struct spmu *m, const struct spmu_personality *p, void *(*lin)(uint64_t));
/* STATUS_OK, or STATUS_REFUSED where the modelled processor would raise #GP. */
enum status spmu_rdmsr(struct spmu *m, uint32_t msr, uint64_t *value);
enum status spmu_wrmsr(struct spmu *m, uint32_t msr, uint64_t value);
/* One retired instruction, with the state after it (for PEBS records). */
struct spmu_step {
	uint64_t retired, next;
	bool branch; /* a branch instruction, taken or not */
	unsigned cpl;
	uint64_t tsc;
	const struct spmu_regs *regs;
	/* Its data accesses (lib/x86_mem.h: the first datum read, the first written). */
	bool load, store;
	uint64_t load_addr, store_addr;
};
/* Counters count it; a PEBS-enabled counter that overflows writes a record. */
void spmu_retire(struct spmu *m, const struct spmu_step *st);
/* The branches of runs r[0..k) (arch/x86/step/run.h; at one privilege level, spmu_feed_runs'
 * promise kept) as spmu_transfer records each, and their retirements' steps since the last LBR
 * record, where that is simple (the legacy LBR stack recording or off, no call-stack mode, no
 * BTS record stored): the LBR stack keeps the last `depth` records, encoded alone. False,
 * nothing changed, elsewhere. The counters are the caller's. */
bool spmu_runs_branches(struct spmu *m, const struct run_with_branch *r, size_t k);
/* spmu_retire of a step without data accesses while no counter can count (ctr.live clear):
 * all that moves is LBR_INFO's cycle count (a cycle is an instruction here). Inline: the
 * common step. */
static inline void spmu_retire_uncounted(struct spmu *m)
{
	m->steps_since_lbr++;
}
/*
 * An exception or interrupt delivered while the workload runs (not the engine's own
 * single-step traps, which real hardware would not take): the last exception record takes
 * the last branch before it (SDM Vol. 3B 17.4.8.1 / references.md 3.1: LASTINTFROMIP/TOIP), and a
 * debug exception clears DEBUGCTL.LBR (SDM 17.4.2; records are kept).
 */
void spmu_exception(struct spmu *m, unsigned vector);
/* After a step: whether BTF turned it into the workload's #DB (then LBR and BTF are clear). */
bool spmu_btf_trap(struct spmu *m);
/* One taken branch, as the hardware would see it (and BTF's trap armed). */
void spmu_branch(struct spmu *m, uint64_t from, uint64_t to, enum x86_branch_kind kind,
		 unsigned cpl_from, unsigned cpl_to);
/* A far transfer that is no instruction's branch (an exception's delivery, its handler's
 * IRET): recorded like a branch of that kind, without arming BTF (SDM Vol. 3B 17.4.3: BTF's
 * trap comes "only after instructions that cause a branch"). */
void spmu_transfer(struct spmu *m, uint64_t from, uint64_t to, enum x86_branch_kind kind,
		   unsigned cpl_from, unsigned cpl_to);
/* Counted loops (feed.c): the LBR records of k more takings of a branch whose last one went on
 * the legacy stack (spmu_transfer), each n + 1 instructions after the one before: the same
 * record each time. Only the stack changes; the statistics are the caller's. */
void spmu_lbr_again(struct spmu *m, uint64_t from, uint64_t to, enum x86_branch_kind kind,
		    unsigned cpl, uint64_t n, uint64_t k);
/* Whether architectural LBRs record (spmu_transfer's first case). */
bool spmu_arch_lbr_on(const struct spmu *m);

#endif
