/* SPDX-License-Identifier: MIT */
/*
 * btdecode's call-stack views, rebuilt from the branches (each record's kind decoded from the
 * ELF's code at its FROM, or Arch LBR's BR_TYPE):
 *   folded  "root;caller;callee COUNT" lines for flame graphs (flamegraph.pl, speedscope,
 *           inferno): each branch counts once for the stack it was taken from
 *   trace   Chrome trace-event JSON (the "JSON Object Format": traceEvents with B/E duration
 *           events and M metadata) that Perfetto's UI and chrome://tracing open: one track per
 *           session (pid = CPU, tid = session number), ts = the record's time in us (from its
 *           TSC and the capture's tsc-khz, struct bt_session: timed; a stream of format
 *           version 1 has none, and ts is then the record's index in its session)
 *
 * The rules: a call (near, far, INT, SYSCALL, SYSENTER) or an interrupt or exception (a record
 * whose FROM cannot branch: delivery) pushes the target's function; a return (near, far, IRET,
 * SYSRET, SYSEXIT) pops, and if what it returns into is not the caller on the stack (the trace
 * started inside it) that function takes the caller's place; a jump into another function is a
 * tail call and replaces the top. A function is its symbol (no ELF: the address). An LBR
 * snapshot (newest first, indexes rising) is replayed oldest first on a stack of its own.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tools/btdecode.h"

#define MAX_DEPTH   128
#define MAX_CPUS    256
#define NAME_MAX_   256
#define FOLD_SLOTS0 1024

struct stack {
	uint64_t fn[MAX_DEPTH];	 /* function starts (or addresses without symbols) */
	unsigned depth, dropped; /* dropped: frames below fn[0] lost to MAX_DEPTH */
	bool open;		 /* trace: a B is out for every frame */
};

struct calls_cpu {
	struct stack st;
	struct bt_lbr snap[BT_PAYLOAD_MAX];
	unsigned snap_n;
	uint64_t snap_first; /* the ts of the snapshot's newest entry */
	uint64_t last_ts;    /* the last record's ts, in ns (timed records) */
	char root[2 * BT_NAME_MAX + 2];
};

static struct calls_cpu *cc; /* MAX_CPUS of them, allocated on first use */
static bool tracing;	     /* trace rather than folded */
static bool first_event;

/* ---- folded: stack string -> count ------------------------------------------------------ */

struct fold {
	char *stack;
	uint64_t count;
};
static struct fold *folds;
static size_t fold_slots, fold_used;

static size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void fold_add(const char *stack, uint64_t n);

static void fold_grow(void)
{
	struct fold *old = folds;
	size_t slots = fold_slots;
	fold_slots = slots ? 2 * slots : FOLD_SLOTS0;
	folds = calloc(fold_slots, sizeof(*folds));
	if (!folds) {
		fprintf(stderr, "btdecode: out of memory for the folded stacks\n");
		exit(2);
	}
	fold_used = 0;
	for (size_t i = 0; i < slots; i++)
		if (old[i].stack) {
			fold_add(old[i].stack, old[i].count);
			free(old[i].stack);
		}
	free(old);
}

static void fold_add(const char *stack, uint64_t n)
{
	if (2 * (fold_used + 1) > fold_slots)
		fold_grow();
	for (size_t i = str_hash(stack) & (fold_slots - 1);; i = (i + 1) & (fold_slots - 1)) {
		if (!folds[i].stack) {
			folds[i].stack = strdup(stack);
			folds[i].count = n;
			fold_used++;
			return;
		}
		if (!strcmp(folds[i].stack, stack)) {
			folds[i].count += n;
			return;
		}
	}
}

