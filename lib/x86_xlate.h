/* SPDX-License-Identifier: MIT */
/*
 * Translated blocks: the machine code a code cache runs in place of a workload's own
 * (arch/x86/step/xlate.c), as DynamoRIO and Pin do. A block's plain instructions are copied
 * byte for byte (a RIP-relative operand's displacement rebased onto the copy's address, SDM
 * Vol. 2A 2.2.1.6: "RIP + 32-bit displacement"); the direct branch that ends it becomes a
 * Jcc rel32 (SDM Vol. 2A "Jcc": 0F 80+cc), a PUSH of the return address (a near CALL "pushes
 * the address of the next instruction", Vol. 2A "CALL") or nothing (a JMP), followed by one
 * stub per way out. A stub logs the way taken (a 32-bit run number) in the CPU's run log and
 * jumps on, to the next translated block once linked, else to an INT that hands the run back
 * to the engine; it changes no flag (MOV, LEA and JRCXZ leave RFLAGS alone: Vol. 2A, each
 * instruction's "Flags Affected") and no register but for a moment RCX and RDX, kept in the
 * data page. When the log has no room left, the stub hands back without logging.
 *
 * Pure and freestanding: bytes in, bytes out, host-tested by running both (tests/unit).
 */
#ifndef LIB_X86_XLATE_H
#define LIB_X86_XLATE_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_decode.h"

/* The data page a translated block reaches RIP-relative: the scratch words, the log's room
 * left, then the log (32-bit run numbers, written from its top down). */
#define XLATE_D_RCX	   0
#define XLATE_D_RDX	   8
#define XLATE_D_LEFT	   16
#define XLATE_D_RAX	   24
#define XLATE_D_LOG	   64
#define XLATE_LOG_CAP	   1008 /* entries: the log ends within the page */
#define XLATE_D_SITES	   4096 /* beside each log entry, on the next page: its branch's site */
#define XLATE_DATA_SIZE	   8192
#define XLATE_HANDBACK_VEC 0xe2	       /* the INT a stub hands back with (arch/x86/cpu/vectors.h) */
#define XLATE_UNLOGGED	   0x80000000u /* in the number after the INT: the run was not logged */
#define XLATE_MISS	   0x7fffffffu /* the number after the miss stub's INT */
_Static_assert(XLATE_D_LOG + 4 * XLATE_LOG_CAP <= XLATE_D_SITES, "the log fits its page");
_Static_assert(XLATE_D_SITES + XLATE_D_LOG + 4 * XLATE_LOG_CAP <= XLATE_DATA_SIZE,
	       "the sites beside it too");
/* The indirect branches' table: 2^16 addresses of target stubs (or the miss stub), by a
 * target's low 16 bits (MOVZX, which leaves the flags alone). */
#define XLATE_TABLE_BITS 16
#define XLATE_TABLE_SIZE (8u << XLATE_TABLE_BITS)

/* A stub's layout (offsets from its first byte): where its jump's rel32 lies, where the
 * INT that hands back a logged run lies (the run number after it), and the same for a run
 * the full log did not take. */
#define XLATE_STUB_LEN	    86
#define XLATE_STUB_JMP_REL  63
#define XLATE_STUB_HANDBACK 67
#define XLATE_STUB_UNLOGGED 80
#define XLATE_INT_LEN	    2 /* CD ib */

/* What holds at the start of the stub instruction at `off`, were an interrupt to come there:
 * where the workload's RCX and RDX are (still in the register, or in the data page), and
 * whether the run is in the log. False where no instruction of a stub starts at off. */
struct x86_xlate_stub_state {
	bool rcx_in_data, rdx_in_data, logged;
};
bool x86_xlate_stub_at(unsigned off, struct x86_xlate_stub_state *st);

/* The stub for run number `id` at out (its address out_va), data page at data_va; its jump
 * goes to its own hand-back. XLATE_STUB_LEN bytes. False where the data page is out of
 * RIP-relative reach (more than 2 GiB away). */
