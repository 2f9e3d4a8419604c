#!/usr/bin/env bash
# The runner under its user: Ctrl-C and the other signals a user or the system sends
# it, a QEMU killed from outside, a time-out, and the terminal's view. Mostly with the stand-in
# QEMU of lib.sh (fake_qemu), and once with a real boot on a pseudo-terminal. What is expected
# comes from POSIX signal semantics (a process ended by signal N is reported by the shell as
# 128+N: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP; Ctrl-C on a terminal is SIGINT to
# its foreground process group; kill -0 tells whether a process is still there), from QEMU's
# own behaviour (it catches SIGINT, SIGTERM and SIGHUP, says "terminating on signal N from pid
# P (NAME)" and exits 0: softmmu/runstate.c) and from README ("Exit statuses") and docs/running.md
# ("Running": the terminal's progress line and the log in build/run.log). The terminal is a real
# one: script(1) runs the runner on a pseudo-terminal, and a Ctrl-C is the ^C byte typed into it.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
fake=$work/fake
fake_qemu "$fake"
pidf=$work/qemu.pid
# a build folder of its own for the terminal's build/run.log (the loader image copied there)
mkdir -p "$work/b"
cp "$build/BOOTX64.EFI" "$work/b/"

# start_run [RUNNER ARGS...]: the runner in a session of its own (setsid: its process group is
# its pid, $runner), with the stand-in QEMU sleeping after its lines; returns once the runner
# shows the loader's line (QEMU started, the runner waiting).
start_run() {
	rm -f "$pidf" "$work/out"
	# (SIGINT as at an interactive prompt: a background job of a script starts with it ignored,
	# and a shell cannot trap a signal ignored when it started)
	env --default-signal=INT PATH="$fake:$PATH" FAKE_PIDFILE="$pidf" FAKE_SLEEP=60 FAKE_EXIT=1 \
		FAKE_CATCH="${CATCH:-}" FAKE_SERIAL='baretrace loader\r\nkernel ready\r\n' \
		setsid "$top/scripts/run" "$@" >"$work/out" 2>&1 &
	runner=$!
	for _ in $(seq 100); do
		[ -s "$pidf" ] && grep -q 'kernel ready' "$work/out" 2>/dev/null && break
		sleep 0.1
	done
	qemu=$(cat "$pidf")
}
# end_run: the runner's status ($rc) and output ($out), its seconds from here ($secs); a runner
# still there after 20 s is killed (and the check fails)
end_run() {
	local t0=$SECONDS dog
	(sleep 20 && kill -KILL -- "-$runner") 2>/dev/null &
	dog=$!
	{ wait "$runner"; } 2>/dev/null # (bash's own word on a job killed by a signal: not ours)
	rc=$?
	kill "$dog" 2>/dev/null
	secs=$((SECONDS - t0))
	out=$(cat "$work/out")
}
# gone PID: the process has ended (reaped by init within 2 s once its parents are gone)
gone() {
	for _ in $(seq 20); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}
# kept_log: the log file the runner named, if it holds the lines QEMU sent (then removed)
kept_log() {
	local f
	f=$(printf '%s\n' "$out" | sed -n 's/.*the serial log so far: \(.*\)$/\1/p')
	[ -n "$f" ] && grep -q 'kernel ready' "$f" && case "$f" in */serial.log) rm_kept "$(dirname "$f")" ;; esac
}

# ---- signals to the runner -------------------------------------------------------------------
start_run --timeout 60
kill -INT -- "-$runner"
end_run
[ "$rc" = 130 ] && [ "$secs" -lt 10 ] && gone "$qemu" && printf '%s\n' "$out" | grep -q 'stopped by SIGINT' && kept_log
ok $? "Ctrl-C (SIGINT to the runner's process group): status $rc in ${secs}s, QEMU gone, the log so far kept and named"
start_run --timeout 60
kill -TERM "$runner"
end_run
[ "$rc" = 143 ] && [ "$secs" -lt 10 ] && gone "$qemu" && kept_log
ok $? "SIGTERM to the runner alone: status $rc in ${secs}s, QEMU gone"
start_run --timeout 60 --log "$work/hup.log"
kill -HUP "$runner"
end_run
[ "$rc" = 129 ] && [ "$secs" -lt 10 ] && gone "$qemu" && grep -q 'kernel ready' "$work/hup.log"
ok $? "SIGHUP (the terminal closed): status $rc in ${secs}s, QEMU gone, --log kept"

