#!/usr/bin/env bash
# A program's threads (docs/record-stream.md "Threads"): each thread runs on a CPU of its own,
# traced by that CPU's session, whose name ends " tid=N" (none: tid 1, the main thread). A fixed
# capture written by mkcapture (the kernel's own writer) over calls.S (views.t's program, never
# run): three sessions at once, their frames interleaved as CPUs running together send them,
#   CPU 0  bts  "calls@golden cpu=0"        tid 1   12 records (calls.records' BTS path)
#   CPU 1  bts  "calls@golden cpu=1 tid=2"  tid 2   40 records (leaf called and returned 20 times)
#   CPU 2  lbr  "calls@golden cpu=2 tid=3"  tid 3   3 snapshots of 2 entries
# and a config naming the program \progs\calls.elf. What each view must say follows from that:
# the text view's session names carry the tids; the stats view's CPU lines name tids 2 and 3;
# the json view's begin objects their tids; --tid N gives the view thread N's session alone
# (the records of its CPU), every frame still checked; perf.data (read by Debian's perf) has a
# COMM of pid 1 for each thread, named calls, and every sample of thread N carries pid 1 and tid
# N: BTS samples of 32 branches (one for tid 1, two for tid 2, tid 2 with 40 of the 52 BTS
# records' period) and an LBR sample per snapshot (three for tid 3); the HTML page names each
# session's thread and has a threads' timeline, a row "tid N (cpu C)" per thread with its
# records (html_check --threads, in headless Chromium). A capture of one thread (calls.records)
# keeps its page without threads, and its perf.data its one COMM. However the frames interleave,
# a thread's records are its own: the views that gather records into samples or stacks (perf,
# folded, perf.data, afdo, llvm-prof) give what the same sessions give written one after
# another, for this capture and for two LBR threads whose snapshots are split across frames.
. "$(dirname "$0")/lib.sh"
[ -n "${KEEP:-}" ] && trap - EXIT && echo "# work: $work"

calls_capture

# ---- the capture: three sessions at once ----
leaf20() { for _ in $(seq 10); do printf 'bts m_call_leaf leaf 0x10\nbts l_ret m_after_leaf 0x10\n'; done; }
{
	cat <<EOF
header baretrace=test build-id=$id cpus=3 tsc-khz=1000000
config workload = program program = \\progs\\calls.elf
tsc 1000000
begin bts calls@golden cpu=0
cpu 1
tsc 1200000
begin bts calls@golden cpu=1 tid=2
cpu 2
tsc 1300000
begin lbr calls@golden cpu=2 tid=3
cpu 0
EOF
	grep '^bts' "$here/calls.records" | head -6
	echo "cpu 1" && leaf20
	printf 'tsc 2000000\ncpu 2\nlbr 0 m_call_leaf leaf 4 0 -1\nlbr 1 s_call_main main 9 0 -1\n'
	echo "cpu 0" && grep '^bts' "$here/calls.records" | tail -6
	echo "cpu 1" && leaf20
	printf 'tsc 3000000\ncpu 2\nlbr 0 t_ret s_after_main 7 0 -1\nlbr 1 m_tail tail 3 0 -1\n'
	printf 'lbr 0 l_ret m_after_ind 2 0 -1\nlbr 1 m_call_ind leaf 5 0 -1\n'
	printf 'cpu 0\ntsc 3500000\nend 0\ncpu 1\ntsc 4000000\nend 0\ncpu 2\ntsc 4500000\nend 0\n'
	printf 'bootend\nlog run finished: PASS\n'
} >"$work/threads.records"
# shellcheck disable=SC2086
"$build/host/mkcapture" $syms <"$work/threads.records" >"$work/cap3"
ok $? "mkcapture writes three sessions of three threads on three CPUs"
cap=$work/cap3
# BEGIN 1, BTS 2, END 3 (lib/stream.h): the three BEGINs come before the first record frame,
# and record frames of two CPUs before the first END
frames "$cap" | awk '{ print $2 ":" $4 }' | tr '\n' ' ' >"$work/order"
grep -q '^0:4 0:4 0:1 1:1 2:1 0:2 1:2 .*0:3 1:3 2:3 ' "$work/order"
ok $? "its frames interleave: every BEGIN, then the CPUs' records, then the ENDs ($(cat "$work/order"))"

