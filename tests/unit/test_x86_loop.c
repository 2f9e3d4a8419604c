// UNIT-SOURCES: lib/x86_loop.c lib/x86_mem.c lib/x86_decode.c lib/x86_decode_tables.c
/*
 * lib/x86_loop.c: counted loops. Each loop's bytes are what `as` made of the text beside it
 * (checked with objdump). Two independent expectations for every loop it accepts: how often
 * its jump is taken, from the loop's own source (said at each case), and the counter the host
 * CPU leaves when it runs the same bytes natively, which must be the counter after that many
 * iterations and one more. Loops it must refuse are those whose count does not follow from
 * the registers: a bound the body changes, a store that may hit the counter's word, an
 * instruction whose register writes are not followed, flags from an earlier instruction,
 * parity, INC's kept CF. And random bodies of a compiler's mix
 * (partial registers, implicit writes, stores beside the counter's word): each loop counted
 * has the count of runs the host CPU makes of it (random_bodies_against_cpu).
 */
#include "tests/unit/unit.h"
#include <string.h>
#include <sys/mman.h>
#include "lib/x86_loop.h"

#define NOT_COUNTED UINT64_MAX
#define BUF_WORDS   8

struct loop_case {
	const char *text;
	uint8_t bytes[32];
	uint8_t length;
	uint64_t trips; /* expected, from the loop's source; NOT_COUNTED: refused */
	struct {
		uint8_t reg;
		uint64_t value;
	} set[4];
	uint64_t slot; /* the word at the buffer's second slot (rbp/rbx point to the buffer) */
};

#define RAX    0
#define RCX    1
#define RDX    2
#define RBX    3
#define RBP    5
#define RSI    6
#define RDI    7
#define R8     8
#define BUFFER 0x100 /* marks a register that points into the case's buffer */

