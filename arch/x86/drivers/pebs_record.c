/* SPDX-License-Identifier: MIT */
#include "arch/x86/drivers/pebs_record.h"
#include "arch/x86/caps/pebs_models.h"
#include "arch/x86/hw/pmu_regs.h"
#include <stdarg.h>
#include "lib/fmt.h"
#include "lib/string.h"

/* Group bits of DATA_CFG that the basic group's qword 0 mirrors (references.md 6.3). */
#define DATACFG_GROUP_BITS                                                                         \
	(PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GP | PEBS_DATACFG_XMMS | PEBS_DATACFG_LBRS |          \
	 PEBS_DATACFG_CNTR | PEBS_DATACFG_METRICS)

/* DS counter-reset slots (references.md 5.2, Linux intel_ds.h, LKML PEBS format 5). */
#define RESET_GP_SLOTS(fmt)    ((fmt) >= 5 ? 32u : 8u)
#define RESET_FIXED_SLOTS(fmt) ((fmt) >= 5 ? 16u : 4u)
_Static_assert(DS_PEBS_RESET_FIXED(4, 0) == DS_PEBS_RESET_GP(8), "fmt <= 4: fixed after 8 GP");
_Static_assert(DS_PEBS_RESET_FIXED(5, 0) == DS_PEBS_RESET_GP(32), "fmt 5: fixed after 32 GP");
_Static_assert(DS_PEBS_RESET_FIXED(5, 15) + 8 == sizeof(struct ds_area64), "fmt 5 fills the area");

#define LD_LAT_COUNTERS 4 /* LL_EN_PMC0-3, IA32_PEBS_ENABLE bits 35:32 (references.md 6.1) */

static const char *const defect_names[] = {
    [PEBS_DEFECT_NONE] = "none",
    [PEBS_DEFECT_ARG] = "null argument",
    [PEBS_DEFECT_FORMAT] = "unsupported PEBS record format",
    [PEBS_DEFECT_DATA_CFG] = "DATA_CFG selects groups not decoded (format 6 counters/metrics)",
    [PEBS_DEFECT_SHORT] = "fewer bytes than the record size",
    [PEBS_DEFECT_SIZE_MISMATCH] = "record size field differs from the size DATA_CFG implies",
    [PEBS_DEFECT_GROUPS] = "record group mask differs from DATA_CFG",
};
_Static_assert(ARRAY_SIZE(defect_names) == PEBS_DEFECTS, "a phrase for every defect");

const char *pebs_defect_name(enum pebs_defect d)
{
	return (unsigned)d < PEBS_DEFECTS ? defect_names[d] : "unknown PEBS defect";
}

const char *pebs_ip_kind_name(enum pebs_ip_kind k)
{
	static const char *const names[] = {
	    [PEBS_IP_EXACT] = "exact", [PEBS_IP_TRAP] = "trap", [PEBS_IP_FAULT] = "fault"};
	return (unsigned)k < ARRAY_SIZE(names) ? names[k] : "?";
}

/* Whether the configuration is one this module decodes. */
static enum pebs_defect config_error(unsigned format, bool adaptive, uint64_t data_cfg)
{
	if (format > PEBS_FORMAT_MAX_SUPPORTED)
		return PEBS_DEFECT_FORMAT; /* format 6+: references.md 6.4 marks it unconfirmed */
	if (adaptive && format < PEBS_FORMAT_FIRST_BASIC)
		return PEBS_DEFECT_FORMAT; /* Linux clears the baseline bit below format 4
					   (references.md 1.5) */
	if (adaptive && (data_cfg & (PEBS_DATACFG_CNTR | PEBS_DATACFG_METRICS)))
		return PEBS_DEFECT_DATA_CFG; /* reserved before format 6 */
	return PEBS_DEFECT_NONE;
}

static unsigned lbr_entries(uint64_t data_cfg)
{
	if (!(data_cfg & PEBS_DATACFG_LBRS))
		return 0;
	return (unsigned)FIELD_GET(PEBS_DATACFG_LBR_COUNT, data_cfg) + 1;
}

