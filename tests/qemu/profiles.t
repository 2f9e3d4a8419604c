#!/usr/bin/env bash
# The profile loops a compiler engineer closes with a capture, each consumer run for real: a
# glibc program with a short name (tests/programs/profile/pl.c, gcc -O2 -g -gdwarf-4 -static) traced
# with LBR sampling (lbr.period) and with BTS, its captures given to perf report's branch and
# call-graph views, create_gcov, gcc-12 -fauto-profile (btdecode --view afdo) and clang-14
# -fprofile-sample-use (--view llvm-prof), and the rebuilt programs run.
#
# The expectations come from the program's source, not from a run: with argv[1] = N, main calls
# mid ROUNDS = 3 times, mid calls leaf 3N times in all and, through a pointer, twice and thrice
# 3N/2 times each (i odd: thrice). A BTS capture holds every branch, so the counts a compiler
# reads from its profile are those: gcc's entry count (its optimized dump's first block) of leaf
# is 3N, LLVM's function_entry_count the head count plus one (llvm/lib/Transforms/IPO/
# SampleProfile.cpp: "setEntryCount(ProfileCount(Samples->getHeadSamples() + 1, ...))").
. "$(dirname "$0")/lib.sh"

echo "1..23"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
for t in perf create_gcov dump_gcov gcc-12 clang-14 llvm-profdata-14; do
	command -v "$t" >/dev/null || {
		echo "Bail out! $t is missing: scripts/install-deps installs it"
		exit 1
	}
done
src=$top/tests/programs/profile/pl.c
dec=$build/btdecode
n=1000
cd "$work" || exit 1
gcc -O2 -g -gdwarf-4 -static -o pl "$src" 2>gcc.err
ok $? "gcc -O2 -g -gdwarf-4 -static builds pl ($(head -c 200 gcc.err))"
native=$(./pl $n)

boot --timeout 300 --program pl -- workload=program trace=lbr lbr.period=64 stream=text \
	"program.argv=\"pl $n\""
status_is 0 "pl traced with LBR sampling (lbr.period=64)"
printf '%s\n' "$out" >lbr.cap
boot --timeout 300 --program pl -- workload=program trace=bts stream=text "program.argv=\"pl $n\""
status_is 0 "pl traced with BTS"
printf '%s\n' "$out" >bts.cap
# a period under the stack's depth: consecutive stacks overlap
boot --timeout 300 --program pl -- workload=program trace=lbr lbr.period=10 stream=text \
	"program.argv=\"pl $n\""
status_is 0 "pl traced with LBR sampling (lbr.period=10)"
printf '%s\n' "$out" >lbr10.cap

"$dec" --view=perf.data -o perf.data --program pl lbr.cap 2>dec.err
ok $? "btdecode --view=perf.data of the LBR capture ($(head -c 200 dec.err))"

# ---- AutoFDO's create_gcov reads the file of a program whose name is under 8 characters ----
create_gcov --binary=pl --profile=perf.data --gcov=pl.gcov >cg.err 2>&1
rc=$?
dump_gcov pl.gcov 2>/dev/null | awk '/^[^ ]/ { print $1 }' | sort -u >cg.names
[ "$rc" = 0 ] && grep -qx leaf cg.names && grep -qx mid cg.names
ok $? "create_gcov reads it: status $rc, a profile naming leaf and mid ($(wc -l <cg.names) functions$(grep -m1 -i error cg.err))"

# ---- perf's branch and call views, with no flag saying what the file holds ----
perf report -i perf.data --stdio --branch-history >bh.out 2>bh.err
rc=$?
[ "$rc" = 0 ] && grep -q '\] leaf' bh.out && ! grep -q 'no callchain or branch data' bh.err
ok $? "perf report --branch-history: status $rc, names leaf ($(grep -m1 -i error bh.err))"
perf report -i perf.data --stdio -g --children >ch.out 2>ch.err
rc=$?
# mid calls leaf, twice and thrice (the source): what they took is mid's children's too
read -r children self < <(awk '$NF == "mid" && $1 ~ /%$/ { sub("%", "", $1); sub("%", "", $2); print $1, $2; exit }' ch.out)
[ "$rc" = 0 ] && grep -q '^# *Children *Self' ch.out &&
	awk -v c="${children:-0}" -v s="${self:-0}" 'BEGIN { exit !(c > s) }'
