#!/usr/bin/env bash
# One single-step trap for more than one instruction: the path between two traps rebuilt from
# the code (lib/x86_step.c x86_path_rebuild). QEMU's TCG traps after every instruction but a
# MOV SS, so the test build's option test.ss.skip=N (make test-knobs: build/test-knobs/, a
# kernel no user boots) makes the engine leave out every Nth trap whose path the code decides
# (after a non-branch or a direct JMP or CALL), as a platform that skips traps would. Expectations: QEMU's execution log of the same boot (every instruction it ran), as in
# sstrace.t: the engine's branches and step counts, BTS's records and the LBR stack must be
# QEMU's, as if no trap had gone missing. Then a path that cannot be rebuilt (every eligible
# trap left out: paths longer than the rebuild follows) must fail its run with the address,
# never pass as ok.
. "$(dirname "$0")/../qemu/lib.sh"
make -s -C "$top" BUILD="$build" test-knobs >/dev/null
ok $? "make test-knobs builds the test kernel ($build/test-knobs)"
user_build=$build
build=$build/test-knobs
export BUILD=$build
"$build/check-options" test.ss.skip=3 >/dev/null && ! "$user_build/check-options" test.ss.skip=3 >/dev/null 2>&1
ok $? "test.ss.skip is an option of the test build only"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
names=(loop calls indirect edges flags user faults)
nw=${#names[@]}
list=$(
	IFS=,
	echo "${names[*]}"
)
user_va=0x7f0000000000

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
boot --timeout 300 --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$user_va+0x1000")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" \
	-- ss="$list" trace=bts,lbr spmu=skylake workload="$list" test.ss.skip=3
status_is 0 "with every third eligible trap left out, every run gives its result and passes"

QEB_TAKEN="$(sym edge_jz_taken) $(sym edge_jrcxz_taken)" \
	oracle_runs "$work/exec.log" "$work/qemu.txt" $((3 * nw)) ": ss, bts, lbr for each workload" \
	"$user_va=user_code_page:0x1000"

w=0
for name in "${names[@]}"; do
	w=$((w + 1))
	q=$(nth "$work/qemu.txt" "$w")
	same "$(ss_run "$name")" "$q" "engine, $name: QEMU's taken branches and step count, traps left out"
	rebuilt=$(printf '%s\n' "$out" | sed -n "s/^ss-begin $name .* rebuilt=\([0-9]*\).*/\1/p")
	[ "${rebuilt:-0}" -gt 0 ]
	ok $? "engine, $name: traps were left out and their paths rebuilt (rebuilt=$rebuilt)"
	line=$(printf '%s\n' "$out" | grep "^trace-begin bts $name@")
	same "run $(sed -n 's/.* steps=\([0-9]*\) .*/\1/p' <<<"$line")" "$(nth "$work/qemu.txt" $((w + nw)) | sed -n 1p)" \
		"bts, $name: the session's step count is QEMU's"
	same "$(kind_records bts "$name@skylake" bts 2 3)" "$(run_branches "$(nth "$work/qemu.txt" $((w + nw)))")" \
		"bts, $name: every record is QEMU's branch, in order"
	printf '%s\n' "$out" | grep -q "^trace: $name@skylake cpu=0: [1-9][0-9]* trap(s) stood for more than one instruction"
	ok $? "bts and lbr, $name: the session says how many traps stood for more than one instruction"
	lq=$(run_branches "$(nth "$work/qemu.txt" $((w + 2 * nw)))")
	[ "$name" = flags ] && lq=$(printf '%s\n' "$lq" | before_own_db "$(sym flags_tf_trap)" "$(sym trap_iret)")
	same "$(kind_records lbr "$name@skylake" lbr 3 4)" "$(printf '%s\n' "$lq" | tac | head -n 32)" \
		"lbr, $name: the stack holds QEMU's newest branches, newest first"
done

# Every eligible trap left out: runs of more instructions than a rebuild follows
# (X86_PATH_MAX). The run must say where it lost the path, and fail.
boot -- ss=calls trace=bts spmu=skylake workload=calls test.ss.skip=1
status_is 1 "paths that cannot be rebuilt fail the boot"
lo=$(sym __workload_start) hi=$(sym __workload_end)
for what in "ss: calls" "calls@skylake cpu=0"; do
	at=$(printf '%s\n' "$out" | sed -n "s/^error: $what: the path between two traps could not be followed [0-9]* time(s), first after the instruction at \(0x[0-9a-f]*\).*/\1/p")
	[ -n "$at" ] && [ $((at)) -ge $((lo)) ] && [ $((at)) -lt $((hi)) ]
	ok $? "$what: the path lost is said, with an address in the workload ($at)"
done
has "ss-end calls MISMATCH" "ss: calls fails rather than passing with branches missing"
done_testing