static const struct loop_case cases[] = {
    /* crc32's bit loop, for (bit = 0; bit < 8; bit++) as GCC counts it down: 8 runs, 7
     * jumps. */
    {"mov %eax,%esi | shr %eax | mov %eax,%ecx | and $0x1,%esi | xor $0xedb88320,%ecx | test "
     "%esi,%esi | cmovne %ecx,%eax | sub $0x1,%edx | jne",
     {0x89, 0xc6, 0xd1, 0xe8, 0x89, 0xc1, 0x83, 0xe6, 0x01, 0x81, 0xf1, 0x20, 0x83,
      0xb8, 0xed, 0x85, 0xf6, 0x0f, 0x45, 0xc1, 0x83, 0xea, 0x01, 0x75, 0xe7},
     25,
     7,
     {{RDX, 8}, {RAX, 0x12345678}},
     0},
    /* make bench's loop, for (volatile i = 0; i < n; i++) with i at -8(%rbp): i = 0..9
     * for n = 10, the jump back after i = 1..9. */
    {"mov -0x8(%rbp),%rax | add %rax,%rdx | mov -0x8(%rbp),%rax | add $0x1,%rax | mov "
     "%rax,-0x8(%rbp) | mov -0x8(%rbp),%rax | cmp %rdi,%rax | jb",
     {0x48, 0x8b, 0x45, 0xf8, 0x48, 0x01, 0xc2, 0x48, 0x8b, 0x45, 0xf8, 0x48, 0x83, 0xc0,
      0x01, 0x48, 0x89, 0x45, 0xf8, 0x48, 0x8b, 0x45, 0xf8, 0x48, 0x39, 0xf8, 0x72, 0xe4},
     28,
     9,
     {{RBP, BUFFER + 2}, {RDI, 10}},
     0},
    /* for (i = 0; i != 5; ) { a[i] = i; i++; }: jumps back with i = 1..4 */
    {"mov %ecx,(%r8,%rcx,4) | mov %rcx,%r11 | add $0x1,%rcx | cmp %rcx,%rdi | jne",
     {0x41, 0x89, 0x0c, 0x88, 0x49, 0x89, 0xcb, 0x48, 0x83, 0xc1, 0x01, 0x48, 0x39, 0xcf, 0x75,
      0xf0},
     16,
     4,
     {{RCX, 0}, {RDI, 5}, {R8, BUFFER}},
     0},
    /* do x++ while (x < 100) from -5 (signed): back with x = -4..99 but 100: 104 */
    {"inc %rax | cmp $0x64,%rax | jl",
     {0x48, 0xff, 0xc0, 0x48, 0x83, 0xf8, 0x64, 0x7c, 0xf7},
     9,
     104,
     {{RAX, (uint64_t)-5}},
     0},
    /* 32-bit: eax += 16 from 0xfffffff0 wraps to 0, then 16, 32, 48 = esi: 3 jumps */
    {"add $0x10,%eax | cmp %esi,%eax | jne",
     {0x83, 0xc0, 0x10, 0x39, 0xf0, 0x75, 0xf9},
     7,
     3,
     {{RAX, 0xfffffff0ull}, {RSI, 0x30}},
     0},
    /* do ... while (--rcx) from 5: back at 4, 3, 2, 1 */
    {"add %rcx,%rdx | dec %rcx | jne",
     {0x48, 0x01, 0xca, 0x48, 0xff, 0xc9, 0x75, 0xf8},
     8,
     4,
     {{RCX, 5}},
     0},
    /* p += 8 while (end > p), unsigned, end = 0x40 from p = 0: back at 8..56 */
    {"lea 0x8(%rax),%rax | cmp %rax,%rdx | ja",
     {0x48, 0x8d, 0x40, 0x08, 0x48, 0x39, 0xc2, 0x77, 0xf7},
     9,
     7,
     {{RDX, 0x40}, {RAX, 0}},
     0},
    /* the word at 8(%rbx) counted up to 10 in memory from 0: back at 1..9 */
    {"addq $0x1,0x8(%rbx) | cmpq $0xa,0x8(%rbx) | jne",
     {0x48, 0x83, 0x43, 0x08, 0x01, 0x48, 0x83, 0x7b, 0x08, 0x0a, 0x75, 0xf4},
     12,
     9,
     {{RBX, BUFFER}},
     0},
    /* for (i = 3; i <= 1000; i += 3) with a load: back at 3k <= 1000, k = 1..333 */
    {"add $0x3,%edi | movzbl (%rsi),%eax | add %eax,%edx | cmp $0x3e8,%edi | jle",
     {0x83, 0xc7, 0x03, 0x0f, 0xb6, 0x06, 0x01, 0xc2, 0x81, 0xff, 0xe8, 0x03, 0x00, 0x00, 0x7e,
      0xf0},
     16,
     333,
     {{RDI, 0}, {RSI, BUFFER}},
     0},
    /* refused: the bound rdx changes in the body */
    {"add $0x1,%rax | add $0x1,%rdx | cmp %rdx,%rax | jne",
     {0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc2, 0x01, 0x48, 0x39, 0xd0, 0x75, 0xf3},
     13,
     NOT_COUNTED,
     {{0, 0}},
     0},
    /* refused: the store through rsi may write the counter's word at 8(%rbx) */
    {"mov 0x8(%rbx),%rax | add $0x1,%rax | mov %rax,0x8(%rbx) | mov %rcx,(%rsi) | cmp "
     "$0xa,%rax | jne",
     {0x48, 0x8b, 0x43, 0x08, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x89, 0x43,
      0x08, 0x48, 0x89, 0x0e, 0x48, 0x83, 0xf8, 0x0a, 0x75, 0xeb},
     21,
     NOT_COUNTED,
     {{0, 0}},
     0},
    /* refused: XCHG's writes are not followed */
    {"add $0x1,%rax | xchg %rcx,%rdx | cmp $0xa,%rax | jne",
     {0x48, 0x83, 0xc0, 0x01, 0x48, 0x87, 0xca, 0x48, 0x83, 0xf8, 0x0a, 0x75, 0xf3},
     13,
     NOT_COUNTED,
     {{0, 0}},
     0},
    /* refused: the jump reads CMP's flags across LEA */
    {"cmp $0xa,%rax | lea 0x1(%rax),%rax | jne",
     {0x48, 0x83, 0xf8, 0x0a, 0x48, 0x8d, 0x40, 0x01, 0x75, 0xf6},
     10,
     NOT_COUNTED,
     {{0, 0}},
     0},
    /* refused: parity */
    {"add $0x1,%rax | cmp $0xa,%rax | jp",
     {0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xf8, 0x0a, 0x7a, 0xf6},
     10,
     NOT_COUNTED,
     {{0, 0}},
     0},
    /* the counter written twice, by 2 a run from 0: back at 2, 4, 6, 8 */
    {"add $0x1,%rax | add $0x1,%rax | cmp $0xa,%rax | jne",
     {0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xf8, 0x0a, 0x75, 0xf2},
     14,
     4,
     {{0, 0}},
     0},
    /* crc32's fill loop, for (i = 0; i < n; i++) { b[i] = c; c = c == '9' ? '1' : c + 1; }
     * as GCC keeps i: copied to r8, rdx overwritten with c + 1, then r8 + 1. n = 9: back at
     * i = 1..8 */
    {"mov %rdx,%r8 | lea 0x1(%rax),%edx | cmp $0x39,%al | mov %al,(%rsi,%r8,1) | mov "
     "%edx,%eax | lea 0x1(%r8),%rdx | cmove %ecx,%eax | cmp %rdx,%rdi | jne",
     {0x49, 0x89, 0xd0, 0x8d, 0x50, 0x01, 0x3c, 0x39, 0x42, 0x88, 0x04, 0x06, 0x89,
      0xd0, 0x49, 0x8d, 0x50, 0x01, 0x0f, 0x44, 0xc1, 0x48, 0x39, 0xd7, 0x75, 0xe6},
     26,
     8,
     {{RDX, 0}, {RDI, 9}, {RSI, BUFFER}, {RAX, 0x31}},
     0},
    /* refused: INC leaves CF as it was ("The CF flag is not affected", SDM Vol. 2 INC) */
    {"inc %rax | jb", {0x48, 0xff, 0xc0, 0x72, 0xfb}, 5, NOT_COUNTED, {{0, 0}}, 0},
    /* refused: PUSH and POP */
    {"add $0x1,%rax | push %rax | pop %rdx | cmp $0xa,%rax | jne",
     {0x48, 0x83, 0xc0, 0x01, 0x50, 0x5a, 0x48, 0x83, 0xf8, 0x0a, 0x75, 0xf4},
     12,
     NOT_COUNTED,
     {{0, 0}},
     0},
    /* refused: a byte store into the counter's word before it is first read */
    {"movb $0x1,-0x8(%rbp) | mov -0x8(%rbp),%rax | add $0x1,%rax | mov %rax,-0x8(%rbp) | cmp "
     "$0xa,%rax | jne",
     {0xc6, 0x45, 0xf8, 0x01, 0x48, 0x8b, 0x45, 0xf8, 0x48, 0x83, 0xc0,
      0x01, 0x48, 0x89, 0x45, 0xf8, 0x48, 0x83, 0xf8, 0x0a, 0x75, 0xea},
     22,
     NOT_COUNTED,
     {{0, 0}},
     0},
};

