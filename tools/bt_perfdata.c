/* SPDX-License-Identifier: MIT */
/*
 * --view perf.data: a perf.data file as Linux documents it (tools/perf/Documentation/
 * perf.data-file-format.txt), read by `perf script`/`perf report`, AutoFDO's create_gcov and
 * create_llvm_prof (quipper) and BOLT's perf2bolt. The records' layouts are the kernel's own
 * (Linux include/uapi/linux/perf_event.h, from the host's linux-libc-dev); the file header,
 * sections and features are perf's (tools/perf/util/header.h), named here after the document.
 *
 * The file: the header, the attributes (one per facility: lbr, bts, pebs, pmc, ...; each with
 * its one id), the data (a COMM and an MMAP2 per executable segment of every ELF in use, then
 * the samples), then the features (HEADER_BUILD_ID naming each ELF by its build id,
 * HEADER_NRCPUS, HEADER_ARCH, HEADER_EVENT_DESC with the facilities' names). Every attribute
 * has the same sample_type, so any reader can parse any sample whatever its attribute:
 * IDENTIFIER, IP, TID, TIME, ADDR, CPU, PERIOD, CALLCHAIN (unless --callchains no),
 * BRANCH_STACK, WEIGHT, DATA_SRC.
 *
 *  - an LBR snapshot (entries with rising indexes) is one sample whose branch stack is the
 *    snapshot, newest first, as `perf record -b` writes it; its IP is the sample's own when
 *    the stream gives one, else the newest branch's target;
 *  - BTS records become branch samples of BT_PERF_WINDOW consecutive branches each (newest
 *    first), not perf's intel_bts AUX area: create_gcov, create_llvm_prof and perf2bolt read
 *    branch stacks and none of them decodes an AUX area, and intel_bts's PMU type number is the
 *    recording host's (sysfs), which a capture from another machine does not have;
 *  - a PEBS sample: IP (the eventing IP), ADDR (the data address), WEIGHT (the latency),
 *    DATA_SRC (the data source, as Linux's arch/x86/events/intel/ds.c load_latency_data
 *    encodes it for loads), and the LBR group's newest entry as a one-entry branch stack;
 *  - a counter or BTF sample: IP, and its LBR entry as a one-entry stack where it has one.
 *
 * The whole machine is one process (pid 1, named after the program or "baretrace") whose maps
 * are the kernel's and the program's ELFs, each at its run address, all samples user-mode
 * (PERF_RECORD_MISC_USER): perf looks the kernel's own maps up in the host's kernel, which is
 * not the one that ran. A program's threads are that process's threads: each sample, and each
 * record's sample_id, carries pid 1 and the tid of its session (struct bt_session's tid, from
 * the session's name), and each thread but the main one (tid 1, the process's own COMM) gets a
 * PERF_RECORD_COMM of pid 1 and its tid, with the process's name (a thread inherits its
 * process's comm: Linux kernel/fork.c copy_process), before its first sample; perf makes the
 * thread from it and gives it the process's maps (tools/perf/util/thread.c thread__init_maps:
 * a tid other than its pid shares its leader's). A thread's sessions run on a CPU of its own at
 * the same time as the others', so their frames come interleaved: each CPU's open session
 * gathers its branch stack apart (struct pd_cpu).
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/bt_perfdata.h"
#include "tools/btdecode.h"

#define BT_PID		   1
#define MAX_ATTRS	   16
#define MAX_STACK	   64
#define BT_PERF_WINDOW	   32	/* BTS records per branch sample: as many as a large LBR */
#define LBR_PERIOD	   1000 /* an LBR stack's period without lbr.period (not 1: below) */
#define BTS_FLAG_PREDICTED 0x10 /* SDM Vol. 3B Table 17-6 (arch/x86/hw/ds_layout.h) */
#define CHAIN_MAX	   126	/* call sites a chain keeps (its context and IP make 128) */
#define MAX_CPUS	   256	/* as the reader's (a frame's CPU is below it) */

