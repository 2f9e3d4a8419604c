#!/usr/bin/env bash
# Progress on a terminal: btdecode and scripts/capture draw a progress line on stderr
# only when it is a terminal (a pseudo-terminal from util-linux's `script` here), and the
# decode's own output is the same either way; never when stderr is a file or a pipe, and never
# in --view output (whose stderr is the program's). BTDECODE_PROGRESS_MS=0 shows it at once.
. "$(dirname "$0")/lib.sh"
log=$here/two-cpus.log
export BTDECODE_PROGRESS_MS=0

"$dec" "$log" >"$work/plain.out" 2>"$work/plain.err"
! grep -q '\[ btdecode:' "$work/plain.err"
ok $? "btdecode, stderr a file: no progress line"
script -qc "'$dec' '$log' >'$work/tty.out'" /dev/null >"$work/tty.screen" </dev/null
grep -aq '\[ btdecode: [0-9]*%, .* MiB, [0-9]* records' "$work/tty.screen"
ok $? "btdecode, stderr a terminal: the progress line (percent, MiB, records)"
cmp -s "$work/plain.out" "$work/tty.out"
ok $? "... and the decode's output is the same"
grep -aq $'\033\\[K' "$work/tty.screen" && [ "$(tail -c 3 "$work/tty.screen" | od -An -c | tr -d ' ')" != "]" ]
ok $? "... cleared at the end (CSI K)"
script -qc "'$dec' --view output '$log' >/dev/null" /dev/null >"$work/out.screen" </dev/null
! grep -aq '\[ btdecode:' "$work/out.screen"
ok $? "--view output on a terminal: no progress line (its stderr is the program's)"

"$top/scripts/capture" --out "$work/c1.txt" "$log" >/dev/null 2>"$work/c1.err"
! grep -q '\[ scripts/capture:' "$work/c1.err"
ok $? "scripts/capture, stderr a file: no progress line"
script -qc "'$top/scripts/capture' --out '$work/c2.txt' '$log' >/dev/null" /dev/null >"$work/c2.screen" </dev/null
grep -aq '\[ scripts/capture: [0-9]* frames, .* bytes, [0-9]* s \]' "$work/c2.screen"
ok $? "scripts/capture, stderr a terminal: the progress line (frames, bytes, seconds)"
cmp -s "$work/c1.txt" "$work/c2.txt"
ok $? "... and the capture's file is the same"

echo "1..$n"
