#!/usr/bin/env bash
# scripts/qemu-exec-branches (the oracle over QEMU's `-d exec,nochain` log) on a fixed log of two
# vCPUs, no QEMU run: QEB_CPU=N reads vCPU N's lines alone (QEMU 7.2: "Trace N: 0x... [...]").
# A workload of five instructions, assembled here at the kernel's link address with the symbols
# the oracle looks for:
#   ss_first_insn: test %eax,%eax; jz_at: jz 1f; nop_at: nop; 1: call_at: call f;
#   ss_exit: nop; f: ret
# vCPU 0 falls through the JZ (test, jz, nop, call, ret: 5 retired; branches call->f, ret->ss_exit),
# vCPU 1 takes it (test, jz, call, ret: 4; jz->call_at, call->f, ret->ss_exit). Their lines
# interleave, and each logs one PC twice with QEMU's "Stopped execution of TB chain" line
# between (that line names no vCPU: it is the most recent Trace line's, here once vCPU 1's with
# vCPU 0's lines before it, once vCPU 0's): the first of the two is dropped, for that vCPU alone.
. "$(dirname "$0")/lib.sh"

qeb=$top/scripts/qemu-exec-branches
cat >"$work/k.S" <<'EOF'
	.text
	.globl _start
_start:
__workload_start:
ss_first_insn:
	test %eax, %eax
jz_at:	jz 1f
nop_at:	nop
1:
call_at: call f
ss_exit:
	nop
f:	ret
__workload_end:
exc_stub_14:
	nop
trap_iret:
	iretq
EOF
(cd "$work" && gcc -c k.S -o k.o && ld -nostdlib -Ttext=0xffffffff80001000 -e _start -o k.elf k.o)
ok $? "the workload assembles and links at 0xffffffff80001000"
sym() { nm "$work/k.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
# QEMU 7.2's lines (accel/tcg/cpu-exec.c): log_cpu_exec's "Trace CPU: HOSTPTR [CS_BASE/PC/FLAGS/
# CFLAGS] SYMBOL" (flags 0x00c0b0b3: HF_CS64_MASK, 64-bit code) and cpu_tb_exec's "Stopped
# execution of TB chain before HOSTPTR [PC] SYMBOL"
trace() { printf 'Trace %d: 0x7f00c0de0%03x [00000000/%016x/00c0b0b3/ff020000] %s\n' "$1" $((n_trace++)) "$(sym "$2")" "$2"; }
stopped() { printf 'Stopped execution of TB chain before 0x7f00c0de0000 [%016x] %s\n' "$(sym "$1")" "$1"; }
n_trace=0
{
	trace 0 ss_first_insn
	trace 1 ss_first_insn
	trace 0 jz_at
	trace 1 jz_at
	stopped jz_at # vCPU 1's: its JZ is logged again
	trace 1 jz_at
	trace 0 nop_at
	stopped nop_at # vCPU 0's
	trace 1 call_at
	trace 0 nop_at
	trace 0 call_at
	trace 1 f
	trace 0 f
	trace 1 ss_exit
	trace 0 ss_exit
} >"$work/two.log"
grep -v '^Trace 1' "$work/two.log" | grep -v "before.*\] jz_at" >"$work/one.log" # vCPU 0's alone
x() { printf '%#x %#x\n' "$(sym "$1")" "$(sym "$2")"; }
{ echo "run 5"; x call_at f; x f ss_exit; } >"$work/want0"
{ echo "run 4"; x jz_at call_at; x call_at f; x f ss_exit; } >"$work/want1"

QEB_CPU=0 "$qeb" "$work/k.elf" "$work/two.log" >"$work/got0" 2>"$work/err0"
diff -u "$work/want0" "$work/got0" >/dev/null
ok $? "QEB_CPU=0: vCPU 0's run, the JZ not taken: $(tr '\n' '|' <"$work/got0") $(head -c 200 "$work/err0")"
QEB_CPU=1 "$qeb" "$work/k.elf" "$work/two.log" >"$work/got1" 2>"$work/err1"
diff -u "$work/want1" "$work/got1" >/dev/null
ok $? "QEB_CPU=1: vCPU 1's run, the JZ taken, its PC logged twice once: $(tr '\n' '|' <"$work/got1") $(head -c 200 "$work/err1")"
"$qeb" "$work/k.elf" "$work/one.log" >"$work/got" 2>&1
diff -u "$work/want0" "$work/got" >/dev/null
ok $? "without QEB_CPU, a log of one vCPU as before: every line read ($(tr '\n' '|' <"$work/got"))"
QEB_CPU=2 "$qeb" "$work/k.elf" "$work/two.log" >/dev/null 2>"$work/err2"
[ $? != 0 ] && grep -q "no single-stepped run found" "$work/err2"
ok $? "QEB_CPU=2, a vCPU with no lines: no run, said ($(head -c 120 "$work/err2"))"
QEB_CPU=x "$qeb" "$work/k.elf" "$work/two.log" >/dev/null 2>"$work/errx"
[ $? != 0 ] && grep -q "accepted: a vCPU index" "$work/errx"
ok $? "QEB_CPU=x: refused, what is accepted said"
echo "1..$n"
