/* SPDX-License-Identifier: MIT */
#include "arch/x86/model/spmu.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/model/bts.h"
#include "lib/string.h"

#define LBR_CYCLES_MAX	  0xffff
#define PEBS_LD_LAT_VALID GENMASK(15, 0)
/* MEMINFO, GP, XMMS, LBRS and the LBR count; counter snapshots (format 6) are not modelled. */
#define PEBS_DATA_CFG_VALID                                                                        \
	(PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GP | PEBS_DATACFG_XMMS | PEBS_DATACFG_LBRS |          \
	 PEBS_DATACFG_LBR_COUNT)
#define CANONICAL_TOP_BIT 47

/* DEBUGCTL bits the model accepts; the CPL and SMM bits only with their capability. */
#define MODEL_DEBUGCTL_VALID                                                                       \
	(DEBUGCTL_LBR | DEBUGCTL_BTF | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT |               \
	 DEBUGCTL_FREEZE_LBRS_ON_PMI | DEBUGCTL_FREEZE_PERFMON_ON_PMI)

static enum status gp(struct spmu *m, uint32_t msr, uint64_t value, const char *reason)
{
	m->stats.gp_faults++;
	m->gp_msr = msr;
	m->gp_value = value;
	m->gp_reason = reason;
	return STATUS_REFUSED;
}

static bool canonical(uint64_t a)
{
	uint64_t top = a >> CANONICAL_TOP_BIT;
	return top == 0 || top == (UINT64_MAX >> CANONICAL_TOP_BIT);
}

void spmu_init(struct spmu *m, const struct spmu_personality *p, void *(*lin)(uint64_t))
{
	memset(m, 0, sizeof(*m));
	m->p = p;
	m->lin = lin;
	trace_caps_decode(p->snap, &m->caps);
	if (m->caps.lbr.kind == TC_LBR_LEGACY) {
		m->lbr.format = (enum lbr_format)m->caps.lbr.format;
		m->lbr.depth = m->caps.lbr.depth;
		m->lbr.nhm_select_erratum = p->lbr_select_erratum;
	}
	if (m->caps.lbr.kind == TC_LBR_ARCH) {
		const struct tc_arch_lbr *al = &m->caps.arch_lbr;
		struct arch_lbr_caps ac = {al->depth_mask, al->cpl_filter, al->branch_filter,
					   al->call_stack, al->timed};
		arch_lbr_init(&m->arch_lbr, &ac);
	}
	const struct tc_perfmon *pm = &m->caps.perfmon;
	spmu_counters_init(&m->ctr, pm->version, pm->gp_counters, pm->gp_width, pm->fixed_counters,
			   pm->fixed_width, m->caps.perf_cap.full_width_write);
	m->ctr.mem_events = p->mem_events;
	if (m->caps.pebs.kind == TC_PEBS_YES) {
		m->pebs.format = m->caps.pebs.format;
		m->pebs.adaptive = m->caps.pebs.adaptive;
		m->pebs.trap = m->caps.perf_cap.pebs_trap;
		/* Which counters can do PEBS (references.md 6.1): PMC0 alone on format 0 parts; the
		 * GP counters later; fixed counters too with extended (adaptive) PEBS. */
		uint64_t gp = m->pebs.format == 0 ? BIT(0) : genmask(pm->gp_counters - 1, 0);
		uint64_t fixed = m->pebs.adaptive && pm->fixed_counters
				     ? genmask(32 + pm->fixed_counters - 1, 32)
				     : 0;
		/* Load-latency enables, bits 32+n for PMC0-3, from Nehalem (format 1) until perfmon
		 * v5 (references.md 6.1); the model has no memory accesses, so they never fire. */
		unsigned ll = pm->gp_counters < 4 ? pm->gp_counters : 4;
		uint64_t load_latency =
		    m->pebs.format >= 1 && pm->version < 5 && ll ? genmask(32 + ll - 1, 32) : 0;
		m->ctr.pebs_valid = gp | fixed | load_latency;
		m->ctr.adaptive_pebs = m->pebs.adaptive;
	}
}

