#!/usr/bin/env bash
# btdecode reads a USB stick's trace partition (tools/bt_stick.c, docs/usb-stick.md "Records onto
# the stick"): the partition itself and a whole GPT image holding it (found by its type GUID), each
# written here by an independent writer (Python's struct and zlib, from the layout
# lib/trace_part.h documents) around the frames of a fixed capture (two-cpus.log's "@BT1" lines,
# base64-decoded, and its last line, "run finished: ...", as the kernel ends the partition's
# data; or mkcapture's boot with its END frame). The records must be the ones the serial log
# gives, and the capture's completeness said from the commit block: COMPLETE, INCOMPLETE at a
# checkpoint, FULL, DAMAGED data. Damage hides no intact frame: any one byte of the commit block
# flipped, the head's flipped, either zeroed, make the partition scanned for its frames (each with
# its own CRC), said, status 1, every record back; an image cut short is said with its size and
# the size the partition needs.
. "$(dirname "$0")/lib.sh"
log=$here/two-cpus.log

# mkpart OUT [--state N] [--cut N] [--flip-data] [--flip-commit I] [--flip-head I]
#   [--zero-head] [--commit-boot ID] [--head-build ID] [--frames FILE] [--stale FILE] [--no-data]
# A trace partition of 2048 sectors holding FILE's frames (default two-cpus.log) in its data:
# head (boot 0x1234, the build id of the frames' HEADER, as the kernel writes both) and commit
# block (STATE 2 complete, 1 writing, 3 full, 0 none: zeros); --cut: the commit block says N
# fewer bytes; --flip-*: a byte flipped after the CRCs were taken (data: byte 100; a block: byte
# I); --commit-boot: the commit block of another boot; --stale FILE: another capture's frames
# after this one's, from the next sector on, as an earlier boot left them; --no-data: zeros.
mkpart() {
	/usr/bin/python3 - "$log" "$@" <<'PY'
import argparse, base64, re, struct, sys, zlib
p = argparse.ArgumentParser()
p.add_argument("log"); p.add_argument("out")
p.add_argument("--state", type=int, default=2); p.add_argument("--cut", type=int, default=0)
p.add_argument("--flip-data", action="store_true")
p.add_argument("--flip-commit", type=int); p.add_argument("--flip-head", type=int)
p.add_argument("--zero-head", action="store_true")
p.add_argument("--commit-boot", type=lambda s: int(s, 0)); p.add_argument("--head-build")
p.add_argument("--frames"); p.add_argument("--stale"); p.add_argument("--no-data", action="store_true")
a = p.parse_args()
def frames_of(path):
    lines = open(path, errors="replace").read().replace("\r", "").split("\n")
    data = b"".join(base64.b64decode(l[5:].strip()) for l in lines if l.startswith("@BT1 "))
    # the kernel's last line follows the frames, as on the serial line
    data += b"".join((l + "\n").encode() for l in lines if l.startswith("run finished: "))
    return data, sum(1 for l in lines if l.startswith("@BT1 "))
data, frames = frames_of(a.frames or a.log)
build = a.head_build or re.search(rb"build-id=([0-9a-f]+)", data).group(1).decode()
if a.no_data:
    data, frames = b"", 0
sectors, boot = 2048, 0x1234
def block(body):
    body = body.ljust(508, b"\0")
    return bytearray(body + struct.pack("<I", zlib.crc32(body)))
head = block(b"BTTRACE1" + struct.pack("<IIQQ", 1, 512, boot, sectors) +
             build.encode().ljust(65, b"\0") + b"trace=bts".ljust(384, b"\0"))
n = len(data) - a.cut
cboot = a.commit_boot if a.commit_boot is not None else boot
commit = block(b"BTCOMMIT" + struct.pack("<IIQQQI", 1, a.state, cboot, n, frames, zlib.crc32(data[:n])))
if a.state == 0:
    commit = bytearray(512)
if a.flip_data:
    data = data[:100] + bytes([data[100] ^ 1]) + data[101:]
if a.flip_commit is not None:
    commit[a.flip_commit] ^= 0x10
if a.flip_head is not None:
    head[a.flip_head] ^= 0x10
if a.zero_head:
    head = bytearray(512)
if a.stale:
    data = data.ljust((len(data) + 511) // 512 * 512, b"\0") + frames_of(a.stale)[0]
img = bytes(head) + bytes(commit) + data
open(a.out, "wb").write(img.ljust(sectors * 512, b"\0"))
PY
}
# records NAME: the record lines of btdecode's text view in $work/NAME.text
records() { grep -E '^(bts|lbr) ' "$work/$1.text"; }
# decode NAME FILE [ARGS]: the text view into $work/NAME.text and .err, the status in $rc
decode() {
	local name=$1 file=$2
	shift 2
	"$dec" --view text "$@" "$file" >"$work/$name.text" 2>"$work/$name.err"
	rc=$?
}
said() { grep -Eq -- "$2" "$work/$1.err"; }
show() { [ "$last" = 0 ] || sed 's/^/# /' "$work/$1.err" | head -n 6; }

decode serial "$log"
records serial >"$work/serial.rec"
mkpart "$work/part"
decode part "$work/part"
ok $rc "a trace partition with the final commit block: status 0"
cmp -s "$work/serial.text" "$work/part.text"
ok $? "its records are the serial log's (text view, $(wc -l <"$work/part.text") lines)"
said part "capture COMPLETE: [0-9]* bytes, 27 frames, data CRC-32 .* as committed"
ok $? "it says the capture is complete: $(grep COMPLETE "$work/part.err" | sed 's/^[^:]*: [^:]*: //')"

# A GPT image (build/mkgpt) with the partition dd'd where the table says.
truncate -s 80M "$work/img"
layout=$("$build/mkgpt" --trace-sectors 2048 "$work/img")
read -r _ first tlast <<<"$(printf '%s\n' "$layout" | grep '^trace ')"
dd if="$work/part" of="$work/img" bs=512 seek="$first" conv=notrunc status=none
cp "$work/img" "$work/img.whole"
decode img "$work/img"
[ "$rc" = 0 ] && cmp -s "$work/serial.text" "$work/img.text"
ok $? "a whole GPT image: the partition found by its type GUID (LBA $first), the same records, status 0"
"$top/scripts/capture" --stick --out "$work/copy" "$work/img" >"$work/out" 2>&1 &&
	cmp -s -n "$(stat -c %s "$work/part")" "$work/copy" "$work/part" && grep -q "capture COMPLETE" "$work/out"
ok $? "scripts/capture --stick: verified, and --out keeps the trace partition (byte for byte the one written)"

mkpart "$work/p" --state 1 --cut 500
decode p "$work/p" --view verify
[ "$rc" = 1 ] && said p "capture INCOMPLETE: the last checkpoint says [0-9]* bytes \(27 frames\)"
ok $? "a checkpoint (WRITING) commit block: status 1, INCOMPLETE with the bytes written"
mkpart "$work/p" --state 3 --cut 500
decode p "$work/p" --view verify
[ "$rc" = 1 ] && said p "capture INCOMPLETE: the partition filled up after"
ok $? "a FULL commit block: status 1, the partition filled up"
mkpart "$work/p" --flip-data
decode p "$work/p" --view verify
[ "$rc" = 1 ] && said p "capture DAMAGED: the complete commit block's CRC-32 of the data is"
ok $? "a flipped data bit: status 1, DAMAGED (the frame's CRC and the data's)"

# ---- damaged blocks hide no intact frame ---------------------------------------------------------
# every byte of the commit block flipped in turn (in place, one perl running the decoder):
# scanned, every record back, said
mkpart "$work/p"
bad=$(perl -e 'my ($dec, $p, $want, $o) = @ARGV; local $/; open(my $w, "<", $want) or die; my $rec = <$w>;
	open(my $f, "+<", $p) or die; binmode $f; my @bad;
	for my $i (0 .. 511) {
		seek($f, 512 + $i, 0); read($f, my $c, 1); seek($f, 512 + $i, 0); print $f chr(ord($c) ^ 0x10); $f->flush;
		system("\"$dec\" --view text \"$p\" >\"$o.text\" 2>\"$o.err\"");
		my $rc = $? >> 8;
		open(my $t, "<", "$o.text"); my $got = join("", grep { /^(bts|lbr) / } split(/^/m, <$t> // ""));
		open(my $e, "<", "$o.err"); my $err = <$e> // "";
		push @bad, "$i($rc)" unless $rc == 1 && $got eq $rec &&
			$err =~ /commit block (CRC mismatch|damaged \(no "BTCOMMIT" magic\)): scanned the partition for frames instead: 27 frames/;
		seek($f, 512 + $i, 0); print $f $c; $f->flush;
	}
	print join(" ", @bad)' "$dec" "$work/p" "$work/serial.rec" "$work/p")
[ -z "$bad" ]
ok $? "each of the commit block's 512 bytes flipped: status 1, every record the serial log's, the commit block named and the partition scanned${bad:+ (not at: $bad)}"
show p
mkpart "$work/p" --state 0
decode p "$work/p"
[ "$rc" = 1 ] && records p | cmp -s - "$work/serial.rec" && said p "no commit block \(its sector is zeros\): scanned"
ok $? "no commit block (zeros): status 1, scanned, every record back"
mkpart "$work/p" --state 0 --no-data
decode p "$work/p"
[ "$rc" = 1 ] && [ ! -s "$work/p.text" ] &&
	said p "capture INCOMPLETE: no commit block \(its sector is zeros\), and no frame at the data's start.*nothing decoded"
ok $? "no commit block and no data (the kernel stopped before its first checkpoint): status 1, INCOMPLETE, nothing decoded"
mkpart "$work/p" --flip-head 40
decode p "$work/p"
[ "$rc" = 1 ] && records p | cmp -s - "$work/serial.rec" && said p "head block CRC mismatch" &&
	said p "capture COMPLETE"
ok $? "a byte of the head flipped: status 1, the head named, the data decoded by the commit block (its CRC holds)"
mkpart "$work/p" --flip-head 3 --flip-commit 3
decode p "$work/p"
[ "$rc" = 1 ] && records p | cmp -s - "$work/serial.rec" && said p "head block damaged" && said p "commit block damaged.*scanned"
ok $? "both blocks' magic flipped: status 1, both named, scanned, every record back"
show p
dd if=/dev/zero of="$work/img" bs=512 seek="$first" count=1 conv=notrunc status=none
decode img0 "$work/img"
[ "$rc" = 1 ] && records img0 | cmp -s - "$work/serial.rec" && said img0 "no head block \(its sector is zeros\)"
ok $? "an image whose trace partition's head is zeros (commit and data whole): status 1, said, every record back"
dd if=/dev/zero of="$work/img" bs=512 seek="$first" count=3 conv=notrunc status=none
decode img0 "$work/img"
[ "$rc" = 3 ] && said img0 "holds no capture: no head block"
ok $? "an image whose trace partition was never written (head, commit, data's start zeros): status 3, said"
# the scan takes only this boot's frames: mkcapture's boot ends with its END frame, and
# two-cpus.log's frames of an earlier boot follow from the next sector
"$build/host/mkcapture" <"$here/two-cpus.records" >"$work/m"
mkpart "$work/p" --frames "$work/m" --state 0 --stale "$log"
decode p "$work/p"
"$dec" --view text "$work/m" 2>/dev/null | grep -E '^(bts|lbr) ' >"$work/m.rec"
[ "$rc" = 1 ] && records p | cmp -s - "$work/m.rec" && said p "ending at the boot's END frame"
ok $? "no commit block, an earlier boot's frames after the END frame: status 1, only this boot's records, the END frame where the scan stopped"
# a frame damaged on the way: the scan walks past it, the decoder names it
mkpart "$work/p" --state 0 --flip-data
decode p "$work/p"
[ "$rc" = 1 ] && said p "damaged binary frame" && said p "1 damaged spots walked past" &&
	[ "$(records p | wc -l)" -gt 500 ]
ok $? "no commit block and a damaged frame: status 1, the frame named, the scan past it ($(records p | wc -l) records)"
mkpart "$work/p" --commit-boot 0x999
decode p "$work/p"
[ "$rc" = 1 ] && [ ! -s "$work/p.text" ] && said p "commit block is another boot's \(0x999, the head's 0x1234\).*nothing decoded"
ok $? "a commit block of another boot: status 1, nothing decoded (the data is that boot's), said"
mkpart "$work/p" --state 0 --head-build 0123
decode p "$work/p"
[ "$rc" = 1 ] && [ ! -s "$work/p.text" ] && said p "names build 9eca265b836fb487f18b878fb47f0e47f4a33fc1, the head build 0123.*nothing decoded"
ok $? "no commit block, and the data's HEADER names another build than the head: status 1, nothing decoded, said"

# ---- an image cut short ----------------------------------------------------------------------------
pstart=$((first * 512)) need=$(((tlast + 1) * 512))
cut_image() { head -c "$1" "$work/img.whole" >"$work/cut"; }
cut_image $((pstart + 1024 + 2500))
decode cut "$work/cut"
[ "$rc" = 1 ] && said cut "image truncated at $((pstart + 3524)) bytes: the trace partition \(LBAs $first-$tlast\) needs $need" &&
	said cut "capture INCOMPLETE: the complete commit block says [0-9]* bytes \(27 frames\), and the image holds 2500" &&
	records cut | cmp -s - <(head -n "$(records cut | wc -l)" "$work/serial.rec") && [ "$(records cut | wc -l)" -gt 10 ]
ok $? "an image cut 2500 bytes into the data: status 1, its size and the partition's end said, the records before the cut the serial log's ($(records cut | wc -l))"
show cut
cut_image $((pstart + 1024 + 4096))
decode cut "$work/cut"
[ "$rc" = 0 ] && cmp -s "$work/cut.text" "$work/serial.text" && said cut "image truncated at $((pstart + 5120)) bytes.*data is all before it"
ok $? "an image cut after the data, inside the partition: said, status 0 (the committed data whole, its CRC as committed)"
cut_image $((pstart - 512))
decode cut "$work/cut"
[ "$rc" = 1 ] && said cut "image truncated at $((pstart - 512)) bytes: its trace partition \(LBAs $first-$tlast\) needs $need.*nothing to decode"
ok $? "an image cut before its trace partition: status 1, said"
cut_image 4096
decode cut "$work/cut"
[ "$rc" = 2 ] && said cut "image truncated at 4096 bytes: its GPT's partition entries need 17408"
ok $? "an image cut inside its GPT's entries: status 2, said"
head -c 1500 "$work/part" >"$work/cut"
decode cut "$work/cut"
[ "$rc" = 1 ] && said cut "image truncated at 1500 bytes: the trace partition needs 1048576"
ok $? "a partition's copy cut inside its data: status 1, said (the head's size of it)"

# ---- -o the image itself -----------------------------------------------------------------------------
cp "$work/part" "$work/keep"
"$dec" -o "$work/part" "$work/part" >/dev/null 2>"$work/o.err"
rc=$?
[ "$rc" = 2 ] && cmp -s "$work/part" "$work/keep" && grep -q "is the capture being read" "$work/o.err"
ok $? "-o naming the stick image read: status $rc, untouched"
"$dec" --view verify -o "$work/v.out" "$work/part" 2>/dev/null
rc=$?
[ "$rc" = 0 ] && grep -q '^btdecode: 27 frames' "$work/v.out"
ok $? "-o another file with a stick image: the view written there (status $rc)"

# ---- not a stick ------------------------------------------------------------------------------------
truncate -s 1M "$work/zero"
"$dec" "$work/zero" >/dev/null 2>"$work/err"
[ $? = 3 ] && grep -q "no record stream" "$work/err"
ok $? "zeros: no head, no GPT: read as a capture, status 3 (no record stream)"
# a stream=binary capture (frames as bytes between log lines, LF as CR LF: docs/record-stream.md
# "The binary wire") whose first frame is at byte 1024, where a partition's data starts: a capture
perl -MMIME::Base64 -e 'print(("y" x 62) . "\r\n") for 1 .. 16;
	while (<>) { if (/^\@BT1 (\S+)/) { (my $f = decode_base64($1)) =~ s/\n/\r\n/g; print $f }
		elsif (!/^baretrace/) { s/\n/\r\n/; print } }' "$work/m" >"$work/bin1024"
decode bin1024 "$work/bin1024"
[ "$rc" = 0 ] && [ "$(LC_ALL=C grep -abo 'BT' "$work/bin1024" | head -n 1 | cut -d: -f1)" = 1024 ] &&
	! said bin1024 "trace partition" && records bin1024 | cmp -s - "$work/m.rec"
ok $? "a stream=binary capture whose first frame is at byte 1024: read as a capture (status $rc), every record"
truncate -s 80M "$work/img0"
"$build/mkgpt" "$work/img0" >/dev/null
"$dec" "$work/img0" >/dev/null 2>"$work/err"
[ $? = 2 ] && grep -q "no trace partition (type C3A5BFB3-93B4-4A05-8C3A-70DB0078F423)" "$work/err"
ok $? "a GPT image without a trace partition: status 2, the type named"
printf 'EFI PARTgarbage' | dd of="$work/img0" bs=512 seek=1 conv=notrunc status=none
"$dec" "$work/img0" >/dev/null 2>"$work/err"
[ $? = 2 ] && grep -q "no GUID partition table" "$work/err"
ok $? "a damaged GPT header: status 2, said"
echo "1..$n"
