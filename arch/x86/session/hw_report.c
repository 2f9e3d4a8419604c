/* SPDX-License-Identifier: MIT */
/*
 * The machine's part of the hardware report (kernel/report.c): microcode, each CPU's capability
 * record in one line (identical CPUs grouped) with its raw inputs so it can be decoded again on
 * a host, the facilities a CPU lacks and why; then the oddities: PMU MSRs the hardware refused,
 * CPUs that differ without being hybrid, a hypervisor and its rules, an unreadable microcode
 * revision on bare metal. And the record stream's HEADER (the same identity, for a decoder).
 */
#include "arch/x86/caps/caps.h"
#include "arch/x86/caps/report.h"
#include "arch/x86/cpu/microcode.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/session/output.h"
#include "arch/x86/usb/stick.h"
#include "kernel/console.h"
#include "arch/x86/smp/timer.h"
#include "kernel/arch_console.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_report.h"
#include "kernel/arch_trace.h"
#include "kernel/arch_workloads.h"
#include "kernel/build_id.h"
#include "kernel/version.h"
#include "lib/fmt.h"
#include "lib/stream.h"
#include "lib/string.h"

#define LINE_MAX_LEN 400
#define CPU_DESC_MAX 160

static uint32_t microcode[MAX_CPUS];
static bool microcode_ok[MAX_CPUS];

static void read_microcode(void *arg)
{
	(void)arg;
	unsigned i = arch_cpu_index();
	microcode_ok[i] = cpu_microcode_revision(&microcode[i]);
}

/* "cpu 3" or "cpus 0-3" for CPUs first..last. */
static void cpu_range(char *out, size_t size, unsigned first, unsigned last)
{
	if (first == last)
		fmt_snprintf(out, size, "cpu %u", first);
	else
		fmt_snprintf(out, size, "cpus %u-%u", first, last);
}

static void caps_line(const struct trace_caps *c, char *out, size_t size)
{
	const struct tc_perfmon *p = &c->perfmon;
	char lbr[64] = "", pebs[48] = "";
	if (c->lbr.kind == TC_LBR_LEGACY)
		fmt_snprintf(lbr, sizeof(lbr), " format %u depth %u", c->lbr.format, c->lbr.depth);
	else if (c->lbr.kind == TC_LBR_ARCH)
		fmt_snprintf(lbr, sizeof(lbr), " depth %u", c->lbr.depth);
	if (c->pebs.kind == TC_PEBS_YES)
		fmt_snprintf(pebs, sizeof(pebs), " format %u%s", c->pebs.format,
			     c->pebs.adaptive ? " adaptive" : "");
	fmt_snprintf(out, size,
		     "%s %02x_%02xH stepping %u%s%s: lbr %s%s, bts %s, pebs %s%s, freeze %s, "
		     "perfmon v%u %u GP x %u bit + %u fixed",
		     trace_caps_vendor_name(c->vendor), c->family, c->model, c->stepping,
		     c->hybrid ? ", hybrid core " : "",
		     c->hybrid ? trace_caps_core_type_name(c->core_type) : "",
		     trace_caps_lbr_name(c->lbr.kind), lbr, trace_caps_bts_name(c->bts.kind),
		     trace_caps_pebs_name(c->pebs.kind), pebs,
		     trace_caps_freeze_name(c->freeze.kind), p->version, p->gp_counters,
		     p->gp_width, p->fixed_counters);
}

/* The snapshot's inputs, as trace_caps_decode() takes them; CPUID.01H:EBX[31:24], the initial
 * APIC ID, is left out so that equal CPUs group. */
static void raw_line(const struct cpu_snapshot *s, char *out, size_t size)
{
	fmt_snprintf(
	    out, size,
	    "raw: max-leaf %#x 01H %08x %08x %08x %08x 0AH %08x %08x %08x %08x 07H.EDX %08x "
	    "1CH.EAX %08x perf-cap %s%#lx misc-enable %s%#lx hv \"%s\"",
	    s->max_basic_leaf, s->leaf_01.eax, (uint32_t)(s->leaf_01.ebx & ~C01_EBX_APIC_ID),
	    s->leaf_01.ecx, s->leaf_01.edx, s->leaf_0a.eax, s->leaf_0a.ebx, s->leaf_0a.ecx,
	    s->leaf_0a.edx, s->leaf_07.edx, s->leaf_1c.eax,
	    s->has_perf_capabilities ? "" : "(unread) ", s->perf_capabilities,
	    s->has_misc_enable ? "" : "(unread) ", s->misc_enable, s->hv_vendor);
}

/* A line of one kind about one CPU (which: a kind's own choice), empty for none. */
typedef void (*cpu_line_fn)(unsigned cpu, unsigned which, char *out, size_t size);

