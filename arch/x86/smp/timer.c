/* SPDX-License-Identifier: MIT */
/*
 * TSC and local APIC timer calibration. The PIT (8254) channel 2, gated through port 61H, gives
 * an independent reference of 1.193182 MHz on PC-compatible machines; the UEFI loader's
 * Stall()-based figure is kept for comparison.
 */
#include "arch/x86/smp/timer.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/smp/pit_rate.h"
#include "arch/x86/cpu/vectors.h"

#define PIT_CH2_DATA	   0x42
#define PIT_COMMAND	   0x43
#define PIT_CMD_CH2_MODE0  0xb0 /* channel 2, lobyte/hibyte, mode 0 (interrupt on terminal) */
#define PIT_CMD_CH2_LATCH  0x80 /* channel 2, counter latch */
#define PORT_61		   0x61
#define PORT_61_GATE2	   BIT(0) /* gate input of channel 2 */
#define PORT_61_SPEAKER	   BIT(1)
#define PIT_MEASURE_MS	   20
#define PIT_SPIN_LIMIT	   100000000u
#define PIT_ATTEMPTS	   5
#define PIT_GIVE_UP_FACTOR 10	 /* a run ends by 10x its time, counted or not */
#define PIT_TRUST_PPM	   10000 /* a measurement with brackets under 1% is trusted */

#define APIC_TIMER_DIV_1     0xb /* divide configuration 1011b: divide by 1 (SDM 10.5.4) */
#define APIC_TIMER_DIV_128   0xa /* 1010b: divide by 128, for one-shot deadlines of seconds */
#define APIC_TIMER_DIVISOR   128
#define APIC_CALIBRATE_US    10000
#define APIC_CALIBRATE_READS 8
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

/* Latch and read channel 2's current count (8254: counter latch command, then LSB, MSB),
 * bracketed by RDTSCs. */
static void pit_read_ch2(struct pit_run *run)
{
	uint64_t before = rdtsc();
	outb(PIT_COMMAND, PIT_CMD_CH2_LATCH);
	uint8_t lo = inb(PIT_CH2_DATA);
	uint8_t hi = inb(PIT_CH2_DATA);
	pit_run_add(run, before, (uint16_t)(lo | hi << 8), rdtsc());
}

/*
 * TSC rate against PIT channel 2 counting down from 0xFFFF: latched reads for about
 * PIT_MEASURE_MS, the rate between the narrowest-bracketed read at each end (pit_rate.c).
 * Reading latched counts (rather than polling OUT2 for the terminal count) bounds the error by
 * the two reads' brackets, which are reported: under QEMU on a loaded host a port access can
 * take long enough to skew an OUT2 poll by tens of percent. `max_cycles` (0: none) bounds the
 * wait (a PIT cut short counts fewer ticks: its uncertainty says so). Returns 0 if the PIT does
 * not count or the run was too short to tell (*counted says which).
 */
static uint64_t measure_tsc_with_pit(uint64_t max_cycles, uint64_t *uncertainty_ppm, bool *counted)
{
	uint8_t p61 = inb(PORT_61);
	outb(PORT_61, (uint8_t)((p61 & ~PORT_61_SPEAKER) | PORT_61_GATE2));
	outb(PIT_COMMAND, PIT_CMD_CH2_MODE0);
	outb(PIT_CH2_DATA, 0xff);
	outb(PIT_CH2_DATA, 0xff);
	struct pit_run run = {0};
	uint64_t want = PIT_HZ * PIT_MEASURE_MS / 1000, t0 = rdtsc();
	for (unsigned spins = 0; spins < PIT_SPIN_LIMIT; spins++) {
		pit_read_ch2(&run);
		if (run.reads >= PIT_RATE_END_SAMPLES && pit_run_ticks_since_start(&run) >= want)
			break;
		if (max_cycles && rdtsc() - t0 > max_cycles)
			break;
	}
	for (unsigned i = 0; i < PIT_RATE_END_SAMPLES; i++)
		pit_read_ch2(&run);
	outb(PORT_61, p61);
	*counted = run.ticks > 0;
	return pit_run_rate(&run, uncertainty_ppm);
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
	/* A measurement disturbed by the host is taken again, up to PIT_ATTEMPTS in all; the
	 * least uncertain is kept. */
	uint64_t max_cycles = loader_tsc_hz / 1000 * PIT_MEASURE_MS * PIT_GIVE_UP_FACTOR;
	for (unsigned attempt = 0; attempt < PIT_ATTEMPTS; attempt++) {
		info.pit_attempts++;
		bool counted = false;
		uint64_t ppm = PIT_UNCERTAINTY_WHOLE,
			 hz = measure_tsc_with_pit(max_cycles, &ppm, &counted);
		if (!counted)
			break; /* the PIT does not count: no use asking again */
		if (!hz)
			continue; /* cut short before it read enough */
		if (!info.tsc_hz_pit || ppm < info.pit_uncertainty_ppm) {
			info.tsc_hz_pit = hz;
			info.pit_uncertainty_ppm = ppm;
		}
		if (info.pit_uncertainty_ppm <= PIT_TRUST_PPM)
			break;
	}
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

/* The APIC timer's current count, latched by the read, bracketed by RDTSCs. */
struct apic_count_mark {
	uint64_t tsc;	/* midpoint of the bracket */
	uint64_t width; /* the bracket: a vCPU descheduled mid-read only widens its own */
	uint32_t count;
};

static struct apic_count_mark apic_count_mark(void)
{
	struct apic_count_mark best = {.width = UINT64_MAX};
	for (unsigned i = 0; i < APIC_CALIBRATE_READS; i++) {
		uint64_t a = rdtsc();
		uint32_t c = lapic_read(APIC_TIMER_CURRENT);
		uint64_t b = rdtsc();
		if (b - a < best.width)
			best = (struct apic_count_mark){
			    .tsc = a + (b - a) / 2, .width = b - a, .count = c};
	}
	return best;
}

/* The timer's input clock against the TSC, between two reads of the current count (not from
 * the write of the initial count: a vCPU descheduled between the write and the wait, or after
 * the wait, would count for the APIC and not for the TSC). */
void timer_calibrate_apic(void)
{
	lapic_write(APIC_TIMER_DIVIDE, APIC_TIMER_DIV_1);
	lapic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	lapic_write(APIC_TIMER_INITIAL, APIC_TIMER_MAX_COUNT);
	struct apic_count_mark s0 = apic_count_mark();
	udelay(APIC_CALIBRATE_US);
	struct apic_count_mark s1 = apic_count_mark();
	lapic_write(APIC_TIMER_INITIAL, 0);
	uint64_t ticks = s0.count - s1.count, cycles = s1.tsc - s0.tsc;
	if (s1.tsc <= s0.tsc || s1.count > s0.count || !info.tsc_hz) {
		info.apic_timer_hz = 0;
		return;
	}
	while (ticks > UINT64_MAX / info.tsc_hz) { /* keep ticks x TSC Hz within 64 bits */
		ticks >>= 1;
		cycles >>= 1;
	}
	info.apic_timer_hz = ticks * info.tsc_hz / cycles;
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
