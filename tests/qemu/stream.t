#!/usr/bin/env bash
# The record stream (stream=text: "@BT1 " lines, lib/stream.h) read back by tools/btdecode: for
# BTS and BTS-with-interrupts over several workloads, on two CPUs at once, on a personality with
# the predicted flag and one without (Core 2), with records flagged as leaks, every session the
# decoder rebuilds equals the records the kernel printed in its own lines, and its digest
# matches. Then the same capture damaged at random (seeded: bytes flipped, dropped, duplicated):
# the decoder reports the damage, exits 1, never crashes, and never shows a record the kernel
# did not print in that session; sessions whose frames all survived still decode whole.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
dec=$build/btdecode

# kernel_records KIND FILE: the kernel's KIND lines of each session in FILE, each session as
# "= FACILITY LABEL CPU" then its lines, sessions in log order
kernel_records() {
	awk -v k="$1" '$1 == "trace-begin" { s = $2 " " $3 " " $4; print "= " s; next }
		$1 == "trace-end" { s = "" } s != "" && $1 == k { print }' "$2"
}
# text_twin FILE [runner args] -- OPTIONS: the same boot with stream=off appended to FILE: records
# go once (docs/record-stream.md "Nothing lost"), so the kernel's own lines of a streamed capture
# come from its twin, which the software PMU makes record for record the same.
text_twin() {
	local file=$1 a=() x
	shift
	for x in "$@"; do
		[ "$x" = stream=text ] && x=stream=off
		a+=("$x")
	done
	boot "${a[@]}"
	printf '%s\n' "$out" >>"$file"
}
# decoded_records KIND FILE: the same from btdecode's text view in FILE
decoded_records() {
	awk -v k="$1" '$1 == "stream-begin" { print "= " $2 " " $3 " " $4; next } $1 == k { print }' "$2"
}

boot --timeout 60 -- stream=text trace=bts workload=user bts.ring=user bts.leak=flag
status_is 0 "stream=text, ring 3 records with leak notes: the session passes"
printf '%s\n' "$out" >"$work/leak"
boot --smp 2 --timeout 120 -- stream=text trace=bts,btsint spmu=skylake,core2 \
	workload=loop,calls,indirect,switch,sort trace.cpus=all
status_is 0 "stream=text: the sessions pass"
cat "$work/leak" >>"$work/log" # one capture with both boots in it, as a log of two runs
printf '%s\n' "$out" >>"$work/log"
text_twin "$work/log.text" --timeout 60 -- stream=text trace=bts workload=user bts.ring=user \
	bts.leak=flag
text_twin "$work/log.text" --smp 2 --timeout 120 -- stream=text trace=bts,btsint \
	spmu=skylake,core2 workload=loop,calls,indirect,switch,sort trace.cpus=all
# kernel's records of each session, "FACILITY LABEL" then its bts lines, sessions in log order
kernel_records bts "$work/log.text" >"$work/kernel"
"$dec" "$work/log" >"$work/decoded" 2>"$work/err"
drc=$?
decoded_records bts "$work/decoded" >"$work/rebuilt"
[ "$drc" = 0 ] && [ ! -s "$work/err" ]
ok $? "btdecode reads the capture without a problem (exit $drc)"
n=$(grep -c '^= ' "$work/kernel")
[ "$n" = 41 ] && cmp -s "$work/kernel" "$work/rebuilt" && [ "$(grep -c '^bts ' "$work/rebuilt")" -gt 1000 ]
ok $? "all $n sessions rebuilt, record for record, as the kernel printed them (1 + 2 facilities x 2 personalities x 5 workloads x 2 CPUs; $(grep -c '^bts ' "$work/rebuilt") records)"
[ "$(grep -c ' digest=ok' "$work/decoded")" = "$n" ]
ok $? "every session's digest matches"
grep -q ' leak$' "$work/rebuilt" && grep -q '^bts 0x[0-9a-f]* 0x[0-9a-f]* 0$' "$work/rebuilt" &&
	grep -q '^bts 0x[0-9a-f]* 0x[0-9a-f]* 0x10$' "$work/rebuilt"