/* What sample_id_all appends to every other record: pid/tid, time, cpu, identifier. */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

/* The fixed part of a sample, in sample_type's order (perf_event.h PERF_RECORD_SAMPLE); the
 * call chain, the branch stack and the tail (weight, data source) follow. */
struct sample_head {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time, addr;
	uint32_t cpu, res;
	uint64_t period;
};

/* Call sites, outermost first: the calls a sample's branches show not yet returned from. */
struct chain {
	uint64_t at[CHAIN_MAX];
	unsigned n;
};

/* A CPU's open session: the samples it gathers. */
struct pd_cpu {
	unsigned cur; /* its attribute (index) */
	unsigned cpu;
	uint32_t tid;	   /* the thread it traced */
	uint64_t pend_ip;  /* the LBR sample being gathered: its IP and TSC (lbr.period) */
	uint64_t pend_tsc; /* 0: none */
	bool rec_timed;	   /* the last record's time (struct bt_session: version 2) */
	uint64_t rec_tsc;
	bool pend;
	/* the branch stack being gathered, newest first */
	struct perf_branch_entry stack[MAX_STACK];
	unsigned n;
	uint32_t last_index;
	bool bts_window;
	bool model;		/* it ran on the software PMU ("WORKLOAD@PERSONALITY") */
	struct chain bts_chain; /* a BTS session's: every branch so far */
};

static struct {
	FILE *data; /* the data section, written at the end after the header and attributes */
	uint64_t data_size;
	struct bt_pd_attr attrs[MAX_ATTRS];
	uint64_t lbr_period; /* the capture's option lbr.period (its HEADER's config), 0: none */
	unsigned n_attrs;
	unsigned cur; /* the last session to begin: its attribute (index), the maps' id */
	unsigned max_cpu;
	uint64_t time; /* the last sample's, in ns */
	unsigned maps_generation;
	bool maps_done, failed;
	char comm[16];
	uint32_t *tids; /* the threads given a COMM since the maps' (tid 1 is the maps' own) */
	size_t n_tids;
	struct pd_cpu *cpus[MAX_CPUS]; /* each CPU's, allocated at its first session */
} pd;

/* A branch on a chain: a call (or an interrupt's delivery) adds its FROM, a return takes the
 * newest call site off (one with none left says nothing: its caller is older than the chain);
 * the oldest site gives way when the chain is full. */
static void chain_branch(struct chain *c, uint64_t from)
{
	int k = bt_record_kind(from, -1);
	if (bt_kind_is_call(k)) {
		if (c->n == CHAIN_MAX) {
			memmove(c->at, c->at + 1, (CHAIN_MAX - 1) * sizeof(c->at[0]));
			c->n--;
		}
		c->at[c->n++] = from;
	} else if (bt_kind_is_return(k) && c->n) {
		c->n--;
	}
}

bool bt_perf_callchains = true;

static void put(const void *p, size_t n)
{
	if (pd.data && fwrite(p, 1, n, pd.data) != n)
		pd.failed = true;
	pd.data_size += n;
}

/* sample_id_all's fields (perf_event.h struct sample_id): of thread tid on cpu, the event of
 * the last session to begin. */
static void put_id(uint32_t tid, unsigned cpu)
{
	struct sample_id id = {.pid = BT_PID, .tid = tid, .cpu = cpu, .id = pd.cur + 1};
	put(&id, sizeof(id));
}

static unsigned attr_of(const char *facility)
{
	for (unsigned i = 0; i < pd.n_attrs; i++)
		if (!strcmp(pd.attrs[i].name, facility))
			return i;
	if (pd.n_attrs == MAX_ATTRS)
		return MAX_ATTRS - 1;
	snprintf(pd.attrs[pd.n_attrs].name, BT_NAME_MAX, "%s", facility);
	pd.attrs[pd.n_attrs].period = !strcmp(facility, "bts")			  ? BT_PERF_WINDOW
				      : !strcmp(facility, "lbr") && pd.lbr_period ? pd.lbr_period
				      : !strcmp(facility, "lbr")		  ? LBR_PERIOD
										  : 1;
	return pd.n_attrs++;
}

