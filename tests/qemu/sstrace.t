#!/usr/bin/env bash
# The single-step engine and the software PMU against an independent oracle: QEMU's own
# execution log of the same boot (-singlestep -d exec,nochain, filtered to the workload
# range), with instruction lengths from objdump. Twelve single-stepped runs, in order: the
# engine's own view (ss=all), a BTS session, a BTS session in interrupt mode drained by its
# threshold PMI (virtual PMI through the LAPIC), and an LBR session (trace=bts,btsint,lbr, on
# the software PMU as Skylake), each over the counted loop, nested calls and indirect calls.
# For each run the taken branches must be the same sequence with the same from/to and the step
# counts must agree; the LBR stack must hold the newest branches of the run, newest first.
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
	--qemu-arg -dfilter --qemu-arg "0x$lo..$last" --qemu-arg -D --qemu-arg "$work/exec.log" \
	-- ss=all trace=bts,btsint,lbr spmu=skylake
status_is 0 "every workload gives its expected result when stepped, traced by BTS and by LBR"
has "using the SOFTWARE PMU as 'skylake'" "the software PMU is announced loudly"

"$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" >"$work/qemu.txt" 2>"$work/oracle.err"
ok $? "the oracle read QEMU's log ($(wc -l <"$work/qemu.txt") lines) $(head -c 200 "$work/oracle.err")"
runs=$(grep -c '^run ' "$work/qemu.txt")
[ "$runs" = 12 ]
ok $? "QEMU's log holds the 12 single-stepped runs ($runs)"

# run N of a file in the oracle's format ("run STEPS", then "FROM TO" lines)
nth() { awk -v w="$2" '/^run / { n++ } n == w' "$1"; }

# The kernel's runs in the oracle's format.
printf '%s\n' "$out" | awk '
	/^ss-begin |^trace-begin bts |^trace-begin btsint / { for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { split($i, a, "="); print "run", a[2] } }
	/^ss-branch / { print $2, $3 }
	/^bts / { print $2, $3 }' >"$work/kernel.txt"

names=(loop calls indirect)
for w in 1 2 3; do
	k=$(nth "$work/kernel.txt" $w)
	q=$(nth "$work/qemu.txt" $w)
	nb=$(printf '%s\n' "$k" | grep -vc '^run ')
	[ "$k" = "$q" ] && [ "$nb" -gt 10 ]
	ok $? "engine, ${names[w - 1]}: the same $nb taken branches (from, to, order) and step count as QEMU"
	[ "$k" = "$q" ] || diff <(printf '%s\n' "$k") <(printf '%s\n' "$q") | head -n 6 | sed 's/^/# /'
done
for w in 1 2 3; do
	k=$(nth "$work/kernel.txt" $((w + 3)))
	q=$(nth "$work/qemu.txt" $((w + 3)))
	nb=$(printf '%s\n' "$k" | grep -vc '^run ')
	[ "$k" = "$q" ] && [ "$nb" -gt 10 ]
	ok $? "BTS, ${names[w - 1]}: the $nb records drained from the DS buffer are QEMU's branches, in order"
	[ "$k" = "$q" ] || diff <(printf '%s\n' "$k") <(printf '%s\n' "$q") | head -n 6 | sed 's/^/# /'
done
for w in 1 2 3; do
	k=$(nth "$work/kernel.txt" $((w + 6)))
	q=$(nth "$work/qemu.txt" $((w + 6)))
	nb=$(printf '%s\n' "$k" | grep -vc '^run ')
	[ "$k" = "$q" ] && [ "$nb" -gt 10 ]
	ok $? "BTS interrupt mode, ${names[w - 1]}: the $nb records drained by PMIs and at the end are QEMU's branches"
	line=$(printf '%s\n' "$out" | grep "^trace-begin btsint ${names[w - 1]} ")
	pmis=$(printf '%s\n' "$line" | sed -n 's/.* pmis=\([0-9]*\) drains=\([0-9]*\) virtual-pmis=\([0-9]*\) masked=0 dropped=0 lost=0 .*/\1 \2 \3/p')
	read -r p d v <<<"$pmis"
	# The threshold sits 24 records into the buffer and the PMI is taken at the next
	# instruction boundary, so every 24th record brings exactly one PMI and one drain.
	[ -n "${p:-}" ] && [ "$p" = $((nb / 24)) ] && [ "$p" = "$d" ] && [ "$p" = "$v" ]
	ok $? "BTS interrupt mode, ${names[w - 1]}: one PMI per 24 records, each drained, none lost ($line)"
done
for w in 1 2 3; do
	# LBR lines of this workload, newest first, as "FROM TO"
	l=$(printf '%s\n' "$out" | awk -v n="${names[w - 1]}" '
		/^trace-begin lbr / { on = ($3 == n) } /^trace-end lbr / { on = 0 }
		on && /^lbr / { print $3, $4 }')
	depth=$(printf '%s\n' "$out" | awk -v n="${names[w - 1]}" '/^trace-begin lbr / && $3 == n { for (i = 1; i <= NF; i++) if ($i ~ /^depth=/) { split($i, a, "="); print a[2] } }')
	q=$(nth "$work/qemu.txt" $((w + 9)) | grep -v '^run ' | tail -n "${depth:-32}" | tac)
	n=$(printf '%s\n' "$l" | grep -c .)
	[ -n "$l" ] && [ "$l" = "$q" ] && [ "$n" = "${depth:-x}" ]
	ok $? "LBR, ${names[w - 1]}: the $n entries (depth ${depth:-?}) are QEMU's newest branches, newest first"
done
done_testing
