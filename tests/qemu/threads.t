#!/usr/bin/env bash
# Threaded static Linux programs (docs/programs.md "Threads"): each thread on a CPU of its own,
# traced by that CPU's own session. Built here from tests/programs/linux/ (gcc -static -pthread
# with glibc's pthreads, g++ -static with std::thread in the long run, musl-gcc -static); what
# they print comes from their source (its header comment says what each line must be) and
# equals the same binary's run on this host; each thread's records equal QEMU's execution log
# of its vCPU (scripts/qemu-exec-branches, QEB_CPU). How a threaded process ends (a worker's
# exit_group, a fault in a worker, a deadlock, more threads than CPUs) is checked against the
# source's own account in tests/programs/linux/thread_ends.c. THREADS_ALL=1 (make long-check,
# tests/long/threads.t) adds the C++ program and the fault.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
src=$top/tests/programs/linux

# native NAME BINARY ARGS...: the host's run, stdout alone, and its status in NAME.status.
native() {
	local name=$1 bin=$2
	shift 2
	(cd "$work" && env -i "$bin" "$@" </dev/null >"$work/$name.native" 2>/dev/null)
	echo $? >"$work/$name.status"
}

# tids FACILITY: "CPU TID" of each session of FACILITY in the last boot ("tid=1": the main
# thread, whose session name has none), sorted by tid.
tids() {
	printf '%s\n' "$out" | awk -v f="$1" '$1 == "trace-begin" && $2 == f && $3 ~ /^program@/ {
		cpu = $4; sub(/^cpu=/, "", cpu); tid = 1
		if ($5 ~ /^tid=/) { tid = $5; sub(/^tid=/, "", tid) }
		print cpu, tid }' | sort -k2n
}

# threaded NAME FACILITY WORKERS: the boot ran the main thread on CPU 0 and each of the WORKERS
# threads (tids 2 .. WORKERS + 1, Linux's next pids) on a CPU of its own, neither CPU 0 nor the
# drainer's CPU 1, for FACILITY.
threaded() {
	local name=$1 f=$2 w=$3 got want cpus
	got=$(tids "$f")
	want=$(seq 1 $((w + 1)) | tr '\n' ' ')
	[ "$(printf '%s\n' "$got" | awk '{ printf "%s ", $2 }')" = "$want" ]
	ok $? "$name, $f: a session for each thread, tids $want($(printf '%s' "$got" | tr '\n' ','))"
	cpus=$(printf '%s\n' "$got" | awk '$2 > 1 { print $1 }' | sort -u | wc -l)
	printf '%s\n' "$got" | awk -v w="$w" '$2 == 1 && $1 != 0 { bad = 1 } $2 > 1 && $1 < 2 { bad = 1 }
		END { exit bad }' && [ "$cpus" = "$w" ]
	ok $? "$name, $f: the main thread on CPU 0, the $w workers each on a CPU of its own ($cpus), not the drainer's"
}

gcc -O2 -static -pthread -o "$work/threads" "$src/threads.c" -lm
ok $? "glibc's pthreads: the program builds (gcc -static -pthread)"
musl-gcc -O2 -static -o "$work/threads-musl" "$src/threads.c" -lm &&
	musl-gcc -O2 -static -o "$work/ends" "$src/thread_ends.c"
ok $? "musl's pthreads: the programs build (musl-gcc -static)"

# --- glibc: BTS and LBR, the stream, perf.data ---------------------------------------------
native threads "$work/threads" 2
grep -qx "squares: 338350 (want 338350)" "$work/threads.native" &&
	grep -qx "fenv: inherited" "$work/threads.native"
ok $? "the host's run prints what the source works out (100 squares: 338350; the rounding mode inherited)"
boot --smp 4 --timeout 600 --program "$work/threads" -- workload=program trace=bts,lbr \
	stream=text 'program.argv=threads 2'
status_is 0 "glibc, 2 workers on --smp 4: run finished: PASS" ||
	printf '%s\n' "$out" | grep -E '^(error|incomplete|summary|run finished)' | head | sed 's/^/# /'
printf '%s\n' "$out" >"$work/threads.log"
has "program: 2 threads besides the main one, each on a CPU of its own" "glibc: the run says its threads"
for f in bts lbr; do threaded glibc "$f" 2; done
"$build/btdecode" --view output --stream stdout "$work/threads.log" >"$work/threads.traced" 2>/dev/null
cmp -s <(cat "$work/threads.native" "$work/threads.native") "$work/threads.traced"
ok $? "glibc: each traced run's stdout (both sessions' OUTPUT frames) equals the host's run, byte for byte" ||
	diff "$work/threads.native" "$work/threads.traced" | head | sed 's/^/# /'
"$build/btdecode" --view verify --program "$work/threads" "$work/threads.log" >"$work/verify" 2>&1
ok $? "glibc: btdecode verifies every session, each thread's too $(tail -n 1 "$work/verify")"
"$build/btdecode" --view perf.data -o "$work/perf.data" --program "$work/threads" --facility bts \
	"$work/threads.log" 2>"$work/perf.err"
