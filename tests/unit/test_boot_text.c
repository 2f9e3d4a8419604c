// UNIT-SOURCES: boot/text.c
/*
 * The loader's text handling (boot/text.c): UCS-2 to ASCII, UEFI load options (UEFI shell
 * command lines, binary OptionalData, odd sizes, truncation), the config file's NUL check, and
 * the exit=qemu lookup used when the loader fails.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "boot/text.h"
#include "kernel/boot_info.h"

#define MAX_UNITS 2048

/* ASCII -> UCS-2 (with NUL when nul is set); returns the byte count. */
static uint32_t ucs2(uint16_t *dst, const char *s, int nul)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		dst[i] = (uint8_t)s[i];
	if (nul)
		dst[n++] = 0;
	return (uint32_t)(n * sizeof(uint16_t));
}

static void ucs2_conversion(void **state)
{
	(void)state;
	const uint16_t vendor[] = {'E', 'D', 'K', ' ', 'I', 'I', 0};
	const uint16_t odd[] = {'c', 0xe9, 'f', 0x4e2d, '\t', 0x7f, 0x01, 0};
	char out[8];
	int trunc = -1;
	assert_int_equal(ucs2_to_ascii(out, sizeof(out), vendor, SIZE_MAX, &trunc), 6);
	assert_string_equal(out, "EDK II");
	assert_int_equal(trunc, 0);
	assert_int_equal(ucs2_to_ascii(out, sizeof(out), odd, SIZE_MAX, &trunc), 7);
	assert_string_equal(out, "c?f?\t??");
	assert_int_equal(trunc, 0);
	assert_int_equal(ucs2_to_ascii(out, 4, vendor, SIZE_MAX, &trunc), 3);
	assert_string_equal(out, "EDK");
	assert_int_equal(trunc, 1);
	assert_int_equal(ucs2_to_ascii(out, sizeof(out), vendor, 2, &trunc), 2); /* unit limit */
	assert_string_equal(out, "ED");
	assert_int_equal(ucs2_to_ascii(out, 1, vendor, SIZE_MAX, NULL), 0);
	assert_string_equal(out, "");
}

static void plain_options(void **state)
{
	(void)state;
	static uint16_t in[MAX_UNITS];
	char out[BOOT_OPTIONS_MAX];
	struct load_options_result r;

	r = load_options_to_ascii(NULL, 0, 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_OK);
	assert_string_equal(out, "");
	r = load_options_to_ascii(in, ucs2(in, "selftest=all exit=qemu", 1), 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_OK);
	assert_string_equal(out, "selftest=all exit=qemu");
	assert_false(r.dropped_name);
	assert_false(r.truncated);
	/* no NUL terminator, blanks around, a tab inside, trailing NUL padding */
	uint32_t n = ucs2(in, " \tselftest=all\texit=qemu  ", 0);
	r = load_options_to_ascii(in, n, 0, out, sizeof(out));
	assert_string_equal(out, "selftest=all exit=qemu");
	in[n / 2] = in[n / 2 + 1] = 0;
	r = load_options_to_ascii(in, n + 4, 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_OK);
	assert_string_equal(out, "selftest=all exit=qemu");
	/* non-ASCII printable characters are kept as '?' */
	n = ucs2(in, "name=x", 1);
	in[5] = 0xe9;
	r = load_options_to_ascii(in, n, 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_OK);
	assert_string_equal(out, "name=?");
}

