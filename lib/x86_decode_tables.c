/* SPDX-License-Identifier: MIT */
/*
 * The opcode attribute tables of the x86-64 decoder (lib/x86_decode.c): SDM Vol. 2 appendix A,
 * Tables A-2 (one-byte map) and A-3 (two-byte map, 0F), as seen in 64-bit mode. Each cell: the
 * immediate kind (enum x86_imm_kind) and X86_A_* flags. Cells marked X are invalid in 64-bit
 * mode: the "i64" opcodes (PUSH/POP ES CS SS DS, DAA DAS AAA AAS, PUSHA POPA, BOUND, the 82
 * alias of 80, CALLF/JMPF ptr16:32, INTO, AAM AAD, SALC) and reserved 0F opcodes. Cells marked P
 * are prefixes and escapes (REX 40-4F, segment overrides, 66 67 F0 F2 F3, 0F, C4 C5 62 VEX/EVEX):
 * x86_decode() consumes them before it looks a cell up.
 *
 * D5 is AAD here; APX reuses it as the REX2 prefix in 64-bit mode (not supported, nor is
 * APX's EVEX map 4).
 *
 * Notes on a few cells: 0F 0F is AMD 3DNow! (ModRM, then an opcode-suffix byte, read as an
 * imm8), 0F 0E FEMMS and 0F 78/79 SSE4a are AMD too (#UD on Intel; decoded for their length
 * as objdump does); 0F 20-23 (MOV CR/DR) ignore ModRM.mod; 0F FF is UD0 with a ModRM (Intel).
 * 0F 0F takes any suffix byte (Zydis: only the defined ones); 0F A6/A7 are reserved here
 * (#UD on Intel; VIA's PadLock XSHA/XCRYPT for Zydis).
 */
#define X86_DECODE_INTERNAL
#include "lib/x86_decode.h"

/* clang-format off */
#define M   X86_A_MODRM
#define MB  (X86_A_MODRM | X86_I_B)
#define MZ  (X86_A_MODRM | X86_I_Z)
#define MG  (X86_A_MODRM | X86_A_GROUP)
#define X   X86_A_BAD
#define P   0 /* a prefix or escape, consumed before the table is consulted */
#define B   X86_I_B
#define W   X86_I_W
#define Z   X86_I_Z
#define V   X86_I_V
#define R8  X86_I_R8
#define R32 X86_I_R32
#define MO  X86_I_MOFFS
#define WB  X86_I_WB
#define MR  (X86_A_MODRM | X86_A_REGONLY)
/* SDM Table A-2, one-byte opcode map, as seen in 64-bit mode. */
const uint8_t x86_one_byte_map[256] = {
/*        0    1    2    3    4    5    6    7    8    9    a    b    c    d    e    f */
/* 0 */   M,   M,   M,   M,   B,   Z,   X,   X,   M,   M,   M,   M,   B,   Z,   X,   P,
/* 1 */   M,   M,   M,   M,   B,   Z,   X,   X,   M,   M,   M,   M,   B,   Z,   X,   X,
/* 2 */   M,   M,   M,   M,   B,   Z,   P,   X,   M,   M,   M,   M,   B,   Z,   P,   X,
/* 3 */   M,   M,   M,   M,   B,   Z,   P,   X,   M,   M,   M,   M,   B,   Z,   P,   X,
/* 4 */   P,   P,   P,   P,   P,   P,   P,   P,   P,   P,   P,   P,   P,   P,   P,   P,
/* 5 */   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
/* 6 */   X,   X,   P,   M,   P,   P,   P,   P,   Z,   MZ,  B,   MB,  0,   0,   0,   0,
/* 7 */   R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,  R8,
/* 8 */   MB,  MZ,  X,   MB,  M,   M,   M,   M,   M,   M,   M,   M,   MG,  MG,  MG,  MG,
/* 9 */   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   X,   0,   0,   0,   0,   0,
/* a */   MO,  MO,  MO,  MO,  0,   0,   0,   0,   B,   Z,   0,   0,   0,   0,   0,   0,
/* b */   B,   B,   B,   B,   B,   B,   B,   B,   V,   V,   V,   V,   V,   V,   V,   V,
/* c */   MB,  MB,  W,   0,   P,   P,   MG,  MG,  WB,  0,   W,   0,   0,   B,   X,   0,
/* d */   M,   M,   M,   M,   X,   X,   X,   0,   M,   M,   M,   M,   M,   M,   M,   M,
/* e */   R8,  R8,  R8,  R8,  B,   B,   B,   B,   R32, R32, X,   R8,  0,   0,   0,   0,
/* f */   P,   0,   P,   P,   0,   0,   MG,  MG,  0,   0,   0,   0,   0,   0,   MG,  MG,
};

/* SDM Table A-3, two-byte (0F) opcode map, as seen in 64-bit mode. */
const uint8_t x86_map_0f[256] = {
/*        0    1    2    3    4    5    6    7    8    9    a    b    c    d    e    f */
/* 0 */   MG,  M,   M,   M,   X,   0,   0,   0,   0,   0,   X,   0,   X,   MG,  0,   MB,
/* 1 */   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/* 2 */   MR,  MR,  MR,  MR,  X,   X,   X,   X,   M,   M,   M,   M,   M,   M,   M,   M,
/* 3 */   0,   0,   0,   0,   0,   0,   X,   0,   P,   X,   P,   X,   X,   X,   X,   X,
/* 4 */   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/* 5 */   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/* 6 */   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/* 7 */   MB,  MB,  MB,  MB,  M,   M,   M,   0,   MG,  M,   X,   X,   M,   M,   M,   M,
/* 8 */   R32, R32, R32, R32, R32, R32, R32, R32, R32, R32, R32, R32, R32, R32, R32, R32,
/* 9 */   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/* a */   0,   0,   0,   M,   MB,  M,   X,   X,   0,   0,   0,   M,   MB,  M,   M,   M,
/* b */   M,   M,   M,   M,   M,   M,   M,   M,   MG,  M,   MB,  M,   M,   M,   M,   M,
/* c */   M,   M,   MB,  M,   MB,  MB,  MB,  M,   0,   0,   0,   0,   0,   0,   0,   0,
/* d */   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/* e */   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/* f */   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
};

/*
 * The one-byte opcodes Table A-2 marks "i64" (invalid in 64-bit mode), as 16/32-bit code has
 * them: PUSH/POP ES CS SS DS, DAA DAS AAA AAS, PUSHA POPA, INTO and SALC have no operands;
 * BOUND (62: memory operand only, EVEX where ModRM.mod would be 11b) and LES/LDS (C4/C5, VEX
 * likewise: SDM Vol. 2A 2.3.3) a ModRM; 82 is 80's alias (ModRM, ib); AAM/AAD an ib; far
 * CALL/JMP 9A/EA a ptr16:16/32. The rest are as in 64-bit mode, where 40-4F, prefixes there,
 * are INC/DEC r (consumed as opcodes, no operands: their cells are P = 0).
 */
uint8_t x86_one_byte_attr_legacy(uint8_t opcode)
{
	switch (opcode) {
	case 0x06: case 0x07: case 0x0e: case 0x16: case 0x17: case 0x1e: case 0x1f:
	case 0x27: case 0x2f: case 0x37: case 0x3f: case 0x60: case 0x61: case 0xce: case 0xd6:
		return 0;
	case 0x62: case 0xc4: case 0xc5:
		return M;
	case 0x82:
		return MB;
	case 0xd4: case 0xd5:
		return B;
	case 0x9a: case 0xea:
		return X86_I_PTR;
	default:
		return x86_one_byte_map[opcode];
	}
}
/* clang-format on */
