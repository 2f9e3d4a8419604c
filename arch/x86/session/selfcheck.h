/* SPDX-License-Identifier: MIT */
/*
 * Self-verification of a capture against the workload's branch signature (kernel/arch_workloads.h,
 * worked out from the workload's source): the check that works on silicon, where no QEMU log
 * exists to compare with. Records whose FROM lies in the workload's code are classified by
 * decoding the instruction there (lib/x86_decode.c): a branch's class, or — when the
 * instruction is no branch, or the record goes to an exception or interrupt stub — a delivery,
 * which the signature does not predict and which is counted apart. BTS must hold exactly the
 * signature's counts; an LBR stack, the newest few, must hold no class more often than the
 * signature and at least one branch. One verdict per session (ok, not ok with the first
 * difference, or skip with the reason), printed as a TAP line by the runner.
 */
#ifndef ARCH_X86_SESSION_SELFCHECK_H
#define ARCH_X86_SESSION_SELFCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/arch_workloads.h"

struct trace_ctx;

struct selfcheck {
	const struct workload_signature *sig; /* NULL: the workload has none */
	uint64_t taken[WL_CLASSES];
	uint64_t deliveries;  /* FROM the workload TO a trap stub, or FROM a non-branch */
	uint64_t undecodable; /* FROM addresses the decoder refused */
	uint64_t records;     /* every record seen, inside the code or not */
	uint64_t inside;      /* records FROM (or, PEBS, at) the workload's code */
};

enum selfcheck_verdict { SELFCHECK_NONE, SELFCHECK_OK, SELFCHECK_FAIL, SELFCHECK_SKIP };

void selfcheck_begin(struct selfcheck *c, const struct trace_ctx *t);
void selfcheck_record(struct selfcheck *c, uint64_t from, uint64_t to);
/* BTS: every class exactly as the signature says; `why_not` non-NULL: not comparable (a
 * filter, a wrapped or lossy buffer), the verdict is SKIP with that reason. */
void selfcheck_exact(struct trace_ctx *t, const struct selfcheck *c, const char *facility,
		     const char *why_not);
/* LBR: the newest entries: no class above the signature, at least one branch of it. */
void selfcheck_window(struct trace_ctx *t, const struct selfcheck *c, const char *facility,
		      const char *why_not);

/* Sampling on instructions retired, one sample every `every` instructions — PEBS every
 * period + 1 (SDM Vol. 3B 18.4.4: the record is written on the event after the overflow),
 * counter sampling (pmc) every period: the signature's I instructions hold floor(I / every)
 * or one more samples; an IP past the sampled instruction (a trap-like PEBS IP, formats 0 and
 * 1; a PMI taken at the next boundary, later where IF is clear) may put the last one past the
 * code. */
void selfcheck_samples(struct trace_ctx *t, const struct selfcheck *c, const char *facility,
		       uint64_t every, const char *why_not);

/* The verdict of CPU cpu's last session and its line, then cleared (runner.c prints it). */
enum selfcheck_verdict selfcheck_take(unsigned cpu, char *line, unsigned size);

#endif
