#!/usr/bin/env bash
# Every loss visible on the host: btdecode on captures with parts taken out, doubled,
# cut or re-encoded. The captures are edited from two whole ones: two-cpus.log, a real serial log
# (scripts/run --smp 2 --log two-cpus.log -- trace=bts,lbr workload=loop,calls stream=text
# stream.path=off trace.cpus=all: four sessions on each of two CPUs, records that need no ELF),
# and two-cpus.records written by mkcapture (the kernel's own stream writer), which ends with the
# boot's END frame. What is expected comes from the stream's definition (lib/stream.h,
# docs/record-stream.md "Records off the machine"): a frame's type, CPU and number are read here
# from its bytes with perl's MIME::Base64 at the header offsets lib/stream.h gives (type at 3, CPU
# at 4, the CPU's frame number at 8, little-endian); each CPU numbers its frames from 0 in every
# boot; a boot's stream starts with HEADER frames on CPU 0 and the boot ends with the kernel's "run
# finished:" line (docs/running.md "Running"); the boot's END frame names each CPU's frames. The
# records a good decode must give are the kernel's own record lines in the same log (stream=text
# prints both), never an earlier output of the decoder. Exit statuses: btdecode's, as
# docs/record-stream.md documents them (0 complete, 1 damaged or incomplete, 3 no record stream in
# the input).
. "$(dirname "$0")/lib.sh"

cap=$here/two-cpus.log
# drop LINES... < FILE: FILE without those lines
drop() { awk -v l=" $* " 'index(l, " " FNR " ") == 0'; }
# kernel_records FILE: the kernel's own record lines (bts, lbr) in FILE
kernel_records() { tr -d '\r' <"$1" | grep -E '^(bts|lbr) '; }
# decode NAME FILE: btdecode's text view of FILE into $work/NAME.out and .err, its status in $rc
decode() {
	"$dec" "$2" >"$work/$1.out" 2>"$work/$1.err"
	rc=$?
}
# said NAME REGEX: btdecode's report for NAME matches REGEX (extended)
said() { grep -Eq -- "$2" "$work/$1.err"; }
# records NAME: the record lines btdecode gave for NAME
records() { grep -E '^(bts|lbr) ' "$work/$1.out"; }
# show NAME: after a failed check, what btdecode said
show() { [ "$last" = 0 ] || sed 's/^/# /' "$work/$1.err" | head -n 8; }

frames "$cap" >"$work/frames"
kernel_records "$cap" >"$work/kernel"
[ "$(awk '{ c[$2]++ } END { print length(c) }' "$work/frames")" = 2 ] &&
	[ "$(awk '$4 == 1' "$work/frames" | wc -l)" = 8 ] && [ "$(wc -l <"$work/kernel")" -gt 500 ]
ok $? "two-cpus.log: frames of two CPUs, 8 sessions, $(wc -l <"$work/kernel") record lines of the kernel's"

decode whole "$cap"
[ "$rc" = 0 ] && [ ! -s "$work/whole.err" ] && records whole | cmp -s - "$work/kernel"
ok $? "the whole capture: exit $rc, no problem, every record the kernel printed, once"

# ---- frames taken out --------------------------------------------------------------------------
# The boot's HEADER frames: CPU 0's frames 0..H
h=$(awk '$4 == 4 { print $1 }' "$work/frames")
hmax=$(awk '$4 == 4 { m = $3 } END { print m }' "$work/frames")
drop $h <"$cap" >"$work/nohdr"
decode nohdr "$work/nohdr"
[ "$rc" = 1 ] && said nohdr "cpu 0: frames 0\.\.$hmax missing" && said nohdr "HEADER"
ok $? "without its HEADER frames: exit $rc, CPU 0's frames 0..$hmax named missing, the HEADER named"
show nohdr

# CPU 1's first session: its frames from 0 to its first END
e1=$(awk '$2 == 1 && $4 == 3 { print $3; exit }' "$work/frames")
drop $(awk -v e="$e1" '$2 == 1 && $3 <= e { print $1 }' "$work/frames") <"$cap" >"$work/nofirst"
decode nofirst "$work/nofirst"
[ "$rc" = 1 ] && said nofirst "cpu 1: frames 0\.\.$e1 missing"
ok $? "without CPU 1's first session: exit $rc, its frames 0..$e1 named missing"
show nofirst

