#!/usr/bin/env bash
# Time on the records: a capture of format version 2 whose frames carry TSCs (written
# by mkcapture, the kernel's own writer, with the TSC the test names) and whose HEADER gives the
# TSC rate (tsc-khz=2000000: 2 GHz). lib/stream.h's rule: BEGIN at its TSC, each record of a
# batch at its place between the batch before (or BEGIN) and its own batch's TSC, END at its
# TSC. Worked out here from those numbers: BEGIN at 1 s, records at 1.5, 2, 2.5 and 3 s, END at
# 3.5 s. Checked in the trace view (Chrome's ts in microseconds, read by Python's json) and in
# the perf.data view as Debian's `perf script -F time` reads it (PERF_SAMPLE_TIME, ns); and an
# old capture (format version 1, tests/views/two-cpus.log) still decodes, its records untimed.
. "$(dirname "$0")/lib.sh"

printf '%s\n' 'header baretrace=test cpus=1 tsc-khz=2000000' 'tsc 2000000000' 'begin bts timed@golden' \
	'tsc 4000000000' 'bts 0x500000 0x500010 0x10' 'bts 0x500012 0x500020 0x10' \
	'tsc 6000000000' 'bts 0x500022 0x500030 0x10' 'bts 0x500032 0x500040 0x10' \
	'tsc 7000000000' 'end 0' 'bootend' | "$build/host/mkcapture" >"$work/timed.log"
ok $? "mkcapture writes a timed capture"

"$dec" --view trace "$work/timed.log" >"$work/trace.json" 2>"$work/trace.err"
ok $? "--view trace decodes it: $(head -c 200 "$work/trace.err")"
got=$(/usr/bin/python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(" ".join(str(int(t)) for t in sorted({e["ts"] for e in ev if e["ph"] in "BE"})))' "$work/trace.json" |
	tr ' ' '\n' | sort -un | tr '\n' ' ')
[ "$got" = "1500000 2000000 2500000 3000000 3500000 " ]
ok $? "the trace view's slices start and end at the records' times in us (1.5, 2, 2.5, 3 s; END 3.5 s): $got"

"$dec" --view perf.data -o "$work/perf.data" "$work/timed.log" 2>"$work/pd.err"
ok $? "--view perf.data writes it: $(head -c 200 "$work/pd.err")"
if command -v perf >/dev/null; then
	t=$(perf script -i "$work/perf.data" -F time 2>/dev/null | tr -d ' :' | sort -u | tr '\n' ' ')
	[ "$t" = "3.000000 " ]
	ok $? "perf script -F time: the BTS window's sample at its last record's time, 3 s ($t)"
else
	ok 0 "# SKIP perf not installed (Debian linux-perf)"
fi

"$dec" "$here/two-cpus.log" >"$work/old.txt" 2>"$work/old.err"
ok $? "a capture of format version 1 (two-cpus.log) still decodes, exit 0: $(head -c 200 "$work/old.err")"
"$dec" --view trace "$here/two-cpus.log" >/dev/null 2>&1
ok $? "... and its trace view (record indexes for time, as before)"

# a frame of a newer format (version 3, its CRC made right by Python's zlib) is refused by name
/usr/bin/python3 -c '
import base64, sys, zlib
for l in open(sys.argv[1]):
    if l.startswith("@BT1 "):
        f = bytearray(base64.b64decode(l[5:].strip()))
        f[2] = 3
        f[-4:] = zlib.crc32(bytes(f[:-4])).to_bytes(4, "little")
        print("@BT1 " + base64.b64encode(bytes(f)).decode())
    else:
        print(l, end="")' "$work/timed.log" >"$work/v3.log"
"$dec" "$work/v3.log" >/dev/null 2>"$work/v3.err"
[ $? = 1 ] && grep -q "format version neither 1 nor 2" "$work/v3.err"
ok $? "a newer format's frames: exit 1, the version named ($(head -n 1 "$work/v3.err" | head -c 160))"

echo "1..$n"
