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
	EFI_FILE_INFO *info = LibFileInfo(file); /* pool memory, freed below */
	if (!info)
		return read_error(bi, "GetInfo failed", EFI_DEVICE_ERROR);
	UINT64 size = info->FileSize, attr = info->Attribute;
	FreePool(info);
	*file_bytes = size;
	if (attr & EFI_FILE_DIRECTORY)
		return read_error(bi, "is a directory", EFI_INVALID_PARAMETER);
	if (size > sizeof(bi->config) - 1) {
		config_none(bi, BOOT_CONFIG_TOO_LARGE);
		return BOOT_CONFIG_TOO_LARGE;
	}

	UINTN done = 0;
	while (done < size) {
		UINTN chunk = size - done;
		EFI_STATUS st = file->Read(file, &chunk, bi->config + done);
		if (EFI_ERROR(st))
			return read_error(bi, "Read failed", st);
		if (chunk == 0)
			return read_error(bi, "shorter than its directory entry", EFI_END_OF_FILE);
		done += chunk;
	}
	bi->config[done] = '\0';
	bi->config_len = (uint32_t)done;
	bi->config_status = config_text_status(bi->config, done);
	if (bi->config_status != BOOT_CONFIG_OK)
		config_none(bi, bi->config_status);
	return bi->config_status;
}

void loader_read_config(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *fs = NULL;
	EFI_FILE_HANDLE root = NULL, file = NULL;

	config_none(bi, BOOT_CONFIG_ABSENT);
	EFI_STATUS st =
	    BS->HandleProtocol(ld->loaded_image->DeviceHandle, &FileSystemProtocol, (void **)&fs);
	if (EFI_ERROR(st) || !fs) {
		Print(L"" LOADER_TAG "note: the boot device has no file system: no %a\n",
		      BOOT_CONFIG_PATH + 1);
		return;
	}
	st = fs->OpenVolume(fs, &root);
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
