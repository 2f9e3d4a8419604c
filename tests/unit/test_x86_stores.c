// UNIT-SOURCES: lib/x86_stores.c lib/x86_mem.c lib/x86_decode.c lib/x86_decode_tables.c
/*
 * lib/x86_stores.c: where a straight line of 64-bit code may write, in terms of the registers
 * before it, and its registers after it. Two sources independent of the code under test:
 *
 * - Hand lines whose bytes are what `as` made of the (Intel syntax) text beside them, checked
 *   with objdump, with the stores, the covered prefix and the registers after it that the SDM's
 *   instruction pages give (quoted at each case). Where the SDM's answer cannot be put in the
 *   file's terms (a register plus a constant, a constant, a range) the line must stop before the
 *   store (covered) and the register must be unknown. Lines the block engine never holds (REP
 *   strings, far transfers, IRET, MOV CR: arch/x86/step/block.c, block_plain) are checked for
 *   soundness alone: the header's contract holds for every line.
 * - Random lines of a compiler's mix (register moves, LEA, ALU with immediates of 8 to 64 bits,
 *   INC/DEC, PUSH/POP/CALL/LEAVE, MOVZX/MOVSX, shifts, IMUL/MUL, loads, stores and
 *   read-modify-writes of 1 to 8 bytes through every addressing form, SETcc, CMOVcc, strings)
 *   run natively on the host CPU with their base registers pointing into a scratch buffer and
 *   RSP into a scratch stack inside it: every byte of the buffer (and of the code page's data
 *   room, for RIP-relative stores) the CPU changed lies in a store the analysis lists, with the
 *   registers before the line; every register whose value the analysis gives is the CPU's after
 *   the covered prefix (a range's value lies in the range). Only the covered prefix runs. Each
 *   line runs twice, over two random fills of the buffer, so that a byte written with the value
 *   it had is seen in the other run.
 */
#include "tests/unit/unit.h"
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "lib/x86_stores.h"

#define RAX 0
#define RCX 1
#define RDX 2
#define RBX 3
#define RSP 4
#define RBP 5
#define RSI 6
#define RDI 7
#define R8  8
#define R12 12
#define R14 14 /* the native runner's pointer to the registers: no line writes it */
#define NO  X86_STORES_NONE
#define UNK X86_STORES_UNKNOWN
#define CST X86_STORES_CONST
#define RNG X86_STORES_RANGE

static uint64_t next_random(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull; /* Knuth's MMIX LCG */
	return *seed >> 11;
}

/* ---- the native runner ------------------------------------------------------------------- */

#define BUF_SIZE   0x8000 /* the scratch buffer: data and stack */
#define GUARD	   0x100  /* random accesses stay this far inside it */
#define PAGE	   4096
#define LINE_AT	   0x100 /* the line's offset in the code page */
#define DATA_AT	   0x800 /* the code page's room for RIP-relative data, to its end */
#define DATA_SIZE  (PAGE - DATA_AT)
#define FILLS	   2
#define SLOT_RSP   0x20 /* 8 * RSP in struct native */
#define SLOT_HOST  0x80 /* the host's RSP */
#define HAND_STACK 0x4000

struct native {
	uint64_t r[17]; /* RAX..R15, then the host's RSP */
};

static struct {
	uint8_t *code, *buf;
	bool low; /* the buffer lies below 2 GiB: a disp32 alone reaches it */
	uint8_t fill[FILLS][BUF_SIZE + DATA_SIZE];
	struct native regs;
} arena;

/* The registers 0..15 but RSP and R14 from (load) or back to 8*r(%r14): mov 8*r(%r14),%reg
 * (8B) or back (89): REX.W|B, R for r8-r15, mod 01 rm 110. */
static size_t emit_moves(uint8_t *code, size_t at, bool load)
{
	for (unsigned r = 0; r < 16; r++) {
		if (r == RSP || r == R14)
			continue;
		code[at++] = (uint8_t)(0x49 | (r >= 8 ? 0x04 : 0));
		code[at++] = load ? 0x8b : 0x89;
		code[at++] = (uint8_t)(0x46 | ((r & 7) << 3));
		code[at++] = (uint8_t)(8 * r);
	}
	return at;
}

/* The code page: pushes the host's callee-saved registers, keeps its RSP, loads the line's
 * registers (RSP last) and jumps to the line at LINE_AT; the line's tail (run_prefix) stores
 * them back and returns. The buffer below 2 GiB where the kernel gives it (MAP_32BIT). */
static void arena_init(void)
{
	if (arena.code)
		return;
	arena.buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (arena.buf == MAP_FAILED)
		arena.buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(arena.buf != MAP_FAILED);
	arena.low = (uintptr_t)arena.buf + BUF_SIZE < (1ull << 31);
	uint8_t *code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(code != MAP_FAILED);
	static const uint8_t prologue[] = {
	    0x53, 0x55, 0x41, 0x54,	 0x41, 0x55, 0x41, 0x56, 0x41, 0x57, /* push rbx .. r15 */
	    0x49, 0x89, 0xfe,						     /* mov %rdi,%r14 */
	    0x49, 0x89, 0xa6, SLOT_HOST, 0,    0,    0}; /* mov %rsp,0x80(%r14) */
	size_t at = sizeof(prologue);
	memcpy(code, prologue, at);
	at = emit_moves(code, at, true);
	const uint8_t load_rsp[] = {0x49, 0x8b, 0x66, SLOT_RSP}; /* mov 0x20(%r14),%rsp */
	memcpy(code + at, load_rsp, sizeof(load_rsp));
	at += sizeof(load_rsp);
	int32_t rel = (int32_t)(LINE_AT - (at + 5));
	code[at++] = 0xe9; /* jmp LINE_AT */
	memcpy(code + at, &rel, 4);
	uint64_t seed = 0x5eed;
	for (unsigned f = 0; f < FILLS; f++)
		for (size_t i = 0; i < sizeof(arena.fill[f]); i++)
			arena.fill[f][i] = (uint8_t)(next_random(&seed) >> 17);
	arena.code = code;
}

/* Run the first `length` bytes at LINE_AT from registers g (R14 aside) over fill f: *after. */
static void run_prefix(unsigned length, unsigned f, const struct x86_gprs *g,
		       struct x86_gprs *after)
{
	static const uint8_t tail[] = {0x49, 0x89, 0x66, SLOT_RSP, /* mov %rsp,0x20(%r14) */
				       0x49, 0x8b, 0xa6, SLOT_HOST, 0,	  0,
				       0, /* mov 0x80(%r14),%rsp */
				       0x41, 0x5f, 0x41, 0x5e,	    0x41, 0x5d, /* pop r15 .. rbx */
				       0x41, 0x5c, 0x5d, 0x5b,	    0xc3};
	size_t at = emit_moves(arena.code, LINE_AT + length, false);
	memcpy(arena.code + at, tail, sizeof(tail));
	memcpy(arena.buf, arena.fill[f], BUF_SIZE);
	memcpy(arena.code + DATA_AT, arena.fill[f] + BUF_SIZE, DATA_SIZE);
	memcpy(arena.regs.r, g->r, sizeof(g->r));
	((void (*)(struct native *))(void *)arena.code)(&arena.regs);
	memcpy(after->r, arena.regs.r, sizeof(after->r));
}

/* ---- the analysis against the CPU -------------------------------------------------------- */

#define MAX_LINE 16

struct tally {
	unsigned lines, insns, covered, whole, stores, changed, known, ranges;
};

/* Whether byte a lies in a store of s, with registers g at the line's start. */
static bool in_stores(const struct x86_stores *s, const struct x86_gprs *g, uint64_t a)
{
	for (unsigned i = 0; i < s->n; i++) {
		uint64_t first = x86_store_address(&s->st[i], g, 0, 0);
		if (a - first < s->st[i].span + s->st[i].size)
			return true;
	}
	return false;
}

/* The bytes run f changed (buffer and data room) that no store of s covers: the first in
 * *bad (as an address); how many changed in all. */
static unsigned changed_bytes(const struct x86_stores *s, const struct x86_gprs *g, unsigned f,
			      uint64_t *bad, unsigned *stray)
{
	unsigned changed = 0;
	for (unsigned part = 0; part < 2; part++) {
		const uint8_t *now = part ? arena.code + DATA_AT : arena.buf;
		const uint8_t *was = arena.fill[f] + (part ? BUF_SIZE : 0);
		size_t size = part ? DATA_SIZE : BUF_SIZE;
		for (size_t i = 0; i < size; i += 64) {
			if (!memcmp(now + i, was + i, 64))
				continue;
			for (size_t k = i; k < i + 64; k++) {
				if (now[k] == was[k])
					continue;
				changed++;
				uint64_t a = (uint64_t)(uintptr_t)(now + k);
				if (!in_stores(s, g, a) && !(*stray)++)
					*bad = a;
			}
		}
	}
	return changed;
}

/*
 * The line of `length` bytes at LINE_AT against the host CPU, from registers g (g->r[R14]: the
 * runner's pointer): its covered prefix run over each fill. False, with what went wrong in
 * why[], where the CPU wrote a byte no store covers or left a register other than the analysis
 * gives.
 */
static bool against_cpu(unsigned length, const struct x86_gprs *g, struct tally *t, char *why,
			size_t why_size)
{
	uint8_t *line = arena.code + LINE_AT;
	struct x86_insn in[MAX_LINE];
	const struct x86_insn *p[MAX_LINE];
	unsigned n = 0;
	for (unsigned off = 0; off < length; off += in[n++].length) {
		assert_true(n < MAX_LINE);
		assert_int_equal(x86_decode(line + off, length - off, &in[n]), 0);
		p[n] = &in[n];
	}
	struct x86_stores s;
	unsigned covered = x86_stores_follow(p, n, (uint64_t)(uintptr_t)line, &s);
	assert_true(covered <= n && s.n <= X86_STORES_MAX);
	unsigned prefix = 0;
	for (unsigned i = 0; i < covered; i++)
		prefix += in[i].length;
	for (unsigned i = 0; i < s.n; i++)
		if (s.st[i].insn >= covered || (i && s.st[i].insn < s.st[i - 1].insn)) {
			snprintf(why, why_size, "store %u names instruction %u (covered %u)", i,
				 s.st[i].insn, covered);
			return false;
		}
	t->lines++;
	t->insns += n;
	t->covered += covered;
	t->whole += covered == n;
	t->stores += s.n;
	struct x86_gprs after, known_after;
	uint16_t known = x86_stores_after(&s, g, &known_after);
	for (unsigned f = 0; f < FILLS; f++) {
		run_prefix(prefix, f, g, &after);
		after.r[R14] = g->r[R14];
		uint64_t bad = 0;
		unsigned stray = 0;
		t->changed += changed_bytes(&s, g, f, &bad, &stray);
		if (stray) {
			snprintf(why, why_size,
				 "fill %u: the CPU wrote %u bytes outside the stores listed, the "
				 "first at %#lx (buffer%+ld)",
				 f, stray, (unsigned long)bad,
				 (long)(bad - (uint64_t)(uintptr_t)arena.buf));
			return false;
		}
		for (unsigned r = 0; r < 16; r++) {
			struct x86_stores_value v = s.exit[r];
			uint64_t want;
			if (v.var == RNG) {
				t->ranges += f == 0;
				if (after.r[r] - (uint64_t)v.off > v.span) {
					snprintf(why, why_size,
						 "r%u after the covered %u: the CPU %#lx, the "
						 "analysis %#lx..+%#lx",
						 r, covered, (unsigned long)after.r[r],
						 (unsigned long)v.off, (unsigned long)v.span);
					return false;
				}
			} else if (x86_stores_eval(v, g, &want)) {
				t->known += f == 0;
				if (want != after.r[r] || !(known >> r & 1) ||
				    known_after.r[r] != want) {
					snprintf(why, why_size,
						 "r%u after the covered %u: the CPU %#lx, the "
						 "analysis %#lx (var %u%+ld)",
						 r, covered, (unsigned long)after.r[r],
						 (unsigned long)want, v.var, (long)v.off);
					return false;
				}
			} else if (known >> r & 1) {
				snprintf(why, why_size, "r%u: x86_stores_after knows it, eval not",
					 r);
				return false;
			}
		}
	}
	return true;
}

/* ---- hand lines: the SDM's stores and registers ------------------------------------------ */

#define START 0x401000ull /* where a hand line starts (RIP-relative cases) */

