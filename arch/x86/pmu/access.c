/* SPDX-License-Identifier: MIT */
#include "arch/x86/pmu/access.h"
#include "arch/x86/model/spmu.h"
#include "arch/x86/step/singlestep.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/trap.h"
#include "kernel/arch_cpu.h"
#include "kernel/memory.h"

struct pmu_backend {
	bool model;
	struct spmu state;
	struct pmu_hw_refusals refused; /* the hardware's #GPs (the model keeps its own) */
};

/* The boot CPU's in the kernel's image; the others' from the page allocator once they are up
 * (pmu_backends_prepare: room for MAX_CPUS in the image would make it too large for a small
 * machine's memory). A CPU without one never traces (the runner's preparation fails first). */
static struct pmu_backend boot_backend;
static struct pmu_backend *backends[MAX_CPUS] = {&boot_backend};

bool pmu_backends_prepare(unsigned cpus)
{
	for (unsigned c = 1; c < cpus && c < MAX_CPUS; c++) {
		if (!backends[c])
			backends[c] = page_alloc_virt(sizeof(struct pmu_backend));
		if (!backends[c])
			return false;
	}
	return true;
}

bool pmu_backend_ready(unsigned cpu)
{
	return cpu < MAX_CPUS && backends[cpu];
}

static struct pmu_backend *here(void)
{
	return backends[this_cpu()->index];
}

/* The model reaches DS memory through the identity map, as the hardware would through the
 * kernel's page tables (the DS area and buffers are identity-mapped in every address space). */
static void *model_linear(uint64_t a)
{
	return a ? arch_phys_to_virt(a) : 0;
}

/* XMM0-15 as the workload left them, for the model's adaptive PEBS XMM group (16 bytes each,
 * XMM0 first: Linux arch/x86/include/asm/perf_event.h, struct pebs_xmm): the kernel is built
 * with -mgeneral-regs-only and never touches them, and SSE is on (usermode.c). */
static void model_read_xmm(struct pebs_xmm *out)
{
	__asm__ volatile("movdqu %%xmm0, 0x00(%0)\n\tmovdqu %%xmm1, 0x10(%0)\n\t"
			 "movdqu %%xmm2, 0x20(%0)\n\tmovdqu %%xmm3, 0x30(%0)\n\t"
			 "movdqu %%xmm4, 0x40(%0)\n\tmovdqu %%xmm5, 0x50(%0)\n\t"
			 "movdqu %%xmm6, 0x60(%0)\n\tmovdqu %%xmm7, 0x70(%0)\n\t"
			 "movdqu %%xmm8, 0x80(%0)\n\tmovdqu %%xmm9, 0x90(%0)\n\t"
			 "movdqu %%xmm10, 0xa0(%0)\n\tmovdqu %%xmm11, 0xb0(%0)\n\t"
			 "movdqu %%xmm12, 0xc0(%0)\n\tmovdqu %%xmm13, 0xd0(%0)\n\t"
			 "movdqu %%xmm14, 0xe0(%0)\n\tmovdqu %%xmm15, 0xf0(%0)"
			 :
			 : "r"(out->xmm)
			 : "memory");
}

void pmu_use_model(const struct spmu_personality *p)
{
	struct pmu_backend *b = here();
	spmu_init(&b->state, p, model_linear);
	b->state.read_xmm = model_read_xmm;
	b->model = true;
}

void pmu_use_hardware(void)
{
	here()->model = false;
}

bool pmu_using_model(void)
{
	return here()->model;
}

struct spmu *pmu_model(void)
{
	struct pmu_backend *b = here();
	return b->model ? &b->state : 0;
}

void pmu_backend_drops(uint64_t *bts, uint64_t *pebs)
{
	struct pmu_backend *b = here();
	*bts = b->model ? b->state.stats.bts_dropped : 0;
	*pebs = b->model ? b->state.stats.pebs_dropped : 0;
}

bool pmu_backend_bts_stored(uint64_t *stored)
{
	struct pmu_backend *b = here();
	*stored = b->model ? b->state.stats.bts_stored : 0;
	return b->model;
}

const char *pmu_last_refusal(void)
{
	struct pmu_backend *b = here();
	return b->model && b->state.gp_reason ? b->state.gp_reason : "";
}

void pmu_note_exception(unsigned vector)
{
	struct pmu_backend *b = here();
	if (b->model)
		spmu_exception(&b->state, vector);
}

/* In the order the hardware does it: a trap's instruction retires, the LER takes the last
 * branch before the exception, then the delivery is recorded. */
void pmu_trap_observer(struct trap_frame *f)
{
	if (ss_note_step_nmi(f)) {
		pmu_note_exception((unsigned)f->vector); /* an interrupt: the LER too */
		return;
	}
	if (!ss_active_here())
		return; /* not the stepped workload's */
	ss_note_exception(f);
	pmu_note_exception((unsigned)f->vector);
	ss_note_delivery(f);
}

struct msr_access {
	uint32_t msr;
	uint64_t value;
};

static void hw_read(void *arg)
{
	struct msr_access *a = arg;
	a->value = rdmsr(a->msr);
}

static void hw_write(void *arg)
{
	struct msr_access *a = arg;
	wrmsr(a->msr, a->value);
}

static enum status hw_refused(struct pmu_backend *b, uint32_t msr, uint64_t value, bool write)
{
	struct pmu_hw_refusals *r = &b->refused;
	if (!r->count++) {
		r->first_msr = msr;
		r->first_value = value;
		r->first_write = write;
	}
	return STATUS_REFUSED;
}

struct pmu_hw_refusals pmu_hardware_refusals(unsigned cpu)
{
	return cpu < MAX_CPUS && backends[cpu] ? backends[cpu]->refused
					       : (struct pmu_hw_refusals){0};
}

enum status pmu_rdmsr(uint32_t msr, uint64_t *value)
{
	struct pmu_backend *b = here();
	if (b->model)
		return spmu_rdmsr(&b->state, msr, value);
	struct msr_access a = {msr, 0};
	struct caught_exception e;
	if (arch_catch_exception(VEC_GP, hw_read, &a, &e))
		return hw_refused(b, msr, 0, false);
	*value = a.value;
	return STATUS_OK;
}

enum status pmu_wrmsr(uint32_t msr, uint64_t value)
{
	struct pmu_backend *b = here();
	if (b->model)
		return spmu_wrmsr(&b->state, msr, value);
	struct msr_access a = {msr, value};
	struct caught_exception e;
	return arch_catch_exception(VEC_GP, hw_write, &a, &e) ? hw_refused(b, msr, value, true)
							      : STATUS_OK;
}
