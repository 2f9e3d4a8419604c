#!/usr/bin/env bash
# The single-step engine on its exactness classes, against QEMU's own execution log of the same
# boot (scripts/qemu-exec-branches) and the rules of the SDM each workload's source quotes:
# - exact (arch/x86/workloads/exact.S): code a handler rewrites before resuming (a breakpoint
#   byte put back, a UD2 patched into a CALL), INT3 and INT n in MOV SS's shadow, INT n to a
#   vector with no handler, code fetches that fault (falling through onto a page not present,
#   jumping onto one, an instruction running onto one, a jump to a non-canonical address);
# - misbehave 8 (tests/programs/misbehave.c): a ring 3 program that steps itself (POPF with TF
#   set) across a SYSCALL, with IA32_FMASK clearing TF as Linux sets it;
# - dbreg (exact.S): a workload that arms a data breakpoint of its own: refused, loudly;
# - compiled C (kernel/workloads_c.c, sizes cut to keep QEMU's log short): qsort (a recursive
#   quicksort: data-dependent branches, calls, returns), crc32 (bitwise CRC-32) and interp (a
#   bytecode interpreter: a jump table's indirect JMP per bytecode), code no one wrote by hand.
# - counted (arch/x86/workloads/counted.S): counted loops (docs/engine.md "Counted loops") of a
#   compiler's forms, run to their exit with one trap and accounted from their counter, some cut
#   by page faults of their own loads before and after the counter's update, in their first run
#   and in their last; each loop's takings from its source.
# One boot, the engine (ss) and BTS and LBR on the software PMU.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
progs=$build/tests/programs
window=0x7e0000000000

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }' | sed 's/^0x0*/0x/'; }
hex() { printf '%#x' "$(($1))"; }

interp_n=150
boot --timeout 300 --program "$progs/misbehave.elf" --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$window+0x10000")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" \
	-- ss=qsort,crc32,interp,exact,program,dbreg,counted workload=exact,program,counted trace=bts,lbr spmu=skylake program.arg=8 \
	qsort.n=160 crc32.n=256 interp.n=$interp_n
status_is 1 "the boot ends, failed by dbreg's refusal alone"
! printf '%s\n' "$out" | grep -q "EXCEPTION\|unexpected exception"
ok $? "no kernel exception: the engine never faults on the workload's code, nor takes its TF"
[ "$(printf '%s\n' "$out" | grep -c '^error: ')" = "$(printf '%s\n' "$out" | grep -c '^error: ss: dbreg: \|^error: program: cpu=0: ended by #DB')" ]
ok $? "the only errors are dbreg's refusal and the program's own #DB"

# The fetches that fault, from the source (exact.S): after each PC, the fetch at the address
# the source puts on a page not present (or non-canonical) faults; QEMU logs no PC for it.
nc=0x8000000000000000
export QEB_FETCH_FAULTS="$(sym exact_a_last)=$(sym exact_page_b) $(sym exact_b_jmp)=$(sym exact_c_target) $(sym exact_c_jmp)=$(sym exact_straddle) $(sym exact_nc_jmp)=$nc"
QEB_ELFS="$progs/misbehave.elf" oracle_runs "$work/exec.log" "$work/qemu.txt" 13 \
	": ss qsort, crc32, interp, exact, program, dbreg, counted; bts and lbr for exact, program and counted"

# runs_to ADDRESS: the oracle's runs (in order) whose first branch goes to ADDRESS (addresses
# compared as strings here and below: mawk, Debian's default awk, reads 0x... as lossy numbers)
runs_to() {
	awk -v to="$1" '/^run / { n++; first = 1; next } first { first = 0; if ($2 "" == to "") print n }' "$work/qemu.txt"
}
read -r -a ex < <(runs_to "$(sym arch_exact_workload)" | tr '\n' ' ')
[ "${#ex[@]}" = 3 ]
ok $? "QEMU's log: three runs of exact (ss, bts, lbr: ${ex[*]})"

