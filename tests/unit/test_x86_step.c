// UNIT-SOURCES: lib/x86_step.c lib/x86_decode.c lib/x86_decode_tables.c
/*
 * lib/x86_step.c: taken or not from the instruction's semantics. Expectations from the SDM:
 * the Jcc condition table (Vol. 2, Jcc: "JA Jump if above (CF=0 and ZF=0)" ...) written out,
 * mnemonic by mnemonic over every flag combination (tests/unit/sdm_jcc.h); JrCXZ "jump if RCX
 * register is 0"; LOOP "decrement count; jump short if count != 0" (LOOPE: "and ZF = 1"; LOOPNE:
 * "and ZF = 0"); 17.3.1.4 for REP string iterations. Encodings are the SDM's opcode bytes.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "lib/x86_step.h"
#include "tests/unit/sdm_jcc.h"

static void every_condition_over_every_flag_combination(void **state)
{
	(void)state;
	static const uint64_t bits[] = {FLAG_CF, FLAG_PF, FLAG_ZF, FLAG_SF, FLAG_OF};
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
	assert_int_equal(STEP(AT + 2, 2 | FLAG_ZF, 0, 0x74, 0x00), X86_STEP_TAKEN);
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
	assert_int_equal(STEP(AT + 2, 2 | FLAG_ZF, 3, 0xe1, 0x00), X86_STEP_TAKEN);
	assert_int_equal(STEP(AT + 2, 2, 3, 0xe1, 0x00), X86_STEP_NOT_TAKEN);
	assert_int_equal(STEP(AT + 2, 2, 3, 0xe0, 0x00), X86_STEP_TAKEN);
	assert_int_equal(STEP(AT + 2, 2 | FLAG_ZF, 3, 0xe0, 0x00), X86_STEP_NOT_TAKEN);
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

static void direct_branches_that_land_elsewhere_are_redirected(void **state)
{
	(void)state;
	/* jmp .+0x12 landing at .+2, call rel32 landing past the call, jz taken (ZF=1) landing at
	 * the next instruction: not where the instruction leads, so not its branch */
	assert_int_equal(STEP(AT + 2, 2, 0, 0xeb, 0x10), X86_STEP_REDIRECTED);
	assert_int_equal(STEP(AT + 0x12, 2, 0, 0xeb, 0x10), X86_STEP_TAKEN);
	assert_int_equal(STEP(AT + 5, 2, 0, 0xe8, 0x10, 0, 0, 0), X86_STEP_REDIRECTED);
	assert_int_equal(STEP(AT + 2, 2 | FLAG_ZF, 0, 0x74, 0x10), X86_STEP_REDIRECTED);
	assert_int_equal(STEP(AT + 0x12, 2 | FLAG_ZF, 0, 0x74, 0x10), X86_STEP_TAKEN);
	/* a backward jmp rel8 (EB FE: jmp .) */
	assert_int_equal(STEP(AT, 2, 0, 0xeb, 0xfe), X86_STEP_TAKEN);
}

/* Path rebuilding: code at AT, as bytes (SDM Vol. 2 opcodes; each case's assembly beside it). */
struct code {
	const uint8_t *bytes;
	size_t n;
};

static int decode_code(void *ctx, uint64_t ip, struct x86_step_insn *out)
{
	const struct code *c = ctx;
	if (ip < AT || ip >= AT + c->n)
		return -1; /* not mapped */
	struct x86_insn in;
	if (x86_decode(c->bytes + (ip - AT), c->n - (ip - AT), &in) != 0)
		return -1;
	*out = x86_step_insn_of(&in);
	return 0;
}

static int rebuild(const uint8_t *bytes, size_t n, uint64_t to, uint64_t rflags,
		   struct x86_path_step path[X86_PATH_MAX])
{
	struct code c = {bytes, n};
	struct x86_step_insn first;
	assert_int_equal(decode_code(&c, AT, &first), 0);
	struct x86_step_regs after = {.rflags = rflags, .rcx = 0};
	return x86_path_rebuild(decode_code, &c, AT, &first, to, &after, path);
}
#define REBUILD(to, fl, path, ...)                                                                 \
	rebuild((const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}), (to),      \
		(fl), (path))

