# Shared helpers for QEMU tests (*.t, run by prove). Each test boots the kernel through
# scripts/run and emits its own TAP: host-side checks plus, where asked, the kernel's own TAP
# points relayed with fresh numbers.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
export BUILD=$build
tap_n=0
tap_failed=0
out="" # output of the last boot
rc=0   # exit status of the last boot

# boot [runner args...] [-- kernel options...]: run once, keep output in $out, status in $rc.
# A boot with kernel options gets its records as text lines (stream=off), which most tests read,
# unless it names a stream (or a config file does); a boot without any runs the default session
# as a user gets it, on the default wire (stream=text, which the stream tests read back with
# tools/btdecode).
boot() {
	local log args=("$@") wire= a after= xlate=
	for a in "$@"; do
		case "$a" in
		--) after=1 ;;
		stream=* | --config) wire=no ;;
		ss.xlate=*) xlate=given ;;
		*) [ -n "$after" ] && [ -z "$wire" ] && wire=off ;;
		esac
	done
	[ "$wire" = off ] && args+=("stream=off")
	# SS_BLOCK=off|on: every boot with kernel options steps per instruction (or per block), the
	# engine's two modes (make long-check runs the oracle tests with ss.block=off too)
	[ -n "${SS_BLOCK:-}" ] && [ -n "$after" ] && args+=("ss.block=$SS_BLOCK")
	# SS_XLATE=off|on: every boot with kernel options runs translated blocks or not (a boot
	# that logs QEMU's execution runs ss.xlate=off unless it says otherwise: scripts/run)
	[ -n "${SS_XLATE:-}" ] && [ -n "$after" ] && [ -z "$xlate" ] && args+=("ss.xlate=$SS_XLATE")
	log=$(mktemp)
	"$top/scripts/run" "${args[@]}" >"$log" 2>&1
	rc=$?
	out=$(cat "$log")
	rm -f "$log"
}

# rm_kept DIR: a folder the runner kept and named (its own mktemp folder, with the boot volume
# or the log), removed; anything else, never (a test removes only what it or its runner made)
rm_kept() {
	case "$1" in "${TMPDIR:-/tmp}"/baretrace-run.??????) [ ! -d "$1" ] || rm -rf -- "$1" ;; esac
}

ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	local status=$1
	shift
	tap_n=$((tap_n + 1))
	if [ "$status" = 0 ]; then
		echo "ok $tap_n - $*"
	else
		echo "not ok $tap_n - $*"
		tap_failed=$((tap_failed + 1))
	fi
}

# has TEXT DESCRIPTION: the last boot's output contains TEXT (fixed string).
has() {
	printf '%s\n' "$out" | grep -qF -- "$1"
	ok $? "$2"
}

status_is() { # status_is WANT DESCRIPTION
	[ "$rc" = "$1" ]
	ok $? "$2 (exit status $rc, want $1)"
}

# Re-emit the kernel's TAP points (ok/not ok lines) under our numbering, prefixed.
relay_kernel_tap() {
	local prefix=$1 line n=0
	while IFS= read -r line; do
		case "$line" in
		"ok "* | "not ok "*)
			n=$((n + 1))
			local verdict=${line%% [0-9]*}
			local rest=${line#* [0-9]* - }
			[ "$verdict" = "ok" ] || [ "$verdict" = "not ok" ] || verdict="not ok"
			tap_n=$((tap_n + 1))
			[ "$verdict" = ok ] || tap_failed=$((tap_failed + 1))
			echo "$verdict $tap_n - $prefix: $rest"
			;;
		esac
	done <<<"$out"
	[ "$n" -gt 0 ]
	ok $? "$prefix: the kernel reported $n test points"
}

# nth FILE N: the N-th run of an oracle's output (scripts/qemu-exec-branches: "run STEPS" and
# its lines), the "run" line included.
nth() { awk -v w="$2" '/^run / { n++ } n == w' "$1"; }

# oracle_runs LOG OUT WANT WHAT [MAPPING...]: QEMU's execution log LOG through
# scripts/qemu-exec-branches (its QEB_* settings from the caller's environment) into OUT, in two
# checks: the oracle read the log, and it holds WANT single-stepped runs (WHAT: which they are).
oracle_runs() {
	local log=$1 dst=$2 want=$3 what=$4 runs
	shift 4
	"$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$log" "$@" >"$dst" 2>"$dst.err"
	ok $? "the oracle read QEMU's log ($(wc -l <"$dst") lines) $(head -c 200 "$dst.err")"
	runs=$(grep -c '^run ' "$dst")
	[ "$runs" = "$want" ]
	ok $? "QEMU's log holds the $want single-stepped runs$what ($runs)"
}

# run_branches RUN: the "FROM TO" lines of one oracle run (nth), without its "run" line.
run_branches() { printf '%s\n' "$1" | grep -v '^run '; }

