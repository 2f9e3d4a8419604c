/* SPDX-License-Identifier: MIT */
/*
 * The trace-capability record as text: a table for the serial console and one JSON line for
 * host tools. JSON key names are an interface: add keys, never rename them (bump "v" if a
 * meaning ever changes). The "raw" object carries the snapshot in hex strings so the host can
 * re-decode with a newer decoder.
 */
#include "arch/x86/caps/caps.h"
#include <stdarg.h>
#include "lib/fmt.h"

#define JSON_VERSION	 1
#define JSON_CTRL_LIMIT	 0x20 /* characters below are escaped as \u00XX */
#define JSON_ASCII_LIMIT 0x7f /* as are DEL and anything above */

const char *trace_caps_vendor_name(enum tc_vendor v)
{
	switch (v) {
	case TC_VENDOR_INTEL:
		return "intel";
	case TC_VENDOR_AMD:
		return "amd";
	default:
		return "other";
	}
}

const char *trace_caps_core_type_name(enum tc_core_type t)
{
	switch (t) {
	case TC_CORE_ATOM:
		return "atom";
	case TC_CORE_CORE:
		return "core";
	case TC_CORE_OTHER:
		return "other";
	default:
		return "none";
	}
}

const char *trace_caps_lbr_name(enum tc_lbr k)
{
	switch (k) {
	case TC_LBR_LEGACY:
		return "legacy";
	case TC_LBR_ARCH:
		return "arch";
	default:
		return "none";
	}
}

const char *trace_caps_bts_name(enum tc_bts k)
{
	switch (k) {
	case TC_BTS_YES:
		return "yes";
	case TC_BTS_CPL_QUALIFIED:
		return "cpl_qualified";
	default:
		return "no";
	}
}

const char *trace_caps_pebs_name(enum tc_pebs k)
{
	return k == TC_PEBS_YES ? "yes" : "no";
}

const char *trace_caps_freeze_name(enum tc_freeze k)
{
	switch (k) {
	case TC_FREEZE_LEGACY:
		return "legacy";
	case TC_FREEZE_STREAMLINED:
		return "streamlined";
	default:
		return "none";
	}
}

const char *trace_caps_lbr_format_name(unsigned format)
{
	/* references.md 1.5, Linux's LBR_FORMAT_* names */
	static const char *const names[] = {"32",	  "LIP",  "EIP",  "EIP_FLAGS",
					    "EIP_FLAGS2", "INFO", "TIME", "INFO2"};
	return format < ARRAY_SIZE(names) ? names[format] : "?";
}

/* ---- output with C99 snprintf accounting ---- */

