/* SPDX-License-Identifier: MIT */
/*
 * ELF64 validation and loading for the embedded kernel (see elf.h). The structures and
 * constants below are the ELF-64 Object File Format / System V ABI definitions, spelled out
 * here so this file needs no system header. Headers are copied out with memcpy before use, so
 * an image with misaligned header offsets is rejected or handled, never read misaligned.
 */
#include "lib/elf.h"

#define EI_NIDENT	16
#define EI_CLASS	4
#define EI_DATA		5
#define EI_VERSION	6
#define ELFCLASS64	2
#define ELFDATA2LSB	1
#define EV_CURRENT	1
#define ET_EXEC		2
#define ET_DYN		3
#define EM_X86_64	62
#define PT_LOAD		1
#define PT_NOTE		4
#define NT_GNU_BUILD_ID 3
#define NOTE_ALIGN_MIN	4 /* note name and descriptor padding, unless p_align says 8 */
#define NOTE_ALIGN_MAX	8

static const uint8_t elf_magic[4] = {0x7f, 'E', 'L', 'F'};
static const char gnu_note_name[] = "GNU"; /* namesz 4, NUL included */

struct elf64_ehdr {
	uint8_t e_ident[EI_NIDENT];
	uint16_t e_type;
	uint16_t e_machine;
	uint32_t e_version;
	uint64_t e_entry;
	uint64_t e_phoff;
	uint64_t e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize;
	uint16_t e_phentsize;
	uint16_t e_phnum;
	uint16_t e_shentsize;
	uint16_t e_shnum;
	uint16_t e_shstrndx;
};
_Static_assert(sizeof(struct elf64_ehdr) == 64, "Elf64_Ehdr layout");

struct elf64_phdr {
	uint32_t p_type;
	uint32_t p_flags;
	uint64_t p_offset;
	uint64_t p_vaddr;
	uint64_t p_paddr;
	uint64_t p_filesz;
	uint64_t p_memsz;
	uint64_t p_align;
};
_Static_assert(sizeof(struct elf64_phdr) == 56, "Elf64_Phdr layout");

struct elf64_nhdr {
	uint32_t n_namesz;
	uint32_t n_descsz;
	uint32_t n_type;
};

static const char *const messages[ELF_STATUS_COUNT] = {
    [ELF_OK] = "valid",
    [ELF_ERR_TRUNCATED] = "file too small for an ELF header (truncated)",
    [ELF_ERR_NOT_ELF] = "not an ELF file (no \\x7fELF magic)",
    [ELF_ERR_CLASS] = "not a 64-bit ELF file (EI_CLASS is not ELFCLASS64)",
    [ELF_ERR_ENDIAN] = "not a little-endian ELF file (EI_DATA is not ELFDATA2LSB)",
    [ELF_ERR_VERSION] = "unknown ELF version (not EV_CURRENT)",
    [ELF_ERR_TYPE] = "not an executable (e_type is not ET_EXEC)",
    [ELF_ERR_MACHINE] = "not an x86-64 ELF file (e_machine is not EM_X86_64)",
    [ELF_ERR_PHDR_SIZE] = "program header entry size is not sizeof(Elf64_Phdr)",
    [ELF_ERR_PHDR_RANGE] = "program header table lies outside the file",
    [ELF_ERR_NO_LOAD] = "no PT_LOAD segment",
    [ELF_ERR_SEG_FILESZ] = "PT_LOAD segment has p_filesz > p_memsz",
    [ELF_ERR_SEG_RANGE] = "segment file bytes lie outside the file",
    [ELF_ERR_SEG_BELOW_BASE] = "PT_LOAD segment lies below the kernel virtual base",
    [ELF_ERR_SEG_WRAP] = "PT_LOAD segment runs past the top of the address space",
    [ELF_ERR_ENTRY] = "entry point is not inside a PT_LOAD segment",
    [ELF_ERR_NOTE] = "malformed PT_NOTE segment",
    [ELF_ERR_BUILD_ID_SIZE] = "GNU build id longer than boot_info can carry",
};

const char *elf_strerror(enum elf_status status)
{
	if ((unsigned)status >= ELF_STATUS_COUNT)
		return "unknown ELF loader status";
	return messages[status];
}

static int bytes_equal(const uint8_t *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != (uint8_t)b[i])
			return 0;
	return 1;
}

/* [off, off + len) lies within a file of size bytes (overflow-safe). */
static int in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static void read_phdr(const struct elf_image *img, uint64_t phoff, unsigned i,
		      struct elf64_phdr *ph)
{
	__builtin_memcpy(ph, img->data + phoff + (uint64_t)i * sizeof(*ph), sizeof(*ph));
}

