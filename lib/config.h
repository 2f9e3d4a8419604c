/* SPDX-License-Identifier: MIT */
/*
 * Table-driven option parser for the boot-volume config file and the UEFI load options. The
 * caller describes its options in a table of struct cfg_option, each naming a field of the
 * caller's settings struct by offset; the parsers validate every value against the table and
 * store it there. Pure and self-contained (no other lib/ file): builds freestanding and on the
 * host alike.
 *
 * Option names are matched exactly but case-insensitively, never by prefix. Values:
 *  - CFG_UINT: decimal ("010" is ten, not octal), optionally followed by one binary suffix K, M
 *    or G (either case; x 1024, 1024^2, 1024^3), e.g. "64K"; or "0x" hex, without a suffix
 *    (so that "0x3fg" is a bad digit, not 63 GiB). No sign, no spaces, no trailing text.
 *    Anything past 64 bits is rejected, then the range [min, max] (and 0 as well with
 *    CFG_ZERO_DEFAULT), then `multiple` (when non-zero, the value must be a multiple of it).
 *  - CFG_BOOL: 1/0, yes/no, on/off, true/false, case-insensitive; stored as 1 or 0.
 *  - CFG_ENUM: one of the names in `values`, case-insensitive; stores its `value`.
 *  - CFG_STRING: at most max - 1 bytes without control characters (bytes 0x00-0x1f, 0x7f);
 *    stored NUL-terminated. Bytes >= 0x80 (UTF-8) pass through.
 *  - CFG_SET: names from `values` separated by commas (spaces around them allowed),
 *    case-insensitive; stores the OR of their `value`s in a uint64_t. A name given twice is an
 *    error; a name flagged CFG_V_ALONE ("none") must be the only one.
 *  - CFG_LIST: like CFG_SET, but the names are kept in the order given, in a struct cfg_list:
 *    names from `values` store their `value`; names from `item` (when not NULL) store their
 *    index i. CFG_V_ALL ("all") stands for every `item` name not marked explicit-only, in their
 *    order; CFG_V_ALONE names ("none", "all") must stand alone; "none" stores an empty list.
 * Any value may be enclosed in double quotes, which are removed (the only way to give spaces, a
 * '#' or an empty string). Inside them \" stands for '"' and \\ for '\'; a backslash before any
 * other byte stays, with the byte: a POSIX shell's double quotes (XCU 2.2.3), with '$' and '`'
 * ordinary bytes. So "a \"b c\" d" is the value a "b c" d, as `sh` reads it. A value not in
 * quotes is taken as it is, backslashes included, and may not contain '"'.
 *
 * Both parsers apply settings in order and stop at the first error: options before it have
 * been stored, the faulty one and the rest have not. On error they return -1 with one line of
 * text in err->msg naming the place, the problem and what is accepted, e.g.
 *   baretrace.cfg:5: option 'serial.baud': '7' is out of range; accepted: 50..115200
 *   load options: in 'exit=boom': option 'exit': invalid value 'boom'; accepted: halt, reset
 * Offending text is quoted, cut after 40 bytes ("..."), non-printable bytes shown as '?'; a
 * message that does not fit ends in "...". On success they return 0 and leave err->msg "".
 * `err` may be NULL; `source` names the input in messages ("baretrace.cfg", "load options").
 * Neither parser reads text[len] or beyond; text need not be NUL-terminated.
 */
#ifndef LIB_CONFIG_H
#define LIB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest config file line, in bytes without the line ending ("\n" or "\r\n"): room for a
 * key and any value of 511 bytes (a CFG_STRING of 512), each of its bytes escaped. */
#define CFG_MAX_LINE 2047
/* Longest quoted value, in bytes as written (escapes included), in either input. */
#define CFG_MAX_QUOTED (CFG_MAX_LINE + 1)
/* Most options one table may have (duplicate-key warnings track each one's last line). */
#define CFG_MAX_OPTIONS 96
/* Most names one CFG_LIST holds. */
#define CFG_LIST_MAX 64

enum cfg_type { CFG_UINT, CFG_BOOL, CFG_ENUM, CFG_STRING, CFG_SET, CFG_LIST };

/* cfg_enum_value.flags */
#define CFG_V_ALONE 0x1u /* SET/LIST: must be the only name ("none", "all") */
#define CFG_V_ALL   0x2u /* LIST: every `item` name not marked explicit-only */

struct cfg_enum_value {
	const char *name;
	uint64_t value;
	unsigned flags; /* CFG_V_* */
};

