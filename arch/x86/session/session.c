/* SPDX-License-Identifier: MIT */
/*
 * Trace sessions: pick the backend (the hardware when it has the facility, else the software
 * PMU, said loudly), run the facility's session on the CPUs the options ask for — the boot
 * CPU, each CPU in turn, or all CPUs at once — and print every CPU's report from the boot CPU
 * (arch/x86/session/output.h). With the model, the workload is single-stepped and every retired
 * instruction and taken branch feeds it; the PMIs it requests go through the real local APIC.
 */
#include "arch/x86/session/session.h"
#include "arch/x86/caps/report.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/pmu/ds_area.h"
#include "arch/x86/drivers/ler.h"
#include "arch/x86/drivers/bts_plan.h"
#include "arch/x86/drivers/pause.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/step/singlestep.h"
#include "arch/x86/smp/smp.h"
#include "arch/x86/session/output.h"
#include "arch/x86/session/capture.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/vectors.h"
#include "arch/x86/user/run.h"
#include "arch/x86/cpu/usermode.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_step.h"
#include "kernel/console.h"
#include "kernel/memmap.h"
#include "kernel/memory.h"
#include "lib/fmt.h"
#include "lib/list.h"
#include "lib/string.h"
#include "lib/x86_decode.h"
#include "lib/x86_decode_cache.h"
#include "lib/x86_mem.h"

#define SESSION_EXCEPTIONS 32 /* a session's exceptions listed (workload counted takes 19) */
/* Per traced CPU, the record store (option trace.store; 0: from free memory): what is free once
 * every traced CPU has its other buffers, less STORE_RESERVE_PAGES (or an eighth, when memory
 * is short) for what the boot needs later, shared by the traced CPUs. */
#define STORE_RESERVE_PAGES  4096 /* 16 MiB */
#define STORE_RESERVE_SHARE  8
#define STORE_PAGES_MIN	     1 /* one page: the smallest store (trace.store=4) */
#define BTS_BUFFER_MAX_BYTES (1000000ull * sizeof(struct bts_record))

/* Decoded instructions by address: a loop body is decoded once, not once per iteration. Each
 * entry keeps the bytes it was decoded from: code that rewrites itself is decoded again. */
#define DECODE_CACHE_PAGES                                                                         \
	((X86_DECODE_CACHE_SIZE * sizeof(struct x86_decoded) + PAGE_SIZE - 1) / PAGE_SIZE)

struct exception_seen {
	uint32_t vector;
	uint64_t rip, ler_from, ler_to;
};

/* Per-CPU session state the traps and PMIs of the running workload reach. */
struct cpu_session {
	struct x86_decoded *cache;
	void *scratch;
	uint64_t scratch_pages;
	struct trace_ctx *ctx; /* non-NULL while a workload runs */
	uint64_t virtual_pmis, virtual_pmis_masked;
	uint64_t lost, first_lost; /* steps the model could not follow, the first one's address */
	uint64_t rebuilt; /* traps that stood for more than one instruction (feed_rebuilt) */
	struct exception_seen exc[SESSION_EXCEPTIONS];
	unsigned nexc, exc_lost;
	/* The data accesses of the instruction about to run, computed from the registers
	 * before it while the model counts memory events (ip 0: none pending). */
	struct {
		uint64_t ip, load_addr, store_addr;
		bool load, store;
	} mem;
	uint64_t mem_unknown;	      /* stepped instructions whose memory operand x86_mem lacks */
	uint64_t drop_at, taken_seen; /* option spmu.drop: the taken branch the model misses */
	ss_step_fn extra_step;	      /* a session's own per-step hook (BTF), or NULL */
	void *extra_ctx;
	struct user_run *user; /* this CPU's user program run (its region-of-interest marks) */
	/* A region of interest paused: the enable bits it cleared, to restore on resume. */
	struct facility_pause roi;
	/* Marks the session looks for in the retired instructions (roi_watch): SSC marks
	 * (program.roi=marks), a function's outermost activation (program.roi=function:NAME,
	 * fn_rsp its RSP at entry while it runs, else 0). watch: every step must come here. */
	bool watch, watch_ssc;
	uint64_t fn_entry, fn_rsp;
};

