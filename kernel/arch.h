/* SPDX-License-Identifier: MIT */
/*
 * The interface generic kernel code (kernel/) uses to reach the architecture. kernel/ includes
 * this header, never arch/x86 internals; arch/x86 implements it.
 */
#ifndef KERNEL_ARCH_H
#define KERNEL_ARCH_H

#include "kernel/arch_workloads.h"
#include "lib/elf_user.h"
#include "lib/x86_step.h"
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

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
};

/* ---- consoles (README "Consoles") ---- */
enum console_source {
	CONSOLE_AUTO, /* config UART, SPCR, DBG2, PCI, legacy COM1-COM4: the first that works */
	CONSOLE_SPCR, /* only what these name */
	CONSOLE_DBG2,
	CONSOLE_PCI,
	CONSOLE_LEGACY,
	CONSOLE_NONE, /* no serial console: screen only */
};

struct console_request {
	uint32_t source;	/* enum console_source */
	uint64_t port, mmio;	/* a UART the config names (0: none) */
	uint32_t stride, width; /* 0: as its source says */
	uint32_t clock;		/* input clock in Hz, 0: as its source says */
	uint32_t baud;
	bool rtscts;
};

enum console_outcome {
	CONSOLE_KEPT,	     /* the early UART (COM1 at 115200) stays */
	CONSOLE_MOVED,	     /* another UART, or another rate: earlier lines not yet on it */
	CONSOLE_ABSENT,	     /* no UART at all */
	CONSOLE_BAD_REQUEST, /* the request cannot be met (err says why; a UART prints it) */
};

/* COM1 at 115200 when a UART answers there: the console until arch_console_setup. */
void arch_console_early(void);
/* Find the console as rq asks, printing each step; err set for CONSOLE_BAD_REQUEST. */
enum console_outcome arch_console_setup(const struct boot_info *bi,
					const struct console_request *rq, char *err,
					size_t err_size);
/* The serial console (nothing when there is none). */
void arch_console_write(const char *s, size_t n);
/* One line for headers: "PCI 00:03.0 1b36:0002 io 0xc000 115200 8N1" or "none". */
void arch_console_describe(char *buf, size_t size);
/* The UEFI GOP framebuffer as a text console; false with the reason when there is none. */
bool arch_screen_init(const struct boot_info *bi, char *why, size_t why_size);
void arch_screen_write(const char *s, size_t n);
bool arch_screen_active(void);

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

/* Test only (option ss.skip): the single-step engine leaves out every Nth trap whose path the
 * code decides, as a platform that skips single-step traps would, so that the step hooks must
 * rebuild the path (arch_step_rebuild); 0 = none. */
void arch_set_step_skip(unsigned every);
/* What a single-stepped run counted (arch_single_step). */
struct arch_step_counts {
	uint64_t steps;		 /* instructions retired under the trap flag */
	uint64_t rep_iterations; /* REP string iterations trapped (not steps, not branches) */
	uint64_t rebuilt;	 /* traps that stood for more than one instruction (their path
				  * rebuilt from the code, arch_step_rebuild) */
	uint64_t escaped_at;	 /* 0, or the instruction after which no trap came any more */
};
/* Run fn(arg) single-stepped on this CPU: on_step(ctx, retired, next) for every retired
 * instruction (with a cache, but the plain ones: x86_step_plain on the decoding made before the
 * instruction ran, no branch and on to the next one, which are only counted), on_transfer(ctx,
 * from, to, delivery) (if not NULL) for every transfer that is no instruction's branch but is
 * recorded as one (an exception's or interrupt's delivery to its handler, and the handler's
 * return). `cache` (X86_DECODE_CACHE_SIZE entries, zeroed, lib/x86_decode_cache.h) holds the
 * instructions' decodings (arch_step_decoded). Returns fn's result. */
struct x86_decoded;
uint64_t arch_single_step(uint64_t (*fn)(uint64_t), uint64_t arg,
			  void (*on_step)(void *ctx, uint64_t retired, uint64_t next),
			  void (*on_transfer)(void *ctx, uint64_t from, uint64_t to, bool delivery),
			  void *ctx, struct x86_decoded *cache, struct arch_step_counts *counts);
