/* SPDX-License-Identifier: MIT */
/*
 * Self-tests of the x86 bring-up: exceptions are delivered with the right vector, error code
 * and RIP; descriptor tables are the kernel's own; paging enforces W^X, NX, the NULL page and
 * the stack guard, with device memory uncached; SMAP and SMEP keep the kernel out of user pages.
 */
#include "kernel/selftest.h"
#include "kernel/boot_info.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/usermode.h"

#include "kernel/kernel.h"
#include "kernel/arch_cpu.h"

extern const char __text_start[], __rodata_start[], __data_start[], boot_stack_guard[];
extern char ud2_site[], int3_site[];

#define XAPIC_DEFAULT_BASE 0xfee00000ull /* SDM Vol. 3A 10.4.1: local APIC default base */

static void do_ud2(void *arg)
{
	(void)arg;
	__asm__ volatile(".globl ud2_site\nud2_site: ud2");
}

static void do_int3(void *arg)
{
	(void)arg;
	__asm__ volatile(".globl int3_site\nint3_site: int3");
}

static void do_divide_by_zero(void *arg)
{
	(void)arg;
	arch_trigger_fault(FAULT_DE);
}

static void do_noncanonical_read(void *arg)
{
	(void)arg;
	arch_trigger_fault(FAULT_GP);
}

static void do_nothing(void *arg)
{
	(void)arg;
}

SELFTEST(exceptions)
{
	struct caught_exception e;
	bool caught = arch_catch_exception(VEC_UD, do_ud2, NULL, &e);
	report(caught && e.vector == VEC_UD && e.rip == (uint64_t)ud2_site,
	       "ud2 raises #UD at its own address (rip %#lx, want %p)", e.rip, (void *)ud2_site);

	caught = arch_catch_exception(VEC_BP, do_int3, NULL, &e);
	/* #BP is a trap: the saved RIP is the instruction after the 1-byte INT3. */
	report(caught && e.rip == (uint64_t)int3_site + 1, "int3 raises #BP, rip after it (%#lx)",
	       e.rip);

	caught = arch_catch_exception(VEC_DE, do_divide_by_zero, NULL, &e);
	report(caught && e.vector == VEC_DE, "division by zero raises #DE");

	caught = arch_catch_exception(VEC_GP, do_noncanonical_read, NULL, &e);
	report(caught && e.error_code == 0, "non-canonical read raises #GP with error code 0");

	caught = arch_catch_exception(VEC_UD, do_nothing, NULL, &e);
	report(!caught, "a function that does not fault returns normally");
}

SELFTEST(descriptors)
{
	uint16_t tr, cs, ss;
	__asm__ volatile("str %0" : "=r"(tr));
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	__asm__ volatile("mov %%ss, %0" : "=r"(ss));
	report(tr == SEL_TSS, "task register holds the kernel TSS (%#x)", tr);
	report(cs == SEL_KERNEL_CODE && ss == SEL_KERNEL_DATA, "CS %#x and SS %#x are the kernel's",
	       cs, ss);

	struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} idtr;
	__asm__ volatile("sidt %0" : "=m"(idtr));
	report(idtr.limit == 256 * 16 - 1, "IDT covers 256 vectors (limit %#x)", idtr.limit);
	const uint8_t *gates = (const uint8_t *)idtr.base;
	/* Byte 4 of a 64-bit gate holds its IST index (SDM Vol. 3A Figure 6-8). */
	report(gates[VEC_NMI * 16 + 4] == IST_NMI && gates[VEC_DF * 16 + 4] == IST_DOUBLE_FAULT &&
		   gates[VEC_MC * 16 + 4] == IST_MACHINE_CHECK && gates[VEC_PF * 16 + 4] == 0,
	       "NMI, #DF and #MC run on their own IST stacks; #PF does not");
}

static void write_to(void *addr)
{
	*(volatile uint8_t *)addr = 0x5a;
}

static void read_from(void *addr)
{
	(void)*(volatile uint8_t *)addr;
}

static uint8_t data_code[16] = {0xc3}; /* RET, in a non-executable data page */

static void call_data(void *arg)
{
	(void)arg;
	((void (*)(void))(uintptr_t)data_code)();
}

static void check_pf(bool caught, const struct caught_exception *e, uint64_t addr,
		     uint64_t want_err, const char *what)
{
	report(caught && e->cr2 == addr && (e->error_code & want_err) == want_err,
	       "%s: #PF at %#lx (CR2 %#lx, error %#lx)", what, addr, e->cr2, e->error_code);
}

