// UNIT-SOURCES: lib/x86_decode.c lib/x86_decode_tables.c
/*
 * The x86-64 length decoder and branch classifier (lib/x86_decode.c) against GNU objdump:
 *   - hand-made byte sequences with known lengths, kinds and errors (invalid in 64-bit mode,
 *     truncated, over 15 bytes, malformed VEX/EVEX);
 *   - a corpus of tricky encodings assembled here with `as --64`, then every instruction of
 *     objdump's listing: length, branch kind (from the mnemonic), direct target, RIP-relative
 *     address; and for each, every shorter buffer (truncated) and 2E padding up to 15 and 16
 *     bytes;
 *   - every instruction of build/kernel.elf's .text (reported as not run, and passing, if the
 *     kernel is not built: this test builds nothing);
 *   - a seeded stream of random encodings, decoded by objdump -b binary;
 *   - Zydis over the kernel, the user programs, busybox, a slice of /usr/lib and random bytes,
 *     in 64-, 32- and 16-bit code (test_x86_decode_zydis.h).
 */
#include "tests/unit/unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/x86_decode.h"
#include "tests/unit/test_x86_decode_objdump.h"
#include "tests/unit/test_x86_decode_corpus.h"
#include "tests/unit/test_x86_decode_random.h"
#include "tests/unit/test_x86_decode_zydis.h"

#define OBJDUMP	    "objdump -d -z -w -M intel64"
#define OBJDUMP_RAW "objdump -D -z -w -b binary -m i386:x86-64 -M intel64"

/* Kernel: a floor so that the comparison cannot pass on an empty listing. */
#define KERNEL_MIN_INSNS 2000
#define KERNEL_MIN_JCC	 100
#define KERNEL_MIN_CALL	 100
#define KERNEL_MIN_RET	 20
#define FUZZ_CHUNKS	 40000
#define FUZZ_MIN_INSNS	 30000
#define FUZZ_SEED	 0x9e3779b97f4a7c15ull

static size_t parse_hex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned v;
	int used;
	while (sscanf(s, " %2x%n", &v, &used) == 1) {
		assert_true(n < max);
		out[n++] = (uint8_t)v;
		s += used;
	}
	return n;
}

struct vec {
	const char *hex;
	int rc; /* 0 or an X86_E_* */
	unsigned len;
	enum x86_branch_kind kind;
	int32_t rel; /* checked when the kind has one */
};

#define OK(h, l, k, r)                                                                             \
	{                                                                                          \
		h, 0, l, k, r                                                                      \
	}
#define BAD(h)                                                                                     \
	{                                                                                          \
		h, X86_E_INVALID, 0, X86_BR_NONE, 0                                                \
	}
#define N X86_BR_NONE
/* Hand-checked against the SDM; objdump does not see most of these (its own leniencies or
 * its splitting of long prefix runs would get in the way). */
