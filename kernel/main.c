/* SPDX-License-Identifier: MIT */
/*
 * kernel_main: from the loader's hand-off to a finished run. Console first (so every later
 * problem can be reported), then options, memory, the architecture (GDT/TSS/IDT, own page
 * tables), the banner and reports, the selected self-tests, and the exit status.
 */
#include "kernel/arch_console.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_step.h"
#include "kernel/arch_trace.h"
#include "kernel/boot_info.h"
#include "kernel/build_id.h"
#include "kernel/report.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "kernel/memmap.h"
#include "kernel/memory.h"
#include "kernel/options.h"
#include "kernel/program.h"
#include "kernel/selftest.h"
#include "kernel/sstrace.h"
#include "kernel/tracing.h"
#include "kernel/workloads.h"
#include "kernel/version.h"
#include "lib/fmt.h"

/* The single-step engine's options: ss.block, ss.stats, and test.ss.skip of a test build. */
static void step_options(const struct kernel_options *o)
{
	arch_set_step_skip((unsigned)o->ss_skip);
	arch_set_step_block(o->ss_block != 0);
	arch_set_step_xlate(o->ss_block != 0 && o->ss_xlate != 0);
	arch_set_step_stats(o->ss_stats != 0);
	arch_set_step_xlate_map(o->ss_xlate_map != 0);
}

_Noreturn void kernel_main(const struct boot_info *bi);

static uint64_t tsc_kernel_entry;

static void console_put(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	arch_console_write(s, n);
}

static void print_options(const char *title)
{
	kprintf("%s (in %s or as UEFI load options):\n", title, BOOT_CONFIG_PATH + 1);
	options_describe(console_put, NULL);
}

static void consoles_up(const struct boot_info *bi, const struct kernel_options *o);

static _Noreturn void fail_config(const struct boot_info *bi, const char *msg)
{
	struct kernel_options defaults;
	options_defaults(&defaults);
	consoles_up(bi, &defaults); /* the error reaches whichever console the machine has */
	kprintf("error: %s\n", msg);
	print_options("accepted options");
	arch_exit(RUN_BAD_CONFIG);
}

static void warn_option(void *ctx, const char *line)
{
	(void)ctx;
	kprintf("warning: %s\n", line);
}

/* What the requested parts of a run came to: failed if any failed, incomplete if a capture did
 * not deliver every record, skipped if every one that ran was skipped (a facility the CPU
 * lacks), else passed; nothing requested passes. */
struct tally {
	unsigned passed, failed, skipped, incomplete;
};

static void tally_add(struct tally *t, enum run_status s)
{
	t->passed += s == RUN_PASS;
	t->failed += s == RUN_FAIL;
	t->skipped += s == RUN_SKIP;
	t->incomplete += s == RUN_INCOMPLETE;
}

static enum run_status tally_status(const struct tally *t)
{
	if (t->failed)
		return RUN_FAIL;
	if (t->incomplete)
		return RUN_INCOMPLETE;
	return t->skipped && !t->passed ? RUN_SKIP : RUN_PASS;
}

/*
 * The consoles (docs/hardware.md "Consoles"): the serial console found as the options ask, the
 * screen when there is a framebuffer; each new one first gets the log printed so far. A rate the
 * UART found cannot make is bad input; no UART at all is said on the screen, with what was tried.
 */
static void consoles_up(const struct boot_info *bi, const struct kernel_options *o)
{
	struct console_request rq = {
	    .source = (uint32_t)o->serial,
	    .port = o->serial_port,
	    .mmio = o->serial_mmio,
	    .stride = (uint32_t)o->serial_stride,
	    .width = (uint32_t)o->serial_width,
	    .clock = (uint32_t)o->serial_clock,
	    .baud = (uint32_t)o->serial_baud,
	    .rtscts = o->serial_flow != 0,
	};
	char why[400];
	enum console_outcome out = arch_console_setup(bi, &rq, why, sizeof(why));
	if (out == CONSOLE_MOVED || out == CONSOLE_BAD_REQUEST)
		console_replay_serial();
	char screen[160];
	if (o->screen && arch_screen_init(bi, screen, sizeof(screen))) {
		console_replay_screen();
		kprintf("console: screen %s (the log; records stay on the serial line)\n", screen);
	} else if (!o->screen) {
		fmt_snprintf(screen, sizeof(screen), "off (screen=off)");
	}
	console_settle();
	if (out == CONSOLE_ABSENT) {
		char line[600];
		fmt_snprintf(line, sizeof(line),
			     "console: no serial console: %s. The log is on the screen only; "
			     "options serial.port, serial.mmio and serial=... name a UART",
			     why);
		kprintf("%s\n", line);
		console_set_exit_note(line); /* said again last, where the screen shows it */
		return;
	}
	char line[200];
	arch_console_describe(line, sizeof(line));
	kprintf("console: %s\n", line);
	if (!arch_screen_active())
		kprintf("console: no screen: %s\n", screen);
	if (out == CONSOLE_BAD_REQUEST) {
		kprintf("error: %s\n", why);
		arch_exit(RUN_BAD_CONFIG);
	}
}