ok $? "leak notes and both flag values (Core 2: no predicted bit) come through"
id=$(readelf -n "$build/kernel.elf" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
h=$(grep '^stream-header .* build-id=' "$work/decoded" | tail -n 1)
[ "$(grep -c '^stream-header cpu=0 .* build-id=' "$work/decoded")" = 2 ] && [ -n "$id" ] &&
	[[ "$h" == *" build-id=$id "* ]] && [[ "$h" == *" cpus=2 console=COM1 io 0x3f8 "*" 115200 baud 8N1" ]] && [[ "$h" == *" tsc-khz="[1-9]* ]] &&
	[[ "$h" == *" processor=AuthenticAMD family 0xf model 0x6b "* ]]
ok $? "each boot's stream starts with its header: the build id readelf reads from kernel.elf ($id), the CPU as QEMU's -cpu max presents it, the TSC rate, 2 CPUs, the serial link"
# the header's second frame: the kernel's base as nm reads __kernel_start, and the boot CPU's
# capability record whose CPUID.01H:EAX is the signature the processor pair says
kb=$(nm "$build/kernel.elf" | awk '$3 == "__kernel_start" { print $1 }' | sed 's/^0*//')
c=$(grep '^stream-header cpu=0 kernel-base=' "$work/decoded" | tail -n 1)
sig=$(sed -n 's/.*(signature 0x\([0-9a-f]*\)).*/\1/p' <<<"$h")
[ -n "$kb" ] && [[ "$c" == *" kernel-base=0x$kb caps="*" l01=$sig,"* ]]
ok $? "the header names the kernel's base (0x$kb, nm's __kernel_start) and the CPU's capability record (CPUID.01H:EAX $sig)"
# the run's own header: the options it was given (scripts/run writes them to the config file)
o=$(grep '^stream-header cpu=0 config=' "$work/decoded" | tail -n 1)
[[ "$o" == *"stream=text trace=bts,btsint spmu=skylake,core2 workload=loop,calls,indirect,switch,sort trace.cpus=all"* ]]
ok $? "each boot's stream says the options the run was given (${o:0:120}...)"
stats=$("$dec" --view stats "$work/log")
bpr=$(printf '%s\n' "$stats" | sed -n 's/^cpu 1: .*bytes-per-record=\([0-9.]*\)$/\1/p')
[ -n "$bpr" ] && awk -v b="$bpr" 'BEGIN { exit !(b > 0 && b < 12) }'
ok $? "cpu 1 (the second boot only): $bpr wire bytes per BTS record on the text-safe wire, framing included (a record line is ~48)"

# Damage: per line, with probability 1/4, one byte flipped, dropped or duplicated.
perl -e 'srand(20261125); while (<>) { if (/^\@BT1 / && rand() < 0.25) { my $p = int(rand(length($_) - 1));
	my $w = int(rand(3)); if ($w == 0) { substr($_, $p, 1) = chr(ord(substr($_, $p, 1)) ^ (1 << int(rand(7)))) }
	elsif ($w == 1) { substr($_, $p, 1) = "" } else { substr($_, $p, 0) = substr($_, $p, 1) } } print }' \
	"$work/log" >"$work/damaged"
