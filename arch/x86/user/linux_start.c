/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's initial stack, laid out as Linux's exec does (fs/exec.c and
 * fs/binfmt_elf.c create_elf_tables): from the top, an 8-byte zero, the file name (AT_EXECFN),
 * the environment strings, the argument strings; below them, 16-byte aligned, the platform
 * string "x86_64" and AT_RANDOM's 16 bytes; then, 16-byte aligned at RSP, argc, argv[] and
 * NULL, envp[] and NULL, and the auxiliary vector ending in AT_NULL (AT_MINSIGSTKSZ first, as
 * Linux's ARCH_DLINFO puts it; no AT_SYSINFO_EHDR: there is no vDSO). Built in a kernel buffer
 * and copied to the program's stack before each run (not traced).
 */
#include "arch/x86/user/linux_abi.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/hw/cpuid.h"
#include "kernel/arch_user.h"
#include "lib/elf_user.h"
#include "lib/string.h"

#define START_MAX  8192 /* bytes of strings, pointers and auxv */
#define PHDR_SIZE  56	/* Elf64_Phdr */
#define CLK_TCK	   100	/* USER_HZ */
#define PTR	   sizeof(uint64_t)
#define AUXV_PAIRS 21

/*
 * AT_MINSIGSTKSZ as Linux x86 gives it (arch/x86/include/asm/elf.h ARCH_DLINFO, first in the
 * vector; arch/x86/kernel/signal.c init_sigframe_size): the largest signal frame (struct
 * sigframe_ia32 with IA32 emulation, Debian's config: 732 bytes) + 15 bytes of alignment + the
 * FPU state's size (arch/x86/kernel/fpu/xstate.c fpu__get_fpstate_size: the XSAVE area for the
 * enabled features, CPUID.(EAX=0DH,ECX=0):EBX, + FP_XSTATE_MAGIC2's 4 bytes, + struct
 * fregs_state's 112 for 32-bit programs; FXSAVE's 512 without XSAVE) + 63 of XSAVE alignment,
 * rounded up to 16.
 */
#define SIGFRAME_IA32	 732
#define FRAME_PADDING	 15
#define XSAVE_PADDING	 63
#define MAGIC2_SIZE	 4
#define FREGS_STATE_SIZE 112
#define FXSAVE_SIZE	 512
#define FRAME_ALIGNMENT	 16

static uint64_t min_sigstack_size(void)
{
	uint64_t fpu = usermode_xcr0 ? cpuid(CPUID_LEAF_XSAVE, 0).ebx + MAGIC2_SIZE : FXSAVE_SIZE;
	uint64_t size = SIGFRAME_IA32 + FRAME_PADDING + fpu + FREGS_STATE_SIZE + XSAVE_PADDING;
	return (size + FRAME_ALIGNMENT - 1) & ~(uint64_t)(FRAME_ALIGNMENT - 1);
}

static uint8_t image[START_MAX];

struct builder {
	uint64_t top, at; /* user addresses: image[k] is at top - START_MAX + k */
	bool full;
};

static uint64_t push_bytes(struct builder *b, const void *p, uint64_t n)
{
	if (b->full || n > b->at - (b->top - START_MAX)) {
		b->full = true;
		return 0;
	}
	b->at -= n;
	memcpy(image + (b->at - (b->top - START_MAX)), p, n);
	return b->at;
}

static uint64_t push_str(struct builder *b, const char *s)
{
	return push_bytes(b, s, strlen(s) + 1);
}

/* AT_PHDR: where the program headers are in memory (the PT_LOAD holding e_phoff). */
static uint64_t phdr_address(const struct elf_user_image *img)
{
	uint64_t phoff;
	memcpy(&phoff, img->elf.data + 32, sizeof(phoff)); /* Elf64_Ehdr.e_phoff */
	for (unsigned i = 0; i < img->n; i++) {
		const struct elf_user_segment *s = &img->seg[i];
		if (phoff >= s->offset && phoff - s->offset < s->filesz)
			return s->vaddr + (phoff - s->offset);
	}
	return 0;
}

static unsigned auxv(const struct linux_start *s, uint64_t execfn, uint64_t platform,
		     uint64_t random, uint64_t *v)
{
	uint64_t phnum = 0;
	memcpy(&phnum, s->img->elf.data + 56, 2); /* Elf64_Ehdr.e_phnum */
	const uint64_t pairs[][2] = {
	    {LNX_AT_MINSIGSTKSZ, min_sigstack_size()},
	    {LNX_AT_HWCAP, cpuid(CPUID_LEAF_VERSION, 0).edx}, /* x86's ELF_HWCAP */
	    {LNX_AT_PAGESZ, LNX_PAGE},
	    {LNX_AT_CLKTCK, CLK_TCK},
	    {LNX_AT_PHDR, phdr_address(s->img)},
	    {LNX_AT_PHENT, PHDR_SIZE},
	    {LNX_AT_PHNUM, phnum},
	    {LNX_AT_BASE, 0},
	    {LNX_AT_FLAGS, 0},
	    {LNX_AT_ENTRY, s->img->entry},
	    {LNX_AT_UID, 0},
	    {LNX_AT_EUID, 0},
	    {LNX_AT_GID, 0},
	    {LNX_AT_EGID, 0},
	    {LNX_AT_SECURE, 0},
	    {LNX_AT_RANDOM, random},
	    {LNX_AT_HWCAP2, 0}, /* no ring 3 MONITOR/MWAIT, no FSGSBASE */
	    {LNX_AT_EXECFN, execfn},
	    {LNX_AT_PLATFORM, platform},
	    {LNX_AT_NULL, 0},
	};
	unsigned n = sizeof(pairs) / sizeof(pairs[0]);
	for (unsigned i = 0; i < n; i++) {
		v[2 * i] = pairs[i][0];
		v[2 * i + 1] = pairs[i][1];
	}
	return 2 * n;
}

uint64_t arch_user_linux_start(const struct linux_start *s)
{
	struct builder b = {s->stack_top, s->stack_top, false};
	memset(image, 0, sizeof(image));
	uint64_t zero = 0, argp[64], envp[64], v[2 * AUXV_PAIRS];
	if (s->argc > 64 || s->envc > 64 || s->room < START_MAX)
		return 0;
	push_bytes(&b, &zero, PTR);
	uint64_t execfn = push_str(&b, s->execfn);
	for (unsigned i = s->envc; i-- > 0;)
		envp[i] = push_str(&b, s->envp[i]);
	for (unsigned i = s->argc; i-- > 0;)
		argp[i] = push_str(&b, s->argv[i]);
	b.at &= ~15ull;
	uint64_t platform = push_str(&b, "x86_64");
	uint64_t random = push_bytes(&b, s->random, sizeof(s->random));
	unsigned nv = auxv(s, execfn, platform, random, v);
	uint64_t items = 1 + s->argc + 1 + s->envc + 1 + nv;
	b.at = (b.at - items * PTR) & ~15ull; /* Linux's STACK_ROUND */
	uint64_t rsp = b.at;
	uint64_t word[1 + 64 + 1 + 64 + 1 + 2 * AUXV_PAIRS], k = 0;
	word[k++] = s->argc;
	for (unsigned i = 0; i < s->argc; i++)
		word[k++] = argp[i];
	word[k++] = 0;
	for (unsigned i = 0; i < s->envc; i++)
		word[k++] = envp[i];
	word[k++] = 0;
	for (unsigned i = 0; i < nv; i++)
		word[k++] = v[i];
	if (b.full || b.at < s->stack_top - START_MAX)
		return 0;
	memcpy(image + (rsp - (s->stack_top - START_MAX)), word, k * PTR);
	if (!arch_user_copy_out(s->stack_top - START_MAX, image, START_MAX))
		return 0;
	return rsp;
}

static const char *const syscall_names[LNX_SYSCALL_TABLE_SIZE] = {
#include "linux_syscall_names.h" /* generated: $(BUILD)/gen, from asm/unistd_64.h */
};

const char *arch_linux_syscall_name(uint64_t nr)
{
	return nr < LNX_SYSCALL_TABLE_SIZE ? syscall_names[nr] : NULL;
}
