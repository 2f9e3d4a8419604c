#!/usr/bin/env bash
# The hardware report (report=1, make report): one block, every line "report: ", from the
# begin marker to the end marker. Checked on QEMU's Skylake-Client model, whose identity comes
# from QEMU's CPU table (target/i386/cpu.c: GenuineIntel, family 6, model 94, stepping 3:
# signature 000506E3H) and TCG's hypervisor signature "TCGTCGTCGTCG"; the facility rows
# against the sessions the log itself shows; a failing self-check (spmu.drop) as an oddity.
. "$(dirname "$0")/lib.sh"
report() { printf '%s\n' "$out" | tr -d '\r' | sed -n '/^report: =====.*hardware report/,/^report: ===== end of report/p'; }
row() { report | awk -v f="$1" '$1 == "report:" && $2 == f && $3 ~ /^[0-9]+$/'; }

boot --smp 2 --cpu Skylake-Client --timeout 240 -- report=1
r=$(report)
status_is 0 "report=1 alone: the default session passes"
[ -n "$r" ] && [ "$(printf '%s\n' "$r" | grep -c '^report: =====')" = 2 ] && ! printf '%s\n' "$r" | grep -qv '^report: '
ok $? "one block between the markers, every line starting 'report: '"
printf '%s\n' "$r" | grep -q '^report: cpu: GenuineIntel family 0x6 model 0x5e stepping 3 (signature 0x506e3) .*hypervisor: TCGTCGTCGTCG$'
ok $? "the CPU as QEMU's Skylake-Client table has it (GenuineIntel 06_5EH stepping 3), hypervisor TCG"
printf '%s\n' "$r" | grep -q '^report: cpus 0-1 raw: max-leaf 0x[0-9a-f]* 01H 000506e3 '
ok $? "its raw CPUID.01H:EAX, once for both CPUs (the APIC ID left out)"
printf '%s\n' "$r" | grep -q '^report: cpus 0-1 microcode: 0x'
ok $? "a microcode line for both CPUs"
good=0
for f in lbr bts btsint pebs btf pmc; do
	n=$(printf '%s\n' "$out" | grep -c "^trace-begin $f ")
	s=$(printf '%s\n' "$out" | grep -c "^SKIP: $f: ")
	read -r _ _ sessions passed failed skipped _ rest <<<"$(row "$f")"
	# a session is one workload on one CPU: its trace-begin line, or its SKIP line
	[ "$sessions" = $((n + s)) ] && [ "$failed" = 0 ] && [[ "$rest" == *"SOFTWARE PMU on 2 of 2 CPUs (model-verified, not silicon)"* ]] && good=$((good + 1))
done
[ "$good" = 6 ]
ok $? "a row per facility: its sessions as the log's trace-begin lines count them, none failed, on the software PMU ($good of 6)"
printf '%s\n' "$r" | grep -q '^report: odd: a hypervisor ("TCGTCGTCGTCG") is present' &&
	printf '%s\n' "$r" | grep -q '^report: note: no facility ran on this machine.s own hardware' &&
	printf '%s\n' "$r" | grep -q '^report: status: PASS$'
ok $? "the hypervisor is an oddity, no facility ran on hardware (said), status PASS"

boot --timeout 60 -- report=1 trace=bts workload=loop spmu.drop=2
r=$(report)
[ "$rc" = 1 ] && printf '%s\n' "$r" | grep -q '^report: odd: bts: 1 of 1 self-checks failed on the software PMU$' &&
	printf '%s\n' "$r" | grep -q '^report: status: FAIL$'
ok $? "a self-check failing (spmu.drop=2) is an oddity, status FAIL (rc $rc)"
boot --timeout 60 -- report=1 spmu=kvm trace=btf,lbr workload=calls
printf '%s\n' "$(report)" | grep -q '^report: software PMU personalities (where a CPU lacks a facility): kvm$'
ok $? "the personalities the software PMU played are named"
done_testing
