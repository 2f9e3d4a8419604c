/* SPDX-License-Identifier: MIT */
/*
 * What the single-step engine may read of the workload's code without faulting (issue 34,
 * class 3). The engine decodes the instruction at the address a trap lands on before it runs;
 * that address is the workload's: it may lie on a page that is not present (code falling
 * through or branching onto it), run from a present page onto an absent one, or be
 * non-canonical. Such a fetch faults for the workload, after the single-step trap of the
 * instruction before it (SDM Vol. 3A 6.9: the trap of the previous instruction is serviced
 * before the fetch of the next faults); the engine itself must never fault on it. So before it
 * reads, it probes one byte of each page the instruction's bytes may lie on
 * (cpu_probe_byte: a fault there goes no further) and reads only the bytes on pages that
 * answered. Under QEMU's TCG a probe is one load on a page the step touches anyway; a walk of
 * the paging structures took four more pages into QEMU's small softmmu TLB on every step.
 */
#include "arch/x86/spmu/singlestep.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/trap.h"
#include "lib/x86_decode.h"

#define PAGE_SHIFT	12 /* the 4-KByte page */
#define CANONICAL_BITS	48 /* linear-address width under 4-level paging (SDM Vol. 1 3.3.7.1) */
#define CANONICAL_SHIFT (64 - CANONICAL_BITS)

/* Whether va is canonical (bits 63:47 all equal, SDM Vol. 1 3.3.7.1). */
static inline bool canonical(uint64_t va)
{
	return (uint64_t)((int64_t)(va << CANONICAL_SHIFT) >> CANONICAL_SHIFT) == va;
}

static inline bool readable(uint64_t va)
{
	return canonical(va) && cpu_probe_byte((const void *)va);
}

TRAP_STEP_HOT unsigned ss_code_readable(uint64_t ip)
{
	if (!readable(ip))
		return 0;
	uint64_t last = ip + X86_MAX_INSN_LENGTH - 1;
	if ((last >> PAGE_SHIFT) == (ip >> PAGE_SHIFT) || readable(last))
		return X86_MAX_INSN_LENGTH;
	return (unsigned)(PAGE_4K - (ip & (PAGE_4K - 1))); /* up to the page that did not answer */
}