static void print_memmap(const struct memmap *mm, enum memmap_detail detail)
{
	struct memmap_summary s;
	memmap_summarize(mm, &s);
	kprintf("memory map: %zu ranges; usable %lu MiB in %lu ranges, loader %lu KiB, "
		"reserved %lu KiB, ACPI %lu KiB, MMIO %lu KiB; top of usable RAM %#lx\n",
		mm->count, s.pages_by_type[BOOT_MEM_USABLE] * PAGE_SIZE >> 20,
		s.ranges_by_type[BOOT_MEM_USABLE], s.pages_by_type[BOOT_MEM_LOADER] * 4,
		s.pages_by_type[BOOT_MEM_RESERVED] * 4,
		(s.pages_by_type[BOOT_MEM_ACPI_RECLAIM] + s.pages_by_type[BOOT_MEM_ACPI_NVS]) * 4,
		s.pages_by_type[BOOT_MEM_MMIO] * 4, s.usable_top);
	if (detail != MEMMAP_FULL)
		return;
	for (size_t i = 0; i < mm->count; i++) {
		const struct boot_mem_range *r = &mm->ranges[i];
		kprintf("  [%#014lx-%#014lx) %-12s efi type %2u attr %#lx\n", r->phys,
			r->phys + r->pages * PAGE_SIZE, memmap_type_name(r->type), r->efi_type,
			r->attr);
	}
}

static void print_banner(const struct boot_info *bi)
{
	char id[2 * BUILD_ID_MAX + 1], cpu[200];
	build_id_hex(id, sizeof(id));
	arch_describe_cpu(cpu, sizeof(cpu));
	kprintf("\nbaretrace %s (boot_info v%u) build-id %s\n", BARETRACE_VERSION, bi->version, id);
	kprintf("kernel image: virt %#lx phys %#lx size %lu KiB; firmware: %s rev %#x\n",
		bi->kernel_virt_base, bi->kernel_phys_base, bi->kernel_size >> 10, bi->fw_vendor,
		bi->fw_revision);
	kprintf("cpu: %s\n", cpu);
}

/*
 * bench=console: the serial console's throughput, 256 KiB of record-stream-like text lines
 * written as the trace output is (bursts of whole lines), timed by the TSC. On hardware the
 * line rate bounds it (115200 baud 8N1: 11,520 bytes/s); QEMU's 16550 does not pace bytes.
 */
#define BENCH_CONSOLE_BYTES (256u << 10)
static bool bench_console(const struct boot_info *bi)
{
	static const char line[] =
	    "@BT1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEy\n";
	char link[200];
	arch_console_describe(link, sizeof(link));
	uint64_t start = arch_timestamp();
	size_t sent = 0;
	while (sent < BENCH_CONSOLE_BYTES) {
		arch_console_write(line, sizeof(line) - 1);
		sent += sizeof(line) - 1;
	}
	uint64_t cycles = arch_timestamp() - start, khz = bi->tsc_hz / 1000;
	if (!khz || !cycles) {
		kprintf("bench-console: TSC rate unknown\n");
		return false;
	}
	uint64_t us = cycles * 1000 / khz;
	kprintf("\nbench-console: %zu bytes in %lu us: %lu bytes/s over %s\n", sent, us,
		us ? (uint64_t)sent * 1000000 / us : 0, link);
	return true;
}

/* Boot time: loader entry -> kernel ready, from the TSC (rate measured by the loader). */
static void print_boot_time(const struct boot_info *bi)
{
	uint64_t now = arch_timestamp();
	uint64_t total = now - bi->tsc_loader_entry, kernel = now - tsc_kernel_entry;
	uint64_t khz = bi->tsc_hz / 1000;
	if (khz == 0) {
		kprintf(
		    "boot-time: loader entry -> kernel ready %lu TSC cycles (TSC rate unknown)\n",
		    total);
		return;
	}
	kprintf("boot-time: loader entry -> kernel ready %lu us (%lu cycles; kernel part %lu us; "
		"TSC %lu kHz)\n",
		total * 1000 / khz, total, kernel * 1000 / khz, khz);
}

/* The trace sessions, after what they need is checked: memory for their buffers, the stick
 * trace.out names; a setting that cannot work ends the run here, before the first session. */
static enum run_status run_traces(const struct boot_info *bi, const struct kernel_options *o,
				  struct tracing_summary *sum)
{
	char why[512];
	if (!arch_trace_check_memory(&o->tr, program_linux_loaded(), why, sizeof(why))) {
		kprintf("error: %s\n", why);
		arch_exit(RUN_BAD_CONFIG);
	}
	tracing_given_options(bi->options, bi->config);
	if (!tracing_stream_out(o, why, sizeof(why))) {
		kprintf("error: %s\n", why);
		arch_exit(RUN_BAD_CONFIG);
	}
	enum trace_outcome out = tracing_run(o, sum);
	return out == TRACE_FAILED	 ? RUN_FAIL
	       : out == TRACE_INCOMPLETE ? RUN_INCOMPLETE
	       : out == TRACE_SKIPPED	 ? RUN_SKIP
					 : RUN_PASS;
}

