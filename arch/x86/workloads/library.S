/* SPDX-License-Identifier: MIT */
/*
 * The workload library: small workloads in assembly, so that what they retire and which
 * branches they take follow from this source alone, with no compiler in between. Each one's
 * branch signature (arch/x86/workloads/library.c) counts, from the comments here, the taken
 * branches whose FROM lies in [arch_wl_NAME, arch_wl_NAME_end) by class, and its retired instructions
 * from its first instruction to its final RET; the sessions check their captures against it
 * (arch/x86/session/selfcheck.c), on the software PMU and on silicon alike. Each counting
 * comment says "taken k" for a branch taken k times in a run with argument n.
 * All in .text.workload (QEMU's execution log covers it: tests/qemu/selfcheck.t checks the
 * signatures themselves against it).
 */
#define LCG_SEED 0x853c49e6748fea9bull
#define LCG_MUL	 6364136223846793005 /* Knuth's MMIX LCG (TAOCP Vol. 2, 3.3.4) */
#define LCG_INC	 1442695040888963407
#define FNV_OFFSET 0xcbf29ce484222325 /* FNV-1a 64 (Fowler, Noll, Vo; IETF draft-eastlake-fnv) */
#define FNV_PRIME  0x100000001b3
#define CHASE_LINE  64			/* one node per cache line */
#define CHASE_SPRAY 0x9e37		/* odd: k -> k * SPRAY mod 2^m visits every slot */

	.section .text.workload, "ax"
	.globl arch_wl_countdown, arch_wl_countdown_end, arch_wl_nest, arch_wl_nest_end, arch_wl_switch
	.globl arch_wl_switch_end, arch_wl_recursion, arch_wl_recursion_end, arch_wl_sort, arch_wl_sort_end
	.globl arch_wl_sort_data
	.globl arch_wl_alias, arch_wl_alias_end, arch_wl_alias_call, arch_wl_alias_f
	.globl arch_wl_loop, arch_wl_loop_end, arch_wl_calls, arch_wl_calls_end
	.globl arch_wl_indirect, arch_wl_indirect_end, arch_wl_hash, arch_wl_hash_end
	.globl arch_wl_chase, arch_wl_chase_end, arch_wl_chase_nodes

/* hash(n, 1 <= n): FNV-1a over n bytes (the top byte of each LCG step, library.S's sort
 * generator), counting the odd intermediate hashes; returns the hash XOR that count. The JZ
 * ("even") is taken for each even intermediate hash: library.c counts them the same way.
 * 7 + 11n + (odd hashes: one INC each) + 3 instructions. */
arch_wl_hash:
	movabsq $LCG_SEED, %rax
	movabsq $LCG_MUL, %r9
	movabsq $LCG_INC, %r10
	movabsq $FNV_OFFSET, %rdx
	movabsq $FNV_PRIME, %r11
	xorl %ecx, %ecx
	xorl %esi, %esi
1:	imulq %r9, %rax
	addq %r10, %rax
	movq %rax, %r8
	shrq $56, %r8
	xorq %r8, %rdx
	imulq %r11, %rdx
	testb $1, %dl
	jz 2f				/* cond: "even" */
	incq %rsi
2:	incq %rcx
	cmpq %rdi, %rcx
	jb 1b				/* cond: taken n - 1 */
	movq %rdx, %rax
	xorq %rsi, %rax
	ret				/* ret: 1 */
arch_wl_hash_end:

/* chase(n, a power of two, 2 <= n <= WL_CHASE_MAX): a pointer-chasing walk over a working set
 * of n nodes of one cache line each: node k sits in slot k * SPRAY mod n and points at node
 * k + 1 (mod n), so the walk's loads jump across the set; one hop per node, each load's address
 * the previous load's result. Returns 0 + 1 + ... + n-1. Linking: 4 + 14n instructions; the
 * walk: 3 + 4n; 1 for the RET: 18n + 8. */
