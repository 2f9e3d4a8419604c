/* SPDX-License-Identifier: MIT */
/* UCS-2 to ASCII, load options, config status and the exit option (see text.h). */
#include "boot/text.h"
#include "kernel/boot_info.h"

#define UCS2_NUL	  0x0000
#define UCS2_TAB	  0x0009
#define UCS2_SPACE	  0x0020
#define UCS2_ASCII_LAST	  0x007e /* '~': the last printable ASCII character */
#define UCS2_C1_LAST	  0x009f /* C1 controls run 0x80..0x9f */
#define UCS2_SURROGATE_LO 0xd800 /* surrogates never stand alone in UCS-2 */
#define UCS2_SURROGATE_HI 0xdfff
#define UCS2_NONCHAR_FFFE 0xfffe

#define EFI_SUFFIX     ".efi"
#define EFI_SUFFIX_LEN 4
#define EXIT_KEY       "exit"
#define EXIT_QEMU      "qemu"
#define EXIT_AUTO      "auto"

static uint16_t unit_at(const void *data, size_t i)
{
	uint16_t u;
	__builtin_memcpy(&u, (const uint8_t *)data + i * sizeof(u), sizeof(u));
	return u;
}

static int ascii_printable(uint16_t u)
{
	return u >= UCS2_SPACE && u <= UCS2_ASCII_LAST;
}

/* Printable text: ASCII, tab, or a non-ASCII character that is neither control nor noncharacter. */
static int plausible_unit(uint16_t u)
{
	if (ascii_printable(u) || u == UCS2_TAB)
		return 1;
	if (u <= UCS2_C1_LAST)
		return 0;
	if (u >= UCS2_SURROGATE_LO && u <= UCS2_SURROGATE_HI)
		return 0;
	return u < UCS2_NONCHAR_FFFE;
}

static char to_ascii(uint16_t u)
{
	if (u == UCS2_TAB || ascii_printable(u))
		return (char)u;
	return TEXT_NON_ASCII;
}

size_t ucs2_to_ascii(char *dst, size_t cap, const uint16_t *src, size_t max_units, int *truncated)
{
	size_t n = 0, i = 0;
	for (; i < max_units && src[i] != UCS2_NUL && n + 1 < cap; i++)
		dst[n++] = to_ascii(src[i]);
	dst[n] = '\0';
	if (truncated)
		*truncated = i < max_units && src[i] != UCS2_NUL;
	return n;
}

static int blank(uint16_t u)
{
	return u == UCS2_SPACE || u == UCS2_TAB;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Units [a, b) end in ".efi", case-insensitively. */
static int ends_in_efi(const void *data, size_t a, size_t b)
{
	if (b - a < EFI_SUFFIX_LEN)
		return 0;
	for (size_t k = 0; k < EFI_SUFFIX_LEN; k++)
		if (lower(to_ascii(unit_at(data, b - EFI_SUFFIX_LEN + k))) != EFI_SUFFIX[k])
			return 0;
	return 1;
}

struct load_options_result load_options_to_ascii(const void *data, uint32_t size, int from_shell,
						 char *dst, size_t cap)
{
	struct load_options_result r = {LOAD_OPTIONS_OK, 0, 0, 0, 0};
	dst[0] = '\0';
	if (!data || size == 0)
		return r;
	if (size % sizeof(uint16_t)) {
		r.status = LOAD_OPTIONS_ODD_SIZE;
		return r;
	}
	size_t units = size / sizeof(uint16_t), end = 0;
	while (end < units && unit_at(data, end) != UCS2_NUL)
		end++;
	for (size_t i = 0; i < units; i++) {
		uint16_t u = unit_at(data, i);
		if (i < end ? plausible_unit(u) : u == UCS2_NUL)
			continue;
		r.status = LOAD_OPTIONS_NOT_TEXT;
		r.bad_offset = i * sizeof(uint16_t);
		r.bad_unit = u;
		return r;
	}

	size_t start = 0;
	while (start < end && blank(unit_at(data, start)))
		start++;
	size_t tok_end = start;
	while (tok_end < end && !blank(unit_at(data, tok_end)))
		tok_end++;
	if (tok_end > start && (from_shell || ends_in_efi(data, start, tok_end))) {
		r.dropped_name = 1;
		start = tok_end;
		while (start < end && blank(unit_at(data, start)))
			start++;
	}
	while (end > start && blank(unit_at(data, end - 1)))
		end--;

	size_t n = 0, i = start;
	for (; i < end && n + 1 < cap; i++) {
		uint16_t u = unit_at(data, i);
		dst[n++] = u == UCS2_TAB ? ' ' : to_ascii(u);
	}
	dst[n] = '\0';
	r.truncated = i < end;
	return r;
}

int32_t config_text_status(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			return BOOT_CONFIG_NOT_TEXT;
	return BOOT_CONFIG_OK;
}

const char *config_status_name(int32_t status)
{
	switch (status) {
	case BOOT_CONFIG_OK:
		return "ok";
	case BOOT_CONFIG_ABSENT:
		return "absent";
	case BOOT_CONFIG_TOO_LARGE:
		return "too large";
	case BOOT_CONFIG_READ_ERROR:
		return "read error";
	case BOOT_CONFIG_NOT_TEXT:
		return "not text";
	default:
		return "unknown";
	}
}

static int space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int word_end(char c)
{
	return c == '\0' || c == '#' || space(c);
}

static int starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

/*
 * Finds the last `exit [blanks] = [blanks] value` in s whose key starts a word and is not in a
 * `#` comment; returns 1 if there is one, *is_qemu telling whether the value makes the loader
 * use QEMU's exit device: "qemu" always, "auto" (the kernel's default) when `hypervisor`.
 */
static int last_exit_setting(const char *s, int hypervisor, int *is_qemu)
{
	int found = 0;
	for (size_t i = 0; s[i];) {
		if (s[i] == '#') { /* comment to the end of the line */
			while (s[i] && s[i] != '\n')
				i++;
			continue;
		}
		if ((i > 0 && !space(s[i - 1])) || !starts_with(s + i, EXIT_KEY)) {
			i++;
			continue;
		}
		size_t j = i + sizeof(EXIT_KEY) - 1;
		while (s[j] == ' ' || s[j] == '\t')
			j++;
		if (s[j] != '=') {
			i++;
			continue;
		}
		j++;
		while (s[j] == ' ' || s[j] == '\t')
			j++;
		size_t v = j;
		while (!word_end(s[j]))
			j++;
		found = 1;
		if (j - v == sizeof(EXIT_AUTO) - 1 && starts_with(s + v, EXIT_AUTO))
			*is_qemu = hypervisor;
		else
			*is_qemu = j - v == sizeof(EXIT_QEMU) - 1 && starts_with(s + v, EXIT_QEMU);
		i = j;
	}
	return found;
}

int exit_option_is_qemu(const char *options, const char *config, int hypervisor)
{
	int is_qemu = 0;
	if (options && last_exit_setting(options, hypervisor, &is_qemu))
		return is_qemu;
	if (config && last_exit_setting(config, hypervisor, &is_qemu))
		return is_qemu;
	return hypervisor; /* unset: the kernel's default, exit=auto */
}