# one record frame of CPU 0's second session: the session is named
b=$(awk '$2 == 0 && $4 == 1 { k++ } $2 == 0 && $4 == 1 && k == 2 { print $3; exit }' "$work/frames")
r=$(awk -v b="$b" '$2 == 0 && $3 == b + 1 { print $1 " " $3 }' "$work/frames")
drop "${r% *}" <"$cap" >"$work/norec"
decode norec "$work/norec"
[ "$rc" = 1 ] && said norec "cpu 0: frame ${r#* } missing" && said norec "session .*frame $b\)"
ok $? "without one record frame: exit $rc, CPU 0's frame ${r#* } named missing, in its session (BEGIN frame $b)"
show norec

# ---- the capture cut ---------------------------------------------------------------------------
# after CPU 0's second session's END: sessions of both CPUs follow in the run
e2=$(awk '$2 == 0 && $4 == 3 { k++; if (k == 2) { print $1; exit } }' "$work/frames")
head -n "$e2" "$cap" >"$work/cut"
decode cut "$work/cut"
[ "$rc" = 1 ] && said cut "run finished"
ok $? "cut between two sessions: exit $rc, the missing end of the boot (the 'run finished:' line) named"
show cut
# after the last frame: every session whole, but whether more came is not known
last=$(tail -n 1 "$work/frames" | cut -d' ' -f1)
head -n "$last" "$cap" >"$work/cutend"
decode cutend "$work/cutend"
[ "$rc" = 1 ] && said cutend "run finished"
ok $? "cut after the last frame, before the kernel's last line: exit $rc, the boot's end named"

# two boots: the first cut before its end, the second whole
{ head -n "$e2" "$cap"; cat "$cap"; } >"$work/twoboots.cut"
decode twoboots.cut "$work/twoboots.cut"
[ "$rc" = 1 ] && said twoboots.cut "run finished"
ok $? "a boot cut short, then another boot: exit $rc, the first boot's end named missing"
cat "$cap" "$cap" >"$work/twoboots"
decode twoboots "$work/twoboots"
[ "$rc" = 0 ] && [ ! -s "$work/twoboots.err" ] &&
	records twoboots | cmp -s - <(cat "$work/kernel" "$work/kernel")
ok $? "two whole boots in one capture: exit $rc, each boot's records once"

# ---- the boot's END frame: every CPU's last session proven ------------------------------------
"$build/host/mkcapture" <"$here/two-cpus.records" >"$work/m"
frames "$work/m" >"$work/m.frames"
decode m "$work/m"
[ "$rc" = 0 ] && [ ! -s "$work/m.err" ] && [ "$(grep -c ' digest=ok' "$work/m.out")" = 4 ]
ok $? "mkcapture's boot of two CPUs, with its END frame: exit $rc, 4 sessions whole"
show m
# CPU 1's last session taken out whole; the kernel's last line still there
lb=$(awk '$2 == 1 && $4 == 1 { b = $3 } END { print b }' "$work/m.frames")
le=$(awk '$2 == 1 { e = $3 } END { print e }' "$work/m.frames")
drop $(awk -v b="$lb" '$2 == 1 && $3 >= b { print $1 }' "$work/m.frames") <"$work/m" >"$work/m.nolast"
decode m.nolast "$work/m.nolast"
[ "$rc" = 1 ] && said m.nolast "cpu 1: frames $lb\.\.$le missing"
ok $? "without CPU 1's last session, the run's last line kept: exit $rc, its frames $lb..$le named missing (the boot's END counts them)"
show m.nolast
# the END frame's own words: each CPU's frames before it, counted here from the frames
perl -MMIME::Base64 -ne 'next unless /\@BT1 ([A-Za-z0-9+\/=]+)/; my $f = decode_base64($1);
	$last = substr($f, 12, unpack("v", substr($f, 6, 2))) if ord(substr($f, 3, 1)) == 4;
	END { print join(" ", split(/\0/, $last)), "\n" }' "$work/m" >"$work/m.end"
want=$(awk 'NR < last { c[$2]++ } END { printf "end=0:%d,1:%d", c[0], c[1] }' last="$(wc -l <"$work/m.frames")" "$work/m.frames")
[ "$(cat "$work/m.end")" = "$want" ]
ok $? "two-cpus.records' END frame says $(cat "$work/m.end") ($want counted)"

