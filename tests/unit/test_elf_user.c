// UNIT-SOURCES: lib/elf_user.c lib/elf.c lib/fmt.c
/*
 * lib/elf_user.c: user programs are checked before anything is mapped. Images are built here
 * with the host's <elf.h> (an independent definition of the layouts); every refusal must name
 * its problem (a word of the message is checked) and a valid program gives its segments.
 */
#include "tests/unit/unit.h"
#include <elf.h>
#include <string.h>
#include "lib/elf_user.h"

#define LO	 0x7e0000000000ull /* the user window */
#define HI	 0x7e0040000000ull
#define BUDGET	 64
#define LINUX_LO 0x10000ull /* the lower half a Linux program gets */
#define LINUX_HI 0x7f0000000000ull
#define PIE_BASE 0x555555554000ull /* a Linux static PIE's base */
#define IMG	 0x3000
#define TEXT_OFF 0x1000
#define DATA_OFF 0x2000
#define DATA_VA	 (LO + 0x2000)
#define DATA_MEM 0x3000

static uint8_t bytes[IMG];
static Elf64_Ehdr *eh;
static Elf64_Phdr *ph;
static char why[256];

/* A valid program: text R-X at LO, data RW- with bss at LO + 0x2000, entry in the text. */
static void make(void)
{
	memset(bytes, 0, sizeof(bytes));
	eh = (Elf64_Ehdr *)bytes;
	ph = (Elf64_Phdr *)(bytes + sizeof(*eh));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = LO + 0x1000 + 0x20;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 2;
	ph[0] = (Elf64_Phdr){PT_LOAD, PF_R | PF_X, TEXT_OFF, LO + 0x1000, 0, 0x100, 0x100, 0x1000};
	ph[1] = (Elf64_Phdr){PT_LOAD, PF_R | PF_W, DATA_OFF, DATA_VA, 0, 0x10, DATA_MEM, 0x1000};
}

static const struct elf_user_limits lim = {LO, HI, LINUX_LO, LINUX_HI, PIE_BASE, BUDGET};

static bool check(struct elf_user_image *u)
{
	return elf_user_check(bytes, sizeof(bytes), &lim, u, why, sizeof(why));
}

static void valid_program(void **state)
{
	(void)state;
	struct elf_user_image u;
	make();
	assert_true(check(&u));
	assert_int_equal(u.n, 2);
	assert_int_equal(u.entry, LO + 0x1020);
	assert_true(u.seg[0].exec && !u.seg[0].write);
	assert_true(u.seg[1].write && !u.seg[1].exec);
	assert_int_equal(u.seg[1].filesz, 0x10);
	assert_int_equal(u.seg[1].memsz, DATA_MEM);
	assert_int_equal(u.lo, LO + 0x1000);
	assert_int_equal(u.hi, DATA_VA + DATA_MEM);
	assert_int_equal(u.pages, 1 + 3);
	assert_int_equal(u.abi, ELF_USER_ABI_BARETRACE); /* linked in the window */
}

/* Linux programs: an ET_EXEC at 0x400000 (where GNU ld links -static), and one anywhere in
 * the lower half, are Linux's ABI, not relocated. */
static void linux_exec_anywhere_in_the_lower_half(void **state)
{
	(void)state;
	static const uint64_t bases[] = {0x400000, LINUX_LO, 0x10000000000ull, LINUX_HI - 0x4000};
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		struct elf_user_image u;
		make();
		uint64_t b = bases[i];
		eh->e_entry = b + 0x20;
		ph[0].p_vaddr = b;
		ph[1].p_vaddr = b + 0x1000;
		ph[1].p_memsz = 0x1000;
		if (!check(&u))
			fail_msg("base %#lx refused: %s", (unsigned long)b, why);
		assert_int_equal(u.abi, ELF_USER_ABI_LINUX);
		assert_int_equal(u.bias, 0);
		assert_int_equal(u.entry, b + 0x20);
		assert_int_equal(u.seg[0].vaddr, b);
	}
}

/* One change to the valid program, and a word its refusal must contain. */
struct bad_case {
	const char *what, *word;
	void (*change)(void);
	size_t size; /* 0: the whole image */
};