_Noreturn void kernel_main(const struct boot_info *bi_phys)
{
	/* The loader passes a physical address; the kernel reaches memory through the direct
	 * map (kernel/boot_info.h), and its own tables have no identity map. */
	const struct boot_info *bi = arch_phys_to_virt((uint64_t)bi_phys);
	tsc_kernel_entry = arch_timestamp();
	kernel_set_boot_info(bi);
	arch_console_early();
	arch_early_init();
	if (bi->magic != BOOT_INFO_MAGIC || bi->version != BOOT_INFO_VERSION) {
		kprintf("error: boot_info magic %#lx version %u; this kernel accepts magic %#llx "
			"version %u: loader and kernel do not match\n",
			bi->magic, bi->version, BOOT_INFO_MAGIC, BOOT_INFO_VERSION);
		arch_exit(RUN_FAIL);
	}

	struct kernel_options opts;
	char err[512];
	options_defaults(&opts);
	if (!options_parse(bi, &opts, err, sizeof(err), warn_option, NULL))
		fail_config(bi, err);
	arch_set_exit_mode((enum exit_mode)opts.exit_mode);
	arch_set_exit_hold((unsigned)opts.screen_hold_s);
	step_options(&opts);
	print_banner(bi);
	if (opts.ss_skip) /* a test build's knob: never silently */
		kprintf(
		    "warning: option test.ss.skip=%lu (a test build, make test-knobs): the "
		    "single-step engine leaves out every %lu-th trap it may and rebuilds the path "
		    "from the code; a trace taken with it is no user's trace\n",
		    (unsigned long)opts.ss_skip, (unsigned long)opts.ss_skip);
	consoles_up(bi, &opts);
	struct memmap mm = {arch_phys_to_virt(bi->mmap), bi->mmap_count};
	if (!memory_init(&mm) || !arch_init(bi, &mm))
		arch_exit(RUN_FAIL);
	print_memmap(&mm, (enum memmap_detail)opts.memmap);
	arch_smp_init(bi, opts.pmi == PMI_NMI);
	print_boot_time(bi);
	kprintf("kernel ready\n");

	if (opts.help)
		print_options("options");
	if (opts.fault != FAULT_NONE) {
		kprintf("fault: raising the requested exception now\n");
		arch_trigger_fault((enum fault_kind)opts.fault);
		kprintf("error: the requested fault did not happen\n");
		arch_exit(RUN_FAIL);
	}
	struct tally t = {0};
	struct elf_user_image prog;
	bool have_program = false;
	enum run_status ps = program_check(bi, &opts, &prog, &have_program);
	if (ps != RUN_PASS)
		arch_exit(ps);
	if (have_program && !program_load(&prog, &opts))
		arch_exit(RUN_FAIL);
	bool default_session = options_none_given(bi);
	if (opts.report && !opts.trace.n) {
		kprintf("report: asked for (report=1) without trace=: the default session first\n");
		default_session = true;
	}
	if (default_session) {
		kprintf("default session: no config file and no options: every facility over the "
			"workload library on every CPU, self-checked (any option chooses instead; "
			"help=1 lists them)\n");
		options_default_session(&opts);
	}
	static struct tracing_summary sum; /* large: not on the stack */
	if (opts.ss.n)
		tally_add(&t, sstrace_run(&opts.ss, &opts) ? RUN_PASS : RUN_FAIL);
	if (opts.trace.n)
		tally_add(&t, run_traces(bi, &opts, &sum));
	if (opts.bench == BENCH_ISR)
		tally_add(&t, arch_bench_isr() ? RUN_PASS : RUN_FAIL);
	if (opts.bench == BENCH_CONSOLE)
		tally_add(&t, bench_console(bi) ? RUN_PASS : RUN_FAIL);
	if (opts.selftest.n)
		tally_add(&t, selftest_run(&opts.selftest));
	enum run_status status = tally_status(&t);
	bool program_bad = program_ended_badly() && status != RUN_FAIL; /* its input, status 2 */
	unsigned errors = console_error_lines();
	if (!program_bad && errors && (status == RUN_PASS || status == RUN_SKIP)) {
		/* README "The result contract": an error said is never a pass */
		kprintf("run: %u line(s) above said error: the run fails\n", errors);
		status = RUN_FAIL;
	}
	if (opts.report)
		report_print(bi, opts.trace.n ? &sum : NULL,
			     run_status_name(program_bad ? RUN_BAD_CONFIG : status));
	if (program_bad) {
		kprintf(
		    "error: program '%s' faulted, never ended, or its threads could not go on (its "
		    "report above): the boot ends with status 2, bad input\n",
		    bi->program_path);
		arch_exit(RUN_BAD_CONFIG);
	}
	arch_exit(status);
}
