/* SPDX-License-Identifier: MIT */
/*
 * The software PMU's model-specific (legacy) LBR stack: recording, LBR_SELECT filtering and
 * the FROM/TO/INFO encodings of the LBR formats of IA32_PERF_CAPABILITIES[5:0]. Pure.
 * Sources: SDM Vol. 3B 17.4.8 (LBR stack), 17.7 / 17.9 / 17.12 (per-generation LBR
 * filtering and formats), docs/references.md sections 3.1-3.4.
 */
#ifndef ARCH_X86_MODEL_LBR_H
#define ARCH_X86_MODEL_LBR_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/hw/lbr_regs.h"
#include "lib/bits.h"

struct lbr_branch {
	uint64_t from, to;
	enum lbr_class cls;
	unsigned cpl_to;   /* privilege level the branch ends in */
	bool mispredicted; /* the model predicts every branch correctly: false */
	uint16_t cycles;   /* elapsed-cycle approximation since the previous LBR record */
};

struct lbr_stack {
	enum lbr_format format;
	unsigned depth; /* a power of two, <= LBR_MAX_DEPTH */
	unsigned tos;	/* index of the most recent record */
	uint64_t select;
	bool nhm_select_erratum; /* Nehalem/Westmere: calls need the jump classes (below) */
	uint64_t from[LBR_MAX_DEPTH], to[LBR_MAX_DEPTH], info[LBR_MAX_DEPTH];
};

/* Whether LBR_SELECT lets the branch through. */
bool lbr_select_allows(uint64_t select, const struct lbr_branch *b);
/* Whether `select` is a configuration the model accepts: call-stack mode only as the SDM
 * requires it (above); NULL, or a reason. */
const char *lbr_select_check(uint64_t select, bool call_stack_supported);
/* Record one branch (the caller has checked DEBUGCTL.LBR and freeze): TOS moves up, the
 * FROM/TO/INFO slot gets the format's encoding; in call-stack mode a near return instead
 * clears the newest record and moves TOS down. Returns false if filtered out. */
bool lbr_record(struct lbr_stack *s, const struct lbr_branch *b);
/* k pushes of the same record b, which lbr_record took (not filtered, no call-stack pop): the
 * stack then holds min(k, depth) copies of it, TOS moved on by k. */
void lbr_record_again(struct lbr_stack *s, const struct lbr_branch *b, uint64_t k);
/* The format's encodings (exposed for host tests and the future decoder cross-check). */
void lbr_encode(enum lbr_format f, const struct lbr_branch *b, uint64_t *from, uint64_t *to,
		uint64_t *info);
bool lbr_format_supported(enum lbr_format f); /* formats the model offers: 3-7 */

#endif