/* TSC cycles fn(arg) takes under the trap flag with a #DB handler that only returns (IRETQ):
 * the platform's own trap round trip per instruction, the floor under the engine's step. For
 * benchmarks, with the other CPUs idle (the IDT is shared). */
uint64_t arch_step_floor(uint64_t (*fn)(uint64_t), uint64_t arg);
/* Inside on_step: the retired instruction's decoding, made from its bytes before it ran, and
 * the next one's, from its bytes now (before it runs); NULL where the bytes are no
 * instruction. */
void arch_step_decoded(const struct x86_decoded **in, const struct x86_decoded **upcoming);
/* Inside on_step, when `next` is not where the retired instruction leads (x86_step_classify
 * said X86_STEP_REDIRECTED): the path one trap stood for, rebuilt from the code
 * (lib/x86_step.h x86_path_rebuild, reading only mapped code); the run's step count grows by
 * the instructions found. Returns their number, 0 or -1 as x86_path_rebuild. */
int arch_step_rebuild(uint64_t retired, const struct x86_step_insn *in, uint64_t next,
		      const struct x86_step_regs *after, struct x86_path_step path[X86_PATH_MAX]);
/* Inside on_step: RFLAGS (the engine's TF hidden) and RCX after the retired instruction, what
 * lib/x86_step.h needs to tell a taken conditional branch. */
void arch_step_regs(uint64_t *rflags, uint64_t *rcx);

/*
 * Trace sessions (option `trace` and its companions, kernel/options.c): typed values, parsed
 * and checked once at boot; the architecture's drivers turn them into register values.
 */
enum trace_facility {
	TRACE_BTS,    /* circular BTS, read after the run */
	TRACE_BTSINT, /* BTS drained by its threshold PMIs */
	TRACE_LBR,    /* legacy or Architectural LBR, as the CPU has */
	TRACE_PEBS,
	TRACE_BTF, /* single-step on branches */
	TRACE_PMC, /* counter-overflow sampling */
	TRACE_FACILITIES,
};
enum trace_cpus { TRACE_CPUS_BOOT, TRACE_CPUS_EACH, TRACE_CPUS_ALL };
enum trace_ring { TRACE_RING_ALL, TRACE_RING_USER, TRACE_RING_KERNEL };
enum trace_leak { TRACE_LEAK_FILTER, TRACE_LEAK_FLAG };
/* stream: the records also as the checked record stream (lib/stream.h, tools/btdecode). */
enum trace_stream { TRACE_STREAM_OFF, TRACE_STREAM_TEXT, TRACE_STREAM_BINARY };

/* lbr.filter: the seven branch classes of LBR_SELECT bits 2-8 and LBR_CTL bits 16-22 (SDM Vol.
 * 3B 17.7.2 Table 17-11, 17.8 Table 17-12; Architectural LBR: IA32_LBR_CTL), the rings, and
 * call-stack mode (SDM 17.9). No ring means both; no class means every class. */
#define TRACE_LBR_COND		0x001u /* Jcc */
#define TRACE_LBR_NEAR_REL_CALL 0x002u
#define TRACE_LBR_NEAR_IND_CALL 0x004u
#define TRACE_LBR_NEAR_RET	0x008u
#define TRACE_LBR_NEAR_IND_JMP	0x010u
#define TRACE_LBR_NEAR_REL_JMP	0x020u
#define TRACE_LBR_FAR		0x040u /* far branches, interrupts, exceptions, SYSCALL */
#define TRACE_LBR_CLASSES	0x07fu
#define TRACE_LBR_USER		0x100u /* branches ending in ring > 0 */
#define TRACE_LBR_KERNEL	0x200u /* branches ending in ring 0 */
#define TRACE_LBR_CALL_STACK	0x400u /* LIFO call-stack mode: near calls and returns only */

/* freeze: DEBUGCTL bits 11, 12, 14 (SDM Vol. 3B 17.4.7). */
#define TRACE_FREEZE_LBRS    0x1u
#define TRACE_FREEZE_PERFMON 0x2u
#define TRACE_FREEZE_SMM     0x4u