static struct cpu_session cpu_sessions[MAX_CPUS];

static struct cpu_session *here(void)
{
	struct cpu_session *cs = &cpu_sessions[this_cpu()->index];
	PERCPU_SLOT_OPAQUE(cs);
	return cs;
}

/*
 * Deliver a PMI the model requested through the real path: as the LVT delivery does, set the
 * LVTPC mask bit, then send the PMI vector (or an NMI) to this CPU through the local APIC.
 * A request while LVTPC is masked is not delivered, as on hardware; it is counted.
 */
static void deliver_virtual_pmi(struct cpu_session *cs)
{
	uint32_t lvt = lapic_read(APIC_LVT_PMC);
	if (lvt & APIC_LVT_MASKED) {
		cs->virtual_pmis_masked++;
		return;
	}
	lapic_write(APIC_LVT_PMC, lvt | APIC_LVT_MASKED);
	cs->virtual_pmis++;
	/* An NMI to this CPU by its own APIC ID (as it came up: no APIC read per PMI), not the
	 * Self shorthand: "Self" is valid with fixed delivery only (SDM Vol. 3A 10.6.1, Table
	 * 10-3, valid ICR combinations). */
	if (lapic_pmi_as_nmi())
		lapic_send_ipi(this_cpu()->apic_id, APIC_DM_NMI, 0, APIC_DEST_NONE);
	else
		lapic_send_ipi(0, APIC_DM_FIXED, VEC_PMI, APIC_DEST_SELF);
}

/* The accesses of the instruction d (decoded from its bytes before it runs), from the
 * registers before it: the trap frame of the step that ended at it. */
static void predict_memory(struct cpu_session *cs, const struct x86_decoded *d,
			   const struct trap_frame *f)
{
	const struct x86_insn *in = &d->insn;
	uint64_t ip = d->ip;
	cs->mem.ip = 0;
	struct x86_mem_use u = x86_mem_use_of(in);
	cs->mem_unknown += u.unknown;
	if (!u.load && !u.store)
		return;
	uint64_t fs = 0, gs = 0;
	if (in->prefixes & X86_PFX_SEG) {
		cpu_segment_bases(&fs, &gs);
	}
	struct x86_gprs g = trap_frame_gprs(f);
	cs->mem.ip = ip;
	cs->mem.load = u.load != X86_MEM_NONE;
	cs->mem.store = u.store != X86_MEM_NONE;
	cs->mem.load_addr = u.load ? x86_mem_address(in, &u, u.load, ip, &g, fs, gs) : 0;
	cs->mem.store_addr = u.store ? x86_mem_address(in, &u, u.store, ip, &g, fs, gs) : 0;
}

/* Region of interest (include/baretrace/user.h, option program.roi=marks): every facility
 * paused or resumed by its drivers (arch/x86/drivers/pause.h); a refusal fails the session. */
static void roi_said(struct cpu_session *cs, enum status st, uint32_t msr)
{
	struct trace_ctx *t = cs->ctx;
	if (st == STATUS_OK)
		return;
	const char *reason = pmu_last_refusal();
	tprintf("error: %s: roi: MSR %#x refused (#GP)%s%s\n", t->label, msr, *reason ? ": " : "",
		reason);
	t->ok = false;
}

static void roi_pause(struct cpu_session *cs)
{
	uint32_t msr = 0;
	if (cs->ctx)
		roi_said(cs, facility_pause(cs->ctx->caps, &cs->roi, &msr), msr);
}

static void roi_resume(struct cpu_session *cs)
{
	uint32_t msr = 0;
	if (cs->ctx)
		roi_said(cs, facility_resume(&cs->roi, &msr), msr);
}

/* The program's pending mark, if any: right after the instruction that made it. */
static void roi_apply(struct cpu_session *cs)
{
	uint8_t mark = cs->user->roi_pending;
	cs->user->roi_pending = USER_ROI_NONE;
	if (mark == USER_ROI_BEGIN)
		roi_resume(cs);
	else if (mark == USER_ROI_END)
		roi_pause(cs);
}

static void roi_now(void)
{
	roi_apply(here());
}

