/* SPDX-License-Identifier: MIT */
/*
 * test_x86_decode.c's second reference: lib/x86_decode.c against Zydis (Debian's libzydis-dev), an
 * independent decoder: for every instruction of a corpus, the same length, the same branch class
 * (x86_decode.h's kinds, from Zydis's mnemonic and branch type) and, for a direct branch, the same
 * displacement; and where one of the two rejects the bytes, the other does too, or the difference
 * is one that x86_decode.c explains at its line (zy_explained() names them, with the SDM's rule).
 *
 * Corpus, swept linearly (Zydis's length; one byte on where Zydis rejects):
 *   - build/kernel.elf, the user programs (build/tests/programs, build/examples), Debian's
 *     /bin/busybox (busybox-static): every executable section, 64-bit mode, and the kernel's
 *     bytes again as 32-bit and 16-bit code (realistic byte streams for those modes);
 *   - the x86-64 shared objects of /usr/lib/x86_64-linux-gnu in name order, up to
 *     ZYDIS_LIB_FILE_BYTES of code from each (default 96 KiB) and ZYDIS_LIB_BYTES in all
 *     (default 12 MiB); "all" for both in make decode-check: every byte of every one;
 *   - random byte strings and random instruction-shaped encodings, in all three modes.
 * A corpus file that is missing is said (# SKIP) and the rest still runs; the random part and
 * busybox always run, so an empty comparison cannot pass.
 */
#ifndef TESTS_UNIT_TEST_X86_DECODE_ZYDIS_H
#define TESTS_UNIT_TEST_X86_DECODE_ZYDIS_H

#include "tests/unit/unit.h"
#include <Zydis/Zydis.h>
#include <dirent.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/x86_decode.h"
#include "tests/unit/test_x86_decode_random.h"

#define LIB_DIR		       "/usr/lib/x86_64-linux-gnu"
#define LIB_BYTES_DEFAULT      (12u << 20)
#define LIB_FILE_BYTES_DEFAULT (96u << 10)
#define RANDOM_STRINGS	       300000
#define RANDOM_SEED	       0x243f6a8885a308d3ull /* the digits of pi: any fixed value */
#define BUSYBOX		       "/bin/busybox"
#define MIN_BUSYBOX_INSNS      100000
#define MIN_RANDOM_INSNS       100000
#define MAX_SHOWN_FAILURES     40
#define ZY_STATUS_SLOTS	       16		 /* Zydis's status codes (Status.h) fit */
#define KIND_OTHER	       X86_BR_KIND_COUNT /* a Zydis branch with no kind here: a failure */

/* What a comparison saw, per mode. */
struct zy_stats {
	unsigned long insns;				 /* decoded alike */
	unsigned long kinds[X86_BR_KIND_COUNT];		 /* of them, by kind */
	unsigned long rel;				 /* direct-branch displacements compared */
	unsigned long both_reject;			 /* both reject the bytes */
	unsigned long explained;			 /* differences zy_explained() names */
	unsigned long zydis_stricter;			 /* Zydis rejects, x86_decode() decodes */
	unsigned long strict_by_status[ZY_STATUS_SLOTS]; /* of them, by Zydis status code */
	unsigned long failures;
	unsigned long bytes;
};

static const char *const mode_names[] = {"64-bit", "32-bit", "16-bit"};

static void zy_init(ZydisDecoder *d, enum x86_mode mode)
{
	static const ZydisMachineMode zm[] = {ZYDIS_MACHINE_MODE_LONG_64,
					      ZYDIS_MACHINE_MODE_LONG_COMPAT_32,
					      ZYDIS_MACHINE_MODE_LONG_COMPAT_16};
	static const ZydisStackWidth sw[] = {ZYDIS_STACK_WIDTH_64, ZYDIS_STACK_WIDTH_32,
					     ZYDIS_STACK_WIDTH_16};
	assert_true(ZYAN_SUCCESS(ZydisDecoderInit(d, zm[mode], sw[mode])));
}

