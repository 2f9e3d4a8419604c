#!/usr/bin/env bash
# Branches a discontinuity rule gets wrong (arch/x86/workloads/edges.S), through the engine
# (ss=edges) and the software PMU (BTS and LBR as Skylake): the taken branches and step counts
# must be QEMU's own (its execution log, with objdump's mnemonics telling an unconditional
# branch to the next instruction), and the conditional branches to the next instruction must
# be what the workload's source sets up (jz after xor: taken; jnz: not; jrcxz with RCX=0:
# taken), which no PC sequence can tell. REP strings: one instruction each, no branch.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
lo=$(nm "$build/kernel.elf" | awk '$3 == "__workload_start" { print $1 }')
hi=$(nm "$build/kernel.elf" | awk '$3 == "__workload_end" { print $1 }')
last=$(printf '0x%x' $((0x$hi - 1)))
boot --timeout 300 --qemu-arg -singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "0x$lo..$last" --qemu-arg -D --qemu-arg "$work/exec.log" \
	-- ss=edges trace=bts,lbr spmu=skylake workload=edges bts.records=8
status_is 0 "the edges workload gives n + 5 stepped, under BTS and under LBR"

# The source makes these conditional branches taken (see edges.S); QEMU's PCs cannot tell.
QEB_TAKEN="$(sym edge_jz_taken) $(sym edge_jrcxz_taken)" \
	"$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" >"$work/qemu.txt" 2>"$work/err"
ok $? "the oracle read QEMU's log $(head -c 200 "$work/err")"
nth() { awk -v w="$2" '/^run / { n++ } n == w' "$1"; }
q=$(nth "$work/qemu.txt" 1)

# The engine's run in the oracle's format.
k=$(printf '%s\n' "$out" | awk '/^ss-begin edges / { for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { split($i, a, "="); print "run", a[2] } }
	/^ss-branch / { print $2, $3 }')
[ -n "$q" ] && [ "$k" = "$q" ]
ok $? "engine: the same taken branches and step count as QEMU"
[ "$k" = "$q" ] || diff <(printf '%s\n' "$k") <(printf '%s\n' "$q") | head -n 8 | sed 's/^/# /'

# BTS on the model, circular, 8 records (bts.records=8): the buffer goes round (SDM Vol. 3B
# 17.4.9.3), so the records are QEMU's last 8 branches, oldest first, and the rest are
# reported as overwritten.
b=$(printf '%s\n' "$out" | awk '$1 == "trace-begin" && $2 == "bts" { on = 1 }
	$1 == "trace-end" { on = 0 } on && $1 == "bts" { print $2, $3 }')
qb=$(printf '%s\n' "$q" | grep -v '^run ')
nq=$(printf '%s\n' "$qb" | wc -l)
[ "$b" = "$(printf '%s\n' "$qb" | tail -n 8)" ]
ok $? "BTS on the software PMU, circular buffer of 8: QEMU's last 8 branches, oldest first"
line=$(printf '%s\n' "$out" | grep '^trace-begin bts ')
case "$line" in *" wrapped=yes overwritten=$((nq - 8)) "*) r=0 ;; *) r=1 ;; esac
ok $r "BTS: the wrap is reported, with QEMU's $nq branches less the 8 kept as overwritten ($line)"

# From the source: each expected (from, to) pair, and the ones that must not be there.
plus() { printf '%#x' $(($1 + $2)); }
for case in edge_call_next:5 edge_jmp_next:2 edge_jmp_ind_next:2 edge_call_ind_next:2 \
	edge_jz_taken:2 edge_jrcxz_taken:2; do
	name=${case%%:*} len=${case##*:}
	from=$(sym "$name")
	pair="$(printf '%#x' "$from") $(plus "$from" "$len")"
	printf '%s\n' "$k" | grep -qx "$pair"
	ok $? "engine: $name is a taken branch to the next instruction ($pair)"
done
self=$(printf '%#x' "$(sym edge_loop_self)")
[ "$(printf '%s\n' "$k" | grep -cx "$self $self")" = 2 ]
ok $? "engine: loop to itself with RCX=3 is taken twice"
for name in edge_jnz_not_taken edge_rep_movsb edge_rep_stosq; do
	from=$(printf '%#x' "$(sym "$name")")
	! printf '%s\n' "$k" | grep -q "^$from "
	ok $? "engine: no branch from $name"
done
reps=$(printf '%s\n' "$out" | sed -n 's/^ss-begin edges .* rep-iterations=\([0-9]*\).*/\1/p')
[ "$reps" = $((99 + 9)) ]
ok $? "engine: 100 + 10 REP iterations make 108 extra traps, none a step ($reps)"

# LBR (format 5, depth 32) holds the newest branches, newest first: the run's, reversed.
lbr=$(printf '%s\n' "$out" | awk '$1 == "trace-begin" && $2 == "lbr" { on = 1 } $1 == "trace-end" { on = 0 }
	on && $1 == "lbr" { print $3, $4 }')
want=$(printf '%s\n' "$q" | grep -v '^run ' | tac | head -n 32)
[ -n "$lbr" ] && [ "$(printf '%s\n' "$lbr" | head -n "$(printf '%s\n' "$want" | wc -l)")" = "$want" ]
ok $? "LBR on the software PMU: the stack holds QEMU's branches, newest first"
[ -n "$lbr" ] && [ "$(printf '%s\n' "$lbr" | head -n "$(printf '%s\n' "$want" | wc -l)")" = "$want" ] ||
	diff <(printf '%s\n' "$lbr") <(printf '%s\n' "$want") | head -n 8 | sed 's/^/# /' 
done_testing