/* Intel SDE's SSC marks (its documentation, "Controlling the trace with SSC marks"): MOV EBX,
 * 0x111 or 0x222 then the 3-byte no-op 64 67 90 (FS: and address-size prefixes on NOP). */
#define SSC_NOP_BYTES 0x906764u /* 64 67 90, little-endian */
#define SSC_NOP_MASK  0xffffffu
#define SSC_START     0x111u
#define SSC_STOP      0x222u

/* One retired instruction (in, ending at next with registers f) seen for the region of
 * interest: an SSC mark is applied after it (roi_pending, as a system call's mark); a call or
 * jump to the function's entry resumes before it reaches the model (the branch into the
 * function is recorded), and the first ring 3 step whose RSP is above the entry's (the
 * outermost activation returned, or unwound past) pauses after it (the return is recorded). */
static void roi_watch(struct cpu_session *cs, const struct x86_decoded *in, uint64_t next,
		      const struct trap_frame *f)
{
	if (cs->watch_ssc && in && in->insn.length == 3 &&
	    (in->bytes[0] & SSC_NOP_MASK) == SSC_NOP_BYTES) {
		if ((uint32_t)f->rbx == SSC_START)
			cs->user->roi_pending = USER_ROI_BEGIN;
		else if ((uint32_t)f->rbx == SSC_STOP)
			cs->user->roi_pending = USER_ROI_END;
	}
	if (!cs->fn_entry || (f->cs & 3) != 3)
		return;
	if (!cs->fn_rsp && next == cs->fn_entry) {
		cs->fn_rsp = f->rsp;
		cs->watch = true;
		roi_resume(cs);
	} else if (cs->fn_rsp && f->rsp > cs->fn_rsp) {
		cs->fn_rsp = 0;
		cs->watch = cs->watch_ssc;
		cs->user->roi_pending = USER_ROI_END;
	}
}

/* One instruction to the model; what it asks of the runner (SPMU_FEED_*) but BTF's trap, which
 * is delivered here (after the instruction it follows). */
static inline __attribute__((always_inline)) unsigned
feed_one(struct spmu *m, struct cpu_session *cs, const struct spmu_feed_step *st)
{
	if (cs->drop_at && st->outcome == X86_STEP_TAKEN && ++cs->taken_seen == cs->drop_at)
		return 0; /* test only (option spmu.drop): this taken branch never happened */
	unsigned want = spmu_feed(m, st);
	if (want & SPMU_FEED_BTF_TRAP)
		cs->extra_step(cs->extra_ctx, st->retired, st->next);
	return want;
}

/*
 * One trap that stood for more than one instruction (st->next is not where st->retired leads):
 * the path between, rebuilt from the code (lib/x86_step.h), each instruction fed in order. The
 * registers of the instructions inside the path are gone: PEBS records written for them hold
 * those at its end, and their memory accesses are unknown (counted as mem-unknown while a
 * counter counts memory events). A path that cannot be rebuilt is fed as it is: lost.
 */
static __attribute__((noinline)) unsigned feed_rebuilt(struct spmu *m, struct cpu_session *cs,
						       const struct spmu_feed_step *st)
{
	struct x86_step_regs after = {st->frame->rflags & ~RFLAGS_TF, st->frame->rcx};
	struct x86_path_step path[X86_PATH_MAX];
	int n = arch_step_rebuild(st->retired, &st->insn, st->next, &after, path);
	if (n <= 0)
		return feed_one(m, cs, st);
	unsigned want = 0;
	for (int i = 0; i < n; i++) {
		struct spmu_feed_step p = *st;
		p.retired = path[i].ip;
		p.next = path[i].next;
		p.insn = path[i].insn;
		p.outcome = (enum x86_step_outcome)path[i].outcome;
		if (i + 1 < n)
			p.cpl_to = st->cpl_from; /* only the last may change rings */
		if (i > 0) {
			p.load = p.store = false;
			if (want & SPMU_FEED_MEMORY)
				cs->mem_unknown++;
		}
		want |= feed_one(m, cs, &p);
	}
	cs->rebuilt++;
	return want;
}

