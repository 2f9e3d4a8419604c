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
 * not the one that ran.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/btdecode.h"

/* perf.data-file-format.txt: "struct perf_file_header" and its features (the bit numbers of
 * adds_features, "HEADER_BUILD_ID = 2, ..."). */
#define PERF_MAGIC2	   0x32454c4946524550ULL /* "PERFILE2", little-endian */
#define HEADER_BUILD_ID	   2
#define HEADER_ARCH	   6
#define HEADER_NRCPUS	   7
#define HEADER_EVENT_DESC  12
#define HEADER_FEAT_BITS   256
#define NAME_ALIGN	   64 /* perf_header_string lengths (header.c do_write_string) */
#define BUILD_ID_SIZE	   20
#define BUILD_ID_FIELD	   24 /* BUILD_ID_SIZE rounded to 8 */
#define BT_PID		   1
#define MAX_ATTRS	   16
#define MAX_STACK	   64
#define BT_PERF_WINDOW	   32	/* BTS records per branch sample: as many as a large LBR */
#define LBR_PERIOD	   1000 /* an LBR stack's period without lbr.period (not 1: below) */
#define BTS_FLAG_PREDICTED 0x10 /* SDM Vol. 3B Table 17-6 (arch/x86/hw/ds_layout.h) */
#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK |      \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
#define CHAIN_MAX  126 /* call sites a chain keeps (its context and IP make 128) */
#define CHAIN_CPUS 64  /* CPUs whose BTS sessions keep a running chain */

struct perf_file_section {
	uint64_t offset, size;
};

struct perf_file_header {
	uint64_t magic, size, attr_size;
	struct perf_file_section attrs, data, event_types;
	uint64_t adds_features[HEADER_FEAT_BITS / 64];
};
_Static_assert(sizeof(struct perf_file_header) == 104, "perf.data-file-format.txt's header");

struct perf_file_attr {
	struct perf_event_attr attr;
	struct perf_file_section ids;
};

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