static void mmap2(void *ctx, const struct bt_exec *x)
{
	(void)ctx;
	size_t name = (strlen(x->path) + 1 + 7) & ~(size_t)7;
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} m = {.h = {.type = PERF_RECORD_MMAP2,
		     .misc = PERF_RECORD_MISC_USER,
		     .size = (uint16_t)(sizeof(m) + name + sizeof(struct sample_id))},
	       .pid = BT_PID,
	       .tid = BT_PID,
	       .addr = x->start,
	       .len = x->len,
	       .pgoff = x->pgoff,
	       .prot = 5, /* PROT_READ | PROT_EXEC */
	       .flags = 2 /* MAP_PRIVATE */};
	put(&m, sizeof(m));
	char buf[4096 + 8] = {0};
	snprintf(buf, sizeof(buf), "%s", x->path);
	put(buf, name);
	put_id(BT_PID, 0);
}

/* A PERF_RECORD_COMM (perf_event.h: pid, tid, comm[], sample_id): thread tid of the process
 * (pid 1) is named after the program. perf writes the name padded to ALIGN(strlen + 1, 8) (Linux
 * kernel/events/core.c perf_event_comm_event: "size = ALIGN(strlen(comm)+1, sizeof(u64))"), and
 * create_gcov's reader (quipper) reads exactly that many bytes: a fixed 16 fails it on any name
 * under 8 characters. */
static void comm(uint32_t tid, unsigned cpu)
{
	const char *name = pd.comm[0] ? pd.comm : "baretrace";
	size_t len = (strlen(name) + 1 + 7) & ~(size_t)7;
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
	} c = {.h = {.type = PERF_RECORD_COMM,
		     .size = (uint16_t)(sizeof(c) + len + sizeof(struct sample_id))},
	       .pid = BT_PID,
	       .tid = tid};
	char buf[sizeof(pd.comm) + 8] = {0};
	snprintf(buf, sizeof(buf), "%s", name);
	put(&c, sizeof(c));
	put(buf, len);
	put_id(tid, cpu);
}

/* Once the ELFs in use are known (every HEADER frame of the boot is read by the first
 * BEGIN), and again when a later boot names others. */
static void maps(void)
{
	if (pd.maps_done && pd.maps_generation == bt_sym_generation())
		return;
	pd.maps_done = true;
	pd.maps_generation = bt_sym_generation();
	comm(BT_PID, 0); /* the process: its main thread */
	pd.n_tids = 0;	 /* the other threads named again, after the maps */
	bt_sym_for_each_segment(mmap2, NULL);
}

/* A thread other than the main one is named (a COMM) once, before its first sample. */
static void thread(uint32_t tid, unsigned cpu)
{
	if (tid == BT_PID)
		return;
	for (size_t i = 0; i < pd.n_tids; i++)
		if (pd.tids[i] == tid)
			return;
	uint32_t *t = realloc(pd.tids, (pd.n_tids + 1) * sizeof(*t));
	if (!t) {
		pd.failed = true;
		return;
	}
	pd.tids = t;
	pd.tids[pd.n_tids++] = tid;
	comm(tid, cpu);
}

/* A sample's time in ns: from its TSC and the TSC rate when it has one, else just after the
 * last sample's (perf orders records by time). */
static void sample_time(bool has_tsc, uint64_t tsc)
{
	if (!has_tsc || !bt_tsc_ns(tsc, &pd.time))
		pd.time++;
}

/* A sample; its call chain as perf's kernel writes one (PERF_CONTEXT_USER, the IP, then each
 * caller's call site, innermost first): all of `chain` (NULL: the IP alone). */