static const struct vec vectors[] = {
    OK("90", 1, N, 0),
    OK("c3", 1, X86_BR_RET, 0),
    OK("c2 08 00", 3, X86_BR_RET, 0),
    OK("cb", 1, X86_BR_FAR_RET, 0),
    OK("48 cb", 2, X86_BR_FAR_RET, 0),
    OK("ca 10 00", 3, X86_BR_FAR_RET, 0),
    OK("cf", 1, X86_BR_IRET, 0),
    OK("48 cf", 2, X86_BR_IRET, 0),
    OK("cc", 1, X86_BR_INT, 0),
    OK("cd 80", 2, X86_BR_INT, 0),
    OK("f1", 1, X86_BR_INT, 0),
    OK("0f 05", 2, X86_BR_SYSCALL, 0),
    OK("48 0f 07", 3, X86_BR_SYSRET, 0),
    OK("0f 34", 2, X86_BR_SYSENTER, 0),
    OK("48 0f 35", 3, X86_BR_SYSEXIT, 0),
    OK("eb fe", 2, X86_BR_JMP_REL, -2),
    OK("e9 00 00 00 80", 5, X86_BR_JMP_REL, INT32_MIN),
    OK("66 e9 10 00 00 00", 6, X86_BR_JMP_REL, 0x10), /* Intel: 66 ignored */
    OK("74 7f", 2, X86_BR_JCC, 0x7f),
    OK("7f 80", 2, X86_BR_JCC, -0x80),
    OK("0f 84 78 56 34 12", 6, X86_BR_JCC, 0x12345678),
    OK("66 0f 85 10 00 00 00", 7, X86_BR_JCC, 0x10),
    OK("2e 3e 74 00", 4, X86_BR_JCC, 0),
    OK("e3 00", 2, X86_BR_JCXZ_LOOP, 0),
    OK("67 e3 fe", 3, X86_BR_JCXZ_LOOP, -2),
    OK("e0 01", 2, X86_BR_JCXZ_LOOP, 1),
    OK("e1 01", 2, X86_BR_JCXZ_LOOP, 1),
    OK("e2 01", 2, X86_BR_JCXZ_LOOP, 1),
    OK("e8 fb ff ff ff", 5, X86_BR_CALL_REL, -5),
    OK("66 e8 10 00 00 00", 6, X86_BR_CALL_REL, 0x10),
    OK("f2 e8 00 00 00 00", 6, X86_BR_CALL_REL, 0), /* BND */
    OK("ff d0", 2, X86_BR_CALL_IND, 0),
    OK("41 ff d3", 3, X86_BR_CALL_IND, 0),
    OK("ff 15 00 00 00 00", 6, X86_BR_CALL_IND, 0),
    OK("ff 14 25 00 10 00 00", 7, X86_BR_CALL_IND, 0),
    OK("ff e0", 2, X86_BR_JMP_IND, 0),
    OK("3e ff e0", 3, X86_BR_JMP_IND, 0), /* NOTRACK */
    OK("ff 24 c5 00 00 00 00", 7, X86_BR_JMP_IND, 0),
    OK("ff 18", 2, X86_BR_FAR_CALL, 0),
    OK("48 ff 1c 24", 4, X86_BR_FAR_CALL, 0),
    OK("ff 28", 2, X86_BR_FAR_JMP, 0),
    OK("48 ff 6d 08", 4, X86_BR_FAR_JMP, 0),
    OK("ff 30", 2, N, 0), /* push */
    OK("ff c0", 2, N, 0), /* inc */
    OK("c7 f8 00 00 00 00", 6, X86_BR_XBEGIN, 0),
    OK("66 c7 f8 fe ff", 5, X86_BR_XBEGIN, -2),
    OK("c6 f8 01", 3, N, 0),		  /* XABORT */
    OK("f3 0f 01 ca", 4, X86_BR_IRET, 0), /* ERETU */
    OK("f2 0f 01 ca", 4, X86_BR_IRET, 0), /* ERETS */
    OK("0f 01 ca", 3, N, 0),		  /* CLAC */
    OK("f3 0f 01 ec", 4, X86_BR_IRET, 0), /* UIRET */
    OK("c7 c0 01 00 00 00", 6, N, 0),
    OK("48 b8 01 02 03 04 05 06 07 08", 10, N, 0),
    OK("b8 01 02 03 04", 5, N, 0),
    OK("66 b8 01 02", 4, N, 0),
    OK("66 48 b8 01 02 03 04 05 06 07 08", 11, N, 0),
    OK("48 66 b8 01 02", 5, N, 0), /* REX not last: ignored, imm16 */
    OK("a0 01 02 03 04 05 06 07 08", 9, N, 0),
    OK("67 a0 01 02 03 04", 6, N, 0),
    OK("48 a3 01 02 03 04 05 06 07 08", 10, N, 0),
    OK("c8 10 00 01", 4, N, 0),
    OK("f6 c0 01", 3, N, 0),
    OK("f6 48 10 01", 4, N, 0), /* /1: TEST too */
    OK("f6 d0", 2, N, 0),
    OK("f7 c0 01 02 03 04", 6, N, 0),
    OK("66 f7 c0 01 02", 5, N, 0),
    OK("48 f7 c0 01 02 03 04", 7, N, 0),
    OK("f7 d8", 2, N, 0),
    OK("69 c0 01 02 03 04", 6, N, 0),
    OK("66 69 c0 01 02", 5, N, 0),
    OK("6b c0 01", 3, N, 0),
    OK("68 01 02 03 04", 5, N, 0),
    OK("66 68 01 02", 4, N, 0),
    OK("6a 01", 2, N, 0),
    OK("8b 05 00 00 00 00", 6, N, 0),
    OK("67 8b 05 00 00 00 00", 7, N, 0),
    OK("8b 04 25 00 00 00 00", 7, N, 0),
    OK("8b 44 24 08", 4, N, 0),
    OK("8b 84 24 00 01 00 00", 7, N, 0),
    OK("8b 45 00", 3, N, 0),
    OK("41 8b 45 00", 4, N, 0),		    /* r13: REX.B does not lift the disp */
    OK("41 8b 04 24", 4, N, 0),		    /* r12: still a SIB */
    OK("42 8b 04 2d 00 00 00 00", 8, N, 0), /* SIB base 101, mod 00: disp32 */
    OK("41 8b 04 25 00 00 00 00", 8, N, 0), /* same with REX.B */
    OK("81 3d 01 02 03 04 05 06 07 08", 10, N, 0),
    OK("66 81 3d 01 02 03 04 05 06", 9, N, 0),
    OK("48 c7 05 01 02 03 04 05 06 07 08", 11, N, 0),
    OK("0f 20 c0", 3, N, 0),
    OK("0f 20 05", 3, N, 0), /* MOV from CR: mod ignored */
    OK("0f 22 84", 3, N, 0),
    OK("66 0f 3a 0f c1 08", 6, N, 0),
    OK("0f 38 00 c1", 4, N, 0),
    OK("0f 38 00 44 24 08", 6, N, 0),
    OK("0f 0f c1 b4", 4, N, 0), /* 3DNow! */
    OK("66 0f 78 c0 01 02", 6, N, 0),
    OK("f2 0f 78 c1 01 02", 6, N, 0),
    OK("0f 78 c0", 3, N, 0),
    OK("f3 0f b8 c0", 4, N, 0),
    OK("f3 0f 1e fa", 4, N, 0),
    OK("0f 0b", 2, N, 0),
    OK("0f ff c0", 3, N, 0),
    OK("0f b9 c0", 3, N, 0),
    OK("9b", 1, N, 0),
    OK("dd 05 00 00 00 00", 6, N, 0),
    OK("c5 f8 77", 3, N, 0),
    OK("c5 fc 77", 3, N, 0),
    OK("c4 e1 7c 77", 4, N, 0), /* VEX3 map 1 77: no ModRM either */
    OK("c5 f9 70 c1 01", 5, N, 0),
    OK("c4 e3 79 0f c1 08", 6, N, 0),
    OK("c4 e2 79 00 c1", 5, N, 0),
    OK("c4 e2 79 00 05 00 00 00 00", 9, N, 0),
    OK("67 c5 f8 58 00", 5, N, 0),
    OK("62 f1 7c 48 58 c1", 6, N, 0),
    OK("62 f1 7c 48 58 41 01", 7, N, 0),
    OK("62 f3 7d 48 0f c1 08", 7, N, 0),
    OK("62 f1 7d 48 70 c1 01", 7, N, 0),
    OK("62 f5 7c 48 58 c1", 6, N, 0),
    OK("62 f6 7d 48 98 c1", 6, N, 0),
    OK("8f e8 78 c0 c8 01", 6, N, 0),
    OK("8f e9 78 80 c0", 5, N, 0),
    OK("8f ea 78 10 c0 01 02 03 04", 9, N, 0),
    OK("8f 00", 2, N, 0), /* POP r/m */
    OK("8f c0", 2, N, 0),
    OK("f0 f0 f0 48 ff 00", 6, N, 0),
    OK("2e 3e 26 64 65 36 90", 7, N, 0),
    OK("48 40 89 c0", 4, N, 0),
    OK("66 66 66 66 66 66 66 66 66 66 66 66 66 66 90", 15, N, 0),
    OK("2e 2e 2e 48 81 84 24 01 02 03 04 05 06 07 08", 15, N, 0),
    /* Invalid in 64-bit mode (SDM appendix A "i64", or reserved). */
    BAD("06"),
    BAD("07"),
    BAD("0e"),
    BAD("16"),
    BAD("17"),
    BAD("1e"),
    BAD("1f"),
    BAD("27"),
    BAD("2f"),
    BAD("37"),
    BAD("3f"),
    BAD("60"),
    BAD("61"),
    BAD("82 c0 01"),
    BAD("9a 00 00 00 00 00 00"),
    BAD("ce"),
    BAD("d4 0a"),
    BAD("d5 0a"),
    BAD("d6"),
    BAD("ea 00 00 00 00 00 00"),
    BAD("0f 04"),
    BAD("0f 0a"),
    BAD("0f 0c"),
    BAD("0f 24 c0"),
    BAD("0f 26 c0"),
    BAD("0f 36"),
    BAD("0f 39"),
    BAD("0f 3b"),
    BAD("0f 7a"),
    BAD("0f a6"),
    BAD("0f b8 c0"),
    BAD("0f 00 f0"),
    BAD("0f 00 38"),
    BAD("0f 0d c0"),
    BAD("f3 0f 78 c0"),
    BAD("fe d0"),
    BAD("fe 38"),
    BAD("ff d8"),
    BAD("ff e8"),
    BAD("ff f8"),
    BAD("ff 38"),
    BAD("8f 20"), /* /4: map field 0, so not XOP */
    BAD("8d c0"),
    BAD("c6 c8 01"),
    BAD("c7 c8 01 00 00 00"),
    BAD("8e c8"),
    BAD("8e f8"),
    BAD("8c f0"),
    /* VEX/EVEX/XOP after 66, F2, F3, F0 or REX; reserved map and payload bits. */
    BAD("66 c5 f8 77"),
    BAD("f3 c5 f8 77"),
    BAD("f2 c5 f8 77"),
    BAD("f0 c5 f8 77"),
    BAD("40 c5 f8 77"),
    BAD("66 c4 e2 79 00 c1"),
    BAD("48 62 f1 7c 48 58 c1"),
    BAD("66 8f e8 78 c0 c8 01"),
    BAD("c4 e0 78 58 c1"),
    BAD("c4 e4 78 58 c1"),
    BAD("c4 e7 78 58 c1"),
    BAD("62 f9 7c 48 58 c1"),
    BAD("62 f1 78 48 58 c1"),
    BAD("62 f4 7c 48 58 c1"),
    BAD("62 f7 7c 48 58 c1"),
    BAD("62 f0 7c 48 58 c1"),
    BAD("8f eb 78 10 c0"),
    /* Over 15 bytes, whatever the buffer. */
    {"66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 90", X86_E_TOO_LONG, 0, N, 0},
    {"2e 2e 2e 2e 48 81 84 24 01 02 03 04 05 06 07 08", X86_E_TOO_LONG, 0, N, 0},
    {"66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 66", X86_E_TOO_LONG, 0, N, 0},
    {"26 66 67 f0 f2 2e 3e 64 65 36 48 81 84 24 01 02 03 04", X86_E_TOO_LONG, 0, N, 0},
};
#undef N