/* A step told whole to the model (spmu_feed): a branch, a data access, a counter that counts. */
static __attribute__((noinline)) void model_step_whole(struct spmu *m, uint64_t retired,
						       uint64_t next)
{
	struct cpu_session *cs = here();
	const struct x86_decoded *in, *upcoming;
	ss_step_decoded(&in, &upcoming);
	struct spmu_feed_step st; /* every field set: no zeroing (a REP STOS under QEMU's TCG) */
	st.retired = retired;
	st.next = next;
	st.insn = in->step;
	st.frame = ss_step_frame();
	st.btf_hook = cs->extra_step != NULL;
	struct x86_step_regs after = {st.frame->rflags & ~RFLAGS_TF, st.frame->rcx};
	st.outcome = x86_step_classify(&st.insn, retired, next, &after);
	bool mem = cs->mem.ip == retired;
	st.load = mem && cs->mem.load;
	st.store = mem && cs->mem.store;
	st.load_addr = mem ? cs->mem.load_addr : 0;
	st.store_addr = mem ? cs->mem.store_addr : 0;
	ss_step_cpls(&st.cpl_from, &st.cpl_to);
	if (cs->fn_entry || cs->watch_ssc)
		roi_watch(cs, in, next, st.frame);
	unsigned want =
	    st.outcome == X86_STEP_REDIRECTED ? feed_rebuilt(m, cs, &st) : feed_one(m, cs, &st);
	if (upcoming && (want & SPMU_FEED_MEMORY))
		predict_memory(cs, upcoming, st.frame);
	else
		cs->mem.ip = 0;
	if ((want & SPMU_FEED_LOST) && cs->lost++ == 0)
		cs->first_lost = retired;
	if (want & SPMU_FEED_PMI)
		deliver_virtual_pmi(cs);
	if (cs->user->roi_pending)
		roi_apply(cs);
}

/* A plain step (x86_step_plain: no branch, on to the next instruction; ss_hooks.plain): the
 * short way when there is no data access to report and nothing else due (BTF, a
 * region-of-interest mark, option spmu.drop), and the model's short way (spmu_feed_plain) asks
 * for nothing more; then the next step has no accesses to report either. */
TRAP_STEP_HOT static bool model_plain(void *ctx)
{
	const struct cpu_session *cs = here();
	return !cs->mem.ip && !cs->extra_step && !cs->drop_at && !cs->user->roi_pending &&
	       !cs->watch && spmu_feed_plain(ctx);
}

/* Per-block stepping (ss_hooks.plain_room): plain steps in a row the model may take at once,
 * none while anything model_plain or model_step_whole does per step is due. */
static uint64_t model_plain_room(void *ctx, unsigned cpl)
{
	const struct cpu_session *cs = here();
	if (cs->mem.ip || cs->extra_step || cs->user->roi_pending)
		return 0;
	return spmu_plain_room(ctx, cpl);
}

static void model_plain_n(void *ctx, uint64_t n, unsigned cpl)
{
	spmu_feed_plain_n(ctx, n, cpl);
}

/* Per-block stepping's short way (ss_hooks.block_branch): a block and the branch that ends it,
 * where model_step_whole would have nothing but spmu_feed to do for that branch (the
 * conditions of model_plain's short way, model_plain_room's too) and the model nothing to ask
 * (spmu_feed_block). */
static bool block_whole(void)
{
	const struct cpu_session *cs = here();
	return !cs->mem.ip && !cs->extra_step && !cs->drop_at && !cs->user->roi_pending &&
	       !cs->watch && !cs->fn_entry && !cs->watch_ssc;
}

static bool model_block_branch(void *ctx, const struct run_with_branch *b)
{
	if (!block_whole())
		return false;
	return spmu_feed_block(ctx, b);
}

/* The code cache (ss_hooks.runs_room): runs as model_plain_n and model_block_branch take them,
 * under the same conditions, checked before they run. */
static bool model_runs_room(void *ctx, unsigned cpl, uint64_t steps, uint64_t runs)
{
	return block_whole() && model_plain_room(ctx, cpl) >= steps &&
	       spmu_feed_runs_room(ctx, cpl, steps, runs);
}