static void sample(struct pd_cpu *g, uint64_t ip, uint64_t addr, uint64_t weight, uint64_t dse,
		   uint64_t period, const struct chain *chain)
{
	maps();
	thread(g->tid, g->cpu);
	struct sample_head s = {
	    .h = {.type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER},
	    .id = g->cur + 1,
	    .ip = ip,
	    .pid = BT_PID,
	    .tid = g->tid,
	    .time = pd.time,
	    .addr = addr,
	    .cpu = g->cpu,
	    .period = period,
	};
	unsigned callers = chain ? chain->n : 0;
	uint64_t cc[CHAIN_MAX + 3] = {callers + 2, PERF_CONTEXT_USER, ip};
	for (unsigned i = 0; i < callers; i++)
		cc[3 + i] = chain->at[callers - 1 - i];
	uint64_t nr = g->n;
	size_t chain_size = bt_perf_callchains ? (3 + callers) * sizeof(uint64_t) : 0;
	size_t size =
	    sizeof(s) + chain_size + sizeof(nr) + g->n * sizeof(g->stack[0]) + 2 * sizeof(uint64_t);
	s.h.size = (uint16_t)size;
	put(&s, sizeof(s));
	put(cc, chain_size);
	put(&nr, sizeof(nr));
	put(g->stack, g->n * sizeof(g->stack[0]));
	uint64_t tail[2] = {weight, dse};
	put(tail, sizeof(tail));
	pd.attrs[g->cur].samples++;
	if (g->cpu > pd.max_cpu)
		pd.max_cpu = g->cpu;
	g->n = 0;
}

static struct perf_branch_entry entry(uint64_t from, uint64_t to)
{
	return (struct perf_branch_entry){.from = from, .to = to};
}

static void flush_stack(struct pd_cpu *g)
{
	if (!g->n)
		return;
	if (g->bts_window) { /* gathered oldest first: newest first, as perf has it */
		for (unsigned i = 0; i < g->n / 2; i++) {
			struct perf_branch_entry t = g->stack[i];
			g->stack[i] = g->stack[g->n - 1 - i];
			g->stack[g->n - 1 - i] = t;
		}
	}
	/* the chain: a BTS session's own, from every branch since it began; an LBR stack's,
	 * from its branches replayed oldest first (only the calls it shows) */
	struct chain lbr_chain = {.n = 0};
	const struct chain *chain = &lbr_chain;
	if (g->bts_window)
		chain = &g->bts_chain;
	else
		for (unsigned i = g->n; i-- > 0;)
			chain_branch(&lbr_chain, g->stack[i].from);
	sample_time(g->pend || g->rec_timed, g->pend ? g->pend_tsc : g->rec_tsc);
	sample(g, g->pend ? g->pend_ip : g->stack[0].to, 0, 0, 0,
	       g->bts_window ? g->n : pd.attrs[g->cur].period, chain);
	g->pend = false;
}

/* The open session of a session's CPU (the reader's CPUs are below MAX_CPUS). */
static struct pd_cpu *open_of(const struct bt_session *s)
{
	struct pd_cpu **g = &pd.cpus[s->cpu % MAX_CPUS];
	if (!*g && !(*g = calloc(1, sizeof(**g)))) {
		fprintf(stderr, "btdecode: out of memory for the perf.data view\n");
		exit(2);
	}
	return *g;
}

static void pd_start(void)
{
	if (pd.data)
		fclose(pd.data);
	for (unsigned c = 0; c < MAX_CPUS; c++)
		free(pd.cpus[c]);
	free(pd.tids);
	memset(&pd, 0, sizeof(pd));
	pd.data = tmpfile();
	if (!pd.data)
		pd.failed = true;
}

