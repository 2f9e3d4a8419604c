/* SPDX-License-Identifier: MIT */
/*
 * The session's one sink (arch/x86/drivers/driver.h struct record_sink): every record a driver
 * delivers goes, once, to the self-check's counts (selfcheck.h), to the record stream (the
 * CPU's writer, output.h) when the session streams, and to the session's text lines unless its
 * records leave live (then the drainer writes them, and it has no text of this CPU).
 */
#ifndef ARCH_X86_SESSION_SINK_H
#define ARCH_X86_SESSION_SINK_H

#include <stdbool.h>
#include "arch/x86/drivers/driver.h"
#include "arch/x86/session/selfcheck.h"

struct session_sink {
	struct record_sink sink; /* what drivers are given */
	struct selfcheck sc;
	struct bt_writer *stream; /* NULL: the session does not stream (yet) */
	bool text;		  /* records as text lines too */
};

void session_sink_init(struct session_sink *k, const struct trace_ctx *t, bool text);

#endif