/* The loop's instructions, decoded: n plain ones and the jump (p: pointers to them). */
static unsigned decode_loop(const struct loop_case *c, struct x86_insn *in,
			    const struct x86_insn **p)
{
	unsigned n = 0;
	for (unsigned i = 0; i <= X86_LOOP_MAX_INSNS; i++)
		p[i] = &in[i];
	for (unsigned off = 0; off < c->length; n++) {
		assert_int_equal(
		    x86_decode_mode(c->bytes + off, c->length - off, X86_MODE_64, &in[n]), 0);
		off += in[n].length;
		assert_true(off <= c->length);
	}
	return n - 1;
}

#define REG_PTR 14 /* the native runner's pointer to the registers (no case uses r14) */

/* The registers 0..regs-1 but RSP and R14 from (load) or back to 8*r(%r14), at code + at:
 * mov 8*r(%r14),%reg (8B) or back (89): REX.W|B, R for r8-r15, mod 01 rm 110. */
static size_t emit_moves(uint8_t *code, size_t at, bool load, unsigned regs)
{
	for (unsigned r = 0; r < regs; r++) {
		if (r == 4 || r == REG_PTR)
			continue;
		code[at++] = (uint8_t)(0x49 | (r >= 8 ? 0x04 : 0));
		code[at++] = load ? 0x8b : 0x89;
		code[at++] = (uint8_t)(0x46 | ((r & 7) << 3));
		code[at++] = (uint8_t)(8 * r);
	}
	return at;
}

/* Run the loop on this CPU: registers from and back to g (all but RSP and R14). */
static void run_native(const struct loop_case *c, struct x86_gprs *g)
{
	static const uint8_t prologue[] = {
	    0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41,
	    0x56, 0x41, 0x57, 0x49, 0x89, 0xfe}; /* pushes; mov %rdi,%r14 */
	static const uint8_t epilogue[] = {0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d,
					   0x41, 0x5c, 0x5d, 0x5b, 0xc3};
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(code != MAP_FAILED);
	size_t at = 0;
	memcpy(code, prologue, sizeof(prologue));
	at += sizeof(prologue);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			memcpy(code + at, c->bytes, c->length);
			at += c->length;
		}
		at = emit_moves(code, at, pass == 0, 16);
	}
	memcpy(code + at, epilogue, sizeof(epilogue));
	((void (*)(uint64_t *))(void *)code)(g->r);
	munmap(code, 4096);
}

/*
 * Where the analysis says a run's counter is before each instruction (x86_loop.witness), the
 * host CPU must leave it: for runs 0, 1, 2 and the last, the body's first p instructions run
 * natively from registers g (the word at *slot) with the counter set to the one that run starts
 * with (the first, then x86_loop_next's steps), and the witness' location must then hold
 * x86_loop_witness_value's. The claim is for any other registers, so g's serve.
 */
