/* SPDX-License-Identifier: MIT */
/*
 * Option parser (see lib/config.h). Deliberately self-contained: its own byte helpers and its
 * own message builder instead of lib/string and lib/fmt, so it links alone into its unit test.
 * Every scan is bounded by the caller's length; nothing relies on a terminating NUL.
 */
#include "lib/config.h"

#define QUOTE_MAX  40 /* bytes of offending text quoted in a message before "..." */
#define DESC_WIDTH 30 /* cfg_describe() aligns help texts up to this "name=values" width */

/* ---- message builder ------------------------------------------------------------------------ */

/* Appends into buf[size], dropping what does not fit; len counts everything, like snprintf.
 * With a sink, the text goes to it instead, in pieces of at most SINK_CHUNK bytes. */
#define SINK_CHUNK 128
struct sbuf {
	char *buf;
	size_t size;
	size_t len;
	void (*put)(void *ctx, const char *s, size_t n);
	void *ctx;
	char chunk[SINK_CHUNK];
	size_t pending;
};

static void sb_flush(struct sbuf *sb)
{
	if (sb->put && sb->pending)
		sb->put(sb->ctx, sb->chunk, sb->pending);
	sb->pending = 0;
}

static void sb_putc(struct sbuf *sb, char c)
{
	if (sb->put) {
		if (sb->pending == SINK_CHUNK)
			sb_flush(sb);
		sb->chunk[sb->pending++] = c;
	} else if (sb->len + 1 < sb->size) {
		sb->buf[sb->len] = c;
	}
	sb->len++;
}

static void sb_str(struct sbuf *sb, const char *s)
{
	while (*s)
		sb_putc(sb, *s++);
}

static void sb_udec(struct sbuf *sb, uint64_t v)
{
	char tmp[20]; /* UINT64_MAX has 20 digits */
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		sb_putc(sb, tmp[--n]);
}

/* pre 'text' post, the text on one readable line: at most QUOTE_MAX bytes then "...", and
 * non-printable bytes as '?'. */
static void sb_quote(struct sbuf *sb, const char *pre, const char *p, size_t n, const char *post)
{
	sb_str(sb, pre);
	sb_putc(sb, '\'');
	for (size_t i = 0; i < n && i < QUOTE_MAX; i++) {
		unsigned char ch = (unsigned char)p[i];
		sb_putc(sb, ch >= 0x20 && ch < 0x7f ? (char)ch : '?');
	}
	sb_str(sb, n > QUOTE_MAX ? "...'" : "'");
	sb_str(sb, post);
}

/* NUL-terminates (if there is room for anything) and returns the full length. */
static size_t sb_finish(struct sbuf *sb)
{
	if (sb->size)
		sb->buf[sb->len < sb->size ? sb->len : sb->size - 1] = '\0';
	return sb->len;
}

/* ---- byte helpers --------------------------------------------------------------------------- */

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether p[0..n) equals the whole of name, ignoring ASCII case. */
static bool eq_nocase(const char *name, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (name[i] == '\0' || lower(name[i]) != lower(p[i]))
			return false;
	return name[n] == '\0';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Separators between command-line tokens. */
static bool is_space(char c)
{
	return is_blank(c) || c == '\r' || c == '\n';
}

static size_t skip_blank(const char *p, size_t i, size_t n)
{
	while (i < n && is_blank(p[i]))
		i++;
	return i;
}

/* End of p[from..to) with trailing blanks removed. */
static size_t trim_end(const char *p, size_t from, size_t to)
{
	while (to > from && is_blank(p[to - 1]))
		to--;
	return to;
}

/* Index of the first c in p[0..n), or n. */
static size_t find_byte(const char *p, size_t n, char c)
{
	size_t i = 0;

	while (i < n && p[i] != c)
		i++;
	return i;
}

/* The closing '"' of a quoted value whose text starts at p[from]: its index, or n when there
 * is none. \" and \\ do not end it (lib/config.h). */
static size_t closing_quote(const char *p, size_t from, size_t n)
{
	size_t i = from;

	while (i < n && p[i] != '"')
		i += p[i] == '\\' && i + 1 < n ? 2 : 1;
	return i < n ? i : n;
}

/* p[0..n) of a quoted value with \" and \\ undone, into out; its length. */
static size_t unescape(const char *p, size_t n, char *out)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n && (p[i + 1] == '"' || p[i + 1] == '\\'))
			i++;
		out[w++] = p[i];
	}
	return w;
}

