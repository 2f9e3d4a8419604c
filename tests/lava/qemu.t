#!/usr/bin/env bash
# make lava-check: the QEMU variant of make lava-job's job run here by lava-dispatcher's own
# lava-run (LAVA's qemu device type, Debian's OVMF, TCG; the device configuration a lab's server
# would render, scripts/lava/qemu-device), three times:
# - the default session: the job completes, and LAVA's results hold one case per self-check line
#   the kernel printed (as many as the kernel's own total says), each passing, one per summary
#   row, and run_finished; the whole serial log comes back in the job's log and btdecode finds
#   every record frame in it whole;
# - a model that drops a branch (spmu.drop=2: selfcheck.t shows the BTS self-checks then fail):
#   the job still completes (the lab worked), the failing self-checks, their summary row and
#   run_finished are LAVA failures;
# - a CPU without the facility and no software PMU (spmu=none): skips, and run_finished skip.
. "$(dirname "$0")/lib.sh"
command -v lava-run >/dev/null || { echo "1..0 # SKIP lava-run missing: scripts/install-deps lava"; exit 0; }

# lava_job NAME [KERNEL OPTION...]: the image with those options, the qemu job, the device
# configuration, then lava_run.
lava_job() {
	local name=$1
	shift
	scripts/mkimage --gpt "$work/$name.img" "$@" >"$work/$name.out" 2>&1 &&
		scripts/lava-job --device-type qemu --image "$work/$name.img" --name "baretrace $name" \
			--timeout 5 --output "$work/$name.yaml" 2>>"$work/$name.out" &&
		scripts/lava/qemu-device "$work/$name.yaml" >"$work/$name-device.yaml"
	ok $? "$name: image, job and device configuration written $(tail -n 3 "$work/$name.out" | tr '\n' ' ')"
	lava_run "$name"
}

# ---- the default session -------------------------------------------------------------------------
lava_job default
[ "$rc" = 0 ] && [ "$(result default lava job)" = pass ] && [ "$(result default lava lava-test-monitor)" = pass ]
ok $? "default: lava-run completes the job (status $rc), LAVA's job and monitor pass (the end string found) $( [ "$rc" = 0 ] || tail -n 3 "$work/default.log")"
# (After the end string LAVA's finalize types "poweroff" on the console: its echo is the last line.)
grep -q '^default session: no config file and no options' "$work/default.serial" &&
	[ "$(grep -v -e '^$' -e '^poweroff$' "$work/default.serial" | tail -n 1)" = "run finished: PASS" ]
ok $? "default: the serial log in LAVA's job log is the default session's, to the kernel's last line 'run finished: PASS'"
out=$(cases_match default)
ok $? "default: one LAVA case per self-check line, named by it, with its verdict${out:+: $(echo "$out" | head -n 5 | tr '\n' ' ')}"
total=$(sed -nE 's/^selfcheck: ([0-9]+) checks against the workloads. signatures: ([0-9]+) passed, 0 failed, 0 skipped$/\1 \2/p' "$work/default.serial")
cases=$(grep -c '^baretrace selfcheck_.* pass$' "$work/default.results")
[ -n "$total" ] && [ "$total" = "$cases $cases" ]
ok $? "default: as many passing self-check cases as the kernel's own total says ($cases; kernel: $total)"
rows=$(grep -E '^summary: [a-z]+ +[0-9]' "$work/default.serial" | awk '{ print $2 }' | sort | tr '\n' ' ')
got=$(awk '$1 == "baretrace" && $2 ~ /^summary_/ && $3 == "pass" { sub(/^summary_/, "", $2); print $2 }' "$work/default.results" | sort | tr '\n' ' ')
[ -n "$rows" ] && [ "$rows" = "$got" ]
ok $? "default: a passing case per summary row ($got)"
[ "$(result default baretrace run_finished)" = pass ]
ok $? "default: run_finished passes"
n_caps=$(grep -c '^caps-json: {' "$work/default.serial")
sed -n 's/^caps-json: //p' "$work/default.serial" | /usr/bin/python3 -c '
import json, sys
sys.exit(not all(json.loads(l)["type"] == "trace_caps" for l in sys.stdin))'
[ $? = 0 ] && [ "$n_caps" -gt 0 ]
ok $? "default: the kernel's JSON lines come back from LAVA's log as JSON ($n_caps caps-json lines: the quotes the dispatcher escaped given back)"
"$build/btdecode" --view verify "$work/default.serial" >"$work/verify" 2>&1
ok $? "default: btdecode reads the record stream back out of LAVA's log, every frame whole: $(tail -n 1 "$work/verify")"

# ---- a model that drops a branch: failures ----------------------------------------------------------
lava_job drop trace=bts,lbr spmu=skylake workload=loop,countdown spmu.drop=2
[ "$rc" = 0 ] && [ "$(result drop lava job)" = pass ]
ok $? "drop: the job completes (status $rc): the lab worked, the run failed"
out=$(cases_match drop)
ok $? "drop: one LAVA case per self-check line, with its verdict${out:+: $(echo "$out" | head -n 5 | tr '\n' ' ')}"
grep -q '^baretrace selfcheck_bts_.* fail$' "$work/drop.results" && [ "$(result drop baretrace summary_bts)" = fail ] &&
	[ "$(result drop baretrace run_finished)" = fail ] && grep -q '^run finished: FAIL' "$work/drop.serial"
ok $? "drop: the BTS self-checks fail, and so do summary_bts and run_finished (the kernel: FAIL)"

# ---- no facility and no software PMU: skips ------------------------------------------------------------
lava_job none trace=bts spmu=none workload=countdown
[ "$rc" = 0 ] && [ "$(result none lava job)" = pass ]
ok $? "none: the job completes (status $rc)"
out=$(cases_match none)
ok $? "none: one LAVA case per self-check line, with its verdict${out:+: $(echo "$out" | head -n 5 | tr '\n' ' ')}"
grep -q '^ok [0-9]* - selfcheck bts countdown cpu=0 # SKIP the CPU has no bts' "$work/none.serial" &&
	[ "$(result none baretrace selfcheck_bts_countdown_cpu_0)" = skip ] &&
	[ "$(result none baretrace summary_bts)" = skip ] && [ "$(result none baretrace run_finished)" = skip ]
ok $? "none: the skipped self-check, summary_bts and run_finished are LAVA skips (the kernel: SKIP)"
echo "1..$n"
exit $failed
