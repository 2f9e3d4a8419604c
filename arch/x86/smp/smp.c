/* SPDX-License-Identifier: MIT */
/*
 * Multiprocessor bring-up (SDM Vol. 3A 8.4.4.1 "Typical AP Initialization Sequence", 9.4 in
 * 2023+ editions) and cross-CPU calls. INIT goes to every AP at once, then each AP in turn gets
 * STARTUP IPIs and a bounded wait, so bring-up grows linearly with the number of CPUs and a
 * dead CPU costs one timeout, not a hang.
 */
#include "arch/x86/smp/smp.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/smp/acpi.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/idt.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/smp/timer.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/vectors.h"
#include "kernel/arch_cpu.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "lib/string.h"

#define INIT_DEASSERT_DELAY_US 10000	       /* SDM 8.4.4.1: 10 ms after INIT */
#define SIPI_RETRY_DELAY_US    200	       /* 200 us before the second STARTUP IPI */
#define XAPIC_MAX_ID	       0xfe	       /* 0xff is the broadcast ID */
#define KSTACKS_PER_CPU	       (2 + IST_COUNT) /* kernel, RSP0, IST stacks */
#define KSTACK_RSP0	       1
#define KSTACK_IST0	       2

extern const uint8_t trampoline_start[], trampoline_end[];
extern uint32_t tr_gdt_base[], tr_pm32_target[], tr_lm64_target[], tr_cr3[], tr_efer_set[];
extern const uint32_t tr_pm32_offset, tr_lm64_offset, tr_gdt_offset;

/* Read by ap_entry64 (trampoline.S) and ap_main: the one AP being started. */
uint64_t ap_boot_stack;
static struct percpu *volatile ap_booting;
static bool ap_pmi_as_nmi;

_Noreturn void ap_main(void);

static void ipi_call_handler(struct trap_frame *f)
{
	(void)f;
	struct percpu *p = this_cpu();
	uint64_t seq = __atomic_load_n(&p->call_seq, __ATOMIC_ACQUIRE);
	/* EOI first: fn may enable interrupts and wait for one of the same priority class. */
	lapic_eoi();
	if (seq != p->call_done) {
		p->call_fn(p->call_arg);
		p->calls_run++;
		__atomic_store_n(&p->call_done, seq, __ATOMIC_RELEASE);
	}
}

static void spurious_handler(struct trap_frame *f)
{
	(void)f; /* no EOI for the spurious vector (SDM 10.9) */
}

static void apic_error_handler(struct trap_frame *f)
{
	(void)f;
	lapic_write(APIC_ESR, 0);
	kprintf("warning: local APIC error on APIC ID %u: ESR %#x\n", lapic_id(),
		lapic_read(APIC_ESR));
	lapic_eoi();
}

/* Stacks for one CPU in its slot of the KSTACKS window: [guard][stack] six times. Returns
 * the tops: [0] the kernel stack, [1] the TSS RSP0 stack (interrupts from ring 3: never the
 * stack the CPU is running on, whose frames they would overwrite), [2..] the IST stacks. */
static bool map_cpu_stacks(unsigned index, uint64_t tops[KSTACKS_PER_CPU])
{
	uint64_t va = KSTACKS_BASE + index * KSTACK_SLOT_SIZE;
	for (unsigned s = 0; s < KSTACKS_PER_CPU; s++) {
		va += PAGE_SIZE; /* guard: left unmapped */
		for (uint64_t off = 0; off < KSTACK_SIZE; off += PAGE_SIZE) {
			uint64_t pa = page_alloc(1);
			if (!pa || !paging_map_kernel_4k(va + off, pa, true))
				return false;
		}
		va += KSTACK_SIZE;
		tops[s] = va;
	}
	return true;
}

static void setup_handlers(void)
{
	irq_register(VEC_IPI_CALL, ipi_call_handler);
	irq_register(VEC_APIC_SPURIOUS, spurious_handler);
	irq_register(VEC_APIC_ERROR, apic_error_handler);
}

static void install_trampoline(uint64_t phys)
{
	uint8_t *dst = arch_phys_to_virt(phys);
	size_t len = (size_t)(trampoline_end - trampoline_start);
	memcpy(dst, trampoline_start, len);
	uint32_t base = (uint32_t)phys;
	uint32_t efer = (uint32_t)(EFER_LME | (paging_nx_enabled() ? EFER_NXE : 0));
	/* Patch the copy: the same fields, at their offsets within the blob. */
#define PATCH(sym, value) (*(uint32_t *)(dst + ((const uint8_t *)(sym)-trampoline_start)) = (value))
	PATCH(tr_gdt_base, base + tr_gdt_offset);
	PATCH(tr_pm32_target, base + tr_pm32_offset);
	PATCH(tr_lm64_target, base + tr_lm64_offset);
	PATCH(tr_cr3, (uint32_t)paging_root());
	PATCH(tr_efer_set, efer);
#undef PATCH
	/* The one identity page, executable while the APs start; unmapped after bring-up (the
	 * lower half is the user program's). */
	paging_set_identity_exec(phys, true);
}

