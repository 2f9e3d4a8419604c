#!/usr/bin/env bash
# PEBS records a full buffer skipped, counted exactly, against QEMU's own record of the
# instructions. With the PMI on its vector (pmi=vector, a user's own choice: the default is
# NMI) a Linux program's system calls run with interrupts off, the buffer's threshold PMI waits,
# and the buffer fills. "If the bounds checks fail, the PEBS will be skipped entirely" (SDM Vol.
# 3B 18.4.4.1): no record, no reload. The service routine reckons what was skipped from the
# counter and reloads it where it would stand. The oracle is a TCG plugin's log of every
# instruction the run executed (tests/qemu/plugins/memtrace.c, the program's executable
# segments and the kernel's workload section, where its system calls run and the engine's
# stepping begins and ends): PEBS on
# instructions with period P writes a record at every (P+1)th instruction ("an overflow
# condition in the counter will arm PEBS. On the subsequent event following overflow, the
# processor will generate a PEBS event", SDM Vol. 3B 18.4.4). So with N instructions in the run
# the records delivered plus those counted as dropped are N / (P+1), and each delivered record
# is the (P+1)k-th instruction for a k that only grows: the records after a loss come where they
# would have come. The default (NMI) loses none of them.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
period=1

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
first=$(sym ss_first_insn)
exit=$(sym ss_exit)
wl_lo=$(sym __workload_start)
wl_hi=$(sym __workload_end)
${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -o "$work/memtrace.so" "$top/tests/qemu/plugins/memtrace.c"
ok $? "the instruction-log plugin builds"
gcc -O2 -static -o "$work/hello" "$top/tests/programs/linux/hello.c"
ok $? "a static glibc program builds (tests/programs/linux/hello.c)"
# The program's executable segments as lo=/hi= pairs (readelf), then the workload section.
ranges=$(readelf -lW "$work/hello" | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { print $3, $6 }' |
	while read -r a n; do printf 'lo=%s,hi=%#x,' "$a" $((a + n)); done)

# run_logged NAME OPTIONS...: one boot under the plugin; the traced run's instructions in $work/NAME.insn
run_logged() {
	local name=$1
	shift
	rm -f "$work/mem.log"
	boot --timeout 300 --program "$work/hello" \
		--qemu-arg -plugin --qemu-arg "$work/memtrace.so,${ranges}lo=$wl_lo,hi=$wl_hi,out=$work/mem.log" \
		-- workload=program trace=pebs pebs.event=instructions pebs.period=$period \
		'program.argv="hello -n 100 a\ b"' "$@"
	# The traced run: the single-step engine's stepped instructions, from the CALL at
	# ss_first_insn (the first to retire under TF) up to the POPF before ss_exit that clears
	# TF (arch/x86/step/singlestep_entry.S); the native reference run before it is not
	# stepped. A REP string instruction is one instruction however many times QEMU executes it
	# (once per iteration): consecutive executions of one PC are one. (Addresses compared as
	# strings: mawk, make test's awk, reads 0x... as lossy numbers.)
	awk -v a="$first" -v z="$exit" '$1 != "I" { next } $3 "" == a "" { on = 1 } $3 "" == z "" { on = 0 }
		on && $3 "" != last "" { print $3 } { last = $3 "" }' "$work/mem.log" >"$work/$name.insn"
}

# verify NAME: the records against the log; sets recs, dropped, want.
verify() {
	local name=$1 h
	h=$(printf '%s\n' "$out" | grep '^trace-begin pebs program@')
	dropped=$(field "$h" dropped)
	printf '%s\n' "$out" | awk '$1 == "trace-begin" && $2 == "pebs" { on = 1 } $1 == "trace-end" { on = 0 }
		on && $1 == "pebs" { print $2 }' >"$work/$name.recs"
	recs=$(grep -c . "$work/$name.recs")
	local n
	n=$(grep -c . "$work/$name.insn")
	want=$((n / (period + 1)))
	# Each record the (P+1)k-th instruction for a growing k: walk both.
	bad=$(awk -v per=$((period + 1)) 'NR == FNR { pc[NR] = $1; n = NR; next }
		{ while (k * per + per <= n && pc[k * per + per] "" != $1 "") k++
		  if (k * per + per > n) { print "record " FNR " at " $1 " is no (P+1)k-th instruction"; exit }
		  k++ }' "$work/$name.insn" "$work/$name.recs")
	[ "$n" -gt 1000 ]
	ok $? "$name: QEMU's log holds the traced run ($n instructions)"
}
# diagnose NAME: on a failed check, what was compared (as TAP comments)
diagnose() {
	echo "# $1: $(grep -c . "$work/$1.recs") records, $(grep -c . "$work/$1.insn") instructions; first records and (P+1)th instructions:"
	paste <(head -n 4 "$work/$1.recs") <(awk -v per=$((period + 1)) 'NR % per == 0' "$work/$1.insn" | head -n 4) | sed 's/^/#   /'
	printf '%s\n' "$out" | grep -E '^(trace-begin pebs|incomplete|progress|error)' | cut -c1-300 | sed 's/^/# /'
}

run_logged vector pmi=vector pebs.kib=4
status_is 4 "pmi=vector, a 4 KiB buffer: the run says INCOMPLETE (records were lost)"
verify vector
[ -n "$dropped" ] && [ "$dropped" -gt 0 ] && [ $((recs + dropped)) = "$want" ]
ok $? "pmi=vector: $recs records delivered and $dropped counted as dropped make QEMU's $want ($((period + 1))th instructions)"
[ -z "$bad" ]
ok $? "pmi=vector: every delivered record is QEMU's (P+1)k-th instruction, in order: sampling goes on after a loss ${bad:+($bad)}" ||
	diagnose vector
has "incomplete: pebs: program@skylake cpu=0: $dropped records not delivered" \
	"pmi=vector: the loss is said with its count"

run_logged default pebs.kib=4
status_is 0 "the default (the PMI as NMI), the same 4 KiB buffer: the run passes"
verify default
[ "$dropped" = 0 ] && [ "$recs" = "$want" ] && [ -z "$bad" ]
ok $? "default: all of QEMU's $want (P+1)th instructions are records ($recs), none dropped ${bad:+($bad)}" ||
	diagnose default
done_testing
