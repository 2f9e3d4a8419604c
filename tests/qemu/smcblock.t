#!/usr/bin/env bash
# Per-block stepping (docs/engine.md "Per-block stepping (ss.block)") must follow code that
# changes under it, and loops whose counter a store reaches through another page, exactly as
# a trap per instruction does. The workloads (arch/x86/workloads/smcblock.S, one reset for all
# in smcblock.c):
# - smcblock: blocks that rewrite one of their own later instructions (a NOP or TEST into a taken
#   JMP or JE, their closing JMP's or JE's displacement, an immediate their closing JE reads),
#   run it and put the old bytes back before the block ends (MOV, ADD/SUB, XCHG, MOV with an
#   index register, PUSH through an RSP set onto the code; through the direct map and through a
#   window of their own), in a chain's last block, and a store into the next block;
# - smcloop: counted loops whose runs rewrite the next run's code (a NOP or TEST into a JMP, the
#   counter's step), the last run putting the old bytes back; a loop swapping TEST and JMP;
# - smcjcc32: a JE rel32 (0F 84) whose condition and displacement change between calls of its
#   function (INC/DEC, ADD/SUB) and between runs of a chain holding it (MOV from a table);
# - aliasctr: counted loops whose memory counter [base + disp] a second store with the same base
#   and disp +- 4096 also moves (the page beside maps the same physical page): half (or a
#   third) of the runs the body alone says, the same final counter;
# - aliascode: such a store with the counter's base hitting the loop's own code;
# - aliasdata: such a store hitting a data word only: no effect, the loop stays counted.
# The processor executes the bytes present when it fetches (SDM Vol. 3A 8.1.3), and records
# every taken branch it executes (SDM Vol. 3B 17.4.8.1): QEMU's execution log of the same boot
# (scripts/qemu-exec-branches) is the oracle. Two boots, ss.block=on and ss.block=off, each with
# the engine (ss=) and BTS and LBR on the software PMU over the six; each checks
# (a) the engine's taken branches and step count, BTS's records and LBR's stack against QEMU's
#     log of that boot, every session passing, no refusal;
# (c) what the sources' comments work out, against QEMU's log: the branches each rewritten
#     instruction takes, each loop's runs, every signature (instructions, taken branches by
#     class);
# and then (b) the two boots' records are the same, workload by workload.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
unset SS_BLOCK # this test sets ss.block itself

names=(smcblock smcloop smcjcc32 aliasctr aliascode aliasdata)
list=$(
	IFS=,
	echo "${names[*]}"
)
nm "$build/kernel.elf" >"$work/nm"
sym() { awk -v s="$1" '$3 == s { print "0x" $1 }' "$work/nm" | sed 's/^0x0*/0x/'; }
# objdump's mnemonic at every address of the kernel's workload text, the exception stubs
objdump -d --no-show-raw-insn --start-address="$(sym __workload_start)" --stop-address="$(sym __workload_end)" \
	"$build/kernel.elf" | awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/^ */, "", a); sub(/:$/, "", a); print "0x" a, $2 }' >"$work/insns"
awk '$3 ~ /^exc_stub_[0-9]+$/ { print "0x" $1 }' "$work/nm" >"$work/stubs"

