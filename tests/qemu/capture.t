#!/usr/bin/env bash
# scripts/capture: the host side of a serial capture, on a pipe and on a FIFO (a stand-in for a
# device node that is not a terminal; stty is applied only to terminals): every byte kept, the
# human log shown without the stream's lines, the capture ended at the kernel's last line and
# checked by btdecode, the binary wire's raw frames too; a run that never ends is cut by
# --timeout (124); a damaged capture gives btdecode's 1; bad usage 2.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
cap=$top/scripts/capture

"$top/scripts/run" --timeout 60 -- trace=bts,lbr workload=calls stream=text 2>/dev/null |
	tee "$work/sent" | "$cap" --out "$work/pipe.txt" - >"$work/shown" 2>"$work/said"
crc=$?
[ "$crc" = 0 ] && cmp -s "$work/sent" "$work/pipe.txt" && grep -q '^run finished: PASS' "$work/shown" &&
	! grep -q '@BT1' "$work/shown" && [ "$(grep -c '^@BT1 ' "$work/pipe.txt")" -gt 4 ] &&
	grep -q 'btdecode: [0-9]* frames, [0-9]* records, 0 problems' "$work/said"
ok $? "a pipe: every byte kept, the log shown without the stream's lines, checked clean (exit $crc)"

# stream=binary: raw frames between the log's lines (scripts/run --log keeps the serial bytes
# as they came; its console output is for people), through capture byte for byte
"$top/scripts/run" --log "$work/bin.sent" --timeout 60 -- trace=bts,lbr workload=calls \
	stream=binary >/dev/null 2>&1
"$cap" --out "$work/bin.txt" - <"$work/bin.sent" >"$work/bin.shown" 2>"$work/said"
crc=$?
[ "$crc" = 0 ] && cmp -s "$work/bin.sent" "$work/bin.txt" && grep -q '^run finished: PASS' "$work/bin.shown" &&
	! LC_ALL=C grep -q '[^[:print:][:space:]]' "$work/bin.shown" &&
	grep -q 'btdecode: [0-9]* frames, [1-9][0-9]* records, 0 problems' "$work/said"
ok $? "stream=binary: every byte kept, the log shown without the frames' bytes, checked clean (exit $crc)"

mkfifo "$work/fifo"
"$top/scripts/run" --timeout 60 -- trace=bts workload=loop stream=text >"$work/fifo" 2>/dev/null &
"$cap" --out "$work/fifo.txt" "$work/fifo" >/dev/null 2>"$work/said"
crc=$?
wait
[ "$crc" = 0 ] && [ "$(tail -n 1 "$work/fifo.txt" | tr -d '\r')" = "run finished: PASS" ] &&
	grep -q '0 problems' "$work/said"
ok $? "a FIFO as the device: the capture ends at the kernel's last line, checked clean (exit $crc)"

mkfifo "$work/silent"
{ echo "a log line"; sleep 5; } >"$work/silent" &
"$cap" --timeout 1 --out "$work/t.txt" "$work/silent" >/dev/null 2>"$work/said"
crc=$?
kill %1 2>/dev/null
wait 2>/dev/null
[ "$crc" = 124 ] && grep -q 'time ran out' "$work/said" && [ "$(cat "$work/t.txt")" = "a log line" ]
ok $? "--timeout 1 on a run that never ends: 124, what came kept (exit $crc)"

sed '0,/^@BT1 /s/^@BT1 \(.\)/@BT1 X/' "$work/pipe.txt" >"$work/damaged"
"$cap" --out "$work/d.txt" - <"$work/damaged" >/dev/null 2>"$work/said"
crc=$?
[ "$crc" = 1 ] && grep -q 'damaged frame' "$work/said"
ok $? "a damaged capture: btdecode's exit 1, the damage said (exit $crc)"

"$cap" --baud fast - </dev/null >/dev/null 2>"$work/said"
crc=$?
"$cap" "$work/nothere" </dev/null >/dev/null 2>>"$work/said"
crc2=$?
[ "$crc" = 2 ] && [ "$crc2" = 2 ] && grep -q "accepted: a whole number" "$work/said" && grep -q 'no such file' "$work/said"
ok $? "bad usage and a missing source: exit 2, saying why"
done_testing
