#!/usr/bin/env bash
# Real programs at default options: static Linux programs built here on Debian's own libraries
# (tests/programs/libs/: PCRE2 with its JIT, expat; with LIBS_ALL=1, make long-check's
# tests/long/libs.t, also SQLite, Lua, zlib, GMP, xz and bzip2), each booted with nothing but
# the facilities named, in every facility: bts, btsint, lbr, pebs, pmc and btf in one boot,
# then LBR sampling (lbr.period) and every CPU at once (trace.cpus=all) in another. A first
# capture with default options must be whole: each boot says `run finished: PASS`, every
# session's output (stdout and stderr, in the order written) equals the same binary's run on
# this host, no session says a record was not delivered, and tools/btdecode verifies the
# capture with the program's ELF (every session's records decoded, none lost).
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
src=$top/tests/programs/libs

# prog NAME LIBS...: build tests/programs/libs/NAME.c statically against LIBS (Debian's -dev
# packages; scripts/install-deps), or SKIP when a library is not installed.
prog() {
	local name=$1
	shift
	if ! gcc -O2 -g -static -I/usr/include/lua5.4 -o "$work/$name" "$src/$name.c" "$@" 2>"$work/$name.cc"; then
		ok 0 "# SKIP $name: does not build here ($(grep -m1 -o 'cannot find -l[^ ]*\|fatal error: [^ ]*' "$work/$name.cc"))"
		return 1
	fi
	(cd "$work" && env -i "$work/$name" </dev/null >"$work/$name.native" 2>&1)
	echo $? >"$work/$name.status"
	return 0
}

# sessions NAME: each traced session's output from the last boot into NAME.FACILITY.CPU (the
# program-output and program-stderr lines before its trace-begin line, \xNN undone).
sessions() {
	printf '%s\n' "$out" | perl -ne 'BEGIN { $d = shift } s/\r$//;
		if (/^trace-begin (\S+) \S+ cpu=(\d+)/) { open my $f, ">", "$d.$1.$2" or die; print $f $o; close $f; $o = ""; next }
		next unless s/^program-(output|stderr) cpu=\d+: //; s/\\x([0-9a-f]{2})/chr hex $1/ge; $o .= $_' "$work/$1"
}

# check NAME WHAT OPTIONS...: one boot at default options but OPTIONS; WHAT describes them.
check() {
	local name=$1 what=$2 f s n=0 bad=""
	shift 2
	# stream=text is the default (lib.sh's boot turns the stream off unless a stream= is given)
	boot --smp 2 --timeout 900 --program "$work/$name" -- workload=program stream=text "$@"
	status_is 0 "$name, $what: run finished: PASS" ||
		printf '%s\n' "$out" | grep -E '^(incomplete|error|summary|run finished)' | head -n 8 | sed 's/^/# /'
	printf '%s\n' "$out" | grep -q '^incomplete: '
	ok $((!$?)) "$name, $what: no session says a record was not delivered"
	rm -f "$work/$name".*.[0-9]*
	sessions "$name"
	for s in "$work/$name".*.[0-9]*; do
		[ -e "$s" ] || continue
		n=$((n + 1))
		cmp -s "$work/$name.native" "$s" || bad="$bad ${s#"$work/$name".}"
	done
	[ "$n" -ge 1 ] && [ -z "$bad" ]
	ok $? "$name, $what: every session's output ($n) equals the host's run, byte for byte${bad:+ (differ:$bad)}" ||
		diff "$work/$name.native" "$work/$name${bad%% *}" 2>/dev/null | head -n 6 | sed 's/^/# /'
	printf '%s\n' "$out" >"$work/$name.log"
	"$build/btdecode" --view verify --program "$work/$name" "$work/$name.log" >"$work/$name.verify" 2>&1
	ok $? "$name, $what: btdecode verifies the capture with the program's ELF $(tail -n 2 "$work/$name.verify" | tr '\n' ' ' | head -c 300)"
}

defaults() {
	check "$1" "bts, btsint, lbr, pebs, pmc and btf" trace=bts,btsint,lbr,pebs,pmc,btf
	check "$1" "LBR sampling and every CPU at once" trace=lbr,btsint,pebs lbr.period=2000 trace.cpus=all
}

prog pcre2 -lpcre2-8 && defaults pcre2
prog expat -lexpat && defaults expat
if [ -n "${LIBS_ALL:-}" ]; then
	prog sqlite -lsqlite3 -lm && defaults sqlite
	prog lua -llua5.4 -lm && defaults lua
	prog zlib -lz && defaults zlib
	prog gmp -lgmp && defaults gmp
	prog xz -llzma -lbz2 && defaults xz
fi
done_testing