SELFTEST(paging)
{
	const struct boot_info *bi = kernel_boot_info();
	struct caught_exception e;
	uint64_t pa, flags, size;

	report(read_cr0() & CR0_WP, "CR0.WP is set: the kernel honours read-only pages");
	bool ok = paging_translate((uint64_t)__text_start, &pa, &flags, &size);
	report(ok && pa == bi->kernel_phys_base && !(flags & PTE_RW) && !(flags & PTE_NX),
	       "text maps to the loaded image, read-only and executable (pa %#lx flags %#lx)", pa,
	       flags);
	ok = paging_translate((uint64_t)__rodata_start, &pa, &flags, &size);
	report(ok && !(flags & PTE_RW) && (!paging_nx_enabled() || (flags & PTE_NX)),
	       "rodata is read-only and, with NX, not executable");
	ok = paging_translate((uint64_t)__data_start, &pa, &flags, &size);
	report(ok && (flags & PTE_RW) && (!paging_nx_enabled() || (flags & PTE_NX)),
	       "data is writable and, with NX, not executable");

	bool caught = arch_catch_exception(VEC_PF, write_to, (void *)__rodata_start, &e);
	check_pf(caught, &e, (uint64_t)__rodata_start, PF_ERR_PRESENT | PF_ERR_WRITE,
		 "write to rodata");
	caught = arch_catch_exception(VEC_PF, write_to, (void *)__text_start, &e);
	check_pf(caught, &e, (uint64_t)__text_start, PF_ERR_PRESENT | PF_ERR_WRITE,
		 "write to text");
	caught = arch_catch_exception(VEC_PF, read_from, (void *)0x10, &e);
	check_pf(caught, &e, 0x10, 0, "read of the NULL page");
	report(caught && !(e.error_code & PF_ERR_PRESENT), "the NULL page is not present");
	caught = arch_catch_exception(VEC_PF, write_to, (void *)boot_stack_guard, &e);
	check_pf(caught, &e, (uint64_t)boot_stack_guard, PF_ERR_WRITE, "write to the stack guard");

	if (paging_nx_enabled()) {
		caught = arch_catch_exception(VEC_PF, call_data, NULL, &e);
		check_pf(caught, &e, (uint64_t)data_code, PF_ERR_FETCH, "execute from data");
	} else {
		report_skip("execute from data: the CPU has no NX (CPUID 80000001H:EDX[20])");
	}

	ok = paging_translate(KERNEL_DIRECT_BASE + XAPIC_DEFAULT_BASE, &pa, &flags, &size);
	report(ok && pa == XAPIC_DEFAULT_BASE && (flags & PTE_UNCACHED) == PTE_UNCACHED,
	       "local APIC page %#llx is in the direct map, uncached", XAPIC_DEFAULT_BASE);
	ok = paging_translate((uint64_t)bi, &pa, &flags, &size);
	report(ok && pa == (uint64_t)bi - KERNEL_DIRECT_BASE && !(flags & PTE_UNCACHED),
	       "RAM (boot_info at %p) is in the direct map, write-back", (const void *)bi);
	/* The lower half is the user program's: no identity map of RAM or devices there. */
	report(!paging_translate(pa, &pa, &flags, &size) &&
		   !paging_translate(XAPIC_DEFAULT_BASE, &pa, &flags, &size),
	       "no identity map: boot_info's and the local APIC's physical addresses are absent");
}

static void call_user_code(void *arg)
{
	(void)arg;
	((void (*)(void))(uintptr_t)USER_CODE_VA)();
}

static void read_user_with_access(void *arg)
{
	user_access_begin();
	read_from(arg);
	user_access_end();
}

/* SDM Vol. 3A 4.6.1: with CR4.SMAP a supervisor-mode data access to a user-mode address faults
 * unless RFLAGS.AC is 1 (STAC); with CR4.SMEP a supervisor-mode fetch from a user page faults.
 * The user pages of the ring 3 workload (arch/x86/cpu/usermode.h) are the targets. */
SELFTEST(user_protection)
{
	struct caught_exception e;
	bool caught;
	if (usermode_smap) {
		caught = arch_catch_exception(VEC_PF, read_from, (void *)USER_STACK_VA, &e);
		check_pf(caught, &e, USER_STACK_VA, PF_ERR_PRESENT,
			 "SMAP: kernel read of a user page");
		report(caught && !(e.error_code & PF_ERR_USER),
		       "SMAP: the fault is a supervisor access");
		caught =
		    arch_catch_exception(VEC_PF, read_user_with_access, (void *)USER_STACK_VA, &e);
		report(!caught,
		       "SMAP: the same read after STAC (user_access_begin) does not fault");
	} else {
		report_skip("SMAP: the CPU has none (CPUID.07H.0:EBX[20])");
	}
	if (read_cr4() & CR4_SMEP) {
		caught = arch_catch_exception(VEC_PF, call_user_code, NULL, &e);
		check_pf(caught, &e, USER_CODE_VA, PF_ERR_PRESENT | PF_ERR_FETCH,
			 "SMEP: kernel call into a user page");
	} else {
		report_skip("SMEP: the CPU has none (CPUID.07H.0:EBX[7])");
	}
}
