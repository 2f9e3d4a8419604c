#!/usr/bin/env bash
# The trace drivers on every CPU and with their options, on the software PMU (QEMU's TCG has
# no PMU): all six facilities on all CPUs at once and on each CPU in turn must give every CPU
# the records the boot CPU gets (the workloads are deterministic, and
# tests/qemu/sstrace.t checks the boot CPU's against QEMU's own log); freeze on PMI in its
# legacy and streamlined flavours; PEBS threshold PMIs; CPL-qualified BTS with the kernel
# address leak filtered or flagged; LBR filters; extended PEBS on a fixed counter; and a
# SKIP with the capability report's reason wherever a personality lacks what is asked. Every
# boot sends the record stream too (stream=text): the BTS, LBR, PEBS, BTF and counter records
# checked are the stream's as tools/btdecode rebuilds them, every session's digest checked.
. "$(dirname "$0")/lib.sh"

# boot: lib.sh's, with stream=text after the options, and the stream decoded ($decoded); the
# sessions split out of both at once (split_sessions), for block and header to read.
eval "lib_$(declare -f boot)"
undecoded=""
sess=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$sess" ;; esac' EXIT
boot() {
	lib_boot "$@" stream=text
	decoded=""
	if printf '%s\n' "$out" | grep -q '^@BT1 '; then
		decoded=$(printf '%s\n' "$out" | "$build/btdecode" - 2>&1)
		local drc=$? n
		n=$(printf '%s\n' "$decoded" | grep -c '^stream-begin ')
		[ "$drc" = 0 ] && [ "$(printf '%s\n' "$decoded" | grep -c ' digest=ok')" = "$n" ] ||
			undecoded="$undecoded [$*: exit $drc]"
	fi
	split_sessions
}

# split_sessions: every session of the last boot into files of $sess, in one pass over the
# output and one over the decoded stream (a pass per session and question cost minutes):
# out_F_L_cpu=C the session's lines (header and trailer left out; the stream's own lines too,
# and, where the decoded stream carries them, its records), dec_F_L_cpu=C those records from
# the decoded stream, hdr_F_L_cpu=C its header as header gives it (hdrx_: without its " cpu=C "
# too, for comparing CPUs). A line goes to every session begun and not yet
# ended by a trace-end (stream-end) line, as a pass per session would have it.
split_sessions() {
	rm -rf "$sess"
	mkdir -p "$sess"
	printf '%s\n' "$out" | awk -v dir="$sess" -v dec="${decoded:+1}" '
		function kind(f) {
			if (!dec) return ""
			return f == "bts" || f == "btsint" ? "bts" : f == "lbr" || f == "pebs" || f == "btf" ? f : f == "pmc" ? "sample" : ""
		}
		{ key = $2 "_" $3 "_" $4 }
		$1 == "trace-begin" {
			h = $0
			sub(/ tsc-cycles=[0-9]*/, "", h); sub(/ streamed-live=[0-9]*/, "", h); sub(/ store-peak=[0-9]*/, "", h)
			hdr[key] = hdr[key] h "\n"
			sub(" " $4 " ", " ", h)
			hdrx[key] = hdrx[key] h "\n"
			for (o in on) if (o != key) blk[o] = blk[o] $0 "\n"
			on[key] = 1; k[key] = kind($2)
			next
		}
		$1 == "trace-end" { for (o in on) delete on[o]; next }
		$1 != "@BT1" { for (o in on) if (k[o] == "" || $1 != k[o]) blk[o] = blk[o] $0 "\n" }
		END {
			for (o in blk) { f = dir "/out_" o; printf "%s", blk[o] > f; close(f) }
			for (o in hdr) { f = dir "/hdr_" o; printf "%s", hdr[o] > f; close(f) }
			for (o in hdrx) { f = dir "/hdrx_" o; printf "%s", hdrx[o] > f; close(f) }
		}'
	[ -n "$decoded" ] || return 0
	printf '%s\n' "$decoded" | awk -v dir="$sess" '
		function kind(f) { return f == "bts" || f == "btsint" ? "bts" : f == "lbr" || f == "pebs" || f == "btf" ? f : f == "pmc" ? "sample" : "" }
		$1 == "stream-begin" { key = $2 "_" $3 "_" $4; on[key] = 1; k[key] = kind($2); next }
		$1 == "stream-end" { for (o in on) delete on[o]; next }
		{ for (o in on) if (k[o] != "" && $1 == k[o]) blk[o] = blk[o] $0 "\n" }
		END { for (o in blk) { f = dir "/dec_" o; printf "%s", blk[o] > f; close(f) } }'
}