static bool model_runs_feed(void *ctx, const struct run_with_branch *r, size_t k)
{
	return spmu_feed_runs(ctx, r, k);
}

/* Counted loops (ss_hooks.loop_room, loop_n): the runs of a loop as model_block_branch takes
 * one block, under the same conditions, checked before the loop runs (nothing the session does
 * per step can come due while it does: no step of it reaches the session). */
static bool model_loop_room(void *ctx, const struct run_with_branch *b, uint64_t iterations)
{
	if (!block_whole())
		return false;
	return spmu_feed_loop_room(ctx, b, iterations);
}

static void model_loop_n(void *ctx, const struct run_with_branch *b, uint64_t iterations)
{
	spmu_feed_loop(ctx, b, iterations);
}

/* Feed the model from the single-step engine: every retired instruction, every taken branch
 * (most plain steps come to model_plain instead). */
TRAP_STEP_HOT static void model_step(void *ctx, uint64_t retired, uint64_t next)
{
	const struct x86_decoded *in, *upcoming; /* the engine's (ss_hooks.cache = cs->cache) */
	ss_step_decoded(&in, &upcoming);
	if (!in)
		return; /* the engine's own check (kernel/sstrace.c) reports undecodable steps */
	if (x86_step_plain(&in->step, retired, next) && model_plain(ctx))
		return;
	model_step_whole(ctx, retired, next);
}

/* An exception's delivery or its handler's return, as the engine saw it: recorded by the model. */
static void model_transfer(void *ctx, uint64_t from, uint64_t to, bool delivery)
{
	struct spmu_feed_transfer t = {.from = from, .to = to, .delivery = delivery};
	ss_step_cpls(&t.cpl_from, &t.cpl_to);
	if (spmu_feed_transfer(ctx, &t) & SPMU_FEED_PMI)
		deliver_virtual_pmi(here());
}

/* The hardware's own #DB per step (BTF on silicon): the session's hook sees each one. */
static void hardware_step(void *ctx, uint64_t retired, uint64_t next)
{
	(void)ctx;
	struct cpu_session *cs = here();
	if (cs->fn_entry || cs->watch_ssc) {
		const struct x86_decoded *in, *upcoming;
		ss_step_decoded(&in, &upcoming);
		roi_watch(cs, in, next, ss_step_frame());
	}
	if (cs->extra_step)
		cs->extra_step(cs->extra_ctx, retired, next);
	if (cs->user->roi_pending)
		roi_apply(cs);
}

void ts_set_step_hook(ss_step_fn fn, void *ctx)
{
	here()->extra_step = fn;
	here()->extra_ctx = ctx;
}

/* What the single-step engine could not follow in the run (ss_result): each an error that fails
 * the session. */
static void report_engine(struct trace_ctx *t, const struct ss_result *res)
{
	if (res->dr_refused_at) {
		tprintf("error: %s: the workload arms debug-register breakpoints of its own "
			"(the MOV to a debug register at %#lx): refused, they were disarmed "
			"(the single-step engine does not step beside them)\n",
			t->label, res->dr_refused_at);
		t->ok = false;
	}
	if (res->block_changed_at) {
		tprintf("error: %s: the code at %#lx changed while it ran at full speed, "
			"after a store before it: what ran there is not known (option "
			"ss.block=off steps it)\n",
			t->label, res->block_changed_at);
		t->ok = false;
	}
	if (res->loop_lost_at) {
		tprintf("error: %s: the counted loop at %#lx stopped where its counter does "
			"not say how many runs it made: they are not accounted (option "
			"ss.block=off steps it)\n",
			t->label, res->loop_lost_at);
		t->ok = false;
	}
	if (res->xl.changed) {
		tprintf("error: %s: ring 0 code changed while it ran translated (option ss.xlate), "
			"%lu times: what ran there is not known (option ss.xlate=off runs it per "
			"block)\n",
			t->label, res->xl.changed);
		t->ok = false;
	}
	if (res->xl.refused || res->xl.lost_at) {
		tprintf("error: %s: translated code (option ss.xlate): %lu runs the software PMU "
			"refused after promising room for them, an interrupt or exception at %#lx "
			"not taken back to the original code: the records are not whole (option "
			"ss.xlate=off runs a trap per block)\n",
			t->label, res->xl.refused, res->xl.lost_at);
		t->ok = false;
	}
	if (res->escaped_at) {
		tprintf("error: %s: no single-step trap came after the instruction at %#lx: "
			"the workload ran on unseen, the capture ended early\n",
			t->label, res->escaped_at);
		t->ok = false;
	}
}

