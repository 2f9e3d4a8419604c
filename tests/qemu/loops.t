#!/usr/bin/env bash
# Counted loops (README "Per-block stepping (ss.block)", lib/x86_loop.h): the engine runs a loop
# whose counter says how often its jump goes back to its exit with one trap, and accounts its
# runs from the counter, also where a fault of its own load cuts a run (before or after the
# counter's update, in a register or in memory, in the first run and in the last, whose jump is
# not taken). Against QEMU's own execution log of the same boot (scripts/qemu-exec-branches)
# and the workload's source (arch/x86/workloads/counted.S): the engine's run, BTS's records and
# LBR's newest branches are QEMU's, branch for branch; each loop's jump is taken as often as its
# source says; the loops were counted (one trap each), not stepped. (ss.block=off against on:
# block.t, which runs this workload too.)
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work"' EXIT

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }' | sed 's/^0x0*/0x/'; }
n=40 # the workload's argument (arch/x86/workloads/table.c)
opts=(ss=counted workload=counted trace=bts,lbr spmu=skylake)
boot --timeout 300 --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" -- "${opts[@]}"
status_is 0 "every session passes"
! printf '%s\n' "$out" | grep -q "EXCEPTION\|unexpected exception\|^error: "
ok $? "no kernel exception, no error"
oracle_runs "$work/exec.log" "$work/qemu.txt" 3 ": ss counted; bts and lbr over it"

k=$(ss_run counted)
same "$k" "$(nth "$work/qemu.txt" 1)" "engine: QEMU's taken branches, deliveries and returns, and step count"
has "ss-end counted ok" "engine: the result n^2 + ceil(n / 3) + 128 (counted.S) stepped as natively"
same "$(kind_records bts counted@skylake bts 2 3)" "$(run_branches "$(nth "$work/qemu.txt" 2)")" \
	"bts: every record is QEMU's, in order"
same "$(kind_records lbr counted@skylake lbr 3 4)" "$(run_branches "$(nth "$work/qemu.txt" 3)" | tac | head -n 32)" \
	"lbr: QEMU's newest branches, newest first"
loops=$(printf '%s\n' "$out" | awk '$1 == "ss-blocks" && $2 == "counted" { sub("loops=", "", $4); print $4 }')
[ "${loops:-0}" -ge 10 ]
ok $? "the engine counted the loops ($loops; A, B, C, D, E, H and I twice each around their faults, F's inner four times, G)"

# From the source (counted.S), in QEMU's log: how often each loop's jump goes back.
taken() { # taken LABEL: QEMU's taken branches FROM LABEL in the engine's run
	nth "$work/qemu.txt" 1 | awk -v a="$(sym "$1")" '$1 != "run" && $1 "" == a "" { c++ } END { print c + 0 }'
}
for want in "counted_a_jcc $((n - 1))" "counted_b_jcc $((n - 1))" "counted_c_jcc $(((n + 2) / 3 - 1))" \
	"counted_d_jcc 9" "counted_e_jcc 9" "counted_f_jcc 16" "counted_g_jcc 7" "counted_h_jcc 9" \
	"counted_i_jcc 9"; do
	set -- $want
	got=$(taken "$1")
	[ "$got" = "$2" ]
	ok $? "QEMU's log: $1 taken $got times (the source: $2)"
done
for l in counted_d_load counted_e_load counted_h_load counted_i_load; do
	got=$(taken "$l")
	[ "$got" = 2 ]
	ok $? "QEMU's log: the load at $l faults twice, a #PF delivery FROM it each time ($got)"
done

done_testing