arch_wl_chase:
	leaq arch_wl_chase_nodes(%rip), %r8
	leaq -1(%rdi), %r9		/* the slot mask, n - 1 */
	xorl %ecx, %ecx			/* k */
	movl $CHASE_SPRAY, %r10d
1:	movq %rcx, %rax
	imulq %r10, %rax
	andq %r9, %rax			/* slot of k */
	leaq 1(%rcx), %rdx
	imulq %r10, %rdx
	andq %r9, %rdx			/* slot of k + 1 (mod n: the mask) */
	shlq $6, %rax
	shlq $6, %rdx
	leaq (%r8,%rdx), %rdx
	movq %rdx, (%r8,%rax)		/* node k: next */
	movq %rcx, 8(%r8,%rax)		/* node k: value */
	incq %rcx
	cmpq %rdi, %rcx
	jb 1b				/* cond: taken n - 1 */
	xorl %eax, %eax
	movq %r8, %rdx			/* node 0 is in slot 0 */
	movq %rdi, %rcx
2:	addq 8(%rdx), %rax		/* a load whose address the last load gave */
	movq (%rdx), %rdx
	decq %rcx
	jnz 2b				/* cond: taken n - 1 */
	ret				/* ret: 1 */
arch_wl_chase_end:

/* loop(n >= 1), workload "loop": 0 + 1 + ... + n-1. 2 + 4n + 1 instructions. */
arch_wl_loop:
	xorl %eax, %eax
	xorl %ecx, %ecx
1:	addq %rcx, %rax
	incq %rcx
	cmpq %rdi, %rcx
	jb 1b				/* cond: taken n - 1 */
	ret				/* ret: 1 */
arch_wl_loop_end:

/* calls(n >= 1), workload "calls": the sum over i < n of middle(i) = leaf(i) + leaf(i + 1),
 * leaf(x) = 3x + 1, three deep. 6 + 6n (mov, call, add, inc, cmp, jb) + 9n (middle) + 4n (two
 * leaves) + 5 = 19n + 11 instructions. */
arch_wl_calls:
	pushq %rbx
	pushq %r12
	pushq %r13
	movq %rdi, %r13
	xorl %ebx, %ebx
	xorl %r12d, %r12d
1:	movq %rbx, %rdi
	call arch_wl_calls_middle	/* call: n */
	addq %rax, %r12
	incq %rbx
	cmpq %r13, %rbx
	jb 1b				/* cond: taken n - 1 */
	movq %r12, %rax
	popq %r13
	popq %r12
	popq %rbx
	ret				/* ret: 1 */
arch_wl_calls_middle:
	pushq %rdi
	call arch_wl_calls_leaf		/* call: n */
	popq %rdi
	pushq %rax
	incq %rdi
	call arch_wl_calls_leaf		/* call: n */
	popq %rdx
	addq %rdx, %rax
	ret				/* ret: n */
arch_wl_calls_leaf:
	leaq 1(%rdi,%rdi,2), %rax
	ret				/* ret: 2n */
arch_wl_calls_end:

/* indirect(n >= 1), workload "indirect": v = 1, then n times v = op[i % 3](v) & 0xffff, the
 * ops adding 7, XORing 0x55, doubling, each called through a table. 6 + 11n + the ops (add 2,
 * xor 3, shl 2 instructions; i % 3 == 0 for ceil(n/3) of the i, == 1 for floor((n+1)/3), == 2
 * for floor(n/3)) + 5. */
arch_wl_indirect:
	pushq %rbx
	pushq %r12
	pushq %r13
	movq %rdi, %r13
	xorl %ebx, %ebx
	movl $1, %r12d
1:	movq %rbx, %rax
	xorl %edx, %edx
	movl $3, %ecx
	divq %rcx			/* RDX = i % 3 */
	leaq arch_wl_indirect_ops(%rip), %rax
	movq %r12, %rdi
	call *(%rax,%rdx,8)		/* ind_call: n */
	movzwl %ax, %r12d
	incq %rbx
	cmpq %r13, %rbx
	jb 1b				/* cond: taken n - 1 */
	movq %r12, %rax
	popq %r13
	popq %r12
	popq %rbx
	ret				/* ret: 1 */
