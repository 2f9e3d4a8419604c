// clang-format off
// UNIT-SOURCES: arch/x86/drivers/pebs_record.c arch/x86/caps/pebs_models.c arch/x86/model/pebs.c lib/fmt.c
// clang-format on
/*
 * PEBS record sizes and the decoder against references.md 6.2-6.3, built byte by byte: every qword
 * of a record holds MARK + its own offset, so a decoded field proves where it was read from.
 * Records are decoded from heap copies of exactly their size (ASan catches over-reads). Also:
 * IP kinds per format and trap bit, the adaptive groups in all 16 combinations, size/group/short
 * errors, DS reset slots (references.md 5.2), thresholds (6.5), IA32_PEBS_ENABLE against four kinds
 * of CPU (6.1), MSR_PEBS_LD_LAT, and a round trip through the software PMU's record writer.
 */
#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>
#include "arch/x86/drivers/pebs_record.h"
#include "arch/x86/model/pebs.h"

#define MARK 0x5a000000ull
static uint8_t rec[4096];

static void put(size_t off, uint64_t v)
{
	memcpy(rec + off, &v, 8);
}

static void fill_marks(size_t n)
{
	for (size_t off = 0; off < n; off += 8)
		put(off, MARK + off);
}

/* Decode the first `size` bytes of rec from a heap copy of exactly that size: what is wrong with
 * the record (PEBS_DEFECT_NONE when it decodes; the status says the same). */
static enum pebs_defect decode(unsigned fmt, bool adaptive, bool trap, uint64_t cfg, size_t size,
			       struct pebs_decoded *d)
{
	void *copy = malloc(size ? size : 1);
	assert_non_null(copy);
	memcpy(copy, rec, size);
	enum status st = pebs_decode(fmt, adaptive, trap, cfg, copy, size, d);
	if (d->lbr) /* point into rec instead: the copy is freed */
		d->lbr = rec + d->lbr_offset;
	free(copy);
	assert_int_equal(st == STATUS_OK, d->defect == PEBS_DEFECT_NONE);
	return d->defect;
}

/* GPRs by name (flags ip ax bx cx dx si di bp sp) at base + off[k]; R8-R15 from base + 0x50. */
static const uint8_t legacy_off[10] = {0x00, 0x08, 0x10, 0x18, 0x20, 0x28, 0x30, 0x38, 0x40, 0x48};
static const uint8_t adapt_off[10] = {0x00, 0x08, 0x10, 0x28, 0x18, 0x20, 0x40, 0x48, 0x38, 0x30};

static void check_gprs(const struct pebs_gprs *g, uint64_t base, const uint8_t off[10])
{
	const uint64_t named[10] = {g->flags, g->ip, g->ax, g->bx, g->cx,
				    g->dx,    g->si, g->di, g->bp, g->sp};
	const uint64_t high[8] = {g->r8, g->r9, g->r10, g->r11, g->r12, g->r13, g->r14, g->r15};
	for (unsigned k = 0; k < 10; k++)
		assert_int_equal(named[k], base + off[k]);
	for (unsigned k = 0; k < 8; k++)
		assert_int_equal(high[k], base + 0x50 + 8 * k);
}

static void record_sizes(void **state)
{
	(void)state;
	static const size_t legacy[] = {144, 176, 192, 200};
	for (unsigned f = 0; f < 4; f++) {
		assert_int_equal(pebs_record_bytes(f, false, 0), legacy[f]);
		assert_int_equal(pebs_record_bytes(f, true, PEBS_DATACFG_GP), 0); /* adaptive < 4 */
	}
	for (unsigned f = 4; f <= 5; f++) {
		assert_int_equal(pebs_record_bytes(f, false, 0xf), 32); /* basic only */
		for (unsigned g = 0; g < 16; g++) {
			uint64_t cfg = g | (5ull << 24); /* 6 LBR entries when selected */
			size_t want = 32 + (g & 1 ? 32 : 0) + (g & 2 ? 144 : 0) +
				      (g & 4 ? 256 : 0) + (g & 8 ? 6 * 24 : 0);
			assert_int_equal(pebs_record_bytes(f, true, cfg), want);
		}
		assert_int_equal(pebs_record_bytes(f, true, PEBS_DATACFG_LBRS | (255ull << 24)),
				 32 + 256 * 24);
		assert_int_equal(pebs_record_bytes(f, true, PEBS_DATACFG_CNTR), 0); /* format 6 */
	}
	for (unsigned f = 6; f < 16; f++)
		assert_int_equal(pebs_record_bytes(f, true, 0), 0);
}