size_t pebs_record_bytes(unsigned format, bool adaptive, uint64_t data_cfg)
{
	if (config_error(format, adaptive, data_cfg) != PEBS_DEFECT_NONE)
		return 0;
	switch (format) { /* references.md 6.2 */
	case 0:
		return sizeof(struct pebs_record_fmt0); /* 144 */
	case 1:
		return sizeof(struct pebs_record_fmt1); /* 176 */
	case 2:
		return sizeof(struct pebs_record_fmt2); /* 192 */
	case 3:
		return sizeof(struct pebs_record_fmt3); /* 200 */
	}
	/* Formats 4 and 5: the same record (format 5 changes only the DS reset layout, reference
	 * 6.4). Without PERF_CAPABILITIES[14], the basic group alone. Groups in DATA_CFG order
	 * (references.md 6.3): memory info, GPRs, XMM, LBR entries. */
	size_t n = sizeof(struct pebs_basic);
	if (!adaptive)
		return n;
	if (data_cfg & PEBS_DATACFG_MEMINFO)
		n += sizeof(struct pebs_meminfo);
	if (data_cfg & PEBS_DATACFG_GP)
		n += sizeof(struct pebs_gprs);
	if (data_cfg & PEBS_DATACFG_XMMS)
		n += sizeof(struct pebs_xmm);
	return n + sizeof(struct pebs_lbr_entry) * lbr_entries(data_cfg);
}

/* Formats 0-3: a prefix of the format-3 record (references.md 6.2). */
static void decode_legacy(unsigned format, bool trap_like, const void *rec, size_t size,
			  struct pebs_decoded *o)
{
	struct pebs_record_fmt3 r;
	memcpy(&r, rec, size); /* the fields a shorter format lacks read as 0 */
	memset((uint8_t *)&r + size, 0, sizeof(r) - size);
	const struct pebs_gprs_legacy *g = &r.f2.f1.g;

	/* The legacy order (RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP) into the adaptive one. */
	o->has_gprs = true;
	o->gprs = (struct pebs_gprs){
	    .flags = g->rflags,
	    .ip = g->rip,
	    .ax = g->rax,
	    .cx = g->rcx,
	    .dx = g->rdx,
	    .bx = g->rbx,
	    .sp = g->rsp,
	    .bp = g->rbp,
	    .si = g->rsi,
	    .di = g->rdi,
	    .r8 = g->r8,
	    .r9 = g->r9,
	    .r10 = g->r10,
	    .r11 = g->r11,
	    .r12 = g->r12,
	    .r13 = g->r13,
	    .r14 = g->r14,
	    .r15 = g->r15,
	};
	/* RIP at 0x08 (SDM 18.4.4.2): after the sampled instruction when trap-like. */
	o->has_next_ip = trap_like;
	o->next_ip = trap_like ? g->rip : 0;
	if (format >= 2) { /* eventing IP at 0xb0 (SDM 18.11.2) */
		o->ip_kind = PEBS_IP_EXACT;
		o->has_eventing_ip = true;
		o->eventing_ip = r.f2.eventing_ip;
	} else if (trap_like) {
		o->ip_kind = PEBS_IP_TRAP;
	} else {
		o->ip_kind = PEBS_IP_FAULT;
		o->has_eventing_ip = true;
		o->eventing_ip = g->rip;
	}
	if (format >= 1) { /* SDM 18.8.1.1 */
		o->has_status = true;
		o->status_exact = format >= 3; /* SDM 18.13.1.1: "applicable counter" from 0011B */
		o->status = r.f2.f1.status;
		o->has_meminfo = true;
		o->data_addr = r.f2.f1.dla;
		o->data_src = r.f2.f1.dse;
		o->latency = r.f2.f1.latency;
	}
	if (format >= 2) {
		o->has_tsx = true;
		o->tsx_tuning = r.f2.tsx_tuning;
	}
	if (format >= 3) {
		o->has_tsc = true;
		o->tsc = r.tsc;
	}
}

/* Formats 4/5: the basic group, then the DATA_CFG groups in order (references.md 6.3). */
static enum pebs_defect decode_basic(uint64_t cfg, const void *rec, size_t size,
				     struct pebs_decoded *o)
{
	const uint8_t *p = rec;
	struct pebs_basic b;
	memcpy(&b, p, sizeof(b));

	/* Linux sanity-checks the self-described size against DATA_CFG's (references.md 6.3). */
	uint64_t compared =
	    DATACFG_GROUP_BITS | (cfg & PEBS_DATACFG_LBRS ? PEBS_DATACFG_LBR_COUNT : 0);
	if ((b.format_size ^ cfg) & compared)
		return PEBS_DEFECT_GROUPS;
	if (FIELD_GET(PEBS_BASIC_SIZE_FIELD, b.format_size) != size)
		return PEBS_DEFECT_SIZE_MISMATCH;