/* ---- parser state and error reporting ------------------------------------------------------- */

struct ctx {
	const struct cfg_option *opts;
	size_t nopts;
	void *settings;
	const char *source;
	struct cfg_error *err;
	size_t line;	 /* cfg_parse_file: current line, from 1; 0 in cfg_parse_args */
	const char *tok; /* cfg_parse_args: the current token */
	size_t toklen;
	struct sbuf sb; /* the error message being built */
	/* Where each option was last set in this input (line, or token number), 0 = not yet. */
	size_t seen[CFG_MAX_OPTIONS];
	size_t ntok;	     /* cfg_parse_args: tokens so far */
	bool ignore_unknown; /* cfg_pick_*: keys not in the table are skipped, not errors */
	char unquoted[CFG_MAX_QUOTED]; /* a quoted value with its escapes undone */
};

/* Starts the message with its location: "source:line: " or "source: in 'token': ". */
static struct sbuf *err_begin(struct ctx *c)
{
	c->sb = (struct sbuf){.buf = c->err ? c->err->msg : NULL,
			      .size = c->err ? sizeof(c->err->msg) : 0};
	sb_str(&c->sb, c->source ? c->source : "config");
	if (c->line) {
		sb_putc(&c->sb, ':');
		sb_udec(&c->sb, c->line);
		sb_str(&c->sb, ": ");
	} else {
		sb_quote(&c->sb, ": in ", c->tok, c->toklen, ": ");
	}
	return &c->sb;
}

/* Finishes the message, marking a cut one with "...", and returns the parsers' -1. */
static int err_end(struct ctx *c)
{
	struct sbuf *sb = &c->sb;

	if (sb->size >= 4 && sb->len >= sb->size) {
		for (size_t i = sb->size - 4; i < sb->size - 1; i++)
			sb->buf[i] = '.';
	}
	sb_finish(sb);
	return -1;
}

/* "source:line: option 'name': " */
static struct sbuf *err_option(struct ctx *c, const struct cfg_option *o)
{
	struct sbuf *sb = err_begin(c);

	sb_str(sb, "option '");
	sb_str(sb, o->name);
	sb_str(sb, "': ");
	return sb;
}

static const struct cfg_enum_value bool_values[] = {
    {"1", 1, 0},   {"0", 0, 0},	   {"yes", 1, 0},   {"no", 0, 0}, {"on", 1, 0},
    {"off", 0, 0}, {"true", 1, 0}, {"false", 0, 0}, {NULL, 0, 0},
};

static const struct cfg_enum_value *values_of(const struct cfg_option *o)
{
	return o->type == CFG_BOOL ? bool_values : o->values;
}

static size_t string_cap(const struct cfg_option *o)
{
	return o->max ? (size_t)o->max - 1 : 0;
}

/* The names of a SET or LIST: `values` not flagged CFG_V_ALONE, then `item`'s; sep between. */
static void put_names(struct sbuf *sb, const struct cfg_option *o, const char *sep)
{
	bool first = true, explicit_only;
	const char *name;

	for (const struct cfg_enum_value *e = o->values; e && e->name; e++) {
		if (e->flags & CFG_V_ALONE)
			continue;
		sb_str(sb, first ? "" : sep);
		sb_str(sb, e->name);
		first = false;
	}
	for (unsigned i = 0; o->item && (name = o->item(i, &explicit_only)); i++) {
		sb_str(sb, first ? "" : sep);
		sb_str(sb, name);
		first = false;
	}
}

/* A SET's or LIST's words that stand alone ("none", "all"), each followed by sep. */
static void put_alone(struct sbuf *sb, const struct cfg_option *o, const char *sep)
{
	for (const struct cfg_enum_value *e = o->values; e && e->name; e++) {
		if (e->flags & CFG_V_ALONE) {
			sb_str(sb, e->name);
			sb_str(sb, sep);
		}
	}
}