/* x86_decode.h's branch kind of a Zydis decoding. */
static unsigned zy_kind(const ZydisDecodedInstruction *z)
{
	bool far = z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR, rel = z->raw.imm[0].is_relative;
	switch (z->mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
		return far ? X86_BR_FAR_JMP : rel ? X86_BR_JMP_REL : X86_BR_JMP_IND;
	case ZYDIS_MNEMONIC_CALL:
		return far ? X86_BR_FAR_CALL : rel ? X86_BR_CALL_REL : X86_BR_CALL_IND;
	case ZYDIS_MNEMONIC_RET:
		return far ? X86_BR_FAR_RET : X86_BR_RET;
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_UIRET:
		return X86_BR_IRET;
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
		return X86_BR_INT;
	case ZYDIS_MNEMONIC_SYSCALL:
		return X86_BR_SYSCALL;
	case ZYDIS_MNEMONIC_SYSRET:
		return X86_BR_SYSRET;
	case ZYDIS_MNEMONIC_SYSENTER:
		return X86_BR_SYSENTER;
	case ZYDIS_MNEMONIC_SYSEXIT:
		return X86_BR_SYSEXIT;
	case ZYDIS_MNEMONIC_XBEGIN:
		return X86_BR_XBEGIN;
	/* Not branches here: RSM runs only in SMM (#UD elsewhere, SDM Vol. 2 RSM); XABORT and
	 * XEND end or abort a transaction (a NOP outside one, SDM Vol. 2 XABORT, XEND), where
	 * the abort's landing is no branch of the instruction (Vol. 1 16.3.8); BOUND (16/32-bit
	 * code) raises #BR when out of bounds, an exception as any fault is. */
	case ZYDIS_MNEMONIC_BOUND:
	case ZYDIS_MNEMONIC_RSM:
	case ZYDIS_MNEMONIC_XABORT:
	case ZYDIS_MNEMONIC_XEND:
		return X86_BR_NONE;
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ:
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
		return X86_BR_JCXZ_LOOP;
	default:
		break;
	}
	switch (z->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return X86_BR_JCC;
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return KIND_OTHER;
	default:
		return X86_BR_NONE;
	}
}

/*
 * Differences x86_decode.c explains at its line, with the SDM's rule; anything else is a
 * failure. `rc` is x86_decode_mode's result, `zs` Zydis's status. Returns the reason, or NULL.
 */
static const char *zy_explained(const uint8_t *p, size_t avail, const struct x86_insn *in, int rc,
				ZyanStatus zs, const ZydisDecodedInstruction *z)
{
	bool zok = ZYAN_SUCCESS(zs);
	/* ERETU/ERETS (F3/F2 0F 01 CA, FRED) and UIRET postdate Zydis 4.0 for the former: it
	 * reads F3/F2 0F 01 CA as CLAC with an ignored prefix. x86_decode.c classify(). */
	if (zok && rc == 0 && in->branch == X86_BR_IRET && in->opcode_map == X86_MAP_0F &&
	    in->modrm == 0xca && z->mnemonic == ZYDIS_MNEMONIC_CLAC)
		return "FRED ERETU/ERETS";
	/* 3DNow! (0F 0F): Zydis knows only the defined suffixes; x86_decode.c reads any suffix
	 * byte (tables: "decoded for their length as objdump does"). */
	if (!zok && rc == 0 && (in->prefixes & X86_PFX_3DNOW))
		return "3DNow! suffix";
	/* Knights Corner (Xeon Phi x100) only: MVEX (62 with EVEX.P1 bit 2 clear, #UD on every
	 * other processor: SDM Vol. 2A 2.7.1) and KNC's VEX mask branches (JKZD, JKNZD: VEX map 1
	 * opcodes 84/85, unassigned in the SDM's Table A-3). x86_decode.c decode_vex(). */
	if (zok && (z->encoding == ZYDIS_INSTRUCTION_ENCODING_MVEX ||
		    z->meta.isa_ext == ZYDIS_ISA_EXT_KNCV ||
		    z->meta.isa_ext == ZYDIS_ISA_EXT_KNCE || z->meta.isa_ext == ZYDIS_ISA_EXT_KNC))
		return "Knights Corner";
	/* VIA PadLock (F3 0F A6/A7: XSHA1, XCRYPT...): 0F A6 and A7 are reserved in the SDM's
	 * Table A-3, #UD on Intel; x86_decode_tables.c marks them X. */
	if (zok && rc == X86_E_INVALID && z->meta.isa_ext == ZYDIS_ISA_EXT_PADLOCK)
		return "VIA PadLock";
	/* 0F 0D (PREFETCH group) with ModRM.mod = 11b: Zydis decodes Intel XED's reserved NOP;
	 * x86_decode.c group_rules() rejects it as AMD's APM (PREFETCH: #UD for a register
	 * operand) and QEMU (target/i386/tcg/translate.c 0F 0D: mod 3 is illegal_op) do. */
	if (zok && rc == X86_E_INVALID && z->opcode_map == ZYDIS_OPCODE_MAP_0F &&
	    z->opcode == 0x0d && z->raw.modrm.mod == 3)
		return "0F 0D register form";
	(void)p;
	(void)avail;
	return NULL;
}

