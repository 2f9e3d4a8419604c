/* SPDX-License-Identifier: MIT */
/*
 * The door to the processors: bring-up, the memory the kernel reaches physical pages through,
 * the CPUs and calls across them, the timestamp, how a run ends, deliberate and caught
 * exceptions. Implemented in arch/x86/ (arch_init.c and its folders).
 */
#ifndef KERNEL_ARCH_CPU_H
#define KERNEL_ARCH_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct boot_info;
struct memmap;

/* How a run ends (option `exit`). */
enum exit_mode {
	EXIT_MODE_AUTO,	 /* QEMU's isa-debug-exit when a hypervisor is detected, then halt */
	EXIT_MODE_QEMU,	 /* isa-debug-exit at port 0xf4, then halt if it did not end the VM */
	EXIT_MODE_HALT,	 /* cli; hlt forever */
	EXIT_MODE_RESET, /* reset the machine */
};

/* The run's status. Under QEMU, isa-debug-exit turns status S into exit code (S << 1) | 1. */
enum run_status {
	RUN_PASS = 0,
	RUN_FAIL = 1,
	RUN_SKIP = 2,
	RUN_BAD_CONFIG = 3, /* options or config file rejected */
	RUN_INCOMPLETE = 4, /* records were lost or withheld: a capture is not whole */
};

/* The boot CPU's GDT, TSS, IDT and per-CPU area: exceptions are reported from here on. */
void arch_early_init(void);
/* The kernel's own page tables (memory_init() must have run). */
bool arch_init(const struct boot_info *bi, const struct memmap *mm);
/* Physical memory is identity-mapped: the pointer through which the kernel reaches it. */
void *arch_phys_to_virt(uint64_t phys);

/* Bring up every CPU the firmware lists, report them, and the timers (arch_init first). */
void arch_smp_init(const struct boot_info *bi, bool pmi_as_nmi);
unsigned arch_cpu_count(void);
unsigned arch_cpu_index(void); /* the running CPU, 0 = boot CPU */
uint32_t arch_cpu_apic_id(unsigned index);
/* Run fn(arg) on CPU `index` (interrupts off there) and wait, bounded; false on time-out. Calls
 * are issued from the boot CPU. */
bool arch_run_on_cpu(unsigned index, void (*fn)(void *), void *arg);
/* Run fn(arg) on every online CPU, this one included; returns how many finished in time. */
unsigned arch_run_on_all(void (*fn)(void *), void *arg);
/* The same on every CPU but this one. */
unsigned arch_run_on_aps(void (*fn)(void *), void *arg);

/* CPU identification for the banner: fills `out` with a one-line description. */
void arch_describe_cpu(char *out, size_t size);
uint64_t arch_timestamp(void); /* TSC */

void arch_set_exit_mode(enum exit_mode mode);
/* Seconds the screen stays before an exit or reset (when it shows the log). */
void arch_set_exit_hold(unsigned seconds);
/* End the run: the last line on the console is RUN_MARKER and the status's name (PASS, FAIL,
 * SKIP, BAD-INPUT), which the runner requires before it believes QEMU's exit code. */
_Noreturn void arch_exit(enum run_status status);

/* Deliberate faults for testing the exception path (option `fault`). */
enum fault_kind { FAULT_NONE, FAULT_PF, FAULT_UD, FAULT_GP, FAULT_DE, FAULT_BP, FAULT_STACK };
void arch_trigger_fault(enum fault_kind kind);

/*
 * Run fn(arg) and report whether it raised exception `vector` (then fn is abandoned at the
 * faulting instruction and the call returns true, with the error code and CR2 in *info).
 * For self-tests of protections (W^X, NX, guard pages). Other vectors still end the run.
 */
struct caught_exception {
	uint32_t vector;
	uint64_t error_code;
	uint64_t rip;
	uint64_t cr2;
};
bool arch_catch_exception(int vector, void (*fn)(void *), void *arg, struct caught_exception *info);

/* "#PF page fault", ... for an exception vector. */
const char *arch_exception_name(uint64_t vector);

#endif
