// UNIT-SOURCES: lib/x86_xlate.c lib/x86_decode.c lib/x86_decode_tables.c
/*
 * lib/x86_xlate.c: the machine code of translated blocks. Three references, none of them the
 * translator:
 *   - GNU objdump reads what it emits (objdump -D -b binary at the address the code would run
 *     at): the stub's instruction sequence as lib/x86_xlate.h describes it, the data-page words
 *     its RIP-relative operands reach (objdump's "# 0x..." comment), its branch targets, a
 *     copied instruction's text and RIP-relative address against the original's, Jcc's
 *     mnemonic (SDM Vol. 2A "Jcc" table) and target, PUSH's immediate;
 *   - lib/x86_decode.c (checked against Zydis and objdump in test_x86_decode.c) on the same
 *     bytes: lengths, opcodes, RIP-relative addresses (SDM Vol. 2A 2.2.1.6: "RIP + 32-bit
 *     displacement", RIP being the next instruction's address), branch targets;
 *   - the host CPU (x86-64) runs the stub, PUSH, Jcc and copied instructions natively from an
 *     mmap'd page: MOV, LEA and JRCXZ change no flag (SDM Vol. 2A/2B, each instruction's "Flags
 *     Affected"), so RCX, RDX and RFLAGS come back as they went in, and the log in the data
 *     page holds the run; PUSH imm32 pushes the sign-extended immediate (Vol. 2B "PUSH");
 *     Jcc jumps as the SDM's condition table says. The stub's unlogged path ends in INT 0xe2,
 *     which a host process cannot take: it is checked from its bytes only.
 * Instruction bytes are hand-encoded from the SDM's opcode tables (Vol. 2 Appendix A; VEX 2.3,
 * EVEX 2.7; AMD's XOP from the APM Vol. 4, 3DNow! from Vol. 5), each with the text objdump
 * prints for it, which copy_cases_are_what_they_say checks.
 */
#include "tests/unit/unit.h"
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib/x86_xlate.h"
#include "tests/unit/sdm_jcc.h"

#define OBJDUMP "objdump -D -z -w -b binary -m i386:x86-64"

#define OP_RET	      0xc3
#define OP_INT	      0xcd
#define OP_JMP_REL32  0xe9
#define OP_JRCXZ      0xe3
#define OP_PUSH_IMM32 0x68
#define OD_MAX	      64
#define LOG_CANARY    0xa5a5a5a5u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* xorshift64 (Marsaglia), a fixed seed: the same values every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- objdump --------------------------------------------------------------------------------- */

/* One line of objdump's listing. */
struct od_insn {
	uint64_t addr;
	unsigned len;
	char text[192]; /* mnemonic and operands, blanks collapsed, the comment cut off */
	bool has_ref;
	uint64_t ref; /* the address its "# 0x..." comment names (a RIP-relative operand's) */
};

static void od_parse_text(const char *s, struct od_insn *o)
{
	const char *c = strstr(s, "# 0x");
	o->has_ref = c != NULL;
	o->ref = c ? strtoull(c + 2, NULL, 16) : 0;
	size_t n = 0;
	bool blank = false;
	for (; *s && *s != '\n' && s != c && n + 2 < sizeof(o->text); s++) {
		if (*s == ' ' || *s == '\t') {
			blank = n > 0;
			continue;
		}
		if (blank)
			o->text[n++] = ' ';
		blank = false;
		o->text[n++] = *s;
	}
	o->text[n] = '\0';
}

/* objdump's listing of the bytes (loaded at vma) from address from to address to: the number
 * of instructions it lists, at most max, in out. */
static unsigned od_list(const uint8_t *bytes, size_t n, uint64_t vma, uint64_t from, uint64_t to,
			struct od_insn *out, unsigned max)
{
	char path[256], cmd[768], line[512];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/test_x86_xlate.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	bool written = write(fd, bytes, n) == (ssize_t)n;
	close(fd);
	if (!written)
		unlink(path);
	assert_true(written);
	snprintf(cmd, sizeof(cmd),
		 OBJDUMP " --adjust-vma=%#llx --start-address=%#llx --stop-address=%#llx '%s'",
		 (unsigned long long)vma, (unsigned long long)from, (unsigned long long)to, path);
	FILE *p = popen(cmd, "r");
	unsigned k = 0, more = 0, odd = 0;
	while (p && fgets(line, sizeof(line), p)) {
		const char *s = line;
		while (*s == ' ')
			s++;
		char *end;
		unsigned long long a = strtoull(s, &end, 16);
		if (end == s || end[0] != ':' || end[1] != '\t')
			continue;
		const char *hex = end + 2, *tab = strchr(hex, '\t');
		if (!tab) {
			odd++;
			continue;
		}
		if (k == max) {
			more++;
			continue;
		}
		struct od_insn *o = &out[k++];
		o->addr = a;
		o->len = 0;
		for (const char *h = hex; h + 1 < tab; h++)
			if (isxdigit((unsigned char)h[0]) && isxdigit((unsigned char)h[1])) {
				o->len++;
				h++;
			}
		od_parse_text(tab + 1, o);
	}
	int rc = p ? pclose(p) : -1;
	unlink(path); /* before any check can leave */
	assert_int_equal(rc, 0);
	assert_int_equal(odd, 0);  /* a line of bytes without text */
	assert_int_equal(more, 0); /* more instructions than the caller expects */
	return k;
}

/* The text with a RIP-relative (or EIP-relative) operand's displacement as D: the part of an
 * instruction's text that a rebased copy keeps. */
static void disp_as_d(const char *text, char *out, size_t size)
{
	const char *p = strstr(text, "(%rip)");
	if (!p)
		p = strstr(text, "(%eip)");
	if (!p) {
		snprintf(out, size, "%s", text);
		return;
	}
	const char *s = p;
	while (s > text && (isxdigit((unsigned char)s[-1]) || s[-1] == 'x' || s[-1] == '-'))
		s--;
	snprintf(out, size, "%.*sD%s", (int)(s - text), text, p);
}

/* A branch's target as objdump prints it ("jrcxz  0x40001049"). */
static uint64_t od_target(const struct od_insn *o)
{
	const char *s = strchr(o->text, ' ');
	assert_non_null(s);
	return strtoull(s + 1, NULL, 16);
}

/* ---- the host CPU ---------------------------------------------------------------------------- */

/* The registers a native run sets and reads back. */
struct native_regs {
	uint64_t rax, rcx, rdx, rflags;
};

/* The arithmetic flags and DF (SDM Vol. 1 3.4.3): the ones a native run sets at will. TF
 * would trap, AC may check alignment, IF and IOPL cannot be set at CPL 3. */
#define FLAG_AF	     (1u << 4)
#define FLAG_DF	     (1u << 10)
#define FLAGS_SET    (FLAG_CF | FLAG_PF | FLAG_AF | FLAG_ZF | FLAG_SF | FLAG_DF | FLAG_OF)
#define FLAGS_FIXED1 0x2u /* bit 1 reads as 1 */

/* Call code (which returns with RET) with RAX, RCX, RDX and RFLAGS from r, and read them back
 * into r. Below the red zone (SysV ABI 3.2.2: 128 bytes below RSP are the function's), DF
 * cleared again after (the ABI wants it clear at function entry and return). */
static void run_native(const uint8_t *code, struct native_regs *r)
{
	uint64_t rax = r->rax, rcx = r->rcx, rdx = r->rdx, fl = r->rflags;
	__asm__ volatile("add $-128, %%rsp\n\t"
			 "push %[fl]\n\t"
			 "popfq\n\t"
			 "call *%[code]\n\t"
			 "pushfq\n\t"
			 "pop %[fl]\n\t"
			 "cld\n\t"
			 "sub $-128, %%rsp\n\t"
			 : "+a"(rax), "+c"(rcx), "+d"(rdx), [fl] "+r"(fl)
			 : [code] "r"(code)
			 : "memory", "cc", "xmm1");
	*r = (struct native_regs){rax, rcx, rdx, fl};
}

/* Pages for native runs: data below the code, the code, data above it, one more. */
#define PAGE	  4096
#define NPAGES	  4
#define P_DATA_LO 0
#define P_CODE	  1
#define P_DATA_HI 2
#define P_MORE	  3

static uint8_t *native_pages(void)
{
	uint8_t *p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		/* Not cmocka's skip(): its TAP "not ok # SKIP" counts as a failure under prove. */
		print_message("# no executable mapping here: native runs not done\n");
		return NULL;
	}
	return p;
}

