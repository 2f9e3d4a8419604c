#!/usr/bin/env bash
# btdecode --view perf.data read by the field's own tools, on a real capture: the
# example program (examples/branches.c) traced with BTS, LBR, PEBS and counter sampling in one
# boot, its stream turned into a perf.data, and that file given to Debian's perf (script,
# report), AutoFDO (create_gcov, dump_gcov, create_llvm_prof) and BOLT (perf2bolt-19). Each must
# take it and name the program's functions. The expectations come from the program's source
# and nm, not from a run: fib(10) makes 177 calls of fib (2 * fib(11) - 1), more branches than
# any other function, so fib is the hottest function in each tool's output; main, pick, twice
# and plus_ten all run, and every name a tool gives for the program is one of nm's.
. "$(dirname "$0")/lib.sh"

echo "1..30"
prog=$build/examples/branches.elf
dec=$build/btdecode
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
for t in perf create_gcov create_llvm_prof dump_gcov perf2bolt-19; do
	command -v "$t" >/dev/null || {
		echo "Bail out! $t is missing: scripts/install-deps installs it"
		exit 1
	}
done
nm "$prog" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >"$work/nm"

period=16
boot --timeout 300 --program "$prog" -- workload=program trace=bts,lbr,pebs,pmc spmu=skylake \
	stream=text lbr.period=$period pebs.event=loads
status_is 0 "a BTS, LBR-sampled (lbr.period=$period), PEBS (loads) and counter capture of branches.elf"
printf '%s\n' "$out" >"$work/cap"

"$dec" --view=perf.data -o "$work/perf.data" --program "$prog" "$work/cap" 2>"$work/dec.err"
ok $? "btdecode --view=perf.data -o FILE writes it ($(cat "$work/dec.err"))"
cd "$work" || exit 1

# names: the program's function names a tool printed, each checked against nm
in_nm() { # FILE: every name in it is nm's, and there is at least one
	[ -s "$1" ] && ! grep -vxFf "$work/nm" "$1" | grep -q .
}

# ---- perf script: every facility's samples, IPs and branch stacks named ----
perf script -i perf.data -G -F event,ip,sym,brstacksym >script.out 2>script.err
ok $? "perf script -F event,ip,sym,brstacksym reads it ($(grep -v 'kptr_restrict\|kallsyms\|^$' script.err | head -c 200))"
for ev in bts lbr pebs pmc; do
	grep -q "^ *$ev: " script.out || echo "# no $ev sample" >&2
done
[ "$(awk '{ print $1 }' script.out | sort -u | tr -d '\n')" = "bts:lbr:pebs:pmc:" ]
ok $? "one event per facility: bts, lbr, pebs, pmc"
# lbr.period: one sample per PMI, each with the session's period, and times from the TSC in
# the order they were taken; as many samples as the kernel's line says
# (perf prints them as "TIME: PERIOD EVENT: IP")
perf script -i perf.data -G -F event,time,period,ip 2>/dev/null | awk '$3 == "lbr:" { print $1, $2 }' >lbr.samples
want=$(printf '%s\n' "$out" | sed -n 's/^trace-begin lbr .* samples=\([0-9]*\) .*/\1/p')
[ -n "$want" ] && [ "$want" -gt 0 ] && [ "$(wc -l <lbr.samples)" = "$want" ] &&
	awk -v p=$period '$2 != p { exit 1 }' lbr.samples
ok $? "perf script: $want LBR samples (the kernel's samples=), each of period $period"
awk '{ t = $1 + 0; if (NR > 1 && t <= last) exit 1; last = t }' lbr.samples &&
	[ "$(awk '{ print $1 }' lbr.samples | sort -u | wc -l)" = "$want" ]
ok $? "their times rise, one per sample (TSC and the header's tsc-khz: $(head -1 lbr.samples | awk '{ print $1 }') ...)"

# PEBS load samples: perf reads each one's data address, weight (the latency) and data source
# as the decoder's text has them (dla, lat, src); src 0x1 is "L1 hit" (SDM Vol. 3B table "Data
# Source Encoding for Load Latency Record"), which perf prints as LVL L1 hit
perf script -i perf.data -G -F event,ip,addr,weight,data_src 2>/dev/null | awk '$1 == "pebs:"' |
	awk '{ l1 = ($0 ~ /LVL L1 or L1 hit/); print $NF, $2, $(NF - 1), l1 }' >pebs.perf
"$dec" --program "$prog" "$work/cap" 2>/dev/null | awk '$1 == "pebs"' |
	sed 's/.* \(0x[0-9a-f]*\) <[^>]*> 0x.*dla=0x\([0-9a-f]*\) src=\(0x[0-9a-f]*\) lat=\([0-9]*\).*/\1 \2 \3 \4/' |
	awk '{ sub("^0x", "", $1); print $1, $2, $4, ($3 == "0x1") }' >pebs.text
