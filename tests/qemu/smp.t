#!/usr/bin/env bash
# All cores up, for 1, 2, 4 and 8 vCPUs: every CPU listed in the MADT comes online with its
# APIC ID, cross-CPU calls run once on the right CPU, every LVTPC targets the PMI vector and
# the PMI entry re-arms it (in-kernel TAP relayed). One boot also delivers the PMI as NMI.
. "$(dirname "$0")/lib.sh"

for n in 1 2 4 8; do
	boot --smp "$n" --timeout 120 -- selftest=smp,pmi,timers
	status_is 0 "--smp $n: self-tests pass"
	has "smp: $n of $n enabled CPUs online (0 failed)" "--smp $n: all $n CPUs online"
	printf '%s\n' "$out" | grep -Eq "^  cpu $((n - 1)): APIC ID [0-9]+"
	ok $? "--smp $n: the CPU table lists cpu $((n - 1)) with its APIC ID"
	has "apic: xAPIC mode" "--smp $n: the APIC mode chosen is said (xAPIC: TCG has no x2APIC)"
	relay_kernel_tap "smp$n"
done

boot --smp 2 -- pmi=nmi selftest=pmi,smp
status_is 0 "pmi=nmi: the kernel boots with LVTPC in NMI mode"
has "PMI on NMI" "pmi=nmi: the delivery mode is reported"
done_testing