# Compiled C: the engine's run of each is QEMU's, branch for branch, and its result the one
# kernel/workloads_c.c's closed form or zlib's CRC-32 gives (ss-end ... ok). First, from
# objdump, that the compiler made the branches these stand for: quicksort's calls (partition,
# itself) and interp's jump table (an indirect JMP); QEMU's log must have them taken.
dis() { objdump -d --no-show-raw-insn --disassemble="$1" "$build/kernel.elf" | awk -F'\t' 'NF >= 2 { sub(":", "", $1); sub(/^ */, "", $1); print "0x" $1 "\t" $2 }'; }
ijmp=$(dis interp_run | awk -F'\t' '$2 ~ /^jmp +\*/ { print $1 }')
calls=$(dis qsort_range | awk -F'\t' '$2 ~ /^call .*<qsort_(range|partition)>/ { print $1 }')
[ -n "$ijmp" ] && [ "$(printf '%s\n' "$calls" | wc -l)" -ge 2 ]
ok $? "objdump: interp_run dispatches by an indirect JMP ($ijmp), qsort_range calls itself and its partition ($(echo $calls))"
taken_from() { # taken_from RUN ADDRESS...: how many of RUN's branches go FROM one of them
	printf '%s\n' "$1" | awk -v a="$2" 'BEGIN { n = split(a, s, " "); for (i = 1; i <= n; i++) from[s[i] ""] = 1 } $1 != "run" && (($1 "") in from) { c++ } END { print c + 0 }'
}
for w in qsort crc32 interp; do
	read -r -a r < <(runs_to "$(sym "wl_$w")" | tr '\n' ' ')
	kw=$(ss_run "$w")
	qw=$(nth "$work/qemu.txt" "${r[0]:-0}")
	same "$kw" "$qw" \
		"engine, $w: QEMU's taken branches and step count ($(printf '%s\n' "$kw" | grep -vc '^run ') branches, run ${r[*]})"
	has "ss-end $w ok" "engine, $w: its result as native and as its closed form (or zlib) says"
	exactly=0 # 0: at least one; interp's program (kernel/workloads_c.c) runs 2 bytecodes, n loops of
	# 7, n - 1 of 2 more and 2 at the end: one dispatch each, exactly 9 n + 2
	case $w in
	qsort) from=$(echo $calls) what="calls from qsort_range" ;;
	interp) from=$ijmp what="indirect JMPs through the jump table" exactly=$((9 * interp_n + 2)) ;;
	*) continue ;;
	esac
	n=$(taken_from "$qw" "$(printf '%#x ' $from)")
	[ "$n" -gt 0 ] && { [ "$exactly" = 0 ] || [ "$n" = "$exactly" ]; }
	ok $? "QEMU's log, $w: $n $what (want $([ "$exactly" = 0 ] && echo "some" || echo "$exactly: 9 n + 2"))"
done

q=$(nth "$work/qemu.txt" "${ex[0]}")
k=$(ss_run exact)
same "$k" "$q" "engine, exact: QEMU's taken branches, deliveries and returns, and step count"
has "ss-end exact ok" "engine, exact: the workload's result (n + 12, exact.S) stepped as natively"
same "$(kind_records bts exact@skylake bts 2 3)" "$(run_branches "$(nth "$work/qemu.txt" "${ex[1]}")")" \
	"bts, exact: every record is QEMU's, in order"
same "$(kind_records lbr exact@skylake lbr 3 4)" "$(run_branches "$(nth "$work/qemu.txt" "${ex[2]}")" | tac | head -n 32)" \
	"lbr, exact: QEMU's newest branches, newest first"

