/* SPDX-License-Identifier: MIT */
/*
 * The software PMU's PEBS record writer: formats 0-3 (one struct each, arch/x86/hw/ds_layout.h)
 * and adaptive PEBS (format 4 with IA32_PERF_CAPABILITIES[14] and MSR_PEBS_DATA_CFG groups),
 * into the DS PEBS buffer with its threshold (references.md 5.2, 6.2-6.5). Pure.
 * Data linear address, data source and latency come from the sampled instruction's access
 * (spmu.h: the cache stand-in); the XMM group holds the registers the caller read at the
 * sampled instruction; what the model cannot know is zero and documented: TSX tuning (no
 * transactions).
 */
#ifndef ARCH_X86_MODEL_PEBS_H
#define ARCH_X86_MODEL_PEBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/hw/ds_layout.h"

/* Architectural state at the sampled instruction (after it retired). */
struct spmu_regs {
	uint64_t rflags;
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
};

struct pebs_sample {
	uint64_t eventing_ip; /* the instruction that caused the overflow */
	uint64_t next_ip;     /* where execution continues: the trap-like RIP */
	uint64_t applicable;  /* counters the record is for (GLOBAL_STATUS bit layout) */
	uint64_t tsc;
	const struct spmu_regs *regs;
	uint64_t dla;			  /* data linear address of a memory event, else 0 */
	uint64_t dse;			  /* data source (load latency), else 0 */
	uint64_t latency;		  /* load latency in cycles (load latency), else 0 */
	const struct pebs_lbr_entry *lbr; /* newest first, for the adaptive LBR group */
	unsigned lbr_count;
	const struct pebs_xmm *xmm; /* XMM0-15 after the sampled instruction; NULL: zero */
};

struct pebs_config {
	unsigned format; /* IA32_PERF_CAPABILITIES[11:8] */
	bool adaptive;	 /* format 4 with the baseline bit */
	bool trap;	 /* IA32_PERF_CAPABILITIES[6]: RIP is the next instruction */
	uint64_t data_cfg;
};

/* Record size in bytes for the configuration, 0 if the model does not offer it. */
size_t pebs_record_size(const struct pebs_config *c);

struct pebs_write_result {
	bool stored;
	bool dropped_full;  /* the buffer is not circular: no room, record lost (counted) */
	bool threshold_hit; /* the PEBS index reached its interrupt threshold */
};

struct pebs_write_result pebs_write(struct ds_area64 *ds, void *(*at)(uint64_t lin),
				    const struct pebs_config *c, const struct pebs_sample *s);

#endif