static uint64_t va_of(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint64_t data_word(const uint8_t *data, unsigned off)
{
	uint64_t w;
	memcpy(&w, data + off, sizeof(w));
	return w;
}

static void set_data_word(uint8_t *data, unsigned off, uint64_t w)
{
	memcpy(data + off, &w, sizeof(w));
}

static uint32_t log_entry(const uint8_t *data, unsigned i)
{
	return le32(data + XLATE_D_LOG + 4 * i);
}

/* Random arithmetic flags and DF, bit 1 set. */
static uint64_t random_flags(void)
{
	return (rnd() & FLAGS_SET) | FLAGS_FIXED1;
}

/* ---- the stub's listing ------------------------------------------------------------------- */

/* What objdump must list for a stub (lib/x86_xlate.h, the header's comment and layout): the
 * logged path, then the unlogged one (from the JRCXZ's target). */
struct want {
	char text[96];
	bool has_ref;
	uint64_t ref;
};

static unsigned stub_wants(struct want *w, uint64_t va, uint64_t data, uint32_t id, uint64_t jmp_to,
			   unsigned *logged_n)
{
	unsigned n = 0;
	const uint64_t unlogged = va + XLATE_STUB_UNLOGGED - 7;
#define WANT_REF(t, r) (w[n++] = (struct want){t, true, data + (r)})
#define WANT(...)                                                                                  \
	do {                                                                                       \
		w[n] = (struct want){.has_ref = false};                                            \
		snprintf(w[n].text, sizeof(w[n].text), __VA_ARGS__);                               \
		n++;                                                                               \
	} while (0)
	WANT_REF("mov %rcx,D(%rip)", XLATE_D_RCX);	    /* RCX kept */
	WANT_REF("mov D(%rip),%rcx", XLATE_D_LEFT);	    /* the room left */
	WANT("jrcxz 0x%llx", (unsigned long long)unlogged); /* none left */
	WANT_REF("mov %rdx,D(%rip)", XLATE_D_RDX);	    /* RDX kept */
	WANT_REF("lea D(%rip),%rdx", XLATE_D_LOG - 4);	    /* the log's base - 4 */
	WANT("movl $0x%x,(%%rdx,%%rcx,4)", id);		    /* entry LEFT - 1 */
	WANT("lea -0x1(%%rcx),%%rcx");			    /* LEFT - 1 */
	WANT_REF("mov %rcx,D(%rip)", XLATE_D_LEFT);	    /* committed */
	WANT_REF("mov D(%rip),%rdx", XLATE_D_RDX);	    /* RDX back */
	WANT_REF("mov D(%rip),%rcx", XLATE_D_RCX);	    /* RCX back */
	WANT("jmp 0x%llx", (unsigned long long)jmp_to);	    /* on */
	WANT("int $0x%x", XLATE_HANDBACK_VEC);		    /* or back */
	*logged_n = n;
	WANT_REF("mov D(%rip),%rcx", XLATE_D_RCX); /* the unlogged path: RCX back */
	WANT("int $0x%x", XLATE_HANDBACK_VEC);
#undef WANT
#undef WANT_REF
	return n;
}

/*
 * The stub at stub (address va) for data page data and run id, its jump to jmp_to, against
 * objdump's listing and the decoder, and the offsets objdump lists against x86_xlate_stub_at.
 */
static void check_stub(const uint8_t *stub, uint64_t va, uint64_t data, uint32_t id,
		       uint64_t jmp_to)
{
	struct want want[OD_MAX];
	unsigned logged_n, nwant = stub_wants(want, va, data, id, jmp_to, &logged_n);
	/* objdump over the two code paths, not over the run numbers after the INTs: the logged
	 * path up to its INT's end, the unlogged path from the instruction the JRCXZ goes to */
	struct od_insn od[OD_MAX];
	const uint64_t unlogged_from = va + XLATE_STUB_UNLOGGED - 7;
	unsigned n = od_list(stub, XLATE_STUB_LEN, va, va, va + XLATE_STUB_HANDBACK + XLATE_INT_LEN,
			     od, OD_MAX);
	assert_int_equal(n, logged_n);
	n += od_list(stub, XLATE_STUB_LEN, va, unlogged_from,
		     va + XLATE_STUB_UNLOGGED + XLATE_INT_LEN, od + n, OD_MAX - n);
	assert_int_equal(n, nwant);
	bool boundary[XLATE_STUB_LEN + 1] = {false};
	for (unsigned i = 0; i < n; i++) {
		char text[192];
		disp_as_d(od[i].text, text, sizeof(text));
		if (strcmp(text, want[i].text) != 0 || od[i].has_ref != want[i].has_ref ||
		    od[i].ref != want[i].ref)
			fail_msg("stub insn %u at +%lu: objdump has \"%s\" (# %#lx), wanted \"%s\" "
				 "(# %#lx)",
				 i, (unsigned long)(od[i].addr - va), od[i].text,
				 (unsigned long)od[i].ref, want[i].text,
				 (unsigned long)want[i].ref);
		/* each path's instructions back to back */
		if (i + 1 != logged_n && i + 1 < n)
			assert_int_equal(od[i].addr + od[i].len, od[i + 1].addr);
		unsigned off = (unsigned)(od[i].addr - va);
		assert_true(off < XLATE_STUB_LEN);
		boundary[off] = true;
		/* the decoder: the same length, RIP-relative address and branch target */
		struct x86_insn in;
		assert_int_equal(x86_decode(stub + off, XLATE_STUB_LEN - off, &in), 0);
		assert_int_equal(in.length, od[i].len);
		assert_int_equal(in.rip_relative, od[i].has_ref);
		if (in.rip_relative)
			assert_int_equal(od[i].addr + in.length + (uint64_t)(int64_t)in.disp,
					 od[i].ref);
		if (in.has_rel)
			assert_int_equal(x86_branch_target(&in, od[i].addr), od_target(&od[i]));
	}
	/* the paths end where the header says: the JMP's rel32 at XLATE_STUB_JMP_REL, the INTs at
	 * XLATE_STUB_HANDBACK and XLATE_STUB_UNLOGGED, the unlogged path's first instruction
	 * XLATE_STUB_UNLOGGED - 7 (a 7-byte MOV RCX back) */
	assert_int_equal(od[logged_n - 2].addr, va + XLATE_STUB_JMP_REL - 1);
	assert_int_equal(od[logged_n - 1].addr, va + XLATE_STUB_HANDBACK);
	assert_int_equal(od[logged_n].addr, unlogged_from);
	assert_int_equal(od[n - 1].addr, va + XLATE_STUB_UNLOGGED);
	assert_int_equal(od[n - 1].addr + od[n - 1].len, va + XLATE_STUB_UNLOGGED + XLATE_INT_LEN);

	/* the decoder alone: JRCXZ (E3 cb, Vol. 2A "Jcc": "Jump short if RCX register is 0")
	 * goes to the unlogged path's MOV RCX, r/m64 (REX.W 8B /r, ModRM 0D: RCX, [RIP+disp32])
	 * from the word the first MOV kept it in */
	struct x86_insn in;
	unsigned jrcxz = (unsigned)(od[2].addr - va);
	assert_int_equal(x86_decode(stub + jrcxz, XLATE_STUB_LEN - jrcxz, &in), 0);
	assert_int_equal(stub[jrcxz], OP_JRCXZ);
	assert_int_equal(in.branch, X86_BR_JCXZ_LOOP);
	assert_int_equal(x86_branch_target(&in, va + jrcxz), va + XLATE_STUB_UNLOGGED - 7);
	const unsigned back = XLATE_STUB_UNLOGGED - 7;
	assert_int_equal(x86_decode(stub + back, XLATE_STUB_LEN - back, &in), 0);
	assert_int_equal(in.length, 7);
	assert_int_equal(stub[back], 0x48);
	assert_int_equal(stub[back + 1], 0x8b);
	assert_int_equal(stub[back + 2], 0x0d);
	assert_true(in.rip_relative);
	assert_int_equal(va + XLATE_STUB_UNLOGGED + (uint64_t)(int64_t)in.disp, data + XLATE_D_RCX);
	/* INT ib (CD E2), the run number after each: as it is, or marked not logged */
	assert_int_equal(stub[XLATE_STUB_HANDBACK], OP_INT);
	assert_int_equal(stub[XLATE_STUB_HANDBACK + 1], XLATE_HANDBACK_VEC);
	assert_int_equal(le32(stub + XLATE_STUB_HANDBACK + XLATE_INT_LEN), id);
	assert_int_equal(stub[XLATE_STUB_UNLOGGED], OP_INT);
	assert_int_equal(stub[XLATE_STUB_UNLOGGED + 1], XLATE_HANDBACK_VEC);
	assert_int_equal(le32(stub + XLATE_STUB_UNLOGGED + XLATE_INT_LEN), id | XLATE_UNLOGGED);
	/* JMP rel32 (E9 cd): rel32 at XLATE_STUB_JMP_REL, from the address after it */
	assert_int_equal(stub[XLATE_STUB_JMP_REL - 1], OP_JMP_REL32);
	assert_int_equal(va + XLATE_STUB_JMP_REL + 4 +
			     (uint64_t)(int64_t)(int32_t)le32(stub + XLATE_STUB_JMP_REL),
			 jmp_to);

	/* x86_xlate_stub_at: every instruction boundary objdump lists, nothing else */
	for (unsigned off = 0; off < XLATE_STUB_LEN + 32; off++) {
		struct x86_xlate_stub_state st;
		bool listed = off < XLATE_STUB_LEN && boundary[off];
		if (x86_xlate_stub_at(off, &st) != listed)
			fail_msg("x86_xlate_stub_at(%u): %s, objdump %s an instruction there", off,
				 listed ? "false" : "true", listed ? "lists" : "lists no");
	}
	struct x86_xlate_stub_state st;
	assert_false(x86_xlate_stub_at(~0u, &st));
}

static void stub_matches_objdump_and_the_decoder(void **state)
{
	(void)state;
	uint8_t stub[XLATE_STUB_LEN];
	/* the kernel's layout (arch/x86/step/xlate.c): the data page right below the code */
	uint64_t va = 0x40001000, data = 0x40000000;
	assert_true(x86_xlate_stub(stub, va, data, 0x2a));
	check_stub(stub, va, data, 0x2a, va + XLATE_STUB_HANDBACK);
	/* linked forward, then back to its own hand-back (NULL target) */
	assert_true(x86_xlate_stub_link(stub, va, va + 0x1234));
	check_stub(stub, va, data, 0x2a, va + 0x1234);
	assert_true(x86_xlate_stub_link(stub, va, 0));
	check_stub(stub, va, data, 0x2a, va + XLATE_STUB_HANDBACK);
	/* high addresses, the data page above the code, the largest run number a log takes */
	va = 0x7f1234567010;
	data = 0x7f1234600000;
	assert_true(x86_xlate_stub(stub, va, data, 0x7fffffff));
	assert_true(x86_xlate_stub_link(stub, va, va - 0x10000));
	check_stub(stub, va, data, 0x7fffffff, va - 0x10000);
	/* run number 0, data and target about 1.5 GiB away either way */
	va = 0x100000000000;
	for (int dir = -1; dir <= 1; dir += 2) {
		data = va + (uint64_t)(int64_t)(dir * 0x60000000ll);
		uint64_t to = va + (uint64_t)(int64_t)(-dir * 0x60000000ll);
		assert_true(x86_xlate_stub(stub, va, data, 0));
		assert_true(x86_xlate_stub_link(stub, va, to));
		check_stub(stub, va, data, 0, to);
	}
	/* random ones */
	for (unsigned i = 0; i < 8; i++) {
		va = 0x400000 + (rnd() & 0x3fffffff);
		data = (va & ~0xfffull) - PAGE + (uint64_t)(int64_t)(int32_t)(rnd() & 0x3ffff000);
		uint32_t id = (uint32_t)rnd() & ~XLATE_UNLOGGED;
		assert_true(x86_xlate_stub(stub, va, data, id));
		check_stub(stub, va, data, id, va + XLATE_STUB_HANDBACK);
	}
}

/*
 * Out of reach, exactly: each RIP-relative instruction of the stub (the decoder finds them)
 * reaches its word from its own end with a signed 32-bit displacement (SDM Vol. 2A 2.2.1.6);
 * the data page can lie as far as the tightest of them allows, and no further.
 */
static void stub_reach_is_exact(void **state)
{
	(void)state;
	const uint64_t va = 0x100000000000;
	uint8_t stub[XLATE_STUB_LEN];
	assert_true(x86_xlate_stub(stub, va, va - PAGE, 1));
	int64_t lo = INT64_MIN, hi = INT64_MAX; /* data - va */
	unsigned rip = 0;
	for (unsigned off = 0; off < XLATE_STUB_LEN;) {
		struct x86_insn in;
		assert_int_equal(x86_decode(stub + off, XLATE_STUB_LEN - off, &in), 0);
		if (in.rip_relative) {
			/* reaches data + k from va + end: disp = data - va + k - end */
			int64_t end = off + in.length;
			int64_t k = (int64_t)(va + end + (uint64_t)(int64_t)in.disp - (va - PAGE));
			lo = lo > INT32_MIN - k + end ? lo : INT32_MIN - k + end;
			hi = hi < INT32_MAX - k + end ? hi : INT32_MAX - k + end;
			rip++;
		}
		/* an INT is followed by its run number (lib/x86_xlate.h), not code */
		off += in.opcode == OP_INT && in.opcode_map == X86_MAP_ONE_BYTE ? in.length + 4
										: in.length;
	}
	assert_int_equal(rip, 8);
	assert_true(x86_xlate_stub(stub, va, va + (uint64_t)hi, 7));
	check_stub(stub, va, va + (uint64_t)hi, 7, va + XLATE_STUB_HANDBACK);
	assert_true(x86_xlate_stub(stub, va, va + (uint64_t)lo, 7));
	check_stub(stub, va, va + (uint64_t)lo, 7, va + XLATE_STUB_HANDBACK);
	assert_false(x86_xlate_stub(stub, va, va + (uint64_t)hi + 1, 7));
	assert_false(x86_xlate_stub(stub, va, va + (uint64_t)lo - 1, 7));
	assert_false(x86_xlate_stub(stub, va, va + (4ull << 30), 7));
	assert_false(x86_xlate_stub(stub, va, va - (4ull << 30), 7));
	assert_false(x86_xlate_stub(stub, va, 0, 7));

	/* the link: JMP rel32 (Vol. 2A "JMP": a displacement relative to the instruction pointer,
	 * the address after the JMP, which ends with its rel32) */
	assert_true(x86_xlate_stub(stub, va, va - PAGE, 1));
	const uint64_t next = va + XLATE_STUB_JMP_REL + 4;
	assert_true(x86_xlate_stub_link(stub, va, next + INT32_MAX));
	check_stub(stub, va, va - PAGE, 1, next + INT32_MAX);
	assert_true(x86_xlate_stub_link(stub, va, next - 0x80000000ull));
	check_stub(stub, va, va - PAGE, 1, next - 0x80000000ull);
	assert_false(x86_xlate_stub_link(stub, va, next + INT32_MAX + 1));
	assert_false(x86_xlate_stub_link(stub, va, next - 0x80000001ull));
	assert_false(x86_xlate_stub_link(stub, va, va + (1ull << 40)));
}

/* ---- the stub on the host CPU -------------------------------------------------------------- */

/* A data page as the engine leaves it before the workload enters: room `left`, the log full of
 * a canary, the scratch words junk. */
static void data_page_init(uint8_t *data, uint64_t left)
{
	for (unsigned i = 0; i < XLATE_LOG_CAP; i++)
		memcpy(data + XLATE_D_LOG + 4 * i, &(uint32_t){LOG_CANARY}, 4);
	set_data_word(data, XLATE_D_RCX, 0xdead0000c0c0c0c0ull);
	set_data_word(data, XLATE_D_RDX, 0xdead0000d0d0d0d0ull);
	set_data_word(data, XLATE_D_LEFT, left);
}

/* The log after runs ids[0..n) from room `left`: each at entry left - 1 - i, the rest the
 * canary, the room left - n. */
static void check_log(const uint8_t *data, uint64_t left, const uint32_t *ids, unsigned n)
{
	assert_int_equal(data_word(data, XLATE_D_LEFT), left - n);
	for (unsigned i = 0; i < XLATE_LOG_CAP; i++) {
		uint32_t want = LOG_CANARY;
		if (i < left && i >= left - n)
			want = ids[left - 1 - i];
		if (log_entry(data, i) != want)
			fail_msg("log entry %u: %#x, wanted %#x (room %lu, %u runs)", i,
				 log_entry(data, i), want, (unsigned long)left, n);
	}
}

static uint64_t random_left(void)
{
	static const uint64_t some[] = {1, 2, 3, XLATE_LOG_CAP - 1, XLATE_LOG_CAP};
	unsigned r = (unsigned)(rnd() % 8);
	return r < 5 ? some[r] : 1 + rnd() % XLATE_LOG_CAP;
}

static uint64_t random_reg(void)
{
	switch (rnd() % 8) {
	case 0:
		return 0;
	case 1:
		return ~0ull;
	case 2:
		return 1;
	default:
		return rnd();
	}
}

/*
 * Stubs linked to a RET run natively, with random RCX, RDX and flags and several amounts of
 * room: they come back unchanged (MOV, LEA and JRCXZ affect no flag: SDM Vol. 2A/2B, each
 * one's "Flags Affected"), the room went down by one and the run number is in entry room - 1;
 * the scratch words hold the workload's RCX and RDX (lib/x86_xlate.h: "kept in the data
 * page"). Data page below the code (the kernel's layout) and above it.
 */
static void stub_runs_natively_leaving_registers_and_flags(void **state)
{
	(void)state;
	uint8_t *pages = native_pages();
	if (!pages)
		return;
	uint8_t *code = pages + P_CODE * PAGE;
	uint8_t *landing = code + 0x800;
	*landing = OP_RET;
	for (unsigned i = 0; i < 600; i++) {
		uint8_t *data = pages + (i & 1 ? P_DATA_HI : P_DATA_LO) * PAGE;
		uint8_t *stub = code + (rnd() % 64); /* any alignment */
		uint32_t id = i % 50 == 0 ? 0x7fffffff : (uint32_t)rnd() & ~XLATE_UNLOGGED;
		uint64_t left = random_left();
		assert_true(x86_xlate_stub(stub, va_of(stub), va_of(data), id));
		assert_true(x86_xlate_stub_link(stub, va_of(stub), va_of(landing)));
		data_page_init(data, left);
		struct native_regs want = {random_reg(), random_reg(), random_reg(),
					   random_flags()};
		struct native_regs r = want;
		run_native(stub, &r);
		if (r.rcx != want.rcx || r.rdx != want.rdx || r.rax != want.rax ||
		    (r.rflags & FLAGS_SET) != (want.rflags & FLAGS_SET))
			fail_msg("run %u: rcx %#lx rdx %#lx flags %#lx, went in as %#lx %#lx %#lx",
				 i, (unsigned long)r.rcx, (unsigned long)r.rdx,
				 (unsigned long)r.rflags, (unsigned long)want.rcx,
				 (unsigned long)want.rdx, (unsigned long)want.rflags);
		check_log(data, left, &id, 1);
		assert_int_equal(data_word(data, XLATE_D_RCX), want.rcx);
		assert_int_equal(data_word(data, XLATE_D_RDX), want.rdx);
		memset(stub, 0, XLATE_STUB_LEN);
	}
	munmap(pages, NPAGES * PAGE);
}

/* Stubs linked to one another log each run in turn, from the log's top down. */
static void linked_stubs_log_in_turn(void **state)
{
	(void)state;
	uint8_t *pages = native_pages();
	if (!pages)
		return;
	uint8_t *code = pages + P_CODE * PAGE, *data = pages + P_DATA_LO * PAGE;
	enum { CHAIN = 5 };
	uint8_t *at[CHAIN + 1];
	uint32_t ids[CHAIN];
	for (unsigned k = 0; k <= CHAIN; k++)
		at[k] = code + 0x300 * k + 3 * k; /* the last: the landing RET */
	*at[CHAIN] = OP_RET;
	for (unsigned round = 0; round < 50; round++) {
		/* each linked to the next; forward and backward jumps as the order is shuffled */
		unsigned order[CHAIN];
		for (unsigned k = 0; k < CHAIN; k++)
			order[k] = k;
		for (unsigned k = CHAIN - 1; k > 0; k--) {
			unsigned j = (unsigned)(rnd() % (k + 1)), t = order[k];
			order[k] = order[j];
			order[j] = t;
		}
		for (unsigned k = 0; k < CHAIN; k++) {
			uint8_t *s = at[order[k]];
			ids[k] = (uint32_t)rnd() & ~XLATE_UNLOGGED;
			assert_true(x86_xlate_stub(s, va_of(s), va_of(data), ids[k]));
		}
		for (unsigned k = 0; k < CHAIN; k++) {
			uint8_t *s = at[order[k]];
			uint8_t *to = k + 1 < CHAIN ? at[order[k + 1]] : at[CHAIN];
			assert_true(x86_xlate_stub_link(s, va_of(s), va_of(to)));
		}
		uint64_t left = CHAIN + rnd() % (XLATE_LOG_CAP - CHAIN + 1);
		data_page_init(data, left);
		struct native_regs want = {random_reg(), random_reg(), random_reg(),
					   random_flags()};
		struct native_regs r = want;
		run_native(at[order[0]], &r);
		assert_int_equal(r.rcx, want.rcx);
		assert_int_equal(r.rdx, want.rdx);
		assert_int_equal(r.rflags & FLAGS_SET, want.rflags & FLAGS_SET);
		check_log(data, left, ids, CHAIN);
	}
	munmap(pages, NPAGES * PAGE);
}

/*
 * x86_xlate_stub_at at each boundary of the logged path, against the host CPU: the stub run
 * natively up to that boundary (a RET written over the instruction there) must have the
 * workload's RCX and RDX where the state says (the register, or the data page's word), and
 * the run in the log (the room down by one, the entry written) exactly where it says logged.
 * The unlogged path (reached when the room is 0) ends in INT 0xe2 and is not run: its two
 * boundaries are checked from the listing (check_stub): at the MOV RCX back, RCX holds the
 * room (0) and the workload's is in the data page, RDX untouched, nothing logged; at the INT,
 * both back in their registers.
 */
static void stub_states_hold_on_the_cpu(void **state)
{
	(void)state;
	uint8_t *pages = native_pages();
	if (!pages)
		return;
	uint8_t *code = pages + P_CODE * PAGE, *data = pages + P_DATA_LO * PAGE;
	unsigned boundaries = 0;
	for (unsigned off = 0; off <= XLATE_STUB_HANDBACK; off++) {
		struct x86_xlate_stub_state st;
		if (!x86_xlate_stub_at(off, &st))
			continue;
		boundaries++;
		for (unsigned i = 0; i < 40; i++) {
			uint32_t id = (uint32_t)rnd() & ~XLATE_UNLOGGED;
			uint64_t left = random_left();
			assert_true(x86_xlate_stub(code, va_of(code), va_of(data), id));
			code[off] = OP_RET; /* the unlinked JMP goes to the hand-back: a RET too */
			data_page_init(data, left);
			struct native_regs want = {random_reg(), random_reg(), random_reg(),
						   random_flags()};
			struct native_regs r = want;
			run_native(code, &r);
			uint64_t rcx = st.rcx_in_data ? data_word(data, XLATE_D_RCX) : r.rcx;
			uint64_t rdx = st.rdx_in_data ? data_word(data, XLATE_D_RDX) : r.rdx;
			bool logged = data_word(data, XLATE_D_LEFT) == left - 1;
			if (rcx != want.rcx || rdx != want.rdx || logged != st.logged)
				fail_msg("at +%u: RCX %#lx (in data %d), RDX %#lx (in data %d), "
					 "logged %d (said %d); the workload's %#lx %#lx",
					 off, (unsigned long)rcx, st.rcx_in_data,
					 (unsigned long)rdx, st.rdx_in_data, logged, st.logged,
					 (unsigned long)want.rcx, (unsigned long)want.rdx);
			if (logged)
				check_log(data, left, &id, 1);
			else
				assert_int_equal(data_word(data, XLATE_D_LEFT), left);
			assert_int_equal(r.rflags & FLAGS_SET, want.rflags & FLAGS_SET);
		}
	}
	assert_int_equal(boundaries, 12);
	/* the unlogged path's boundaries: its MOV RCX back and its INT */
	struct x86_xlate_stub_state st;
	assert_true(x86_xlate_stub_at(XLATE_STUB_UNLOGGED - 7, &st));
	assert_true(st.rcx_in_data && !st.rdx_in_data && !st.logged);
	assert_true(x86_xlate_stub_at(XLATE_STUB_UNLOGGED, &st));
	assert_true(!st.rcx_in_data && !st.rdx_in_data && !st.logged);
	/* the logged path's INT: both back, logged */
	assert_true(x86_xlate_stub_at(XLATE_STUB_HANDBACK, &st));
	assert_true(!st.rcx_in_data && !st.rdx_in_data && st.logged);
	munmap(pages, NPAGES * PAGE);
}

/* ---- copies -------------------------------------------------------------------------------- */

struct copy_case {
	const char *text; /* as objdump prints it (checked) */
	uint8_t bytes[15];
	uint8_t length;
	int8_t disp_at; /* where the disp32 of a RIP-relative operand lies; -1: none */
};

static const struct copy_case copies[] = {
    /* MOV r64, r/m64 (REX.W 8B /r); ModRM mod 00 rm 101: [RIP + disp32] (Table 2-7) */
    {"mov 0x1234(%rip),%rax", {0x48, 0x8b, 0x05, 0x34, 0x12, 0, 0}, 7, 3},
    /* LEA r64, m (REX.W 8D /r), a negative displacement */
    {"lea -0x20(%rip),%rdi", {0x48, 0x8d, 0x3d, 0xe0, 0xff, 0xff, 0xff}, 7, 3},
    /* MOV r/m64, r64 (REX.W 89 /r) */
    {"mov %rcx,-0x1000(%rip)", {0x48, 0x89, 0x0d, 0x00, 0xf0, 0xff, 0xff}, 7, 3},
    /* the displacement's extremes */
    {"mov 0x7fffffff(%rip),%eax", {0x8b, 0x05, 0xff, 0xff, 0xff, 0x7f}, 6, 2},
    {"mov -0x80000000(%rip),%eax", {0x8b, 0x05, 0x00, 0x00, 0x00, 0x80}, 6, 2},
    /* CMP r/m32, imm32 (81 /7 id): the displacement before the immediate (Figure 2-1) */
    {"cmpl $0x11223344,0x100(%rip)", {0x81, 0x3d, 0x00, 0x01, 0, 0, 0x44, 0x33, 0x22, 0x11}, 10, 2},
    /* CMP r/m8, imm8 (80 /7 ib) */
    {"cmpb $0x7,0x10(%rip)", {0x80, 0x3d, 0x10, 0, 0, 0, 0x07}, 7, 2},
    /* CMP r/m64, imm8 (REX.W 83 /7 ib), sign-extended */
    {"cmpq $0xffffffffffffffff,0x10(%rip)", {0x48, 0x83, 0x3d, 0x10, 0, 0, 0, 0xff}, 8, 3},
    /* MOV r/m16, imm16 (66 C7 /0 iw) */
    {"movw $0x1234,0x40(%rip)", {0x66, 0xc7, 0x05, 0x40, 0, 0, 0, 0x34, 0x12}, 9, 3},
    /* MOV r/m64, imm32 (REX.W C7 /0 id) */
    {"movq $0xffffffffffffffff,0x10(%rip)",
     {0x48, 0xc7, 0x05, 0x10, 0, 0, 0, 0xff, 0xff, 0xff, 0xff},
     11,
     3},
    /* TEST r/m8, imm8 (F6 /0 ib) */
    {"testb $0x1,0x8(%rip)", {0xf6, 0x05, 0x08, 0, 0, 0, 0x01}, 7, 2},
    /* LOCK INC r/m32 (F0 FF /0) */
    {"lock incl 0x10(%rip)", {0xf0, 0xff, 0x05, 0x10, 0, 0, 0}, 7, 3},
    /* MOVSS xmm1, m32 (F3 0F 10 /r) */
    {"movss 0x80(%rip),%xmm1", {0xf3, 0x0f, 0x10, 0x0d, 0x80, 0, 0, 0}, 8, 4},
    /* REX.B with rm 101 and mod 00: still RIP-relative (Table 2-5: REX.B not decoded there) */
    {"mov 0x10(%rip),%eax", {0x41, 0x8b, 0x05, 0x10, 0, 0, 0}, 7, 3},
    /* a segment override: FS base + RIP + disp32 */
    {"mov %fs:0x10(%rip),%rax", {0x64, 0x48, 0x8b, 0x05, 0x10, 0, 0, 0}, 8, 4},
    /* 67H: EIP-relative (2.2.1.6, Table 2-7: with a 32-bit address size, EIP + disp32) */
    {"mov 0x10(%eip),%eax", {0x67, 0x8b, 0x05, 0x10, 0, 0, 0}, 7, 3},
    /* VEX.256.0F.WIG 28 /r VMOVAPS ymm1, m256 (2-byte VEX) */
    {"vmovaps 0x200(%rip),%ymm2", {0xc5, 0xfc, 0x28, 0x15, 0x00, 0x02, 0, 0}, 8, 4},
    /* VEX.128.66.0F.WIG 70 /r ib VPSHUFD xmm1, m128, imm8 */
    {"vpshufd $0x1b,0x20(%rip),%xmm1", {0xc5, 0xf9, 0x70, 0x0d, 0x20, 0, 0, 0, 0x1b}, 9, 4},
    /* VEX.256.66.0F3A.W0 02 /r ib VPBLENDD ymm2, ymm1, m256, imm8 (3-byte VEX) */
    {"vpblendd $0x5,0x30(%rip),%ymm1,%ymm2",
     {0xc4, 0xe3, 0x75, 0x02, 0x15, 0x30, 0, 0, 0, 0x05},
     10,
     5},
    /* VEX.256.66.0F3A.W0 4C /r /is4 VPBLENDVB ymm1, ymm2, m256, ymm4 */
    {"vpblendvb %ymm4,0x10(%rip),%ymm2,%ymm1",
     {0xc4, 0xe3, 0x6d, 0x4c, 0x0d, 0x10, 0, 0, 0, 0x40},
     10,
     5},
    /* EVEX.512.0F.W0 58 /r VADDPS zmm2, zmm1, m512: mod 00 rm 101 is disp32, not disp8*N */
    {"vaddps 0x40(%rip),%zmm1,%zmm2", {0x62, 0xf1, 0x74, 0x48, 0x58, 0x15, 0x40, 0, 0, 0}, 10, 6},
    /* AMD XOP.8 CC /r ib VPCOMB (imm8 2: "gt") */
    {"vpcomgtb 0x10(%rip),%xmm1,%xmm2", {0x8f, 0xe8, 0x70, 0xcc, 0x15, 0x10, 0, 0, 0, 0x02}, 10, 5},
    /* AMD XOP.A 10 /r id BEXTR r32, r/m32, imm32 */
    {"bextr $0x11223344,0x10(%rip),%eax",
     {0x8f, 0xea, 0x78, 0x10, 0x05, 0x10, 0, 0, 0, 0x44, 0x33, 0x22, 0x11},
     13,
     5},
    /* AMD 3DNow! 0F 0F /r 9E PFADD: the opcode byte after the displacement */
    {"pfadd 0x10(%rip),%mm0", {0x0f, 0x0f, 0x05, 0x10, 0, 0, 0, 0x9e}, 8, 3},
    /* not RIP-relative: copied as they are */
    {"mov (%rax),%rcx", {0x48, 0x8b, 0x08}, 3, -1},
    {"mov 0x10(%rbp),%eax", {0x8b, 0x45, 0x10}, 3, -1},
    {"mov 0x10(%r13),%eax", {0x41, 0x8b, 0x45, 0x10}, 4, -1},
    /* SIB, no base (mod 00, base 101): disp32 absolute, not RIP-relative (Table 2-3, [*]) */
    {"mov 0x1000,%eax", {0x8b, 0x04, 0x25, 0x00, 0x10, 0, 0}, 7, -1},
    /* MOV RAX, moffs64 (REX.W A1) */
    {"movabs 0x1122334455667788,%rax",
     {0x48, 0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11},
     10,
     -1},
    {"add $0x1,%eax", {0x83, 0xc0, 0x01}, 3, -1},
    {"vaddps %ymm1,%ymm2,%ymm3", {0xc5, 0xec, 0x58, 0xd9}, 4, -1},
    {"rep movsb %ds:(%rsi),%es:(%rdi)", {0xf3, 0xa4}, 2, -1},
    {"nopw 0x0(%rax,%rax,1)", {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}, 6, -1},
};
#define NCOPIES (sizeof(copies) / sizeof(copies[0]))

static uint64_t copy_target(const struct copy_case *c, uint64_t va)
{
	return va + c->length + (uint64_t)(int64_t)(int32_t)le32(c->bytes + c->disp_at);
}

/* Whether a copy to out_va can reach the original's address: a signed 32-bit displacement
 * from the copy's end (2.2.1.6). */
static bool reaches(const struct copy_case *c, uint64_t insn_va, uint64_t out_va)
{
	int64_t d = (int64_t)(copy_target(c, insn_va) - (out_va + c->length));
	return d >= INT32_MIN && d <= INT32_MAX;
}

/* The copy of case c (at insn_va) to out_va: the same bytes but for the displacement, which
 * reaches the same address (original address + length + disp = copy address + length + new
 * disp); the decoder reads the same instruction; 0 exactly where out of reach. */
static void check_copy(const struct copy_case *c, uint64_t insn_va, uint64_t out_va)
{
	struct x86_insn in, out_in;
	assert_int_equal(x86_decode(c->bytes, c->length, &in), 0);
	uint8_t out[X86_MAX_INSN_LENGTH + 8];
	memset(out, 0xcc, sizeof(out));
	unsigned len = x86_xlate_copy(out, out_va, c->bytes, &in, insn_va);
	bool reach = c->disp_at < 0 || reaches(c, insn_va, out_va);
	if (len != (reach ? c->length : 0u))
		fail_msg("%s at %#lx to %#lx: %u bytes, wanted %u", c->text, (unsigned long)insn_va,
			 (unsigned long)out_va, len, reach ? c->length : 0u);
	if (!len)
		return;
	for (unsigned i = len; i < sizeof(out); i++)
		assert_int_equal(out[i], 0xcc); /* nothing past it */
	for (unsigned i = 0; i < len; i++)
		if (c->disp_at < 0 || i < (unsigned)c->disp_at || i >= (unsigned)c->disp_at + 4u)
			if (out[i] != c->bytes[i])
				fail_msg("%s: byte %u changed", c->text, i);
	if (c->disp_at >= 0) {
		uint64_t at = out_va + len + (uint64_t)(int64_t)(int32_t)le32(out + c->disp_at);
		if (at != copy_target(c, insn_va))
			fail_msg("%s at %#lx to %#lx: reaches %#lx, the original %#lx", c->text,
				 (unsigned long)insn_va, (unsigned long)out_va, (unsigned long)at,
				 (unsigned long)copy_target(c, insn_va));
	}
	assert_int_equal(x86_decode(out, len, &out_in), 0);
	assert_int_equal(out_in.length, in.length);
	assert_int_equal(out_in.opcode_map, in.opcode_map);
	assert_int_equal(out_in.opcode, in.opcode);
	assert_int_equal(out_in.modrm, in.modrm);
	assert_int_equal(out_in.prefixes, in.prefixes);
	assert_int_equal(out_in.rip_relative, in.rip_relative);
	assert_int_equal(out_in.imm_size, in.imm_size);
	assert_int_equal(out_in.imm, in.imm);
	assert_int_equal(out_in.imm2, in.imm2);
	if (in.rip_relative)
		assert_int_equal(out_va + len + (uint64_t)(int64_t)out_in.disp,
				 insn_va + len + (uint64_t)(int64_t)in.disp);
	else
		assert_int_equal(out_in.disp, in.disp);
}

/* The cases' bytes mean what their text says (objdump), and the decoder agrees on the
 * length and on whether and where the operand is RIP-relative. */
static void copy_cases_are_what_they_say(void **state)
{
	(void)state;
	uint8_t all[NCOPIES * X86_MAX_INSN_LENGTH];
	size_t n = 0;
	for (size_t i = 0; i < NCOPIES; i++) {
		const struct copy_case *c = &copies[i];
		struct x86_insn in;
		assert_int_equal(x86_decode(c->bytes, c->length, &in), 0);
		assert_int_equal(in.length, c->length);
		assert_int_equal(in.rip_relative, c->disp_at >= 0);
		if (c->disp_at >= 0)
			assert_int_equal((uint32_t)in.disp, le32(c->bytes + c->disp_at));
		memcpy(all + n, c->bytes, c->length);
		n += c->length;
	}
	struct od_insn od[NCOPIES + 1];
	assert_int_equal(od_list(all, n, 0, 0, n, od, NCOPIES + 1), NCOPIES);
	for (size_t i = 0; i < NCOPIES; i++) {
		if (strcmp(od[i].text, copies[i].text) != 0 || od[i].len != copies[i].length)
			fail_msg("case %zu: objdump reads \"%s\" (%u bytes), the case says \"%s\"",
				 i, od[i].text, od[i].len, copies[i].text);
		assert_int_equal(od[i].has_ref, copies[i].disp_at >= 0);
	}
}

static void copies_reach_what_the_originals_reach(void **state)
{
	(void)state;
	static const int64_t deltas[] = {0,
					 16,
					 -16,
					 0x1000,
					 -0x1000,
					 0x40000000,
					 -0x40000000,
					 0x7fffff00,
					 -0x7fffff00,
					 0x80000000ll,
					 -0x80000000ll,
					 1ll << 32,
					 -(1ll << 32),
					 1ll << 44};
	const uint64_t bases[] = {0x401000, 0x7f0000401000, 0x100000000000 - 3};
	for (size_t i = 0; i < NCOPIES; i++) {
		const struct copy_case *c = &copies[i];
		for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
			uint64_t va = bases[b];
			for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++)
				if (va + (uint64_t)deltas[d] < (1ull << 47))
					check_copy(c, va, va + (uint64_t)deltas[d]);
			if (c->disp_at < 0)
				continue;
			/* the reach's two ends, exactly: new disp INT32_MAX and INT32_MIN */
			uint64_t t = copy_target(c, va) - c->length;
			check_copy(c, va, t - INT32_MAX);
			check_copy(c, va, t - INT32_MAX - 1);
			check_copy(c, va, t + 0x80000000ull);
			check_copy(c, va, t + 0x80000001ull);
			assert_int_equal(reaches(c, va, t - INT32_MAX - 1), false);
			assert_int_equal(reaches(c, va, t + 0x80000001ull), false);
			/* random places within 3 GiB */
			for (unsigned k = 0; k < 64; k++)
				check_copy(c, va, va + (rnd() % (6ull << 30)) - (3ull << 30));
		}
	}
}

