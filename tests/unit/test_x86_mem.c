// UNIT-SOURCES: lib/x86_mem.c lib/x86_decode.c lib/x86_decode_tables.c
/*
 * lib/x86_mem.c: which data an instruction reads and writes, and where. Expectations from the
 * SDM Vol. 2 instruction pages (each case says which rule), with the encodings checked by
 * objdump (the disassembly in each comment is what `objdump -D -b binary -mi386:x86-64` printed
 * for the bytes). Registers before the instruction: RAX=0x1000, RCX=0x2000, ... (0x1000 times
 * one more than the register number), FS base 0x7f00000000, GS base 0x7e00000000.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "lib/x86_mem.h"

#define IP	0x400000ull
#define FS_BASE 0x7f00000000ull
#define GS_BASE 0x7e00000000ull
#define NO	(~0ull) /* no such access */
#define UNKNOWN (~1ull)

struct mem_case {
	const char *asm_text;
	uint8_t bytes[15];
	uint8_t length;
	uint64_t load, store; /* expected addresses, NO, or UNKNOWN (load column) */
};

static const struct mem_case cases[] = {
    /* MOV Gv,Ev reads its source; MOV Ev,Gv writes its destination. */
    {"mov (%rax),%rcx", {0x48, 0x8b, 0x08}, 3, 0x1000, NO},
    {"mov %rcx,0x10(%rbx)", {0x48, 0x89, 0x4b, 0x10}, 4, NO, 0x4010},
    /* ADD Ev,Gv: DEST <- DEST + SRC, read then written; base + index * scale. */
    {"add %rax,(%rbx,%rcx,4)", {0x48, 0x01, 0x04, 0x8b}, 4, 0xc000, 0xc000},
    /* CMP "sets the status flags in the same manner as the SUB instruction" and writes
     * nothing. */
    {"cmp %rax,(%rdx)", {0x48, 0x39, 0x02}, 3, 0x3000, NO},
    /* LEA computes the address, "no memory access". */
    {"lea 0x8(%rax),%rax", {0x48, 0x8d, 0x40, 0x08}, 4, NO, NO},
    /* RIP-relative: disp32 added to the address of the next instruction (Vol. 2 2.2.1.6). */
    {"mov 0x100(%rip),%eax", {0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}, 6, IP + 6 + 0x100, NO},
    /* PUSH: RSP <- RSP - 8; Memory[SS:RSP] <- SRC. POP reads Memory[SS:RSP]. */
    {"push %rbx", {0x53}, 1, NO, 0x5000 - 8},
    {"pop %rbx", {0x5b}, 1, 0x5000, NO},
    {"push %ax", {0x66, 0x50}, 2, NO, 0x5000 - 2},
    /* CALL r/m64 reads the target, then pushes the return address. */
    {"call *0x8(%rax)", {0xff, 0x50, 0x08}, 3, 0x1008, 0x5000 - 8},
    {"call rel32", {0xe8, 0, 0, 0, 0}, 5, NO, 0x5000 - 8},
    /* Intel: 66H does not shorten a near CALL in 64-bit mode; 8 bytes are pushed. */
    {"callw (objdump's AMD reading)", {0x66, 0xe8, 0, 0, 0, 0}, 6, NO, 0x5000 - 8},
    {"ret", {0xc3}, 1, 0x5000, NO},
    /* MOVS: DEST (ES:RDI) <- SRC (DS:RSI); REP: the first iteration's addresses. */
    {"rep movsb", {0xf3, 0xa4}, 2, 0x7000, 0x8000},
    {"stos %al,%es:(%rdi)", {0xaa}, 1, NO, 0x8000},
    {"lods %fs:(%rsi),%al", {0x64, 0xac}, 2, FS_BASE + 0x7000, NO},
    /* FS override: the FS base is added (Vol. 3A 3.4.4: FS and GS bases are used in
     * 64-bit mode); SIB with base 101b and mod 00b: disp32, no base; index 100b: none. */
    {"mov %fs:0x28,%rax", {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0}, 9, FS_BASE + 0x28, NO},
    /* REX.X and REX.B extend index and base: R13 * 8 + R12. */
    {"mov (%r12,%r13,8),%rax", {0x4b, 0x8b, 0x04, 0xec}, 4, 0xe000 * 8 + 0xd000, NO},
    /* mod 01b rm 101b with REX.B is R13 + disp8, not RIP-relative. */
    {"mov 0x0(%r13),%rax", {0x49, 0x8b, 0x45, 0x00}, 4, 0xe000, NO},
    {"mov 0x10(,%rcx,2),%eax", {0x8b, 0x04, 0x4d, 0x10, 0, 0, 0}, 7, 0x2000 * 2 + 0x10, NO},
    /* POP Ev: "If the ESP register is used as a base register for addressing a destination
     * operand in memory, the POP instruction computes the effective address of the operand
     * after it increments the ESP register." */
    {"pop 0x8(%rsp)", {0x8f, 0x44, 0x24, 0x08}, 4, 0x5000, 0x5000 + 8 + 8},
    /* LEAVE: RSP <- RBP, then RBP <- Pop(). */
    {"leave", {0xc9}, 1, 0x6000, NO},
    /* ENTER pushes RBP first. */
    {"enter $0x10,$0x0", {0xc8, 0x10, 0x00, 0x00}, 4, NO, 0x5000 - 8},
    {"movzbl (%rsi),%eax", {0x0f, 0xb6, 0x06}, 3, 0x7000, NO},
    {"sete (%rdi)", {0x0f, 0x94, 0x07}, 3, NO, 0x8000},
    /* XADD: TEMP <- SRC + DEST; SRC <- DEST; DEST <- TEMP. */
    {"lock xadd %eax,(%rdx)", {0xf0, 0x0f, 0xc1, 0x02}, 4, 0x3000, 0x3000},
    /* CMPXCHG8B writes the destination whether or not the comparison succeeds. */
    {"cmpxchg8b (%rdi)", {0x0f, 0xc7, 0x0f}, 3, 0x8000, 0x8000},
    {"movabs 0x1122334455667788,%al",
     {0xa0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11},
     9,
     0x1122334455667788ull,
     NO},
    /* CMOVcc: "the source operand may be read regardless of the condition" (the read is
     * reported whatever the flags). */
    {"cmovne (%rax),%ecx", {0x0f, 0x45, 0x08}, 3, 0x1000, NO},
    {"incl (%rax)", {0xff, 0x00}, 2, 0x1000, 0x1000},
    {"btl $0x3,(%rax)", {0x0f, 0xba, 0x20, 0x03}, 4, 0x1000, NO},
    {"nopl 0x0(%rax)", {0x0f, 0x1f, 0x40, 0x00}, 4, NO, NO},
    {"jmp *%rax", {0xff, 0xe0}, 2, NO, NO},
    /* Outside the table: reported as unknown, never guessed. */
    {"flds (%rax)", {0xd9, 0x00}, 2, UNKNOWN, NO},
    {"vmovdqu (%rax),%ymm0", {0xc5, 0xfe, 0x6f, 0x00}, 4, UNKNOWN, NO},
    {"bt %eax,(%rbx)", {0x0f, 0xa3, 0x03}, 3, UNKNOWN, NO},
};

