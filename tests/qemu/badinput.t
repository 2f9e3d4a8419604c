#!/usr/bin/env bash
# Bad and unusual input, table-driven: each row feeds one input to the real runner, the host
# build of the kernel's option parser (build/check-options), or scripts/mkimage, and checks the
# exit status and the message. Good rows stay in the table so that what works keeps working.
# The expected statuses are the README's exit-status table; the messages name the problem
# and what is accepted.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
check=$build/check-options

# run_row STATUS TEXT DESCRIPTION -- COMMAND...: COMMAND's status is STATUS and its output
# (stdout and stderr) contains TEXT (a fixed string; empty: no check).
run_row() {
	local want=$1 text=$2 desc=$3
	shift 4
	out=$("$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] && { [ -z "$text" ] || printf '%s\n' "$out" | grep -qF -- "$text"; }
	ok $? "$desc (status $rc, want $want${text:+; says \"$text\"})"
	[ "$rc" = "$want" ] || show_output
}

# ---- the kernel's option parser on the host: every message the kernel would print ----------
while IFS='|' read -r want args text; do
	[ -n "$want" ] || continue
	# shellcheck disable=SC2086
	run_row "$want" "$text" "check-options $args" -- "$check" $args
done <<'EOF'
0|trace=bts,lbr workload=loop,calls spmu=skylake,core2|
0|TRACE=BTS,Lbr Workload=LOOP|
0|lbr.filter=USER,Call freeze=Lbrs pebs.groups=GPR|
0|bts.records=0 bts.records=4 lbr.depth=0 lbr.depth=64|warning: load options: option 'bts.records' given again
2|bts.records=1|option 'bts.records': '1' is out of range; accepted: 0 (the default) or 4..1000000
2|lbr.depth=7|option 'lbr.depth': '7' is out of range; accepted: 0 (the default) or 8..64 in steps of 8
2|lbr.depth=20|option 'lbr.depth': '20' is not a multiple of 8
2|serial.port=0x3fg|option 'serial.port': '0x3fg' is not a number
2|pebs.kib=0x10K|'0x10K' is not a number; accepted: 4..4096 (decimal with an optional K/M/G suffix, or 0x hex)
2|trace=bts,lbrs|option 'trace': unknown 'lbrs'; accepted: none, or names separated by commas from: bts btsint lbr pebs btf pmc
2|trace=bts,,lbr|option 'trace': empty name in 'bts,,lbr'
2|trace=none,bts|option 'trace': 'none' must stand alone
2|workload=loop,LOOP|option 'workload': 'LOOP' is given twice
2|selftest=paging,nosuchtest|option 'selftest': unknown 'nosuchtest'
2|spmu=pentium|option 'spmu': unknown 'pentium'; accepted: none, or names separated by commas from: skylake
2|lbr.filter=call_stack,cond|option 'lbr.filter': call_stack records near calls and returns only
2|pebs.ldlat=30|option 'pebs.ldlat': 30 applies to pebs.event=loads only
2|pebs.event=fixed0 pebs.counter=1|option 'pebs.counter': 1 does not apply to pebs.event=fixed0
2|serial.baud=7000|option 'serial.baud': 7000 is not 115200 divided by a whole number
2|colour=blue|unknown option 'colour'
2|exti=qemu|unknown option 'exti' (did you mean 'exit'?)
EOF

# The options table's rules: every row of docs/options.md "Options" that says an option does not go
# with another ("Not with", "needs", "only with") has its pair here; the first options alone are
# accepted, the pair is refused (status 2, before any session) with a message naming both.
covered=
while IFS='|' read -r key alone pair text; do
	[ -n "$key" ] || continue
	# shellcheck disable=SC2086
	run_row 0 "" "check-options $alone: accepted alone" -- "$check" $alone
	# shellcheck disable=SC2086
	run_row 2 "$text" "check-options $pair: refused, naming both" -- "$check" $pair
	covered="$covered $key "
done <<'EOF'
serial.port|serial.port=0x3f8|serial.port=0x3f8 serial.mmio=0xfe032000|options 'serial.port' and 'serial.mmio' both given; accepted: one UART
workload|trace=bts workload=loop|trace=bts workload=program|option 'workload': 'program' needs option program; accepted: program=FILE
lbr.filter|lbr.filter=call_stack,call|lbr.filter=call_stack,cond|option 'lbr.filter': call_stack records near calls and returns only (SDM 17.9); accepted with it
pebs.counter|pebs.counter=1|pebs.counter=1 pebs.event=fixed0|option 'pebs.counter': 1 does not apply to pebs.event=fixed0 (fixed counter 0); accepted with it: 0
pebs.ldlat|pebs.ldlat=30 pebs.event=loads|pebs.ldlat=30 pebs.event=stores|option 'pebs.ldlat': 30 applies to pebs.event=loads only; accepted with pebs.event=stores: 0
lbr.period|lbr.period=16 lbr.depth=0|lbr.period=16 lbr.filter=user|options 'lbr.period' and 'lbr.filter' both given
lbr.period|lbr.period=16 lbr.filter=any lbr.period=0|lbr.period=16 lbr.depth=16|options 'lbr.period' and 'lbr.depth' both given
trace.out|trace.out=stick|trace.out=stick stream=off|option 'trace.out': the stick takes the record stream; accepted with it: stream=text or stream=binary
trace.out|trace.out=both stream=binary|trace.out=both stream=off|option 'trace.out': the stick takes the record stream
stream.live|stream.live=on|stream.live=on stream=off|option 'stream.live': on needs the record stream; accepted with it: stream=text or stream=binary
EOF
rules=$(sed -n '/^## Options/,/^## [^O]/p' "$top/docs/options.md" | grep -E '^\| `[a-z.]+` \|' |
	grep -E '[Nn]ot with `|needs? `|`[^`]*` only|only with' | sed 's/^| `\([a-z.]*\)`.*/\1/' | sort -u)
missing=$(for k in $rules; do case "$covered" in *" $k "*) ;; *) echo "$k" ;; esac; done)
[ -n "$rules" ] && [ -z "$missing" ]
ok $? "every rule of docs/options.md's options table has its pair above ($(echo $rules))${missing:+; missing: $missing}"

