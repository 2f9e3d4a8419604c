#!/usr/bin/env bash
# The single-step engine and the software PMU against an independent oracle: QEMU's own
# execution log of the same boot (-singlestep -d exec,nochain, filtered to the workload range
# and the ring 3 code page), with instruction lengths from objdump. 125 single-stepped
# runs, in order: the engine's own view (ss=all), a BTS session, a BTS session in interrupt
# mode drained by its threshold PMI (virtual PMI through the LAPIC), and an LBR session
# (trace=bts,btsint,lbr on the software PMU as Skylake, legacy LBR format 5, and as Arrow
# Lake, Architectural LBR, and as Core 2 and Ice Lake), each over the counted loop, nested calls, indirect calls and
# ring 3 <-> ring 0 round trips (IRETQ, SYSCALL, SYSRET) and a #BP/#PF workload; then PEBS,
# BTF (single-step on branches) and counter sampling (PMC0 overflow PMIs) sessions. For each
# run the taken branches must be the same sequence with the same from/to and the step counts
# must agree; the LBR stack must hold the newest branches of the run, newest first; PEBS and
# counter samples must land on QEMU's every N-th instruction; BTF must trap on every branch
# target QEMU took; with LBR on, every exception the workload takes reports the branch before it
# (LER). The BTS, LBR, PEBS, BTF and counter records checked are those of the record stream
# (stream=text, BTS along the code) as tools/btdecode rebuilds them, not the kernel's own lines.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
names=(loop calls indirect user faults)
nw=${#names[@]}
personas=(skylake arrowlake core2 icelake)
np=${#personas[@]}
total_runs=$((nw + 6 * np * nw))
user_va=0x7f0000000000

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print $1 }'; }
lo=$(sym __workload_start)
hi=$(sym __workload_end)
[ -n "$lo" ] && [ -n "$hi" ] && [ -n "$(sym user_code_page)" ]
ok $? "the kernel has a workload range (0x$lo..0x$hi) and a ring 3 code page"

# QEMU single-steps the whole boot for this log: allow for it.
boot --timeout 300 --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$user_va+0x1000")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" -- ss=all trace=bts,btsint,lbr,pebs,btf,pmc spmu=skylake,arrowlake,core2,icelake freeze=lbrs \
	pebs.groups=meminfo,gpr,lbr stream=text btsint.records=32 ${PMI:+pmi=$PMI}

status_is 0 "every workload gives its expected result when stepped, traced by BTS and by LBR"
has "using the SOFTWARE PMU as 'skylake'" "the software PMU is announced loudly"

oracle_runs "$work/exec.log" "$work/qemu.txt" "$total_runs" "" "$user_va=user_code_page:0x1000"

# The exception stubs the fault workload enters (#BP, #PF) and the stubs' IRETQ, as the oracle
# prints addresses.
stub3=$(printf '%#x' "0x$(sym exc_stub_3)")
stub14=$(printf '%#x' "0x$(sym exc_stub_14)")
iret=$(printf '%#x' "0x$(sym trap_iret)")
# The PMI's stub: NMI's (vector 2, the default delivery, option pmi) or the vector the kernel
# reports ("PMI on vector 0x..", pmi=vector: PMI=vector in the environment).
pmi_vector=$(printf '%s\n' "$out" | sed -n 's/.*PMI on vector \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
printf '%s\n' "$out" | grep -q 'PMI on NMI' && pmi_nmi=1 pmi_vector=2 if_end=user_syscall_entry
pmi_stub=$(printf '%#x' "0x$(sym "exc_stub_$((pmi_vector))")")
[ -n "$pmi_vector" ] && [ "$pmi_stub" != 0x ]
ok $? "the PMI's delivery (${pmi_nmi:+NMI, }vector $pmi_vector) and its stub ($pmi_stub)"

# The records the checks below read are the decoded stream's (BTS along the code, LBR, PEBS,
# BTF trap targets, counter samples: tools/btdecode, every session's digest checked); only
# what the stream does not carry (the engine's own ss-branch lines, steps, LER, exceptions) is
# read from the kernel's lines.
printf '%s\n' "$out" >"$work/log"
"$build/btdecode" "$work/log" >"$work/decoded" 2>"$work/decode.err"
drc=$?
decoded=$(cat "$work/decoded")
nstream=$(grep -c '^stream-begin ' "$work/decoded")
[ "$drc" = 0 ] && [ ! -s "$work/decode.err" ] && [ "$nstream" -gt 0 ] &&
	[ "$(grep -c ' digest=ok' "$work/decoded")" = "$nstream" ]
ok $? "btdecode rebuilds the $nstream streamed sessions, every digest matching (exit $drc) $(head -c 200 "$work/decode.err")"

# run N of a file in the oracle's format ("run STEPS", then "FROM TO" lines)

# for_runs CHECK: CHECK RUN LABEL WORKLOAD-INDEX for every personality and workload, in the
# order the kernel ran them (the global $run counts on)
for_runs() {
	local p w
	for p in "${personas[@]}"; do
		for w in $(seq 1 "$nw"); do
			run=$((run + 1))
			"$1" "$run" "${names[w - 1]}@$p" "$w"
		done
	done
}

# records FACILITY LABEL KIND FIELD...: fields of the KIND lines of one session's report: the
# decoded stream's for the records it carries, else the kernel's lines
records() {
	local fac=$1 label=$2 kind=$3 src=$out begin=trace-begin end=trace-end
	shift 3
	case "$fac:$kind" in
	bts:bts | btsint:bts | lbr:lbr | pebs:pebs | btf:btf | pmc:sample) src=$decoded begin=stream-begin end=stream-end ;;
	esac
	printf '%s\n' "$src" | awk -v f="$fac" -v n="$label" -v k="$kind" -v fields="$*" -v b="$begin" -v e="$end" '
		BEGIN { nf = split(fields, want, " ") }
		$1 == b && $2 == f { on = ($3 == n) } $1 == e { on = 0 }
		on && $1 == k { line = ""; for (i = 1; i <= nf; i++) line = line (i > 1 ? " " : "") $want[i]; print line }'
}
# key FACILITY LABEL KEY: a value of the session's trace-begin line
key() {
	printf '%s\n' "$out" | awk -v fac="$1" -v lab="$2" -v k="$3" '
		$1 == "trace-begin" && $2 == fac && $3 == lab { for (i = 4; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }'
}

# The kernel's runs in the oracle's format: ss, then bts, then btsint (lbr is separate): each
# run's steps from the kernel's lines, the engine's branches too, the BTS records decoded.
printf '%s\n' "$decoded" | awk '$1 == "stream-begin" { s = $2 " " $3 " " $4 } $1 == "bts" { print s "|" $2 " " $3 }' \
	>"$work/decoded-bts.txt"
printf '%s\n' "$out" | awk -v dec="$work/decoded-bts.txt" '
	BEGIN { while ((getline l < dec) > 0) { split(l, a, "|"); recs[a[1]] = recs[a[1]] a[2] "\n" } }
	/^ss-begin |^trace-begin bts |^trace-begin btsint / { for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { split($i, a, "="); print "run", a[2] } }
	/^trace-begin bts |^trace-begin btsint / { printf "%s", recs[$2 " " $3 " " $4] }
	/^ss-branch / { print $2, $3 }' >"$work/kernel.txt"

# same_lines GOT WANT DESCRIPTION [EXTRA]: one check that GOT equals WANT and that EXTRA (an
# exit status, 0 if left out) is 0; on a mismatch the start of the diff, as TAP comments.
same_lines() {
	[ "$1" = "$2" ] && [ "${4:-0}" = 0 ]
	ok $? "$3"
	[ "$1" = "$2" ] || diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") | head -n 6 | sed 's/^/# /'
}

# One comparison of kernel run $1 with QEMU run $1, described as $2.
same_run() {
	local k q nb
	k=$(nth "$work/kernel.txt" "$1")
	q=$(nth "$work/qemu.txt" "$1")
	nb=$(printf '%s\n' "$k" | grep -vc '^run ')
	[ "$nb" -ge 2 ] # every run has at least the call in and the return
	same_lines "$k" "$q" "$2: the same $nb taken branches (from, to, order) and step count as QEMU" $?
	last_nb=$nb
}

for w in $(seq 1 "$nw"); do
	same_run "$w" "engine, ${names[w - 1]}"
done
run=$nw
for fac in bts btsint; do
	for p in "${personas[@]}"; do
		for w in $(seq 1 "$nw"); do
			run=$((run + 1))
			label="${names[w - 1]}@$p"
			same_run "$run" "$fac, $label"
			[ "$fac" = btsint ] || continue
			line=$(printf '%s\n' "$out" | grep "^trace-begin btsint $label ")
			pmis=$(printf '%s\n' "$line" | sed -n 's/.* pmis=\([0-9]*\) drains=\([0-9]*\) virtual-pmis=\([0-9]*\) masked=\([0-9]*\) dropped=0 lost=0 .*/\1 \2 \3 \4/p')
			read -r pm d vp mk <<<"$pmis"
			# The threshold sits 24 records into the buffer and the PMI is taken at the
			# next instruction boundary; its delivery is a record too (17.4.8.1:
			# "taken branches, interrupts, and exceptions"), the 25th, the service
			# routine drains them all, and the IRET back is the first of the next
			# buffer: in QEMU's sequence every PMI delivery comes 24 records after the
			# previous one (or the start), and there is one per PMI and drain. The
			# delivery's own record, past the threshold, asks for a PMI again while
			# LVTPC is masked ("the local APIC ... automatically sets the mask flag",
			# SDM Vol. 3B 18.6.3.5.8 / 11.5.1): one masked request per PMI.
			at=$(nth "$work/qemu.txt" "$run" | grep -v '^run ' | awk -v s="$pmi_stub" '
				$2 "" == s "" { printf "%s%d", (n++ ? " " : ""), NR - last; last = NR }')
			nd=$(printf '%s\n' "$at" | wc -w)
			[ -n "${pm:-}" ] && [ "$pm" = "$nd" ] && [ "$pm" = "$d" ] && [ "$pm" = "$vp" ] && [ "$pm" = "$mk" ] &&
				[ -z "$(printf '%s\n' $at | grep -vx 25)" ] && { [ "$pm" -gt 0 ] || [ "$last_nb" -lt 25 ]; }
			ok $? "btsint, $label: a PMI after every 24 records, its delivery the 25th, each drained, none lost (gaps: ${at:-none}; $line)"
			# (The last exception record is checked in the LBR sessions only: whether silicon
			# keeps it with DEBUGCTL.LBR clear, as in these, is not settled;
			# docs/engine.md.)
		done
	done
done
check_lbr() {
	local run=$1 label=$2 w=$3
	l=$(records lbr "$label" lbr 3 4)
	depth=$(key lbr "$label" depth)
	all=$(nth "$work/qemu.txt" "$run" | grep -v '^run ')
	total=$(printf '%s\n' "$all" | grep -c .)
	want=$((total < ${depth:-32} ? total : ${depth:-32}))
	q=$(printf '%s\n' "$all" | tail -n "$want" | tac)
	n=$(printf '%s\n' "$l" | grep -c .)
	[ -n "$l" ] && [ "$l" = "$q" ] && [ "$n" = "$want" ]
	ok $? "lbr, $label: the $n entries (depth ${depth:-?}) are QEMU's newest branches, newest first"
	# With DEBUGCTL.LBR set the last exception record holds "the last branch that the
	# processor took prior to an exception or interrupt" (SDM Vol. 3B 17.11.3): for the fault
	# workload's #BP (3) and #PF (14), QEMU's record before each delivery (the call into it,
	# then the #BP handler's IRET back); without exceptions or interrupts it stays 0.
	ler=$(records lbr "$label" ler 2 3)
	if [ "${names[w - 1]}" = faults ]; then
		exc=$(records lbr "$label" exception 2 5 6 | sed 's/^vector=//')
		want=$(printf '%s\n' "$all" | awk -v s3="$stub3" -v s14="$stub14" '
			$2 "" == s3 "" { print 3, prev } $2 "" == s14 "" { print 14, prev } { prev = $0 }')
		[ -n "$want" ] && [ "$exc" = "$want" ] && [ "$ler" = "$(printf '%s\n' "$want" | tail -n 1 | cut -d' ' -f2-)" ]
		ok $? "lbr, $label: the #BP and the #PF each report QEMU's branch before them ($(echo $exc)), the LER holds the last ($ler)"
	else
		[ "$ler" = "0 0" ] # printf's %#lx prints 0 as "0"
		ok $? "lbr, $label: no exception, no last exception record ($ler)"
	fi
}
for_runs check_lbr
# PEBS: counter 0 counts retired instructions from -37 and overflows at the 37th; "an overflow
# condition in the counter will arm PEBS. On the subsequent event following overflow, the
# processor will generate a PEBS event" (SDM Vol. 3B 18.4.4), which reloads -37: record k
# samples the (38k)-th instruction of the run, its address the eventing IP, the next one the
# trap-like RIP.
QEB_PCS=1 "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" \
	"$user_va=user_code_page:0x1000" >"$work/pcs.txt"
exit_addr=$(printf '0x%x' 0x$(sym ss_exit))
# last_branches RUN PERIOD: for every PERIOD-th instruction of run RUN in QEMU's log, the last
# taken branch at or before it ("FROM TO"): what a frozen LBR stack holds when the counter
# that overflowed on that instruction raises its PMI or writes its PEBS record. A PMI comes
# after the instruction that asked for it: its delivery (FROM the next instruction TO the
# PMI's stub) finds the LBRs frozen (freeze=lbrs) and is not recorded; the routine unfreezes
# them before its IRET, which is (FROM trap_iret TO the next instruction).
last_branches() {
	awk -v x="$exit_addr" -v per="$2" -v ps="$pmi_stub" -v ir="$iret" '
		FNR == NR { if (!/^run /) { f[++nb] = $1; t[nb] = $2 }; next }
		/^pc / { pc[++n] = $2 }
		END { pc[n + 1] = x; j = 1
			for (i = 1; i <= n; i++) {
				# string comparison: mawk reads 0x... as (lossy) numbers
				if (j <= nb && pc[i] "" == f[j] "" && pc[i + 1] "" == t[j] "") { lf = f[j]; lt = t[j]; j++ }
				if (i % per == 0) print lf, lt
				while (j <= nb && t[j] "" == ps "" && f[j] "" == pc[i + 1] "") j++
				while (j <= nb && f[j] "" == ir "" && t[j] "" == pc[i + 1] "") { lf = f[j]; lt = t[j]; j++ } } }' \
		<(nth "$work/qemu.txt" "$1") <(nth "$work/pcs.txt" "$1")
}
# every_nth RUN PERIOD: for every PERIOD-th instruction of run RUN in QEMU's log, its address
# and the next one's (the exit stub's after the last instruction): "PC NEXT"
every_nth() {
	nth "$work/pcs.txt" "$1" | awk -v x="$exit_addr" -v per="$2" '
		/^pc / { pc[++n] = $2 }
		END { for (i = per; i <= n; i += per) print pc[i], (i < n ? pc[i + 1] : x) }'
}
# every_nth_if RUN PERIOD: as every_nth for a counter whose overflow raises a PMI, taken at the
# first instruction boundary where IF is set: the kernel side of SYSCALL runs with IF clear,
# from user_syscall_entry up to user_if_restored (IA32_FMASK, arch/x86/user/entry.S). As NMI
# (the default) the PMI is taken at the next boundary whatever IF says ("the processor ...
# does not use the IF flag to mask NMIs", SDM Vol. 3A 6.8.1): no range waits. The
# routine re-arms the period there, so the next period counts from the instruction it
# interrupted. Prints "OVERFLOWED-AT DELIVERED-AT" per sample, then "skid N": the instructions
# counted between an overflow and its PMI, which no period accounts for.
every_nth_if() {
	nth "$work/pcs.txt" "$1" | perl -lane 'no warnings "portable";
		BEGIN { ($x, $per, $lo, $hi) = (shift, shift, hex(shift), hex(shift)); ($c, $p, $skid) = (0, 0, 0) }
		next unless $F[0] eq "pc";
		push @pc, $F[1];
		END {
			for my $i (0 .. $#pc) {
				my $v = hex($pc[$i]);
				if ($p && !($v >= $lo && $v < $hi)) { print "$pc[$o] $pc[$i]"; $skid += $i - $o - 1; $p = 0; $c = 0 }
				$c++;
				if (!$p && $c == $per) { $p = 1; $o = $i }
			}
			if ($p) { print "$pc[$o] $x"; $skid += @pc - $o - 1 }
			print "skid $skid";
		}' "$exit_addr" "$2" "0x$(sym user_syscall_entry)" "0x$(sym "${if_end:-user_if_restored}")"
}
check_pebs() {
	local run=$1 label=$2 w=$3
	k=$(records pebs "$label" pebs 2 3)
	fmt=$(key pebs "$label" format)
	# Formats 0 and 1 have no eventing IP: the record's (trap-like) RIP stands for both.
	want=$(every_nth "$run" 38 | awk -v f="${fmt:-9}" '{ print (f < 2 ? $2 : $1), $2 }')
	nrec=$(printf '%s\n' "$want" | grep -c .)
	# The fault workload is too short (9 instructions) for a record, the ring 3 one (74) has
	# room for one.
	min=1
	[ "${names[w - 1]}" = faults ] && min=0
	[ "$nrec" -ge "$min" ]
	same_lines "$k" "$want" "pebs, $label: the $nrec records sample every 38th instruction QEMU executed, the event after each overflow (eventing IP, next IP)" $?
	# Adaptive PEBS (format 4) with the LBR group: each record's newest LBR entry is the last
	# branch QEMU took at or before the sampled instruction.
	[ "${fmt:-0}" -ge 4 ] || return 0
	same_lines "$(records pebs "$label" pebs 8 9)" "$(last_branches "$run" 38)" \
		"pebs, $label: each record's LBR group holds QEMU's last branch before the sample"
}
for_runs check_pebs
# BTF: one #DB per taken branch, at its target: QEMU's "to" column, in order. Exception
# deliveries (to a stub) and their handlers' IRETs are not branches of the workload's; when BTF
# traps on those is not modelled (docs/engine.md).
check_btf() {
	local run=$1 label=$2 w=$3
	k=$(records btf "$label" btf 2)
	q=$(nth "$work/qemu.txt" "$run" | grep -v '^run ' |
		awk -v iret="$iret" -v s3="$stub3" -v s14="$stub14" -v ps="$pmi_stub" '$1 "" != iret "" && $2 "" != s3 "" && $2 "" != s14 "" && $2 "" != ps "" { print $2 }')
	n=$(printf '%s\n' "$k" | grep -c .)
	[ -n "$k" ] && [ "$k" = "$q" ]
	ok $? "btf, $label: the $n branch traps are QEMU's taken branches' targets, in order"
}
for_runs check_btf
# Counter sampling: PMC0 counts retired instructions from -50 with INT; the PMI is taken at the
# next instruction boundary with IF set and re-arms the period, so sample k is the instruction
# after QEMU's (50k)-th, or the first one after it with IF set (every_nth_if); the counts left
# over and the skid add up to the step count.
check_pmc() {
	local run=$1 label=$2 w=$3
	k=$(records pmc "$label" sample 2)
	line=$(printf '%s\n' "$out" | grep "^trace-begin pmc $label ")
	every_nth_if "$run" 50 >"$work/pmc_want"
	want=$(grep -v '^skid ' "$work/pmc_want" | awk '{ print $2 }')
	skid=$(awk '$1 == "skid" { print $2 }' "$work/pmc_want")
	nrec=$(printf '%s\n' "$want" | grep -c .)
	sums=$(printf '%s\n' "$line" | awk -v skid="$skid" '{ for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		print (v["samples"] * v["period"] + v["remainder"] + skid == v["steps"] && v["fixed0"] == v["steps"]) }')
	[ "$sums" = 1 ]
	same_lines "$k" "$want" "pmc, $label: the $nrec samples follow every 50th instruction QEMU executed; counts add up ($line)" $?
	# freeze=lbrs: each sample's LBR snapshot (read in the PMI while frozen) is the
	# last branch QEMU took at or before the sampled instruction.
	same_lines "$(records pmc "$label" sample 4 5)" "$(last_branches "$run" 50)" \
		"pmc, $label: every sample's frozen LBR snapshot is QEMU's last branch before it"
}
for_runs check_pmc
done_testing