/* objdump reads each copy as the original, displacement aside, reaching the same address
 * (its "# 0x..." comment). All cases back to back at a base, copied back to back at another. */
static void copies_match_objdump(void **state)
{
	(void)state;
	static const int64_t deltas[] = {0x40000000, -0x400000, 0x1234567, -0x3ffff001};
	const uint64_t va = 0x7f0000401000;
	uint8_t orig[NCOPIES * X86_MAX_INSN_LENGTH], copy[NCOPIES * X86_MAX_INSN_LENGTH];
	size_t n = 0;
	for (size_t i = 0; i < NCOPIES; i++) {
		memcpy(orig + n, copies[i].bytes, copies[i].length);
		n += copies[i].length;
	}
	struct od_insn od_orig[NCOPIES + 1], od_copy[NCOPIES + 1];
	assert_int_equal(od_list(orig, n, va, va, va + n, od_orig, NCOPIES + 1), NCOPIES);
	for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++) {
		uint64_t out_va = va + (uint64_t)deltas[d];
		bool copied[NCOPIES];
		size_t at = 0;
		for (size_t i = 0; i < NCOPIES; i++) {
			const struct copy_case *c = &copies[i];
			struct x86_insn in;
			assert_int_equal(x86_decode(c->bytes, c->length, &in), 0);
			unsigned len =
			    x86_xlate_copy(copy + at, out_va + at, c->bytes, &in, va + at);
			copied[i] = len != 0;
			/* out of reach (the extreme displacements): the original instead */
			if (!len)
				memcpy(copy + at, c->bytes, c->length);
			at += c->length;
		}
		assert_int_equal(od_list(copy, n, out_va, out_va, out_va + n, od_copy, NCOPIES + 1),
				 NCOPIES);
		for (size_t i = 0; i < NCOPIES; i++) {
			if (!copied[i])
				continue;
			char a[192], b[192];
			disp_as_d(od_orig[i].text, a, sizeof(a));
			disp_as_d(od_copy[i].text, b, sizeof(b));
			if (strcmp(a, b) != 0 || od_orig[i].len != od_copy[i].len ||
			    od_orig[i].has_ref != od_copy[i].has_ref ||
			    od_orig[i].ref != od_copy[i].ref)
				fail_msg(
				    "%s copied %+lld: objdump reads \"%s\" # %#lx, the original "
				    "\"%s\" # %#lx",
				    copies[i].text, (long long)deltas[d], od_copy[i].text,
				    (unsigned long)od_copy[i].ref, od_orig[i].text,
				    (unsigned long)od_orig[i].ref);
		}
	}
}

