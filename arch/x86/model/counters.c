/* SPDX-License-Identifier: MIT */
#include "arch/x86/model/counters.h"
#include "arch/x86/hw/ds_layout.h"
#include "lib/string.h"

#define SIGN_BIT_31 BIT(31)

static uint64_t width_mask(unsigned width)
{
	return width >= 64 ? UINT64_MAX : (BIT(width) - 1);
}

static uint64_t global_ctrl_valid(const struct spmu_counters *c)
{
	return (c->n_gp ? genmask(c->n_gp - 1, 0) : 0) |
	       (c->n_fixed ? genmask(GLOBAL_FIXED_SHIFT + c->n_fixed - 1, GLOBAL_FIXED_SHIFT) : 0);
}

static void update_live(struct spmu_counters *c);

void spmu_counters_init(struct spmu_counters *c, unsigned version, unsigned n_gp, unsigned gp_width,
			unsigned n_fixed, unsigned fixed_width, bool full_width_write)
{
	memset(c, 0, sizeof(*c));
	c->version = version;
	c->n_gp = n_gp > SPMU_MAX_GP ? SPMU_MAX_GP : n_gp;
	c->gp_width = gp_width;
	c->n_fixed = n_fixed > SPMU_MAX_FIXED ? SPMU_MAX_FIXED : n_fixed;
	c->fixed_width = fixed_width;
	c->full_width_write = full_width_write;
	/* Power-on value: the general-purpose enables set, so that v1-style software that never
	 * writes GLOBAL_CTRL still counts (SDM 18.2.2; the fixed-counter bits' reset value is
	 * unconfirmed in our sources: the model clears them). */
	c->global_ctrl = c->n_gp ? genmask(c->n_gp - 1, 0) : 0;
	update_live(c);
}

static bool version_ge(const struct spmu_counters *c, unsigned v)
{
	return c->version >= v;
}

/* The counters that can count at all (GLOBAL_STATUS bit layout), kept on every write that
 * changes it: a GP counter with EVTSEL.EN (and, from v2, its GLOBAL_CTRL bit), a fixed counter
 * with a ring enabled in FIXED_CTR_CTRL and its GLOBAL_CTRL bit. The per-step tick looks only
 * at these. And whether an enabled GP counter has a memory event (GLOBAL_CTRL aside, so that
 * accesses are still computed across a legacy freeze). */
static void update_live(struct spmu_counters *c)
{
	uint64_t live = 0;
	c->counts_memory = false;
	for (unsigned n = 0; n < c->n_gp; n++) {
		if (!(c->evtsel[n] & EVTSEL_EN))
			continue;
		if (!version_ge(c, 2) || (c->global_ctrl & BIT(n)))
			live |= BIT(n);
		if (spmu_counters_mem_kind(c, n) != SPMU_MEM_NONE)
			c->counts_memory = true;
	}
	for (unsigned m = 0; version_ge(c, 2) && m < c->n_fixed; m++)
		if ((c->global_ctrl & BIT(GLOBAL_FIXED_SHIFT + m)) &&
		    (c->fixed_ctrl & (FIXED_CTRL_OS(m) | FIXED_CTRL_USR(m))))
			live |= BIT(GLOBAL_FIXED_SHIFT + m);
	c->live = live;
}

