#!/usr/bin/env bash
# The host's verdict is the kernel's (docs/record-stream.md "Records off the machine", its exit
# status table; "Nothing lost"): captures written here by mkcapture (the kernel's own stream writer)
# from hand-made lists. What is expected comes from the format's definition (lib/stream.h) and
# docs/record-stream.md, never from a run of the decoder:
#  - a session whose END counts records not delivered is a problem naming the session, the
#    count and the reasons END carries, with exit status 4 (incomplete, scripts/run's 4) from
#    every view docs/record-stream.md lists and from scripts/capture; damage as well makes it 1;
#  - a run the kernel ends "run finished: INCOMPLETE" is incomplete (4) even when no END says why;
#  - a boot whose first HEADER promises its END frame (end-frame=yes) and ends without it is
#    damaged (1), and with it a CPU's last session lost whole; every frame line taken out, and
#    the capture cut anywhere before its end, is a named problem and status 1, a session
#    whose END is gone named;
#  - -o FILE naming a file btdecode reads (the capture through any path, link or standard
#    input; an ELF), or a standard output that is one, is refused with status 2 before FILE is
#    touched.
. "$(dirname "$0")/lib.sh"

# decode NAME FILE [ARGS...]: btdecode ARGS FILE into $work/NAME.out, .err; the status in $rc
decode() {
	local name=$1 file=$2
	shift 2
	"$dec" "$@" "$file" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
}
said() { grep -Eq -- "$2" "$work/$1.err"; }
show() { [ "$last" = 0 ] || sed 's/^/# /' "$work/$1.err" | head -n 8; }

# ---- sessions whose END counts records not delivered -------------------------------------------
# Two CPUs; the reasons as the kernel's drivers write them (capture.full=stop's store-full, the
# circular BTS buffer's overwritten, PEBS's dropped, capture.full=wrap's wrapped) and one whole
# session; the kernel ends such a run INCOMPLETE.
cat >"$work/lossy.records" <<'EOF'
log baretrace 0.1.0 (a made-up boot)
header baretrace=test cpus=2 end-frame=yes
begin btsint stop@test cpu=0
bts 0x401000 0x401010 0x10
end 19017 store-full=19017 dropped=0 overwritten=0
cpu 1
begin bts circular@test cpu=1
bts 0x401000 0x401010 0x10
end 4 store-full=0 dropped=0 overwritten=4
cpu 0
begin pebs drops@test cpu=0
bts 0x401020 0x401030 0x10
end 7 store-full=0 dropped=7 undecodable=0
cpu 1
begin btsint wrap@test cpu=1
bts 0x401040 0x401050 0x10
end 300 wrapped=300
cpu 0
begin bts whole@test cpu=0
bts 0x401060 0x401070 0x10
end 0
bootend
log run finished: INCOMPLETE
EOF
"$build/host/mkcapture" <"$work/lossy.records" >"$work/lossy"
ok $? "mkcapture writes a run of five sessions, four of them with records not delivered"

# lossy_said NAME: each lossy session named with its count and reasons, the whole one not
lossy_said() {
	said "$1" "session btsint stop@test cpu=0 .*19017 records \(store-full=19017 dropped=0 overwritten=0\)" &&
		said "$1" "session bts circular@test cpu=1 .* 4 records \(store-full=0 dropped=0 overwritten=4\)" &&
		said "$1" "session pebs drops@test cpu=0 .* 7 records \(store-full=0 dropped=7 undecodable=0\)" &&
		said "$1" "session btsint wrap@test cpu=1 .* 300 records \(wrapped=300\)" &&
		! said "$1" "whole@test"
}
# The views docs/record-stream.md's table lists, and verify (docs/record-stream.md "Records off the
# machine"); --help lists no other.
views="text json perf folded trace stats raw output perf.data afdo llvm-prof html verify"
"$dec" --help | awk '/views:$/ { on = 1; next } /^  --/ { on = 0 } on { print $1 }' | sort >"$work/help.views"
[ "$(tr ' ' '\n' <<<"$views" | sort)" = "$(cat "$work/help.views")" ]
ok $? "--help lists the views this test covers: $(tr '\n' ' ' <"$work/help.views")"
bad=""
for v in $views; do
	decode "lossy.$v" "$work/lossy" --view "$v" -o "$work/lossy.$v.file"
	[ "$rc" = 4 ] && lossy_said "lossy.$v" || bad="$bad $v($rc)"