/* What an option accepts: "50..115200", "halt, reset, qemu"; `brief` is cfg_describe()'s form. */
static void put_accepted(struct sbuf *sb, const struct cfg_option *o, bool brief)
{
	const struct cfg_enum_value *first = values_of(o);

	if (o->type == CFG_UINT) {
		if (o->flags & CFG_ZERO_DEFAULT)
			sb_str(sb, brief ? "0|" : "0 (the default) or ");
		sb_udec(sb, o->min);
		sb_str(sb, "..");
		sb_udec(sb, o->max);
		if (o->multiple) {
			sb_str(sb, brief ? " (x" : " in steps of ");
			sb_udec(sb, o->multiple);
			sb_str(sb, brief ? ")" : "");
		}
	} else if (o->type == CFG_SET || o->type == CFG_LIST) {
		if (brief) {
			put_alone(sb, o, "|");
			sb_str(sb, "<list: ");
			put_names(sb, o, ",");
			sb_str(sb, ">");
		} else {
			put_alone(sb, o, ", or ");
			sb_str(sb, "names separated by commas from: ");
			put_names(sb, o, " ");
		}
	} else if (o->type == CFG_STRING) {
		sb_str(sb, brief ? "<text, at most " : "at most ");
		sb_udec(sb, string_cap(o));
		sb_str(sb, brief ? " bytes>" : " bytes, no control characters");
	} else if (o->type == CFG_BOOL && brief) {
		sb_str(sb, "yes|no");
	} else {
		for (const struct cfg_enum_value *e = first; e && e->name; e++) {
			if (e != first)
				sb_str(sb, brief ? "|" : ", ");
			sb_str(sb, e->name);
		}
	}
}

/* "; accepted: ..." and the end of an option's error message. */
static int err_accepted(struct ctx *c, const struct cfg_option *o)
{
	sb_str(&c->sb, "; accepted: ");
	put_accepted(&c->sb, o, false);
	return err_end(c);
}

/* The uint64_t field of a UINT, BOOL or ENUM option (offsetof() keeps it aligned). */
static void store(struct ctx *c, const struct cfg_option *o, uint64_t v)
{
	*(uint64_t *)((char *)c->settings + o->offset) = v;
}

/* ---- values --------------------------------------------------------------------------------- */

enum num_result { NUM_OK, NUM_INVALID, NUM_OVERFLOW };

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (lower(c) >= 'a' && lower(c) <= 'f')
		return lower(c) - 'a' + 10;
	return -1;
}

/* Decimal or 0x hex, then an optional K/M/G; see lib/config.h. */
static enum num_result parse_uint(const char *p, size_t n, uint64_t *out)
{
	unsigned base = 10, shift = 0;
	size_t i = 0, first;
	uint64_t v = 0;
	bool overflow = false;

	if (n >= 2 && p[0] == '0' && lower(p[1]) == 'x') {
		base = 16;
		i = 2;
	}
	for (first = i; i < n; i++) {
		int d = digit_value(p[i]);
		if (d < 0 || (unsigned)d >= base)
			break;
		/* Keep scanning after an overflow: trailing garbage makes it "not a number". */
		if (v > (UINT64_MAX - (unsigned)d) / base)
			overflow = true;
		v = v * base + (unsigned)d;
	}
	if (i == first)
		return NUM_INVALID;
	if (i < n && base == 10) { /* no suffix on hex: "0x3fg" is a bad digit, not 63 GiB */
		char s = lower(p[i++]);
		shift = s == 'k' ? 10 : s == 'm' ? 20 : s == 'g' ? 30 : 0;
		if (!shift)
			return NUM_INVALID;
	}
	if (i != n)
		return NUM_INVALID;
	if (overflow || v > UINT64_MAX >> shift)
		return NUM_OVERFLOW;
	*out = v << shift;
	return NUM_OK;
}

