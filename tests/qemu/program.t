#!/usr/bin/env bash
# User programs from the boot volume (option `program`, scripts/run --program): the loader
# reads the file, the kernel checks it before mapping anything (lib/elf_user.c; every rule is
# host-tested in test_elf_user) and refuses a bad one naming the problem, with the bad-input
# status 2; a good one is mapped into the user window and runs in ring 3 as workload
# "program". Programs here are built by the test with the host's gcc (static, linked at the
# user window 0x7e0000000000) or cut from one.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
window=0x7e0000000000

printf '\t.globl _start\n_start:\n\tjmp _start\n\t.data\nv:\t.quad 1\n\t.bss\nb:\t.zero 8192\n' >"$work/p.S"
${CC:-cc} -nostdlib -static -no-pie -Wl,-Ttext-segment=$window -o "$work/good.elf" "$work/p.S"
ok $? "a static test program links at the user window"
entry=$(readelf -h "$work/good.elf" | awk '/Entry point/ { print $4 }')
nload=$(readelf -lW "$work/good.elf" | grep -c '^ *LOAD')

boot --timeout 60 --program "$work/good.elf"
status_is 0 "a valid program is checked and mapped (it runs when a session names workload 'program')"
has "program '\\progs\\good.elf': $(stat -c %s "$work/good.elf") bytes, static x86-64 ELF, baretrace (include/baretrace/user.h) ABI, $nload segments" \
	"the kernel reports the program's size and its $nload PT_LOAD segments (readelf)"
has "entry $entry" "and its entry point, as readelf says ($entry)"

# bad PROGRAM-FILE WORDS DESCRIPTION: refused with status 2 and a message with WORDS.
bad() {
	boot --timeout 60 --program "$1"
	status_is 2 "$3: status 2 (bad input)"
	printf '%s\n' "$out" | grep -q "^error: program '\\\\progs\\\\$(basename "$1")': .*$2"
	ok $? "$3: the refusal names the problem ('$2')"
}
head -c 40 "$work/good.elf" >"$work/truncated.elf"
bad "$work/truncated.elf" "truncated" "a truncated ELF"
printf 'not a program\n' >"$work/text.elf"
bad "$work/text.elf" "not an ELF file" "a text file"
cp "$work/good.elf" "$work/class32.elf"
printf '\001' | dd of="$work/class32.elf" bs=1 seek=4 conv=notrunc status=none # EI_CLASS = ELFCLASS32
bad "$work/class32.elf" "not a 64-bit ELF" "a 32-bit ELF"
cp "$work/good.elf" "$work/arm.elf"
printf '\267\000' | dd of="$work/arm.elf" bs=1 seek=18 conv=notrunc status=none # e_machine = EM_AARCH64
bad "$work/arm.elf" "not an x86-64" "an AArch64 ELF"
cp "$build/kernel.elf" "$work/kernel.elf"
bad "$work/kernel.elf" "is outside the lower half a Linux program gets" "the kernel itself (linked at 0xffffffff80000000, the kernel's half)"
# Linked at GNU ld's default 0x400000, outside the user window and without the ABI note of
# include/baretrace/user.h: a Linux program, accepted where it was linked.
${CC:-cc} -nostdlib -static -no-pie -o "$work/low.elf" "$work/p.S"
boot --timeout 60 --program "$work/low.elf"
status_is 0 "a program linked at 0x400000 is accepted"
has "static x86-64 ELF, Linux ABI, $nload segments in [0x40" "... as a Linux program, where it was linked (0x40....)"

# Running it: the example program (examples/branches.c: loops, a jump table, recursion, calls
# through pointers; built by make) in ring 3 from its entry, SYS_EXIT's status the workload's
# result; the engine, BTS and LBR (software PMU as Skylake, legacy LBR, and Arrow Lake,
# Architectural LBR) against QEMU's own execution log of the same boot over the workload range
# and the program's pages (instruction lengths from objdump of the program), as
# tests/qemu/sstrace.t does for the built-in workloads.
prog=$build/examples/branches.elf
[ -f "$prog" ]
ok $? "make built the example program ($prog)"
boot --timeout 300 --program "$prog" --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$window+0x10000")" \
	--qemu-arg -D --qemu-arg "$work/exec.log" -- ss=program workload=program trace=bts,lbr spmu=skylake,arrowlake
