/* SPDX-License-Identifier: MIT */
/*
 * The compiled-C workloads (kernel/workloads_c.h): generic C, left to the compiler, in
 * .text.workload (every function a workload calls is there too, so QEMU's log of that range
 * sees all of it). What each run retires is the compiler's business; its result is checked
 * against a closed form or an independent implementation.
 */
#include "kernel/workloads_c.h"
#include "kernel/arch_workloads.h"
#include "lib/crc32.h"

/* qsort: a permutation of 0..n-1 (Fisher-Yates with Knuth's MMIX LCG, TAOCP Vol. 2 3.3.4),
 * sorted by a recursive quicksort (Lomuto's partition, the last value the pivot; the smaller
 * side recursed into, the larger looped on, so the depth stays under log2(n) + 1). */
#define LCG_MUL	  6364136223846793005ull
#define LCG_ADD	  1442695040888963407ull
#define LCG_SHIFT 33 /* the generator's high bits: its low ones have short periods */

static uint32_t qsort_values[WL_QSORT_MAX];

WORKLOAD_XLATE_SECTION static long qsort_partition(uint32_t *a, long lo, long hi)
{
	uint32_t pivot = a[hi], t;
	long i = lo;
	for (long j = lo; j < hi; j++) {
		if (a[j] < pivot) {
			t = a[i];
			a[i] = a[j];
			a[j] = t;
			i++;
		}
	}
	t = a[i];
	a[i] = a[hi];
	a[hi] = t;
	return i;
}

WORKLOAD_XLATE_SECTION static void qsort_range(uint32_t *a, long lo, long hi)
{
	while (lo < hi) {
		long p = qsort_partition(a, lo, hi);
		if (p - lo < hi - p) {
			qsort_range(a, lo, p - 1);
			lo = p + 1;
		} else {
			qsort_range(a, p + 1, hi);
			hi = p - 1;
		}
	}
}

/* sum of i * a[i] over the sorted permutation: sum of i^2 (wl_qsort_result). By the
 * rearrangement inequality any other order of 0..n-1 gives less, so the sum says "sorted". */
