#!/usr/bin/env bash
# btdecode's symbols and JSON, on a fixed capture: a program of three instructions
# (assembled and linked here at 0x500000 with a fixed build id) whose function has a C++ name,
# its records written by mkcapture (the kernel's own writer) with addresses from nm. Checked
# against independent sources: the demangled name is c++filt's; the program's ELF is found by
# the build id readelf reads from it, beside the capture, under --debug-dir and in a
# debuginfod-style .build-id/ tree, and its absence is said with that build id; an address
# past the ELF's last segment (readelf -l) gets no name, nor one whose nearest symbol below is
# in another section or absolute (readelf -S, -s), in any view; --view=json and --view json
# agree; the JSON parses (Python's json) and keeps UTF-8 whole, a stray byte becoming U+FFFD.
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

# ---- a symbol names only an address its section holds (gABI: st_shndx, st_size, sh_addr) ----
# .data ends in a sizeless label (d_end); .bss, in the same segment, has one sized object (buf)
# 0x800 bytes in, and an absolute symbol (absmark, --defsym: in no section) 0x400 bytes in. The
# expected names come from readelf's sections and nm's symbols: a .bss address below buf is
# held by no symbol's section (d_end's is .data, absmark has none): bare; buf+8 is buf's own.
id2=abcdef0123456789abcdef0123456789abcdef02
cat >"$work/sect.S" <<'EOF'
	.text
	.globl _start
_start:	jmp _start
	.data
	.globl obj
	.type obj, @object
obj:	.quad 1
	.size obj, 8
d_end:
	.bss
	.skip 0x800
	.globl buf
	.type buf, @object
buf:	.skip 16
	.size buf, 16
	.skip 0x800
EOF
printf 'SECTIONS { . = 0x600000; .text : { *(.text) } . = ALIGN(0x1000); .data : { *(.data) } .bss : { *(.bss) } }\n' >"$work/sect.ld"
(cd "$work" && gcc -c sect.S -o sect.o &&
	ld -nostdlib -T sect.ld --build-id=0x$id2 --defsym=absmark=$((0x601000 + 8 + 0x400)) -e _start -o sect.elf sect.o)
ok $? "a program of .text, .data and .bss links with build id $id2"
read -r bss_addr bss_size <<<"$(readelf -SW "$work/sect.elf" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".bss" { print "0x" $3, "0x" $5 }')"
data_addr=$(readelf -SW "$work/sect.elf" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".data" { print "0x" $3 }')
nmv() { printf '0x%s' "$(nm "$work/sect.elf" | awk -v s="$1" '$3 == s { print $1 }')"; }
buf=$(nmv buf) dend=$(nmv d_end) abs=$(nmv absmark) start=$(nmv _start)
below_buf=$(printf '0x%x' $((bss_addr + 0x100)))
above_abs=$(printf '0x%x' $((abs + 0x10)))
in_buf=$(printf '0x%x' $((buf + 8)))
# the layout the names depend on, from readelf and nm: one RW PT_LOAD holds .data and .bss
rw=$(readelf -lW "$work/sect.elf" | awk '$1 == "LOAD" && $0 ~ / RW / { print $3, $6 }')
read -r rw_addr rw_size <<<"$rw"
[ $((data_addr)) -le $((dend)) ] && [ $((dend)) -le $((bss_addr)) ] && [ $((bss_addr)) -lt $((below_buf)) ] &&
	[ $((below_buf)) -lt $((abs)) ] && [ $((above_abs)) -lt $((buf)) ] && [ $((buf + 16)) -le $((bss_addr + bss_size)) ] &&
	[ $((rw_addr)) -le $((data_addr)) ] && [ $((bss_addr + bss_size)) -le $((rw_addr + rw_size)) ] &&
	readelf -sW "$work/sect.elf" | grep -q ' ABS absmark$'
ok $? "readelf: d_end ($dend) ends .data, .bss at $bss_addr ($bss_size bytes) in the same RW PT_LOAD, absmark ($abs) absolute, buf at $buf"
mkdir -p "$work/sect"
cp "$work/sect.elf" "$work/sect/sect.elf"
printf '%s\n' "header baretrace=test cpus=1 program-build-id=$id2 program-bias=0" 'begin bts sect@test cpu=0' \
	"bts _start $below_buf 0x10" "bts $above_abs $in_buf 0x10" "bts $in_buf _start 0x10" 'end 0' 'bootend' |
	"$build/host/mkcapture" _start="$start" >"$work/sect/cap"
ok $? "mkcapture writes records to and from those addresses"
"$dec" "$work/sect/cap" >"$work/sect.text" 2>"$work/sect.err"
rc=$?
start=$(printf '0x%x' $((start)))
grep -q "^bts $start <_start> $below_buf 0x10\$" "$work/sect.text" &&
	grep -q "^bts $above_abs $in_buf <buf+0x8> 0x10\$" "$work/sect.text" &&
	grep -q "^bts $in_buf <buf+0x8> $start <_start> 0x10\$" "$work/sect.text"
ok $((rc + $?)) "text: $below_buf (after d_end, in .bss) and $above_abs (after absmark) bare; $in_buf buf+0x8, $start _start (exit $rc)"
[ "$last" = 0 ] || sed 's/^/# /' "$work/sect.text" "$work/sect.err" | head
bad=""
for v in text json stats perf folded trace html perf.data; do
	"$dec" --view "$v" -o "$work/sect.$v" "$work/sect/cap" 2>/dev/null || bad="$bad $v(exit)"
	if [ "$v" = perf.data ]; then
		(cd "$work" && perf script -i "sect.$v" -F ip,sym,brstacksym >"$work/sect.script" 2>/dev/null)
		grep -q '_start' "$work/sect.script" && mv "$work/sect.script" "$work/sect.$v" || bad="$bad perf-script"
	fi
	! grep -aqE 'd_end|absmark' "$work/sect.$v" || bad="$bad $v"
done
[ -z "$bad" ] && grep -q '"to":"'"$below_buf"'","flags"' "$work/sect.json" && grep -q '"to_sym":"buf+0x8"' "$work/sect.json"
ok $? "every view that names addresses (text, json, stats, perf, folded, trace, html, perf.data through perf script) names neither d_end nor absmark; json gives $below_buf no to_sym${bad:+ (not:$bad)}"

"$dec" --view=nosuch "$work/cap/capture.log" 2>"$work/bad.err"
rc=$?
[ $rc = 2 ] && grep -q "accepted:.* perf.data" "$work/bad.err"
ok $? "--view=nosuch: exit $rc, the accepted views named"
echo "1..$n"
