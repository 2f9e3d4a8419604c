#!/usr/bin/env bash
# Self-verification (arch/x86/session/selfcheck.c): after each capture of a library workload
# (arch/x86/workloads/library.S) the kernel checks the records against the workload's branch
# signature, worked out from its source (arch/x86/workloads/library.c), and prints one TAP line
# per (workload, facility, CPU). Here: the signatures themselves against QEMU's execution log
# (objdump classifies each taken branch QEMU saw), every check passing on every personality and
# CPU, a model broken on purpose (spmu.drop) failing them, and the skips saying why.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lib=countdown,nest,switch,recursion,sort

# ---- the signatures against QEMU's log ----------------------------------------------------
boot --timeout 300 --qemu-arg -singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" -- ss=$lib
status_is 0 "the library runs stepped, each with the result its source works out"
"$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" >"$work/qemu.txt" 2>"$work/err"
ok $? "the oracle read QEMU's log $(head -c 200 "$work/err")"
QEB_PCS=1 "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" >"$work/pcs.txt" 2>/dev/null
# objdump's mnemonic at every address of the kernel's text
objdump -d --no-show-raw-insn "$build/kernel.elf" | awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/^ */, "", a); sub(/:$/, "", a); print "0x" a, $2 }' >"$work/insns"
i=0
for w in ${lib//,/ }; do
	i=$((i + 1))
	sig=$(printf '%s\n' "$out" | grep "^ss-signature $w ")
	[ -n "$sig" ]
	ok $? "$w: the kernel prints its signature ($sig)"
	range=$(printf '%s\n' "$sig" | sed -n 's/.* code=\(0x[0-9a-f]*\)-\(0x[0-9a-f]*\) .*/\1 \2/p')
	# QEMU's taken branches of run i FROM the code, classed by objdump's mnemonic there
	got=$(awk -v w="$i" '/^run / { n++; next } n == w' "$work/qemu.txt" | perl -e '
		no warnings "portable";
		my ($lo, $hi) = map { hex } split / /, shift;
		open(my $f, "<", shift) or die; my %m;
		while (<$f>) { chomp; my ($a, $i) = split / /, $_, 2; $m{hex($a)} = $i // "" }
		my %c = map { $_ => 0 } qw(cond jmp ind-jmp call ind-call ret far);
		while (<STDIN>) {
			my ($from) = split; my $a = hex($from);
			next unless $a >= $lo && $a < $hi;
			my $i = $m{$a} // "?";
			my $k = $i =~ /^(j(?!mp)|loop|jrcxz|jecxz)/ ? "cond" : $i =~ /^jmp\s+\*/ ? "ind-jmp" :
				$i =~ /^jmp/ ? "jmp" : $i =~ /^call\s+\*/ ? "ind-call" : $i =~ /^call/ ? "call" :
				$i =~ /^ret/ ? "ret" : "far";
			$c{$k}++;
		}
		print join(" ", map { "$_=$c{$_}" } qw(cond jmp ind-jmp call ind-call ret far)), "\n";
	' "$range" "$work/insns")
	want=$(printf '%s\n' "$sig" | grep -o 'cond=.* far=[0-9]*')
	[ -n "$got" ] && [ "$got" = "$want" ]
	ok $? "$w: QEMU's taken branches from its code, by class, are its signature's ($got)"
	n=$(awk -v w="$i" '/^run / { n++; next } n == w' "$work/pcs.txt" | perl -ne '
		BEGIN { no warnings "portable"; ($lo, $hi) = map { hex } split / /, shift @ARGV }
		no warnings "portable"; $n++ if /^pc (\S+)/ && hex($1) >= $lo && hex($1) < $hi;
		END { print $n + 0, "\n" }' "$range")
	wi=$(printf '%s\n' "$sig" | sed -n 's/.*instructions=\([0-9]*\).*/\1/p')
	[ "$n" = "$wi" ]
	ok $? "$w: QEMU ran $n of its instructions, as its signature says ($wi)"
done

# ---- every check passes: BTS, BTS with PMIs, LBR; five personalities; two CPUs -------------
boot --smp 2 --timeout 300 -- trace=bts,btsint,lbr spmu=skylake,nehalem,core2,icelake,arrowlake \
	workload=$lib trace.cpus=all
status_is 0 "the library under BTS, BTS+PMI and LBR on five personalities and two CPUs"
n=$(printf '%s\n' "$out" | grep -c '^ok [0-9]* - selfcheck ')
[ "$n" = $((3 * 5 * 5 * 2)) ]
ok $? "one passing self-check per workload, facility, personality and CPU ($n of 150)"
printf '%s\n' "$out" | grep -q '^not ok [0-9]* - selfcheck '
ok $((!$?)) "no self-check fails"
has "selfcheck: 150 checks against the workloads' signatures: 150 passed, 0 failed, 0 skipped" \
	"the summary counts them"
printf '%s\n' "$out" | grep -q '^ok [0-9]* - selfcheck bts switch@icelake cpu=1: the signature exactly (cond 29 jmp 23 ind-jmp 30 ret 1;'
ok $? "bts, switch: the counts are the source's: n - 1 = 29 cond, n - n/4 = 23 jmp, 30 ind-jmp, 1 ret"

# ---- a model that drops one branch: the checks must fail -------------------------------------
boot --timeout 120 -- trace=bts,lbr spmu=skylake workload=$lib spmu.drop=5
status_is 1 "spmu.drop=5 (the model misses one taken branch a run): the boot fails"
n=$(printf '%s\n' "$out" | grep -c '^not ok [0-9]* - selfcheck bts .* recorded, the signature says')
[ "$n" = 5 ]
ok $? "every BTS self-check fails, naming the class that is one short ($n of 5)"

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
	printf '%s\n' "$out" | grep -Eq "^summary: $f +5 +5 +0 +0 "
	ok $? "the summary table has $f: 5 workloads, all passed"
done
has "selfcheck: 40 checks against the workloads' signatures: 40 passed, 0 failed, 0 skipped" \
	"40 self-checks (lbr, bts, btsint, pebs x 5 workloads x 2 CPUs), all passed"
printf '%s\n' "$out" | grep -q "^summary: lbr .*SOFTWARE PMU on 2 of 2 CPUs (model-verified, not silicon)"
ok $? "the table says the software PMU stood in, model-verified"
done_testing
