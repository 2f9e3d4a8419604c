#!/usr/bin/env bash
# Real programs at default options: static Linux programs built here on Debian's own libraries
# (tests/programs/libs/: PCRE2 with its JIT, expat; with LIBS_ALL=1, make long-check's
# tests/long/libs.t, also SQLite, Lua, zlib, GMP, xz and bzip2), each booted with nothing but
# the facilities named, in every facility: bts, btsint, lbr, pebs, pmc and btf in one boot,
# then LBR sampling (lbr.period) and every CPU at once (trace.cpus=all) in another. A first
# capture with default options must be whole: each boot says `run finished: PASS`, every
# session's stdout and stderr (the stream's OUTPUT frames) equal the same binary's run on this
# host, byte for byte, no session says a record was not delivered, and tools/btdecode verifies
# the capture with the program's ELF (every session's records decoded, none lost).
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT

# prog NAME: build tests/programs/libs/NAME.c statically against the libraries its `// LINK:`
# line names (scripts/lib-program; Debian's -dev packages, scripts/install-deps), or SKIP when
# one is not installed.
prog() {
	local name=$1 why
	if ! why=$("$top/scripts/lib-program" "$name" "$work/$name" 2>&1); then
		ok 0 "# SKIP $name: does not build here ($why)"
		return 1
	fi
	(cd "$work" && env -i "$work/$name" </dev/null >"$work/$name.stdout" 2>"$work/$name.stderr")
	echo $? >"$work/$name.status"
	return 0
}

# times N FILE: FILE's bytes N times over (each traced session runs the program once)
times() {
	local i
	for i in $(seq "$1"); do cat "$2"; done
}

# check NAME WHAT OPTIONS...: one boot at default options but OPTIONS; WHAT describes them.
check() {
	local name=$1 what=$2 s n bad=""
	shift 2
	# stream=text is the default (lib.sh's boot turns the stream off unless a stream= is given)
	boot --smp 2 --timeout 900 --program "$work/$name" -- workload=program stream=text "$@"
	status_is 0 "$name, $what: run finished: PASS" ||
		printf '%s\n' "$out" | grep -E '^(incomplete|error|summary|run finished)' | head -n 8 | sed 's/^/# /'
	printf '%s\n' "$out" | grep -q '^incomplete: '
	ok $((!$?)) "$name, $what: no session says a record was not delivered"
	printf '%s\n' "$out" >"$work/$name.log"
	n=$(printf '%s\n' "$out" | grep -c '^trace-begin [a-z]* program@')
	# the record stream's OUTPUT frames, every session's in turn (btdecode --view output)
	for s in stdout stderr; do
		"$build/btdecode" --view output --stream "$s" "$work/$name.log" >"$work/$name.traced.$s" 2>/dev/null
		cmp -s <(times "$n" "$work/$name.$s") "$work/$name.traced.$s" || bad="$bad $s"
	done
	[ "$n" -ge 1 ] && [ -z "$bad" ]
	ok $? "$name, $what: each of the $n sessions' stdout and stderr equal the host's run, byte for byte${bad:+ (differ:$bad)}" ||
		diff <(times "$n" "$work/$name.stdout") "$work/$name.traced.stdout" 2>/dev/null | head -n 6 | sed 's/^/# /'

	"$build/btdecode" --view verify --program "$work/$name" "$work/$name.log" >"$work/$name.verify" 2>&1
	ok $? "$name, $what: btdecode verifies the capture with the program's ELF $(tail -n 2 "$work/$name.verify" | tr '\n' ' ' | head -c 300)"
}

defaults() {
	check "$1" "bts, btsint, lbr, pebs, pmc and btf" trace=bts,btsint,lbr,pebs,pmc,btf
	check "$1" "LBR sampling and every CPU at once" trace=lbr,btsint,pebs lbr.period=2000 trace.cpus=all
}

prog pcre2 && defaults pcre2
prog expat && defaults expat
if [ -n "${LIBS_ALL:-}" ]; then
	prog sqlite && defaults sqlite
	prog lua && defaults lua
	prog zlib && defaults zlib
	prog gmp && defaults gmp
	prog xz && defaults xz
fi
done_testing