# From the source and the SDM, whatever the oracle says:
pair() { printf '%s %s' "$(hex "$(sym "$1")${3:-}")" "$(hex "$(sym "$2")${4:-}")"; }
want() { # want "FROM TO" DESCRIPTION: the engine's exact run has this record
	printf '%s\n' "$k" | grep -qx "$1"
	ok $? "engine, exact: $2 ($1)"
}
# Class 1 ("the processor executes the bytes present when it fetches", SDM Vol. 3A 8.1.3).
want "$(pair exact_bp exact_leaf)" "the CALL under the breakpoint byte the #BP handler put back runs, a taken branch"
want "$(pair exact_ud exact_leaf)" "the CALL the #UD handler patched over the UD2 runs, a taken branch"
want "$(pair exact_bp exc_stub_3)" "first the INT3 that was there: its #BP delivery"
# Class 2: MOV SS holds back debug exceptions and interrupts only (SDM Vol. 3A 6.8.3); an
# exception record's FROM is the instruction that raised it (SDM Vol. 3B 17.4.8.1).
want "$(pair exact_ss_int3 exc_stub_3)" "the INT3 in MOV SS's shadow: its #BP recorded FROM the INT3"
want "$(pair exact_ss_intn exc_stub_128)" "the INT n in MOV SS's shadow: recorded FROM the INT n"
# Class 4: INT n to a vector without a handler (warned, resumed): its delivery, the IRET back,
# and the steps after it (the whole run above matches QEMU's).
want "$(pair exact_intn exc_stub_128)" "INT n to a vector with no handler: its delivery"
want "$(pair trap_iret exact_intn "" +2)" "and the handler's IRET back after the INT n"
has "warning: unexpected interrupt on vector 0x80 (no handler); ignored" "the vector without a handler is warned about"
# Class 3: the single-step trap of the previous instruction comes first (SDM Vol. 3A 6.9), then
# the fetch faults, the workload's #PF, recorded FROM the instruction that could not be fetched.
want "$(pair exact_page_b exc_stub_14)" "falling through onto a page not present: the #PF FROM the page's first instruction"
want "$(pair exact_b_jmp exact_c_target)" "a JMP onto a page not present: the JMP's record"
want "$(pair exact_c_target exc_stub_14)" "and the #PF FROM its target"
want "$(pair exact_unmap exc_stub_3)" "the INT3 whose handler takes exact_c_target's page away again: its #BP"
[ "$(printf '%s\n' "$k" | grep -cx "$(pair exact_b_jmp exact_c_target)")" = 3 ] &&
	[ "$(printf '%s\n' "$k" | grep -cx "$(pair exact_c_target exc_stub_14)")" = 2 ]
ok $? "the JMP onto exact_c_target: three records, the #PF FROM its target twice (exact.S: exact_page_b runs three times, its target's page taken away before the first and the last)"
want "$(pair exact_straddle exc_stub_14)" "an instruction running onto a page not present: the #PF FROM its start"
want "$(hex "$(sym exact_nc_jmp)") $nc" "a JMP to a non-canonical address: QEMU's #GP comes at the target's fetch"
want "$(hex $nc) $(hex "$(sym exc_stub_13)")" "and is recorded FROM there"

# Class 6: the program's own TF. SYSCALL clears TF through IA32_FMASK ("RFLAGS := RFLAGS AND
# NOT(IA32_FMASK)", SDM Vol. 2B SYSCALL), SYSRET loads it back from R11: the #DB comes in ring 3,
# at the instruction after the SYSCALL, and is the program's: its run ends, contained.
step_self=$(nm "$progs/misbehave.elf" | awk '$3 == "step_self" { print "0x" $1 }')
sc=$(objdump -d "$progs/misbehave.elf" | awk -v f="<step_self>:" '$2 == f { on = 1 } on && /\tsyscall/ { sub(":", "", $1); print "0x" $1; exit }')
after=$(hex "$sc + 2") # SYSCALL is 0F 05 (SDM Vol. 2B): RCX = the next instruction
has "ended by #DB debug (vector 1) at $after <step_self+$(printf '%#x' $((after - step_self)))>" \
	"program: its own single-step #DB ends its run, at the instruction after the SYSCALL ($after)"
has "ss-end program ok" "program: stepped, the run ends as natively (the same status)"
kp=$(ss_run program)
read -r -a pr < <(runs_to "$(printf '%s\n' "$kp" | awk '$1 != "run" { print $2; exit }')" | tr '\n' ' ')
# QEMU's log has no PC of the #DB's stub (the engine's gate): after the SYSRET it shows
# user_abort, where the program's handler sent it. By the SDM the SYSRET goes TO RCX (the
# instruction after the SYSCALL), and a debug exception is never recorded (Vol. 3B 17.4.8.1).
sysret=$(hex "$(sym user_abort)")
q=$(nth "$work/qemu.txt" "${pr[0]:-0}" | awk -v u="$sysret" -v a="$after" '$2 "" == u "" && $1 != "run" { $2 = a } { print }')
same "$kp" "$q" "engine, program: QEMU's branches and steps, the SYSRET TO the instruction after the SYSCALL"
printf '%s\n' "$kp" | grep -q "^$(hex "$sc") $(hex "$(sym user_syscall_entry)")"
ok $? "engine, program: the SYSCALL's record and the kernel's path are there (FMASK's TF lifted for the step)"

