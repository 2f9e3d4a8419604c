/* SPDX-License-Identifier: MIT */
/*
 * Text the loader hands to the kernel: UCS-2 firmware strings and load options converted to
 * ASCII, the config file's status, and the one option the loader itself looks at (exit=qemu,
 * to end a QEMU run when the loader fails). Pure, host-tested.
 */
#ifndef BOOT_TEXT_H
#define BOOT_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define TEXT_NON_ASCII '?' /* stands for any character outside printable ASCII */

/*
 * Converts UCS-2 src (at most max_units units, stopping at a NUL) to ASCII in dst[0..cap),
 * always NUL-terminated (cap > 0). Characters outside printable ASCII become TEXT_NON_ASCII,
 * tabs stay tabs. Returns the length written; *truncated (if not NULL) says whether more
 * characters did not fit.
 */
size_t ucs2_to_ascii(char *dst, size_t cap, const uint16_t *src, size_t max_units, int *truncated);

enum load_options_status {
	LOAD_OPTIONS_OK = 0,   /* converted (possibly empty) */
	LOAD_OPTIONS_ODD_SIZE, /* an odd byte count cannot be UCS-2 */
	LOAD_OPTIONS_NOT_TEXT, /* a control or non-character unit, or data after the NUL */
};

struct load_options_result {
	enum load_options_status status;
	size_t bad_offset; /* byte offset of the offending unit (LOAD_OPTIONS_NOT_TEXT) */
	uint16_t bad_unit; /* its value */
	int dropped_name;  /* the first token (the program's name) was dropped */
	int truncated;	   /* the text did not fit dst */
};

/*
 * Converts UEFI LoadOptions (size bytes of UCS-2, possibly NUL-terminated) into dst[0..cap).
 * Text is plausible when every unit before the first NUL is printable (tab allowed) and every
 * unit after it is NUL; anything else (boot manager entries may carry binary OptionalData)
 * leaves dst empty. The UEFI shell passes the whole command line, program name first: the
 * first token is dropped when from_shell is set (the loader saw the shell's parameters
 * protocol), or when it ends in ".efi" (case-insensitive). Leading and trailing blanks are
 * dropped, tabs become spaces.
 */
struct load_options_result load_options_to_ascii(const void *data, uint32_t size, int from_shell,
						 char *dst, size_t cap);

/* BOOT_CONFIG_NOT_TEXT if buf[0..len) contains a NUL byte, else BOOT_CONFIG_OK. */
int32_t config_text_status(const char *buf, size_t len);

/* "ok", "absent", "too large", "read error", "not text", or "unknown". */
const char *config_status_name(int32_t status);

/*
 * Whether the effective `exit` option ends a failed run through QEMU's exit device: the last
 * `exit = value` in the config text (lines, `#` comments, blanks around `=` allowed),
 * overridden by the last `exit=value` in the load options; `qemu` says yes, `auto` or no
 * setting (the kernel's default) say yes when `hypervisor` (CPUID.01H:ECX[31]), as the kernel
 * does. Either text may be NULL; both are NUL-terminated.
 */
int exit_option_is_qemu(const char *options, const char *config, int hypervisor);

#endif
