/* SPDX-License-Identifier: MIT */
#include "lib/stream_path.h"
#include "lib/stream.h"
#include "lib/string.h"
#include "lib/x86_decode.h"

_Static_assert((BT_PATH_RS & (BT_PATH_RS - 1)) == 0, "the return stack wraps by its index");

#define VARINT_VALUE_BITS 7
#define VARINT_GROUPS	  10 /* 70 bits hold any 64-bit number */

/* ---- bits ------------------------------------------------------------------------------- */

static bool put_bit(struct bt_bits *b, bool v)
{
	if (b->pos >= b->bits)
		return false;
	if (v)
		b->buf[b->pos >> 3] |= (uint8_t)(1u << (b->pos & 7));
	b->pos++;
	return true;
}

static bool get_bit(struct bt_bits *b, bool *v)
{
	if (b->pos >= b->bits)
		return false;
	*v = b->buf[b->pos >> 3] >> (b->pos & 7) & 1;
	b->pos++;
	return true;
}

static bool put_varint(struct bt_bits *b, uint64_t v)
{
	do {
		for (unsigned i = 0; i < VARINT_VALUE_BITS; i++)
			if (!put_bit(b, v >> i & 1))
				return false;
		v >>= VARINT_VALUE_BITS;
		if (!put_bit(b, v != 0))
			return false;
	} while (v);
	return true;
}

