#!/usr/bin/env bash
# User programs from the boot volume (option `program`, scripts/run --program): the loader
# reads the file, the kernel checks it before mapping anything (lib/elf_user.c; every rule is
# host-tested in test_elf_user) and refuses a bad one naming the problem, with the bad-input
# status 2. Programs here are built by the test with the host's gcc (static, linked at the
# user window 0x7e0000000000) or cut from one.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
window=0x7e0000000000

printf '\t.globl _start\n_start:\n\tjmp _start\n\t.data\nv:\t.quad 1\n\t.bss\nb:\t.zero 8192\n' >"$work/p.S"
${CC:-cc} -nostdlib -static -no-pie -Wl,-Ttext-segment=$window -o "$work/good.elf" "$work/p.S"
ok $? "a static test program links at the user window"
entry=$(readelf -h "$work/good.elf" | awk '/Entry point/ { print $4 }')
nload=$(readelf -lW "$work/good.elf" | grep -c '^ *LOAD')

boot --timeout 60 --program "$work/good.elf"
status_is 77 "a valid program is checked; running programs is not there yet: the run is a skip"
has "program '\\progs\\good.elf': $(stat -c %s "$work/good.elf") bytes, static x86-64 ELF, $nload segments" \
	"the kernel reports the program's size and its $nload PT_LOAD segments (readelf)"
has "entry $entry" "and its entry point, as readelf says ($entry)"

# bad PROGRAM-FILE WORDS DESCRIPTION: refused with status 2 and a message with WORDS.
bad() {
	boot --timeout 60 --program "$1"
	status_is 2 "$3: status 2 (bad input)"
	printf '%s\n' "$out" | grep -q "^error: program '\\\\progs\\\\$(basename "$1")': .*$2"
	ok $? "$3: the refusal names the problem ('$2')"
}
head -c 40 "$work/good.elf" >"$work/truncated.elf"
bad "$work/truncated.elf" "truncated" "a truncated ELF"
printf 'not a program\n' >"$work/text.elf"
bad "$work/text.elf" "not an ELF file" "a text file"
cp "$work/good.elf" "$work/class32.elf"
printf '\001' | dd of="$work/class32.elf" bs=1 seek=4 conv=notrunc status=none # EI_CLASS = ELFCLASS32
bad "$work/class32.elf" "not a 64-bit ELF" "a 32-bit ELF"
cp "$work/good.elf" "$work/arm.elf"
printf '\267\000' | dd of="$work/arm.elf" bs=1 seek=18 conv=notrunc status=none # e_machine = EM_AARCH64
bad "$work/arm.elf" "not an x86-64" "an AArch64 ELF"
cp "$build/kernel.elf" "$work/kernel.elf"
bad "$work/kernel.elf" "past the user window" "the kernel itself (linked at 0xffffffff80000000)"
${CC:-cc} -nostdlib -static -no-pie -o "$work/low.elf" "$work/p.S"
bad "$work/low.elf" "below the user window" "a program linked at the default 0x400000"

boot --timeout 60 -- 'program=\nothere.elf'
status_is 2 "a program option naming a missing file: status 2"
has "error: program '\\nothere.elf': no such file on the boot volume" "the refusal says the file is not there"
done_testing
