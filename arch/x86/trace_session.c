/* SPDX-License-Identifier: MIT */
/*
 * A minimal capture session per facility, through the PMU MSR accessor: program, run one
 * workload, stop, drain, print. On a CPU without the facility it runs on the software PMU
 * (said loudly, with the reason from the capability report); the workload is then
 * single-stepped and every taken branch is fed to the model. The full drivers (PMI-driven
 * draining, filters, freeze) are the trace-driver issue; this is the path the model's
 * validation against QEMU's execution log runs through.
 */
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "arch/x86/caps_report.h"
#include "arch/x86/ds_isr.h"
#include "arch/x86/ds_layout.h"
#include "arch/x86/percpu.h"
#include "arch/x86/pmu_msr.h"
#include "arch/x86/pmu_regs.h"
#include "arch/x86/singlestep.h"
#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "arch/x86/lapic.h"
#include "arch/x86/pmi.h"
#include "arch/x86/vectors.h"
#include "lib/fmt.h"
#include "lib/list.h"
#include "lib/string.h"
#include "lib/x86_decode.h"

#define BTS_BUFFER_PAGES   16 /* 64 KiB: 2730 records */
#define X86_MAX_INSN_LEN   15
#define LBR_CORE_MAX_DEPTH 8

/* Bookkeeping of virtual PMIs, for the report. */
static uint64_t virtual_pmis, virtual_pmis_masked;

/*
 * Deliver a PMI the model requested through the real path: as the LVT delivery does, set the
 * LVTPC mask bit, then send the PMI vector (or an NMI, in NMI mode) to this CPU through the
 * local APIC. The PMI entry (arch/x86/pmi.c) runs unmodified, clears the mask and EOIs. A
 * request while LVTPC is masked is not delivered, as on hardware; it is counted.
 */
static void deliver_virtual_pmi(void)
{
	uint32_t lvt = lapic_read(APIC_LVT_PMC);
	if (lvt & APIC_LVT_MASKED) {
		virtual_pmis_masked++;
		return;
	}
	lapic_write(APIC_LVT_PMC, lvt | APIC_LVT_MASKED);
	virtual_pmis++;
	if (lapic_pmi_as_nmi())
		lapic_send_ipi(0, APIC_DM_NMI, 0, APIC_DEST_SELF);
	else
		lapic_send_ipi(0, APIC_DM_FIXED, VEC_PMI, APIC_DEST_SELF);
}

/*
 * Decoded instructions by address, direct-mapped: a workload's loop body is decoded once, not
 * once per iteration (the decoder is most of a step's cost). Workloads do not modify their own
 * code; the cache is cleared at every session start anyway.
 */
#define DECODE_CACHE_SIZE 1024

struct decoded {
	uint64_t ip;
	uint8_t length;
	uint8_t branch; /* enum x86_branch_kind */
};

static struct decoded decode_cache[DECODE_CACHE_SIZE];

static bool decode_cached(uint64_t ip, struct decoded *out)
{
	struct decoded *slot = &decode_cache[ip % DECODE_CACHE_SIZE];
	if (slot->ip != ip || slot->length == 0) {
		struct x86_insn in;
		if (x86_decode((const uint8_t *)ip, X86_MAX_INSN_LEN, &in) != 0)
			return false;
		*slot = (struct decoded){ip, in.length, (uint8_t)in.branch};
	}
	*out = *slot;
	return true;
}

/* Feed the model from the single-step engine: every retired instruction, every taken branch. */
static void model_step(void *ctx, uint64_t retired, uint64_t next)
{
	struct spmu *m = ctx;
	struct decoded in;
	if (!decode_cached(retired, &in))
		return; /* the engine's own check (kernel/sstrace.c) reports undecodable steps */
	unsigned cpl_from, cpl_to;
	ss_step_cpls(&cpl_from, &cpl_to);
	const struct trap_frame *f = ss_step_frame();
	struct spmu_regs regs = {
	    .rflags = f->rflags & ~RFLAGS_TF, /* the engine's TF is invisible to the model */
	    .rax = f->rax,
	    .rbx = f->rbx,
	    .rcx = f->rcx,
	    .rdx = f->rdx,
	    .rsi = f->rsi,
	    .rdi = f->rdi,
	    .rbp = f->rbp,
	    .rsp = f->rsp,
	    .r8 = f->r8,
	    .r9 = f->r9,
	    .r10 = f->r10,
	    .r11 = f->r11,
	    .r12 = f->r12,
	    .r13 = f->r13,
	    .r14 = f->r14,
	    .r15 = f->r15,
	};
	struct spmu_step st = {
	    .retired = retired,
	    .next = next,
	    .branch = in.branch != X86_BR_NONE,
	    .cpl = cpl_from,
	    .tsc = rdtsc(),
	    .regs = &regs,
	};
	spmu_retire(m, &st);
	if (next != retired + in.length)
		spmu_branch(m, retired, next, (enum x86_branch_kind)in.branch, cpl_from, cpl_to);
	if (m->pmi_pending) {
		m->pmi_pending = false;
		deliver_virtual_pmi();
	}
}