static void legacy_offsets(void **state)
{
	(void)state;
	static const size_t sizes[] = {144, 176, 192, 200};
	for (unsigned f = 0; f < 4; f++) {
		struct pebs_decoded d;
		fill_marks(sizeof(rec));
		assert_int_equal(decode(f, false, true, 0, sizes[f], &d), PEBS_DEFECT_NONE);
		assert_int_equal(d.size, sizes[f]);
		assert_true(d.has_gprs);
		check_gprs(&d.gprs, MARK, legacy_off); /* legacy: RAX, RBX, RCX, RDX, ... */
		assert_int_equal(d.has_status, f >= 1);
		assert_int_equal(d.status_exact, f >= 3);
		assert_int_equal(d.status, f >= 1 ? MARK + 0x90 : 0);
		assert_int_equal(d.has_meminfo, f >= 1);
		assert_int_equal(d.data_addr, f >= 1 ? MARK + 0x98 : 0);
		assert_int_equal(d.data_src, f >= 1 ? MARK + 0xa0 : 0);
		assert_int_equal(d.latency, f >= 1 ? MARK + 0xa8 : 0);
		assert_int_equal(d.eventing_ip, f >= 2 ? MARK + 0xb0 : 0); /* trap: 0/1 unknown */
		assert_int_equal(d.has_tsx, f >= 2);
		assert_int_equal(d.tsx_tuning, f >= 2 ? MARK + 0xb8 : 0);
		assert_int_equal(d.has_tsc, f >= 3);
		assert_int_equal(d.tsc, f >= 3 ? MARK + 0xc0 : 0);
		assert_int_equal(d.lbr_count, 0);
		assert_false(d.has_xmm);
	}
	/* Format 1/2 status is raw: zero and multi-bit values pass through. */
	struct pebs_decoded d;
	put(0x90, 0);
	assert_int_equal(decode(1, false, false, 0, 176, &d), PEBS_DEFECT_NONE);
	assert_int_equal(d.status, 0);
	assert_true(d.has_status && !d.status_exact);
	put(0x90, 0x5);
	assert_int_equal(decode(2, false, false, 0, 192, &d), PEBS_DEFECT_NONE);
	assert_int_equal(d.status, 0x5);
}

static void ip_kinds(void **state)
{
	(void)state;
	static const size_t sizes[] = {144, 176, 192, 200};
	static const enum pebs_ip_kind want[4][2] = {
	    {PEBS_IP_FAULT, PEBS_IP_TRAP},
	    {PEBS_IP_FAULT, PEBS_IP_TRAP},
	    {PEBS_IP_EXACT, PEBS_IP_EXACT},
	    {PEBS_IP_EXACT, PEBS_IP_EXACT},
	};
	struct pebs_decoded d;
	fill_marks(256);
	for (unsigned f = 0; f < 4; f++) {
		for (int trap = 0; trap < 2; trap++) {
			assert_int_equal(decode(f, false, trap, 0, sizes[f], &d), PEBS_DEFECT_NONE);
			assert_int_equal(d.ip_kind, want[f][trap]);
			assert_int_equal(d.has_next_ip, trap);
			assert_int_equal(d.next_ip, trap ? MARK + 0x08 : 0);
			assert_int_equal(d.has_eventing_ip, f >= 2 || !trap);
			uint64_t ev = f >= 2 ? MARK + 0xb0 : trap ? 0 : MARK + 0x08;
			assert_int_equal(d.eventing_ip, ev);
		}
	}
	/* Formats 4/5, adaptive or not: the basic group's IP, whatever the trap bit. */
	fill_marks(32);
	put(0, 32ull << 48);
	for (unsigned f = 4; f <= 5; f++) {
		for (int a = 0; a < 2; a++) {
			assert_int_equal(decode(f, a, true, 0, 32, &d), PEBS_DEFECT_NONE);
			assert_int_equal(d.ip_kind, PEBS_IP_EXACT);
			assert_int_equal(d.eventing_ip, MARK + 0x08);
			assert_false(d.has_next_ip); /* no GPR group */
			assert_int_equal(d.status, MARK + 0x10);
			assert_true(d.status_exact);
			assert_int_equal(d.tsc, MARK + 0x18);
		}
	}
	assert_string_equal(pebs_ip_kind_name(PEBS_IP_EXACT), "exact");
	assert_string_equal(pebs_ip_kind_name(PEBS_IP_TRAP), "trap");
	assert_string_equal(pebs_ip_kind_name(PEBS_IP_FAULT), "fault");
}