int spmu_counters_rdmsr(struct spmu_counters *c, uint32_t msr, uint64_t *v, bool *handled,
			const char **reason)
{
	*handled = true;
	if (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + c->n_gp) {
		*v = c->evtsel[msr - MSR_IA32_PERFEVTSEL0];
		return 0;
	}
	if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + c->n_gp) {
		*v = c->pmc[msr - MSR_IA32_PMC0];
		return 0;
	}
	if (c->full_width_write && msr >= MSR_IA32_A_PMC0 && msr < MSR_IA32_A_PMC0 + c->n_gp) {
		*v = c->pmc[msr - MSR_IA32_A_PMC0];
		return 0;
	}
	if (version_ge(c, 2) && msr >= MSR_IA32_FIXED_CTR0 &&
	    msr < MSR_IA32_FIXED_CTR0 + c->n_fixed) {
		*v = c->fixed[msr - MSR_IA32_FIXED_CTR0];
		return 0;
	}
	if (version_ge(c, 2)) {
		switch (msr) {
		case MSR_IA32_FIXED_CTR_CTRL:
			*v = c->fixed_ctrl;
			return 0;
		case MSR_IA32_PERF_GLOBAL_CTRL:
			*v = c->global_ctrl;
			return 0;
		case MSR_IA32_PERF_GLOBAL_STATUS:
			*v = c->global_status;
			return 0;
		case MSR_IA32_PERF_GLOBAL_OVF_CTRL:
			*v = 0; /* write-only in effect: reads return 0 */
			return 0;
		}
	}
	if (msr == MSR_IA32_PEBS_ENABLE && c->pebs_valid) {
		*v = c->pebs_enable;
		return 0;
	}
	*handled = false;
	*reason = "not a counter MSR of this processor";
	return -1;
}

/* A write to a counter's count: the legacy alias IA32_PMCx, the full-width IA32_A_PMCx, the fixed
 * counters (v2+). *handled false: msr is none of them. */
static int write_count(struct spmu_counters *c, uint32_t msr, uint64_t v, bool *handled,
		       const char **reason)
{
	*handled = true;
	if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + c->n_gp) {
		/* Legacy alias: bits 31:0 written, sign-extended to the counter width (SDM
		 * 18.2.6 "Full-Width Writes to Performance Counter Registers"). */
		uint64_t x = (v & SIGN_BIT_31) ? (v | ~GENMASK(31, 0)) : (v & GENMASK(31, 0));
		c->pmc[msr - MSR_IA32_PMC0] = x & width_mask(c->gp_width);
		c->pebs_armed &= ~BIT(msr - MSR_IA32_PMC0); /* a new count: no overflow pending */
		return 0;
	}
	if (msr >= MSR_IA32_A_PMC0 && msr < MSR_IA32_A_PMC0 + c->n_gp) {
		if (!c->full_width_write) {
			*reason =
			    "IA32_A_PMCx without IA32_PERF_CAPABILITIES[13] (full-width write)";
			return -1;
		}
		if (v & ~width_mask(c->gp_width)) {
			*reason = "IA32_A_PMCx value wider than the counter";
			return -1;
		}
		c->pmc[msr - MSR_IA32_A_PMC0] = v;
		c->pebs_armed &= ~BIT(msr - MSR_IA32_A_PMC0);
		return 0;
	}
	if (version_ge(c, 2) && msr >= MSR_IA32_FIXED_CTR0 &&
	    msr < MSR_IA32_FIXED_CTR0 + c->n_fixed) {
		if (v & ~width_mask(c->fixed_width)) {
			*reason = "IA32_FIXED_CTRx value wider than the counter";
			return -1;
		}
		c->fixed[msr - MSR_IA32_FIXED_CTR0] = v;
		c->pebs_armed &= ~BIT(GLOBAL_FIXED_SHIFT + msr - MSR_IA32_FIXED_CTR0);
		return 0;
	}
	*handled = false;
	return -1;
}

/* A write to what enables counting: IA32_PERFEVTSELx, and from v2 IA32_FIXED_CTR_CTRL,
 * IA32_PERF_GLOBAL_CTRL and IA32_PEBS_ENABLE. *handled false: msr is none of them. */
