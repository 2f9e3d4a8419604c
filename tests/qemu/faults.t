#!/usr/bin/env bash
# Unexpected exceptions end the run with a register dump and a failure status, never a hang or
# a silent reset; the faulting RIP symbolizes against build/kernel.elf.
. "$(dirname "$0")/lib.sh"

boot -- fault=pf
status_is 1 "fault=pf ends the run as a failure"
has "*** EXCEPTION #PF page fault (vector 14) ***" "the #PF is named"
has "page not present, write access, supervisor mode" "the #PF error code is decoded"
has "CR2 0x0000000000000008" "CR2 holds the faulting address"
rip=$(printf '%s\n' "$out" | sed -n 's/^  RIP \(0x[0-9a-f]*\) .*/\1/p' | head -n 1)
func=$(addr2line -f -e "$build/kernel.elf" "$rip" 2>/dev/null | head -n 1)
case "$func" in trigger_pf | arch_trigger_fault) r=0 ;; *) r=1 ;; esac
ok $r "RIP $rip symbolizes to the faulting function (got '$func')"
has "backtrace: 0x" "a backtrace is printed"
printf '%s\n' "$out" | "$top/scripts/symbolize" "$build/kernel.elf" | grep -q "kernel_main"
ok $? "scripts/symbolize resolves the backtrace up to kernel_main"

boot -- fault=ud
status_is 1 "fault=ud ends the run as a failure"
has "*** EXCEPTION #UD invalid opcode (vector 6) ***" "the #UD is named"
missing=
for reg in RAX RBX RCX RDX RSI RDI RBP R8 R9 R10 R11 R12 R13 R14 R15 RSP RFLAGS CR0 CR3 CR4 EFER; do
	printf '%s\n' "$out" | grep -Eq "(^| )$reg +0x[0-9a-f]+" || missing="$missing $reg"
done
[ -z "$missing" ]
ok $? "the dump shows every general-purpose and control register${missing:+ (missing:$missing)}"

boot -- fault=stack
status_is 1 "a kernel stack overflow ends the run as a failure"
has "*** EXCEPTION #DF double fault (vector 8) ***" "the overflow into the guard page arrives as #DF on its IST stack"
done_testing
