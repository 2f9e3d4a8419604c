#!/usr/bin/env bash
# The single-step engine and the software PMU against an independent oracle: QEMU's own
# execution log of the same boot (-singlestep -d exec,nochain, filtered to the workload range
# and the ring 3 code page), with instruction lengths from objdump. Sixteen single-stepped
# runs, in order: the engine's own view (ss=all), a BTS session, a BTS session in interrupt
# mode drained by its threshold PMI (virtual PMI through the LAPIC), and an LBR session
# (trace=bts,btsint,lbr on the software PMU as Skylake), each over the counted loop, nested
# calls, indirect calls and ring 3 <-> ring 0 round trips (IRETQ, SYSCALL, SYSRET). For each run
# the taken branches must be the same sequence with the same from/to and the step counts must
# agree; the LBR stack must hold the newest branches of the run, newest first.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=(loop calls indirect user)
nw=${#names[@]}
user_va=0x7f0000000000

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print $1 }'; }
lo=$(sym __workload_start)
hi=$(sym __workload_end)
[ -n "$lo" ] && [ -n "$hi" ] && [ -n "$(sym user_code_page)" ]
ok $? "the kernel has a workload range (0x$lo..0x$hi) and a ring 3 code page"
last=$(printf '0x%x' $((0x$hi - 1)))

# QEMU single-steps the whole boot for this log: allow for it.
boot --timeout 300 --qemu-arg -singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "0x$lo..$last,$user_va+0x1000" \
	--qemu-arg -D --qemu-arg "$work/exec.log" -- ss=all trace=bts,btsint,lbr spmu=skylake
status_is 0 "every workload gives its expected result when stepped, traced by BTS and by LBR"
has "using the SOFTWARE PMU as 'skylake'" "the software PMU is announced loudly"

"$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" "$user_va=user_code_page:0x1000" \
	>"$work/qemu.txt" 2>"$work/oracle.err"
ok $? "the oracle read QEMU's log ($(wc -l <"$work/qemu.txt") lines) $(head -c 200 "$work/oracle.err")"
runs=$(grep -c '^run ' "$work/qemu.txt")
[ "$runs" = $((4 * nw)) ]
ok $? "QEMU's log holds the $((4 * nw)) single-stepped runs ($runs)"

# run N of a file in the oracle's format ("run STEPS", then "FROM TO" lines)
nth() { awk -v w="$2" '/^run / { n++ } n == w' "$1"; }

# The kernel's runs in the oracle's format: ss, then bts, then btsint (lbr is separate).
printf '%s\n' "$out" | awk '
	/^ss-begin |^trace-begin bts |^trace-begin btsint / { for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { split($i, a, "="); print "run", a[2] } }
	/^ss-branch / { print $2, $3 }
	/^bts / { print $2, $3 }' >"$work/kernel.txt"

views=("engine" "BTS" "BTS interrupt mode")
for v in 0 1 2; do
	for w in $(seq 1 "$nw"); do
		run=$((v * nw + w))
		k=$(nth "$work/kernel.txt" $run)
		q=$(nth "$work/qemu.txt" $run)
		nb=$(printf '%s\n' "$k" | grep -vc '^run ')
		[ "$k" = "$q" ] && [ "$nb" -gt 10 ]
		ok $? "${views[v]}, ${names[w - 1]}: the same $nb taken branches (from, to, order) and step count as QEMU"
		[ "$k" = "$q" ] || diff <(printf '%s\n' "$k") <(printf '%s\n' "$q") | head -n 6 | sed 's/^/# /'
		if [ "$v" = 2 ]; then
			line=$(printf '%s\n' "$out" | grep "^trace-begin btsint ${names[w - 1]} ")
			pmis=$(printf '%s\n' "$line" | sed -n 's/.* pmis=\([0-9]*\) drains=\([0-9]*\) virtual-pmis=\([0-9]*\) masked=0 dropped=0 lost=0 .*/\1 \2 \3/p')
			read -r p d vp <<<"$pmis"
			# The threshold sits 24 records into the buffer and the PMI is taken at the next
			# instruction boundary, so every 24th record brings exactly one PMI and one drain.
			[ -n "${p:-}" ] && [ "$p" = $((nb / 24)) ] && [ "$p" = "$d" ] && [ "$p" = "$vp" ]
			ok $? "${views[v]}, ${names[w - 1]}: one PMI per 24 records, each drained, none lost ($line)"
		fi
	done
done
for w in $(seq 1 "$nw"); do
	l=$(printf '%s\n' "$out" | awk -v n="${names[w - 1]}" '
		/^trace-begin lbr / { on = ($3 == n) } /^trace-end lbr / { on = 0 }
		on && /^lbr / { print $3, $4 }')
	depth=$(printf '%s\n' "$out" | awk -v n="${names[w - 1]}" '/^trace-begin lbr / && $3 == n { for (i = 1; i <= NF; i++) if ($i ~ /^depth=/) { split($i, a, "="); print a[2] } }')
	all=$(nth "$work/qemu.txt" $((3 * nw + w)) | grep -v '^run ')
	total=$(printf '%s\n' "$all" | grep -c .)
	want=$((total < ${depth:-32} ? total : ${depth:-32}))
	q=$(printf '%s\n' "$all" | tail -n "$want" | tac)
	n=$(printf '%s\n' "$l" | grep -c .)
	[ -n "$l" ] && [ "$l" = "$q" ] && [ "$n" = "$want" ]
	ok $? "LBR, ${names[w - 1]}: the $n entries (depth ${depth:-?}) are QEMU's newest branches, newest first"
done
done_testing