/*
 * Where Zydis rejects bytes that x86_decode() decodes: the rules x86_decode.c does not check
 * (its header: validity only where the opcode and ModRM decide it as named there, not
 * per-instruction prefix rules). Accepted: an opcode, ModRM or mandatory prefix combination
 * that is undefined (DECODING_ERROR) outside the one-byte map, or an x87 escape (D8-DF) with a
 * reserved ModRM (SDM Tables ); LOCK where the instruction takes none; a register
 * an instruction cannot name (MOV to CR1, ...); a legacy prefix or REX the instruction
 * forbids; an EVEX payload bit or mask the instruction forbids. Never accepted: Zydis saying
 * the bytes run out or past 15 (x86_decode() says so too), or an undefined one-byte opcode.
 */
static bool zy_lenient(ZyanStatus zs, const struct x86_insn *in)
{
	switch (zs) {
	case ZYDIS_STATUS_DECODING_ERROR:
		return in->opcode_map != X86_MAP_ONE_BYTE ||
		       (in->opcode >= 0xd8 && in->opcode <= 0xdf);
	case ZYDIS_STATUS_ILLEGAL_LOCK:
	case ZYDIS_STATUS_BAD_REGISTER:
	case ZYDIS_STATUS_ILLEGAL_LEGACY_PFX:
	case ZYDIS_STATUS_ILLEGAL_REX:
	case ZYDIS_STATUS_MALFORMED_EVEX:
	case ZYDIS_STATUS_INVALID_MASK:
		return true;
	default:
		return false;
	}
}

static void zy_fail(struct zy_stats *st, const char *what, uint64_t addr, const uint8_t *p,
		    size_t avail, const char *why)
{
	if (st->failures++ >= MAX_SHOWN_FAILURES)
		return;
	char hex[3 * X86_MAX_INSN_LENGTH + 1] = "";
	for (size_t i = 0; i < avail && i < X86_MAX_INSN_LENGTH; i++)
		snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x ", p[i]);
	print_message("# MISMATCH %s %#llx: %s: %s\n", what, (unsigned long long)addr, hex, why);
}

/*
 * The parts the software PMU computes data addresses from (lib/x86_mem.c): ModRM and SIB
 * present, the displacement's size and value, the immediates' bytes. Zydis keeps the moffs of
 * A0-A3 as a displacement (x86_decode.h: in imm) and a 3DNow! opcode suffix as an opcode
 * (x86_decode.h: an imm8).
 */