/* A PMI request: freeze as DEBUGCTL says, then leave it pending for delivery. */
static void request_pmi(struct spmu *m, struct spmu_overflow o)
{
	if (!o.pmi)
		return;
	if (o.freeze_lbr_legacy)
		m->debugctl &= ~DEBUGCTL_LBR; /* legacy FREEZE_LBRS_ON_PMI (SDM 17.4.7) */
	m->stats.pmis_requested++;
	m->pmi_pending = true;
}

static uint64_t debugctl_valid(const struct spmu *m)
{
	uint64_t v = MODEL_DEBUGCTL_VALID;
	if (m->caps.ds_cpl)
		v |= DEBUGCTL_BTS_OFF_OS | DEBUGCTL_BTS_OFF_USR;
	if (m->caps.freeze.while_smm)
		v |= DEBUGCTL_FREEZE_WHILE_SMM;
	return v;
}

/*
 * A KVM guest's DEBUGCTL write (Linux 6.x arch/x86/kvm/vmx/vmx.c vmx_set_msr): the supported
 * bits are LBR and FREEZE_LBRS_ON_PMI when the LBRs are virtualized (BUS_LOCK_DETECT is not
 * modelled); BTF, and LBR when unsupported, are dropped without a fault; any other bit is #GP.
 */
static enum status kvm_debugctl_write(struct spmu *m, uint64_t value)
{
	uint64_t supported =
	    m->caps.lbr.kind == TC_LBR_LEGACY ? DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI : 0;
	uint64_t invalid = value & ~supported;
	invalid &= ~(DEBUGCTL_BTF | DEBUGCTL_LBR);
	if (invalid)
		return gp(m, MSR_IA32_DEBUGCTL, value, TC_KVM_RULE_DEBUGCTL);
	m->debugctl = value & supported;
	return STATUS_OK;
}

/* Index of an LBR FROM/TO/INFO MSR, or -1. */
static int lbr_slot(const struct spmu *m, uint32_t msr, uint32_t base)
{
	if (!base || m->caps.lbr.kind != TC_LBR_LEGACY || msr < base || msr >= base + m->lbr.depth)
		return -1;
	return (int)(msr - base);
}

/* Index of an Arch LBR FROM/TO/INFO MSR below the current depth, or -1. */
static int arch_slot(const struct arch_lbr *a, uint32_t msr, uint32_t base)
{
	if (msr < base || msr >= base + a->depth)
		return -1;
	return (int)(msr - base);
}

