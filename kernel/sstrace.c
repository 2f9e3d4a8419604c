/* SPDX-License-Identifier: MIT */
#include "kernel/sstrace.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_step.h"
#include "kernel/arch_workloads.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "kernel/workloads.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "lib/x86_decode.h"
#include "lib/x86_decode_cache.h"
#include "lib/x86_step.h"

#define SSTRACE_MAX_BRANCHES 16384

struct branch_rec {
	uint64_t from, to;
};

struct sstrace {
	struct branch_rec recs[SSTRACE_MAX_BRANCHES];
	unsigned count;
	uint64_t dropped;	   /* branches beyond the buffer: counted, never silently lost */
	uint64_t undecodable;	   /* retired instructions the decoder refused */
	uint64_t redirected;	   /* went somewhere its instruction cannot lead, and the path
				    * there could not be rebuilt: not followed */
	uint64_t first_redirected; /* the first such instruction's address */
	bool count_only;	   /* bench: branches counted, not kept */
};

static struct sstrace trace;
/* The workload's instructions, each decoded from its bytes before it ran: from the page
 * allocator at the first run (not in the kernel's image, which the loader must place whole). */
static struct x86_decoded *decoded;

static void record(struct sstrace *t, uint64_t from, uint64_t to)
{
	if (t->count == SSTRACE_MAX_BRANCHES || t->count_only) {
		t->dropped++; /* bench runs count the branches they see, and keep none */
		return;
	}
	t->recs[t->count].from = from;
	t->recs[t->count].to = to;
	t->count++;
}

/* A trap that stood for more than one instruction: the branches on the path it covered,
 * rebuilt from the code; a path that cannot be rebuilt is said (trace_one). */
static void rebuilt(struct sstrace *t, uint64_t retired, const struct x86_step_insn *si,
		    uint64_t next, const struct x86_step_regs *r)
{
	struct x86_path_step path[X86_PATH_MAX];
	int n = arch_step_rebuild(retired, si, next, r, path);
	if (n <= 0) {
		if (t->redirected++ == 0)
			t->first_redirected = retired;
		return;
	}
	for (int i = 0; i < n; i++)
		if (path[i].outcome == X86_STEP_TAKEN)
			record(t, path[i].ip, path[i].next);
}

/* What the trap after `retired` says, from the instruction's semantics (lib/x86_step.h), as
 * it was decoded before it ran (code may rewrite itself); then `next`, about to run, is
 * decoded (or its cached decoding checked against its bytes) for the following step. */
static void on_step(void *ctx, uint64_t retired, uint64_t next)
{
	struct sstrace *t = ctx;
	const struct x86_decoded *in, *upcoming;
	arch_step_decoded(&in, &upcoming);
	if (!in) {
		t->undecodable++;
		return;
	}
	if (x86_step_plain(&in->step, retired, next))
		return; /* no branch, no record (x86_step_classify; most never come here,
			   arch_step.h) */
	struct x86_step_regs r;
	arch_step_regs(&r.rflags, &r.rcx);
	enum x86_step_outcome o = x86_step_classify(&in->step, retired, next, &r);
	if (o == X86_STEP_TAKEN)
		record(t, retired, next);
	else if (o == X86_STEP_REDIRECTED)
		rebuilt(t, retired, &in->step, next, &r);
}

/* A counted loop's Jcc, taken `runs` times back (arch_single_step): a record each. */
static void on_loop(void *ctx, uint64_t from, uint64_t to, uint64_t runs)
{
	for (uint64_t i = 0; i < runs; i++)
		record(ctx, from, to);
}

/* An exception's delivery or its handler's return: recorded as BTS would. */
static void on_transfer(void *ctx, uint64_t from, uint64_t to, bool delivery)
{
	(void)delivery; /* both are records alike */
	record(ctx, from, to);
}