arch_wl_indirect_add:
	leaq 7(%rdi), %rax
	ret				/* ret: with the other two, n */
arch_wl_indirect_xor:
	movq %rdi, %rax
	xorq $0x55, %rax
	ret
arch_wl_indirect_shl:
	leaq (%rdi,%rdi), %rax
	ret
arch_wl_indirect_end:

/* countdown(n >= 1): n + (n-1) + ... + 1. 2 + 3n + 1 instructions. */
arch_wl_countdown:
	xorl %eax, %eax
	movq %rdi, %rcx
1:	addq %rcx, %rax
	decq %rcx
	jnz 1b				/* cond: taken n - 1 */
	ret				/* ret: 1 */
arch_wl_countdown_end:

/* nest(n >= 1): n times a call to a function that calls a leaf twice: 6n.
 * 3 + n * (call, dec, jnz) + n * (call, call, ret) + 2n * (add, ret) + 2 = 10n + 5. */
arch_wl_nest:
	pushq %rbx
	movq %rdi, %rbx
	xorl %eax, %eax
1:	call arch_wl_nest_middle		/* call: n */
	decq %rbx
	jnz 1b				/* cond: taken n - 1 */
	popq %rbx
	ret				/* ret: 1 */
arch_wl_nest_middle:
	call arch_wl_nest_leaf		/* call: n */
	call arch_wl_nest_leaf		/* call: n */
	ret				/* ret: n */
arch_wl_nest_leaf:
	addq $3, %rax
	ret				/* ret: 2n */
arch_wl_nest_end:

/* switch(n >= 1): a jump table on i % 4 for i = 0 .. n-1, case c adds c + 1. Cases 0-2 end
 * with a JMP to the loop's tail, case 3 falls into it: floor(n / 4) of the n iterations
 * (i = 3, 7, ...) take no JMP. 2 + 4n (mov, and, lea, jmp*) + 2 * (n - floor(n/4)) +
 * floor(n/4) (the cases) + 3n (inc, cmp, jb) + 1 = 9n - floor(n/4) + 3 instructions. */
arch_wl_switch:
	xorl %eax, %eax
	xorl %ecx, %ecx
1:	movl %ecx, %edx
	andl $3, %edx
	leaq arch_wl_switch_table(%rip), %r8
	jmp *(%r8,%rdx,8)		/* ind_jmp: n */
arch_wl_switch_case0:
	addq $1, %rax
	jmp 2f				/* jmp: the iterations with i % 4 == 0 */
arch_wl_switch_case1:
	addq $2, %rax
	jmp 2f				/* jmp: i % 4 == 1 */
arch_wl_switch_case2:
	addq $3, %rax
	jmp 2f				/* jmp: i % 4 == 2 */
arch_wl_switch_case3:
	addq $4, %rax			/* falls through */
2:	incq %rcx
	cmpq %rdi, %rcx
	jb 1b				/* cond: taken n - 1 */
	ret				/* ret: 1 */
arch_wl_switch_end:

/* recursion(d >= 0): d levels of a self-call, returns d. Each of the d levels: test, jz (not
 * taken), push, lea, call, pop, inc, ret; the last: test, jz (taken), xor, ret: 8d + 4. */
arch_wl_recursion:
	testq %rdi, %rdi
	jz 1f				/* cond: taken 1 (at depth 0) */
	pushq %rdi
	leaq -1(%rdi), %rdi
	call arch_wl_recursion		/* call: d */
	popq %rdi
	incq %rax
	ret				/* ret: d */
1:	xorl %eax, %eax
	ret				/* ret: 1 */
arch_wl_recursion_end:

/* sort(n, 1 <= n <= WL_SORT_MAX): n values from an LCG (x = x * MUL + INC from SEED, value
 * x >> 33), insertion sort, result sum of value[i] * (i + 1) over the sorted values. The
 * taken counts depend on the data: arch/x86/workloads/library.c runs the same steps in C and
 * counts them (each comment names its counter there). */
