/* SPDX-License-Identifier: MIT */
/*
 * The software PMU's performance counters: general-purpose counters (IA32_PERFEVTSELx /
 * IA32_PMCx and the full-width aliases IA32_A_PMCx), fixed counters (IA32_FIXED_CTRx,
 * IA32_FIXED_CTR_CTRL), the global MSRs (GLOBAL_CTRL, GLOBAL_STATUS, OVF_CTRL / STATUS_RESET,
 * STATUS_SET), overflow, PMI requests and freeze-on-PMI in both flavours.
 * Sources: SDM Vol. 3B 18.2 (architectural performance monitoring, versions 1-5), 17.4.7
 * (freezing LBR and counters on PMI), reference sections 7.1-7.3. Pure: host-tested.
 */
#ifndef ARCH_X86_MODEL_COUNTERS_H
#define ARCH_X86_MODEL_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/hw/pmu_regs.h"
#include "lib/bits.h"

#define SPMU_MAX_GP    8
#define SPMU_MAX_FIXED 4

enum spmu_freeze_flavour { SPMU_FREEZE_NONE, SPMU_FREEZE_LEGACY, SPMU_FREEZE_STREAMLINED };

/* The memory events a personality counts, each as event select | umask << 8 (0: not
 * counted). Written per processor in model/personality.c from the SDM's PEBS event tables
 * (Vol. 3B 18.8.1 Nehalem: MEM_INST_RETIRED.LOADS 0BH/01H, .STORES 0BH/02H,
 * .LATENCY_ABOVE_THRESHOLD 0BH/10H; 18.9.4.2 Sandy Bridge onwards: MEM_TRANS_RETIRED
 * .LATENCY_ABOVE_THRESHOLD "IA32_PerfEvtSelX[15:0] = 1CDH"; Skylake onwards
 * MEM_INST_RETIRED.ALL_LOADS D0H/81H, .ALL_STORES D0H/82H, Linux's mem-stores alias). */
struct spmu_mem_events {
	uint16_t loads, stores, load_latency;
};
#define SPMU_EVENT(event, umask) ((uint16_t)((event) | (umask) << 8))

/* What a counter's event makes of the memory access of the instruction it samples. */
enum spmu_mem_kind { SPMU_MEM_NONE, SPMU_MEM_LOADS, SPMU_MEM_STORES, SPMU_MEM_LOAD_LATENCY };

struct spmu_counters {
	/* configuration, from the personality */
	unsigned version, n_gp, gp_width, n_fixed, fixed_width;
	bool full_width_write;
	uint64_t pebs_valid; /* PEBS_ENABLE bits the processor has (0: no PEBS) */
	bool adaptive_pebs;  /* PERF_CAPABILITIES[14]: EVTSEL bit 34, FIXED_CTR_CTRL bits 32+4m */
	struct spmu_mem_events mem_events;
	bool counts_memory; /* an enabled GP counter has a memory event (kept by counters.c) */
	uint64_t live;	    /* counters that can count (GLOBAL_STATUS layout; counters.c) */
	/* state */
	uint64_t evtsel[SPMU_MAX_GP], pmc[SPMU_MAX_GP];
	uint64_t fixed[SPMU_MAX_FIXED], fixed_ctrl;
	uint64_t global_ctrl, global_status;
	uint64_t pebs_enable;
	/* PEBS armed by an overflow (GLOBAL_STATUS bit layout): "an overflow condition in the
	 * counter will arm PEBS. On the subsequent event following overflow, the processor will
	 * generate a PEBS event" (SDM Vol. 3B 18.4.4, PEBS). */
	uint64_t pebs_armed;
};

/* What happened during one retired instruction. */
struct spmu_tick {
	bool branch;		   /* a branch instruction retired (taken or not) */
	bool load, store;	   /* it read / wrote data memory (lib/x86_mem.h) */
	bool load_above_threshold; /* a load slower than MSR_PEBS_LD_LAT_THRESHOLD */
	unsigned cpl;
};

/* Outcome of an event: whether a PMI is requested and which freezes the caller must apply to
 * state it owns (DEBUGCTL.LBR for legacy LBR freeze). */
struct spmu_overflow {
	bool pmi;
	bool freeze_lbr_legacy; /* clear DEBUGCTL.LBR */
	uint64_t pebs; /* PEBS-enabled counters whose armed PEBS fires now: a record each is due */
};

void spmu_counters_init(struct spmu_counters *c, unsigned version, unsigned n_gp, unsigned gp_width,
			unsigned n_fixed, unsigned fixed_width, bool full_width_write);
/* MSR access; returns 0, or -1 for a model #GP (with a reason). `handled` says whether the
 * MSR belongs to the counters at all. */
int spmu_counters_rdmsr(struct spmu_counters *c, uint32_t msr, uint64_t *v, bool *handled,
			const char **reason);
int spmu_counters_wrmsr(struct spmu_counters *c, uint32_t msr, uint64_t v, bool *handled,
			const char **reason);
/* Count one retired instruction; debugctl's FREEZE_* bits decide the freeze on overflow. */
struct spmu_overflow spmu_counters_tick(struct spmu_counters *c, const struct spmu_tick *t,
					uint64_t debugctl);
/* How many instructions that are no branch and access no data, retiring at `cpl`, may be
 * counted as one batch (spmu_counters_tick_plain) with the same result as one tick each: no
 * counter that counts them overflows, none is armed for PEBS (its next event writes a record);
 * 0 where memory events are counted. UINT64_MAX: nothing counts them. */
uint64_t spmu_counters_plain_room(const struct spmu_counters *c, unsigned cpl);
/* n such instructions at once (n no more than spmu_counters_plain_room's answer). */
void spmu_counters_tick_plain(struct spmu_counters *c, uint64_t n, unsigned cpl);
/* Whether `steps` more retired instructions of any kind (each ticks a counter at most once)
 * leave every counter below its overflow, none armed for PEBS, memory events not counted: then
 * their ticks request no PMI and write no PEBS record (per-block stepping's short way). */
bool spmu_counters_quiet(const struct spmu_counters *c, uint64_t steps);
/* spmu_counters_quiet for `steps` retired instructions of which at most `branches` are
 * branches: a counter of branches (ARCH_EVENT_BRANCHES) needs room for those only. */
bool spmu_counters_quiet_runs(const struct spmu_counters *c, uint64_t steps, uint64_t branches);
/* k ticks alike (t), where spmu_counters_quiet said at least k steps overflow nothing and no
 * PEBS record is armed: each counter that counts t moves by k at once, as k calls of
 * spmu_counters_tick would move it (the code cache's runs, arch/x86/model/feed.c). */
void spmu_counters_tick_n(struct spmu_counters *c, const struct spmu_tick *t, uint64_t k);
/* The memory kind of GP counter n's event (SPMU_MEM_NONE for fixed counters, n >= 32). */
enum spmu_mem_kind spmu_counters_mem_kind(const struct spmu_counters *c, unsigned n);
/* Whether LBRs are frozen (streamlined freeze, LBR_Frz set). */
bool spmu_counters_lbr_frozen(const struct spmu_counters *c);
/* A PMI request from elsewhere (BTS or PEBS threshold): apply the freeze it implies. */
struct spmu_overflow spmu_counters_pmi_freeze(struct spmu_counters *c, uint64_t debugctl);

#endif
