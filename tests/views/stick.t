#!/usr/bin/env bash
# btdecode reads a USB stick's trace partition (tools/bt_stick.c, issue #37): the partition
# itself and a whole GPT image holding it (found by its type GUID), each written here by an
# independent writer (Python's struct and zlib, from the layout lib/trace_part.h documents)
# around the frames of a fixed capture (two-cpus.log's "@BT1" lines, base64-decoded, and its
# last line, "run finished: ...", as the kernel ends the partition's data). The
# records must be the ones the serial log gives, and the capture's completeness said from the
# commit block: COMPLETE, INCOMPLETE at a checkpoint or with none, FULL, DAMAGED data.
. "$(dirname "$0")/lib.sh"
log=$here/two-cpus.log
echo "1..13"

# mkpart OUT STATE [BYTES_CUT] [FLIP]: a trace partition of 2048 sectors holding the log's frames.
# STATE 0: no commit block; BYTES_CUT: the commit block says fewer bytes; FLIP: a data byte flipped
# after the CRC was taken.
mkpart() {
	/usr/bin/python3 - "$log" "$@" <<'PY'
import base64, struct, sys, zlib
log, out, state = sys.argv[1], sys.argv[2], int(sys.argv[3])
cut = int(sys.argv[4]) if len(sys.argv) > 4 else 0
flip = len(sys.argv) > 5
data = b"".join(base64.b64decode(l[5:].strip()) for l in open(log) if l.startswith("@BT1 "))
# the kernel's last line follows the frames, as on the serial line
data += b"".join(l.encode() for l in open(log) if l.startswith("run finished: "))
frames = sum(1 for l in open(log) if l.startswith("@BT1 "))
sectors, boot = 2048, 0x1234
def block(body):
    body = body.ljust(508, b"\0")
    return body + struct.pack("<I", zlib.crc32(body))
head = block(b"BTTRACE1" + struct.pack("<IIQQ", 1, 512, boot, sectors) +
             b"abc".ljust(65, b"\0") + b"trace=bts".ljust(384, b"\0"))
n = len(data) - cut
commit = block(b"BTCOMMIT" + struct.pack("<IIQQQI", 1, state, boot, n, frames, zlib.crc32(data[:n])))
if state == 0:
    commit = b"\0" * 512
if flip:
    data = data[:100] + bytes([data[100] ^ 1]) + data[101:]
img = head + commit + data
open(out, "wb").write(img.ljust(sectors * 512, b"\0"))
PY
}

"$dec" --view text "$log" >"$work/serial.text" 2>/dev/null
mkpart "$work/part" 2
"$dec" --view text "$work/part" >"$work/part.text" 2>"$work/part.err"
ok $? "a trace partition with the final commit block: status 0"
cmp -s "$work/serial.text" "$work/part.text"
ok $? "its records are the serial log's (text view, $(wc -l <"$work/part.text") lines)"
grep -q "capture COMPLETE: [0-9]* bytes, 27 frames, data CRC-32 .* as committed" "$work/part.err"
ok $? "it says the capture is complete: $(grep COMPLETE "$work/part.err" | sed 's/^[^:]*: [^:]*: //')"

# A GPT image (build/mkgpt) with the partition dd'd where the table says.
truncate -s 80M "$work/img"
layout=$("$build/mkgpt" --trace-sectors 2048 "$work/img")
read -r _ first _ <<<"$(printf '%s\n' "$layout" | grep '^trace ')"
dd if="$work/part" of="$work/img" bs=512 seek="$first" conv=notrunc status=none
"$dec" --view text "$work/img" >"$work/img.text" 2>"$work/img.err" && cmp -s "$work/serial.text" "$work/img.text"
ok $? "a whole GPT image: the partition found by its type GUID (LBA $first), the same records, status 0"
"$top/scripts/capture" --stick --out "$work/copy" "$work/img" >"$work/out" 2>&1 &&
	cmp -s -n "$(stat -c %s "$work/part")" "$work/copy" "$work/part" && grep -q "capture COMPLETE" "$work/out"
ok $? "scripts/capture --stick: verified, and --out keeps the trace partition (byte for byte the one written)"

mkpart "$work/part" 1 500
"$dec" --view verify "$work/part" >"$work/out" 2>"$work/err"
[ $? = 1 ] && grep -q "capture INCOMPLETE: the last checkpoint says [0-9]* bytes (27 frames)" "$work/err"
ok $? "a checkpoint (WRITING) commit block: status 1, INCOMPLETE with the bytes written"
mkpart "$work/part" 3 500
"$dec" --view verify "$work/part" >"$work/out" 2>"$work/err"
[ $? = 1 ] && grep -q "capture INCOMPLETE: the partition filled up after" "$work/err"
ok $? "a FULL commit block: status 1, the partition filled up"
mkpart "$work/part" 0
"$dec" --view verify "$work/part" >"$work/out" 2>"$work/err"
[ $? = 1 ] && grep -q "no commit block of this boot" "$work/err"
ok $? "no commit block: status 1, nothing decoded, said"
mkpart "$work/part" 2 0 flip
"$dec" --view verify "$work/part" >"$work/out" 2>"$work/err"
[ $? = 1 ] && grep -q "capture DAMAGED: the complete commit block's CRC-32 of the data is" "$work/err"
ok $? "a flipped data bit: status 1, DAMAGED (the frame's CRC and the data's)"

truncate -s 1M "$work/zero"
"$dec" "$work/zero" >/dev/null 2>"$work/err"
[ $? = 3 ] && grep -q "no record stream" "$work/err"
ok $? "zeros: no head, no GPT: read as a capture, status 3 (no record stream)"
dd if=/dev/zero of="$work/img" bs=512 seek="$first" count=1 conv=notrunc status=none
"$dec" "$work/img" >/dev/null 2>"$work/err"
[ $? = 3 ] && grep -q "holds no capture: no head block" "$work/err"
ok $? "an image whose trace partition was never written: status 3, said"
truncate -s 80M "$work/img0"
"$build/mkgpt" "$work/img0" >/dev/null
"$dec" "$work/img0" >/dev/null 2>"$work/err"
[ $? = 2 ] && grep -q "no trace partition (type C3A5BFB3-93B4-4A05-8C3A-70DB0078F423)" "$work/err"
ok $? "a GPT image without a trace partition: status 2, the type named"
printf 'EFI PARTgarbage' | dd of="$work/img0" bs=512 seek=1 conv=notrunc status=none
"$dec" "$work/img0" >/dev/null 2>"$work/err"
[ $? = 2 ] && grep -q "no GUID partition table" "$work/err"
ok $? "a damaged GPT header: status 2, said"