	o->groups = (uint32_t)FIELD_GET(PEBS_BASIC_GROUP_FIELD, b.format_size);
	o->retire_latency = (uint32_t)FIELD_GET(PEBS_BASIC_RETIRE_LAT, b.format_size);
	o->ip_kind = PEBS_IP_EXACT;
	o->has_eventing_ip = true;
	o->eventing_ip = b.ip;
	o->has_status = o->status_exact = true;
	o->status = b.applicable_counters;
	o->has_tsc = true;
	o->tsc = b.tsc;

	size_t off = sizeof(b);
	if (cfg & PEBS_DATACFG_MEMINFO) {
		struct pebs_meminfo m;
		memcpy(&m, p + off, sizeof(m));
		o->has_meminfo = o->has_tsx = true;
		o->data_addr = m.address;
		o->data_src = m.aux;
		o->latency = m.latency;
		o->tsx_tuning = m.tsx_tuning;
		off += sizeof(m);
	}
	if (cfg & PEBS_DATACFG_GP) {
		memcpy(&o->gprs, p + off, sizeof(o->gprs));
		o->has_gprs = true;
		o->has_next_ip = true; /* the GPR group's RIP is the architectural IP */
		o->next_ip = o->gprs.ip;
		off += sizeof(o->gprs);
	}
	if (cfg & PEBS_DATACFG_XMMS) {
		o->has_xmm = true;
		o->xmm_offset = (uint32_t)off;
		off += sizeof(struct pebs_xmm);
	}
	o->lbr_count = lbr_entries(cfg);
	if (o->lbr_count) {
		o->lbr_offset = (uint32_t)off;
		o->lbr = p + off;
	}
	return PEBS_DEFECT_NONE;
}

/* A record refused: *out cleared but for what is wrong with it. */
static enum status refused(struct pebs_decoded *out, enum pebs_defect d)
{
	memset(out, 0, sizeof(*out));
	out->defect = d;
	return STATUS_INVALID;
}

enum status pebs_decode(unsigned format, bool adaptive, bool trap_like, uint64_t data_cfg,
			const void *rec, size_t avail, struct pebs_decoded *out)
{
	if (!out)
		return STATUS_INVALID;
	memset(out, 0, sizeof(*out));
	if (!rec)
		return refused(out, PEBS_DEFECT_ARG);
	enum pebs_defect d = config_error(format, adaptive, data_cfg);
	if (d != PEBS_DEFECT_NONE)
		return refused(out, d);
	/* Without the baseline bit there is no MSR_PEBS_DATA_CFG: the basic group alone. */
	uint64_t cfg = adaptive ? data_cfg : 0;
	size_t size = pebs_record_bytes(format, adaptive, cfg);
	if (avail < size)
		return refused(out, PEBS_DEFECT_SHORT);
	out->format = format;
	out->adaptive = adaptive;
	out->size = (uint32_t)size;
	if (format < PEBS_FORMAT_FIRST_BASIC) {
		decode_legacy(format, trap_like, rec, size, out);
		return STATUS_OK;
	}
	d = decode_basic(cfg, rec, size, out);
	return d == PEBS_DEFECT_NONE ? STATUS_OK : refused(out, d);
}

bool pebs_lbr_get(const struct pebs_decoded *s, unsigned i, struct pebs_lbr_entry *e)
{
	if (!s || !s->lbr || i >= s->lbr_count)
		return false;
	memcpy(e, (const uint8_t *)s->lbr + (size_t)i * sizeof(*e), sizeof(*e));
	return true;
}

uint32_t pebs_counter_reset_offset(unsigned format, bool fixed, unsigned index)
{
	if (format > PEBS_FORMAT_MAX_SUPPORTED)
		return 0;
	if (index >= (fixed ? RESET_FIXED_SLOTS(format) : RESET_GP_SLOTS(format)))
		return 0;
	uint32_t off = fixed ? DS_PEBS_RESET_FIXED(format, index) : DS_PEBS_RESET_GP(index);
	if (off < offsetof(struct ds_area64, pebs_counter_reset) ||
	    off + sizeof(uint64_t) > sizeof(struct ds_area64))
		return 0;
	return off;
}