static void not_elf(void)
{
	bytes[1] = 'X';
}
static void class32(void)
{
	eh->e_ident[EI_CLASS] = ELFCLASS32;
}
static void big_endian(void)
{
	eh->e_ident[EI_DATA] = ELFDATA2MSB;
}
static void i386(void)
{
	eh->e_machine = EM_386;
}
static void pie(void)
{
	eh->e_type = ET_DYN;
}
static void relocatable(void)
{
	eh->e_type = ET_REL;
}
static void interp(void)
{
	eh->e_phnum = 3;
	ph[2] = (Elf64_Phdr){PT_INTERP, PF_R, 0x40, LO, 0, 0x10, 0x10, 1};
}
static void dynamic(void)
{
	eh->e_phnum = 3;
	ph[2] = (Elf64_Phdr){PT_DYNAMIC, PF_R | PF_W, DATA_OFF, DATA_VA, 0, 0x10, 0x10, 8};
}
static void below_lower_half(void)
{
	ph[0].p_vaddr = LINUX_LO - 0x1000;
	eh->e_entry = ph[0].p_vaddr;
}
static void past_window(void)
{
	ph[1].p_memsz = LINUX_HI - DATA_VA + 1;
}
static void kernel_half(void)
{
	ph[1].p_vaddr = 0xffff800000000000ull;
}
static void overlap(void)
{
	ph[1].p_vaddr = LO + 0x1800, ph[1].p_offset = 0x800;
}
static void misaligned(void)
{
	ph[1].p_offset = DATA_OFF + 8;
}
static void entry_outside(void)
{
	eh->e_entry = LO + 0x100000;
}
static void entry_in_data(void)
{
	eh->e_entry = DATA_VA + 4;
}
static void too_big(void)
{
	ph[1].p_memsz = (BUDGET + 1) * 4096ull;
}
static void filesz_over_memsz(void)
{
	ph[1].p_filesz = DATA_MEM + 1;
}
static void file_bytes_outside(void)
{
	ph[0].p_filesz = ph[0].p_memsz = IMG;
}
static void phdrs_outside(void)
{
	eh->e_phoff = IMG - 8;
}
static void no_load(void)
{
	ph[0].p_type = ph[1].p_type = PT_NOTE;
}
static void nothing(void)
{
}

static const struct bad_case bad[] = {
    {"truncated", "truncated", nothing, 32},
    {"not ELF", "magic", not_elf, 0},
    {"32-bit", "64-bit", class32, 0},
    {"big-endian", "little-endian", big_endian, 0},
    {"i386", "x86-64", i386, 0},
    {"ET_DYN with addresses at the window, not from 0", "past", pie, 0},
    {"a relocatable object (ET_REL)", "neither ET_EXEC nor ET_DYN", relocatable, 0},
    {"interpreter", "dynamically linked", interp, 0},
    {"PT_DYNAMIC", "dynamically linked", dynamic, 0},
    {"below the lower half a Linux program gets", "outside", below_lower_half, 0},
    {"past the lower half", "outside", past_window, 0},
    {"a segment in the kernel's half", "outside", kernel_half, 0},
    {"overlapping segments", "shares a page", overlap, 0},
    {"offset/address modulo the page", "modulo the 4 KiB page", misaligned, 0},
    {"entry outside the segments", "entry point", entry_outside, 0},
    {"entry in a data segment", "executable", entry_in_data, 0},
    {"over the budget", "budget", too_big, 0},
    {"filesz > memsz", "p_filesz > p_memsz", filesz_over_memsz, 0},
    {"file bytes outside the file", "outside the file", file_bytes_outside, 0},
    {"program headers outside the file", "program header table", phdrs_outside, 0},
    {"no PT_LOAD", "no PT_LOAD", no_load, 0},
};

/* Each case: `base` built, one change, refused by elf_user_check with its word in the reason. */
static void refuse_each(const struct bad_case *cases, size_t n, void (*base)(void))
{
	for (size_t i = 0; i < n; i++) {
		struct elf_user_image u;
		base();
		cases[i].change();
		why[0] = '\0';
		print_message("# %s\n", cases[i].what);
		assert_false(elf_user_check(bytes, cases[i].size ? cases[i].size : sizeof(bytes),
					    &lim, &u, why, sizeof(why)));
		if (!strstr(why, cases[i].word))
			fail_msg("%s: '%s' does not say '%s'", cases[i].what, why, cases[i].word);
	}
}

