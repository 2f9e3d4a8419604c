/* SPDX-License-Identifier: MIT */
#include "arch/x86/model/bts.h"
#include "lib/string.h"

enum bts_disposition bts_disposition(uint64_t debugctl, unsigned cpl)
{
	if (!(debugctl & DEBUGCTL_TR))
		return BTS_NO_BTM;
	if (!(debugctl & DEBUGCTL_BTS))
		return BTS_BTM_NOT_STORED;
	bool off_os = debugctl & DEBUGCTL_BTS_OFF_OS, off_usr = debugctl & DEBUGCTL_BTS_OFF_USR;
	if ((cpl == 0 && off_os) || (cpl > 0 && off_usr))
		return BTS_BTM_NOT_STORED; /* includes OFF_OS = OFF_USR = 1: nothing stored */
	return BTS_STORED;
}

struct bts_store_result bts_store(struct ds_area64 *ds, uint64_t debugctl,
				  const struct bts_record *rec, void *(*at)(uint64_t lin))
{
	struct bts_store_result r = {0};
	uint64_t index = ds->bts_index;
	if (index + sizeof(*rec) > ds->bts_abs_max || index < ds->bts_base) {
		if (debugctl & DEBUGCTL_BTINT) {
			r.dropped_full = true;
			return r;
		}
		index = ds->bts_base;
		r.wrapped = true;
		if (index + sizeof(*rec) > ds->bts_abs_max) {
			r.dropped_full = true; /* a buffer smaller than one record: undefined in the
						* SDM; the model stores nothing */
			return r;
		}
	}
	void *dst = at(index);
	if (!dst) {
		r.dropped_full = true;
		return r;
	}
	memcpy(dst, rec, sizeof(*rec));
	uint64_t next = index + sizeof(*rec);
	/* Every record that leaves the index at or past the threshold asks for the interrupt,
	 * not only the crossing one: "BTS and PEBS buffer overflow would be the sources of the
	 * interrupt if the buffer index matches/exceeds the interrupt threshold" (SDM Vol. 3B
	 * 17.4.9.5). A pending request is one PMI; the service routine drains below it. */
	r.threshold_hit = next >= ds->bts_threshold;
	ds->bts_index = next;
	r.stored = true;
	return r;
}
