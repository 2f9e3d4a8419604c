// UNIT-SOURCES: lib/elf.c
/*
 * The loader's ELF validation and loading (lib/elf.c): small images built here with the
 * host's <elf.h> (an independent definition of the layouts), every error path, and the real
 * build/kernel.elf when it exists, checked against its section headers and `readelf -n`.
 */
#include "tests/unit/unit.h"
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/elf.h"
#include "kernel/boot_info.h"

#define BASE	   KERNEL_VIRT_BASE
#define IMG_SIZE   0x4000
#define TEXT_OFF   0x1000
#define TEXT_SIZE  0x123
#define DATA_OFF   0x2000
#define DATA_FILE  0x10
#define DATA_MEM   0x3000
#define DATA_VADDR (BASE + 0x2000)
#define NOTE_OFF   0x3000
#define ID_LEN	   20

/* A valid kernel-like image: text, data+bss, and a PT_NOTE with a build id. */
struct test_image {
	uint8_t bytes[IMG_SIZE];
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph; /* [0] text, [1] data, [2] note */
};

static size_t put_note(uint8_t *p, uint32_t type, const char *name, const uint8_t *desc,
		       uint32_t descsz)
{
	Elf64_Nhdr nh = {(uint32_t)strlen(name) + 1, descsz, type};
	size_t off = sizeof(nh);
	memcpy(p, &nh, sizeof(nh));
	memcpy(p + off, name, nh.n_namesz);
	off += (nh.n_namesz + 3) & ~3u;
	memcpy(p + off, desc, descsz);
	return off + ((descsz + 3) & ~3u);
}

static void make_image(struct test_image *t)
{
	memset(t->bytes, 0, sizeof(t->bytes));
	t->eh = (Elf64_Ehdr *)t->bytes;
	t->ph = (Elf64_Phdr *)(t->bytes + sizeof(Elf64_Ehdr));
	memcpy(t->eh->e_ident, ELFMAG, SELFMAG);
	t->eh->e_ident[EI_CLASS] = ELFCLASS64;
	t->eh->e_ident[EI_DATA] = ELFDATA2LSB;
	t->eh->e_ident[EI_VERSION] = EV_CURRENT;
	t->eh->e_type = ET_EXEC;
	t->eh->e_machine = EM_X86_64;
	t->eh->e_version = EV_CURRENT;
	t->eh->e_entry = BASE + 0x10;
	t->eh->e_phoff = sizeof(Elf64_Ehdr);
	t->eh->e_ehsize = sizeof(Elf64_Ehdr);
	t->eh->e_phentsize = sizeof(Elf64_Phdr);
	t->eh->e_phnum = 3;
	t->ph[0] =
	    (Elf64_Phdr){PT_LOAD, PF_R | PF_X, TEXT_OFF, BASE, BASE, TEXT_SIZE, TEXT_SIZE, 0x1000};
	t->ph[1] = (Elf64_Phdr){PT_LOAD,    PF_R | PF_W, DATA_OFF, DATA_VADDR,
				DATA_VADDR, DATA_FILE,	 DATA_MEM, 0x1000};
	for (int i = 0; i < TEXT_SIZE; i++)
		t->bytes[TEXT_OFF + i] = (uint8_t)(i * 7 + 1);
	for (int i = 0; i < DATA_FILE; i++)
		t->bytes[DATA_OFF + i] = (uint8_t)(0xd0 + i);
	uint8_t id[ID_LEN];
	for (int i = 0; i < ID_LEN; i++)
		id[i] = (uint8_t)(0xa0 + i);
	size_t n = put_note(t->bytes + NOTE_OFF, NT_GNU_PROPERTY_TYPE_0, "GNU", id, 8);
	n += put_note(t->bytes + NOTE_OFF + n, NT_GNU_BUILD_ID, "XYZ", id, 4); /* wrong owner */
	n += put_note(t->bytes + NOTE_OFF + n, NT_GNU_BUILD_ID, "GNU", id, ID_LEN);
	t->ph[2] = (Elf64_Phdr){PT_NOTE, PF_R, NOTE_OFF, BASE + 0x1800, 0, n, n, 4};
}

static enum elf_status validate(struct test_image *t, struct elf_image *img)
{
	return elf_validate(t->bytes, sizeof(t->bytes), BASE, img);
}

