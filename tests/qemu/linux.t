#!/usr/bin/env bash
# Unmodified static Linux programs in ring 3 (docs/programs.md "Trace your own program"):
# built here with Debian's toolchains (musl-gcc -static, gcc -static, gcc -static-pie,
# g++ -static) from tests/programs/linux/, and Debian's busybox-static as shipped; each is
# booted once, run natively then traced under BTS (interrupt mode), and what it wrote
# (stdout and stderr, in the order written) and its exit status must equal the same binary
# run on this host with the same argv and environment. The expected values come from that
# host run, never from a boot. make test boots musl's and the static PIE's hello, busybox's
# sha256sum of a file on the volume and the refusal; LINUX_ALL=1 (make long-check,
# tests/long/linux.t) adds g++'s exception (13 M instructions stepped) and the awk, factor and
# sort applets.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
src=$top/tests/programs/linux

# native NAME BINARY ARGV0 ARGS...: the host's run, stdout and stderr together, with an
# empty environment but for A and B, in $work (where data/ holds the files the boots get
# in \data\: a relative path names the same file in both), stdin from $NATIVE_STDIN (a path
# relative to $work) or empty; its status in $work/NAME.status.
mkdir -p "$work/data"
printf 'pear\napple\nfig\nbanana\napple\n' >"$work/data/words.txt"
head -c 5000 "$top/README.md" >"$work/data/input.dat"
# Descriptors above 2 are closed first, as a boot's program starts with 0, 1 and 2 only.
native() {
	local name=$1 bin=$2 argv0=$3
	shift 3
	(cd "$work" && env -i A=1 'B=x y' perl -e "$native_exec" "$bin" "$argv0" \
		"$@" <"${NATIVE_STDIN:-/dev/null}" >"$work/$name.native" 2>&1)
	echo $? >"$work/$name.status"
}
native_exec='use POSIX (); POSIX::close($_) for 3 .. 1023; $p = shift; exec {$p} @ARGV'
# traced NAME: what the boot's program wrote, from its program-output lines (\xNN undone).
traced() {
	printf '%s\n' "$out" | perl -ne 's/\r$//; next unless s/^program-(output|stderr) cpu=0: //;
		s/\\x([0-9a-f]{2})/chr hex $1/ge; print' >"$work/$1.traced"
}
# check NAME BINARY ARGV-OPTION [KERNEL-OPTION...]: boot it, compare with the native run.
check() {
	local name=$1 bin=$2 argv=$3
	shift 3
	boot --timeout 400 --program "$bin" --file "$work/data/words.txt" \
		--file "$work/data/input.dat" -- workload=program trace=btsint \
		"program.argv=$argv" 'program.env="A=1 B=x\ y"' "$@"
	local want
	want=$(cat "$work/$name.status")
	printf '%s\n' "$out" | grep -q "^trace-begin btsint program@.*result=$want\$"
	ok $? "$name: the traced run's exit status is the native run's ($want)"
	status_is 0 "$name: the boot passes (natively then traced, nothing lost)" ||
		printf '%s\n' "$out" | grep -E '^(summary|incomplete|error|run finished)' | sed 's/^/# /'
	traced "$name"
	cmp -s "$work/$name.native" "$work/$name.traced"
	ok $? "$name: stdout and stderr equal the host's run, byte for byte" ||
		diff "$work/$name.native" "$work/$name.traced" | sed 's/^/# /'
	printf '%s\n' "$out" | grep -q "Linux ABI"
	ok $? "$name: told apart as a Linux program without being told"
}

# outputs NAME ARGV0 ARGS...: btdecode --view output gives the program's stdout and stderr
# apart, each equal to the host's run of it with the two in separate files (the boot streamed:
# stream=text).
outputs() {
	local name=$1
	shift
	(cd "$work" && env -i A=1 'B=x y' perl -e "$native_exec" "$work/$name" "$@" \
		</dev/null >"$work/$name.stdout" 2>"$work/$name.stderr")
	printf '%s\n' "$out" >"$work/$name.log"
	"$build/btdecode" --view output --stream stdout "$work/$name.log" >"$work/$name.o" 2>/dev/null
	cmp -s "$work/$name.stdout" "$work/$name.o" && [ -s "$work/$name.stderr" ] &&
		"$build/btdecode" --view output --stream stderr "$work/$name.log" 2>/dev/null |
		cmp -s "$work/$name.stderr" -
	ok $? "$name: btdecode --view output gives back its stdout and its stderr apart, byte for byte"
}