static int write_enable(struct spmu_counters *c, uint32_t msr, uint64_t v, bool *handled,
			const char **reason)
{
	*handled = true;
	if (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + c->n_gp) {
		if (v & ~(EVTSEL_VALID | (c->adaptive_pebs ? EVTSEL_ADAPTIVE : 0))) {
			*reason = "reserved IA32_PERFEVTSELx bits";
			return -1;
		}
		c->evtsel[msr - MSR_IA32_PERFEVTSEL0] = v;
		update_live(c);
		return 0;
	}
	if (version_ge(c, 2)) {
		switch (msr) {
		case MSR_IA32_FIXED_CTR_CTRL:
			uint64_t ctrl_valid = c->n_fixed ? genmask(4 * c->n_fixed - 1, 0) : 0;
			for (unsigned m = 0; c->adaptive_pebs && m < c->n_fixed; m++)
				ctrl_valid |= FIXED_CTRL_ADAPTIVE(m);
			if (c->n_fixed == 0 || (v & ~ctrl_valid)) {
				*reason = "reserved IA32_FIXED_CTR_CTRL bits";
				return -1;
			}
			c->fixed_ctrl = v;
			update_live(c);
			return 0;
		case MSR_IA32_PERF_GLOBAL_CTRL:
			if (v & ~global_ctrl_valid(c)) {
				*reason = "reserved IA32_PERF_GLOBAL_CTRL bits";
				return -1;
			}
			c->global_ctrl = v;
			update_live(c);
			return 0;
		case MSR_IA32_PEBS_ENABLE:
			if (!c->pebs_valid || (v & ~c->pebs_valid)) {
				*reason =
				    "IA32_PEBS_ENABLE: no PEBS, or bits for counters without it";
				return -1;
			}
			c->pebs_enable = v;
			c->pebs_armed &= v;
			return 0;
		}
	}
	*handled = false;
	return -1;
}

/* A write to IA32_PERF_GLOBAL_STATUS (read-only) or to what clears (GLOBAL_OVF_CTRL, v2+) and sets
 * (GLOBAL_STATUS_SET, v4+) its bits. *handled false: msr is none of them. */
static int write_status(struct spmu_counters *c, uint32_t msr, uint64_t v, bool *handled,
			const char **reason)
{
	*handled = true;
	if (version_ge(c, 2)) {
		switch (msr) {
		case MSR_IA32_PERF_GLOBAL_STATUS:
			*reason = "IA32_PERF_GLOBAL_STATUS is read-only";
			return -1;
		case MSR_IA32_PERF_GLOBAL_OVF_CTRL: {
			uint64_t valid = global_ctrl_valid(c) | GLOBAL_STATUS_DS_BUFFER |
					 GLOBAL_STATUS_COND_CHGD;
			if (version_ge(c, 4))
				valid |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ;
			if (v & ~valid) {
				*reason = "reserved GLOBAL_OVF_CTRL / STATUS_RESET bits";
				return -1;
			}
			c->global_status &= ~v; /* v4: clearing LBR_Frz / CTR_Frz unfreezes */
			return 0;
		}
		case MSR_IA32_PERF_GLOBAL_STATUS_SET:
			if (!version_ge(c, 4)) {
				*reason = "IA32_PERF_GLOBAL_STATUS_SET needs perfmon v4";
				return -1;
			}
			c->global_status |= v & (global_ctrl_valid(c) | GLOBAL_STATUS_DS_BUFFER);
			return 0;
		}
	}
	*handled = false;
	return -1;
}

int spmu_counters_wrmsr(struct spmu_counters *c, uint32_t msr, uint64_t v, bool *handled,
			const char **reason)
{
	int r = write_count(c, msr, v, handled, reason);
	if (!*handled)
		r = write_enable(c, msr, v, handled, reason);
	if (!*handled)
		r = write_status(c, msr, v, handled, reason);
	if (!*handled)
		*reason = "not a counter MSR of this processor";
	return r;
}

bool spmu_counters_lbr_frozen(const struct spmu_counters *c)
{
	return c->global_status & GLOBAL_STATUS_LBR_FRZ;
}

