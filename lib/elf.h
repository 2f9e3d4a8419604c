/* SPDX-License-Identifier: MIT */
/*
 * Pure ELF64 logic, shared by the loader and the kernel: validate an image (the embedded kernel,
 * a user program), compute the span of its
 * PT_LOAD segments, copy them to a destination buffer and find the GNU build id. No firmware
 * and no system <elf.h>: it builds freestanding for the loader and on the host for unit tests.
 */
#ifndef LIB_ELF_H
#define LIB_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum elf_status {
	ELF_OK = 0,
	ELF_ERR_TRUNCATED,	/* smaller than an ELF header */
	ELF_ERR_NOT_ELF,	/* no \x7fELF magic */
	ELF_ERR_CLASS,		/* not ELFCLASS64 */
	ELF_ERR_ENDIAN,		/* not little-endian */
	ELF_ERR_VERSION,	/* not EV_CURRENT */
	ELF_ERR_TYPE,		/* not ET_EXEC */
	ELF_ERR_MACHINE,	/* not EM_X86_64 */
	ELF_ERR_PHDR_SIZE,	/* e_phentsize is not sizeof(Elf64_Phdr) */
	ELF_ERR_PHDR_RANGE,	/* program header table outside the file */
	ELF_ERR_NO_LOAD,	/* no PT_LOAD segment */
	ELF_ERR_SEG_FILESZ,	/* a PT_LOAD segment has p_filesz > p_memsz */
	ELF_ERR_SEG_RANGE,	/* a segment's file bytes lie outside the file */
	ELF_ERR_SEG_BELOW_BASE, /* a PT_LOAD segment starts below the virtual base */
	ELF_ERR_SEG_WRAP,	/* a PT_LOAD segment runs past the top of the address space */
	ELF_ERR_ENTRY,		/* e_entry is not inside a PT_LOAD segment */
	ELF_ERR_NOTE,		/* a PT_NOTE segment is malformed */
	ELF_ERR_BUILD_ID_SIZE,	/* the GNU build id is longer than the caller accepts */
	ELF_STATUS_COUNT
};

/* A validated image; fields are set by elf_validate. */
struct elf_image {
	const uint8_t *data;
	uint64_t size;
	uint64_t virt_base; /* the address the destination buffer stands for */
	uint64_t entry;	    /* e_entry */
	uint64_t span;	    /* bytes from virt_base to the end of the last PT_LOAD, 4 KiB rounded */
	unsigned load_count;
	int bad_phdr; /* index of the program header an error is about, else -1 */
	bool dyn;     /* ET_DYN (elf_validate_type with allow_dyn): addresses are offsets */
};

/* Page granularity of the span (the loader allocates and maps whole pages). */
#define ELF_LOAD_PAGE_SIZE 4096u

/*
 * Check that data[0..size) is an ELF64 little-endian x86-64 executable whose PT_LOAD
 * segments all lie at or above virt_base and whose file bytes all lie in the file.
 * On success fills *img; on failure returns the reason (img->bad_phdr names the header).
 */
enum elf_status elf_validate(const void *data, uint64_t size, uint64_t virt_base,
			     struct elf_image *img);
/* The same, also accepting ET_DYN (a position-independent executable) when allow_dyn. */
enum elf_status elf_validate_type(const void *data, uint64_t size, uint64_t virt_base,
				  bool allow_dyn, struct elf_image *img);

/*
 * Zero dest[0..img->span) and copy each PT_LOAD segment's file bytes to
 * dest + (p_vaddr - virt_base). dest must hold img->span bytes.
 */
void elf_load_segments(const struct elf_image *img, void *dest);

/*
 * Find the GNU build id (a PT_NOTE note named "GNU" of type NT_GNU_BUILD_ID). On success
 * *id points into the image and *len is its length; *len is 0 if there is none. A build id
 * longer than max_len is ELF_ERR_BUILD_ID_SIZE; a malformed note ELF_ERR_NOTE.
 */
enum elf_status elf_find_build_id(const struct elf_image *img, size_t max_len, const uint8_t **id,
				  uint32_t *len);
/* Whether a PT_NOTE segment holds a note with this owner name and type (a well-formed one). */
bool elf_has_note(const struct elf_image *img, const char *name, uint32_t type);

/* One program header of a validated image, as the ELF-64 format defines it. */
struct elf_segment {
	uint32_t type, flags; /* p_type (ELF_PT_*), p_flags (ELF_PF_*) */
	uint64_t offset, vaddr, filesz, memsz;
};
#define ELF_PT_LOAD    1
#define ELF_PT_DYNAMIC 2
#define ELF_PT_INTERP  3
#define ELF_PF_X       0x1
#define ELF_PF_W       0x2
#define ELF_PF_R       0x4

/* The number of program headers of a validated image, and header i of them. */
unsigned elf_segment_count(const struct elf_image *img);
void elf_segment_at(const struct elf_image *img, unsigned i, struct elf_segment *out);

/* A sentence naming the problem, for the loader's error message. */
const char *elf_strerror(enum elf_status status);

#endif