musl=$(command -v musl-gcc || true)
if [ -n "$musl" ]; then
	musl-gcc -O2 -static -o "$work/hello-musl" "$src/hello.c"
	native hello-musl "$work/hello-musl" hello -n 100 'a b'
	check hello-musl "$work/hello-musl" '"hello -n 100 a\ b"' stream=text
	outputs hello-musl hello -n 100 'a b'
else
	ok 0 "# SKIP musl-gcc not installed (Debian musl-tools; scripts/install-deps)"
fi

# Descriptors name open file descriptions, stdout and stderr two of them: after dup2(2, 1) or
# close(1); dup(2) fd 1's bytes are stderr's, F_DUPFD(_CLOEXEC) and dup3 likewise, a closed name
# leaves the others (tests/programs/linux/streams.c), each byte on the stream the host's run
# puts it. Its argv is program.argv's grammar (docs/programs.md "Trace your own program"): "..."
# groups, "" an empty word, \" a quote and \\ a backslash in a word, each escaped again inside the
# option's own quotes. glibc's dup3 and fcntl are the system calls themselves (musl's dup3
# without O_CLOEXEC is dup2).
gcc -O2 -static -o "$work/streams" "$src/streams.c"
native streams "$work/streams" streams 'a b' '' 'say"hi' 'back\slash'
check streams "$work/streams" '"streams \"a b\" \"\" say\\\"hi back\\\\slash"' stream=text
outputs streams streams 'a b' '' 'say"hi' 'back\slash'
printf '%s\n' "$out" | grep -q '^program-stderr cpu=0: dup2(2, 1) = 1: fd 1 names stderr now'
ok $? "streams: fd 1's bytes after dup2(2, 1) are stderr's in the log too"

