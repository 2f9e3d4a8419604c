/* SPDX-License-Identifier: MIT */
/*
 * Which data memory an x86-64 instruction reads and writes, and at which linear address, from
 * its decoded form (lib/x86_decode.h) and the registers before it executes. The software PMU
 * needs it for PEBS's data linear address ("the linear address of the source of the load, or
 * linear address of the destination of the store", SDM Vol. 3B 18.9.4.1) and for counting
 * load and store events. Pure and freestanding. Addresses follow the mode the instruction was
 * decoded in (x86_decode_mode): its address size, 16-bit addressing, no RIP-relative form
 * outside 64-bit mode, 2- or 4-byte pushes and a 32-bit stack pointer in 16/32-bit code.
 *
 * An instruction has at most one load address and one store address here: the first datum it
 * reads and the first it writes, in the order of the SDM's Operation sections (Vol. 2). The
 * classes covered are the integer instructions compilers emit: the ALU, MOV and its
 * extensions, group 1-3/5 and shift forms, TEST, XCHG/XADD/CMPXCHG, CMOVcc (reads its source
 * whatever the condition), SETcc, IMUL, MOVSXD; PUSH, POP, CALL, RET, ENTER, LEAVE, PUSHF,
 * POPF and the string instructions with their implicit RSP/RBP/RSI/RDI operands (a REP string
 * instruction: its first iteration's addresses). Not covered (no access reported, and the
 * PMU model documents it): x87, SSE/AVX (VEX/EVEX), BT* with a register bit offset (the
 * address moves with the offset), LEA and NOP forms and PREFETCH (no data access), and the
 * stack accesses of INT, far transfers, SYSCALL and IRET.
 */
#ifndef LIB_X86_MEM_H
#define LIB_X86_MEM_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_decode.h"

/* Where one access goes (compact, so the session can cache it with the decoded insn). */
enum x86_mem_where {
	X86_MEM_NONE,
	X86_MEM_MODRM, /* the ModRM memory operand (mod != 3) */
	X86_MEM_MOFFS, /* A0-A3: the 64-bit (67H: 32-bit) absolute offset in imm */
	X86_MEM_PUSH,  /* [RSP - size]: PUSH, CALL, ENTER, PUSHF */
	X86_MEM_POP,   /* [RSP]: POP, RET, POPF */
	X86_MEM_RSI,   /* [RSI]: MOVS/CMPS/LODS/OUTS source */
	X86_MEM_RDI,   /* [RDI]: MOVS/STOS/INS destination, SCAS source */
	X86_MEM_RBP,   /* [RBP]: LEAVE pops through RBP */
};

struct x86_mem_use {
	uint8_t load;	   /* enum x86_mem_where of the first read, X86_MEM_NONE if none */
	uint8_t store;	   /* of the first write */
	uint8_t push_size; /* bytes a PUSH-class store moves RSP by (8, or 2 with 66H) */
	bool modrm_known;  /* the instruction has a ModRM memory operand this table knows */
	bool unknown;	   /* a memory operand this table does not classify */
};

/* The data accesses of a decoded instruction (nothing is read from memory). */
struct x86_mem_use x86_mem_use_of(const struct x86_insn *in);

/* The general registers in encoding order (RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8..R15). */
struct x86_gprs {
	uint64_t r[16];
};

/* Register indices of the encoding order. */
#define X86_REG_RSP 4
#define X86_REG_RBP 5
#define X86_REG_RSI 6
#define X86_REG_RDI 7

/*
 * The effective address of the ModRM memory operand (SDM Vol. 2 2.1.5, 2.2.1: REX.B/X extend
 * base and index, RIP-relative from the next instruction in 64-bit mode, Table 2-1's 16-bit
 * forms), truncated to the instruction's address size (Vol. 1 3.3.7), plus the FS or GS base
 * for a 64/65H override. The bases of CS, DS, ES and SS are taken as 0: so they are in 64-bit
 * mode, and so are this kernel's segments for 16/32-bit code (flat). `ip` is the instruction's
 * address.
 */
uint64_t x86_modrm_address(const struct x86_insn *in, uint64_t ip, const struct x86_gprs *g,
			   uint64_t fs_base, uint64_t gs_base);

/* The linear address of access `where` of `in` at `ip` with registers `g` (before it runs). */
uint64_t x86_mem_address(const struct x86_insn *in, const struct x86_mem_use *u,
			 enum x86_mem_where where, uint64_t ip, const struct x86_gprs *g,
			 uint64_t fs_base, uint64_t gs_base);

#endif