static void adaptive_groups(void **state)
{
	(void)state;
	for (unsigned f = 4; f <= 5; f++) {
		for (unsigned g = 0; g < 16; g++) {
			uint64_t cfg = g | (2ull << 24) | (0xabull << 32); /* 3 LBR entries */
			size_t mem = 32, gpr = mem + (g & 1 ? 32 : 0),
			       xmm = gpr + (g & 2 ? 144 : 0);
			size_t lbr = xmm + (g & 4 ? 256 : 0), size = lbr + (g & 8 ? 3 * 24 : 0);
			fill_marks(size);
			put(0, (uint64_t)size << 48 | 0x1234ull << 32 | (g & 8 ? 2u << 24 : 0) | g);
			struct pebs_decoded d;
			assert_int_equal(decode(f, true, false, cfg, size, &d), PEBS_DEFECT_NONE);
			assert_int_equal(d.size, size);
			assert_int_equal(d.groups, (g & 8 ? 2u << 24 : 0) | g);
			assert_int_equal(d.retire_latency, 0x1234);
			assert_int_equal(d.eventing_ip, MARK + 0x08);
			assert_int_equal(d.has_meminfo, !!(g & 1));
			if (g & 1) {
				assert_int_equal(d.data_addr, MARK + mem);
				assert_int_equal(d.data_src, MARK + mem + 8);
				assert_int_equal(d.latency, MARK + mem + 16);
				assert_int_equal(d.tsx_tuning, MARK + mem + 24);
			}
			assert_int_equal(d.has_gprs, !!(g & 2));
			assert_int_equal(d.has_next_ip, !!(g & 2));
			if (g & 2) { /* flags, ip, ax, cx, dx, bx, sp, bp, si, di, r8..r15 */
				check_gprs(&d.gprs, MARK + gpr, adapt_off);
				assert_int_equal(d.next_ip, MARK + gpr + 0x08);
			}
			assert_int_equal(d.has_xmm, !!(g & 4));
			assert_int_equal(d.xmm_offset, g & 4 ? xmm : 0);
			assert_int_equal(d.lbr_count, g & 8 ? 3 : 0);
			struct pebs_lbr_entry e;
			for (unsigned i = 0; i < d.lbr_count; i++) {
				assert_true(pebs_lbr_get(&d, i, &e));
				assert_int_equal(d.lbr_offset, lbr);
				assert_int_equal(e.from, MARK + lbr + 24 * i);
				assert_int_equal(e.to, MARK + lbr + 24 * i + 8);
				assert_int_equal(e.info, MARK + lbr + 24 * i + 16);
			}
			assert_false(pebs_lbr_get(&d, d.lbr_count, &e));
		}
	}
}