"$dec" "$work/damaged" >"$work/d.out" 2>"$work/d.err"
drc=$?
[ "$drc" = 1 ] && grep -q 'damaged frame' "$work/d.err"
ok $? "a damaged capture: exit 1, the damage reported with its lines ($(grep -c . "$work/d.err") reports)"
# every record shown belongs to its session's records in the kernel's output, under eight
# damage patterns (seeds)
bad_seeds=""
for seed in 1 2 3 4 5 6 7 8; do
	perl -e 'srand($ARGV[0]); while (<STDIN>) { if (/^\@BT1 / && rand() < 0.3) { my $p = int(rand(length($_) - 1));
		my $w = int(rand(3)); if ($w == 0) { substr($_, $p, 1) = chr(ord(substr($_, $p, 1)) ^ (1 << int(rand(7)))) }
		elsif ($w == 1) { substr($_, $p, 1) = "" } else { substr($_, $p, 0) = substr($_, $p, 1) } } print }' \
		"$seed" <"$work/log" >"$work/d$seed"
	"$dec" "$work/d$seed" >"$work/d$seed.out" 2>/dev/null
	[ $? = 1 ] || bad_seeds="$bad_seeds $seed(exit)"
	awk 'FNR == NR { if ($1 == "=") s = $2 " " $3 " " $4; else have[s SUBSEP $0] = 1; next }
		$1 == "stream-begin" { s = $2 " " $3 " " $4; next }
		$1 == "bts" && !((s SUBSEP $0) in have) { bad++ }
		END { exit bad > 0 }' "$work/kernel" "$work/d$seed.out" || bad_seeds="$bad_seeds $seed"