/* One case: decoded in `mode`, its accesses' addresses with registers g. */
static void check_case(const struct mem_case *c, enum x86_mode mode, const struct x86_gprs *g)
{
	struct x86_insn in;
	print_message("# %s\n", c->asm_text);
	assert_int_equal(x86_decode_mode(c->bytes, c->length, mode, &in), 0);
	assert_int_equal(in.length, c->length);
	assert_false(in.rip_relative && mode != X86_MODE_64);
	struct x86_mem_use u = x86_mem_use_of(&in);
	if (c->load == UNKNOWN) {
		assert_true(u.unknown);
		return;
	}
	assert_false(u.unknown);
	uint64_t load = u.load ? x86_mem_address(&in, &u, u.load, IP, g, FS_BASE, GS_BASE) : NO;
	uint64_t store = u.store ? x86_mem_address(&in, &u, u.store, IP, g, FS_BASE, GS_BASE) : NO;
	assert_int_equal(load, c->load);
	assert_int_equal(store, c->store);
}

static void table_cases(void **state)
{
	(void)state;
	struct x86_gprs g;
	for (unsigned i = 0; i < 16; i++)
		g.r[i] = 0x1000ull * (i + 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i], X86_MODE_64, &g);
}

/* 67H: the effective address is computed in 32 bits (Vol. 2 2.2.1.3 / Table 2-1). */
static void address_size_override_truncates(void **state)
{
	(void)state;
	static const uint8_t b[] = {0x67, 0x8b, 0x08}; /* mov (%eax),%ecx */
	struct x86_gprs g = {{0}};
	g.r[0] = 0x100001000ull;
	struct x86_insn in;
	assert_int_equal(x86_decode(b, sizeof(b), &in), 0);
	struct x86_mem_use u = x86_mem_use_of(&in);
	assert_int_equal(x86_mem_address(&in, &u, u.load, IP, &g, 0, 0), 0x1000);
}

