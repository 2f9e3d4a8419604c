// UNIT-SOURCES: lib/x86_step.c lib/x86_decode.c lib/x86_decode_tables.c
/*
 * lib/x86_decode_cache.h: a decoding is taken from the cache while the bytes it came from are
 * unchanged, and made again from the bytes before an instruction runs when they changed (code
 * that rewrites itself); the bytes past an instruction at a page end are never read.
 * Encodings are the SDM's opcode bytes (Vol. 2 Appendix A): 74 cb JE, 75 cb JNE, 90 NOP,
 * 48 B8 io MOV RAX, imm64, 0F 0B UD2.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include <sys/mman.h>
#include "lib/x86_decode_cache.h"

static struct x86_decoded cache[X86_DECODE_CACHE_SIZE];

static void a_cached_decoding_stands_until_its_bytes_change_before_it_runs(void **state)
{
	(void)state;
	memset(cache, 0, sizeof(cache));
	uint8_t code[32] = {0x74, 0x10, 0x90};
	uint64_t ip = (uint64_t)(uintptr_t)code;
	const struct x86_decoded *d = x86_decode_cached(cache, ip, true);
	assert_non_null(d);
	assert_int_equal(d->insn.length, 2);
	assert_int_equal(d->step.branch, X86_BR_JCC);
	assert_int_equal(d->step.opcode, 0x74);
	/* It rewrote itself as it ran (JE -> JNE): the trap after it still sees the JE it was. */
	code[0] = 0x75;
	d = x86_decode_cached(cache, ip, false);
	assert_int_equal(d->step.opcode, 0x74);
	/* The next time it is about to run, the bytes decide: a JNE. */
	d = x86_decode_cached(cache, ip, true);
	assert_int_equal(d->step.opcode, 0x75);
	/* Another address in the same slot replaces it. */
	static uint8_t other[X86_DECODE_CACHE_SIZE + 16];
	memset(other, 0x90, sizeof(other));
	uint64_t o = (uint64_t)(uintptr_t)other;
	o += (ip - o) % X86_DECODE_CACHE_SIZE; /* the slot is ip % size: the same as ip's */
	d = x86_decode_cached(cache, o, false);
	assert_int_equal(d->ip, o);
	assert_int_equal(d->step.branch, X86_BR_NONE);
	d = x86_decode_cached(cache, ip, false);
	assert_int_equal(d->ip, ip);
	assert_int_equal(d->step.opcode, 0x75);
}

/* Exactness class 3 (code fetches that fault): only the bytes the caller says can be read are: an
 * instruction that runs past them (onto a page not present) has no decoding, and a cached one
 * longer than them is not taken (48 B8 io: MOVABS, ten bytes). */
static void no_decoding_past_the_readable_bytes(void **state)
{
	(void)state;
	memset(cache, 0, sizeof(cache));
	uint8_t code[16] = {0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8, 0x90};
	uint64_t ip = (uint64_t)(uintptr_t)code;
	assert_null(x86_decode_cached_avail(cache, ip, true, 9));
	const struct x86_decoded *d = x86_decode_cached_avail(cache, ip, true, 10);
	assert_non_null(d);
	assert_int_equal(d->insn.length, 10);
	assert_null(x86_decode_cached_avail(cache, ip, true, 2));
	assert_null(x86_decode_cached_avail(cache, ip, false, 2));
	assert_non_null(x86_decode_cached_avail(cache, ip, false, X86_MAX_INSN_LENGTH));
}

static void only_the_instructions_own_bytes_count(void **state)
{
	(void)state;
	/* Lengths 1, 2, 8, 10 and 12 (either side of the two 8-byte compares): a change in
	 * the last byte of the instruction is seen, one in the byte after it is not. */
	static const struct {
		uint8_t bytes[15];
		unsigned length;
	} cases[] = {
	    {{0x90}, 1},
	    {{0x0f, 0x0b}, 2},
	    {{0x48, 0x8d, 0x84, 0x24, 0x10, 0x10, 0x00, 0x00}, 8}, /* lea 0x1010(%rsp),%rax */
	    {{0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}, 10},		   /* movabs $imm64,%rax */
	    {{0x48, 0x81, 0x84, 0x24, 0x10, 0x10, 0, 0, 1, 0, 0, 0}, 12}, /* addq $1,0x1010(%rsp) */
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		memset(cache, 0, sizeof(cache));
		uint8_t code[32];
		memset(code, 0x90, sizeof(code));
		memcpy(code, cases[k].bytes, cases[k].length);
		uint64_t ip = (uint64_t)(uintptr_t)code;
		const struct x86_decoded *d = x86_decode_cached(cache, ip, true);
		assert_non_null(d);
		assert_int_equal(d->insn.length, cases[k].length);
		unsigned n = cases[k].length;
		code[n] ^= 0xff; /* after it: not its bytes */
		assert_true(x86_decoded_same_bytes(d));
		code[n] ^= 0xff;
		code[n - 1] ^= 0x01; /* its last byte */
		assert_false(x86_decoded_same_bytes(d));
	}
}