# ---- QEMU ended from outside -------------------------------------------------------------------
start_run --timeout 60
kill -KILL "$qemu"
end_run
[ "$rc" = 3 ] && [ "$secs" -lt 10 ] && printf '%s\n' "$out" | grep -q 'stopped by signal 9 (SIGKILL)' &&
	! printf '%s\n' "$out" | grep -q 'time-out'
ok $? "QEMU killed by SIGKILL: status $rc, the signal named, not called a time-out ($(printf '%s\n' "$out" | tail -n 1))"
start_run --timeout 60
kill -TERM "$qemu"
end_run
[ "$rc" = 3 ] && printf '%s\n' "$out" | grep -q 'stopped by signal 15 (SIGTERM)' && ! printf '%s\n' "$out" | grep -q 'crash'
ok $? "QEMU killed by SIGTERM: status $rc, the signal named, not called a crash ($(printf '%s\n' "$out" | tail -n 1))"
CATCH=1 start_run --timeout 60
kill -TERM "$qemu"
end_run
[ "$rc" = 3 ] && printf '%s\n' "$out" | grep -q 'stopped by signal 15 (SIGTERM) from pid 1 (stand-in)'
ok $? "QEMU ending on SIGTERM as QEMU does (its message, exit 0): status $rc, the signal and its sender named"
start_run --timeout 2
end_run
[ "$rc" = 124 ] && [ "$secs" -lt 12 ] && gone "$qemu" && printf '%s\n' "$out" | grep -q 'time-out after 2s'
ok $? "a run past --timeout 2: status $rc in ${secs}s, a time-out"
# Without --timeout a run goes on while the guest speaks: silent for --stall seconds, it is a
# hang (status 124, said so); a guest that keeps speaking (the kernel's progress lines) is not
# stopped, however long it runs.
start_run --stall 10
end_run
[ "$rc" = 124 ] && [ "$secs" -lt 19 ] && gone "$qemu" && printf '%s
' "$out" | grep -q 'no progress: the serial line was silent for 10s'
ok $? "a guest silent for --stall 10: status $rc in ${secs}s, said to have made no progress"
talker=$work/talker
mkdir -p "$talker"
cat >"$talker/qemu-system-x86_64" <<'EOF2'
#!/bin/sh
printf 'baretrace loader\r\n'
for i in 1 2 3 4 5 6 7 8; do sleep 3; printf 'progress: program@skylake cpu=0: running for %d s\r\n' $((i * 3)); done
printf 'run finished: PASS\r\n'
exit 1
EOF2
chmod +x "$talker/qemu-system-x86_64"
t0=$SECONDS
PATH="$talker:$PATH" "$top/scripts/run" --stall 10 >"$work/out" 2>&1
rc=$? secs=$((SECONDS - t0))
[ "$rc" = 0 ] && [ "$secs" -ge 24 ] && grep -q '^run finished: PASS' "$work/out"
ok $? "a guest that speaks every 3 s for 24 s is not stopped by --stall 10: status $rc in ${secs}s"
PATH="$talker:$PATH" "$top/scripts/run" --stall 5 >"$work/out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q -- "--stall 5: accepted: whole seconds 10-3600, or 0" "$work/out"
ok $? "--stall 5 is refused with what is accepted (status $rc)"

# ---- the runner killed, or started in the background by a script -------------------------------
# in_session SID: "PID (NAME)" of each process of session SID (proc(5): /proc/PID/stat, whose
# sixth field is the session), a line each; session_ends SID: none left within 3 s
in_session() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v s="$1" '{ i = index($0, ") "); split(substr($0, i + 2), f, " ")
		if (f[4] == s) print $1, substr($0, length($1) + 2, i - length($1) - 1) }'
}
session_ends() {
	for _ in $(seq 30); do [ -z "$(in_session "$1")" ] && return 0; sleep 0.1; done
	return 1
}
# SIGKILL cannot be caught: QEMU must end with the runner all the same (not at --timeout), and no
# helper of the runner's may stay behind to signal, later, a pid the system has reused by then
start_run --timeout 60
kill -KILL "$runner"
end_run
gone "$qemu" && session_ends "$runner"
ok $? "the runner killed by SIGKILL (status $rc): QEMU gone within 2 s, nothing of the runner's left in its session $(in_session "$runner" | tr '\n' ' ')"
start_run --timeout 60
kill -TERM "$runner"
end_run
[ "$rc" = 143 ] && session_ends "$runner" && kept_log
ok $? "stopped by SIGTERM (status $rc): nothing of the runner's left in its session, no helper to fire later $(in_session "$runner" | tr '\n' ' ')"
# A script's `cmd &` without job control starts cmd with SIGINT ignored (POSIX, Shell Command
# Language 2.11), which bash cannot trap (bash(1), trap): kill -INT must stop the runner all the
# same (130), not leave it to its --timeout. First, that the shell does so here.
ign=$(bash -c 'sed -n "s/^SigIgn:[[:space:]]*//p" /proc/self/status & wait')
[ $((0x${ign:-0} & 2)) = 2 ]
ok $? "a background command of bash -c starts with SIGINT ignored (SigIgn $ign: bit 1, signal 2)"
rm -f "$pidf" "$work/out" "$work/runner.pid"
env PATH="$fake:$PATH" FAKE_PIDFILE="$pidf" FAKE_SLEEP=60 FAKE_EXIT=1 FAKE_SERIAL='baretrace loader\r\nkernel ready\r\n' \
	setsid bash -c '"$0" --timeout 60 >"$1" 2>&1 & echo $! >"$2"; wait $!' "$top/scripts/run" "$work/out" "$work/runner.pid" &
