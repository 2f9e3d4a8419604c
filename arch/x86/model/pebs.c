/* SPDX-License-Identifier: MIT */
#include "arch/x86/model/pebs.h"
#include "lib/string.h"

#define PEBS_DATACFG_GROUPS  GENMASK(31, 0)
#define PEBS_ADAPTIVE_FORMAT 4

size_t pebs_record_size(const struct pebs_config *c)
{
	switch (c->format) {
	case 0:
		return sizeof(struct pebs_record_fmt0);
	case 1:
		return sizeof(struct pebs_record_fmt1);
	case 2:
		return sizeof(struct pebs_record_fmt2);
	case 3:
		return sizeof(struct pebs_record_fmt3);
	case PEBS_ADAPTIVE_FORMAT: {
		if (!c->adaptive)
			return 0; /* format 4 without the baseline bit: not modelled */
		size_t n = sizeof(struct pebs_basic);
		if (c->data_cfg & PEBS_DATACFG_MEMINFO)
			n += sizeof(struct pebs_meminfo);
		if (c->data_cfg & PEBS_DATACFG_GP)
			n += sizeof(struct pebs_gprs);
		if (c->data_cfg & PEBS_DATACFG_XMMS)
			n += sizeof(struct pebs_xmm);
		if (c->data_cfg & PEBS_DATACFG_LBRS)
			n += sizeof(struct pebs_lbr_entry) *
			     (FIELD_GET(PEBS_DATACFG_LBR_COUNT, c->data_cfg) + 1);
		return n;
	}
	default:
		return 0;
	}
}

static void legacy_gprs(struct pebs_gprs_legacy *g, const struct pebs_config *c,
			const struct pebs_sample *s)
{
	const struct spmu_regs *r = s->regs;
	*g = (struct pebs_gprs_legacy){
	    .rflags = r->rflags,
	    /* Trap-like PEBS reports the instruction after the one that overflowed. */
	    .rip = c->trap ? s->next_ip : s->eventing_ip,
	    .rax = r->rax,
	    .rbx = r->rbx,
	    .rcx = r->rcx,
	    .rdx = r->rdx,
	    .rsi = r->rsi,
	    .rdi = r->rdi,
	    .rbp = r->rbp,
	    .rsp = r->rsp,
	    .r8 = r->r8,
	    .r9 = r->r9,
	    .r10 = r->r10,
	    .r11 = r->r11,
	    .r12 = r->r12,
	    .r13 = r->r13,
	    .r14 = r->r14,
	    .r15 = r->r15,
	};
}

static void write_legacy(uint8_t *dst, const struct pebs_config *c, const struct pebs_sample *s)
{
	struct pebs_record_fmt3 rec;
	memset(&rec, 0, sizeof(rec));
	legacy_gprs(&rec.f2.f1.g, c, s);
	rec.f2.f1.status = s->applicable;
	/* Offsets 98H-A8H (SDM Vol. 3B 18.9.4.1): "the linear address of the source of the load,
	 * or linear address of the destination of the store", data source, latency. */
	rec.f2.f1.dla = s->dla;
	rec.f2.f1.dse = s->dse;
	rec.f2.f1.latency = s->latency;
	rec.f2.eventing_ip = s->eventing_ip;
	rec.tsc = s->tsc;
	/* Formats 0-2 are prefixes of format 3: copy the record's own size. */
	memcpy(dst, &rec, pebs_record_size(c));
}

static void write_adaptive(uint8_t *dst, size_t size, const struct pebs_config *c,
			   const struct pebs_sample *s)
{
	struct pebs_basic basic = {
	    .format_size =
		(c->data_cfg & PEBS_DATACFG_GROUPS) | FIELD_PREP(PEBS_BASIC_SIZE_FIELD, size),
	    .ip = s->eventing_ip,
	    .applicable_counters = s->applicable,
	    .tsc = s->tsc,
	};
	memset(dst, 0, size);
	memcpy(dst, &basic, sizeof(basic));
	size_t off = sizeof(basic);
	if (c->data_cfg & PEBS_DATACFG_MEMINFO) {
		/* address, aux (data source), latency in bits 15:0 (the pre-Alder Lake reading;
		 * Alder Lake's cache latency in 47:32 is left 0), TSX tuning 0 */
		struct pebs_meminfo mi = {s->dla, s->dse, s->latency, 0};
		memcpy(dst + off, &mi, sizeof(mi));
		off += sizeof(mi);
	}
	if (c->data_cfg & PEBS_DATACFG_GP) {
		const struct spmu_regs *r = s->regs;
		struct pebs_gprs g = {
		    .flags = r->rflags,
		    .ip = s->next_ip, /* the architectural (next) IP */
		    .ax = r->rax,
		    .cx = r->rcx,
		    .dx = r->rdx,
		    .bx = r->rbx,
		    .sp = r->rsp,
		    .bp = r->rbp,
		    .si = r->rsi,
		    .di = r->rdi,
		    .r8 = r->r8,
		    .r9 = r->r9,
		    .r10 = r->r10,
		    .r11 = r->r11,
		    .r12 = r->r12,
		    .r13 = r->r13,
		    .r14 = r->r14,
		    .r15 = r->r15,
		};
		memcpy(dst + off, &g, sizeof(g));
		off += sizeof(g);
	}
	if (c->data_cfg & PEBS_DATACFG_XMMS) {
		if (s->xmm)
			memcpy(dst + off, s->xmm, sizeof(*s->xmm));
		off += sizeof(struct pebs_xmm);
	}
	if (c->data_cfg & PEBS_DATACFG_LBRS) {
		unsigned n = (unsigned)FIELD_GET(PEBS_DATACFG_LBR_COUNT, c->data_cfg) + 1;
		for (unsigned i = 0; i < n && i < s->lbr_count; i++)
			memcpy(dst + off + i * sizeof(struct pebs_lbr_entry), &s->lbr[i],
			       sizeof(struct pebs_lbr_entry));
	}
}

struct pebs_write_result pebs_write(struct ds_area64 *ds, void *(*at)(uint64_t lin),
				    const struct pebs_config *c, const struct pebs_sample *s)
{
	struct pebs_write_result r = {0};
	size_t size = pebs_record_size(c);
	uint64_t index = ds->pebs_index;
	uint8_t *dst = size ? at(index) : NULL;
	if (!size || index < ds->pebs_base || index + size > ds->pebs_abs_max || !dst) {
		r.dropped_full = true;
		return r;
	}
	if (c->format == PEBS_ADAPTIVE_FORMAT)
		write_adaptive(dst, size, c, s);
	else
		write_legacy(dst, c, s);
	ds->pebs_index = index + size;
	r.stored = true;
	/* At or past the threshold after the write (SDM Vol. 3B 17.4.9.5 "matches/exceeds";
	 * 18.4.4.1), not only at the crossing. */
	r.threshold_hit = ds->pebs_index >= ds->pebs_threshold;
	return r;
}