WORKLOAD_XLATE_SECTION uint64_t wl_qsort(uint64_t n)
{
	uint32_t *a = qsort_values;
	uint64_t x = n;
	for (uint64_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	for (uint64_t i = n - 1; i > 0 && i < n; i--) {
		x = x * LCG_MUL + LCG_ADD;
		uint64_t j = (x >> LCG_SHIFT) % (i + 1);
		uint32_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
	qsort_range(a, 0, (long)n - 1);
	uint64_t sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += i * a[i];
	return sum;
}

/* 0^2 + 1^2 + ... + (n-1)^2 = (n-1) n (2n-1) / 6 */
uint64_t wl_qsort_result(uint64_t n)
{
	return n ? (n - 1) * n * (2 * n - 1) / 6 : 0;
}

/*
 * crc32: CRC-32 as IEEE 802.3 and zlib define it (reflected polynomial 0xEDB88320, initial
 * value and final XOR 0xFFFFFFFF), table-less, a loop of eight steps per byte (the
 * polynomial XORed in where the low bit is set: the compiler's CMOV), over n bytes of
 * "123456789" repeated. Its expected result is lib/crc32.c's (slicing-by-8 tables, checked
 * against zlib's crc32 in tests/unit/test_crc32.c); for n = 9 it is the catalogued check value
 * 0xCBF43926 (Greg Cook's "Catalogue of parametrised CRC algorithms", CRC-32/ISO-HDLC).
 */
#define CRC32_POLY    0xedb88320u
#define CRC32_PATTERN "123456789"
#define CRC32_PERIOD  9 /* bytes of the pattern */

static uint8_t crc32_bytes[WL_CRC32_MAX];

WORKLOAD_XLATE_SECTION uint64_t wl_crc32(uint64_t n)
{
	uint8_t *b = crc32_bytes;
	uint8_t c = '1';
	for (uint64_t i = 0; i < n; i++) {
		b[i] = c;
		c = c == '9' ? '1' : c + 1;
	}
	uint32_t crc = 0xffffffffu;
	for (uint64_t i = 0; i < n; i++) {
		crc ^= b[i];
		for (int bit = 0; bit < 8; bit++) {
			if (crc & 1)
				crc = (crc >> 1) ^ CRC32_POLY;
			else
				crc >>= 1;
		}
	}
	return ~crc;
}

uint64_t wl_crc32_result(uint64_t n)
{
	uint32_t crc = 0;
	for (; n >= CRC32_PERIOD; n -= CRC32_PERIOD)
		crc = crc32_update(crc, CRC32_PATTERN, CRC32_PERIOD);
	return crc32_update(crc, CRC32_PATTERN, n);
}

/*
 * interp: a stack machine's bytecode, dispatched by a switch (the compiler's jump table: an
 * indirect JMP per instruction), running
 *	push n; push 0
 *	loop: over; add; swap; push 1; sub; dup; jnz next; drop; halt
 *	next: swap; jmp loop
 * which leaves 1 + 2 + ... + n = n (n + 1) / 2 (wl_interp_result). The program is written
 * with n on each run, so the compiler cannot know it.
 */
enum interp_op {
	OP_PUSH, /* push the next word */
	OP_DUP,
	OP_OVER, /* push a copy of the value under the top */
	OP_SWAP,
	OP_DROP,
	OP_ADD,
	OP_SUB,
	OP_JNZ, /* pop; jump to the next word's index if it was not 0 */
	OP_JMP, /* jump to the next word's index */
	OP_HALT /* the result: the top */
};
#define INTERP_STACK 8	/* values; the program uses 3 */
#define INTERP_N     1	/* the index of n's word */
#define INTERP_LOOP  4	/* the index of "loop" */
#define INTERP_NEXT  15 /* the index of "next" */

static uint64_t interp_program[] = {
    OP_PUSH,	 0,		 /* 0: n, written on each run */
    OP_PUSH,	 0,		 /* 2 */
    OP_OVER,	 OP_ADD,	 /* 4: loop */
    OP_SWAP,	 OP_PUSH,     1, /* 6 */
    OP_SUB,	 OP_DUP,	 /* 9 */
    OP_JNZ,	 INTERP_NEXT,	 /* 11 */
    OP_DROP,	 OP_HALT,	 /* 13 */
    OP_SWAP,	 OP_JMP,	 /* 15: next */
    INTERP_LOOP,		 /* 17 */
};

WORKLOAD_XLATE_SECTION static uint64_t interp_run(const uint64_t *code)
{
	uint64_t stack[INTERP_STACK], t;
	unsigned sp = 0; /* the next free slot */
	uint64_t pc = 0;
	for (;;) {
		switch (code[pc++]) {
		case OP_PUSH:
			stack[sp++ % INTERP_STACK] = code[pc++];
			break;
		case OP_DUP:
			stack[sp % INTERP_STACK] = stack[(sp - 1) % INTERP_STACK];
			sp++;
			break;
		case OP_OVER:
			stack[sp % INTERP_STACK] = stack[(sp - 2) % INTERP_STACK];
			sp++;
			break;
		case OP_SWAP:
			t = stack[(sp - 1) % INTERP_STACK];
			stack[(sp - 1) % INTERP_STACK] = stack[(sp - 2) % INTERP_STACK];
			stack[(sp - 2) % INTERP_STACK] = t;
			break;
		case OP_DROP:
			sp--;
			break;
		case OP_ADD:
			sp--;
			stack[(sp - 1) % INTERP_STACK] += stack[sp % INTERP_STACK];
			break;
		case OP_SUB:
			sp--;
			stack[(sp - 1) % INTERP_STACK] -= stack[sp % INTERP_STACK];
			break;
		case OP_JNZ:
			sp--;
			pc = stack[sp % INTERP_STACK] ? code[pc] : pc + 1;
			break;
		case OP_JMP:
			pc = code[pc];
			break;
		case OP_HALT:
			return stack[(sp - 1) % INTERP_STACK];
		default:
			return 0; /* no such instruction */
		}
	}
}

WORKLOAD_XLATE_SECTION uint64_t wl_interp(uint64_t n)
{
	interp_program[INTERP_N] = n;
	return interp_run(interp_program);
}

uint64_t wl_interp_result(uint64_t n)
{
	return n * (n + 1) / 2;
}
