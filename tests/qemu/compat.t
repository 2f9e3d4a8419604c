#!/usr/bin/env bash
# Code in a compatibility-mode (32-bit) code segment (exactness class 5: workload compat32,
# arch/x86/workloads/compat.S) against QEMU's own logs of the same boot: the engine, BTS and
# LBR against its execution log (scripts/qemu-exec-branches decodes each PC in the mode QEMU
# ran it in, its TB flags' CS64/CS32 bits, with objdump -M i386 for 32-bit code), PEBS data
# addresses against its record of every load (tests/qemu/plugins/memtrace.c). The rules, from
# the SDM: "REX prefixes ... are only available in 64-bit mode" (Vol. 2A 2.2.1), so 40H is
# INC %eax and 40H 74H a JE after it; "the effective address ... is truncated to the address
# size" (Vol. 1 3.3.7), so FFFFF000H + C0002000H reads C0001000H; PEBS's data address is "the
# linear address of the source of the load" (Vol. 3B 18.9.4.1).
# With COMPAT_PROGRAM=1 (make long-check) the same boot runs a small unmodified Linux program
# (musl-gcc -static, tests/programs/linux/argsum.c) under BTS, a case of the goal for unmodified
# Linux programs, "BTS ... records of the traced run equal QEMU's log of the program's pages" (LBR
# and larger programs: tests/long/linux-oracle.t): its ring 3 records (FROM and TO in the lower
# half) against the log over its executable segments.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
va=0xc0000000 # compat.S's COMPAT_VA: the alias of compat_page
period=2

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }' | sed 's/^0x0*/0x/'; }
at() { printf '%#x' $((va + $(sym "$1") - $(sym compat_page) + ${2:-0})); } # LABEL [+OFF]: its alias
# The plugin's ranges: the engine's way in and out of a run (ss_first_insn up to ss_exit), the
# workload's C entry (compat.c), compat.S's 64-bit code up to the aliased page, and that page's
# alias, where the 32-bit code runs.
entry=$(sym arch_compat_workload)
size=$(nm -S "$build/kernel.elf" | awk '$4 == "arch_compat_workload" { print "0x" $2 }')
ranges="lo=$(sym ss_first_insn),hi=$(sym ss_exit),lo=$entry,hi=$((entry + size)),lo=$(sym compat_run),hi=$(sym compat_page),lo=$va,hi=$((va + 0x1000))"
prog=()
# The program doubles this boot's time under QEMU's single-step log: make long-check runs it
# (COMPAT_PROGRAM=1), with tests/long/linux-oracle.t's larger programs.
if [ "${COMPAT_PROGRAM:-0}" = 1 ] && command -v musl-gcc >/dev/null; then
	musl-gcc -O2 -static -o "$work/argsum" "$top/tests/programs/linux/argsum.c"
	prog=(--program "$work/argsum")
	xr=",$(readelf -lW "$work/argsum" | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { printf "%s%s+%s", s, $3, $6; s = "," }')"