static uint64_t run(uint64_t (*fn)(uint64_t), uint64_t arg, bool interrupts, uint64_t *steps)
{
	struct spmu *m = pmu_model();
	*steps = 0;
	if (!m) {
		if (interrupts)
			__asm__ volatile("sti");
		uint64_t r = fn(arg); /* real hardware records by itself */
		__asm__ volatile("cli");
		return r;
	}
	struct ss_result res;
	memset(decode_cache, 0, sizeof(decode_cache));
	ss_run(fn, arg, model_step, m, interrupts, &res);
	*steps = res.steps;
	return res.retval;
}

/* Pick hardware or the model for `facility`; false (after SKIP) if neither has it. */
static bool choose_backend(const char *facility, bool hw_has, const char *hw_reason,
			   const char *personality)
{
	if (hw_has) {
		pmu_use_hardware();
		return true;
	}
	const struct spmu_personality *p = spmu_personality_find(personality);
	if (!p) {
		kprintf("SKIP: %s: this CPU has none (%s) and there is no software PMU "
			"personality '%s'\n",
			facility, hw_reason, personality);
		return false;
	}
	pmu_use_model(p);
	kprintf("trace: this CPU has no %s (%s): using the SOFTWARE PMU as '%s' (%s); "
		"results are model-verified, not silicon\n",
		facility, hw_reason, p->name, p->what);
	return true;
}

static bool check(int rc, uint32_t msr, const char *what)
{
	if (rc == PMU_MSR_OK)
		return true;
	struct spmu *m = pmu_model();
	kprintf("error: %s: MSR %#x refused (#GP)%s%s\n", what, msr, m ? ": " : "",
		m ? m->gp_reason : "");
	return false;
}

static bool bts_session(const char *name, uint64_t (*fn)(uint64_t), uint64_t arg)
{
	const struct trace_caps *model_caps = pmu_model() ? &pmu_model()->caps : NULL;
	if (model_caps && model_caps->bts.kind == TC_BTS_NO) {
		kprintf("SKIP: bts: personality lacks it: %s\n", model_caps->bts.reason);
		return true;
	}
	uint64_t ds_phys = page_alloc(1), buf = page_alloc(BTS_BUFFER_PAGES);
	if (!ds_phys || !buf) {
		kprintf("error: bts: out of memory for the DS area and buffer\n");
		return false;
	}
	struct ds_area64 *ds = arch_phys_to_virt(ds_phys);
	uint64_t nrec = BTS_BUFFER_PAGES * PAGE_SIZE / sizeof(struct bts_record);
	ds->bts_base = ds->bts_index = buf;
	ds->bts_abs_max = buf + nrec * sizeof(struct bts_record);
	/* Circular without interrupts needs the threshold above the absolute maximum (SDM
	 * 17.4.9.3 note): clearing BTINT alone is not enough. */
	ds->bts_threshold = ds->bts_abs_max + sizeof(struct bts_record);
	bool ok = check(pmu_wrmsr(MSR_IA32_DS_AREA, ds_phys), MSR_IA32_DS_AREA, "bts") &&
		  check(pmu_wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_TR | DEBUGCTL_BTS), MSR_IA32_DEBUGCTL,
			"bts");
	uint64_t steps = 0, result = ok ? run(fn, arg, false, &steps) : 0;
	ok &= check(pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "bts");
	uint64_t records = (ds->bts_index - ds->bts_base) / sizeof(struct bts_record);
	struct spmu *m = pmu_model();
	kprintf("trace-begin bts %s steps=%lu records=%lu dropped=%lu result=%lu\n", name, steps,
		records, m ? m->stats.bts_dropped : 0, result);
	const struct bts_record *r = arch_phys_to_virt(ds->bts_base);
	for (uint64_t i = 0; i < records; i++)
		kprintf("bts %#lx %#lx %#lx\n", r[i].from, r[i].to, r[i].flags);
	kprintf("trace-end bts %s\n", name);
	page_free(buf, BTS_BUFFER_PAGES);
	page_free(ds_phys, 1);
	return ok;
}