static bool trace_one(const struct workload *w, void *ctx)
{
	uint64_t arg = workload_arg(w, ctx);
	if (w->reset)
		w->reset();
	uint64_t plain = w->fn(arg);
	if (w->done)
		w->done(NULL);
	if (w->reset)
		w->reset();
	if (w->bench) {
		kprintf("ss-floor %s tsc-cycles=%lu\n", w->name, arch_step_floor(w->fn, arg));
		struct arch_bp_cost bp;
		arch_step_bp_cost(arg, &bp);
		kprintf("ss-floor-breakpoint iterations=%lu insns=%u plain=%lu same-page=%lu "
			"hit=%lu\n",
			arg, ARCH_BP_LOOP_INSNS, bp.plain, bp.same_page, bp.hit);
		if (w->reset)
			w->reset();
	}
	memset(&trace, 0, sizeof(trace));
	if (!decoded)
		decoded = page_alloc_virt(X86_DECODE_CACHE_SIZE * sizeof(*decoded));
	if (!decoded) {
		kprintf("error: ss %s: no memory for the decode cache\n", w->name);
		return false;
	}
	memset(decoded, 0, X86_DECODE_CACHE_SIZE * sizeof(*decoded));
	trace.count_only = w->bench;
	struct arch_step_counts n;
	uint64_t t0 = arch_timestamp();
	const struct arch_step_hooks h = {.on_step = on_step,
					  .on_transfer = w->bench ? NULL : on_transfer,
					  .on_loop = on_loop,
					  .ctx = &trace,
					  .cache = decoded};
	uint64_t stepped = arch_single_step(w->fn, arg, &h, &n);
	uint64_t cycles = arch_timestamp() - t0;
	uint64_t escaped = n.escaped_at;
	if (w->done)
		w->done(kprintf);
	uint64_t expect = w->expect_native ? plain : workload_expect(w, arg);
	bool ok = plain == expect && stepped == expect && trace.undecodable == 0 &&
		  trace.redirected == 0 && escaped == 0 && n.dr_refused_at == 0 &&
		  n.block_changed_at == 0 && n.loop_lost_at == 0;
	kprintf("ss-begin %s steps=%lu branches=%u dropped=%lu undecodable=%lu result=%lu "
		"expected=%lu rep-iterations=%lu redirected=%lu rebuilt=%lu tsc-cycles=%lu\n",
		w->name, n.steps, trace.count, trace.dropped, trace.undecodable, stepped, expect,
		n.rep_iterations, trace.redirected, n.rebuilt, cycles);
	if (trace.redirected)
		kprintf("error: ss: %s: the path between two traps could not be followed %lu "
			"time(s), first after the instruction at %#lx: branches may be missing\n",
			w->name, trace.redirected, trace.first_redirected);
	if (n.dr_refused_at)
		kprintf(
		    "error: ss: %s: the workload arms debug-register breakpoints of its own (the "
		    "MOV to a debug register at %#lx): refused, they were disarmed (the "
		    "single-step engine does not step beside them)\n",
		    w->name, n.dr_refused_at);
	if (n.block_changed_at)
		kprintf("error: ss: %s: the code at %#lx changed while it ran at full speed, after "
			"a store before it: what ran there is not known (option ss.block=off steps "
			"it)\n",
			w->name, n.block_changed_at);
	if (n.loop_lost_at)
		kprintf(
		    "error: ss: %s: the counted loop at %#lx stopped where its counter does not "
		    "say how many runs it made: they are not accounted (option ss.block=off "
		    "steps it)\n",
		    w->name, n.loop_lost_at);
	if (escaped)
		kprintf(
		    "error: ss: %s: no single-step trap came after the instruction at %#lx: the "
		    "workload ran on unseen, the trace ended early\n",
		    w->name, escaped);
	if (w->signature) { /* what its source says, for the host to hold against QEMU's log */
		struct workload_signature s;
		w->signature(arg, &s);
		kprintf(
		    "ss-signature %s code=%#lx-%#lx code2=%#lx-%#lx cond=%lu jmp=%lu ind-jmp=%lu "
		    "call=%lu ind-call=%lu ret=%lu far=%lu instructions=%lu\n",
		    w->name, s.code_lo, s.code_hi, s.code2_lo, s.code2_hi, s.taken[WL_COND],
		    s.taken[WL_JMP], s.taken[WL_IND_JMP], s.taken[WL_CALL], s.taken[WL_IND_CALL],
		    s.taken[WL_RET], s.taken[WL_FAR], s.instructions);
	}
	for (unsigned i = 0; i < trace.count; i++)
		kprintf("ss-branch %#lx %#lx\n", trace.recs[i].from, trace.recs[i].to);
	kprintf("ss-end %s %s\n", w->name, ok ? "ok" : "MISMATCH");
	/* per-block stepping (ss.block): blocks, of them counted loops and chains (arm_chain) */
	kprintf("ss-blocks %s %lu loops=%lu chains=%lu\n", w->name, n.blocks, n.loops, n.chains);
	return ok;
}

bool sstrace_run(const struct cfg_list *selection, const struct kernel_options *o)
{
	kprintf("ss: workload range [%p, %p)\n", (const void *)__workload_start,
		(const void *)__workload_end);
	return workload_for_each(selection, trace_one, (void *)o);
}
