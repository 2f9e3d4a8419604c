#!/usr/bin/env bash
# The single-step engine against an independent oracle: QEMU's own execution log of the same
# run (-singlestep -d exec,nochain, filtered to the workload range), with instruction lengths
# from objdump. For every workload (counted loop, nested calls, indirect calls) the taken
# branches must be the same sequence with the same from/to, and the step counts must agree.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

lo=$(nm "$build/kernel.elf" | awk '$3 == "__workload_start" { print $1 }')
hi=$(nm "$build/kernel.elf" | awk '$3 == "__workload_end" { print $1 }')
[ -n "$lo" ] && [ -n "$hi" ]
ok $? "the kernel has a workload range (0x$lo..0x$hi)"
last=$(printf '0x%x' $((0x$hi - 1)))

# QEMU single-steps the whole boot for this log: allow for it.
boot --timeout 300 --qemu-arg -singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "0x$lo..$last" --qemu-arg -D --qemu-arg "$work/exec.log" -- ss=all
status_is 0 "ss=all: every workload gives its expected result when single-stepped"

# The kernel's view: "run STEPS" then "FROM TO" per workload, as the oracle prints it.
printf '%s\n' "$out" | awk '
	/^ss-begin / { for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { split($i, a, "="); print "run", a[2] } }
	/^ss-branch / { print $2, $3 }' >"$work/kernel.txt"
"$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" >"$work/qemu.txt" 2>"$work/oracle.err"
ok $? "the oracle read QEMU's log ($(wc -l <"$work/qemu.txt") lines; $(head -c 200 "$work/oracle.err"))"

runs=$(grep -c '^run ' "$work/kernel.txt")
[ "$runs" = 3 ] && [ "$(grep -c '^run ' "$work/qemu.txt")" = 3 ]
ok $? "both sides saw the 3 single-stepped workload runs"
for w in 1 2 3; do
	k=$(awk -v w=$w '/^run / { n++ } n == w' "$work/kernel.txt")
	q=$(awk -v w=$w '/^run / { n++ } n == w' "$work/qemu.txt")
	nb=$(printf '%s\n' "$k" | grep -vc '^run ')
	[ "$k" = "$q" ] && [ "$nb" -gt 10 ]
	ok $? "workload $w: the same $nb taken branches (from, to, order) and step count as QEMU's log"
	[ "$k" = "$q" ] || diff <(printf '%s\n' "$k") <(printf '%s\n' "$q") | head -n 10 | sed 's/^/# /'
done
done_testing