/*
 * BTS in interrupt mode: a small buffer whose threshold leaves headroom, drained by the PMI
 * service routine each time the threshold is reached, following SDM 17.4.9.5: on entry clear
 * TR (stop BTMs while the DS area is touched), drain base..index, reset the index, and restore
 * DEBUGCTL on exit. Records that land after the threshold, before the PMI is taken, are kept.
 */
#define BTSINT_RECORDS	 32
#define BTSINT_HEADROOM	 8
#define BTSINT_MAX_SAVED 4096
#define BTSINT_MAX_LOOPS 100 /* PMI-storm bound, as Linux's (reference 7.4) */

static struct {
	struct bts_record saved[BTSINT_MAX_SAVED];
	unsigned nsaved;
	uint64_t lost; /* drained records beyond the saved array: counted */
	uint64_t drains;
	struct ds_isr_config cfg;
} btsint;

static int isr_rdmsr(void *ctx, uint32_t msr, uint64_t *v)
{
	(void)ctx;
	return pmu_rdmsr(msr, v);
}

static int isr_wrmsr(void *ctx, uint32_t msr, uint64_t v)
{
	(void)ctx;
	return pmu_wrmsr(msr, v);
}

static void *isr_at(void *ctx, uint64_t linear)
{
	(void)ctx;
	return arch_phys_to_virt(linear); /* DS area and buffers are identity-mapped */
}

static void save_bts(void *ctx, const struct bts_record *r)
{
	(void)ctx;
	if (btsint.nsaved < BTSINT_MAX_SAVED)
		btsint.saved[btsint.nsaved++] = *r;
	else
		btsint.lost++;
}

static const struct ds_isr_ops btsint_ops = {
    .rdmsr = isr_rdmsr,
    .wrmsr = isr_wrmsr,
    .at = isr_at,
    .bts_record = save_bts,
};

/* The PMI/DS service routine (arch/x86/ds_isr.c) does the work. */
static void btsint_service(struct trap_frame *f)
{
	(void)f;
	struct ds_isr_report r;
	ds_isr_service(&btsint_ops, &btsint.cfg, &r);
	btsint.drains += r.bts_threshold;
	if (r.msr_errors || r.storm)
		kprintf("error: btsint: service routine: %u refused MSR accesses%s\n", r.msr_errors,
			r.storm ? ", PMI storm" : "");
}

