#!/usr/bin/env bash
# btdecode --view html on a fixed capture, loaded once in Debian's headless Chromium (html_check:
# no console message, the script ran; nothing fetched; a section per session; hot functions and
# a flame graph; each annotated function's instructions and branches at objdump's addresses; each
# instruction's taken count the text view's records from it; every session tid 1: no thread named,
# no threads' timeline, the page of one thread). Two programs that never run, in
# one capture, as the kernel and the program:
#  - calls.S (views.t's), its path read from its source (calls.records): main makes 6 of the
#    BTS session's 12 branches, more than any other function; the flame graph holds _start, main,
#    leaf, isr and tail; the JNZ at m_jnz is taken once and falls through once (its second run,
#    on the path from leaf's return to the indirect CALL); the interrupt is delivered at the DEC;
#  - a C++ template whose name has < > & and spaces (nm -C's name, binutils' demangler): shown as
#    it is in the hot functions, the flame graph and the disassembly, escaped in the page.
. "$(dirname "$0")/lib.sh"

check=$here/html_check
report() { # the checker's lines ("STATUS DESCRIPTION") as TAP points
	while read -r st desc; do ok "$st" "$desc"; done
}

# ---- calls.S (as views.t builds it) and a C++ template, as the kernel and the program ----
calls_capture
cat >"$work/t.cc" <<'EOF'
template <typename A, typename B> struct P {
	A a;
	B b;
};
template <typename T> __attribute__((noinline)) int get(T t)
{
	return t.a + t.b;
}
extern "C" int start(void)
{
	P<int, char> p = {1, 2};
	return get<P<int, char> &>(p);
}
EOF
tid=fedcba9876543210fedcba9876543210fedcba98
(cd "$work" && g++ -O1 -fno-asynchronous-unwind-tables -c t.cc -o t.o &&
	ld -nostdlib -Ttext-segment=0x600000 --build-id=0x$tid -e start -o t.elf t.o)
ok $? "a C++ template instance compiles and links"
mangled=$(nm "$work/t.elf" | awk '$3 ~ /^_Z3get/ { print $3 }')
name=$(nm -C "$work/t.elf" | awk '$3 == "int" && $4 ~ /^get</ { $1 = $2 = ""; sub(/^  /, ""); print }')
addr() { nm "$work/t.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
# calls.records' sessions, then one of the template's (start calls get, get returns) before the
# boot's last line
# shellcheck disable=SC2086
{
	grep -v '^log run finished' "$here/calls.records" | sed "s/BUILD_ID/$id/"
	printf 'header program-build-id=%s\nbegin bts template\nbts %s %s 0x10\nbts %s %s 0x10\nend 0\n' \
		"$tid" "$(addr start)" "$(addr "$mangled")" "$(addr "$mangled")" "$(addr start)"
	echo "log run finished: PASS"
} | "$build/host/mkcapture" $syms >"$work/both"
ok $? "mkcapture writes calls.records and the template's session into one capture"

"$dec" --view html -o "$work/page.html" --elf "$elf" --program "$work/t.elf" "$work/both" \
	2>"$work/html.err"
rc=$?
[ $rc = 0 ] && [ ! -s "$work/html.err" ] && grep -q '</html>' "$work/page.html"
ok $? "--view html -o FILE: exit $rc, a whole page ($(head -c 200 "$work/html.err"))"
"$dec" --elf "$elf" --program "$work/t.elf" "$work/both" >"$work/text" 2>/dev/null
"$dec" --view json --elf "$elf" --program "$work/t.elf" "$work/both" >"$work/json" 2>/dev/null
# shellcheck disable=SC2086
jnz=$(printf '%s\n' $syms | sed -n 's/^m_jnz=//p')
report < <("$check" "$work/page.html" "$work/text" --json "$work/json" --elf "$elf" --elf "$work/t.elf" \
	--top bts=main --flame bts=_start,main,leaf,isr,tail --branch "bts:$jnz=1/1" --name "$name" --threads)
# the interrupt at the DEC (m_after_leaf): delivered there once, in the BTS session
# shellcheck disable=SC2086
dec_at=$(printf '%s\n' $syms | sed -n 's/^m_after_leaf=//p')
grep -q "id=\"s0-a${dec_at#0x}\".*&#x21af; 1 delivered here" "$work/page.html"
ok $? "the interrupt is shown delivered at the DEC ($dec_at), once"

# ---- bad input ----
"$dec" --view html -o "$work/no/such/dir.html" "$work/both" 2>"$work/e1"
rc=$?
[ $rc = 2 ] && grep -q "no/such/dir.html" "$work/e1"
ok $? "-o into a missing folder: exit $rc, the file named"
echo "1..$n"