static int set_uint(struct ctx *c, const struct cfg_option *o, const char *val, size_t n)
{
	uint64_t v = 0;
	enum num_result r = parse_uint(val, n, &v);
	struct sbuf *sb;
	bool plain = true;

	bool in_range = (v >= o->min && v <= o->max) || (v == 0 && (o->flags & CFG_ZERO_DEFAULT));

	if (r == NUM_OK && in_range && (v == 0 || !o->multiple || v % o->multiple == 0)) {
		store(c, o, v);
		return 0;
	}
	sb = err_option(c, o);
	sb_quote(sb, "", val, n, "");
	if (r == NUM_INVALID) {
		sb_str(sb, " is not a number; accepted: ");
		put_accepted(sb, o, false);
		sb_str(sb, " (decimal with an optional K/M/G suffix, or 0x hex)");
		return err_end(c);
	}
	if (r == NUM_OVERFLOW) {
		sb_str(sb, " does not fit in 64 bits");
		return err_accepted(c, o);
	}
	/* Show what hex or a suffix came to, so that "0x10" out of range is not a puzzle. */
	for (size_t i = 0; i < n; i++)
		plain = plain && val[i] >= '0' && val[i] <= '9';
	if (!plain) {
		sb_str(sb, " (= ");
		sb_udec(sb, v);
		sb_putc(sb, ')');
	}
	sb_str(sb, in_range ? " is not a multiple of " : " is out of range");
	if (in_range)
		sb_udec(sb, o->multiple);
	return err_accepted(c, o);
}

static int set_string(struct ctx *c, const struct cfg_option *o, const char *val, size_t n)
{
	char *dst = (char *)c->settings + o->offset;
	struct sbuf *sb;

	if (n > string_cap(o)) {
		sb = err_option(c, o);
		sb_quote(sb, "value ", val, n, " is too long (");
		sb_udec(sb, n);
		sb_str(sb, " bytes)");
		return err_accepted(c, o);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)val[i];
		if (ch < 0x20 || ch == 0x7f) {
			sb_quote(err_option(c, o), "value ", val, n,
				 " contains a control character");
			return err_accepted(c, o);
		}
	}
	for (size_t i = 0; i < n; i++)
		dst[i] = val[i];
	dst[n] = '\0';
	return 0;
}

/* ---- lists and sets ------------------------------------------------------------------------ */

/* A SET's or LIST's name p[0..n): from `values` (*value, *flags, *index = its entry) or from
 * `item` (*value = its index, *flags = 0, *index = entries of values + i). */
static bool find_name(const struct cfg_option *o, const char *p, size_t n, uint64_t *value,
		      unsigned *flags, size_t *index)
{
	size_t k = 0;
	bool explicit_only;
	const char *name;

	for (const struct cfg_enum_value *e = o->values; e && e->name; e++, k++) {
		if (eq_nocase(e->name, p, n)) {
			*value = e->value;
			*flags = e->flags;
			*index = k;
			return true;
		}
	}
	for (unsigned i = 0; o->item && (name = o->item(i, &explicit_only)); i++) {
		if (eq_nocase(name, p, n)) {
			*value = i;
			*flags = 0;
			*index = k + i;
			return true;
		}
	}
	return false;
}

static bool list_add(struct cfg_list *l, uint64_t value)
{
	if (l->n == CFG_LIST_MAX)
		return false;
	l->item[l->n++] = (uint16_t)value;
	return true;
}

/* What CFG_V_ALL stands for: every `item` name not explicit-only, else every plain value.
 * False when they do not all fit (CFG_LIST_MAX): never a silent cut. */
static bool list_all(const struct cfg_option *o, struct cfg_list *l)
{
	bool explicit_only;

	if (o->item) {
		for (unsigned i = 0; o->item(i, &explicit_only); i++)
			if (!explicit_only && !list_add(l, i))
				return false;
		return true;
	}
	for (const struct cfg_enum_value *e = o->values; e && e->name; e++)
		if (!(e->flags & CFG_V_ALONE) && !list_add(l, e->value))
			return false;
	return true;
}

#define USED_WORDS 4 /* duplicates are caught among the first 256 names of a SET or LIST */