/* A function's name for a frame; ';' and spaces would break the folded format. */
static const char *frame_name(uint64_t fn, char *buf, size_t size)
{
	bt_sym_name(fn, buf, size);
	for (char *p = buf; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	return buf;
}

static void fold_sample(const struct calls_cpu *c)
{
	static char line[MAX_DEPTH * (NAME_MAX_ + 1) + 2 * BT_NAME_MAX + 16];
	char name[NAME_MAX_];
	size_t len = (size_t)snprintf(line, sizeof(line), "%s", c->root);
	if (c->st.dropped)
		len += (size_t)snprintf(line + len, sizeof(line) - len, ";[%u frames lost]",
					c->st.dropped);
	for (unsigned i = 0; i < c->st.depth && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, ";%s",
					frame_name(c->st.fn[i], name, sizeof(name)));
	fold_add(line, 1);
}

/* ---- trace events ----------------------------------------------------------------------- */

static bool ts_ns; /* the ts being written are ns (else record indexes) */

/* "ts": microseconds (Chrome's unit) from ns, or the record index. */
static void put_ts(uint64_t ts)
{
	if (ts_ns)
		fprintf(out_records, ",\"ts\":%" PRIu64 ".%03u", ts / 1000, (unsigned)(ts % 1000));
	else
		fprintf(out_records, ",\"ts\":%" PRIu64, ts);
}

static void event(const char *ph, const struct bt_session *s, uint64_t fn, uint64_t ts)
{
	char name[NAME_MAX_];
	bt_sym_name(fn, name, sizeof(name));
	fprintf(out_records, "%s\n{\"name\":", first_event ? "" : ",");
	bt_json_str(name);
	fprintf(out_records, ",\"ph\":\"%s\",\"pid\":%u,\"tid\":%" PRIu32, ph, s->cpu, s->number);
	put_ts(ts);
	fputc('}', out_records);
	first_event = false;
}

/* ---- the stack -------------------------------------------------------------------------- */

static uint64_t function_of(uint64_t addr)
{
	struct bt_sym s;
	return bt_sym_lookup(addr, &s) ? addr - s.offset : addr;
}

static void push(struct calls_cpu *c, const struct bt_session *s, uint64_t fn, uint64_t ts)
{
	struct stack *st = &c->st;
	if (st->depth == MAX_DEPTH) {
		/* the oldest frame goes; its E comes now, so the slices stay nested */
		if (tracing)
			for (unsigned i = st->depth; i-- > 0;)
				event("E", s, st->fn[i], ts);
		memmove(st->fn, st->fn + 1, (MAX_DEPTH - 1) * sizeof(st->fn[0]));
		st->depth--;
		st->dropped++;
		if (tracing)
			for (unsigned i = 0; i < st->depth; i++)
				event("B", s, st->fn[i], ts);
	}
	st->fn[st->depth++] = fn;
	if (tracing)
		event("B", s, fn, ts);
}

static void pop(struct calls_cpu *c, const struct bt_session *s, uint64_t ts)
{
	struct stack *st = &c->st;
	if (!st->depth)
		return;
	st->depth--;
	if (tracing)
		event("E", s, st->fn[st->depth], ts);
}

static void clear(struct calls_cpu *c, const struct bt_session *s, uint64_t ts)
{
	while (c->st.depth)
		pop(c, s, ts);
	c->st.dropped = 0;
}

bool bt_kind_is_call(int k)
{
	return k == X86_BR_CALL_REL || k == X86_BR_CALL_IND || k == X86_BR_FAR_CALL ||
	       k == X86_BR_INT || k == X86_BR_SYSCALL || k == X86_BR_SYSENTER || k == X86_BR_NONE;
}

bool bt_kind_is_return(int k)
{
	return k == X86_BR_RET || k == X86_BR_FAR_RET || k == X86_BR_IRET || k == X86_BR_SYSRET ||
	       k == X86_BR_SYSEXIT;
}

/* One branch, taken from the top of the stack at ts (ns, or the record index). */
static void branch(struct calls_cpu *c, const struct bt_session *s, uint64_t from, uint64_t to,
		   int br_type, uint64_t ts)
{
	if (!c->st.depth)
		push(c, s, function_of(from), ts);
	if (!tracing)
		fold_sample(c);
	int k = bt_record_kind(from, br_type);
	uint64_t target = function_of(to);
	if (bt_kind_is_call(k)) {
		push(c, s, target, ts + 1);
	} else if (bt_kind_is_return(k)) {
		pop(c, s, ts + 1);
		if (!c->st.depth || c->st.fn[c->st.depth - 1] != target) {
			pop(c, s, ts + 1); /* returned into an unseen caller: it replaces the top */
			push(c, s, target, ts + 1);
		}
	} else if (c->st.fn[c->st.depth - 1] != target) {
		pop(c, s, ts + 1); /* a jump into another function: a tail call */
		push(c, s, target, ts + 1);
	}
}

static struct calls_cpu *cpu_of(const struct bt_session *s)
{
	if (!cc) {
		cc = calloc(MAX_CPUS, sizeof(*cc));
		if (!cc) {
			fprintf(stderr, "btdecode: out of memory\n");
			exit(2);
		}
	}
	return &cc[s->cpu % MAX_CPUS];
}

static void replay_snapshot(struct calls_cpu *c, const struct bt_session *s)
{
	clear(c, s, c->snap_first);
	for (unsigned i = c->snap_n; i-- > 0;)
		branch(c, s, c->snap[i].from, c->snap[i].to, c->snap[i].br_type,
		       c->snap_first + (c->snap_n - 1 - i));
	clear(c, s, c->snap_first + c->snap_n);
	c->snap_n = 0;
}

static void calls_begin(const struct bt_session *s)
{
	struct calls_cpu *c = cpu_of(s);
	c->st.depth = c->st.dropped = 0;
	c->snap_n = 0;
	snprintf(c->root, sizeof(c->root), "%s:%s", s->facility, s->name);
	for (char *p = c->root; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	if (tracing) {
		char label[2 * BT_NAME_MAX + 2];
		snprintf(label, sizeof(label), "%s %s", s->facility, s->name);
		fprintf(out_records,
			"%s\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%" PRIu32
			",\"args\":{\"name\":",
			first_event ? "" : ",", s->cpu, s->number);
		bt_json_str(label);
		fputs("}}", out_records);
		fprintf(out_records,
			",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":"
			"\"cpu %u\"}}",
			s->cpu, s->cpu);
		first_event = false;
	}
}

/* The current record's ts: its time in ns (never before the CPU's last: slices stay nested),
 * or without time its index. */
static uint64_t record_ts(struct calls_cpu *c, const struct bt_session *s)
{
	uint64_t ns;
	ts_ns = s->timed && bt_tsc_ns(s->tsc, &ns);
	if (!ts_ns)
		return s->records;
	c->last_ts = ns > c->last_ts ? ns : c->last_ts + 1;
	return c->last_ts;
}

static void calls_bts(const struct bt_session *s, const struct bt_bts *r)
{
	struct calls_cpu *c = cpu_of(s);
	branch(c, s, r->from, r->to, -1, record_ts(c, s));
}

static void calls_lbr(const struct bt_session *s, const struct bt_lbr *e)
{
	struct calls_cpu *c = cpu_of(s);
	if (c->snap_n && (e->index <= c->snap[c->snap_n - 1].index || c->snap_n == BT_PAYLOAD_MAX))
		replay_snapshot(c, s);
	if (!c->snap_n)
		c->snap_first = record_ts(c, s);
	c->snap[c->snap_n++] = *e;
}

/* A PEBS sample: an instant event on its session's track, named by its eventing IP's function
 * (the trace view; the folded view has no use for it). */
static void instant(const struct bt_session *s, uint64_t at, const char *ip_kind)
{
	if (!tracing)
		return;
	char name[NAME_MAX_];
	bt_sym_name(at, name, sizeof(name));
	fprintf(out_records, "%s\n{\"name\":", first_event ? "" : ",");
	bt_json_str(name);
	fprintf(out_records, ",\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%" PRIu32, s->cpu,
		s->number);
	put_ts(record_ts(cpu_of(s), s));
	fprintf(out_records, ",\"args\":{\"ev\":\"%#" PRIx64 "\"", at);
	if (ip_kind)
		fprintf(out_records, ",\"ip\":\"%s\"", ip_kind);
	fputs("}}", out_records);
	first_event = false;
}

static void calls_pebs(const struct bt_session *s, const struct bt_pebs *p)
{
	instant(s, p->ev, bt_pebs_ip_name(p->ip));
}

/* A counter sample or a BTF trap target: an instant event too. */
static void calls_sample(const struct bt_session *s, const struct bt_sample *x)
{
	instant(s, x->ip, NULL);
}

static void calls_end(const struct bt_session *s, const struct bt_session_end *e)
{
	(void)e;
	struct calls_cpu *c = cpu_of(s);
	if (c->snap_n)
		replay_snapshot(c, s);
	clear(c, s, record_ts(c, s) + 1);
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct fold *)a)->stack, ((const struct fold *)b)->stack);
}

