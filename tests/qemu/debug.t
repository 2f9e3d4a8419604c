#!/usr/bin/env bash
# make debug (scripts/debug): QEMU paused with its gdbstub, gdb with build/kernel.elf loaded at
# the address it runs at. gdb is driven in batch mode to a breakpoint in the kernel and one in a
# user program; the expected places come from the ELF files (nm, readelf), not from the kernel.
. "$(dirname "$0")/lib.sh"

# debug GDB-COMMAND... [-- SCRIPT ARGS]: run scripts/debug with gdb -batch and these commands.
port=$((20000 + $$ % 20000))
debug() {
	local args=(--port "$port" --gdb-arg -batch) c
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args+=(--gdb-arg -ex --gdb-arg "$1")
		shift
	done
	[ $# -eq 0 ] || shift
	out=$(timeout 120 "$top/scripts/debug" "${args[@]}" "$@" 2>&1)
	rc=$?
}

debug 'break kernel_main' continue 'info symbol $pc' bt -- -- trace=lbr workload=calls
entry=$(readelf -h "$build/kernel.elf" | awk '/Entry point address/ { print $4 }')
caller=$(printf '%s\n' "$out" | sed -n 's/^#1  0x[0-9a-f]* in \([A-Za-z_0-9]*\) () at .*/\1/p')
at_entry=$(nm "$build/kernel.elf" | awk -v e="${entry#0x}" -v n="$caller" '$1 ~ e "$" && $3 == n { print $3 }')
[ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q '^Breakpoint 1, kernel_main (' &&
	printf '%s\n' "$out" | grep -q '^kernel_main in section \.text'
ok $? "the kernel: gdb stops at kernel_main, in .text, on the first try (rc $rc)"
[ -n "$caller" ] && [ "$at_entry" = "$caller" ]
ok $? "the backtrace goes from kernel_main to ${caller:-nothing}, which nm puts at the ELF's entry point ($entry)"
has "kernel_main (bi_phys=" "the arguments are read from the debug information (kernel/main.c: kernel_main(const struct boot_info *bi_phys))"

prog=$build/examples/branches.elf
debug 'break main' continue 'info symbol $pc' 'print $cs & 3' -- --program "$prog" -- workload=program trace=lbr
main=$(nm "$prog" | awk '$3 == "main" { print $1 }')
[ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q '^Breakpoint 1, main (arg=0) at examples/branches.c:' &&
	printf '%s\n' "$out" | grep -q "^main in section \.text of .*branches.elf" &&
	printf '%s\n' "$out" | grep -q "^Breakpoint 1 at 0x[0-9a-f]*: file examples/branches.c" &&
	printf '%s\n' "$out" | grep -q '^\$1 = 3$'
ok $? "a user program: gdb stops in its main (nm: 0x$main) in ring 3, with its source lines (rc $rc)"

out=$("$top/scripts/debug" --port 80 2>&1)
rc=$?
[ "$rc" = 2 ] && printf '%s\n' "$out" | grep -q "accepted: 1024-65535"
ok $? "a bad port: status 2, saying what is accepted"
done_testing
