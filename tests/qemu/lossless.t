#!/usr/bin/env bash
# Nothing lost (docs/record-stream.md "Nothing lost"): with the smallest record store the option
# accepts (trace.store=1: one 4 KiB page, 170 BTS records of the SDM's 24 bytes, Vol. 3B 17.4.8.2;
# three or four PEBS records), every record still reaches the host, on every path a full store
# can take (a live drainer, the traced CPU handing records on itself, a CPU waiting for the
# console's owner), as whole lines and whole frames; capture.full=stop and wrap give records up
# and say exactly how many; settings that cannot fit are refused before the first session (a
# serial reader that stalls: tests/long/capture.t, make long-check). Expectations: the
# workload's source (library.S's switch, its branches counted here from its comments, and its
# signature by the kernel's self-check), the record size the SDM gives, the stream's own
# proof of completeness (tools/btdecode: frame numbers, sessions, digests, the boot's END).
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
dec=$build/btdecode
# switch.n=n (library.S): n - 1 JB, n - floor(n/4) JMP, n indirect JMP within its code, then
# its RET: 3n - floor(n/4) - 1 records from its code to its code
n=1500
taken=$((3 * n - n / 4 - 1))
sw_lo=$(nm "$build/kernel.elf" | awk '$3 == "arch_wl_switch" { print $1 }')
sw_hi=$(nm "$build/kernel.elf" | awk '$3 == "arch_wl_switch_end" { print $1 }')
# in_code FILE: the decoded BTS records of FILE from the switch workload's code to its code (its
# RET and the deliveries of PMIs leave it)
in_code() {
	# 64-bit addresses compared as 16-digit hex strings (perl's integers may be signed)
	perl -ne 'BEGIN { ($lo, $hi) = map { my $x = sprintf "%016s", lc; $x =~ tr/ /0/; $x } splice(@ARGV, 0, 2); $n = 0 }
		if (/^bts 0x(\S+) 0x(\S+)/) { my ($f, $t) = map { my $x = sprintf "%016s", lc; $x =~ tr/ /0/; $x } ($1, $2);
			$n++ if $f ge $lo && $f lt $hi && $t ge $lo && $t lt $hi }
		END { print "$n\n" }' "$sw_lo" "$sw_hi" "$1"
}

# 1. The stream, live: each CPU in turn, the other draining it; every facility that records
#    during the run, a store of one page.
boot --smp 2 --timeout 180 -- stream=text trace.store=1 trace=btsint,pebs,pmc,btf \
	workload=switch switch.n=$n trace.cpus=each
printf '%s\n' "$out" >"$work/live"
"$dec" "$work/live" >"$work/live.dec" 2>"$work/live.err"
drc=$?
sessions=$(grep -c '^stream-end .* lost=0 digest=ok' "$work/live.dec")
[ "$rc" = 0 ] && [ "$drc" = 0 ] && [ "$sessions" = 8 ] && ! grep -q '^incomplete' "$work/live"
ok $? "trace.store=1, live: every session whole (run $rc, decoder $drc, $sessions of 8 sessions lost=0 digest=ok) $(head -c 200 "$work/live.err")"
btsint=$(awk '$1 == "stream-begin" { on = ($2 == "btsint" && $4 == "cpu=0") } on' "$work/live.dec")
printf '%s\n' "$btsint" >"$work/btsint0"
total=$(grep -c '^bts ' "$work/btsint0")
[ "$(in_code "$work/btsint0")" = "$taken" ] && [ "$total" -gt 170 ] &&
	grep -q "^ok [0-9]* - selfcheck btsint switch@skylake cpu=1: the signature exactly" "$work/live"
ok $? "btsint: the $taken branches of switch.n=$n within its code, as its source counts them ($total records in all, through a 170-record store)"
grep -q '^note: .* held [0-9]* us while the store made room' "$work/live"
ok $? "the full store held the workload while the drainer made room, and said so"