arch_wl_sort:
	leaq arch_wl_sort_data(%rip), %r8
	movabsq $LCG_SEED, %rax
	movabsq $LCG_MUL, %r9
	movabsq $LCG_INC, %r10
	xorl %ecx, %ecx
1:	imulq %r9, %rax			/* generate: 8 per value */
	addq %r10, %rax
	movq %rax, %rdx
	shrq $33, %rdx
	movq %rdx, (%r8,%rcx,8)
	incq %rcx
	cmpq %rdi, %rcx
	jb 1b				/* cond: taken n - 1 */
	movl $1, %ecx
	cmpq %rdi, %rcx
	jae 5f				/* cond: taken 1 when n == 1 */
2:	movq (%r8,%rcx,8), %rdx		/* key = value[i] */
	movq %rcx, %rsi			/* j = i */
3:	testq %rsi, %rsi
	jz 4f				/* cond: "stop_at_0", j reached 0 */
	movq -8(%r8,%rsi,8), %r11
	cmpq %rdx, %r11
	jbe 4f				/* cond: "stop_le", value[j - 1] <= key */
	movq %r11, (%r8,%rsi,8)
	decq %rsi
	jmp 3b				/* jmp: "shifts" */
4:	movq %rdx, (%r8,%rsi,8)
	incq %rcx
	cmpq %rdi, %rcx
	jb 2b				/* cond: taken n - 2 when n >= 2 */
5:	xorl %eax, %eax
	xorl %ecx, %ecx
6:	leaq 1(%rcx), %rdx
	imulq (%r8,%rcx,8), %rdx
	addq %rdx, %rax
	incq %rcx
	cmpq %rdi, %rcx
	jb 6b				/* cond: taken n - 1 */
	ret				/* ret: 1 */
arch_wl_sort_end:

/* alias(n >= 1), workload "alias": n calls of a function whose first instruction lies exactly
 * ALIAS_DISTANCE bytes after the CALL, and whose RET lies exactly as far after the CALL's return
 * address: a branch and where it goes 16 KiB apart, on other pages, at the same address modulo
 * any power-of-two table of at most 16 Ki entries (the single-step engine's decode cache has
 * 1,024, lib/x86_decode_cache.h: the branch's and its target's decodings share a slot). Returns
 * n. 2 + 10n (call, five NOPs, ret, inc, dec, jnz) + 1 = 10n + 3 instructions. */
#define ALIAS_DISTANCE 16384
arch_wl_alias:
	xorl %eax, %eax
	movq %rdi, %rcx
arch_wl_alias_call:
	call arch_wl_alias_f		/* call: n */
arch_wl_alias_back:
	incq %rax
	decq %rcx
	jnz arch_wl_alias_call		/* cond: taken n - 1 */
	ret				/* ret: 1 */
	.org arch_wl_alias_call + ALIAS_DISTANCE, 0xcc
arch_wl_alias_f:			/* at the CALL's address + ALIAS_DISTANCE */
	.rept 5				/* a CALL rel32 is 5 bytes: the RET lands at ... */
	nop
	.endr
	ret				/* ret: n; at the return address + ALIAS_DISTANCE */
arch_wl_alias_end:

	.section .rodata
	.p2align 3
arch_wl_indirect_ops:
	.quad arch_wl_indirect_add, arch_wl_indirect_xor, arch_wl_indirect_shl
arch_wl_switch_table:
	.quad arch_wl_switch_case0, arch_wl_switch_case1, arch_wl_switch_case2, arch_wl_switch_case3

	.bss
	.p2align 6
arch_wl_sort_data:
	.zero 8 * 256			/* WL_SORT_MAX values (arch/x86/workloads/library.c) */

	.p2align 6
arch_wl_chase_nodes:
	.zero CHASE_LINE * 8192		/* WL_CHASE_MAX nodes (kernel/arch_workloads.h) */

	.section .note.GNU-stack,"",@progbits