ok $? "perf report -g --children: status $rc, mid's Children ${children:-?}% above its Self ${self:-?}% (its callees' samples reach it through the call chains)"
perf report -i perf.data --stdio -b --sort symbol_from,symbol_to >bs.out 2>bs.err
rc=$?
[ "$rc" = 0 ] && grep -q '\] mid .*\] leaf\|\] leaf .*\] mid' bs.out
ok $? "perf report -b --sort symbol_from,symbol_to: status $rc (no crash), the mid/leaf branches listed"

# ---- gcc: btdecode --view afdo, read by gcc-12 -fauto-profile ----
gcc_with() { # PROFILE OUT: gcc-12 -O2 with the profile; its stderr in OUT.err
	gcc-12 -O2 -g -gdwarf-4 -static -fauto-profile="$1" -fdump-tree-optimized-details \
		-o "$2" "$src" >"$2.err" 2>&1
}
entry_counts() { # DUMP: "function count" of each function's first block (gcc's entry count)
	awk '/^;; Function/ { f = $3 } /<bb 2> \[count: [0-9]+\]/ && !seen[f]++ {
		sub(/.*\[count: /, ""); sub(/\].*/, ""); print f, $0 }' "$1"
}
"$dec" --view=afdo -o bts.afdo --program pl bts.cap 2>afdo.err
ok $? "btdecode --view=afdo of the BTS capture ($(head -c 200 afdo.err))"
gcc_with bts.afdo plb
rc=$?
[ "$rc" = 0 ] && [ ! -s plb.err ]
ok $? "gcc-12 -fauto-profile takes it: status $rc, nothing said ($(head -c 300 plb.err))"
entry_counts plb-pl.c.*t.optimized | sort >gcc.counts
want=$(printf '%s\n' "leaf $((3 * n))" "main 1" "mid 3" "thrice $((3 * n / 2))" "twice $((3 * n / 2))")
[ "$(cat gcc.counts)" = "$want" ]
ok $? "gcc read the source's entry counts: $(tr '\n' ',' <gcc.counts) (want $(echo "$want" | tr '\n' ','))"
[ "$(./plb $n)" = "$native" ]
ok $? "the program gcc rebuilt with it prints what pl prints ($native)"
"$dec" --view=afdo -o lbr.afdo --program pl lbr.cap 2>/dev/null && gcc_with lbr.afdo pll
rc=$?
[ "$rc" = 0 ] && [ ! -s pll.err ] && [ "$(./pll $n)" = "$native" ] &&
	[ "$(entry_counts pll-pl.c.*t.optimized | awk '$1 == "leaf" { print $2 }')" -gt 0 ]
ok $? "from the LBR-sampled capture too: gcc takes it (nothing said), counts leaf, and the program prints the same ($(head -c 300 pll.err))"

# ---- clang: btdecode --view llvm-prof, read by clang-14 -fprofile-sample-use ----
clang_with() { # PROFILE OUT
	clang-14 -O2 -g -fprofile-sample-use="$1" -o "$2" "$src" >"$2.err" 2>&1 &&
		clang-14 -O2 -g -fprofile-sample-use="$1" -S -emit-llvm -o "$2.ll" "$src" 2>/dev/null
}
"$dec" --view=llvm-prof -o bts.prof --program pl bts.cap 2>/dev/null
ok $? "btdecode --view=llvm-prof of the BTS capture"
clang_with bts.prof plc
rc=$?
[ "$rc" = 0 ] && [ ! -s plc.err ]
ok $? "clang-14 -fprofile-sample-use takes it: status $rc, nothing said ($(head -c 300 plc.err))"
# each defined function's !prof metadata: its function_entry_count
/usr/bin/python3 - plc.ll >clang.counts <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
md = dict(re.findall(r'^(![0-9]+) = !\{!"function_entry_count", i64 (-?[0-9]+)\}', text, re.M))
for name, ref in re.findall(r'^define .*@([A-Za-z_][A-Za-z0-9_]*)\(.*!prof (![0-9]+)', text, re.M):
    print(name, md.get(ref, '?'))