# Config files: file:line in every message, duplicate keys named with both lines, any case.
printf 'exit = qemu\ntrace = BTS, Lbr\n# again\nexit = halt\n' >"$work/dup.cfg"
run_row 0 "warning: baretrace.cfg:4: option 'exit' given again (before at line 1): the later value wins" \
	"a key given twice in the file: a warning naming both lines" -- "$check" --config "$work/dup.cfg"
printf 'exit = qemu\ntrace = bts\nlbr.filter = user,bogus\n' >"$work/list.cfg"
run_row 2 "error: baretrace.cfg:3: option 'lbr.filter': unknown 'bogus'" \
	"a bad list item in the file: file and line" -- "$check" --config "$work/list.cfg"
head -c 9000 /dev/zero | tr '\0' '#' >"$work/big.cfg"
run_row 2 "baretrace.cfg: file too large; accepted: at most 8191 bytes" \
	"an oversized config file" -- "$check" --config "$work/big.cfg"

# help: every option, however long the list (it once stopped at 2,047 bytes).
out=$("$check" --help)
n=$(printf '%s\n' "$out" | grep -c '^  [a-z.]*=')
keys=$(sed -n '/^## Options/,/^## [^O]/s/^| `\([a-z.]*\)` |.*/\1/p' "$top/docs/options.md" | sort -u)
missing=$(for k in $keys; do printf '%s\n' "$out" | grep -q "^  $k=" || echo "$k"; done)
[ -z "$missing" ] && [ "$n" -ge "$(echo "$keys" | wc -w)" ] && [ "${#out}" -gt 2048 ]
ok $? "help lists each of docs/options.md's $(echo "$keys" | wc -w) options ($n lines, ${#out} bytes)${missing:+; missing: $missing}"

# ---- the runner's decision, with a stand-in QEMU (PATH) that prints a log and exits ----------
# A run passes only when QEMU's code and the kernel's last line agree; QEMU's own exit code 1
# (its "error") must never pass by itself.
fake=$work/fake
fake_qemu "$fake"
while IFS='|' read -r code serial stderr want text desc; do
	[ -n "$code" ] || continue
	run_row "$want" "$text" "runner: $desc" -- env PATH="$fake:$PATH" FAKE_EXIT="$code" \
		FAKE_SERIAL="$serial" FAKE_STDERR="$stderr" "$top/scripts/run" --timeout 20