static void pd_header(unsigned cpu, const char *const *pairs, unsigned n)
{
	(void)cpu;
	for (unsigned i = 0; i < n; i++) {
		const char *v = pairs[i];
		if (strncmp(v, "config=", 7))
			continue;
		const char *lp = strstr(v, "lbr.period=");
		if (lp)
			pd.lbr_period = strtoull(lp + strlen("lbr.period="), NULL, 10);
		/* "program = \progs\NAME.elf": the process is named NAME, as perf names it */
		const char *p = strstr(v, "program = ");
		if (!p)
			continue;
		p += strlen("program = ");
		size_t len = strcspn(p, " ");
		const char *slash = p;
		for (const char *q = p; q < p + len; q++)
			if (*q == '\\' || *q == '/')
				slash = q + 1;
		size_t k = (size_t)(p + len - slash);
		if (k > 4 && !strncmp(slash + k - 4, ".elf", 4))
			k -= 4;
		snprintf(pd.comm, sizeof(pd.comm), "%.*s", (int)k, slash);
	}
}

static void pd_begin(const struct bt_session *s)
{
	maps();
	pd.cur = attr_of(s->facility);
	struct pd_cpu *g = open_of(s);
	*g = (struct pd_cpu){
	    .cur = pd.cur, .cpu = s->cpu, .tid = s->tid, .model = bt_session_modelled(s)};
}

/* The time of the record that closes a window or snapshot: its session's (version 2). */
static void record_time(struct pd_cpu *g, const struct bt_session *s)
{
	g->rec_timed = s->timed;
	g->rec_tsc = s->tsc;
}

static void pd_bts(const struct bt_session *s, const struct bt_bts *r)
{
	struct pd_cpu *g = open_of(s);
	record_time(g, s);
	g->bts_window = true;
	struct perf_branch_entry e = entry(r->from, r->to);
	/* the software PMU predicts nothing: its flag is not a prediction (as its cycles, below) */
	e.predicted = !g->model && (r->flags & BTS_FLAG_PREDICTED);
	g->stack[g->n++] = e;
	chain_branch(&g->bts_chain, r->from);
	if (g->n == BT_PERF_WINDOW)
		flush_stack(g);
}

static void pd_lbr(const struct bt_session *s, const struct bt_lbr *l)
{
	struct pd_cpu *g = open_of(s);
	if (g->n && (l->sample || l->index <= g->last_index || g->n == MAX_STACK))
		flush_stack(g);
	record_time(g, s);
	g->last_index = l->index;
	if (l->sample) { /* a PMI's snapshot: its IP and time */
		g->pend = true;
		g->pend_ip = l->ip;
		g->pend_tsc = l->tsc;
	}
	struct perf_branch_entry e = entry(l->from, l->to);
	if (l->mispred_valid && !g->model) { /* the software PMU's bit is 0 by construction */
		e.mispred = l->mispred;
		e.predicted = !l->mispred;
	}
	e.in_tx = l->in_tx;
	e.abort = l->abort;
	/* The software PMU's LBR_INFO cycle count is the instructions since the last record
	 * (arch/x86/model/spmu.c): an IPC of 1 by construction, not a measurement, so it is not
	 * given to perf as cycles. (It also keeps Debian's perf 6.1 alive: its report with a
	 * symbol sort in branch mode accounts a sample's cycles when the newest entry has any,
	 * hist__account_cycles, and puts map references it never took; valgrind shows the map
	 * freed there and read afterwards, on any file whose entries carry cycles.) */
	if (l->cycles_valid && !g->model)
		e.cycles = l->cycles > 0xffff ? 0xffff : l->cycles;
	g->stack[g->n++] = e;
}

/* Intel's PEBS data source (SDM Vol. 3B, table "Data Source Encoding for Load Latency Record")
 * as Linux's perf_mem_data_src says it (arch/x86/events/intel/ds.c, pebs_data_source[]): the
 * level a load was served from, bits 3:0; 0 when the encoding is not one of these. */