done
[ -z "$bad_seeds" ]
ok $? "under eight damage patterns: exit 1, and no record shown that the kernel did not print in that session${bad_seeds:+ (failed:$bad_seeds)}"
whole=0 same=0
while read -r _ fac label cpu; do
	whole=$((whole + 1))
	a=$(awk -v s="= $fac $label $cpu" '$0 == s { on = 1; next } /^= / { on = 0 } on' "$work/kernel")
	b=$(awk -v s="$fac $label $cpu" '$1 == "stream-begin" { on = ($2 " " $3 " " $4 == s); next }
		$1 == "stream-end" { on = 0 } on' "$work/d.out")
	[ "$a" = "$b" ] && same=$((same + 1))
done < <(grep ' digest=ok' "$work/d.out" | sed 's/^stream-end/=/; s/ records=.*//')
[ "$whole" -gt 0 ] && [ "$whole" = "$same" ]
ok $? "the $whole sessions that survived whole decode record for record ($same)"

# LBR: legacy stacks (Skylake with LBR_INFO cycles and mispredicts, Nehalem whose LBR_SELECT
# erratum makes the kernel drop entries in software, leaving gaps in the printed indexes),
# Architectural LBR (Arrow Lake, branch types), a branch filter (Core 2 has no LBR_SELECT: its
# four sessions SKIP, and their stream sessions end empty, "why=skipped"): every session's entries
# decoded exactly as the kernel printed them, digests matching.
boot --timeout 120 -- stream=text trace=lbr spmu=skylake,nehalem,core2,arrowlake \
	workload=loop,calls,indirect,user lbr.filter=call,ret,cond
printf '%s\n' "$out" >"$work/lbr"
lrc=$rc
text_twin "$work/lbr.text" --timeout 120 -- stream=text trace=lbr spmu=skylake,nehalem,core2,arrowlake \
	workload=loop,calls,indirect,user lbr.filter=call,ret,cond
rc=$lrc
kernel_records lbr "$work/lbr.text" >"$work/lbr.kernel"
"$dec" "$work/lbr" >"$work/lbr.dec" 2>"$work/lbr.err"
drc=$?
awk '$1 == "stream-begin" { s = "= " $2 " " $3 " " $4 "\n"; next }
	$1 == "lbr" { s = s $0 "\n"; next }
	$1 == "stream-end" { if ($0 !~ / why=skipped$/) printf "%s", s; else skipped++ }
	END { print skipped + 0 > "/dev/stderr" }' "$work/lbr.dec" >"$work/lbr.rebuilt" 2>"$work/lbr.skipped"
n=$(grep -c '^= ' "$work/lbr.kernel")
[ "$rc" = 0 ] && [ "$drc" = 0 ] && [ "$n" = 12 ] && [ "$(cat "$work/lbr.skipped")" = 4 ] &&
	cmp -s "$work/lbr.kernel" "$work/lbr.rebuilt" &&
	[ "$(grep -c ' digest=ok' "$work/lbr.dec")" = 16 ] && grep -q 'br_type=[0-9]' "$work/lbr.rebuilt" &&
	grep -q 'cycles=[1-9][0-9]* mispred' "$work/lbr.rebuilt"
ok $? "LBR: $n sessions on three personalities, $(grep -c '^lbr ' "$work/lbr.rebuilt") entries rebuilt as the kernel printed them, digests ok, Core 2's 4 skipped sessions said so (decoder exit $drc)"

# PEBS: formats 1 (Nehalem), 3 (Skylake) and 4 adaptive (Ice Lake) on load latency with the
# memory-info and LBR groups: every sample decoded exactly as the kernel printed it (IPs, the
# applicable counters, size, IP semantics, the LBR group's newest entry, data address, source,
# latency), digests ok; and the trace view's instant events parse.
boot --timeout 120 -- stream=text trace=pebs spmu=icelake,skylake,nehalem workload=sort \
	pebs.event=loads pebs.groups=meminfo,gpr,lbr pebs.period=5
printf '%s\n' "$out" >"$work/pebs"
prc=$rc
text_twin "$work/pebs.text" --timeout 120 -- stream=text trace=pebs spmu=icelake,skylake,nehalem \
	workload=sort pebs.event=loads pebs.groups=meminfo,gpr,lbr pebs.period=5
rc=$prc
kernel_records pebs "$work/pebs.text" >"$work/pebs.kernel"
"$dec" "$work/pebs" >"$work/pebs.dec" 2>"$work/pebs.err"
drc=$?
decoded_records pebs "$work/pebs.dec" >"$work/pebs.rebuilt"
[ "$rc" = 0 ] && [ "$drc" = 0 ] && [ "$(grep -c '^= ' "$work/pebs.kernel")" = 3 ] &&
	cmp -s "$work/pebs.kernel" "$work/pebs.rebuilt" && grep -q ' lbr 0x.* dla=0x' "$work/pebs.rebuilt" &&
	[ "$(grep -c ' digest=ok' "$work/pebs.dec")" = 3 ]
ok $? "PEBS: 3 sessions (formats 1, 3, 4 adaptive), $(grep -c '^pebs ' "$work/pebs.rebuilt") samples rebuilt as the kernel printed them, digests ok (decoder exit $drc)"
"$dec" --view trace "$work/pebs" | perl -MJSON::PP -e '
	my $t = decode_json(do { local $/; <STDIN> });
	my $i = grep { $_->{ph} eq "i" && $_->{args}{ev} =~ /^0x/ } @{$t->{traceEvents}};
	print "$i\n"; exit(!$i)' >"$work/pebs.instants"
ok $? "PEBS samples are instant events in the trace view ($(cat "$work/pebs.instants"))"

# stream.live: btsint and PEBS records leave while the run goes on, taken from the store's ring
# by a drainer (an idle CPU while the boot CPU traces, the boot CPU while CPU 1 does). Each
# session delivers many times more records than its store holds (trace.store=4 KiB: 24-byte BTS
# records, SDM Vol. 3B 17.4.8.2 "three 64-bit" fields; PEBS records of the size= the session
# states; fewer than one drain of the DS buffer), with nothing lost: a full store waits for the
# drainer, however slowly the host runs its CPU; and digests ok; the BTS sessions still match sort's signature exactly (the
# workload's source) and PEBS takes a sample every period+1 instructions (SDM 18.4.4), as the
# selfchecks say; each session's frames come before its summary line, which is printed once
# the run is over.
boot --smp 2 --timeout 120 -- stream=text stream.live=on trace=btsint,pebs workload=sort \
	sort.n=200 trace.store=4 pebs.period=20 pebs.kib=8 trace.cpus=each
printf '%s\n' "$out" >"$work/live"
"$dec" "$work/live" >"$work/live.dec" 2>"$work/live.err"
drc=$?
perl -e 'my ($log, $dec) = @ARGV; my (%cap, %kernel, %bad);
	open(my $l, "<", $log) or die;
	while (<$l>) {
		if (/^trace-begin (\S+) (\S+) (cpu=\d)\b.* records=(\d+)\b/) {
			my ($k, $rec) = ("$1 $2 $3", $4);
			my $size = $1 eq "btsint" ? 24 : (/ size=(\d+)/)[0];
			$cap{$k} = int(4 * 1024 / $size); $kernel{$k} = $rec;
			$bad{$k} .= " not-live" unless / streamed-live=[1-9]/ } }
	open(my $d, "<", $dec) or die; my $s = 0;
	while (<$d>) { next unless /^stream-end (\S+) (\S+) (cpu=\d) records=(\d+) lost=(\d+) digest=(\S+)/;
		my $k = "$1 $2 $3"; $s++;
		$bad{$k} .= " lost=$5" if $5; $bad{$k} .= " digest=$6" if $6 ne "ok";
		$bad{$k} .= " records=$4/kernel $kernel{$k}" if $4 != ($kernel{$k} // -1);
		$bad{$k} .= " $4<=10x cap $cap{$k}" if $4 <= 10 * ($cap{$k} // 1e9) }
	my @b = map { "$_:$bad{$_}" } grep { $bad{$_} } sort keys %bad;
	print scalar(keys %kernel), " sessions, $s decoded @b\n"; exit(@b || $s != 4 || keys(%kernel) != 4)' \
	"$work/live" "$work/live.dec" >"$work/live.sum"
ok $? "stream.live: every btsint and PEBS session delivered more than 10 times the records its store holds, none lost, digests ok: $(cat "$work/live.sum")"
[ "$rc" = 0 ] && [ "$drc" = 0 ] && [ "$(grep -c '^ok [0-9]* - selfcheck btsint sort.*the signature exactly' "$work/live")" = 2 ] &&
	[ "$(grep -c '^ok [0-9]* - selfcheck pebs sort.* every 21 allow' "$work/live")" = 2 ]
ok $? "stream.live: the sessions pass and match the workload's signature and the sampling period (exit $rc, decoder $drc)"
awk '/^@BT1 / { f++ } /^trace-begin / { if (f < 2) bad++ } /^trace-end / { f = 0 }
	/^trace: CPU [01]: [1-9][0-9]* bytes of its output written while it ran/ { w++ }
	/^(bts|pebs) 0x/ { bad++ } END { exit !(bad == 0 && w == 4) }' "$work/live"
ok $? "stream.live: each session's frames precede its summary line, the drainer wrote each CPU's output while it ran, and records are not repeated as text lines"

# The binary wire (stream=binary): the frames as bytes between the log's lines, kept byte for
# byte by scripts/run --log (its console output is for people); the serial console's LF -> CR LF
# undone by the decoder. The same sessions as a text-wire boot of the same options, record for
# record, in fewer bytes; the capture damaged at random still never shows a record the kernel
# did not print in that session.
opts="trace=bts,lbr,pebs spmu=skylake,icelake workload=loop,calls,indirect,switch,sort"
# shellcheck disable=SC2086
"$top/scripts/run" --log "$work/bin" --timeout 120 -- stream=binary $opts >/dev/null 2>&1
brc=$?
# shellcheck disable=SC2086
boot --timeout 120 -- stream=text $opts
printf '%s\n' "$out" >"$work/txt"
"$dec" "$work/bin" >"$work/bin.dec" 2>"$work/bin.err"
drc=$?
"$dec" "$work/txt" >"$work/txt.dec" 2>/dev/null
grep -v '^stream-header' "$work/bin.dec" >"$work/bin.rec"
grep -v '^stream-header' "$work/txt.dec" >"$work/txt.rec"
nb=$(grep -c '^stream-begin' "$work/bin.rec")
[ "$brc" = 0 ] && [ "$rc" = 0 ] && [ "$drc" = 0 ] && [ "$nb" = 30 ] && cmp -s "$work/bin.rec" "$work/txt.rec" &&
	[ "$(grep -c ' digest=ok' "$work/bin.rec")" = 30 ] && ! grep -aq '^@BT1 ' "$work/bin"
ok $? "stream=binary: $nb sessions (BTS, LBR, PEBS) decoded as the text wire's, record for record, digests ok (exit $drc) $(head -c 200 "$work/bin.err")"
bw=$("$dec" --view stats "$work/bin" | sed -n 's/^record frames: \([0-9]*\) .*/\1/p')
tw=$("$dec" --view stats "$work/txt" | sed -n 's/^record frames: \([0-9]*\) .*/\1/p')
[ -n "$bw" ] && [ -n "$tw" ] && [ $((bw * 4)) -lt $((tw * 3 + tw / 10)) ]
ok $? "the binary wire's record frames take $bw bytes, the text wire's $tw (base64 is 4/3)"
# (the frames are a few per cent of the capture's bytes: a seed may hit only the human log, and
# then the capture decodes whole)
bad="" hit=0
for seed in 1 2 3 4; do
	perl -e 'srand($ARGV[0]); local $/; my $d = <STDIN>; my $n = length($d);
		for (1 .. 60) { my $p = int(rand($n)); my $w = int(rand(3));
			if ($w == 0) { substr($d, $p, 1) = chr(ord(substr($d, $p, 1)) ^ (1 << int(rand(8)))) }
			elsif ($w == 1) { substr($d, $p, 1) = "" } else { substr($d, $p, 0) = substr($d, $p, 1) } }
		print $d' "$seed" <"$work/bin" >"$work/bin$seed"
	"$dec" "$work/bin$seed" >"$work/bin$seed.out" 2>/dev/null
	case $? in 0) ;; 1) hit=$((hit + 1)) ;; *) bad="$bad $seed(exit)" ;; esac
	awk 'FNR == NR { if ($1 == "stream-begin") s = $2 " " $3 " " $4; else have[s SUBSEP $0] = 1; next }
		$1 == "stream-begin" { s = $2 " " $3 " " $4; next }
		($1 == "bts" || $1 == "lbr" || $1 == "pebs") && !((s SUBSEP $0) in have) { bad++ }
		END { exit bad > 0 }' "$work/txt.rec" "$work/bin$seed.out" || bad="$bad $seed"
done
[ -z "$bad" ] && [ "$hit" -ge 2 ]
ok $? "the binary capture damaged 60 times at random (four seeds, $hit of them hitting frames: exit 1): no crash, no record shown that the kernel did not print in its session${bad:+ (failed:$bad)}"

# Garbage: random bytes, and random text after the frame prefix (seeded): reported, no crash.
perl -e 'srand(7); for (1 .. 2000) { my $l = join("", map { chr(int(rand(256))) } 1 .. int(rand(300)));
	print rand() < 0.5 ? "\@BT1 $l\n" : "$l\n" }' >"$work/garbage"
"$dec" "$work/garbage" >/dev/null 2>"$work/g.err"
drc=$?
[ "$drc" = 1 ] && grep -q 'damaged frame' "$work/g.err"
ok $? "random bytes and random frame lines: exit 1 with the damage reported, no crash (exit $drc)"
"$dec" --view bogus "$work/log" >/dev/null 2>"$work/u.err"
[ $? = 2 ] && grep -q "accepted: text verify stats json perf raw folded trace" "$work/u.err" &&
	{ "$dec" "$work/nothere" 2>/dev/null; [ $? = 2 ]; }
ok $? "a bad view or a missing file: exit 2, saying what is accepted"
done_testing
