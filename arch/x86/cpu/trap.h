/* SPDX-License-Identifier: MIT */
/* The register frame every exception stub builds (arch/x86/cpu/trap_stubs.S) and its users. */
#ifndef ARCH_X86_CPU_TRAP_H
#define ARCH_X86_CPU_TRAP_H

#include "arch/x86/cpu/trap_frame.h"
#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_mem.h"

/* Exception vectors (SDM Vol. 3A 6.3.1, Table 6-1). */
enum x86_vector {
	VEC_DE = 0,
	VEC_DB = 1,
	VEC_NMI = 2,
	VEC_BP = 3,
	VEC_OF = 4,
	VEC_BR = 5,
	VEC_UD = 6,
	VEC_NM = 7,
	VEC_DF = 8,
	VEC_CSO = 9,
	VEC_TS = 10,
	VEC_NP = 11,
	VEC_SS = 12,
	VEC_GP = 13,
	VEC_PF = 14,
	VEC_MF = 16,
	VEC_AC = 17,
	VEC_MC = 18,
	VEC_XM = 19,
	VEC_VE = 20,
	VEC_CP = 21,
	VEC_HV = 28,
	VEC_VC = 29,
	VEC_SX = 30,
	NUM_EXCEPTION_VECTORS = 32,
};

/* Page-fault error code bits (SDM Vol. 3A 4.7, Figure 4-12). */
#define PF_ERR_PRESENT BIT(0)
#define PF_ERR_WRITE   BIT(1)
#define PF_ERR_USER    BIT(2)
#define PF_ERR_RSVD    BIT(3)
#define PF_ERR_FETCH   BIT(4)
#define PF_ERR_PK      BIT(5)
#define PF_ERR_SS      BIT(6)

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector;
	uint64_t error_code; /* 0 pushed by the stub where the CPU pushes none */
	/* pushed by the CPU (SDM Vol. 3A 6.14.2, Figure 6-9) */
	uint64_t rip, cs, rflags, rsp, ss;
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "trap frame layout matches the stubs");
_Static_assert(__builtin_offsetof(struct trap_frame, vector) == 15 * 8, "vector slot");
_Static_assert(__builtin_offsetof(struct trap_frame, rip) == TRAP_FRAME_RIP,
	       "CPU frame starts at RIP");

/* The frame's general-purpose registers in encoding order (lib/x86_mem.h: RAX, RCX, RDX, RBX,
 * RSP, RBP, RSI, RDI, R8-R15). */
static inline struct x86_gprs trap_frame_gprs(const struct trap_frame *f)
{
	return (struct x86_gprs){{f->rax, f->rcx, f->rdx, f->rbx, f->rsp, f->rbp, f->rsi, f->rdi,
				  f->r8, f->r9, f->r10, f->r11, f->r12, f->r13, f->r14, f->r15}};
}

/*
 * Hooks the layers above register (arch/x86/arch_init.c wires them), so that trap dispatch
 * never calls up into the single-step engine, the sessions, the PMI entry or the workloads.
 * A claim returns true when it handled the trap (dispatch stops there); observers see every
 * trap, in the order they were added, before it is dispatched.
 */
enum trap_claim {
	TRAP_CLAIM_FIXUP, /* an exception the running workload raised on purpose */
	TRAP_CLAIM_NMI,	  /* an NMI that is a PMI (option pmi=nmi) */
	TRAP_CLAIM_USER,  /* an exception in ring 3: it ends the user program's run */
	TRAP_CLAIM_COUNT
};
typedef bool (*trap_claim_fn)(struct trap_frame *f);
/* An observer may rewrite the interrupted context's RFLAGS (the single-step engine hides its
 * own TF from the handler and sets it again on the way back); nothing else. */
typedef void (*trap_observer_fn)(struct trap_frame *f);
void trap_set_claim(enum trap_claim which, trap_claim_fn fn);
/* At most TRAP_MAX_OBSERVERS; false when full. */
#define TRAP_MAX_OBSERVERS 4
bool trap_add_observer(trap_observer_fn fn);
/* Called after the trap was handled, just before returning: the frame's RIP is where the
 * interrupted code resumes (a handler may have moved it). At most TRAP_MAX_OBSERVERS. */
bool trap_add_resume_observer(trap_observer_fn fn);
/* The registered claim, or NULL (exceptions.c asks for the fixup and NMI claims). */
trap_claim_fn trap_claim(enum trap_claim which);

/* The code every single-step trap runs, placed in one page (linker.ld: under QEMU's TCG a jump
 * or call to another page costs a translation-block lookup): the single-step engine's #DB
 * entry and trap, and the software PMU's common step. */
#define TRAP_STEP_HOT __attribute__((section(".text.step_hot")))

/* Called by every stub of arch/x86/cpu/trap_stubs.S (trap_stub_table; #DB's gate names the
 * single-step engine's entry, which goes on to #DB's stub for every #DB not its own). */
void trap_dispatch(struct trap_frame *f);
extern const uint64_t trap_stub_table[256];
/* The IRETQ every stub returns through (arch/x86/cpu/trap_stubs.S). */
extern const char trap_iret[];

/* Read one byte at p: false if the read faulted (#PF or #GP), which then goes no further than
 * trap_dispatch (probe.S). */
bool cpu_probe_byte(const void *p);
extern const char cpu_probe_at[], cpu_probe_fail[];

/* Exceptions (vectors 0-31): caught by a self-test, or dumped and the run ended. */
void exception_dispatch(struct trap_frame *f);

/* Interrupts (vectors 32-255): a handler per vector; the handler sends EOI if needed. */
typedef void (*irq_handler_fn)(struct trap_frame *f);
void irq_register(unsigned vector, irq_handler_fn fn);

/* Whether the CPU pushes an error code for this vector (SDM Vol. 3A Table 6-1). */
static inline int vector_has_error_code(unsigned v)
{
	return v == VEC_DF || v == VEC_TS || v == VEC_NP || v == VEC_SS || v == VEC_GP ||
	       v == VEC_PF || v == VEC_AC || v == VEC_CP || v == VEC_VC || v == VEC_SX;
}

#endif