fi
${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -o "$work/memtrace.so" "$top/tests/qemu/plugins/memtrace.c"
ok $? "the memory-access plugin builds"

boot --timeout 300 "${prog[@]}" --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$va+0x1000${xr:-}")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" \
	--qemu-arg -plugin --qemu-arg "$work/memtrace.so,$ranges,out=$work/mem.log" \
	-- ss=compat32 workload=compat32${prog:+,program} trace=bts,lbr,pebs spmu=skylake pebs.event=all-loads pebs.period=$period
printf "%s\n" "$out" >"$work/boot.log"
status_is 0 "compat32 stepped, under BTS, LBR and PEBS: its result each time, no exception"
# compat.S works its result out: 12n + 194, n = 10.
has "ss-begin compat32 steps=" "the engine stepped it"
has "result=314 expected=314" "the result is the source's 314 (12 * 10 + 194)"
# run_of FACILITY LABEL: which single-stepped run in the boot's order ("ss" for the engine's)
run_of() {
	printf '%s\n' "$out" | awk -v f="$1" -v l="$2" '$1 == "ss-begin" || $1 == "trace-begin" { n++
		if (($1 == "ss-begin" && f == "ss" && $2 == l) || ($2 == f && $3 == l)) { print n; exit } }'
}
QEB_ELFS="${prog[1]:-}" oracle_runs "$work/exec.log" "$work/qemu.txt" $((4 + (${#prog[@]} ? 3 : 0))) \
	": ss, bts, lbr, pebs${prog:+ (and the program: bts, lbr, pebs)}" "$va=compat_page:0x1000"
same "$(ss_run compat32)" "$(nth "$work/qemu.txt" "$(run_of ss compat32)")" "engine: QEMU's taken branches and step count, 32-bit code decoded as such"
same "$(kind_records bts compat32@skylake bts 2 3)" "$(run_branches "$(nth "$work/qemu.txt" "$(run_of bts compat32@skylake)")")" \
	"bts: every record is QEMU's, in order"
same "$(kind_records lbr compat32@skylake lbr 3 4)" "$(run_branches "$(nth "$work/qemu.txt" "$(run_of lbr compat32@skylake)")" | tac | head -n 32)" \
	"lbr: QEMU's newest branches, newest first"

# From the source and the SDM, whatever the oracle says:
k=$(ss_run compat32)
want() { printf '%s\n' "$k" | grep -qx "$1"; ok $? "engine: $2 ($1)"; }
want "$(at compat_inc_je 1) $(at compat_inc_je 8)" \
	"INC %eax (40H) then JE (74H 05H) at +1, taken once to +8 (n = -2 + 2: zero)"
n=$(printf '%s\n' "$k" | grep -c "^$(at compat_dec_jnz 1) $(at compat_inc_je)\$")
[ "$n" = 18 ]
ok $? "engine: DEC %ecx (49H) then JNZ at +1, taken n - 1 = 9 times in each of the two passes ($n)"
want "$(at compat_entry_iret 5) $(at compat_back_a)" "LJMP ptr16:32 back to the 64-bit code (always taken)"
want "$(at compat_entry_lret 12) $(at compat_back_b)" "LRET back to the 64-bit code"

# PEBS: the counter counts loads from -P and records the event after the overflow (SDM Vol. 3B
# 18.4.4): record k is the (P+1)k-th loading instruction QEMU ran in the PEBS run (counted from
# ss_first_insn, where every single-stepped run starts), with its address.
got=$(printf '%s\n' "$out" | awk '$1 == "trace-begin" && $2 == "pebs" { on = ($3 == "compat32@skylake") } $1 == "trace-end" { on = 0 }
	on && $1 == "pebs" { for (i = 1; i <= NF; i++) if ($i ~ /^dla=/) { split($i, a, "="); print $2, a[2] } }')
# IRETQ and LJMP ptr16:32 (objdump's mnemonics, 64-bit code then 32-bit) are left out: their
# stack and descriptor-table reads are loads in QEMU's log and a documented exclusion of the
# model's (lib/x86_mem.h: "the stack accesses of INT, far transfers, SYSCALL and IRET"). A
# far RET pops its return address like RET (SDM Vol. 2B RET: "EIP <- Pop()"): a load, counted.
far=$({ objdump -d -w --start-address="$(sym compat_run)" --stop-address="$(sym compat_page)" "$build/kernel.elf"
	objdump -d -w -M i386 --start-address="$(at compat_code32)" --stop-address="$(at compat_code32_end)" \
		--adjust-vma=$((va - $(sym compat_page))) "$build/kernel.elf"; } |
	awk -F'\t' '$3 ~ /^(iret|ljmp|lcall)/ { sub(/^ */, "", $1); sub(/:$/, "", $1); printf "0x%s ", $1 }')
[ "$(printf '%s' "$far" | wc -w)" = 2 ]
ok $? "objdump finds the workload's IRETQ and LJMP ($far)"
want=$(awk -v e="$(printf '%#x' "$(sym ss_first_insn)")" -v per=$((period + 1)) -v r="$(run_of pebs compat32@skylake)" -v far="$far" '
	BEGIN { split(far, f, " "); for (i in f) skip[f[i]] = 1 }
	function flush() { if (pc != "" && acc != "" && !(pc in skip)) { n++; if (n % per == 0) print pc, acc } acc = "" }
	$1 == "I" && $3 "" == e "" { flush(); runs++ }
	runs != r { next }
	$1 == "I" { flush(); pc = $3 }
	$1 == "R" { acc = acc (acc == "" ? "" : ",") $3 }
	END { if (runs == r) flush() }' "$work/mem.log")
nrec=$(printf '%s\n' "$want" | grep -c .)
bad=$(paste -d' ' <(printf '%s\n' "$got") <(printf '%s\n' "$want") | awk '
	{ n = split($4, a, ","); hit = 0; for (i = 1; i <= n; i++) if (a[i] "" == $2 "") hit = 1
	  if (!hit || $1 "" != $3 "") { print; exit } }')
[ "$(printf '%s\n' "$want" | awk '$1 "" < "0xc1" "" && length($1) == 10' | grep -c .)" -ge 10 ] && [ "$(printf '%s\n' "$got" | grep -c .)" = "$nrec" ] && [ -z "$bad" ]
ok $? "pebs: the $nrec records are QEMU's every $((period + 1))th loading instruction, IP and address${bad:+ (first mismatch: $bad)}"
wrap=$(at compat_wrap)
printf '%s\n' "$got" | grep -q "^$wrap 0xc0001000\$"
ok $? "pebs: the load at FFFFF000H + C0002000H (compat_wrap, $wrap) has the address wrapped at 4 GiB, 0xc0001000"
! printf '%s\n' "$got" | grep -q "^$(at compat_inc_ld) "
ok $? "pebs: no record at INC %ebx (43H): the load is the MOV after it"

# The Linux program's ring 3 branches (both addresses below 2^48: "0x" and at most 12
# digits), BTS's records against QEMU's, in order. Its status is its native run's.
if [ -n "${prog[*]}" ]; then
	has "static x86-64 ELF, Linux ABI" "argsum: run as an unmodified Linux program"
	user() { awk 'length($1) <= 14 && length($2) <= 14'; }
	q=$(run_branches "$(nth "$work/qemu.txt" "$(run_of bts program@skylake)")" | user)
	[ "$(printf '%s\n' "$q" | grep -c .)" -ge 10 ]
	ok $? "argsum: QEMU's log has its ring 3 branches ($(printf '%s\n' "$q" | grep -c .))"
	same "$(kind_records bts program@skylake bts 2 3 | user)" "$q" "argsum: bts: the ring 3 records are QEMU's, in order"
else
	ok 0 "# SKIP musl-gcc not installed (Debian musl-tools; scripts/install-deps)"
fi
done_testing