static void expect_step(const struct x86_path_step *p, uint64_t ip, uint64_t next,
			enum x86_step_outcome o)
{
	if (p->ip != ip || p->next != next || p->outcome != o)
		fail_msg("step %#lx -> %#lx (%d), expected %#lx -> %#lx (%d)", (unsigned long)p->ip,
			 (unsigned long)p->next, p->outcome, (unsigned long)ip, (unsigned long)next,
			 o);
}

static void straight_line_and_direct_branches_are_rebuilt(void **state)
{
	(void)state;
	struct x86_path_step p[X86_PATH_MAX];
	/* mov %rcx,%rax; nop: one trap after both */
	assert_int_equal(REBUILD(AT + 4, 2, p, 0x48, 0x89, 0xc8, 0x90), 2);
	expect_step(&p[0], AT, AT + 3, X86_STEP_SEQUENTIAL);
	expect_step(&p[1], AT + 3, AT + 4, X86_STEP_SEQUENTIAL);
	/* nop; nop; nop: two traps missing */
	assert_int_equal(REBUILD(AT + 3, 2, p, 0x90, 0x90, 0x90), 3);
	expect_step(&p[2], AT + 2, AT + 3, X86_STEP_SEQUENTIAL);
	/* jmp .+3 (over a nop); nop: the jump is taken to AT + 3 */
	assert_int_equal(REBUILD(AT + 4, 2, p, 0xeb, 0x01, 0x90, 0x90), 2);
	expect_step(&p[0], AT, AT + 3, X86_STEP_TAKEN);
	expect_step(&p[1], AT + 3, AT + 4, X86_STEP_SEQUENTIAL);
	/* call 1f; 1: push %rax: the call to the next instruction is taken */
	assert_int_equal(REBUILD(AT + 6, 2, p, 0xe8, 0, 0, 0, 0, 0x50), 2);
	expect_step(&p[0], AT, AT + 5, X86_STEP_TAKEN);
	/* nop; jmp *%rax: an indirect branch as the last goes where the trap landed */
	assert_int_equal(REBUILD(AT + 0x100, 2, p, 0x90, 0xff, 0xe0), 2);
	expect_step(&p[1], AT + 1, AT + 0x100, X86_STEP_TAKEN);
}

static void conditional_branches_by_the_way_that_reaches_the_trap(void **state)
{
	(void)state;
	struct x86_path_step p[X86_PATH_MAX];
	/* nop; jz .+0x10: the last instruction's condition is the trap's ZF */
	assert_int_equal(REBUILD(AT + 0x13, 2 | FLAG_ZF, p, 0x90, 0x74, 0x10), 2);
	expect_step(&p[1], AT + 1, AT + 0x13, X86_STEP_TAKEN);
	assert_int_equal(REBUILD(AT + 3, 2, p, 0x90, 0x74, 0x10), 2);
	expect_step(&p[1], AT + 1, AT + 3, X86_STEP_NOT_TAKEN);
	/* ... and a trap at the target with ZF clear leads nowhere */
	assert_int_equal(REBUILD(AT + 0x13, 2, p, 0x90, 0x74, 0x10), 0);
	/* jz .+6; nop x4; nop: in the middle, the way that reaches the trap decides */
	assert_int_equal(REBUILD(AT + 3, 2, p, 0x74, 0x04, 0x90, 0x90, 0x90, 0x90, 0x90), 2);
	expect_step(&p[0], AT, AT + 2, X86_STEP_NOT_TAKEN);
	assert_int_equal(REBUILD(AT + 7, 2, p, 0x74, 0x04, 0x90, 0x90, 0x90, 0x90, 0x90), 2);
	expect_step(&p[0], AT, AT + 6, X86_STEP_TAKEN);
	/* loop .+4 (E2 02) over a nop: both ways differ, so the middle is decided */
	assert_int_equal(REBUILD(AT + 5, 2, p, 0xe2, 0x02, 0x90, 0x90, 0x90), 2);
	expect_step(&p[0], AT, AT + 4, X86_STEP_TAKEN);
}