static void bad_programs_are_refused_by_name(void **state)
{
	(void)state;
	refuse_each(bad, sizeof(bad) / sizeof(bad[0]), make);
}

/*
 * A static PIE: the same two segments at link-time addresses from 0 (text 0x1000, data 0x2000),
 * ET_DYN, a PT_DYNAMIC in the data's file bytes (DT_RELA -> two Elf64_Rela entries in the text
 * segment's file bytes, DT_RELASZ, DT_RELAENT, DT_NULL). Relocation k writes at 0x2000 + 8k
 * the value 0x1000 + 0x10k, plus the bias (the x86-64 psABI's R_X86_64_RELATIVE: B + A).
 */
#define DYN_OFF	 (DATA_OFF + 0x100) /* in the file; the data segment covers it below */
#define RELA_OFF (TEXT_OFF + 0x200) /* in the text segment's file bytes: vaddr 0x1200 */
#define RELA_VA	 0x1200
#define NOTE_OFF 0x800 /* the baretrace ABI note (include/baretrace/user.h) */

static Elf64_Dyn *dyn;
static Elf64_Rela *rela;

static void make_pie(void)
{
	make();
	eh->e_type = ET_DYN;
	eh->e_entry = 0x1020;
	eh->e_phnum = 3;
	ph[0] = (Elf64_Phdr){PT_LOAD, PF_R | PF_X, TEXT_OFF, 0x1000, 0, 0x300, 0x300, 0x1000};
	ph[1] = (Elf64_Phdr){PT_LOAD, PF_R | PF_W, DATA_OFF, 0x2000, 0, 0x200, 0x1000, 0x1000};
	ph[2] = (Elf64_Phdr){PT_DYNAMIC,
			     PF_R | PF_W,
			     DYN_OFF,
			     0x2100,
			     0,
			     4 * sizeof(Elf64_Dyn),
			     4 * sizeof(Elf64_Dyn),
			     8};
	dyn = (Elf64_Dyn *)(bytes + DYN_OFF);
	dyn[0] = (Elf64_Dyn){DT_RELA, {RELA_VA}};
	dyn[1] = (Elf64_Dyn){DT_RELASZ, {2 * sizeof(Elf64_Rela)}};
	dyn[2] = (Elf64_Dyn){DT_RELAENT, {sizeof(Elf64_Rela)}};
	dyn[3] = (Elf64_Dyn){DT_NULL, {0}};
	rela = (Elf64_Rela *)(bytes + RELA_OFF);
	rela[0] = (Elf64_Rela){0x2000, ELF64_R_INFO(0, R_X86_64_RELATIVE), 0x1000};
	rela[1] = (Elf64_Rela){0x2008, ELF64_R_INFO(0, R_X86_64_RELATIVE), 0x1010};
	/* The ABI note, as include/baretrace/user.h emits it: "baretrace", type 0x42540001. */
	eh->e_phnum = 4;
	ph[3] = (Elf64_Phdr){PT_NOTE, PF_R, NOTE_OFF, 0, 0, 24, 24, 4};
	Elf64_Nhdr nh = {10, 0, 0x42540001};
	memcpy(bytes + NOTE_OFF, &nh, sizeof(nh));
	memcpy(bytes + NOTE_OFF + sizeof(nh), "baretrace", 10);
}

/* The same PIE without the note is a Linux static PIE: placed at the Linux base, its
 * relocations left to its own start code (any type: it relocates itself). */
