#!/usr/bin/env bash
# Every command README.md shows is run: each line of its ```sh blocks, as written, in README
# order, in a folder of its own where `mybench.c` is examples/mybench.c (the README's own
# program), `input.dat` a file of the README's bytes, and `scripts/` and `build/` this tree's.
# Each must end with status 0. Not run here, said so: `make run` and `make test` (make test is
# this run; make run is make fresh-check's second command), and the stick's lines (`make usb`
# with `dd` to a device, and btdecode on that device: a machine and a stick, docs/usb-stick.md;
# tests/qemu/stick.t and usb.t run the image). Where a command needs a person or a tool Debian
# does not package, the test stands in and says so: `xdg-open FILE` (a browser) is the file
# being a page, `| less` is reading to the end, `| flamegraph.pl` (Brendan Gregg's FlameGraph, not
# a Debian package) is the folded lines it would read.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
cp "$top/examples/mybench.c" "$work/mybench.c"
head -c 5000 "$top/README.md" >"$work/input.dat"
ln -s "$top/scripts" "$work/scripts"
ln -s "$build" "$work/build"
cd "$work" || exit 1

# the ```sh blocks' lines, each with its README line number
awk '/^```/ { inb = !inb; sh = ($0 == "```sh"); next } inb && sh && NF { print NR "\t" $0 }' \
	"$top/README.md" >commands
stand_ins='xdg-open() { grep -q "<html" "$1" && echo "(a browser would open $1)"; }
less() { cat >/dev/null; }
command -v flamegraph.pl >/dev/null || flamegraph.pl() { grep -c " [0-9]*$" >/dev/null; }'
total=$(wc -l <commands)
echo "1..$((total + 1))"
[ "$total" -gt 10 ]
ok $? "README.md shows $total command lines in its sh blocks"
while IFS=$'\t' read -r line cmd; do
	case "$cmd" in
	"make run"* | "make test"*)
		ok 0 "# SKIP README:$line '$cmd': make test is this run; make run is make fresh-check's second command"
		continue
		;;
	*/dev/sd*)
		ok 0 "# SKIP README:$line '$cmd': a USB stick and a machine (tests/qemu/stick.t, usb.t run the image)"
		continue
		;;
	esac
	bash -c "$stand_ins
$cmd" </dev/null >"out.$line" 2>"err.$line"
	rc=$?
	ok $rc "README:$line: $cmd (status $rc$([ "$rc" = 0 ] || echo ": $(tail -n 2 "err.$line" | tr '\n' ' ' | head -c 300)"))"
done <commands
exit $((tap_failed > 0))