enum status spmu_rdmsr(struct spmu *m, uint32_t msr, uint64_t *value)
{
	const struct spmu_personality *p = m->p;
	int i;
	bool handled;
	const char *why;
	if (spmu_counters_rdmsr(&m->ctr, msr, value, &handled, &why) == 0)
		return STATUS_OK;
	if (handled)
		return gp(m, msr, 0, why);
	switch (msr) {
	case MSR_IA32_DEBUGCTL:
		*value = m->debugctl;
		return STATUS_OK;
	case MSR_IA32_DS_AREA:
		if (!m->caps.ds)
			return gp(m, msr, 0, "IA32_DS_AREA without CPUID.01H:EDX.DS");
		*value = m->ds_area;
		return STATUS_OK;
	case MSR_IA32_PERF_CAPABILITIES:
		if (!p->snap->has_perf_capabilities)
			return gp(m, msr, 0, "IA32_PERF_CAPABILITIES without CPUID.01H:ECX.PDCM");
		*value = p->snap->perf_capabilities;
		return STATUS_OK;
	case MSR_IA32_MISC_ENABLE:
		*value = p->snap->misc_enable;
		return STATUS_OK;
	case MSR_LBR_SELECT:
		if (!p->lbr_select)
			return gp(m, msr, 0, "no MSR_LBR_SELECT on this processor");
		*value = m->lbr.select;
		return STATUS_OK;
	case MSR_LBR_TOS:
		if (m->caps.lbr.kind != TC_LBR_LEGACY)
			return gp(m, msr, 0, "no legacy LBR stack");
		*value = m->lbr.tos;
		return STATUS_OK;
	case MSR_PEBS_DATA_CFG:
		if (!m->pebs.adaptive)
			return gp(m, msr, 0, "MSR_PEBS_DATA_CFG without adaptive PEBS");
		*value = m->pebs_data_cfg;
		return STATUS_OK;
	case MSR_PEBS_LD_LAT:
		if (!m->ctr.pebs_valid || m->pebs.format < 1)
			return gp(m, msr, 0, "MSR_PEBS_LD_LAT_THRESHOLD without load-latency PEBS");
		*value = m->pebs_ld_lat;
		return STATUS_OK;
	case MSR_LER_FROM:
		*value = p->kvm_guest ? 0 : m->ler_from;
		return STATUS_OK;
	case MSR_LER_TO:
		*value = p->kvm_guest ? 0 : m->ler_to;
		return STATUS_OK;
	}
	if (m->caps.lbr.kind == TC_LBR_ARCH) {
		struct arch_lbr *a = &m->arch_lbr;
		if (msr == MSR_IA32_LBR_CTL) {
			*value = a->ctl;
			return STATUS_OK;
		}
		if (msr == MSR_IA32_LBR_DEPTH) {
			*value = a->depth;
			return STATUS_OK;
		}
		if ((i = arch_slot(a, msr, MSR_IA32_LBR_FROM0)) >= 0) {
			*value = a->from[i];
			return STATUS_OK;
		}
		if ((i = arch_slot(a, msr, MSR_IA32_LBR_TO0)) >= 0) {
			*value = a->to[i];
			return STATUS_OK;
		}
		if ((i = arch_slot(a, msr, MSR_IA32_LBR_INFO0)) >= 0) {
			*value = a->info[i];
			return STATUS_OK;
		}
	}
	if ((i = lbr_slot(m, msr, p->lbr_from_base)) >= 0) {
		*value = m->lbr.from[i];
		return STATUS_OK;
	}
	if ((i = lbr_slot(m, msr, p->lbr_to_base)) >= 0) {
		*value = m->lbr.to[i];
		return STATUS_OK;
	}
	if ((i = lbr_slot(m, msr, p->lbr_info_base)) >= 0) {
		*value = m->lbr.info[i];
		return STATUS_OK;
	}
	return gp(m, msr, 0, "MSR not modelled (or absent on this processor)");
}