[ -s pebs.text ] && diff pebs.text <(awk '{ print $1, $2, $3, $4 }' pebs.perf) >/dev/null
ok $? "perf script: $(wc -l <pebs.text) PEBS load samples with the decoder's IP, data address, weight and L1-hit data source"

# perf mem report: the PEBS load samples as perf's memory profile, each with its data source
# (the program's loads hit L1: src 0x1, as above) and the function that loaded
perf mem report -i perf.data --stdio >mem.out 2>/dev/null
rc=$?
[ "$rc" = 0 ] && grep -q 'L1 or L1 hit' mem.out && grep -q '\] fib\|\] main\|\] pick' mem.out
ok $? "perf mem report: status $rc, the loads' data source and functions ($(grep -m1 -o "Samples: [0-9]* *of event 'pebs'" mem.out))"

# brstacksym with dso: "NAME+0xOFF(DSO)" for each FROM and TO; the program's names must be
# nm's of the program, the kernel's side of the run (system calls, the single-step engine's
# entry) nm's of kernel.elf
perf script -i perf.data -G -F brstacksym,dso 2>/dev/null |
	grep -o '[A-Za-z_][A-Za-z0-9_.]*+0x[0-9a-f]*([^)]*)' | sed 's/+0x[0-9a-f]*(/ /; s/)$//' |
	sort -u >bs.pairs
awk -v p="$prog" '$2 == p { print $1 }' bs.pairs | sort -u >bs.prog
awk -v p="$prog" '$2 != p { print $1 }' bs.pairs | sort -u >bs.other
nm "$build/kernel.elf" | awk '{ print $3 }' | sort -u >kernel.nm
in_nm bs.prog && grep -qx fib bs.prog && grep -qx pick bs.prog && grep -qx main bs.prog &&
	! grep -vxFf kernel.nm bs.other | grep -q .
ok $? "the branch stacks name the program's functions, each one of nm's ($(tr '\n' ' ' <bs.prog)), the rest kernel.elf's ($(tr '\n' ' ' <bs.other))"

# ---- inline frames (libdw): the JSON's *_inline lists, innermost first, are the functions
# binutils' addr2line -i gives before the one an address is in, for every program address
"$dec" --view=json --program "$prog" "$work/cap" 2>/dev/null >json.out
/usr/bin/python3 - "$prog" json.out >inline.out <<'EOF'
import json, subprocess, sys
prog, path = sys.argv[1], sys.argv[2]
want = {}
for line in open(path, encoding='utf-8'):
    r = json.loads(line)
    for k in ('from', 'to', 'ip', 'ev'):
        if k in r and r[k].startswith('0x7e'):
            want[r[k]] = r.get(k + '_inline', [])
addrs = sorted(want)
# -a: each address's line, then its chain of FUNCTION and FILE:LINE lines, inlined ones first
out = subprocess.run(['addr2line', '-a', '-i', '-f', '-e', prog] + addrs, capture_output=True,
                     text=True).stdout.splitlines()
chains, cur, odd = {}, None, False
for l in out:
    if l.startswith('0x') and not odd:
        cur = hex(int(l, 16))
        chains[cur] = []
        continue
    if not odd:
        chains[cur].append(l)
    odd = not odd
bad = [a for a in addrs if chains.get(a, [None])[:-1] != want[a]]
print(len(addrs), sum(1 for a in addrs if want[a]), len(bad), ' '.join(bad[:3]))
EOF
read -r n_addr n_inl n_bad rest <inline.out
[ "${n_bad:-1}" = 0 ] && [ "${n_inl:-0}" -gt 0 ]
ok $? "inline frames: $n_inl of $n_addr program addresses are in inlined code, each chain as addr2line -i gives it ($rest)"

# ---- perf report: the hottest symbol of the branch samples is fib (its own samples: the
# samples have call chains, so perf sorts by what a function and its callees took otherwise) ----
perf report -i perf.data --stdio --no-children --sort sym -F overhead,sym --percent-limit 0 >report.out \
	2>report.err
rc=$?
top_sym=$(awk '/of event .bts./ { e = 1 } e && /\[\.\]/ { print $NF; exit }' report.out)
ok $((rc)) "perf report --stdio reads it"
[ "$top_sym" = fib ]
ok $? "perf report: the BTS event's hottest symbol is fib (got '$top_sym')"
# branch mode: the hottest branch is one of fib's own
# (perf 6.1's report --branch-stack with -F or --sort symbol_from,symbol_to takes a
# segmentation fault here: its default sort is used)
perf report -i perf.data --stdio --branch-stack >brreport.out 2>/dev/null
rc=$?
first=$(grep -m1 '%' brreport.out | tr -s ' ')
case "$first" in *"[.] fib "*"[.] fib"*) r=0 ;; *) r=1 ;; esac
ok $((rc + r)) "perf report --branch-stack: the hottest branch is fib to fib ($first)"