static void check_witnesses(const char *what, const uint8_t *bytes, const struct x86_insn *in,
			    unsigned n, const struct x86_loop *l, const struct x86_gprs *g,
			    uint64_t *slot, uint64_t x0, uint64_t trips)
{
	const uint64_t runs[] = {0, 1, 2, trips};
	for (unsigned r = 0; r < 4; r++) {
		if (runs[r] > trips)
			continue;
		uint64_t x = x0;
		for (uint64_t k = 0; k < runs[r]; k++)
			x = x86_loop_next(l, x);
		unsigned length = 0;
		for (unsigned p = 0; p <= n; length += p < n ? in[p].length : 0, p++) {
			struct loop_case prefix = {.length = (uint8_t)length};
			memcpy(prefix.bytes, bytes, length);
			struct x86_gprs native = *g;
			uint64_t kept = *slot;
			if (l->counter == X86_LOOP_SLOT)
				memcpy(slot, &x, l->slot_size);
			else
				native.r[l->counter] = x;
			run_native(&prefix, &native);
			unsigned at = l->witness[p].at & ~X86_LOOP_WITNESS_32;
			uint64_t now = 0;
			if (at == X86_LOOP_SLOT)
				memcpy(&now, slot, l->slot_size);
			else
				now = native.r[at];
			*slot = kept;
			if (now != x86_loop_witness_value(l, p, x))
				fail_msg(
				    "%s run %lu: before instruction %u location %u holds %#lx, "
				    "the witness says %#lx",
				    what, (unsigned long)runs[r], p, at, (unsigned long)now,
				    (unsigned long)x86_loop_witness_value(l, p, x));
		}
	}
}

static void check_case(const struct loop_case *c)
{
	struct x86_insn in[X86_LOOP_MAX_INSNS + 1];
	const struct x86_insn *p[X86_LOOP_MAX_INSNS + 1];
	unsigned n = decode_loop(c, in, p);
	struct x86_loop l;
	bool counted = x86_loop_analyze(p, n, &in[n], &l);
	if (c->trips == NOT_COUNTED) {
		if (counted)
			fail_msg("counted, should not be: %s", c->text);
		return;
	}
	if (!counted)
		fail_msg("not counted: %s", c->text);
	static uint64_t buffer[BUF_WORDS];
	memset(buffer, 0, sizeof(buffer));
	buffer[1] = c->slot;
	struct x86_gprs g = {{0}};
	for (unsigned i = 0; i < 4 && (c->set[i].reg || c->set[i].value); i++)
		g.r[c->set[i].reg] =
		    c->set[i].value >= BUFFER && c->set[i].value < BUFFER + BUF_WORDS
			? (uint64_t)(uintptr_t)&buffer[c->set[i].value - BUFFER]
			: c->set[i].value;
	uint64_t x0 =
	    l.counter == X86_LOOP_SLOT
		? *(uint64_t *)(uintptr_t)(g.r[l.slot_base] + (uint64_t)(int64_t)l.slot_disp)
		: g.r[l.counter];
	if (l.counter == X86_LOOP_SLOT && l.slot_size == 4)
		x0 = (uint32_t)x0;
	uint64_t trips = 0;
	assert_true(x86_loop_trips(&l, x0, &g, 1u << 20, &trips));
	if (trips != c->trips)
		fail_msg("%s: %lu jumps, its source says %lu", c->text, (unsigned long)trips,
			 (unsigned long)c->trips);
	if (trips > 0)
		assert_false(x86_loop_trips(&l, x0, &g, trips - 1, &trips)); /* max is a bound */
	uint64_t x = x0;
	for (uint64_t k = 0; k <= c->trips; k++)
		x = x86_loop_next(&l, x);
	assert_true(x86_loop_after(&l, x0, c->trips + 1) == x);
	uint64_t *slot =
	    l.counter == X86_LOOP_SLOT
		? (uint64_t *)(uintptr_t)(g.r[l.slot_base] + (uint64_t)(int64_t)l.slot_disp)
		: &buffer[BUF_WORDS - 1];
	check_witnesses(c->text, c->bytes, in, n, &l, &g, slot, x0, c->trips);
	struct x86_gprs native = g;
	run_native(c, &native);
	uint64_t now =
	    l.counter == X86_LOOP_SLOT
		? *(uint64_t *)(uintptr_t)(g.r[l.slot_base] + (uint64_t)(int64_t)l.slot_disp)
		: native.r[l.counter];
	if (l.counter == X86_LOOP_SLOT && l.slot_size == 4)
		now = (uint32_t)now;
	if (now != x)
		fail_msg("%s: the CPU left the counter at %#lx, the analysis says %#lx", c->text,
			 (unsigned long)now, (unsigned long)x);
}

