#!/usr/bin/env bash
# Inline frames in btdecode's text view, as `eu-addr2line -i` lists them: a program
# built at -O2 with functions inlined into its entry (tests/views/inline/prog.c), one BTS
# record from each of its instructions (objdump -d) to the next, written by mkcapture. For
# every instruction, the text view's " inlined: F FILE:LINE, ..." (or none) must list the same
# functions and lines as elfutils' `eu-addr2line -i -f -s` at that address (its columns left
# out); the class: every instruction of the function, inlined or not.
. "$(dirname "$0")/lib.sh"

id=abcdef0123456789abcdef0123456789abcdef02
gcc -O2 -g -ffreestanding -fno-pie -nostdlib -static -Wl,-Ttext=0x500000 \
	-Wl,--build-id=0x$id -o "$work/prog.elf" "$here/inline/prog.c"
ok $? "gcc -O2 -g builds the program at 0x500000"
objdump -d "$work/prog.elf" | awk '/^  *[0-9a-f]+:\t/ { sub(":", "", $1); print "0x" $1 }' >"$work/addrs"
[ "$(wc -l <"$work/addrs")" -ge 8 ]
ok $? "objdump lists its $(wc -l <"$work/addrs") instructions"

{
	echo "header baretrace=test cpus=1 program-build-id=$id program-bias=0"
	echo 'begin bts inline@prog'
	paste -d' ' "$work/addrs" <(tail -n +2 "$work/addrs"; tail -n 1 "$work/addrs") |
		while read -r a b; do echo "bts $a $b 0x10"; done
	echo 'end 0'
	echo bootend
} | "$build/host/mkcapture" >"$work/capture.log"
ok $? "mkcapture writes one record per instruction"

"$dec" --program "$work/prog.elf" "$work/capture.log" >"$work/text" 2>"$work/err"
ok $? "btdecode --program decodes it: $(head -c 200 "$work/err")"

# eu-addr2line -i -f -s: per frame a function line ("NAME" or "NAME inlined at ... in ...")
# and a place line ("FILE:LINE[:COL]"); one frame means nothing was inlined there.
bad= inlined=0
while read -r a; do
	want=$(eu-addr2line -i -f -s -e "$work/prog.elf" "$a" | paste - - |
		awk -F'\t' '{ sub(/ inlined at .*/, "", $1); split($2, p, ":");
			s = s (NR > 1 ? ", " : "") $1 " " p[1] ":" p[2] } END { print NR < 2 ? "-" : s }')
	got=$(grep "^bts $a " "$work/text" | sed -n 's/^bts [^<]*<\([^>]*\)>.*/\1/p' |
		sed -n 's/.* inlined: //p')
	[ -z "$got" ] && got=-
	[ "$got" != - ] && inlined=$((inlined + 1))
	[ "$got" = "$want" ] || bad="$bad $a(got '$got', eu-addr2line '$want')"
done <"$work/addrs"
[ -z "$bad" ] && [ "$inlined" -ge 2 ]
ok $? "every instruction's inline frames are eu-addr2line -i's ($inlined inlined):$bad"

echo "1..$n"