static bool btsint_session(const char *name, uint64_t (*fn)(uint64_t), uint64_t arg)
{
	uint64_t ds_phys = page_alloc(1), buf = page_alloc(1);
	if (!ds_phys || !buf) {
		kprintf("error: btsint: out of memory\n");
		return false;
	}
	struct ds_area64 *ds = arch_phys_to_virt(ds_phys);
	ds->bts_base = ds->bts_index = buf;
	ds->bts_abs_max = buf + BTSINT_RECORDS * sizeof(struct bts_record);
	ds->bts_threshold = ds->bts_abs_max - BTSINT_HEADROOM * sizeof(struct bts_record);
	const struct trace_caps *c =
	    pmu_model() ? &pmu_model()->caps : caps_of_cpu(arch_cpu_index());
	uint64_t global_ctrl = 0;
	bool global = c && c->perfmon.version >= 2;
	if (global)
		pmu_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL, &global_ctrl);
	btsint.cfg = (struct ds_isr_config){
	    .perfmon_version = c ? c->perfmon.version : 0,
	    .ds_area = ds_phys,
	    .bts = true,
	    .debugctl = DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT,
	    .global_ctrl = global_ctrl, /* left as the session found it */
	    .max_loops = BTSINT_MAX_LOOPS,
	};
	btsint.nsaved = 0;
	btsint.lost = btsint.drains = 0;
	virtual_pmis = virtual_pmis_masked = 0;
	uint64_t pmis_before = pmi_count(arch_cpu_index());
	pmi_set_service_routine(btsint_service);
	bool ok =
	    check(pmu_wrmsr(MSR_IA32_DS_AREA, ds_phys), MSR_IA32_DS_AREA, "btsint") &&
	    check(pmu_wrmsr(MSR_IA32_DEBUGCTL, btsint.cfg.debugctl), MSR_IA32_DEBUGCTL, "btsint");
	uint64_t steps = 0, result = ok ? run(fn, arg, true, &steps) : 0;
	ok &= check(pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "btsint");
	pmi_set_service_routine(NULL);
	uint64_t drains_in_pmi = btsint.drains;
	ds_bts_drain(&btsint_ops, ds); /* what is left after the run */
	struct spmu *m = pmu_model();
	kprintf("trace-begin btsint %s steps=%lu records=%u pmis=%lu drains=%lu virtual-pmis=%lu "
		"masked=%lu dropped=%lu lost=%lu result=%lu\n",
		name, steps, btsint.nsaved, pmi_count(arch_cpu_index()) - pmis_before,
		drains_in_pmi, virtual_pmis, virtual_pmis_masked, m ? m->stats.bts_dropped : 0,
		btsint.lost, result);
	for (unsigned i = 0; i < btsint.nsaved; i++)
		kprintf("bts %#lx %#lx %#lx\n", btsint.saved[i].from, btsint.saved[i].to,
			btsint.saved[i].flags);
	uint64_t ler_from = 0, ler_to = 0;
	ok &= check(pmu_rdmsr(MSR_LER_FROM, &ler_from), MSR_LER_FROM, "btsint") &&
	      check(pmu_rdmsr(MSR_LER_TO, &ler_to), MSR_LER_TO, "btsint");
	kprintf("ler %#lx %#lx\n", ler_from, ler_to);
	kprintf("trace-end btsint %s\n", name);
	page_free(buf, 1);
	page_free(ds_phys, 1);
	return ok;
}

/*
 * PEBS on general-purpose counter 0 counting instructions retired (architectural event C0H),
 * one record every PEBS_PERIOD instructions, reloaded from the DS counter-reset slot; a buffer
 * large enough that no threshold PMI is needed. Adaptive PEBS records carry the GPR and
 * memory-info groups.
 */
#define PEBS_PERIOD	  37
#define PEBS_BUFFER_PAGES 16

static void pebs_print(const struct pebs_config *c, const uint8_t *rec)
{
	if (c->format >= 4) {
		struct pebs_basic b;
		struct pebs_gprs g;
		memcpy(&b, rec, sizeof(b));
		memcpy(&g, rec + sizeof(b) + sizeof(struct pebs_meminfo), sizeof(g));
		kprintf("pebs %#lx %#lx applicable=%#lx size=%lu\n", b.ip, g.ip,
			b.applicable_counters, FIELD_GET(PEBS_BASIC_SIZE_FIELD, b.format_size));
		return;
	}
	struct pebs_record_fmt3 r;
	memset(&r, 0, sizeof(r));
	memcpy(&r, rec, pebs_record_size(c));
	/* Formats 0-1 have no eventing IP: print the record's RIP in both places. */
	uint64_t ip = c->format >= 2 ? r.f2.eventing_ip : r.f2.f1.g.rip;
	kprintf("pebs %#lx %#lx applicable=%#lx size=%zu\n", ip, r.f2.f1.g.rip, r.f2.f1.status,
		pebs_record_size(c));
}

