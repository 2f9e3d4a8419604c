#!/usr/bin/env bash
# BTS records a user's own small setting loses, counted exactly, against QEMU's own execution
# log. With the PMI on its vector (pmi=vector, a user's choice: the default is NMI) and a small
# interrupt-mode buffer (btsint.records=16), a Linux program's system calls run with interrupts
# off, the threshold PMI waits for them to end and the buffer fills: "If the BTS buffer is full
# ... the processor ... will not write any more records" until software makes room (SDM Vol. 3B
# 17.4.9.3, the absolute maximum). Every taken branch, interrupt and exception BTS would record
# (SDM Vol. 3B 17.4.8.1: "taken branches, interrupts, and exceptions") is either delivered or
# counted as dropped: the records delivered plus those the session counts as dropped are QEMU's
# taken branches of the traced run (scripts/qemu-exec-branches, QEMU's one-instruction-per-block
# mode: its PMI deliveries and returns included), and the delivered ones are a subsequence of
# QEMU's, in order. The default (NMI) delivers every one of them.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT

musl=$(command -v musl-gcc || true)
if [ -z "$musl" ]; then
	ok 0 "# SKIP musl-gcc not installed (Debian musl-tools; scripts/install-deps)"
	done_testing
	exit 0
fi
musl-gcc -O2 -static -o "$work/hello" "$top/tests/programs/linux/hello.c"
ok $? "a static musl program builds (tests/programs/linux/hello.c)"
ranges=$(readelf -lW "$work/hello" | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { print $3, $6 }' |
	while read -r a n; do printf '%s%#x+%s' "${sep:-}" "$a" "$n"; sep=,; done)

# logged NAME OPTIONS...: one boot under QEMU's execution log; QEMU's records in NAME.qemu, the
# session's delivered records in NAME.recs, its dropped count in $dropped.
logged() {
	local name=$1 h
	shift
	boot --timeout 600 --program "$work/hello" --qemu-singlestep \
		--qemu-arg -d --qemu-arg exec,nochain --qemu-arg -dfilter \
		--qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$ranges")" \
		--qemu-arg -D --qemu-arg "$work/$name.exec" \
		-- workload=program trace=btsint spmu=skylake 'program.argv="hello -n 100 a\ b"' "$@"
	QEB_ELFS="$work/hello" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/$name.exec" \
		>"$work/$name.all" 2>"$work/$name.err"
	ok $? "$name: the oracle read QEMU's log $(head -c 200 "$work/$name.err")"
	nth "$work/$name.all" 1 | grep -v '^run ' >"$work/$name.qemu"
	kind_records btsint program@skylake bts 2 3 >"$work/$name.recs"
	h=$(printf '%s\n' "$out" | grep '^trace-begin btsint program@')
	dropped=$(field "$h" dropped)
}
# subsequence A B: every line of A in B, in order ("" when so, else the first one that is not)
subsequence() {
	awk 'NR == FNR { a[++na] = $0; next } j < na && $0 "" == a[j + 1] "" { j++ } END { if (j < na) print "record " j + 1 ": " a[j + 1] }' "$1" "$2"
}

logged vector pmi=vector btsint.records=16
status_is 4 "pmi=vector, btsint.records=16: the run says INCOMPLETE (records were lost)"
q=$(grep -c . "$work/vector.qemu") r=$(grep -c . "$work/vector.recs")
[ "$q" -gt 100 ] && [ -n "$dropped" ] && [ "$dropped" -gt 0 ] && [ $((r + dropped)) = "$q" ]
ok $? "pmi=vector: $r records delivered and ${dropped:-?} counted as dropped make QEMU's $q"
bad=$(subsequence "$work/vector.recs" "$work/vector.qemu")
[ -z "$bad" ]
ok $? "pmi=vector: the delivered records are QEMU's, in order ${bad:+($bad)}"

logged default btsint.records=16
status_is 0 "the default (the PMI as NMI), the same 16-record buffer: the run passes"
same "$(cat "$work/default.recs")" "$(cat "$work/default.qemu")" \
	"default: every one of QEMU's $(grep -c . "$work/default.qemu") records delivered, in order, none dropped (${dropped:-?})"
done_testing
