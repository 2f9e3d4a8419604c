#!/usr/bin/env bash
# The capability report on an Intel CPU model under TCG (which emulates no PMU): the table
# names the processor and says "no" for LBR, BTS and PEBS with the missing CPUID bits as the
# reason; every CPU gets a machine-readable line that parses as JSON.
. "$(dirname "$0")/lib.sh"

boot --smp 2 --cpu Skylake-Client -- selftest=caps
status_is 0 "Skylake-Client under TCG: capability self-tests pass"
relay_kernel_tap caps
has "GenuineIntel family 0x6 model 0x5e stepping 3" "the table names the Skylake signature"
has "LBR:    none -- no Arch LBR (CPUID.07H.0:EDX[19]=0) and legacy LBR format unknown: missing CPUID.01H:ECX.PDCM[15]" "LBR: none, because PDCM is clear"
has "BTS:    no -- missing CPUID.01H:EDX.DS[21]" "BTS: no, because DS is clear"
has "cpu 1 (APIC ID 1): same as cpu 0" "identical CPUs are grouped"
n=$(printf '%s\n' "$out" | sed -n 's/^caps-json: //p' | perl -MJSON::PP -ne '
	my $j = eval { decode_json($_) } or next;
	print "$j->{cpu}:$j->{vendor}:$j->{model}:", ($j->{ds} ? 1 : 0), "\n"' | sort | tr '\n' ' ')
[ "$n" = "0:intel:94:0 1:intel:94:0 " ]
ok $? "one caps-json line per CPU parses as JSON with cpu, vendor, model and ds ('$n')"
done_testing
