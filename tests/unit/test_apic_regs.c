// UNIT-SOURCES: arch/x86/smp/apic_regs.c
/*
 * The x2APIC side checked against the SDM (Vol. 3A Table 10-6, "Local APIC Register Address
 * Map Supported by x2APIC"), since QEMU 7.2's TCG cannot run it; ICR layouts per Figures 10-12
 * (xAPIC) and 10-28 (x2APIC).
 */
#include "tests/unit/unit.h"
#include "arch/x86/hw/apic_regs.h"

static void x2apic_msrs_match_the_sdm_table(void **state)
{
	(void)state;
	static const struct {
		enum apic_reg reg;
		uint32_t msr;
	} table[] = {
	    {APIC_ID, 0x802},
	    {APIC_VERSION, 0x803},
	    {APIC_TPR, 0x808},
	    {APIC_EOI, 0x80b},
	    {APIC_LDR, 0x80d},
	    {APIC_SVR, 0x80f},
	    {APIC_ESR, 0x828},
	    {APIC_ICR_LOW, 0x830},
	    {APIC_LVT_TIMER, 0x832},
	    {APIC_LVT_THERMAL, 0x833},
	    {APIC_LVT_PMC, 0x834},
	    {APIC_LVT_LINT0, 0x835},
	    {APIC_LVT_LINT1, 0x836},
	    {APIC_LVT_ERROR, 0x837},
	    {APIC_TIMER_INITIAL, 0x838},
	    {APIC_TIMER_CURRENT, 0x839},
	    {APIC_TIMER_DIVIDE, 0x83e},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		assert_int_equal(apic_x2apic_msr(table[i].reg), table[i].msr);
	assert_int_equal(apic_x2apic_msr(APIC_ICR_HIGH), 0); /* no such MSR in x2APIC mode */
}

static void icr_composition(void **state)
{
	(void)state;
	uint64_t icr;
	/* xAPIC INIT to APIC ID 3: destination in ICR_HIGH[31:24], mode 101b, level assert. */
	assert_true(apic_icr_compose(false, 3, APIC_DM_INIT, 0, APIC_DEST_NONE, &icr));
	assert_int_equal(icr >> 32, 0x03000000);
	assert_int_equal(icr & 0xffffffff, 0x00004500);
	/* xAPIC SIPI with vector 9Fh (trampoline at 9F000H). */
	assert_true(apic_icr_compose(false, 0xfe, APIC_DM_STARTUP, 0x9f, APIC_DEST_NONE, &icr));
	assert_int_equal(icr, 0xfe0000000000469full);
	/* 8-bit destination limit in xAPIC mode; x2APIC takes 32 bits in ICR[63:32]. */
	assert_false(apic_icr_compose(false, 300, APIC_DM_FIXED, 0x40, APIC_DEST_NONE, &icr));
	assert_true(apic_icr_compose(true, 300, APIC_DM_FIXED, 0x40, APIC_DEST_NONE, &icr));
	assert_int_equal(icr, (300ull << 32) | 0x4040);
	/* Shorthand "all excluding self" ignores the destination field. */
	assert_true(
	    apic_icr_compose(true, 0xffffffff, APIC_DM_NMI, 0, APIC_DEST_ALL_BUT_SELF, &icr));
	assert_int_equal(icr, 0x000c4400ull);
}

static void apic_id_width(void **state)
{
	(void)state;
	assert_int_equal(apic_id_from_reg(false, 0x05000000), 5);
	assert_int_equal(apic_id_from_reg(false, 0xff00ffff), 0xff);
	assert_int_equal(apic_id_from_reg(true, 0x12345), 0x12345);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(x2apic_msrs_match_the_sdm_table),
    cmocka_unit_test(icr_composition),
    cmocka_unit_test(apic_id_width),
};
UNIT_MAIN(tests)