status_is 0 "the example runs natively, stepped, and under BTS and LBR, with the same exit status"
# examples/branches.c works its status out in its header comment: 722.
has "result=722 expected=722" "its exit status is 722, as its source works out"
QEB_ELFS="$prog" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/exec.log" >"$work/qemu.txt" 2>"$work/err"
ok $? "the oracle read QEMU's log $(head -c 200 "$work/err")"
kernel_ss=$(printf '%s\n' "$out" | awk '$1 == "ss-begin" && $2 == "program" { for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) { split($i, a, "="); print "run", a[2] } }
	$1 == "ss-branch" { print $2, $3 }')
[ -n "$kernel_ss" ] && [ "$kernel_ss" = "$(nth "$work/qemu.txt" 1)" ]
ok $? "engine: the program's taken branches (ring 3 and the kernel's side) and step count are QEMU's"
run=1
for p in skylake arrowlake; do
	run=$((run + 1))
	bts=$(session_records bts "program@$p" 2 3)
	[ -n "$bts" ] && [ "$bts" = "$(nth "$work/qemu.txt" "$run" | grep -v '^run ')" ]
	ok $? "bts, $p: the records are QEMU's taken branches of the run, in order"
	inside=$(printf '%s\n' "$bts" | awk -v lo=$window '$1 "" >= lo "" && $1 "" < "0x7f" { n++ } END { print n + 0 }')
	[ "$inside" -gt 50 ]
	ok $? "bts, $p: $inside records come from the program's own text"
done
for p in skylake arrowlake; do
	run=$((run + 1))
	lbr=$(session_records lbr "program@$p" 3 4)
	want=$(nth "$work/qemu.txt" "$run" | grep -v '^run ' | tail -n 32 | tac)
	[ -n "$lbr" ] && [ "$lbr" = "$want" ]
	ok $? "lbr, $p: the stack holds QEMU's newest branches of the run, newest first"
done

# Four vCPUs: the program runs on each in turn (one saved context); every CPU's records are
# the same QEMU-checked branches as the one-CPU boot's above (same kernel, same addresses).
boot --smp 4 --timeout 300 --program "$prog" -- workload=program trace=bts,lbr spmu=skylake,arrowlake trace.cpus=all
status_is 0 "4 vCPUs: the example runs on every CPU under BTS and LBR, Skylake and Arrow Lake"
run=1
for p in skylake arrowlake; do
	run=$((run + 1))
	want=$(nth "$work/qemu.txt" "$run" | grep -v '^run ')
	same=0
	for c in 0 1 2 3; do
		got=$(session_records bts "program@$p" 2 3 "$c")
		[ -n "$got" ] && [ "$got" = "$want" ] && same=$((same + 1))
	done
	[ "$same" = 4 ]
	ok $? "4 vCPUs, bts, $p: all 4 CPUs' records are QEMU's branches of the one-CPU run ($same of 4)"
done
run=3
for p in skylake arrowlake; do
	run=$((run + 1))
	want=$(nth "$work/qemu.txt" "$run" | grep -v '^run ' | tail -n 32 | tac)
	same=0
	for c in 0 1 2 3; do
		got=$(session_records lbr "program@$p" 3 4 "$c")
		[ -n "$got" ] && [ "$got" = "$want" ] && same=$((same + 1))
	done
	[ "$same" = 4 ]
	ok $? "4 vCPUs, lbr, $p: all 4 CPUs' stacks hold QEMU's newest branches ($same of 4)"
done

# The same example as a static PIE (ET_DYN at addresses from 0): the kernel places it at the
# window's start and applies its R_X86_64_RELATIVE relocations (readelf counts them); the calls
# through its pointer table only work relocated. Records against QEMU's log with objdump's
# addresses moved by the window (--adjust-vma).
pie=$build/examples/branches-pie.elf
nrel=$(readelf -rW "$pie" | grep -c R_X86_64_RELATIVE)
boot --timeout 300 --program "$pie" --qemu-singlestep --qemu-arg -d --qemu-arg exec,nochain \
	--qemu-arg -dfilter --qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$window+0x10000")" \
	--qemu-arg -D --qemu-arg "$work/pie.log" -- ss=program workload=program trace=bts spmu=skylake
status_is 0 "PIE: the example built with -static-pie runs natively, stepped and under BTS"
has "static x86-64 ELF (PIE, placed at its ABI's base), baretrace (include/baretrace/user.h) ABI" "PIE: the kernel says it placed a PIE of its own ABI (the note of user.h)"
has "$nrel R_X86_64_RELATIVE relocations, bias $window" "PIE: and applied its $nrel relocations (readelf) with the window as bias"
has "result=722 expected=722" "PIE: its exit status is the source's 722: its function pointers were relocated"
QEB_ELFS="$pie@$window" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/pie.log" >"$work/pie.txt" 2>"$work/err"
ok $? "PIE: the oracle read QEMU's log $(head -c 200 "$work/err")"
bts=$(session_records bts "program@skylake" 2 3)
[ -n "$bts" ] && [ "$bts" = "$(nth "$work/pie.txt" 2 | grep -v '^run ')" ]
ok $? "PIE: the BTS records are QEMU's taken branches, at the relocated addresses"

boot --timeout 60 -- workload=program trace=bts
status_is 2 "workload=program without a program: status 2"
has "option 'workload': 'program' needs option program" "the refusal names the missing option"

boot --timeout 60 -- 'program=\nothere.elf'
status_is 2 "a program option naming a missing file: status 2"
has "error: program '\\nothere.elf': no such file on the boot volume" "the refusal says the file is not there"
done_testing