static void vectors_decode_as_the_sdm_says(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vec *v = &vectors[i];
		uint8_t buf[32];
		size_t n = parse_hex(v->hex, buf, sizeof(buf));
		struct x86_insn in;
		int rc = x86_decode(buf, n, &in);
		if (rc != v->rc || (rc == 0 && (in.length != v->len || in.branch != v->kind)))
			print_message("# vector %zu \"%s\": rc %d length %u kind %s\n", i, v->hex,
				      rc, in.length, x86_branch_name(in.branch));
		assert_int_equal(rc, v->rc);
		if (rc != 0) {
			assert_int_equal(in.length, 0);
			continue;
		}
		assert_int_equal(in.length, v->len);
		assert_int_equal(in.length, n); /* every vector is exactly one instruction */
		assert_int_equal(in.branch, v->kind);
		bool rel = in.branch == X86_BR_JCC || in.branch == X86_BR_JCXZ_LOOP ||
			   in.branch == X86_BR_JMP_REL || in.branch == X86_BR_CALL_REL ||
			   in.branch == X86_BR_XBEGIN;
		assert_int_equal(in.has_rel, rel);
		if (rel) {
			assert_int_equal(in.rel, v->rel);
			assert_int_equal(x86_branch_target(&in, 0x1000),
					 0x1000 + n + (int64_t)v->rel);
		} else {
			assert_int_equal(x86_branch_target(&in, 0x1000), 0);
		}
		/* Any shorter buffer is truncated. */
		for (size_t k = 0; k < n; k++)
			assert_int_equal(x86_decode(buf, k, &in), X86_E_TRUNCATED);
	}
}