struct want_store {
	uint8_t insn, base, index, scale, seg;
	int64_t off;
	uint64_t span;
	uint16_t size, size_max; /* the SDM's bytes; the widest the class may be counted as */
};

struct want_value {
	bool check;
	uint8_t reg, var; /* var UNK: the value is not one the file can put */
	int64_t off;
	uint64_t span;
};

struct hand_case {
	const char *text; /* what `as` made the bytes of */
	const char *bytes;
	unsigned length, covered;
	struct want_store st[3];
	struct want_value exit[3];
	bool native; /* also against the CPU, registers into the buffer (hand_registers) */
};

/* clang-format off */
#define B(s)			s, sizeof(s) - 1
#define AT(i, b, o, sz)		{i, b, NO, 0, 0, o, 0, sz, sz}
#define ATI(i, b, x, sc, o, sz)	{i, b, x, sc, 0, o, 0, sz, sz}
#define ATS(i, b, o, sp, sz)	{i, b, NO, 0, 0, o, sp, sz, sz}
#define ATW(i, b, o, sz, mx)	{i, b, NO, 0, 0, o, 0, sz, mx}
#define ATG(i, b, seg, o, sz)	{i, b, NO, 0, seg, o, 0, sz, sz}
#define IS(r, v, o)		{true, r, v, o, 0}
#define IN(r, o, sp)		{true, r, RNG, o, sp}
#define NOSTORE			{{0}}
#define NOREG			{{0}}
/* clang-format on */
#define SEG_FS 0x64
#define SEG_GS 0x65

static const struct hand_case hand[] = {
    /* PUSH "decrements the stack pointer and then stores the source operand on the top of the
     * stack"; CALL "pushes the value of the EIP register (which contains the offset of the
     * instruction following the CALL instruction) on the stack" (SDM Vol. 2 PUSH, CALL) */
    {"push rbx; mov [rsp+8], rax; call 1f; 1:",
     B("\x53\x48\x89\x44\x24\x08\xe8\x00\x00\x00\x00"),
     3,
     {AT(0, RSP, -8, 8), AT(1, RSP, 0, 8), AT(2, RSP, -16, 8)},
     {IS(RSP, RSP, -16)},
     true},
    /* LEA "computes the effective address of the second operand ... and stores it in the
     * first operand" */
    {"lea rdi, [rsi+16]; mov [rdi+4], eax",
     B("\x48\x8d\x7e\x10\x89\x47\x04"),
     2,
     {AT(1, RSI, 20, 4)},
     {IS(RDI, RSI, 16)},
     true},
    /* AND: DEST <- DEST AND SRC; "32-bit operands generate a 32-bit result, zero-extended to a
     * 64-bit result in the destination" (Vol. 1 3.4.1.1): r8 is 0..7FH, the index 0..3F8H */
    {"and r8d, 0x7f; mov [r8*8+0x1000], rcx",
     B("\x41\x83\xe0\x7f\x4a\x89\x0c\xc5\x00\x10\x00\x00"),
     2,
     {ATS(1, NO, 0x1000, 0x3f8, 8)},
     {IN(R8, 0, 0x7f)},
     false},
    /* MOVZX "copies the contents of the source operand ... and zero extends the value": rax
     * is 0..FFH, the address rbx plus 0..FFH */
    {"movzx eax, byte ptr [rsi]; mov [rax+rbx], dl",
     B("\x0f\xb6\x06\x88\x14\x18"),
     2,
     {ATS(1, RBX, 0, 0xff, 1)},
     {IN(RAX, 0, 0xff)},
     true},
    /* the address is a value loaded from memory: not in the registers' terms */
    {"mov rax, [rbx]; mov [rax], rcx",
     B("\x48\x8b\x03\x48\x89\x08"),
     1,
     NOSTORE,
     {IS(RAX, UNK, 0)},
     true},
    /* MOVAPS m128, xmm: 16 bytes at [rdi]; a vector store may be counted as up to 64 */
    {"movaps [rdi], xmm0", B("\x0f\x29\x07"), 1, {ATW(0, RDI, 0, 16, 64)}, NOREG, true},
    /* XSAVE: the size of the area written follows XCR0 and the processor (Vol. 1 13.4) */
    {"xsave [rdi]", B("\x0f\xae\x27"), 0, NOSTORE, NOREG, true},
    /* ENTER: not followed (the file's choice; its nesting copies frame pointers) */
    {"enter 16, 0", B("\xc8\x10\x00\x00"), 0, NOSTORE, NOREG, true},
    /* VSIB (Vol. 2 2.3.12): one store per element of a vector index */
    {"vpscatterdd [rax+zmm1*4]{k1}, zmm2", B("\x62\xf2\x7d\x49\xa0\x14\x88"), 0, NOSTORE, NOREG,
     true},
    /* FS's base is added to the effective address (Vol. 3A 3.4.4, 64-bit mode) */
    {"mov fs:[8], rax",
     B("\x64\x48\x89\x04\x25\x08\x00\x00\x00"),
     1,
     {ATG(0, NO, SEG_FS, 8, 8)},
     NOREG,
     false},
    /* XOR of a register with itself is 0 */
    {"xor eax, eax; mov [rax+8], rbx",
     B("\x31\xc0\x48\x89\x58\x08"),
     2,
     {AT(1, NO, 8, 8)},
     {IS(RAX, CST, 0)},
     false},
    /* POP "loads the value from the top of the stack ... and then increments the stack
     * pointer" */
    {"pop rax; mov [rsp], rbx",
     B("\x58\x48\x89\x1c\x24"),
     2,
     {AT(1, RSP, 8, 8)},
     {IS(RSP, RSP, 8), IS(RAX, UNK, 0)},
     true},
    /* LEAVE "copies the frame pointer (in the EBP register) into the stack pointer register
     * ... The old frame pointer ... is then popped from the stack into the EBP register"; a
     * 64-bit operand by default (Vol. 2 2.2.1.2, Table 2-4): RSP = RBP + 8 */
    {"leave; mov [rsp], rax",
     B("\xc9\x48\x89\x04\x24"),
     2,
     {AT(1, RBP, 8, 8)},
     {IS(RSP, RBP, 8), IS(RBP, UNK, 0)},
     true},
    /* 67H: "Address calculations are first truncated to the effective address size"
     * (Vol. 1 3.3.7): not a sum of the 64-bit registers */
    {"mov [eax], ebx", B("\x67\x89\x18"), 0, NOSTORE, NOREG, true},
    /* RIP-relative: "RIP + 32-bit displacement", RIP of the next instruction (Vol. 2
     * 2.2.1.6): START + 7 + 100H */
    {"mov [rip+0x100], rax",
     B("\x48\x89\x05\x00\x01\x00\x00"),
     1,
     {AT(0, NO, (int64_t)START + 7 + 0x100, 8)},
     NOREG,
     false},
    {"sub rsp, 32; mov [rsp+8], rdi",
     B("\x48\x83\xec\x20\x48\x89\x7c\x24\x08"),
     2,
     {AT(1, RSP, -24, 8)},
     {IS(RSP, RSP, -32)},
     true},
    /* IMUL's product is not a register plus a constant */
    {"imul rcx, rdx; mov [rcx], al",
     B("\x48\x0f\xaf\xca\x88\x01"),
     1,
     NOSTORE,
     {IS(RCX, UNK, 0)},
     true},
    /* INC "adds 1 to the destination operand" */
    {"inc rdi; mov [rdi], al",
     B("\x48\xff\xc7\x88\x07"),
     2,
     {AT(1, RDI, 1, 1)},
     {IS(RDI, RDI, 1)},
     true},
    /* SHL of a range: 0..FFH << 3 = 0..7F8H; a 16-bit store */
    {"and eax, 0xff; shl rax, 3; mov [rax+rbx+2], cx",
     B("\x25\xff\x00\x00\x00\x48\xc1\xe0\x03\x66\x89\x4c\x18\x02"),
     3,
     {ATS(2, RBX, 2, 0x7f8, 2)},
     {IN(RAX, 0, 0x7f8)},
     true},
    /* POP: "If the ESP register is used as a base register for addressing a destination
     * operand in memory, the POP instruction computes the effective address of the operand
     * after it increments the ESP register"; POP defaults to a 64-bit operand in 64-bit mode
     * (Vol. 2 2.2.1.2, Table 2-4, without REX.W): 8 bytes */
    {"pop qword ptr [rsp+8]",
     B("\x8f\x44\x24\x08"),
     1,
     {AT(0, RSP, 16, 8)},
     {IS(RSP, RSP, 8)},
     true},
    {"push qword ptr [rsp+8]",
     B("\xff\x74\x24\x08"),
     1,
     {AT(0, RSP, -8, 8)},
     {IS(RSP, RSP, -8)},
     true},
    /* PUSH r16: "the stack pointer is decremented by 2" with a 16-bit operand */
    {"push ax", B("\x66\x50"), 1, {AT(0, RSP, -2, 2)}, {IS(RSP, RSP, -2)}, true},
    /* CALL r/m64 pushes the return address like CALL rel32 */
    {"call qword ptr [rax]", B("\xff\x10"), 1, {AT(0, RSP, -8, 8)}, NOREG, false},
    /* a base and a scaled index of the same register: rdx + 20H + rdx * 2 - 8 */
    {"mov rcx, rdx; add rcx, 0x20; mov [rcx+rdx*2-8], esi",
     B("\x48\x89\xd1\x48\x83\xc1\x20\x89\x74\x51\xf8"),
     3,
     {ATI(2, RDX, RDX, 1, 0x18, 4)},
     {IS(RCX, RDX, 0x20)},
     false},
    /* MOV r32, imm32, zero-extended (Vol. 1 3.4.1.1) */
    {"mov eax, 0x1000; mov [rax], bl",
     B("\xb8\x00\x10\x00\x00\x88\x18"),
     2,
     {AT(1, NO, 0x1000, 1)},
     {IS(RAX, CST, 0x1000)},
     false},
    {"mov eax, -8; mov [rax+rbx], cl",
     B("\xb8\xf8\xff\xff\xff\x88\x0c\x18"),
     2,
     {AT(1, RBX, 0xfffffff8, 1)},
     {IS(RAX, CST, 0xfffffff8)},
     false},
    /* MOV r/m64, imm32: "Move imm32 sign extended to 64-bits" */
    {"mov rax, -8; mov [rax+rbx], cl",
     B("\x48\xc7\xc0\xf8\xff\xff\xff\x88\x0c\x18"),
     2,
     {AT(1, RBX, -8, 1)},
     {IS(RAX, CST, -8)},
     true},
    {"movabs rax, 0x123456789; mov [rax+8], cl",
     B("\x48\xb8\x89\x67\x45\x23\x01\x00\x00\x00\x88\x48\x08"),
     2,
     {AT(1, NO, 0x123456791, 1)},
     {IS(RAX, CST, 0x123456789)},
     false},
    /* STOS stores "into the destination operand ... ES:(E)DI", then (E)DI moves by DF: not
     * known */
    {"stosq", B("\x48\xab"), 1, {AT(0, RDI, 0, 8)}, {IS(RDI, UNK, 0)}, true},
    {"movsb", B("\xa4"), 1, {ATW(0, RDI, 0, 1, 8)}, {IS(RDI, UNK, 0)}, true},
    {"xchg [rbx+8], rcx", B("\x48\x87\x4b\x08"), 1, {AT(0, RBX, 8, 8)}, {IS(RCX, UNK, 0)}, true},
    {"lock cmpxchg16b [rdi]", B("\xf0\x48\x0f\xc7\x0f"), 1, {AT(0, RDI, 0, 16)}, NOREG, true},
    /* BTS with a register offset: "the bit offset ... can range from -2^63 to 2^63 - 1"
     * (Vol. 2 BT): the address moves with it */
    {"bts [rdi], rax", B("\x48\x0f\xab\x07"), 0, NOSTORE, NOREG, true},
    /* BTS with an immediate: the offset is taken modulo the operand size */
    {"bts qword ptr [rdi], 5", B("\x48\x0f\xba\x2f\x05"), 1, {AT(0, RDI, 0, 8)}, NOREG, true},
    /* SETcc "sets the destination operand to 0 or 1": a byte */
    {"sete byte ptr [rbx+1]", B("\x0f\x94\x43\x01"), 1, {AT(0, RBX, 1, 1)}, NOREG, true},
    /* FNSAVE: 94 or 108 bytes; an x87 store may be counted as up to 128 */
    {"fnsave [rsp]", B("\xdd\x34\x24"), 1, {ATW(0, RSP, 0, 108, 128)}, NOREG, true},
    /* MASKMOVDQU: "The memory location is specified by DS:DI/EDI/RDI" */
    {"maskmovdqu xmm0, xmm1", B("\x66\x0f\xf7\xc1"), 1, {ATW(0, RDI, 0, 16, 64)}, NOREG, true},
    /* EVEX disp8*N (Vol. 2 2.7.5): not followed, the file's choice */
    {"vmovdqu64 [rdi+64], zmm0", B("\x62\xf1\xfe\x48\x7f\x47\x01"), 0, NOSTORE, NOREG, true},
    {"vmovdqu64 [rdi+0x1001], zmm0",
     B("\x62\xf1\xfe\x48\x7f\x87\x01\x10\x00\x00"),
     1,
     {AT(0, RDI, 0x1001, 64)},
     NOREG,
     false},
    {"mov gs:[rax+16], ecx", B("\x65\x89\x48\x10"), 1, {ATG(0, RAX, SEG_GS, 16, 4)}, NOREG, false},
    /* MOV moffs64, AL: the 64-bit offset is the address */
    {"movabs byte ptr [0x1122334455667788], al",
     B("\xa2\x88\x77\x66\x55\x44\x33\x22\x11"),
     1,
     {AT(0, NO, 0x1122334455667788, 1)},
     NOREG,
     false},
    /* AND with a negative mask: rsp's low bits cleared, not rsp plus a constant */
    {"mov rbp, rsp; and rsp, -16; mov [rsp], rax",
     B("\x48\x89\xe5\x48\x83\xe4\xf0\x48\x89\x04\x24"),
     2,
     NOSTORE,
     {IS(RBP, RSP, 0), IS(RSP, UNK, 0)},
     true},
    /* "The POP ESP instruction increments the stack pointer (ESP) before data at the old top
     * of stack is written into the destination" */
    {"pop rsp; mov [rsp], rax", B("\x5c\x48\x89\x04\x24"), 1, NOSTORE, {IS(RSP, UNK, 0)}, true},
    /* SPL (REX, Vol. 2 Table 2-2): the stack pointer's low byte */
    {"mov spl, al; mov [rsp], rcx",
     B("\x40\x88\xc4\x48\x89\x0c\x24"),
     1,
     NOSTORE,
     {IS(RSP, UNK, 0)},
     true},
    /* XCHG exchanges: rsp becomes rax (the file keeps XCHG unfollowed: unknown) */
    {"xchg rsp, rax; mov [rsp], rcx",
     B("\x48\x94\x48\x89\x0c\x24"),
     1,
     NOSTORE,
     {IS(RSP, UNK, 0)},
     true},
    {"lea rax, [rip+0x20]; mov [rax], bl",
     B("\x48\x8d\x05\x20\x00\x00\x00\x88\x18"),
     2,
     {AT(1, NO, (int64_t)START + 7 + 0x20, 1)},
     {IS(RAX, CST, (int64_t)START + 0x27)},
     false},
    {"cmovne rax, rbx; mov [rax], cl",
     B("\x48\x0f\x45\xc3\x88\x08"),
     1,
     NOSTORE,
     {IS(RAX, UNK, 0)},
     true},
    /* an 8-bit result: "The upper 56 bits ... are not modified" (Vol. 1 3.4.1.1) */
    {"mov al, 5; mov [rax], cl", B("\xb0\x05\x88\x08"), 1, NOSTORE, {IS(RAX, UNK, 0)}, true},
    {"add qword ptr [rsp], 8", B("\x48\x83\x04\x24\x08"), 1, {AT(0, RSP, 0, 8)}, NOREG, true},
    {"mov r12, rsp; mov [r12+rsi*4+4], eax",
     B("\x49\x89\xe4\x41\x89\x44\xb4\x04"),
     2,
     {ATI(1, RSP, RSI, 2, 4, 4)},
     {IS(R12, RSP, 0)},
     false},
    /* MOVZX r32, m16: 0..FFFFH; LEA of it times 8: 0..7FFF8H */
    {"movzx eax, word ptr [rsi]; lea rax, [rax*8]; mov [rax+rdi], bl",
     B("\x0f\xb7\x06\x48\x8d\x04\xc5\x00\x00\x00\x00\x88\x1c\x38"),
     3,
     {ATS(2, RDI, 0, 0x7fff8, 1)},
     {IN(RAX, 0, 0x7fff8)},
     false},
    {"fxsave [rdi]", B("\x0f\xae\x07"), 0, NOSTORE, NOREG, true},
    /* MOV r/m16, Sreg: two bytes */
    {"mov [rax], cs", B("\x8c\x08"), 1, {AT(0, RAX, 0, 2)}, NOREG, true},
    {"sub eax, eax; mov [rax+rax*2+0x20], cl",
     B("\x29\xc0\x88\x4c\x40\x20"),
     2,
     {AT(1, NO, 0x20, 1)},
     {IS(RAX, CST, 0)},
     false},
    /* 0..1 << 31, 32-bit: 0..80000000H */
    {"and eax, 1; shl eax, 31; mov [rax+rbx], cl",
     B("\x83\xe0\x01\xc1\xe0\x1f\x88\x0c\x18"),
     3,
     {ATS(2, RBX, 0, 0x80000000, 1)},
     {IN(RAX, 0, 0x80000000)},
     false},
    /* SHL: "The count is masked to 5 bits (or 6 bits if in 64-bit mode and REX.W is used)":
     * 65 is 1, 33 is 1 */
    {"and eax, 3; shl rax, 65; mov [rax+rbx], cl",
     B("\x83\xe0\x03\x48\xc1\xe0\x41\x88\x0c\x18"),
     3,
     {ATS(2, RBX, 0, 6, 1)},
     {IN(RAX, 0, 6)},
     true},
    {"and eax, 3; shl eax, 33; mov [rax+rbx], cl",
     B("\x83\xe0\x03\xc1\xe0\x21\x88\x0c\x18"),
     3,
     {ATS(2, RBX, 0, 6, 1)},
     {IN(RAX, 0, 6)},
     true},
    {"mov ecx, 0xfffff; shl rcx, 12; mov [rcx], al",
     B("\xb9\xff\xff\x0f\x00\x48\xc1\xe1\x0c\x88\x01"),
     3,
     {AT(2, NO, 0xfffff000, 1)},
     {IS(RCX, CST, 0xfffff000)},
     false},
    /* a register shifted is not a register plus a constant */
    {"shl rax, 3; mov [rax], cl",
     B("\x48\xc1\xe0\x03\x88\x08"),
     1,
     NOSTORE,
     {IS(RAX, UNK, 0)},
     true},
    {"call 1f; 1: mov [rsp], rax",
     B("\xe8\x00\x00\x00\x00\x48\x89\x04\x24"),
     2,
     {AT(0, RSP, -8, 8), AT(1, RSP, -8, 8)},
     {IS(RSP, RSP, -8)},
     true},
    {"push 0x12; push rbx; mov [rsp+16], al",
     B("\x6a\x12\x53\x88\x44\x24\x10"),
     3,
     {AT(0, RSP, -8, 8), AT(1, RSP, -16, 8), AT(2, RSP, 0, 1)},
     {IS(RSP, RSP, -16)},
     true},
    /* AND AX, imm16 (66 25): a 16-bit result, "the upper ... 48 bits ... are not modified"
     * (Vol. 1 3.4.1.1): rax keeps its upper bits, not a range from 0 */
    {"and ax, 0x1ff; mov [rax+rbx], cl",
     B("\x66\x25\xff\x01\x88\x0c\x18"),
     1,
     NOSTORE,
     {IS(RAX, UNK, 0)},
     true},
    /* the same with 66 83 /4 and 66 81 /4 */
    {"and ax, 0xf; mov [rax], cl",
     B("\x66\x83\xe0\x0f\x88\x08"),
     1,
     NOSTORE,
     {IS(RAX, UNK, 0)},
     false},
    {"and cx, 0x1ff; mov [rcx+rbx], al",
     B("\x66\x81\xe1\xff\x01\x88\x04\x19"),
     1,
     NOSTORE,
     {IS(RCX, UNK, 0)},
     false},
};