static uint64_t data_source(uint64_t dse)
{
	static const struct {
		uint64_t lvl, snoop, lvl_num;
	} src[16] = {
	    [0x1] = {PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LVLNUM_L1},
	    [0x2] = {PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LVLNUM_LFB},
	    [0x3] = {PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LVLNUM_L2},
	    [0x4] = {PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LVLNUM_L3},
	    [0x5] = {PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_MISS, PERF_MEM_LVLNUM_L3},
	    [0x6] = {PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HIT, PERF_MEM_LVLNUM_L3},
	    [0x7] = {PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM, PERF_MEM_LVLNUM_L3},
	    [0x8] = {PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HIT,
		     PERF_MEM_LVLNUM_ANY_CACHE},
	    [0x9] = {PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HIT, PERF_MEM_LVLNUM_L3},
	    [0xb] = {PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HIT,
		     PERF_MEM_LVLNUM_RAM},
	    [0xc] = {PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HIT,
		     PERF_MEM_LVLNUM_RAM},
	    [0xd] = {PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_HITM,
		     PERF_MEM_LVLNUM_RAM},
	    [0xe] = {PERF_MEM_LVL_IO | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LVLNUM_IO},
	    [0xf] = {PERF_MEM_LVL_UNC | PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NONE, PERF_MEM_LVLNUM_NA},
	};
	unsigned k = (unsigned)(dse & 0xf);
	if (!src[k].lvl)
		return 0;
	union perf_mem_data_src d = {.mem_op = PERF_MEM_OP_LOAD,
				     .mem_lvl = src[k].lvl,
				     .mem_snoop = src[k].snoop,
				     .mem_lvl_num = src[k].lvl_num};
	return d.val;
}

static void pd_pebs(const struct bt_session *s, const struct bt_pebs *p)
{
	struct pd_cpu *g = open_of(s);
	g->n = 0;
	if (p->has_lbr)
		g->stack[g->n++] = entry(p->lbr_from, p->lbr_to);
	sample_time(s->timed, s->tsc);
	sample(g, p->ev, p->has_mem ? p->dla : 0, p->has_mem ? p->lat : 0,
	       p->has_mem ? data_source(p->dse) : 0, 1, NULL);
}

static void pd_sample(const struct bt_session *s, const struct bt_sample *x)
{
	struct pd_cpu *g = open_of(s);
	g->n = 0;
	if (x->has_lbr)
		g->stack[g->n++] = entry(x->lbr_from, x->lbr_to);
	sample_time(x->has_tsc || s->timed, x->has_tsc ? x->tsc : s->tsc);
	sample(g, x->ip, 0, 0, 0, 1, NULL);
}

static void pd_end(const struct bt_session *s, const struct bt_session_end *e)
{
	(void)e;
	flush_stack(open_of(s));
}

static void pd_finish(void)
{
	/* sessions the capture ends inside: what they gathered, CPU by CPU */
	for (unsigned c = 0; c < MAX_CPUS; c++)
		if (pd.cpus[c])
			flush_stack(pd.cpus[c]);
	if (!pd.data)
		return;
	if (pd.failed) {
		fprintf(out_problems, "btdecode: perf.data: writing the data section failed\n");
		return;
	}
	if (!pd.n_attrs) { /* no session: one attribute all the same, so perf opens it */
		attr_of("none");
		maps();
	}
	bt_perfdata_file(pd.attrs, pd.n_attrs, pd.max_cpu, pd.data, pd.data_size);
	fclose(pd.data);
	pd.data = NULL;
}

const struct bt_view bt_view_perfdata = {
    .name = "perf.data",
    .about = "a perf.data file (-o FILE) for perf script/report, create_gcov, perf2bolt",
    .symbols = true,
    .binary = true,
    .start = pd_start,
    .header = pd_header,
    .begin = pd_begin,
    .bts = pd_bts,
    .lbr = pd_lbr,
    .pebs = pd_pebs,
    .sample = pd_sample,
    .end = pd_end,
    .finish = pd_finish,
};