void ts_run_prepare(void)
{
	if (here()->cache)
		memset(here()->cache, 0, X86_DECODE_CACHE_SIZE * sizeof(struct x86_decoded));
}

uint64_t ts_run(struct trace_ctx *t, bool interrupts, uint64_t *steps)
{
	struct cpu_session *cs = here();
	const struct trace_request *q = t->req;
	*steps = 0;
	cs->nexc = cs->exc_lost = 0;
	cs->virtual_pmis = cs->virtual_pmis_masked = 0;
	cs->lost = cs->first_lost = 0;
	cs->rebuilt = 0;
	cs->mem.ip = 0;
	cs->mem_unknown = 0;
	cs->drop_at = t->model ? q->opt->spmu_drop : 0;
	cs->taken_seen = 0;
	if (q->reset)
		q->reset();
	cs->ctx = t;
	cs->roi.paused = false;
	bool roi = cs->user->active && (cs->user->roi_marks || cs->user->roi_function);
	if (roi)
		roi_pause(cs); /* until the program's first mark, or the function's entry */
	cs->watch_ssc = roi && cs->user->roi_marks;
	cs->fn_entry = roi ? cs->user->roi_function : 0;
	cs->fn_rsp = 0;
	cs->watch = cs->watch_ssc;
	uint64_t r;
	if (!t->model && !cs->extra_step && (cs->watch_ssc || cs->fn_entry))
		tprintf("warning: %s: the program runs unstepped on the hardware: SSC marks and "
			"program.roi=function are not seen (only its own system call marks are); "
			"the software PMU (spmu=) sees them\n",
			t->label);
	if (!t->model && !cs->extra_step) {
		cs->user->roi_now = roi_now; /* no step hook to apply the marks */
		if (interrupts)
			__asm__ volatile("sti");
		r = q->fn(q->arg); /* the hardware records by itself */
		__asm__ volatile("cli");
		cs->user->roi_now = NULL;
	} else {
		struct ss_result res;
		struct ss_hooks h = {t->model ? model_step : hardware_step,
				     t->model ? model_transfer : NULL,
				     t->model,
				     t->model ? cs->cache : NULL,
				     t->model ? model_plain : NULL,
				     model_plain_room,
				     model_plain_n,
				     t->model ? model_block_branch : NULL,
				     t->model ? model_loop_room : NULL,
				     t->model ? model_loop_n : NULL,
				     t->model ? model_runs_room : NULL,
				     t->model ? model_runs_feed : NULL};
		ss_run(q->fn, q->arg, &h, interrupts, &res);
		*steps = res.steps;
		if (ss_count_traps)
			tprintf("ss-stats %s steps=%lu traps=%lu blocks=%lu loops=%lu chains=%lu "
				"decoded=%lu trap-cycles=%lu xlate-entries=%lu handbacks=%lu "
				"handback-cycles=%lu cuts=%lu misses=%lu full=%lu translated=%lu "
				"restarts=%lu\n",
				t->label, res.steps, res.traps, res.blocks, res.loops, res.chains,
				res.decoded, res.trap_cycles, res.xl.entries, res.xl.handbacks,
				res.xl.cycles, res.xl.cuts, res.xl.misses, res.xl.full,
				res.xl.translated, res.xl.restarts);
		r = res.retval;
		if (ss_xlate_map_on)
			ss_xlate_say_map(tprintf);
		report_engine(t, &res);
	}
	roi_resume(cs); /* the session's own stop sequence finds its bits as it set them */
	cs->watch = cs->watch_ssc = false;
	cs->fn_entry = cs->fn_rsp = 0;
	cs->ctx = 0;
	if (q->done)
		q->done(tprintf);
	if (cs->rebuilt)
		tprintf(
		    "trace: %s: %lu trap(s) stood for more than one instruction: the path of "
		    "each was rebuilt from the code (inside one, PEBS records hold the registers "
		    "at its end)\n",
		    t->label, cs->rebuilt);
	if (cs->lost) {
		tprintf("error: %s: the path between two traps could not be followed %lu time(s), "
			"first after the instruction at %#lx: records may be missing\n",
			t->label, cs->lost, cs->first_lost);
		t->ok = false;
	}
	if (r != q->expect) {
		tprintf("error: %s: workload returned %lu, expected %lu\n", t->label, r, q->expect);
		t->ok = false;
	}
	return r;
}