shell=$!
for _ in $(seq 100); do [ -s "$pidf" ] && grep -q 'kernel ready' "$work/out" 2>/dev/null && break; sleep 0.1; done
t0=$SECONDS
kill -INT "$(cat "$work/runner.pid")"
(sleep 20 && kill -KILL -- "-$shell") 2>/dev/null &
dog=$!
wait "$shell"
rc=$? secs=$((SECONDS - t0))
kill "$dog" 2>/dev/null
[ "$rc" = 130 ] && [ "$secs" -lt 10 ] && gone "$(cat "$pidf")" && grep -q 'stopped by SIGINT' "$work/out"
ok $? "kill -INT to a runner started in the background by a script (SIGINT ignored at its start): status $rc in ${secs}s, QEMU gone"

# ---- the USB stick: one run at a time, nothing written to an image in use ------------------------
img=$work/stick.img
"$top/scripts/mkimage" --gpt --trace-mib 1 "$img" >"$work/mkimage.out" 2>&1
ok $? "an image for the stick (scripts/mkimage --gpt --trace-mib 1) $(tail -n 1 "$work/mkimage.out")"
esp=$(partx -g -o START -n 1 "$img" | tr -d ' ')
cfg() { mtype -i "$img@@$((esp * 512))" ::/baretrace.cfg 2>/dev/null | tr -d '\r'; }
# a QEMU of its own on the image (paused: -S), holding its locks (QEMU's block/file-posix.c: OFD
# locks on bytes 100+n and 200+n, seen in /proc/locks by the image's inode)
qemu-system-x86_64 -nodefaults -display none -S -drive if=none,id=d,format=raw,file="$img" \
	-device virtio-blk-pci,drive=d </dev/null >/dev/null 2>&1 &
holder=$!
ino=$(stat -c %i "$img")
for _ in $(seq 50); do grep -q ":$ino 1[0-9][0-9] " /proc/locks && break; sleep 0.1; done
before=$(sha256sum <"$img")
rm -f "$pidf"
env PATH="$fake:$PATH" FAKE_PIDFILE="$pidf" FAKE_EXIT=1 FAKE_SERIAL='baretrace loader\r\nrun finished: PASS\r\n' \
	"$top/scripts/run" --timeout 20 --stick "$img" -- trace=bts >"$work/out" 2>&1
rc=$?
[ "$rc" = 2 ] && [ ! -e "$pidf" ] && [ "$(sha256sum <"$img")" = "$before" ] &&
	grep -q "scripts/run: --stick $img: the image is in use: pid $holder, qemu-system-x86_64 " "$work/out"
ok $? "--stick on an image a QEMU has open: status $rc, that QEMU named, nothing written, no QEMU started $(tail -n 1 "$work/out" | head -c 300)"
kill "$holder"
wait "$holder" 2>/dev/null
# two runners: the second is refused while the first runs, even killed by SIGKILL its lock goes
start_run --timeout 60 --stick "$img" -- trace=lbr workload=loop
first=$(cfg)
env PATH="$fake:$PATH" FAKE_EXIT=1 FAKE_SERIAL='baretrace loader\r\nrun finished: PASS\r\n' \
	"$top/scripts/run" --timeout 20 --stick "$img" -- trace=bts >"$work/out2" 2>&1
