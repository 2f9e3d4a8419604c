/* SPDX-License-Identifier: MIT */
#include "kernel/build_id.h"
#include "lib/bits.h"
#include "lib/fmt.h"

/* ELF note header (System V gABI "Note Section"); NT_GNU_BUILD_ID from the GNU extensions. */
struct elf_note_header {
	uint32_t namesz;
	uint32_t descsz;
	uint32_t type;
};
#define NT_GNU_BUILD_ID 3
#define ELF_NOTE_ALIGN	4

size_t build_id_parse_note(const void *note, size_t len, uint8_t *out, size_t max)
{
	const uint8_t *p = note;
	size_t off = 0;
	while (off + sizeof(struct elf_note_header) <= len) {
		struct elf_note_header h;
		__builtin_memcpy(&h, p + off, sizeof(h));
		size_t name_off = off + sizeof(h);
		size_t desc_off = name_off + ALIGN_UP((uint64_t)h.namesz, ELF_NOTE_ALIGN);
		size_t next = desc_off + ALIGN_UP((uint64_t)h.descsz, ELF_NOTE_ALIGN);
		if (desc_off > len || h.descsz > len - desc_off || next < off)
			return 0;
		const uint8_t *name = p + name_off;
		if (h.type == NT_GNU_BUILD_ID && h.namesz == 4 && name[0] == 'G' &&
		    name[1] == 'N' && name[2] == 'U' && name[3] == 0) {
			if (h.descsz == 0 || h.descsz > max)
				return 0;
			__builtin_memcpy(out, p + desc_off, h.descsz);
			return h.descsz;
		}
		off = next;
	}
	return 0;
}

void build_id_to_hex(const uint8_t *id, size_t n, char *out, size_t size)
{
	size_t pos = 0;
	if (size)
		out[0] = 0;
	for (size_t i = 0; i < n && pos + 3 <= size; i++)
		pos += (size_t)fmt_snprintf(out + pos, size - pos, "%02x", id[i]);
}

#ifndef BT_HOST
extern const uint8_t __build_id_note[];
extern const uint8_t __rodata_end[];

void build_id_hex(char *out, size_t size)
{
	uint8_t id[BUILD_ID_MAX];
	size_t n = build_id_parse_note(__build_id_note, (size_t)(__rodata_end - __build_id_note),
				       id, sizeof(id));
	if (n == 0) {
		fmt_snprintf(out, size, "unknown");
		return;
	}
	build_id_to_hex(id, n, out, size);
}
#endif