static void valid_image_loads_and_has_build_id(void **state)
{
	(void)state;
	static struct test_image t;
	struct elf_image img;
	make_image(&t);
	assert_int_equal(validate(&t, &img), ELF_OK);
	assert_int_equal(img.entry, BASE + 0x10);
	assert_int_equal(img.load_count, 2);
	assert_int_equal(img.span, 0x2000 + DATA_MEM); /* to the end of bss, page rounded */
	assert_int_equal(img.bad_phdr, -1);

	uint8_t *dest = malloc(img.span);
	memset(dest, 0xaa, img.span);
	elf_load_segments(&img, dest);
	assert_memory_equal(dest, t.bytes + TEXT_OFF, TEXT_SIZE);
	assert_memory_equal(dest + 0x2000, t.bytes + DATA_OFF, DATA_FILE);
	for (uint64_t i = TEXT_SIZE; i < 0x2000; i++) /* gap between segments */
		assert_int_equal(dest[i], 0);
	for (uint64_t i = 0x2000 + DATA_FILE; i < img.span; i++) /* bss */
		assert_int_equal(dest[i], 0);
	free(dest);

	const uint8_t *id;
	uint32_t len;
	assert_int_equal(elf_find_build_id(&img, BOOT_BUILD_ID_MAX, &id, &len), ELF_OK);
	assert_int_equal(len, ID_LEN);
	for (int i = 0; i < ID_LEN; i++)
		assert_int_equal(id[i], 0xa0 + i);
	assert_int_equal(elf_find_build_id(&img, ID_LEN - 1, &id, &len), ELF_ERR_BUILD_ID_SIZE);
}

static void missing_build_id_is_not_an_error(void **state)
{
	(void)state;
	static struct test_image t;
	struct elf_image img;
	const uint8_t *id;
	uint32_t len = 99;
	make_image(&t);
	t.eh->e_phnum = 2; /* drop the PT_NOTE */
	assert_int_equal(validate(&t, &img), ELF_OK);
	assert_int_equal(elf_find_build_id(&img, BOOT_BUILD_ID_MAX, &id, &len), ELF_OK);
	assert_int_equal(len, 0);
	assert_null(id);
}

static void notes_padded_to_8_when_p_align_is_8(void **state)
{
	(void)state;
	static struct test_image t;
	struct elf_image img;
	const uint8_t *id;
	uint32_t len;
	make_image(&t);
	/*
	 * A property note: 12-byte header + "GNU\0" ends at 16, its 5-byte descriptor is padded
	 * to 8 (with 4-byte padding the next note would be read at 20 instead of 24); then the
	 * build id note at 24: header, name at 36, descriptor at 40.
	 */
	uint8_t *p = t.bytes + NOTE_OFF;
	memset(p, 0, 0x100);
	Elf64_Nhdr a = {4, 5, NT_GNU_PROPERTY_TYPE_0}, b = {4, ID_LEN, NT_GNU_BUILD_ID};
	memcpy(p, &a, sizeof(a));
	memcpy(p + 12, "GNU", 4);
	memset(p + 16, 0xee, 5);
	memcpy(p + 24, &b, sizeof(b)); /* 16 + 8 (5 padded to 8) */
	memcpy(p + 36, "GNU", 4);
	for (int i = 0; i < ID_LEN; i++)
		p[40 + i] = (uint8_t)i;
	t.ph[2].p_filesz = t.ph[2].p_memsz = 40 + 24;
	t.ph[2].p_align = 8;
	assert_int_equal(validate(&t, &img), ELF_OK);
	assert_int_equal(elf_find_build_id(&img, BOOT_BUILD_ID_MAX, &id, &len), ELF_OK);
	assert_int_equal(len, ID_LEN);
	assert_ptr_equal(id, p + 40);
}

static void malformed_note_is_rejected(void **state)
{
	(void)state;
	static struct test_image t;
	struct elf_image img;
	const uint8_t *id;
	uint32_t len;
	make_image(&t);
	Elf64_Nhdr bad = {0x7fffffff, 4, NT_GNU_BUILD_ID}; /* name runs past the segment */
	memcpy(t.bytes + NOTE_OFF, &bad, sizeof(bad));
	assert_int_equal(validate(&t, &img), ELF_OK);
	assert_int_equal(elf_find_build_id(&img, BOOT_BUILD_ID_MAX, &id, &len), ELF_ERR_NOTE);
	t.ph[2].p_filesz = 6; /* shorter than a note header */
	assert_int_equal(validate(&t, &img), ELF_OK);
	assert_int_equal(elf_find_build_id(&img, BOOT_BUILD_ID_MAX, &id, &len), ELF_ERR_NOTE);
}