/*
 * 16/32-bit code (decoded with x86_decode_mode): 40-4F are INC/DEC r, no memory (exactness
 * class 5: not "an inc is counted as a load"); mod 00b rm 101b is disp32 alone, not RIP-relative
 * (Vol. 2A Table 2-2); addresses wrap at the address size ("Address calculations are first
 * truncated to the effective address size of the current mode ... then zero-extended", Vol. 1
 * 3.3.7); 67H in 32-bit code selects 16-bit addressing (Table 2-1: [BP+SI+disp8]); PUSH/CALL move
 * the stack by the operand size, 4 (Vol. 2 PUSH, CALL), on a 32-bit stack pointer.
 */
static const struct mem_case cases32[] = {
    {"inc %eax (40)", {0x40, 0x8b, 0x08}, 1, NO, NO},
    {"dec %eax (48)", {0x48}, 1, NO, NO},
    {"mov 0x100,%eax", {0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}, 6, 0x100, NO},
    {"mov 0x10(%eax),%ecx (EAX wraps)", {0x8b, 0x48, 0x10}, 3, 0xfu, NO},
    {"mov (%ebx,%ecx,4),%eax", {0x8b, 0x04, 0x8b}, 3, 0x4000 + 0x2000 * 4, NO},
    {"mov 0x4(%bp,%si),%ax (67H)", {0x67, 0x8b, 0x42, 0x04}, 4, 0x6000 + 0x7000 + 4, NO},
    {"mov 0xfff0(%bp,%si) (wraps at 16 bits)",
     {0x67, 0x8b, 0x82, 0x00, 0xf0},
     5,
     (0x6000 + 0x7000 + 0xf000) & 0xffff,
     NO},
    {"push %ebx", {0x53}, 1, NO, 0x5000 - 4},
    {"push %bx", {0x66, 0x53}, 2, NO, 0x5000 - 2},
    {"call rel32", {0xe8, 0, 0, 0, 0}, 5, NO, 0x5000 - 4},
    {"ret", {0xc3}, 1, 0x5000, NO},
    {"mov 0x12345678,%eax (A1 moffs32)", {0xa1, 0x78, 0x56, 0x34, 0x12}, 5, 0x12345678, NO},
};

static void compatibility_mode_addresses(void **state)
{
	(void)state;
	struct x86_gprs g;
	for (unsigned i = 0; i < 8; i++)
		g.r[i] = 0x1000ull * (i + 1);
	g.r[0] = 0x1ffffffffull; /* EAX = 0xffffffff: +0x10 wraps to 0xf */
	for (size_t i = 0; i < sizeof(cases32) / sizeof(cases32[0]); i++)
		check_case(&cases32[i], X86_MODE_32, &g);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(table_cases),
    cmocka_unit_test(address_size_override_truncates),
    cmocka_unit_test(compatibility_mode_addresses),
};

UNIT_MAIN(tests)