static void loops_against_source_and_cpu(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
}

static uint64_t next_random(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull; /* Knuth's MMIX LCG */
	return *seed >> 11;
}

#define RANDOM_LOOPS 20000
#define RANDOM_MAX   5000 /* runs counted at most */

/*
 * Random loops of the forms a compiler makes of `for` over a counter stepped by +-1 (ADD, or
 * INC/DEC, 32- or 64-bit; the flags from the update itself or from a CMP with an immediate or
 * a register, either way round; every condition but parity), started near the bound, near 0
 * and near the sign and carry boundaries: x86_loop_trips (its closed forms) gives the count
 * that evaluating the condition run by run gives (x86_loop_trips_by_runs); and the CPU, running
 * the same bytes, leaves the counter where that many runs and one more put it.
 */
static void random_loops_closed_form_and_cpu(void **state)
{
	(void)state;
	uint64_t seed = 34;
	unsigned natively = 0, counted = 0;
	for (unsigned it = 0; it < RANDOM_LOOPS; it++) {
		bool wide = next_random(&seed) & 1, up = next_random(&seed) & 1;
		unsigned form = next_random(&seed) % 4, cc = next_random(&seed) % 14;
		cc = cc >= 10 ? cc + 2 : cc; /* no parity */
		struct loop_case c = {.text = "random", .trips = 0};
		uint8_t *p = c.bytes, rex = wide ? 0x48 : 0;
		/* add $+-1, %ecx/%rcx (83 /0 ib), or inc/dec (FF /0, /1) */
		if (form == 3) {
			if (rex)
				*p++ = rex;
			*p++ = 0xff;
			*p++ = up ? 0xc1 : 0xc9;
		} else {
			if (rex)
				*p++ = rex;
			*p++ = 0x83;
			*p++ = 0xc1;
			*p++ = up ? 0x01 : 0xff;
		}
		int8_t imm = (int8_t)next_random(&seed);
		if (form == 1) { /* cmp $imm8, %ecx/%rcx (83 /7 ib) */
			if (rex)
				*p++ = rex;
			*p++ = 0x83;
			*p++ = 0xf9;
			*p++ = (uint8_t)imm;
		} else if (form == 2) { /* cmp %edx,%ecx (39 /r: ecx - edx) or cmp %ecx,%edx */
			bool round = next_random(&seed) & 1;
			if (rex)
				*p++ = rex;
			*p++ = 0x39;
			*p++ = round ? 0xca : 0xd1;
		}
		*p++ = (uint8_t)(0x70 | cc);
		*p = (uint8_t) - (p - c.bytes + 1);
		c.length = (uint8_t)(p - c.bytes + 1);
		struct x86_insn in[X86_LOOP_MAX_INSNS + 1];
		const struct x86_insn *ptr[X86_LOOP_MAX_INSNS + 1];
		unsigned n = decode_loop(&c, in, ptr);
		struct x86_loop l;
		if (!x86_loop_analyze(ptr, n, &in[n], &l)) {
			/* refused only where INC/DEC's kept CF would decide (SDM Vol. 2 INC, DEC)
			 */
			assert_true(form == 3 && (cc == 2 || cc == 3 || cc == 6 || cc == 7));
			continue;
		}
		counted++;
		static const uint64_t near[] = {0, 1ull << 31, 1ull << 32, 1ull << 63, 0};
		struct x86_gprs g = {{0}};
		uint64_t base = next_random(&seed) % 3 == 0 ? near[next_random(&seed) % 4]
							    : (uint64_t)(int64_t)imm;
		g.r[RDX] = base + (uint64_t)(int64_t)(int16_t)(next_random(&seed) % 64 - 32);
		if (!wide)
			g.r[RDX] = (uint32_t)g.r[RDX];
		uint64_t x0 = base + (uint64_t)(int64_t)(int16_t)(next_random(&seed) % 600 - 300);
		g.r[RCX] = wide ? x0 : (uint32_t)x0;
		uint64_t want = 0, got = 0;
		bool want_ok = x86_loop_trips_by_runs(&l, g.r[RCX], &g, RANDOM_MAX, &want);
		bool got_ok = x86_loop_trips(&l, g.r[RCX], &g, RANDOM_MAX, &got);
		if (want_ok != got_ok || (want_ok && want != got))
			fail_msg("loop %u (form %u, cc %u, %s, %s): %s %lu runs, by runs %s %lu",
				 it, form, cc, wide ? "64-bit" : "32-bit", up ? "up" : "down",
				 got_ok ? "counted" : "refused", (unsigned long)got,
				 want_ok ? "counted" : "refused", (unsigned long)want);
		if (!want_ok)
			continue;
		uint64_t x = g.r[RCX];
		for (uint64_t k = 0; k <= want; k++)
			x = x86_loop_next(&l, x);
		assert_true(x86_loop_after(&l, g.r[RCX], want + 1) == x);
		struct x86_gprs native = g;
		run_native(&c, &native);
		if (native.r[RCX] != x)
			fail_msg("loop %u: the CPU left the counter at %#lx, %lu runs say %#lx", it,
				 (unsigned long)native.r[RCX], (unsigned long)want + 1,
				 (unsigned long)x);
		natively++;
	}
	assert_true(counted > RANDOM_LOOPS / 2 && natively > RANDOM_LOOPS / 4);
}