done <<'EOF'
1|baretrace loader\nkernel ready\nrun finished: PASS\n||0|scripts/run: PASS|QEMU code 1 with the kernel's PASS line: pass
1|baretrace loader\nkernel ready\n||3|says 'nothing'|QEMU code 1 without the kernel's PASS line: abnormal, never a pass
1|baretrace loader\nrun finished: FAIL\n||3|but the kernel's last status line says 'FAIL'|QEMU code 1 but the kernel said FAIL: abnormal
1|baretrace loader\nrun finished: PASS\nrun finished: FAIL\n||3|says 'FAIL'|only the last status line counts
1||qemu-system-x86_64: -bogus: invalid option|2|qemu: qemu-system-x86_64: -bogus: invalid option|QEMU refuses to start: its message and status 2
3|baretrace loader\nrun finished: FAIL\n||1|scripts/run: FAIL|QEMU code 3 with FAIL: fail
5|baretrace loader\nrun finished: SKIP\n||77|scripts/run: SKIP|QEMU code 5 with SKIP: skip
7|baretrace loader\nrun finished: BAD-INPUT\n||2|bad options or config|QEMU code 7 with BAD-INPUT: bad input
0|baretrace loader\nkernel ready\n||3|abnormal end|QEMU exits 0 (a reset under -no-reboot): abnormal
9|baretrace loader\nrun finished: INCOMPLETE\n||4|scripts/run: INCOMPLETE|QEMU code 9 (the kernel's status 4) with INCOMPLETE: incomplete, status 4
1|baretrace loader\nrun finished: INCOMPLETE\n||3|says 'INCOMPLETE'|QEMU code 1 but the kernel said INCOMPLETE: abnormal
9|baretrace loader\nrun finished: PASS\n||3|means INCOMPLETE|QEMU code 9 but the kernel said PASS: abnormal
EOF

# --log: a file in an existing folder, checked before QEMU starts (README's status 2); the
# verdict is the kernel's line as it streams, whatever the file.
ran=$work/ran
while IFS='|' read -r path desc; do
	[ -n "$path" ] || continue
	rm -f "$ran"
	run_row 2 "scripts/run: --log $path: " "runner: --log $desc: status 2, said" -- env PATH="$fake:$PATH" \
		FAKE_EXIT=1 FAKE_SERIAL='baretrace loader\nrun finished: PASS\n' FAKE_PIDFILE="$ran" \
		"$top/scripts/run" --timeout 20 --log "$path"
	[ ! -e "$ran" ] && printf '%s\n' "$out" | grep -q "accepted: a file in an existing folder"
	ok $? "runner: --log $desc: QEMU not started, what is accepted said"
done <<EOF
$work/no-such-folder/run.log|in a folder that does not exist
$work|naming a folder
/proc|naming /proc
/proc/version|naming a kernel file
/dev/null|naming /dev/null
/dev/stdout|naming /dev/stdout
/dev/full|naming /dev/full
EOF
rm -f "$ran"
env PATH="$fake:$PATH" FAKE_EXIT=1 FAKE_SERIAL='baretrace loader\nrun finished: PASS\n' FAKE_PIDFILE="$ran" \
	"$top/scripts/run" --timeout 20 --log "$work/own" >"$work/own" 2>&1
rc=$?
[ "$rc" = 2 ] && [ ! -e "$ran" ] && grep -q "this run's own output" "$work/own"
ok $? "runner: --log naming the file its output goes to: status 2 (status $rc)"
serial='\033[2Jfirmware\r\nbaretrace loader\r\n@BT1 QlQ=\r\n\000\001binary\r\nrun finished: PASS\r\n'
run_row 0 "scripts/run: PASS" "runner: --log into a new file: the kernel's verdict" -- env PATH="$fake:$PATH" \
	FAKE_EXIT=1 FAKE_SERIAL="$serial" "$top/scripts/run" --timeout 20 --log "$work/new.log"
printf '%b' "$serial" | cmp -s - "$work/new.log"
ok $? "runner: --log keeps every byte of the serial line as it came"

# ---- runner usage --------------------------------------------------------------------------
run_row 0 " -m size=1G,maxmem=2G " "runner: --memory in QEMU's long form (size=1G,maxmem=2G): taken, passed on" -- \
	"$top/scripts/run" --dry-run --memory size=1G,maxmem=2G
rm_kept "$(printf '%s\n' "$out" | sed -n 's/.*the boot volume is kept in \([^ ]*\) .*/\1/p')"
# An option given an empty value ('' from a script's unset variable) is refused, naming the
# option and what it takes, before QEMU starts: never taken as the option not given.
for opt in --log --config --efi --program --file --cpu --memory --smp --timeout --serial --accel \
	--qemu-arg --screenshot --stick; do
	rm -f "$ran"
	run_row 2 "scripts/run: $opt '': an empty value; accepted: " "runner: $opt '': refused, status 2" -- \
		env PATH="$fake:$PATH" FAKE_EXIT=1 FAKE_SERIAL='baretrace loader\nrun finished: PASS\n' FAKE_PIDFILE="$ran" \
		"$top/scripts/run" --timeout 20 "$opt" ''
	[ ! -e "$ran" ]
	ok $? "runner: $opt '': QEMU not started"
done

while IFS='|' read -r want text desc args; do
	[ -n "$want" ] || continue
	# shellcheck disable=SC2086
	run_row "$want" "$text" "$desc" -- "$top/scripts/run" --timeout 30 $args
done <<'EOF'
2|scripts/run: --smp 'many': accepted: a whole number 1-255|runner: a bad --smp|--smp many
2|scripts/run: unknown argument '--colour'|runner: an unknown argument|--colour
2|no 'MZ' header: not a PE/COFF image; accepted: an x86-64 EFI application|runner: --efi with a text file|--efi /etc/hostname
2|qemu: qemu-system-x86_64: unable to find CPU model 'bogus-model'|QEMU refuses --cpu bogus-model: status 2, QEMU's message|--cpu bogus-model
2|scripts/run: --memory '12X': not a size; accepted: a size of at least|runner: --memory 12X: not a size, refused before QEMU: status 2|--memory 12X
2|scripts/run: --memory 1K: too little to boot|runner: --memory 1K: below the least that boots, refused (once a triple fault): status 2|--memory 1K
2|scripts/run: --memory 48M: too little to boot|runner: --memory 48M: below the least that boots, refused: status 2|--memory 48M
2|qemu: qemu-system-x86_64: -bogus: invalid option|QEMU refuses --qemu-arg -bogus: status 2|--qemu-arg -bogus
EOF

# ---- real boots: each status the README lists, and the firmware's failures --------------------
# 64 MiB booted before the kernel's per-CPU state grew (then the loader's Out of Resources): it
# boots again, a session and a ring 3 workload on 2 vCPUs.
boot --smp 2 --memory 64M -- trace=lbr,btsint workload=loop,user
status_is 0 "--memory 64M, 2 vCPUs: the boot passes (the runner's least is 56M)"
head -c 20000 "$build/BOOTX64.EFI" >"$work/truncated.efi"
t0=$(date +%s)
boot --timeout 60 --efi "$work/truncated.efi"
t=$(($(date +%s) - t0))
[ "$rc" = 3 ] && [ "$t" -lt 50 ] && printf '%s\n' "$out" | grep -q "the firmware never started the loader" &&
	printf '%s\n' "$out" | grep -q "  | UEFI Interactive Shell"
ok $? "a PE image the firmware cannot load: status 3 in ${t}s (no time-out), its last lines shown"
t0=$(date +%s)
# (32 MiB, which the runner's --memory refuses, given to QEMU past it: its last -m counts)
boot --timeout 60 --qemu-arg -m --qemu-arg 32M
t=$(($(date +%s) - t0))
[ "$rc" = 3 ] && [ "$t" -lt 50 ] && printf '%s\n' "$out" | grep -q "  | !!!! X64 Exception"
ok $? "32 MiB of memory (a firmware fault): status 3 in ${t}s, the firmware's dump shown"
rm_kept "$(printf '%s\n' "$out" | sed -n 's/^scripts\/run: full serial log: \(.*\)\/serial.log$/\1/p')"

boot -- trace=lbr workload=loop
status_is 0 "a pass: trace=lbr"
[ "$(printf '%s\n' "$out" | grep -v '^scripts/run' | tail -n 1)" = "run finished: PASS" ]
ok $? "the kernel's last line is its status"
boot -- fault=ud
status_is 1 "an unexpected exception: fail"
boot -- trace=bts,lbr spmu=none
status_is 77 "every requested session skipped (no PMU, spmu=none): skip"
has "SKIP: lbr: CPU 0 has none:" "the skip names the facility and the reason"
boot -- trace=lbr spmu=none selftest=fmt
status_is 0 "a skipped session next to a passing self-test: pass"
boot -- bts.records=1
status_is 2 "bts.records=1 is refused at boot"
has "option 'bts.records': '1' is out of range; accepted: 0 (the default) or 4..1000000" "with the accepted range"
# The stick asked for where there is none (QEMU here has no xHCI, no stick): refused before the
# first session, never a pass with the stream elsewhere (README "The result contract").
for out_opt in stick both; do
	boot -- trace=bts workload=loop stream=text trace.out=$out_opt
	status_is 2 "trace.out=$out_opt without a stick: bad input"
	has "error: option 'trace.out': $out_opt: no USB stick with a trace partition was found" \
		"... naming the option and what is accepted"
	printf '%s\n' "$out" | grep -q '^trace-begin\|^run finished: PASS'
	[ $? != 0 ] && [ "$(printf '%s\n' "$out" | grep -v '^scripts/run' | tail -n 1)" = "run finished: BAD-INPUT" ]
	ok $? "... before the first session, and the run ends BAD-INPUT"
done
boot -- help=1 colour=blue
status_is 2 "an unknown option: bad input"
has "  help=yes|no" "the accepted options are listed to the last one"
printf 'trace = lbr\nworkload = loop\nexit = qemu\n' >"$work/ok.cfg"
boot --config "$work/ok.cfg" -- lbr.depth=16 spmu=skylake
status_is 0 "lbr.depth=16 on a legacy-LBR personality runs"
has "lbr.depth=16 ignored: legacy LBR has a fixed depth of 32" "and says the option had no effect"
has "baretrace.cfg: ok (" "the loader gives the config file's size"
printf '%s\n' "$out" | grep -q "baretrace.cfg: ok (0 bytes)"
[ $? != 0 ]
ok $? "the size is not 0 bytes for a file that has lines"
boot -- lbr.depth=24 trace=lbr spmu=arrowlake workload=loop
status_is 0 "lbr.depth=24 on Architectural LBR runs"
printf '%s\n' "$out" | grep -q "lbr.depth=24 is not a depth this CPU has (CPUID.1CH:EAX 0x[0-9a-f]*): using [0-9]*" ||
	printf '%s\n' "$out" | grep -q "^trace-begin lbr loop@arrowlake .* depth=24 "
ok $? "the depth used is said when it differs from lbr.depth"

# ---- the stick image -------------------------------------------------------------------------
run_row 2 "bad options: no image written" "mkimage refuses a bad option" -- \
	"$top/scripts/mkimage" "$work/bad.img" trace=lbrx
[ ! -e "$work/bad.img" ]
ok $? "and writes no image"
run_row 0 "wrote" "mkimage with good options" -- "$top/scripts/mkimage" "$work/ok.img" trace=lbr exit=qemu
fsck.fat -n "$work/ok.img" >"$work/fsck.out" 2>&1
ok $? "the image's FAT passes fsck.fat: $(tail -n 1 "$work/fsck.out")"
geo=$(minfo -i "$work/ok.img" :: | sed -n 's/^\(sectors per track\|heads\|cylinders\): //p' | tr '\n' ' ')
set -- $geo
big=$(minfo -i "$work/ok.img" :: | sed -n 's/^big size: \([0-9]*\) sectors.*/\1/p')
[ -n "$big" ] && [ $(($1 * $2 * $3)) -le "$big" ] && [ "$big" = $(($(stat -c %s "$work/ok.img") / 512)) ]
ok $? "the geometry (sectors x heads x cylinders: $geo) fits the volume ($big sectors) and the file"
[ "$(mtype -i "$work/ok.img" ::/baretrace.cfg)" = "$(printf 'trace=lbr\nexit=qemu')" ]
ok $? "the options are on the image as baretrace.cfg"
done_testing