/* Every CPU's line of one kind, runs of equal lines said once. */
static void grouped(workload_print_fn put, cpu_line_fn line, unsigned which)
{
	static char cur[LINE_MAX_LEN], next[LINE_MAX_LEN];
	char who[24];
	unsigned n = arch_cpu_count(), first = 0;
	line(0, which, cur, sizeof(cur));
	for (unsigned i = 1; i <= n; i++) {
		if (i < n) {
			line(i, which, next, sizeof(next));
			if (strcmp(next, cur) == 0)
				continue;
		}
		cpu_range(who, sizeof(who), first, i - 1);
		if (cur[0])
			put("%s %s", who, cur);
		if (i < n) {
			memcpy(cur, next, sizeof(cur));
			first = i;
		}
	}
}

static void line_microcode(unsigned cpu, unsigned which, char *out, size_t size)
{
	(void)which;
	if (microcode_ok[cpu])
		fmt_snprintf(out, size, "microcode: 0x%x (IA32_BIOS_SIGN_ID[63:32]%s)",
			     microcode[cpu],
			     microcode[cpu] ? "" : "; 0: none loaded, or hidden by a hypervisor");
	else
		fmt_snprintf(out, size, "microcode: unknown (IA32_BIOS_SIGN_ID refused: #GP)");
}

static void line_caps(unsigned cpu, unsigned which, char *out, size_t size)
{
	(void)which;
	const struct trace_caps *c = caps_of_cpu(cpu);
	if (!c) {
		fmt_snprintf(out, size, "caps: none (no snapshot)");
		return;
	}
	char body[LINE_MAX_LEN - 8];
	caps_line(c, body, sizeof(body));
	fmt_snprintf(out, size, "caps: %s", body);
}

static void line_raw(unsigned cpu, unsigned which, char *out, size_t size)
{
	(void)which;
	const struct trace_caps *c = caps_of_cpu(cpu);
	out[0] = 0;
	if (c)
		raw_line(&c->raw, out, size);
}

/* The reasons a CPU lacks facilities, one line each (empty where it has them). */
static const char *lacking_reason(const struct trace_caps *c, unsigned which, const char **name)
{
	static const char *const names[] = {"lbr", "bts", "pebs", "freeze"};
	*name = names[which];
	switch (which) {
	case 0:
		return c->lbr.kind == TC_LBR_NONE ? c->lbr.reason : "";
	case 1:
		return c->bts.kind == TC_BTS_NO ? c->bts.reason : "";
	case 2:
		return c->pebs.kind == TC_PEBS_NO ? c->pebs.reason : "";
	default:
		return c->freeze.kind == TC_FREEZE_NONE ? c->freeze.reason : "";
	}
}

#define LACKING_KINDS 4
static void line_lacking(unsigned cpu, unsigned which, char *out, size_t size)
{
	const struct trace_caps *c = caps_of_cpu(cpu);
	const char *name;
	const char *why = c ? lacking_reason(c, which, &name) : "";
	out[0] = 0;
	if (*why)
		fmt_snprintf(out, size, "no %s: %s", name, why);
}

void arch_report_machine(workload_print_fn put)
{
	arch_run_on_all(read_microcode, NULL);
	grouped(put, line_microcode, 0);
	grouped(put, line_caps, 0);
	for (unsigned which = 0; which < LACKING_KINDS; which++)
		grouped(put, line_lacking, which);
	grouped(put, line_raw, 0);
}

/* The capability conclusions two CPUs of one machine should share unless it is hybrid. */
static bool same_conclusions(const struct trace_caps *a, const struct trace_caps *b)
{
	return a->lbr.kind == b->lbr.kind && a->lbr.depth == b->lbr.depth &&
	       a->lbr.format == b->lbr.format && a->bts.kind == b->bts.kind &&
	       a->pebs.kind == b->pebs.kind && a->pebs.format == b->pebs.format &&
	       a->freeze.kind == b->freeze.kind && a->perfmon.version == b->perfmon.version &&
	       a->perfmon.gp_counters == b->perfmon.gp_counters;
}

unsigned arch_report_oddities(workload_print_fn put)
{
	unsigned odd = 0, n = arch_cpu_count();
	const struct trace_caps *c0 = caps_of_cpu(0);
	for (unsigned i = 0; i < n; i++) {
		struct pmu_hw_refusals r = pmu_hardware_refusals(i);
		if (r.count) {
			put("odd: cpu %u: the hardware refused %lu PMU MSR accesses (#GP); the "
			    "first: "
			    "%s MSR %#x%s%#lx",
			    i, r.count, r.first_write ? "WRMSR" : "RDMSR", r.first_msr,
			    r.first_write ? " <- " : " ", r.first_value);
			odd++;
		}
		const struct trace_caps *c = caps_of_cpu(i);
		if (c && c0 && i && !c->hybrid && !same_conclusions(c, c0)) {
			put("odd: cpu %u's capabilities differ from cpu 0's on a part that does "
			    "not say "
			    "it is hybrid (the caps lines above)",
			    i);
			odd++;
		}
		if (c && !c->hypervisor && !microcode_ok[i]) {
			put("odd: cpu %u: IA32_BIOS_SIGN_ID refused on bare metal", i);
			odd++;
		}
	}
	if (c0 && c0->hypervisor) {
		put("odd: a hypervisor (\"%s\") is present: these are the guest's facilities, not "
		    "the "
		    "silicon's",
		    c0->raw.hv_vendor[0] ? c0->raw.hv_vendor : "unnamed");
		odd++;
		if (c0->kvm) {
			put("odd: %s", TC_KVM_RULE_BTF);
			put("odd: %s", TC_KVM_RULE_DEBUGCTL);
			odd += 2;
		}
	}
	return odd;
}

