/* SPDX-License-Identifier: MIT */
/*
 * The formatter behind kprintf and fmt_snprintf (see lib/fmt.h for the accepted language).
 * Literal runs of the format go to the sink as they are; each conversion is laid out as
 * [spaces][sign or 0x][zeros][body][spaces] and emitted piece by piece, so nothing needs a
 * buffer beyond the digits of one number. Self-contained: needs no other lib/ module.
 */
#include "lib/fmt.h"
#include <stdbool.h>
#include <stdint.h>

_Static_assert(sizeof(uintmax_t) == sizeof(uint64_t), "integers are converted through uint64_t");
_Static_assert(sizeof(ptrdiff_t) == sizeof(size_t), "%zd reads ptrdiff_t, %tu reads size_t");

enum {
	F_LEFT = 1 << 0,  /* '-' */
	F_ZERO = 1 << 1,  /* '0' */
	F_PLUS = 1 << 2,  /* '+' */
	F_SPACE = 1 << 3, /* ' ' */
	F_ALT = 1 << 4,	  /* '#' */
};

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_T, LEN_J };

/* One parsed directive, before any argument is read. */
struct spec {
	unsigned flags;
	int width;	 /* 0 when absent */
	int prec;	 /* -1 when absent */
	bool width_star; /* width comes from an int argument */
	bool prec_star;	 /* precision comes from an int argument */
	enum length len;
	char conv;
};

struct out {
	fmt_sink_fn sink;
	void *ctx;
	size_t count; /* characters produced so far */
};

static void emit(struct out *o, const char *s, size_t n)
{
	if (n > 0) {
		o->sink(o->ctx, s, n);
		o->count += n;
	}
}

/* n copies of c (a space or '0'), in chunks. */
static void emit_fill(struct out *o, char c, size_t n)
{
	static const char spaces[] = "                                ";
	static const char zeros[] = "00000000000000000000000000000000";
	const size_t chunk = sizeof(spaces) - 1;

	while (n > 0) {
		size_t k = n < chunk ? n : chunk;
		emit(o, c == '0' ? zeros : spaces, k);
		n -= k;
	}
}

static size_t bounded_strlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n] != '\0')
		n++;
	return n;
}

/* Decimal digits at *p, stopping (not overflowing) at INT_MAX. */
static int parse_int(const char **p)
{
	int v = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++) {
		int d = **p - '0';
		v = v > (__INT_MAX__ - d) / 10 ? __INT_MAX__ : v * 10 + d;
	}
	return v;
}

/*
 * Parse the directive after its '%'. Returns a pointer past the conversion character, or past
 * the end of the directive when it is not one of ours (then sp->conv is 0 and the caller prints
 * it literally). Reads no argument: '*' is only noted.
 */
static const char *parse_spec(const char *p, struct spec *sp)
{
	*sp = (struct spec){.prec = -1};
	for (;; p++) {
		unsigned f = *p == '-'	 ? F_LEFT
			     : *p == '0' ? F_ZERO
			     : *p == '+' ? F_PLUS
			     : *p == ' ' ? F_SPACE
			     : *p == '#' ? F_ALT
					 : 0;
		if (f == 0)
			break;
		sp->flags |= f;
	}
	if (*p == '*') {
		sp->width_star = true;
		p++;
	} else {
		sp->width = parse_int(&p);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			sp->prec_star = true;
			p++;
		} else {
			sp->prec = parse_int(&p); /* a lone '.' means 0 */
		}
	}
	if (*p == 'h' || *p == 'l') {
		bool twice = p[1] == *p; /* hh, ll */
		sp->len = *p == 'h' ? (twice ? LEN_HH : LEN_H) : (twice ? LEN_LL : LEN_L);
		p += twice ? 2 : 1;
	} else if (*p == 'z' || *p == 't' || *p == 'j') {
		sp->len = *p == 'z' ? LEN_Z : *p == 't' ? LEN_T : LEN_J;
		p++;
	}
	switch (*p) {
	case '\0':
		return p; /* format ends inside the directive */
	case 'd':
	case 'i':
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		sp->conv = *p;
		break;
	case 'c':
	case 's':
	case 'p':
	case '%':
		if (sp->len == LEN_NONE) /* %lc, %ls: no wide characters here */
			sp->conv = *p;
		break;
	}
	return p + 1;
}

/*
 * An integer: v is the magnitude, neg its sign (signed conversions only). C99 rules: a
 * precision is the minimum number of digits (0 with value 0 prints no digits) and disables
 * the '0' flag; '#' makes octal start with 0 and puts 0x/0X before nonzero hex.
 */
