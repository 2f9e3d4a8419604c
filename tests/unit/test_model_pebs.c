// UNIT-SOURCES: arch/x86/model/pebs.c
/*
 * The model's PEBS records against references.md 6.2-6.5: the size and field offsets of formats
 * 0-3, trap-like versus fault-like RIP, the adaptive basic group (group mask, size field, eventing
 * IP) and GPR group order, the LBR group, and the buffer: not circular, the threshold interrupt
 * from the record that reaches it on.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "arch/x86/model/pebs.h"

#define BUF 0x10000ull
static uint8_t mem[0x2000];

static void *at(uint64_t lin)
{
	return lin >= BUF && lin < BUF + sizeof(mem) ? mem + (lin - BUF) : NULL;
}

static const struct spmu_regs regs = {
    .rflags = 0x246,
    .rax = 1,
    .rbx = 2,
    .rcx = 3,
    .rdx = 4,
    .rsi = 5,
    .rdi = 6,
    .rbp = 7,
    .rsp = 8,
    .r8 = 9,
    .r9 = 10,
    .r10 = 11,
    .r11 = 12,
    .r12 = 13,
    .r13 = 14,
    .r14 = 15,
    .r15 = 16,
};

static struct ds_area64 area(size_t size, unsigned nrec, unsigned threshold_rec)
{
	struct ds_area64 ds;
	memset(&ds, 0, sizeof(ds));
	ds.pebs_base = ds.pebs_index = BUF;
	ds.pebs_abs_max = BUF + nrec * size;
	ds.pebs_threshold = BUF + threshold_rec * size;
	return ds;
}

static uint64_t q(size_t off)
{
	uint64_t v;
	memcpy(&v, mem + off, sizeof(v));
	return v;
}

static void legacy_formats(void **state)
{
	(void)state;
	static const size_t sizes[] = {144, 176, 192, 200};
	struct pebs_sample s = {0xffffffff80001000ull,
				0xffffffff80001003ull,
				0x1,
				0x1234,
				&regs,
				0,
				0,
				0,
				NULL,
				0,
				NULL};
	for (unsigned fmt = 0; fmt <= 3; fmt++) {
		for (int trap = 0; trap < 2; trap++) {
			struct pebs_config c = {fmt, false, trap, 0};
			assert_int_equal(pebs_record_size(&c), sizes[fmt]);
			memset(mem, 0xee, sizeof(mem));
			struct ds_area64 ds = area(sizes[fmt], 4, 100);
			struct pebs_write_result r = pebs_write(&ds, at, &c, &s);
			assert_true(r.stored);
			assert_int_equal(ds.pebs_index, BUF + sizes[fmt]);
			assert_int_equal(q(0x00), 0x246);
			assert_int_equal(q(0x08), trap ? s.next_ip : s.eventing_ip);
			assert_int_equal(q(0x10), 1);  /* RAX */
			assert_int_equal(q(0x18), 2);  /* RBX: legacy order RAX, RBX, RCX, RDX */
			assert_int_equal(q(0x48), 8);  /* RSP */
			assert_int_equal(q(0x88), 16); /* R15 */
			if (fmt >= 1)
				assert_int_equal(q(0x90), 0x1); /* applicable counters */
			if (fmt >= 2)
				assert_int_equal(q(0xb0), s.eventing_ip);
			if (fmt >= 3)
				assert_int_equal(q(0xc0), 0x1234); /* TSC */
			assert_int_equal(mem[sizes[fmt]], 0xee);   /* nothing past the record */
		}
	}
	struct pebs_config fmt4_basic_only = {4, false, true, 0};
	assert_int_equal(pebs_record_size(&fmt4_basic_only), 0); /* not offered */
}