static void nothing_past_an_instruction_at_a_page_end_is_read(void **state)
{
	(void)state;
	memset(cache, 0, sizeof(cache));
	long page = X86_DECODE_PAGE;
	uint8_t *m =
	    mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + page, page, PROT_NONE), 0); /* the next page: unmapped */
	uint8_t *at = m + page - 2;
	at[0] = 0x0f; /* UD2, the page's last two bytes */
	at[1] = 0x0b;
	uint64_t ip = (uint64_t)(uintptr_t)at;
	/* x86_decode reads at most the instruction's bytes here (its own tests); the cache's
	 * compare must not read past them either. */
	const struct x86_decoded *slot = x86_decode_cached(cache, ip, true);
	assert_non_null(slot);
	const struct x86_decoded *d = x86_decode_cached(cache, ip, true); /* compared */
	assert_ptr_equal(d, slot);
	assert_int_equal(d->step.branch, X86_BR_NONE); /* UD2 */
	at[1] = 0x05;				       /* SYSCALL now */
	d = x86_decode_cached(cache, ip, true);
	assert_non_null(d);
	assert_int_equal(d->step.branch, X86_BR_SYSCALL);
	assert_int_equal(d->opcode, X86_OPCODE_0F(0x05));
	munmap(m, 2 * page);
}

static void bytes_that_are_no_instruction(void **state)
{
	(void)state;
	memset(cache, 0, sizeof(cache));
	uint8_t code[32] = {0x06}; /* PUSH ES: invalid in 64-bit mode */
	assert_null(x86_decode_cached(cache, (uint64_t)(uintptr_t)code, true));
	code[0] = 0x90;
	assert_non_null(x86_decode_cached(cache, (uint64_t)(uintptr_t)code, true));
}

/* The opcode the single-step engine filters on (x86_opcode_of): past legacy prefixes and REX,
 * 0F-escaped as X86_OPCODE_0F. 66 9C PUSHF (16-bit), 48 0F 07 SYSRETQ, F3 48 A5 REP MOVSQ,
 * 8E D0 MOV SS,AX, C5 F8 77 VZEROUPPER (a VEX escape is its own first byte). */
static void the_engines_opcode_is_the_bytes_opcode(void **state)
{
	(void)state;
	static const struct {
		uint8_t bytes[4];
		unsigned opcode;
	} cases[] = {
	    {{0x66, 0x9c}, 0x9c},	{{0x48, 0x0f, 0x07}, X86_OPCODE_0F(0x07)},
	    {{0xf3, 0x48, 0xa5}, 0xa5}, {{0x8e, 0xd0}, 0x8e},
	    {{0xc5, 0xf8, 0x77}, 0xc5},
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		memset(cache, 0, sizeof(cache));
		uint8_t code[32];
		memset(code, 0x90, sizeof(code));
		memcpy(code, cases[k].bytes, sizeof(cases[k].bytes));
		const struct x86_decoded *d =
		    x86_decode_cached(cache, (uint64_t)(uintptr_t)code, true);
		assert_non_null(d);
		assert_int_equal(d->opcode, cases[k].opcode);
	}
}

/* The same bytes are another instruction in 32-bit code (SDM Vol. 2A 2.2.1: 40-4F are REX only
 * in 64-bit mode): a slot decoded in one mode never answers for another. 40 74 05: REX + JE in
 * 64-bit mode, INC EAX in 32-bit code. */
static void a_decoding_answers_only_for_its_mode(void **state)
{
	(void)state;
	memset(cache, 0, sizeof(cache));
	uint8_t code[32] = {0x40, 0x74, 0x05};
	uint64_t ip = (uint64_t)(uintptr_t)code;
	const struct x86_decoded *d = x86_decode_cached(cache, ip, true);
	assert_int_equal(d->insn.length, 3);
	assert_int_equal(d->step.branch, X86_BR_JCC);
	d = x86_decode_cached_mode(cache, ip, false, X86_MODE_32);
	assert_int_equal(d->insn.length, 1);
	assert_int_equal(d->step.branch, X86_BR_NONE);
	assert_int_equal(d->opcode, 0x40);
	d = x86_decode_cached(cache, ip, false);
	assert_int_equal(d->insn.length, 3);
	assert_int_equal(d->opcode, 0x74);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_engines_opcode_is_the_bytes_opcode),
    cmocka_unit_test(a_cached_decoding_stands_until_its_bytes_change_before_it_runs),
    cmocka_unit_test(only_the_instructions_own_bytes_count),
    cmocka_unit_test(no_decoding_past_the_readable_bytes),
    cmocka_unit_test(nothing_past_an_instruction_at_a_page_end_is_read),
    cmocka_unit_test(bytes_that_are_no_instruction),
    cmocka_unit_test(a_decoding_answers_only_for_its_mode),
};
UNIT_MAIN(tests)