# ss_run WORKLOAD: the engine's run of WORKLOAD (option ss) in the last boot's output, in the
# oracle's format: "run STEPS", then its taken branches.
ss_run() {
	printf '%s\n' "$out" | awk -v w="$1" '$1 == "ss-begin" { on = ($2 == w); if (on) for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { split($i, a, "="); print "run", a[2] } }
		$1 == "ss-end" { on = 0 } on && $1 == "ss-branch" { print $2, $3 }'
}

# kind_records FACILITY LABEL KIND FIELD-A FIELD-B: fields A and B of one session's KIND lines
# (session_records for lines of another kind than the facility's, such as "exception").
kind_records() {
	printf '%s\n' "$out" | awk -v f="$1" -v l="$2" -v k="$3" -v a="$4" -v b="$5" '
		$1 == "trace-begin" && $2 == f { on = ($3 == l) } $1 == "trace-end" { on = 0 }
		on && $1 == k { print $a, $b }'
}

# same GOT WANT DESCRIPTION: one check that GOT equals WANT (not empty); on a mismatch the start
# of the diff, as TAP comments.
same() {
	[ -n "$2" ] && [ "$1" = "$2" ]
	ok $? "$3"
	[ "$1" = "$2" ] || diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") | head -n 8 | sed 's/^/# /'
}

# before_own_db TF-TRAP IRET: the "FROM TO" lines on stdin up to the workload flags' own
# single-step #DB at TF-TRAP (its IRETs back from handlers, at IRET, excepted), which clears
# DEBUGCTL.LBR (edges.t). Addresses compared as strings: mawk reads 0x... as lossy numbers.
before_own_db() {
	awk -v t="$1" -v iret="$2" '$1 "" != iret "" && $1 "" >= t "" { exit } { print }'
}

# session_records FACILITY LABEL FIELD-A FIELD-B [CPU]: fields A and B of one session's record
# lines ("FACILITY ..." between "trace-begin FACILITY LABEL" and "trace-end"), in the last
# boot's output; with CPU, only that CPU's session ("cpu=CPU" after the label).
session_records() {
	printf '%s\n' "$out" | awk -v f="$1" -v l="$2" -v a="$3" -v b="$4" -v c="${5:+cpu=$5}" '
		$1 == "trace-begin" { on = ($2 == f && $3 == l && (c == "" || $4 == c)) }
		$1 == "trace-end" { on = 0 }
		on && $1 == f { print $a, $b }'
}

# fake_qemu DIR: a stand-in qemu-system-x86_64 in DIR (put DIR first in PATH) that prints
# FAKE_SERIAL (printf %b) on the serial line, FAKE_STDERR on stderr and exits FAKE_EXIT. With
# FAKE_PIDFILE it writes its pid there first; with FAKE_SLEEP it then sleeps that long (as
# itself: the same pid); with FAKE_CATCH set it ends on SIGTERM, SIGINT and SIGHUP as QEMU
# does (its softmmu/runstate.c: "terminating on signal N from pid P (NAME)" on stderr, exit 0);
# with FAKE_HOLD it waits that long after its lines before it exits FAKE_EXIT.
fake_qemu() {
	mkdir -p "$1"
	cat >"$1/qemu-system-x86_64" <<'EOF'
#!/bin/sh
[ -z "$FAKE_PIDFILE" ] || echo $$ >"$FAKE_PIDFILE"
printf '%b' "$FAKE_SERIAL"
[ -z "$FAKE_STDERR" ] || printf '%s\n' "$FAKE_STDERR" >&2
if [ -n "$FAKE_CATCH" ]; then
	sleep "${FAKE_SLEEP:-60}" &
	for s in 1 2 15; do
		trap "kill $!; echo 'qemu-system-x86_64: terminating on signal $s from pid 1 (stand-in)' >&2; exit 0" $s
	done
	wait
	exit "$FAKE_EXIT"
fi
[ -z "$FAKE_SLEEP" ] || exec sleep "$FAKE_SLEEP"
[ -z "$FAKE_HOLD" ] || sleep "$FAKE_HOLD"
exit "$FAKE_EXIT"
EOF
	chmod +x "$1/qemu-system-x86_64"
}

# Dump the last boot's output as TAP comments (for diagnosis when something failed).
show_output() {
	printf '%s\n' "$out" | sed 's/^/# /'
}

# field LINE KEY: the value of KEY=VALUE in LINE (the first; words split at spaces and lines)
field() {
	local w words
	IFS=$' \n' read -r -d '' -a words <<<"$1"
	for w in "${words[@]}"; do
		case "$w" in "$2="*)
			printf '%s\n' "${w#"$2="}"
			return
			;;
		esac
	done
}
done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ] || show_output
	[ "$tap_failed" = 0 ]
}