static bool zy_fields_differ(const struct x86_insn *in, const ZydisDecodedInstruction *z, char *why,
			     size_t size)
{
	bool moffs = in->opcode_map == X86_MAP_ONE_BYTE && in->opcode >= 0xa0 &&
		     in->opcode <= 0xa3 &&
		     !(in->prefixes & (X86_PFX_VEX | X86_PFX_EVEX | X86_PFX_XOP));
	unsigned zdisp = z->raw.disp.size / 8, zimm = (z->raw.imm[0].size + z->raw.imm[1].size) / 8;
	unsigned disp = moffs ? in->imm_size : in->disp_size;
	unsigned imm = moffs ? 0 : in->imm_size + in->imm2_size;
	if (in->prefixes & X86_PFX_3DNOW)
		imm -= 1;
	int64_t dval = moffs ? (int64_t)z->raw.disp.value : (int64_t)in->disp;
	bool zmodrm = z->attributes & ZYDIS_ATTRIB_HAS_MODRM,
	     zsib = z->attributes & ZYDIS_ATTRIB_HAS_SIB;
	if (in->has_modrm == zmodrm && in->has_sib == zsib && disp == zdisp && imm == zimm &&
	    (!zdisp || dval == z->raw.disp.value) &&
	    (!in->has_modrm ||
	     in->modrm == ((z->raw.modrm.mod << 6) | (z->raw.modrm.reg << 3) | z->raw.modrm.rm)))
		return false;
	snprintf(why, size, "modrm %d sib %d disp %u (%lld) imm %u; Zydis %d %d %u (%lld) %u",
		 in->has_modrm, in->has_sib, disp, (long long)dval, imm, zmodrm, zsib, zdisp,
		 (long long)z->raw.disp.value, zimm);
	return true;
}

/* Compare one instruction at p; returns the bytes to advance. */
static size_t zy_one(const ZydisDecoder *d, enum x86_mode mode, const uint8_t *p, size_t avail,
		     uint64_t addr, const char *what, struct zy_stats *st)
{
	ZydisDecodedInstruction z;
	struct x86_insn in;
	ZyanStatus zs = ZydisDecoderDecodeInstruction(d, NULL, p, avail, &z);
	int rc = x86_decode_mode(p, avail, mode, &in);
	bool zok = ZYAN_SUCCESS(zs);
	char why[160];
	if (!zok && rc != 0) {
		st->both_reject++;
		return 1;
	}
	if (zy_explained(p, avail, &in, rc, zs, &z)) {
		st->explained++;
		return zok ? z.length : in.length;
	}
	if (!zok) {
		if (zy_lenient(zs, &in)) {
			st->zydis_stricter++;
			st->strict_by_status[ZYAN_STATUS_CODE(zs) & (ZY_STATUS_SLOTS - 1)]++;
			return 1;
		}
		snprintf(why, sizeof(why), "Zydis rejects (status %#x), x86_decode: %u bytes",
			 (unsigned)zs, in.length);
		zy_fail(st, what, addr, p, avail, why);
		return 1;
	}
	unsigned kind = zy_kind(&z);
	if (rc != 0) {
		snprintf(why, sizeof(why), "Zydis: %u bytes, x86_decode: error %d", z.length, rc);
		zy_fail(st, what, addr, p, avail, why);
	} else if (in.length != z.length || in.branch != kind) {
		snprintf(why, sizeof(why), "length %u kind %s, Zydis %u kind %s (mnemonic %s)",
			 in.length, x86_branch_name(in.branch), z.length,
			 x86_branch_name((enum x86_branch_kind)kind),
			 ZydisMnemonicGetString(z.mnemonic));
		zy_fail(st, what, addr, p, avail, why);
	} else if (in.has_rel != (bool)z.raw.imm[0].is_relative ||
		   (in.has_rel && in.rel != z.raw.imm[0].value.s)) {
		snprintf(why, sizeof(why), "rel %d (%d), Zydis %lld (%d)", in.rel, in.has_rel,
			 (long long)z.raw.imm[0].value.s, z.raw.imm[0].is_relative);
		zy_fail(st, what, addr, p, avail, why);
	} else if (zy_fields_differ(&in, &z, why, sizeof(why))) {
		zy_fail(st, what, addr, p, avail, why);
	} else {
		st->insns++;
		st->kinds[in.branch]++;
		st->rel += in.has_rel;
	}
	return z.length;
}

static void zy_sweep(enum x86_mode mode, const uint8_t *code, size_t size, uint64_t addr,
		     const char *what, struct zy_stats *st)
{
	ZydisDecoder d;
	zy_init(&d, mode);
	st->bytes += size;
	for (size_t off = 0; off < size;)
		off += zy_one(&d, mode, code + off, size - off, addr + off, what, st);
}

