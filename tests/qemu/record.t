#!/usr/bin/env bash
# scripts/record, the one command a new user types: a glibc program (tests/programs/profile/
# pl.c, built -O2 -g -gdwarf-4 -static) profiled with the defaults (LBR sampling), and busybox
# echo with arguments that need quoting traced with BTS. Expectations from the programs' own
# runs on this host and their source: pl spends its branches in mid, leaf, twice and thrice
# (mid's loop calls the three), so the hottest function printed and the page's first hot
# function are among them; echo prints its arguments as the host's busybox does.
. "$(dirname "$0")/lib.sh"

echo "1..10"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
cd "$work" || exit 1
gcc -O2 -g -gdwarf-4 -static -o pl "$top/tests/programs/profile/pl.c" 2>gcc.err
ok $? "gcc builds pl ($(head -c 200 gcc.err))"
native=$(./pl 300)

"$top/scripts/record" -o out -- ./pl 300 >rec.out 2>rec.err
rc=$?
ok $rc "scripts/record -o out -- ./pl 300: status $rc ($(grep -m1 'status\|not made' rec.err))"
for f in capture.txt perf.data report.html pl.afdo pl.prof bolt.data; do
	[ -s "out/$f" ] || missing="${missing:-} $f"
done
[ -z "${missing:-}" ]
ok $? "out/ holds the capture, perf.data, report.html, pl.afdo, pl.prof and bolt.data (missing:${missing:- none})"
perf report -i out/perf.data --stdio --no-children --sort sym >report.out 2>/dev/null
rc=$?
[ "$rc" = 0 ] && grep -q '\] mid' report.out
ok $? "perf report reads out/perf.data: status $rc, mid among its symbols"
hot=$(awk '/^hottest functions:/ { getline; print $NF; exit }' rec.out)
case "$hot" in mid | leaf | twice | thrice) r=0 ;; *) r=1 ;; esac
ok $r "the hottest function printed is one of mid's loop (got '$hot')"
page=$(grep -o '<tr><td><a href="#s0-f[0-9a-f]*">[a-z_]*</a></td><td><span class="bar"' out/report.html |
	head -1 | sed 's/.*">\([a-z_]*\)<\/a>.*/\1/')
case "$page" in mid | leaf | twice | thrice) r=0 ;; *) r=1 ;; esac
ok $r "report.html names it too: its first hot function is '$page'"
grep -q '^  perf report -i out/perf.data' rec.out && grep -q 'fauto-profile=out/pl.afdo' rec.out &&
	grep -q 'fprofile-sample-use=out/pl.prof' rec.out && grep -q 'perf2bolt-19' rec.out
ok $? "the next commands are printed: perf report, gcc, clang, BOLT"
[ "$("$build/btdecode" --view output out/capture.txt 2>/dev/null)" = "$native" ]
ok $? "the program printed under capture what it prints natively ($native)"

# arguments a word list must quote: a space, an empty word, a quote, a backslash
args=("a b" "" 'say"hi' 'back\slash')
want=$(/bin/busybox echo "${args[@]}")
"$top/scripts/record" -o bb --facility bts -- /bin/busybox echo "${args[@]}" >bb.out 2>bb.err
rc=$?
got=$("$build/btdecode" --view output bb/capture.txt 2>/dev/null)
[ "$rc" = 0 ] && [ "$got" = "$want" ]
ok $? "busybox echo under BTS: status $rc, its arguments as it got them natively ($got)"
"$top/scripts/record" -o x --facility 'lbr;x' -- ./pl >x.out 2>x.err
rc=$?
[ "$rc" = 2 ] && grep -q "accepted: lbr, bts" x.err && [ ! -e x/capture.txt ]
ok $? "a bad --facility: status $rc before any boot, what is accepted said"
exit $((tap_failed > 0))