static enum elf_status check_ident(const struct elf64_ehdr *eh, bool allow_dyn)
{
	for (unsigned i = 0; i < sizeof(elf_magic); i++)
		if (eh->e_ident[i] != elf_magic[i])
			return ELF_ERR_NOT_ELF;
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return ELF_ERR_CLASS;
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return ELF_ERR_ENDIAN;
	if (eh->e_ident[EI_VERSION] != EV_CURRENT || eh->e_version != EV_CURRENT)
		return ELF_ERR_VERSION;
	if (eh->e_type != ET_EXEC && !(allow_dyn && eh->e_type == ET_DYN))
		return ELF_ERR_TYPE;
	if (eh->e_machine != EM_X86_64)
		return ELF_ERR_MACHINE;
	if (eh->e_phentsize != sizeof(struct elf64_phdr))
		return ELF_ERR_PHDR_SIZE;
	return ELF_OK;
}

/* Checks one PT_LOAD header; extends *end (exclusive, relative to virt_base) and *entry_ok. */
static enum elf_status check_load(const struct elf_image *img, const struct elf64_phdr *ph,
				  uint64_t entry, uint64_t *end, int *entry_ok)
{
	if (ph->p_filesz > ph->p_memsz)
		return ELF_ERR_SEG_FILESZ;
	if (!in_file(ph->p_offset, ph->p_filesz, img->size))
		return ELF_ERR_SEG_RANGE;
	if (ph->p_vaddr < img->virt_base)
		return ELF_ERR_SEG_BELOW_BASE;
	/* The segment's last byte, p_vaddr + p_memsz - 1, must not wrap past 2^64 - 1. */
	if (ph->p_memsz > 0 && ph->p_memsz - 1 > UINT64_MAX - ph->p_vaddr)
		return ELF_ERR_SEG_WRAP;
	uint64_t seg_end = ph->p_vaddr - img->virt_base + ph->p_memsz;
	/* Rounding the span up to a page must not wrap either. */
	if (seg_end > UINT64_MAX - (ELF_LOAD_PAGE_SIZE - 1))
		return ELF_ERR_SEG_WRAP;
	if (seg_end > *end)
		*end = seg_end;
	if (entry >= ph->p_vaddr && entry - ph->p_vaddr < ph->p_memsz)
		*entry_ok = 1;
	return ELF_OK;
}

enum elf_status elf_validate(const void *data, uint64_t size, uint64_t virt_base,
			     struct elf_image *img)
{
	return elf_validate_type(data, size, virt_base, false, img);
}

enum elf_status elf_validate_type(const void *data, uint64_t size, uint64_t virt_base,
				  bool allow_dyn, struct elf_image *img)
{
	struct elf64_ehdr eh;
	img->data = data;
	img->size = size;
	img->virt_base = virt_base;
	img->entry = 0;
	img->span = 0;
	img->load_count = 0;
	img->bad_phdr = -1;
	img->dyn = false;
	/* A short file that is not ELF at all is "not ELF" rather than "truncated". */
	if (size >= sizeof(elf_magic) &&
	    !bytes_equal(data, (const char *)elf_magic, sizeof(elf_magic)))
		return ELF_ERR_NOT_ELF;
	if (size < sizeof(eh))
		return ELF_ERR_TRUNCATED;
	__builtin_memcpy(&eh, data, sizeof(eh));
	enum elf_status st = check_ident(&eh, allow_dyn);
	if (st != ELF_OK)
		return st;
	img->dyn = eh.e_type == ET_DYN;
	if (!in_file(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(struct elf64_phdr), size))
		return ELF_ERR_PHDR_RANGE;

	uint64_t end = 0;
	int entry_ok = 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		struct elf64_phdr ph;
		read_phdr(img, eh.e_phoff, i, &ph);
		if (ph.p_type == PT_LOAD) {
			st = check_load(img, &ph, eh.e_entry, &end, &entry_ok);
			img->load_count++;
		} else if (ph.p_type == PT_NOTE && !in_file(ph.p_offset, ph.p_filesz, size)) {
			st = ELF_ERR_SEG_RANGE;
		}
		if (st != ELF_OK) {
			img->bad_phdr = (int)i;
			return st;
		}
	}
	if (img->load_count == 0)
		return ELF_ERR_NO_LOAD;
	if (!entry_ok)
		return ELF_ERR_ENTRY;
	img->entry = eh.e_entry;
	img->span = (end + ELF_LOAD_PAGE_SIZE - 1) & ~(uint64_t)(ELF_LOAD_PAGE_SIZE - 1);
	return ELF_OK;
}

static uint16_t phnum(const struct elf_image *img, uint64_t *phoff)
{
	struct elf64_ehdr eh;
	__builtin_memcpy(&eh, img->data, sizeof(eh));
	*phoff = eh.e_phoff;
	return eh.e_phnum;
}