/* n bytes of f at off, in a new buffer (NULL if they are not there). */
static uint8_t *zy_read(FILE *f, uint64_t off, size_t n)
{
	uint8_t *buf = malloc(n ? n : 1);
	if (buf && (fseek(f, (long)off, SEEK_SET) != 0 || fread(buf, 1, n, f) != n)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/* The executable sections of an x86-64 ELF file, swept in `mode`, at most `budget` bytes of
 * them (read section by section: a large library is not read whole); returns the bytes swept,
 * 0 if the file is no x86-64 ELF (or unreadable). */
static size_t zy_elf(const char *path, enum x86_mode mode, struct zy_stats *st, size_t budget)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	size_t done = 0;
	if (fread(&eh, sizeof(eh), 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == EM_X86_64 &&
	    eh.e_shentsize == sizeof(Elf64_Shdr))
		sh = (Elf64_Shdr *)zy_read(f, eh.e_shoff, (size_t)eh.e_shnum * sizeof(*sh));
	for (unsigned i = 0; sh && i < eh.e_shnum && done < budget; i++) {
		if (!(sh[i].sh_flags & SHF_EXECINSTR) || sh[i].sh_type != SHT_PROGBITS)
			continue;
		size_t size = sh[i].sh_size < budget - done ? sh[i].sh_size : budget - done;
		uint8_t *code = zy_read(f, sh[i].sh_offset, size);
		if (!code)
			continue;
		zy_sweep(mode, code, size, sh[i].sh_addr, path, st);
		free(code);
		done += size;
	}
	free(sh);
	fclose(f);
	return done;
}

static void zy_print(const char *what, enum x86_mode mode, const struct zy_stats *st, double secs)
{
	print_message("# %s (%s): %lu bytes, %lu instructions alike, %lu direct displacements, %lu "
		      "rejected by both, %lu explained differences, %lu rejected by Zydis only, "
		      "%lu mismatches, %.1f s\n# %s branches:",
		      what, mode_names[mode], st->bytes, st->insns, st->rel, st->both_reject,
		      st->explained, st->zydis_stricter, st->failures, secs, what);
	for (unsigned k = 1; k < X86_BR_KIND_COUNT; k++)
		if (st->kinds[k])
			print_message(" %s=%lu", x86_branch_name((enum x86_branch_kind)k),
				      st->kinds[k]);
	print_message("\n# %s rejected by Zydis only, by Zydis status code:", what);
	for (unsigned k = 0; k < ZY_STATUS_SLOTS; k++)
		if (st->strict_by_status[k])
			print_message(" %#x=%lu", k, st->strict_by_status[k]);
	print_message("\n");
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static const char *build_dir(void)
{
	const char *b = getenv("BUILD");
	return b && *b ? b : "build";
}

/* One named file, in each mode given; said and passed over if it is missing. */
static void zy_file(const char *path, const enum x86_mode *modes, unsigned nmodes,
		    unsigned long min_insns)
{
	for (unsigned m = 0; m < nmodes; m++) {
		struct zy_stats st = {0};
		double t = now();
		if (zy_elf(path, modes[m], &st, SIZE_MAX) == 0) {
			/* Not cmocka's skip(): its "not ok # SKIP" counts as a failure. */
			print_message("# SKIP %s: not found or no x86-64 ELF code\n", path);
			return;
		}
		zy_print(path, modes[m], &st, now() - t);
		assert_int_equal(st.failures, 0);
		if (modes[m] == X86_MODE_64)
			assert_true(st.insns >= min_insns);
	}
}

static void kernel_matches_zydis(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof(path), "%s/kernel.elf", build_dir());
	static const enum x86_mode all[] = {X86_MODE_64, X86_MODE_32, X86_MODE_16};
	zy_file(path, all, 3, 1000);
}

/* Every ELF file in a folder of the build (the user programs). */
static void zy_dir(const char *dir, unsigned *files)
{
	DIR *d = opendir(dir);
	if (!d) {
		print_message("# SKIP %s: not built\n", dir);
		return;
	}
	struct dirent *e;
	static const enum x86_mode m64[] = {X86_MODE_64};
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 4, ".elf") != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		zy_file(path, m64, 1, 1);
		(*files)++;
	}
	closedir(d);
}