/* Each header defect gives its own status (and names the program header where there is one). */
static void header_errors_are_distinct(void **state)
{
	(void)state;
	static struct test_image t;
	struct elf_image img;

	make_image(&t);
	assert_int_equal(elf_validate(t.bytes, sizeof(Elf64_Ehdr) - 1, BASE, &img),
			 ELF_ERR_TRUNCATED);
	assert_int_equal(elf_validate(t.bytes, 0, BASE, &img), ELF_ERR_TRUNCATED);
	assert_int_equal(elf_validate("\x7f"
				      "E",
				      2, BASE, &img),
			 ELF_ERR_TRUNCATED);
	assert_int_equal(elf_validate("not an ELF file at all\n", 23, BASE, &img), ELF_ERR_NOT_ELF);
	t.bytes[1] = 'e';
	assert_int_equal(validate(&t, &img), ELF_ERR_NOT_ELF);
	make_image(&t);
	t.eh->e_ident[EI_CLASS] = ELFCLASS32;
	assert_int_equal(validate(&t, &img), ELF_ERR_CLASS);
	make_image(&t);
	t.eh->e_ident[EI_DATA] = ELFDATA2MSB;
	assert_int_equal(validate(&t, &img), ELF_ERR_ENDIAN);
	make_image(&t);
	t.eh->e_version = 2;
	assert_int_equal(validate(&t, &img), ELF_ERR_VERSION);
	make_image(&t);
	t.eh->e_type = ET_DYN;
	assert_int_equal(validate(&t, &img), ELF_ERR_TYPE);
	make_image(&t);
	t.eh->e_machine = EM_386;
	assert_int_equal(validate(&t, &img), ELF_ERR_MACHINE);
	make_image(&t);
	t.eh->e_phentsize = sizeof(Elf32_Phdr);
	assert_int_equal(validate(&t, &img), ELF_ERR_PHDR_SIZE);
	make_image(&t);
	/* file cut inside the program header table */
	assert_int_equal(elf_validate(t.bytes, sizeof(Elf64_Ehdr) + 60, BASE, &img),
			 ELF_ERR_PHDR_RANGE);
	t.eh->e_phoff = UINT64_MAX - 8; /* offset + size overflows */
	assert_int_equal(validate(&t, &img), ELF_ERR_PHDR_RANGE);
	make_image(&t);
	t.ph[0].p_type = PT_NULL;
	t.ph[1].p_type = PT_NULL;
	assert_int_equal(validate(&t, &img), ELF_ERR_NO_LOAD);
}

static void segment_errors_are_distinct(void **state)
{
	(void)state;
	static struct test_image t;
	struct elf_image img;

	make_image(&t);
	t.ph[1].p_filesz = DATA_MEM + 1;
	assert_int_equal(validate(&t, &img), ELF_ERR_SEG_FILESZ);
	assert_int_equal(img.bad_phdr, 1);
	make_image(&t);
	t.ph[1].p_offset = IMG_SIZE - DATA_FILE + 1; /* one byte past the end */
	assert_int_equal(validate(&t, &img), ELF_ERR_SEG_RANGE);
	assert_int_equal(img.bad_phdr, 1);
	t.ph[1].p_offset = UINT64_MAX; /* offset + size overflows */
	assert_int_equal(validate(&t, &img), ELF_ERR_SEG_RANGE);
	make_image(&t);
	t.ph[2].p_offset = IMG_SIZE; /* a note outside the file is also caught */
	assert_int_equal(validate(&t, &img), ELF_ERR_SEG_RANGE);
	assert_int_equal(img.bad_phdr, 2);
	make_image(&t);
	t.ph[0].p_vaddr = BASE - 0x1000;
	assert_int_equal(validate(&t, &img), ELF_ERR_SEG_BELOW_BASE);
	assert_int_equal(img.bad_phdr, 0);
	make_image(&t);
	t.ph[1].p_vaddr = 0xfffffffffffff000ull;
	t.ph[1].p_memsz = 0x2000;
	assert_int_equal(validate(&t, &img), ELF_ERR_SEG_WRAP);
	make_image(&t);
	t.eh->e_entry = BASE + 0x1000; /* the gap between text and data */
	assert_int_equal(validate(&t, &img), ELF_ERR_ENTRY);
	assert_int_equal(img.bad_phdr, -1);
}

