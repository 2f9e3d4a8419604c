/* SPDX-License-Identifier: MIT */
/*
 * PEBS records as data: record sizes per format, a format-independent decoder, DS counter-reset
 * slots, buffer thresholds and the IA32_PEBS_ENABLE / MSR_PEBS_LD_LAT values a driver may write,
 * checked against the decoded capabilities. Pure: no MSR access, builds freestanding and on the
 * host. Layouts come from arch/x86/hw/ds_layout.h.
 *
 * Sources: SDM Vol. 3B 18.4.4 (PEBS on Intel Core: buffer, PERF_CAPABILITIES[6] trap/fault,
 * record formats 0000B-0011B), 18.8.1.1 (format 1, Nehalem), 18.11.2 (format 2, Haswell),
 * 18.13.1.1 (format 3, Skylake), 18.15.7 (format 0 on Atom), the Adaptive PEBS section of later
 * editions (formats 4+), and docs/references.md ("references.md 6.x").
 *
 * Supported: formats 0-3 and formats 4/5, adaptive or not. Format 6 (counters-snapshot group)
 * and later are refused: references.md 6.4 marks which parts report them, and the group layout,
 * unconfirmed.
 */
#ifndef ARCH_X86_DRIVERS_PEBS_H
#define ARCH_X86_DRIVERS_PEBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/caps/caps.h"

#define PEBS_FORMAT_MAX_SUPPORTED 5 /* highest format this module decodes (references.md 6.4) */
#define PEBS_FORMAT_FIRST_BASIC	  4 /* basic group record, adaptive with PERF_CAP[14] */

/* Negative results; 0 is success. pebs_error_name() gives each a stable phrase. */
enum pebs_err {
	PEBS_OK = 0,
	PEBS_ERR_ARG = -1,	     /* NULL record/output pointer */
	PEBS_ERR_FORMAT = -2,	     /* format 6+, or adaptive below format 4 */
	PEBS_ERR_DATA_CFG = -3,	     /* DATA_CFG selects format-6 groups (CNTR/METRICS) */
	PEBS_ERR_SHORT = -4,	     /* fewer bytes available than the record size */
	PEBS_ERR_SIZE_MISMATCH = -5, /* basic qword 0 bits 63:48 != size from DATA_CFG */
	PEBS_ERR_GROUPS = -6,	     /* basic qword 0 group mask != DATA_CFG's group bits */
	PEBS_ERR_NO_PEBS = -7,	     /* capabilities say PEBS is unavailable */
	PEBS_ERR_COUNTER = -8,	     /* GP counter absent, or not PEBS-capable on this format */
	PEBS_ERR_LOAD_LATENCY = -9,  /* load-latency bit not available here */
	PEBS_ERR_EXTENDED = -10,     /* extended PEBS on a fixed counter not available here */
	PEBS_ERR_CONFLICT = -11,     /* load latency and extended PEBS both use bits 32+ */
	PEBS_ERR_RANGE = -12,	     /* MSR_PEBS_LD_LAT threshold above 0xffff cycles */
	PEBS_ERR_EVENT = -13,	     /* no such memory event tabled for this processor */
};
const char *pebs_error_name(int err);

/*
 * What the record's IP means (SDM 18.4.4.2 PEBSTrap; references.md 6.2, 6.6):
 *  EXACT: format >= 2 eventing IP (offset 0xb0), or the basic group's IP (formats 4/5).
 *  TRAP:  format 0/1 with PERF_CAPABILITIES[6]: the record's RIP is the instruction after
 *         the sampled one (an LBR-based fixup, references.md 6.6, can recover it).
 *  FAULT: format 0/1 without it: the record is written before the sampled instruction
 *         executes, so RIP is the sampled instruction itself.
 */
enum pebs_ip_kind { PEBS_IP_EXACT, PEBS_IP_TRAP, PEBS_IP_FAULT };
const char *pebs_ip_kind_name(enum pebs_ip_kind k); /* "exact", "trap", "fault" */

/*
 * One decoded record, whatever its format. A has_* flag says whether the format carries the
 * field; absent fields are 0.
 */
struct pebs_decoded {
	unsigned format;
	bool adaptive;
	uint32_t size; /* record bytes, the stride to the next record */

	enum pebs_ip_kind ip_kind;
	bool has_eventing_ip; /* not for TRAP */
	uint64_t eventing_ip; /* the instruction that caused the event */
	bool has_next_ip;     /* legacy RIP when trap-like; adaptive GPR group's RIP */
	uint64_t next_ip;     /* the architectural IP after it retired */

	/* Format 1/2: GLOBAL_STATUS snapshot, may be 0 or multi-bit (references.md 6.2). Format >=
	 * 3 and the basic group: applicable counters, GP n -> bit n, fixed m -> bit 32+m. */
	bool has_status;
	bool status_exact;
	uint64_t status;

