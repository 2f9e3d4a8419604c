/* SPDX-License-Identifier: MIT */
/* Ring 3 for workloads: SYSCALL/SYSRET set-up and the user code and stack mappings. */
#ifndef ARCH_X86_CPU_USERMODE_H
#define ARCH_X86_CPU_USERMODE_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_decode.h"

#define USER_CODE_VA  0x00007f0000000000ull /* alias of user_code_page (arch/x86/user/entry.S) */
#define USER_STACK_VA 0x00007f0000002000ull /* one page; the top is USER_CODE_VA + 0x3000 */

/* SMAP is on (CR4.SMAP, where CPUID.07H.0:EBX[20] has it): kernel accesses to user pages fault
 * unless RFLAGS.AC is set. The few places that read or write a program's memory on purpose
 * (a system call's buffer; the single-step engine, which decodes the workload's instructions
 * and hides its TF in what PUSHF stored) open access for just that (SDM Vol. 3A 4.6). */
extern bool usermode_smap;
/* XCR0 as usermode_init_cpu set it (0: no XSAVE); the vector state programs may use. */
extern uint64_t usermode_xcr0;
static inline void user_access_begin(void)
{
	if (usermode_smap)
		__asm__ volatile("stac" ::: "memory");
}
static inline void user_access_end(void)
{
	if (usermode_smap)
		__asm__ volatile("clac" ::: "memory");
}

/* Decode the instruction at an address a capture recorded, after the run (lib/x86_decode.c's
 * status): ring 3 code too, with user access open for the read. */
static inline int usermode_decode_recorded(uint64_t ip, struct x86_insn *in)
{
	user_access_begin();
	int rc = x86_decode((const uint8_t *)ip, X86_MAX_INSN_LENGTH, in);
	user_access_end();
	return rc;
}

/* On the boot CPU, after paging_init: returns false (with a message) on failure. */
/* The SYSCALL/SYSRET MSRs of the running CPU (usermode_init does the boot CPU's). */
void usermode_init_cpu(void);
/* Boot CPU: SYSCALL enters at syscall_entry; the ring 3 round trip's code page (in the kernel
 * image, page-aligned) is mapped user-executable at USER_CODE_VA. Both live in
 * arch/x86/user/entry.S, which arch/x86/arch_init.c passes in (cpu/ never names user/). */
bool usermode_init(uint64_t kernel_phys_base, const void *syscall_entry,
		   const void *roundtrip_page);

#endif