# ---- text, stats, json ----
"$dec" --elf "$elf" "$cap" >"$work/text" 2>"$work/text.err"
all=$?
grep '^stream-begin' "$work/text" >"$work/begins"
printf '%s\n' "stream-begin bts calls@golden cpu=0" "stream-begin bts calls@golden cpu=1 tid=2" \
	"stream-begin lbr calls@golden cpu=2 tid=3" | diff -u - "$work/begins" >/dev/null
ok $((all + $?)) "text view: exit $all, the sessions named with their threads' tids (2, 3; none for tid 1) $(head -c 200 "$work/text.err")"
"$dec" --view stats --elf "$elf" "$cap" 2>/dev/null | grep '^cpu ' >"$work/stats"
grep -q '^cpu 0: frames=[0-9]* .*bytes-per-record=[0-9.]*$' "$work/stats" &&
	grep -q '^cpu 1: .* tid=2$' "$work/stats" && grep -q '^cpu 2: .* tid=3$' "$work/stats"
ok $? "stats view: CPU 1's line says tid=2, CPU 2's tid=3, CPU 0's (tid 1) no tid ($(tr '\n' '|' <"$work/stats" | head -c 300))"
"$dec" --view json --elf "$elf" "$cap" >"$work/json" 2>/dev/null
got=$(/usr/bin/python3 -c '
import json, sys
print(" ".join("%d:%d" % (r["cpu"], r["tid"]) for r in map(json.loads, open(sys.argv[1]))
               if r["type"] == "begin"))' "$work/json")
[ "$got" = "0:1 1:2 2:3" ]
ok $? "json view: the begin objects' cpu:tid are 0:1 1:2 2:3 ($got)"

# ---- --tid ----
count() { grep -c "\"type\":\"$1\"" "$2"; }
"$dec" --view json --tid 2 "$cap" >"$work/t2.json" 2>/dev/null
rc=$?
[ "$rc" = "$all" ] && [ "$(count begin "$work/t2.json")" = 1 ] && [ "$(count bts "$work/t2.json")" = 40 ] &&
	[ "$(count lbr "$work/t2.json")" = 0 ] && ! grep -v '"type":"header"' "$work/t2.json" | grep -qv '"cpu":1,'
ok $? "--tid 2: CPU 1's session alone, its 40 records, exit $rc as the whole capture's"
"$dec" --view json --tid 1 "$cap" >"$work/t1.json" 2>/dev/null
[ "$(count begin "$work/t1.json")" = 1 ] && [ "$(count bts "$work/t1.json")" = 12 ] &&
	grep '"type":"begin"' "$work/t1.json" | grep -q '"name":"calls@golden cpu=0"'
ok $? "--tid 1: the main thread's session (a name without tid=), its 12 records"
"$dec" --tid 3 "$cap" 2>/dev/null | grep -c '^lbr ' >"$work/t3.n"
[ "$(cat "$work/t3.n")" = 6 ]
ok $? "--tid 3: the text view's 6 LBR entries of CPU 2 ($(cat "$work/t3.n"))"
"$dec" --view json --tid 3 --facility bts "$cap" >/dev/null 2>"$work/none.err"
grep -q "no session of its 3 matches --cpu, --session, --facility or --tid" "$work/none.err"
ok $? "--tid 3 --facility bts: none matches, said ($(cat "$work/none.err"))"
for bad in 0 x 2147483648; do
	"$dec" --tid "$bad" "$cap" >/dev/null 2>"$work/bad.err"
	rc=$?
	[ "$rc" = 2 ] && grep -q "accepted: a Linux thread id" "$work/bad.err"
	ok $? "--tid $bad: exit $rc, what is accepted said"
done
"$dec" --help | grep -q -- "--tid N"
ok $? "--help names --tid N"

# ---- perf.data, read by Debian's perf ----
"$dec" --view perf.data -o "$work/perf.data" --elf "$elf" "$cap" 2>"$work/pd.err"
ok $? "--view perf.data writes it $(head -c 200 "$work/pd.err")"
"$dec" --view perf.data -o "$work/one.data" --elf "$elf" "$work/cap" 2>/dev/null
ok $? "... and calls.records' capture (one thread) too"
if command -v perf >/dev/null; then
	perf script -i "$work/perf.data" -F pid,tid,event -G 2>/dev/null |
		awk 'NF { n[$1 " " $2]++ } END { for (k in n) print k, n[k] }' | sort >"$work/per-tid"
	printf '%s\n' "1/1 bts: 1" "1/2 bts: 2" "1/3 lbr: 3" | diff -u - "$work/per-tid" >/dev/null
	ok $? "perf script -F pid,tid: pid 1 for all; tid 1 one BTS sample, tid 2 two, tid 3 three LBR samples ($(tr '\n' '|' <"$work/per-tid"))"
	perf script -i "$work/perf.data" -F tid,ip,sym -G 2>/dev/null | awk 'NF { print $1 }' | sort | uniq -c |
		awk '{ print $2 ":" $1 }' | tr '\n' ' ' >"$work/tids"
	[ "$(cat "$work/tids")" = "1:1 2:2 3:3 " ]
	ok $? "perf script -F tid,ip,sym names each sample's thread ($(cat "$work/tids"))"
	perf script -i "$work/perf.data" --show-task-events -F pid,tid 2>/dev/null |
		sed -n 's/.*PERF_RECORD_COMM: //p' | sort >"$work/comms"
	printf '%s\n' "calls:1/1" "calls:1/2" "calls:1/3" | diff -u - "$work/comms" >/dev/null
	ok $? "a COMM per thread: pid 1, tids 1 2 3, each named calls ($(tr '\n' ' ' <"$work/comms"))"
	# perf 6.1's thread sort key is "pid" (tools/perf/util/sort.c sort_thread: "TID:COMM")
	perf report -i "$work/perf.data" --stdio --no-children --sort pid,sym 2>/dev/null >"$work/report"
	grep -q '76\.92%  *2:calls  *\[\.\] main' "$work/report" &&
		grep -q '23\.08%  *1:calls  *\[\.\] _start' "$work/report" &&
		[ "$(grep -c '  3:calls  ' "$work/report")" -gt 0 ]
	ok $? "perf report --sort pid,sym: bts 2:calls main 76.92% (40 of 52 records), 1:calls _start 23.08%; lbr 3:calls"
	perf script -i "$work/one.data" --show-task-events -F pid,tid 2>/dev/null >"$work/one"
	[ "$(grep -c PERF_RECORD_COMM "$work/one")" = 1 ] && grep -q 'PERF_RECORD_COMM: .*:1/1$' "$work/one" &&
		[ "$(grep -v PERF_RECORD | awk 'NF' | grep -vc ' 1/1 ')" = 0 ]
	ok $? "one thread: one COMM (1/1), every sample 1/1"
else
	for _ in 1 2 3 4 5; do ok 0 "# SKIP perf not installed (Debian linux-perf)"; done
fi

# ---- interleaved or one after another: the same samples, stacks and profiles ----
# the same lines, each CPU's sessions whole before the next CPU's (no tsc: times aside)
one_by_one() {
	awk 'BEGIN { c = 0 }
		/^(header|config)/ { print; next }
		/^(bootend|log)/ { tail = tail $0 "\n"; next }
		/^(tsc|cpu) / { if ($1 == "cpu") c = $2; next }
		{ if (!(c in body)) order[n++] = c; body[c] = body[c] $0 "\n" }
		END { for (i = 0; i < n; i++) printf "cpu %s\n%s", order[i], body[order[i]]; printf "%s", tail }' "$1"
}
same_views() { # CAPTURE SEQUENTIAL-CAPTURE: the views that differ, or nothing
	for v in perf folded afdo llvm-prof; do
		"$dec" --view "$v" -o "$work/a.$v" --program "$elf" "$1" 2>/dev/null
		"$dec" --view "$v" -o "$work/b.$v" --program "$elf" "$2" 2>/dev/null
		case $v in perf | folded) sort -o "$work/a.$v" "$work/a.$v" && sort -o "$work/b.$v" "$work/b.$v" ;; esac
		[ -s "$work/a.$v" ] && cmp -s "$work/a.$v" "$work/b.$v" || printf '%s ' "$v"
	done
	if command -v perf >/dev/null; then
		for x in a b; do
			f=$1 && [ $x = b ] && f=$2
			"$dec" --view perf.data -o "$work/$x.data" --program "$elf" "$f" 2>/dev/null
			perf script -i "$work/$x.data" -F tid,event,ip,brstack -G 2>/dev/null | sort >"$work/$x.script"
		done
		cmp -s "$work/a.script" "$work/b.script" || printf 'perf.data '
	fi
}
one_by_one "$work/threads.records" >"$work/seq.records"
# shellcheck disable=SC2086
"$build/host/mkcapture" $syms <"$work/seq.records" >"$work/seq"
differ=$(same_views "$cap" "$work/seq")
[ -z "$differ" ]
ok $? "perf, folded, afdo, llvm-prof and perf.data (perf script) of the three threads: as their sessions one after another give them${differ:+ (differ: $differ)}"
# two LBR threads, a snapshot of each split across two frames of its CPU, the other CPU's
# frames between its halves
{
	echo "header baretrace=test build-id=$id cpus=3 tsc-khz=1000000"
	printf 'cpu 1\nbegin lbr calls@golden cpu=1 tid=2\ncpu 2\nbegin lbr calls@golden cpu=2 tid=3\n'
	printf 'cpu 1\nlbr 0 m_call_leaf leaf 4 0 -1\ntsc 2\n'
	printf 'cpu 2\nlbr 0 t_ret s_after_main 7 0 -1\nlbr 1 m_tail tail 3 0 -1\ntsc 3\n'
	printf 'cpu 1\nlbr 1 s_call_main main 9 0 -1\ntsc 4\ncpu 2\nlbr 0 l_ret m_after_ind 2 0 -1\ntsc 5\n'
	printf 'cpu 1\nlbr 0 m_call_ind leaf 5 0 -1\ntsc 6\ncpu 2\nlbr 1 m_call_ind leaf 5 0 -1\ntsc 7\n'
	printf 'cpu 1\nlbr 1 l_ret m_after_leaf 2 0 -1\nend 0\ncpu 2\nend 0\nbootend\nlog run finished: PASS\n'
} >"$work/lbr2.records"
one_by_one "$work/lbr2.records" >"$work/lbr2seq.records"
# shellcheck disable=SC2086
"$build/host/mkcapture" $syms <"$work/lbr2.records" >"$work/lbr2" &&
	"$build/host/mkcapture" $syms <"$work/lbr2seq.records" >"$work/lbr2seq"