static void decode_errors(void **state)
{
	(void)state;
	struct pebs_decoded d;
	uint64_t cfg = PEBS_DATACFG_MEMINFO | PEBS_DATACFG_LBRS | (1ull << 24); /* 32+32+48 */
	fill_marks(112);
	put(0, 112ull << 48 | (1u << 24) | 0x9);
	assert_int_equal(decode(4, true, false, cfg, 112, &d), PEBS_DEFECT_NONE);
	assert_int_equal(decode(4, true, false, cfg, 111, &d), PEBS_DEFECT_SHORT);
	assert_int_equal(decode(4, true, false, cfg, 0, &d), PEBS_DEFECT_SHORT);
	put(0, 120ull << 48 | (1u << 24) | 0x9); /* size field says one more qword */
	assert_int_equal(decode(4, true, false, cfg, 112, &d), PEBS_DEFECT_SIZE_MISMATCH);
	assert_int_equal(d.size, 0); /* cleared on error */
	assert_int_equal(d.eventing_ip, 0);
	put(0, 112ull << 48 | (1u << 24) | 0xb); /* record has GPRs, DATA_CFG does not */
	assert_int_equal(decode(4, true, false, cfg, 112, &d), PEBS_DEFECT_GROUPS);
	put(0, 112ull << 48 | (3u << 24) | 0x9); /* LBR count 4, DATA_CFG 2 */
	assert_int_equal(decode(4, true, false, cfg, 112, &d), PEBS_DEFECT_GROUPS);
	/* Non-adaptive format 4: the basic group, size field 32, DATA_CFG ignored. */
	put(0, 32ull << 48);
	assert_int_equal(decode(4, false, false, cfg, 32, &d), PEBS_DEFECT_NONE);
	put(0, 0);
	assert_int_equal(decode(4, false, false, 0, 32, &d), PEBS_DEFECT_SIZE_MISMATCH);
	/* Legacy short, unsupported formats and configurations, NULLs. */
	assert_int_equal(decode(3, false, false, 0, 199, &d), PEBS_DEFECT_SHORT);
	assert_int_equal(decode(0, false, false, 0, 143, &d), PEBS_DEFECT_SHORT);
	assert_int_equal(decode(6, true, false, 0, 256, &d), PEBS_DEFECT_FORMAT);
	assert_int_equal(decode(3, true, false, 0, 256, &d), PEBS_DEFECT_FORMAT);
	assert_int_equal(decode(5, true, false, PEBS_DATACFG_CNTR, 256, &d), PEBS_DEFECT_DATA_CFG);
	assert_int_equal(pebs_decode(3, false, false, 0, NULL, 200, &d), STATUS_INVALID);
	assert_int_equal(d.defect, PEBS_DEFECT_ARG);
	assert_int_equal(pebs_decode(3, false, false, 0, rec, 200, NULL), STATUS_INVALID);
	for (int e = PEBS_DEFECT_NONE; e < PEBS_DEFECTS; e++) /* every defect has its own phrase */
		for (int o = e + 1; o < PEBS_DEFECTS; o++)
			assert_string_not_equal(pebs_defect_name(e), pebs_defect_name(o));
	assert_string_equal(pebs_defect_name(PEBS_DEFECTS), "unknown PEBS defect");
}

static void reset_offsets(void **state)
{
	(void)state;
	assert_int_equal(pebs_counter_reset_offset(3, false, 0), 0x40);
	assert_int_equal(pebs_counter_reset_offset(4, false, 7), 0x78);
	assert_int_equal(pebs_counter_reset_offset(4, false, 8), 0); /* would be fixed 0's */
	assert_int_equal(pebs_counter_reset_offset(5, false, 31), 0x138);
	assert_int_equal(pebs_counter_reset_offset(5, false, 32), 0);
	for (unsigned m = 0; m < 4; m++) {
		assert_int_equal(pebs_counter_reset_offset(4, true, m), 0x80 + 8 * m);
		assert_int_equal(pebs_counter_reset_offset(5, true, m), 0x140 + 8 * m);
	}
	assert_int_equal(pebs_counter_reset_offset(4, true, 4), 0);
	assert_int_equal(pebs_counter_reset_offset(5, true, 15), 0x1b8); /* last of 0x1c0 */
	assert_int_equal(pebs_counter_reset_offset(5, true, 16), 0);
	assert_int_equal(pebs_counter_reset_offset(6, true, 0), 0);
}

static void thresholds(void **state)
{
	(void)state;
	const uint64_t base = 0x100000;
	assert_int_equal(pebs_threshold_single(base, 200), base + 200);
	assert_int_equal(pebs_threshold_multi(base, base + 100 * 200, 200, 4), base + 96 * 200);
	assert_int_equal(pebs_threshold_multi(base, base + 100 * 200 + 50, 200, 4),
			 base + 96 * 200);
	assert_int_equal(pebs_threshold_multi(base, base + 5 * 200, 200, 4), base + 200);
	assert_int_equal(pebs_threshold_multi(base, base + 4 * 200, 200, 4), base + 200);
	assert_int_equal(pebs_threshold_multi(base, base + 3 * 200, 200, 8), base + 200);
	assert_int_equal(pebs_threshold_multi(base, base, 200, 1), base + 200);
	assert_int_equal(pebs_threshold_multi(base, 0x1000, 200, 1), base + 200); /* below base */
}

static char why[192];

static int enable(const struct trace_caps *c, uint32_t gp, uint32_t fixed, uint32_t ll,
		  uint64_t *out)
{
	memset(why, 'x', sizeof(why));
	return pebs_enable_bits(c, gp, fixed, ll, out, why, sizeof(why));
}

