#!/usr/bin/env bash
# Translated blocks (docs/engine.md "Translated blocks (ss.xlate)") change how ring 3 code runs,
# never what it reports: the same programs booted with ss.xlate=on (the default: a code cache,
# the way each branch went logged as it runs) and ss.xlate=off (a trap per block, what the
# oracle tests check against QEMU's execution log) give the same records, byte for byte, and the
# same output and exit status. The programs: (XLATE_ALL=1, make long-check) glibc's features (tests/programs/linux/features.c:
# mmap, mprotect, munmap and madvise with their effect, so that translations are checked again
# after mappings change) under BTS with its threshold interrupt and LBR sampled every 7 branches
# (the log's room ends at each PMI); busybox sha256sum of a file (indirect calls and returns
# through the target stubs); misbehave 1 and 4 (tests/programs/misbehave.c: a wild write and a
# divide by zero inside translated code: the exception is taken back to the original
# instruction, the runs before it told first); and misbehave 5, a loop that never ends, which the
# watchdog's interrupt ends (a cut at any point of a translation: how many runs it made before
# depends on the host's speed, so only its end and its records' consistency are compared).
# With option ss.stats each session says how often it entered translations.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
progs=$build/tests/programs
src=$top/tests/programs/linux
mkdir -p "$work/data"
printf 'pear\napple\nfig\nbanana\napple\n' >"$work/data/words.txt"
head -c 20000 "$top/README.md" >"$work/data/input.dat"
unset SS_XLATE

# what a boot prints that is no record: its timing, the engine's counts (ss.stats)
records() {
	printf '%s\n' "$1" | grep -v '^baretrace loader:\|^timer:\|^smp:\|^boot-time:\|^ss-stats \|^native ' |
		sed 's/ tsc-cycles=[0-9]*//; s/ after [0-9]* us$//'
}
# entries: the translations entered, over the program's sessions (ss-stats xlate-entries)
entries() {
	printf '%s\n' "$out" | awk '$1 == "ss-stats" { for (i = 3; i <= NF; i++) { split($i, kv, "=")
		if (kv[1] == "xlate-entries") n += kv[2] } } END { print n + 0 }'
}

# pair NAME WANT-STATUS RUNNER-ARGS... -- KERNEL-OPTIONS...: both modes, the same records
pair() {
	local name=$1 want=$2 on off n
	shift 2
	boot "$@" ss.xlate=on ss.stats=on
	status_is "$want" "$name: ss.xlate=on: the boot ends as expected" ||
		printf '%s\n' "$out" | grep -E '^(error|run finished)' | head -n 5 | sed 's/^/# /'
	on=$(records "$out")
	n=$(entries)
	[ "$n" -gt 0 ]
	ok $? "$name: ss.xlate=on: the program ran translated ($n entries into translations)"
	! printf '%s\n' "$out" | grep -q 'translated code (option ss.xlate)'
	ok $? "$name: ss.xlate=on: every run logged and every cut taken back (no 'translated code' error)"
	boot "$@" ss.xlate=off ss.stats=on
	status_is "$want" "$name: ss.xlate=off: the boot ends as expected"
	off=$(records "$out")
	[ "$(entries)" = 0 ]
	ok $? "$name: ss.xlate=off: no translation entered"
	same "$on" "$off" "$name: both modes print the same records and output, byte for byte ($(printf '%s\n' "$on" | grep -c '^bts \|^lbr \|^exception ') record lines)"
}

if [ -n "${XLATE_ALL:-}" ]; then # make long-check (make test's 12 minutes)
	gcc -O2 -static -o "$work/features" "$src/features.c"
	pair features 0 --timeout 400 --program "$work/features" --file "$work/data/words.txt" \
		--file "$work/data/input.dat" -- workload=program trace=btsint,lbr spmu=skylake \
		lbr.period=7 'program.argv="features"' program.stdin=/data/words.txt
fi