struct spmu_overflow spmu_counters_pmi_freeze(struct spmu_counters *c, uint64_t debugctl)
{
	struct spmu_overflow o = {.pmi = true};
	if (c->version >= 4) {
		/* Streamlined (v4+): status bits, the enables untouched (SDM 17.4.7). */
		if (debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI)
			c->global_status |= GLOBAL_STATUS_LBR_FRZ;
		if (debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI)
			c->global_status |= GLOBAL_STATUS_CTR_FRZ;
	} else if (c->version >= 2) {
		/* Legacy: the processor clears the enables themselves. */
		if (debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI)
			o.freeze_lbr_legacy = true;
		if (debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI) {
			c->global_ctrl = 0;
			update_live(c);
		}
	}
	return o;
}

enum spmu_mem_kind spmu_counters_mem_kind(const struct spmu_counters *c, unsigned n)
{
	if (n >= c->n_gp)
		return SPMU_MEM_NONE;
	uint16_t ev = (uint16_t)(c->evtsel[n] & (EVTSEL_EVENT | EVTSEL_UMASK));
	const struct spmu_mem_events *m = &c->mem_events;
	if (!ev)
		return SPMU_MEM_NONE;
	if (ev == m->load_latency)
		return SPMU_MEM_LOAD_LATENCY;
	if (ev == m->loads)
		return SPMU_MEM_LOADS;
	if (ev == m->stores)
		return SPMU_MEM_STORES;
	return SPMU_MEM_NONE;
}

/* The load-latency enable of PMC n (IA32_PEBS_ENABLE bit 32+n) before perfmon v5. */
#define PEBS_LL_ENABLE(n) BIT(32 + (n))
#define PERFMON_NO_LL_EN  5

static bool counts_event(const struct spmu_counters *c, unsigned n, const struct spmu_tick *t)
{
	uint64_t evtsel = c->evtsel[n];
	unsigned event = (unsigned)FIELD_GET(EVTSEL_EVENT, evtsel);
	unsigned umask = (unsigned)FIELD_GET(EVTSEL_UMASK, evtsel);
	if (!(evtsel & EVTSEL_EN))
		return false;
	if (!((t->cpl == 0 && (evtsel & EVTSEL_OS)) || (t->cpl != 0 && (evtsel & EVTSEL_USR))))
		return false;
	switch (c->counts_memory ? spmu_counters_mem_kind(c, n) : SPMU_MEM_NONE) {
	case SPMU_MEM_LOADS:
		return t->load;
	case SPMU_MEM_STORES:
		return t->store;
	case SPMU_MEM_LOAD_LATENCY:
		/* SDM Vol. 3B 18.8.1.2: "Loads with latencies greater than this value are eligible
		 * for counting"; "both the PEBS_EN_CTRX and LL_EN_CTRX bits must be set"
		 * (perfmon v5 has no LL_EN bits); "Stores are ignored when this event is
		 * programmed". */
		if (c->version < PERFMON_NO_LL_EN && !(c->pebs_enable & PEBS_LL_ENABLE(n)))
			return false;
		return t->load_above_threshold;
	default:
		break;
	}
	switch (event) {
	case ARCH_EVENT_INSTRUCTIONS:
		return umask == 0;
	case ARCH_EVENT_BRANCHES:
		return umask == 0 && t->branch;
	case ARCH_EVENT_CORE_CYCLES: /* the model's cycle: one per instruction */
		return umask <= 1;
	default:
		return false; /* other events do not count in the model */
	}
}

/* Add one to a counter; true on wrap-around (overflow). */
static bool bump(uint64_t *ctr, unsigned width)
{
	*ctr = (*ctr + 1) & width_mask(width);
	return *ctr == 0;
}