# runs_to QEMU.TXT ADDRESS: the oracle's runs (in order) whose first branch goes to ADDRESS
# (addresses compared as strings: mawk reads 0x... as lossy numbers)
runs_to() {
	awk -v to="$2" '/^run / { n++; first = 1; next } first { first = 0; if ($2 "" == to "") print n }' "$1"
}
# pairs RUN FROM TO: how many of RUN's records go FROM the symbol FROM TO the symbol TO
pairs() {
	printf '%s\n' "$1" | awk -v f="$(sym "$2")" -v t="$(sym "$3")" '$1 "" == f "" && $2 "" == t "" { c++ } END { print c + 0 }'
}
# classes RUN LO HI: RUN's taken branches FROM [LO, HI) by class, objdump's mnemonic at FROM (a
# record to an exception stub, or from an instruction that is no branch, is a delivery: none),
# as tests/qemu/selfcheck.t classes them
classes() {
	printf '%s\n' "$1" | perl -e '
		no warnings "portable";
		my ($lo, $hi) = map { hex } @ARGV[0, 1];
		open(my $f, "<", $ARGV[2]) or die; my %m;
		while (<$f>) { chomp; my ($a, $i) = split / /, $_, 2; $m{hex($a)} = $i // "" }
		open(my $s, "<", $ARGV[3]) or die; my %stub = map { chomp; (hex($_) => 1) } <$s>;
		my %c = map { $_ => 0 } qw(cond jmp ind-jmp call ind-call ret far);
		while (<STDIN>) {
			my ($from, $to) = split; next if $from eq "run"; my $a = hex($from);
			next unless $a >= $lo && $a < $hi && !$stub{hex($to)};
			my $i = $m{$a} // "?";
			my $k = $i =~ /^(j(?!mp)|loop|jrcxz|jecxz)/ ? "cond" : $i =~ /^jmp\s+\*/ ? "ind-jmp" :
				$i =~ /^jmp/ ? "jmp" : $i =~ /^call\s+\*/ ? "ind-call" : $i =~ /^call/ ? "call" :
				$i =~ /^ret/ ? "ret" : $i =~ /^(syscall|sysret|iret|int|lcall|ljmp|lret)/ ? "far" : "";
			$c{$k}++ if $k;
		}
		print join(" ", map { "$_=$c{$_}" } qw(cond jmp ind-jmp call ind-call ret far)), "\n";
	' "$2" "$3" "$work/insns" "$work/stubs"
}

# What each workload's source says QEMU's log of its engine run holds: "FROM TO COUNT WHY".
expect_pairs() {
	case $1 in
	smcblock)
		for c in a b c d e h i; do
			echo "smcb_${c}_slot smcb_${c}_back 2 the ${c^^} slot (a NOP or TEST made a JMP/JE, then put back) taken in both passes"
		done
		echo "smcb_f_jmp smcb_f_fix 2 F's closing JMP runs with its rewritten rel8 (onto smcb_f_fix, not smcb_f_to)"
		echo "smcb_f_jmp smcb_f_to 0 F's closing JMP never reaches its first target directly"
		echo "smcb_g_jcc smcb_g_fix 2 G's closing JE runs with its rewritten rel8 (onto smcb_g_fix)"
		echo "smcb_j_jcc smcb_i 0 J's JE is not taken (the CMP ran as CMP \$1)"
		;;
	smcloop)
		echo "smcl_a_slot smcl_a_back 7 loop A's slot a JMP in runs 2-8"
		echo "smcl_a_jcc smcl_a_slot 7 loop A: 8 runs"
		echo "smcl_b_slot smcl_b_back 5 loop B's slot a JMP in runs 2-6"
		echo "smcl_b_jcc smcl_b_slot 5 loop B: 6 runs"
		echo "smcl_c_jcc smcl_c_add 10 loop C: 11 runs (its body's first bytes say 20)"
		echo "smcl_d_slot smcl_d_back 3 loop D's slot a JMP in runs 2, 4, 6"
		echo "smcl_d_jcc smcl_d_slot 5 loop D: 6 runs"
		;;
	smcjcc32)
		echo "smcj_f_jcc smcj_f_t1 1 the JE rel32 taken to its first target in call 1"
		echo "smcj_f_jcc smcj_f_t2 2 and to its rewritten target in calls 3 (JNE) and 4 (JE)"
		echo "smcj_q_jcc smcj_q_r1 2 the chain's JE rel32 to R1 in runs 1 and 4"
		echo "smcj_q_jcc smcj_q_r2 1 and to R2 in run 3 (JNE, ZF clear)"
		;;
	aliasctr)
		echo "aliasctr_a_jcc aliasctr_a 9 A (SUB, SUB through the next page): 10 runs, not 20"
		echo "aliasctr_b_jcc aliasctr_b 7 B (DEC through the page before, DEC): 8 runs, not 16"
		echo "aliasctr_c_jcc aliasctr_c 9 C (ADD 1, ADD 2 through the alias): 10 runs, not 30"
		echo "aliasctr_d_jcc aliasctr_d 5 D (64-bit MOVs through registers): 6 runs, not 12"
		echo "aliasctr_e_jcc aliasctr_e 4 E (XCHG through the alias): 5 runs"
		echo "aliasctr_f_jcc aliasctr_f 3 F (a store with an index register): 4 runs"
		;;
	aliascode)
		echo "aliascode_slot aliascode_back 7 the loop's slot, rewritten through the counter's base, a JMP in runs 2-8"
		echo "aliascode_jcc aliascode_slot 7 8 runs"
		;;
	aliasdata)
		echo "aliasdata_jcc aliasdata_loop 39 40 runs: the aliasing store reaches data only"
		;;
	esac
}