void *ts_scratch(uint64_t *bytes)
{
	*bytes = here()->scratch_pages * PAGE_SIZE;
	return here()->scratch;
}

uint64_t ts_mem_unknown(void)
{
	return here()->mem_unknown;
}

uint64_t ts_virtual_pmis(uint64_t *masked)
{
	*masked = here()->virtual_pmis_masked;
	return here()->virtual_pmis;
}

/* Called for every exception a workload takes (arch/x86/cpu/trap.c): its last exception record. */
void trace_note_exception(struct trap_frame *f)
{
	struct cpu_session *cs = here();
	if (!cs->ctx || f->vector >= NUM_EXCEPTION_VECTORS || f->vector == VEC_NMI)
		return; /* interrupts, and PMIs delivered as NMI, are not the workload's */
	if (cs->nexc == SESSION_EXCEPTIONS) {
		cs->exc_lost++;
		return;
	}
	struct exception_seen *e = &cs->exc[cs->nexc++];
	e->vector = (uint32_t)f->vector;
	e->rip = f->rip;
	uint32_t msr;
	if (ler_read(&e->ler_from, &e->ler_to, &msr) != STATUS_OK)
		e->ler_from = e->ler_to = 0;
}

void ts_print_exceptions(struct trace_ctx *t)
{
	struct cpu_session *cs = here();
	for (unsigned i = 0; i < cs->nexc; i++)
		tprintf("exception vector=%u rip=%#lx ler %#lx %#lx\n", cs->exc[i].vector,
			cs->exc[i].rip, cs->exc[i].ler_from, cs->exc[i].ler_to);
	if (cs->exc_lost) {
		tprintf("error: %s: %u exceptions not recorded (room for %d)\n", t->label,
			cs->exc_lost, SESSION_EXCEPTIONS);
		t->ok = false;
	}
}

void ts_skip(struct trace_ctx *t, const char *facility, const char *reason)
{
	tprintf("SKIP: %s: %s: %s\n", facility, t->label, reason);
	t->skipped = true;
}

/* What the boot keeps free for later, with `free` pages free now. */
static uint64_t reserve_pages(uint64_t free)
{
	uint64_t share = free / STORE_RESERVE_SHARE;
	return share < STORE_RESERVE_PAGES ? share : STORE_RESERVE_PAGES;
}

/* Circular BTS keeps only what its buffer holds (SDM Vol. 3B 17.4.9.3: "the BTS buffer is
 * treated as a circular buffer"), so by default (bts.records=0 with trace=bts) its buffer is
 * sized from the machine, as the store is: this share of what each traced CPU has spare. */
#define BTS_CIRCULAR_SHARE_NUM 3 /* three quarters: the store hands records on as it fills */
#define BTS_CIRCULAR_SHARE_DEN 4
static uint64_t bts_default_records = BTS_CIRCULAR_RECORDS; /* ts_size_defaults */

void ts_size_defaults(const struct trace_options *o, unsigned cpus, uint64_t other_pages)
{
	bts_default_records = BTS_CIRCULAR_RECORDS;
	if (o->bts_records || !o->bts_circular)
		return;
	other_pages += ts_cpu_pages(o); /* with the floor's buffer */
	cpus = cpus ? cpus : 1;
	uint64_t free = memory_allocator()->free_pages, reserve = reserve_pages(free);
	uint64_t per_cpu = free > reserve ? (free - reserve) / cpus : 0;
	per_cpu = per_cpu > other_pages ? per_cpu - other_pages : 0;
	/* each CPU's share, and its buffer in one piece: a CPU's share of the largest run */
	uint64_t pages = per_cpu / BTS_CIRCULAR_SHARE_DEN * BTS_CIRCULAR_SHARE_NUM;
	uint64_t run = pmm_largest_run(memory_allocator()) / cpus;
	uint64_t records = (pages < run ? pages : run) * PAGE_SIZE / sizeof(struct bts_record);
	if (records > BTS_CIRCULAR_RECORDS)
		bts_default_records = records;
}

