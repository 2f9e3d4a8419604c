/* SPDX-License-Identifier: MIT */
#include "kernel/options.h"
#include "kernel/arch_console.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_trace.h"
#include "kernel/arch_workloads.h"
#include "kernel/selftest.h"
#include "kernel/workloads.h"
#include "kernel/workloads_c.h"
#include "lib/bits.h"
#include "lib/config.h"
#include "lib/fmt.h"
#include "lib/shell_words.h"
#include "lib/string.h"

#define SERIAL_BAUD_MIN	  50
#define SERIAL_BAUD_MAX	  4000000 /* what LPSS UARTs reach (4 Mbaud) */
#define SERIAL_PORT_MAX	  0xffff
#define SERIAL_STD_MAX	  115200 /* a PC UART's 1.8432 MHz clock at divisor 1 */
#define SERIAL_CLOCK_MAX  1000000000u
#define SERIAL_OVERSAMPLE 16 /* 16550: baud = clock / 16 / divisor */
#define SCREEN_HOLD_MAX_S 600

static const struct cfg_enum_value serial_values[] = {
    {"auto", CONSOLE_AUTO, 0},
    {"spcr", CONSOLE_SPCR, 0},
    {"dbg2", CONSOLE_DBG2, 0},
    {"pci", CONSOLE_PCI, 0},
    {"legacy", CONSOLE_LEGACY, 0},
    {"none", CONSOLE_NONE, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value flow_values[] = {
    {"none", 0, 0},
    {"rtscts", 1, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value screen_values[] = {
    {"auto", 1, 0},
    {"off", 0, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value exit_values[] = {
    {"auto", EXIT_MODE_AUTO, 0},
    {"qemu", EXIT_MODE_QEMU, 0},
    {"halt", EXIT_MODE_HALT, 0},
    {"reset", EXIT_MODE_RESET, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value fault_values[] = {
    {"none", FAULT_NONE, 0}, {"pf", FAULT_PF, 0}, {"ud", FAULT_UD, 0},	     {"gp", FAULT_GP, 0},
    {"de", FAULT_DE, 0},     {"bp", FAULT_BP, 0}, {"stack", FAULT_STACK, 0}, {NULL, 0, 0},
};

static const struct cfg_enum_value memmap_values[] = {
    {"summary", MEMMAP_SUMMARY, 0},
    {"full", MEMMAP_FULL, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value pmi_values[] = {
    {"vector", PMI_VECTOR, 0},
    {"nmi", PMI_NMI, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value bench_values[] = {
    {"none", BENCH_NONE, 0},
    {"isr", BENCH_ISR, 0},
    {"console", BENCH_CONSOLE, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value cpus_values[] = {
    {"boot", TRACE_CPUS_BOOT, 0},
    {"each", TRACE_CPUS_EACH, 0},
    {"all", TRACE_CPUS_ALL, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value ring_values[] = {
    {"all", TRACE_RING_ALL, 0},
    {"user", TRACE_RING_USER, 0},
    {"kernel", TRACE_RING_KERNEL, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value leak_values[] = {
    {"filter", TRACE_LEAK_FILTER, 0},
    {"flag", TRACE_LEAK_FLAG, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value stream_values[] = {
    {"off", TRACE_STREAM_OFF, 0},
    {"text", TRACE_STREAM_TEXT, 0},
    {"binary", TRACE_STREAM_BINARY, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value out_values[] = {
    {"auto", TRACE_OUT_AUTO, 0},
    {"serial", TRACE_OUT_SERIAL, 0},
    {"stick", TRACE_OUT_STICK, 0},
    {"both", TRACE_OUT_BOTH, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value live_values[] = {
    {"auto", TRACE_LIVE_AUTO, 0},
    {"on", TRACE_LIVE_ON, 0},
    {"off", TRACE_LIVE_OFF, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value full_values[] = {
    {"wait", TRACE_FULL_WAIT, 0},
    {"stop", TRACE_FULL_STOP, 0},
    {"wrap", TRACE_FULL_WRAP, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value on_off_values[] = {
    {"off", 0, 0},
    {"on", 1, 0},
    {NULL, 0, 0},
};

/* Option `trace`: the facilities, in this order for `all`. */
static const struct cfg_enum_value facility_values[] = {
    {"bts", TRACE_BTS, 0},    {"btsint", TRACE_BTSINT, 0},
    {"lbr", TRACE_LBR, 0},    {"pebs", TRACE_PEBS, 0},
    {"btf", TRACE_BTF, 0},    {"pmc", TRACE_PMC, 0},
    {"none", 0, CFG_V_ALONE}, {NULL, 0, 0},
};

/* Lists whose names live in a table of their own (workloads, self-tests, personalities). */
static const struct cfg_enum_value all_none_words[] = {
    {"none", 0, CFG_V_ALONE},
    {"all", 0, CFG_V_ALONE | CFG_V_ALL},
    {NULL, 0, 0},
};
static const struct cfg_enum_value none_word[] = {
    {"none", 0, CFG_V_ALONE},
    {NULL, 0, 0},
};

static const struct cfg_enum_value lbr_filter_values[] = {
    {"user", TRACE_LBR_USER, 0},
    {"kernel", TRACE_LBR_KERNEL, 0},
    {"cond", TRACE_LBR_COND, 0},
    {"call", TRACE_LBR_NEAR_REL_CALL | TRACE_LBR_NEAR_IND_CALL, 0},
    {"rel_call", TRACE_LBR_NEAR_REL_CALL, 0},
    {"ind_call", TRACE_LBR_NEAR_IND_CALL, 0},
    {"ret", TRACE_LBR_NEAR_RET, 0},
    {"jmp", TRACE_LBR_NEAR_REL_JMP | TRACE_LBR_NEAR_IND_JMP, 0},
    {"rel_jmp", TRACE_LBR_NEAR_REL_JMP, 0},
    {"ind_jmp", TRACE_LBR_NEAR_IND_JMP, 0},
    {"far", TRACE_LBR_FAR, 0},
    {"any", TRACE_LBR_CLASSES, 0},
    {"call_stack", TRACE_LBR_CALL_STACK, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value freeze_values[] = {
    {"lbrs", TRACE_FREEZE_LBRS, 0},
    {"perfmon", TRACE_FREEZE_PERFMON, 0},
    {"smm", TRACE_FREEZE_SMM, 0},
    {"none", 0, CFG_V_ALONE},
    {NULL, 0, 0},
};

static const struct cfg_enum_value pebs_event_values[] = {
    {"instructions", TRACE_PEBS_INSTRUCTIONS, 0},
    {"branches", TRACE_PEBS_BRANCHES, 0},
    {"loads", TRACE_PEBS_LOADS, 0},
    {"fixed0", TRACE_PEBS_FIXED0, 0},
    {"all-loads", TRACE_PEBS_ALL_LOADS, 0},
    {"stores", TRACE_PEBS_STORES, 0},
    {NULL, 0, 0},
};

static const struct cfg_enum_value pebs_group_values[] = {
    {"meminfo", TRACE_PEBS_MEMINFO, 0}, {"gpr", TRACE_PEBS_GPR, 0}, {"xmm", TRACE_PEBS_XMM, 0},
    {"lbr", TRACE_PEBS_LBR, 0},		{"none", 0, CFG_V_ALONE},   {NULL, 0, 0},
};

#define OPT(field)	offsetof(struct kernel_options, field)
#define PERIOD_MAX	(1ull << 31) /* what every counter width takes (legacy PMC writes) */
#define STORE_KIB_MAX	(1ull << 20) /* 1 GiB */
#define BTS_RECORDS_MIN 4	     /* btsint keeps a quarter of the buffer as headroom */
#define BTS_RECORDS_MAX 1000000
#define PEBS_KIB_MAX	4096
#define LDLAT_MAX	0xffff /* MSR_PEBS_LD_LAT_THRESHOLD[15:0] */
/* Architectural LBR depths are 8 * (n + 1) for each bit n of CPUID.(EAX=1CH,ECX=0):EAX[7:0]
 * (SDM Vol. 3B, "Architectural Last Branch Records", enumeration): 8 to 64 in steps of 8. */
#define LBR_DEPTH_STEP		8
#define LBR_DEPTH_MAX		64
#define PEBS_COUNTER_MAX	7	/* IA32_PEBS_ENABLE bits 7:0 at most before extended PEBS */
#define PROGRAM_WATCHDOG_MAX_MS 3600000 /* an hour */
#define SPMU_DROP_MAX		1000000
#define SS_SKIP_MAX		1000000
#define WL_ITERATIONS_MAX	10000000 /* a library workload's loop: 10 M (tens of M branches) */
#define WL_RECURSION_MAX	256	 /* 16 bytes of stack a level, in the kernel's stack */

/* The positional fields after `values` (flags, multiple, item), for the short table rows. */
#define PLAIN 0, 0, NULL

static const struct cfg_option option_table[] = {
    {"serial", CFG_ENUM,
     "where the serial console is looked for: auto = the config's UART, ACPI SPCR, DBG2, PCI "
     "serial controllers, COM1-COM4, the first that works; none = screen only",
     OPT(serial), 0, 0, serial_values, PLAIN},
    {"serial.port", CFG_UINT, "I/O port of a 16550 console (COM1 0x3f8, COM2 0x2f8): tried first",
     OPT(serial_port), 1, SERIAL_PORT_MAX, NULL, PLAIN},
    {"serial.mmio", CFG_UINT, "physical address of a memory-mapped 16550 console: tried first",
     OPT(serial_mmio), 1, UINT64_MAX, NULL, PLAIN},
    {"serial.stride", CFG_UINT,
     "bytes between the UART's registers, 1 or 4 (default: its source's)", OPT(serial_stride), 1, 4,
     NULL, PLAIN},
    {"serial.width", CFG_UINT, "bits per register access, 8 or 32 (default: its source's)",
     OPT(serial_width), 8, 32, NULL, PLAIN},
    {"serial.clock", CFG_UINT, "the UART's input clock in Hz (default: 1843200, LPSS by device)",
     OPT(serial_clock), SERIAL_OVERSAMPLE, SERIAL_CLOCK_MAX, NULL, PLAIN},
    {"serial.baud", CFG_UINT,
     "console baud rate: 115200 divided by a whole number, or up to 4000000 where the "
     "UART's clock allows (LPSS, serial.clock); default: SPCR's rate, else 115200",
     OPT(serial_baud), SERIAL_BAUD_MIN, SERIAL_BAUD_MAX, NULL, PLAIN},
    {"serial.flow", CFG_ENUM, "flow control: none, or rtscts (send only while CTS is asserted)",
     OPT(serial_flow), 0, 0, flow_values, PLAIN},
    {"screen", CFG_ENUM, "the log on the UEFI framebuffer too: auto (when there is one) or off",
     OPT(screen), 0, 0, screen_values, PLAIN},
    {"screen.hold", CFG_UINT, "seconds the last screen stays before an exit or reset",
     OPT(screen_hold_s), 0, SCREEN_HOLD_MAX_S, NULL, PLAIN},
    {"exit", CFG_ENUM, "how a run ends: auto = QEMU exit device when virtualised, else halt",
     OPT(exit_mode), 0, 0, exit_values, PLAIN},
    {BOOT_PROGRAM_OPTION, CFG_STRING,
     "user program: a static x86-64 ELF on the boot volume (read by the loader), e.g. "
     "\\progs\\mine.elf",
     OPT(program), 0, BOOT_PROGRAM_PATH_MAX, NULL, PLAIN},
    {"program.arg", CFG_UINT, "the user program's argument (RDI at its entry)", OPT(program_arg), 0,
     UINT64_MAX, NULL, PLAIN},
    {"program.argv", CFG_STRING,
     "a Linux program's arguments, argv[0] first, at most 64 words: blanks separate them, "
     "\"...\" groups (\"\" is an empty word), \\ takes the next byte as it is (\\\" a quote, "
     "\\\\ a backslash), ' is an ordinary byte; in a quoted option value write \\\" for each "
     "\" and \\\\ for each \\ (program.argv=\"p \\\"a b\\\" \\\"\\\"\" is p, a b and an empty "
     "word); default: the file's name",
     OPT(program_argv), 0, PROGRAM_WORDS_MAX, NULL, PLAIN},
    {"program.env", CFG_STRING,
     "a Linux program's environment: NAME=value words, as program.argv's; default: empty",
     OPT(program_env), 0, PROGRAM_WORDS_MAX, NULL, PLAIN},
    {"program.seed", CFG_UINT, "the seed of a Linux program's AT_RANDOM bytes and getrandom",
     OPT(program_seed), 0, UINT64_MAX, NULL, PLAIN},
    {"program.roi", CFG_STRING,
     "what a session captures of the program: whole (the run), marks (between its "
     "bt_roi_begin()/bt_roi_end() or Intel SDE SSC marks), function:NAME (from NAME's entry "
     "until its outermost activation returns; NAME from the ELF's symbol table)",
     OPT(program_roi), 0, PROGRAM_ROI_MAX, NULL, PLAIN},
    {"program.base", CFG_UINT,
     "where a static PIE Linux program is placed: page aligned, in the lower half; 0 = "
     "0x555555554000",
     OPT(program_base), 0, UINT64_MAX, NULL, PLAIN},
    {"program.stdin", CFG_STRING,
     "a file of the boot volume's \\data\\ a Linux program's stdin reads (/data/NAME); "
     "default: empty",
     OPT(program_stdin), 0, BOOT_PROGRAM_PATH_MAX, NULL, PLAIN},
    {"program.watchdog", CFG_UINT,
     "milliseconds a run of the program may take before it is stopped (per CPU; what it has "
     "not written yet is lost); 0 = no limit (a run that goes on says its progress every 10 s)",
     OPT(program_watchdog_ms), 0, PROGRAM_WATCHDOG_MAX_MS, NULL, PLAIN},
    {"program.output", CFG_UINT,
     "KiB of the ring a run's stdout and stderr go through (emptied during the run by a CPU "
     "that writes the console, else after it: what does not fit then is counted), 64-262144",
     OPT(program_output_kib), PROGRAM_OUTPUT_MIN_KIB, PROGRAM_OUTPUT_MAX_KIB, NULL, PLAIN},
    {"selftest", CFG_LIST, "in-kernel self-tests", OPT(selftest), 0, 0, all_none_words, 0, 0,
     selftest_name},
    {"fault", CFG_ENUM, "raise a deliberate exception after boot (tests the dump)", OPT(fault), 0,
     0, fault_values, PLAIN},
    {"memmap", CFG_ENUM, "memory map report: summary or every range", OPT(memmap), 0, 0,
     memmap_values, PLAIN},
    {"ss", CFG_LIST,
     "single-step these workloads and print their taken branches (all leaves bench out)", OPT(ss),
     0, 0, all_none_words, 0, 0, workload_name},
    {"trace", CFG_LIST, "capture every workload with these facilities, in this order", OPT(trace),
     0, 0, facility_values, PLAIN},
    {"workload", CFG_LIST, "workloads the trace sessions run (all leaves bench out)", OPT(workload),
     0, 0, all_none_words, 0, 0, workload_name},
    {"spmu", CFG_LIST,
     "software PMU personalities (one session each) where the CPU lacks a facility; none: the "
     "hardware only (SKIP where it lacks it)",
     OPT(spmu), 0, 0, none_word, 0, 0, arch_spmu_name},
    {"switch.n", CFG_UINT, "workload switch: iterations of its jump table; 0 = 30",
     OPT(wl_switch_n), 1, WL_ITERATIONS_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"recursion.depth", CFG_UINT, "workload recursion: levels; 0 = 12", OPT(wl_recursion_depth), 1,
     WL_RECURSION_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"sort.n", CFG_UINT, "workload sort: values it sorts; 0 = 48", OPT(wl_sort_n), 1, WL_SORT_MAX,
     NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"hash.n", CFG_UINT, "workload hash: bytes it hashes; 0 = 64", OPT(wl_hash_n), 1,
     WL_ITERATIONS_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"chase.nodes", CFG_UINT,
     "workload chase: its working set in 64-byte nodes, a power of two; 0 = 256",
     OPT(wl_chase_nodes), 2, WL_CHASE_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"memory.n", CFG_UINT, "workload memory: pointer hops (and stores); 0 = 128", OPT(wl_memory_n),
     1, WL_ITERATIONS_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"qsort.n", CFG_UINT, "workload qsort: values it sorts; 0 = 2000", OPT(wl_qsort_n), 1,
     WL_QSORT_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"crc32.n", CFG_UINT, "workload crc32: bytes it checks; 0 = 4096", OPT(wl_crc32_n), 1,
     WL_CRC32_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"interp.n", CFG_UINT, "workload interp: the loop count of its program; 0 = 2000",
     OPT(wl_interp_n), 1, WL_ITERATIONS_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
#ifdef BT_TEST_KNOBS
    /* A test build's only (make test-knobs, build/test-knobs/): no user's configuration names
     * it. tests/long/rebuild.t boots it. */
    {"test.ss.skip", CFG_UINT,
     "test build only: the single-step engine leaves out every Nth trap whose path the code "
     "decides (after a non-branch or a direct JMP or CALL), as a platform that skips traps "
     "would, so that rebuilding the path between two traps is exercised; 0 = off",
     OPT(ss_skip), 0, SS_SKIP_MAX, NULL, PLAIN},
#endif
    {"ss.block", CFG_ENUM,
     "the single-step engine runs straight-line code at full speed to the next instruction "
     "that needs a trap of its own (on) or traps after every instruction (off: slower, the "
     "same records; a cross-check of the per-block mode)",
     OPT(ss_block), 0, 0, on_off_values, PLAIN},
    {"ss.xlate", CFG_ENUM,
     "with ss.block on, ring 3 code runs translated (on: a code cache, each block copied "
     "once, the way each branch went logged as it runs, the runs told to the software PMU in "
     "order) or a trap per block (off: slower, the same records; what QEMU's execution log "
     "of the original code checks)",
     OPT(ss_xlate), 0, 0, on_off_values, PLAIN},
    {"ss.xlate.map", CFG_ENUM,
     "after each single-stepped session, an xlate-map line per translated instruction: its "
     "address in the code cache and the original's (the QEMU-log oracle maps the cache's PCs "
     "back with them: tests/qemu/xlate.t)",
     OPT(ss_xlate_map), 0, 0, on_off_values, PLAIN},
    {"ss.stats", CFG_ENUM,
     "after each single-stepped session, an ss-stats line: the engine's traps, blocks, loops, "
     "chains and the time inside its trap handler (two RDTSC a trap while on)",
     OPT(ss_stats), 0, 0, on_off_values, PLAIN},
    {"spmu.drop", CFG_UINT,
     "a deliberate failure: the software PMU misses the Nth taken branch of every run, so "
     "that the self-checks, and a lab's results, are seen to fail (the run ends FAIL); 0 = off",
     OPT(tr.spmu_drop), 0, SPMU_DROP_MAX, NULL, PLAIN},
    {"pmi", CFG_ENUM,
     "deliver the performance-monitoring interrupt as NMI (the default, as Linux's perf: no "
     "kernel path holds it off) or on its vector (it waits while interrupts are off)",
     OPT(pmi), 0, 0, pmi_values, PLAIN},
    {"trace.cpus", CFG_ENUM,
     "where trace sessions run: the boot CPU, each CPU in turn, or all CPUs at once", OPT(tr.cpus),
     0, 0, cpus_values, PLAIN},
    {"bts.ring", CFG_ENUM, "rings BTS records (CPL-qualified with DS-CPL)", OPT(tr.bts_ring), 0, 0,
     ring_values, PLAIN},
    {"bts.leak", CFG_ENUM,
     "BTS records crossing into the other ring (e.g. SYSCALL's kernel target): filter or flag",
     OPT(tr.bts_leak), 0, 0, leak_values, PLAIN},
    {"stream", CFG_ENUM,
     "how records leave: text = the checked record stream as '@BT1 ' lines between the log's, "
     "binary = its frames as bytes (tools/btdecode reads both back), off = a text line per "
     "record (for reading by eye; long captures are many times larger)",
     OPT(tr.stream), 0, 0, stream_values, PLAIN},
    {"stream.path", CFG_ENUM,
     "BTS records in the stream: on = taken/not-taken bits along the decoded code, as Intel "
     "PT (the decoder needs the ELF files), off = each record's address deltas",
     OPT(tr.stream_path), 0, 0, on_off_values, PLAIN},
    {"trace.out", CFG_ENUM,
     "where the record stream goes: serial, stick = the trace partition of the USB stick "
     "booted from (make usb; the serial line keeps the log), both; auto = both where a stick "
     "with a trace partition is found, else serial",
     OPT(tr.out), 0, 0, out_values, PLAIN},
    {"stream.live", CFG_ENUM,
     "records of sessions that make them during the run (btsint, pebs, pmc, btf) streamed "
     "while it goes on by a CPU that is not tracing; auto = on with a stream, off = after "
     "the run (or when the store fills)",
     OPT(tr.stream_live), 0, 0, live_values, PLAIN},
    {"capture.full", CFG_ENUM,
     "a full record store: wait = the workload waits while records are handed on, stop = the "
     "capture ends there (the rest counted, the run INCOMPLETE), wrap = the oldest records "
     "make room (counted, INCOMPLETE)",
     OPT(tr.capture_full), 0, 0, full_values, PLAIN},
    {"trace.store", CFG_UINT,
     "KiB per CPU for the records a run drains (BTS, PEBS, BTF, counter samples); 0 = its "
     "share of the memory free once the traced CPUs have their other buffers, less a reserve "
     "for the rest of the boot, in one piece (the boot says how much)",
     OPT(tr.store_kib), 0, STORE_KIB_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"bts.records", CFG_UINT,
     "BTS buffer size in records (btsint's too unless btsint.records); 0 = bts: sized from free "
     "memory, at least 2730; btsint: 2730 (Linux's 64 KiB)",
     OPT(tr.bts_records), BTS_RECORDS_MIN, BTS_RECORDS_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"btsint.records", CFG_UINT,
     "btsint's BTS buffer size in records (a quarter kept as headroom past its threshold); 0 = "
     "bts.records if given, else 2730",
     OPT(tr.btsint_records), BTS_RECORDS_MIN, BTS_RECORDS_MAX, NULL, CFG_ZERO_DEFAULT, 0, NULL},
    {"lbr.filter", CFG_SET,
     "branches LBR records; no ring word means both, no class word every class", OPT(tr.lbr_filter),
     0, 0, lbr_filter_values, PLAIN},
    {"lbr.depth", CFG_UINT,
     "Architectural LBR depth: the deepest the CPU has not above it; 0 = the deepest",
     OPT(tr.lbr_depth), LBR_DEPTH_STEP, LBR_DEPTH_MAX, NULL, CFG_ZERO_DEFAULT, LBR_DEPTH_STEP,
     NULL},
    {"lbr.period", CFG_UINT,
     "LBR sampling as perf record -b: the whole stack with IP and TSC every N branches "
     "retired (not with lbr.filter or lbr.depth); 0 = the stack once, at the end",
     OPT(tr.lbr_period), 0, PERIOD_MAX, NULL, PLAIN},
    {"freeze", CFG_SET, "freeze on PMI: DEBUGCTL bits 11, 12, 14", OPT(tr.freeze), 0, 0,
     freeze_values, PLAIN},
    {"pebs.event", CFG_ENUM,
     "PEBS event: instructions, branches, loads (load latency), all-loads, stores (on "
     "pebs.counter), fixed0 (extended PEBS)",
     OPT(tr.pebs_event), 0, 0, pebs_event_values, PLAIN},
    {"pebs.groups", CFG_SET, "adaptive PEBS record groups after the basic one", OPT(tr.pebs_groups),
     0, 0, pebs_group_values, PLAIN},
    {"pebs.counter", CFG_UINT,
     "general-purpose counter the PEBS event runs on (checked against the CPU's PEBS counters)",
     OPT(tr.pebs_counter), 0, PEBS_COUNTER_MAX, NULL, PLAIN},
    {"pebs.period", CFG_UINT, "events per counter overflow (a PEBS record every period + 1 events)",
     OPT(tr.pebs_period), 1, PERIOD_MAX, NULL, PLAIN},
    {"pebs.kib", CFG_UINT, "PEBS buffer size in KiB", OPT(tr.pebs_kib), 4, PEBS_KIB_MAX, NULL,
     PLAIN},
    {"pebs.ldlat", CFG_UINT, "load-latency threshold in cycles (0 = off; pebs.event=loads)",
     OPT(tr.pebs_ldlat), 0, LDLAT_MAX, NULL, PLAIN},
    {"pmc.period", CFG_UINT, "instructions per counter-overflow sample (trace=pmc)",
     OPT(tr.pmc_period), 1, PERIOD_MAX, NULL, PLAIN},
    {"bench", CFG_ENUM,
     "isr: count the PMI/DS service routine's instructions per PMI and per record (make bench)",
     OPT(bench), 0, 0, bench_values, PLAIN},
    {"help", CFG_BOOL, "print the accepted options", OPT(help), 0, 1, NULL, PLAIN},
    {"report", CFG_BOOL,
     "end with a paste-able hardware report (identity, microcode, capabilities, self-check "
     "results, anything odd); without trace= it runs the default session first",
     OPT(report), 0, 1, NULL, PLAIN},
};
_Static_assert(ARRAY_SIZE(option_table) <= CFG_MAX_OPTIONS, "duplicate keys are tracked");

const char *options_facility_name(enum trace_facility f)
{
	for (const struct cfg_enum_value *v = facility_values; v->name; v++)
		if (!(v->flags & CFG_V_ALONE) && v->value == (uint64_t)f)
			return v->name;
	return "?";
}

/* The index of `name` in a table owned elsewhere, as the default of a list option. */
static void list_of(struct cfg_list *l, const char *(*item)(unsigned, bool *), const char *name)
{
	bool explicit_only;
	const char *n;
	l->n = 0;
	for (unsigned i = 0; (n = item(i, &explicit_only)); i++)
		if (strcmp(n, name) == 0)
			l->item[l->n++] = (uint16_t)i;
}

/* Every name of a table owned elsewhere but the explicit-only ones: a list option's `all`
 * (options_check refuses a table longer than a list holds rather than cut it short). */
static void list_all(struct cfg_list *l, const char *(*item)(unsigned, bool *))
{
	bool explicit_only;
	l->n = 0;
	for (unsigned i = 0; item(i, &explicit_only) && l->n < CFG_LIST_MAX; i++)
		if (!explicit_only)
			l->item[l->n++] = (uint16_t)i;
}

/* How many entries the workload table has (workload_name). */
static unsigned workload_count(void)
{
	bool explicit_only;
	unsigned n = 0;
	while (workload_name(n, &explicit_only))
		n++;
	return n;
}

void options_defaults(struct kernel_options *o)
{
	memset(o, 0, sizeof(*o));
	o->serial = CONSOLE_AUTO;
	o->serial_baud = 0; /* the console's source says (SPCR), else 115200 */
	o->screen = 1;
	o->exit_mode = EXIT_MODE_AUTO;
	o->fault = FAULT_NONE;
	o->memmap = MEMMAP_SUMMARY;
	o->pmi = PMI_NMI;
	/* selftest, ss, trace: none (empty lists) */
	list_of(&o->spmu, arch_spmu_name, "skylake");
	list_all(&o->workload, workload_name);
	o->tr.cpus = TRACE_CPUS_BOOT;
	o->tr.lbr_filter = 0; /* any */
	o->tr.pebs_event = TRACE_PEBS_INSTRUCTIONS;
	o->tr.pebs_groups = TRACE_PEBS_MEMINFO | TRACE_PEBS_GPR;
	o->tr.pebs_period = 37;
	o->tr.pebs_kib = 64;
	o->tr.pmc_period = 50;
	o->tr.stream = TRACE_STREAM_TEXT;
	o->tr.stream_path = 1;
	o->ss_block = 1;
	o->ss_xlate = 1;
	o->program_watchdog_ms = DEFAULT_PROGRAM_WATCHDOG_MS;
	o->program_output_kib = PROGRAM_OUTPUT_DEFAULT_KIB;
	memcpy(o->program_roi, "whole", sizeof("whole"));
}

enum program_roi options_program_roi(const struct kernel_options *o, const char **fn)
{
	size_t prefix = strlen(PROGRAM_ROI_FUNCTION_PREFIX);
	*fn = NULL;
	if (!strcmp(o->program_roi, "whole"))
		return PROGRAM_ROI_WHOLE;
	if (!strcmp(o->program_roi, "marks"))
		return PROGRAM_ROI_MARKS;
	if (strncmp(o->program_roi, PROGRAM_ROI_FUNCTION_PREFIX, prefix) ||
	    !o->program_roi[prefix] || strchr(o->program_roi + prefix, ' '))
		return PROGRAM_ROI_BAD;
	*fn = o->program_roi + prefix;
	return PROGRAM_ROI_FUNCTION;
}

/* Option program.argv or program.env: words the program can be given (lib/shell_words.h). */
static bool words_check(const char *name, const char *value, char *err, size_t size)
{
	char buf[PROGRAM_WORDS_MAX];
	const char *word[PROGRAM_WORDS_COUNT], *why = "";
	size_t n;
	if (shell_words_split(value, buf, sizeof(buf), word, PROGRAM_WORDS_COUNT, &n, &why))
		return true;
	fmt_snprintf(err, size,
		     "option '%s': '%.40s%s': %s (words: blanks separate, \"...\" groups, \\ takes "
		     "the next byte; at most %d words)",
		     name, value, strlen(value) > 40 ? "..." : "", why, PROGRAM_WORDS_COUNT);
	return false;
}

/* The program options' values on their own (the program's file is checked later). */
static bool program_options_check(const struct kernel_options *o, char *err, size_t size)
{
	const char *fn;
	if (!words_check("program.argv", o->program_argv, err, size) ||
	    !words_check("program.env", o->program_env, err, size))
		return false;
	if (options_program_roi(o, &fn) == PROGRAM_ROI_BAD) {
		fmt_snprintf(err, size,
			     "option 'program.roi': '%s'; accepted: whole, marks, or "
			     "function:NAME (a function of the program's symbol table)",
			     o->program_roi);
		return false;
	}
	if (o->program_base % PROGRAM_BASE_ALIGN) {
		fmt_snprintf(err, size,
			     "option 'program.base': %#lx is not page aligned; accepted: a "
			     "multiple of 4096 in the lower half (0: 0x555555554000)",
			     (unsigned long)o->program_base);
		return false;
	}
	return true;
}

/* Whether text holds anything but blank lines and # comments (make usb's example config is all
 * comments: a stick as it comes runs the default session). */
static bool has_settings(const char *text, size_t len)
{
	bool in_comment = false; /* a '#' came first on this line, after blanks only */
	for (size_t i = 0; i < len && text[i]; i++) {
		char c = text[i];
		if (c == '\n')
			in_comment = false;
		else if (c == '#')
			in_comment = true;
		else if (!in_comment && c != ' ' && c != '\t' && c != '\r')
			return true; /* anything else before a '#' is a setting */
	}
	return false;
}

bool options_none_given(const struct boot_info *bi)
{
	bool config_empty =
	    bi->config_status == BOOT_CONFIG_ABSENT ||
	    (bi->config_status == BOOT_CONFIG_OK && !has_settings(bi->config, sizeof(bi->config)));
	return config_empty && !has_settings(bi->options, sizeof(bi->options));
}

/* What the arch side sizes its buffers from: whether circular BTS sessions run. */
static void derive(struct kernel_options *o)
{
	o->tr.bts_circular = cfg_list_has(&o->trace, TRACE_BTS);
}

void options_default_session(struct kernel_options *o)
{
	static const enum trace_facility every[] = {TRACE_LBR,	TRACE_BTS, TRACE_BTSINT,
						    TRACE_PEBS, TRACE_BTF, TRACE_PMC};
	o->trace.n = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(every); i++)
		o->trace.item[o->trace.n++] = (uint16_t)every[i];
	o->workload.n = 0;
	for (unsigned i = 0; workload_at(i) && o->workload.n < CFG_LIST_MAX; i++)
		if (workload_at(i)->signature && !workload_at(i)->not_default)
			o->workload.item[o->workload.n++] = (uint16_t)i;
	o->tr.cpus = TRACE_CPUS_ALL;
	derive(o);
}

void options_describe(void (*put)(void *ctx, const char *s, size_t n), void *ctx)
{
	cfg_describe_to(option_table, ARRAY_SIZE(option_table), put, ctx);
}

static bool config_file_ok(const struct boot_info *bi, char *err, size_t size)
{
	switch (bi->config_status) {
	case BOOT_CONFIG_OK:
	case BOOT_CONFIG_ABSENT:
		return true;
	case BOOT_CONFIG_TOO_LARGE:
		fmt_snprintf(err, size, "%s: file too large; accepted: at most %d bytes",
			     BOOT_CONFIG_PATH + 1, BOOT_CONFIG_MAX - 1);
		return false;
	case BOOT_CONFIG_NOT_TEXT:
		fmt_snprintf(err, size,
			     "%s: contains NUL bytes; accepted: plain text `key = value`",
			     BOOT_CONFIG_PATH + 1);
		return false;
	default:
		fmt_snprintf(err, size, "%s: the loader could not read it (status %d)",
			     BOOT_CONFIG_PATH + 1, bi->config_status);
		return false;
	}
}

/* The trace options' values together (options_check's part for the sessions). */
static bool trace_options_check(const struct trace_options *t, char *err, size_t size)
{
	/* SDM Vol. 3B 17.9 (Table 17-13): call-stack mode records near calls and returns. */
	if ((t->lbr_filter & TRACE_LBR_CALL_STACK) &&
	    (t->lbr_filter & TRACE_LBR_CLASSES &
	     ~(TRACE_LBR_NEAR_REL_CALL | TRACE_LBR_NEAR_IND_CALL | TRACE_LBR_NEAR_RET))) {
		fmt_snprintf(
		    err, size,
		    "option 'lbr.filter': call_stack records near calls and returns only "
		    "(SDM 17.9); accepted with it: user, kernel, call, rel_call, ind_call, "
		    "ret");
		return false;
	}
	if (t->stream_live == TRACE_LIVE_ON && t->stream == TRACE_STREAM_OFF) {
		fmt_snprintf(err, size,
			     "option 'stream.live': on needs the record stream; accepted with it: "
			     "stream=text or stream=binary");
		return false;
	}
	if ((t->out == TRACE_OUT_STICK || t->out == TRACE_OUT_BOTH) &&
	    t->stream == TRACE_STREAM_OFF) {
		fmt_snprintf(err, size,
			     "option 'trace.out': the stick takes the record stream; accepted with "
			     "it: stream=text or stream=binary (or trace.out=serial)");
		return false;
	}
	if (t->pebs_ldlat && t->pebs_event != TRACE_PEBS_LOADS) {
		fmt_snprintf(err, size,
			     "option 'pebs.ldlat': %lu applies to pebs.event=loads only; accepted "
			     "with pebs.event=%s: 0",
			     (unsigned long)t->pebs_ldlat, pebs_event_values[t->pebs_event].name);
		return false;
	}
	/* LBR sampling takes the whole stack every branch writes, as deep as the CPU has it
	 * (arch/x86/drivers/lbr_sample.c programs no LBR_SELECT/LBR_CTL filter and the deepest
	 * stack): a filter or a depth would not be what its samples hold. */
	if (t->lbr_period && (t->lbr_filter || t->lbr_depth)) {
		fmt_snprintf(
		    err, size,
		    "options 'lbr.period' and '%s' both given: LBR sampling takes every "
		    "branch into the whole stack; accepted: lbr.period without lbr.filter "
		    "and lbr.depth, or lbr.%s with lbr.period=0 (the stack once, at the end)",
		    t->lbr_filter ? "lbr.filter" : "lbr.depth", t->lbr_filter ? "filter" : "depth");
		return false;
	}
	if (t->pebs_counter && t->pebs_event == TRACE_PEBS_FIXED0) {
		fmt_snprintf(
		    err, size,
		    "option 'pebs.counter': %lu does not apply to pebs.event=fixed0 (fixed "
		    "counter 0); accepted with it: 0",
		    (unsigned long)t->pebs_counter);
		return false;
	}
	return true;
}

/*
 * What the values mean together, checked once so that no session can only fail later: each
 * rule names the options involved and what is accepted.
 */
static bool options_check(const struct kernel_options *o, char *err, size_t size)
{
	if (o->serial_baud && !o->serial_clock && o->serial_baud <= SERIAL_STD_MAX &&
	    SERIAL_STD_MAX % o->serial_baud != 0) {
		fmt_snprintf(
		    err, size,
		    "option 'serial.baud': %lu is not 115200 divided by a whole number; "
		    "accepted: 115200, 57600, 38400, 19200, 9600, 4800, 2400, 1200, ... (or "
		    "any rate the UART's clock makes: serial.clock)",
		    (unsigned long)o->serial_baud);
		return false;
	}
	if (o->serial_clock && o->serial_baud * SERIAL_OVERSAMPLE > o->serial_clock) {
		fmt_snprintf(err, size,
			     "option 'serial.baud': %lu is above what serial.clock=%lu makes; "
			     "accepted: at most %lu (the clock / 16)",
			     (unsigned long)o->serial_baud, (unsigned long)o->serial_clock,
			     (unsigned long)(o->serial_clock / SERIAL_OVERSAMPLE));
		return false;
	}
	if ((o->serial_stride && o->serial_stride != 1 && o->serial_stride != 4) ||
	    (o->serial_width && o->serial_width != 8 && o->serial_width != 32)) {
		fmt_snprintf(
		    err, size,
		    "options 'serial.stride'/'serial.width': %lu/%lu; accepted: stride 1 or "
		    "4, width 8 or 32",
		    (unsigned long)o->serial_stride, (unsigned long)o->serial_width);
		return false;
	}
	if (o->serial_port && o->serial_mmio) {
		fmt_snprintf(err, size,
			     "options 'serial.port' and 'serial.mmio' both given; accepted: one "
			     "UART, either on a port or in memory");
		return false;
	}
	if (o->wl_chase_nodes & (o->wl_chase_nodes - 1)) {
		fmt_snprintf(
		    err, size,
		    "option 'chase.nodes': %lu is not a power of two; accepted: 2, 4, 8, ... "
		    "%d (or 0, the default 256)",
		    (unsigned long)o->wl_chase_nodes, WL_CHASE_MAX);
		return false;
	}
	/* Workload "program" is the file option `program` names. */
	int prog = workload_index("program");
	const char *which = o->program[0] || prog < 0			 ? NULL
			    : cfg_list_has(&o->workload, (unsigned)prog) ? "workload"
			    : cfg_list_has(&o->ss, (unsigned)prog)	 ? "ss"
									 : NULL;
	if (which) {
		fmt_snprintf(
		    err, size,
		    "option '%s': 'program' needs option program; accepted: program=FILE (a "
		    "static ELF on the boot volume, e.g. program=\\progs\\mine.elf; scripts/run "
		    "--program FILE), or other workloads",
		    which);
		return false;
	}
	return trace_options_check(&o->tr, err, size);
}

bool options_parse(const struct boot_info *bi, struct kernel_options *o, char *err, size_t size,
		   void (*warn)(void *ctx, const char *line), void *warn_ctx)
{
	struct cfg_error e = {.warn = warn, .warn_ctx = warn_ctx};
	if (!config_file_ok(bi, err, size))
		return false;
	if (bi->config_status == BOOT_CONFIG_OK &&
	    cfg_parse_file(option_table, ARRAY_SIZE(option_table), o, bi->config,
			   strnlen(bi->config, sizeof(bi->config)), BOOT_CONFIG_PATH + 1,
			   &e) != 0) {
		fmt_snprintf(err, size, "%s", e.msg);
		return false;
	}
	if (bi->options_truncated) {
		fmt_snprintf(err, size, "load options: too long; accepted: at most %d bytes",
			     BOOT_OPTIONS_MAX - 1);
		return false;
	}
	if (cfg_parse_args(option_table, ARRAY_SIZE(option_table), o, bi->options,
			   strnlen(bi->options, sizeof(bi->options)), "load options", &e) != 0) {
		fmt_snprintf(err, size, "%s", e.msg);
		return false;
	}
	if (workload_count() > CFG_LIST_MAX) {
		/* `all` (the default) would keep only the first CFG_LIST_MAX: never silently. */
		fmt_snprintf(
		    err, size,
		    "the workload table has %u entries, more than a list option holds (%u): "
		    "'workload=all' and 'ss=all' cannot name them all; raise CFG_LIST_MAX",
		    workload_count(), (unsigned)CFG_LIST_MAX);
		return false;
	}
	derive(o);
	return options_check(o, err, size) && program_options_check(o, err, size);
}
