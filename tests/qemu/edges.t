#!/usr/bin/env bash
# What a discontinuity rule gets wrong, and what single-stepping must hide, through the
# engine (ss=) and the software PMU (BTS and LBR as Skylake), in one boot logged by QEMU:
# - edges (arch/x86/workloads/edges.S): branches to the next instruction, conditional
#   branches by their condition, LOOP to itself, REP strings (one instruction, no branch);
# - flags: PUSHF must not show TF, a POPF that clears TF must not end the capture, MOV SS
#   holds the trap for one instruction, a #UD resumed two bytes on is no branch of the UD2.
# Expectations: QEMU's execution log (objdump's mnemonics tell an unconditional branch to the
# next instruction), and where PCs cannot tell (a Jcc to the next instruction), the source.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
boot --timeout 300 --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf")" --qemu-arg -D --qemu-arg "$work/exec.log" \
	-- ss=edges,flags,smc trace=bts,lbr spmu=skylake workload=edges,flags,smc bts.records=8
# bts.records=8: the circular buffer goes round on purpose (its last 8 records are checked
# below), so the records it overwrote make the run INCOMPLETE (docs/record-stream.md "Nothing
# lost"), not PASS.
status_is 4 "edges, flags and smc give their results natively and stepped, under BTS and LBR; the overwritten records make the run incomplete"
ow=$(printf '%s\n' "$out" | sed -n 's/^trace-begin bts edges@skylake cpu=0 .* overwritten=\([0-9]*\) .*/\1/p')
[ -n "$ow" ] && [ "$ow" -gt 0 ] && printf '%s\n' "$out" |
	grep -qx "incomplete: bts: edges@skylake cpu=0: $ow records not delivered (store-full=0 dropped=0 overwritten=$ow)"
ok $? "the circular buffer's $ow overwritten records (checked against QEMU's log below) are said with their reason"
has "ss-end flags ok" "flags: the workload sees TF clear when stepped, as natively (PUSHF)"

# The source makes these conditional branches taken (see edges.S); QEMU's PCs cannot tell.
names=(edges flags smc)
nw=${#names[@]}
QEB_TAKEN="$(sym edge_jz_taken) $(sym edge_jrcxz_taken)" \
	oracle_runs "$work/exec.log" "$work/qemu.txt" $((3 * nw)) ": ss, bts, lbr for each workload"

w=0
for name in "${names[@]}"; do
	w=$((w + 1))
	q=$(nth "$work/qemu.txt" "$w")
	k=$(ss_run "$name")
	same "$k" "$q" "engine, $name: the same taken branches and step count as QEMU"
	line=$(printf '%s\n' "$out" | grep "^trace-begin bts $name@")
	same "run $(sed -n 's/.* steps=\([0-9]*\) .*/\1/p' <<<"$line")" "$(nth "$work/qemu.txt" $((w + nw)) | sed -n 1p)" \
		"bts, $name: the session's step count is QEMU's for that run"
	# BTS, circular, 8 records: QEMU's last 8 branches oldest first, the rest overwritten
	# (SDM Vol. 3B 17.4.9.3).
	nq=$(run_branches "$q" | wc -l)
	same "$(kind_records bts "$name@skylake" bts 2 3)" "$(run_branches "$q" | tail -n 8)" \
		"bts, $name: QEMU's last (up to) 8 branches, oldest first"
	if [ "$nq" -gt 8 ]; then want="wrapped=yes overwritten=$((nq - 8))"; else want="wrapped=no overwritten=0"; fi
	case "$line" in *" $want "*) r=0 ;; *) r=1 ;; esac
	ok $r "bts, $name: $want, from QEMU's $nq branches ($line)"
	# LBR (format 5, depth 32): QEMU's branches, newest first. In flags, the workload's own
	# single-step #DB at flags_tf_trap clears DEBUGCTL.LBR ("When the processor generates a
	# debug exception (#DB), it automatically clears the LBR flag", SDM 253668-032US 16.4.2):
	# the stack ends with the branches before it (straight-line code: those from below
	# flags_tf_trap, and the IRETs back from handlers).
	lq=$(run_branches "$(nth "$work/qemu.txt" $((w + 2 * nw)))")
	[ "$name" = flags ] && lq=$(printf '%s\n' "$lq" | before_own_db "$(sym flags_tf_trap)" "$(sym trap_iret)")
	lbr=$(kind_records lbr "$name@skylake" lbr 3 4)
	same "$lbr" "$(printf '%s\n' "$lq" | tac | head -n 32)" \
		"lbr, $name: the stack holds QEMU's branches of that run, newest first (flags: up to its own #DB)"
	[ "$w" = 1 ] && edges=$k
	[ "$name" = smc ] && smc_bts=$(kind_records bts "$name@skylake" bts 2 3) smc_lbr=$lbr smc_ss=$k