static uint64_t bts_buffer_bytes(const struct trace_options *o)
{
	uint64_t records = o->bts_records ? o->bts_records : bts_default_records;
	if (o->btsint_records > records)
		records = o->btsint_records;
	return records * sizeof(struct bts_record);
}

static uint64_t pages_of(uint64_t bytes)
{
	return (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
}

/* A long program run's progress line (user_progress_beat, every USER_BEAT_S seconds): how long,
 * the instructions stepped and the records kept so far. The runner reads it as a run that goes
 * on (scripts/run: no line for its --stall seconds is a hang). */
static void progress_beat(uint64_t seconds)
{
	const struct cpu_session *cs = here();
	unsigned cpu = this_cpu()->index;
	if (cs->ctx)
		tprintf_interrupt("progress: %s: running for %lu s, %lu instructions stepped, %lu "
				  "records kept\n",
				  cs->ctx->label, seconds, ss_steps_of(cpu),
				  capture_records_kept(cpu));
}

/* Boot CPU: memory for CPU `cpu` (the page allocator is not shared between CPUs): everything
 * but the store. */
bool ts_prepare_cpu(unsigned cpu, const struct trace_options *o)
{
	struct cpu_session *cs = &cpu_sessions[cpu];
	cs->user = &user_runs[cpu];
	user_progress_beat = progress_beat;
	if (!pmu_backend_ready(cpu))
		return false;
	if (!cs->cache) {
		uint64_t pa = page_alloc(DECODE_CACHE_PAGES);
		if (!pa)
			return false;
		cs->cache = arch_phys_to_virt(pa);
	}
	return trace_out_prepare(cpu) &&
	       ds_area_prepare(cpu, bts_buffer_bytes(o), o->pebs_kib * 1024);
}

uint64_t ts_cpu_pages(const struct trace_options *o)
{
	return DECODE_CACHE_PAGES + TRACE_OUT_PAGES + pages_of(bts_buffer_bytes(o)) +
	       pages_of(o->pebs_kib * 1024) + DS_AREA_PAGES;
}

uint64_t ts_reserve_pages(uint64_t free)
{
	return reserve_pages(free);
}

/* Boot CPU, once every traced CPU has its other buffers: CPU cpu's store, the trace.store KiB
 * asked for, else its share of what is free (one of `sharing` CPUs), in one piece. */
bool ts_prepare_store(unsigned cpu, const struct trace_options *o, unsigned sharing)
{
	struct cpu_session *cs = &cpu_sessions[cpu];
	if (cs->scratch)
		return true;
	struct pmm *m = memory_allocator();
	uint64_t pages = pages_of(o->store_kib * 1024);
	if (!o->store_kib) {
		uint64_t free = m->free_pages, spare = free - reserve_pages(free);
		pages = spare / (sharing ? sharing : 1);
		uint64_t run = pmm_largest_run(m);
		pages = pages > run ? run : pages;
		pages = pages < STORE_PAGES_MIN ? STORE_PAGES_MIN : pages;
	}
	uint64_t pa = page_alloc_uncleared(pages); /* records are written before they are read */
	if (!pa) {
		kprintf("error: trace: no %lu KiB in one piece for CPU %u's store of records "
			"(trace.store)\n",
			pages * PAGE_SIZE / 1024, cpu);
		return false;
	}
	cs->scratch = arch_phys_to_virt(pa);
	cs->scratch_pages = pages;
	kprintf("trace: CPU %u: a store of %lu KiB for the records of a run (trace.store%s)\n", cpu,
		pages * PAGE_SIZE / 1024, o->store_kib ? "" : "=0: its share of free memory");
	return true;
}