static struct trace_caps caps(unsigned fmt, unsigned version, unsigned gp, uint32_t fixed,
			      bool baseline)
{
	struct trace_caps c;
	memset(&c, 0, sizeof(c));
	c.pebs.kind = TC_PEBS_YES;
	c.pebs.format = fmt;
	c.perfmon.version = version;
	c.perfmon.gp_counters = gp;
	c.perfmon.fixed_mask = fixed;
	c.perf_cap.pebs_baseline = baseline;
	return c;
}

static void enable_core2(void **state)
{
	(void)state;
	struct trace_caps c = caps(0, 2, 2, 0x7, false);
	uint64_t v = 1;
	assert_int_equal(enable(&c, 0, 0, 0, &v), STATUS_OK);
	assert_int_equal(v, 0);
	assert_string_equal(why, "");
	assert_int_equal(enable(&c, 0x1, 0, 0, &v), STATUS_OK);
	assert_int_equal(v, 0x1);
	assert_int_equal(enable(&c, 0x2, 0, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "PEBS on PMC"));
	assert_int_equal(v, 0);
	assert_non_null(strstr(why, "PMC1"));
	assert_non_null(strstr(why, "PMC0 only"));
	assert_int_equal(enable(&c, 0x1, 0, 0x1, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "load"));
	assert_int_equal(enable(&c, 0x1, 0x1, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "fixed"));
	assert_non_null(strstr(why, "[14]"));
}

static void enable_skylake(void **state)
{
	(void)state;
	struct trace_caps c = caps(3, 4, 8, 0x7, false); /* HT off: 8 GP counters */
	uint64_t v;
	assert_int_equal(enable(&c, 0xf, 0, 0x1, &v), STATUS_OK);
	assert_int_equal(v, 0x10000000full);
	assert_int_equal(enable(&c, 0xf, 0, 0xf, &v), STATUS_OK);
	assert_int_equal(v, 0xf0000000full);
	assert_int_equal(enable(&c, 0x10, 0, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "PEBS on PMC")); /* PMC4 has no PEBS */
	assert_non_null(strstr(why, "PMC0-PMC3"));
	assert_int_equal(enable(&c, 0x1, 0, 0x2, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "load")); /* PMC1 not PEBS */
	assert_non_null(strstr(why, "PMC1"));
	assert_int_equal(enable(&c, 0x1, 0x1, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "fixed"));
	assert_int_equal(v, 0);
}

static void enable_icelake(void **state)
{
	(void)state;
	struct trace_caps c = caps(4, 5, 8, 0xf, true);
	uint64_t v;
	assert_int_equal(enable(&c, 0xff, 0x1, 0, &v), STATUS_OK);
	assert_int_equal(v, 0x1000000ffull);
	assert_int_equal(enable(&c, 0x1, 0x9, 0, &v), STATUS_OK);
	assert_int_equal(v, 0x900000001ull);
	assert_int_equal(enable(&c, 0x1, 0x10, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "fixed")); /* no fixed 4 */
	assert_non_null(strstr(why, "fixed counter 4"));
	assert_int_equal(enable(&c, 0x1, 0, 0x1, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "load")); /* v5 */
	assert_non_null(strstr(why, "v5"));
	assert_int_equal(enable(&c, 0x100, 0, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "PEBS on PMC")); /* PMC8 absent */
	assert_non_null(strstr(why, "PMC8"));
	/* Format 5: 16 fixed reset slots; format 4: 4. */
	c.perfmon.fixed_mask = 0xffff;
	assert_int_equal(enable(&c, 0, 0x10, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "fixed"));
	c.pebs.format = 5;
	assert_int_equal(enable(&c, 0, 0x8010, 0, &v), STATUS_OK);
	assert_int_equal(v, 0x801000000000ull);
	c.perfmon.fixed_mask = 0x1ffff;
	assert_int_equal(enable(&c, 0, 0x10000, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "fixed")); /* no 17th slot */
	c.perf_cap.pebs_baseline = false;      /* format 4+ without PERF_CAPABILITIES[14] */
	assert_int_equal(enable(&c, 0, 0x1, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "fixed"));
	assert_non_null(strstr(why, "baseline 0"));
}