/* The registers a hand line runs from natively: each into the buffer, 100H apart. */
static struct x86_gprs hand_registers(void)
{
	struct x86_gprs g;
	for (unsigned r = 0; r < 16; r++)
		g.r[r] = (uint64_t)(uintptr_t)arena.buf + 0x1000 + 0x100 * r;
	g.r[RSP] = (uint64_t)(uintptr_t)arena.buf + HAND_STACK;
	g.r[R14] = (uint64_t)(uintptr_t)arena.regs.r;
	return g;
}

static unsigned decode_line(const char *bytes, unsigned length, struct x86_insn *in,
			    const struct x86_insn **p)
{
	unsigned n = 0;
	for (unsigned off = 0; off < length; off += in[n++].length) {
		assert_true(n < MAX_LINE);
		assert_int_equal(x86_decode((const uint8_t *)bytes + off, length - off, &in[n]), 0);
		p[n] = &in[n];
	}
	return n;
}

static const char *reg_name(unsigned r)
{
	static const char *const names[] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
					    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
	return r < 16 ? names[r] : r == NO ? "-" : r == CST ? "const" : r == RNG ? "range" : "?";
}

static unsigned check_hand(const struct hand_case *c)
{
	struct x86_insn in[MAX_LINE];
	const struct x86_insn *p[MAX_LINE];
	unsigned n = decode_line(c->bytes, c->length, in, p), bad = 0;
	struct x86_stores s;
	unsigned covered = x86_stores_follow(p, n, START, &s);
	if (covered != c->covered) {
		print_message("# %s: covered %u, the SDM gives %u\n", c->text, covered, c->covered);
		return 1;
	}
	unsigned want = 0;
	while (want < 3 && c->st[want].size)
		want++;
	if (s.n != want) {
		print_message("# %s: %u stores, the SDM gives %u\n", c->text, s.n, want);
		bad++;
	}
	for (unsigned i = 0; i < want && i < s.n; i++) {
		const struct want_store *w = &c->st[i];
		const struct x86_store_ref *r = &s.st[i];
		if (r->insn != w->insn || r->base != w->base || r->index != w->index ||
		    (w->index != NO && r->scale != w->scale) || r->seg != w->seg ||
		    r->off != w->off || r->span != w->span || r->size < w->size ||
		    r->size > w->size_max) {
			print_message(
			    "# %s: store %u: insn %u %s + %s<<%u + %#lx + 0..%#lx seg %#x, "
			    "%u bytes; the SDM gives insn %u %s + %s<<%u + %#lx + 0..%#lx "
			    "seg %#x, %u bytes\n",
			    c->text, i, r->insn, reg_name(r->base), reg_name(r->index), r->scale,
			    (unsigned long)r->off, (unsigned long)r->span, r->seg, r->size, w->insn,
			    reg_name(w->base), reg_name(w->index), w->scale, (unsigned long)w->off,
			    (unsigned long)w->span, w->seg, w->size);
			bad++;
		}
	}
	for (unsigned i = 0; i < 3 && c->exit[i].check; i++) {
		const struct want_value *w = &c->exit[i];
		struct x86_stores_value v = s.exit[w->reg];
		bool same = w->var == UNK ? v.var == UNK
					  : v.var == w->var && v.off == w->off && v.span == w->span;
		if (!same) {
			print_message(
			    "# %s: %s after it is %s%+ld (span %#lx), the SDM gives %s%+ld "
			    "(span %#lx)\n",
			    c->text, reg_name(w->reg), v.var == UNK ? "unknown" : reg_name(v.var),
			    (long)v.off, (unsigned long)v.span,
			    w->var == UNK ? "unknown" : reg_name(w->var), (long)w->off,
			    (unsigned long)w->span);
			bad++;
		}
	}
	if (c->native && !bad) {
		struct tally t = {0};
		char why[256];
		memcpy(arena.code + LINE_AT, c->bytes, c->length);
		struct x86_gprs g = hand_registers();
		if (!against_cpu(c->length, &g, &t, why, sizeof(why))) {
			print_message("# %s: against the CPU: %s\n", c->text, why);
			bad++;
		}
	}
	return bad;
}

