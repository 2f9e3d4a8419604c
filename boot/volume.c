/* SPDX-License-Identifier: MIT */
/* Files on the volume the loader was read from: the config file and the user program. */
#include "boot/loader.h"

EFI_STATUS loader_open_root(const struct loader *ld, EFI_FILE_HANDLE *root)
{
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *fs = NULL;
	*root = NULL;
	EFI_STATUS st =
	    BS->HandleProtocol(ld->loaded_image->DeviceHandle, &FileSystemProtocol, (void **)&fs);
	if (EFI_ERROR(st) || !fs)
		return EFI_UNSUPPORTED;
	return fs->OpenVolume(fs, root);
}

EFI_STATUS loader_file_size(EFI_FILE_HANDLE file, UINT64 *size)
{
	EFI_FILE_INFO *info = LibFileInfo(file); /* pool memory, freed below */
	if (!info)
		return EFI_DEVICE_ERROR;
	*size = info->FileSize;
	bool directory = info->Attribute & EFI_FILE_DIRECTORY;
	FreePool(info);
	return directory ? EFI_INVALID_PARAMETER : EFI_SUCCESS;
}

EFI_STATUS loader_read_exact(EFI_FILE_HANDLE file, void *dst, UINT64 size)
{
	UINTN done = 0;
	while (done < size) {
		UINTN chunk = size - done;
		EFI_STATUS st = file->Read(file, &chunk, (uint8_t *)dst + done);
		if (EFI_ERROR(st))
			return st;
		if (chunk == 0)
			return EFI_END_OF_FILE;
		done += chunk;
	}
	return EFI_SUCCESS;
}

const char *loader_file_problem(EFI_STATUS st, bool sizing)
{
	if (sizing)
		return st == EFI_INVALID_PARAMETER ? "is a directory" : "GetInfo failed";
	return st == EFI_END_OF_FILE ? "shorter than its directory entry" : "Read failed";
}