ok $? "glibc: btdecode writes perf.data $(head -c 200 "$work/perf.err")"
got=$(perf script -i "$work/perf.data" -F tid 2>/dev/null | awk '{ print $1 }' | sort -un | tr '\n' ' ')
[ "$got" = "1 2 3 " ]
ok $? "perf script -F tid names every thread: 1 2 3 ($got)"
got=$(perf report -i "$work/perf.data" --stdio --sort pid 2>/dev/null | grep -c ':threads')
[ "$got" = 3 ]
ok $? "perf report --sort pid (perf's thread key: TID:COMM) has a row per thread ($got)"

# --- musl: each thread's records are QEMU's log of its vCPU ------------------------------------
filter=$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "0x400000+0x100000")
boot --smp 4 --timeout 600 --program "$work/threads-musl" --qemu-singlestep \
	--qemu-arg -d --qemu-arg exec,nochain --qemu-arg -dfilter --qemu-arg "$filter" \
	--qemu-arg -D --qemu-arg "$work/exec.log" -- workload=program trace=bts spmu=skylake \
	'program.argv=threads 2'
status_is 0 "musl, 2 workers on --smp 4 under QEMU's one-instruction blocks: PASS"
threaded musl bts 2
for c in $(tids bts | awk '{ print $1 }'); do
	QEB_CPU=$c QEB_ELFS="$work/threads-musl" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" \
		"$work/exec.log" >"$work/q$c.txt" 2>"$work/q$c.err"
	label=$(tids bts | awk -v c="$c" '$1 == c { print ($2 == 1 ? "main thread" : "tid " $2) }')
	[ "$(grep -c '^run ' "$work/q$c.txt")" = 1 ]
	ok $? "vCPU $c ($label): QEMU's log holds one stepped run $(head -c 200 "$work/q$c.err")"
	steps=$(printf '%s\n' "$out" | awk -v c="cpu=$c" '$1 == "trace-begin" && $4 == c {
		for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { sub(/^steps=/, "", $i); print $i } }')
	same "run $steps" "$(grep '^run ' "$work/q$c.txt")" "vCPU $c ($label): the engine stepped QEMU's instructions"
	same "$(session_records bts program@skylake 2 3 "$c")" "$(grep -v '^run ' "$work/q$c.txt")" \
		"vCPU $c ($label): the BTS records are QEMU's taken branches of that vCPU, in order"
done

# --- how a threaded process ends --------------------------------------------------------------
native ends-exit "$work/ends" exit
boot --smp 3 --timeout 300 --program "$work/ends" -- workload=program trace=bts 'program.argv=ends exit'
status_is 0 "a worker's exit(7) while main waits in pthread_join: PASS"
printf '%s\n' "$out" | grep -q "^trace-begin bts program@skylake cpu=0 .*result=$(cat "$work/ends-exit.status")\$"
ok $? "exit: the process's status is the worker's exit_group's, as on the host ($(cat "$work/ends-exit.status"))"
printf '%s\n' "$out" | grep -q 'main: joined'
ok $((!$?)) "exit: the main thread never returned from pthread_join (the source: never printed)"

boot --smp 3 --timeout 300 --program "$work/ends" -- workload=program trace=bts 'program.argv=ends deadlock'
status_is 2 "a deadlock (main joins a worker that waits for a signal nobody sends): status 2, no hang"
has "error: program: deadlock: all 2 threads wait and none can wake another: tid 1 (cpu 0) in a futex wait" \
	"deadlock: said, the main thread's wait named"
has "tid 2 (cpu 2) in a futex wait on" "deadlock: the worker's wait named"

boot --smp 3 --timeout 300 --program "$work/threads-musl" -- workload=program trace=bts 'program.argv=threads 3'
status_is 2 "3 workers with one CPU for threads (--smp 3: the main thread's, the drainer's and one): status 2"
has "error: program: clone refused" "more threads than CPUs: clone's -EAGAIN said"
has "scripts/run --smp" "more threads than CPUs: the fix named (scripts/run --smp)"

if [ -n "${THREADS_ALL:-}" ]; then
	g++ -O2 -std=c++20 -static -o "$work/threadspp" "$src/threads.cc"
	ok $? "std::thread: the program builds (g++ -std=c++20 -static)"
	native threadspp "$work/threadspp" 2
	boot --smp 4 --timeout 900 --program "$work/threadspp" -- workload=program trace=lbr \
		stream=text 'program.argv=threads 2'
	status_is 0 "std::thread, 2 workers and a std::async task on --smp 4: PASS"
	printf '%s\n' "$out" >"$work/threadspp.log"
	"$build/btdecode" --view output --stream stdout "$work/threadspp.log" >"$work/threadspp.traced" 2>/dev/null
	cmp -s "$work/threadspp.native" "$work/threadspp.traced"
	ok $? "std::thread: stdout equals the host's run, byte for byte" ||
		diff "$work/threadspp.native" "$work/threadspp.traced" | head | sed 's/^/# /'
	[ "$(tids lbr | wc -l)" = 4 ]
	ok $? "std::thread: four sessions, the main thread's, two workers' and the async task's"

	boot --smp 3 --timeout 300 --program "$work/ends" -- workload=program trace=bts 'program.argv=ends segv'
	status_is 2 "a worker's null write: status 2 (the program's fault)"
	has "error: program: tid 2 (cpu 2): ended by #PF page fault" "segv: the worker's fault said"
	has "error: program: cpu=0: ended by #PF page fault (vector 14) at" "segv: the process ends with it, where said"
fi
done_testing
