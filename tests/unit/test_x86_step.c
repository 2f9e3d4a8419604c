// UNIT-SOURCES: lib/x86_step.c lib/x86_decode.c lib/x86_decode_tables.c
/*
 * lib/x86_step.c: taken or not from the instruction's semantics. Expectations from the SDM:
 * the Jcc condition table (Vol. 2, Jcc: "JA Jump if above (CF=0 and ZF=0)" ...) written out
 * here mnemonic by mnemonic over every flag combination; JrCXZ "jump if RCX register is 0";
 * LOOP "decrement count; jump short if count != 0" (LOOPE: "and ZF = 1"; LOOPNE: "and ZF = 0");
 * 17.3.1.4 for REP string iterations. Encodings are the SDM's opcode bytes.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "lib/x86_step.h"

enum { CF = 1 << 0, PF = 1 << 2, ZF = 1 << 6, SF = 1 << 7, OF = 1 << 11 };

/* SDM Vol. 2 Jcc table, one line per mnemonic (0x70 + cc). */
static bool sdm_condition(unsigned cc, uint64_t f)
{
	bool cf = f & CF, pf = f & PF, zf = f & ZF, sf = f & SF, of = f & OF;
	switch (cc) {
	case 0x0:
		return of; /* JO: OF=1 */
	case 0x1:
		return !of; /* JNO: OF=0 */
	case 0x2:
		return cf; /* JB: CF=1 */
	case 0x3:
		return !cf; /* JAE: CF=0 */
	case 0x4:
		return zf; /* JE: ZF=1 */
	case 0x5:
		return !zf; /* JNE: ZF=0 */
	case 0x6:
		return cf || zf; /* JBE: CF=1 or ZF=1 */
	case 0x7:
		return !cf && !zf; /* JA: CF=0 and ZF=0 */
	case 0x8:
		return sf; /* JS: SF=1 */
	case 0x9:
		return !sf; /* JNS: SF=0 */
	case 0xa:
		return pf; /* JP: PF=1 */
	case 0xb:
		return !pf; /* JNP: PF=0 */
	case 0xc:
		return sf != of; /* JL: SF != OF */
	case 0xd:
		return sf == of; /* JGE: SF=OF */
	case 0xe:
		return zf || sf != of; /* JLE: ZF=1 or SF != OF */
	default:
		return !zf && sf == of; /* JG: ZF=0 and SF=OF */
	}
}

static void every_condition_over_every_flag_combination(void **state)
{
	(void)state;
	static const uint64_t bits[] = {CF, PF, ZF, SF, OF};
	for (unsigned cc = 0; cc < 16; cc++)
		for (unsigned m = 0; m < 32; m++) {
			uint64_t f = 0x2; /* bit 1 reads as 1 */
			for (unsigned b = 0; b < 5; b++)
				if (m & (1u << b))
					f |= bits[b];
			if (x86_condition_holds(cc, f) != sdm_condition(cc, f))
				fail_msg("cc %#x flags %#lx: got %d, SDM says %d", cc,
					 (unsigned long)f, x86_condition_holds(cc, f),
					 sdm_condition(cc, f));
		}
}

#define AT 0x401000ull

static enum x86_step_outcome step(const uint8_t *bytes, size_t n, uint64_t next, uint64_t rflags,
				  uint64_t rcx)
{
	struct x86_insn in;
	assert_int_equal(x86_decode(bytes, n, &in), 0);
	struct x86_step_regs r = {.rflags = rflags, .rcx = rcx};
	struct x86_step_insn si = x86_step_insn_of(&in);
	return x86_step_classify(&si, AT, next, &r);
}
#define STEP(next, fl, cx, ...)                                                                    \
	step((const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}), (next), (fl), \
	     (cx))

static void branches_to_the_next_instruction_are_taken(void **state)
{
	(void)state;
	assert_int_equal(STEP(AT + 5, 2, 0, 0xe8, 0, 0, 0, 0), X86_STEP_TAKEN); /* call 1f; 1: */
	assert_int_equal(STEP(AT + 2, 2, 0, 0xeb, 0x00), X86_STEP_TAKEN);	/* jmp .+2 */
	assert_int_equal(STEP(AT + 2, 2, 0, 0xff, 0xe1), X86_STEP_TAKEN);	/* jmp *%rcx */
	assert_int_equal(STEP(AT + 2, 2, 0, 0xff, 0xd1), X86_STEP_TAKEN);	/* call *%rcx */
	assert_int_equal(STEP(AT + 1, 2, 0, 0xc3), X86_STEP_TAKEN);		/* ret */
}