static bool pebs_session(const char *name, uint64_t (*fn)(uint64_t), uint64_t arg)
{
	struct spmu *m = pmu_model();
	const struct trace_caps *c = m ? &m->caps : caps_of_cpu(arch_cpu_index());
	if (!c || c->pebs.kind != TC_PEBS_YES) {
		kprintf("SKIP: pebs: %s\n", c ? c->pebs.reason : "no capability record");
		return true;
	}
	struct pebs_config cfg = {c->pebs.format, c->pebs.adaptive, c->perf_cap.pebs_trap,
				  c->pebs.adaptive ? PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GP : 0};
	size_t size = pebs_record_size(&cfg);
	uint64_t ds_phys = page_alloc(1), buf = page_alloc(PEBS_BUFFER_PAGES);
	if (!size || !ds_phys || !buf) {
		kprintf("error: pebs: format %u not modelled, or out of memory\n", cfg.format);
		return false;
	}
	struct ds_area64 *ds = arch_phys_to_virt(ds_phys);
	uint64_t nrec = PEBS_BUFFER_PAGES * PAGE_SIZE / size;
	uint64_t period = (uint64_t)-PEBS_PERIOD & genmask(c->perfmon.gp_width - 1, 0);
	ds->pebs_base = ds->pebs_index = buf;
	ds->pebs_abs_max = buf + nrec * size;
	ds->pebs_threshold = ds->pebs_abs_max - size; /* one record short: no PMI expected */
	ds->pebs_counter_reset[0] = period;
	bool ok =
	    check(pmu_wrmsr(MSR_IA32_DS_AREA, ds_phys), MSR_IA32_DS_AREA, "pebs") &&
	    (!cfg.adaptive ||
	     check(pmu_wrmsr(MSR_PEBS_DATA_CFG, cfg.data_cfg), MSR_PEBS_DATA_CFG, "pebs")) &&
	    check(pmu_wrmsr(MSR_IA32_PMC0, period & GENMASK(31, 0)), MSR_IA32_PMC0, "pebs") &&
	    check(pmu_wrmsr(MSR_IA32_PERFEVTSEL0,
			    ARCH_EVENT_INSTRUCTIONS | EVTSEL_EN | EVTSEL_OS | EVTSEL_USR),
		  MSR_IA32_PERFEVTSEL0, "pebs") &&
	    check(pmu_wrmsr(MSR_IA32_PEBS_ENABLE, BIT(0)), MSR_IA32_PEBS_ENABLE, "pebs") &&
	    check(pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT(0)), MSR_IA32_PERF_GLOBAL_CTRL, "pebs");
	uint64_t steps = 0, result = ok ? run(fn, arg, false, &steps) : 0;
	ok &= check(pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0), MSR_IA32_PERF_GLOBAL_CTRL, "pebs") &&
	      check(pmu_wrmsr(MSR_IA32_PEBS_ENABLE, 0), MSR_IA32_PEBS_ENABLE, "pebs") &&
	      check(pmu_wrmsr(MSR_IA32_PERFEVTSEL0, 0), MSR_IA32_PERFEVTSEL0, "pebs");
	uint64_t records = (ds->pebs_index - ds->pebs_base) / size;
	kprintf("trace-begin pebs %s steps=%lu records=%lu format=%u adaptive=%d trap=%d "
		"period=%d dropped=%lu result=%lu\n",
		name, steps, records, cfg.format, cfg.adaptive, cfg.trap, PEBS_PERIOD,
		m ? m->stats.pebs_dropped : 0, result);
	const uint8_t *rec = arch_phys_to_virt(ds->pebs_base);
	for (uint64_t i = 0; i < records; i++)
		pebs_print(&cfg, rec + i * size);
	kprintf("trace-end pebs %s\n", name);
	page_free(buf, PEBS_BUFFER_PAGES);
	page_free(ds_phys, 1);
	return ok;
}

/* Reading rules of reference 3.4 (Linux intel_pmu_lbr_read_64), formats 3-7. */
static uint64_t sign_extend(uint64_t v, unsigned top_bit)
{
	unsigned shift = 63 - top_bit;
	return (uint64_t)((int64_t)(v << shift) >> shift);
}

static void lbr_decode(unsigned format, uint64_t *from, uint64_t *to, uint64_t info,
		       unsigned *cycles)
{
	*cycles = 0;
	switch (format) {
	case 3:
		*from = sign_extend(*from, 62);
		break;
	case 4:
		*from = sign_extend(*from, 60);
		break;
	case 5:
	case 7:
		*cycles = (unsigned)(info & 0xffff);
		break;
	case 6:
		*from = sign_extend(*from, 62);
		*cycles = (unsigned)(*to >> 48);
		*to = sign_extend(*to, 47);
		break;
	}
}

/* Architectural LBR (reference 4.1-4.3): depth from CPUID.1CH, LBR_CTL positive filters,
 * entry 0 newest, read until FROM = 0. */