static bool get_varint(struct bt_bits *b, uint64_t *v)
{
	uint64_t r = 0;
	for (unsigned g = 0; g < VARINT_GROUPS; g++) {
		for (unsigned i = 0; i < VARINT_VALUE_BITS; i++) {
			bool bit;
			unsigned shift = g * VARINT_VALUE_BITS + i;
			if (!get_bit(b, &bit) || (bit && shift >= 64))
				return false;
			r |= (uint64_t)bit << (shift & 63);
		}
		bool more;
		if (!get_bit(b, &more))
			return false;
		if (!more) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* Clears bits [from, b->pos) and rewinds to from. */
static void rewind_bits(struct bt_bits *b, size_t from)
{
	for (size_t i = from; i < b->pos; i++)
		b->buf[i >> 3] &= (uint8_t) ~(1u << (i & 7));
	b->pos = from;
}

size_t bt_code_copy(uint64_t addr, uint64_t lo, const uint8_t *bytes, uint64_t len, uint8_t *buf)
{
	if (addr < lo || addr - lo >= len)
		return 0;
	uint64_t left = len - (addr - lo);
	size_t n = left < X86_MAX_INSN_LENGTH ? (size_t)left : X86_MAX_INSN_LENGTH;
	memcpy(buf, bytes + (addr - lo), n);
	return n;
}

/* ---- the code and the state --------------------------------------------------------------- */

enum walk_class { WALK_ON, WALK_COND, WALK_DIRECT, WALK_OTHER };

/* The instruction at ip: its length, branch kind and (direct branches) target. */
struct insn {
	uint8_t length;
	enum x86_branch_kind branch;
	enum walk_class class;
	uint64_t target;
};

static enum walk_class classify(enum x86_branch_kind k);

static bool decode_at(const struct bt_path *p, uint64_t ip, struct insn *out,
		      struct bt_insn_cached *c) __attribute__((noinline));

/* The cache's hit inline, the decoding (and filling the cache) out of line. */
static inline bool insn_at(const struct bt_path *p, uint64_t ip, struct insn *out)
{
	struct bt_insn_cached *c = p->cache ? &p->cache->e[(ip ^ ip >> 16) % BT_INSN_CACHE] : NULL;
	if (c && c->addr == ip && ip) {
		out->length = c->length;
		out->branch = (enum x86_branch_kind)c->kind;
		out->class = (enum walk_class)c->class;
		out->target = c->target;
		return true;
	}
	return decode_at(p, ip, out, c);
}

static bool decode_at(const struct bt_path *p, uint64_t ip, struct insn *out,
		      struct bt_insn_cached *c)
{
	uint8_t buf[X86_MAX_INSN_LENGTH];
	struct x86_insn in;
	size_t n = p->code ? p->code(p->code_ctx, ip, buf) : 0;
	if (!n || x86_decode(buf, n, &in))
		return false;
	*out = (struct insn){in.length, in.branch, classify(in.branch), x86_branch_target(&in, ip)};
	if (c)
		*c = (struct bt_insn_cached){.addr = ip,
					     .target = out->target,
					     .length = in.length,
					     .kind = (uint8_t)in.branch,
					     .class = (uint8_t)out->class};
	return true;
}

static enum walk_class classify(enum x86_branch_kind k)
{
	if (k == X86_BR_NONE || k == X86_BR_XBEGIN)
		return WALK_ON; /* XBEGIN falls through; an abort is an event: an escape */
	if (x86_branch_conditional(k))
		return WALK_COND;
	if (k == X86_BR_JMP_REL || k == X86_BR_CALL_REL)
		return WALK_DIRECT;
	return WALK_OTHER;
}

static unsigned site_of(uint64_t from)
{
	return (unsigned)((from ^ from >> 7 ^ from >> 17) % BT_PATH_SITES);
}

/* The predicted TO of an indirect branch at from: *have false if there is none. */
static uint64_t predict(const struct bt_path *p, uint64_t from, int kind, bool *have)
{
	if (kind == X86_BR_RET) {
		*have = p->rs_n > 0;
		return *have ? p->rs[(p->rs_top - 1) % BT_PATH_RS] : from;
	}
	unsigned s = site_of(from);
	*have = from && p->site[s] == from;
	return *have ? p->last[s] : from;
}

void bt_path_reset(struct bt_path *p)
{
	bt_code_fn code = p->code;
	void *ctx = p->code_ctx;
	struct bt_path_counts *counts = p->counts;
	struct bt_insn_cache *cache = p->cache;
	memset(p, 0, sizeof(*p));
	p->code = code;
	p->code_ctx = ctx;
	p->counts = counts;
	p->cache = cache;
}

static struct bt_path_counts no_counts;

void bt_path_advance(struct bt_path *p, const struct bt_bts *r, const struct bt_path_op *op)
{
	p->prev_to = r->to;
	p->prev_flags = r->flags;
	if (!op->path)
		return;
	if (op->kind == X86_BR_CALL_REL || op->kind == X86_BR_CALL_IND) {
		p->rs[p->rs_top++ % BT_PATH_RS] = op->return_address; /* full: over the oldest */
		if (p->rs_n < BT_PATH_RS)
			p->rs_n++;
	}
	if (op->kind == X86_BR_RET) {
		if (p->rs_n) {
			p->rs_n--;
			p->rs_top--;
		}
	} else if (classify((enum x86_branch_kind)op->kind) == WALK_OTHER) {
		unsigned s = site_of(r->from);
		p->site[s] = r->from;
		p->last[s] = r->to;
	}
}

/* ---- writing ---------------------------------------------------------------------------- */

static bool put_target(const struct bt_path *p, uint64_t from, int kind, uint64_t to,
		       struct bt_bits *out)
{
	bool have;
	uint64_t want = predict(p, from, kind, &have);
	if (have && want == to)
		return put_bit(out, 1);
	return put_bit(out, 0) && put_varint(out, bt_zigzag((int64_t)(to - want)));
}

/* The walk from the previous TO to r's FROM: false where a path record cannot say r. */
static bool put_path(const struct bt_path *p, const struct bt_bts *r, struct bt_bits *out,
		     struct bt_path_op *op)
{
	if (r->leak || r->flags != p->prev_flags || !put_bit(out, 0))
		return false;
	uint64_t ip = p->prev_to;
	unsigned not_taken = 0;
	for (unsigned steps = 0; steps < BT_PATH_WALK_MAX; steps++) {
		struct insn in;
		if (!insn_at(p, ip, &in))
			return false;
		enum walk_class c = in.class;
		if (ip == r->from) {
			op->path = true;
			op->kind = (int)in.branch;
			op->return_address = ip + in.length;
			switch (c) {
			case WALK_COND:
				return r->to == in.target && put_bit(out, 1);
			case WALK_DIRECT:
				return r->to == in.target;
			case WALK_OTHER:
				return put_target(p, ip, op->kind, r->to, out);
			case WALK_ON:
				return false; /* an event at an instruction that cannot branch */
			}
		}
		if (c == WALK_DIRECT || c == WALK_OTHER)
			return false; /* a branch taken without its record */
		if (c == WALK_COND && (++not_taken > BT_PATH_BITS_MAX || !put_bit(out, 0)))
			return false;
		ip += in.length;
	}
	return false;
}

static bool put_escape(const struct bt_path *p, const struct bt_bts *r, struct bt_bits *out)
{
	bool flags = r->flags != p->prev_flags;
	return put_bit(out, 1) && put_bit(out, r->leak) && put_bit(out, flags) &&
	       (!flags || put_varint(out, r->flags)) &&
	       put_varint(out, bt_zigzag((int64_t)(r->from - p->prev_to))) &&
	       put_varint(out, bt_zigzag((int64_t)(r->to - r->from)));
}

bool bt_path_encode(const struct bt_path *p, const struct bt_bts *r, struct bt_bits *out,
		    struct bt_path_op *op)
{
	size_t start = out->pos;
	*op = (struct bt_path_op){.kind = -1};
	if (put_path(p, r, out, op))
		return true;
	rewind_bits(out, start);
	*op = (struct bt_path_op){.kind = -1};
	if (put_escape(p, r, out))
		return true;
	rewind_bits(out, start);
	return false;
}

/* ---- reading ---------------------------------------------------------------------------- */

static int get_escape(const struct bt_path *p, struct bt_bits *in, struct bt_bts *r)
{
	bool leak, flags;
	uint64_t a, b;
	r->flags = p->prev_flags;
	if (!get_bit(in, &leak) || !get_bit(in, &flags) || (flags && !get_varint(in, &r->flags)) ||
	    !get_varint(in, &a) || !get_varint(in, &b))
		return BT_PATH_MALFORMED;
	r->leak = leak;
	r->from = p->prev_to + (uint64_t)bt_unzigzag(a);
	r->to = r->from + (uint64_t)bt_unzigzag(b);
	return 0;
}

static int get_path(const struct bt_path *p, struct bt_bits *bits, struct bt_bts *r,
		    struct bt_path_op *op, uint64_t *missing)
{
	uint64_t ip = p->prev_to;
	unsigned not_taken = 0;
	struct bt_path_counts *n = p->counts ? p->counts : &no_counts;
	*r = (struct bt_bts){.flags = p->prev_flags};
	for (unsigned steps = 0; steps < BT_PATH_WALK_MAX; steps++) {
		struct insn insn;
		if (!insn_at(p, ip, &insn)) {
			*missing = ip;
			return BT_PATH_NO_CODE;
		}
		enum walk_class c = insn.class;
		bool taken = c == WALK_DIRECT || c == WALK_OTHER;
		if (c == WALK_COND && !get_bit(bits, &taken))
			return BT_PATH_MALFORMED;
		n->conditionals += c == WALK_COND;
		n->taken += c == WALK_COND && taken;
		if (!taken) {
			if (c == WALK_COND && ++not_taken > BT_PATH_BITS_MAX)
				return BT_PATH_LOST;
			ip += insn.length;
			continue;
		}
		op->path = true;
		op->kind = (int)insn.branch;
		op->return_address = ip + insn.length;
		r->from = ip;
		if (c != WALK_OTHER) {
			r->to = insn.target;
			return 0;
		}
		bool have, hit;
		uint64_t want = predict(p, ip, op->kind, &have), d;
		if (!get_bit(bits, &hit))
			return BT_PATH_MALFORMED;
		bool ret = op->kind == X86_BR_RET;
		n->returns += ret;
		n->returns_hit += ret && hit;
		n->indirect += !ret;
		n->indirect_hit += !ret && hit;
		if (hit) {
			if (!have)
				return BT_PATH_MALFORMED; /* a prediction where there is none */
			r->to = want;
			return 0;
		}
		if (!get_varint(bits, &d))
			return BT_PATH_MALFORMED;
		r->to = want + (uint64_t)bt_unzigzag(d);
		return 0;
	}
	return BT_PATH_LOST;
}

int bt_path_decode(struct bt_path *p, struct bt_bits *in, struct bt_bts *r, uint64_t *missing)
{
	bool escape;
	struct bt_path_op op = {.kind = -1};
	if (!get_bit(in, &escape))
		return BT_PATH_MALFORMED;
	int e = escape ? get_escape(p, in, r) : get_path(p, in, r, &op, missing);
	if (e)
		return e;
	if (p->counts) {
		p->counts->records++;
		p->counts->escapes += escape;
	}
	bt_path_advance(p, r, &op);
	return 0;
}