static void enable_refusals(void **state)
{
	(void)state;
	struct trace_caps c = caps(4, 5, 4, 0x7, true);
	uint64_t v;
	assert_int_equal(enable(&c, 0x10, 0, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "PEBS on PMC")); /* 4 GP counters */
	assert_int_equal(enable(&c, 0x80000000u, 0, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "PEBS on PMC"));
	assert_int_equal(enable(&c, 0, 0x80000000u, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "fixed"));
	c.perfmon.version = 4; /* both kinds of bits 32+ individually valid: still refused */
	assert_int_equal(enable(&c, 0x1, 0x2, 0x1, &v), STATUS_INVALID);
	assert_non_null(strstr(why, "both requested"));
	assert_int_equal(v, 0);
	c.pebs.format = 6;
	assert_int_equal(enable(&c, 0x1, 0, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "format"));
	c.pebs.kind = TC_PEBS_NO;
	strcpy(c.pebs.reason, "IA32_MISC_ENABLE[12] PEBS_UNAVAILABLE=1");
	assert_int_equal(enable(&c, 0x1, 0, 0, &v), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "no PEBS"));
	assert_non_null(strstr(why, "PEBS_UNAVAILABLE"));
	assert_int_equal(pebs_enable_bits(&c, 1, 0, 0, &v, NULL, 0), STATUS_UNSUPPORTED);
	char tiny[8];
	assert_int_equal(pebs_enable_bits(&c, 1, 0, 0, &v, tiny, sizeof(tiny)), STATUS_UNSUPPORTED);
	assert_int_equal(strlen(tiny), 7);
	assert_int_equal(pebs_enable_bits(&c, 1, 0, 0, NULL, why, sizeof(why)), STATUS_INVALID);
}

static void ld_lat(void **state)
{
	(void)state;
	uint64_t v = 9;
	assert_int_equal(pebs_ld_lat_value(0, &v), STATUS_OK);
	assert_int_equal(v, 0);
	assert_int_equal(pebs_ld_lat_value(3, &v), STATUS_OK);
	assert_int_equal(v, 3);
	assert_int_equal(pebs_ld_lat_value(0xffff, &v), STATUS_OK);
	assert_int_equal(v, 0xffff);
	assert_int_equal(pebs_ld_lat_value(0x10000, &v), STATUS_INVALID);
	assert_int_equal(v, 0);
}

/* The memory events per processor, expected from Linux's perf aliases (arch/x86/events/intel/
 * core.c: mem_ld_nhm "event=0x0b,umask=0x10,ldlat=3", mem_ld_snb and mem_ld_hsw
 * "event=0xcd,umask=0x1,ldlat=3", mem_st_hsw "event=0xd0,umask=0x82") and the SDM's Skylake
 * MEM_INST_RETIRED.ALL_LOADS D0H/81H. */
static void memory_events(void **state)
{
	(void)state;
	struct {
		uint32_t model;
		unsigned format;
		enum pebs_mem_event which;
		int want;
		uint8_t event, umask;
	} rows[] = {
	    {0x1e, 1, PEBS_MEM_LOAD_LATENCY, STATUS_OK, 0x0b, 0x10}, /* Nehalem */
	    {0x2c, 1, PEBS_MEM_LOAD_LATENCY, STATUS_OK, 0x0b, 0x10}, /* Westmere-EP */
	    {0x2a, 1, PEBS_MEM_LOAD_LATENCY, STATUS_OK, 0xcd, 0x01}, /* Sandy Bridge */
	    {0x2a, 1, PEBS_MEM_STORES, STATUS_UNSUPPORTED, 0, 0},    /* needs precise store */
	    {0x3c, 2, PEBS_MEM_STORES, STATUS_OK, 0xd0, 0x82},	     /* Haswell */
	    {0x5e, 3, PEBS_MEM_LOAD_LATENCY, STATUS_OK, 0xcd, 0x01}, /* Skylake */
	    {0x5e, 3, PEBS_MEM_ALL_LOADS, STATUS_OK, 0xd0, 0x81},
	    {0x5e, 3, PEBS_MEM_STORES, STATUS_OK, 0xd0, 0x82},
	    {0x17, 0, PEBS_MEM_LOAD_LATENCY, STATUS_UNSUPPORTED, 0, 0}, /* Penryn: format 0 */
	    {0x5c, 3, PEBS_MEM_ALL_LOADS, STATUS_UNSUPPORTED, 0, 0},	/* Goldmont: not tabled */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct trace_caps c = caps(rows[i].format, 4, 4, 0x7, false);
		c.family = 6;
		c.model = rows[i].model;
		uint8_t event = 0, umask = 0;
		assert_int_equal(
		    pebs_memory_event(&c, rows[i].which, &event, &umask, why, sizeof(why)),
		    rows[i].want);
		if (rows[i].want == STATUS_OK) {
			assert_int_equal(event, rows[i].event);
			assert_int_equal(umask, rows[i].umask);
		} else {
			assert_true(why[0] != '\0');
		}
	}
}

