/* SPDX-License-Identifier: MIT */
/*
 * Exception dispatch: a self-test may catch an expected exception (arch_catch_exception);
 * anything else prints a full register dump whose addresses the host can symbolize against
 * build/kernel.elf (scripts/symbolize), then ends the run with a failure status. Never a
 * silent reset: a nested fault prints a one-line note and exits at once.
 */
#include "kernel/arch_cpu.h"
#include "kernel/console.h"
#include "kernel/build_id.h"
#include "kernel/boot_info.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/trap.h"

struct x86_jmp_buf {
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
};
_Static_assert(sizeof(struct x86_jmp_buf) == 64, "layout used by arch/x86/cpu/jmp.S");
int x86_setjmp(struct x86_jmp_buf *jb) __attribute__((returns_twice));
_Noreturn void x86_longjmp(struct x86_jmp_buf *jb, int value);

struct exception_catch {
	int vector;
	struct x86_jmp_buf jb;
	struct caught_exception *info;
};

static volatile int exception_depth;

static const char *const exception_names[NUM_EXCEPTION_VECTORS] = {
    [VEC_DE] = "#DE divide error",
    [VEC_DB] = "#DB debug",
    [VEC_NMI] = "NMI",
    [VEC_BP] = "#BP breakpoint",
    [VEC_OF] = "#OF overflow",
    [VEC_BR] = "#BR bound range",
    [VEC_UD] = "#UD invalid opcode",
    [VEC_NM] = "#NM device not available",
    [VEC_DF] = "#DF double fault",
    [VEC_CSO] = "coprocessor segment overrun",
    [VEC_TS] = "#TS invalid TSS",
    [VEC_NP] = "#NP segment not present",
    [VEC_SS] = "#SS stack fault",
    [VEC_GP] = "#GP general protection",
    [VEC_PF] = "#PF page fault",
    [VEC_MF] = "#MF x87 floating point",
    [VEC_AC] = "#AC alignment check",
    [VEC_MC] = "#MC machine check",
    [VEC_XM] = "#XM SIMD floating point",
    [VEC_VE] = "#VE virtualization",
    [VEC_CP] = "#CP control protection",
    [VEC_HV] = "#HV hypervisor injection",
    [VEC_VC] = "#VC VMM communication",
    [VEC_SX] = "#SX security",
};

const char *arch_exception_name(uint64_t v)
{
	if (v < NUM_EXCEPTION_VECTORS && exception_names[v])
		return exception_names[v];
	return "reserved vector";
}

bool arch_catch_exception(int vector, void (*fn)(void *), void *arg, struct caught_exception *info)
{
	struct exception_catch c = {.vector = vector, .info = info};
	struct percpu *cpu = this_cpu();
	/* Catches nest: the PMI/DS service routine reads MSRs through one (arch/x86/pmu/access.c)
	 * while the code it interrupted may be inside another; the outer one is restored, not
	 * cleared. */
	struct exception_catch *outer = cpu->active_catch;
	if (x86_setjmp(&c.jb) == 0) {
		cpu->active_catch = &c;
		fn(arg);
		cpu->active_catch = outer;
		return false;
	}
	cpu->active_catch = outer;
	return true;
}

static void print_page_fault_reason(uint64_t err)
{
	kprintf("  page fault: %s, %s access, %s mode%s%s%s\n",
		(err & PF_ERR_PRESENT) ? "protection violation" : "page not present",
		(err & PF_ERR_FETCH)   ? "instruction fetch"
		: (err & PF_ERR_WRITE) ? "write"
				       : "read",
		(err & PF_ERR_USER) ? "user" : "supervisor",
		(err & PF_ERR_RSVD) ? ", reserved bit set" : "", (err & PF_ERR_PK) ? ", pkey" : "",
		(err & PF_ERR_SS) ? ", shadow stack" : "");
}

static bool is_kernel_address(uint64_t a)
{
	return a >= KERNEL_VIRT_BASE; /* the image, its stacks and its data */
}