struct out {
	char *buf;
	size_t size;
	size_t len; /* of the complete output, even past size */
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	if (o->len < o->size)
		n = fmt_vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	else
		n = fmt_vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static size_t finish(struct out *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len;
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static const char *true_false(bool b)
{
	return b ? "true" : "false";
}

/* ---- table ---- */

static void table_conclusions(struct out *o, const struct trace_caps *c)
{
	put(o, "  LBR:    %s", trace_caps_lbr_name(c->lbr.kind));
	if (c->lbr.kind == TC_LBR_LEGACY)
		put(o, ", format %u (%s), depth %u [%s]", c->lbr.format,
		    trace_caps_lbr_format_name(c->lbr.format), c->lbr.depth, c->lbr.uarch);
	else if (c->lbr.kind == TC_LBR_ARCH)
		put(o, ", depth %u (supported mask %#x)", c->lbr.depth,
		    (unsigned)c->arch_lbr.depth_mask);
	put(o, "%s%s\n", c->lbr.reason[0] ? " -- " : "", c->lbr.reason);

	put(o, "  BTS:    %s%s%s\n", trace_caps_bts_name(c->bts.kind),
	    c->bts.reason[0] ? " -- " : "", c->bts.reason);

	put(o, "  PEBS:   %s", trace_caps_pebs_name(c->pebs.kind));
	if (c->pebs.kind == TC_PEBS_YES)
		put(o, ", format %u, adaptive %s, %s-like", c->pebs.format,
		    yes_no(c->pebs.adaptive), c->pebs.trap_like ? "trap" : "fault");
	put(o, "%s%s\n", c->pebs.reason[0] ? " -- " : "", c->pebs.reason);

	put(o, "  freeze: %s (perfmon v%u), freeze-while-SMM %s%s%s\n",
	    trace_caps_freeze_name(c->freeze.kind), c->perfmon.version, yes_no(c->freeze.while_smm),
	    c->freeze.reason[0] ? " -- " : "", c->freeze.reason);
	if (c->hypervisor)
		put(o,
		    "  note:   hypervisor present (%s): capability MSRs may not be backed; drivers "
		    "probe before use (references.md 1.7)\n",
		    c->raw.hv_vendor[0] ? c->raw.hv_vendor : "unnamed");
	if (c->kvm)
		put(o, "  kvm:    BTF -- %s; freeze-perfmon -- %s\n", TC_KVM_RULE_BTF,
		    TC_KVM_RULE_DEBUGCTL);
}

size_t trace_caps_format_table(const struct trace_caps *c, unsigned cpu, uint32_t apic_id,
			       char *buf, size_t size)
{
	struct out o = {buf, size, 0};
	const struct tc_perfmon *p = &c->perfmon;
	const struct tc_arch_lbr *a = &c->arch_lbr;

	put(&o, "cpu %u (APIC %#x): %s family %#x model %#x stepping %u, core type %s\n", cpu,
	    apic_id, c->raw.vendor, c->family, c->model, c->stepping,
	    trace_caps_core_type_name(c->core_type));
	put(&o,
	    "  cpuid:  DS %u DTES64 %u DS-CPL %u PDCM %u x2APIC %u hypervisor %u hybrid %u "
	    "arch-LBR %u\n",
	    c->ds, c->dtes64, c->ds_cpl, c->pdcm, c->x2apic, c->hypervisor, c->hybrid, a->present);
	put(&o,
	    "  perfmon: v%u, %u GP x %u bit, %u fixed (mask %#x) x %u bit%s, events "
	    "unavailable %#x\n",
	    p->version, p->gp_counters, p->gp_width, p->fixed_counters, (unsigned)p->fixed_mask,
	    p->fixed_width, p->fixed_count_assumed ? " (count assumed, Linux v2-v4 quirk)" : "",
	    (unsigned)p->events_unavailable);
	if (a->present)
		put(&o,
		    "  1CH:    depths %#x, CPL filter %u, branch filter %u, call stack %u, "
		    "mispredict %u, timed %u, branch type %u, LIP %u, deep C-state reset %u\n",
		    (unsigned)a->depth_mask, a->cpl_filter, a->branch_filter, a->call_stack,
		    a->mispredict, a->timed, a->branch_type, a->lip, a->deep_cstate_reset);
	if (c->perf_cap.present)
		put(&o,
		    "  perf_cap %#llx: LBR format %u, PEBS trap %u arch-regs %u format %u "
		    "baseline %u, SMM freeze %u, full-width %u, metrics %u\n",
		    (unsigned long long)c->raw.perf_capabilities, c->perf_cap.lbr_format,
		    c->perf_cap.pebs_trap, c->perf_cap.pebs_arch_regs, c->perf_cap.pebs_format,
		    c->perf_cap.pebs_baseline, c->perf_cap.smm_freeze, c->perf_cap.full_width_write,
		    c->perf_cap.perf_metrics);
	if (c->misc.present)
		put(&o, "  misc_enable %#llx: BTS unavailable %u, PEBS unavailable %u\n",
		    (unsigned long long)c->raw.misc_enable, c->misc.bts_unavailable,
		    c->misc.pebs_unavailable);
	table_conclusions(&o, c);
	return finish(&o);
}

/* ---- JSON ---- */

static void json_str(struct out *o, const char *key, const char *s)
{
	put(o, "\"%s\":\"", key);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			put(o, "\\%c", ch);
		else if (ch < JSON_CTRL_LIMIT || ch >= JSON_ASCII_LIMIT)
			put(o, "\\u%04x", ch);
		else
			put(o, "%c", ch);
	}
	put(o, "\"");
}

static void json_bool(struct out *o, const char *key, bool b)
{
	put(o, "\"%s\":%s", key, true_false(b));
}

static void json_leaf(struct out *o, const char *key, const struct cpuid_leaf_regs *l)
{
	put(o, "\"%s\":[\"0x%x\",\"0x%x\",\"0x%x\",\"0x%x\"]", key, l->eax, l->ebx, l->ecx, l->edx);
}

static void json_raw(struct out *o, const struct cpu_snapshot *s)
{
	put(o, "\"raw\":{");
	json_str(o, "vendor", s->vendor);
	put(o, ",\"max_leaf\":\"0x%x\",", s->max_basic_leaf);
	json_leaf(o, "l01", &s->leaf_01);
	put(o, ",");
	json_leaf(o, "l07", &s->leaf_07);
	put(o, ",");
	json_leaf(o, "l0a", &s->leaf_0a);
	put(o, ",");
	json_leaf(o, "l1a", &s->leaf_1a);
	put(o, ",");
	json_leaf(o, "l1c", &s->leaf_1c);
	put(o, ",");
	json_bool(o, "has_perf_cap", s->has_perf_capabilities);
	put(o, ",\"perf_cap\":\"0x%llx\",", (unsigned long long)s->perf_capabilities);
	json_bool(o, "has_misc_enable", s->has_misc_enable);
	put(o, ",\"misc_enable\":\"0x%llx\"}", (unsigned long long)s->misc_enable);
}

static void json_conclusions(struct out *o, const struct trace_caps *c)
{
	put(o, "\"lbr\":{\"kind\":\"%s\",\"format\":%u,\"depth\":%u,",
	    trace_caps_lbr_name(c->lbr.kind), c->lbr.format, c->lbr.depth);
	json_str(o, "uarch", c->lbr.uarch ? c->lbr.uarch : "");
	put(o, ",");
	json_str(o, "reason", c->lbr.reason);
	put(o, "},\"bts\":{\"kind\":\"%s\",", trace_caps_bts_name(c->bts.kind));
	json_str(o, "reason", c->bts.reason);
	put(o, "},\"pebs\":{\"kind\":\"%s\",\"format\":%u,", trace_caps_pebs_name(c->pebs.kind),
	    c->pebs.format);
	json_bool(o, "adaptive", c->pebs.adaptive);
	put(o, ",");
	json_bool(o, "trap_like", c->pebs.trap_like);
	put(o, ",");
	json_str(o, "reason", c->pebs.reason);
	put(o, "},\"freeze\":{\"kind\":\"%s\",", trace_caps_freeze_name(c->freeze.kind));
	json_bool(o, "while_smm", c->freeze.while_smm);
	put(o, ",");
	json_str(o, "reason", c->freeze.reason);
	put(o, "}");
}

static void json_decoded(struct out *o, const struct trace_caps *c)
{
	const struct tc_perfmon *p = &c->perfmon;
	const struct tc_arch_lbr *a = &c->arch_lbr;
	const struct tc_perf_cap *pc = &c->perf_cap;

	put(o,
	    "\"perfmon\":{\"version\":%u,\"gp\":%u,\"gp_width\":%u,\"fixed\":%u,"
	    "\"fixed_mask\":\"0x%x\",\"fixed_width\":%u,\"events_len\":%u,"
	    "\"events_unavailable\":\"0x%x\",",
	    p->version, p->gp_counters, p->gp_width, p->fixed_counters, (unsigned)p->fixed_mask,
	    p->fixed_width, p->events_len, (unsigned)p->events_unavailable);
	json_bool(o, "fixed_count_assumed", p->fixed_count_assumed);
	put(o, ",");
	json_bool(o, "anythread_deprecated", p->anythread_deprecated);
	put(o, "},\"arch_lbr\":{");
	json_bool(o, "present", a->present);
	put(o, ",\"depth_mask\":\"0x%x\",\"max_depth\":%u,\"branch_counters\":\"0x%x\"",
	    (unsigned)a->depth_mask, a->max_depth, (unsigned)a->branch_counters);
	put(o,
	    ",\"cpl_filter\":%s,\"branch_filter\":%s,\"call_stack\":%s,\"mispredict\":%s,"
	    "\"timed\":%s,\"branch_type\":%s,\"lip\":%s,\"deep_cstate_reset\":%s},",
	    true_false(a->cpl_filter), true_false(a->branch_filter), true_false(a->call_stack),
	    true_false(a->mispredict), true_false(a->timed), true_false(a->branch_type),
	    true_false(a->lip), true_false(a->deep_cstate_reset));
	put(o, "\"perf_cap\":{");
	json_bool(o, "present", pc->present);
	put(o,
	    ",\"lbr_format\":%u,\"pebs_format\":%u,\"pebs_trap\":%s,\"pebs_arch_regs\":%s,"
	    "\"smm_freeze\":%s,\"full_width_write\":%s,\"pebs_baseline\":%s,"
	    "\"perf_metrics\":%s,\"pebs_output_pt\":%s,\"pebs_timing_info\":%s,"
	    "\"rdpmc_metrics_clear\":%s},",
	    pc->lbr_format, pc->pebs_format, true_false(pc->pebs_trap),
	    true_false(pc->pebs_arch_regs), true_false(pc->smm_freeze),
	    true_false(pc->full_width_write), true_false(pc->pebs_baseline),
	    true_false(pc->perf_metrics), true_false(pc->pebs_output_pt),
	    true_false(pc->pebs_timing_info), true_false(pc->rdpmc_metrics_clear));
	put(o, "\"misc_enable\":{");
	json_bool(o, "present", c->misc.present);
	put(o, ",");
	json_bool(o, "bts_unavailable", c->misc.bts_unavailable);
	put(o, ",");
	json_bool(o, "pebs_unavailable", c->misc.pebs_unavailable);
	put(o, "}");
}

size_t trace_caps_format_json(const struct trace_caps *c, unsigned cpu, uint32_t apic_id, char *buf,
			      size_t size)
{
	struct out o = {buf, size, 0};

	put(&o, "{\"type\":\"trace_caps\",\"v\":%d,\"cpu\":%u,\"apic_id\":%u,", JSON_VERSION, cpu,
	    apic_id);
	put(&o, "\"vendor\":\"%s\",\"family\":%u,\"model\":%u,\"stepping\":%u,",
	    trace_caps_vendor_name(c->vendor), c->family, c->model, c->stepping);
	put(&o, "\"core_type\":\"%s\",\"core_type_raw\":\"0x%x\",\"native_model_id\":\"0x%x\",",
	    trace_caps_core_type_name(c->core_type), c->core_type_raw, c->native_model_id);
	put(&o,
	    "\"hybrid\":%s,\"hypervisor\":%s,\"kvm\":%s,\"ds\":%s,\"dtes64\":%s,\"ds_cpl\":%s,"
	    "\"pdcm\":%s,\"x2apic\":%s,",
	    true_false(c->hybrid), true_false(c->hypervisor), true_false(c->kvm), true_false(c->ds),
	    true_false(c->dtes64), true_false(c->ds_cpl), true_false(c->pdcm),
	    true_false(c->x2apic));
	json_decoded(&o, c);
	put(&o, ",");
	json_conclusions(&o, c);
	put(&o, ",");
	json_raw(&o, &c->raw);
	put(&o, "}");
	return finish(&o);
}
