#!/usr/bin/env bash
# What a user program can do and how its runs end (include/baretrace/user.h, arch/x86/user/):
# system calls with checked pointers, region-of-interest marks that cut the capture, faults in
# ring 3 that end the run (not the boot) with a report naming the function, a watchdog that
# stops a program that never ends, and runs on several CPUs that stay apart. Programs are
# tests/programs/*.c (built by make); what each must do comes from its source and from
# elfutils/binutils (eu-addr2line, nm) and QEMU's own execution log, never from a run.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
progs=$build/tests/programs
window=0x7e0000000000
for p in syscalls roi misbehave; do
	[ -f "$progs/$p.elf" ]
	ok $? "make built tests/programs/$p.c"
done

# sym ELF NAME: "START END" of a function (nm -S: address and size), as 0x... numbers.
sym() {
	local a z
	read -r a z < <(nm -S "$1" | awk -v n="$2" '$4 == n { print $1, $2 }')
	[ -n "$a" ] && printf '0x%x 0x%x\n' $((16#$a)) $((16#$a + 16#$z))
}
# count_from LO HI: lines of "FROM TO" on stdin whose FROM is in [LO, HI)
count_from() {
	perl -lane 'no warnings "portable"; BEGIN { ($lo, $hi) = (hex(shift), hex(shift)); $n = 0 }
		$f = hex($F[0]); $n++ if @F && $f >= $lo && $f < $hi; END { print $n }' "$1" "$2"
}
qemu_log_args() { # the QEMU execution log over the workload range and the program's pages
	printf '%s\n' --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain --qemu-arg -dfilter \
		--qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$window+0x10000")" \
		--qemu-arg -D --qemu-arg "$1"
}

# ---- system calls, on two CPUs (tests/programs/syscalls.c: every check sets a bit: 2047) ----
boot --smp 2 --timeout 120 --program "$progs/syscalls.elf" -- ss=program workload=program trace=bts \
	spmu=skylake trace.cpus=each
status_is 0 "syscalls: runs natively, stepped and under BTS on each of 2 CPUs"
has "result=2047 expected=2047" "syscalls: every check of the source holds, the vector registers (SSE, and AVX where CPUID has it) among them, on both CPUs (exit status 2047 = 2^11 - 1)"
n=$(printf '%s\n' "$out" | grep -c "^trace-begin bts program@skylake cpu=[01] .*result=2047$")
[ "$n" = 2 ]
ok $? "syscalls: the BTS sessions on CPU 0 and CPU 1 both end with 2047 ($n)"
has "program-output cpu=0: hello from a user program" "syscalls: BT_SYS_WRITE's bytes reach the log as a line"
has "program-output cpu=1: cpu 1 says hi" "syscalls: BT_SYS_CPU says 1 on CPU 1, and a line from its stack is written"
has "program-output cpu=0: cpu 0 says hi" "syscalls: ... and 0 on the boot CPU"
printf '%s\n' "$out" | grep -q "^error:"
ok $((!$?)) "syscalls: bad pointers are refused with BT_EFAULT, not a fault (no error line)"

# ---- region of interest (tests/programs/roi.c): only inside_roi() between the marks ----------
read -r in_lo in_hi < <(sym "$progs/roi.elf" inside_roi)
read -r be_lo be_hi < <(sym "$progs/roi.elf" before_roi)
read -r af_lo af_hi < <(sym "$progs/roi.elf" after_roi)
[ -n "$in_lo" ] && [ -n "$be_lo" ] && [ -n "$af_lo" ]
ok $? "roi: nm names before_roi, inside_roi and after_roi ($be_lo, $in_lo, $af_lo)"
# shellcheck disable=SC2046
boot --timeout 300 --program "$progs/roi.elf" $(qemu_log_args "$work/roi.log") -- workload=program \
	trace=bts,lbr spmu=skylake program.roi=marks
status_is 0 "roi: the program runs under BTS and LBR with program.roi=marks"
has "result=1140" "roi: its exit status is 1140, as its source works out"
QEB_ELFS="$progs/roi.elf" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/roi.log" >"$work/roi.txt" 2>"$work/err"
ok $? "roi: the oracle read QEMU's log $(head -c 200 "$work/err")"
bts=$(session_records bts "program@skylake" 2 3)
q=$(nth "$work/roi.txt" 1 | grep -v '^run ')
qin=$(printf '%s\n' "$q" | count_from "$in_lo" "$in_hi")
qout=$(($(printf '%s\n' "$q" | count_from "$be_lo" "$be_hi") + $(printf '%s\n' "$q" | count_from "$af_lo" "$af_hi")))
[ "$qout" -gt 0 ] && [ "$qin" -gt 0 ]
ok $? "roi: QEMU's log has branches in all three loops ($qin inside, $qout outside): the cut is real"
rin=$(printf '%s\n' "$bts" | count_from "$in_lo" "$in_hi")
[ "$rin" = "$qin" ]
ok $? "roi: bts keeps every branch of inside_roi ($rin, QEMU $qin)"
rout=$(($(printf '%s\n' "$bts" | count_from "$be_lo" "$be_hi") + $(printf '%s\n' "$bts" | count_from "$af_lo" "$af_hi")))
[ "$rout" = 0 ]
ok $? "roi: bts has no record from before_roi or after_roi ($rout)"
# Every record is one of QEMU's branches, in QEMU's order: a contiguous stretch of the run.
printf '%s\n' "$q" >"$work/q"
printf '%s\n' "$bts" >"$work/r"
first=$(head -n 1 "$work/r")
start=$(grep -nxF -- "$first" "$work/q" | head -n 1 | cut -d: -f1)
[ -n "$start" ] && [ "$(tail -n +"$start" "$work/q" | head -n "$(wc -l <"$work/r")")" = "$bts" ]
ok $? "roi: the records are one unbroken stretch of QEMU's taken branches (from line ${start:-?})"
lbr=$(session_records lbr "program@skylake" 3 4)
lout=$(($(printf '%s\n' "$lbr" | count_from "$be_lo" "$be_hi") + $(printf '%s\n' "$lbr" | count_from "$af_lo" "$af_hi")))
lin=$(printf '%s\n' "$lbr" | count_from "$in_lo" "$in_hi")
[ "$lout" = 0 ] && [ "$lin" -gt 0 ]
ok $? "roi: the LBR stack holds inside_roi's branches ($lin) and none from before or after"

boot --timeout 120 --program "$progs/roi.elf" -- workload=program trace=bts spmu=skylake program.roi=whole
status_is 0 "roi: program.roi=whole"
bts=$(session_records bts "program@skylake" 2 3)
for f in be in af; do
	eval "lo=\$${f}_lo hi=\$${f}_hi"
	n=$(printf '%s\n' "$bts" | count_from "$lo" "$hi")
	[ "$n" -gt 0 ]
	ok $? "roi: program.roi=whole captures every loop, the marks do nothing ($f: $n records)"
done

# ---- faults in ring 3 (tests/programs/misbehave.c; its argument picks the fault) ---------------
# fault ARG NAME FUNCTION: the report names the exception and, as elfutils does, the function.
fault() {
	boot --timeout 120 --program "$progs/misbehave.elf" -- ss=program workload=program trace=bts \
		spmu=skylake "program.arg=$1"
	status_is 2 "$2: the boot ends with status 2 (bad input)"
	line=$(printf '%s\n' "$out" | grep "^error: program: cpu=0: ended by $2" | tail -n 1)
	[ -n "$line" ]
	ok $? "$2: the report names the exception: ${line:-none}"
	rip=$(printf '%s\n' "$line" | sed -n 's/.* at \(0x[0-9a-f]*\) .*/\1/p')
	fn=$(eu-addr2line -f -e "$progs/misbehave.elf" "$rip" 2>/dev/null | head -n 1)
	[ "$fn" = "$3" ] && printf '%s\n' "$line" | grep -qF "<$3+"
	ok $? "$2: at $rip, which elfutils places in $3 ($fn), as the report says"
	has "trace-end bts program@skylake cpu=0" "$2: the session still delivers its records"
}
fault 1 "#PF page fault (vector 14)" wild_write
printf '%s\n' "$line" | grep -q "cr2=0x1000 "
ok $? "#PF: CR2 is the wild pointer of the source (0x1000)"
fault 2 "#UD invalid opcode (vector 6)" invalid_opcode
fault 3 "#GP general protection (vector 13)" privileged
fault 4 "#DE divide error (vector 0)" divide
fault 6 "#BP breakpoint (vector 3)" breakpoint

# The records up to a fault are QEMU's: the wild write, stepped and under BTS and LBR.
# shellcheck disable=SC2046
boot --timeout 300 --program "$progs/misbehave.elf" $(qemu_log_args "$work/pf.log") -- ss=program \
	workload=program trace=bts,lbr spmu=skylake program.arg=1
status_is 2 "#PF with QEMU's log: status 2"
QEB_ELFS="$progs/misbehave.elf" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/pf.log" >"$work/pf.txt" 2>"$work/err"
ok $? "#PF: the oracle read QEMU's log $(head -c 200 "$work/err")"
kernel_ss=$(printf '%s\n' "$out" | awk '$1 == "ss-begin" && $2 == "program" { for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { split($i, a, "="); print "run", a[2] } }
	$1 == "ss-branch" { print $2, $3 }')
[ -n "$kernel_ss" ] && [ "$kernel_ss" = "$(nth "$work/pf.txt" 1)" ]
ok $? "#PF: the engine's branches and steps are QEMU's, the fault's delivery and the way out included"
bts=$(session_records bts "program@skylake" 2 3)
[ -n "$bts" ] && [ "$bts" = "$(nth "$work/pf.txt" 2 | grep -v '^run ')" ]
ok $? "#PF: the BTS records are QEMU's taken branches up to the fault and back to the kernel"
read -r ww_lo ww_hi < <(sym "$progs/misbehave.elf" wild_write)
stub=$(nm "$build/kernel.elf" | awk '$3 == "exc_stub_14" { print "0x" $1 }' | sed 's/0x0*/0x/')
printf '%s\n' "$bts" | grep -qx "$ww_lo $stub"
ok $? "#PF: one record is the fault's delivery, FROM wild_write's store ($ww_lo) TO the #PF stub ($stub)"

# scripts/symbolize names the program's addresses in the log from its ELF (elfutils): the
# fault's RIP gets wild_write and the line of the store in misbehave.c.
store_line=$(grep -n '\*(volatile uint64_t \*)WILD_ADDRESS = 1;' "$top/tests/programs/misbehave.c" | cut -d: -f1)
sym_out=$(printf '%s\n' "$out" | "$top/scripts/symbolize" "$build/kernel.elf" "$progs/misbehave.elf")
printf '%s\n' "$sym_out" | grep -q "ended by #PF page fault (vector 14) at $ww_lo <wild_write misbehave.c:$store_line> "
ok $? "scripts/symbolize: the fault's RIP becomes <wild_write misbehave.c:$store_line>"
printf '%s\n' "$sym_out" | grep -q "^bts $ww_lo <wild_write misbehave.c:$store_line> $stub <"
ok $? "scripts/symbolize: the fault's BTS record names both ends (the program's store, the kernel's stub)"

# ---- the watchdog: a program that never ends (misbehave 5) -----------------------------------
boot --timeout 120 --program "$progs/misbehave.elf" -- ss=program workload=program trace=bts \
	spmu=skylake program.arg=5 program.watchdog=200
status_is 2 "watchdog: a program that never ends: status 2"
line=$(printf '%s\n' "$out" | grep "^error: program: cpu=0: stopped by the watchdog after" | tail -n 1)
ms=$(printf '%s\n' "$line" | sed -n 's/.* after \([0-9]*\) ms[ ,].*/\1/p')
[ -n "$ms" ] && [ "$ms" -ge 200 ]
ok $? "watchdog: stopped after its budget of 200 ms, not before ($ms ms)"
read -r fe_lo fe_hi < <(sym "$progs/misbehave.elf" forever)
printf '%s\n' "$line" | grep -q "<forever+"
ok $? "watchdog: the report names where it was, in forever() ($fe_lo): ${line:-none}"
has "trace-end bts program@skylake cpu=0" "watchdog: the session goes on and delivers its records"
n=$(printf '%s\n' "$out" | grep -c "stopped by the watchdog")
[ "$n" = 2 ]
ok $? "watchdog: the stepped run and the traced run are both stopped and reported ($n)"

# ---- four CPUs, a wild pointer on CPU 1 only (misbehave 7) ------------------------------------
boot --smp 4 --timeout 240 --program "$progs/misbehave.elf" -- workload=program trace=bts spmu=skylake \
	trace.cpus=all program.arg=7
status_is 2 "4 CPUs: the wild pointer on CPU 1 ends the boot with status 2"
has "error: program: cpu=1: ended by #PF page fault (vector 14)" "4 CPUs: CPU 1's run is reported"
n=$(printf '%s\n' "$out" | grep -c "^error: program: cpu=[023]")
[ "$n" = 0 ]
ok $? "4 CPUs: no other CPU reports a fault ($n)"
for c in 0 1 2 3; do
	session_records bts "program@skylake" 2 3 "$c" >"$work/cpu$c"
done
[ -s "$work/cpu0" ] && cmp -s "$work/cpu0" "$work/cpu2" && cmp -s "$work/cpu0" "$work/cpu3"
ok $? "4 CPUs: CPUs 0, 2 and 3 deliver the same records ($(wc -l <"$work/cpu0") each): CPU 1's fault touched none"
grep -q "^trace-begin bts program@skylake cpu=0 .*result=7$" <<<"$out" && grep -q "^trace-begin bts program@skylake cpu=3 .*result=7$" <<<"$out"
ok $? "4 CPUs: the other runs end with the source's status 7"
grep -qx "$ww_lo $stub" "$work/cpu1"
ok $? "4 CPUs: CPU 1's records reach the fault's delivery from wild_write"
k=$(wc -l <"$work/cpu1")
diverge=$(paste -d'|' "$work/cpu0" "$work/cpu1" | awk -F'|' '$1 != $2 { print NR; exit }')
[ -n "$diverge" ] && [ "$diverge" -gt 5 ]
ok $? "4 CPUs: CPU 1's records follow CPU 0's until bt_cpu()'s answer differs (record $diverge of $k)"
done_testing