/*
 * 16- and 32-bit code (CS.L = 0; CS.D says which): no REX (SDM Vol. 2A 2.2.1: REX prefixes
 * are "used in 64-bit mode"; Table A-2: 40-4F are INC/DEC otherwise), 66H/67H select the size
 * CS.D does not (Vol. 1 Table 3-4), 16-bit addressing's ModRM (Vol. 2A Table 2-1: no SIB,
 * disp16, mod=00b rm=110b is disp16 alone), mod=00b rm=101b an absolute disp32 (Table 2-2, no
 * RIP-relative), the i64 opcodes valid, C4/C5/62 VEX/EVEX only where ModRM.mod would be 11b
 * (2.3.3), near branches with rel16 under a 16-bit operand size and targets that wrap at the
 * operand size (Jcc: "EIP <- EIP AND 0000FFFFH" when it is 16).
 */
struct mode_vec {
	enum x86_mode mode;
	const char *hex;
	unsigned len;
	enum x86_branch_kind kind;
	uint64_t ip, target; /* a direct branch's target at ip */
	unsigned disp, imm;  /* displacement and immediate bytes */
};

static const struct mode_vec mode_vectors[] = {
    {X86_MODE_32, "40 74 05", 1, X86_BR_NONE, 0, 0, 0, 0}, /* inc %eax, then je */
    {X86_MODE_32, "48 b8 01 02 03 04", 1, X86_BR_NONE, 0, 0, 0, 0},
    {X86_MODE_32, "74 05", 2, X86_BR_JCC, 0x1000, 0x1007, 0, 1},
    {X86_MODE_32, "b8 01 02 03 04", 5, X86_BR_NONE, 0, 0, 0, 4},
    {X86_MODE_32, "66 b8 01 02", 4, X86_BR_NONE, 0, 0, 0, 2},
    {X86_MODE_32, "8b 05 00 10 00 00", 6, X86_BR_NONE, 0, 0, 4, 0},
    {X86_MODE_32, "8b 04 25 00 10 00 00", 7, X86_BR_NONE, 0, 0, 4, 0},
    {X86_MODE_32, "67 8b 46 08", 4, X86_BR_NONE, 0, 0, 1, 0},
    {X86_MODE_32, "67 8b 06 34 12", 5, X86_BR_NONE, 0, 0, 2, 0},
    {X86_MODE_32, "67 8b 86 34 12", 5, X86_BR_NONE, 0, 0, 2, 0},
    {X86_MODE_32, "67 8b 04", 3, X86_BR_NONE, 0, 0, 0, 0},
    {X86_MODE_32, "a1 78 56 34 12", 5, X86_BR_NONE, 0, 0, 0, 4},
    {X86_MODE_32, "67 a1 34 12", 4, X86_BR_NONE, 0, 0, 0, 2},
    {X86_MODE_32, "e9 20 00 00 00", 5, X86_BR_JMP_REL, 0xfffffff0, 0x15, 0, 4},
    {X86_MODE_32, "66 e9 10 00", 4, X86_BR_JMP_REL, 0xfff0, 0x4, 0, 2},
    {X86_MODE_32, "66 0f 84 10 00", 5, X86_BR_JCC, 0xfff0, 0x5, 0, 2},
    {X86_MODE_32, "e8 fb ff ff ff", 5, X86_BR_CALL_REL, 0x2000, 0x2000, 0, 4},
    {X86_MODE_32, "9a 78 56 34 12 08 00", 7, X86_BR_FAR_CALL, 0, 0, 0, 6},
    {X86_MODE_32, "66 ea 34 12 08 00", 6, X86_BR_FAR_JMP, 0, 0, 0, 4},
    {X86_MODE_32, "ce", 1, X86_BR_INT, 0, 0, 0, 0},
    {X86_MODE_32, "06", 1, X86_BR_NONE, 0, 0, 0, 0},
    {X86_MODE_32, "61", 1, X86_BR_NONE, 0, 0, 0, 0},
    {X86_MODE_32, "d4 0a", 2, X86_BR_NONE, 0, 0, 0, 1},
    {X86_MODE_32, "82 c0 01", 3, X86_BR_NONE, 0, 0, 0, 1},
    {X86_MODE_32, "62 00", 2, X86_BR_NONE, 0, 0, 0, 0},		    /* BOUND */
    {X86_MODE_32, "c4 46 08", 3, X86_BR_NONE, 0, 0, 1, 0},	    /* LES */
    {X86_MODE_32, "c5 f8 77", 3, X86_BR_NONE, 0, 0, 0, 0},	    /* VZEROUPPER */
    {X86_MODE_32, "c4 e2 79 00 c1", 5, X86_BR_NONE, 0, 0, 0, 0},    /* VPSHUFB */
    {X86_MODE_32, "62 f1 7c 48 58 c1", 6, X86_BR_NONE, 0, 0, 0, 0}, /* EVEX VADDPS */
    {X86_MODE_32, "e2 fe", 2, X86_BR_JCXZ_LOOP, 0x10, 0x10, 0, 1},
    {X86_MODE_32, "ff 15 00 10 00 00", 6, X86_BR_CALL_IND, 0, 0, 4, 0},
    {X86_MODE_32, "cb", 1, X86_BR_FAR_RET, 0, 0, 0, 0},
    {X86_MODE_16, "b8 01 02", 3, X86_BR_NONE, 0, 0, 0, 2},
    {X86_MODE_16, "66 b8 01 02 03 04", 6, X86_BR_NONE, 0, 0, 0, 4},
    {X86_MODE_16, "8b 46 08", 3, X86_BR_NONE, 0, 0, 1, 0},
    {X86_MODE_16, "8b 06 34 12", 4, X86_BR_NONE, 0, 0, 2, 0},
    {X86_MODE_16, "67 8b 05 00 00 00 00", 7, X86_BR_NONE, 0, 0, 4, 0},
    {X86_MODE_16, "67 8b 04 24", 4, X86_BR_NONE, 0, 0, 0, 0}, /* 32-bit addressing: SIB */
    {X86_MODE_16, "e8 fd ff", 3, X86_BR_CALL_REL, 0x100, 0x100, 0, 2},
    {X86_MODE_16, "e9 00 01", 3, X86_BR_JMP_REL, 0xff00, 0x0003, 0, 2},
    {X86_MODE_16, "0f 84 00 00", 4, X86_BR_JCC, 0x10, 0x14, 0, 2},
    {X86_MODE_16, "66 e9 00 00 01 00", 6, X86_BR_JMP_REL, 0x10, 0x10016, 0, 4},
    {X86_MODE_16, "9a 34 12 00 10", 5, X86_BR_FAR_CALL, 0, 0, 0, 4},
    {X86_MODE_16, "a1 34 12", 3, X86_BR_NONE, 0, 0, 0, 2},
    {X86_MODE_64, "40 74 05", 3, X86_BR_JCC, 0x1000, 0x1008, 0, 1}, /* REX, then je */
};