static void shell_program_name_is_dropped(void **state)
{
	(void)state;
	static uint16_t in[MAX_UNITS];
	char out[BOOT_OPTIONS_MAX];
	struct load_options_result r;

	r = load_options_to_ascii(in, ucs2(in, "FS0:\\EFI\\BOOT\\BOOTX64.EFI selftest=all", 1), 0,
				  out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_OK);
	assert_true(r.dropped_name);
	assert_string_equal(out, "selftest=all");
	r = load_options_to_ascii(in, ucs2(in, "  baretrace.eFi   a=b  c=d ", 1), 0, out,
				  sizeof(out));
	assert_true(r.dropped_name);
	assert_string_equal(out, "a=b  c=d");
	r = load_options_to_ascii(in, ucs2(in, "bootx64.efi", 1), 0, out, sizeof(out));
	assert_true(r.dropped_name);
	assert_string_equal(out, "");
	/* only a first token ending in .efi goes */
	r = load_options_to_ascii(in, ucs2(in, "a=b x.efi", 1), 0, out, sizeof(out));
	assert_false(r.dropped_name);
	assert_string_equal(out, "a=b x.efi");
	r = load_options_to_ascii(in, ucs2(in, ".efix a=b", 1), 0, out, sizeof(out));
	assert_false(r.dropped_name);
	assert_string_equal(out, ".efix a=b");
	r = load_options_to_ascii(in, ucs2(in, "efi a=b", 1), 0, out, sizeof(out));
	assert_false(r.dropped_name);
	assert_string_equal(out, "efi a=b");
	/* from the shell (its parameters protocol present): the first token goes, whatever it is */
	r = load_options_to_ascii(in, ucs2(in, "baretrace selftest=all", 1), 1, out, sizeof(out));
	assert_true(r.dropped_name);
	assert_string_equal(out, "selftest=all");
	r = load_options_to_ascii(in, ucs2(in, "  fs0:\\x.efi\tselftest=all", 1), 1, out,
				  sizeof(out));
	assert_true(r.dropped_name);
	assert_string_equal(out, "selftest=all");
	r = load_options_to_ascii(in, ucs2(in, "   ", 1), 1, out, sizeof(out));
	assert_false(r.dropped_name);
	assert_string_equal(out, "");
}

static void binary_data_is_refused(void **state)
{
	(void)state;
	static uint16_t in[MAX_UNITS];
	char out[BOOT_OPTIONS_MAX];
	struct load_options_result r;

	uint32_t n = ucs2(in, "selftest=all", 1);
	r = load_options_to_ascii(in, n - 1, 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_ODD_SIZE);
	assert_string_equal(out, "");
	/* a control character */
	in[3] = 0x0001;
	r = load_options_to_ascii(in, n, 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_NOT_TEXT);
	assert_int_equal(r.bad_offset, 6);
	assert_int_equal(r.bad_unit, 1);
	assert_string_equal(out, "");
	/* text, NUL, then more bytes: a boot entry's OptionalData ("WINDOWS\0" + binary) */
	n = ucs2(in, "WINDOWS", 1);
	in[n / 2] = 0x4258;
	r = load_options_to_ascii(in, n + 2, 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_NOT_TEXT);
	assert_int_equal(r.bad_offset, n);
	/* newline, DEL, C1 control, lone surrogate, noncharacter */
	static const uint16_t bad[] = {'\n', 0x7f, 0x85, 0xd800, 0xdfff, 0xfffe, 0xffff};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = ucs2(in, "a=b", 1);
		in[1] = bad[i];
		r = load_options_to_ascii(in, n, 0, out, sizeof(out));
		assert_int_equal(r.status, LOAD_OPTIONS_NOT_TEXT);
		assert_int_equal(r.bad_unit, bad[i]);
	}
}

static void unaligned_options_buffer(void **state)
{
	(void)state;
	static uint8_t raw[64];
	static uint16_t in[32];
	char out[BOOT_OPTIONS_MAX];
	uint32_t n = ucs2(in, "x.efi a=b", 1);
	memcpy(raw + 1, in, n);
	struct load_options_result r = load_options_to_ascii(raw + 1, n, 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_OK);
	assert_string_equal(out, "a=b");
}

