/* SPDX-License-Identifier: MIT */
/*
 * Counted loops: a straight-line loop body whose conditional jump back to its start depends
 * only on a counter it steps by a constant (a register, or one memory word at [base + disp]
 * with base unchanged), compared with a constant or a register the body leaves alone. How
 * often such a jump is taken follows from the registers (and that word) before the first
 * iteration, so a single-step engine can let the whole loop run at full speed and account for
 * its iterations at its exit (arch/x86/step/block.c).
 *
 * x86_loop_analyze reads the body by the SDM's instruction semantics (Vol. 2: MOV, LEA, ADD,
 * SUB, INC, DEC, CMP; the status flags of SUB/CMP and ADD, Vol. 1 3.4.3.1 and Appendix B;
 * the conditions of Jcc, Vol. 2 Appendix B.1.4.7 Table B-1; "32-bit operands generate a
 * 32-bit result, zero-extended to a 64-bit result in the destination general-purpose
 * register", Vol. 1 3.4.1.1). It refuses any body with an instruction it does not know the
 * register writes of, and any counter or bound it cannot follow: then the loop is stepped as
 * before. Freestanding and host-testable.
 */
#ifndef LIB_X86_LOOP_H
#define LIB_X86_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_decode.h"
#include "lib/x86_mem.h"

#define X86_LOOP_MAX_INSNS 32 /* plain instructions before the jump */
#define X86_LOOP_SLOT	   16 /* the counter is the memory word, not a register */

/* One side of the comparison the jump reads, in terms of the counter X at the iteration's
 * start: X + off (or its low 32 bits, zero-extended, with bits 32), a register the body leaves
 * alone, or a constant. */
enum x86_loop_operand_kind { X86_LOOP_COUNTER, X86_LOOP_INVARIANT, X86_LOOP_CONSTANT };
struct x86_loop_operand {
	uint8_t kind, reg, bits;
	int64_t off; /* COUNTER, INVARIANT: added (then truncated to bits); CONSTANT: the value */
};

/* Where a run's counter can be read before one of its instructions: location `at` holds X + off
 * (X the counter when the run started), zero-extended from its low 32 bits where at has
 * X86_LOOP_WITNESS_32. A counter copied and overwritten within a run (GCC keeps `i` and `i + 1`
 * in two registers) is read from whichever location holds it there. */
#define X86_LOOP_WITNESS_32 0x80
struct x86_loop_witness {
	uint8_t at;
	int8_t off;
};

/* How the jump's flags come about: op(a, b) at `size` bytes. */
enum x86_loop_flags { X86_LOOP_SUB, X86_LOOP_ADD, X86_LOOP_INCDEC };

struct x86_loop {
	uint8_t counter; /* a register (0-15, encoding order) or X86_LOOP_SLOT */
	uint8_t bits;	 /* 64, or 32: the counter's update is zero-extended from 32 bits */
	int64_t step;	 /* per iteration */
	/* before each body instruction, and before the jump */
	struct x86_loop_witness witness[X86_LOOP_MAX_INSNS + 1];
	uint8_t flags, size, cc; /* enum x86_loop_flags; 4 or 8; the jump's condition */
	struct x86_loop_operand a, b;
	uint8_t slot_base, slot_size; /* the counter's word: [reg slot_base + slot_disp] */
	int32_t slot_disp;
};

/* Whether the loop body *body[0..n) (plain instructions, 64-bit code) followed by jcc (a Jcc
 * back to *body[0]) is a counted loop; *l says how. */
bool x86_loop_analyze(const struct x86_insn *const *body, unsigned n, const struct x86_insn *jcc,
		      struct x86_loop *l);

/* What the witness before body instruction i (the jump: i = n) holds in the run that started
 * with counter x. */
uint64_t x86_loop_witness_value(const struct x86_loop *l, unsigned i, uint64_t x);

/* The counter after one more iteration; after `runs` more (the same, at once). */
uint64_t x86_loop_next(const struct x86_loop *l, uint64_t x);
uint64_t x86_loop_after(const struct x86_loop *l, uint64_t x, uint64_t runs);

/* Whether the jump at the end of the iteration that starts with counter x (and registers g,
 * for the invariant side) is taken. */
bool x86_loop_taken(const struct x86_loop *l, uint64_t x, const struct x86_gprs *g);

/* How many times the jump is taken when the loop starts with counter x0, at most max: false
 * where it would be taken more often than that. */
bool x86_loop_trips(const struct x86_loop *l, uint64_t x0, const struct x86_gprs *g, uint64_t max,
		    uint64_t *trips);
/* The same count made run by run (x86_loop_taken, x86_loop_next): what x86_loop_trips does
 * where no closed form applies. */
bool x86_loop_trips_by_runs(const struct x86_loop *l, uint64_t x0, const struct x86_gprs *g,
			    uint64_t max, uint64_t *trips);

#endif