# records FUNC-LO FUNC-HI...: the btsint session's "FROM TO" lines, each followed by "in" when
# FROM or TO lies in one of the [LO, HI) ranges, else "out".
records() {
	printf '%s\n' "$out" | perl -lane 'no warnings "portable"; BEGIN { @r = map hex, @ARGV; @ARGV = () }
		$on = ($F[1] eq "btsint") if $F[0] eq "trace-begin"; $on = 0 if $F[0] eq "trace-end";
		next unless $on && $F[0] eq "bts"; ($f, $t) = (hex $F[1], hex $F[2]); $in = "out";
		for ($i = 0; $i < @r; $i += 2) { $in = "in" if ($f >= $r[$i] && $f < $r[$i + 1]) || ($t >= $r[$i] && $t < $r[$i + 1]) }
		print "$F[1] $F[2] $in"' "$@"
}
# sym ELF NAME [BIAS]: "START END" of a function from nm -S, as 0x... numbers, plus BIAS.
sym() {
	local a z
	read -r a z < <(nm -S "$1" | awk -v n="$2" '$4 == n && ($3 == "T" || $3 == "t") { print $1, $2 }')
	[ -n "$a" ] && printf '0x%x 0x%x\n' $((16#$a + ${3:-0})) $((16#$a + 16#$z + ${3:-0}))
}

# The static PIE, with hello.c's SSC marks cutting the capture to marked() (program.roi=marks).
gcc -O2 -static-pie -o "$work/hello-pie" "$src/hello.c"
native hello-pie "$work/hello-pie" hello -n 100 'a b'
check hello-pie "$work/hello-pie" '"hello -n 100 a\ b"' program.roi=marks
has "PIE, placed at its ABI's base" "hello-pie: a static PIE is placed (0x555555554000, Linux's base)"
read -r m_lo m_hi < <(sym "$work/hello-pie" marked 0x555555554000)
r=$(records "$m_lo" "$m_hi")
n=$(printf '%s\n' "$r" | grep -c .)
calls=$(printf '%s\n' "$r" | awk -v e="$m_lo" '$2 == e' | grep -c .)
outside=$(printf '%s\n' "$r" | grep -c ' out$')
[ "$n" -gt 2 ] && [ "$calls" = 1 ] && [ "$outside" = 0 ]
ok $? "hello-pie: SSC marks (EBX 0x111 / 0x222, then 64 67 90) keep marked() only: $n records, one call into it at $m_lo (nm), none outside it ($outside)" ||
	printf '%s\n' "$r" | head -n 5 | sed 's/^/# /'

# Descriptors, directories, stat/statx, the memory calls with their effect, stdin from a file,
# AT_MINSIGSTKSZ, nanosleep (tests/programs/linux/features.c, glibc's gcc -static) under
# program.roi=function:roi_target: from its entry to its outermost return, nested and recursive
# calls inside (roi_target(5): 6 activations, each calling roi_leaf once, from its source).
gcc -O2 -static -o "$work/features" "$src/features.c"
NATIVE_STDIN=data/words.txt native features "$work/features" features
check features "$work/features" '"features"' program.stdin=/data/words.txt \
	program.roi=function:roi_target
read -r t_lo t_hi < <(sym "$work/features" roi_target)
read -r l_lo l_hi < <(sym "$work/features" roi_leaf)
r=$(records "$t_lo" "$t_hi" "$l_lo" "$l_hi")
into_t=$(printf '%s\n' "$r" | awk -v e="$t_lo" '$2 == e' | grep -c .)
into_l=$(printf '%s\n' "$r" | awk -v e="$l_lo" '$2 == e' | grep -c .)
outside=$(printf '%s\n' "$r" | grep -c ' out$')
first_to=$(printf '%s\n' "$r" | head -n 1 | cut -d' ' -f2)
[ "$into_t" = 6 ] && [ "$into_l" = 6 ] && [ "$outside" = 0 ] && [ "$first_to" = "$t_lo" ]
ok $? "features: program.roi=function:roi_target captures its 6 activations and roi_leaf's 6 calls (records into them: $into_t, $into_l), starting with the call to its entry ($first_to, nm: $t_lo), none outside the two ($outside)" ||
	printf '%s\n' "$r" | head -n 5 | sed 's/^/# /'

if [ -n "${LINUX_ALL:-}" ]; then
	g++ -O2 -static -o "$work/except" "$src/except.cc"
	native except "$work/except" except one two
	# Its first throw runs ~13 M instructions (the unwinder parses .eh_frame): their 1.5 M user
	# records as text lines take minutes on the serial line, so only the kernel side's records are
	# kept (bts.ring=kernel); every instruction is still stepped, the run still compared.
	check except "$work/except" '"except one two"' bts.ring=kernel
fi

bb=/bin/busybox
if [ -x "$bb" ] && readelf -lW "$bb" | grep -q 'EXEC\|DYN' && ! readelf -lW "$bb" | grep -q INTERP; then
	native busybox-sha256sum "$bb" sha256sum data/input.dat /data/none
	check busybox-sha256sum "$bb" '"sha256sum data/input.dat /data/none"'
	if [ -n "${LINUX_ALL:-}" ]; then
		awkprog='BEGIN{s=0;for(i=1;i<=100;i++)s+=i*i;print(s)}'
		native busybox-awk "$bb" awk "$awkprog"
		check busybox-awk "$bb" "\"awk $awkprog\""
		native busybox-factor "$bb" factor 1234567890 4294967291
		check busybox-factor "$bb" '"factor 1234567890 4294967291"'
		native busybox-sort "$bb" sort -r data/words.txt
		check busybox-sort "$bb" '"sort -r data/words.txt"'
	fi
else
	ok 0 "# SKIP no static /bin/busybox (Debian busybox-static; scripts/install-deps)"
fi

if [ -n "${LINUX_ALL:-}" ]; then
	# program.base: the same static PIE placed elsewhere gives the same output.
	check hello-pie "$work/hello-pie" '"hello -n 100 a\ b"' program.base=0x10000000
	has "segments in [0x10000000, " "hello-pie at program.base=0x10000000: placed there"
	# Refusals of the program options, each before running (status 2) with its reason.
	boot --timeout 120 --program "$work/features" -- workload=program trace=bts \
		program.roi=function:no_such_function
	status_is 2 "program.roi=function: a name the symbol table lacks is refused"
	has "no function no_such_function in the program's symbol table; accepted" "... naming it and what is accepted"
	boot --timeout 120 --program "$work/features" -- workload=program trace=bts program.stdin=/data/none
	status_is 2 "program.stdin: a file not in \\data\\ is refused"
	has "program.stdin=/data/none: no such file" "... naming it"
	boot --timeout 120 --memory 200M --program "$work/features" -- workload=program trace=bts
	status_is 2 "a program whose memory is more than the machine's free memory is refused"
	has "MiB are free; accepted: a program that fits" "... with both sizes and what is accepted"
	boot --timeout 120 --program "$work/features" -- workload=program trace=bts program.base=0x10000000
	status_is 2 "program.base with an ET_EXEC is refused"
	has "program.base applies to a static PIE" "... saying what it applies to"
fi

# ---- refused before running, with the reason and status 2 ----
gcc -O2 -o "$work/dynamic" "$src/hello.c"
boot --timeout 120 --program "$work/dynamic" -- workload=program trace=bts
status_is 2 "a dynamically linked program is refused (bad input)"
has "PT_INTERP: the program is dynamically linked" "... naming PT_INTERP and what is accepted"

done_testing