enum status spmu_wrmsr(struct spmu *m, uint32_t msr, uint64_t value)
{
	const struct spmu_personality *p = m->p;
	int i;
	bool handled;
	const char *why;
	if (spmu_counters_wrmsr(&m->ctr, msr, value, &handled, &why) == 0)
		return STATUS_OK;
	if (handled)
		return gp(m, msr, value, why);
	switch (msr) {
	case MSR_IA32_DEBUGCTL:
		if (p->kvm_guest)
			return kvm_debugctl_write(m, value);
		if (value & ~debugctl_valid(m))
			return gp(m, msr, value, "reserved or unsupported IA32_DEBUGCTL bits");
		m->debugctl = value;
		return STATUS_OK;
	case MSR_IA32_DS_AREA:
		if (!m->caps.ds)
			return gp(m, msr, value, "IA32_DS_AREA without CPUID.01H:EDX.DS");
		if (!canonical(value))
			return gp(m, msr, value, "non-canonical IA32_DS_AREA");
		m->ds_area = value;
		return STATUS_OK;
	case MSR_LBR_SELECT:
		if (!p->lbr_select)
			return gp(m, msr, value, "no MSR_LBR_SELECT on this processor");
		/* Call-stack mode from Haswell on: LBR format 4 and later (references.md 3.2). */
		if ((why = lbr_select_check(value, m->lbr.format >= LBR_FMT_EIP_FLAGS2)))
			return gp(m, msr, value, why);
		m->lbr.select = value;
		return STATUS_OK;
	case MSR_IA32_PERF_CAPABILITIES:
		return gp(m, msr, value, "IA32_PERF_CAPABILITIES is read-only");
	case MSR_PEBS_DATA_CFG:
		if (!m->pebs.adaptive)
			return gp(m, msr, value, "MSR_PEBS_DATA_CFG without adaptive PEBS");
		if (value & ~PEBS_DATA_CFG_VALID)
			return gp(m, msr, value,
				  "MSR_PEBS_DATA_CFG: reserved bits, or groups the model lacks");
		m->pebs_data_cfg = value;
		return STATUS_OK;
	case MSR_PEBS_LD_LAT:
		if (!m->ctr.pebs_valid || m->pebs.format < 1)
			return gp(m, msr, value,
				  "MSR_PEBS_LD_LAT_THRESHOLD without load-latency PEBS");
		if (value & ~PEBS_LD_LAT_VALID)
			return gp(m, msr, value, "MSR_PEBS_LD_LAT_THRESHOLD: bits above 15");
		m->pebs_ld_lat = value;
		return STATUS_OK;
	}
	if (m->caps.lbr.kind == TC_LBR_ARCH) {
		struct arch_lbr *a = &m->arch_lbr;
		if (msr == MSR_IA32_LBR_CTL)
			return arch_lbr_write_ctl(a, value, &why) ? gp(m, msr, value, why)
								  : STATUS_OK;
		if (msr == MSR_IA32_LBR_DEPTH)
			return arch_lbr_write_depth(a, value, &why) ? gp(m, msr, value, why)
								    : STATUS_OK;
		if ((i = arch_slot(a, msr, MSR_IA32_LBR_FROM0)) >= 0) {
			a->from[i] = value;
			return STATUS_OK;
		}
		if ((i = arch_slot(a, msr, MSR_IA32_LBR_TO0)) >= 0) {
			a->to[i] = value;
			return STATUS_OK;
		}
		if ((i = arch_slot(a, msr, MSR_IA32_LBR_INFO0)) >= 0) {
			a->info[i] = value;
			return STATUS_OK;
		}
	}
	if ((i = lbr_slot(m, msr, p->lbr_from_base)) >= 0) {
		m->lbr.from[i] = value;
		return STATUS_OK;
	}
	if ((i = lbr_slot(m, msr, p->lbr_to_base)) >= 0) {
		m->lbr.to[i] = value;
		return STATUS_OK;
	}
	if ((i = lbr_slot(m, msr, p->lbr_info_base)) >= 0) {
		m->lbr.info[i] = value;
		return STATUS_OK;
	}
	return gp(m, msr, value, "MSR not modelled, read-only, or absent on this processor");
}

/* The model's LBR stack as PEBS's LBR group wants it: newest first. */
static unsigned lbr_snapshot(const struct spmu *m, struct pebs_lbr_entry *out, unsigned max)
{
	unsigned n = 0;
	if (m->caps.lbr.kind == TC_LBR_ARCH) {
		for (; n < max && n < m->arch_lbr.depth && m->arch_lbr.from[n]; n++)
			out[n] = (struct pebs_lbr_entry){m->arch_lbr.from[n], m->arch_lbr.to[n],
							 m->arch_lbr.info[n]};
	} else if (m->caps.lbr.kind == TC_LBR_LEGACY) {
		for (; n < max && n < m->lbr.depth; n++) {
			unsigned i = (m->lbr.tos - n) & (m->lbr.depth - 1);
			if (!m->lbr.from[i])
				break;
			out[n] =
			    (struct pebs_lbr_entry){m->lbr.from[i], m->lbr.to[i], m->lbr.info[i]};
		}
	}
	return n;
}

