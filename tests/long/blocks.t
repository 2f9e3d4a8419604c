#!/usr/bin/env bash
# Per-block stepping on real programs: every library program of tests/programs/libs/
# (SQLite, Lua, zlib, PCRE2, Expat, GMP, xz; Debian's static libraries, code no one here wrote)
# booted with ss.block=on and ss.block=off, BTS and LBR on the software PMU: the two boots'
# records are the same, byte for byte. Per-instruction stepping is
# the reference here: tests/qemu/linux.t and sstrace.t hold it to QEMU's log.
. "$(dirname "$0")/../qemu/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
unset SS_BLOCK # each boot names its mode

# prog NAME: as tests/qemu/libs.t builds them (scripts/lib-program), or SKIP
prog() {
	local why
	if ! why=$("$top/scripts/lib-program" "$1" "$work/$1" 2>&1); then
		ok 0 "# SKIP $1: does not build here ($why)"
		return 1
	fi
}

# records LOG: the capture's records as text, without the header line that names the options
# and without the APIC timer's interrupts (vector F2H, arch/x86/cpu/vectors.h: the progress
# beat every 10 s, docs/running.md "A run goes on as long as the guest makes progress"), delivered
# where the program happens to be when the time comes (asynchronous: the two modes run at
# different speeds), with their IRETs, nor the stream-end counts that include them
records() {
	"$build/btdecode" --view text "$1" 2>/dev/null | grep -v '^stream-header ' |
		awk '/ <exc_stub_242 / { skip = 1; next } skip && / <trap_iret / { skip = 0; next }
			{ skip = 0 } /^stream-end / { sub(/ records=[0-9]*/, "") } { print }'
}

both() {
	local name=$1 m
	for m in on off; do
		boot --timeout 1800 --program "$work/$name" -- workload=program trace=bts,lbr spmu=skylake \
			stream=text "ss.block=$m"
		status_is 0 "$name, ss.block=$m: run finished: PASS"
		printf '%s\n' "$out" >"$work/$name.$m.log"
		records "$work/$name.$m.log" >"$work/$name.$m.txt"
	done
	n=$(grep -c '' "$work/$name.on.txt")
	[ "$n" -gt 100 ] && cmp -s "$work/$name.on.txt" "$work/$name.off.txt"
	ok $? "$name: blocks on and off, the same $n lines of records" ||
		diff "$work/$name.on.txt" "$work/$name.off.txt" | head -n 8 | sed 's/^/# /'
}

prog sqlite && both sqlite
prog lua && both lua
prog zlib && both zlib
prog pcre2 && both pcre2
prog expat && both expat
prog gmp && both gmp
prog xz && both xz
done_testing
