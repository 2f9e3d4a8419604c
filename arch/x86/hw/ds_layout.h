/* SPDX-License-Identifier: MIT */
/*
 * Debug Store layouts, defined once for the drivers, the software PMU and the host decoder:
 * the 64-bit DS buffer-management area (SDM Vol. 3B 17.4.9, Figure 17-8 "IA-32e Mode DS Save
 * Area") and the 64-bit BTS record (Figure 17-9). The MSR numbers are in hw/msr.h, the DEBUGCTL
 * bits that govern BTS (SDM 17.4.1, Figure 17-3) in hw/pmu_regs.h, included here.
 */
#ifndef ARCH_X86_HW_DS_LAYOUT_H
#define ARCH_X86_HW_DS_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "arch/x86/hw/msr.h"
#include "arch/x86/hw/pmu_regs.h"
#include "lib/bits.h"

/* The 64-bit DS buffer-management area (DTES64 layout). */
struct ds_area64 {
	uint64_t bts_base;
	uint64_t bts_index; /* next record is written here */
	uint64_t bts_abs_max;
	uint64_t bts_threshold;
	uint64_t pebs_base;
	uint64_t pebs_index;
	uint64_t pebs_abs_max;
	uint64_t pebs_threshold;
	uint64_t pebs_counter_reset[48]; /* GP then fixed counters; offsets by format */
};
_Static_assert(offsetof(struct ds_area64, bts_index) == 0x08, "Figure 17-8: BTS index");
_Static_assert(offsetof(struct ds_area64, bts_threshold) == 0x18, "BTS interrupt threshold");
_Static_assert(offsetof(struct ds_area64, pebs_base) == 0x20, "PEBS buffer base");
_Static_assert(offsetof(struct ds_area64, pebs_threshold) == 0x38, "PEBS threshold");
_Static_assert(offsetof(struct ds_area64, pebs_counter_reset) == 0x40, "PEBS counter reset");
_Static_assert(sizeof(struct ds_area64) == 0x1c0, "8 header qwords + 48 reset slots");

/* A 64-bit BTS record (Figure 17-9). */
struct bts_record {
	uint64_t from;
	uint64_t to;
	uint64_t flags;
};
#define BTS_FLAG_PREDICTED BIT(4)
_Static_assert(sizeof(struct bts_record) == 24, "BTS record is 24 bytes");
_Static_assert(offsetof(struct bts_record, flags) == 16, "flags at offset 16");

/*
 * PEBS records, one struct per format generation (references.md 6.2; Linux pebs_record_core/nhm/
 * hsw/skl). Format 0 is the 144-byte record; each later format appends fields.
 */
struct pebs_gprs_legacy {
	uint64_t rflags, rip;
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
};

struct pebs_record_fmt0 { /* Core 2, Bonnell */
	struct pebs_gprs_legacy g;
};
_Static_assert(sizeof(struct pebs_record_fmt0) == 144, "PEBS format 0 record is 144 bytes");

struct pebs_record_fmt1 { /* Nehalem .. Ivy Bridge */
	struct pebs_gprs_legacy g;
	uint64_t status;  /* applicable counters */
	uint64_t dla;	  /* data linear address */
	uint64_t dse;	  /* data source */
	uint64_t latency; /* load latency */
};
_Static_assert(sizeof(struct pebs_record_fmt1) == 176, "PEBS format 1 record is 176 bytes");
_Static_assert(offsetof(struct pebs_record_fmt1, status) == 0x90, "status at 0x90");

struct pebs_record_fmt2 { /* Haswell, Broadwell */
	struct pebs_record_fmt1 f1;
	uint64_t eventing_ip; /* exact IP of the sampled instruction */
	uint64_t tsx_tuning;
};
_Static_assert(sizeof(struct pebs_record_fmt2) == 192, "PEBS format 2 record is 192 bytes");
_Static_assert(offsetof(struct pebs_record_fmt2, eventing_ip) == 0xb0, "eventing IP at 0xb0");

struct pebs_record_fmt3 { /* Skylake family */
	struct pebs_record_fmt2 f2;
	uint64_t tsc;
};
_Static_assert(sizeof(struct pebs_record_fmt3) == 200, "PEBS format 3 record is 200 bytes");
_Static_assert(offsetof(struct pebs_record_fmt3, tsc) == 0xc0, "TSC at 0xc0");

/* Adaptive PEBS (format 4 with IA32_PERF_CAPABILITIES[14], references.md 6.3): a basic group,
 * then the groups MSR_PEBS_DATA_CFG selects, in this order. */
#define PEBS_DATACFG_MEMINFO   BIT(0)
#define PEBS_DATACFG_GP	       BIT(1)
#define PEBS_DATACFG_XMMS      BIT(2)
#define PEBS_DATACFG_LBRS      BIT(3)
#define PEBS_DATACFG_LBR_COUNT GENMASK(31, 24) /* entries - 1 */
#define PEBS_BASIC_SIZE_FIELD  GENMASK(63, 48) /* qword 0: record size in bytes */

struct pebs_basic {
	uint64_t format_size; /* 31:0 group mask (mirrors DATA_CFG), 63:48 record size */
	uint64_t ip;	      /* eventing IP */
	uint64_t applicable_counters;
	uint64_t tsc;
};
_Static_assert(sizeof(struct pebs_basic) == 32, "basic group is 32 bytes");

struct pebs_meminfo {
	uint64_t address, aux, latency, tsx_tuning;
};
_Static_assert(sizeof(struct pebs_meminfo) == 32, "memory-info group is 32 bytes");

struct pebs_gprs { /* note the order: not the legacy record's */
	uint64_t flags, ip, ax, cx, dx, bx, sp, bp, si, di;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
};
_Static_assert(sizeof(struct pebs_gprs) == 144, "GPR group is 144 bytes");

struct pebs_xmm {
	uint64_t xmm[16 * 2];
};
_Static_assert(sizeof(struct pebs_xmm) == 256, "XMM group is 256 bytes");

struct pebs_lbr_entry {
	uint64_t from, to, info;
};
_Static_assert(sizeof(struct pebs_lbr_entry) == 24, "LBR group entries are 24 bytes");

/* PEBS counter-reset slots in the DS area (references.md 5.2): GP counter n at 0x40 + 8n; fixed
 * counter m at 0x80 + 8m up to format 4, at 0x140 + 8m from format 5. */
#define DS_PEBS_RESET_GP(n)	    (0x40 + 8 * (n))
#define DS_PEBS_RESET_FIXED(fmt, m) ((fmt) >= 5 ? 0x140 + 8 * (m) : 0x80 + 8 * (m))

/* More of the adaptive basic group's qword 0 and MSR_PEBS_DATA_CFG (references.md 6.3). */
#define PEBS_BASIC_GROUP_FIELD GENMASK(31, 0)  /* mirrors DATA_CFG[31:0], LBR count included */
#define PEBS_BASIC_RETIRE_LAT  GENMASK(47, 32) /* with IA32_PERF_CAPABILITIES[17] timing info */
#define PEBS_DATACFG_CNTR      BIT(4)	       /* format 6: counters group (LKML PEBS counters) */
#define PEBS_DATACFG_METRICS   BIT(5)	       /* format 6: PERF_METRICS in the counters group */

#endif
