#!/usr/bin/env bash
# The result contract (README "The result contract"): the lines prove, LAVA and a person read.
# 1. The kernel still prints them in the documented format: its format strings, read from the
#    sources (a change there must change the README, scripts/lava/ and this test together).
# 2. LAVA's reading of them (scripts/lava/result-pattern.re and result-fixup, the job's monitor,
#    read as lava-dispatcher's monitor reads: scripts/lava/cases): every result line of each
#    kind and status, written from the documented format, gives the case and the LAVA result the
#    README's table says; the other lines give none. (make lava-check runs LAVA itself, on a boot;
#    tests/qemu/selfcheck.t holds a real default session's lines to the format.)
. "$(dirname "$0")/../repo/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT

# ---- 1. the format strings ---------------------------------------------------------------------
src() { grep -cF -- "$2" "$1"; }
[ "$(src arch/x86/session/runner.c 'kprintf("%s %u - selfcheck %s\n", v == SELFCHECK_FAIL ? "not ok" : "ok"')" = 1 ]
ok $? "a self-check line is 'ok|not ok N - selfcheck ...' (arch/x86/session/runner.c)"
# (the suffix is a program thread's " tid=N", arch/x86/session/threads.c; a program has no
# signature, so no self-check line carries it)
[ "$(src arch/x86/session/runner.c '"%s@%s cpu=%u%s", q->workload')" = 1 ] &&
	[ "$(src arch/x86/session/runner.c 'runner_session(&own, "")')" = 1 ] &&
	[ "$(src arch/x86/session/runner.c '"%s %s cpu=%u # SKIP the CPU has no %s"')" = 1 ]
ok $? "its name is 'FACILITY WORKLOAD@PERSONALITY cpu=N' (@hardware on silicon), or 'FACILITY WORKLOAD cpu=N # SKIP' for a CPU without the facility"
# Every verdict the self-check gives starts with the facility and the label, then ': ' or ' # SKIP '.
nv=$(grep -c 'verdict(t, SELFCHECK_' arch/x86/session/selfcheck.c)
g=$(grep -A1 'verdict(t, SELFCHECK_' arch/x86/session/selfcheck.c | grep -oE '"%s %s(: | # SKIP )' | wc -l)
m=$(grep -c 'verdict(t, SELFCHECK_NONE, "%s", "")' arch/x86/session/selfcheck.c)
[ "$nv" -gt 0 ] && [ $((g + m)) = "$nv" ]
ok $? "every self-check verdict ($nv) is 'FACILITY LABEL: ...' or 'FACILITY LABEL # SKIP ...' (or none: $m)"
[ "$(src kernel/tracing.c 'put("%-8s %8s %6s %6s %7s %10s %10s  %s", "facility", "sessions", "passed", "failed",')" = 1 ]
ok $? "the summary table's header: 'summary: facility sessions passed failed skipped incomplete selfchecks  where' (kernel/tracing.c)"
[ "$(src kernel/tracing.c 'put("%-8s %8u %6u %6u %7u %10u %10s  %s", options_facility_name(r->facility)')" = 1 ]
ok $? "a summary row is 'summary: FACILITY SESSIONS PASSED FAILED SKIPPED INCOMPLETE CHECKS WHERE'"
[ "$(src kernel/tracing.c 'kvprintf_line("summary: ", fmt, ap)')" = 1 ]
ok $? "summary rows start with 'summary: '"
[ "$(src kernel/tracing.c '"selfcheck: %u checks against the workloads'"'"' signatures: %u passed, %u failed, "')" = 1 ]
ok $? "the self-checks' total: 'selfcheck: N checks against the workloads' signatures: P passed, F failed, S skipped'"
[ "$(src kernel/main.c 'kprintf("\nbaretrace %s (boot_info v%u) build-id %s\n", BARETRACE_VERSION')" = 1 ] &&
	grep -q '^#define LOADER_TAG "baretrace loader: "' boot/loader.h
ok $? "the kernel's first line is 'baretrace VERSION (boot_info vN) build-id ID' (kernel/main.c), the loader's lines start 'baretrace loader: '"
grep -q '^#define RUN_MARKER[[:space:]]*"run finished: "' kernel/boot_info.h &&
	(for s in PASS FAIL SKIP BAD-INPUT INCOMPLETE; do grep -q "= \"$s\"," kernel/kernel.c || exit 1; done)
ok $? "the last line is 'run finished: PASS|FAIL|SKIP|BAD-INPUT|INCOMPLETE' (kernel/boot_info.h, kernel/kernel.c)"

# ---- 2. LAVA's reading -----------------------------------------------------------------------------
# A summary row as kernel/tracing.c formats it.
row() { printf 'summary: %-8s %8u %6u %6u %7u %10u %10s  %s' "$@"; }
# Lines in the documented format (widths as the row's format pads them), with CRLF as on a serial
# line, and the cases the README's table says they give, in order.
printf '%s\r\n' \
	'firmware noise before the loader' \
	'baretrace loader: firmware EDK II' \
	'trace: 12 sessions' \
	'ok 1 - selfcheck lbr loop@skylake cpu=0: 32 newest entries within the signature (cond 31 ret 1)' \
	'trace-end lbr loop@skylake cpu=0' \
	'not ok 2 - selfcheck bts calls@hardware cpu=1: 3 call recorded, the signature says 13' \
	'ok 3 - selfcheck bts countdown cpu=0 # SKIP the CPU has no bts' \
	'ok 4 - selfcheck bts countdown@skylake cpu=0 # SKIP bts.ring leaves a ring out' \
	'ok 5 - pmm: a selftest point, not a self-check' \
	'SKIP: pebs: loop@hardware cpu=0: the CPU has none' \
	'incomplete: bts: loop@skylake cpu=0: 5 records not delivered (full)' \
	'summary: facility sessions passed failed skipped incomplete selfchecks  where' \
	"$(row lbr 15 15 0 0 0 30/30 'hardware (2 of 2 CPUs)')" \
	"$(row bts 15 13 2 0 0 28/30 'SOFTWARE PMU on 2 of 2 CPUs (model-verified, not silicon)')" \
	"$(row btsint 150 100 50 0 0 100/150 'x')" \
	"$(row pebs 15 14 0 0 1 30/30 'x')" \
	"$(row btf 15 0 0 15 0 0/0 'hardware on 0 of 2 CPUs, skipped elsewhere')" \
	"$(row pmc 15 5 0 10 0 10/10 'hardware on 1 of 2 CPUs, skipped elsewhere')" \
	'summary: incomplete: bts loop@skylake cpu=0: 5 records not delivered (full)' \
	'selfcheck: 4 checks against the workloads'"'"' signatures: 1 passed, 1 failed, 2 skipped' \
	'run finished: FAIL' >"$work/log"
cat >"$work/want" <<'WANT'
selfcheck_lbr_loop_skylake_cpu_0 pass
selfcheck_bts_calls_hardware_cpu_1 fail
selfcheck_bts_countdown_cpu_0 skip
selfcheck_bts_countdown_skylake_cpu_0 skip
summary_lbr pass
summary_bts fail
summary_btsint fail
summary_pebs fail
summary_btf skip
summary_pmc pass
run_finished fail
end
WANT
scripts/lava/cases "$work/log" >"$work/got" 2>"$work/err"
st=$?
diff "$work/want" "$work/got" >"$work/diff"
ok $((st || $?)) "each result line gives its case and result, the other lines none $(cat "$work/diff" "$work/err" | head -c 600)"
for v in PASS:pass SKIP:skip BAD-INPUT:fail INCOMPLETE:fail; do
	printf 'baretrace loader: x\r\nrun finished: %s\r\n' "${v%%:*}" >"$work/v"
	[ "$(scripts/lava/cases "$work/v" | tr '\n' ' ')" = "run_finished ${v#*:} end " ]
	ok $? "'run finished: ${v%%:*}' is the case run_finished, ${v#*:}, and ends the test"
done
printf 'firmware\r\nbaretrace 0.1.0 (boot_info v2) build-id 0123\r\nok 1 - selfcheck lbr loop@skylake cpu=0: fine\r\nrun finished: PASS\r\n' >"$work/banner"
[ "$(scripts/lava/cases "$work/banner" | tr '\n' ' ')" = "selfcheck_lbr_loop_skylake_cpu_0 pass run_finished pass end " ]
ok $? "without the loader's lines on the console (a firmware whose ConOut is the screen), the kernel's banner starts the test"
printf 'baretrace loader: x\r\nok 1 - selfcheck lbr loop@skylake cpu=0: fine\r\n' >"$work/cut"
scripts/lava/cases "$work/cut" >/dev/null 2>"$work/err"
[ $? = 1 ] && grep -q "ends before the whole 'run finished:' line" "$work/err"
ok $? "a log without 'run finished:' never ends the test (status 1: LAVA times the test out)"
printf 'baretrace loader: x\r\nok 1 - selfcheck lbr loop@skylake cpu=0: half a li' >"$work/half"
[ -z "$(scripts/lava/cases "$work/half" 2>/dev/null)" ]
ok $? "a line not yet whole (no newline) is no case yet"
echo "1..$n"
exit $failed
