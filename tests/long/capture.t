#!/usr/bin/env bash
# Any length, nothing lost (the acceptance test; `make long-check`, minutes, not in `make
# test`): 10,000,000-branch captures reach the host whole under the default options — a kernel
# workload through BTS with threshold PMIs, a user program, and the kernel workload again while
# the serial reader stalls in mid-run (the UART's transmitter stays busy: the kernel waits).
# The record counts come from the workloads' sources: library.S's switch makes n - 1 JB,
# n - floor(n/4) JMP and n indirect JMP within its code; tests/programs/spin.c's loop takes its
# JNZ arg - 1 times (SDM Vol. 2A "Jcc"). Completeness is the stream's own proof (tools/btdecode:
# frame numbers, every session's END, digest and count, the boot's END frame).
. "$(dirname "$0")/../qemu/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
dec=$build/btdecode
N=${LONG_BRANCHES:-10000000}

# switch.n whose in-code branches reach N: 3n - floor(n/4) - 1 >= N
n=$(((4 * N + 4 + 10) / 11))
want=$((3 * n - n / 4 - 1))
lo=$(nm "$build/kernel.elf" | awk '$3 == "arch_wl_switch" { print $1 }')
hi=$(nm "$build/kernel.elf" | awk '$3 == "arch_wl_switch_end" { print $1 }')
# run_default [runner args] -- OPTIONS: a boot with only these options (lib.sh's boot would ask
# for text lines), its log in $out and its status in $rc
run_default() {
	"$top/scripts/run" --log "$work/run.log" "$@" >/dev/null 2>&1
	rc=$?
	out=$(cat "$work/run.log")
}
# count FROM-LO FROM-HI TO-LO TO-HI FILE: decoded BTS records from [FROM-LO, FROM-HI) to
# [TO-LO, TO-HI) (hex)
count() {
	# 64-bit addresses compared as 16-digit hex strings (perl's integers may be signed, and
	# -Mbigint takes minutes over 10 million lines)
	perl -ne 'BEGIN { @r = map { sprintf "%016s", lc } splice(@ARGV, 0, 4); tr/ /0/ for @r; $n = 0 }
		if (/^bts 0x(\S+) (?:<[^>]*> )?0x(\S+)/) { my ($f, $t) = map { my $x = sprintf "%016s", lc; $x =~ tr/ /0/; $x } ($1, $2);
			$n++ if $f ge $r[0] && $f lt $r[1] && $t ge $r[2] && $t lt $r[3] }
		END { print "$n\n" }' "$@"
}

# 1. The kernel workload, default options (stream=text, live, capture.full=wait).
run_default --smp 2 --timeout 1800 -- trace=btsint workload=switch switch.n=$n
printf '%s\n' "$out" >"$work/k"
"$dec" "$work/k" >"$work/k.dec" 2>"$work/k.err"
drc=$?
got=$(count "$lo" "$hi" "$lo" "$hi" "$work/k.dec")
[ "$rc" = 0 ] && [ "$drc" = 0 ] && [ "$got" = "$want" ] &&
	grep -q '^stream-end btsint switch@skylake cpu=0 records=[0-9]* lost=0 digest=ok' "$work/k.dec"
ok $? "kernel: switch.n=$n, $got branches within its code of the $want its source makes, the capture whole (run $rc, decoder $drc) $(head -c 200 "$work/k.err")"

# 2. A user program: arg iterations, its JNZ taken arg - 1 times.
prog=$build/tests/programs/spin.elf
jnz=$(nm "$prog" | awk '$3 == "spin_jnz" { print $1 }')
spin_top=$(nm "$prog" | awk '$3 == "spin_top" { print $1 }')
run_default --smp 2 --timeout 1800 --program "$prog" -- workload=program trace=btsint program.arg=$N \
	program.watchdog=1800000
printf '%s\n' "$out" >"$work/u"
"$dec" --program "$prog" "$work/u" >"$work/u.dec" 2>"$work/u.err"
drc=$?
got=$(count "$jnz" "$(printf '%x' $((16#$jnz + 1)))" "$spin_top" "$(printf '%x' $((16#$spin_top + 1)))" "$work/u.dec")
[ "$rc" = 0 ] && [ "$drc" = 0 ] && [ "$got" = $((N - 1)) ] &&
	grep -q '^stream-end btsint program@skylake cpu=0 records=[0-9]* lost=0 digest=ok' "$work/u.dec"
ok $? "user program: its JNZ taken $got times of the $((N - 1)) its source makes, the capture whole (run $rc, decoder $drc) $(head -c 200 "$work/u.err")"

# 3. The kernel workload again, its serial line on a socket whose reader stops for 20 s after
#    the first 64 KiB: QEMU keeps the UART's transmitter busy meanwhile (the socket's buffer
#    full), and the kernel waits, with every CPU's output and the traced CPU behind it.
cmd=$("$top/scripts/run" --dry-run --smp 2 -- trace=btsint workload=switch switch.n=$n 2>/dev/null | tail -n 1)
boot_dir=$(printf '%s\n' "$cmd" | sed -n 's/.*fat:rw:\([^ ]*\).*/\1/p')
sock=$work/serial.sock
cmd=${cmd/ -serial stdio/ -chardev socket,id=s0,path=$sock,server=on,wait=on -serial chardev:s0}
python3 - "$sock" "$work/s" 65536 20 <<'PY' &
import socket, sys, time
path, out, first, stall = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
for _ in range(600):
    try:
        s.connect(path)
        break
    except OSError:
        time.sleep(0.1)
got = 0
with open(out, "wb") as f:
    while got < first:
        b = s.recv(min(4096, first - got))
        if not b:
            break
        f.write(b)
        got += len(b)
    time.sleep(stall)
    while True:
        b = s.recv(65536)
        if not b:
            break
        f.write(b)
PY
reader=$!
t0=$SECONDS
eval "timeout 1800 $cmd" </dev/null >/dev/null 2>"$work/s.qemu"
qrc=$?
secs=$((SECONDS - t0))
wait "$reader"
"$dec" "$work/s" >"$work/s.dec" 2>"$work/s.err"
drc=$?
got=$(count "$lo" "$hi" "$lo" "$hi" "$work/s.dec")
[ "$qrc" = 1 ] && [ "$drc" = 0 ] && [ "$got" = "$want" ] && [ "$secs" -ge 20 ] &&
	grep -aq '^run finished: PASS' "$work/s"
ok $? "a serial reader stalled 20 s: the kernel waited and passed (QEMU $qrc = PASS, ${secs}s), the capture whole, $got of $want branches (decoder $drc) $(head -c 200 "$work/s.err")"
[ -z "$boot_dir" ] || rm -rf "$(dirname "$boot_dir")"

done_testing