/* pebs.event */
enum trace_pebs_event {
	TRACE_PEBS_INSTRUCTIONS, /* on pebs.counter */
	TRACE_PEBS_BRANCHES,	 /* on pebs.counter */
	TRACE_PEBS_LOADS,	 /* on pebs.counter, load latency with pebs.ldlat */
	TRACE_PEBS_FIXED0,	 /* extended PEBS on fixed counter 0 */
	TRACE_PEBS_ALL_LOADS,	 /* every retired load instruction, with its data address */
	TRACE_PEBS_STORES,	 /* every retired store instruction, with its data address */
};

/* pebs.groups: adaptive PEBS record groups after the basic one. */
#define TRACE_PEBS_MEMINFO 0x1u
#define TRACE_PEBS_GPR	   0x2u
#define TRACE_PEBS_XMM	   0x4u
#define TRACE_PEBS_LBR	   0x8u

struct trace_options {
	uint64_t cpus;	      /* enum trace_cpus */
	uint64_t bts_ring;    /* enum trace_ring */
	uint64_t bts_leak;    /* enum trace_leak */
	uint64_t bts_records; /* 0: the mode's default */
	uint64_t lbr_filter;  /* TRACE_LBR_* */
	uint64_t lbr_depth;   /* Architectural LBR; 0 = the deepest */
	uint64_t freeze;      /* TRACE_FREEZE_* */
	uint64_t pebs_event;  /* enum trace_pebs_event */
	uint64_t pebs_groups; /* TRACE_PEBS_* adaptive groups */
	uint64_t pebs_counter;
	uint64_t pebs_period;
	uint64_t pebs_kib;
	uint64_t pebs_ldlat; /* load-latency threshold in cycles; 0 = off */
	uint64_t pmc_period;
	uint64_t spmu_drop; /* test only: the model misses the Nth taken branch of a run; 0 = off */
	uint64_t stream;    /* enum trace_stream */
	uint64_t stream_path; /* BTS records along the code (lib/stream_path.h): 1 on, 0 off */
	uint64_t stream_live; /* records streamed during the run (session/output.h): 1 on, 0 off */
	uint64_t store_kib;   /* per CPU store of a run's records; 0: sized from free memory */
};

/* The software PMU's personalities (option spmu), by index: the name, or NULL past the last.
 * *explicit_only: left out of spmu=all (a guest's view rather than a processor: kvm). Pure data:
 * the host build of the option parser links it too. */
const char *arch_spmu_name(unsigned i, bool *explicit_only);
#define TRACE_NO_PERSONALITY (-1) /* spmu=none: the hardware or SKIP */

/* One facility over one workload, with the options (kernel/tracing.c builds it). */
struct trace_request {
	enum trace_facility facility;
	const char *facility_name; /* bts btsint lbr pebs btf pmc */
	int personality;	   /* arch_spmu_name()'s index, or TRACE_NO_PERSONALITY */
	const char *workload;
	uint64_t (*fn)(uint64_t);
	uint64_t arg;
	uint64_t expect;    /* fn(arg)'s result: a run that returns another is a failure */
	bool expect_native; /* expect is instead what a native run on the same CPU returns */
	/* what a capture of one run must hold, from the workload's source; NULL: none */
	const struct workload_signature *signature;
	void (*reset)(void); /* before each run, on the CPU that runs it; or NULL */
	/* after each run, on that CPU: says how it ended with print (NULL: a native run, quiet) */
	void (*done)(workload_print_fn print);
	bool concurrent; /* may run on several CPUs at once */
	const struct trace_options *opt;
};

/* How a capture went: every CPU's session passed, one failed, or every one was skipped (the
 * facility is absent and no software PMU stands in). */
enum trace_outcome { TRACE_PASSED, TRACE_FAILED, TRACE_SKIPPED };

/* Capture the workload with the facility on the CPUs the options ask for: on the hardware
 * when it has the facility, else on the software PMU presenting as `personality` (or SKIP
 * with the reason). Prints the records. */
enum trace_outcome arch_trace_workload(const struct trace_request *req);

/* The self-checks printed so far (a TAP line each: "ok N - selfcheck FACILITY LABEL ..."). */
struct arch_selfcheck_tally {
	unsigned checks, failed, skipped;
};
void arch_selfcheck_tally(struct arch_selfcheck_tally *out);
/* How many CPUs have facility f in hardware (the rest use the software PMU, or skip). */
unsigned arch_facility_hardware_cpus(enum trace_facility f);

