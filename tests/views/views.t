#!/usr/bin/env bash
# btdecode's views on a fixed capture (docs/record-stream.md "Records off the machine"): calls.S, a
# program that never runs, assembled and linked here at 0x401000 with a fixed build id;
# calls.records, its path read from its source, written as a stream by mkcapture (the kernel's own
# writer) with addresses from nm, and once more as PATH frames walked along calls.elf. Each view
# must equal its golden file (golden/calls.VIEW: reviewed by hand against the source), and,
# independently of those files: the folded stacks and the trace's slices are the ones calls.S's
# comment describes, the JSON parses and names each address as
# nm's symbol table does, the branch kinds are the instructions' own, llvm-profgen (the AutoFDO
# consumer) makes a profile of the perf view, and a wrong ELF or bad usage is refused.
# REGOLDEN=1 rewrites the golden files (review the diff by hand before committing it).
. "$(dirname "$0")/lib.sh"

calls_capture

# ---- golden files, one per view ----
for view in text json stats perf raw folded trace; do
	"$dec" --view "$view" --elf "$elf" "$work/cap" >"$work/$view" 2>"$work/$view.err"
	rc=$?
	if [ "${REGOLDEN:-}" = 1 ]; then cp "$work/$view" "$here/golden/calls.$view"; fi
	diff -u "$here/golden/calls.$view" "$work/$view" >"$work/$view.diff"
	d=$?
	ok $((rc + d)) "--view $view: exit $rc, equals golden/calls.$view"
	[ $d = 0 ] || sed 's/^/# /' "$work/$view.diff" | head -20
	[ -s "$work/$view.err" ] && sed 's/^/# stderr: /' "$work/$view.err"
done

# ---- the same records as PATH frames (the kernel's stream.path): walked along calls.elf ----
objcopy -O binary -j .text "$elf" "$work/calls.bin"
# shellcheck disable=SC2086
sed "s/BUILD_ID/$id/" "$here/calls.records" |
	"$build/host/mkcapture" --code $base "$work/calls.bin" $syms >"$work/pathcap"
"$dec" --view raw "$work/pathcap" 2>/dev/null | grep -q 'type=6(PATH)'
ok $? "mkcapture --code writes the BTS session as PATH frames"
"$dec" --elf "$elf" "$work/pathcap" >"$work/path.text" 2>"$work/path.err"
rc=$?
diff -u "$work/text" "$work/path.text" >/dev/null
ok $((rc + $?)) "PATH frames walked along --elf calls.elf give the records of the plain frames, digests matching (exit $rc)"
"$dec" "$work/pathcap" >/dev/null 2>"$work/nocode.err"
rc=$?
[ $rc = 1 ] && grep -q "no ELF in use has the code at 0x401008" "$work/nocode.err"
ok $? "without the ELF: exit $rc, the address whose code the walk needed named ($(head -c 120 "$work/nocode.err"))"

# ---- folded: the stacks of calls.S's path, worked out from its source (comment above) ----
# Each branch counts once for the stack it leaves from: _start's CALL; main's two CALLs of leaf,
# the interrupted DEC, the JNZ, the indirect CALL and the JMP to tail (6); leaf's three RETs;
# isr's IRETQ; tail's RET, taken from tail called by _start (main was replaced by the tail jump).
cat >"$work/folded.want" <<'EOF'
bts:calls@golden;_start 1
bts:calls@golden;_start;main 6
bts:calls@golden;_start;main;isr 1
bts:calls@golden;_start;main;leaf 3
bts:calls@golden;_start;tail 1
EOF
grep '^bts:' "$work/folded" | diff -u "$work/folded.want" - >"$work/f.diff"
ok $? "folded: the BTS session's stacks and counts are the ones calls.S's path makes"

# ---- trace: valid JSON, slices properly nested, the BTS track's calls in source order ----
perl -MJSON::PP -e '
	my $t = decode_json(do { local $/; <STDIN> });
	my (%stack, %seq, $bad);
	for my $e (@{$t->{traceEvents}}) {
		next if $e->{ph} eq "M";
		my $k = "$e->{pid}/$e->{tid}";
		if ($e->{ph} eq "B") { push @{$stack{$k}}, $e; push @{$seq{$k}}, $e->{name}; next; }
		my $b = pop @{$stack{$k}};
		$bad .= "E $e->{name} without its B; " if !$b || $b->{name} ne $e->{name};
		$bad .= "E before B; " if $b && $e->{ts} < $b->{ts};
	}
	$bad .= "open slices in $_; " for grep { @{$stack{$_}} } keys %stack;
	print $bad ? "bad: $bad\n" : "nested\n";
	print join(" ", @{$seq{"0/1"}}), "\n";' <"$work/trace" >"$work/trace.check" 2>&1
