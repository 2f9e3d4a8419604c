#!/usr/bin/env bash
# Self-verification (arch/x86/session/selfcheck.c): after each capture of a workload with a
# branch signature (every built-in one in assembly: the library, arch/x86/workloads/library.S,
# and loop, calls, indirect, user, faults, edges, flags, smc) the kernel checks the records against
# the signature worked out from the workload's source, and prints one TAP line per (workload,
# facility, CPU). Here: the signatures themselves against QEMU's execution log
# (objdump classifies each taken branch QEMU saw), every check passing on every personality and
# CPU, a model broken on purpose (spmu.drop) failing them, and the skips saying why.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
lib=loop,calls,indirect,user,faults,edges,flags,smc,countdown,nest,switch,recursion,sort,hash,chase,alias
nlib=16
user_va=0x7f0000000000 # the ring 3 page of "user" (arch/x86/cpu/usermode.h): user_code_page

# ---- the signatures against QEMU's log ----------------------------------------------------
boot --timeout 300 --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$user_va+0x1000")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" -- ss=$lib
status_is 0 "every workload with a signature runs stepped, with the result its source works out"
# Conditional branches to their own next instruction that edges.S's source makes taken (jz and
# jrcxz with their conditions true): QEMU's PCs alone cannot show them taken.
taken=$(nm "$build/kernel.elf" | awk '$3 == "edge_jz_taken" || $3 == "edge_jrcxz_taken" { printf "0x%s ", $1 }')
QEB_TAKEN="$taken" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" \
	"$user_va=user_code_page:0x1000" >"$work/qemu.txt" 2>"$work/err"
ok $? "the oracle read QEMU's log $(head -c 200 "$work/err")"
QEB_PCS=1 "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" \
	"$user_va=user_code_page:0x1000" >"$work/pcs.txt" 2>/dev/null
# objdump's mnemonic at every address of the kernel's text, the ring 3 page at its user address
ucp=$(nm "$build/kernel.elf" | awk '$3 == "user_code_page" { print $1 }')
objdump -d --no-show-raw-insn "$build/kernel.elf" | awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/^ */, "", a); sub(/:$/, "", a); print "0x" a, $2 }' >"$work/insns"
objdump -d --no-show-raw-insn --adjust-vma=$((user_va - 0x$ucp)) --start-address=$user_va \
	--stop-address=$((user_va + 0x1000)) "$build/kernel.elf" |
	awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/^ */, "", a); sub(/:$/, "", a); print "0x" a, $2 }' >>"$work/insns"