/* Walk saved frame pointers (-fno-omit-frame-pointer), bounded, only through kernel memory. */
static void print_backtrace(uint64_t rbp)
{
	kprintf("  backtrace:");
	for (int depth = 0; depth < 16; depth++) {
		if (!is_kernel_address(rbp) || (rbp & 7))
			break;
		const uint64_t *fp = (const uint64_t *)rbp;
		uint64_t ret = fp[1];
		if (!is_kernel_address(ret))
			break;
		kprintf(" %p", (void *)ret);
		if (fp[0] <= rbp)
			break; /* frames must move up the stack */
		rbp = fp[0];
	}
	kprintf("\n");
}

static void dump_registers(const struct trap_frame *f)
{
	kprintf("\n*** EXCEPTION %s (vector %lu) ***\n", arch_exception_name(f->vector), f->vector);
	kprintf("  error code %#lx\n", f->error_code);
	if (f->vector == VEC_PF)
		print_page_fault_reason(f->error_code);
	kprintf("  RIP %p  CS %#lx  RFLAGS %#lx (CPL %lu)\n", (void *)f->rip, f->cs, f->rflags,
		f->cs & 3);
	kprintf("  RSP %p  SS %#lx\n", (void *)f->rsp, f->ss);
	kprintf("  RAX %p  RBX %p  RCX %p\n", (void *)f->rax, (void *)f->rbx, (void *)f->rcx);
	kprintf("  RDX %p  RSI %p  RDI %p\n", (void *)f->rdx, (void *)f->rsi, (void *)f->rdi);
	kprintf("  RBP %p  R8  %p  R9  %p\n", (void *)f->rbp, (void *)f->r8, (void *)f->r9);
	kprintf("  R10 %p  R11 %p  R12 %p\n", (void *)f->r10, (void *)f->r11, (void *)f->r12);
	kprintf("  R13 %p  R14 %p  R15 %p\n", (void *)f->r13, (void *)f->r14, (void *)f->r15);
	kprintf("  CR0 %p  CR2 %p  CR3 %p\n", (void *)read_cr0(), (void *)read_cr2(),
		(void *)read_cr3());
	kprintf("  CR4 %p  EFER %p\n", (void *)read_cr4(), (void *)rdmsr(MSR_EFER));
	if ((f->cs & 3) == 0)
		print_backtrace(f->rbp);
	char id[2 * BUILD_ID_MAX + 1];
	build_id_hex(id, sizeof(id));
	kprintf("  kernel build-id %s; symbolize with: scripts/symbolize build/kernel.elf < log\n",
		id);
}

void exception_dispatch(struct trap_frame *f)
{
	struct percpu *cpu = percpu_current();
	struct exception_catch *c = cpu ? cpu->active_catch : NULL;
	if (c && (uint64_t)c->vector == f->vector) {
		c->info->vector = (uint32_t)f->vector;
		c->info->error_code = f->error_code;
		c->info->rip = f->rip;
		c->info->cr2 = read_cr2();
		cpu->active_catch = NULL;
		/* Resume in x86_longjmp(&c->jb, 1) with the faulting context abandoned. */
		f->rip = (uint64_t)x86_longjmp;
		f->rdi = (uint64_t)&c->jb;
		f->rsi = 1;
		return;
	}

	trap_claim_fn fixup = trap_claim(TRAP_CLAIM_FIXUP), nmi = trap_claim(TRAP_CLAIM_NMI);
	if (fixup && fixup(f))
		return; /* a workload's deliberate exception, handled: resume it */
	/* PMIs delivered as NMI (option pmi=nmi) come here; any other NMI is reported. */
	if (f->vector == VEC_NMI && nmi && nmi(f))
		return;
	/* An exception in ring 3 is the user program's: it ends that run, not the boot. */
	trap_claim_fn user = trap_claim(TRAP_CLAIM_USER);
	if ((f->cs & 3) == 3 && f->vector != VEC_NMI && f->vector != VEC_MC && user && user(f))
		return;
	if (++exception_depth > 1) {
		if (exception_depth == 2)
			kprintf("\n*** NESTED EXCEPTION %s (vector %lu) at RIP %p while reporting "
				"another: giving up ***\n",
				arch_exception_name(f->vector), f->vector, (void *)f->rip);
		arch_exit(RUN_FAIL);
	}
	dump_registers(f);
	kprintf("FAIL: unexpected exception %s; ending the run with failure status\n",
		arch_exception_name(f->vector));
	arch_exit(RUN_FAIL);
}
