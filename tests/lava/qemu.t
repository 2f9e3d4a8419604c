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
. "$(dirname "$0")/../repo/lib.sh"
build=${BUILD:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v lava-run >/dev/null || { echo "1..0 # SKIP lava-run missing: scripts/install-deps lava"; exit 0; }

# lava_job NAME [KERNEL OPTION...]: image, job, device configuration, lava-run --validate, lava-run.
# Leaves $work/NAME.{log,serial,results}; lava-run's status in $rc.
lava_job() {
	local name=$1
	shift
	scripts/mkimage --gpt "$work/$name.img" "$@" >"$work/$name.out" 2>&1 &&
		scripts/lava-job --device-type qemu --image "$work/$name.img" --name "baretrace $name" \
			--timeout 5 --output "$work/$name.yaml" 2>>"$work/$name.out" &&
		scripts/lava/qemu-device "$work/$name.yaml" >"$work/$name-device.yaml"
	ok $? "$name: image, job and device configuration written $(tail -n 3 "$work/$name.out" | tr '\n' ' ')"
	mkdir -p "$work/$name-out"
	lava-run --validate --job-id "bt$$$name" --output-dir "$work/$name-out" \
		--device "$work/$name-device.yaml" "$work/$name.yaml" >"$work/$name.validate" 2>&1
	ok $? "$name: lava-run --validate accepts the job on the device $(grep -m3 -i 'error' "$work/$name.validate" | tr '\n' ' ' | head -c 400)"
	timeout 600 lava-run --job-id "bt$$$name" --output-dir "$work/$name-out" \
		--device "$work/$name-device.yaml" "$work/$name.yaml" >"$work/$name.log" 2>&1
	rc=$?
	scripts/lava/log serial "$work/$name.log" | tr -d '\r' >"$work/$name.serial"
	scripts/lava/log results "$work/$name.log" >"$work/$name.results"
}
# result SUITE CASE: LAVA's result for that case ("" when it has none, "A B" when two).
result() { awk -v s="$1" -v c="$2" '$1 == s && $2 == c { printf "%s%s", sep, $3; sep = " " }' "$work/$name.results"; }
# cases_match NAME: each self-check line of the serial log is one LAVA case of the baretrace suite,
# named by its line, with the line's verdict; no other self-check case. Prints the problems.
cases_match() {
	local line id want got bad=0 n=0
	while IFS= read -r line; do
		n=$((n + 1))
		id=$(printf '%s\n' "$line" | sed -E 's/^(not )?ok [0-9]+ - //; s/(: | # SKIP ).*//' | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9_]+/_/g')
		case "$line" in
		"not ok "*) want=fail ;;
		*" # SKIP "*) want=skip ;;
		*) want=pass ;;
		esac
		got=$(result baretrace "$id")
		[ "$got" = "$want" ] || { echo "$id: LAVA says '$got', the line '$want'"; bad=1; }
	done < <(grep -E '^(not )?ok [0-9]+ - selfcheck ' "$work/$1.serial")
	got=$(grep -c '^baretrace selfcheck_' "$work/$1.results")
	[ "$got" = "$n" ] || { echo "$got selfcheck cases for $n lines"; bad=1; }
	[ "$n" -gt 0 ] || { echo "no self-check line"; bad=1; }
	return $bad
}

# ---- the default session -------------------------------------------------------------------------
name=default
lava_job default
[ "$rc" = 0 ] && [ "$(result lava job)" = pass ] && [ "$(result lava lava-test-monitor)" = pass ]
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
[ "$(result baretrace run_finished)" = pass ]
ok $? "default: run_finished passes"
build/btdecode --view verify "$work/default.serial" >"$work/verify" 2>&1
ok $? "default: btdecode reads the record stream back out of LAVA's log, every frame whole: $(tail -n 1 "$work/verify")"

# ---- a model that drops a branch: failures ----------------------------------------------------------
name=drop
lava_job drop trace=bts,lbr spmu=skylake workload=loop,countdown spmu.drop=2
[ "$rc" = 0 ] && [ "$(result lava job)" = pass ]
ok $? "drop: the job completes (status $rc): the lab worked, the run failed"
out=$(cases_match drop)
ok $? "drop: one LAVA case per self-check line, with its verdict${out:+: $(echo "$out" | head -n 5 | tr '\n' ' ')}"
grep -q '^baretrace selfcheck_bts_.* fail$' "$work/drop.results" && [ "$(result baretrace summary_bts)" = fail ] &&
	[ "$(result baretrace run_finished)" = fail ] && grep -q '^run finished: FAIL' "$work/drop.serial"
ok $? "drop: the BTS self-checks fail, and so do summary_bts and run_finished (the kernel: FAIL)"

# ---- no facility and no software PMU: skips ------------------------------------------------------------
name=none
lava_job none trace=bts spmu=none workload=countdown
[ "$rc" = 0 ] && [ "$(result lava job)" = pass ]
ok $? "none: the job completes (status $rc)"
out=$(cases_match none)
ok $? "none: one LAVA case per self-check line, with its verdict${out:+: $(echo "$out" | head -n 5 | tr '\n' ' ')}"
grep -q '^ok [0-9]* - selfcheck bts countdown cpu=0 # SKIP the CPU has no bts' "$work/none.serial" &&
	[ "$(result baretrace selfcheck_bts_countdown_cpu_0)" = skip ] &&
	[ "$(result baretrace summary_bts)" = skip ] && [ "$(result baretrace run_finished)" = skip ]
ok $? "none: the skipped self-check, summary_bts and run_finished are LAVA skips (the kernel: SKIP)"
echo "1..$n"
exit $failed
