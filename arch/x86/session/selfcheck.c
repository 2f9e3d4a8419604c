/* SPDX-License-Identifier: MIT */
/* Captures checked against the workload's branch signature (selfcheck.h). */
#include "arch/x86/session/selfcheck.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/session/session.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "lib/x86_decode.h"

#define SELFCHECK_LINE 224

static struct {
	enum selfcheck_verdict verdict;
	char line[SELFCHECK_LINE];
} results[MAX_CPUS];

static const char *const class_names[WL_CLASSES] = {
    [WL_COND] = "cond",		[WL_JMP] = "jmp", [WL_IND_JMP] = "ind-jmp", [WL_CALL] = "call",
    [WL_IND_CALL] = "ind-call", [WL_RET] = "ret", [WL_FAR] = "far",
};

/* The signature's class of a branch kind; WL_CLASSES for no branch. */
static unsigned class_of(enum x86_branch_kind k)
{
	switch (k) {
	case X86_BR_JCC:
	case X86_BR_JCXZ_LOOP:
		return WL_COND;
	case X86_BR_JMP_REL:
		return WL_JMP;
	case X86_BR_JMP_IND:
		return WL_IND_JMP;
	case X86_BR_CALL_REL:
		return WL_CALL;
	case X86_BR_CALL_IND:
		return WL_IND_CALL;
	case X86_BR_RET:
		return WL_RET;
	case X86_BR_NONE:
	case X86_BR_XBEGIN:
	case X86_BR_KIND_COUNT:
		return WL_CLASSES;
	default:
		return WL_FAR; /* far JMP/CALL/RET, INT n, SYSCALL/SYSRET, SYSENTER/SYSEXIT, IRET */
	}
}

static bool is_trap_stub(uint64_t to)
{
	for (unsigned v = 0; v < 256; v++)
		if (trap_stub_table[v] == to)
			return true;
	return false;
}

void selfcheck_begin(struct selfcheck *c, const struct trace_ctx *t)
{
	memset(c, 0, sizeof(*c));
	c->sig = t->req->signature;
}

void selfcheck_record(struct selfcheck *c, uint64_t from, uint64_t to)
{
	c->records++;
	if (!c->sig || !((from >= c->sig->code_lo && from < c->sig->code_hi) ||
			 (from >= c->sig->code2_lo && from < c->sig->code2_hi)))
		return;
	c->inside++;
	struct x86_insn in;
	if (usermode_decode_recorded(from, &in) != 0) {
		c->undecodable++;
		return;
	}
	unsigned k = class_of(in.branch);
	if (k == WL_CLASSES || is_trap_stub(to))
		c->deliveries++;
	else
		c->taken[k]++;
}

static void verdict(struct trace_ctx *t, enum selfcheck_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void verdict(struct trace_ctx *t, enum selfcheck_verdict v, const char *fmt, ...)
{
	unsigned cpu = this_cpu()->index;
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(results[cpu].line, SELFCHECK_LINE, fmt, ap);
	va_end(ap);
	results[cpu].verdict = v;
	if (v == SELFCHECK_FAIL)
		t->ok = false;
}

/* "cond 49 ret 1" for the classes the signature or the capture has. */
static void counts_text(const uint64_t *n, const struct workload_signature *s, char *out,
			unsigned size)
{
	unsigned at = 0;
	out[0] = 0;
	for (unsigned k = 0; k < WL_CLASSES && at < size; k++)
		if (n[k] || s->taken[k])
			at += (unsigned)fmt_snprintf(out + at, size - at, "%s%s %lu", at ? " " : "",
						     class_names[k], (unsigned long)n[k]);
}

static bool skipped(struct trace_ctx *t, const struct selfcheck *c, const char *facility,
		    const char *why_not)
{
	if (!c->sig) {
		verdict(t, SELFCHECK_NONE, "%s", "");
		return true;
	}
	if (why_not) {
		verdict(t, SELFCHECK_SKIP, "%s %s # SKIP %s", facility, t->label, why_not);
		return true;
	}
	if (c->undecodable) {
		verdict(t, SELFCHECK_FAIL, "%s %s: %lu records FROM undecodable bytes in the code",
			facility, t->label, (unsigned long)c->undecodable);
		return true;
	}
	return false;
}

void selfcheck_exact(struct trace_ctx *t, const struct selfcheck *c, const char *facility,
		     const char *why_not)
{
	if (skipped(t, c, facility, why_not))
		return;
	char got[96];
	counts_text(c->taken, c->sig, got, sizeof(got));
	for (unsigned k = 0; k < WL_CLASSES; k++)
		if (c->taken[k] != c->sig->taken[k]) {
			verdict(t, SELFCHECK_FAIL,
				"%s %s: %s branches: %lu recorded, the signature says %lu (%s)",
				facility, t->label, class_names[k], (unsigned long)c->taken[k],
				(unsigned long)c->sig->taken[k], got);
			return;
		}
	verdict(t, SELFCHECK_OK, "%s %s: the signature exactly (%s; %lu deliveries apart)",
		facility, t->label, got, (unsigned long)c->deliveries);
}

void selfcheck_window(struct trace_ctx *t, const struct selfcheck *c, const char *facility,
		      const char *why_not)
{
	if (skipped(t, c, facility, why_not))
		return;
	char got[96];
	counts_text(c->taken, c->sig, got, sizeof(got));
	uint64_t inside = 0;
	for (unsigned k = 0; k < WL_CLASSES; k++) {
		inside += c->taken[k];
		if (c->taken[k] > c->sig->taken[k]) {
			verdict(
			    t, SELFCHECK_FAIL,
			    "%s %s: %lu %s branches in the stack, the signature has only %lu (%s)",
			    facility, t->label, (unsigned long)c->taken[k], class_names[k],
			    (unsigned long)c->sig->taken[k], got);
			return;
		}
	}
	if (!inside) {
		verdict(t, SELFCHECK_FAIL,
			"%s %s: none of the %lu entries is a branch of the workload", facility,
			t->label, (unsigned long)c->records);
		return;
	}
	verdict(t, SELFCHECK_OK, "%s %s: %lu newest entries within the signature (%s)", facility,
		t->label, (unsigned long)inside, got);
}

void selfcheck_samples(struct trace_ctx *t, const struct selfcheck *c, const char *facility,
		       uint64_t every, const char *why_not)
{
	if (skipped(t, c, facility, why_not))
		return;
	uint64_t insns = c->sig->instructions;
	uint64_t lo = insns / every, hi = (insns + every - 1) / every;
	lo = lo ? lo - 1 : 0; /* a trap-like IP past the last instruction */
	if (c->inside < lo || c->inside > hi) {
		verdict(
		    t, SELFCHECK_FAIL,
		    "%s %s: %lu samples in the code, %lu instructions every %lu allow %lu to %lu",
		    facility, t->label, (unsigned long)c->inside, (unsigned long)insns,
		    (unsigned long)every, (unsigned long)lo, (unsigned long)hi);
		return;
	}
	verdict(t, SELFCHECK_OK,
		"%s %s: %lu samples in the code, as %lu instructions every %lu allow", facility,
		t->label, (unsigned long)c->inside, (unsigned long)insns, (unsigned long)every);
}

enum selfcheck_verdict selfcheck_take(unsigned cpu, char *line, unsigned size)
{
	enum selfcheck_verdict v = results[cpu].verdict;
	fmt_snprintf(line, size, "%s", results[cpu].line);
	results[cpu].verdict = SELFCHECK_NONE;
	return v;
}
