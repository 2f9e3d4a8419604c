#!/usr/bin/env bash
# The stick at length (its acceptance test; `make long-check`, minutes, not in `make test`):
# a capture of LONG_BRANCHES (default 10,000,000) taken branches lands on make usb's trace
# partition with the image as a USB stick (scripts/run --stick: qemu-xhci + usb-storage), and
# tools/btdecode of the image gives exactly the records the serial line carries (the same
# per-session digests and counts, which the decoder checks against the records); then a run
# whose stick is pulled mid-capture (QEMU's monitor: device_del) ends INCOMPLETE with the bytes
# the stick holds, and btdecode of the image says INCOMPLETE with the last checkpoint's count.
# The record count comes from the workload's source: library.S's switch makes n - 1 JB,
# n - floor(n/4) JMP and n indirect JMP within its code (tests/long/capture.t).
. "$(dirname "$0")/../qemu/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
dec=$build/btdecode
N=${LONG_BRANCHES:-10000000}
n=$(((4 * N + 4 + 10) / 11))
img=$work/stick.img

"$top/scripts/mkimage" --gpt --trace-mib 64 "$img" >/dev/null 2>&1
ok $? "an image with a 64 MiB trace partition"
"$top/scripts/run" --stick "$img" --smp 2 --timeout 3600 --log "$work/serial" -- \
	trace=btsint workload=switch switch.n=$n >/dev/null 2>&1
rc=$?
[ "$rc" = 0 ]
ok $? "a $N-branch capture with the stick attached passes (status $rc)"
"$dec" --view stats "$work/serial" >"$work/serial.stats" 2>&1
src=$?
"$dec" --view stats "$img" >"$work/stick.stats" 2>"$work/stick.err"
drc=$?
[ "$src" = 0 ] && [ "$drc" = 0 ] && grep -q "capture COMPLETE" "$work/stick.err"
ok $? "btdecode: the serial log whole ($src), the stick's capture whole and COMPLETE ($drc): $(grep -h COMPLETE "$work/stick.err" | sed 's/^[^:]*: [^:]*: //')"
"$dec" --view text "$work/serial" 2>/dev/null | grep '^stream-end' | sort >"$work/s.ends"
"$dec" --view text "$img" 2>/dev/null | grep '^stream-end' | sort >"$work/k.ends"
records=$(sed -n 's/.* records=\([0-9]*\) .*/\1/p' "$work/k.ends" | head -n 1)
[ -s "$work/k.ends" ] && cmp -s "$work/s.ends" "$work/k.ends" && [ "${records:-0}" -ge "$N" ]
ok $? "the stick's sessions end as the serial line's, digests equal: $(head -c 200 "$work/k.ends")"
grep -m1 '^stick: complete' "$work/serial" | sed 's/^/# /'

# The stick pulled mid-capture: the monitor on a socket, device_del once the stream goes there.
"$top/scripts/mkimage" --gpt --trace-mib 64 "$img" >/dev/null 2>&1
sock=$work/mon.sock
"$top/scripts/run" --stick "$img" --smp 2 --timeout 3600 --log "$work/pulled" \
	--qemu-arg -monitor --qemu-arg "unix:$sock,server=on,wait=off" -- \
	trace=btsint workload=switch switch.n=$n >/dev/null 2>&1 &
runner=$!
for _ in $(seq 600); do
	grep -q '^stick: the record stream goes to' "$work/pulled" 2>/dev/null && break
	sleep 0.5
done
sleep 20
perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or exit 1; print $s "device_del stickdev\n"; sleep 1' "$sock"
ok $? "the monitor takes device_del"
wait "$runner"
rc=$?
[ "$rc" = 4 ] && grep -q '^run finished: INCOMPLETE' "$work/pulled"
ok $? "the run ends INCOMPLETE (status $rc)"
grep -q '^stick: error: writing blocks .* the capture on the stick ends INCOMPLETE after [0-9]* bytes' "$work/pulled"
ok $? "the kernel says the stick failed, with the bytes on it: $(grep -m1 '^stick: error' "$work/pulled" | head -c 300)"
"$dec" --view verify "$img" >/dev/null 2>"$work/pulled.err"
drc=$?
kernel=$(sed -n 's/^stick: error: .* ends INCOMPLETE after \([0-9]*\) bytes.*/\1/p' "$work/pulled" | head -n 1)
saved=$(sed -n 's/.*capture INCOMPLETE: the last checkpoint says \([0-9]*\) bytes.*/\1/p' "$work/pulled.err")
[ "$drc" = 1 ] && [ -n "$saved" ] && [ -n "$kernel" ] && [ "$saved" -le "$kernel" ]
ok $? "btdecode of the image: INCOMPLETE with the checkpoint's count, at most the $kernel bytes the kernel wrote (status $drc): $(grep -h INCOMPLETE "$work/pulled.err" | sed 's/^[^:]*: [^:]*: //')"
done_testing