# ---- frames twice, and out of order --------------------------------------------------------------
# a record frame of CPU 1 doubled where it is, and another one again after the next frame
d1=$(awk '$2 == 1 && ($4 == 2 || $4 == 5) { print $1 " " $3; exit }' "$work/frames")
d2=$(awk '$2 == 1 && ($4 == 2 || $4 == 5) { k++; if (k == 3) { print $1 " " $3; exit } }' "$work/frames")
awk -v a="${d1% *}" -v b="${d2% *}" '{ print } FNR == a { print } FNR == b { keep = $0 }
	keep != "" && FNR == b + 1 { print keep; keep = "" }' "$cap" >"$work/dup"
decode dup "$work/dup"
[ "$rc" = 1 ] && said dup "cpu 1: frame ${d1#* }\b.*duplicate" && said dup "cpu 1: frame ${d2#* }\b.*duplicate" &&
	! said dup "4294967" && records dup | cmp -s - "$work/kernel"
ok $? "two record frames doubled: exit $rc, each named a duplicate (CPU 1 frames ${d1#* } and ${d2#* }), every record once"
show dup
# the first HEADER frame doubled
awk -v a="$(head -n 1 "$work/frames" | cut -d' ' -f1)" '{ print } FNR == a { print }' "$cap" >"$work/duphdr"
decode duphdr "$work/duphdr"
[ "$rc" = 1 ] && said duphdr "cpu 0: frame 0\b.*duplicate" && records duphdr | cmp -s - "$work/kernel" &&
	[ "$(grep -c '^stream-header .* build-id=' "$work/duphdr.out")" = 1 ]
ok $? "the HEADER frame doubled: exit $rc, named a duplicate, not taken for a new boot"
# two record frames of CPU 0 swapped
s1=$(awk '$2 == 0 && $4 == 5 { print $1; exit }' "$work/frames")
awk -v a="$s1" 'FNR == a { held = $0; next } { print } FNR == a + 1 { print held }' "$cap" >"$work/swap"
frames "$work/swap" | awk -v a="$s1" '$1 == a { x = $3 } $1 == a + 1 { print x, $3 }' >"$work/swap.seq"
decode swap "$work/swap"
# subsequence A B: the lines of file A stand in file B in the same order, none more often
subsequence() {
	perl -e 'open(my $a, "<", $ARGV[0]) or die; open(my $b, "<", $ARGV[1]) or die;
		my $want = <$a>; while (defined $want && defined(my $l = <$b>)) { $want = <$a> if $l eq $want }
		exit(defined $want)' "$1" "$2"
}
records swap >"$work/swap.rec"
[ "$rc" = 1 ] && read -r sa sb <"$work/swap.seq" && said swap "cpu 0: frame $sb\b.*(back|order)" &&
	subsequence "$work/swap.rec" "$work/kernel"
ok $? "two frames of CPU 0 swapped (now $(cat "$work/swap.seq")): exit $rc, the step back named, the records shown the kernel's in its order"
show swap

# two record frames of one session swapped: a long session written here (mkcapture), the
# records it is given are the ones that may come back, in their order
awk 'BEGIN { print "header baretrace=test cpus=1"; print "begin bts long@test cpu=0"
	for (i = 0; i < 600; i++) printf "bts %d %d 0x10\n", 4096 + 64 * i, 8192 + 32 * i
	print "end 0"; print "log run finished: PASS" }' >"$work/long.records"
"$build/host/mkcapture" <"$work/long.records" >"$work/long"
awk '$1 == "bts" { printf "bts %#x %#x 0x10\n", $2, $3 }' "$work/long.records" >"$work/long.want"
frames "$work/long" >"$work/long.frames"
l1=$(awk '$4 == 2 { print $1; exit }' "$work/long.frames")
awk -v a="$l1" 'FNR == a { held = $0; next } { print } FNR == a + 1 { print held }' "$work/long" >"$work/lswap"
decode lswap "$work/lswap"
records lswap >"$work/lswap.rec"
[ "$(grep -c '^@BT1' "$work/long")" -ge 5 ] && [ "$rc" = 1 ] && said lswap "go back" &&
	subsequence "$work/lswap.rec" "$work/long.want" && [ -s "$work/lswap.rec" ]
ok $? "two record frames of one session swapped: exit $rc, the records shown are the session's in their order, none twice ($(wc -l <"$work/lswap.rec") of 600)"
show lswap