/* Case c as an original at the address from which displacement disp reaches target (it never
 * runs: only its address matters), copied to code and followed there by `tail`. */
static void place_copy(uint8_t *code, const struct copy_case *c, int32_t disp, uint64_t target,
		       const uint8_t *tail, size_t ntail)
{
	struct copy_case moved = *c;
	memcpy(moved.bytes + c->disp_at, &disp, 4);
	uint64_t insn_va = target - c->length - (uint64_t)(int64_t)disp;
	assert_int_equal(copy_target(&moved, insn_va), target);
	struct x86_insn in;
	assert_int_equal(x86_decode(moved.bytes, moved.length, &in), 0);
	assert_int_equal(x86_xlate_copy(code, va_of(code), moved.bytes, &in, insn_va), c->length);
	memcpy(code + c->length, tail, ntail);
}

static const struct copy_case *copy_named(const char *text)
{
	for (size_t i = 0; i < NCOPIES; i++)
		if (strcmp(copies[i].text, text) == 0)
			return &copies[i];
	fail_msg("no case %s", text);
	return NULL;
}

/* A random displacement: the extremes now and then. */
static int32_t random_disp(void)
{
	switch (rnd() % 8) {
	case 0:
		return INT32_MAX;
	case 1:
		return INT32_MIN;
	default:
		return (int32_t)rnd();
	}
}