	bool has_meminfo;   /* format >= 1, adaptive memory-info group */
	uint64_t data_addr; /* data linear address */
	uint64_t data_src;  /* data source encoding (references.md 6.2), adaptive "aux" */
	uint64_t latency;   /* load latency (ADL+ adaptive: 15:0 insn, 47:32 cache) */
	bool has_tsx;	    /* format >= 2, adaptive memory-info group */
	uint64_t tsx_tuning;
	bool has_tsc; /* format >= 3, basic group */
	uint64_t tsc;

	/* Formats 0-3 always lay out the GPRs (only RIP/RFLAGS meaningful when
	 * PERF_CAPABILITIES[7] is 0, SDM 18.4.4.2); adaptive with the GPR group. gprs.ip is
	 * the record's RIP: next_ip when trap-like, the sampled instruction when fault-like. */
	bool has_gprs;
	struct pebs_gprs gprs;

	/* Formats 4/5 only. */
	uint32_t groups;	 /* basic qword 0 bits 31:0 (DATA_CFG mirror) */
	uint32_t retire_latency; /* bits 47:32, meaningful with PERF_CAPABILITIES[17] */
	bool has_xmm;
	uint32_t xmm_offset; /* byte offset of XMM0 in the record */
	unsigned lbr_count;  /* LBR group entries (DATA_CFG[31:24] + 1), 0 without it */
	uint32_t lbr_offset; /* byte offset of the first entry in the record */
	const void *lbr;     /* rec + lbr_offset; may be unaligned: read with pebs_lbr_get() */
};

/* Record size in bytes; 0 when unsupported (format 6+, adaptive below 4, DATA_CFG CNTR or
 * METRICS). data_cfg is ignored unless adaptive. */
size_t pebs_record_bytes(unsigned format, bool adaptive, uint64_t data_cfg);

/* Decode the record at rec (avail bytes readable) into *out, which is always cleared first.
 * trap_like is PERF_CAPABILITIES[6]. Returns PEBS_OK or a negative enum pebs_err. */
int pebs_decode(unsigned format, bool adaptive, bool trap_like, uint64_t data_cfg, const void *rec,
		size_t avail, struct pebs_decoded *out);

/* Copy LBR entry i (0 = newest) of a decoded record; false if i >= lbr_count. */
bool pebs_lbr_get(const struct pebs_decoded *s, unsigned i, struct pebs_lbr_entry *e);

/* Byte offset in struct ds_area64 of the counter-reset slot of GP counter `index` or fixed
 * counter `index` (references.md 5.2): formats 0-4 have 8 GP and 4 fixed slots, format 5 has 32
 * and 16. 0 (never a slot) when the counter has no slot or the format is unsupported. */
uint32_t pebs_counter_reset_offset(unsigned format, bool fixed, unsigned index);

/* Thresholds (references.md 6.5). Single-record: a PMI per record, base + record_size. */
uint64_t pebs_threshold_single(uint64_t base, size_t record_size);
/* Multi-record: leave room for one more record per PEBS counter, abs_max - counters *
 * record_size, with abs_max first rounded down to whole records from base. Never below
 * base + record_size (a buffer too small for that degrades to single-record). */
uint64_t pebs_threshold_multi(uint64_t base, uint64_t abs_max, size_t record_size,
			      unsigned counters);

/*
 * IA32_PEBS_ENABLE for PEBS on the GP counters in gp_mask (bit n = PMCn), load latency on the
 * counters in load_latency_mask, extended PEBS on the fixed counters in fixed_mask (reference
 * 6.1). Checked against *c: format 0 samples on PMC0 only, formats 1-3 on PMC0-3; load latency
 * needs perfmon < v5, format >= 1, n < 4 and PEBS on the same counter; extended PEBS needs
 * PERF_CAPABILITIES[14] and format >= 4; every counter must exist and have a DS reset slot.
 * On refusal returns a negative enum pebs_err, *out is 0 and `why` (may be NULL) says what is
 * wrong and what is accepted; on success `why` is "".
 */
int pebs_enable_bits(const struct trace_caps *c, uint32_t gp_mask, uint32_t fixed_mask,
		     uint32_t load_latency_mask, uint64_t *out, char *why, size_t why_size);

/* MSR_PEBS_LD_LAT value for a minimum load latency of `cycles` (bits 15:0, references.md 6.1);
 * PEBS_ERR_RANGE above 0xffff. */
int pebs_ld_lat_value(unsigned cycles, uint64_t *out);

/* The memory events of PEBS with a data address (SDM Vol. 3B 18.8.1 Nehalem, 18.9.4 Sandy
 * Bridge, 18.3.8 Skylake onwards; Linux arch/x86/events/intel/core.c mem-loads/mem-stores). */
enum pebs_mem_event { PEBS_MEM_LOAD_LATENCY, PEBS_MEM_ALL_LOADS, PEBS_MEM_STORES };
/* The event select and umask of `which` on the processor of *c; PEBS_OK, or an error with
 * the reason in why (not tabled for this microarchitecture, or no such event). */
int pebs_memory_event(const struct trace_caps *c, enum pebs_mem_event which, uint8_t *event,
		      uint8_t *umask, char *why, size_t why_size);

#endif