static void adaptive_groups(void **state)
{
	(void)state;
	const struct pebs_lbr_entry lbr[2] = {{0xa1, 0xa2, 0xa3}, {0xb1, 0xb2, 0xb3}};
	struct pebs_sample s = {
	    0xffffffff80002000ull, 0xffffffff80002005ull, 0x2, 99, &regs, 0, 0, 0, lbr, 2, NULL};
	uint64_t cfg = PEBS_DATACFG_MEMINFO | PEBS_DATACFG_GP | PEBS_DATACFG_LBRS |
		       FIELD_PREP(PEBS_DATACFG_LBR_COUNT, 1); /* two LBR entries */
	struct pebs_config c = {4, true, true, cfg};
	size_t size = 32 + 32 + 144 + 2 * 24;
	assert_int_equal(pebs_record_size(&c), size);
	struct ds_area64 ds = area(size, 3, 100);
	assert_true(pebs_write(&ds, at, &c, &s).stored);
	assert_int_equal(q(0) & GENMASK(31, 0), cfg & GENMASK(31, 0)); /* group mask mirrored */
	assert_int_equal(q(0) >> 48, size);			       /* record size */
	assert_int_equal(q(8), s.eventing_ip);			       /* basic: exact IP */
	assert_int_equal(q(16), 0x2);
	assert_int_equal(q(24), 99);
	assert_int_equal(q(32), 0); /* memory info: no memory-access model */
	size_t g = 64;		    /* GPR group: flags, ip, ax, cx, dx, bx, sp, bp, si, di */
	assert_int_equal(q(g + 0), 0x246);
	assert_int_equal(q(g + 8), s.next_ip);
	assert_int_equal(q(g + 16), 1); /* AX */
	assert_int_equal(q(g + 24), 3); /* CX */
	assert_int_equal(q(g + 32), 4); /* DX */
	assert_int_equal(q(g + 40), 2); /* BX */
	assert_int_equal(q(g + 48), 8); /* SP */
	assert_int_equal(q(g + 136), 16);
	size_t l = g + 144;
	assert_int_equal(q(l), 0xa1);
	assert_int_equal(q(l + 24 + 16), 0xb3);
	struct pebs_config xmm = {4, true, true, PEBS_DATACFG_XMMS};
	assert_int_equal(pebs_record_size(&xmm), 32 + 256);
}

/* The XMM group between GPRs and LBRs (Linux setup_pebs_adaptive_sample_data reads the groups
 * in that order), XMM0's low quadword first (struct pebs_xmm: two entries per register); zero
 * when the caller has no registers to give. */
static void adaptive_xmm_group(void **state)
{
	(void)state;
	struct pebs_xmm x;
	for (unsigned i = 0; i < 32; i++)
		x.xmm[i] = 0x1000 + i;
	struct pebs_sample s = {0x5000, 0x5003, 1, 7, &regs, 0, 0, 0, NULL, 0, &x};
	uint64_t cfg = PEBS_DATACFG_GP | PEBS_DATACFG_XMMS;
	struct pebs_config c = {4, true, true, cfg};
	size_t size = 32 + 144 + 256;
	assert_int_equal(pebs_record_size(&c), size);
	struct ds_area64 ds = area(size, 3, 100);
	assert_true(pebs_write(&ds, at, &c, &s).stored);
	size_t xo = 32 + 144;
	assert_int_equal(q(xo), 0x1000);	       /* XMM0 bits 63:0 */
	assert_int_equal(q(xo + 8), 0x1001);	       /* XMM0 bits 127:64 */
	assert_int_equal(q(xo + 15 * 16 + 8), 0x101f); /* XMM15 bits 127:64 */
	s.xmm = NULL;
	assert_true(pebs_write(&ds, at, &c, &s).stored);
	for (unsigned i = 0; i < 32; i++)
		assert_int_equal(q(size + xo + 8 * i), 0);
}

static void buffer_is_not_circular(void **state)
{
	(void)state;
	struct pebs_sample s = {0x1000, 0x1001, 1, 0, &regs, 0, 0, 0, NULL, 0, NULL};
	struct pebs_config c = {3, false, true, 0};
	struct ds_area64 ds = area(200, 3, 2);
	struct pebs_write_result r1 = pebs_write(&ds, at, &c, &s);
	struct pebs_write_result r2 = pebs_write(&ds, at, &c, &s);
	struct pebs_write_result r3 = pebs_write(&ds, at, &c, &s);
	struct pebs_write_result r4 = pebs_write(&ds, at, &c, &s);
	assert_false(r1.threshold_hit);
	assert_true(r2.threshold_hit); /* the index reached base + 2 records */
	assert_true(r3.threshold_hit); /* and exceeds it: "matches/exceeds" (SDM 17.4.9.5) */
	assert_true(r3.stored);
	assert_true(r4.dropped_full); /* full: dropped, no wrap */
	assert_int_equal(ds.pebs_index, BUF + 3 * 200);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(legacy_formats),
    cmocka_unit_test(adaptive_groups),
    cmocka_unit_test(adaptive_xmm_group),
    cmocka_unit_test(buffer_is_not_circular),
};
UNIT_MAIN(tests)