/*
 * Random bodies of a compiler's instruction mix around a counter in RCX or in the word at
 * 8(%rbx): the writes the analysis must follow or refuse (byte registers CH and AH, SDM Vol. 2
 * Table 2-2; 16-bit operations; MUL and CQO's implicit RDX; SETcc and CMOVcc; LEA of 32 bits;
 * byte, word and dword stores on and beside the counter's word), then a flag-setting last
 * instruction (CMP, SUB, ADD, INC, DEC, of 8 to 64 bits) and any condition but parity. For
 * every loop it counts, the host CPU runs the same bytes and counts the runs itself: a LOOP on
 * R15 (flags untouched, SDM Vol. 2 LOOP) before each run, which also ends a loop that would
 * run too long (then R15 is 0). Its count of runs must be the analysis' count of jumps and one
 * more.
 */
struct mix {
	uint8_t bytes[7], length;
};
static const struct mix mix_plain[] = {
    {{0x83, 0xc1, 0x01}, 3},		       /* add $1,%ecx */
    {{0x48, 0x83, 0xc1, 0x01}, 4},	       /* add $1,%rcx */
    {{0x83, 0xe9, 0x01}, 3},		       /* sub $1,%ecx */
    {{0xff, 0xc9}, 2},			       /* dec %ecx */
    {{0x48, 0xff, 0xc1}, 3},		       /* inc %rcx */
    {{0x66, 0x83, 0xc1, 0xff}, 4},	       /* add $-1,%cx */
    {{0x66, 0xff, 0xc1}, 3},		       /* inc %cx */
    {{0xfe, 0xc5}, 2},			       /* inc %ch */
    {{0x88, 0xc5}, 2},			       /* mov %al,%ch */
    {{0x88, 0xe1}, 2},			       /* mov %ah,%cl */
    {{0x88, 0xcc}, 2},			       /* mov %cl,%ah */
    {{0x0f, 0x95, 0xc5}, 3},		       /* setne %ch */
    {{0x0f, 0xbe, 0xc5}, 3},		       /* movsbl %ch,%eax */
    {{0x0f, 0x45, 0xc8}, 3},		       /* cmovne %eax,%ecx */
    {{0x8d, 0x49, 0x01}, 3},		       /* lea 0x1(%rcx),%ecx */
    {{0x48, 0x8d, 0x49, 0x01}, 4},	       /* lea 0x1(%rcx),%rcx */
    {{0x8d, 0x0c, 0x09}, 3},		       /* lea (%rcx,%rcx,1),%ecx */
    {{0x89, 0xc8}, 2},			       /* mov %ecx,%eax */
    {{0x89, 0xc9}, 2},			       /* mov %ecx,%ecx */
    {{0x48, 0x89, 0xc1}, 3},		       /* mov %rax,%rcx */
    {{0x89, 0xca}, 2},			       /* mov %ecx,%edx */
    {{0x48, 0x8d, 0x4a, 0x02}, 4},	       /* lea 0x2(%rdx),%rcx */
    {{0x83, 0xea, 0x01}, 3},		       /* sub $1,%edx */
    {{0xb6, 0x07}, 2},			       /* mov $7,%dh */
    {{0x48, 0xf7, 0xe6}, 3},		       /* mul %rsi */
    {{0x48, 0x99}, 2},			       /* cqto */
    {{0x48, 0x98}, 2},			       /* cltq */
    {{0x01, 0xc9}, 2},			       /* add %ecx,%ecx */
    {{0x81, 0xc1, 0x00, 0x00, 0x01, 0x00}, 6}, /* add $0x10000,%ecx */
    {{0x83, 0x43, 0x08, 0x01}, 4},	       /* addl $1,0x8(%rbx) */
    {{0x48, 0x83, 0x43, 0x08, 0x01}, 5},       /* addq $1,0x8(%rbx) */
    {{0xff, 0x4b, 0x08}, 3},		       /* decl 0x8(%rbx) */
    {{0x8b, 0x43, 0x08}, 3},		       /* mov 0x8(%rbx),%eax */
    {{0x89, 0x43, 0x08}, 3},		       /* mov %eax,0x8(%rbx) */
    {{0x48, 0x8b, 0x4b, 0x08}, 4},	       /* mov 0x8(%rbx),%rcx */
    {{0x48, 0x89, 0x4b, 0x08}, 4},	       /* mov %rcx,0x8(%rbx) */
    {{0x89, 0x4b, 0x0c}, 3},		       /* mov %ecx,0xc(%rbx) */
    {{0xc6, 0x43, 0x09, 0x01}, 4},	       /* movb $1,0x9(%rbx) */
    {{0x66, 0xc7, 0x43, 0x0a, 0x00, 0x00}, 6}, /* movw $0,0xa(%rbx) */
};
static const struct mix mix_setter[] = {
    {{0x39, 0xd1}, 2},				     /* cmp %edx,%ecx */
    {{0x48, 0x39, 0xd1}, 3},			     /* cmp %rdx,%rcx */
    {{0x39, 0xca}, 2},				     /* cmp %ecx,%edx */
    {{0x48, 0x39, 0xc8}, 3},			     /* cmp %rcx,%rax */
    {{0x83, 0xf9, 0x05}, 3},			     /* cmp $5,%ecx */
    {{0x48, 0x83, 0xf9, 0xfd}, 4},		     /* cmp $-3,%rcx */
    {{0x81, 0xf9, 0xff, 0xff, 0xff, 0x7f}, 6},	     /* cmp $0x7fffffff,%ecx */
    {{0x48, 0x81, 0xf9, 0x00, 0x00, 0x00, 0x80}, 7}, /* cmp $-0x80000000,%rcx */
    {{0x48, 0x3d, 0xf0, 0xff, 0xff, 0xff}, 6},	     /* cmp $-0x10,%rax */
    {{0x3d, 0xff, 0x00, 0x00, 0x00}, 5},	     /* cmp $0xff,%eax */
    {{0x80, 0xf9, 0x80}, 3},			     /* cmp $0x80,%cl */
    {{0x66, 0x39, 0xca}, 3},			     /* cmp %cx,%dx */
    {{0x83, 0xe9, 0x01}, 3},			     /* sub $1,%ecx */
    {{0x48, 0x83, 0xe9, 0xff}, 4},		     /* sub $-1,%rcx */
    {{0x83, 0xc1, 0xfe}, 3},			     /* add $-2,%ecx */
    {{0xff, 0xc9}, 2},				     /* dec %ecx */
    {{0x48, 0xff, 0xc1}, 3},			     /* inc %rcx */
    {{0x83, 0x7b, 0x08, 0x0a}, 4},		     /* cmpl $0xa,0x8(%rbx) */
    {{0x48, 0x83, 0x7b, 0x08, 0x0a}, 5},	     /* cmpq $0xa,0x8(%rbx) */
    {{0x83, 0x43, 0x08, 0x01}, 4},		     /* addl $1,0x8(%rbx) */
    {{0xff, 0x4b, 0x08}, 3},			     /* decl 0x8(%rbx) */
};
#define MIX_LOOPS    8000
#define MIX_MAX	     3000 /* runs counted at most */
#define MIX_BUDGET   (MIX_MAX + 3)
#define XCHG_RCX_R15 0x49, 0x87, 0xcf