static int set_names(struct ctx *c, const struct cfg_option *o, const char *val, size_t n)
{
	struct cfg_list list = {0};
	uint64_t mask = 0, used[USED_WORDS] = {0}; /* names seen, by index (values, then items) */
	size_t i = 0, count = 0;

	for (;;) {
		size_t s = skip_blank(val, i, n), e = find_byte(val + s, n - s, ',') + s;
		size_t te = trim_end(val, s, e), index;
		uint64_t value;
		unsigned flags;

		if (te == s) {
			sb_quote(err_option(c, o), "empty name in ", val, n, "");
			return err_accepted(c, o);
		}
		if (!find_name(o, val + s, te - s, &value, &flags, &index)) {
			sb_quote(err_option(c, o), "unknown ", val + s, te - s, "");
			return err_accepted(c, o);
		}
		if (index < 64 * USED_WORDS && (used[index / 64] >> (index % 64) & 1)) {
			sb_quote(err_option(c, o), "", val + s, te - s, " is given twice");
			return err_accepted(c, o);
		}
		if (index < 64 * USED_WORDS)
			used[index / 64] |= 1ull << (index % 64);
		if ((flags & CFG_V_ALONE) && (count > 0 || e < n)) {
			sb_quote(err_option(c, o), "", val + s, te - s, " must stand alone");
			return err_accepted(c, o);
		}
		if ((flags & CFG_V_ALL) && !list_all(o, &list)) {
			sb_quote(err_option(c, o), "", val + s, te - s, " stands for more than ");
			sb_udec(&c->sb, CFG_LIST_MAX);
			sb_str(&c->sb,
			       " names, more than a list holds; accepted: the names, at most ");
			sb_udec(&c->sb, CFG_LIST_MAX);
			return err_end(c);
		} else if (!(flags & CFG_V_ALL) && !(flags & CFG_V_ALONE) &&
			   !list_add(&list, value)) {
			sb_str(err_option(c, o), "more than ");
			sb_udec(&c->sb, CFG_LIST_MAX);
			sb_str(&c->sb, " names");
			return err_end(c);
		}
		mask |= value;
		count++;
		if (e == n)
			break;
		i = e + 1;
	}
	if (o->type == CFG_SET)
		store(c, o, mask);
	else
		*(struct cfg_list *)((char *)c->settings + o->offset) = list;
	return 0;
}

bool cfg_list_has(const struct cfg_list *l, unsigned value)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->item[i] == value)
			return true;
	return false;
}

uint64_t cfg_list_mask(const struct cfg_list *l)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < l->n; i++)
		if (l->item[i] < 64)
			m |= 1ull << l->item[i];
	return m;
}

/* ---- option names --------------------------------------------------------------------------- */

/* Edit distance between name and p[0..n), ignoring case, or a number > limit once it exceeds
 * limit (names are short: one row of at most DIST_MAX + 1 cells). */