EOF
sort -o clang.counts clang.counts
want=$(printf '%s\n' "leaf $((3 * n + 1))" "main 2" "mid 4" "thrice $((3 * n / 2 + 1))" "twice $((3 * n / 2 + 1))")
[ "$(cat clang.counts)" = "$want" ]
ok $? "clang read the source's entry counts, plus one: $(tr '\n' ',' <clang.counts) (want $(echo "$want" | tr '\n' ','))"
[ "$(./plc $n)" = "$native" ]
ok $? "the program clang rebuilt with it prints what pl prints"
# the indirect call's targets, as LLVM's own reader lists them: twice and thrice 3N/2 each
llvm-profdata-14 show --sample --function=mid bts.prof >mid.show 2>&1
grep -q "thrice:$((3 * n / 2))" mid.show && grep -q "twice:$((3 * n / 2))" mid.show
ok $? "llvm-profdata show: mid's indirect call reached twice and thrice $((3 * n / 2)) times each ($(grep -m1 'twice\|thrice' mid.show | tr -s ' '))"
"$dec" --view=llvm-prof -o lbr.prof --program pl lbr.cap 2>/dev/null && clang_with lbr.prof pld
rc=$?
[ "$rc" = 0 ] && [ ! -s pld.err ] && [ "$(./pld $n)" = "$native" ]
ok $? "from the LBR-sampled capture too: clang takes it (nothing said) and the program prints the same ($(head -c 300 pld.err))"

# ---- the HTML report adds up: leaf, twice and thrice are one block each (objdump), so the
# branches taken from each are its calls (its RET) and the instructions run its calls times its
# instructions; the BTS capture has every branch, and so do LBR stacks taken every 10 branches,
# each branch once however many stacks hold it ----
# (each one's instructions up to its RET: the padding after it never runs; a line of objdump
# without a mnemonic continues the instruction above)
objdump -d pl | awk '/^[0-9a-f]+ <(leaf|twice|thrice)>:/ { f = $2; gsub(/[<>:]/, "", f); next }
	/^$/ { f = "" } f && /^ +[0-9a-f]+:\t[^\t]*\t/ { n[f]++; if ($0 ~ /\tret/) f = "" }
	END { for (k in n) print k, n[k] }' | sort >insns
want=$(awk -v c=$((3 * n)) '{ k = ($1 == "leaf") ? c : c / 2; print $1, k, k * $2 }' insns)
html_rows() { # PAGE: "function taken instructions-run" of leaf, twice, thrice (first session)
	grep -o '<tr><td><a href="#s0-f[0-9a-f]*">[a-z]*</a></td><td><span class="bar"[^>]*></span>[0-9]*</td><td class="n">[0-9.]*</td><td class="n">[0-9]*' "$1" |
		sed 's/<[^>]*>/ /g' | awk '$1 ~ /^(leaf|twice|thrice)$/ { print $1, $2, $4 }' | sort
}
for cap in bts lbr10; do
	"$dec" --view=html -o $cap.html --program pl $cap.cap 2>/dev/null
	got=$(html_rows $cap.html)
	[ -n "$want" ] && [ "$got" = "$want" ]
	ok $? "html of the $cap capture: taken and instructions run of leaf, twice, thrice as the source and objdump give them: $(echo $got) (want $(echo $want))"
done
grep -q 'LBR samples</th><td>[0-9]* stacks.* [1-9][0-9]* of their entries an earlier stack already held' lbr10.html
ok $? "html: the overlap of the stacks is said ($(grep -o 'LBR samples</th><td>[^<]*' lbr10.html))"
exit $((tap_failed > 0))
