/* SPDX-License-Identifier: MIT */
/*
 * Ring 3 for workloads. SYSCALL/SYSRET (SDM Vol. 3A 5.8.8): IA32_STAR[47:32] is the SYSCALL
 * CS (SS = CS + 8); IA32_STAR[63:48] + 16 / + 8 are SYSRET's 64-bit CS / SS, which is why the
 * GDT orders user data before user code (arch/x86/cpu/desc.h). IA32_FMASK clears only DF: TF
 * survives SYSCALL so the single-step engine follows the round trip into ring 0.
 */
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/paging.h"
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/memory.h"

extern const char user_syscall_entry[];

void usermode_init_cpu(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSRET: CS = base + 16 = user code, SS = base + 8 = user data (RPL 3 forced). */
	wrmsr(MSR_STAR, STAR_SYSCALL_CS(SEL_KERNEL_CODE) | STAR_SYSRET_BASE(SEL_KERNEL_DATA));
	wrmsr(MSR_LSTAR, (uint64_t)user_syscall_entry);
	wrmsr(MSR_FMASK, RFLAGS_DF);
}

bool usermode_init(uint64_t kernel_phys_base)
{
	usermode_init_cpu();
	uint64_t code_pa = kernel_phys_base + ((uint64_t)user_code_page - KERNEL_VIRT_BASE);
	uint64_t stack_pa = page_alloc(1);
	if (!stack_pa || !paging_map_user_4k(USER_CODE_VA, code_pa, false, true) ||
	    !paging_map_user_4k(USER_STACK_VA, stack_pa, true, false)) {
		kprintf("error: cannot map the ring 3 workload pages\n");
		return false;
	}
	return true;
}