static void every_status_has_its_own_message(void **state)
{
	(void)state;
	for (int a = 0; a < ELF_STATUS_COUNT; a++) {
		assert_non_null(elf_strerror(a));
		assert_true(strlen(elf_strerror(a)) > 4);
		for (int b = 0; b < a; b++)
			assert_string_not_equal(elf_strerror(a), elf_strerror(b));
	}
	assert_non_null(elf_strerror(ELF_STATUS_COUNT));
	assert_non_null(elf_strerror((enum elf_status) - 1));
}

/* ---- the real kernel ------------------------------------------------------------------------ */

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(*size ? *size : 1);
	if (fread(buf, 1, *size, f) != *size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* The build id from the .note.gnu.build-id section (section headers: not what the loader uses). */
static size_t build_id_from_sections(const uint8_t *file, const uint8_t **id)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(file + eh->e_shoff);
	const char *names = (const char *)file + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (strcmp(names + sh[i].sh_name, ".note.gnu.build-id") != 0)
			continue;
		const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(file + sh[i].sh_offset);
		*id = (const uint8_t *)(nh + 1) + ((nh->n_namesz + 3) & ~3u);
		return nh->n_descsz;
	}
	return 0;
}

/* The build id as `readelf -n` prints it ("" if readelf is unavailable). */
static void build_id_from_readelf(const char *path, char *hex, size_t size)
{
	char cmd[1024], line[512];
	hex[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		const char *s = strstr(line, "Build ID: ");
		if (s && sscanf(s + 10, "%127[0-9a-f]", hex) == 1 && strlen(hex) < size)
			break;
	}
	pclose(p);
}

static void real_kernel_elf_loads(void **state)
{
	(void)state;
	char path[512];
	const char *build = getenv("BUILD");
	snprintf(path, sizeof(path), "%s/kernel.elf", build && *build ? build : "build");
	size_t size;
	uint8_t *file = read_file(path, &size);
	if (!file) {
		/* Not cmocka's skip(): its TAP "not ok # SKIP" counts as a failure under prove. */
		print_message("# %s not found: real-kernel check not run\n", path);
		return;
	}
	struct elf_image img;
	assert_int_equal(elf_validate(file, size, KERNEL_VIRT_BASE, &img), ELF_OK);

	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(file + eh->e_phoff);
	uint64_t end = 0;
	unsigned loads = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		loads++;
		if (ph[i].p_vaddr + ph[i].p_memsz > end)
			end = ph[i].p_vaddr + ph[i].p_memsz;
	}
	assert_int_equal(img.entry, eh->e_entry);
	assert_int_equal(img.load_count, loads);
	assert_int_equal(img.span, (end - KERNEL_VIRT_BASE + 4095) & ~4095ull);

	uint8_t *dest = malloc(img.span);
	memset(dest, 0xaa, img.span);
	elf_load_segments(&img, dest);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uint8_t *seg = dest + (ph[i].p_vaddr - KERNEL_VIRT_BASE);
		assert_memory_equal(seg, file + ph[i].p_offset, ph[i].p_filesz);
		for (uint64_t b = ph[i].p_filesz; b < ph[i].p_memsz; b++)
			assert_int_equal(seg[b], 0); /* bss */
	}
	free(dest);

	const uint8_t *id, *want;
	uint32_t len;
	assert_int_equal(elf_find_build_id(&img, BOOT_BUILD_ID_MAX, &id, &len), ELF_OK);
	size_t want_len = build_id_from_sections(file, &want);
	assert_true(want_len > 0);
	assert_int_equal(len, want_len);
	assert_memory_equal(id, want, len);
	char hex[128], mine[2 * BOOT_BUILD_ID_MAX + 1];
	for (uint32_t i = 0; i < len; i++)
		sprintf(mine + 2 * i, "%02x", id[i]);
	build_id_from_readelf(path, hex, sizeof(hex));
	if (hex[0])
		assert_string_equal(mine, hex);
	free(file);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(valid_image_loads_and_has_build_id),
    cmocka_unit_test(missing_build_id_is_not_an_error),
    cmocka_unit_test(notes_padded_to_8_when_p_align_is_8),
    cmocka_unit_test(malformed_note_is_rejected),
    cmocka_unit_test(header_errors_are_distinct),
    cmocka_unit_test(segment_errors_are_distinct),
    cmocka_unit_test(every_status_has_its_own_message),
    cmocka_unit_test(real_kernel_elf_loads),
};
UNIT_MAIN(tests)