# block FACILITY LABEL CPU: the lines of one session (header and trailer left out; the stream's
# own lines too), its records (bts, lbr, pebs, btf, sample lines) from the decoded stream where
# it carries them.
block() {
	local f
	for f in "$sess/out_$1_$2_cpu=$3" "$sess/dec_$1_$2_cpu=$3"; do
		[ ! -f "$f" ] || cat "$f"
	done
}
header() { # (the TSC time a run took, how many records left while it ran and the most the
	# store held at once are left out: they differ between CPUs with the host's timing)
	[ ! -f "$sess/hdr_$1_$2_cpu=$3" ] || cat "$sess/hdr_$1_$2_cpu=$3"
}
# slurp VAR FILE...: the files' text in VAR, trailing newlines dropped, as "$(cat FILE...)"
# would give it, without a process (the CPU comparisons read 420 sessions' files).
slurp() {
	local _t="" _p _f
	for _f in "${@:2}"; do
		[ -f "$_f" ] || continue
		IFS= read -r -d '' _p <"$_f"
		_t+=$_p
	done
	while [[ $_t == *$'\n' ]]; do _t=${_t%$'\n'}; done
	printf -v "$1" '%s' "$_t"
}

facilities=(bts btsint lbr pebs btf pmc)
workloads=(loop calls indirect user faults)
for mode in all each; do
	# every personality at once; each CPU in turn with two of them
	personas=(core2 nehalem skylake icelake arrowlake)
	[ "$mode" = each ] && personas=(skylake arrowlake)
	list=$(IFS=,; echo "${personas[*]}")
	# btsint with a 32-record buffer, so that a workload takes several threshold PMIs; the
	# PMI on its vector here (as NMI, the default, below)
	boot --smp 2 --timeout 240 -- trace=bts,btsint,lbr,pebs,btf,pmc spmu="$list" \
		workload=loop,calls,indirect,user,faults trace.cpus=$mode btsint.records=32 pmi=vector
	status_is 0 "trace.cpus=$mode: every session on both CPUs passes"
	n=$(printf '%s\n' "$out" | grep -c '^trace-begin ')
	[ "$n" = $((${#facilities[@]} * ${#personas[@]} * ${#workloads[@]} * 2)) ]
	ok $? "trace.cpus=$mode: one session per facility, personality, workload and CPU ($n)"
	if [ "$mode" = all ]; then
		vector_samples=$(block pmc calls@skylake 1)
		vector_btsint=$(block btsint calls@skylake 1 | grep '^bts ')
		pmi_vector=$(printf '%s\n' "$out" | sed -n 's/.*PMI on vector \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
		vector_btsint_steps=$(field "$(header btsint calls@skylake 1)" steps)
		pebs_pmc0=$(block pebs calls@skylake 0 | awk '/^pebs / { print $2, $3 }')
		has "trace: workload 'user' keeps one shared slot" "trace.cpus=all: the ring 3 workload (one user stack) runs on each CPU in turn, said so"
		# Core 2 quirk: one page of PEBS buffer at most (references.md 8); others get pebs.kib.
		[ "$(field "$(header pebs calls@core2 0)" buffer)" = "4096(core2-cap)" ] &&
			[ "$(field "$(header pebs calls@skylake 0)" buffer)" = 65536 ]
		ok $? "pebs: Core 2's buffer capped at 4 KiB, Skylake's is pebs.kib (64 KiB)"
	fi
	same=0 differ=""
	for f in "${facilities[@]}"; do
		for p in "${personas[@]}"; do
			for w in "${workloads[@]}"; do
				# block and header (without " cpu=N ") of both CPUs
				slurp a "$sess/out_${f}_$w@${p}_cpu=0" "$sess/dec_${f}_$w@${p}_cpu=0"
				slurp b "$sess/out_${f}_$w@${p}_cpu=1" "$sess/dec_${f}_$w@${p}_cpu=1"
				slurp h0 "$sess/hdrx_${f}_$w@${p}_cpu=0"
				slurp h1 "$sess/hdrx_${f}_$w@${p}_cpu=1"
				if [ -n "$a" ] && [ "$a" = "$b" ] && [ -n "$h0" ] && [ "$h0" = "$h1" ]; then
					same=$((same + 1))
				else
					differ="$differ $f/$w@$p"
				fi
			done
		done
	done
	[ -z "$differ" ]
	ok $? "trace.cpus=$mode: CPU 1's records and counts equal CPU 0's in all $same sessions${differ:+ (differ:$differ)}"
done

# PMIs delivered as NMI (pmi=nmi): the model's self-NMI arrives inside the engine's own #DB
# handler; the samples and records must still be the workload's, as with the PMI vector.
boot --smp 2 --timeout 60 -- trace=pmc,btsint spmu=skylake workload=calls trace.cpus=all pmi=nmi \
	btsint.records=32
status_is 0 "pmi=nmi, all CPUs"
# Expectations: the PMI-vector boot above (whose boot-CPU records tests/qemu/sstrace.t checks
# against QEMU's log) and the threshold rule. The btsint buffer holds 32 records with a
# quarter of headroom (arch/x86/session/bts.c), so its threshold sits 24 records in; "the
# processor generates an interrupt when the BTS index reaches the BTS interrupt threshold"
# (SDM Vol. 3B 17.4.9.3), drained at once; the PMI's delivery is a record too, the 25th
# (docs/engine.md: interrupts are recorded at the instruction they interrupt): one PMI per 25
# records, the rest after the run. The deliveries go to the NMI's stub instead of the PMI vector's.
stub_of() { nm "$build/kernel.elf" | awk -v s="exc_stub_$1" '$3 == s { print "0x" $1 }' | sed 's/0x0*/0x/'; }
pmi_stub=$(stub_of $((pmi_vector)))
nmi_stub=$(stub_of 2)
h=$(header btsint calls@skylake 1)
recs=$(block btsint calls@skylake 1 | grep '^bts ')
nrec=$(printf '%s\n' "$recs" | grep -c '^bts ')
[ -n "$vector_samples" ] && [ "$(block pmc calls@skylake 1)" = "$vector_samples" ]
ok $? "pmi=nmi: CPU 1's counter samples equal those taken with the PMI vector"
as_nmi=$(printf '%s\n' "$vector_btsint" | awk -v p="$pmi_stub" -v n="$nmi_stub" '$3 "" == p "" { $3 = n } { print }')
[ -n "$vector_btsint" ] && [ "$pmi_stub" != "$nmi_stub" ] && [ "$recs" = "$as_nmi" ] &&
	[ "$(field "$h" steps)" = "$vector_btsint_steps" ]
ok $? "pmi=nmi: CPU 1's BTS records (all $nrec, in order) and steps equal those with the PMI vector"
[ "$(field "$h" records)" = "$nrec" ] && [ "$(field "$h" pmis)" = $((nrec / 25)) ] &&
	[ "$(field "$h" drained-in-pmi)" = $((nrec / 25 * 25)) ]
ok $? "pmi=nmi: one threshold PMI per 25 of the $nrec records (24 and the PMI's delivery), each draining 25 ($h)"

# Freeze on PMI: legacy (Nehalem, perfmon v3: the PMI clears GLOBAL_CTRL and DEBUGCTL.LBR, the
# routine restores them) and streamlined (Ice Lake, v5: LBR_Frz/CTR_Frz, acknowledged through
# STATUS_RESET). Counting must come out exact either way. PEBS with a 4 KiB buffer and a period
# of 5 reaches its threshold several times: OvfDSBuffer PMIs, each drained.
boot --timeout 120 -- trace=pmc,pebs,lbr spmu=nehalem,icelake workload=calls freeze=lbrs,perfmon \
	pebs.kib=4 pebs.period=5
status_is 0 "freeze=lbrs,perfmon with counter sampling, PEBS and LBR on Nehalem and Ice Lake"
for p in nehalem icelake; do
	h=$(header pmc "calls@$p" 0)
	s=$(field "$h" steps) n=$(field "$h" samples) per=$(field "$h" period) r=$(field "$h" remainder)
	fz=$(field "$h" frozen) pm=$(field "$h" pmis)
	[ -n "$s" ] && [ $((n * per + r)) = "$s" ] && [ "$pm" = "$n" ] && [ "$n" -gt 0 ]
	ok $? "pmc, $p, frozen on PMI: $n samples of $per and $r left add up to the $s instructions, one PMI each"
	# LVTPC unmask moment: early on Nehalem (before the routine), late on Ice Lake (after it).
	ack=$(field "$h" ack) me=$(field "$h" masked-at-entry) mx=$(field "$h" masked-at-exit)
	if [ "$p" = icelake ]; then
		[ "$ack" = late ] && [ "$me" = "$n" ] && [ "$mx" = "$n" ]
	else
		[ "$ack" = early ] && [ "$me" = 0 ] && [ "$mx" = 0 ]
	fi
	ok $? "pmc, $p: LVTPC unmasked $ack (still masked at the routine's entry/exit: $me/$mx of $n PMIs)"
	if [ "$p" = icelake ]; then
		[ "$fz" = "$n" ]
		ok $? "pmc, icelake (streamlined): every PMI found LBR_Frz/CTR_Frz set ($fz of $n)"
	else
		[ "$fz" = 0 ]
		ok $? "pmc, nehalem (legacy): no freeze status bits, the enables were cleared instead ($fz)"
	fi
	h=$(header pebs "calls@$p" 0)
	s=$(field "$h" steps) n=$(field "$h" records) d=$(field "$h" drains) in=$(field "$h" drained-in-pmi)
	end=$(field "$h" drained-at-end) sz=$(field "$h" size)
	per_buf=$((4096 / sz))
	# Period 5: the overflow arms PEBS and the next event records (SDM Vol. 3B 18.4.4), so a
	# record every 6th instruction.
	[ -n "$s" ] && [ "$n" = $((s / 6)) ] && [ "$d" -ge $((n / per_buf)) ] && [ "$d" -gt 0 ] &&
		[ $((in + end)) = "$n" ] && [ "$(field "$h" lost)$(field "$h" bad)$(field "$h" dropped)" = 000 ]
	ok $? "pebs, $p: ${n} records of $sz bytes for $s instructions, $d threshold PMIs drained $in, $end after the run, none lost"
done
# The stack read after the run: Nehalem's 16 entries (SDM Vol. 3B Table 17-4), every FROM and TO
# in the workload range (nm), the newest one the workload's own final RET (objdump).
lo=$(nm "$build/kernel.elf" | awk '$3 == "__workload_start" { print $1 }')
hi=$(nm "$build/kernel.elf" | awk '$3 == "__workload_end" { print $1 }')
entries=$(block lbr calls@nehalem 0 | awk '$1 == "lbr" { print $2, $3, $4 }')
# (16-digit hex compares as text; mawk has no strtonum)
inside=$(printf '%s\n' "$entries" | awk -v lo="$lo" -v hi="$hi" '
	{ f = substr($2, 3); t = substr($3, 3); if (length(f) == 16 && length(t) == 16 && f >= lo && f < hi && t >= lo && t < hi) n++ } END { print n + 0 }')
newest=$(printf '%s\n' "$entries" | awk '$1 == 0 { print substr($2, 3) }')
mnem=$(objdump -d --start-address=0x$newest --stop-address=$((0x$newest + 1)) "$build/kernel.elf" |
	awk -F'\t' '/^ *[0-9a-f]+:/ { split($3, m, " "); print m[1]; exit }')
[ "$(printf '%s\n' "$entries" | grep -c .)" = 16 ] && [ "$inside" = 16 ] && [ "$mnem" = ret ]
ok $? "lbr, nehalem, freeze=lbrs: the 16 entries are read after the run, all in the workload range, the newest its RET ($inside inside, newest 0x$newest: $mnem)"

# CPL-qualified BTS and its kernel address leak; LBR CPL filter; extended PEBS.
boot --timeout 120 -- trace=bts,lbr,pebs spmu=core2,skylake,icelake workload=user \
	bts.ring=user bts.leak=flag lbr.filter=user pebs.event=fixed0
status_is 0 "bts.ring=user bts.leak=flag lbr.filter=user pebs.event=fixed0 on Core 2, Skylake, Ice Lake"
for p in core2 skylake icelake; do
	b=$(block bts "user@$p" 0 | grep '^bts ')
	leaks=$(printf '%s\n' "$b" | grep -c ' leak$')
	# a kernel address (upper canonical half: 16 hex digits starting with f) without the flag
	bad=$(printf '%s\n' "$b" | grep -v ' leak$' | grep -c ' 0xf[0-9a-f]\{15\} ')
	h=$(header bts "user@$p" 0)
	[ -n "$b" ] && [ "$leaks" -gt 0 ] && [ "$bad" = 0 ] && [ "$(field "$h" flagged)" = "$leaks" ]
	ok $? "bts, $p, ring=user: $leaks records crossing into the kernel flagged, none unflagged"
done
has "SKIP: lbr: user@core2 cpu=0: " "lbr.filter=user on Core 2 (no LBR_SELECT): SKIP with the reason"
# LBR_SELECT's CPL bits filter by the ring a branch ends in (references.md 3.2): SYSRET's record
# (kernel FROM, user TO) is kept, SYSCALL's (user FROM, kernel TO) is not.
l=$(block lbr "user@skylake" 0 | grep '^lbr ')
kernel_to=$(printf '%s\n' "$l" | awk '$4 ~ /^0xf/' | grep -c .)
sysret=$(printf '%s\n' "$l" | awk '$3 ~ /^0xf/' | grep -c .)
[ -n "$l" ] && [ "$kernel_to" = 0 ] && [ "$sysret" -gt 0 ]
ok $? "lbr, skylake, filter=user: $(printf '%s\n' "$l" | grep -c .) entries, none ending in the kernel, $sysret SYSRETs"
has "SKIP: pebs: user@skylake cpu=0: " "pebs.event=fixed0 on Skylake (no extended PEBS): SKIP with the reason"
h=$(header pebs "user@icelake" 0)
# The default period 37: overflow, then the record with the next event (SDM Vol. 3B 18.4.4).
[ -n "$h" ] && [ "$(field "$h" counter)" = fixed0 ] && [ "$(field "$h" records)" = $(($(field "$h" steps) / 38)) ]
ok $? "pebs, icelake, fixed0 (extended PEBS): one record per 38 instructions, period 37 ($h)"

boot --timeout 60 -- trace=bts spmu=icelake workload=user bts.ring=kernel bts.leak=filter
status_is 0 "bts.ring=kernel bts.leak=filter on Ice Lake"
b=$(block bts "user@icelake" 0 | grep '^bts ')
h=$(header bts "user@icelake" 0)
user_addr=$(printf '%s\n' "$b" | grep -c ' 0x7f')
[ -n "$b" ] && [ "$user_addr" = 0 ] && [ "$(field "$h" filtered)" -gt 0 ]
ok $? "bts, ring=kernel, filter: no user address in $(printf '%s\n' "$b" | grep -c .) records, $(field "$h" filtered) filtered"

# The Nehalem LBR_SELECT erratum (modelled as Linux describes it, references.md 8): calls alone
# are asked for, the driver widens the hardware filter and drops the surplus in software; the
# stack must then hold what Skylake's exact filter keeps.
boot --timeout 60 -- trace=lbr spmu=nehalem,skylake workload=user,alias lbr.filter=call
status_is 0 "lbr.filter=call on Nehalem and Skylake"
nhm=$(block lbr user@nehalem 0 | awk '/^lbr / { print $3, $4 }')
skl=$(block lbr user@skylake 0 | awk '/^lbr / { print $3, $4 }')
h=$(header lbr user@nehalem 0)
dropped=$(block lbr user@nehalem 0 | sed -n 's/^lbr-software-filtered //p')
[ -n "$nhm" ] && [ "$nhm" = "$skl" ] && [ "${dropped:-0}" -gt 0 ] &&
	printf '%s\n' "$h" | grep -q ' select=0x24 software-filter '
ok $? "lbr, nehalem, calls only: select widened to 0x24, $dropped surplus records dropped in software, the calls equal Skylake's"
# alias: its 40 CALLs go 16 KiB on (branch and target share the engine's decode-cache slot); the
# stack holds the newest of them, each FROM the CALL TO the function, as nm names them.
a_call=0x$(nm "$build/kernel.elf" | awk '$3 == "arch_wl_alias_call" { print $1 }')
a_f=0x$(nm "$build/kernel.elf" | awk '$3 == "arch_wl_alias_f" { print $1 }')
al=$(block lbr alias@skylake 0 | awk '/^lbr / { print $3, $4 }')
depth=$(field "$(header lbr alias@skylake 0)" depth)
[ -n "$depth" ] && [ "$(printf '%s\n' "$al" | grep -c .)" = "$depth" ] &&
	[ -z "$(printf '%s\n' "$al" | grep -v "^$a_call $a_f\$")" ]
ok $? "lbr, skylake, calls only over alias: the newest ${depth:-?} records, each $a_call -> $a_f (nm)"

# Call-stack mode (Haswell and later: format >= 4) and FREEZE_WHILE_SMM (PERF_CAPABILITIES[12],
# which every personality has).
boot --timeout 60 -- trace=lbr,pmc spmu=nehalem,skylake workload=calls,alias lbr.filter=call_stack freeze=smm
status_is 0 "lbr.filter=call_stack freeze=smm on Nehalem and Skylake"
has "SKIP: lbr: calls@nehalem cpu=0: " "call-stack mode on Nehalem (LBR format 3): SKIP with the reason"
h=$(header lbr "calls@skylake" 0)
n=$(block lbr "calls@skylake" 0 | grep -c '^lbr ')
[ -n "$h" ] && [ "$(field "$h" select)" = 0x3c4 ] && [ "$n" = 0 ]
ok $? "lbr, skylake, call stack: LBR_SELECT 0x3c4, and every call returned: an empty stack ($n entries)"
# alias (arch/x86/workloads/library.S): 40 CALLs to, and RETs from, code 16 KiB away, where the
# branch and where it goes share the engine's decode-cache slot. Call-stack mode (SDM Vol. 3B
# 17.11: a near RET pops the entry of its CALL) must end empty here too.
n=$(block lbr "alias@skylake" 0 | grep -c '^lbr ')
[ -n "$(header lbr "alias@skylake" 0)" ] && [ "$n" = 0 ]
ok $? "lbr, skylake, call stack over alias (branch and target 16 KiB apart): every call returned, an empty stack ($n entries)"
for p in nehalem skylake; do
	printf '%s\n' "$out" | grep -q "^trace-begin pmc calls@$p .* freeze=0x4000 "
	ok $? "freeze=smm on $p: DEBUGCTL.FREEZE_WHILE_SMM (bit 14) set"
done
boot --timeout 60 -- trace=lbr spmu=skylake workload=calls lbr.filter=call_stack freeze=lbrs
status_is 77 "lbr.filter=call_stack freeze=lbrs on Skylake: its only session skipped, the run ends with the skip status"
printf '%s\n' "$out" | grep -q "^SKIP: lbr: calls@skylake cpu=0: .*FREEZE_LBRS_ON_PMI"
ok $? "call-stack mode with FREEZE_LBRS_ON_PMI (corrupts TOS, references.md 8): SKIP with the reason"

# Load latency (pebs.event=loads, MSR_PEBS_LD_LAT_THRESHOLD): PEBS_ENABLE bit 32 next to bit 0
# from Nehalem until perfmon v5, bit 0 alone from v5 (Ice Lake; references.md 6.1); Core 2
# (format 0, no data address) SKIPs with the reason. A threshold of 30 cycles is above every
# latency of the model's cache (4 or 14 cycles, docs/engine.md): no load counts, no record.
boot --timeout 60 -- trace=pebs spmu=core2,nehalem,skylake,icelake workload=calls pebs.event=loads pebs.ldlat=30
status_is 0 "pebs.event=loads pebs.ldlat=30"
for p in nehalem:0x100000001 skylake:0x100000001 icelake:0x1; do
	h=$(header pebs "calls@${p%%:*}" 0)
	[ "$(field "$h" enable)" = "${p#*:}" ] && [ "$(field "$h" records)" = 0 ]
	ok $? "load latency on ${p%%:*}: IA32_PEBS_ENABLE ${p#*:} accepted ($(field "$h" records) records)"
done
printf '%s\n' "$out" | grep -q "^SKIP: pebs: calls@core2 cpu=0: load latency: no PEBS memory event"
ok $? "load latency on core2: SKIP with the reason"

# PEBS on another general-purpose counter (pebs.counter=1): its enable bit, its DS reset slot
# and its applicable-counter bit; Core 2 samples on PMC0 only.
boot --timeout 60 -- trace=pebs spmu=core2,skylake workload=calls pebs.counter=1
status_is 0 "pebs.counter=1 on Core 2 and Skylake"
has "SKIP: pebs: calls@core2 cpu=0: PEBS on PMC1 refused" "pebs.counter=1 on Core 2 (PMC0 only): SKIP with the reason"
h=$(header pebs calls@skylake 0)
recs=$(block pebs calls@skylake 0 | grep '^pebs ')
[ "$(field "$h" enable)" = 0x2 ] && [ "$(field "$h" counter)" = pmc1 ] && [ -n "$pebs_pmc0" ] &&
	[ "$(printf '%s\n' "$recs" | awk '{ print $2, $3 }')" = "$pebs_pmc0" ] &&
	! printf '%s\n' "$recs" | grep -qv ' applicable=0x2 '
ok $? "pebs on PMC1 (Skylake): enable 0x2, every record applicable to PMC1, the same samples as on PMC0"

# The kvm personality: a KVM guest on a Skylake host as upstream Linux 6.x sets it up (docs/kvm.md
# "KVM"): perfmon v2 and the host's legacy LBRs; CPUID.01H DS masked, so no BTS and no PEBS
# (vmx.c vmx_set_cpu_caps); a DEBUGCTL.BTF write dropped (vmx.c vmx_set_msr); every other
# DEBUGCTL bit but LBR and FREEZE_LBRS_ON_PMI a #GP. Every facility works or SKIPs naming its
# KVM rule; none fails or crashes. Its LBR records are Skylake's (same format and depth; the
# LER reads 0 in a guest, kvm_get_msr_common).
boot --timeout 120 -- trace=bts,btsint,lbr,pebs,btf,pmc spmu=kvm,skylake workload=calls,user
status_is 0 "spmu=kvm: every session passes or skips"
for f in bts btsint pebs; do
	n=$(printf '%s\n' "$out" | grep -c "^SKIP: $f: [a-z]*@kvm cpu=0: .*CPUID.01H:EDX.DS\[21\].*KVM guest: DS is exposed only with PEBS")
	[ "$n" = 2 ]
	ok $? "spmu=kvm: $f SKIPs on both workloads, naming the missing DS and KVM's rule ($n)"
done
n=$(printf '%s\n' "$out" | grep -c '^SKIP: btf: [a-z]*@kvm cpu=0: KVM guest: IA32_DEBUGCTL.BTF writes are dropped')
[ "$n" = 2 ]
ok $? "spmu=kvm: btf SKIPs naming KVM's dropped BTF writes ($n)"
same=0
for w in calls user; do
	a=$(block lbr "$w@kvm" 0 | grep -v '^ler ')
	b=$(block lbr "$w@skylake" 0 | grep -v '^ler ')
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "$(block lbr "$w@kvm" 0 | grep '^ler ')" = "ler 0 0" ] && same=$((same + 1))
done
[ "$same" = 2 ]
ok $? "spmu=kvm: the LBR records equal Skylake's on both workloads, the LER reads 0 ($same)"
[ -n "$(block pmc calls@kvm 0)" ] && [ "$(block pmc calls@kvm 0)" = "$(block pmc calls@skylake 0)" ]
ok $? "spmu=kvm: perfmon v2 samples equal Skylake's v4 ones"
! printf '%s\n' "$out" | grep -q '^error'
ok $? "spmu=kvm: no session reports an error"
boot --timeout 60 -- trace=lbr,pmc spmu=kvm workload=calls freeze=perfmon
[ "$rc" = 77 ] && [ "$(printf '%s\n' "$out" | grep -c '^SKIP: \(lbr\|pmc\): calls@kvm cpu=0: freeze on PMI (perfmon): KVM guest: an IA32_DEBUGCTL bit other than LBR and FREEZE_LBRS_ON_PMI raises #GP')" = 2 ]
ok $? "spmu=kvm freeze=perfmon: lbr and pmc SKIP naming the #GP rule, status 77 (rc $rc)"
boot --timeout 60 -- trace=pmc spmu=kvm workload=calls freeze=lbrs
h=$(header pmc calls@kvm 0)
[ "$rc" = 0 ] && [ "$(field "$h" freeze)" = 0x800 ] && [ "$(field "$h" snapshots)" = "$(field "$h" samples)" ]
ok $? "spmu=kvm freeze=lbrs: FREEZE_LBRS_ON_PMI accepted (emulated for perfmon v2-3), an LBR snapshot per sample (rc $rc)"

# spmu=none: the hardware only. QEMU's TCG has no PMU: every facility SKIPs with the
# capability report's reason (the vendor, or CPUID leaf 0AH), and nothing faults.
boot --smp 2 --timeout 60 -- trace=bts,btsint,lbr,pebs,btf,pmc spmu=none workload=calls trace.cpus=all
status_is 77 "spmu=none on QEMU's PMU-less CPUs: every session skipped, the run ends with the skip status"
n=$(printf '%s\n' "$out" | grep -c '^SKIP: [a-z]*: CPU [01] has none: ')
why=$(printf '%s\n' "$out" | sed -n 's/^caps-json: .*"cpu":0,.*"bts":{"kind":"no","reason":"\([^"]*\)".*/\1/p' | head -n 1)
[ "$n" = 12 ] && [ -n "$why" ] && ! printf '%s\n' "$out" | grep -q '^trace-begin ' &&
	printf '%s\n' "$out" | grep -qxF "SKIP: bts: CPU 0 has none: $why (spmu=none: no software PMU)"
ok $? "spmu=none: all 6 facilities SKIP on both CPUs ($n), with the capability report's reason ($why)"

for bad in "lbr.filter=user,loops:loops" "pebs.event=cycles:cycles" "freeze=lbrs,always:always"; do
	boot --timeout 60 -- trace=lbr "${bad%%:*}"
	[ "$rc" = 2 ] && printf '%s\n' "$out" | grep -q "'${bad#*:}'.*accepted"
	ok $? "bad option ${bad%%:*}: status 2, the message names '${bad#*:}' and what is accepted (rc $rc)"
done
[ -z "$undecoded" ]
ok $? "every boot's record stream decoded whole, every session's digest matching${undecoded:+ (not:$undecoded)}"
done_testing