static void hand_lines_from_the_sdm(void **state)
{
	(void)state;
	arena_init();
	unsigned bad = 0;
	for (size_t i = 0; i < sizeof(hand) / sizeof(hand[0]); i++)
		bad += check_hand(&hand[i]) != 0;
	if (bad)
		fail_msg("%u of %zu hand lines disagree with the SDM", bad,
			 sizeof(hand) / sizeof(hand[0]));
}

/*
 * Lines the block engine keeps out of blocks (arch/x86/step/block.c, block_plain: REP strings,
 * branches other than direct ones, MOV CR) are still lines to x86_stores_follow, and its
 * header's contract is for any line: each store listed, each register given right. Checked for
 * soundness alone: the line may stop before the instruction (covered 0); where it does not, the
 * SDM's store must lie inside one listed for it (with random registers), and RSP after it must
 * be unknown or the SDM's.
 */
struct contract_case {
	const char *text;
	const char *bytes;
	unsigned length;
	bool unbounded; /* the store's extent is no constant (REP: RCX elements) */
	struct want_store st;
	uint8_t rsp_var; /* RSP after: RSP + rsp_off, or UNK: not a function of the registers */
	int64_t rsp_off;
};

static const struct contract_case contract[] = {
    /* REP STOS: "Fill (E)CX bytes at ES:[(E)DI] with AL" (Vol. 2 REP) */
    {"rep stosb", B("\xf3\xaa"), true, {0}, RSP, 0},
    {"rep movsb", B("\xf3\xa4"), true, {0}, RSP, 0},
    /* far CALL m16:64: "the processor pushes the current value of both the CS and EIP
     * registers on the stack" (Vol. 2 CALL), 8 bytes each with REX.W: [RSP-16, RSP) */
    {"rex.w call fword ptr [rax]", B("\x48\xff\x18"), false, AT(0, RSP, -16, 16), RSP, -16},
    /* far CALL m16:32: CS (padded) and EIP, 4 bytes each: [RSP-8, RSP) */
    {"call fword ptr [rax]", B("\xff\x18"), false, AT(0, RSP, -8, 8), RSP, -8},
    /* IRETQ pops RIP, CS, RFLAGS, RSP and SS (Vol. 2 IRET, IA-32e mode): RSP is loaded */
    {"iretq", B("\x48\xcf"), false, {0}, UNK, 0},
    /* MOV r64, CR0 with ModRM mod 00: "The 2 bits in the mod field are ignored. The r/m
     * field specifies the general-purpose register loaded" (Vol. 2 MOV--Move to/from Control
     * Registers): objdump has 0f 20 04 as mov rsp,cr0 */
    {"mov rsp, cr0 (0f 20 04)", B("\x0f\x20\x04"), false, {0}, UNK, 0},
};

static unsigned check_contract(const struct contract_case *c, uint64_t *seed)
{
	struct x86_insn in[MAX_LINE];
	const struct x86_insn *p[MAX_LINE];
	unsigned n = decode_line(c->bytes, c->length, in, p);
	struct x86_stores s;
	if (x86_stores_follow(p, n, START, &s) == 0)
		return 0;
	if (c->unbounded) {
		print_message("# %s: covered, with %u stores of at most %u bytes; its writes are "
			      "not bounded by a constant\n",
			      c->text, s.n, s.n ? s.st[0].size : 0);
		return 1;
	}
	unsigned bad = 0;
	for (unsigned k = 0; c->st.size && k < 64 && !bad; k++) {
		struct x86_gprs g;
		for (unsigned r = 0; r < 16; r++)
			g.r[r] = next_random(seed) << 11 ^ next_random(seed);
		uint64_t a = x86_store_address(
		    &(struct x86_store_ref){.base = c->st.base, .index = NO, .off = c->st.off}, &g,
		    0, 0);
		bool inside = false;
		for (unsigned i = 0; i < s.n; i++)
			inside |= s.st[i].insn == 0 &&
				  a - x86_store_address(&s.st[i], &g, 0, 0) + c->st.size <=
				      s.st[i].span + s.st[i].size;
		if (!inside) {
			print_message("# %s: covered, but no store listed holds its %u bytes at "
				      "%s%+ld (%u listed)\n",
				      c->text, c->st.size, reg_name(c->st.base), (long)c->st.off,
				      s.n);
			bad++;
		}
	}
	struct x86_stores_value v = s.exit[RSP];
	if (v.var != UNK && (c->rsp_var == UNK || v.var != c->rsp_var || v.off != c->rsp_off)) {
		print_message("# %s: rsp after it is %s%+ld, the SDM gives %s%+ld\n", c->text,
			      reg_name(v.var), (long)v.off,
			      c->rsp_var == UNK ? "a value loaded" : reg_name(c->rsp_var),
			      (long)c->rsp_off);
		bad++;
	}
	return bad;
}

static void lines_outside_blocks_sound(void **state)
{
	(void)state;
	uint64_t seed = 47;
	unsigned bad = 0;
	for (size_t i = 0; i < sizeof(contract) / sizeof(contract[0]); i++)
		bad += check_contract(&contract[i], &seed) != 0;
	if (bad)
		fail_msg("%u of %zu lines outside blocks break x86_stores.h's contract", bad,
			 sizeof(contract) / sizeof(contract[0]));
}

/* ---- random lines against the CPU -------------------------------------------------------- */

/*
 * The generator keeps a shadow of each register, sound for the CPU's values (it only keeps the
 * native runs inside the buffer; the analysis is never consulted): a pointer into the buffer at
 * an offset lo..hi (P), a small value 0..hi (S), or anything (X). Addresses are made of P and S
 * registers alone, and only where every value the shadows allow stays GUARD inside the buffer.
 */
enum { K_X, K_P, K_S };

struct shadow {
	uint8_t kind;
	int64_t lo, hi;
};

#define LINE_MIN   4
#define LINE_MAX   12
#define LINE_BYTES 200
#define SMALL_MAX  (1ll << 40)

struct gen {
	uint64_t seed;
	uint8_t code[LINE_BYTES];
	unsigned len, n;
	uint8_t at[LINE_MAX + 1];
	const char *what[LINE_MAX];
	struct shadow sh[16];
	uint64_t line; /* where the line runs: arena.code + LINE_AT */
};

static uint64_t below(struct gen *g, uint64_t n)
{
	return next_random(&g->seed) % n;
}

static int64_t between(struct gen *g, int64_t lo, int64_t hi)
{
	return lo + (int64_t)below(g, (uint64_t)(hi - lo + 1));
}

static const struct shadow anything = {K_X, 0, 0};

static struct shadow ptr(int64_t lo, int64_t hi)
{
	return (struct shadow){K_P, lo, hi};
}

static struct shadow small(int64_t hi)
{
	return hi >= 0 && hi <= SMALL_MAX ? (struct shadow){K_S, 0, hi} : anything;
}

/* A value whose low `mask` bits were written, the rest kept. */
static struct shadow partial(struct shadow s, int64_t mask)
{
	return s.kind == K_S ? small(s.hi | mask) : anything;
}

/* A 32-bit result: zero-extended; a value that was below 2^32 and is unchanged stays. */
static struct shadow zext32(struct shadow s, bool same)
{
	if (same && s.kind == K_S && s.hi <= 0xffffffff)
		return s;
	if (same && s.kind == K_P && arena.low)
		return s;
	return small(0xffffffff);
}

/* A register a line may write in full: not RSP (its own templates), not R14 (the runner's). */
static unsigned pick_dst(struct gen *g)
{
	unsigned r;
	do
		r = (unsigned)below(g, 16);
	while (r == RSP || r == R14);
	return r;
}

/* A register of `kind` (RSP among the pointers where rsp_ok), -1 where none. */
static int pick_kind(struct gen *g, unsigned kind, bool rsp_ok)
{
	int have[16], n = 0;
	for (int r = 0; r < 16; r++)
		if (g->sh[r].kind == kind && (rsp_ok || r != RSP) && r != R14)
			have[n++] = r;
	return n ? have[below(g, (uint64_t)n)] : -1;
}

struct mem {
	int base, index; /* -1: none */
	unsigned scale;
	int32_t disp;
	bool rip;
	uint64_t target; /* RIP-relative: the address */
};

static bool fits(int64_t lo, int64_t end)
{
	return lo >= GUARD && end <= BUF_SIZE - GUARD;
}

/* The buffer's address plus off as a disp32 (the buffer below 2 GiB). */
static int32_t absolute(int64_t off)
{
	return (int32_t)((int64_t)(uintptr_t)arena.buf + off);
}

/*
 * A memory operand for an access of `size` bytes that stays inside the buffer (or the code
 * page's data room) for every value the shadows allow. rsp_after: what RSP as a base is
 * advanced by first (POP Ev). Forms: base + disp8/disp32, base + index * scale + disp, an
 * index (scale 1) with no base, [disp32], [index * scale + disp32], [small base + disp32],
 * [rip + disp32].
 */
static bool choose_mem(struct gen *g, unsigned size, int64_t rsp_after, struct mem *m)
{
	*m = (struct mem){-1, -1, 0, 0, false, 0};
	int64_t lo, hi;
	unsigned form = (unsigned)below(g, 11);
	if (form >= 7 && form <= 9 && !arena.low)
		form = 0;
	if (form <= 2 || form == 10) { /* base + disp */
		m->base = pick_kind(g, K_P, true);
		if (m->base < 0)
			return false;
		m->disp =
		    (int32_t)(below(g, 3) ? between(g, -128, 127) : between(g, -0x800, 0x800));
		if (form == 10)
			m->disp = 0;
		lo = g->sh[m->base].lo + m->disp;
		hi = g->sh[m->base].hi + m->disp;
		if (m->base == RSP) {
			lo += rsp_after;
			hi += rsp_after;
		}
		return fits(lo, hi + size);
	}
	if (form <= 4) { /* base + index * scale + disp */
		m->base = pick_kind(g, K_P, true);
		m->index = pick_kind(g, K_S, false);
		if (m->base < 0 || m->index < 0)
			return false;
		m->scale = (unsigned)below(g, 4);
		m->disp = (int32_t)between(g, -128, 127);
		int64_t span = g->sh[m->index].hi << m->scale;
		if (g->sh[m->index].hi > 0x1000)
			return false;
		lo = g->sh[m->base].lo + m->disp + (m->base == RSP ? rsp_after : 0);
		hi = g->sh[m->base].hi + m->disp + (m->base == RSP ? rsp_after : 0) + span;
		return fits(lo, hi + size);
	}
	if (form == 5) { /* a pointer as the index, scale 1, no base: SIB base 101, mod 00 */
		m->index = pick_kind(g, K_P, false);
		if (m->index < 0)
			return false;
		m->disp = (int32_t)between(g, -0x100, 0x100);
		return fits(g->sh[m->index].lo + m->disp, g->sh[m->index].hi + m->disp + size);
	}
	if (form == 6) { /* RIP-relative, into the code page's data room */
		m->rip = true;
		m->target =
		    (uint64_t)(uintptr_t)arena.code + DATA_AT + below(g, DATA_SIZE - 16 - size);
		return true;
	}
	if (form == 7) { /* [disp32] */
		int64_t off = between(g, GUARD, BUF_SIZE - GUARD - size);
		m->disp = absolute(off);
		return true;
	}
	/* [index * scale + disp32] (8), [small base + disp32] (9) */
	int r = pick_kind(g, K_S, false);
	if (r < 0 || g->sh[r].hi > 0x1000)
		return false;
	if (form == 8) {
		m->index = r;
		m->scale = (unsigned)below(g, 4);
	} else {
		m->base = r;
	}
	int64_t off = between(g, GUARD, BUF_SIZE / 2);
	m->disp = absolute(off);
	return fits(off, off + (g->sh[r].hi << m->scale) + size);
}

/*
 * Append an instruction: [prefix] [REX] opcode ModRM [SIB] [disp] [imm], the ModRM's register
 * field `reg` (a register or an opcode extension), its r/m the memory operand m or, where m is
 * NULL, register rm. rex: 0 as the operands need, 1 always (SPL..DIL), -1 never (AH..BH):
 * false where that cannot be.
 */