static void modes_decode_as_the_sdm_says(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(mode_vectors) / sizeof(mode_vectors[0]); i++) {
		const struct mode_vec *v = &mode_vectors[i];
		uint8_t buf[16];
		size_t n = parse_hex(v->hex, buf, sizeof(buf));
		struct x86_insn in;
		int rc = x86_decode_mode(buf, n, v->mode, &in);
		if (rc != 0 || in.length != v->len || in.branch != v->kind ||
		    in.disp_size != v->disp || in.imm_size != v->imm)
			fail_msg("mode %d \"%s\": rc %d length %u kind %s disp %u imm %u", v->mode,
				 v->hex, rc, in.length, x86_branch_name(in.branch), in.disp_size,
				 in.imm_size);
		assert_int_equal(in.mode, v->mode);
		assert_false(in.rip_relative && v->mode != X86_MODE_64);
		assert_true(v->mode == X86_MODE_64 || in.rex == 0);
		if (in.has_rel && v->ip)
			assert_int_equal(x86_branch_target(&in, v->ip), v->target);
	}
	/* Invalid in 64-bit mode, valid in 16/32-bit code. */
	static const char *const i64[] = {
	    "06",   "1f", "27", "60", "ce", "d6", "d4 0a", "82 c0 01", "9a 00 00 00 00 08 00",
	    "62 00"};
	for (size_t i = 0; i < sizeof(i64) / sizeof(i64[0]); i++) {
		uint8_t buf[16];
		size_t n = parse_hex(i64[i], buf, sizeof(buf));
		struct x86_insn in;
		assert_int_equal(x86_decode_mode(buf, n, X86_MODE_32, &in), 0);
		assert_int_equal(in.length, n);
		if (x86_decode(buf, n, &in) != X86_E_INVALID && buf[0] != 0x62)
			fail_msg("64-bit mode accepts i64 \"%s\"", i64[i]);
	}
	/* The opcode filter: 40-4F are opcodes outside 64-bit mode. */
	static const uint8_t inc_je[] = {0x40, 0x74, 0x05};
	assert_int_equal(x86_opcode_of_mode(inc_je, 3, X86_MODE_32), 0x40);
	assert_int_equal(x86_opcode_of_mode(inc_je, 3, X86_MODE_64), 0x74);
}