static void folded_start(void)
{
	tracing = false;
	for (size_t i = 0; i < fold_slots; i++)
		free(folds[i].stack);
	free(folds);
	folds = NULL;
	fold_slots = fold_used = 0;
	free(cc);
	cc = NULL;
}

static void folded_finish(void)
{
	size_t n = 0;
	struct fold *sorted = malloc((fold_used ? fold_used : 1) * sizeof(*sorted));
	if (!sorted) {
		fprintf(stderr, "btdecode: out of memory for the folded stacks\n");
		exit(2);
	}
	for (size_t i = 0; i < fold_slots; i++)
		if (folds[i].stack)
			sorted[n++] = folds[i];
	if (n)
		qsort(sorted, n, sizeof(*sorted), by_stack);
	for (size_t i = 0; i < n; i++)
		fprintf(out_records, "%s %" PRIu64 "\n", sorted[i].stack, sorted[i].count);
	free(sorted);
	for (size_t i = 0; i < fold_slots; i++)
		free(folds[i].stack);
	free(folds);
	folds = NULL;
	fold_slots = fold_used = 0;
}

static void trace_start(void)
{
	folded_start();
	tracing = true;
	first_event = true;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out_records);
}

static void trace_finish(void)
{
	fputs("\n]}\n", out_records);
}

const struct bt_view bt_view_folded = {
    .name = "folded",
    .about = "folded call stacks for flame graphs (\"a;b;c COUNT\", a branch counts once)",
    .symbols = true,
    .start = folded_start,
    .begin = calls_begin,
    .bts = calls_bts,
    .lbr = calls_lbr,
    .end = calls_end,
    .finish = folded_finish,
};

const struct bt_view bt_view_trace = {
    .name = "trace",
    .about = "Chrome trace-event JSON of call slices (Perfetto UI, chrome://tracing)",
    .symbols = true,
    .start = trace_start,
    .begin = calls_begin,
    .bts = calls_bts,
    .lbr = calls_lbr,
    .pebs = calls_pebs,
    .sample = calls_sample,
    .end = calls_end,
    .finish = trace_finish,
};
