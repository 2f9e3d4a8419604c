# Shared by the decoder's tests on fixed captures (tests/views/*.t): where things are, a work
# folder removed at the end, and TAP points (ok STATUS DESCRIPTION; $last: the last one's status).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
dec=$build/btdecode
here=$top/tests/views
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
n=0 last=0
ok() {
	n=$((n + 1)) last=$1
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# calls.S (views.t's program, never run) assembled and linked at $base with build id $id into
# $work/calls.elf (its debug line table naming tests/views/calls.S wherever the checkout is), and
# its path (calls.records, addresses from nm) written by mkcapture into $work/cap; $syms: its
# labels as NAME=ADDRESS. Two TAP points.
id=0123456789abcdef0123456789abcdef01234567
base=0x401000
elf=$work/calls.elf
calls_capture() {
	(cd "$work" && gcc -g -fdebug-prefix-map="$here"=tests/views -c "$here/calls.S" -o calls.o &&
		ld -x -nostdlib -Ttext=$base --build-id=0x$id -e _start -o calls.elf calls.o)
	ok $? "calls.S assembles and links at $base with build id $id"
	syms=$(nm "$work/calls.o" | while read -r a _ name; do printf '%s=0x%x ' "$name" $((0x$a + base)); done)
	# shellcheck disable=SC2086
	sed "s/BUILD_ID/$id/" "$here/calls.records" | "$build/host/mkcapture" $syms >"$work/cap"
	ok $? "mkcapture writes the records of calls.records"
}

# frames FILE: "LINE CPU FRAME TYPE" for every "@BT1 " line, read by perl at the header offsets
# lib/stream.h gives (type at 3, CPU at 4, the CPU's frame number at 8, little-endian; types:
# 1 BEGIN, 2 BTS, 3 END, 4 HEADER, 5 LBR)
frames() {
	perl -MMIME::Base64 -ne 'next unless /\@BT1 ([A-Za-z0-9+\/=]+)/; my $f = decode_base64($1);
		printf "%d %d %d %d\n", $., unpack("v", substr($f, 4, 2)), unpack("V", substr($f, 8, 4)),
			ord(substr($f, 3, 1))' "$1"
}
