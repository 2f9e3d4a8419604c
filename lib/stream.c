/* SPDX-License-Identifier: MIT */
#include "lib/stream.h"
#include "lib/crc32.h"
#include "lib/string.h"

#define LEB_MAX	   10 /* bytes of a 64-bit LEB128 number */
#define LEB_BITS   7
#define LEB_MORE   0x80
#define LEB_VALUE  0x7f
#define BYTE_BITS  8
#define RECORD_MAX (1 + 3 * LEB_MAX) /* one BTS record, encoded, at most */
#define END_MAX	   (3 * LEB_MAX + 4) /* END before its text */
#define BTS_RAW	   24		     /* a BTS record in memory (Table 17-6) */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> BYTE_BITS);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (BYTE_BITS * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (BYTE_BITS * i));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << BYTE_BITS);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (BYTE_BITS * i);
	return v;
}

static size_t put_leb(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	do {
		uint8_t b = v & LEB_VALUE;
		v >>= LEB_BITS;
		p[n++] = (uint8_t)(b | (v ? LEB_MORE : 0));
	} while (v);
	return n;
}

/* A LEB128 number at *pos of buf[0..n): false if it runs past the end or beyond 64 bits. */
static bool get_leb(const uint8_t *buf, size_t n, size_t *pos, uint64_t *v)
{
	uint64_t r = 0;
	for (unsigned shift = 0; shift < 64; shift += LEB_BITS) {
		if (*pos >= n)
			return false;
		uint8_t b = buf[(*pos)++];
		if (shift == 63 && (b & LEB_VALUE) > 1)
			return false;
		r |= (uint64_t)(b & LEB_VALUE) << shift;
		if (!(b & LEB_MORE)) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* Two addresses as the stream sends them: FROM less a base (the previous record's), then TO
 * less FROM, zig-zag LEB128 each. */
static size_t put_pair(uint8_t *p, uint64_t base, uint64_t from, uint64_t to)
{
	size_t n = put_leb(p, bt_zigzag((int64_t)(from - base)));
	return n + put_leb(p + n, bt_zigzag((int64_t)(to - from)));
}

static bool get_pair(const struct bt_frame *f, size_t *pos, uint64_t base, uint64_t *from,
		     uint64_t *to)
{
	uint64_t a, b;
	if (!get_leb(f->payload, f->len, pos, &a) || !get_leb(f->payload, f->len, pos, &b))
		return false;
	*from = base + (uint64_t)bt_unzigzag(a);
	*to = *from + (uint64_t)bt_unzigzag(b);
	return true;
}

/* ---- writing ---------------------------------------------------------------------------- */

void bt_writer_init(struct bt_writer *w, uint16_t cpu, uint32_t seq, bt_emit_fn emit, void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->cpu = cpu;
	w->seq = seq;
	w->emit = emit;
	w->ctx = ctx;
}

/* A new frame's start: the TSC (but for HEADER), then its session where it has one. */
static void frame_start(struct bt_writer *w, uint8_t type)
{
	w->type = type;
	w->len = 0;
	if (type != BT_F_HEADER)
		w->len = put_leb(w->frame + BT_HEADER_LEN, w->clock ? w->clock() : 0);
	if (type == BT_F_BTS || type == BT_F_LBR || type == BT_F_END || type == BT_F_PATH ||
	    type == BT_F_PEBS || type == BT_F_SAMPLE || type == BT_F_OUTPUT)
		w->len += put_leb(w->frame + BT_HEADER_LEN + w->len, w->session);
}

static void flush(struct bt_writer *w)
{
	if (!w->type)
		return;
	uint8_t *f = w->frame;
	f[BT_H_MAGIC] = BT_MAGIC0;
	f[BT_H_MAGIC + 1] = BT_MAGIC1;
	f[BT_H_VERSION] = BT_STREAM_VERSION;
	f[BT_H_TYPE] = w->type;
	put16(f + BT_H_CPU, w->cpu);
	put16(f + BT_H_LEN, (uint16_t)w->len);
	put32(f + BT_H_SEQ, w->seq++);
	put32(f + BT_HEADER_LEN + w->len, crc32(f, BT_HEADER_LEN + w->len));
	w->emit(w->ctx, f, BT_HEADER_LEN + w->len + BT_CRC_LEN);
	w->type = 0;
	w->len = 0;
}

/* Room for `need` more payload bytes in a frame of `type`: a new frame if not. */
static uint8_t *room(struct bt_writer *w, uint8_t type, size_t need)
{
	if (w->type != type || w->len + need > BT_PAYLOAD_MAX) {
		flush(w);
		w->prev_to = 0;
		w->prev_tsc = 0;
		w->prev_flags = 0;
		w->prev_size = 0;
		w->prev_dla = 0;
		frame_start(w, type);
	}
	return w->frame + BT_HEADER_LEN + w->len;
}

static size_t put_name(uint8_t *p, const char *s)
{
	size_t n = strlen(s);
	if (n > BT_NAME_MAX - 1)
		n = BT_NAME_MAX - 1;
	memcpy(p, s, n);
	p[n] = 0;
	return n + 1;
}

void bt_write_begin(struct bt_writer *w, const char *facility, const char *session)
{
	flush(w);
	w->session = w->seq;
	uint8_t *p = room(w, BT_F_BEGIN, 2 * BT_NAME_MAX);
	size_t n = put_name(p, facility);
	n += put_name(p + n, session);
	w->len += n;
	flush(w);
	w->records = 0;
	w->digest = 0;
	w->in_session = true;
}

unsigned bt_write_header(struct bt_writer *w, const char *const *pairs, unsigned n)
{
	flush(w);
	unsigned put = 0;
	uint8_t *p = room(w, BT_F_HEADER, 0);
	for (unsigned i = 0; i < n; i++) {
		size_t len = strlen(pairs[i]) + 1;
		if (w->len + len > BT_PAYLOAD_MAX)
			continue;
		memcpy(p + w->len, pairs[i], len);
		w->len += len;
		put++;
	}
	flush(w);
	return put;
}

void bt_writer_set_code(struct bt_writer *w, bt_code_fn code, void *ctx)
{
	flush(w);
	w->path.code = code;
	w->path.code_ctx = ctx;
}

/* A new PATH frame: the session, a record count, the bits (zeroed), the state afresh. */
static void path_frame(struct bt_writer *w)
{
	flush(w);
	frame_start(w, BT_F_PATH);
	w->count_at = w->len;
	w->bits_at = w->len + 2;
	w->len = w->bits_at;
	w->bits = 0;
	w->count = 0;
	memset(w->frame + BT_HEADER_LEN + w->bits_at, 0, BT_PAYLOAD_MAX - w->bits_at);
	bt_path_reset(&w->path);
}

static void write_path(struct bt_writer *w, const struct bt_bts *r)
{
	uint8_t *payload = w->frame + BT_HEADER_LEN;
	struct bt_path_op op;
	if (w->type != BT_F_PATH || w->count == BT_FRAME_RECORDS_MAX)
		path_frame(w);
	struct bt_bits b = {payload + w->bits_at, (BT_PAYLOAD_MAX - w->bits_at) * BYTE_BITS,
			    w->bits};
	if (!bt_path_encode(&w->path, r, &b, &op)) {
		/* no room: a new frame, where the record is at worst an escape, which fits */
		path_frame(w);
		b = (struct bt_bits){payload + w->bits_at,
				     (BT_PAYLOAD_MAX - w->bits_at) * BYTE_BITS, 0};
		if (!bt_path_encode(&w->path, r, &b, &op))
			return;
	}
	w->bits = b.pos;
	bt_path_advance(&w->path, r, &op);
	w->count++;
	put16(payload + w->count_at, w->count);
	w->len = w->bits_at + (w->bits + BYTE_BITS - 1) / BYTE_BITS;
	w->records++;
	w->digest = bt_digest(w->digest, r);
}

void bt_write_bts(struct bt_writer *w, const struct bt_bts *r)
{
	if (w->path.code) {
		write_path(w, r);
		return;
	}
	uint8_t *p = room(w, BT_F_BTS, RECORD_MAX);
	size_t n = 1;
	uint8_t control = r->leak ? BT_REC_LEAK : 0;
	n += put_pair(p + n, w->prev_to, r->from, r->to);
	if (r->flags != w->prev_flags) {
		control |= BT_REC_FLAGS;
		n += put_leb(p + n, r->flags);
	}
	p[0] = control;
	w->len += n;
	w->prev_to = r->to;
	w->prev_flags = r->flags;
	w->records++;
	w->digest = bt_digest(w->digest, r);
}

static uint8_t lbr_control(const struct bt_lbr *e)
{
	return (uint8_t)((e->cycles ? BT_LBR_CYCLES : 0) |
			 (e->cycles_valid ? BT_LBR_CYCLES_OK : 0) |
			 (e->mispred_valid ? BT_LBR_MISPRED_OK : 0) |
			 (e->mispred ? BT_LBR_MISPRED : 0) | (e->in_tx ? BT_LBR_IN_TX : 0) |
			 (e->abort ? BT_LBR_ABORT : 0) | (e->br_type >= 0 ? BT_LBR_BR_TYPE : 0) |
			 (e->sample ? BT_LBR_SAMPLE : 0));
}

void bt_write_lbr(struct bt_writer *w, const struct bt_lbr *e)
{
	uint8_t *p = room(w, BT_F_LBR, RECORD_MAX + 5 * LEB_MAX);
	uint8_t control = lbr_control(e);
	size_t n = 1;
	p[0] = control;
	n += put_leb(p + n, e->index);
	n += put_pair(p + n, w->prev_to, e->from, e->to);
	if (control & BT_LBR_CYCLES)
		n += put_leb(p + n, e->cycles);
	if (control & BT_LBR_BR_TYPE)
		n += put_leb(p + n, (uint64_t)e->br_type);
	if (control & BT_LBR_SAMPLE) {
		n += put_leb(p + n, bt_zigzag((int64_t)(e->ip - e->to)));
		n += put_leb(p + n, e->tsc - w->prev_tsc);
		w->prev_tsc = e->tsc;
	}
	w->len += n;
	w->prev_to = e->to;
	w->records++;
	w->digest = bt_digest_lbr(w->digest, e);
}

static uint8_t pebs_control(const struct bt_pebs *p, uint64_t prev_status, uint64_t prev_size)
{
	return (uint8_t)((p->status != prev_status ? BT_PEBS_STATUS : 0) |
			 (p->size != prev_size ? BT_PEBS_SIZE : 0) |
			 (p->has_lbr ? BT_PEBS_LBR : 0) | (p->has_mem ? BT_PEBS_MEM : 0) |
			 (p->ip & 3u) << BT_PEBS_IP_SHIFT);
}

void bt_write_pebs(struct bt_writer *w, const struct bt_pebs *p)
{
	uint8_t *b = room(w, BT_F_PEBS, 1 + 9 * LEB_MAX);
	uint8_t control = pebs_control(p, w->prev_flags, w->prev_size);
	size_t n = 1;
	b[0] = control;
	n += put_pair(b + n, w->prev_to, p->ev, p->next);
	if (control & BT_PEBS_STATUS)
		n += put_leb(b + n, p->status);
	if (control & BT_PEBS_SIZE)
		n += put_leb(b + n, p->size);
	if (control & BT_PEBS_LBR)
		n += put_pair(b + n, p->ev, p->lbr_from, p->lbr_to);
	if (control & BT_PEBS_MEM) {
		n += put_leb(b + n, bt_zigzag((int64_t)(p->dla - w->prev_dla)));
		n += put_leb(b + n, p->dse);
		n += put_leb(b + n, p->lat);
		w->prev_dla = p->dla;
	}
	w->len += n;
	w->prev_to = p->ev;
	w->prev_flags = p->status;
	w->prev_size = p->size;
	w->records++;
	w->digest = bt_digest_pebs(w->digest, p);
}

uint32_t bt_digest_pebs(uint32_t crc, const struct bt_pebs *p)
{
	uint8_t raw[3 * 8 + 4 + 1 + 5 * 8];
	put64(raw, p->ev);
	put64(raw + 8, p->next);
	put64(raw + 16, p->status);
	put32(raw + 24, p->size);
	raw[28] = (uint8_t)((p->has_lbr ? BT_PEBS_LBR : 0) | (p->has_mem ? BT_PEBS_MEM : 0) |
			    (p->ip & 3u) << BT_PEBS_IP_SHIFT);
	put64(raw + 29, p->has_lbr ? p->lbr_from : 0);
	put64(raw + 37, p->has_lbr ? p->lbr_to : 0);
	put64(raw + 45, p->has_mem ? p->dla : 0);
	put64(raw + 53, p->has_mem ? p->dse : 0);
	put64(raw + 61, p->has_mem ? p->lat : 0);
	return crc32_update(crc, raw, sizeof(raw));
}

void bt_write_sample(struct bt_writer *w, const struct bt_sample *s)
{
	uint8_t *b = room(w, BT_F_SAMPLE, 1 + 4 * LEB_MAX);
	size_t n = 1;
	b[0] = (uint8_t)((s->has_lbr ? BT_SAMPLE_LBR : 0) | (s->has_tsc ? BT_SAMPLE_TSC : 0));
	n += put_leb(b + n, bt_zigzag((int64_t)(s->ip - w->prev_to)));
	if (s->has_lbr)
		n += put_pair(b + n, s->ip, s->lbr_from, s->lbr_to);
	if (s->has_tsc) {
		n += put_leb(b + n, s->tsc - w->prev_tsc);
		w->prev_tsc = s->tsc;
	}
	w->len += n;
	w->prev_to = s->ip;
	w->records++;
	w->digest = bt_digest_sample(w->digest, s);
}

uint32_t bt_digest_sample(uint32_t crc, const struct bt_sample *s)
{
	uint8_t raw[8 + 1 + 8 + 8];
	put64(raw, s->ip);
	raw[8] = (uint8_t)((s->has_lbr ? BT_SAMPLE_LBR : 0) | (s->has_tsc ? BT_SAMPLE_TSC : 0));
	put64(raw + 9, s->has_lbr ? s->lbr_from : 0);
	put64(raw + 17, s->has_lbr ? s->lbr_to : 0);
	crc = crc32_update(crc, raw, sizeof(raw));
	if (!s->has_tsc)
		return crc;
	uint8_t at[8];
	put64(at, s->tsc);
	return crc32_update(crc, at, sizeof(at));
}

const char *bt_pebs_ip_name(unsigned ip)
{
	static const char *const names[] = {"exact", "trap", "fault"};
	return ip < sizeof(names) / sizeof(names[0]) ? names[ip] : "?";
}

uint32_t bt_digest_lbr(uint32_t crc, const struct bt_lbr *e)
{
	uint8_t raw[4 + 8 + 8 + 4 + 1 + 4];
	put32(raw, e->index);
	put64(raw + 4, e->from);
	put64(raw + 12, e->to);
	put32(raw + 20, e->cycles);
	raw[24] = lbr_control(e);
	put32(raw + 25, (uint32_t)e->br_type);
	crc = crc32_update(crc, raw, sizeof(raw));
	if (!e->sample)
		return crc;
	uint8_t at[8 + 8];
	put64(at, e->ip);
	put64(at + 8, e->tsc);
	return crc32_update(crc, at, sizeof(at));
}

void bt_write_output(struct bt_writer *w, const struct bt_output *o)
{
	uint64_t offset = o->offset;
	const uint8_t *b = o->bytes;
	size_t left = o->len;
	do {
		flush(w); /* one piece a frame: its head says where the bytes belong */
		uint8_t *p = room(w, BT_F_OUTPUT, 1 + 2 * LEB_MAX);
		size_t n = 1;
		p[0] = o->fd;
		n += put_leb(p + n, offset);
		n += put_leb(p + n, o->tsc);
		size_t take = BT_PAYLOAD_MAX - w->len - n;
		take = take < left ? take : left;
		memcpy(p + n, b, take);
		w->len += n + take;
		b += take;
		left -= take;
		offset += take;
	} while (left);
	flush(w);
}

void bt_write_flush(struct bt_writer *w)
{
	flush(w);
}

void bt_write_end(struct bt_writer *w, uint64_t lost, const char *why)
{
	flush(w);
	uint8_t *p = room(w, BT_F_END, END_MAX);
	size_t n = put_leb(p, w->records);
	n += put_leb(p + n, lost);
	put32(p + n, w->digest);
	n += 4;
	size_t t = strlen(why);
	if (t > BT_PAYLOAD_MAX - w->len - n)
		t = BT_PAYLOAD_MAX - w->len - n;
	memcpy(p + n, why, t);
	w->len += n + t;
	flush(w);
	w->in_session = false;
}

uint32_t bt_digest(uint32_t crc, const struct bt_bts *r)
{
	uint8_t raw[BTS_RAW];
	put64(raw, r->from);
	put64(raw + 8, r->to);
	put64(raw + 16, r->flags);
	return crc32_update(crc, raw, sizeof(raw));
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t bt_text_line(const uint8_t *frame, size_t len, char *out)
{
	size_t o = 0;
	memcpy(out, BT_TEXT_PREFIX, BT_TEXT_PREFIX_LEN);
	o = BT_TEXT_PREFIX_LEN;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)frame[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)frame[i + 1] << 8;
		if (i + 2 < len)
			v |= frame[i + 2];
		out[o++] = B64[(v >> 18) & 63];
		out[o++] = B64[(v >> 12) & 63];
		out[o++] = i + 1 < len ? B64[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? B64[v & 63] : '=';
	}
	out[o++] = '\n';
	out[o] = 0;
	return o;
}

/* ---- reading ---------------------------------------------------------------------------- */

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long bt_base64_decode(const char *in, size_t n, uint8_t *out, size_t out_size)
{
	if (n % 4)
		return -1;
	size_t o = 0;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		unsigned pad = 0;
		for (unsigned k = 0; k < 4; k++) {
			if (in[i + k] == '=' && i + 4 == n && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad || (v[k] = b64_value(in[i + k])) < 0)
				return -1; /* a character after '=', or not base64 */
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
			     (uint32_t)v[3];
		for (unsigned k = 0; k < 3 - pad; k++) {
			if (o >= out_size)
				return -1;
			out[o++] = (uint8_t)(w >> (16 - 8 * k));
		}
	}
	return (long)o;
}

int bt_frame_parse(const uint8_t *buf, size_t n, struct bt_frame *f, const char **why)
{
	if (n < BT_HEADER_LEN + BT_CRC_LEN) {
		*why = "shorter than a header and a CRC";
		return -1;
	}
	if (buf[BT_H_MAGIC] != BT_MAGIC0 || buf[BT_H_MAGIC + 1] != BT_MAGIC1) {
		*why = "no 'BT' magic";
		return -1;
	}
	if (buf[BT_H_VERSION] != BT_STREAM_VERSION && buf[BT_H_VERSION] != BT_STREAM_VERSION1) {
		*why = "format version neither 1 nor 2 (a newer kernel's stream: a newer btdecode "
		       "reads it)";
		return -1;
	}
	uint16_t len = get16(buf + BT_H_LEN);
	if (len > BT_PAYLOAD_MAX || (size_t)len + BT_HEADER_LEN + BT_CRC_LEN != n) {
		*why = "payload length does not match the frame";
		return -1;
	}
	if (crc32(buf, BT_HEADER_LEN + len) != get32(buf + BT_HEADER_LEN + len)) {
		*why = "CRC mismatch";
		return -1;
	}
	f->type = buf[BT_H_TYPE];
	f->version = buf[BT_H_VERSION];
	f->cpu = get16(buf + BT_H_CPU);
	f->seq = get32(buf + BT_H_SEQ);
	f->payload = buf + BT_HEADER_LEN;
	f->len = len;
	f->has_tsc = f->version >= BT_STREAM_VERSION && f->type != BT_F_HEADER;
	f->tsc = 0;
	size_t pos = 0;
	if (f->has_tsc && !get_leb(f->payload, f->len, &pos, &f->tsc)) {
		*why = "no TSC at the payload's start";
		return -1;
	}
	f->payload += pos;
	f->len = (uint16_t)(f->len - pos);
	return 0;
}

static int get_name(const uint8_t *p, size_t n, size_t *pos, char *out)
{
	size_t i = 0;
	while (*pos < n && p[*pos] && i < BT_NAME_MAX - 1)
		out[i++] = (char)p[(*pos)++];
	out[i] = 0;
	if (*pos >= n || p[*pos])
		return -1;
	(*pos)++;
	return 0;
}

long bt_read_header(const struct bt_frame *f, void (*fn)(void *ctx, const char *pair), void *ctx)
{
	if (f->type != BT_F_HEADER || (f->len && f->payload[f->len - 1]))
		return -1; /* every string ends in its NUL */
	long count = 0;
	for (size_t pos = 0; pos < f->len; count++) {
		const char *s = (const char *)f->payload + pos;
		fn(ctx, s);
		pos += strlen(s) + 1;
	}
	return count;
}

int bt_read_begin(const struct bt_frame *f, char *facility, char *session)
{
	size_t pos = 0;
	if (f->type != BT_F_BEGIN || get_name(f->payload, f->len, &pos, facility) ||
	    get_name(f->payload, f->len, &pos, session))
		return -1;
	return pos == f->len ? 0 : -1;
}

/* The session number a BTS or END frame starts with. */
static bool get_session(const struct bt_frame *f, size_t *pos, uint32_t *session)
{
	uint64_t v;
	if (!get_leb(f->payload, f->len, pos, &v) || v > UINT32_MAX)
		return false;
	*session = (uint32_t)v;
	return true;
}

int bt_read_end(const struct bt_frame *f, uint32_t *session, uint64_t *records, uint64_t *lost,
		uint32_t *digest, char *why, size_t why_size)
{
	size_t pos = 0;
	if (f->type != BT_F_END || !get_session(f, &pos, session) ||
	    !get_leb(f->payload, f->len, &pos, records) ||
	    !get_leb(f->payload, f->len, &pos, lost) || pos + 4 > f->len || !why_size)
		return -1;
	*digest = get32(f->payload + pos);
	pos += 4;
	size_t t = 0;
	while (pos < f->len && t + 1 < why_size)
		why[t++] = (char)f->payload[pos++];
	why[t] = 0;
	return 0;
}

long bt_read_bts(const struct bt_frame *f, uint32_t *session,
		 void (*fn)(void *ctx, const struct bt_bts *r), void *ctx)
{
	uint64_t prev_to = 0, prev_flags = 0;
	size_t pos = 0;
	if (f->type != BT_F_BTS || !get_session(f, &pos, session))
		return -1;
	long count = 0;
	while (pos < f->len) {
		uint8_t control = f->payload[pos++];
		struct bt_bts r = {.leak = control & BT_REC_LEAK, .flags = prev_flags};
		if (control & BT_REC_ZERO || !get_pair(f, &pos, prev_to, &r.from, &r.to))
			return -1;
		if ((control & BT_REC_FLAGS) && !get_leb(f->payload, f->len, &pos, &r.flags))
			return -1;
		prev_to = r.to;
		prev_flags = r.flags;
		fn(ctx, &r);
		count++;
	}
	return count;
}

long bt_read_lbr(const struct bt_frame *f, uint32_t *session,
		 void (*fn)(void *ctx, const struct bt_lbr *e), void *ctx)
{
	uint64_t prev_to = 0, prev_tsc = 0, v;
	size_t pos = 0;
	long count = 0;
	if (f->type != BT_F_LBR || !get_session(f, &pos, session))
		return -1;
	while (pos < f->len) {
		uint8_t control = f->payload[pos++];
		uint64_t index, from, to;
		if (!get_leb(f->payload, f->len, &pos, &index) || index > UINT32_MAX ||
		    !get_pair(f, &pos, prev_to, &from, &to))
			return -1;
		struct bt_lbr e = {
		    .index = (uint32_t)index,
		    .cycles_valid = control & BT_LBR_CYCLES_OK,
		    .mispred_valid = control & BT_LBR_MISPRED_OK,
		    .mispred = control & BT_LBR_MISPRED,
		    .in_tx = control & BT_LBR_IN_TX,
		    .abort = control & BT_LBR_ABORT,
		    .br_type = -1,
		    .from = from,
		    .to = to,
		};
		if (control & BT_LBR_CYCLES) {
			if (!get_leb(f->payload, f->len, &pos, &v) || !v || v > UINT32_MAX)
				return -1;
			e.cycles = (uint32_t)v;
		}
		if (control & BT_LBR_BR_TYPE) {
			if (!get_leb(f->payload, f->len, &pos, &v) || v > INT32_MAX)
				return -1;
			e.br_type = (int)v;
		}
		if (control & BT_LBR_SAMPLE) {
			uint64_t tsc;
			if (!get_leb(f->payload, f->len, &pos, &v) ||
			    !get_leb(f->payload, f->len, &pos, &tsc))
				return -1;
			e.sample = true;
			e.ip = e.to + (uint64_t)bt_unzigzag(v);
			e.tsc = prev_tsc += tsc;
		}
		prev_to = e.to;
		fn(ctx, &e);
		count++;
	}
	return count;
}

static struct bt_path reader; /* the reader's walk */

void bt_read_path_counts(struct bt_path_counts *counts)
{
	reader.counts = counts;
}

void bt_read_path_cache(struct bt_insn_cache *cache)
{
	reader.cache = cache;
}

long bt_read_path(const struct bt_frame *f, uint32_t *session, bt_code_fn code, void *code_ctx,
		  void (*fn)(void *ctx, const struct bt_bts *r), void *ctx, uint64_t *missing)
{
	size_t pos = 0;
	if (f->type != BT_F_PATH || !get_session(f, &pos, session) || pos + 2 > f->len)
		return BT_PATH_MALFORMED;
	uint16_t count = get16(f->payload + pos);
	pos += 2;
	if (count > BT_FRAME_RECORDS_MAX)
		return BT_PATH_MALFORMED;
	reader.code = code;
	reader.code_ctx = code_ctx;
	bt_path_reset(&reader);
	/* the bits are read in place: the frame's payload is not written */
	struct bt_bits b = {(uint8_t *)(uintptr_t)(f->payload + pos), (f->len - pos) * BYTE_BITS,
			    0};
	for (long i = 0; i < count; i++) {
		struct bt_bts r;
		int e = bt_path_decode(&reader, &b, &r, missing);
		if (e)
			return e;
		fn(ctx, &r);
	}
	/* what is left is the last byte's padding: zeros, fewer than 8 */
	if (b.bits - b.pos >= BYTE_BITS)
		return BT_PATH_MALFORMED;
	return count;
}

long bt_read_pebs(const struct bt_frame *f, uint32_t *session,
		  void (*fn)(void *ctx, const struct bt_pebs *p), void *ctx)
{
	uint64_t prev_ev = 0, prev_status = 0, prev_size = 0, prev_dla = 0, a;
	size_t pos = 0;
	long count = 0;
	if (f->type != BT_F_PEBS || !get_session(f, &pos, session))
		return -1;
	while (pos < f->len) {
		uint8_t control = f->payload[pos++];
		unsigned ip = (control >> BT_PEBS_IP_SHIFT) & 3u;
		uint64_t ev, next;
		if (control & BT_PEBS_ZERO || ip > BT_PEBS_FAULT ||
		    !get_pair(f, &pos, prev_ev, &ev, &next))
			return -1;
		struct bt_pebs p = {
		    .ip = (uint8_t)ip,
		    .status = prev_status,
		    .size = (uint32_t)prev_size,
		    .has_lbr = control & BT_PEBS_LBR,
		    .has_mem = control & BT_PEBS_MEM,
		};
		p.ev = ev;
		p.next = next;
		uint64_t size = prev_size;
		if (((control & BT_PEBS_STATUS) && !get_leb(f->payload, f->len, &pos, &p.status)) ||
		    ((control & BT_PEBS_SIZE) &&
		     (!get_leb(f->payload, f->len, &pos, &size) || size > UINT32_MAX)))
			return -1;
		p.size = (uint32_t)size;
		if (p.has_lbr && !get_pair(f, &pos, p.ev, &p.lbr_from, &p.lbr_to))
			return -1;
		if (p.has_mem) {
			if (!get_leb(f->payload, f->len, &pos, &a) ||
			    !get_leb(f->payload, f->len, &pos, &p.dse) ||
			    !get_leb(f->payload, f->len, &pos, &p.lat))
				return -1;
			p.dla = prev_dla + (uint64_t)bt_unzigzag(a);
			prev_dla = p.dla;
		}
		prev_ev = p.ev;
		prev_status = p.status;
		prev_size = p.size;
		fn(ctx, &p);
		count++;
	}
	return count;
}

long bt_read_sample(const struct bt_frame *f, uint32_t *session,
		    void (*fn)(void *ctx, const struct bt_sample *s), void *ctx)
{
	uint64_t prev = 0, prev_tsc = 0, a;
	size_t pos = 0;
	long count = 0;
	if (f->type != BT_F_SAMPLE || !get_session(f, &pos, session))
		return -1;
	while (pos < f->len) {
		uint8_t control = f->payload[pos++];
		if (control & BT_SAMPLE_ZERO || !get_leb(f->payload, f->len, &pos, &a))
			return -1;
		struct bt_sample s = {.ip = prev + (uint64_t)bt_unzigzag(a),
				      .has_lbr = control & BT_SAMPLE_LBR};
		if (s.has_lbr && !get_pair(f, &pos, s.ip, &s.lbr_from, &s.lbr_to))
			return -1;
		if (control & BT_SAMPLE_TSC) {
			if (!get_leb(f->payload, f->len, &pos, &a))
				return -1;
			s.has_tsc = true;
			s.tsc = prev_tsc += a;
		}
		prev = s.ip;
		fn(ctx, &s);
		count++;
	}
	return count;
}

int bt_read_output(const struct bt_frame *f, uint32_t *session, struct bt_output *o)
{
	size_t pos = 0;
	if (f->type != BT_F_OUTPUT || !get_session(f, &pos, session) || pos >= f->len)
		return -1;
	o->fd = f->payload[pos++];
	if ((o->fd != BT_OUTPUT_STDOUT && o->fd != BT_OUTPUT_STDERR) ||
	    !get_leb(f->payload, f->len, &pos, &o->offset) ||
	    !get_leb(f->payload, f->len, &pos, &o->tsc))
		return -1;
	o->bytes = f->payload + pos;
	o->len = f->len - pos;
	return 0;
}