static bool emit(struct gen *g, const char *what, uint8_t prefix, bool w, int rex,
		 const uint8_t *op, unsigned oplen, unsigned reg, const struct mem *m, unsigned rm,
		 uint64_t imm, unsigned immlen)
{
	uint8_t b[16];
	unsigned k = 0, need = (w ? 8 : 0) | (reg & 8 ? 4 : 0), dsize = 0;
	uint8_t modrm, sib = 0;
	bool has_sib = false;
	int32_t disp = 0;
	if (!m) {
		need |= rm & 8 ? 1 : 0;
		modrm = (uint8_t)(0xc0 | (reg & 7) << 3 | (rm & 7));
	} else if (m->rip) {
		modrm = (uint8_t)((reg & 7) << 3 | 5);
		dsize = 4;
	} else if (m->base < 0) { /* SIB with base 101, mod 00: disp32 */
		modrm = (uint8_t)((reg & 7) << 3 | 4);
		has_sib = true;
		unsigned ix = m->index < 0 ? 4 : (unsigned)m->index & 7;
		need |= m->index >= 8 ? 2 : 0;
		sib = (uint8_t)(m->scale << 6 | ix << 3 | 5);
		dsize = 4;
		disp = m->disp;
	} else {
		unsigned b7 = (unsigned)m->base & 7;
		unsigned mod = m->disp == 0 && b7 != 5		   ? 0
			       : m->disp >= -128 && m->disp <= 127 ? 1
								   : 2;
		dsize = mod == 0 ? 0 : mod == 1 ? 1 : 4;
		disp = m->disp;
		need |= m->base >= 8 ? 1 : 0;
		if (m->index >= 0 || b7 == 4) {
			unsigned ix = m->index < 0 ? 4 : (unsigned)m->index & 7;
			need |= m->index >= 8 ? 2 : 0;
			has_sib = true;
			sib = (uint8_t)(m->scale << 6 | ix << 3 | b7);
			modrm = (uint8_t)(mod << 6 | (reg & 7) << 3 | 4);
		} else {
			modrm = (uint8_t)(mod << 6 | (reg & 7) << 3 | b7);
		}
	}
	if (need && rex < 0)
		return false;
	if (prefix)
		b[k++] = prefix;
	if (need || rex > 0)
		b[k++] = (uint8_t)(0x40 | need);
	memcpy(b + k, op, oplen);
	k += oplen;
	b[k++] = modrm;
	if (has_sib)
		b[k++] = sib;
	unsigned disp_at = k;
	k += dsize;
	for (unsigned i = 0; i < immlen; i++)
		b[k++] = (uint8_t)(imm >> 8 * i);
	if (m && m->rip)
		disp = (int32_t)(m->target - (g->line + g->len + k));
	for (unsigned i = 0; i < dsize; i++)
		b[disp_at + i] = (uint8_t)((uint32_t)disp >> 8 * i);
	if (g->len + k > LINE_BYTES)
		return false;
	memcpy(g->code + g->len, b, k);
	g->what[g->n++] = what;
	g->len += k;
	g->at[g->n] = (uint8_t)g->len;
	return true;
}

/* Append an instruction without ModRM. */
static bool emit_plain(struct gen *g, const char *what, const uint8_t *b, unsigned k)
{
	if (g->len + k > LINE_BYTES)
		return false;
	memcpy(g->code + g->len, b, k);
	g->what[g->n++] = what;
	g->len += k;
	g->at[g->n] = (uint8_t)g->len;
	return true;
}

/* A byte register: encoding `enc` (0-15; 4-7 as SPL..DIL with REX: rex 1), or AH..BH (4-7
 * without REX: rex -1); `full`: the register it is part of. A destination is never SPL or R14B. */
struct byte_reg {
	unsigned enc, full;
	int rex;
};

static struct byte_reg pick_byte(struct gen *g, bool dst)
{
	if (below(g, 4) == 0) {
		unsigned k = (unsigned)below(g, 4);
		return (struct byte_reg){4 + k, k, -1};
	}
	unsigned r;
	do
		r = (unsigned)below(g, 16);
	while (dst && (r == RSP || r == R14));
	return (struct byte_reg){r, r, r >= 4 && r < 8 ? 1 : 0};
}

/* A byte register written: its low byte (or its second, AH..BH). */
static void byte_written(struct gen *g, struct byte_reg b)
{
	g->sh[b.full] = partial(g->sh[b.full], b.rex < 0 ? 0xff00 : 0xff);
}

/* Operand widths: 1, 2, 4 or 8 bytes, the prefix and REX.W for each. */
static unsigned pick_width(struct gen *g)
{
	static const unsigned widths[] = {8, 8, 8, 4, 4, 4, 2, 1, 1};
	return widths[below(g, sizeof(widths) / sizeof(widths[0]))];
}

static uint8_t p66(unsigned width)
{
	return width == 2 ? 0x66 : 0;
}

/* An immediate: the masks and steps a compiler uses, or random. */
static int64_t pick_imm(struct gen *g)
{
	static const int64_t common[] = {0,    1,  7,  8,   0xf,   0x10,  0x3f, 0x7f,
					 0xff, -1, -8, -16, 0x7ff, 0xfff, 0x1ff};
	if (below(g, 2))
		return common[below(g, sizeof(common) / sizeof(common[0]))];
	return below(g, 2) ? between(g, -128, 127) : (int32_t)next_random(&g->seed);
}

/* The shadow of base + (index << scale) + disp (an LEA's value). */
static struct shadow combine(struct gen *g, int base, int index, unsigned scale, int64_t disp)
{
	int regs[2] = {base, index};
	unsigned scales[2] = {0, scale};
	bool pointer = false;
	int64_t lo = disp, hi = disp;
	for (unsigned i = 0; i < 2; i++) {
		if (regs[i] < 0)
			continue;
		struct shadow s = g->sh[regs[i]];
		if (regs[i] == R14 || s.kind == K_X)
			return anything;
		if (s.kind == K_P) {
			if (pointer || scales[i])
				return anything;
			pointer = true;
			lo += s.lo;
			hi += s.hi;
		} else {
			hi += s.hi << scales[i];
		}
	}
	if (pointer)
		return ptr(lo, hi);
	return lo >= 0 ? small(hi) : anything;
}

static bool t_mov_rr(struct gen *g)
{
	unsigned d = pick_dst(g), s = (unsigned)below(g, 16), form = (unsigned)below(g, 4);
	uint8_t op = below(g, 2) ? 0x89 : 0x8b;
	unsigned reg = op == 0x89 ? s : d, rm = op == 0x89 ? d : s;
	struct shadow src = s == R14 ? anything : g->sh[s];
	if (form <= 1) {
		if (!emit(g, "mov r64,r64", 0, true, 0, &op, 1, reg, NULL, rm, 0, 0))
			return false;
		g->sh[d] = src;
	} else if (form == 2) {
		if (!emit(g, "mov r32,r32", 0, false, 0, &op, 1, reg, NULL, rm, 0, 0))
			return false;
		g->sh[d] = zext32(src, true);
	} else {
		if (!emit(g, "mov r16,r16", 0x66, false, 0, &op, 1, reg, NULL, rm, 0, 0))
			return false;
		g->sh[d] = partial(g->sh[d], 0xffff);
	}
	return true;
}

static bool t_mov_imm(struct gen *g)
{
	unsigned d = pick_dst(g), form = (unsigned)below(g, 6);
	uint8_t b[10];
	unsigned k = 0;
	if (form == 0 || form == 1) { /* mov r32, imm32: small, or the buffer's address */
		int64_t off = between(g, 0x1000, BUF_SIZE - 0x1000);
		uint32_t v =
		    form == 0 || !arena.low ? (uint32_t)below(g, 0x1000) : (uint32_t)absolute(off);
		if (d >= 8)
			b[k++] = 0x41;
		b[k++] = (uint8_t)(0xb8 | (d & 7));
		memcpy(b + k, &v, 4);
		if (!emit_plain(g, "mov r32,imm32", b, k + 4))
			return false;
		g->sh[d] = form == 0 || !arena.low ? small(v) : ptr(off, off);
	} else if (form == 2) { /* mov r/m64, imm32 sign-extended */
		int64_t v = pick_imm(g);
		uint8_t op = 0xc7;
		if (!emit(g, "mov r64,simm32", 0, true, 0, &op, 1, 0, NULL, d, (uint64_t)v, 4))
			return false;
		g->sh[d] = v >= 0 ? small(v) : anything;
	} else if (form == 3) { /* movabs: random, or the buffer's address */
		int64_t off = between(g, 0x1000, BUF_SIZE - 0x1000);
		bool p = below(g, 2);
		uint64_t v = p ? (uint64_t)(uintptr_t)arena.buf + (uint64_t)off
			       : next_random(&g->seed) << 11 ^ next_random(&g->seed);
		b[k++] = (uint8_t)(0x48 | (d >= 8 ? 1 : 0));
		b[k++] = (uint8_t)(0xb8 | (d & 7));
		memcpy(b + k, &v, 8);
		if (!emit_plain(g, "movabs r64,imm64", b, k + 8))
			return false;
		g->sh[d] = p ? ptr(off, off) : anything;
	} else if (form == 4) { /* mov r8, imm8 */
		struct byte_reg r = pick_byte(g, true);
		if (r.rex > 0 || r.enc >= 8)
			b[k++] = (uint8_t)(0x40 | (r.enc >= 8 ? 1 : 0));
		b[k++] = (uint8_t)(0xb0 | (r.enc & 7));
		b[k++] = (uint8_t)below(g, 256);
		if (!emit_plain(g, "mov r8,imm8", b, k))
			return false;
		byte_written(g, r);
	} else { /* mov r16, imm16 */
		b[k++] = 0x66;
		if (d >= 8)
			b[k++] = 0x41;
		b[k++] = (uint8_t)(0xb8 | (d & 7));
		b[k++] = (uint8_t)below(g, 256);
		b[k++] = (uint8_t)below(g, 256);
		if (!emit_plain(g, "mov r16,imm16", b, k))
			return false;
		g->sh[d] = partial(g->sh[d], 0xffff);
	}
	return true;
}

static bool t_lea(struct gen *g)
{
	unsigned d = pick_dst(g), form = (unsigned)below(g, 8);
	struct mem m = {-1, -1, 0, 0, false, 0};
	if (form == 7) {
		m.rip = true;
		m.target = g->line + below(g, 0x1000);
	} else {
		if (form != 6)
			m.base = (int)below(g, 16);
		if (form >= 3) {
			do
				m.index = (int)below(g, 16);
			while (m.index == RSP);
			m.scale = (unsigned)below(g, 4);
		}
		m.disp = (int32_t)(below(g, 4) ? between(g, -0x100, 0x100)
					       : (int32_t)next_random(&g->seed));
	}
	bool w = below(g, 4) != 0;
	uint8_t op = 0x8d;
	if (!emit(g, w ? "lea r64" : "lea r32", 0, w, 0, &op, 1, d, &m, 0, 0, 0))
		return false;
	struct shadow s = m.rip ? anything : combine(g, m.base, m.index, m.scale, m.disp);
	g->sh[d] = w ? s : small(0xffffffff);
	return true;
}