rc2=$?
[ "$rc2" = 2 ] && [ "$first" = "$(printf 'trace=lbr\nworkload=loop')" ] && [ "$(cfg)" = "$first" ] &&
	grep -q "the image is in use: pid $runner, bash $top/scripts/run --timeout 60 --stick " "$work/out2"
ok $? "a second --stick run on the image of a running one: status $rc2, the first named, its options left in the image ($(cfg | tr '\n' ' '))"
kill -KILL "$runner"
end_run
gone "$qemu"
env PATH="$fake:$PATH" FAKE_EXIT=1 FAKE_SERIAL='baretrace loader\r\nrun finished: PASS\r\n' \
	"$top/scripts/run" --timeout 20 --stick "$img" -- trace=bts >"$work/out2" 2>&1
rc2=$?
[ "$rc2" = 0 ] && [ "$(cfg)" = trace=bts ]
ok $? "once that runner is killed (SIGKILL), its QEMU gone, the image is free again: status $rc2, this run's options in it"

# ---- the least memory that boots ------------------------------------------------------------------
# The runner refuses less than it says boots; both sides with real boots: its least boots, and
# a MiB less the loader itself names what it lacks (the same command line, QEMU run directly).
boot --memory 1K
min=$(printf '%s\n' "$out" | sed -n 's/.*accepted: a size of at least \([0-9]*\)M .*/\1/p')
[ "$rc" = 2 ] && [ -n "$min" ] && printf '%s\n' "$out" | grep -q 'scripts/run: --memory 1K: too little to boot'
ok $? "--memory 1K: refused before the boot (status $rc), the least that boots said: ${min:-?} MiB"
boot --memory "$((min - 1))M"
[ "$rc" = 2 ] && printf '%s\n' "$out" | grep -q "too little to boot"
ok $? "--memory $((min - 1))M: refused (status $rc)"
boot --memory "${min}M" --timeout 60 -- trace=lbr workload=loop
status_is 0 "--memory ${min}M: the least the runner accepts boots a session"
boot --dry-run --memory "${min}M" -- trace=lbr workload=loop
cmd=$(printf '%s\n' "$out" | grep '^qemu-system-x86_64 ')
vol=$(printf '%s\n' "$out" | sed -n 's/.*the boot volume is kept in \([^ ]*\) .*/\1/p')
eval "timeout 60 ${cmd/ -m ${min}M / -m $((min - 1))M }" >"$work/less.log" 2>&1 </dev/null
qrc=$?
rm_kept "$vol"
[ "$qrc" = 3 ] && grep -q 'baretrace loader: error: the kernel image needs [0-9]* KiB of memory in one piece at a 2 MiB boundary; the firmware has [0-9]* KiB free, the largest free piece [0-9]* KiB' "$work/less.log"
ok $? "with $((min - 1)) MiB the loader fails (QEMU exit $qrc: the loader's FAIL) naming what the kernel needs and what is free: $(grep -m1 'kernel image needs' "$work/less.log" | tr -d '\r')"

# ---- the terminal --------------------------------------------------------------------------------
# on_tty FILE [RUNNER ARGS...]: the runner on a pseudo-terminal (script(1)), BUILD=$work/b, the
# stand-in QEMU printing $serial; what the terminal showed in FILE, the status in $rc
on_tty() {
	local file=$1
	shift
	rm -f "$work/b/run.log"
	(
		export PATH="$fake:$PATH" BUILD="$work/b" FAKE_EXIT=1 FAKE_SERIAL="$serial"
		script -qfec "$(printf '%q ' "$top/scripts/run" --timeout 20 "$@")" "$file" </dev/null >/dev/null
	)
	rc=$?
}
serial='\033[2Jfirmware\r\nbaretrace loader: ok\r\nkernel ready\r\n@BT1 QlQBBAAA\r\n'
serial+='trace-begin bts loop@skylake cpu=0 steps=407 records=101 pmis=0\r\nbts 0x1 0x2 0x10\r\n'
serial+='trace-end bts loop@skylake cpu=0\r\nok 1 - selfcheck bts loop@skylake cpu=0: exact\r\n'
serial+='trace-begin lbr loop@skylake cpu=0 steps=407 depth=32\r\nlbr 0 0x1 0x2 cycles=1\r\n'
serial+='lbr 1 0x3 0x4 cycles=1\r\nlbr 2 0x5 0x6 cycles=1\r\ntrace-end lbr loop@skylake cpu=0\r\n'
serial+='warning: worth seeing\r\nsummary: facility sessions\r\nsummary: bts 1 1 0 0 1/1\r\n'
serial+='selfcheck: 2 checks: 2 passed\r\nrun finished: PASS\r\n'
# what the progress line must say, counted here from the lines above: trace-end lines, the
# records= of the BTS session and the LBR session's entries, the frame lines
sessions=$(printf '%b' "$serial" | grep -c '^trace-end ')
checks=$(printf '%b' "$serial" | grep -c '^ok [0-9]* - selfcheck ')
records=$(($(printf '%b' "$serial" | sed -n 's/^trace-begin .* records=\([0-9]*\).*/\1/p') + $(printf '%b' "$serial" | grep -c '^lbr [0-9]')))
on_tty "$work/tty"
tty=$(tr -d '\r' <"$work/tty")
[ "$rc" = 0 ] && grep -q "\[ scripts/run: $sessions sessions ($checks check passed), $records records, 1 frame, " <<<"$tty" &&
	grep -q '^summary: bts 1 1 0 0 1/1$' <<<"$tty" && grep -q '^selfcheck: 2 checks' <<<"$tty" &&
	grep -q '^run finished: PASS$' <<<"$tty" && grep -q 'warning: worth seeing' <<<"$tty" &&
	! grep -q 'bts 0x1\|lbr 0 0x1\|kernel ready\|@BT1' <<<"$tty"