/* The access of a load through the model's cache (spmu.h); the line is filled. */
struct spmu_load {
	uint64_t latency, dse;
};

static bool l1_touch(struct spmu *m, uint64_t addr)
{
	uint64_t line = addr >> SPMU_L1_LINE_SHIFT;
	uint64_t *tag = &m->l1_tag[line % SPMU_L1_LINES];
	bool hit = *tag == line + 1;
	*tag = line + 1;
	return hit;
}

static const struct spmu_regs no_regs; /* a step fed without registers (PEBS was off) */

/* A PEBS event on counter `bit`: write the record, reload the counter from its DS reset slot. */
static void pebs_event(struct spmu *m, unsigned bit, const struct spmu_step *st,
		       const struct spmu_load *ld)
{
	enum spmu_mem_kind kind = spmu_counters_mem_kind(&m->ctr, bit);
	struct ds_area64 *ds = m->lin ? m->lin(m->ds_area) : NULL;
	if (!ds) {
		m->stats.pebs_dropped++;
		return;
	}
	/* Without the counter's adaptive bit the record is the basic group alone (reference
	 * 6.1: Linux sets EVTSEL bit 34 / FIXED_CTR_CTRL bit 32+4m for adaptive PEBS). */
	bool adaptive = bit < 32 ? (m->ctr.evtsel[bit] & EVTSEL_ADAPTIVE)
				 : (m->ctr.fixed_ctrl & FIXED_CTRL_ADAPTIVE(bit - 32));
	m->pebs.data_cfg = adaptive ? m->pebs_data_cfg : 0;
	struct pebs_xmm xmm;
	bool with_xmm = (m->pebs.data_cfg & PEBS_DATACFG_XMMS) && m->read_xmm;
	if (with_xmm)
		m->read_xmm(&xmm);
	struct pebs_lbr_entry lbr[ARCH_LBR_MAX_DEPTH];
	struct pebs_sample s = {
	    .eventing_ip = st->retired,
	    .next_ip = st->next,
	    /* Formats 1 and 2 store IA32_PERF_GLOBAL_STATUS as it stands (SDM Vol. 3B 18.8.1.1,
	     * the Nehalem record's "IA32_PERF_GLOBAL_STATUS" field; Linux pebs_record_nhm
	     * status), format 3 and later the counters the record applies to. */
	    .applicable = m->pebs.format >= 3 ? BIT(bit) : m->ctr.global_status,
	    .tsc = st->tsc,
	    .regs = st->regs ? st->regs : &no_regs,
	    .dla = kind == SPMU_MEM_STORES	       ? st->store_addr
		   : kind != SPMU_MEM_NONE && st->load ? st->load_addr
						       : 0,
	    .dse = kind == SPMU_MEM_LOAD_LATENCY ? ld->dse : 0,
	    .latency = kind == SPMU_MEM_LOAD_LATENCY ? ld->latency : 0,
	    .lbr = lbr,
	    .lbr_count = lbr_snapshot(m, lbr, ARCH_LBR_MAX_DEPTH),
	    .xmm = with_xmm ? &xmm : NULL,
	};
	struct pebs_write_result r = pebs_write(ds, m->lin, &m->pebs, &s);
	m->stats.pebs_records += r.stored;
	m->stats.pebs_dropped += r.dropped_full;
	/* SDM Vol. 3B 18.4.4.1 (PEBS assist): "store the data record ..., clear the counter
	 * overflow status, and reload the counter. If the bounds checks fail, the PEBS will be
	 * skipped entirely": a dropped record leaves the overflow as a plain one. */
	if (!r.stored)
		return;
	m->ctr.global_status &= ~BIT(bit);
	/* Reload: the DS area's counter-reset slot (references.md 5.2, 6.1). */
	const uint8_t *area = (const uint8_t *)ds;
	uint64_t reset;
	if (bit < 32) {
		memcpy(&reset, area + DS_PEBS_RESET_GP(bit), sizeof(reset));
		m->ctr.pmc[bit] = reset & genmask(m->ctr.gp_width - 1, 0);
	} else {
		memcpy(&reset, area + DS_PEBS_RESET_FIXED(m->pebs.format, bit - 32), sizeof(reset));
		m->ctr.fixed[bit - 32] = reset & genmask(m->ctr.fixed_width - 1, 0);
	}
	if (r.threshold_hit) {
		m->ctr.global_status |= GLOBAL_STATUS_DS_BUFFER; /* OvfDSBuffer, bit 62 */
		m->stats.pebs_threshold_pmis++;
		request_pmi(m, spmu_counters_pmi_freeze(&m->ctr, m->debugctl));
	}
}