/* Bench: the PMI/DS service routine's path length in instructions per PMI and per record
 * (arch/x86/session/isr_bench.c); false if it misbehaves or exceeds its bound. */
bool arch_bench_isr(void);

/* User programs (arch/x86/cpu/usermode.c): map a checked program's segments (copies of the
 * file's bytes, bss zeroed, each page with its segment's W and X) and a stack of stack_pages
 * below stack_top (a guard page under it); false, said, when memory or a mapping fails. */
bool arch_user_program_map(const struct elf_user_image *img, uint64_t stack_top,
			   uint64_t stack_pages);
/* Put the writable segments and the stack back as the file has them (before every run). */
void arch_user_program_reset(const struct elf_user_image *img, uint64_t stack_top,
			     uint64_t stack_pages);
/* Ring 3 at `entry` with RSP = stack_top and RDI = arg; returns the status the program gives
 * SYS_EXIT, or USER_STATUS_ENDED | ... when the kernel ended it (arch/x86/user/entry.S). */
uint64_t arch_user_enter(uint64_t entry, uint64_t stack_top, uint64_t arg);

/* A user program's run on one CPU (arch/x86/user/run.c). Statuses with bit 63 set are the
 * kernel's (include/baretrace/user.h: an exit status is below 2^63): a fault in ring 3 gives
 * USER_STATUS_ENDED | vector << 48 | the faulting RIP's low 48 bits (the same fault gives the
 * same status in the native and the traced run), the watchdog USER_STATUS_WATCHDOG. */
#define USER_STATUS_ENDED    (1ull << 63)
#define USER_STATUS_WATCHDOG (USER_STATUS_ENDED | (1ull << 62))
enum user_end_kind { USER_END_EXIT, USER_END_FAULT, USER_END_WATCHDOG };
struct user_run_params {
	uint64_t watchdog_ms; /* 0: no watchdog */
	bool roi_marks;	      /* capture only between BT_SYS_ROI_BEGIN and _END */
	/* the memory a system call's pointer may name: the program's segments and its stack */
	const struct elf_user_image *img;
	uint64_t stack_lo, stack_hi;
};
struct user_run_end {
	enum user_end_kind kind;
	unsigned cpu;
	uint32_t vector; /* USER_END_FAULT: the exception */
	uint64_t error_code, rip, cr2;
	bool has_cr2;	     /* a #PF: cr2 is its linear address */
	uint64_t elapsed_us; /* from arch_user_run_begin */
	const char *output;  /* what the program wrote (BT_SYS_WRITE), output_len bytes */
	uint64_t output_len, output_dropped; /* bytes kept; bytes past the buffer, dropped */
	uint64_t output_room;		     /* the buffer's size */
};
/* Before each run on this CPU (not stepped, not traced): output cleared, watchdog armed. */
void arch_user_run_begin(const struct user_run_params *p);
/* After it: watchdog disarmed, how the run ended and what it wrote (valid until the next
 * arch_user_run_begin on this CPU). */
void arch_user_run_end(struct user_run_end *e);
/* "#PF page fault", ... for an exception vector. */
const char *arch_exception_name(uint64_t vector);

/* CPU identification for the banner: fills `out` with a one-line description. */
void arch_describe_cpu(char *out, size_t size);
/*
 * The machine's part of the hardware report (kernel/report.c), one line per put() call:
 * microcode, each CPU's capabilities (identical CPUs grouped), where each facility ran. Then
 * arch_report_oddities() puts one line per oddity (an MSR the hardware refused, CPUs that
 * differ, a hypervisor's rules) and returns how many it put.
 */
void arch_report_machine(workload_print_fn put);
unsigned arch_report_oddities(workload_print_fn put);
/* stream=text or binary: the wire (binary true: raw frames; else "@BT1 " base64 lines) and the
 * record stream's HEADER frames (lib/stream.h), from the boot CPU. */
void arch_trace_stream_header(bool binary);
/* Another HEADER frame, of the run's own "key=value" strings (options, program). */
void arch_trace_stream_pairs(const char *const *pairs, unsigned n);
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

#endif