static void fields_are_filled(void **state)
{
	(void)state;
	uint8_t buf[32];
	struct x86_insn in;
	/* fs: lock REX.W add qword [rip+0x11223344], imm8 0x7f */
	size_t n = parse_hex("64 f0 48 83 05 44 33 22 11 7f", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_int_equal(in.length, 10);
	assert_int_equal(in.prefixes, X86_PFX_SEG | X86_PFX_LOCK | X86_PFX_REX);
	assert_int_equal(in.segment, 0x64);
	assert_int_equal(in.rex, 0x48);
	assert_true(in.rex_w && !in.operand16 && !in.address32);
	assert_int_equal(in.opcode_map, X86_MAP_ONE_BYTE);
	assert_int_equal(in.opcode, 0x83);
	assert_true(in.has_modrm && !in.has_sib && in.rip_relative);
	assert_int_equal(in.modrm, 0x05);
	assert_int_equal(in.disp_size, 4);
	assert_int_equal(in.disp, 0x11223344);
	assert_int_equal(in.imm_size, 1);
	assert_int_equal(in.imm, 0x7f);
	/* 66 67 mov ax, [eax+ebx*4-0x80]: SIB, disp8, 16-bit operand, 32-bit address */
	n = parse_hex("66 67 8b 44 98 80", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_true(in.operand16 && in.address32 && in.has_sib && !in.rip_relative);
	assert_int_equal(in.sib, 0x98);
	assert_int_equal(in.disp_size, 1);
	assert_int_equal(in.disp, -0x80);
	/* ENTER: iw then ib; moffs64 in imm; F2 then F3: F3 counts */
	n = parse_hex("c8 34 12 05", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_true(in.imm_size == 2 && in.imm == 0x1234 && in.imm2_size == 1 && in.imm2 == 5);
	n = parse_hex("a1 88 77 66 55 44 33 22 11", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_true(in.imm_size == 8 && in.imm == 0x1122334455667788ull);
	n = parse_hex("f2 f3 a4", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_int_equal(in.prefixes, X86_PFX_REP);
	/* VEX3 W1 map 0F3A, EVEX map 5, XOP map 0AH, 0F38 legacy, 3DNow! */
	n = parse_hex("c4 e3 f9 32 d1 03", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_true(in.prefixes == X86_PFX_VEX && in.rex_w && in.opcode_map == X86_MAP_0F3A);
	assert_true(in.opcode == 0x32 && in.modrm == 0xd1 && in.imm == 3);
	n = parse_hex("62 f5 7c 48 58 c1", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_true(in.prefixes == X86_PFX_EVEX && in.opcode_map == X86_MAP_EVEX5);
	n = parse_hex("8f ea 78 10 c0 01 02 03 04", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_true(in.prefixes == X86_PFX_XOP && in.opcode_map == X86_MAP_XOPA);
	assert_true(in.imm_size == 4 && in.imm == 0x04030201);
	n = parse_hex("66 0f 38 00 c1", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_true(in.opcode_map == X86_MAP_0F38 && in.opcode == 0 && in.operand16);
	n = parse_hex("0f 0f c1 b4", buf, sizeof(buf));
	assert_int_equal(x86_decode(buf, n, &in), 0);
	assert_true(in.prefixes == X86_PFX_3DNOW && in.opcode == 0x0f && in.imm == 0xb4);
	/* Errors leave a zeroed record. */
	assert_int_equal(x86_decode(buf, 0, &in), X86_E_TRUNCATED);
	assert_int_equal(in.length, 0);
	assert_int_equal(in.branch, X86_BR_NONE);
}

static void names_and_conditions(void **state)
{
	(void)state;
	for (unsigned k = 0; k < X86_BR_KIND_COUNT; k++) {
		const char *name = x86_branch_name((enum x86_branch_kind)k);
		assert_non_null(name);
		assert_string_not_equal(name, "?");
		for (unsigned j = 0; j < k; j++) /* all different */
			assert_string_not_equal(name, x86_branch_name((enum x86_branch_kind)j));
		assert_int_equal(x86_branch_conditional((enum x86_branch_kind)k),
				 k == X86_BR_JCC || k == X86_BR_JCXZ_LOOP);
	}
	assert_string_equal(x86_branch_name(X86_BR_KIND_COUNT), "?");
	assert_string_equal(x86_branch_name(X86_BR_CALL_IND), "call-ind");
}

/* A private temporary directory, removed with its files by rm_tmpdir(). */
static void make_tmpdir(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, size, "%s/test_x86_decode.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
}

static void rm_tmpdir(const char *dir, const char *const *files, size_t nfiles)
{
	char path[512];
	for (size_t i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void corpus_matches_objdump(void **state)
{
	(void)state;
	char dir[256], src[512], obj[512], cmd[1200];
	make_tmpdir(dir, sizeof(dir));
	snprintf(src, sizeof(src), "%s/corpus.s", dir);
	snprintf(obj, sizeof(obj), "%s/corpus.o", dir);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	size_t lines = sizeof(x86_corpus) / sizeof(x86_corpus[0]), insns = 0;
	for (size_t i = 0; i < lines; i++) {
		bool label = strchr(x86_corpus[i], ':') && !strchr(x86_corpus[i], ' ');
		fprintf(f, "%s%s\n", label ? "" : "\t", x86_corpus[i]);
		insns +=
		    !label && (x86_corpus[i][0] != '.' || strncmp(x86_corpus[i], ".byte", 5) == 0);
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "as --64 -o '%s' '%s'", obj, src);
	int as_status = system(cmd);
	struct od_image img;
	struct od_stats st = {0};
	bool loaded = as_status == 0 && od_load_elf(obj, &img), listed = false;
	if (loaded) {
		snprintf(cmd, sizeof(cmd), OBJDUMP " '%s'", obj);
		listed = od_compare(cmd, &img, &st);
		od_free(&img);
	}
	rm_tmpdir(dir, (const char *const[]){"corpus.s", "corpus.o"}, 2);
	assert_int_equal(as_status, 0);
	assert_true(loaded && listed);
	od_print_stats("corpus", &st);
	assert_int_equal(st.failures, 0);
	assert_int_equal(st.bad, 0);
	/* Every instruction and .byte line seen (.skip adds NOPs), every branch kind too; and
	 * none of the objdump quirks the random stream needs (these are all valid encodings). */
	assert_int_equal(st.split, 0);
	assert_int_equal(st.stricter, 0);
	assert_true(st.insns >= insns);
	for (unsigned k = 0; k < X86_BR_KIND_COUNT; k++) {
		if (!st.kinds[k])
			print_message("# corpus: no %s\n",
				      x86_branch_name((enum x86_branch_kind)k));
		assert_true(st.kinds[k] > 0);
	}
}

static void kernel_matches_objdump(void **state)
{
	(void)state;
	char path[512], cmd[1024];
	const char *build = getenv("BUILD");
	snprintf(path, sizeof(path), "%s/kernel.elf", build && *build ? build : "build");
	struct od_image img;
	if (access(path, R_OK) != 0) {
		/* Not cmocka's skip(): its TAP "not ok # SKIP" counts as a failure under prove. */
		print_message("# SKIP %s not found: kernel comparison not run\n", path);
		return;
	}
	assert_true(od_load_elf(path, &img));
	struct od_stats st = {0};
	snprintf(cmd, sizeof(cmd), OBJDUMP " '%s'", path);
	assert_true(od_compare(cmd, &img, &st));
	od_free(&img);
	od_print_stats("kernel", &st);
	assert_int_equal(st.failures, 0);
	assert_true(st.insns > KERNEL_MIN_INSNS);
	assert_true(st.kinds[X86_BR_JCC] > KERNEL_MIN_JCC);
	assert_true(st.kinds[X86_BR_CALL_REL] > KERNEL_MIN_CALL);
	assert_true(st.kinds[X86_BR_JMP_REL] > 0);
	assert_true(st.kinds[X86_BR_RET] > KERNEL_MIN_RET);
	assert_true(st.targets > KERNEL_MIN_JCC + KERNEL_MIN_CALL);
}

static void random_encodings_match_objdump(void **state)
{
	(void)state;
	char dir[256], bin[512], cmd[1200];
	make_tmpdir(dir, sizeof(dir));
	snprintf(bin, sizeof(bin), "%s/random.bin", dir);
	FILE *f = fopen(bin, "wb");
	assert_non_null(f);
	uint64_t seed = FUZZ_SEED;
	uint8_t chunk[64];
	for (unsigned i = 0; i < FUZZ_CHUNKS; i++) {
		size_t n = fuzz_one(&seed, chunk);
		assert_int_equal(fwrite(chunk, 1, n, f), n);
	}
	/* NOPs so that the last random instruction is not cut by the end of the file. */
	memset(chunk, 0x90, 2 * X86_MAX_INSN_LENGTH);
	assert_int_equal(fwrite(chunk, 1, 2 * X86_MAX_INSN_LENGTH, f), 2 * X86_MAX_INSN_LENGTH);
	fclose(f);

	struct od_image img;
	struct od_stats st = {0};
	od_load_raw(bin, &img);
	snprintf(cmd, sizeof(cmd), OBJDUMP_RAW " '%s'", bin);
	bool listed = od_compare(cmd, &img, &st);
	od_free(&img);
	rm_tmpdir(dir, (const char *const[]){"random.bin"}, 1);
	assert_true(listed);
	od_print_stats("random", &st);
	assert_int_equal(st.failures, 0);
	assert_true(st.insns > FUZZ_MIN_INSNS);
}

/* x86_opcode_of: the byte after the legacy prefixes (66 67 F0 F2 F3 2E 36 3E 26 64 65, SDM
 * 2.1.1) and REX (40-4F, 2.2.1); with the 0F escape, 0F and the next byte (SDM Vol. 2 A.3,
 * Table A-3: 0F 05 SYSCALL, 0F 07 SYSRET); other escapes as they are; 0 when it does not fit. */
static void opcode_of_skips_prefixes_and_reads_0f(void **state)
{
	(void)state;
	static const struct {
		const char *hex;
		unsigned want;
	} cases[] = {
	    {"90", 0x90},
	    {"9c", 0x9c},
	    {"66 9c", 0x9c},
	    {"66 f3 48 a5", 0xa5},
	    {"2e 3e 26 36 64 65 90", 0x90},
	    {"48 66 90", 0x90},
	    {"40 0f 05", 0x0f05},
	    {"48 0f 07", 0x0f07},
	    {"0f", 0},
	    {"66 0f b6 c0", 0x0fb6},
	    {"f0 41 8e d0", 0x8e},
	    {"c4 e2 79 18 00", 0xc4},
	    {"66 66 66 66 66 66 66 66 66 66 66 66 66 66 66", 0},
	    {"f3", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t b[16];
		size_t n = parse_hex(cases[i].hex, b, sizeof(b));
		if (x86_opcode_of(b, n) != cases[i].want || x86_opcode_quick(b, n) != cases[i].want)
			fail_msg("%s: %#x (quick %#x), want %#x", cases[i].hex, x86_opcode_of(b, n),
				 x86_opcode_quick(b, n), cases[i].want);
	}
}

/* x86_opcode_quick answers as x86_opcode_of for every first byte, followed by a prefix, REX, the
 * 0F escape or an opcode, and for no bytes at all. */
static void opcode_quick_is_opcode_of(void **state)
{
	(void)state;
	static const uint8_t after[] = {0x90, 0x66, 0x48, 0x0f, 0x05, 0xf3, 0x8e, 0xc4, 0x41};
	for (unsigned first = 0; first < 256; first++)
		for (size_t a = 0; a < sizeof(after); a++) {
			uint8_t b[15] = {(uint8_t)first, after[a], 0x05, 0x90};
			for (size_t n = 0; n <= 4; n++)
				if (x86_opcode_quick(b, n) != x86_opcode_of(b, n))
					fail_msg("%02x %02x (%zu bytes): quick %#x, of %#x", first,
						 after[a], n, x86_opcode_quick(b, n),
						 x86_opcode_of(b, n));
		}
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(vectors_decode_as_the_sdm_says),
    cmocka_unit_test(fields_are_filled),
    cmocka_unit_test(modes_decode_as_the_sdm_says),
    cmocka_unit_test(names_and_conditions),
    cmocka_unit_test(opcode_of_skips_prefixes_and_reads_0f),
    cmocka_unit_test(opcode_quick_is_opcode_of),
    cmocka_unit_test(corpus_matches_objdump),
    cmocka_unit_test(kernel_matches_objdump),
    cmocka_unit_test(random_encodings_match_objdump),
    cmocka_unit_test(random_bytes_match_zydis),
    cmocka_unit_test(kernel_matches_zydis),
    cmocka_unit_test(programs_match_zydis),
    cmocka_unit_test(busybox_matches_zydis),
    cmocka_unit_test(usr_lib_matches_zydis),
};
UNIT_MAIN(tests)
