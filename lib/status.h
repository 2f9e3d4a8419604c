/* SPDX-License-Identifier: MIT */
/*
 * The kernel's one error convention. A function that can fail returns enum status (0 is
 * success, so `if (st != STATUS_OK)` and `if (st)` read the same); when it has more to say it
 * writes one sentence, naming the problem and what is accepted, into a caller's message buffer
 * (`char *why, size_t n`). Predicates that cannot fail return bool.
 */
#ifndef LIB_STATUS_H
#define LIB_STATUS_H

enum status {
	STATUS_OK = 0,
	STATUS_REFUSED = -1,	 /* the hardware (or the software PMU) refused: a #GP */
	STATUS_INVALID = -2,	 /* a request the caller must not make: the message says why */
	STATUS_UNSUPPORTED = -3, /* a request this CPU cannot honour */
	STATUS_NO_MEMORY = -4,
	STATUS_TIMEOUT = -5, /* a device did not answer in time (the USB stick: gone, or hung) */
	STATUS_IO = -6,	     /* a device answered with an error (a stall, a failed command) */
};

#endif