/* ALU op with an immediate: 80/81/83 /ext, or the eAX short forms (04 + 8 * ext). */
static bool t_alu_imm(struct gen *g)
{
	static const char *const names[8][4] = {
	    {"add r8,imm", "add r16,imm", "add r32,imm", "add r64,imm"},
	    {"or r8,imm", "or r16,imm", "or r32,imm", "or r64,imm"},
	    {"adc r8,imm", "adc r16,imm", "adc r32,imm", "adc r64,imm"},
	    {"sbb r8,imm", "sbb r16,imm", "sbb r32,imm", "sbb r64,imm"},
	    {"and r8,imm", "and r16,imm", "and r32,imm", "and r64,imm"},
	    {"sub r8,imm", "sub r16,imm", "sub r32,imm", "sub r64,imm"},
	    {"xor r8,imm", "xor r16,imm", "xor r32,imm", "xor r64,imm"},
	    {"cmp r8,imm", "cmp r16,imm", "cmp r32,imm", "cmp r64,imm"}};
	unsigned ext = (unsigned)below(g, 8), width = pick_width(g);
	if (below(g, 3) == 0)
		ext = 4; /* AND: masks */
	int64_t imm = pick_imm(g);
	unsigned wi = width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : 3;
	const char *what = names[ext][wi];
	if (width == 1) {
		struct byte_reg r = pick_byte(g, true);
		uint8_t op = 0x80;
		if (!emit(g, what, 0, false, r.rex, &op, 1, ext, NULL, r.enc, (uint64_t)imm, 1))
			return false;
		if (ext != 7)
			g->sh[r.full] = ext == 4
					    ? g->sh[r.full]
					    : partial(g->sh[r.full], r.rex < 0 ? 0xff00 : 0xff);
		if (ext == 4 && g->sh[r.full].kind != K_S)
			g->sh[r.full] = anything;
		return true;
	}
	unsigned d = pick_dst(g);
	if (width == 2)
		imm = (int16_t)imm;
	bool imm8 = imm >= -128 && imm <= 127 && below(g, 4) != 0;
	unsigned immlen = imm8 ? 1 : width == 2 ? 2 : 4;
	if (width == 8 && !imm8)
		imm = (int32_t)imm;
	if (d == RAX && !imm8 && below(g, 2)) { /* 05, 0D, ..., 3D: rAX, imm */
		uint8_t b[8];
		unsigned k = 0;
		if (width == 2)
			b[k++] = 0x66;
		if (width == 8)
			b[k++] = 0x48;
		b[k++] = (uint8_t)(0x05 | ext << 3);
		for (unsigned i = 0; i < immlen; i++)
			b[k++] = (uint8_t)((uint64_t)imm >> 8 * i);
		if (!emit_plain(g, what, b, k))
			return false;
	} else {
		uint8_t op = imm8 ? 0x83 : 0x81;
		if (!emit(g, what, p66(width), width == 8, 0, &op, 1, ext, NULL, d, (uint64_t)imm,
			  immlen))
			return false;
	}
	struct shadow s = g->sh[d];
	if (ext == 7)
		return true;
	if (width == 2) {
		g->sh[d] = ext == 4 && s.kind == K_S ? s : partial(s, 0xffff);
	} else if (width == 4) {
		uint32_t mask = (uint32_t)imm;
		g->sh[d] = ext == 4 ? small(s.kind == K_S && s.hi < mask ? s.hi : mask)
				    : small(0xffffffff);
	} else if (ext == 0 || ext == 5) {
		int64_t k = ext == 0 ? imm : -imm;
		if (s.kind == K_P)
			g->sh[d] = ptr(s.lo + k, s.hi + k);
		else if (s.kind == K_S && k >= 0)
			g->sh[d] = small(s.hi + k);
		else
			g->sh[d] = anything;
	} else if (ext == 4) {
		g->sh[d] = imm >= 0 ? small(s.kind == K_S && s.hi < imm ? s.hi : imm) : anything;
	} else {
		g->sh[d] = anything;
	}
	return true;
}

/* ALU op between registers: ADD OR ADC SBB AND SUB XOR CMP (00-39), TEST (84, 85). */
static bool t_alu_rr(struct gen *g)
{
	static const uint8_t ops[] = {0x01, 0x09, 0x11, 0x19, 0x21, 0x29, 0x31, 0x39, 0x85};
	uint8_t op = ops[below(g, sizeof(ops))];
	unsigned width = pick_width(g), d = pick_dst(g), s = below(g, 3) ? pick_dst(g) : d;
	if (width == 1) {
		struct byte_reg rd = pick_byte(g, true), rs = pick_byte(g, false);
		if (rd.rex * rs.rex < 0)
			return false;
		op = (uint8_t)(op & ~1);
		if (!emit(g, "alu r8,r8", 0, false, rd.rex | rs.rex, &op, 1, rs.enc, NULL, rd.enc,
			  0, 0))
			return false;
		if (op != 0x38 && op != 0x84)
			byte_written(g, rd);
		return true;
	}
	if (!emit(g,
		  width == 8   ? "alu r64,r64"
		  : width == 4 ? "alu r32,r32"
			       : "alu r16,r16",
		  p66(width), width == 8, 0, &op, 1, s, NULL, d, 0, 0))
		return false;
	if (op == 0x39 || op == 0x85)
		return true;
	if ((op == 0x31 || op == 0x29) && s == d && width >= 4)
		g->sh[d] = small(0);
	else if (width == 8 && op == 0x01 && g->sh[d].kind == K_P && g->sh[s].kind == K_S)
		g->sh[d] = ptr(g->sh[d].lo, g->sh[d].hi + g->sh[s].hi);
	else if (width == 8 && op == 0x21 && g->sh[s].kind == K_S)
		g->sh[d] = g->sh[d].kind == K_S && g->sh[d].hi < g->sh[s].hi ? g->sh[d] : g->sh[s];
	else
		g->sh[d] = width == 4	? small(0xffffffff)
			   : width == 2 ? partial(g->sh[d], 0xffff)
					: anything;
	return true;
}

static bool t_incdec(struct gen *g)
{
	unsigned width = pick_width(g), ext = (unsigned)below(g, 2);
	if (width == 1) {
		struct byte_reg r = pick_byte(g, true);
		uint8_t op = 0xfe;
		if (!emit(g, ext ? "dec r8" : "inc r8", 0, false, r.rex, &op, 1, ext, NULL, r.enc,
			  0, 0))
			return false;
		byte_written(g, r);
		return true;
	}
	unsigned d = pick_dst(g);
	uint8_t op = 0xff;
	if (!emit(g, ext ? "dec r" : "inc r", p66(width), width == 8, 0, &op, 1, ext, NULL, d, 0,
		  0))
		return false;
	struct shadow s = g->sh[d];
	if (width == 8 && s.kind == K_P)
		g->sh[d] = ptr(s.lo + (ext ? -1 : 1), s.hi + (ext ? -1 : 1));
	else if (width == 8 && s.kind == K_S && !ext)
		g->sh[d] = small(s.hi + 1);
	else
		g->sh[d] = width == 4	? small(0xffffffff)
			   : width == 2 ? partial(s, 0xffff)
					: anything;
	return true;
}

static bool stack_fits(struct gen *g, int64_t move)
{
	return fits(g->sh[RSP].lo + move, g->sh[RSP].hi + move + 16) &&
	       g->sh[RSP].lo + move >= 0x400;
}

static void stack_moved(struct gen *g, int64_t move)
{
	g->sh[RSP].lo += move;
	g->sh[RSP].hi += move;
}

static bool t_push(struct gen *g)
{
	unsigned form = (unsigned)below(g, 6), r = (unsigned)below(g, 16);
	int64_t size = form == 4 ? 2 : 8;
	if (!stack_fits(g, -size))
		return false;
	uint8_t b[8];
	unsigned k = 0;
	if (form <= 1) { /* push r */
		if (r >= 8)
			b[k++] = 0x41;
		b[k++] = (uint8_t)(0x50 | (r & 7));
		if (!emit_plain(g, "push r64", b, k))
			return false;
	} else if (form == 2) { /* push imm8, sign-extended */
		b[0] = 0x6a;
		b[1] = (uint8_t)below(g, 256);
		if (!emit_plain(g, "push imm8", b, 2))
			return false;
	} else if (form == 3) { /* push imm32 */
		uint32_t v = (uint32_t)next_random(&g->seed);
		b[0] = 0x68;
		memcpy(b + 1, &v, 4);
		if (!emit_plain(g, "push imm32", b, 5))
			return false;
	} else if (form == 4) { /* push r16 */
		b[k++] = 0x66;
		if (r >= 8)
			b[k++] = 0x41;
		b[k++] = (uint8_t)(0x50 | (r & 7));
		if (!emit_plain(g, "push r16", b, k))
			return false;
	} else { /* push [mem] (FF /6) */
		struct mem m;
		uint8_t op = 0xff;
		if (!choose_mem(g, 8, 0, &m) ||
		    !emit(g, "push m64", 0, false, 0, &op, 1, 6, &m, 0, 0, 0))
			return false;
	}
	stack_moved(g, -size);
	return true;
}

static bool t_pop(struct gen *g)
{
	unsigned form = (unsigned)below(g, 4), d = pick_dst(g);
	int64_t size = form == 2 ? 2 : 8;
	if (!stack_fits(g, size))
		return false;
	uint8_t b[4];
	unsigned k = 0;
	if (form <= 1) { /* pop r */
		if (d >= 8)
			b[k++] = 0x41;
		b[k++] = (uint8_t)(0x58 | (d & 7));
		if (!emit_plain(g, "pop r64", b, k))
			return false;
		g->sh[d] = anything;
	} else if (form == 2) { /* pop r16 */
		b[k++] = 0x66;
		if (d >= 8)
			b[k++] = 0x41;
		b[k++] = (uint8_t)(0x58 | (d & 7));
		if (!emit_plain(g, "pop r16", b, k))
			return false;
		g->sh[d] = partial(g->sh[d], 0xffff);
	} else { /* pop [mem] (8F /0): the address after RSP moves */
		struct mem m;
		uint8_t op = 0x8f;
		if (!choose_mem(g, 8, 8, &m) ||
		    !emit(g, "pop m64", 0, false, 0, &op, 1, 0, &m, 0, 0, 0))
			return false;
	}
	stack_moved(g, size);
	return true;
}

static bool t_call(struct gen *g)
{
	static const uint8_t call_next[] = {0xe8, 0, 0, 0, 0}; /* call .+5 */
	if (!stack_fits(g, -8) || !emit_plain(g, "call rel32", call_next, 5))
		return false;
	stack_moved(g, -8);
	return true;
}

/* LEAVE, ADD/SUB RSP, LEA RSP, MOV RSP, RBP */
static bool t_stack(struct gen *g)
{
	unsigned form = (unsigned)below(g, 5);
	struct shadow bp = g->sh[RBP];
	if (form == 0 || form == 1) { /* leave; mov rsp, rbp */
		if (bp.kind != K_P || !fits(bp.lo, bp.hi + 8) || bp.lo < 0x400)
			return false;
		static const uint8_t leave[] = {0xc9}, mov[] = {0x48, 0x89, 0xec};
		if (!(form ? emit_plain(g, "mov rsp,rbp", mov, 3)
			   : emit_plain(g, "leave", leave, 1)))
			return false;
		g->sh[RSP] = ptr(bp.lo + (form ? 0 : 8), bp.hi + (form ? 0 : 8));
		if (!form)
			g->sh[RBP] = anything;
		return true;
	}
	int64_t k = between(g, -64, 64);
	if (!stack_fits(g, k))
		return false;
	if (form == 2) {
		uint8_t b[] = {0x48, 0x83, 0xc4, (uint8_t)k}; /* add rsp, imm8 */
		if (!emit_plain(g, "add rsp,imm8", b, 4))
			return false;
	} else if (form == 3) {
		uint8_t b[] = {0x48, 0x83, 0xec, (uint8_t)-k}; /* sub rsp, imm8 */
		if (!emit_plain(g, "sub rsp,imm8", b, 4))
			return false;
	} else {
		uint8_t b[] = {0x48, 0x8d, 0x64, 0x24, (uint8_t)k}; /* lea rsp, [rsp + disp8] */
		if (!emit_plain(g, "lea rsp,[rsp+d8]", b, 5))
			return false;
	}
	stack_moved(g, k);
	return true;
}

/* MOVZX, MOVSX (0F B6/B7/BE/BF) and MOVSXD, from a register or memory. */
static bool t_movzx(struct gen *g)
{
	static const uint8_t ops[] = {0xb6, 0xb7, 0xbe, 0xbf, 0xb6, 0xb7};
	uint8_t op2 = ops[below(g, sizeof(ops))];
	unsigned d = pick_dst(g), form = (unsigned)below(g, 5);
	bool wide = op2 & 1;
	unsigned width = form == 4 && !wide ? 2 : below(g, 3) ? 4 : 8;
	struct mem m;
	bool mem = below(g, 2);
	if (mem && !choose_mem(g, wide ? 2 : 1, 0, &m))
		return false;
	uint8_t op[2] = {0x0f, op2};
	const char *what = op2 == 0xb6	 ? "movzx r,r/m8"
			   : op2 == 0xb7 ? "movzx r,r/m16"
					 : "movsx r,r/m";
	if (below(g, 8) == 0) { /* movsxd r64, r/m32 */
		op[0] = 0x63;
		if (!emit(g, "movsxd", 0, true, 0, op, 1, d, mem ? &m : NULL, pick_dst(g), 0, 0))
			return false;
		g->sh[d] = anything;
		return true;
	}
	if (mem || wide) {
		if (!emit(g, what, p66(width), width == 8, 0, op, 2, d, mem ? &m : NULL,
			  (unsigned)below(g, 16), 0, 0))
			return false;
	} else {
		struct byte_reg s = pick_byte(g, false);
		if (!emit(g, what, p66(width), width == 8, s.rex, op, 2, d, NULL, s.enc, 0, 0))
			return false;
	}
	if (width == 2)
		g->sh[d] = partial(g->sh[d], 0xffff);
	else if (op2 == 0xb6 || op2 == 0xb7)
		g->sh[d] = small(op2 == 0xb6 ? 0xff : 0xffff);
	else
		g->sh[d] = width == 4 ? small(0xffffffff) : anything;
	return true;
}