static void long_options_are_truncated(void **state)
{
	(void)state;
	static uint16_t in[MAX_UNITS];
	char out[BOOT_OPTIONS_MAX], text[1500];
	memset(text, 'k', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	struct load_options_result r =
	    load_options_to_ascii(in, ucs2(in, text, 1), 0, out, sizeof(out));
	assert_int_equal(r.status, LOAD_OPTIONS_OK);
	assert_true(r.truncated);
	assert_int_equal(strlen(out), BOOT_OPTIONS_MAX - 1);
	text[BOOT_OPTIONS_MAX - 1] = '\0'; /* exactly fits */
	r = load_options_to_ascii(in, ucs2(in, text, 1), 0, out, sizeof(out));
	assert_false(r.truncated);
	assert_int_equal(strlen(out), BOOT_OPTIONS_MAX - 1);
}

static void config_nul_check(void **state)
{
	(void)state;
	assert_int_equal(config_text_status("exit = qemu\n", 12), BOOT_CONFIG_OK);
	assert_int_equal(config_text_status("", 0), BOOT_CONFIG_OK);
	assert_int_equal(config_text_status("exit\0= qemu\n", 12), BOOT_CONFIG_NOT_TEXT);
	assert_int_equal(config_text_status("abc\0", 4), BOOT_CONFIG_NOT_TEXT);
	assert_string_equal(config_status_name(BOOT_CONFIG_OK), "ok");
	assert_string_equal(config_status_name(BOOT_CONFIG_TOO_LARGE), "too large");
	assert_string_equal(config_status_name(BOOT_CONFIG_NOT_TEXT), "not text");
	assert_string_equal(config_status_name(-1), "unknown");
}

static void exit_qemu_lookup(void **state)
{
	(void)state;
	assert_true(exit_option_is_qemu("exit=qemu", NULL, 0));
	assert_true(exit_option_is_qemu("selftest=all exit=qemu", "", 0));
	assert_true(exit_option_is_qemu(NULL, "exit=qemu selftest=all\n", 0));
	assert_true(exit_option_is_qemu("", "# comment\nexit = qemu\nselftest = all\n", 0));
	assert_true(exit_option_is_qemu(NULL, "exit\t=\tqemu# trailing comment\n", 0));
	assert_true(exit_option_is_qemu(NULL, "exit=qemu\r\n", 0));
	assert_false(exit_option_is_qemu(NULL, NULL, 0));
	assert_false(exit_option_is_qemu("", "", 0));
	assert_false(exit_option_is_qemu(NULL, "# exit=qemu\n", 0));
	assert_false(exit_option_is_qemu(NULL, "selftest=all # exit=qemu\n", 0));
	assert_false(exit_option_is_qemu("exit=qemu2", NULL, 0));
	assert_false(exit_option_is_qemu("myexit=qemu", NULL, 0));
	assert_false(exit_option_is_qemu("exit=halt", NULL, 0));
	assert_false(exit_option_is_qemu("exitqemu", NULL, 0));
	assert_false(exit_option_is_qemu("exit=", "exit=qemu", 0)); /* options win, even empty */
	/* the last setting wins; load options override the file */
	assert_true(exit_option_is_qemu(NULL, "exit=halt\nexit=qemu\n", 0));
	assert_false(exit_option_is_qemu(NULL, "exit=qemu\nexit=halt\n", 0));
	assert_false(exit_option_is_qemu("exit=halt", "exit=qemu\n", 0));
	assert_true(exit_option_is_qemu("exit=qemu", "exit=halt\n", 0));
	assert_true(exit_option_is_qemu("selftest=all", "exit=qemu\n", 0));
	/* auto, or nothing set (the kernel's default), follows the hypervisor bit. */
	assert_true(exit_option_is_qemu(NULL, NULL, 1));
	assert_true(exit_option_is_qemu("exit=auto", "exit=halt\n", 1));
	assert_false(exit_option_is_qemu("exit=auto", NULL, 0));
	assert_false(exit_option_is_qemu("exit=halt", NULL, 1));
	assert_false(exit_option_is_qemu(NULL, "exit = reset\n", 1));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(ucs2_conversion),
    cmocka_unit_test(plain_options),
    cmocka_unit_test(shell_program_name_is_dropped),
    cmocka_unit_test(binary_data_is_refused),
    cmocka_unit_test(unaligned_options_buffer),
    cmocka_unit_test(long_options_are_truncated),
    cmocka_unit_test(config_nul_check),
    cmocka_unit_test(exit_qemu_lookup),
};
UNIT_MAIN(tests)