filter=$("$top/scripts/qemu-exec-filter" "$build/kernel.elf")
for mode in on off; do
	t0=$(date +%s)
	boot --timeout 300 --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain --qemu-arg -dfilter --qemu-arg "$filter" \
		--qemu-arg -D --qemu-arg "$work/exec-$mode.log" -- ss="$list" trace=bts,lbr spmu=skylake workload="$list" \
		ss.block=$mode
	printf '%s\n' "$out" >"$work/out-$mode"
	echo "# ss.block=$mode: boot $(($(date +%s) - t0)) s"
	status_is 0 "ss.block=$mode: every session passes (results, self-checks)"
	errs=$(printf '%s\n' "$out" | grep '^error: ' | head -n 3)
	[ -z "$errs" ]
	ok $? "ss.block=$mode: no error (no refusal, no lost loop, no changed block)${errs:+: $errs}"
	printf '%s\n' "$out" | grep '^ss-blocks ' | sed "s/^/# ss.block=$mode: /"
	q=$work/qemu-$mode.txt
	oracle_runs "$work/exec-$mode.log" "$q" $((3 * ${#names[@]})) " (ss.block=$mode: ss, bts, lbr for each of the six)"
	QEB_PCS=1 "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec-$mode.log" >"$work/pcs-$mode.txt" 2>/dev/null
	for w in "${names[@]}"; do
		read -r -a r < <(runs_to "$q" "$(sym "arch_wl_$w")" | tr '\n' ' ')
		[ "${#r[@]}" = 3 ]
		ok $? "ss.block=$mode, QEMU's log: three runs of $w (ss, bts, lbr: ${r[*]})"
		qs=$(nth "$q" "${r[0]:-0}") qb=$(nth "$q" "${r[1]:-0}") ql=$(nth "$q" "${r[2]:-0}")
		# (a) the engine's run and both facilities' records are QEMU's
		k=$(ss_run "$w")
		has "ss-end $w ok" "ss.block=$mode, engine, $w: the result its source works out, natively and stepped"
		same "$k" "$qs" "ss.block=$mode, engine, $w: QEMU's taken branches and step count ($(printf '%s\n' "$qs" | sed -n 1p), $(run_branches "$qs" | wc -l) branches)"
		bts=$(kind_records bts "$w@skylake" bts 2 3)
		same "$bts" "$(run_branches "$qb")" "ss.block=$mode, bts, $w: every record is QEMU's, in order"
		lbr=$(kind_records lbr "$w@skylake" lbr 3 4)
		same "$lbr" "$(run_branches "$ql" | tac | head -n 32)" "ss.block=$mode, lbr, $w: QEMU's newest 32 branches, newest first"
		steps=$(printf '%s\n' "$out" | awk -v w="$w@skylake" '$1 == "trace-begin" && $3 == w { for (i = 4; i <= NF; i++) if ($i ~ /^steps=/) { sub("steps=", "", $i); printf "%s ", $i } }')
		want="$(printf '%s\n' "$qb" | awk 'NR == 1 { print $2 }') $(printf '%s\n' "$ql" | awk 'NR == 1 { print $2 }') "
		[ "$steps" = "$want" ]
		ok $? "ss.block=$mode, bts and lbr, $w: the sessions' step counts are QEMU's ($steps; QEMU $want)"
		printf '%s\n' "$k" >"$work/ss-$mode-$w"
		printf '%s\n' "$bts" >"$work/bts-$mode-$w"
		printf '%s\n' "$lbr" >"$work/lbr-$mode-$w"
		# (c) the source, against QEMU's log of the engine's run
		sig=$(printf '%s\n' "$out" | grep "^ss-signature $w ")
		read -r lo hi < <(printf '%s\n' "$sig" | sed -n 's/.* code=\([0-9a-fx]*\)-\([0-9a-fx]*\) .*/\1 \2/p')
		got=$(classes "$qs" "${lo:-0}" "${hi:-0}")
		wantc=$(printf '%s\n' "$sig" | grep -o 'cond=.* far=[0-9]*')
		[ -n "$wantc" ] && [ "$got" = "$wantc" ]
		ok $? "ss.block=$mode, QEMU's log, $w: its taken branches by class are its source's signature ($got; signature: ${wantc:-none})"
		n=$(awk -v w="${r[0]:-0}" '/^run / { n++; next } n == w' "$work/pcs-$mode.txt" | perl -ne '
			BEGIN { no warnings "portable"; ($lo, $hi) = map { hex } splice(@ARGV, 0, 2) }
			no warnings "portable";
			if (/^pc (\S+)/) { $a = hex($1); $n++ if $a >= $lo && $a < $hi }
			END { print $n + 0, "\n" }' "${lo:-0}" "${hi:-0}")
		wi=$(printf '%s\n' "$sig" | sed -n 's/.*instructions=\([0-9]*\).*/\1/p')
		[ -n "$wi" ] && [ "$n" = "$wi" ]
		ok $? "ss.block=$mode, QEMU's log, $w: it retired $n instructions of its code, as its source says (${wi:-none})"
		# each rewritten instruction and loop, in QEMU's log and in the engine's records
		while read -r from to count why; do
			got=$(pairs "$qs" "$from" "$to")
			[ "$got" = "$count" ]
			ok $? "ss.block=$mode, QEMU's log, $w: $from -> $to taken $got times, the source's $count: $why"
			got=$(pairs "$k" "$from" "$to")
			[ "$got" = "$count" ]
			ok $? "ss.block=$mode, engine, $w: $from -> $to recorded $got times, the source's $count"
		done < <(expect_pairs "$w")
	done
	blocks=$(printf '%s\n' "$out" | awk '$1 == "ss-blocks" && $3 > 0 { n++ } END { print n + 0 }')
	loops=$(printf '%s\n' "$out" | awk '$1 == "ss-blocks" && $2 == "aliasdata" { sub("loops=", "", $4); print $4 }')
	if [ "$mode" = on ]; then
		[ "$blocks" -ge 1 ]
		ok $? "ss.block=on: the engine ran blocks at full speed ($blocks of ${#names[@]} engine runs)"
		[ "${loops:-0}" -ge 1 ]
		ok $? "ss.block=on, aliasdata: its loop, whose aliasing store reaches data only, stays a counted one (loops=${loops:-none})"
	else
		[ "$blocks" = 0 ]
		ok $? "ss.block=off: no block, a trap after every instruction"
	fi
done

# (b) both modes, the same records
for w in "${names[@]}"; do
	for f in ss bts lbr; do
		same "$(cat "$work/$f-on-$w")" "$(cat "$work/$f-off-$w")" \
			"ss.block=on and off, $f, $w: the same records$([ "$f" = ss ] && echo " and step count")"
	done
done
done_testing
