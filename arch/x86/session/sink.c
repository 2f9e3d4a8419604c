/* SPDX-License-Identifier: MIT */
#include "arch/x86/session/sink.h"
#include "arch/x86/session/output.h"
#include "lib/stream.h"

static void text_line(const struct trace_record *r)
{
	switch (r->kind) {
	case TREC_BTS:
		tprintf("bts %#lx %#lx %#lx%s\n", r->bts.from, r->bts.to, r->bts.flags,
			r->bts.leak ? " leak" : "");
		break;
	case TREC_LBR: {
		const struct bt_lbr *e = &r->lbr;
		tprintf("lbr %u %#lx %#lx cycles=%u%s mispred=%d br_type=%d%s%s\n", e->index,
			e->from, e->to, e->cycles, e->cycles_valid ? "" : "(n/a)",
			e->mispred_valid ? e->mispred : -1, e->br_type, e->in_tx ? " in_tx" : "",
			e->abort ? " abort" : "");
		break;
	}
	case TREC_PEBS: {
		const struct bt_pebs *p = &r->pebs;
		tprintf("pebs %#lx %#lx applicable=%#lx size=%u ip=%s", p->ev, p->next, p->status,
			p->size, bt_pebs_ip_name(p->ip));
		if (p->has_lbr)
			tprintf(" lbr %#lx %#lx", p->lbr_from, p->lbr_to);
		if (p->has_mem)
			tprintf(" dla=%#lx src=%#lx lat=%lu", p->dla, p->dse, p->lat);
		tprintf("\n");
		break;
	}
	case TREC_SAMPLE:
		if (r->sample.has_lbr)
			tprintf("sample %#lx lbr %#lx %#lx\n", r->sample.ip, r->sample.lbr_from,
				r->sample.lbr_to);
		else
			tprintf("sample %#lx\n", r->sample.ip);
		break;
	case TREC_BTF:
		tprintf("btf %#lx\n", r->sample.ip);
		break;
	}
}

static void stream_frame(struct bt_writer *w, const struct trace_record *r)
{
	switch (r->kind) {
	case TREC_BTS:
		bt_write_bts(w, &r->bts);
		break;
	case TREC_LBR:
		bt_write_lbr(w, &r->lbr);
		break;
	case TREC_PEBS:
		bt_write_pebs(w, &r->pebs);
		break;
	case TREC_SAMPLE:
	case TREC_BTF:
		bt_write_sample(w, &r->sample);
		break;
	}
}

/* What the self-check counts of a record: FROM and TO of a branch; a PEBS record's eventing IP
 * and next IP; a sample's IP. BTF targets are not checked. */
static void check(struct selfcheck *sc, const struct trace_record *r)
{
	switch (r->kind) {
	case TREC_BTS:
		selfcheck_record(sc, r->bts.from, r->bts.to);
		break;
	case TREC_LBR:
		selfcheck_record(sc, r->lbr.from, r->lbr.to);
		break;
	case TREC_PEBS:
		selfcheck_record(sc, r->pebs.ev, r->pebs.next);
		break;
	case TREC_SAMPLE:
		selfcheck_record(sc, r->sample.ip, 0);
		break;
	case TREC_BTF:
		break;
	}
}

static void put(void *ctx, const struct trace_record *r)
{
	struct session_sink *k = ctx;
	check(&k->sc, r);
	if (k->stream)
		stream_frame(k->stream, r);
	if (k->text)
		text_line(r);
}

void session_sink_init(struct session_sink *k, const struct trace_ctx *t, bool text)
{
	selfcheck_begin(&k->sc, t);
	k->sink = (struct record_sink){put, k};
	k->stream = NULL;
	k->text = text;
}