static struct percpu *new_percpu(unsigned index, const struct acpi_cpu *c)
{
	uint64_t pa = page_alloc(ALIGN_UP(sizeof(struct percpu), PAGE_SIZE) / PAGE_SIZE);
	if (!pa)
		return NULL;
	struct percpu *p = arch_phys_to_virt(pa);
	p->index = index;
	p->apic_id = c->apic_id;
	p->acpi_uid = c->acpi_uid;
	return p;
}

static bool wait_online(struct percpu *p, uint64_t us)
{
	uint64_t end = tsc_deadline(us);
	while (!tsc_passed(end)) {
		if (__atomic_load_n(&p->online, __ATOMIC_ACQUIRE))
			return true;
		cpu_pause();
	}
	return __atomic_load_n(&p->online, __ATOMIC_ACQUIRE);
}

static bool start_ap(struct percpu *p, uint8_t sipi_vector)
{
	uint64_t tops[KSTACKS_PER_CPU];
	if (!map_cpu_stacks(p->index, tops))
		return false;
	p->stack_top = tops[0];
	/* The RSP0 and IST stacks are loaded in ap_main (gdt_init_cpu). */
	p->desc.tss.rsp[0] = tops[KSTACK_RSP0];
	for (unsigned i = 0; i < IST_COUNT; i++)
		p->desc.tss.ist[i] = tops[KSTACK_IST0 + i];
	ap_boot_stack = p->stack_top;
	ap_booting = p;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint64_t t0 = rdtsc();
	lapic_send_ipi(p->apic_id, APIC_DM_STARTUP, sipi_vector, APIC_DEST_NONE);
	bool up = wait_online(p, SIPI_RETRY_DELAY_US);
	if (!up) {
		lapic_send_ipi(p->apic_id, APIC_DM_STARTUP, sipi_vector, APIC_DEST_NONE);
		up = wait_online(p, AP_START_TIMEOUT_US);
	}
	p->start_cycles = rdtsc() - t0;
	if (up)
		return true;
	/* Park it again so a late start cannot use the next CPU's stack. */
	lapic_send_ipi(p->apic_id, APIC_DM_INIT, 0, APIC_DEST_NONE);
	return false;
}

_Noreturn void ap_main(void)
{
	struct percpu *p = ap_booting;
	uint64_t ist[IST_COUNT];
	for (unsigned i = 0; i < IST_COUNT; i++)
		ist[i] = p->desc.tss.ist[i];
	gdt_init_cpu(&p->desc, ist, p->desc.tss.rsp[0]);
	idt_load();
	percpu_install(p);
	lapic_init_cpu(ap_pmi_as_nmi);
	usermode_init_cpu(); /* the ring 3 workloads may run here too */
	p->tsc_online = rdtsc();
	__atomic_store_n(&p->online, true, __ATOMIC_RELEASE);
	for (;;)
		__asm__ volatile("sti; hlt; cli" ::: "memory"); /* wake for IPIs */
}

void smp_init(uint64_t trampoline_phys, const struct acpi_madt_info *madt, bool pmi_as_nmi,
	      struct smp_report *r)
{
	struct percpu *bsp = this_cpu();
	memset(r, 0, sizeof(*r));
	setup_handlers();
	ap_pmi_as_nmi = pmi_as_nmi;
	bsp->apic_id = lapic_id();
	bsp->online = true;
	bsp->stack_top = 0;
	r->online = 1;
	if (!madt)
		return;
	r->listed = madt->ncpus;
	uint64_t t0 = rdtsc();
	if (!trampoline_phys || trampoline_phys >= 0x100000 ||
	    (trampoline_phys & (PAGE_SIZE - 1))) {
		kprintf("smp: no usable trampoline page below 1 MiB (%#lx); boot CPU only\n",
			trampoline_phys);
		return;
	}
	install_trampoline(trampoline_phys);

	/* INIT every enabled AP, then the one 10 ms wait they all share. */
	for (unsigned i = 0; i < madt->ncpus; i++) {
		const struct acpi_cpu *c = &madt->cpus[i];
		if (!c->enabled)
			continue;
		r->enabled++;
		if (c->apic_id == bsp->apic_id)
			continue;
		if (!lapic_x2apic_mode() && c->apic_id > XAPIC_MAX_ID)
			continue; /* reported below */
		lapic_send_ipi(c->apic_id, APIC_DM_INIT, 0, APIC_DEST_NONE);
	}
	udelay(INIT_DEASSERT_DELAY_US);
	r->init_us = tsc_to_us(rdtsc() - t0);