/* Shifts and a rotate: SHL, SHR, SAR, ROL by an immediate (C1, counts past the mask too), by 1
 * (D1) or by CL (D3). */
static bool t_shift(struct gen *g)
{
	static const unsigned exts[] = {4, 4, 4, 5, 7, 0};
	unsigned ext = exts[below(g, 6)], d = pick_dst(g), form = (unsigned)below(g, 4);
	unsigned width = below(g, 6) == 0 ? 2 : below(g, 2) ? 8 : 4;
	uint64_t count = form <= 1 ? below(g, 72) : 1;
	uint8_t op = form <= 1 ? 0xc1 : form == 2 ? 0xd1 : 0xd3;
	if (!emit(g,
		  ext == 4   ? "shl r,k"
		  : ext == 5 ? "shr r,k"
		  : ext == 7 ? "sar r,k"
			     : "rol r,k",
		  p66(width), width == 8, 0, &op, 1, ext, NULL, d, count, op == 0xc1 ? 1 : 0))
		return false;
	struct shadow s = g->sh[d];
	unsigned k = (unsigned)(count & (width == 8 ? 63 : 31));
	if (width == 2)
		g->sh[d] = partial(s, 0xffff);
	else if (op != 0xd3 && ext == 4 && s.kind == K_S && s.hi < (1ll << 32) && k < 32 &&
		 (s.hi << k) < (1ll << 32))
		g->sh[d] = small(s.hi << k);
	else if (op != 0xd3 && (ext == 5 || ext == 7) && s.kind == K_S) /* no larger */
		g->sh[d] = width == 4 && s.hi > (ext == 7 ? 0x7fffffff : 0xffffffff)
			       ? small(0xffffffff)
			       : s;
	else
		g->sh[d] = width == 4 ? small(0xffffffff) : anything;
	return true;
}

/* IMUL r, r/m (0F AF), IMUL r, r/m, imm (6B, 69), MUL/IMUL r/m (F7 /4 /5: RDX:RAX) */
static bool t_imul(struct gen *g)
{
	unsigned d = pick_dst(g), form = (unsigned)below(g, 4), width = below(g, 2) ? 8 : 4;
	struct mem m;
	bool mem = below(g, 3) == 0;
	if (mem && !choose_mem(g, width, 0, &m))
		return false;
	unsigned rm = pick_dst(g);
	bool ok;
	if (form == 0) {
		uint8_t op[] = {0x0f, 0xaf};
		ok = emit(g, "imul r,r/m", 0, width == 8, 0, op, 2, d, mem ? &m : NULL, rm, 0, 0);
	} else if (form == 1) {
		uint8_t op = 0x6b;
		ok = emit(g, "imul r,r/m,imm8", 0, width == 8, 0, &op, 1, d, mem ? &m : NULL, rm,
			  below(g, 256), 1);
	} else if (form == 2) {
		uint8_t op = 0x69;
		ok = emit(g, "imul r,r/m,imm32", 0, width == 8, 0, &op, 1, d, mem ? &m : NULL, rm,
			  next_random(&g->seed), 4);
	} else {
		uint8_t op = 0xf7;
		ok = emit(g, "mul r/m", 0, width == 8, 0, &op, 1, 4 + (unsigned)below(g, 2),
			  mem ? &m : NULL, rm, 0, 0);
		if (ok)
			g->sh[RAX] = g->sh[RDX] = width == 4 ? small(0xffffffff) : anything;
		return ok;
	}
	if (ok)
		g->sh[d] = width == 4 ? small(0xffffffff) : anything;
	return ok;
}

/* MOV r, m (8A, 8B) and MOV AL/EAX/RAX, moffs64 (A0, A1). */
static bool t_load(struct gen *g)
{
	unsigned width = pick_width(g);
	if (below(g, 8) == 0 && width != 2) { /* moffs64 */
		uint8_t b[10];
		unsigned k = 0;
		if (width == 8)
			b[k++] = 0x48;
		b[k++] = width == 1 ? 0xa0 : 0xa1;
		uint64_t a = (uint64_t)(uintptr_t)arena.buf + below(g, BUF_SIZE - 8);
		memcpy(b + k, &a, 8);
		if (!emit_plain(g, "mov rAX,moffs", b, k + 8))
			return false;
		g->sh[RAX] = width == 8	  ? anything
			     : width == 4 ? small(0xffffffff)
					  : partial(g->sh[RAX], 0xff);
		return true;
	}
	struct mem m;
	if (!choose_mem(g, width, 0, &m))
		return false;
	if (width == 1) {
		struct byte_reg r = pick_byte(g, true);
		uint8_t op = 0x8a;
		if (!emit(g, "mov r8,m8", 0, false, r.rex, &op, 1, r.enc, &m, 0, 0, 0))
			return false;
		byte_written(g, r);
		return true;
	}
	unsigned d = pick_dst(g);
	uint8_t op = 0x8b;
	if (!emit(g,
		  width == 8   ? "mov r64,m"
		  : width == 4 ? "mov r32,m"
			       : "mov r16,m",
		  p66(width), width == 8, 0, &op, 1, d, &m, 0, 0, 0))
		return false;
	g->sh[d] = width == 8	? anything
		   : width == 4 ? small(0xffffffff)
				: partial(g->sh[d], 0xffff);
	return true;
}

/* MOV m, r (88, 89), MOV m, imm (C6, C7 /0), MOV moffs64, AL/EAX/RAX (A2, A3). */
static bool t_store(struct gen *g)
{
	unsigned width = pick_width(g), form = (unsigned)below(g, 8);
	if (form == 0 && width != 2) {
		uint8_t b[10];
		unsigned k = 0;
		if (width == 8)
			b[k++] = 0x48;
		b[k++] = width == 1 ? 0xa2 : 0xa3;
		uint64_t a =
		    (uint64_t)(uintptr_t)arena.buf + GUARD + below(g, BUF_SIZE - 2 * GUARD);
		memcpy(b + k, &a, 8);
		return emit_plain(g, "mov moffs,rAX", b, k + 8);
	}
	struct mem m;
	if (!choose_mem(g, width, 0, &m))
		return false;
	if (form <= 2) { /* an immediate */
		uint8_t op = width == 1 ? 0xc6 : 0xc7;
		return emit(g, width == 1 ? "mov m8,imm" : "mov m,imm", p66(width), width == 8, 0,
			    &op, 1, 0, &m, 0, next_random(&g->seed),
			    width == 1	 ? 1
			    : width == 2 ? 2
					 : 4);
	}
	if (width == 1) {
		struct byte_reg r = pick_byte(g, false);
		uint8_t op = 0x88;
		return emit(g, "mov m8,r8", 0, false, r.rex, &op, 1, r.enc, &m, 0, 0, 0);
	}
	uint8_t op = 0x89;
	return emit(g,
		    width == 8	 ? "mov m64,r"
		    : width == 4 ? "mov m32,r"
				 : "mov m16,r",
		    p66(width), width == 8, 0, &op, 1, (unsigned)below(g, 16), &m, 0, 0, 0);
}

/* Read-modify-write stores: ALU m, r / m, imm; INC, DEC, NOT, NEG; shifts; XCHG, XADD,
 * CMPXCHG; BTS m, imm; SETcc m8; MOV m16, Sreg. LOCK where it may stand. */
static bool t_rmw(struct gen *g)
{
	unsigned width = pick_width(g), form = (unsigned)below(g, 10);
	if (form == 7 || form == 9)
		width = 2;
	if (form == 6 && width == 1)
		width = 4;
	struct mem m;
	if (!choose_mem(g, width, 0, &m))
		return false;
	bool byte = width == 1, w = width == 8;
	uint8_t pfx = p66(width), op[2];
	unsigned ext = (unsigned)below(g, 7), r = (unsigned)below(g, 16);
	if (below(g, 4) == 0 && form != 3 && form != 7 && form != 8 && form != 9) {
		if (pfx)
			return false; /* one prefix byte: LOCK alone with 8, 32, 64 bits */
		pfx = 0xf0;
	}
	switch (form) {
	case 0: /* ALU m, r */
		op[0] = (uint8_t)(ext << 3 | (byte ? 0 : 1));
		if (byte) {
			struct byte_reg b = pick_byte(g, false);
			return emit(g, "alu m8,r8", pfx, false, b.rex, op, 1, b.enc, &m, 0, 0, 0);
		}
		return emit(g, "alu m,r", pfx, w, 0, op, 1, r, &m, 0, 0, 0);
	case 1: /* ALU m, imm */
		op[0] = byte ? 0x80 : below(g, 2) ? 0x83 : 0x81;
		return emit(g, "alu m,imm", pfx, w, 0, op, 1, ext, &m, 0, next_random(&g->seed),
			    op[0] == 0x81 ? (width == 2 ? 2 : 4) : 1);
	case 2: /* INC, DEC, NOT, NEG */
		ext = (unsigned)below(g, 4);
		op[0] = ext < 2 ? (byte ? 0xfe : 0xff) : (byte ? 0xf6 : 0xf7);
		return emit(g, "inc/dec/not/neg m", pfx, w, 0, op, 1, ext < 2 ? ext : ext, &m, 0, 0,
			    0);
	case 3: /* SHL m, 1; SHR m, imm; SAR m, CL */
		op[0] = (uint8_t)((below(g, 3) == 0 ? 0xd0 : below(g, 2) ? 0xc0 : 0xd2) | !byte);
		return emit(g, "shift m", pfx, w, 0, op, 1,
			    (op[0] & 0xfe) == 0xd0 ? 4
			    : op[0] < 0xd0	   ? 5
						   : 7,
			    &m, 0, below(g, 64), (op[0] & 0xfe) == 0xc0 ? 1 : 0);
	case 4: { /* XCHG m, r */
		op[0] = byte ? 0x86 : 0x87;
		if (byte) {
			struct byte_reg b = pick_byte(g, true);
			if (!emit(g, "xchg m8,r8", pfx, false, b.rex, op, 1, b.enc, &m, 0, 0, 0))
				return false;
			byte_written(g, b);
			return true;
		}
		unsigned d = pick_dst(g);
		if (!emit(g, "xchg m,r", pfx, w, 0, op, 1, d, &m, 0, 0, 0))
			return false;
		g->sh[d] = width == 4 ? small(0xffffffff) : partial(g->sh[d], 0xffff);
		if (w)
			g->sh[d] = anything;
		return true;
	}
	case 5: { /* XADD m, r; CMPXCHG m, r (RAX too) */
		bool xadd = below(g, 2);
		op[0] = 0x0f;
		op[1] = (uint8_t)((xadd ? 0xc0 : 0xb0) | !byte);
		if (byte) {
			struct byte_reg b = pick_byte(g, true);
			if (!emit(g, xadd ? "xadd m8,r8" : "cmpxchg m8,r8", pfx, false, b.rex, op,
				  2, b.enc, &m, 0, 0, 0))
				return false;
			byte_written(g, b);
			g->sh[RAX] = partial(g->sh[RAX], 0xff);
			return true;
		}
		unsigned d = pick_dst(g);
		if (!emit(g, xadd ? "xadd m,r" : "cmpxchg m,r", pfx, w, 0, op, 2, d, &m, 0, 0, 0))
			return false;
		struct shadow *s[2] = {&g->sh[d], &g->sh[RAX]};
		for (unsigned i = 0; i < 2; i++)
			*s[i] = w	     ? anything
				: width == 4 ? small(0xffffffff)
					     : partial(*s[i], 0xffff);
		return true;
	}
	case 6: /* BTS/BTR/BTC m, imm8 (0F BA /5-7) */
		op[0] = 0x0f;
		op[1] = 0xba;
		return emit(g, "bts m,imm", pfx, w, 0, op, 2, 5 + (unsigned)below(g, 3), &m, 0,
			    below(g, 256), 1);
	case 7: /* MOV m16, Sreg (ES CS SS DS) */
		op[0] = 0x8c;
		return emit(g, "mov m16,sreg", 0, false, 0, op, 1, (unsigned)below(g, 4), &m, 0, 0,
			    0);
	case 8: /* SETcc m8 */
		op[0] = 0x0f;
		op[1] = (uint8_t)(0x90 | below(g, 16));
		return emit(g, "setcc m8", 0, false, 0, op, 2, 0, &m, 0, 0, 0);
	default: /* ADD m16, imm8 with 66 */
		op[0] = 0x83;
		return emit(g, "add m16,imm8", 0x66, false, 0, op, 1, 0, &m, 0, below(g, 256), 1);
	}
}