done

# Code that rewrites itself (workloads/smc.S), from the source: smc_jcc is a JE, taken, then
# a JNE, not taken: one record from it; smc_self rewrote its own first byte into a JMP as it
# ran, as the MOV it was: no record. Each instruction is decoded from its bytes before it runs.
jcc=$(printf '%#x' "$(sym smc_jcc)")
selfmod=$(printf '%#x' "$(sym smc_self)")
for v in smc_ss smc_bts smc_lbr; do
	[ "$(printf '%s\n' "${!v}" | grep -c "^$jcc ")" = 1 ] && ! printf '%s\n' "${!v}" | grep -q "^$selfmod "
	ok $? "${v#smc_}, smc: one record from the rewritten Jcc, none from the instruction that rewrote itself"
done

# From the source: each expected (from, to) pair, and the ones that must not be there.
plus() { printf '%#x' $(($1 + $2)); }
for case in edge_call_next:5 edge_jmp_next:2 edge_jmp_ind_next:2 edge_call_ind_next:2 \
	edge_jz_taken:2 edge_jrcxz_taken:2; do
	name=${case%%:*} len=${case##*:}
	from=$(sym "$name")
	pair="$(printf '%#x' "$from") $(plus "$from" "$len")"
	printf '%s\n' "$edges" | grep -qx "$pair"
	ok $? "engine: $name is a taken branch to the next instruction ($pair)"
done
self=$(printf '%#x' "$(sym edge_loop_self)")
[ "$(printf '%s\n' "$edges" | grep -cx "$self $self")" = 2 ]
ok $? "engine: loop to itself with RCX=3 is taken twice"
for name in edge_jnz_not_taken edge_rep_movsb edge_rep_stosq; do
	from=$(printf '%#x' "$(sym "$name")")
	! printf '%s\n' "$edges" | grep -q "^$from "
	ok $? "engine: no branch from $name"
done
reps=$(printf '%s\n' "$out" | sed -n 's/^ss-begin edges .* rep-iterations=\([0-9]*\).*/\1/p')
[ "$reps" = $((99 + 9)) ]
ok $? "engine: 100 + 10 REP iterations make 108 extra traps, none a step ($reps)"
for name in flags_jmp_popf flags_jmp_mov_ss flags_jmp_ud2; do
	from=$(printf '%#x' "$(sym "$name")")
	ss_run flags | grep -q "^$from "
	ok $? "engine: the jmp at $name is recorded from its own address"
done
# The workload's own single-stepping: after its POPF sets TF, the trap comes after the next
# instruction (SDM Vol. 3B 17.3.1.4), at flags_tf_trap, and reaches its handler (which ends it):
# one #DB, in both sessions, besides the #UD.
for fac in bts lbr; do
	got=$(kind_records "$fac" "flags@skylake" exception 2 3 | tr '\n' ' ')
	want="vector=6 rip=$(sym flags_ud2) vector=1 rip=$(sym flags_tf_trap) "
	same "$got" "$want" "$fac, flags: the #UD, then the workload's own single-step #DB at flags_tf_trap"
done

# UD2 "raises an invalid opcode exception" (SDM Vol. 2 UD) and never retires: its one record is
# the #UD's delivery to the stub vector 6's gate names; the handler (workloads/faults.c) resumes
# two bytes on, through the stubs' IRETQ (SDM Vol. 3B 17.4.8.1: exceptions are recorded).
want=$(printf '%#x %#x\n%#x %#x' "$(sym flags_ud2)" "$(sym exc_stub_6)" "$(sym trap_iret)" "$(sym flags_jmp_ud2)")
got=$(ss_run flags | grep -A1 "^$(printf '%#x' "$(sym flags_ud2)") ")
same "$got" "$want" "engine: flags_ud2's only record is the #UD's delivery, then the IRET to two bytes on"
done_testing