void spmu_retire(struct spmu *m, const struct spmu_step *st)
{
	m->steps_since_lbr++;
	struct spmu_load ld = {0};
	if (st->load) {
		bool hit = l1_touch(m, st->load_addr);
		ld.latency = hit ? SPMU_LAT_L1 : SPMU_LAT_L2;
		ld.dse = hit ? SPMU_DSE_L1_HIT : SPMU_DSE_L2_HIT;
		m->stats.loads++;
		m->stats.l1_misses += !hit;
	}
	if (st->store) {
		l1_touch(m, st->store_addr);
		m->stats.stores++;
	}
	struct spmu_tick t = {
	    .branch = st->branch,
	    .load = st->load,
	    .store = st->store,
	    .load_above_threshold = st->load && ld.latency > m->pebs_ld_lat,
	    .cpl = st->cpl,
	};
	struct spmu_overflow o = spmu_counters_tick(&m->ctr, &t, m->debugctl);
	request_pmi(m, o);
	for (unsigned bit = 0; o.pebs; bit++, o.pebs >>= 1)
		if (o.pebs & 1)
			pebs_event(m, bit, st, &ld);
}

static void bts_branch(struct spmu *m, uint64_t from, uint64_t to, unsigned cpl_from)
{
	enum bts_disposition d = bts_disposition(m->debugctl, cpl_from);
	if (d == BTS_NO_BTM)
		return;
	if (d == BTS_BTM_NOT_STORED) {
		m->stats.bts_not_stored++;
		return;
	}
	struct ds_area64 *ds = m->lin ? m->lin(m->ds_area) : NULL;
	if (!ds) {
		m->stats.bts_dropped++; /* DS area unmapped: hardware behaviour undefined */
		return;
	}
	/* The model predicts every branch correctly, where the flag exists at all. */
	struct bts_record rec = {from, to, m->p->bts_predicted ? BTS_FLAG_PREDICTED : 0};
	struct bts_store_result r = bts_store(ds, m->debugctl, &rec, m->lin);
	if (r.stored)
		m->stats.bts_stored++;
	if (r.dropped_full)
		m->stats.bts_dropped++;
	if (r.threshold_hit) {
		/* A BTS threshold PMI sets no GLOBAL_STATUS bit (references.md 5.5); the freeze
		 * bits apply to it as to any PMI request. */
		m->stats.bts_threshold_pmis++;
		request_pmi(m, spmu_counters_pmi_freeze(&m->ctr, m->debugctl));
	}
}

/* The branch as the LBR sees it; the model predicts every branch correctly, and its cycle
 * count is the number of instructions since the previous LBR record. */
static struct lbr_branch lbr_branch_of(const struct spmu *m, uint64_t from, uint64_t to,
				       enum x86_branch_kind kind, unsigned cpl_to)
{
	struct lbr_branch b = {
	    .from = from,
	    .to = to,
	    .cls = lbr_class_of_branch(kind),
	    .cpl_to = cpl_to,
	    .mispredicted = false,
	    .cycles = (uint16_t)(m->steps_since_lbr > LBR_CYCLES_MAX ? LBR_CYCLES_MAX
								     : m->steps_since_lbr),
	};
	return b;
}

