/* SPDX-License-Identifier: MIT */
/*
 * Compiled-C workloads (kernel/workloads_c.c): qsort, crc32 and interp, the ordinary code a
 * compiler makes (data-dependent branches, calls and returns, a jump table's indirect JMP), long
 * enough for make bench to time the single-step engine on, each with its expected result from
 * an independent source: a closed form, or zlib's CRC-32 (lib/crc32.c, tested against zlib).
 */
#ifndef KERNEL_WORKLOADS_C_H
#define KERNEL_WORKLOADS_C_H

#include <stdint.h>

#define WL_QSORT_N   2000  /* values qsort sorts by default */
#define WL_QSORT_MAX 65536 /* at most (a static array of 32-bit values: 256 KiB) */
#define WL_CRC32_N   4096  /* bytes crc32 checks by default */
#define WL_CRC32_MAX 65536 /* at most (a static buffer) */
#define WL_INTERP_N  2000  /* the interpreted program's loop count by default */

uint64_t wl_qsort(uint64_t n);
uint64_t wl_qsort_result(uint64_t n);
uint64_t wl_crc32(uint64_t n);
uint64_t wl_crc32_result(uint64_t n);
uint64_t wl_interp(uint64_t n);
uint64_t wl_interp_result(uint64_t n);

#endif
