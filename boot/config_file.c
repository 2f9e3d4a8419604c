/* SPDX-License-Identifier: MIT */
/*
 * The config file: BOOT_CONFIG_PATH in the root of the volume the loader was read from, carried
 * verbatim into boot_info.config with a status. The kernel parses it and reports problems; the
 * loader only says why there is no text:
 *   ABSENT     no such file, or the boot device has no file system (e.g. network boot);
 *   TOO_LARGE  more than BOOT_CONFIG_MAX - 1 bytes (nothing is kept);
 *   NOT_TEXT   it contains a NUL byte (nothing is kept);
 *   READ_ERROR anything else (open, info, read failures, a directory of that name).
 */
#include "boot/loader.h"
#include "boot/text.h"

#define CONFIG_PATH_W L"" BOOT_CONFIG_PATH

static void config_none(struct boot_info *bi, int32_t status)
{
	SetMem(bi->config, sizeof(bi->config), 0);
	bi->config_len = 0;
	bi->config_status = status;
}

static int32_t read_error(struct boot_info *bi, const char *what, EFI_STATUS st)
{
	Print(L"" LOADER_TAG "note: config file %a: %a: %r\n", BOOT_CONFIG_PATH + 1, what, st);
	config_none(bi, BOOT_CONFIG_READ_ERROR);
	return BOOT_CONFIG_READ_ERROR;
}

/* Reads an open file into bi->config; returns the status. */
static int32_t read_open_file(struct boot_info *bi, EFI_FILE_HANDLE file, uint64_t *file_bytes)
{
	UINT64 size = 0;
	EFI_STATUS st = loader_file_size(file, &size);
	*file_bytes = size;
	if (EFI_ERROR(st))
		return read_error(bi, loader_file_problem(st, true), st);
	if (size > sizeof(bi->config) - 1) {
		config_none(bi, BOOT_CONFIG_TOO_LARGE);
		return BOOT_CONFIG_TOO_LARGE;
	}
	st = loader_read_exact(file, bi->config, size);
	if (EFI_ERROR(st))
		return read_error(bi, loader_file_problem(st, false), st);
	bi->config[size] = '\0';
	bi->config_len = (uint32_t)size;
	bi->config_status = config_text_status(bi->config, size);
	if (bi->config_status != BOOT_CONFIG_OK)
		config_none(bi, bi->config_status);
	return bi->config_status;
}

void loader_read_config(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	EFI_FILE_HANDLE root = NULL, file = NULL;

	config_none(bi, BOOT_CONFIG_ABSENT);
	EFI_STATUS st = loader_open_root(ld, &root);
	if (st == EFI_UNSUPPORTED) {
		Print(L"" LOADER_TAG "note: the boot device has no file system: no %a\n",
		      BOOT_CONFIG_PATH + 1);
		return;
	}
	if (EFI_ERROR(st)) {
		read_error(bi, "cannot open the boot volume", st);
		return;
	}
	st = root->Open(root, &file, CONFIG_PATH_W, EFI_FILE_MODE_READ, 0);
	if (st == EFI_NOT_FOUND) {
		root->Close(root);
		return; /* ABSENT: not an error */
	}
	if (EFI_ERROR(st)) {
		read_error(bi, "cannot open", st);
		root->Close(root);
		return;
	}
	read_open_file(bi, file, &ld->config_file_bytes);
	file->Close(file);
	root->Close(root);
}