ok $? "on a terminal: one progress line ($sessions sessions, $checks self-check, $records records, 1 frame), the warning and the summary lines, no log line (status $rc)"
named=$(sed -n 's/^scripts\/run: the whole serial log: \(.*\) (.* points to it)$/\1/p' <<<"$tty")
case "$named" in "$work/b/runs/run-"*.log) ;; *) named="" ;; esac
[ -n "$named" ] && printf '%b' "$serial" | cmp -s - "$named" && [ "$(readlink -f "$work/b/run.log")" = "$named" ] &&
	grep -q "the whole serial log: $named ($work/b/run.log points to it)" <<<"$tty"
ok $? "on a terminal: the whole serial log in a file of the run's own under build/runs/, byte for byte, named at the end; build/run.log points to it (${named:-none named})"
[ "$(grep -o '\[ scripts/run: ' "$work/tty" | wc -l)" -ge 2 ] && grep -q $'\r\033\\[K\\[ scripts/run: ' "$work/tty"
ok $? "on a terminal: the progress line is drawn over itself (CR, erase to the end of the line)"
on_tty "$work/tty.log" --log "$work/given.log"
tty=$(tr -d '\r' <"$work/tty.log")
[ "$rc" = 0 ] && grep -q '^bts 0x1 0x2 0x10$' <<<"$tty" && ! grep -q '\[ scripts/run: ' <<<"$tty" &&
	printf '%b' "$serial" | cmp -s - "$work/given.log" && [ ! -e "$work/b/run.log" ]
ok $? "on a terminal with --log: the log on the terminal as it comes and in the file given, no progress line"
on_tty "$work/tty.help" -- help=1
tty=$(tr -d '\r' <"$work/tty.help")
grep -q '^bts 0x1 0x2 0x10$' <<<"$tty" && ! grep -q '\[ scripts/run: ' <<<"$tty"
ok $? "on a terminal with help=1: the whole log, the kernel's option list in it"
env PATH="$fake:$PATH" BUILD="$work/b" FAKE_EXIT=1 FAKE_SERIAL="$serial" "$top/scripts/run" --timeout 20 \
	>"$work/pipe" 2>&1
rc=$?
[ "$rc" = 0 ] && diff <(printf '%b' "$serial" | tr -d '\r' | sed -n '/^baretrace loader/,$p') \
	<(grep -v '^scripts/run: ' "$work/pipe") >/dev/null && [ ! -e "$work/b/run.log" ]
ok $? "not a terminal: every line from the loader's first on, as before (status $rc)"

