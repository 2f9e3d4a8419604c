/* SPDX-License-Identifier: MIT */
#include "arch/x86/caps/pmi_ack.h"
#include "arch/x86/hw/lbr_regs.h"

enum pmi_ack pmi_ack_for(const struct trace_caps *c)
{
	/* Tremont, also late in Linux, is not told apart here: it has no recorded CPU and no
	 * capability of its own in our sources; it gets the early ack. */
	if (c->hybrid && c->core_type == TC_CORE_ATOM)
		return PMI_ACK_MID;
	if (c->lbr.kind == TC_LBR_ARCH)
		return PMI_ACK_LATE; /* Sapphire Rapids, Alder Lake P-cores and later big cores */
	if (c->lbr.kind == TC_LBR_LEGACY &&
	    (c->lbr.format == LBR_FMT_EIP_FLAGS2 /* Haswell, Broadwell */ ||
	     c->lbr.format == LBR_FMT_INFO /* Skylake, Ice Lake */))
		return PMI_ACK_LATE;
	return PMI_ACK_EARLY;
}

const char *pmi_ack_name(enum pmi_ack a)
{
	return a == PMI_ACK_MID ? "mid" : a == PMI_ACK_LATE ? "late" : "early";
}