# Class 7: dbreg's own breakpoint is refused, loudly, and the boot goes on.
has "error: ss: dbreg: the workload arms debug-register breakpoints of its own (the MOV to a debug register at $(hex "$(sym dbreg_arm)"))" \
	"dbreg: refused, naming the MOV to DR7"
has "ss-end dbreg MISMATCH" "dbreg: its run fails"
has "run finished: FAIL" "the boot ends with its verdict, no hang"
# Counted loops (counted.S): the engine's run and both facilities' records are QEMU's.
read -r -a cr < <(runs_to "$(sym arch_wl_counted)" | tr '\n' ' ')
[ "${#cr[@]}" = 3 ]
ok $? "QEMU's log: three runs of counted (ss, bts, lbr: ${cr[*]})"
cn=40 # counted's argument (arch/x86/workloads/table.c)
k=$(ss_run counted)
same "$k" "$(nth "$work/qemu.txt" "${cr[0]:-0}")" "engine, counted: QEMU's taken branches, deliveries and returns, and step count"
has "ss-end counted ok" "engine, counted: the result n^2 + ceil(n / 3) + 408 (counted.S) stepped as natively"
same "$(kind_records bts counted@skylake bts 2 3)" "$(run_branches "$(nth "$work/qemu.txt" "${cr[1]:-0}")")" \
	"bts, counted: every record is QEMU's, in order"
same "$(kind_records lbr counted@skylake lbr 3 4)" "$(run_branches "$(nth "$work/qemu.txt" "${cr[2]:-0}")" | tac | head -n 32)" \
	"lbr, counted: QEMU's newest branches, newest first"
loops=$(printf '%s\n' "$out" | awk '$1 == "ss-blocks" && $2 == "counted" { sub("loops=", "", $4); print $4 }')
chains=$(printf '%s\n' "$out" | awk '$1 == "ss-blocks" && $2 == "counted" { sub("chains=", "", $5); print $5 }')
if [ "${SS_BLOCK:-on}" = off ]; then # make long-check: every instruction its own trap
	[ "${loops:-x}" = 0 ] && [ "${chains:-x}" = 0 ]
	ok $? "engine, counted, ss.block=off: no loop counted, no chain ($loops, $chains)"
else
	[ "${loops:-0}" -ge 16 ]
	ok $? "engine, counted: the loops were counted ($loops; A, B, C, D, E, H, I, J, K and N twice each around their faults, F's inner four times, G)"
	[ "${chains:-0}" -ge 2 ]
	ok $? "engine, counted: L's block P ran with T as one, its prefix (chains=$chains; docs/engine.md \"Chains\")"
fi

# From the source (counted.S), in QEMU's log: how often each loop's jump goes back.
taken() { # taken LABEL: QEMU's taken branches FROM LABEL in the engine's run of counted
	nth "$work/qemu.txt" "${cr[0]:-0}" | awk -v a="$(sym "$1")" '$1 != "run" && $1 "" == a "" { c++ } END { print c + 0 }'
}
for want in "counted_a_jcc $((cn - 1))" "counted_b_jcc $((cn - 1))" "counted_c_jcc $(((cn + 2) / 3 - 1))" \
	"counted_d_jcc 9" "counted_e_jcc 9" "counted_f_jcc 16" "counted_g_jcc 7" "counted_h_jcc 9" \
	"counted_i_jcc 9" "counted_j_jcc 9" "counted_k_jcc 9" "counted_l_jmp 3" "counted_m_jcc1 1" "counted_m_jcc2 1" \
	"counted_m_jmp 6" "counted_n_jcc 9"; do
	set -- $want
	got=$(taken "$1")
	[ "$got" = "$2" ]
	ok $? "QEMU's log, counted: $1 taken $got times (the source: $2)"
done
for l in counted_d_load counted_e_load counted_h_load counted_i_load counted_j_load counted_k_load \
	counted_l_load2 counted_m_load counted_n_load; do
	got=$(taken "$l")
	[ "$got" = 2 ]
	ok $? "QEMU's log, counted: the load at $l faults twice, a #PF delivery FROM it each time ($got)"
done
got=$(taken counted_l_load1)
[ "$got" = 1 ]
ok $? "QEMU's log, counted: the load at counted_l_load1 (a chain's prefix block) faults once ($got)"

done_testing