static void paths_the_code_cannot_tell_are_refused(void **state)
{
	(void)state;
	struct x86_path_step p[X86_PATH_MAX];
	/* jz .+2; nop: taken or not, both reach AT + 3 (its flags are gone) */
	assert_int_equal(REBUILD(AT + 3, 2, p, 0x74, 0x00, 0x90), -1);
	/* jmp *%rax; nop: where the jump went is data */
	assert_int_equal(REBUILD(AT + 3, 2, p, 0xff, 0xe0, 0x90), 0);
	/* ret, then anything */
	assert_int_equal(REBUILD(AT + 2, 2, p, 0xc3, 0x90), 0);
	/* more than X86_PATH_MAX instructions */
	assert_int_equal(REBUILD(AT + X86_PATH_MAX + 1, 2, p, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90),
			 0);
	/* a jump out of the code the decoder may read */
	assert_int_equal(REBUILD(AT + 0x43, 2, p, 0xeb, 0x40, 0x90), 0);
	/* backwards of the start: nop; jmp .-1 lands on the nop again (a loop of two) */
	assert_int_equal(REBUILD(AT + 1, 2, p, 0x90, 0xeb, 0xfd), 3);
	expect_step(&p[1], AT + 1, AT, X86_STEP_TAKEN);
	expect_step(&p[2], AT, AT + 1, X86_STEP_SEQUENTIAL);
}

/* 16/32-bit code: a near branch's target wraps at the operand size (SDM Vol. 2 Jcc: "IF
 * OperandSize = 16 THEN EIP <- EIP AND 0000FFFFH"; JMP likewise, EIP a 32-bit register), and
 * LOOP counts in ECX or CX as the address size says (LOOP: "IF AddressSize = 32 THEN Count is
 * ECX; ... ELSE Count is CX"). */
static void legacy_mode_targets_wrap_and_count(void **state)
{
	(void)state;
	static const uint8_t jmp32[] = {0xe9, 0x20, 0, 0, 0}, jmp16[] = {0x66, 0xe9, 0x10, 0x00};
	static const uint8_t loop16[] = {0x67, 0xe2, 0xfd}; /* loop .-3 with CX */
	struct x86_insn in;
	struct x86_step_regs r = {.rflags = 2, .rcx = 0};
	assert_int_equal(x86_decode_mode(jmp32, sizeof(jmp32), X86_MODE_32, &in), 0);
	struct x86_step_insn si = x86_step_insn_of(&in);
	assert_int_equal(x86_step_target(&si, 0xfffffff0), 0x15);
	assert_int_equal(x86_step_classify(&si, 0xfffffff0, 0x15, &r), X86_STEP_TAKEN);
	assert_int_equal(x86_decode_mode(jmp16, sizeof(jmp16), X86_MODE_32, &in), 0);
	si = x86_step_insn_of(&in);
	assert_int_equal(x86_step_target(&si, 0xfff0), 0x4);
	assert_int_equal(x86_decode_mode(loop16, sizeof(loop16), X86_MODE_32, &in), 0);
	si = x86_step_insn_of(&in);
	r.rcx = 0x10000; /* CX is 0 after the decrement: not taken, whatever ECX says */
	assert_int_equal(x86_step_classify(&si, 0x1000, 0x1003, &r), X86_STEP_NOT_TAKEN);
	r.rcx = 0x10001;
	assert_int_equal(x86_step_classify(&si, 0x1000, 0x1000, &r), X86_STEP_TAKEN);
	/* The same bytes in 64-bit mode: 67H gives ECX, and the target does not wrap. */
	assert_int_equal(x86_decode(loop16, sizeof(loop16), &in), 0);
	si = x86_step_insn_of(&in);
	r.rcx = 0x10000;
	assert_int_equal(x86_step_classify(&si, 0x1000, 0x1000, &r), X86_STEP_TAKEN);
	assert_int_equal(x86_decode(jmp32, sizeof(jmp32), &in), 0);
	si = x86_step_insn_of(&in);
	assert_int_equal(x86_step_target(&si, 0xfffffff0), 0x100000015ull);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_condition_over_every_flag_combination),
    cmocka_unit_test(branches_to_the_next_instruction_are_taken),
    cmocka_unit_test(conditional_branches_follow_their_condition),
    cmocka_unit_test(rep_string_iterations_are_not_branches),
    cmocka_unit_test(other_instructions),
    cmocka_unit_test(direct_branches_that_land_elsewhere_are_redirected),
    cmocka_unit_test(straight_line_and_direct_branches_are_rebuilt),
    cmocka_unit_test(conditional_branches_by_the_way_that_reaches_the_trap),
    cmocka_unit_test(paths_the_code_cannot_tell_are_refused),
    cmocka_unit_test(legacy_mode_targets_wrap_and_count),
};
UNIT_MAIN(tests)