ok $? "trace: decode_json reads it"
grep -qx nested "$work/trace.check"
ok $? "trace: every E closes the B it nests in, none left open ($(head -1 "$work/trace.check"))"
[ "$(sed -n 2p "$work/trace.check")" = "_start main leaf isr leaf leaf tail" ]
ok $? "trace: the BTS track's slices are _start main leaf isr leaf leaf tail ($(sed -n 2p "$work/trace.check"))"

# ---- json: every line parses; the records are calls.records'; symbols as nm names them ----
nm "$elf" | awk '$2 == "T" && $3 !~ /^_(edata|end|_bss_start)$/ { print $1, $3 }' | sort >"$work/funcs"
perl -MJSON::PP -e '
	open my $f, "<", $ARGV[0] or die; my @funcs = map { [split] } <$f>;
	sub func_of { my $a = shift; my $best;
		for (@funcs) { $best = $_->[1] if hex($_->[0]) <= $a } return $best }
	my ($lines, $bad) = (0, "");
	while (my $l = <STDIN>) {
		my $o = eval { decode_json($l) } or do { $bad .= "line $.: not JSON; "; next };
		$lines++;
		next unless $o->{type} eq "bts" || $o->{type} eq "lbr";
		for my $w ("from", "to") {
			my $want = func_of(hex $o->{$w});
			(my $got = $o->{"${w}_sym"} // "") =~ s/\+0x[0-9a-f]+$//;
			$bad .= "$o->{$w}: $got, nm says $want; " if $got ne $want;
			$bad .= "$o->{$w}: no line; " unless ($o->{"${w}_line"} // "") =~ m{^tests/views/calls\.S:\d+$};
		}
		print "$o->{from} $o->{to}\n" if $o->{type} eq "bts";
	}
	print STDERR $bad; exit($bad ne "");' "$work/funcs" <"$work/json" >"$work/json.pairs" 2>"$work/json.err"
ok $? "json: every line parses; every FROM and TO is named by the function nm puts there, with its calls.S line $(head -c 200 "$work/json.err")"
# shellcheck disable=SC2086
awk '$1 == "bts" { print $2, $3 }' "$here/calls.records" | while read -r f t; do
	for s in $syms; do
		case "$f" in "${s%%=*}") f=${s#*=} ;; esac
		case "$t" in "${s%%=*}") t=${s#*=} ;; esac
	done
	echo "$f $t"
done >"$work/records.pairs"
diff -u "$work/records.pairs" "$work/json.pairs" >/dev/null
ok $? "json: the BTS records are calls.records' $(wc -l <"$work/records.pairs") branches, in order"

# ---- stats: the kinds are the instructions' own (read from calls.S) ----
# BTS: CALL main, CALL leaf x2, RET x4, the interrupt, IRETQ, JNZ, CALL *%rax, JMP tail; LBR:
# RET x2, JMP, CALL *%rax, CALL x2; Arch LBR: JNZ, IRETQ.
grep -qx 'kinds: async=1 jcc=2 jmp=2 call=5 call-ind=2 ret=6 iret=2' "$work/stats"
ok $? "stats: branch kinds decoded from calls.elf's bytes ($(grep kinds: "$work/stats"))"
grep -qx 'lbr mispredicted: 1 of 8 (12.5%)' "$work/stats" &&
	grep -qx 'bts predicted flag set: 11 of 12 (91.7%)' "$work/stats"
ok $? "stats: mispredict rates as calls.records sets them"

# ---- perf: llvm-profgen makes an AutoFDO profile of it ----
profgen=$(command -v llvm-profgen-14 || command -v llvm-profgen || true)
if [ -n "$profgen" ]; then
	"$profgen" --perfscript="$work/perf" --binary="$elf" --format=text \
		--output="$work/prof" >"$work/profgen.log" 2>&1
	rc=$?
	# main's body: line 31 is the CALL of leaf, taken 3 times by the 3 samples that hold it
	grep -q '^main:' "$work/prof" && grep -q '^leaf:' "$work/prof" &&
		grep -q '^ 31: [0-9]* leaf:' "$work/prof"
	ok $((rc + $?)) "perf: llvm-profgen ($profgen) makes a profile with main calling leaf at calls.S:31"
else
	echo "ok $((n += 1)) # SKIP no llvm-profgen (Debian's llvm-14)"
fi

# ---- the wrong ELF, and bad usage ----
(cd "$work" && ld -x -nostdlib -Ttext=$base --build-id=0xdeadbeef -e _start -o other.elf calls.o)
"$dec" --view json --elf "$work/other.elf" "$work/cap" >"$work/other" 2>"$work/other.err"
rc=$?
grep -q "its build id deadbeef is not the capture's $id" "$work/other.err" &&
	! grep -q '_sym' "$work/other"
ok $((rc + $?)) "an ELF whose build id is not the capture's: said on stderr, its symbols not used (exit $rc)"
"$dec" --view nope "$work/cap" >/dev/null 2>"$work/e1"
rc=$?
[ $rc = 2 ] && grep -q "accepted: text verify stats json perf raw folded trace" "$work/e1"
ok $? "--view nope: exit $rc, the accepted views named"
"$dec" --program "$elf@xyz" "$work/cap" >/dev/null 2>"$work/e2"
rc=$?
[ $rc = 2 ] && grep -q "accepted: FILE or FILE@0xBIAS" "$work/e2"
ok $? "--program FILE@xyz: exit $rc, the accepted forms named"
"$dec" --elf "$work/missing.elf" "$work/cap" >/dev/null 2>"$work/e3"
rc=$?
[ $rc = 2 ] && grep -q "missing.elf: No such file" "$work/e3"
ok $? "--elf of a missing file: exit $rc, said"

# --cpu, --session, --facility: the view is given only the sessions asked for, every frame is
# still checked (the exit status is the whole capture's). two-cpus.log: a real boot of two
# CPUs, each with sessions of bts and lbr (tests/views/loss.t)
two=$here/two-cpus.log
"$dec" --view json "$two" >"$work/all.json" 2>/dev/null
all=$?
begins() { awk -F'"' '/"type":"begin"/ { for (i = 1; i < NF; i++) if ($i == "cpu") c = $(i + 1); print c }' "$1" | tr -d ':,' | tr '\n' ' '; }
"$dec" --view json --cpu 1 "$two" >"$work/cpu1.json" 2>/dev/null
rc=$?
[ "$rc" = "$all" ] && [ -n "$(begins "$work/cpu1.json")" ] &&
	! grep -v '"type":"header"' "$work/cpu1.json" | grep -q '"cpu":0' &&
	[ "$(grep -c '"cpu":1' "$work/cpu1.json")" = "$(grep -c '"cpu":1' "$work/all.json")" ]
ok $? "--cpu 1: every record of CPU 1 and none of CPU 0 (the capture's header is every view's), exit $rc as the whole capture's $all (sessions on CPUs $(begins "$work/cpu1.json"))"
"$dec" --view json --session 2 "$two" >"$work/s2.json" 2>/dev/null
second=$(grep '"type":"begin"' "$work/all.json" | sed -n 2p)
[ "$(grep -c '"type":"begin"' "$work/s2.json")" = 1 ] && [ "$(grep '"type":"begin"' "$work/s2.json")" = "$second" ]
ok $? "--session 2: one session, the second to begin"
"$dec" --view json --facility lbr "$two" >"$work/lbr.json" 2>/dev/null
! grep -q '"type":"bts"' "$work/lbr.json" && grep -q '"type":"lbr"' "$work/lbr.json" &&
	[ "$(grep -c '"type":"lbr"' "$work/lbr.json")" = "$(grep -c '"type":"lbr"' "$work/all.json")" ]
ok $? "--facility lbr: every LBR record, no BTS record"
"$dec" --view json --session 99 "$two" >/dev/null 2>"$work/none.err"
grep -q "no session of its [0-9]* matches" "$work/none.err"
ok $? "--session past the last: said ($(cat "$work/none.err"))"
"$dec" --cpu x "$two" >/dev/null 2>"$work/bad.err"
rc=$?
[ "$rc" = 2 ] && grep -q "accepted: a CPU number" "$work/bad.err"
ok $? "--cpu x: exit $rc, what is accepted said"
# --diff OLD NEW: a capture against itself changes nothing; against the same boot's CPU 1 alone
# (--cpu applies to both sides) each count is at most the whole's
"$dec" --diff "$two" "$two" >"$work/self.diff" 2>/dev/null
rc=$?
rows=$(grep -c '^ ' "$work/self.diff")
[ "$rc" = "$all" ] && [ "$rows" -gt 0 ] &&
	awk '/^ / { if ($1 != $2 || $5 != "+0.00%") bad++ } END { exit bad > 0 }' "$work/self.diff"
ok $? "--diff of a capture against itself: exit $rc, $rows rows, each the same count on both sides, no change"
# the filters number each side's sessions from 1: the second session of each, compared
"$dec" --diff "$two" "$two" --session 2 >"$work/s2.diff" 2>"$work/s2.err"
[ "$(grep -c '^ ' "$work/s2.diff")" -gt 0 ] && ! grep -q 'no session' "$work/s2.err" &&
	awk '/^ / { if ($1 != $2) bad++ } END { exit bad > 0 }' "$work/s2.diff"
ok $? "--diff with --session 2: each side's second session, the same ($(grep -c '^ ' "$work/s2.diff") rows)"
"$dec" --diff "$here/missing.log" "$two" >/dev/null 2>"$work/diff.err"
rc=$?
[ "$rc" = 2 ] && grep -q "missing.log" "$work/diff.err"
ok $? "--diff of a file that is not there: exit $rc, named"
echo "1..$n"
