#!/usr/bin/env bash
# A user program's stdout and stderr come out whole (make long-check): the program
# tests/programs/linux/bigout.c writes 1.2 MiB to stdout (every byte value 0-255 in each
# block) with binary pieces to stderr in between, more than the kernel's output ring holds.
# The expectation is the same binary run on this host (its stdout and stderr in two files).
#  - Two CPUs (the second drains the console while the program runs, stream.live): the boot
#    passes, and `btdecode --view output --stream stdout` and `--stream stderr` give back the
#    host's two files byte for byte; the default (both) gives stdout on stdout and stderr on
#    stderr; the log's program-output lines, \xNN undone, are stdout too.
#  - The same whole output whatever the records do: trace=bts (its records wait for the run's
#    end) with stream.live=on, and btsint with stream.live=off and a store that fills (the
#    drainer hands records on only when it is full): the output is no record.
#  - One CPU (no drainer): the bytes that do not fit are counted, said, and the run ends
#    INCOMPLETE (status 4), never silently short; what was delivered is a prefix of stdout; the
#    loss is the output's, apart from the records (none of which is lost).
. "$(dirname "$0")/../qemu/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
dec=$build/btdecode

gcc -O2 -static -o "$work/bigout" "$top/tests/programs/linux/bigout.c"
ok $? "gcc -static builds bigout"
(cd "$work" && ./bigout 300 >native.out 2>native.err)
ok $? "bigout runs on the host: $(stat -c %s "$work/native.out") bytes of stdout, $(stat -c %s "$work/native.err") of stderr"
values=$(perl -0777 -ne 'my %v; $v{$_}++ for unpack "C*", $_; print scalar keys %v' "$work/native.out")
[ "$values" = 256 ] && [ "$(stat -c %s "$work/native.out")" -gt 1048576 ]
ok $? "its stdout holds every byte value and is larger than 1 MiB (the ring's size in the one-CPU boot: program.output=1024)"

# bts.ring=user: a write that waits for the drainer spins in the kernel with interrupts masked,
# and with ring=all its own branches could fill the BTS buffer before a PMI drains it (said as
# dropped records, INCOMPLETE); the program's own records are what this test is not about.
run() { # run NAME SMP [OPTION...]: boot bigout 300, the log in $work/NAME.log
	local name=$1 smp=$2
	shift 2
	boot --smp "$smp" --timeout 600 --log "$work/$name.log" --program "$work/bigout" -- \
		workload=program trace=btsint bts.records=8192 bts.ring=user program.watchdog=0 stream=text \
		'program.argv=bigout 300' "$@"
}
# whole NAME WHAT: the boot passed and gave back the host's stdout and stderr, byte for byte.
whole() {
	status_is 0 "$2: the boot passes, nothing lost"
	"$dec" --view output --stream stdout "$work/$1.log" >"$work/$1.out" 2>/dev/null &&
		cmp -s "$work/native.out" "$work/$1.out" &&
		"$dec" --view output --stream stderr "$work/$1.log" 2>/dev/null | cmp -s "$work/native.err" -
	ok $? "$2: --view output gives the host's stdout and stderr, byte for byte"
}

run two 2
status_is 0 "two CPUs: the boot passes, nothing lost"
"$dec" --view output --stream stdout "$work/two.log" >"$work/two.out" 2>/dev/null
cmp -s "$work/native.out" "$work/two.out"
ok $? "--view output --stream stdout: the host's stdout, byte for byte ($(stat -c %s "$work/two.out") bytes)"
"$dec" --view output --stream stderr "$work/two.log" >"$work/two.err" 2>/dev/null
cmp -s "$work/native.err" "$work/two.err"
ok $? "--view output --stream stderr: the host's stderr, byte for byte ($(stat -c %s "$work/two.err") bytes)"
"$dec" --view output --program "$work/bigout" "$work/two.log" >"$work/both.out" 2>"$work/both.err"
r=$?
cmp -s "$work/native.out" "$work/both.out" && cmp -s "$work/native.err" "$work/both.err"
ok $((r + $?)) "--view output (both, with the program's ELF): stdout to stdout, stderr to stderr, exit 0"
perl -ne 's/\r$//; next unless s/^program-output cpu=0: //; s/\\x([0-9a-f]{2})/chr hex $1/ge; print' \
	"$work/two.log" | tr -d '\n' >"$work/two.lines"
tr -d '\n' <"$work/native.out" | cmp -s - "$work/two.lines"
ok $? "the log's program-output lines are stdout (newlines aside: a line is cut every 160 bytes)"

# bts's records wait for the run's end (the bytes of 300 blocks: about 6,400 records of ring 3)
run bts 2 trace=bts bts.records=100000 stream.live=on
whole bts "trace=bts, stream.live=on, two CPUs"
run full 2 stream.live=off trace.store=64
whole full "btsint, stream.live=off, a 64 KiB store that fills, two CPUs"
run alone 1
whole alone "one CPU, the default ring (program.output: 16 MiB): nothing lost"
grep -q "^note: btsint: .*records handed on during the run" "$work/full.log"
ok $? "... the store filled and records were handed on during the run"

run one 1 program.output=1024
status_is 4 "one CPU, a ring of 1 MiB (program.output=1024): the output ring fills with no drainer: INCOMPLETE"
grep -q "^incomplete: program: cpu=0: [0-9]* of 1228803 bytes of stdout not delivered" "$work/one.log"
ok $? "the bytes not delivered are counted and said"
grep -q "records not delivered" "$work/one.log"
[ $? != 0 ] && grep -q "^summary: incomplete: program program@.*: [0-9]* bytes of its output not delivered (no records)" "$work/one.log" &&
	"$dec" --view json "$work/one.log" 2>/dev/null | grep '"type":"end"' | grep -q '"lost":0,'
ok $? "... as the output's loss, apart: no records said lost, none in the stream's END"
"$dec" --view output --stream stdout "$work/one.log" >"$work/one.out" 2>/dev/null
[ -s "$work/one.out" ] && cmp -s "$work/one.out" <(head -c "$(stat -c %s "$work/one.out")" "$work/native.out")
ok $? "what was delivered is the start of stdout, byte for byte"

done_testing