static void format_int(struct out *o, const struct spec *sp, uint64_t v, bool neg)
{
	const char *set = sp->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned base = sp->conv == 'o' ? 8 : sp->conv == 'x' || sp->conv == 'X' ? 16 : 10;
	bool is_signed = sp->conv == 'd' || sp->conv == 'i';
	char digits[24]; /* 22 octal digits for 2^64 - 1 */
	size_t nd = 0;
	char prefix[2];
	size_t np = 0;

	if (v != 0 || sp->prec != 0) {
		uint64_t x = v;
		do {
			digits[sizeof(digits) - ++nd] = set[x % base];
			x /= base;
		} while (x != 0);
	}

	if (is_signed && neg)
		prefix[np++] = '-';
	else if (is_signed && (sp->flags & F_PLUS))
		prefix[np++] = '+';
	else if (is_signed && (sp->flags & F_SPACE))
		prefix[np++] = ' ';
	else if (base == 16 && (sp->flags & F_ALT) && v != 0) {
		prefix[np++] = '0';
		prefix[np++] = sp->conv; /* x or X */
	}

	size_t zeros = sp->prec > 0 && (size_t)sp->prec > nd ? (size_t)sp->prec - nd : 0;
	/* '#' with octal: the first digit must be 0. Nonzero values never start with one, and
	 * the value 0 only lacks it when the precision suppressed every digit. */
	if (base == 8 && (sp->flags & F_ALT) && zeros == 0 && (v != 0 || nd == 0))
		zeros = 1;

	size_t len = np + zeros + nd;
	size_t pad = (size_t)sp->width > len ? (size_t)sp->width - len : 0;
	if ((sp->flags & (F_ZERO | F_LEFT)) == F_ZERO && sp->prec < 0) {
		zeros += pad;
		pad = 0;
	}

	if (!(sp->flags & F_LEFT))
		emit_fill(o, ' ', pad);
	emit(o, prefix, np);
	emit_fill(o, '0', zeros);
	emit(o, digits + sizeof(digits) - nd, nd);
	if (sp->flags & F_LEFT)
		emit_fill(o, ' ', pad);
}

/* n characters of s in the field width, space padded on the side '-' says. */
static void format_text(struct out *o, const struct spec *sp, const char *s, size_t n)
{
	size_t pad = (size_t)sp->width > n ? (size_t)sp->width - n : 0;

	if (!(sp->flags & F_LEFT))
		emit_fill(o, ' ', pad);
	emit(o, s, n);
	if (sp->flags & F_LEFT)
		emit_fill(o, ' ', pad);
}

/* The next argument of the type a signed conversion with this length modifier takes. */
static int64_t signed_arg(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z: /* the signed type of size_t's size */
	case LEN_T:
		return va_arg(*ap, ptrdiff_t);
	case LEN_J:
		return va_arg(*ap, intmax_t);
	default:
		return va_arg(*ap, int);
	}
}

/* The same for an unsigned conversion. */
static uint64_t unsigned_arg(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
	case LEN_T: /* the unsigned type of ptrdiff_t's size */
		return va_arg(*ap, size_t);
	case LEN_J:
		return va_arg(*ap, uintmax_t);
	default:
		return va_arg(*ap, unsigned);
	}
}

int fmt_vformat(fmt_sink_fn sink, void *ctx, const char *fmt, va_list ap)
{
	struct out o = {.sink = sink, .ctx = ctx, .count = 0};
	const char *p = fmt;
	va_list args; /* a copy, so that helpers can take its address portably */

	va_copy(args, ap);

	while (*p != '\0') {
		const char *start = p;
		while (*p != '\0' && *p != '%')
			p++;
		emit(&o, start, (size_t)(p - start));
		if (*p == '\0')
			break;

		struct spec sp;
		start = p;
		p = parse_spec(p + 1, &sp);
		if (sp.conv == 0) {
			/* Not a conversion (or cut by the end of fmt): print it as it is. */
			emit(&o, start, (size_t)(p - start));
			continue;
		}
		if (sp.width_star) {
			int w = va_arg(args, int);
			if (w < 0) {
				sp.flags |= F_LEFT;
				w = w == -__INT_MAX__ - 1 ? __INT_MAX__ : -w;
			}
			sp.width = w;
		}
		if (sp.prec_star) {
			int pr = va_arg(args, int);
			sp.prec = pr < 0 ? -1 : pr;
		}

		switch (sp.conv) {
		case 'd':
		case 'i': {
			int64_t v = signed_arg(&args, sp.len);
			/* 0 - (uint64_t)v is the magnitude even for INT64_MIN. */
			format_int(&o, &sp, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
			break;
		}
		case 'u':
		case 'o':
		case 'x':
		case 'X':
			format_int(&o, &sp, unsigned_arg(&args, sp.len), false);
			break;
		case 'c': {
			char c = (char)va_arg(args, int);
			format_text(&o, &sp, &c, 1);
			break;
		}
		case 's': {
			const char *s = va_arg(args, const char *);
			if (s == NULL)
				s = "(null)";
			format_text(&o, &sp, s,
				    bounded_strlen(s, sp.prec < 0 ? SIZE_MAX : (size_t)sp.prec));
			break;
		}
		case 'p': {
			/* 0x and 16 digits, like %#.16lx but also for NULL. */
			uint64_t v = (uintptr_t)va_arg(args, void *);
			char text[18] = {'0', 'x'};
			for (int i = 17; i >= 2; i--, v >>= 4)
				text[i] = "0123456789abcdef"[v & 0xf];
			format_text(&o, &sp, text, sizeof(text));
			break;
		}
		case '%':
			emit(&o, "%", 1);
			break;
		}
	}
	va_end(args);
	return o.count > (size_t)__INT_MAX__ ? __INT_MAX__ : (int)o.count;
}

/* fmt_vsnprintf's sink: keeps what fits in size - 1 bytes, drops the rest. */
struct buf_sink {
	char *buf;
	size_t size; /* > 0 */
	size_t used; /* <= size - 1 */
};

static void buf_sink_write(void *ctx, const char *s, size_t n)
{
	struct buf_sink *b = ctx;
	size_t room = b->size - 1 - b->used;

	if (n > room)
		n = room;
	for (size_t i = 0; i < n; i++)
		b->buf[b->used + i] = s[i];
	b->used += n;
}

static void discard_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	(void)s;
	(void)n;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	if (size == 0)
		return fmt_vformat(discard_sink, NULL, fmt, ap);

	struct buf_sink b = {.buf = buf, .size = size, .used = 0};
	int n = fmt_vformat(buf_sink_write, &b, fmt, ap);
	buf[b.used] = '\0';
	return n;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