done
[ -z "$bad" ]
ok $? "every view: exit 4, each of the four sessions named with its count and reasons${bad:+ (not:$bad)}"
show lossy.text
grep -q '^btdecode: 17 frames, 5 records, 4 problems .*4 sessions incomplete: 19328 records the kernel did not deliver' "$work/lossy.verify.file" &&
	! grep -q ' 0 problems' "$work/lossy.verify.file"
ok $? "verify's last line: 17 frames (a HEADER, five sessions of three, the END frame), 4 problems, 4 sessions incomplete, 19328 records ($(cat "$work/lossy.verify.file"))"
BUILD=$build "$top/scripts/capture" --out "$work/captured" - <"$work/lossy" >/dev/null 2>"$work/capture.err"
crc=$?
[ "$crc" = 4 ] && cmp -s "$work/lossy" "$work/captured" && lossy_said capture
ok $? "scripts/capture of it: exit $crc (btdecode's 4), the sessions named"

# the same with a frame of CPU 1 taken out as well: damage wins (1)
frames "$work/lossy" >"$work/lossy.frames"
drop=$(awk '$2 == 1 && $4 == 2 { print $1; exit }' "$work/lossy.frames")
awk -v l="$drop" 'FNR != l' "$work/lossy" >"$work/lossy.damaged"
decode damaged "$work/lossy.damaged" --view verify
[ "$rc" = 1 ] && said damaged "cpu 1: frame 1 missing" && said damaged "stop@test.*19017"
ok $? "records not delivered and a frame missing: exit $rc (1: damage), both said"

# ---- the kernel's last line -------------------------------------------------------------------
cat >"$work/whole.records" <<'EOF'
header baretrace=test cpus=1 end-frame=yes
begin bts whole@test cpu=0
bts 0x401000 0x401010 0x10
end 0
bootend
EOF
{ cat "$work/whole.records"; echo "log run finished: PASS"; } | "$build/host/mkcapture" >"$work/pass"
{ cat "$work/whole.records"; echo "log run finished: INCOMPLETE"; } | "$build/host/mkcapture" >"$work/inc"
decode pass "$work/pass" --view verify
p=$rc
decode inc "$work/inc" --view verify
[ "$p" = 0 ] && [ ! -s "$work/pass.err" ] && [ "$rc" = 4 ] && said inc "run finished: INCOMPLETE"
ok $? "every session whole: 'run finished: PASS' exit $p, 'run finished: INCOMPLETE' exit $rc, the kernel's word said"
show inc

# ---- the boot's END frame, promised --------------------------------------------------------------
# two-cpus.records' boot, its first HEADER with the promise
sed 's/^header baretrace=test /header baretrace=test end-frame=yes /' "$here/two-cpus.records" |
	"$build/host/mkcapture" >"$work/p"
frames "$work/p" >"$work/p.frames"
decode p "$work/p"
[ "$rc" = 0 ] && [ ! -s "$work/p.err" ]
ok $? "the promised boot, whole: exit $rc"
endl=$(awk '$4 == 4 { l = $1 } END { print l }' "$work/p.frames")
awk -v l="$endl" 'FNR != l' "$work/p" >"$work/p.noend"
decode p.noend "$work/p.noend"
[ "$rc" = 1 ] && said p.noend "end-frame=yes.*END frame is missing"
ok $? "its END frame taken out: exit $rc, the END frame named missing"
show p.noend
# CPU 1's last session and the END frame taken out: nothing after them from CPU 1
lb=$(awk '$2 == 1 && $4 == 1 { b = $3 } END { print b }' "$work/p.frames")
awk -v b="$lb" -v e="$endl" '($2 == 1 && $3 >= b) || $1 == e { print $1 }' "$work/p.frames" >"$work/p.gone"
awk 'NR == FNR { gone[$1] = 1; next } !(FNR in gone)' "$work/p.gone" "$work/p" >"$work/p.nolast"
decode p.nolast "$work/p.nolast"
[ "$rc" = 1 ] && said p.nolast "END frame is missing"
ok $? "CPU 1's last session and the END frame taken out: exit $rc, not complete"
# an older kernel's capture (no promise): docs/record-stream.md says it cannot tell
"$build/host/mkcapture" <"$here/two-cpus.records" >"$work/old"
awk -v l="$endl" 'FNR != l' "$work/old" >"$work/old.noend"
decode old.noend "$work/old.noend"
[ "$rc" = 0 ]
ok $? "without the promise (an older kernel's), the END frame taken out: exit $rc, as docs/record-stream.md says it cannot tell"