/* The loop body (bytes, length) and its Jcc (condition cc) as 0F 8x rel32 back to the top of
 * the run, where R15 counts down by LOOP; the registers from and back to g (R15: what is left
 * of the count it started with, MIX_BUDGET). */
static void run_native_counting(const uint8_t *body, unsigned length, unsigned cc,
				struct x86_gprs *g)
{
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(code != MAP_FAILED);
	static const uint8_t prologue[] = {
	    0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56,
	    0x41, 0x57, 0x49, 0x89, 0xfe, 0x49, 0xc7, 0xc7};	   /* mov $,%r15 */
	static const uint8_t epilogue[] = {0x4d, 0x89, 0x7e, 0x78, /* mov %r15,0x78(%r14) */
					   0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d,
					   0x41, 0x5c, 0x5d, 0x5b, 0xc3};
	size_t at = sizeof(prologue);
	memcpy(code, prologue, at);
	uint32_t budget = MIX_BUDGET;
	memcpy(code + at, &budget, 4);
	at += 4;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			/* top: xchg; loop 1f; xchg; jmp out; 1: xchg; body; jcc top; out: */
			const uint8_t top[] = {XCHG_RCX_R15, 0xe2, 0x05,
					       XCHG_RCX_R15, 0xeb, (uint8_t)(3 + length + 6),
					       XCHG_RCX_R15};
			size_t start = at;
			memcpy(code + at, top, sizeof(top));
			at += sizeof(top);
			memcpy(code + at, body, length);
			at += length;
			code[at++] = 0x0f;
			code[at++] = (uint8_t)(0x80 | cc);
			int32_t rel = (int32_t)start - (int32_t)(at + 4);
			memcpy(code + at, &rel, 4);
			at += 4;
		}
		at = emit_moves(code, at, pass == 0, 15);
	}
	memcpy(code + at, epilogue, sizeof(epilogue));
	((void (*)(uint64_t *))(void *)code)(g->r);
	munmap(code, 4096);
}

