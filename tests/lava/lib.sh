# Shared by the LAVA tests (tests/lava/*.t): the repository checks' TAP helpers, a work folder,
# lava-run on a job and a device configuration, and LAVA's results read back.
. "$(dirname "$0")/../repo/lib.sh"
build=${BUILD:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT

# lava_run NAME: lava-run --validate, then lava-run, on $work/NAME.yaml (the job) and
# $work/NAME-device.yaml; leaves $work/NAME.{log,serial,results} and lava-run's status in $rc.
lava_run() {
	local name=$1
	mkdir -p "$work/$name-out"
	lava-run --validate --job-id "bt$$$name" --output-dir "$work/$name-out" \
		--device "$work/$name-device.yaml" "$work/$name.yaml" >"$work/$name.validate" 2>&1
	ok $? "$name: lava-run --validate accepts the job on the device $(grep -m3 -i 'error' "$work/$name.validate" | tr '\n' ' ' | head -c 400)"
	timeout 600 lava-run --job-id "bt$$$name" --output-dir "$work/$name-out" \
		--device "$work/$name-device.yaml" "$work/$name.yaml" >"$work/$name.log" 2>&1
	rc=$?
	"$top/scripts/lava/log" serial "$work/$name.log" | tr -d '\r' >"$work/$name.serial"
	"$top/scripts/lava/log" results "$work/$name.log" >"$work/$name.results"
}

# result NAME SUITE CASE: LAVA's result for that case in job NAME ("" none, "A B" two).
result() { awk -v s="$2" -v c="$3" '$1 == s && $2 == c { printf "%s%s", sep, $3; sep = " " }' "$work/$1.results"; }

# cases_match NAME: each self-check line of job NAME's serial log is one LAVA case of the suite
# baretrace, named by the line (lower case, other runs as "_", as LAVA names it), with the
# line's verdict (not ok: fail; # SKIP: skip; ok: pass); no other self-check case. Prints the
# problems.
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
		got=$(result "$1" baretrace "$id")
		[ "$got" = "$want" ] || { echo "$id: LAVA says '$got', the line '$want'"; bad=1; }
	done < <(grep -E '^(not )?ok [0-9]+ - selfcheck ' "$work/$1.serial")
	got=$(grep -c '^baretrace selfcheck_' "$work/$1.results")
	[ "$got" = "$n" ] || { echo "$got selfcheck cases for $n lines"; bad=1; }
	[ "$n" -gt 0 ] || { echo "no self-check line"; bad=1; }
	return $bad
}