# every frame line taken out, one at a time: 1, and an END's session named
bad=""
while read -r line cpu seq type; do
	awk -v l="$line" 'FNR != l' "$work/p" >"$work/d"
	decode d "$work/d"
	good=1
	[ "$rc" = 1 ] || good=0
	if [ "$type" = 3 ]; then
		name=$(awk -v c="$cpu" -v s="$seq" '$2 == c && $3 < s && $4 == 1 { b = $1 } END { print b }' "$work/p.frames")
		session=$(sed -n "${name}p" "$work/p" | perl -MMIME::Base64 -ne '/\@BT1 (\S+)/; my $f = decode_base64($1);
			my @n = split(/\0/, substr($f, 13, unpack("v", substr($f, 6, 2)) - 1)); print "$n[0] $n[1]"')
		said d "session $session .*(no END|of its [0-9]+ records)" || good=0
	fi
	[ "$good" = 1 ] || bad="$bad $line($rc)"
done <"$work/p.frames"
[ -z "$bad" ]
ok $? "each of its $(wc -l <"$work/p.frames") frame lines taken out: exit 1, a lost END's session named${bad:+ (not at lines:$bad)}"
# cut after each line before the last frame: 1 (3 with no frame at all)
total=$(awk '$4 == 4 { l = $1 } END { print l }' "$work/p.frames")
bad=""
for k in $(seq 1 $((total - 1))); do
	head -n "$k" "$work/p" >"$work/d"
	decode d "$work/d"
	want=1
	[ "$k" -lt "$(head -n 1 "$work/p.frames" | cut -d' ' -f1)" ] && want=3
	[ "$rc" = "$want" ] || bad="$bad $k($rc)"
done
[ -z "$bad" ]
ok $? "cut after each of its first $((total - 1)) lines: exit 1 (3 before any frame)${bad:+ (not at:$bad)}"

# ---- -o FILE that is a file read ----------------------------------------------------------------
mkdir -p "$work/o/sub"
cp "$work/pass" "$work/o/cap"
cp "$work/pass" "$work/o/keep"
ln -s cap "$work/o/sym"
ln -s sym "$work/o/symsym"
ln "$work/o/cap" "$work/o/hard"
bad=""
for o in cap ./cap "$work/o/cap" sub/../cap sym symsym hard; do
	(cd "$work/o" && "$dec" -o "$o" cap >/dev/null 2>"$work/o.err")
	r=$?
	{ [ "$r" = 2 ] && cmp -s "$work/o/cap" "$work/o/keep" && grep -q "^btdecode: -o $o is the capture being read" "$work/o.err"; } ||
		bad="$bad $o($r)"
done
[ -z "$bad" ]
ok $? "-o naming the capture (itself, ./, absolute, through ../, a symbolic link, a link to it, a hard link): exit 2, said, the capture untouched${bad:+ (not:$bad)}"
(cd "$work/o" && "$dec" -o cap - <cap >/dev/null 2>"$work/o.err")
r=$?
[ "$r" = 2 ] && cmp -s "$work/o/cap" "$work/o/keep" && grep -q "standard input" "$work/o.err"
ok $? "-o naming the file standard input reads (btdecode -o cap - < cap): exit $r, untouched"
calls_capture
(cd "$work/o" && "$dec" cap >>cap 2>"$work/o.err")
r=$?
[ "$r" = 2 ] && cmp -s "$work/o/cap" "$work/o/keep" && grep -q "the standard output is the capture being read" "$work/o.err"
ok $? "the standard output appending to the capture (btdecode cap >> cap): exit $r, untouched"
cp "$elf" "$work/o/calls.elf" && cp "$elf" "$work/o/calls.keep"
(cd "$work/o" && "$dec" --elf calls.elf -o ./calls.elf "$work/cap" >/dev/null 2>"$work/o.err")
r=$?
[ "$r" = 2 ] && cmp -s "$work/o/calls.elf" "$work/o/calls.keep" && grep -q "an ELF being read" "$work/o.err"
ok $? "-o naming the --elf ELF: exit $r, untouched"
(cd "$work/o" && "$dec" --view verify -o new.txt cap 2>/dev/null)
r=$?
[ "$r" = 0 ] && grep -q '^btdecode: 5 frames, 1 records, 0 problems' "$work/o/new.txt"
ok $? "-o a file that does not exist yet: written (exit $r)"
(cd "$work/o" && "$dec" --view verify -o keep cap 2>/dev/null)
r=$?
[ "$r" = 0 ] && grep -q '^btdecode: 5 frames' "$work/o/keep"
ok $? "-o another file that exists: written over (exit $r)"
echo "1..$n"