static bool arch_lbr_session(const char *name, const struct trace_caps *c, uint64_t (*fn)(uint64_t),
			     uint64_t arg)
{
	unsigned depth = c->arch_lbr.max_depth;
	uint64_t ctl = LBR_CTL_LBREN | (c->arch_lbr.cpl_filter ? LBR_CTL_OS | LBR_CTL_USR : 0) |
		       (c->arch_lbr.branch_filter ? LBR_CTL_BRANCHES : 0);
	/* Writing the depth also clears every entry. */
	bool ok = check(pmu_wrmsr(MSR_IA32_LBR_DEPTH, depth), MSR_IA32_LBR_DEPTH, "arch-lbr") &&
		  check(pmu_wrmsr(MSR_IA32_LBR_CTL, ctl), MSR_IA32_LBR_CTL, "arch-lbr");
	uint64_t steps = 0, t0 = arch_timestamp();
	uint64_t result = ok ? run(fn, arg, false, &steps) : 0;
	uint64_t tsc_cycles = arch_timestamp() - t0;
	ok &= check(pmu_wrmsr(MSR_IA32_LBR_CTL, 0), MSR_IA32_LBR_CTL, "arch-lbr");
	kprintf("trace-begin lbr %s steps=%lu depth=%u format=arch result=%lu tsc-cycles=%lu\n",
		name, steps, depth, result, tsc_cycles);
	for (unsigned i = 0; i < depth && ok; i++) {
		uint64_t from = 0, to = 0, info = 0;
		ok =
		    check(pmu_rdmsr(MSR_IA32_LBR_FROM0 + i, &from), MSR_IA32_LBR_FROM0 + i,
			  "arch-lbr") &&
		    check(pmu_rdmsr(MSR_IA32_LBR_TO0 + i, &to), MSR_IA32_LBR_TO0 + i, "arch-lbr") &&
		    check(pmu_rdmsr(MSR_IA32_LBR_INFO0 + i, &info), MSR_IA32_LBR_INFO0 + i,
			  "arch-lbr");
		if (!ok || from == 0)
			break;
		unsigned cycles = (info & ARCH_LBR_INFO_CYC_VALID)
				      ? (unsigned)FIELD_GET(ARCH_LBR_INFO_CYC_CNT, info)
				      : 0;
		kprintf("lbr %u %#lx %#lx cycles=%u br_type=%lu\n", i, from, to, cycles,
			FIELD_GET(ARCH_LBR_INFO_BR_TYPE, info));
	}
	kprintf("trace-end lbr %s\n", name);
	return ok;
}