static void linux_pie_relocates_itself(void **state)
{
	(void)state;
	struct elf_user_image u;
	make_pie();
	eh->e_phnum = 3;
	rela[1].r_info = ELF64_R_INFO(0, R_X86_64_IRELATIVE);
	if (!check(&u))
		fail_msg("a valid Linux static PIE refused: %s", why);
	assert_int_equal(u.abi, ELF_USER_ABI_LINUX);
	assert_int_equal(u.bias, PIE_BASE);
	assert_int_equal(u.entry, PIE_BASE + 0x1020);
	assert_int_equal(u.rela_count, 0);
	dyn[2] = (Elf64_Dyn){DT_NEEDED, {1}};
	assert_false(check(&u));
	assert_non_null(strstr(why, "DT_NEEDED"));
	dyn[2] = (Elf64_Dyn){DT_RELAENT, {sizeof(Elf64_Rela)}};
	ph[2].p_type = PT_INTERP;
	assert_false(check(&u));
	assert_non_null(strstr(why, "PT_INTERP"));
}

static uint64_t written_va[4], written_value[4];
static unsigned nwritten;

static void record_write(void *ctx, uint64_t va, uint64_t value)
{
	(void)ctx;
	written_va[nwritten] = va;
	written_value[nwritten++] = value;
}

static void pie_is_placed_and_relocated(void **state)
{
	(void)state;
	struct elf_user_image u;
	make_pie();
	if (!check(&u))
		fail_msg("a valid PIE refused: %s", why);
	assert_true(u.elf.dyn);
	assert_int_equal(u.abi, ELF_USER_ABI_BARETRACE);
	assert_int_equal(u.bias, LO);
	assert_int_equal(u.entry, LO + 0x1020);
	assert_int_equal(u.seg[0].vaddr, LO + 0x1000);
	assert_int_equal(u.seg[1].vaddr, LO + 0x2000);
	assert_int_equal(u.rela_count, 2);
	nwritten = 0;
	elf_user_relocate(&u, record_write, NULL);
	assert_int_equal(nwritten, 2);
	assert_int_equal(written_va[0], LO + 0x2000);
	assert_int_equal(written_value[0], LO + 0x1000);
	assert_int_equal(written_va[1], LO + 0x2008);
	assert_int_equal(written_value[1], LO + 0x1010);
}

static void pie_needed(void)
{
	dyn[2] = (Elf64_Dyn){DT_NEEDED, {1}};
}
static void pie_rel(void)
{
	dyn[2] = (Elf64_Dyn){DT_REL, {RELA_VA}};
}
static void pie_reloc_type(void)
{
	rela[1].r_info = ELF64_R_INFO(0, R_X86_64_64);
}
static void pie_reloc_outside(void)
{
	rela[0].r_offset = 0x9000;
}
static void pie_reloc_straddles_end(void)
{
	rela[0].r_offset = 0x2ffc; /* 8 bytes from 4 before the data's end */
}
static void pie_rela_outside_file(void)
{
	dyn[0].d_un.d_ptr = 0x7000;
}
static void pie_interp(void)
{
	ph[2].p_type = PT_INTERP;
}
static void pie_too_high(void)
{
	ph[1].p_vaddr = HI - LO;
	ph[1].p_offset = DATA_OFF;
}

static const struct bad_case bad_pie[] = {
    {"PIE needing a shared library", "DT_NEEDED", pie_needed, 0},
    {"PIE with DT_REL", "DT_REL", pie_rel, 0},
    {"PIE with an R_X86_64_64 relocation", "R_X86_64_RELATIVE", pie_reloc_type, 0},
    {"PIE relocation outside its segments", "outside the program's segments", pie_reloc_outside, 0},
    {"PIE relocation past a segment's end", "outside the program's segments",
     pie_reloc_straddles_end, 0},
    {"PIE relocations not in the file", "not in the file", pie_rela_outside_file, 0},
    {"PIE with an interpreter", "PT_INTERP", pie_interp, 0},
    {"PIE segment past the window", "past baretrace's user window", pie_too_high, 0},
};

static void bad_pies_are_refused_by_name(void **state)
{
	(void)state;
	refuse_each(bad_pie, sizeof(bad_pie) / sizeof(bad_pie[0]), make_pie);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(valid_program),
    cmocka_unit_test(bad_programs_are_refused_by_name),
    cmocka_unit_test(pie_is_placed_and_relocated),
    cmocka_unit_test(linux_exec_anywhere_in_the_lower_half),
    cmocka_unit_test(linux_pie_relocates_itself),
    cmocka_unit_test(bad_pies_are_refused_by_name),
};

UNIT_MAIN(tests)