uint64_t pebs_threshold_single(uint64_t base, size_t record_size)
{
	return base + record_size;
}

uint64_t pebs_threshold_multi(uint64_t base, uint64_t abs_max, size_t record_size,
			      unsigned counters)
{
	uint64_t lowest = base + record_size;
	if (record_size == 0 || abs_max <= base)
		return lowest;
	uint64_t records = (abs_max - base) / record_size;
	if (records <= counters)
		return lowest;
	return base + (records - counters) * record_size; /* >= lowest: one record or more */
}

/* The first set bit of `bits` not in `allowed`, or -1. */
static int first_outside(uint32_t bits, uint32_t allowed)
{
	uint32_t bad = bits & ~allowed;
	return bad ? __builtin_ctz(bad) : -1;
}

static uint32_t low_mask(unsigned n)
{
	return n >= 32 ? UINT32_MAX : (uint32_t)(BIT(n) - 1);
}

/* Say why into `why` (when given) and return st. */
__attribute__((format(printf, 4, 5))) static enum status refuse(char *why, size_t size,
								enum status st, const char *f, ...)
{
	if (why && size) {
		va_list ap;
		va_start(ap, f);
		fmt_vsnprintf(why, size, f, ap);
		va_end(ap);
	}
	return st;
}

enum status pebs_enable_bits(const struct trace_caps *c, uint32_t gp_mask, uint32_t fixed_mask,
			     uint32_t load_latency_mask, uint64_t *out, char *why, size_t why_size)
{
	if (why && why_size)
		why[0] = '\0';
	if (!out)
		return STATUS_INVALID;
	*out = 0;
	if (!c)
		return STATUS_INVALID;
	if (c->pebs.kind != TC_PEBS_YES)
		return refuse(why, why_size, STATUS_UNSUPPORTED, "no PEBS on this CPU: %s",
			      c->pebs.reason);
	unsigned fmt = c->pebs.format, v = c->perfmon.version;
	if (fmt > PEBS_FORMAT_MAX_SUPPORTED)
		return refuse(why, why_size, STATUS_UNSUPPORTED,
			      "PEBS format %u not supported (formats 0-%u)", fmt,
			      PEBS_FORMAT_MAX_SUPPORTED);

	/* GP counters: Core 2/Bonnell PMC0 only (SDM 18.4.4.1); Nehalem..Skylake PMC0-3 (SDM
	 * Nehalem/Sandy Bridge PEBS sections, references.md 6.1 constraints); format 4+ any counter
	 * with a DS reset slot. */
	unsigned pebs_gp = c->perfmon.gp_counters;
	const char *rule = "";
	if (fmt == 0 && pebs_gp > 1) {
		pebs_gp = 1;
		rule = ", format 0 (Core 2/Bonnell) samples on PMC0 only";
	} else if (fmt >= 1 && fmt <= 3 && pebs_gp > 4) {
		pebs_gp = 4;
		rule = ", formats 1-3 (Nehalem..Skylake) sample on PMC0-PMC3 only";
	}
	if (pebs_gp > RESET_GP_SLOTS(fmt)) {
		pebs_gp = RESET_GP_SLOTS(fmt);
		rule = ", the DS area has reset slots for no more";
	}
	int bad = first_outside(gp_mask, low_mask(pebs_gp));
	if (bad >= 0)
		return refuse(why, why_size, STATUS_UNSUPPORTED,
			      "PEBS on PMC%d refused: %u GP counters%s; accepted gp mask 0x%x", bad,
			      c->perfmon.gp_counters, rule, low_mask(pebs_gp));

	/* Load latency (references.md 6.1): LL_EN_PMCn, perfmon < v5, Nehalem onwards. */
	if (load_latency_mask) {
		if (v >= 5 || fmt < 1)
			return refuse(
			    why, why_size, STATUS_UNSUPPORTED,
			    "load-latency enable bits refused: they exist with PEBS format "
			    ">= 1 and perfmon < v5 (this CPU: format %u, v%u); accepted "
			    "load-latency mask 0",
			    fmt, v);
		uint32_t ll_ok = gp_mask & low_mask(LD_LAT_COUNTERS);
		bad = first_outside(load_latency_mask, ll_ok);
		if (bad >= 0)
			return refuse(
			    why, why_size, STATUS_UNSUPPORTED,
			    "load latency on PMC%d refused: only on PMC0-PMC3 that also have "
			    "PEBS in the gp mask; accepted load-latency mask 0x%x",
			    bad, ll_ok);
	}

	/* Extended PEBS on fixed counters (references.md 6.1, 1.5 row 14). */
	if (fixed_mask) {
		if (!c->perf_cap.pebs_baseline || fmt < PEBS_FORMAT_FIRST_BASIC)
			return refuse(why, why_size, STATUS_UNSUPPORTED,
				      "PEBS on fixed counters refused: extended PEBS needs "
				      "IA32_PERF_CAPABILITIES[14] and PEBS format >= 4 (this CPU: "
				      "baseline %u, format %u); accepted fixed mask 0",
				      (unsigned)c->perf_cap.pebs_baseline, fmt);
		uint32_t fixed_ok = c->perfmon.fixed_mask & low_mask(RESET_FIXED_SLOTS(fmt));
		bad = first_outside(fixed_mask, fixed_ok);
		if (bad >= 0)
			return refuse(why, why_size, STATUS_UNSUPPORTED,
				      "PEBS on fixed counter %d refused: no such counter or no DS "
				      "reset slot; accepted fixed mask 0x%x",
				      bad, fixed_ok);
	}
	if (fixed_mask && load_latency_mask)
		return refuse(why, why_size, STATUS_INVALID,
			      "load latency and extended PEBS both requested: both use "
			      "IA32_PEBS_ENABLE bits 32+; request one of them");

	uint64_t v64 = gp_mask; /* PEBS_ENABLE_GP(n) */
	for (unsigned i = 0; i < 32; i++) {
		if (load_latency_mask & BIT(i))
			v64 |= PEBS_ENABLE_LD_LAT(i);
		if (fixed_mask & BIT(i))
			v64 |= PEBS_ENABLE_FIXED(i);
	}
	*out = v64;
	return STATUS_OK;
}