static void programs_match_zydis(void **state)
{
	(void)state;
	char dir[512];
	unsigned files = 0;
	snprintf(dir, sizeof(dir), "%s/tests/programs", build_dir());
	zy_dir(dir, &files);
	snprintf(dir, sizeof(dir), "%s/examples", build_dir());
	zy_dir(dir, &files);
	print_message("# %u user programs compared\n", files);
}

static void busybox_matches_zydis(void **state)
{
	(void)state;
	static const enum x86_mode m64[] = {X86_MODE_64};
	struct zy_stats st = {0};
	double t = now();
	/* Debian's busybox-static (scripts/install-deps): always there, never skipped. */
	assert_true(zy_elf(BUSYBOX, X86_MODE_64, &st, SIZE_MAX) > 0);
	zy_print(BUSYBOX, m64[0], &st, now() - t);
	assert_int_equal(st.failures, 0);
	assert_true(st.insns >= MIN_BUSYBOX_INSNS);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* A byte count from the environment: unset for `dflt`, "all" for no limit. */
static size_t env_bytes(const char *name, size_t dflt)
{
	const char *env = getenv(name);
	return !env || !*env ? dflt : strcmp(env, "all") == 0 ? SIZE_MAX : strtoull(env, NULL, 0);
}

/* The shared objects of LIB_DIR in name order: up to ZYDIS_LIB_FILE_BYTES bytes of code from
 * each (so that the slice spans many libraries and compilers), ZYDIS_LIB_BYTES in all. */
static void usr_lib_matches_zydis(void **state)
{
	(void)state;
	size_t budget = env_bytes("ZYDIS_LIB_BYTES", LIB_BYTES_DEFAULT);
	size_t per_file = env_bytes("ZYDIS_LIB_FILE_BYTES", LIB_FILE_BYTES_DEFAULT);
	struct dirent **list;
	int n = scandir(LIB_DIR, &list, NULL, by_name);
	assert_true(n > 0);
	struct zy_stats st = {0};
	unsigned files = 0;
	double t = now();
	for (int i = 0; i < n; i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", LIB_DIR, list[i]->d_name);
		if (st.bytes < budget && strstr(list[i]->d_name, ".so") &&
		    list[i]->d_type == DT_REG &&
		    zy_elf(path, X86_MODE_64, &st,
			   per_file < budget - st.bytes ? per_file : budget - st.bytes))
			files++;
		free(list[i]);
	}
	free(list);
	print_message("# %s: %u shared objects\n", LIB_DIR, files);
	zy_print(LIB_DIR, X86_MODE_64, &st, now() - t);
	assert_int_equal(st.failures, 0);
	assert_true(files > 0 && st.insns > 0);
}

/* Random byte strings (X86_MAX_INSN_LENGTH + 1 random bytes each, decoded at their start) and
 * as many random instruction-shaped encodings (test_x86_decode_random.h), in each mode:
 * ZYDIS_RANDOM of each (default RANDOM_STRINGS; make decode-check: ten times more). */
static void random_bytes_match_zydis(void **state)
{
	(void)state;
	size_t strings = env_bytes("ZYDIS_RANDOM", RANDOM_STRINGS), shaped = strings;
	for (unsigned m = X86_MODE_64; m <= X86_MODE_16; m++) {
		ZydisDecoder d;
		zy_init(&d, (enum x86_mode)m);
		struct zy_stats st = {0};
		uint64_t seed = RANDOM_SEED + m;
		uint8_t buf[64];
		double t = now();
		for (size_t i = 0; i < strings + shaped; i++) {
			size_t n = X86_MAX_INSN_LENGTH + 1;
			if (i < strings)
				for (size_t k = 0; k < n; k++)
					buf[k] = (uint8_t)rng_next(&seed);
			else
				n = fuzz_one(&seed, buf);
			zy_one(&d, (enum x86_mode)m, buf, n, i, "random", &st);
			st.bytes += n;
		}
		zy_print("random", (enum x86_mode)m, &st, now() - t);
		assert_int_equal(st.failures, 0);
		assert_true(st.insns >= MIN_RANDOM_INSNS);
	}
}

#endif
