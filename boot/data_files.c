/* SPDX-License-Identifier: MIT */
/*
 * The user program's files: every file of BOOT_DATA_DIR on the boot volume (scripts/run --file
 * puts them there), read whole into EfiLoaderData pages for the kernel (boot_info.data[]),
 * which a Linux program opens read-only as /data/NAME. Read only when there is a program.
 * Names are UCS-2 on the volume and UTF-8 for the program.
 */
#include "boot/loader.h"

#define INFO_BYTES   1024  /* one directory entry: EFI_FILE_INFO and its name */
#define UTF8_ONE_MAX 0x7f  /* code points UTF-8 writes in one byte, */
#define UTF8_TWO_MAX 0x7ff /* ... in two (RFC 3629 section 3) */

/* The UCS-2 name as UTF-8 into out[0..n); false when it does not fit. */
static bool utf8_name(const CHAR16 *w, char *out, size_t n)
{
	size_t k = 0;
	for (; *w; w++) {
		unsigned c = *w, len = c <= UTF8_ONE_MAX ? 1 : c <= UTF8_TWO_MAX ? 2 : 3;
		if (k + len + 1 > n)
			return false;
		if (len == 1) {
			out[k++] = (char)c;
		} else if (len == 2) {
			out[k++] = (char)(0xc0 | c >> 6);
			out[k++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[k++] = (char)(0xe0 | c >> 12);
			out[k++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[k++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out[k] = 0;
	return true;
}

static void skip(struct boot_info *bi, const CHAR16 *name, const char *why)
{
	bi->data_skipped++;
	Print(L"" LOADER_TAG "data file %s left out: %a\n", name, why);
}

static void read_one(struct boot_info *bi, EFI_FILE_HANDLE dir, const EFI_FILE_INFO *info)
{
	struct boot_data_file *f = &bi->data[bi->data_count];
	if (bi->data_count == BOOT_DATA_MAX)
		return skip(bi, info->FileName, "more than 16 files");
	if (!utf8_name(info->FileName, f->name, sizeof(f->name)))
		return skip(bi, info->FileName, "a name longer than 63 bytes");
	if (info->FileSize > BOOT_PROGRAM_MAX)
		return skip(bi, info->FileName, "larger than 64 MiB");
	EFI_FILE_HANDLE fh = NULL;
	EFI_PHYSICAL_ADDRESS at = 0;
	UINT64 size = info->FileSize;
	if (EFI_ERROR(dir->Open(dir, &fh, (CHAR16 *)info->FileName, EFI_FILE_MODE_READ, 0)) ||
	    EFI_ERROR(loader_alloc_pages(PAGES(size ? size : 1), &at)) ||
	    EFI_ERROR(loader_read_exact(fh, (void *)(UINTN)at, size))) {
		if (fh)
			fh->Close(fh);
		return skip(bi, info->FileName, "could not be read");
	}
	fh->Close(fh);
	f->phys = at;
	f->size = size;
	bi->data_count++;
}

void loader_read_data(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	bi->data_count = bi->data_skipped = 0;
	EFI_FILE_HANDLE root = NULL, dir = NULL;
	if (bi->program_status != BOOT_PROGRAM_OK || EFI_ERROR(loader_open_root(ld, &root)))
		return;
	if (EFI_ERROR(root->Open(root, &dir, L"" BOOT_DATA_DIR, EFI_FILE_MODE_READ, 0))) {
		root->Close(root);
		return; /* no folder: no files */
	}
	static UINT64 buf[INFO_BYTES / sizeof(UINT64)];
	for (;;) {
		UINTN size = sizeof(buf);
		if (EFI_ERROR(dir->Read(dir, &size, buf)) || size == 0)
			break;
		const EFI_FILE_INFO *info = (const EFI_FILE_INFO *)buf;
		if (!(info->Attribute & EFI_FILE_DIRECTORY))
			read_one(bi, dir, info);
	}
	dir->Close(dir);
	root->Close(root);
}