static struct {
	FILE *data; /* the data section, written at the end after the header and attributes */
	uint64_t data_size;
	struct {
		char name[BT_NAME_MAX];
		uint64_t samples, period;
	} attrs[MAX_ATTRS];
	uint64_t lbr_period; /* the capture's option lbr.period (its HEADER's config), 0: none */
	unsigned n_attrs;
	unsigned cur; /* the open session's attribute (index) */
	unsigned max_cpu;
	uint64_t time;	   /* the last sample's, in ns */
	uint64_t pend_ip;  /* the LBR sample being gathered: its IP and TSC (lbr.period) */
	uint64_t pend_tsc; /* 0: none */
	bool rec_timed;	   /* the last record's time (struct bt_session: version 2) */
	uint64_t rec_tsc;
	bool pend;
	unsigned maps_generation;
	bool maps_done, failed;
	char comm[16];
	/* the branch stack being gathered, newest first */
	struct perf_branch_entry stack[MAX_STACK];
	unsigned n;
	uint32_t last_index;
	bool bts_window;
	bool model; /* the open session ran on the software PMU ("WORKLOAD@PERSONALITY") */
	unsigned cpu;
	struct chain bts_chain[CHAIN_CPUS]; /* each CPU's BTS session: every branch so far */
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

static void put_id(unsigned cpu)
{
	struct sample_id id = {.pid = BT_PID, .tid = BT_PID, .cpu = cpu, .id = pd.cur + 1};
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
	put_id(0);
}

/* Once the ELFs in use are known (every HEADER frame of the boot is read by the first
 * BEGIN), and again when a later boot names others. */
static void maps(void)
{
	if (pd.maps_done && pd.maps_generation == bt_sym_generation())
		return;
	pd.maps_done = true;
	pd.maps_generation = bt_sym_generation();
	/* perf writes the name padded to ALIGN(strlen + 1, 8) (Linux kernel/events/core.c
	 * perf_event_comm_event: "size = ALIGN(strlen(comm)+1, sizeof(u64))"), and
	 * create_gcov's reader (quipper) reads exactly that many bytes: a fixed 16 fails it on
	 * any name under 8 characters */
	const char *name = pd.comm[0] ? pd.comm : "baretrace";
	size_t len = (strlen(name) + 1 + 7) & ~(size_t)7;
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
	} c = {.h = {.type = PERF_RECORD_COMM,
		     .size = (uint16_t)(sizeof(c) + len + sizeof(struct sample_id))},
	       .pid = BT_PID,
	       .tid = BT_PID};
	char buf[sizeof(pd.comm) + 8] = {0};
	snprintf(buf, sizeof(buf), "%s", name);
	put(&c, sizeof(c));
	put(buf, len);
	put_id(0);
	bt_sym_for_each_segment(mmap2, NULL);
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
static void sample(unsigned cpu, uint64_t ip, uint64_t addr, uint64_t weight, uint64_t dse,
		   uint64_t period, const struct chain *chain)
{
	maps();
	struct sample_head s = {
	    .h = {.type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER},
	    .id = pd.cur + 1,
	    .ip = ip,
	    .pid = BT_PID,
	    .tid = BT_PID,
	    .time = pd.time,
	    .addr = addr,
	    .cpu = cpu,
	    .period = period,
	};
	unsigned callers = chain ? chain->n : 0;
	uint64_t cc[CHAIN_MAX + 3] = {callers + 2, PERF_CONTEXT_USER, ip};
	for (unsigned i = 0; i < callers; i++)
		cc[3 + i] = chain->at[callers - 1 - i];
	uint64_t nr = pd.n;
	size_t chain_size = bt_perf_callchains ? (3 + callers) * sizeof(uint64_t) : 0;
	size_t size =
	    sizeof(s) + chain_size + sizeof(nr) + pd.n * sizeof(pd.stack[0]) + 2 * sizeof(uint64_t);
	s.h.size = (uint16_t)size;
	put(&s, sizeof(s));
	put(cc, chain_size);
	put(&nr, sizeof(nr));
	put(pd.stack, pd.n * sizeof(pd.stack[0]));
	uint64_t tail[2] = {weight, dse};
	put(tail, sizeof(tail));
	pd.attrs[pd.cur].samples++;
	if (cpu > pd.max_cpu)
		pd.max_cpu = cpu;
	pd.n = 0;
}

static struct perf_branch_entry entry(uint64_t from, uint64_t to)
{
	return (struct perf_branch_entry){.from = from, .to = to};
}

static void flush_stack(void)
{
	if (!pd.n)
		return;
	if (pd.bts_window) { /* gathered oldest first: newest first, as perf has it */
		for (unsigned i = 0; i < pd.n / 2; i++) {
			struct perf_branch_entry t = pd.stack[i];
			pd.stack[i] = pd.stack[pd.n - 1 - i];
			pd.stack[pd.n - 1 - i] = t;
		}
	}
	/* the chain: a BTS session's own, from every branch since it began; an LBR stack's,
	 * from its branches replayed oldest first (only the calls it shows) */
	struct chain lbr_chain = {.n = 0};
	const struct chain *chain = &lbr_chain;
	if (pd.bts_window)
		chain = pd.cpu < CHAIN_CPUS ? &pd.bts_chain[pd.cpu] : NULL;
	else
		for (unsigned i = pd.n; i-- > 0;)
			chain_branch(&lbr_chain, pd.stack[i].from);
	sample_time(pd.pend || pd.rec_timed, pd.pend ? pd.pend_tsc : pd.rec_tsc);
	sample(pd.cpu, pd.pend ? pd.pend_ip : pd.stack[0].to, 0, 0, 0,
	       pd.bts_window ? pd.n : pd.attrs[pd.cur].period, chain);
	pd.pend = false;
}

static void pd_start(void)
{
	if (pd.data)
		fclose(pd.data);
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
	pd.cpu = s->cpu;
	pd.n = 0;
	pd.bts_window = false;
	if (s->cpu < CHAIN_CPUS)
		pd.bts_chain[s->cpu].n = 0;
	pd.model = bt_session_modelled(s);
}

/* The time of the record that closes a window or snapshot: its session's (version 2). */
static void record_time(const struct bt_session *s)
{
	pd.rec_timed = s->timed;
	pd.rec_tsc = s->tsc;
}

static void pd_bts(const struct bt_session *s, const struct bt_bts *r)
{
	record_time(s);
	pd.bts_window = true;
	struct perf_branch_entry e = entry(r->from, r->to);
	e.predicted = !!(r->flags & BTS_FLAG_PREDICTED);
	pd.stack[pd.n++] = e;
	if (s->cpu < CHAIN_CPUS)
		chain_branch(&pd.bts_chain[s->cpu], r->from);
	if (pd.n == BT_PERF_WINDOW)
		flush_stack();
}

static void pd_lbr(const struct bt_session *s, const struct bt_lbr *l)
{
	if (pd.n && (l->sample || l->index <= pd.last_index || pd.n == MAX_STACK))
		flush_stack();
	record_time(s);
	pd.last_index = l->index;
	if (l->sample) { /* a PMI's snapshot: its IP and time */
		pd.pend = true;
		pd.pend_ip = l->ip;
		pd.pend_tsc = l->tsc;
	}
	struct perf_branch_entry e = entry(l->from, l->to);
	if (l->mispred_valid) {
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
	if (l->cycles_valid && !pd.model)
		e.cycles = l->cycles > 0xffff ? 0xffff : l->cycles;
	pd.stack[pd.n++] = e;
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
	pd.n = 0;
	if (p->has_lbr)
		pd.stack[pd.n++] = entry(p->lbr_from, p->lbr_to);
	sample_time(s->timed, s->tsc);
	sample(s->cpu, p->ev, p->has_mem ? p->dla : 0, p->has_mem ? p->lat : 0,
	       p->has_mem ? data_source(p->dse) : 0, 1, NULL);
}

static void pd_sample(const struct bt_session *s, const struct bt_sample *x)
{
	pd.n = 0;
	if (x->has_lbr)
		pd.stack[pd.n++] = entry(x->lbr_from, x->lbr_to);
	sample_time(x->has_tsc || s->timed, x->has_tsc ? x->tsc : s->tsc);
	sample(s->cpu, x->ip, 0, 0, 0, 1, NULL);
}

static void pd_end(const struct bt_session *s, const struct bt_session_end *e)
{
	(void)s;
	(void)e;
	flush_stack();
}

/* ---- the file ------------------------------------------------------------------------- */

static uint64_t out_pos;

static void out(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out_records) != n)
		pd.failed = true;
	out_pos += n;
}