# Two runs in one tree at once, each on a terminal: each its own log, whole and unmixed, named in
# its last lines; build/run.log the log of the one that ended last
tty_log() { tr -d '\r' <"$1" | sed -n 's/^scripts\/run: the whole serial log: \(.*\) (.* points to it)$/\1/p'; }
serial_a='baretrace loader\r\nthis is run A\r\nrun finished: PASS\r\n'
serial_b='baretrace loader\r\nthis is run B\r\nrun finished: PASS\r\n'
(
	export PATH="$fake:$PATH" BUILD="$work/b" FAKE_EXIT=1 FAKE_SERIAL="$serial_a" FAKE_HOLD=3
	script -qfec "$top/scripts/run --timeout 20" "$work/tty.a" </dev/null >/dev/null
) &
run_a=$!
sleep 1
(
	export PATH="$fake:$PATH" BUILD="$work/b" FAKE_EXIT=1 FAKE_SERIAL="$serial_b"
	script -qfec "$top/scripts/run --timeout 20" "$work/tty.b" </dev/null >/dev/null
)
wait "$run_a"
log_a=$(tty_log "$work/tty.a") log_b=$(tty_log "$work/tty.b")
[ -n "$log_a" ] && [ -n "$log_b" ] && [ "$log_a" != "$log_b" ] && printf '%b' "$serial_a" | cmp -s - "$log_a" &&
	printf '%b' "$serial_b" | cmp -s - "$log_b" && [ "$(readlink -f "$work/b/run.log")" = "$log_a" ]
ok $? "two runs at once in one tree: two logs, each whole and its own run's only (${log_a##*/}, ${log_b##*/}), build/run.log the last to end"
# Of build/runs/, the 20 newest logs are kept, and one that a run still writes (its flock) too.
rm -rf "$work/b/runs"
mkdir -p "$work/b/runs"
for i in $(seq 10 34); do : >"$work/b/runs/run-20000101-0000$i-1.log"; touch -d "2000-01-01 00:00:$i" "$work/b/runs/run-20000101-0000$i-1.log"; done
flock "$work/b/runs/run-20000101-000010-1.log" sleep 10 &
holding=$!
for _ in $(seq 50); do grep -q "FLOCK .* $(stat -c %i "$work/b/runs/run-20000101-000010-1.log") " /proc/locks && break; sleep 0.1; done
on_tty "$work/tty.prune"
kept=$(ls "$work/b/runs" | grep -c '^run-')
[ "$rc" = 0 ] && [ "$kept" = 21 ] && [ -e "$work/b/runs/run-20000101-000010-1.log" ] &&
	[ -e "$work/b/runs/run-20000101-000016-1.log" ] && [ ! -e "$work/b/runs/run-20000101-000015-1.log" ]
ok $? "build/runs/ keeps the 20 newest logs ($kept files: this run's, the 19 newest of 25 older ones) and the one a run holds"
kill "$holding" 2>/dev/null
wait "$holding" 2>/dev/null

# Ctrl-C typed on the terminal: the ^C byte into the pseudo-terminal, SIGINT to its foreground
# process group (the runner's; QEMU's is another, timeout's own)
rm -f "$pidf"
t0=$SECONDS
(
	export PATH="$fake:$PATH" BUILD="$work/b" FAKE_EXIT=1 FAKE_SLEEP=60 FAKE_PIDFILE="$pidf"
	export FAKE_SERIAL='baretrace loader\r\nkernel ready\r\n'
	{
		for _ in $(seq 100); do [ -s "$pidf" ] && break; sleep 0.1; done
		sleep 1
		printf '\003'
		for _ in $(seq 150); do grep -q 'Script done' "$work/tty.int" && break; sleep 0.1; done
	} | script -qfec "$top/scripts/run --timeout 60" "$work/tty.int" >/dev/null
	exit "${PIPESTATUS[1]}"
)
rc=$? secs=$((SECONDS - t0))
[ "$rc" = 130 ] && [ "$secs" -lt 10 ] && gone "$(cat "$pidf")" && grep -q 'stopped by SIGINT' "$work/tty.int"
ok $? "Ctrl-C typed on the terminal: status $rc in ${secs}s, QEMU gone"

# ---- a real boot on a terminal -------------------------------------------------------------------
(
	export BUILD="$work/b"
	script -qfec "$top/scripts/run --timeout 60 -- trace=lbr workload=loop" "$work/tty.real" </dev/null >/dev/null
)
rc=$?
tty=$(tr -d '\r' <"$work/tty.real")
entries=$("$build/btdecode" "$work/b/run.log" 2>/dev/null | grep -c '^lbr ')
[ "$rc" = 0 ] && [ "$entries" -gt 0 ] && grep -q "\[ scripts/run: 1 of 1 session (1 check passed), $entries records, " <<<"$tty" &&
	grep -q '^run finished: PASS$' <<<"$tty" && grep -q '^summary: lbr ' <<<"$tty" &&
	! grep -q 'kernel ready' <<<"$tty" && grep -q '^kernel ready' <(tr -d '\r' <"$work/b/run.log")
ok $? "a real boot on a terminal: its progress line (1 session, the $entries LBR entries of its log), its summary, the log in build/run.log (status $rc)"
done_testing