struct spmu_overflow spmu_counters_tick(struct spmu_counters *c, const struct spmu_tick *t,
					uint64_t debugctl)
{
	struct spmu_overflow o = {0};
	if (!c->live || (c->global_status & GLOBAL_STATUS_CTR_FRZ))
		return o; /* nothing counts, or frozen until software clears CTR_Frz */
	bool want_pmi = false;
	for (uint64_t gp = c->live & GENMASK(GLOBAL_FIXED_SHIFT - 1, 0); gp; gp &= gp - 1) {
		unsigned n = (unsigned)__builtin_ctzll(gp);
		if (!counts_event(c, n, t))
			continue;
		bool armed = c->pebs_armed & BIT(n);
		if (bump(&c->pmc[n], c->gp_width)) {
			/* The status bit is set for PEBS counters too (Linux strips PEBS counters
			 * from the status it processes, references.md 7.2); their PMI normally
			 * comes from the buffer threshold, as software leaves INT clear. */
			c->global_status |= BIT(n);
			want_pmi |= (c->evtsel[n] & EVTSEL_INT) != 0;
			if (c->pebs_enable & BIT(n))
				c->pebs_armed |= BIT(n); /* the record comes with the next event */
		} else if (armed) {
			c->pebs_armed &= ~BIT(n);
			if (c->pebs_enable & BIT(n))
				o.pebs |= BIT(n);
		}
	}
	for (uint64_t fx = c->live >> GLOBAL_FIXED_SHIFT; fx; fx &= fx - 1) {
		unsigned m = (unsigned)__builtin_ctzll(fx);
		bool ring = (t->cpl == 0) ? (c->fixed_ctrl & FIXED_CTRL_OS(m))
					  : (c->fixed_ctrl & FIXED_CTRL_USR(m));
		/* Fixed counter 0 counts instructions, 1 core cycles, 2 reference cycles; the
		 * model's cycle is one instruction. */
		if (!ring)
			continue;
		uint64_t bit = BIT(GLOBAL_FIXED_SHIFT + m);
		/* Extended PEBS: PEBS on fixed counter m is IA32_PEBS_ENABLE bit 32+m
		 * (references.md 6.1, Ice Lake and later with PERF_CAPABILITIES[14]); before
		 * that, bits 32-35 are the load-latency enables of PMC0-3. */
		bool pebs_on = c->adaptive_pebs && (c->pebs_enable & bit);
		bool armed = c->pebs_armed & bit;
		if (bump(&c->fixed[m], c->fixed_width)) {
			c->global_status |= GLOBAL_STATUS_FIXED(m);
			want_pmi |= (c->fixed_ctrl & FIXED_CTRL_PMI(m)) != 0;
			if (pebs_on)
				c->pebs_armed |= bit; /* the record comes with the next event */
		} else if (armed) {
			c->pebs_armed &= ~bit;
			if (pebs_on)
				o.pebs |= bit;
		}
	}
	if (want_pmi) {
		uint64_t pebs = o.pebs;
		o = spmu_counters_pmi_freeze(c, debugctl);
		o.pebs = pebs;
	}
	return o;
}

/* The counters (GLOBAL_STATUS layout) that count an instruction that is no branch and accesses
 * no data at `cpl`: counts_event's rules for such a tick, and the fixed counters' ring bits. */
static uint64_t plain_counting(const struct spmu_counters *c, unsigned cpl)
{
	if (!c->live || (c->global_status & GLOBAL_STATUS_CTR_FRZ))
		return 0;
	const struct spmu_tick t = {.cpl = cpl};
	uint64_t counting = 0;
	for (uint64_t gp = c->live & GENMASK(GLOBAL_FIXED_SHIFT - 1, 0); gp; gp &= gp - 1) {
		unsigned n = (unsigned)__builtin_ctzll(gp);
		if (counts_event(c, n, &t))
			counting |= BIT(n);
	}
	for (uint64_t fx = c->live >> GLOBAL_FIXED_SHIFT; fx; fx &= fx - 1) {
		unsigned m = (unsigned)__builtin_ctzll(fx);
		if ((cpl == 0) ? (c->fixed_ctrl & FIXED_CTRL_OS(m))
			       : (c->fixed_ctrl & FIXED_CTRL_USR(m)))
			counting |= BIT(GLOBAL_FIXED_SHIFT + m);
	}
	return counting;
}

/* Counter `bit` (GLOBAL_STATUS layout) and its width. */
static uint64_t *counter_of(struct spmu_counters *c, unsigned bit, unsigned *width)
{
	if (bit >= GLOBAL_FIXED_SHIFT) {
		*width = c->fixed_width;
		return &c->fixed[bit - GLOBAL_FIXED_SHIFT];
	}
	*width = c->gp_width;
	return &c->pmc[bit];
}

