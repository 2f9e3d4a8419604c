#!/usr/bin/env bash
# btdecode's symbols and JSON (issue 36), on a fixed capture: a program of three instructions
# (assembled and linked here at 0x500000 with a fixed build id) whose function has a C++ name,
# its records written by mkcapture (the kernel's own writer) with addresses from nm. Checked
# against independent sources: the demangled name is c++filt's; the program's ELF is found by
# the build id readelf reads from it, beside the capture, under --debug-dir and in a
# debuginfod-style .build-id/ tree, and its absence is said with that build id; an address
# past the ELF's last segment (readelf -l) gets no name; --view=json and --view json agree;
# the JSON parses (Python's json) and keeps UTF-8 whole, a stray byte becoming U+FFFD.
. "$(dirname "$0")/lib.sh"
[ -n "${KEEP:-}" ] && trap - EXIT && echo "# work: $work"

id=abcdef0123456789abcdef0123456789abcdef01
cat >"$work/prog.S" <<'EOF'
	.text
	.globl _start
_start:
s_call:	call _ZN2ns4workEi
s_after: jmp s_call
	.globl _ZN2ns4workEi
	.type _ZN2ns4workEi, @function
_ZN2ns4workEi:
w_ret:	ret
	.size _ZN2ns4workEi, .-_ZN2ns4workEi
EOF
(cd "$work" && gcc -c prog.S -o prog.o &&
	ld -nostdlib -Ttext=0x500000 --build-id=0x$id -e _start -o prog.elf prog.o)
ok $? "a program with a C++ function links at 0x500000 with build id $id"
[ "$(readelf -n "$work/prog.elf" | awk '/Build ID/ { print $3 }')" = "$id" ]
ok $? "readelf reads that build id from it"
syms=$(nm "$work/prog.elf" | while read -r a _ name; do printf '%s=0x%s ' "$name" "$a"; done)
# past the end: one page above the last PT_LOAD's end (readelf -l)
# (shell arithmetic for the hex: Debian's default awk, mawk, has no strtonum)
last_load=$(readelf -lW "$work/prog.elf" | awk '$1 == "LOAD" { v = $3; m = $6 } END { print v, m }')
read -r load_vaddr load_memsz <<<"$last_load"
pastend=$(printf '0x%x' $((load_vaddr + load_memsz + 4096)))
mkdir -p "$work/cap" "$work/elsewhere"
# shellcheck disable=SC2086
printf '%s\n' "header baretrace=test cpus=1 program-build-id=$id program-bias=0 config=name=café,bad=$(printf '\377')x" \
	'begin bts prog@golden' 's_call _ZN2ns4workEi 0x10' 'w_ret s_after 0x10' "s_after $pastend 0x10" \
	'end 0' 'bootend' | sed 's/^s_call /bts s_call /; s/^w_ret /bts w_ret /; s/^s_after /bts s_after /' |
	"$build/host/mkcapture" $syms >"$work/cap/capture.log"
ok $? "mkcapture writes the records"

want=$(echo _ZN2ns4workEi | c++filt)
# ---- the ELF beside the capture, found by its build id ----
cp "$work/prog.elf" "$work/cap/renamed"
"$dec" "$work/cap/capture.log" >"$work/beside" 2>"$work/beside.err"
rc=$?
grep -qF "<$want>" "$work/beside" && [ ! -s "$work/beside.err" ]
ok $((rc + $?)) "beside the capture, no --program: found by build id, named '$want' as c++filt names it"
grep -q "0x[0-9a-f]* <s_after" "$work/beside" && ! grep -q "$pastend <" "$work/beside"
ok $? "an address past the ELF's last segment ($pastend) is named nothing, not after the nearest symbol"
rm "$work/cap/renamed"

# ---- under --debug-dir: a folder of ELFs, then a .build-id/ tree ----
cp "$work/prog.elf" "$work/elsewhere/x"
"$dec" --debug-dir "$work/elsewhere" "$work/cap/capture.log" 2>/dev/null | grep -qF "<$want>"
ok $? "--debug-dir DIR (a folder of ELFs): found by build id"
rm "$work/elsewhere/x"
mkdir -p "$work/elsewhere/.build-id/${id:0:2}"
cp "$work/prog.elf" "$work/elsewhere/.build-id/${id:0:2}/${id:2}.debug"
"$dec" --debug-dir="$work/elsewhere" "$work/cap/capture.log" 2>/dev/null | grep -qF "<$want>"
ok $? "--debug-dir=DIR with a .build-id/${id:0:2}/${id:2}.debug tree: found"
rm -r "$work/elsewhere/.build-id"

# ---- nowhere: one message naming the build id ----
"$dec" --debug-dir "$work/elsewhere" "$work/cap/capture.log" >/dev/null 2>"$work/none.err"
rc=$?
[ $rc = 0 ] && [ "$(grep -c "build id $id" "$work/none.err")" = 1 ]
ok $? "no ELF with it: exit $rc, one message naming build id $id ($(head -c 100 "$work/none.err"))"

# ---- JSON: --view=json as --view json, valid, UTF-8 whole ----
cp "$work/prog.elf" "$work/cap/renamed"
"$dec" --view=json "$work/cap/capture.log" >"$work/j1" 2>/dev/null
"$dec" --view json "$work/cap/capture.log" >"$work/j2" 2>/dev/null
cmp -s "$work/j1" "$work/j2" && [ -s "$work/j1" ]
ok $? "--view=json and --view json give the same output"
/usr/bin/python3 - "$work/j1" "$want" <<'EOF'
import json, sys
lines = open(sys.argv[1], 'rb').read().decode('utf-8').splitlines()
recs = [json.loads(l) for l in lines]
text = json.dumps(recs, ensure_ascii=False)
assert 'name=café,bad=\ufffdx' in text, text[:400]
assert any(sys.argv[2] in str(r.get('to_sym', '')) for r in recs), text[:400]
EOF
ok $? "the JSON is valid UTF-8 that Python's json reads: 'café' whole, the stray byte U+FFFD, '$want' named"

# ---- perf.data of it: perf names the C++ function; AutoFDO's missing line table is said ----
"$dec" --view=perf.data -o "$work/perf.data" "$work/cap/capture.log" 2>"$work/pd.err"
rc=$?
grep -q "renamed has no DWARF line table.*AutoFDO" "$work/pd.err"
ok $((rc + $?)) "--view=perf.data: exit $rc; says the program has no line table for AutoFDO ($(head -c 90 "$work/pd.err"))"
# perf prints a C++ name without its parameters: c++filt -p's form
want_p=$(echo _ZN2ns4workEi | c++filt -p)
(cd "$work" && perf script -i perf.data -F brstacksym 2>/dev/null) | grep -qF "$want_p+0x0/"
ok $? "perf script names '$want_p' (c++filt -p) in the branch stack of that perf.data"

"$dec" --view=nosuch "$work/cap/capture.log" 2>"$work/bad.err"
rc=$?
[ $rc = 2 ] && grep -q "accepted:.* perf.data" "$work/bad.err"
ok $? "--view=nosuch: exit $rc, the accepted views named"
echo "1..$n"
