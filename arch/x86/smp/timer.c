/* SPDX-License-Identifier: MIT */
/*
 * TSC and local APIC timer calibration. The PIT (8254) channel 2, gated through port 61H, gives
 * an independent reference of 1.193182 MHz on PC-compatible machines; the UEFI loader's
 * Stall()-based figure is kept for comparison.
 */
#include "arch/x86/smp/timer.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/cpu/vectors.h"

#define PIT_HZ		  1193182
#define PIT_CH2_DATA	  0x42
#define PIT_COMMAND	  0x43
#define PIT_CMD_CH2_MODE0 0xb0 /* channel 2, lobyte/hibyte, mode 0 (interrupt on terminal) */
#define PIT_CMD_CH2_LATCH 0x80 /* channel 2, counter latch */
#define PORT_61		  0x61
#define PORT_61_GATE2	  BIT(0) /* gate input of channel 2 */
#define PORT_61_SPEAKER	  BIT(1)
#define PIT_MEASURE_MS	  20
#define PIT_SPIN_LIMIT	  100000000u
#define PIT_SAMPLES	  8
#define PIT_TRUST_PPM	  10000 /* a measurement with brackets under 1% is trusted */

#define APIC_TIMER_DIV_1     0xb /* divide configuration 1011b: divide by 1 (SDM 10.5.4) */
#define APIC_TIMER_DIV_128   0xa /* 1010b: divide by 128, for one-shot deadlines of seconds */
#define APIC_TIMER_DIVISOR   128
#define APIC_CALIBRATE_US    10000
#define APIC_TIMER_MAX_COUNT 0xffffffffu

static struct timer_info info;

uint64_t timer_tsc_hz_from_cpuid(uint32_t max_leaf, uint32_t l15_eax, uint32_t l15_ebx,
				 uint32_t l15_ecx, uint32_t l16_eax)
{
	if (max_leaf >= CPUID_LEAF_TSC && l15_eax && l15_ebx && l15_ecx)
		return (uint64_t)l15_ecx * l15_ebx / l15_eax;
	if (max_leaf >= CPUID_LEAF_FREQ && (l16_eax & 0xffff))
		return (uint64_t)(l16_eax & 0xffff) * 1000000;
	return 0;
}

/* Latch and read channel 2's current count (8254: counter latch command, then LSB, MSB). */
static uint16_t pit_read_ch2(void)
{
	outb(PIT_COMMAND, PIT_CMD_CH2_LATCH);
	uint8_t lo = inb(PIT_CH2_DATA);
	uint8_t hi = inb(PIT_CH2_DATA);
	return (uint16_t)(lo | hi << 8);
}

struct pit_sample {
	uint64_t tsc;	/* midpoint of the RDTSCs around the latch-and-read */
	uint64_t width; /* cycles between those RDTSCs: the sample's uncertainty */
	uint16_t count;
};

/* The narrowest-bracketed of PIT_SAMPLES latched reads (a vCPU descheduled mid-read, or a slow
 * port access, only widens its own bracket). */
static struct pit_sample pit_sample(void)
{
	struct pit_sample best = {.width = UINT64_MAX};
	for (unsigned i = 0; i < PIT_SAMPLES; i++) {
		uint64_t a = rdtsc();
		uint16_t c = pit_read_ch2();
		uint64_t b = rdtsc();
		if (b - a < best.width)
			best =
			    (struct pit_sample){.tsc = a + (b - a) / 2, .width = b - a, .count = c};
	}
	return best;
}

/*
 * TSC rate against PIT channel 2 counting down from 0xFFFF: sample the count at the start and
 * after about PIT_MEASURE_MS and divide the TSC delta by the PIT delta. Reading latched counts
 * (rather than polling OUT2 for the terminal count) bounds the error by the two samples'
 * brackets, which are reported: under QEMU on a loaded host a port access can take long enough
 * to skew an OUT2 poll by tens of percent. Returns 0 if the PIT does not count.
 */