# ---- line ends and blanks ------------------------------------------------------------------------
tr -d '\r' <"$cap" | sed '/^@BT1 /s/$/ \t/' >"$work/blanks"
decode blanks "$work/blanks"
[ "$rc" = 0 ] && [ ! -s "$work/blanks.err" ] && records blanks | cmp -s - "$work/kernel"
ok $? "a space and a tab after each frame line: exit $rc, every record"
show blanks
sed 's/\r$/ \r/' "$cap" >"$work/blanks.cr"
decode blanks.cr "$work/blanks.cr"
[ "$rc" = 0 ] && [ ! -s "$work/blanks.cr.err" ] && records blanks.cr | cmp -s - "$work/kernel"
ok $? "a space before each line's CR: exit $rc, every record"
tr -d '\n' <"$cap" >"$work/cronly"
decode cronly "$work/cronly"
[ "$rc" = 0 ] && [ ! -s "$work/cronly.err" ] && records cronly | cmp -s - "$work/kernel"
ok $? "lines ended by CR alone: exit $rc, every record"
show cronly
tr -d '\r' <"$cap" | sed 's/$/\r\r/' >"$work/crcrlf"
decode crcrlf "$work/crcrlf"
[ "$rc" = 0 ] && records crcrlf | cmp -s - "$work/kernel" && [ "$(grep -c . "$work/crcrlf.err")" = 0 ]
ok $? "lines ended by CR CR LF (a terminal's log of a CR LF line): exit $rc, every record"

# ---- the binary wire: a frame across the reader's chunks ------------------------------------------
# stream=binary (docs/record-stream.md): the frames as bytes between the log's lines, each LF sent
# as CR LF. btdecode reads 64 KiB + 2 frames + 16 = 66544 bytes at a time (tools/btdecode.c); a
# filler of log lines puts the boot's first frame so that the chunk ends inside its magic ("BT"
# and the version), and a few bytes either side: every one complete, with all its frames (counted
# here).
perl -MMIME::Base64 -ne 'if (/^\@BT1 (\S+)/) { (my $f = decode_base64($1)) =~ s/\n/\r\n/g; print $f }
	else { s/\n/\r\n/; print }' "$work/m" >"$work/m.bin"
first=$(LC_ALL=C grep -abo 'BT' "$work/m.bin" | head -n 1 | cut -d: -f1)
bad=""
for cut in -2 -1 0 1 2 3 4 5; do
	l=$((66544 - first - 3 + cut))
	perl -e 'my $l = shift; print(("y" x 62) . "\r\n") for 1 .. int($l / 64); print "x" x ($l % 64)' "$l" |
		cat - "$work/m.bin" >"$work/b"
	"$dec" --view verify "$work/b" >"$work/b.out" 2>&1 &&
		grep -q "^btdecode: $(wc -l <"$work/m.frames") frames," "$work/b.out" || bad="$bad $cut"
done
[ -z "$bad" ] && [ "$(LC_ALL=C grep -c '^@BT1' "$work/m.bin")" = 0 ]
ok $? "the binary wire, its first frame's magic across the reader's chunk end (and either side): every frame found${bad:+ (not at:$bad)}"

# ---- no stream at all ----------------------------------------------------------------------------
: >"$work/empty"
decode empty "$work/empty"
[ "$rc" = 3 ] && said empty "no record stream"
ok $? "an empty file: exit $rc, no record stream named"
perl -e 'srand(33); print map { chr(int(rand(256))) } 1 .. 65536' >"$work/random"
decode random "$work/random"
[ "$rc" != 0 ] && [ -s "$work/random.err" ]
ok $? "64 KiB of random bytes: exit $rc, said why ($(head -n 1 "$work/random.err" | cut -c1-100))"
tr '\n' '\r' <"$work/kernel" >"$work/crtext"
decode crtext "$work/crtext"
[ "$rc" = 3 ] && said crtext "no record stream"
ok $? "a log without frames, lines ended by CR: exit $rc"
iconv -f UTF-8 -t UTF-16 <"$cap" >"$work/utf16"
decode utf16 "$work/utf16"
[ "$rc" = 3 ] && said utf16 "UTF-16"
ok $? "the capture as UTF-16: exit $rc, named UTF-16 ($(head -n 1 "$work/utf16.err" | cut -c1-120))"
"$dec" --help | grep -q '3 no record stream'
ok $? "btdecode --help documents exit status 3"
echo "1..$n"
