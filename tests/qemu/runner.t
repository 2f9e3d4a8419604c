#!/usr/bin/env bash
# The runner under its user (issue 33): Ctrl-C and the other signals a user or the system sends
# it, a QEMU killed from outside, a time-out, and the terminal's view. Mostly with the stand-in
# QEMU of lib.sh (fake_qemu), and once with a real boot on a pseudo-terminal. What is expected
# comes from POSIX signal semantics (a process ended by signal N is reported by the shell as
# 128+N: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP; Ctrl-C on a terminal is SIGINT to
# its foreground process group; kill -0 tells whether a process is still there), from QEMU's
# own behaviour (it catches SIGINT, SIGTERM and SIGHUP, says "terminating on signal N from pid
# P (NAME)" and exits 0: softmmu/runstate.c) and from the README ("Running": the exit statuses,
# the terminal's progress line and the log in build/run.log). The terminal is a real one:
# script(1) runs the runner on a pseudo-terminal, and a Ctrl-C is the ^C byte typed into it.
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
	wait "$runner"
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
grep -q "the whole serial log: $work/b/run.log" <<<"$tty" && printf '%b' "$serial" | cmp -s - "$work/b/run.log"
ok $? "on a terminal: the whole serial log in build/run.log, byte for byte, named at the end"
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