nm "$build/kernel.elf" | awk '$3 ~ /^exc_stub_[0-9]+$/ { print "0x" $1 }' >"$work/stubs"
i=0
for w in ${lib//,/ }; do
	i=$((i + 1))
	sig=$(printf '%s\n' "$out" | grep "^ss-signature $w ")
	[ -n "$sig" ]
	ok $? "$w: the kernel prints its signature ($sig)"
	ranges=$(printf '%s\n' "$sig" | sed -n 's/.* code=\([0-9a-fx]*\)-\([0-9a-fx]*\) code2=\([0-9a-fx]*\)-\([0-9a-fx]*\) .*/\1 \2 \3 \4/p')
	# QEMU's taken branches of run i FROM the code, classed by objdump's mnemonic there; a
	# record to an exception stub, or from an instruction that is no branch, is a delivery
	got=$(awk -v w="$i" '/^run / { n++; next } n == w' "$work/qemu.txt" | perl -e '
		no warnings "portable";
		my @r = map { hex } split / /, shift; # (hex("0") is 0: no second range)
		open(my $f, "<", shift) or die; my %m;
		while (<$f>) { chomp; my ($a, $i) = split / /, $_, 2; $m{hex($a)} = $i // "" }
		open(my $s, "<", shift) or die; my %stub = map { chomp; (hex($_) => 1) } <$s>;
		my %c = map { $_ => 0 } qw(cond jmp ind-jmp call ind-call ret far);
		while (<STDIN>) {
			my ($from, $to) = split; my $a = hex($from);
			next unless ($a >= $r[0] && $a < $r[1]) || ($a >= $r[2] && $a < $r[3]);
			next if $stub{hex($to)};
			my $i = $m{$a} // "?";
			my $k = $i =~ /^(j(?!mp)|loop|jrcxz|jecxz)/ ? "cond" : $i =~ /^jmp\s+\*/ ? "ind-jmp" :
				$i =~ /^jmp/ ? "jmp" : $i =~ /^call\s+\*/ ? "ind-call" : $i =~ /^call/ ? "call" :
				$i =~ /^ret/ ? "ret" : $i =~ /^(syscall|sysret|iret|int|lcall|ljmp|lret)/ ? "far" : "";
			$c{$k}++ if $k;
		}
		print join(" ", map { "$_=$c{$_}" } qw(cond jmp ind-jmp call ind-call ret far)), "\n";
	' "$ranges" "$work/insns" "$work/stubs")
	want=$(printf '%s\n' "$sig" | grep -o 'cond=.* far=[0-9]*')
	[ -n "$got" ] && [ "$got" = "$want" ]
	ok $? "$w: QEMU's taken branches from its code, by class, are its signature's ($got)"
	n=$(awk -v w="$i" '/^run / { n++; next } n == w' "$work/pcs.txt" | perl -ne '
		BEGIN { no warnings "portable"; @r = map { hex } split / /, shift @ARGV }
		no warnings "portable";
		if (/^pc (\S+)/) { $a = hex($1); $n++ if ($a >= $r[0] && $a < $r[1]) || ($a >= $r[2] && $a < $r[3]) }
		END { print $n + 0, "\n" }' "$ranges")
	wi=$(printf '%s\n' "$sig" | sed -n 's/.*instructions=\([0-9]*\).*/\1/p')
	[ "$n" = "$wi" ]
	ok $? "$w: QEMU ran $n of its instructions, as its signature says ($wi)"
done

# ---- every check passes: BTS, BTS with PMIs, LBR; five personalities; two CPUs -------------
boot --smp 2 --timeout 300 -- trace=bts,btsint,lbr spmu=skylake,nehalem,core2,icelake,arrowlake \
	workload=$lib trace.cpus=all
status_is 0 "the library under BTS, BTS+PMI and LBR on five personalities and two CPUs"
n=$(printf '%s\n' "$out" | grep -c '^ok [0-9]* - selfcheck ')
[ "$n" = $((3 * 5 * nlib * 2)) ]
ok $? "one passing self-check per workload, facility, personality and CPU ($n of $((3 * 5 * nlib * 2)))"
printf '%s\n' "$out" | grep -q '^not ok [0-9]* - selfcheck '
ok $((!$?)) "no self-check fails"
has "selfcheck: $((30 * nlib)) checks against the workloads' signatures: $((30 * nlib)) passed, 0 failed, 0 skipped" \
	"the summary counts them"
printf '%s\n' "$out" | grep -q '^ok [0-9]* - selfcheck bts switch@icelake cpu=1: the signature exactly (cond 29 jmp 23 ind-jmp 30 ret 1;'
ok $? "bts, switch: the counts are the source's: n - 1 = 29 cond, n - n/4 = 23 jmp, 30 ind-jmp, 1 ret"

# ---- a model that drops one branch: the checks must fail -------------------------------------
# The 2nd taken branch of a stepped run: the 1st is the engine's call into the workload.
boot --timeout 120 -- trace=bts,lbr spmu=skylake workload=$lib spmu.drop=2
status_is 1 "spmu.drop=2 (the model misses one taken branch a run): the boot fails"
n=$(printf '%s\n' "$out" | grep -c '^not ok [0-9]* - selfcheck bts .* recorded, the signature says')
[ "$n" = $nlib ]
ok $? "every BTS self-check fails, naming the class that is one short ($n of $nlib)"

# ---- skips say why ----------------------------------------------------------------------------
boot --timeout 120 -- trace=bts spmu=skylake workload=countdown bts.ring=user
has "- selfcheck bts countdown@skylake cpu=0 # SKIP bts.ring leaves a ring out" \
	"bts.ring=user: the check is skipped, with the reason"
boot --timeout 120 -- trace=bts spmu=none workload=countdown
has "- selfcheck bts countdown cpu=0 # SKIP the CPU has no bts" "spmu=none on a CPU without BTS: skipped, with the reason"
# ---- the default session: no config file, no options (make run) ----------------------------------
boot --smp 2 --timeout 300
status_is 0 "no options: the default session passes"
has "default session: no config file and no options" "it says it is the default session"
for f in lbr bts btsint pebs btf pmc; do
	# a session is one workload on one CPU: 2 a workload here, as "trace: N sessions" counts
	printf '%s\n' "$out" | grep -Eq "^summary: $f +$((2 * nlib)) +$((2 * nlib)) +0 +0 "
	ok $? "the summary table has $f: $nlib workloads on 2 CPUs, $((2 * nlib)) sessions, all passed"
done
has "selfcheck: $((10 * nlib)) checks against the workloads' signatures: $((10 * nlib)) passed, 0 failed, 0 skipped" \
	"$((10 * nlib)) self-checks (lbr, bts, btsint, pebs, pmc x $nlib workloads x 2 CPUs), all passed"
printf '%s\n' "$out" | grep -q "^summary: lbr .*SOFTWARE PMU on 2 of 2 CPUs (model-verified, not silicon)"
ok $? "the table says the software PMU stood in, model-verified"
# The result contract (README "The result contract") on a real run's lines: the self-check lines
# numbered 1..N in order, each named 'FACILITY WORKLOAD@PERSONALITY cpu=N' then ': ' or ' # SKIP ';
# each summary row's sessions the sum of its passed, failed, skipped and incomplete; the kernel's
# last line 'run finished: PASS'; and LAVA's reading of them (scripts/lava/cases, the monitor's
# pattern): one case per self-check line and per row, each passing, then run_finished.
printf '%s\n' "$out" | tr -d '\r' >"$work/default.log"
bad=$(grep -E '^(not )?ok [0-9]+ - selfcheck ' "$work/default.log" | awk '
	{ n++; if ($0 !~ /^(not )?ok [0-9]+ - selfcheck [a-z]+ [a-z]+(@[a-z0-9]+)? cpu=[0-9]+(: | # SKIP )./ ||
	      $($1 == "not" ? 3 : 2) != n) print }' | head -n 3)
[ -z "$bad" ] && grep -q '^ok 1 - selfcheck ' "$work/default.log"
ok $? "every self-check line is 'ok|not ok N - selfcheck FAC WORKLOAD@PERS cpu=N: ...', numbered from 1${bad:+: $bad}"
bad=$(grep -E '^summary: [a-z]+ +[0-9]' "$work/default.log" | awk '
	$0 !~ /^summary: [a-z]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\/[0-9]+  [^ ]/ || $3 != $4 + $5 + $6 + $7')
[ -z "$bad" ] && grep -qx 'summary: facility sessions passed failed skipped incomplete selfchecks  where' "$work/default.log"
ok $? "the summary's header and rows are in the documented format, sessions = passed + failed + skipped + incomplete${bad:+: $bad}"
[ "$(grep -v '^$' "$work/default.log" | grep -v '^scripts/run' | tail -n 1)" = "run finished: PASS" ]
ok $? "the kernel's last line is 'run finished: PASS'"
"$top/scripts/lava/cases" "$work/default.log" >"$work/cases"
lines=$(grep -cE '^(not )?ok [0-9]+ - selfcheck ' "$work/default.log")
rows=$(grep -cE '^summary: [a-z]+ +[0-9]' "$work/default.log")
[ "$(grep -c '^selfcheck_.* pass$' "$work/cases")" = "$lines" ] && [ "$(grep -c '^summary_.* pass$' "$work/cases")" = "$rows" ] &&
	[ "$(tail -n 2 "$work/cases" | tr '\n' ' ')" = "run_finished pass end " ] && [ "$(wc -l <"$work/cases")" = $((lines + rows + 2)) ]
ok $? "LAVA's monitor pattern reads $lines passing self-check cases, $rows summary cases and run_finished from it"
# ---- parameters: the signatures follow the argument (checked, not assumed) ---------------------
# (Sizes that keep every run's records within a session's store: 43690 BTS records, 5242 PEBS
# records of 200 bytes.)
boot --timeout 120 -- trace=bts,pebs spmu=skylake workload=switch,recursion,sort,hash,chase \
	switch.n=101 recursion.depth=200 sort.n=150 hash.n=5000 chase.nodes=4096 bts.records=20000
status_is 0 "the library with other parameters: every self-check passes"
has "bts switch@skylake cpu=0: the signature exactly (cond 100 jmp 76 ind-jmp 101 ret 1;" \
	"switch.n=101: 100 cond, 101 - floor(101/4) = 76 jmp, 101 ind-jmp, from the source"
has "bts recursion@skylake cpu=0: the signature exactly (cond 1 call 200 ret 201;" \
	"recursion.depth=200: 200 calls, 201 rets"
has "bts chase@skylake cpu=0: the signature exactly (cond 8190 ret 1;" \
	"chase.nodes=4096: two loops of 4095 taken branches each"
n=$(printf '%s\n' "$out" | grep -c '^ok [0-9]* - selfcheck ')
[ "$n" = 10 ]
ok $? "ten self-checks pass ($n)"
boot --timeout 60 -- chase.nodes=100
status_is 2 "chase.nodes=100 is refused"
has "option 'chase.nodes': 100 is not a power of two" "the refusal says why and what is accepted"
done_testing
