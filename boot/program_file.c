/* SPDX-License-Identifier: MIT */
/*
 * The user program: option `program` (a path on the boot volume, from the config file or the
 * load options, the latter winning) names an ELF file that the loader reads whole into
 * EfiLoaderData pages for the kernel (boot_info.program_*). The loader only reads; the kernel
 * checks the file (lib/elf_user.c) and says what is wrong with it. The option is picked out
 * of the text with the kernel's own parser (lib/config.c), skipping every other key.
 */
#include "boot/loader.h"
#include "lib/config.h"

struct program_option {
	char path[BOOT_PROGRAM_PATH_MAX];
};

static const struct cfg_option program_option[] = {
    {BOOT_PROGRAM_OPTION, CFG_STRING, "user program on the boot volume", 0, 0,
     BOOT_PROGRAM_PATH_MAX, NULL, 0, 0, NULL},
};

static void program_status(struct boot_info *bi, int32_t status, const char *what, EFI_STATUS st)
{
	bi->program_status = status;
	bi->program_phys = bi->program_size = 0;
	if (what)
		Print(L"" LOADER_TAG "program %a: %a: %r\n", bi->program_path, what, st);
}

#define UTF8_TWO_MAX 0x7ff /* the code points UTF-8 writes in two bytes or fewer (RFC 3629) */

/* One UTF-8 character at *p as UCS-2 (what UEFI file names are), *p moved past it; a byte
 * that starts no valid 1-3 byte sequence stands for itself (Latin-1), as before. */
static CHAR16 utf8_char(const char **p)
{
	const unsigned char *s = (const unsigned char *)*p;
	if (s[0] >= 0xc2 && s[0] < 0xe0 && (s[1] & 0xc0) == 0x80) {
		*p += 2;
		return (CHAR16)((s[0] & 0x1f) << 6 | (s[1] & 0x3f));
	}
	if (s[0] >= 0xe0 && s[0] < 0xf0 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80) {
		CHAR16 c = (CHAR16)((s[0] & 0x0f) << 12 | (s[1] & 0x3f) << 6 | (s[2] & 0x3f));
		if (c > UTF8_TWO_MAX) { /* else an overlong form */
			*p += 3;
			return c;
		}
	}
	*p += 1;
	return s[0];
}

/* The option's path as a UEFI path (UTF-8 decoded): '/' becomes '\', a leading '\' is added. */
static void wide_path(const char *p, CHAR16 *out, size_t n)
{
	size_t k = 0;
	if (*p != '\\' && *p != '/' && k + 1 < n)
		out[k++] = L'\\';
	while (*p && k + 1 < n) {
		CHAR16 c = utf8_char(&p);
		out[k++] = c == '/' ? L'\\' : c;
	}
	out[k] = 0;
}

static void read_file(struct boot_info *bi, EFI_FILE_HANDLE file)
{
	UINT64 size = 0;
	EFI_STATUS st = loader_file_size(file, &size);
	if (EFI_ERROR(st)) {
		program_status(bi, BOOT_PROGRAM_READ_ERROR, loader_file_problem(st, true), st);
		return;
	}
	if (size > BOOT_PROGRAM_MAX) {
		bi->program_size = size; /* for the kernel's message */
		bi->program_status = BOOT_PROGRAM_TOO_LARGE;
		return;
	}
	EFI_PHYSICAL_ADDRESS at = 0;
	st = loader_alloc_pages(PAGES(size ? size : 1), &at);
	if (EFI_ERROR(st)) {
		program_status(bi, BOOT_PROGRAM_READ_ERROR, "no memory for it", st);
		return;
	}
	st = loader_read_exact(file, (void *)(UINTN)at, size);
	if (EFI_ERROR(st)) {
		program_status(bi, BOOT_PROGRAM_READ_ERROR, loader_file_problem(st, false), st);
		return;
	}
	bi->program_phys = at;
	bi->program_size = size;
	bi->program_status = BOOT_PROGRAM_OK;
}

static size_t text_length(const char *s)
{
	size_t n = 0;
	while (n < BOOT_OPTIONS_MAX && s[n])
		n++;
	return n;
}

void loader_read_program(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	struct program_option opt = {{0}};
	program_status(bi, BOOT_PROGRAM_NONE, NULL, 0);
	if ((bi->config_status == BOOT_CONFIG_OK &&
	     cfg_pick_file(program_option, 1, &opt, bi->config, bi->config_len, "baretrace.cfg",
			   NULL) != 0) ||
	    cfg_pick_args(program_option, 1, &opt, bi->options, text_length(bi->options),
			  "load options", NULL) != 0) {
		bi->program_status = BOOT_PROGRAM_BAD_OPTION;
		return;
	}
	CopyMem(bi->program_path, opt.path, sizeof(bi->program_path));
	if (!opt.path[0])
		return;
	EFI_FILE_HANDLE root = NULL, file = NULL;
	EFI_STATUS st = loader_open_root(ld, &root);
	if (EFI_ERROR(st) || !root) {
		program_status(bi, BOOT_PROGRAM_READ_ERROR, "cannot open the boot volume", st);
		return;
	}
	CHAR16 path[BOOT_PROGRAM_PATH_MAX + 1];
	wide_path(opt.path, path, sizeof(path) / sizeof(path[0]));
	st = root->Open(root, &file, path, EFI_FILE_MODE_READ, 0);
	if (st == EFI_NOT_FOUND)
		program_status(bi, BOOT_PROGRAM_ABSENT, NULL, st);
	else if (EFI_ERROR(st))
		program_status(bi, BOOT_PROGRAM_READ_ERROR, "cannot open", st);
	else
		read_file(bi, file);
	if (file)
		file->Close(file);
	root->Close(root);
}