# 2. Text lines, every CPU at once: no drainer, each traced CPU hands records on itself, CPU 1
#    waits for the boot CPU to write its lines out. Every record line whole, none lost.
boot --smp 2 --timeout 180 -- stream=off trace.store=1 trace=btsint,pebs \
	workload=switch switch.n=$n trace.cpus=all
printf '%s\n' "$out" | tr -d '\r' >"$work/all"
bad=$(grep -cvE '^(bts 0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+( leak)?|pebs 0x[0-9a-f]+ 0x[0-9a-f]+ applicable=0x[0-9a-f]+ size=[0-9]+ ip=(exact|trap|fault)( lbr 0x[0-9a-f]+ 0x[0-9a-f]+)?( dla=0x[0-9a-f]+ src=0x[0-9a-f]+ lat=[0-9]+)?)$' \
	<(grep -E '(bts|pebs) 0x' "$work/all"))
c0=$(awk '$1 == "trace-end" && $2 == "btsint" { exit } $1 == "bts" && $0 !~ /cpu=1/ { n++ } END { print n + 0 }' "$work/all")
[ "$rc" = 0 ] && [ "$bad" = 0 ] && ! grep -q '^incomplete' "$work/all" &&
	[ "$(grep -c '^ok [0-9]* - selfcheck btsint switch@skylake cpu=[01]: the signature exactly' "$work/all")" = 2 ]
ok $? "trace.store=1, all CPUs at once, text lines: whole (no line cut: $bad bad), both CPUs' btsint exactly the signature, run $rc"

# 3. capture.full=stop: the store keeps its first 170 records, the rest is counted, said, and
#    the run is INCOMPLETE (status 4).
boot --timeout 120 -- stream=text trace.store=1 capture.full=stop stream.live=off trace=btsint \
	workload=switch switch.n=$n
printf '%s\n' "$out" >"$work/stop"
"$dec" "$work/stop" >"$work/stop.dec" 2>/dev/null
lost=$((total - 170))
[ "$rc" = 4 ] && grep -q '^run finished: INCOMPLETE' "$work/stop" &&
	[ "$(grep -c '^bts ' "$work/stop.dec")" = 170 ] &&
	grep -q "^stream-end btsint switch@skylake cpu=0 records=170 lost=$lost digest=ok why=store-full=$lost " "$work/stop.dec" &&
	grep -q "^incomplete: btsint: switch@skylake cpu=0: $lost records not delivered (store-full=$lost " "$work/stop" &&
	grep -q "^summary: incomplete: btsint switch@skylake cpu=0: $lost records" "$work/stop"
ok $? "capture.full=stop: 170 records kept, the other $lost counted with their reason in END, the session's line and the summary; INCOMPLETE (status $rc)"

# 4. capture.full=wrap: the newest 170 records, the oldest counted.
boot --timeout 120 -- stream=text trace.store=1 capture.full=wrap trace=btsint workload=switch \
	switch.n=$n
printf '%s\n' "$out" >"$work/wrap"
"$dec" "$work/wrap" 2>/dev/null | grep '^bts ' >"$work/wrap.bts"
[ "$rc" = 4 ] && cmp -s "$work/wrap.bts" <(grep '^bts ' "$work/btsint0" | tail -n 170) &&
	grep -q "^incomplete: btsint: switch@skylake cpu=0: $lost records not delivered (.*wrapped=$lost)" "$work/wrap"
ok $? "capture.full=wrap: the newest 170 records, exactly those the whole capture ends with; $lost given up, said; INCOMPLETE (status $rc)"

# 5. Settings that cannot fit are refused before the first session, with the sizes.
boot --memory 128M --timeout 60 -- trace=bts trace.store=262144
[ "$rc" = 2 ] && printf '%s\n' "$out" | grep -q '^error: the trace options need [0-9]* KiB on 1 CPU .* KiB are free: a smaller trace.store' &&
	! printf '%s\n' "$out" | grep -q '^trace-begin '
ok $? "trace.store=256 MiB in 128 MiB: refused before any session, with the sizes (status $rc)"

done_testing