/* The record stream's HEADER: what a decoder needs to know about the machine and the kernel
 * (the build id finds kernel.elf for symbols). */
void arch_trace_stream_pairs(const char *const *pairs, unsigned n)
{
	trace_stream_header(pairs, n);
}

void arch_trace_stream_end(void)
{
	trace_stream_end(arch_cpu_count());
}

bool arch_trace_stream_out(uint64_t out, const char *about)
{
	char hex[48];
	build_id_hex(hex, sizeof(hex));
	if (trace_stream_out(out == TRACE_OUT_STICK, out == TRACE_OUT_AUTO, hex, about))
		return true;
	return out != TRACE_OUT_STICK && out != TRACE_OUT_BOTH; /* asked for: the caller refuses */
}

bool arch_trace_stick_lost(void)
{
	return stick_lost();
}

void arch_trace_stream_header(bool binary)
{
	trace_stream_wire(binary);
	static char version[48], id[64], cpu[200], micro[40], tsc[40], cpus[24], link[200];
	char hex[48], desc[CPU_DESC_MAX];
	uint32_t rev = 0;
	build_id_hex(hex, sizeof(hex));
	arch_describe_cpu(desc, sizeof(desc));
	fmt_snprintf(version, sizeof(version), "baretrace=%s", BARETRACE_VERSION);
	fmt_snprintf(id, sizeof(id), "build-id=%s", hex);
	fmt_snprintf(cpu, sizeof(cpu), "processor=%s", desc);
	if (cpu_microcode_revision(&rev))
		fmt_snprintf(micro, sizeof(micro), "microcode=0x%x", rev);
	else
		fmt_snprintf(micro, sizeof(micro), "microcode=unknown");
	fmt_snprintf(tsc, sizeof(tsc), "tsc-khz=%lu", timer_info()->tsc_hz / 1000);
	fmt_snprintf(cpus, sizeof(cpus), "cpus=%u", arch_cpu_count());
	/* the serial link the stream travels (docs/hardware.md "Consoles"): source, registers,
	 * rate, 8N1 */
	memcpy(link, "console=", 8);
	console_serial_describe(link + 8, sizeof(link) - 8);
	/* BT_END_PROMISE: tracing_run ends every streamed run with trace_stream_end's frame */
	const char *const pairs[] = {version, id, cpu, micro, tsc, BT_END_PROMISE, cpus, link};
	trace_stream_header(pairs, sizeof(pairs) / sizeof(pairs[0]));
	/* A second frame: where the kernel runs, and the boot CPU's capability record as its
	 * raw inputs (the CPUID leaves and capability MSRs arch/x86/caps decodes, so a host can
	 * decode them again: the same fields as caps-json's "raw"). */
	static char base[40], caps[360];
	extern const char __kernel_start[];
	fmt_snprintf(base, sizeof(base), "kernel-base=%#lx", (unsigned long)__kernel_start);
	const struct trace_caps *c = caps_of_cpu(0);
	if (c) {
		const struct cpu_snapshot *s = &c->raw;
		const struct cpuid_leaf_regs *l[] = {&s->leaf_01, &s->leaf_07, &s->leaf_0a,
						     &s->leaf_1a, &s->leaf_1c};
		static const char *const names[] = {"01", "07", "0a", "1a", "1c"};
		size_t n = (size_t)fmt_snprintf(caps, sizeof(caps), "caps=%s max-leaf=%#x",
						s->vendor, s->max_basic_leaf);
		for (unsigned i = 0; i < 5 && n < sizeof(caps); i++)
			n += (size_t)fmt_snprintf(caps + n, sizeof(caps) - n, " l%s=%x,%x,%x,%x",
						  names[i], l[i]->eax, l[i]->ebx, l[i]->ecx,
						  l[i]->edx);
		if (n < sizeof(caps))
			fmt_snprintf(
			    caps + n, sizeof(caps) - n, " perf-cap=%s%#lx misc-enable=%s%#lx hv=%s",
			    s->has_perf_capabilities ? "" : "none:",
			    (unsigned long)s->perf_capabilities,
			    s->has_misc_enable ? "" : "none:", (unsigned long)s->misc_enable,
			    s->hv_vendor[0] ? s->hv_vendor : "-");
	}
	const char *const more[] = {base, caps};
	trace_stream_header(more, c ? 2 : 1);
}