# ---- AutoFDO: create_gcov (GCC's profile) and create_llvm_prof (clang's) ----
create_gcov --binary="$prog" --profile=perf.data --gcov=prof.afdo >gcov.err 2>&1
rc=$?
dump_gcov prof.afdo 2>/dev/null | awk '/^[^ ]/ { print $1 }' | sort -u >gcov.names
in_nm gcov.names && grep -qx fib gcov.names && grep -qx main gcov.names
ok $((rc + $?)) "create_gcov makes a profile naming the program's functions ($(tr '\n' ' ' <gcov.names))"
hot=$(dump_gcov prof.afdo 2>/dev/null | awk '/^[^ ]/ { sub("total:", "", $2); if ($2 + 0 > m) { m = $2 + 0; f = $1 } } END { print f }')
[ "$hot" = fib ]
ok $? "create_gcov: the function with the most samples is fib (got '$hot')"
create_llvm_prof --binary="$prog" --profile=perf.data --out=prof.llvm --format=text >llvm.err 2>&1
rc=$?
grep -a -o '^[A-Za-z_][A-Za-z0-9_]*:' prof.llvm | tr -d : | sort -u >llvm.names
in_nm llvm.names && grep -qx fib llvm.names
ok $((rc + $?)) "create_llvm_prof makes a text profile naming the program's functions ($(tr '\n' ' ' <llvm.names))"

# ---- BOLT: perf2bolt (Debian's perf2bolt-19 needs --aggregate-only: the -19 suffix hides the
# perf2bolt name llvm-bolt takes its mode from, and it would rewrite the binary instead), on a
# file without call chains: perf2bolt parses `perf script -F pid,ip,brstack` one sample a
# line, and perf prints a sample's call chain on lines of its own ----
"$dec" --view=perf.data --callchains no -o bolt.data --program "$prog" "$work/cap" 2>/dev/null
perf2bolt-19 --aggregate-only -p bolt.data -o prof.fdata "$prog" >bolt.out 2>&1
rc=$?
grep -q "samples (0.0%) were ignored\|wrote [1-9]" bolt.out
ok $((rc + $?)) "perf2bolt-19 aggregates the branch samples ($(grep -m1 'read .* samples' bolt.out))"
awk '{ print $2; print $5 }' prof.fdata | sed 's|/.*||' | grep -v '^[0-9]' | sort -u >bolt.names
in_nm bolt.names && grep -qx fib bolt.names && grep -qx pick bolt.names
ok $? "perf2bolt's profile names the program's functions ($(tr '\n' ' ' <bolt.names))"
# ---- the HTML report of the same capture (btdecode --view html), loaded in Debian's headless
# Chromium by tests/views/html_check: no console message; a section per session; fib the BTS
# session's hottest function and, with main and pick, in the BTS and LBR flame graphs (the
# source, as above); each annotated function's instructions and branches at objdump's addresses
# (the program's and kernel.elf's), its taken counts the text view's records from each; the
# timelines along time where the records carry a TSC (LBR samples, counter samples), else along
# the record index; the PEBS data addresses the text view's
"$dec" --view=html -o report.html --program "$prog" "$work/cap" 2>html.err
ok $? "btdecode --view=html -o FILE writes the report ($(head -c 200 html.err))"
"$dec" --program "$prog" "$work/cap" >text.out 2>/dev/null
while read -r st desc; do ok "$st" "html: $desc"; done < <("$top/tests/views/html_check" \
	report.html text.out --json json.out --elf "$prog" --elf "$build/kernel.elf" --top bts=fib \
	--flame bts=fib,main,pick --flame lbr=fib,main,pick)
# the BTS session's conditional branches, taken and fallen through, as the stream's own PATH
# frames count them (--view stats: lib/stream_path.c replaying the kernel's taken/not-taken bits,
# where the page follows the code between the decoded records)
read -r walked taken < <("$dec" --view stats --program "$prog" "$work/cap" 2>/dev/null |
	sed -n 's/^path: .*), \([0-9]*\) conditional branches walked (\([0-9]*\) taken).*/\1 \2/p')
read -r t nt < <(sed -n '/data-facility="bts"/,/<\/section>/s/.*class="cond" data-taken="\([0-9]*\)" data-nottaken="\([0-9]*\)".*/\1 \2/p' report.html)
[ -n "${walked:-}" ] && [ "${t:-x}" = "$taken" ] && [ $((t + nt)) = "$walked" ]
ok $? "html: the BTS session's conditional branches, ${t:-?} taken and ${nt:-?} not, are the PATH frames' ${walked:-?} walked, ${taken:-?} taken"
exit $((tap_failed > 0))