static uint64_t measure_tsc_with_pit(uint64_t *uncertainty_ppm)
{
	uint8_t p61 = inb(PORT_61);
	outb(PORT_61, (uint8_t)((p61 & ~PORT_61_SPEAKER) | PORT_61_GATE2));
	outb(PIT_COMMAND, PIT_CMD_CH2_MODE0);
	outb(PIT_CH2_DATA, 0xff);
	outb(PIT_CH2_DATA, 0xff);
	struct pit_sample s0 = pit_sample(), s1 = s0;
	uint16_t want = PIT_HZ * PIT_MEASURE_MS / 1000;
	for (unsigned spins = 0; spins < PIT_SPIN_LIMIT; spins++) {
		if ((uint16_t)(s0.count - pit_read_ch2()) >= want)
			break;
	}
	s1 = pit_sample();
	outb(PORT_61, p61);
	uint16_t ticks = (uint16_t)(s0.count - s1.count);
	if (ticks < want || s1.tsc <= s0.tsc)
		return 0;
	uint64_t cycles = s1.tsc - s0.tsc;
	*uncertainty_ppm = (s0.width + s1.width) * 1000000 / cycles;
	return cycles * PIT_HZ / ticks;
}

void timer_calibrate(uint64_t loader_tsc_hz)
{
	uint32_t max = cpuid(0, 0).eax;
	struct cpuid_regs l15 = {0}, l16 = {0};
	if (max >= CPUID_LEAF_TSC)
		l15 = cpuid(CPUID_LEAF_TSC, 0);
	if (max >= CPUID_LEAF_FREQ)
		l16 = cpuid(CPUID_LEAF_FREQ, 0);
	info.tsc_hz_loader = loader_tsc_hz;
	info.tsc_hz_pit = measure_tsc_with_pit(&info.pit_uncertainty_ppm);
	if (info.tsc_hz_pit && info.pit_uncertainty_ppm > PIT_TRUST_PPM) {
		info.tsc_hz_pit_rejected = info.tsc_hz_pit;
		info.tsc_hz_pit = 0; /* too disturbed to use; kept for the report */
	}
	info.tsc_hz = timer_tsc_hz_from_cpuid(max, l15.eax, l15.ebx, l15.ecx, l16.eax);
	info.tsc_source =
	    max >= CPUID_LEAF_TSC && l15.eax && l15.ebx && l15.ecx ? "CPUID 15H" : "CPUID 16H";
	if (!info.tsc_hz) {
		info.tsc_hz = info.tsc_hz_pit;
		info.tsc_source = "PIT";
	}
	if (!info.tsc_hz) {
		info.tsc_hz = loader_tsc_hz;
		info.tsc_source = "loader";
	}
}

void timer_calibrate_apic(void)
{
	lapic_write(APIC_TIMER_DIVIDE, APIC_TIMER_DIV_1);
	lapic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	lapic_write(APIC_TIMER_INITIAL, APIC_TIMER_MAX_COUNT);
	udelay(APIC_CALIBRATE_US);
	uint32_t left = lapic_read(APIC_TIMER_CURRENT);
	lapic_write(APIC_TIMER_INITIAL, 0);
	info.apic_timer_hz = (uint64_t)(APIC_TIMER_MAX_COUNT - left) * 1000000 / APIC_CALIBRATE_US;
}

const struct timer_info *timer_info(void)
{
	return &info;
}

uint64_t tsc_deadline(uint64_t us)
{
	return rdtsc() + us * info.tsc_hz / 1000000;
}

void udelay(uint64_t us)
{
	uint64_t end = tsc_deadline(us);
	while (!tsc_passed(end))
		cpu_pause();
}

uint64_t tsc_to_us(uint64_t cycles)
{
	return info.tsc_hz ? cycles * 1000000 / info.tsc_hz : 0;
}

/* One-shot mode is LVT timer bits 18:17 = 00 (SDM Vol. 3A 10.5.4, Figure 10-8): the count runs
 * down once and interrupts at zero. A count too long for 32 bits is cut: the caller checks its
 * own deadline when the interrupt comes and arms again. */
void timer_oneshot_us(uint64_t us)
{
	uint64_t hz = info.apic_timer_hz / APIC_TIMER_DIVISOR;
	uint64_t count = hz ? us * hz / 1000000 + 1 : APIC_TIMER_MAX_COUNT;
	lapic_write(APIC_TIMER_DIVIDE, APIC_TIMER_DIV_128);
	lapic_write(APIC_LVT_TIMER, VEC_APIC_TIMER);
	lapic_write(APIC_TIMER_INITIAL,
		    count > APIC_TIMER_MAX_COUNT ? APIC_TIMER_MAX_COUNT : (uint32_t)count);
}

void timer_oneshot_stop(void)
{
	lapic_write(APIC_TIMER_INITIAL, 0); /* a zero initial count stops the timer (10.5.4) */
	lapic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
}
