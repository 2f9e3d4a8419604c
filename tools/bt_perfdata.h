/* SPDX-License-Identifier: MIT */
/*
 * --view perf.data's two halves: the records (bt_perfdata.c, the data section) and the file
 * around them (bt_perfdata_file.c: the header, the attributes, the features).
 */
#ifndef TOOLS_BT_PERFDATA_H
#define TOOLS_BT_PERFDATA_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include "tools/btdecode.h"

/* Every attribute's sample type but PERF_SAMPLE_CALLCHAIN, which --callchains adds: the
 * fields a sample carries, in this order (perf_event.h PERF_RECORD_SAMPLE). */
#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK |      \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

/* An attribute: a facility's event (its id is its index plus one). */
struct bt_pd_attr {
	char name[BT_NAME_MAX];
	uint64_t samples, period;
};

/* The whole file to out_records: header, attributes, the data section (n bytes of `data`, read
 * from its start), features; what cannot be written is said on out_problems. */
void bt_perfdata_file(const struct bt_pd_attr *attrs, unsigned n_attrs, unsigned max_cpu,
		      FILE *data, uint64_t n);

#endif