static void conditional_branches_follow_their_condition(void **state)
{
	(void)state;
	/* jz .+2: taken with ZF=1, not taken with ZF=0, whatever the target */
	assert_int_equal(STEP(AT + 2, 2 | ZF, 0, 0x74, 0x00), X86_STEP_TAKEN);
	assert_int_equal(STEP(AT + 2, 2, 0, 0x74, 0x00), X86_STEP_NOT_TAKEN);
	/* jne rel32 (0F 85) to the next instruction with ZF=0: taken */
	assert_int_equal(STEP(AT + 6, 2, 0, 0x0f, 0x85, 0, 0, 0, 0), X86_STEP_TAKEN);
	/* jrcxz .+2: RCX = 0 taken; 67 jecxz looks at ECX only */
	assert_int_equal(STEP(AT + 2, 2, 0, 0xe3, 0x00), X86_STEP_TAKEN);
	assert_int_equal(STEP(AT + 2, 2, 1, 0xe3, 0x00), X86_STEP_NOT_TAKEN);
	assert_int_equal(STEP(AT + 3, 2, 0x100000000ull, 0x67, 0xe3, 0x00), X86_STEP_TAKEN);
	/* loop: RCX after the decrement; loope/loopne also read ZF */
	assert_int_equal(STEP(AT + 2, 2, 3, 0xe2, 0x00), X86_STEP_TAKEN);
	assert_int_equal(STEP(AT + 2, 2, 0, 0xe2, 0x00), X86_STEP_NOT_TAKEN);
	assert_int_equal(STEP(AT + 2, 2 | ZF, 3, 0xe1, 0x00), X86_STEP_TAKEN);
	assert_int_equal(STEP(AT + 2, 2, 3, 0xe1, 0x00), X86_STEP_NOT_TAKEN);
	assert_int_equal(STEP(AT + 2, 2, 3, 0xe0, 0x00), X86_STEP_TAKEN);
	assert_int_equal(STEP(AT + 2, 2 | ZF, 3, 0xe0, 0x00), X86_STEP_NOT_TAKEN);
	/* a not-taken Jcc that did not go on sequentially: redirected, not a branch */
	assert_int_equal(STEP(AT + 0x40, 2, 0, 0x74, 0x10), X86_STEP_REDIRECTED);
}

static void rep_string_iterations_are_not_branches(void **state)
{
	(void)state;
	assert_int_equal(STEP(AT, 2, 99, 0xf3, 0xa4), X86_STEP_REP_ITERATION);	    /* rep movsb */
	assert_int_equal(STEP(AT + 2, 2, 0, 0xf3, 0xa4), X86_STEP_SEQUENTIAL);	    /* last one */
	assert_int_equal(STEP(AT, 2, 9, 0xf3, 0x48, 0xab), X86_STEP_REP_ITERATION); /* rep stosq */
	assert_int_equal(STEP(AT, 2, 9, 0xf2, 0xae), X86_STEP_REP_ITERATION); /* repne scasb */
	/* without REP the same PC twice is no iteration */
	assert_int_equal(STEP(AT, 2, 0, 0xa4), X86_STEP_REDIRECTED);
}

static void other_instructions(void **state)
{
	(void)state;
	assert_int_equal(STEP(AT + 1, 2, 0, 0x90), X86_STEP_SEQUENTIAL);
	/* ud2 whose handler resumed two bytes on: not the ud2's branch */
	assert_int_equal(STEP(AT + 0x20, 2, 0, 0x0f, 0x0b), X86_STEP_REDIRECTED);
	/* int3 and syscall back at the next instruction: the unstepped handler's round trip */
	assert_int_equal(STEP(AT + 1, 2, 0, 0xcc), X86_STEP_SEQUENTIAL);
	assert_int_equal(STEP(AT + 2, 2, 0, 0x0f, 0x05), X86_STEP_SEQUENTIAL);
	assert_int_equal(STEP(0xffffffff80001000ull, 2, 0, 0x0f, 0x05), X86_STEP_TAKEN);
	/* iretq and sysretq are taken wherever they go */
	assert_int_equal(STEP(AT + 2, 2, 0, 0x48, 0xcf), X86_STEP_TAKEN);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_condition_over_every_flag_combination),
    cmocka_unit_test(branches_to_the_next_instruction_are_taken),
    cmocka_unit_test(conditional_branches_follow_their_condition),
    cmocka_unit_test(rep_string_iterations_are_not_branches),
    cmocka_unit_test(other_instructions),
};
UNIT_MAIN(tests)