#define DIST_MAX 40
static size_t distance(const char *name, const char *p, size_t n, size_t limit)
{
	size_t row[DIST_MAX + 1], m = 0;

	while (name[m])
		m++;
	if (m > DIST_MAX || n > DIST_MAX)
		return limit + 1;
	for (size_t j = 0; j <= m; j++)
		row[j] = j;
	for (size_t i = 1; i <= n; i++) {
		size_t diag = row[0], best;
		row[0] = i;
		best = row[0];
		for (size_t j = 1; j <= m; j++) {
			size_t up = row[j];
			size_t cost = lower(p[i - 1]) == lower(name[j - 1]) ? 0 : 1;
			size_t v = diag + cost;
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[m];
}

/* "unknown option 'key'", the closest name when it is near (a typo), and every name. */
static int err_unknown_option(struct ctx *c, const char *key, size_t klen)
{
	struct sbuf *sb = err_begin(c);
	const char *best = NULL;
	size_t best_d = 3; /* at most 2 edits */

	sb_quote(sb, "unknown option ", key, klen, "");
	for (size_t i = 0; i < c->nopts; i++) {
		size_t d = distance(c->opts[i].name, key, klen, best_d - 1);
		if (d < best_d) {
			best_d = d;
			best = c->opts[i].name;
		}
	}
	if (best) {
		sb_str(sb, " (did you mean '");
		sb_str(sb, best);
		sb_str(sb, "'?)");
	}
	/* Every name when they fit; else how many (callers list them with cfg_describe_to()). */
	struct sbuf m = {0};
	for (size_t i = 0; i < c->nopts; i++) {
		sb_str(&m, i ? ", " : "");
		sb_str(&m, c->opts[i].name);
	}
	sb_str(sb, "; accepted options: ");
	if (!c->nopts) {
		sb_str(sb, "(none)");
	} else if (sb->len + m.len < sb->size) {
		for (size_t i = 0; i < c->nopts; i++) {
			sb_str(sb, i ? ", " : "");
			sb_str(sb, c->opts[i].name);
		}
	} else {
		sb_udec(sb, c->nopts);
		sb_str(sb, " names, too many to list here");
	}
	return err_end(c);
}

/* A key set a second time in one input: a warning naming both places, if anyone listens. */
static void warn_again(struct ctx *c, const struct cfg_option *o, size_t before)
{
	char text[200];
	struct sbuf sb = {.buf = text, .size = sizeof(text)};

	if (!c->err || !c->err->warn)
		return;
	sb_str(&sb, c->source ? c->source : "config");
	if (c->line) {
		sb_putc(&sb, ':');
		sb_udec(&sb, c->line);
	}
	sb_str(&sb, ": option '");
	sb_str(&sb, o->name);
	sb_str(&sb, "' given again (");
	sb_str(&sb, c->line ? "before at line " : "before as option ");
	sb_udec(&sb, before);
	sb_str(&sb, "): the later value wins");
	sb_finish(&sb);
	c->err->warn(c->err->warn_ctx, text);
}

/*
 * Looks up key and stores the value. has_value is false for a bare command-line `key`; quoted
 * says the value was in double quotes (already removed).
 */
static int apply(struct ctx *c, const char *key, size_t klen, const char *val, size_t vlen,
		 bool has_value, bool quoted)
{
	const struct cfg_option *o = NULL;
	size_t k = 0, where = c->line ? c->line : c->ntok;
	int r;

	for (; k < c->nopts && !o; k++)
		if (eq_nocase(c->opts[k].name, key, klen))
			o = &c->opts[k];
	if (!o)
		return c->ignore_unknown ? 0 : err_unknown_option(c, key, klen);
	k--;
	if (quoted && vlen > sizeof(c->unquoted)) {
		sb_str(err_option(c, o), "the quoted value is too long (");
		sb_udec(&c->sb, vlen);
		sb_str(&c->sb, " bytes); accepted: at most ");
		sb_udec(&c->sb, sizeof(c->unquoted));
		return err_end(c);
	}
	if (quoted) {
		vlen = unescape(val, vlen, c->unquoted);
		val = c->unquoted;
	}
	if (!has_value && o->type == CFG_BOOL) {
		store(c, o, 1);
		r = 0;
	} else if (!has_value || (!quoted && vlen == 0)) {
		sb_str(err_option(c, o), "missing value");
		return err_accepted(c, o);
	} else if (!quoted && find_byte(val, vlen, '"') < vlen) {
		sb_quote(err_option(c, o), "stray '\"' in value ", val, vlen,
			 " (quotes go around the whole value; inside them \\\" is a '\"')");
		return err_accepted(c, o);
	} else if (o->type == CFG_UINT) {
		r = set_uint(c, o, val, vlen);
	} else if (o->type == CFG_STRING) {
		r = set_string(c, o, val, vlen);
	} else if (o->type == CFG_SET || o->type == CFG_LIST) {
		r = set_names(c, o, val, vlen);
	} else {
		const struct cfg_enum_value *e = values_of(o);
		while (e && e->name && !eq_nocase(e->name, val, vlen))
			e++;
		if (!e || !e->name) {
			sb_quote(err_option(c, o), "invalid value ", val, vlen, "");
			return err_accepted(c, o);
		}
		store(c, o, e->value);
		r = 0;
	}
	if (r == 0 && k < CFG_MAX_OPTIONS) {
		if (c->seen[k])
			warn_again(c, o, c->seen[k]);
		c->seen[k] = where;
	}
	return r;
}

/* ---- the two input forms -------------------------------------------------------------------- */

/* One config file line p[0..n), without its line ending. */
static int parse_line(struct ctx *c, const char *p, size_t n)
{
	struct sbuf *sb;
	size_t i, k, ks, ke, v, e;

	if (n > CFG_MAX_LINE) {
		sb = err_begin(c);
		sb_quote(sb, "line ", p, n, " is too long (");
		sb_udec(sb, n);
		sb_str(sb, " bytes); accepted: at most ");
		sb_udec(sb, CFG_MAX_LINE);
		sb_str(sb, " bytes per line");
		return err_end(c);
	}
	if ((i = find_byte(p, n, '\0')) < n) {
		sb = err_begin(c);
		sb_str(sb, "NUL byte at column ");
		sb_udec(sb, i + 1);
		sb_str(sb, "; accepted: plain text only");
		return err_end(c);
	}
	i = skip_blank(p, 0, n);
	if (i == n || p[i] == '#')
		return 0;
	for (k = i; k < n && p[k] != '=' && p[k] != '#';)
		k++;
	if (k == n || p[k] == '#' || trim_end(p, i, k) == i) {
		/* No '=' before any comment, or nothing before the '='. */
		for (e = k; e < n && p[e] != '#';)
			e++;
		sb_quote(err_begin(c), "expected 'key = value', got ", p + i, trim_end(p, i, e) - i,
			 "");
		return err_end(c);
	}
	ks = i;
	ke = trim_end(p, i, k);
	v = skip_blank(p, k + 1, n);
	if (v < n && p[v] == '"') {
		e = closing_quote(p, v + 1, n);
		if (e == n) {
			sb_quote(err_begin(c), "missing closing '\"' in ", p + v,
				 trim_end(p, v, n) - v,
				 "; accepted: \"text\" within one line (\\\" inside it is a '\"')");
			return err_end(c);
		}
		i = skip_blank(p, e + 1, n); /* what follows the closing quote */
		if (i < n && p[i] != '#') {
			sb_quote(err_begin(c), "unexpected ", p + i, trim_end(p, i, n) - i,
				 " after the closing '\"'; accepted: only a '#' comment after it");
			return err_end(c);
		}
		return apply(c, p + ks, ke - ks, p + v + 1, e - v - 1, true, true);
	}
	for (e = v; e < n && p[e] != '#';)
		e++;
	return apply(c, p + ks, ke - ks, p + v, trim_end(p, v, e) - v, true, false);
}

static int run_file(struct ctx *c, const char *text, size_t len)
{
	const unsigned char *u = (const unsigned char *)text;
	struct cfg_error *err = c->err;
	size_t pos = 0;

	if (err)
		err->msg[0] = '\0';
	/* A UTF-8 byte order mark, as some Windows editors write. */
	if (len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf)
		pos = 3;
	while (pos < len) {
		size_t start = pos, end;

		while (pos < len && text[pos] != '\n')
			pos++;
		end = pos;
		if (pos < len)
			pos++; /* the '\n' */
		if (end > start && text[end - 1] == '\r')
			end--;
		c->line++;
		if (parse_line(c, text + start, end - start))
			return -1;
	}
	return 0;
}

static int run_args(struct ctx *c, const char *text, size_t len);

/* One parse of either form; `pick`: keys not in the table are skipped (cfg_pick_*). */
static int run(int (*form)(struct ctx *, const char *, size_t), bool pick,
	       const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
	       size_t len, const char *source, struct cfg_error *err)
{
	struct ctx c = {.opts = opts,
			.nopts = nopts,
			.settings = settings,
			.source = source,
			.err = err,
			.ignore_unknown = pick};
	return form(&c, text, len);
}

int cfg_parse_file(const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
		   size_t len, const char *source, struct cfg_error *err)
{
	return run(run_file, false, opts, nopts, settings, text, len, source, err);
}

int cfg_pick_file(const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
		  size_t len, const char *source, struct cfg_error *err)
{
	return run(run_file, true, opts, nopts, settings, text, len, source, err);
}

int cfg_parse_args(const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
		   size_t len, const char *source, struct cfg_error *err)
{
	return run(run_args, false, opts, nopts, settings, text, len, source, err);
}

int cfg_pick_args(const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
		  size_t len, const char *source, struct cfg_error *err)
{
	return run(run_args, true, opts, nopts, settings, text, len, source, err);
}

static int run_args(struct ctx *c, const char *text, size_t len)
{
	struct cfg_error *err = c->err;
	size_t i = 0;

	if (err)
		err->msg[0] = '\0';
	while (len && text[len - 1] == '\0')
		len--;
	for (;;) {
		size_t start, klen, v = 0, vlen = 0, after = 0;
		bool has_value, quoted = false, unterminated = false;

		while (i < len && is_space(text[i]))
			i++;
		if (i == len)
			return 0;
		start = i;
		while (i < len && !is_space(text[i]) && text[i] != '=')
			i++;
		klen = i - start;
		has_value = i < len && text[i] == '=';
		if (has_value) {
			v = ++i;
			if (i < len && text[i] == '"') {
				/* A quoted value runs to the closing quote, across spaces. */
				quoted = true;
				i = closing_quote(text, i + 1, len);
				unterminated = i == len;
				vlen = i - v - 1;
				i += !unterminated;
				after = i;
			}
			while (i < len && !is_space(text[i]))
				i++;
			if (!quoted)
				vlen = i - v;
		}
		c->tok = text + start;
		c->toklen = i - start;
		if (find_byte(c->tok, c->toklen, '\0') < c->toklen) {
			sb_str(err_begin(c), "NUL byte; accepted: plain text only");
			return err_end(c);
		}
		if (unterminated) {
			sb_str(err_begin(c), "missing closing '\"'; accepted: key=\"text\" (\\\" "
					     "inside it is a '\"')");
			return err_end(c);
		}
		if (quoted && after < i) {
			sb_quote(
			    err_begin(c), "unexpected ", text + after, i - after,
			    " after the closing '\"'; accepted: a space, then the next option");
			return err_end(c);
		}
		if (klen == 0) {
			sb_str(err_begin(c), "missing option name before '='; accepted: key=value");
			return err_end(c);
		}
		c->ntok++;
		if (apply(c, text + start, klen, text + v + quoted, vlen, has_value, quoted))
			return -1;
	}
}

static void describe(const struct cfg_option *opts, size_t nopts, struct sbuf *sb)
{
	size_t width = 0;

	/* First pass: the widest "name=values" up to DESC_WIDTH, measured with a 0-byte buffer. */
	for (size_t i = 0; i < nopts; i++) {
		struct sbuf m = {0};
		sb_str(&m, opts[i].name);
		put_accepted(&m, &opts[i], true);
		if (m.len + 1 > width && m.len + 1 <= DESC_WIDTH)
			width = m.len + 1;
	}
	for (size_t i = 0; i < nopts; i++) {
		size_t start = sb->len;
		sb_str(sb, "  ");
		sb_str(sb, opts[i].name);
		sb_putc(sb, '=');
		put_accepted(sb, &opts[i], true);
		if (opts[i].help && opts[i].help[0]) {
			sb_str(sb, "  ");
			while (sb->len - start < 2 + width + 2)
				sb_putc(sb, ' ');
			sb_str(sb, opts[i].help);
		}
		sb_putc(sb, '\n');
	}
}

size_t cfg_describe(const struct cfg_option *opts, size_t nopts, char *buf, size_t size)
{
	struct sbuf sb = {.buf = buf, .size = size};

	describe(opts, nopts, &sb);
	return sb_finish(&sb);
}

void cfg_describe_to(const struct cfg_option *opts, size_t nopts,
		     void (*put)(void *ctx, const char *s, size_t n), void *ctx)
{
	struct sbuf sb = {.put = put, .ctx = ctx};

	describe(opts, nopts, &sb);
	sb_flush(&sb);
}