/*
 * Copies run natively reach the original's operand, the original at random distances up to
 * 2 GiB from it (random displacements, the extremes among them). LEA (Vol. 2A "LEA": "computes
 * the effective address") gives the address itself, so its target can be anywhere within the
 * copy's reach; MOV loads a word of a data page; MOV imm32 stores the sign-extended immediate
 * after the displacement; CMP imm32 compares it with the word (ZF, and CF as SUB's borrow);
 * MOVSS loads it into XMM1 (read back with MOVD); VPSHUFD (with AVX) shuffles the dwords as
 * its immediate says.
 */
static void copies_run_natively(void **state)
{
	(void)state;
	uint8_t *pages = native_pages();
	if (!pages)
		return;
	uint8_t *code = pages + P_CODE * PAGE, *data = pages + P_DATA_HI * PAGE + 0x100;
	static const uint8_t ret[] = {OP_RET};
	static const uint8_t movd_xmm1_eax_ret[] = {0x66, 0x0f, 0x7e, 0xc8, OP_RET};  /* 66 0F 7E */
	static const uint8_t vmovd_xmm1_eax_ret[] = {0xc5, 0xf9, 0x7e, 0xc8, OP_RET}; /* VEX 7E */
	const bool avx = __builtin_cpu_supports("avx");
	/* LEA into RAX (ModRM reg 000) to read it back */
	struct copy_case lea = *copy_named("lea -0x20(%rip),%rdi");
	lea.bytes[2] = 0x05;
	for (unsigned i = 0; i < 400; i++) {
		struct native_regs r = {random_reg(), random_reg(), random_reg(), FLAGS_FIXED1};
		uint64_t target = va_of(code) + lea.length + (uint64_t)(int64_t)random_disp();
		place_copy(code, &lea, random_disp(), target, ret, 1);
		run_native(code, &r);
		assert_int_equal(r.rax, target);

		uint64_t word = rnd();
		set_data_word(data, 0, word);
		place_copy(code, copy_named("mov 0x1234(%rip),%rax"), random_disp(), va_of(data),
			   ret, 1);
		run_native(code, &r);
		assert_int_equal(r.rax, word);

		struct copy_case movq = *copy_named("movq $0xffffffffffffffff,0x10(%rip)");
		uint32_t imm = (uint32_t)rnd();
		memcpy(movq.bytes + 7, &imm, 4);
		place_copy(code, &movq, random_disp(), va_of(data) + 8, ret, 1);
		run_native(code, &r);
		assert_int_equal(data_word(data, 8), (uint64_t)(int64_t)(int32_t)imm);

		struct copy_case cmpl = *copy_named("cmpl $0x11223344,0x100(%rip)");
		uint32_t w32 = (uint32_t)word, i32 = rnd() & 1 ? w32 : (uint32_t)rnd();
		memcpy(cmpl.bytes + 6, &i32, 4);
		place_copy(code, &cmpl, random_disp(), va_of(data), ret, 1);
		r.rflags = FLAGS_FIXED1;
		run_native(code, &r);
		assert_int_equal(!!(r.rflags & FLAG_ZF), w32 == i32);
		assert_int_equal(!!(r.rflags & FLAG_CF), w32 < i32);

		place_copy(code, copy_named("movss 0x80(%rip),%xmm1"), random_disp(), va_of(data),
			   movd_xmm1_eax_ret, sizeof(movd_xmm1_eax_ret));
		run_native(code, &r);
		assert_int_equal(r.rax, (uint32_t)word);

		if (avx) {
			uint32_t dw[4] = {(uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd(),
					  (uint32_t)rnd()};
			memcpy(data + 16, dw, sizeof(dw));
			/* imm8 1B: destination dword 0 from source dword 3 (bits 1:0 = 3) */
			place_copy(code, copy_named("vpshufd $0x1b,0x20(%rip),%xmm1"),
				   random_disp(), va_of(data) + 16, vmovd_xmm1_eax_ret,
				   sizeof(vmovd_xmm1_eax_ret));
			run_native(code, &r);
			assert_int_equal(r.rax, dw[3]);
		}
	}
	if (!avx)
		print_message("# no AVX here: the VEX copy not run\n");
	munmap(pages, NPAGES * PAGE);
}

/* ---- Jcc ----------------------------------------------------------------------------------- */

/* SDM Vol. 2A "Jcc", 0F 80+cc, one mnemonic per condition as objdump names it. */
static const char *const jcc_names[16] = {"jo", "jno", "jb", "jae", "je", "jne", "jbe", "ja",
					  "js", "jns", "jp", "jnp", "jl", "jge", "jle", "jg"};

/* Every condition, to targets near and at the ends of the reach: 0F 80+cc cd, six bytes,
 * the target relative to the next instruction; objdump names the condition and the target. */
static void jcc_keeps_condition_and_target(void **state)
{
	(void)state;
	const uint64_t va = 0x7f0000401000;
	uint8_t code[16 * XLATE_JCC_LEN];
	uint64_t targets[16];
	for (unsigned cc = 0; cc < 16; cc++) {
		uint64_t at = va + cc * XLATE_JCC_LEN, next = at + XLATE_JCC_LEN;
		static const int64_t rel[] = {0,	 -XLATE_JCC_LEN, 0x7f,	      -0x80,
					      0x80,	 0x12345678,	 -0x1234567,  INT32_MAX,
					      INT32_MIN, 0x100,		 -0x100,      1,
					      -1,	 0x7ffffff0,	 -0x7ffffff0, 0x4000};
		targets[cc] = next + (uint64_t)rel[cc];
		uint8_t *p = code + cc * XLATE_JCC_LEN;
		assert_int_equal(x86_xlate_jcc(p, at, cc, targets[cc]), XLATE_JCC_LEN);
		struct x86_insn in;
		assert_int_equal(x86_decode(p, XLATE_JCC_LEN, &in), 0);
		assert_int_equal(in.length, XLATE_JCC_LEN);
		assert_int_equal(in.branch, X86_BR_JCC);
		assert_int_equal(in.opcode_map, X86_MAP_0F);
		assert_int_equal(in.opcode, 0x80 | cc);
		assert_int_equal(x86_branch_target(&in, at), targets[cc]);
		unsigned got;
		assert_true(x86_xlate_jcc_cond(&in, &got));
		assert_int_equal(got, cc);
		/* one past each end of the reach */
		assert_int_equal(x86_xlate_jcc(p, at, cc, next + INT32_MAX + 1), 0);
		assert_int_equal(x86_xlate_jcc(p, at, cc, next - 0x80000001ull), 0);
		assert_int_equal(x86_xlate_jcc(p, at, cc, next + (1ull << 40)), 0);
		assert_int_equal(x86_xlate_jcc(p, at, cc, targets[cc]), XLATE_JCC_LEN);
	}
	struct od_insn od[17];
	assert_int_equal(od_list(code, sizeof(code), va, va, va + sizeof(code), od, 17), 16);
	for (unsigned cc = 0; cc < 16; cc++) {
		char want[64];
		snprintf(want, sizeof(want), "%s 0x%llx", jcc_names[cc],
			 (unsigned long long)targets[cc]);
		if (strcmp(od[cc].text, want) != 0 || od[cc].len != XLATE_JCC_LEN)
			fail_msg("cc %u: objdump \"%s\", wanted \"%s\"", cc, od[cc].text, want);
	}
}

/* Each condition on the host CPU over every combination of CF, PF, ZF, SF, OF: taken exactly
 * where the SDM's table says. */
static void jcc_runs_as_the_sdm_says(void **state)
{
	(void)state;
	uint8_t *pages = native_pages();
	if (!pages)
		return;
	uint8_t *code = pages + P_CODE * PAGE;
	/* not taken: MOV EAX, 0 (B8 id); RET. Taken: MOV EAX, 1; RET. MOV affects no flag. */
	static const uint8_t not_taken[] = {0xb8, 0, 0, 0, 0, OP_RET};
	static const uint8_t taken[] = {0xb8, 1, 0, 0, 0, OP_RET};
	static const uint64_t bits[] = {FLAG_CF, FLAG_PF, FLAG_ZF, FLAG_SF, FLAG_OF};
	for (int dir = 0; dir < 2; dir++) {
		/* a forward jump, and a backward one */
		uint8_t *jcc = code + (dir ? 0x800 : 0), *to = code + (dir ? 0x100 : 0x900);
		memcpy(to, taken, sizeof(taken));
		memcpy(jcc + XLATE_JCC_LEN, not_taken, sizeof(not_taken));
		for (unsigned cc = 0; cc < 16; cc++) {
			assert_int_equal(x86_xlate_jcc(jcc, va_of(jcc), cc, va_of(to)),
					 XLATE_JCC_LEN);
			for (unsigned m = 0; m < 32; m++) {
				struct native_regs r = {~0ull, 0, 0, FLAGS_FIXED1};
				for (unsigned b = 0; b < 5; b++)
					if (m & (1u << b))
						r.rflags |= bits[b];
				uint64_t f = r.rflags;
				run_native(jcc, &r);
				if (r.rax != sdm_condition(cc, f))
					fail_msg("%s with flags %#lx: %s", jcc_names[cc],
						 (unsigned long)f, r.rax ? "taken" : "not taken");
			}
		}
	}
	munmap(pages, NPAGES * PAGE);
}

struct cond_case {
	const char *text;
	uint8_t bytes[8];
	uint8_t length;
	enum x86_mode mode;
	bool ends; /* x86_xlate_jcc_cond: true */
	unsigned cc;
};

/* Jcc rel8 (70+cc cb) and rel32 (0F 80+cc cd) in 64-bit code are taken, with their
 * condition; other branches are not, nor a Jcc in 32-bit code (the stubs are 64-bit code),
 * nor one with 66H (Vol. 2A "Jcc": the rel16 forms are N.S. in 64-bit mode, where Intel
 * ignores 66H and AMD truncates the target to 16 bits: the bytes do not say which runs). */
static void jcc_cond_takes_jcc_only(void **state)
{
	(void)state;
	static const struct cond_case cases[] = {
	    {"je rel8", {0x74, 0x10}, 2, X86_MODE_64, true, 4},
	    {"jo rel8", {0x70, 0xfe}, 2, X86_MODE_64, true, 0},
	    {"jg rel8", {0x7f, 0x00}, 2, X86_MODE_64, true, 0xf},
	    {"jne rel32", {0x0f, 0x85, 0x10, 0, 0, 0}, 6, X86_MODE_64, true, 5},
	    {"jb rel32", {0x0f, 0x82, 0, 0, 0, 0x80}, 6, X86_MODE_64, true, 2},
	    {"jle rel32", {0x0f, 0x8e, 0xff, 0xff, 0xff, 0xff}, 6, X86_MODE_64, true, 0xe},
	    /* a branch hint (3E: "branch taken", Vol. 2A 2.1.1) and a REX.W that does nothing */
	    {"ds je rel8", {0x3e, 0x74, 0x10}, 3, X86_MODE_64, true, 4},
	    {"rex.w jl rel32", {0x48, 0x0f, 0x8c, 0x10, 0, 0, 0}, 7, X86_MODE_64, true, 0xc},
	    {"data16 je rel8", {0x66, 0x74, 0x10}, 3, X86_MODE_64, false, 0},
	    {"jmp rel8", {0xeb, 0x10}, 2, X86_MODE_64, false, 0},
	    {"jmp rel32", {0xe9, 0x10, 0, 0, 0}, 5, X86_MODE_64, false, 0},
	    {"call rel32", {0xe8, 0x10, 0, 0, 0}, 5, X86_MODE_64, false, 0},
	    {"jrcxz", {0xe3, 0x10}, 2, X86_MODE_64, false, 0},
	    {"loop", {0xe2, 0x10}, 2, X86_MODE_64, false, 0},
	    {"ret", {0xc3}, 1, X86_MODE_64, false, 0},
	    {"jmp *%rax", {0xff, 0xe0}, 2, X86_MODE_64, false, 0},
	    {"syscall", {0x0f, 0x05}, 2, X86_MODE_64, false, 0},
	    {"nop", {0x90}, 1, X86_MODE_64, false, 0},
	    {"je rel8, 32-bit code", {0x74, 0x10}, 2, X86_MODE_32, false, 0},
	    {"jne rel32, 32-bit code", {0x0f, 0x85, 0x10, 0, 0, 0}, 6, X86_MODE_32, false, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cond_case *c = &cases[i];
		struct x86_insn in;
		assert_int_equal(x86_decode_mode(c->bytes, c->length, c->mode, &in), 0);
		assert_int_equal(in.length, c->length);
		unsigned cc = 99;
		bool ends = x86_xlate_jcc_cond(&in, &cc);
		if (ends != c->ends || (ends && cc != c->cc))
			fail_msg("%s: %d (cc %u), wanted %d (cc %u)", c->text, ends, cc, c->ends,
				 c->cc);
	}
	/* every condition, both forms */
	for (unsigned cc = 0; cc < 16; cc++) {
		const uint8_t rel8[] = {(uint8_t)(0x70 | cc), 0x10};
		const uint8_t rel32[] = {0x0f, (uint8_t)(0x80 | cc), 0x10, 0, 0, 0};
		struct x86_insn in;
		unsigned got = 99;
		assert_int_equal(x86_decode(rel8, sizeof(rel8), &in), 0);
		assert_true(x86_xlate_jcc_cond(&in, &got));
		assert_int_equal(got, cc);
		got = 99;
		assert_int_equal(x86_decode(rel32, sizeof(rel32), &in), 0);
		assert_true(x86_xlate_jcc_cond(&in, &got));
		assert_int_equal(got, cc);
	}
}

/* ---- PUSH imm32 ---------------------------------------------------------------------------- */

/* PUSH imm32 (68 id) pushes the immediate sign-extended to 64 bits (Vol. 2B "PUSH": "If the
 * source operand is an immediate of size less than the operand size, a sign-extended value is
 * pushed"): the values that survive that are emitted, the others refused. */
static void push_sign_extends(void **state)
{
	(void)state;
	static const uint64_t fit[] = {0,
				       1,
				       0x401000,
				       0x7ffffffe,
				       0x7fffffff,
				       0xffffffff80000000ull,
				       0xffffffff80000001ull,
				       0xfffffffffffff000ull,
				       ~0ull};
	static const uint64_t unfit[] = {
	    0x80000000ull,     0xffffffffull,	      0x100000000ull,	     0x7fff00000000ull,
	    0x7f0000401000ull, 0x8000000000000000ull, 0xffffffff7fffffffull, 0xfffffffe80000000ull};
	const size_t nfit = sizeof(fit) / sizeof(fit[0]);
	uint8_t code[sizeof(fit) / sizeof(fit[0]) * XLATE_PUSH_LEN];
	for (size_t i = 0; i < nfit; i++) {
		uint8_t *p = code + i * XLATE_PUSH_LEN;
		assert_int_equal(x86_xlate_push(p, fit[i]), XLATE_PUSH_LEN);
		assert_int_equal(p[0], OP_PUSH_IMM32);
		struct x86_insn in;
		assert_int_equal(x86_decode(p, XLATE_PUSH_LEN, &in), 0);
		assert_int_equal(in.length, XLATE_PUSH_LEN);
		assert_int_equal(in.opcode, OP_PUSH_IMM32);
		assert_int_equal(in.imm_size, 4);
		assert_int_equal((uint64_t)x86_imm_signed(&in), fit[i]);
	}
	for (size_t i = 0; i < sizeof(unfit) / sizeof(unfit[0]); i++) {
		uint8_t p[XLATE_PUSH_LEN + 1] = {0};
		assert_int_equal(x86_xlate_push(p, unfit[i]), 0);
	}
	/* objdump prints the 64-bit value pushed */
	struct od_insn od[16];
	const uint64_t va = 0x401000;
	assert_int_equal(od_list(code, sizeof(code), va, va, va + sizeof(code), od, 16), nfit);
	for (size_t i = 0; i < nfit; i++) {
		char want[64];
		snprintf(want, sizeof(want), "push $0x%llx", (unsigned long long)fit[i]);
		if (strcmp(od[i].text, want) != 0)
			fail_msg("objdump \"%s\", wanted \"%s\"", od[i].text, want);
	}
	/* the host CPU: PUSH imm32; POP RAX (58); RET */
	uint8_t *pages = native_pages();
	if (!pages)
		return;
	uint8_t *run = pages + P_CODE * PAGE;
	for (size_t i = 0; i < nfit + 200; i++) {
		uint64_t v = i < nfit ? fit[i] : (uint64_t)(int64_t)(int32_t)rnd();
		assert_int_equal(x86_xlate_push(run, v), XLATE_PUSH_LEN);
		run[XLATE_PUSH_LEN] = 0x58;
		run[XLATE_PUSH_LEN + 1] = OP_RET;
		struct native_regs r = {0, 0, 0, FLAGS_FIXED1};
		run_native(run, &r);
		assert_int_equal(r.rax, v);
	}
	munmap(pages, NPAGES * PAGE);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(stub_matches_objdump_and_the_decoder),
    cmocka_unit_test(stub_reach_is_exact),
    cmocka_unit_test(stub_runs_natively_leaving_registers_and_flags),
    cmocka_unit_test(linked_stubs_log_in_turn),
    cmocka_unit_test(stub_states_hold_on_the_cpu),
    cmocka_unit_test(copy_cases_are_what_they_say),
    cmocka_unit_test(copies_reach_what_the_originals_reach),
    cmocka_unit_test(copies_match_objdump),
    cmocka_unit_test(copies_run_natively),
    cmocka_unit_test(jcc_keeps_condition_and_target),
    cmocka_unit_test(jcc_runs_as_the_sdm_says),
    cmocka_unit_test(jcc_cond_takes_jcc_only),
    cmocka_unit_test(push_sign_extends),
};

UNIT_MAIN(tests)
