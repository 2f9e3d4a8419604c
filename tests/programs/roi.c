/* SPDX-License-Identifier: MIT */
/*
 * Region of interest (tests/qemu/program.t): three loops in three functions, only the middle
 * one between bt_roi_begin() and bt_roi_end(). With program.roi=marks no record may come from
 * before_roi() or after_roi(); with program.roi=whole all three are captured. Exit status:
 * (1 + 2 + 3) * (0 + 1 + ... + 19) = 6 * 190 = 1140.
 */
#include <stdint.h>
#include "include/baretrace/user.h"

#define N 20

/* noipa: three functions at three addresses (identical bodies would be folded into one). */
__attribute__((noipa)) uint64_t before_roi(uint64_t n)
{
	uint64_t s = 0;
	for (volatile uint64_t i = 0; i < n; i++)
		s += i;
	return s;
}

__attribute__((noipa)) uint64_t inside_roi(uint64_t n)
{
	uint64_t s = 0;
	for (volatile uint64_t i = 0; i < n; i++)
		s += 2 * i;
	return s;
}

__attribute__((noipa)) uint64_t after_roi(uint64_t n)
{
	uint64_t s = 0;
	for (volatile uint64_t i = 0; i < n; i++)
		s += 3 * i;
	return s;
}

int64_t main(uint64_t arg)
{
	(void)arg;
	uint64_t s = before_roi(N);
	bt_roi_begin();
	s += inside_roi(N);
	bt_roi_end();
	s += after_roi(N);
	return (int64_t)s;
}