bool x86_xlate_stub(uint8_t *out, uint64_t out_va, uint64_t data_va, uint32_t id);
/* The stub at stub (address stub_va) jumps to target_va from now on (NULL target: its own
 * hand-back again). False where target_va is out of reach. */
bool x86_xlate_stub_link(uint8_t *stub, uint64_t stub_va, uint64_t target_va);

/* The instruction `in` decoded from code (at insn_va) copied to out (at out_va): its
 * length, or 0 where its RIP-relative operand would be out of reach from there. */
unsigned x86_xlate_copy(uint8_t *out, uint64_t out_va, const uint8_t *code,
			const struct x86_insn *in, uint64_t insn_va);
/* Jcc rel32 with condition cc (the low nibble of 70-7F / 0F 80-8F) from out_va to target_va:
 * 6 bytes, or 0 where out of reach. */
#define XLATE_JCC_LEN 6
unsigned x86_xlate_jcc(uint8_t *out, uint64_t out_va, unsigned cc, uint64_t target_va);
/* PUSH imm32 of a return address (sign-extended to 64 bits: Vol. 2B "PUSH"): 5 bytes, or 0
 * where value is not a sign-extended 32-bit number. */
#define XLATE_PUSH_LEN 5
unsigned x86_xlate_push(uint8_t *out, uint64_t value);
/* Whether a decoded Jcc (rel8 or rel32) can end a translated block, and its condition. */
bool x86_xlate_jcc_cond(const struct x86_insn *in, unsigned *cc);

/*
 * Indirect near branches (RET, JMP r/m64, CALL r/m64: SDM Vol. 2A "CALL", "JMP", Vol. 2B
 * "RET"). The site parks RAX, RCX and RDX in the data page, loads the target into RDX (the
 * branch's own operand, re-encoded as MOV RDX, r/m64, or [RSP] for RET), does the branch's
 * stack work (RET's pop as LEA RSP, [RSP + 8]; CALL's push of its return address), writes its
 * own run number beside the log entry to come (XLATE_D_SITES) and jumps through the table
 * slot of the target's low 16 bits: to the target stub that compares the whole target (LEA
 * and JRCXZ), logs the target's run number and goes on to its translation, or to the miss
 * stub, which hands back. With no room in the log the site hands back itself (its number |
 * XLATE_UNLOGGED). The engine then undoes the stack work and steps the branch.
 */
struct x86_xlate_site {
	uint8_t len;	  /* bytes */
	uint8_t load;	  /* offset of MOV RDX, target: before it nothing has changed */
	uint8_t adjusted; /* offset after the stack work (its effect on RSP from there on) */
	uint8_t handback; /* offset of its INT (a full log) */
	int8_t rsp;	  /* what the stack work added to RSP: +8 (RET), -8 (CALL), 0 */
};
#define XLATE_SITE_MAX 96
/* The site of the indirect branch `in` (decoded from code, at insn_va), its run number id, at
 * out (address out_va); data and table at data_va and table_va. False where it cannot be
 * translated (a prefix other than a segment, 16- or 32-bit forms, a return address or an
 * operand out of reach). */
bool x86_xlate_site(uint8_t *out, uint64_t out_va, uint64_t data_va, uint64_t table_va,
		    const uint8_t *code, const struct x86_insn *in, uint64_t insn_va, uint32_t id,
		    struct x86_xlate_site *site);
/* The target stub for target (its run number id) at out (out_va): compares RDX with target,
 * goes to miss_va when they differ, else logs id and jumps to to_va. XLATE_TARGET_LEN bytes;
 * false where target or an address is out of reach. Its instructions from
 * XLATE_TARGET_LOGGED on come after the log took the run. */
#define XLATE_TARGET_LEN    72
#define XLATE_TARGET_LOGGED 46
#define XLATE_TARGET_ID	    31 /* where its run number lies in it (32 bits) */
bool x86_xlate_target(uint8_t *out, uint64_t out_va, uint64_t data_va, uint64_t target, uint32_t id,
		      uint64_t miss_va, uint64_t to_va);
/* The miss stub: INT, then XLATE_MISS. */
#define XLATE_MISS_LEN 6
void x86_xlate_miss(uint8_t *out);

#endif