/* A random body from the mix (up to three plain instructions and a setter), its Jcc after it. */
static unsigned mix_body(uint64_t *seed, struct loop_case *c)
{
	unsigned k = next_random(seed) % 4, length = 0;
	for (unsigned i = 0; i <= k; i++) {
		const struct mix *m =
		    i < k
			? &mix_plain[next_random(seed) % (sizeof(mix_plain) / sizeof(mix_plain[0]))]
			: &mix_setter[next_random(seed) %
				      (sizeof(mix_setter) / sizeof(mix_setter[0]))];
		memcpy(c->bytes + length, m->bytes, m->length);
		length += m->length;
	}
	unsigned cc = next_random(seed) % 14;
	cc = cc >= 10 ? cc + 2 : cc; /* no parity */
	c->bytes[length] = (uint8_t)(0x70 | cc);
	c->bytes[length + 1] = (uint8_t) - (length + 2);
	c->length = (uint8_t)(length + 2);
	return length;
}

static void random_bodies_against_cpu(void **state)
{
	(void)state;
	static const uint64_t near[] = {
	    0, 1, 5, 10, 0x7ffffff0, 0xfffffff0ull, 1ull << 32, 1ull << 63, 0ull - 16};
	uint64_t seed = 35;
	unsigned counted = 0;
	static uint64_t buffer[BUF_WORDS];
	for (unsigned it = 0; it < MIX_LOOPS; it++) {
		struct loop_case c = {.text = "mix"};
		unsigned length = mix_body(&seed, &c);
		struct x86_insn in[X86_LOOP_MAX_INSNS + 1];
		const struct x86_insn *p[X86_LOOP_MAX_INSNS + 1];
		unsigned n = decode_loop(&c, in, p);
		struct x86_loop l;
		if (!x86_loop_analyze(p, n, &in[n], &l))
			continue;
		struct x86_gprs g;
		for (unsigned r = 0; r < 16; r++)
			g.r[r] = near[next_random(&seed) % 9] + next_random(&seed) % 40 - 20;
		memset(buffer, 0, sizeof(buffer));
		buffer[1] = near[next_random(&seed) % 9] + next_random(&seed) % 40 - 20;
		g.r[RBX] = (uint64_t)(uintptr_t)buffer;
		uint64_t x0 = l.counter == X86_LOOP_SLOT ? buffer[1] : g.r[l.counter], trips;
		if (l.counter == X86_LOOP_SLOT && l.slot_size == 4)
			x0 = (uint32_t)x0;
		if (!x86_loop_trips(&l, x0, &g, MIX_MAX, &trips))
			continue;
		counted++;
		check_witnesses("mix", c.bytes, in, n, &l, &g, &buffer[1], x0, trips);
		run_native_counting(c.bytes, length, c.bytes[length] & 0xf, &g);
		uint64_t runs = MIX_BUDGET - g.r[15];
		if (runs != trips + 1)
			fail_msg(
			    "mix loop %u (%u bytes from %02x %02x): %lu jumps counted, the CPU "
			    "made %lu runs",
			    it, length, c.bytes[0], c.bytes[1], (unsigned long)trips,
			    (unsigned long)runs);
	}
	assert_true(counted > MIX_LOOPS / 20);
}

/* Only 64-bit code: in 16/32-bit code 40-4F are INC/DEC (the engine steps such code anyway). */
static void only_64_bit_code(void **state)
{
	(void)state;
	struct x86_insn in[X86_LOOP_MAX_INSNS + 1];
	const struct x86_insn *p[X86_LOOP_MAX_INSNS + 1];
	unsigned n = decode_loop(&cases[4], in, p);
	struct x86_loop l;
	assert_true(x86_loop_analyze(p, n, &in[n], &l));
	in[0].mode = X86_MODE_32;
	assert_false(x86_loop_analyze(p, n, &in[n], &l));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(loops_against_source_and_cpu),
    cmocka_unit_test(only_64_bit_code),
    cmocka_unit_test(random_loops_closed_form_and_cpu),
    cmocka_unit_test(random_bodies_against_cpu),
};

UNIT_MAIN(tests)