unsigned elf_segment_count(const struct elf_image *img)
{
	uint64_t phoff;
	return phnum(img, &phoff);
}

void elf_segment_at(const struct elf_image *img, unsigned i, struct elf_segment *out)
{
	uint64_t phoff;
	phnum(img, &phoff);
	struct elf64_phdr ph;
	read_phdr(img, phoff, i, &ph);
	*out = (struct elf_segment){ph.p_type,	ph.p_flags,  ph.p_offset,
				    ph.p_vaddr, ph.p_filesz, ph.p_memsz};
}

void elf_load_segments(const struct elf_image *img, void *dest)
{
	uint8_t *d = dest;
	uint64_t phoff;
	uint16_t n = phnum(img, &phoff);
	__builtin_memset(d, 0, img->span); /* bss and the gaps between segments */
	for (unsigned i = 0; i < n; i++) {
		struct elf64_phdr ph;
		read_phdr(img, phoff, i, &ph);
		if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		__builtin_memcpy(d + (ph.p_vaddr - img->virt_base), img->data + ph.p_offset,
				 ph.p_filesz);
	}
}

static uint64_t note_pad(uint64_t n, uint64_t align)
{
	return (n + align - 1) & ~(align - 1);
}

/*
 * Walks the notes of one PT_NOTE segment [p, p + len): a header, the name, then the
 * descriptor and the next note at offsets aligned to 4 (the common case, also in ELF64) or
 * to 8 when the segment says p_align 8 (as .note.gnu.property does).
 */
struct note_want {
	const char *name; /* NUL included in namesz */
	uint32_t namesz, type;
	size_t max_len;
};

static enum elf_status scan_notes(const uint8_t *p, uint64_t len, uint64_t align,
				  const struct note_want *w, const uint8_t **id, uint32_t *id_len,
				  bool *found)
{
	uint64_t off = 0;
	while (off < len) {
		struct elf64_nhdr nh;
		if (len - off < sizeof(nh))
			return ELF_ERR_NOTE;
		__builtin_memcpy(&nh, p + off, sizeof(nh));
		uint64_t name_off = off + sizeof(nh);
		if (nh.n_namesz > len - name_off)
			return ELF_ERR_NOTE;
		/* The descriptor and the next note start at aligned offsets. */
		uint64_t desc_off = note_pad(name_off + nh.n_namesz, align);
		if (nh.n_descsz > 0 && (desc_off > len || nh.n_descsz > len - desc_off))
			return ELF_ERR_NOTE;
		const uint8_t *name = p + name_off, *desc = p + desc_off;
		off = note_pad(desc_off + nh.n_descsz, align);
		if (nh.n_type != w->type || nh.n_namesz != w->namesz ||
		    !bytes_equal(name, w->name, w->namesz))
			continue;
		if (nh.n_descsz > w->max_len)
			return ELF_ERR_BUILD_ID_SIZE;
		*id = desc;
		*id_len = nh.n_descsz;
		*found = true;
		return ELF_OK;
	}
	return ELF_OK;
}

static enum elf_status find_note(const struct elf_image *img, const struct note_want *w,
				 const uint8_t **id, uint32_t *len, bool *found)
{
	uint64_t phoff;
	uint16_t n = phnum(img, &phoff);
	*id = NULL;
	*len = 0;
	*found = false;
	for (unsigned i = 0; i < n; i++) {
		struct elf64_phdr ph;
		read_phdr(img, phoff, i, &ph);
		if (ph.p_type != PT_NOTE)
			continue;
		/* elf_validate checked that the segment lies in the file. */
		uint64_t align = ph.p_align == NOTE_ALIGN_MAX ? NOTE_ALIGN_MAX : NOTE_ALIGN_MIN;
		enum elf_status st =
		    scan_notes(img->data + ph.p_offset, ph.p_filesz, align, w, id, len, found);
		if (st != ELF_OK || *found)
			return st;
	}
	return ELF_OK;
}

enum elf_status elf_find_build_id(const struct elf_image *img, size_t max_len, const uint8_t **id,
				  uint32_t *len)
{
	const struct note_want w = {gnu_note_name, sizeof(gnu_note_name), NT_GNU_BUILD_ID, max_len};
	bool found;
	return find_note(img, &w, id, len, &found);
}

bool elf_has_note(const struct elf_image *img, const char *name, uint32_t type)
{
	uint32_t namesz = 0;
	while (name[namesz])
		namesz++;
	const struct note_want w = {name, namesz + 1, type, UINT32_MAX};
	const uint8_t *desc;
	uint32_t len;
	bool found;
	return find_note(img, &w, &desc, &len, &found) == ELF_OK && found;
}