	uint8_t vector = (uint8_t)(trampoline_phys >> 12);
	for (unsigned i = 0; i < madt->ncpus && percpu_count < MAX_CPUS; i++) {
		const struct acpi_cpu *c = &madt->cpus[i];
		if (!c->enabled || c->apic_id == bsp->apic_id)
			continue;
		if (!lapic_x2apic_mode() && c->apic_id > XAPIC_MAX_ID) {
			kprintf("smp: APIC ID %u needs x2APIC, which this CPU lacks; skipped\n",
				c->apic_id);
			r->failed++;
			continue;
		}
		struct percpu *p = new_percpu(percpu_count, c);
		if (!p || !start_ap(p, vector)) {
			kprintf("smp: CPU with APIC ID %u did not come online within %u us; "
				"skipped\n",
				c->apic_id, AP_START_TIMEOUT_US);
			r->failed++;
			continue;
		}
		percpu_by_index[percpu_count++] = p;
		r->online++;
	}
	paging_set_identity_exec(trampoline_phys, false);
	r->bringup_us = tsc_to_us(rdtsc() - t0);
}

bool smp_call_post(unsigned index, void (*fn)(void *), void *arg, uint64_t *seq)
{
	if (index >= percpu_count || percpu_by_index[index] == this_cpu())
		return false;
	struct percpu *p = percpu_by_index[index];
	/* a CPU still in its last call (one that showed no progress) is never given another: the
	 * new call would run inside the old one's when it next takes interrupts */
	if (__atomic_load_n(&p->call_done, __ATOMIC_ACQUIRE) != p->call_seq)
		return false;
	p->call_fn = fn;
	p->call_arg = arg;
	*seq = p->call_seq + 1;
	__atomic_store_n(&p->call_seq, *seq, __ATOMIC_RELEASE);
	return lapic_send_ipi(p->apic_id, APIC_DM_FIXED, VEC_IPI_CALL, APIC_DEST_NONE);
}

bool smp_call_finished(unsigned index, uint64_t seq)
{
	return index < percpu_count &&
	       __atomic_load_n(&percpu_by_index[index]->call_done, __ATOMIC_ACQUIRE) == seq;
}

bool smp_call_wait(unsigned index, uint64_t seq, uint64_t deadline)
{
	while (!smp_call_finished(index, seq)) {
		if (tsc_passed(deadline))
			return false;
		cpu_pause();
	}
	return true;
}

bool smp_run_on_cpu_within(unsigned index, void (*fn)(void *), void *arg, uint64_t timeout_us)
{
	if (index >= percpu_count)
		return false;
	struct percpu *p = percpu_by_index[index];
	if (p == this_cpu()) {
		fn(arg);
		p->calls_run++;
		return true;
	}
	uint64_t seq;
	return smp_call_post(index, fn, arg, &seq) &&
	       smp_call_wait(index, seq, tsc_deadline(timeout_us));
}

static unsigned run_on_many(void (*fn)(void *), void *arg, bool include_self, uint64_t timeout_us)
{
	unsigned done = 0;
	struct percpu *self = this_cpu();
	uint64_t seqs[MAX_CPUS];
	bool posted[MAX_CPUS];
	for (unsigned i = 0; i < percpu_count; i++)
		posted[i] = percpu_by_index[i] != self && smp_call_post(i, fn, arg, &seqs[i]);
	if (include_self) {
		fn(arg);
		self->calls_run++;
		done++;
	}
	uint64_t end = tsc_deadline(timeout_us);
	for (unsigned i = 0; i < percpu_count; i++) {
		struct percpu *p = percpu_by_index[i];
		if (p == self)
			continue;
		if (posted[i] && smp_call_wait(i, seqs[i], end))
			done++;
		else
			kprintf("smp: CPU %u (APIC ID %u) did not finish a cross-call in time\n",
				p->index, p->apic_id);
	}
	return done;
}

bool arch_run_on_cpu(unsigned index, void (*fn)(void *), void *arg)
{
	return smp_run_on_cpu_within(index, fn, arg, CROSS_CALL_TIMEOUT_US);
}

unsigned arch_run_on_all(void (*fn)(void *), void *arg)
{
	return run_on_many(fn, arg, true, CROSS_CALL_TIMEOUT_US);
}

unsigned arch_run_on_aps(void (*fn)(void *), void *arg)
{
	return run_on_many(fn, arg, false, CROSS_CALL_TIMEOUT_US);
}

unsigned arch_cpu_count(void)
{
	return percpu_count;
}

unsigned arch_cpu_index(void)
{
	return this_cpu()->index;
}

uint32_t arch_cpu_apic_id(unsigned index)
{
	return index < percpu_count ? percpu_by_index[index]->apic_id : UINT32_MAX;
}