enum status pebs_ld_lat_value(unsigned cycles, uint64_t *out)
{
	if (!out)
		return STATUS_INVALID;
	*out = 0;
	if (cycles > PEBS_LD_LAT_THRESHOLD)
		return STATUS_INVALID;
	*out = FIELD_PREP(PEBS_LD_LAT_THRESHOLD, cycles);
	return STATUS_OK;
}

/* Memory events per microarchitecture (event codes: hw/pmu_regs.h; which processors have which:
 * caps/pebs_models.c). Sandy/Ivy Bridge stores need the precise-store facility
 * (PEBS_ENABLE[63] on PMC3): not offered. Atom cores: not tabled. */
enum status pebs_memory_event(const struct trace_caps *c, enum pebs_mem_event which, uint8_t *event,
			      uint8_t *umask, char *why, size_t why_size)
{
	static const char *const names[] = {"load latency", "all loads", "stores"};
	enum pebs_mem_uarch u = pebs_mem_uarch_of(c->family, c->model);
	if (c->pebs.format == 0 || u == PEBS_MEM_UARCH_NONE)
		return refuse(why, why_size, STATUS_UNSUPPORTED,
			      "%s: no PEBS memory event with a data address tabled for family %u "
			      "model %#x (PEBS format %u); tabled: Nehalem and later big cores",
			      names[which], c->family, c->model, c->pebs.format);
	if (u == PEBS_MEM_UARCH_NEHALEM) {
		static const uint8_t nhm[] = {UMASK_NHM_LATENCY, UMASK_NHM_LOADS, UMASK_NHM_STORES};
		*event = EVENT_NHM_MEM_INST;
		*umask = nhm[which];
		return STATUS_OK;
	}
	if (which == PEBS_MEM_LOAD_LATENCY) {
		*event = EVENT_MEM_TRANS_RETIRED;
		*umask = UMASK_LOAD_LATENCY;
		return STATUS_OK;
	}
	if (u == PEBS_MEM_UARCH_SANDY_BRIDGE)
		return refuse(why, why_size, STATUS_UNSUPPORTED,
			      "%s: Sandy/Ivy Bridge have no all-loads/all-stores PEBS event with a "
			      "data address (stores need precise store on PMC3); accepted: loads",
			      names[which]);
	*event = EVENT_MEM_INST_RETIRED;
	*umask = which == PEBS_MEM_ALL_LOADS ? UMASK_ALL_LOADS : UMASK_ALL_STORES;
	return STATUS_OK;
}