static bool t_setcc_cmov(struct gen *g)
{
	uint8_t op[2] = {0x0f, (uint8_t)below(g, 16)};
	if (below(g, 2)) { /* SETcc r8 */
		struct byte_reg r = pick_byte(g, true);
		op[1] |= 0x90;
		if (!emit(g, "setcc r8", 0, false, r.rex, op, 2, 0, NULL, r.enc, 0, 0))
			return false;
		byte_written(g, r);
		return true;
	}
	/* CMOVcc r, r/m: the destination is one of the two, or zero-extended (32-bit) */
	unsigned d = pick_dst(g), s = pick_dst(g), width = below(g, 2) ? 8 : 4;
	struct mem m;
	bool mem = below(g, 3) == 0;
	if (mem && !choose_mem(g, width, 0, &m))
		return false;
	op[1] |= 0x40;
	if (!emit(g, "cmovcc r,r/m", 0, width == 8, 0, op, 2, d, mem ? &m : NULL, s, 0, 0))
		return false;
	struct shadow a = g->sh[d], b = mem ? anything : g->sh[s];
	if (width == 4)
		g->sh[d] = small(0xffffffff);
	else if (a.kind == b.kind && a.kind != K_X)
		g->sh[d] =
		    (struct shadow){a.kind, a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
	else
		g->sh[d] = anything;
	return true;
}

/* STOS, MOVS, LODS (DF clear: RDI and RSI move up). */
static bool t_string(struct gen *g)
{
	static const struct {
		uint8_t b[2], k, size;
		bool movs, lods;
		const char *what;
	} forms[] = {
	    {{0xaa}, 1, 1, false, false, "stosb"},
	    {{0x48, 0xab}, 2, 8, false, false, "stosq"},
	    {{0x66, 0xab}, 2, 2, false, false, "stosw"},
	    {{0xab}, 1, 4, false, false, "stosd"},
	    {{0xa4}, 1, 1, true, false, "movsb"},
	    {{0x48, 0xa5}, 2, 8, true, false, "movsq"},
	    {{0x48, 0xad}, 2, 8, false, true, "lodsq"},
	};
	unsigned f = (unsigned)below(g, sizeof(forms) / sizeof(forms[0]));
	int64_t size = forms[f].size;
	struct shadow *di = &g->sh[RDI], *si = &g->sh[RSI];
	bool need_di = !forms[f].lods, need_si = forms[f].movs || forms[f].lods;
	if ((need_di && (di->kind != K_P || !fits(di->lo, di->hi + size))) ||
	    (need_si && (si->kind != K_P || !fits(si->lo, si->hi + size))))
		return false;
	if (!emit_plain(g, forms[f].what, forms[f].b, forms[f].k))
		return false;
	if (need_di)
		*di = ptr(di->lo + size, di->hi + size);
	if (need_si)
		*si = ptr(si->lo + size, si->hi + size);
	if (forms[f].lods)
		g->sh[RAX] = anything;
	return true;
}

/* CDQE, CQO, NOP forms, XCHG r, r, BSWAP, NOT/NEG r, TEST, CMP r, imm. */
static bool t_misc(struct gen *g)
{
	unsigned form = (unsigned)below(g, 8), d = pick_dst(g), s = pick_dst(g);
	switch (form) {
	case 0: {
		static const uint8_t cdqe[] = {0x48, 0x98}, cqo[] = {0x48, 0x99};
		bool q = below(g, 2);
		if (!emit_plain(g, q ? "cqo" : "cdqe", q ? cqo : cdqe, 2))
			return false;
		g->sh[q ? RDX : RAX] = anything;
		return true;
	}
	case 1: { /* NOP; NOP Ev (no access) */
		static const uint8_t nop[] = {0x90};
		if (below(g, 2))
			return emit_plain(g, "nop", nop, 1);
		uint8_t op[] = {0x0f, 0x1f};
		struct mem m = {(int)below(g, 16), -1, 0, (int32_t)below(g, 256), false, 0};
		return emit(g, "nop m", 0, false, 0, op, 2, 0, &m, 0, 0, 0);
	}
	case 2: { /* XCHG r64, r64 */
		uint8_t op = 0x87;
		if (!emit(g, "xchg r64,r64", 0, true, 0, &op, 1, s, NULL, d, 0, 0))
			return false;
		struct shadow t = g->sh[d];
		g->sh[d] = g->sh[s];
		g->sh[s] = t;
		return true;
	}
	case 3: { /* BSWAP */
		uint8_t b[3];
		unsigned k = 0;
		bool w = below(g, 2);
		if (w || d >= 8)
			b[k++] = (uint8_t)(0x40 | (w ? 8 : 0) | (d >= 8 ? 1 : 0));
		b[k++] = 0x0f;
		b[k++] = (uint8_t)(0xc8 | (d & 7));
		if (!emit_plain(g, "bswap", b, k))
			return false;
		g->sh[d] = w ? anything : small(0xffffffff);
		return true;
	}
	case 4: { /* NOT, NEG r */
		uint8_t op = 0xf7;
		bool w = below(g, 2);
		if (!emit(g, "not/neg r", 0, w, 0, &op, 1, 2 + (unsigned)below(g, 2), NULL, d, 0,
			  0))
			return false;
		g->sh[d] = w ? anything : small(0xffffffff);
		return true;
	}
	case 5: { /* TEST r, r */
		uint8_t op = 0x85;
		return emit(g, "test r,r", 0, below(g, 2), 0, &op, 1, s, NULL, d, 0, 0);
	}
	case 6: { /* CMP r, imm8 */
		uint8_t op = 0x83;
		return emit(g, "cmp r,imm8", 0, true, 0, &op, 1, 7, NULL, d, below(g, 256), 1);
	}
	default: { /* CMP r, m */
		struct mem m;
		uint8_t op = 0x3b;
		return choose_mem(g, 8, 0, &m) &&
		       emit(g, "cmp r,m", 0, true, 0, &op, 1, d, &m, 0, 0, 0);
	}
	}
}

static const struct {
	bool (*make)(struct gen *);
	unsigned weight;
} templates[] = {
    {t_store, 16}, {t_rmw, 8},	      {t_load, 6},   {t_mov_rr, 6}, {t_mov_imm, 5},
    {t_lea, 7},	   {t_alu_imm, 10},   {t_alu_rr, 5}, {t_incdec, 4}, {t_push, 5},
    {t_pop, 4},	   {t_call, 2},	      {t_stack, 3},  {t_movzx, 4},  {t_shift, 5},
    {t_imul, 2},   {t_setcc_cmov, 4}, {t_string, 2}, {t_misc, 3},
};

/* The registers a random line starts from, and their shadows: pointers into the buffer, small
 * values, anything; RSP into the scratch stack; R14 the runner's. */
static void random_registers(struct gen *g, struct x86_gprs *regs)
{
	for (unsigned r = 0; r < 16; r++) {
		unsigned kind = (unsigned)below(g, 20);
		if (kind < 9) {
			int64_t off = between(g, 0x800, BUF_SIZE - 0x800);
			regs->r[r] = (uint64_t)(uintptr_t)arena.buf + (uint64_t)off;
			g->sh[r] = ptr(off, off);
		} else if (kind < 13) {
			regs->r[r] = below(g, 0x400);
			g->sh[r] = small((int64_t)regs->r[r]);
		} else {
			regs->r[r] =
			    next_random(&g->seed) << 11 ^ next_random(&g->seed) ^ 1ull << 63;
			g->sh[r] = anything;
		}
	}
	int64_t sp = between(g, 0x3000, 0x5000);
	regs->r[RSP] = (uint64_t)(uintptr_t)arena.buf + (uint64_t)sp;
	g->sh[RSP] = ptr(sp, sp);
	regs->r[R14] = (uint64_t)(uintptr_t)arena.regs.r;
	g->sh[R14] = anything;
}

static void generate(struct gen *g)
{
	unsigned total = 0;
	for (size_t i = 0; i < sizeof(templates) / sizeof(templates[0]); i++)
		total += templates[i].weight;
	unsigned n = LINE_MIN + (unsigned)below(g, LINE_MAX - LINE_MIN + 1);
	g->len = g->n = 0;
	g->at[0] = 0;
	while (g->n < n) {
		bool made = false;
		for (unsigned tries = 0; tries < 64 && !made; tries++) {
			unsigned pick = (unsigned)below(g, total);
			size_t i = 0;
			while (pick >= templates[i].weight)
				pick -= templates[i++].weight;
			struct gen keep = *g;
			made = templates[i].make(g);
			if (!made) { /* as it was, but for the random numbers drawn */
				uint64_t seed = g->seed;
				*g = keep;
				g->seed = seed;
			}
		}
		if (!made) {
			static const uint8_t nop[] = {0x90};
			emit_plain(g, "nop", nop, 1);
		}
	}
}

/* The generator's instruction boundaries are the decoder's (its encoder made what it meant). */
static void same_boundaries(const struct gen *g)
{
	struct x86_insn in;
	for (unsigned i = 0; i < g->n; i++) {
		assert_int_equal(x86_decode(g->code + g->at[i], g->len - g->at[i], &in), 0);
		assert_int_equal(in.length, g->at[i + 1] - g->at[i]);
	}
}

static void print_line(const struct gen *g, const struct x86_gprs *regs)
{
	for (unsigned i = 0; i < g->n; i++) {
		char hex[64] = "";
		for (unsigned k = g->at[i]; k < g->at[i + 1]; k++)
			snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex), "%02x ", g->code[k]);
		print_message("#   %2u  %-45s %s\n", i, hex, g->what[i]);
	}
	for (unsigned r = 0; r < 16; r++)
		print_message("#   %-3s %#018lx (buffer%+ld)\n", reg_name(r),
			      (unsigned long)regs->r[r],
			      (long)(regs->r[r] - (uint64_t)(uintptr_t)arena.buf));
}

#define RANDOM_LINES 50000
#define RANDOM_SEED  0x5704e5ull
#define SHOWN	     3 /* failing lines printed whole */

static void random_lines_against_cpu(void **state)
{
	(void)state;
	arena_init();
	struct tally t = {0};
	unsigned failed = 0, first = 0;
	uint64_t seed = RANDOM_SEED;
	for (unsigned line = 0; line < RANDOM_LINES; line++) {
		struct gen g = {.seed = seed, .line = (uint64_t)(uintptr_t)arena.code + LINE_AT};
		struct x86_gprs regs;
		random_registers(&g, &regs);
		generate(&g);
		same_boundaries(&g);
		seed = g.seed;
		memcpy(arena.code + LINE_AT, g.code, g.len);
		char why[256];
		if (against_cpu(g.len, &regs, &t, why, sizeof(why)))
			continue;
		if (!failed++)
			first = line;
		if (failed <= SHOWN) {
			print_message("# random line %u: %s\n", line, why);
			print_line(&g, &regs);
		}
	}
	print_message("# random lines: %u (seed %#llx), %u instructions, %u covered, %u lines "
		      "whole; %u stores listed, %u bytes the CPU changed, %u register values "
		      "and %u ranges checked\n",
		      t.lines, RANDOM_SEED, t.insns, t.covered, t.whole, t.stores, t.changed,
		      t.known, t.ranges);
	if (failed)
		fail_msg("%u of %u random lines disagree with the CPU (seed %#llx, the first: line "
			 "%u)",
			 failed, RANDOM_LINES, RANDOM_SEED, first);
	assert_true(t.covered > t.insns / 2 && t.changed > RANDOM_LINES);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(hand_lines_from_the_sdm),
    cmocka_unit_test(lines_outside_blocks_sound),
    cmocka_unit_test(random_lines_against_cpu),
};

UNIT_MAIN(tests)
