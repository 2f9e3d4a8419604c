/* SPDX-License-Identifier: MIT */
/* The kernel's options: from the config file on the boot volume, then the UEFI load options. */
#ifndef KERNEL_OPTIONS_H
#define KERNEL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/arch.h"
#include "kernel/boot_info.h"

#define OPTIONS_SELFTEST_MAX 128

enum memmap_detail { MEMMAP_SUMMARY, MEMMAP_FULL };
enum pmi_delivery { PMI_VECTOR, PMI_NMI };
enum bench_kind { BENCH_NONE, BENCH_ISR };

struct kernel_options {
	uint64_t serial_port;
	uint64_t serial_baud;
	uint64_t exit_mode; /* enum exit_mode */
	uint64_t fault;	    /* enum fault_kind */
	uint64_t memmap;    /* enum memmap_detail */
	uint64_t help;
	uint64_t pmi;	/* enum pmi_delivery */
	uint64_t bench; /* enum bench_kind */
	char selftest[OPTIONS_SELFTEST_MAX];
	char ss[OPTIONS_SELFTEST_MAX];	     /* workloads to single-step trace */
	char trace[OPTIONS_SELFTEST_MAX];    /* facilities to capture with */
	char spmu[OPTIONS_SELFTEST_MAX];     /* software PMU personality */
	char workload[OPTIONS_SELFTEST_MAX]; /* workloads the trace sessions run */
	struct trace_options tr;	     /* how the trace sessions run */
};

#define DEFAULT_SERIAL_PORT 0x3f8 /* COM1 */
#define DEFAULT_SERIAL_BAUD 115200

void options_defaults(struct kernel_options *o);
/* Parse the config file text, then the load options (later wins). On error returns false with
 * one message naming the problem and what is accepted in err. Pure: host-tested. */
bool options_parse(const struct boot_info *bi, struct kernel_options *o, char *err, size_t size);
/* The accepted options, one per line, for `help` and error messages. */
size_t options_describe(char *buf, size_t size);

#endif