static bool lbr_session(const char *name, uint64_t (*fn)(uint64_t), uint64_t arg)
{
	struct spmu *m = pmu_model();
	const struct trace_caps *c = m ? &m->caps : caps_of_cpu(arch_cpu_index());
	if (c && c->lbr.kind == TC_LBR_ARCH)
		return arch_lbr_session(name, c, fn, arg);
	if (!c || c->lbr.kind != TC_LBR_LEGACY) {
		kprintf("SKIP: lbr: %s\n", c ? c->lbr.reason : "no capability record");
		return true;
	}
	unsigned depth = c->lbr.depth, format = c->lbr.format;
	/* Hardware MSR bases (reference 3.1): Core 2 / Atom / Silvermont stacks of <= 8 entries at
	 * 40H/60H; Nehalem and later at 680H/6C0H, LBR_INFO at DC0H (Knights Landing, depth 8,
	 * also uses 680H: its quirk is handled when a personality or driver needs it). */
	bool core_msrs = depth <= LBR_CORE_MAX_DEPTH;
	uint32_t from_base = m ? m->p->lbr_from_base : core_msrs ? LBR_CORE_FROM : LBR_NHM_FROM;
	uint32_t to_base = m ? m->p->lbr_to_base : core_msrs ? LBR_CORE_TO : LBR_NHM_TO;
	uint32_t info_base = m ? m->p->lbr_info_base : LBR_SKL_INFO;
	bool has_info = format == 5 || format == 7;
	bool ok = true;
	for (unsigned i = 0; i < depth && ok; i++) /* reset (reference 3.5) */
		ok = check(pmu_wrmsr(from_base + i, 0), from_base + i, "lbr") &&
		     check(pmu_wrmsr(to_base + i, 0), to_base + i, "lbr") &&
		     (!has_info || check(pmu_wrmsr(info_base + i, 0), info_base + i, "lbr"));
	/* LBR_SELECT exists from Nehalem on (and on Silvermont); Core 2 and Bonnell filter in
	 * software only (reference 3.3). 0 = capture every branch. */
	bool has_select = m ? m->p->lbr_select : depth >= 16;
	ok = ok && (!has_select || check(pmu_wrmsr(MSR_LBR_SELECT, 0), MSR_LBR_SELECT, "lbr")) &&
	     check(pmu_wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_LBR), MSR_IA32_DEBUGCTL, "lbr");
	uint64_t steps = 0, t0 = arch_timestamp();
	uint64_t result = ok ? run(fn, arg, false, &steps) : 0;
	uint64_t tsc_cycles = arch_timestamp() - t0;
	ok &= check(pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "lbr");
	uint64_t tos = 0;
	ok &= check(pmu_rdmsr(MSR_LBR_TOS, &tos), MSR_LBR_TOS, "lbr");
	kprintf("trace-begin lbr %s steps=%lu depth=%u format=%u result=%lu tsc-cycles=%lu\n", name,
		steps, depth, format, result, tsc_cycles);
	for (unsigned i = 0; i < depth && ok; i++) {
		unsigned idx = (unsigned)(tos - i) & (depth - 1), cycles;
		uint64_t from = 0, to = 0, info = 0;
		ok =
		    check(pmu_rdmsr(from_base + idx, &from), from_base + idx, "lbr") &&
		    check(pmu_rdmsr(to_base + idx, &to), to_base + idx, "lbr") &&
		    (!has_info || check(pmu_rdmsr(info_base + idx, &info), info_base + idx, "lbr"));
		if (!ok || from == 0)
			break; /* FROM = 0: an empty slot, and all older ones too */
		lbr_decode(format, &from, &to, info, &cycles);
		kprintf("lbr %u %#lx %#lx cycles=%u\n", i, from, to, cycles);
	}
	kprintf("trace-end lbr %s\n", name);
	return ok;
}

bool arch_trace_workload(const char *facility, const char *personality, const char *workload,
			 uint64_t (*fn)(uint64_t), uint64_t arg)
{
	const struct trace_caps *hw = caps_of_cpu(arch_cpu_index());
	const char *no_record = "no capability record";
	bool is_bts = facility[0] == 'b', is_pebs = facility[0] == 'p';
	bool have = hw && (is_bts    ? hw->bts.kind != TC_BTS_NO
			   : is_pebs ? hw->pebs.kind == TC_PEBS_YES
				     : hw->lbr.kind != TC_LBR_NONE);
	const char *reason = !hw       ? no_record
			     : is_bts  ? hw->bts.reason
			     : is_pebs ? hw->pebs.reason
				       : hw->lbr.reason;
	if (!choose_backend(is_bts ? "BTS" : is_pebs ? "PEBS" : "LBR", have, reason, personality))
		return true;
	char label[64]; /* "workload@backend": the records say what produced them */
	fmt_snprintf(label, sizeof(label), "%s@%s", workload,
		     pmu_using_model() ? personality : "hardware");
	bool ok = is_pebs			    ? pebs_session(label, fn, arg)
		  : !is_bts			    ? lbr_session(label, fn, arg)
		  : strcmp(facility, "btsint") == 0 ? btsint_session(label, fn, arg)
						    : bts_session(label, fn, arg);
	pmu_use_hardware();
	return ok;
}

bool arch_spmu_validate(const char *personalities, char *err, size_t size)
{
	size_t len;
	for (const char *c = personalities, *p; list_next(&c, &p, &len);) {
		char one[32];
		fmt_snprintf(one, sizeof(one), "%.*s", (int)len, p);
		if (!spmu_personality_find(one)) {
			size_t pos = (size_t)fmt_snprintf(
			    err, size,
			    "option 'spmu': unknown personality '%.*s'; accepted: one or more "
			    "(comma-separated) of:",
			    (int)len, p);
			for (unsigned i = 0; spmu_personality_at(i) && pos < size; i++)
				pos += (size_t)fmt_snprintf(err + pos, size - pos, " %s",
							    spmu_personality_at(i)->name);
			return false;
		}
	}
	return true;
}