#define VECTOR_DEBUG 1

void spmu_exception(struct spmu *m, unsigned vector)
{
	m->ler_from = m->last_from;
	m->ler_to = m->last_to;
	if (vector == VECTOR_DEBUG)
		m->debugctl &= ~DEBUGCTL_LBR;
}

/*
 * BTF (SDM Vol. 3B 17.4.3): with DEBUGCTL.BTF and the workload's TF set, the single-step #DB
 * comes "only after instructions that cause a branch" instead of after every instruction. The
 * #DB itself then clears DEBUGCTL.LBR (17.4.2) and BTF ("The processor clears the BTF flag when
 * it generates a debug exception", 17.4.3), so a driver re-arms BTF after every trap.
 */
bool spmu_btf_trap(struct spmu *m)
{
	if (!m->btf_trap)
		return false;
	m->btf_trap = false;
	m->stats.btf_traps++;
	spmu_exception(m, VECTOR_DEBUG);
	m->debugctl &= ~DEBUGCTL_BTF;
	return true;
}

void spmu_branch(struct spmu *m, uint64_t from, uint64_t to, enum x86_branch_kind kind,
		 unsigned cpl_from, unsigned cpl_to)
{
	if (m->debugctl & DEBUGCTL_BTF)
		m->btf_trap = true;
	spmu_transfer(m, from, to, kind, cpl_from, cpl_to);
}

bool spmu_arch_lbr_on(const struct spmu *m)
{
	return m->caps.lbr.kind == TC_LBR_ARCH && (m->arch_lbr.ctl & LBR_CTL_LBREN);
}

void spmu_lbr_again(struct spmu *m, uint64_t from, uint64_t to, enum x86_branch_kind kind,
		    unsigned cpl, uint64_t n, uint64_t k)
{
	m->steps_since_lbr = n + 1;
	struct lbr_branch b = lbr_branch_of(m, from, to, kind, cpl);
	lbr_record_again(&m->lbr, &b, k);
	m->steps_since_lbr = 0;
}