differ=$(same_views "$work/lbr2" "$work/lbr2seq")
[ -z "$differ" ]
ok $? "two LBR threads, snapshots split across frames: the same views as one after another${differ:+ (differ: $differ)}"

# ---- the HTML page ----
"$dec" --view html -o "$work/page.html" --elf "$elf" "$cap" 2>"$work/html.err"
rc=$?
[ $rc = 0 ] && [ ! -s "$work/html.err" ] && grep -q '</html>' "$work/page.html"
ok $? "--view html: exit $rc, a whole page $(head -c 200 "$work/html.err")"
# the text and json views one thread after another: each session's records follow its begin,
# as html_check reads them (the whole capture's interleave)
for t in 1 2 3; do "$dec" --tid $t --elf "$elf" "$cap"; done >"$work/bythread.text" 2>/dev/null
for t in 1 2 3; do "$dec" --view json --tid $t --elf "$elf" "$cap"; done >"$work/bythread.json" 2>/dev/null
while read -r st desc; do ok "$st" "$desc"; done < <("$here/html_check" "$work/page.html" "$work/bythread.text" \
	--json "$work/bythread.json" --elf "$elf" --threads)
"$dec" --view html -o "$work/one.html" --elf "$elf" "$work/cap" 2>/dev/null
"$dec" --view json --elf "$elf" "$work/cap" >"$work/one.json" 2>/dev/null
"$dec" --elf "$elf" "$work/cap" >"$work/one.text" 2>/dev/null
"$here/html_check" "$work/one.html" "$work/one.text" --json "$work/one.json" --threads | tail -n 1 >"$work/one.check"
read -r st desc <"$work/one.check"
ok "$st" "one thread (calls.records): $desc"
echo "1..$n"