/* Ticks counter `bit` takes before one finds it at its maximum and overflows (bump). */
static uint64_t ticks_left(const struct spmu_counters *c, unsigned bit)
{
	unsigned width;
	uint64_t v = *counter_of((struct spmu_counters *)c, bit, &width);
	return width_mask(width) - v;
}

bool spmu_counters_quiet(const struct spmu_counters *c, uint64_t steps)
{
	if (c->counts_memory || c->pebs_armed)
		return false;
	if (!c->live || (c->global_status & GLOBAL_STATUS_CTR_FRZ))
		return true; /* nothing counts (spmu_counters_tick) */
	for (uint64_t live = c->live; live; live &= live - 1)
		if (ticks_left(c, (unsigned)__builtin_ctzll(live)) < steps)
			return false;
	return true;
}

bool spmu_counters_quiet_runs(const struct spmu_counters *c, uint64_t steps, uint64_t branches)
{
	if (c->counts_memory || c->pebs_armed)
		return false;
	if (!c->live || (c->global_status & GLOBAL_STATUS_CTR_FRZ))
		return true;
	for (uint64_t live = c->live; live; live &= live - 1) {
		unsigned n = (unsigned)__builtin_ctzll(live);
		/* BR_INST_RETIRED.ALL_BRANCHES (C4H, umask 0) ticks once a branch, else at most
		 * once a step (counts_event) */
		bool branches_only = n < GLOBAL_FIXED_SHIFT &&
				     FIELD_GET(EVTSEL_EVENT, c->evtsel[n]) == ARCH_EVENT_BRANCHES &&
				     FIELD_GET(EVTSEL_UMASK, c->evtsel[n]) == 0;
		if (ticks_left(c, n) < (branches_only ? branches : steps))
			return false;
	}
	return true;
}

uint64_t spmu_counters_plain_room(const struct spmu_counters *c, unsigned cpl)
{
	if (c->counts_memory)
		return 0;
	uint64_t counting = plain_counting(c, cpl), room = UINT64_MAX;
	if (counting & c->pebs_armed)
		return 0;
	for (; counting; counting &= counting - 1) {
		uint64_t left = ticks_left(c, (unsigned)__builtin_ctzll(counting));
		room = left < room ? left : room;
	}
	return room;
}

void spmu_counters_tick_n(struct spmu_counters *c, const struct spmu_tick *t, uint64_t k)
{
	if (!k || !c->live || (c->global_status & GLOBAL_STATUS_CTR_FRZ))
		return; /* spmu_counters_tick's: nothing counts */
	for (uint64_t gp = c->live & GENMASK(GLOBAL_FIXED_SHIFT - 1, 0); gp; gp &= gp - 1) {
		unsigned n = (unsigned)__builtin_ctzll(gp);
		if (counts_event(c, n, t))
			c->pmc[n] = (c->pmc[n] + k) & width_mask(c->gp_width);
	}
	for (uint64_t fx = c->live >> GLOBAL_FIXED_SHIFT; fx; fx &= fx - 1) {
		unsigned m = (unsigned)__builtin_ctzll(fx);
		if ((t->cpl == 0) ? (c->fixed_ctrl & FIXED_CTRL_OS(m))
				  : (c->fixed_ctrl & FIXED_CTRL_USR(m)))
			c->fixed[m] = (c->fixed[m] + k) & width_mask(c->fixed_width);
	}
}

void spmu_counters_tick_plain(struct spmu_counters *c, uint64_t n, unsigned cpl)
{
	for (uint64_t counting = plain_counting(c, cpl); counting; counting &= counting - 1) {
		unsigned width;
		uint64_t *ctr = counter_of(c, (unsigned)__builtin_ctzll(counting), &width);
		*ctr = (*ctr + n) & width_mask(width);
	}
}