bool spmu_runs_branches(struct spmu *m, const struct run_with_branch *r, size_t k)
{
	unsigned cpl = k ? r[0].cpl : 0;
	enum bts_disposition d = bts_disposition(m->debugctl, cpl);
	bool legacy =
	    (m->debugctl & (DEBUGCTL_LBR | DEBUGCTL_TR)) && m->caps.lbr.kind == TC_LBR_LEGACY;
	struct lbr_stack *s = &m->lbr;
	/* what spmu_transfer does per branch, where it is this simple: the legacy stack
	 * recording (or off), no call-stack pops, no erratum, no BTS record stored */
	if (spmu_arch_lbr_on(m) || d == BTS_STORED || (m->debugctl & DEBUGCTL_BTF) ||
	    (legacy && ((m->p->tr_undefines_lbr && (m->debugctl & DEBUGCTL_TR)) ||
			spmu_counters_lbr_frozen(&m->ctr) ||
			(s->select & LBR_SELECT_EN_CALLSTACK) || s->nhm_select_erratum)))
		return false;
	/* The stack keeps the last `depth` records: those are encoded, the others only
	 * counted (their pushes move TOS all the same, as lbr_record_again's do). */
	struct {
		uint32_t run;
		uint16_t cycles;
	} kept[LBR_MAX_DEPTH];
	unsigned depth = legacy ? s->depth : 1;
	uint64_t ssl = m->steps_since_lbr, taken = 0, recorded = 0;
	size_t last = k;
	for (size_t i = 0; i < k; i++) {
		ssl += r[i].n;
		if (r[i].kind == X86_BR_NONE)
			continue;
		if (r[i].taken) {
			taken++;
			last = i;
			const struct lbr_branch b = {.cls = lbr_class_of_branch(r[i].kind),
						     .cpl_to = r[i].cpl};
			if (legacy && lbr_select_allows(s->select, &b)) {
				kept[recorded & (depth - 1)].run = (uint32_t)i;
				kept[recorded & (depth - 1)].cycles =
				    (uint16_t)(ssl > LBR_CYCLES_MAX ? LBR_CYCLES_MAX : ssl);
				recorded++;
				ssl = 0;
			}
		}
		ssl++; /* the branch retires */
	}
	m->steps_since_lbr = ssl;
	m->stats.branches += taken;
	if (last < k) {
		m->last_from = r[last].from;
		m->last_to = r[last].to;
	}
	if (d == BTS_BTM_NOT_STORED)
		m->stats.bts_not_stored += taken;
	if (!legacy)
		return true;
	m->stats.lbr_recorded += recorded;
	m->stats.lbr_filtered += taken - recorded;
	uint64_t push = recorded < depth ? recorded : depth;
	s->tos = (unsigned)((s->tos + (recorded - push)) & (depth - 1));
	for (uint64_t j = recorded - push; j < recorded; j++) {
		const struct run_with_branch *w = &r[kept[j & (depth - 1)].run];
		struct lbr_branch b = {.from = w->from,
				       .to = w->to,
				       .cls = lbr_class_of_branch(w->kind),
				       .cpl_to = w->cpl,
				       .cycles = kept[j & (depth - 1)].cycles};
		s->tos = (s->tos + 1) & (depth - 1);
		lbr_encode(s->format, &b, &s->from[s->tos], &s->to[s->tos], &s->info[s->tos]);
	}
	return true;
}

void spmu_transfer(struct spmu *m, uint64_t from, uint64_t to, enum x86_branch_kind kind,
		   unsigned cpl_from, unsigned cpl_to)
{
	m->stats.branches++;
	m->last_from = from;
	m->last_to = to;
	if (spmu_arch_lbr_on(m)) {
		struct lbr_branch b = lbr_branch_of(m, from, to, kind, cpl_to);
		if (spmu_counters_lbr_frozen(&m->ctr)) {
			m->stats.lbr_frozen_skips++;
		} else if (arch_lbr_record(&m->arch_lbr, &b)) {
			m->stats.lbr_recorded++;
			m->steps_since_lbr = 0;
		} else {
			m->stats.lbr_filtered++;
		}
	}
	/* SDM Vol. 3B 16.4.2 (253668-032US): "If the LBR flag is cleared and TR flag in the
	 * IA32_DEBUGCTL MSR remains set, the processor will continue to update LBR stack MSRs.
	 * This is because BTM information must be generated from entries in the LBR stack." So
	 * the legacy stack records while either flag is set, except where TR leaves it undefined
	 * (P6, Pentium M, Core: SDM 17.4.4): there the model records nothing while TR is set. */
	bool legacy_lbr =
	    (m->debugctl & (DEBUGCTL_LBR | DEBUGCTL_TR)) && m->caps.lbr.kind == TC_LBR_LEGACY;
	if (legacy_lbr && m->p->tr_undefines_lbr && (m->debugctl & DEBUGCTL_TR)) {
		m->stats.lbr_undefined_tr++;
	} else if (legacy_lbr && spmu_counters_lbr_frozen(&m->ctr)) {
		m->stats.lbr_frozen_skips++;
	} else if (legacy_lbr) {
		struct lbr_branch b = lbr_branch_of(m, from, to, kind, cpl_to);
		if (lbr_record(&m->lbr, &b)) {
			m->stats.lbr_recorded++;
			m->steps_since_lbr = 0;
		} else {
			m->stats.lbr_filtered++;
		}
	}
	bts_branch(m, from, to, cpl_from);
}