bb=/bin/busybox
if [ -x "$bb" ] && readelf -lW "$bb" | grep -q 'EXEC\|DYN' && ! readelf -lW "$bb" | grep -q INTERP; then
	pair busybox-sha256sum 0 --timeout 400 --program "$bb" --file "$work/data/input.dat" -- \
		workload=program trace=btsint,lbr spmu=skylake 'program.argv="sha256sum /data/input.dat"'
else
	for i in 1 2 3 4 5 6; do ok 0 "# SKIP no static /bin/busybox (Debian busybox-static; scripts/install-deps)"; done
fi

# misbehave 1 and 4 end by their fault, which the boot reports (status 2: the program's fault)
pair "misbehave 1 (#PF)" 2 --timeout 300 --program "$progs/misbehave.elf" -- workload=program \
	trace=bts,lbr spmu=skylake program.arg=1
pair "misbehave 4 (#DE)" 2 --timeout 300 --program "$progs/misbehave.elf" -- workload=program \
	trace=bts,lbr spmu=skylake program.arg=4

# Against QEMU's own execution log (one instruction a translation block, over the program's
# window and the code cache beyond it): the example program (examples/branches.c: loops, a jump
# table, recursion, calls through pointers), BTS and LBR, translated; the kernel says where each
# translated instruction came from (ss.xlate.map), the oracle checks those claims against
# objdump and maps the cache's PCs back (scripts/qemu-exec-branches QEB_XLATE_MAP).
window=0x7e0000000000
prog=$build/examples/branches.elf
boot --timeout 300 --program "$prog" --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$window+0x100000000")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" -- workload=program trace=bts,lbr spmu=skylake \
	ss.xlate=on ss.xlate.map=on ss.stats=on
status_is 0 "branches, translated, under QEMU's execution log: BTS and LBR pass"
has "result=722" "branches: its exit status is 722, as its source works out"
n=$(entries)
misses=$(printf '%s\n' "$out" | awk '$1 == "ss-stats" { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "misses") m += kv[2] } } END { print m + 0 }')
restarts=$(printf '%s\n' "$out" | grep -c 'restarts=[1-9]')
[ "$n" -gt 0 ] && [ "$misses" -gt 0 ] && [ "$restarts" = 0 ]
ok $? "branches: it ran translated ($n entries), its indirect branches' targets learnt ($misses misses), never started over"
printf '%s\n' "$out" | grep '^xlate-' | sort -u >"$work/map.txt"
QEB_ELFS="$prog" QEB_XLATE_MAP="$work/map.txt" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" \
	"$work/exec.log" >"$work/qemu.txt" 2>"$work/err"
ok $? "the oracle read QEMU's log through the cache's map ($(grep -c '^xlate-map' "$work/map.txt") translated instructions) $(head -c 200 "$work/err")"
bts=$(session_records bts "program@skylake" 2 3)
[ -n "$bts" ] && [ "$bts" = "$(nth "$work/qemu.txt" 1 | grep -v '^run ')" ]
ok $? "branches, bts: the records are QEMU's taken branches of the translated run, in order ($(printf '%s\n' "$bts" | grep -c .))"
lbr=$(session_records lbr "program@skylake" 3 4)
want=$(nth "$work/qemu.txt" 2 | grep -v '^run ' | tail -n 32 | tac)
[ -n "$lbr" ] && [ "$lbr" = "$want" ]
ok $? "branches, lbr: the stack holds QEMU's newest branches of the translated run, newest first"

boot --timeout 300 --program "$progs/misbehave.elf" -- workload=program trace=lbr spmu=skylake \
	program.arg=5 program.watchdog=200 ss.stats=on
n=$(entries)
[ "$n" -gt 0 ] && printf '%s\n' "$out" | grep -q 'cuts=[1-9]'
ok $? "misbehave 5: the endless loop ran translated ($n entries) and the watchdog's interrupt cut it"
! printf '%s\n' "$out" | grep -q 'translated code (option ss.xlate)'
ok $? "misbehave 5: the cut was taken back to the original code (no 'translated code' error)"
printf '%s\n' "$out" | grep -q 'watchdog'
ok $? "misbehave 5: the watchdog ended it, and said so"
done_testing