/* The software PMU's writer (arch/x86/model/pebs.c) and this decoder agree. */
#define BUF_LIN 0x40000ull
static void *at(uint64_t lin)
{
	return lin >= BUF_LIN && lin < BUF_LIN + sizeof(rec) ? rec + (lin - BUF_LIN) : NULL;
}

static void spmu_round_trip(void **state)
{
	(void)state;
	static const struct spmu_regs regs = {.rflags = 0x246, .rbx = 2, .rcx = 3, .r15 = 4};
	static const struct pebs_lbr_entry lbr[2] = {{0x10, 0x20, 0x30}, {0x40, 0x50, 0x60}};
	const struct pebs_sample s = {0xffff800000001000ull,
				      0xffff800000001004ull,
				      0x2,
				      0x77,
				      &regs,
				      0x7000,
				      0x3,
				      14,
				      lbr,
				      2,
				      NULL};
	for (unsigned f = 0; f <= 4; f++) {
		for (int trap = 0; trap < 2; trap++) {
			uint64_t cfg = f == 4 ? 0xf | (1ull << 24) : 0;
			struct pebs_config pc = {f, f == 4, trap, cfg};
			struct ds_area64 ds = {.pebs_base = BUF_LIN, .pebs_index = BUF_LIN};
			ds.pebs_abs_max = ds.pebs_threshold = BUF_LIN + sizeof(rec);
			memset(rec, 0, sizeof(rec));
			assert_true(pebs_write(&ds, at, &pc, &s).stored);
			size_t size = ds.pebs_index - BUF_LIN;
			assert_int_equal(pebs_record_bytes(f, f == 4, cfg), size);
			struct pebs_decoded d;
			assert_int_equal(decode(f, f == 4, trap, cfg, size, &d), PEBS_DEFECT_NONE);
			assert_int_equal(d.has_eventing_ip, f >= 2 || !trap);
			if (d.has_eventing_ip)
				assert_int_equal(d.eventing_ip, s.eventing_ip);
			assert_int_equal(d.has_next_ip, trap || f == 4);
			if (d.has_next_ip)
				assert_int_equal(d.next_ip, s.next_ip);
			assert_int_equal(d.gprs.flags, 0x246);
			assert_int_equal(d.gprs.bx, 2);
			assert_int_equal(d.gprs.cx, 3);
			assert_int_equal(d.gprs.r15, 4);
			assert_int_equal(d.status, f >= 1 ? 0x2 : 0);
			assert_int_equal(d.tsc, f >= 3 ? 0x77 : 0);
			/* Formats 1 and later carry the data address, source and latency (offsets
			 * 98H-A8H, or the adaptive memory-info group). */
			assert_int_equal(d.has_meminfo, f >= 1);
			assert_int_equal(d.data_addr, f >= 1 ? 0x7000 : 0);
			assert_int_equal(d.data_src, f >= 1 ? 0x3 : 0);
			assert_int_equal(d.latency, f >= 1 ? 14 : 0);
			assert_int_equal(d.lbr_count, f == 4 ? 2 : 0);
			struct pebs_lbr_entry e;
			for (unsigned i = 0; i < d.lbr_count; i++) {
				assert_true(pebs_lbr_get(&d, i, &e));
				assert_memory_equal(&e, &lbr[i], sizeof(e));
			}
		}
	}
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(record_sizes),    cmocka_unit_test(legacy_offsets),
    cmocka_unit_test(ip_kinds),	       cmocka_unit_test(adaptive_groups),
    cmocka_unit_test(decode_errors),   cmocka_unit_test(reset_offsets),
    cmocka_unit_test(thresholds),      cmocka_unit_test(enable_core2),
    cmocka_unit_test(enable_skylake),  cmocka_unit_test(enable_icelake),
    cmocka_unit_test(enable_refusals), cmocka_unit_test(ld_lat),
    cmocka_unit_test(spmu_round_trip), cmocka_unit_test(memory_events),
};

UNIT_MAIN(tests)