static void out_zero(size_t n)
{
	static const uint8_t z[NAME_ALIGN];
	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);
		out(z, k);
		n -= k;
	}
}

/* A perf_header_string: u32 length (NUL included, rounded to NAME_ALIGN), the bytes. */
static size_t header_string(const char *s, bool write)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1));
	if (write) {
		out(&len, sizeof(len));
		out(s, strlen(s));
		out_zero(len - strlen(s));
	}
	return sizeof(len) + len;
}

static struct perf_event_attr make_attr(unsigned i)
{
	const char *f = pd.attrs[i].name;
	bool branches = !strcmp(f, "lbr") || !strcmp(f, "bts");
	struct perf_event_attr a = {
	    .type = branches ? PERF_TYPE_HARDWARE : PERF_TYPE_RAW,
	    .size = sizeof(a),
	    .config = branches ? PERF_COUNT_HW_BRANCH_INSTRUCTIONS : 0,
	    /* perf takes branch instructions with a period of 1 for intel_bts and prints no
	     * branch stack for them (tools/perf/util/evsel.h evsel__is_bts) */
	    .sample_period = pd.attrs[i].period,
	    .sample_type = SAMPLE_TYPE | (bt_perf_callchains ? PERF_SAMPLE_CALLCHAIN : 0),
	    .sample_id_all = 1,
	    .precise_ip = !strcmp(f, "pebs") ? 2 : 0,
	    .branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
	};
	return a;
}

static void hex_bytes(const char *hex, uint8_t *id, size_t max)
{
	for (size_t k = 0; k < max && hex[2 * k] && hex[2 * k + 1]; k++) {
		unsigned v;
		if (sscanf(hex + 2 * k, "%2x", &v) == 1)
			id[k] = (uint8_t)v;
	}
}

static size_t build_id_event(const struct bt_exec *x, bool write)
{
	size_t name = (strlen(x->path) + 1 + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);
	struct {
		struct perf_event_header h;
		int32_t pid;
		uint8_t id[BUILD_ID_FIELD];
	} b = {.h = {.type = 0, .misc = PERF_RECORD_MISC_USER, .size = 0}, .pid = -1};
	b.h.size = (uint16_t)(sizeof(b) + name);
	if (write) {
		hex_bytes(x->build_id, b.id, BUILD_ID_SIZE);
		out(&b, sizeof(b));
		out(x->path, strlen(x->path));
		out_zero(name - strlen(x->path));
	}
	return sizeof(b) + name;
}

/* Build ids: one per ELF (its first executable segment). */
static struct {
	bool write;
	size_t size;
	const char *last;
} bid;

static void build_id_one(void *ctx, const struct bt_exec *x)
{
	(void)ctx;
	if (!x->build_id[0] || (bid.last && !strcmp(bid.last, x->path)))
		return;
	bid.last = x->path;
	bid.size += build_id_event(x, bid.write);
}

static size_t feat_build_id(bool write)
{
	bid = (typeof(bid)){.write = write};
	bt_sym_for_each_segment(build_id_one, NULL);
	return bid.size;
}

static size_t feat_nrcpus(bool write)
{
	uint32_t n[2] = {pd.max_cpu + 1, pd.max_cpu + 1};
	if (write)
		out(n, sizeof(n));
	return sizeof(n);
}

static size_t feat_arch(bool write)
{
	return header_string("x86_64", write);
}