/* cfg_option.flags */
#define CFG_ZERO_DEFAULT 0x1u /* UINT: 0 ("the default") is accepted besides [min, max] */

/* A CFG_LIST option's value: names in the order given (see above). */
struct cfg_list {
	uint16_t n;
	uint16_t item[CFG_LIST_MAX];
};

struct cfg_option {
	const char *name; /* e.g. "serial.baud"; letters, digits, '.', '_', '-' */
	enum cfg_type type;
	const char *help; /* one line, shown by cfg_describe(); may be NULL */
	size_t
	    offset; /* into the settings struct: uint64_t for UINT/BOOL/ENUM, char[] for STRING */
	uint64_t min, max; /* CFG_UINT: inclusive range; CFG_STRING: max = buffer size incl. NUL */
	const struct cfg_enum_value *values; /* ENUM/SET/LIST: terminated by {NULL, 0} */
	unsigned flags;			     /* CFG_ZERO_DEFAULT */
	uint64_t multiple; /* CFG_UINT: 0, or what the value must be a multiple of */
	/* CFG_LIST: the i-th name of a table owned elsewhere (NULL past the last); *explicit_only
	 * says "all" leaves it out. May be NULL: only `values` then. */
	const char *(*item)(unsigned i, bool *explicit_only);
};

/*
 * The error of a failed parse, and the warnings of any parse: `warn`, when the caller set it,
 * is called with one line of text per warning (a key given twice in one input, naming both
 * places), e.g.
 *   baretrace.cfg:7: option 'exit' given again (first at line 2): the later value wins
 * The parsers clear msg and leave warn and warn_ctx as they are.
 */
struct cfg_error {
	char msg[320];
	void (*warn)(void *ctx, const char *line);
	void *warn_ctx;
};

/* Whether list `l` holds `value`; and the OR of 1 << item over its items (items below 64). */
bool cfg_list_has(const struct cfg_list *l, unsigned value);
uint64_t cfg_list_mask(const struct cfg_list *l);

/*
 * Config file text: one `key = value` per line. '#' starts a comment, on a line of its own or
 * after the value (inside double quotes it is part of the value). Blank lines, "\r\n" line
 * ends, and spaces and tabs around keys and values are fine; an unquoted value runs to the
 * comment or line end, inner spaces included. A leading UTF-8 byte order mark is skipped.
 * Errors are located as "source:line". Lines longer than CFG_MAX_LINE, comment lines
 * included, and NUL bytes anywhere are errors.
 */
int cfg_parse_file(const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
		   size_t len, const char *source, struct cfg_error *err);

/*
 * Command line (UEFI load options, already converted to 8-bit text and without the image
 * path): tokens separated by spaces, tabs or line breaks, each `key=value` with no spaces
 * around '=' (the value may be double-quoted, `name="a b"`), or a bare `key`, which is accepted
 * only for a CFG_BOOL option and means true. NUL bytes at the very end of text (load options
 * usually count their terminator) are ignored; elsewhere they are errors. Errors are located by
 * quoting the token. Call it after cfg_parse_file() so that the command line overrides.
 */
int cfg_parse_args(const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
		   size_t len, const char *source, struct cfg_error *err);

/*
 * The same two parsers for a caller that wants only some options (the UEFI loader reads
 * `program` before the kernel parses everything): keys not in the table are skipped, not
 * errors; everything else is as above. Call the file first, then the command line.
 */
int cfg_pick_file(const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
		  size_t len, const char *source, struct cfg_error *err);
int cfg_pick_args(const struct cfg_option *opts, size_t nopts, void *settings, const char *text,
		  size_t len, const char *source, struct cfg_error *err);

/*
 * Help text: one line per option, "  name=<accepted values>  help\n", the help texts aligned.
 * Accepted values read "50..115200", "0|8..64 (x8)", "yes|no", "halt|reset|qemu",
 * "none|<list: a,b,c>" or "<text, at most 31 bytes>". Writes at most size bytes, always
 * NUL-terminated if size > 0 (buf may be NULL when size is 0), and returns the full length
 * like C99 snprintf: a result >= size means cut short.
 */
size_t cfg_describe(const struct cfg_option *opts, size_t nopts, char *buf, size_t size);
/* The same text, of any length, handed to put() in pieces. */
void cfg_describe_to(const struct cfg_option *opts, size_t nopts,
		     void (*put)(void *ctx, const char *s, size_t n), void *ctx);

#endif