static size_t feat_event_desc(bool write)
{
	uint32_t hdr[2] = {pd.n_attrs, sizeof(struct perf_event_attr)};
	size_t size = sizeof(hdr);
	if (write)
		out(hdr, sizeof(hdr));
	for (unsigned i = 0; i < pd.n_attrs; i++) {
		struct perf_event_attr a = make_attr(i);
		uint32_t nr_ids = 1;
		uint64_t id = i + 1;
		if (write) {
			out(&a, sizeof(a));
			out(&nr_ids, sizeof(nr_ids));
		}
		size += sizeof(a) + sizeof(nr_ids) + header_string(pd.attrs[i].name, write) +
			sizeof(id);
		if (write)
			out(&id, sizeof(id));
	}
	return size;
}

/* Not HEADER_BRANCH_STACK (15), which `perf record -b` writes: with it perf report opens every
 * view in branch mode and turns -g --children's cumulation off (tools/perf/builtin-report.c:
 * branch_mode -1 and has_br_stack: SORT_MODE__BRANCH, cumulate_callchain = false), so the
 * call-graph view this file's chains are for would need --no-branch-stack. Without it,
 * --branch-history works (the samples have call chains) and -b chooses branch mode. */
static const struct {
	unsigned bit;
	size_t (*fn)(bool write);
} features[] = {
    {HEADER_BUILD_ID, feat_build_id},
    {HEADER_ARCH, feat_arch},
    {HEADER_NRCPUS, feat_nrcpus},
    {HEADER_EVENT_DESC, feat_event_desc},
};
#define N_FEATURES (sizeof(features) / sizeof(features[0]))

/* What the profilers that read this file can make of each ELF: AutoFDO attributes samples to
 * source lines, so an ELF without a line table (assembly without -g) gets an empty profile
 * from create_gcov and create_llvm_prof, which say nothing; Debian 12's create_gcov (AutoFDO
 * 0.19) reads no DWARF 5. Said once per ELF, on stderr. */
static void dwarf_note(void *ctx, const struct bt_exec *x)
{
	(void)ctx;
	if (bid.last && !strcmp(bid.last, x->path))
		return;
	bid.last = x->path;
	int v = bt_sym_dwarf_version(x->path);
	if (v == 0)
		fprintf(
		    out_problems,
		    "btdecode: perf.data: %s has no DWARF line table: perf names its functions, "
		    "but AutoFDO (create_gcov, create_llvm_prof) attributes nothing to it "
		    "(build it with -g)\n",
		    x->path);
	else if (v >= 5 && !x->is_kernel)
		fprintf(out_problems,
			"btdecode: perf.data: %s has DWARF %d: Debian 12's create_gcov (AutoFDO "
			"0.19) reads DWARF 4 only and gives it an empty profile (build it with "
			"-gdwarf-4)\n",
			x->path, v);
}

static void pd_finish(void)
{
	flush_stack();
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
	out_pos = 0;
	struct perf_file_header h = {
	    .magic = PERF_MAGIC2, .size = sizeof(h), .attr_size = sizeof(struct perf_file_attr)};
	uint64_t ids_at = sizeof(h);
	h.attrs = (struct perf_file_section){ids_at + pd.n_attrs * sizeof(uint64_t),
					     pd.n_attrs * sizeof(struct perf_file_attr)};
	h.data = (struct perf_file_section){h.attrs.offset + h.attrs.size, pd.data_size};
	for (unsigned i = 0; i < N_FEATURES; i++)
		h.adds_features[features[i].bit / 64] |= 1ULL << (features[i].bit % 64);
	out(&h, sizeof(h));
	for (unsigned i = 0; i < pd.n_attrs; i++) {
		uint64_t id = i + 1;
		out(&id, sizeof(id));
	}
	for (unsigned i = 0; i < pd.n_attrs; i++) {
		struct perf_file_attr fa = {
		    .attr = make_attr(i), .ids = {ids_at + i * sizeof(uint64_t), sizeof(uint64_t)}};
		out(&fa, sizeof(fa));
	}
	rewind(pd.data);
	char buf[1 << 16];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), pd.data)) > 0)
		out(buf, got);
	/* the features: their sections, then their contents, in the bits' order */
	uint64_t at = out_pos + N_FEATURES * sizeof(struct perf_file_section);
	for (unsigned i = 0; i < N_FEATURES; i++) {
		struct perf_file_section sec = {at, features[i].fn(false)};
		out(&sec, sizeof(sec));
		at += sec.size;
	}
	for (unsigned i = 0; i < N_FEATURES; i++)
		features[i].fn(true);
	fflush(out_records);
	bid.last = NULL;
	bt_sym_for_each_segment(dwarf_note, NULL);
	if (pd.failed || ferror(out_records))
		fprintf(out_problems, "btdecode: perf.data: writing the file failed\n");
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
