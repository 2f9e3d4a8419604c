#!/usr/bin/env bash
# The acceptance sentence, "BTS and LBR records of the traced run equal QEMU's log of the
# program's pages", for unmodified static Linux programs (make long-check: minutes under
# QEMU's one-instruction-per-block mode): a musl-gcc -static program (tests/programs/linux/
# hello.c), the same as a glibc static PIE and a Debian busybox-static applet, each booted once with QEMU's execution log
# filtered to the workload range and the program's executable segments (readelf), run
# natively, then under BTS (interrupt mode, drained by its PMIs) and LBR (lbr.filter=user) on
# the software PMU. scripts/qemu-exec-branches turns the log into taken branches with
# objdump's lengths of the program (QEB_ELFS). Compared: the program's own branches, FROM and
# TO in the lower half (ring 3); a branch into or out of the kernel (SYSCALL, SYSRET) and the
# kernel's path are not the program's pages.
# - BTS: every ring 3 record, in order, is QEMU's, and all of QEMU's are there;
# - LBR: with branches ending in ring 0 filtered out ("CPL_EQ_0 ... do not capture branches
#   ending in ring 0", SDM Vol. 3B 17.9.2 / Table 17-15), the stack's ring 3 entries (the
#   SYSRETs, from the kernel, left out) are QEMU's newest ring 3 branches, newest first.
. "$(dirname "$0")/../qemu/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
src=$top/tests/programs/linux
mkdir -p "$work/data"
printf 'pear\napple\nfig\nbanana\napple\n' >"$work/data/words.txt"

# exec_ranges ELF [BIAS]: its executable PT_LOAD segments as QEMU's -dfilter ranges (ADDR+SIZE),
# moved by BIAS (a static PIE where the kernel placed it).
exec_ranges() {
	readelf -lW "$1" | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { print $3, $6 }' |
		while read -r a n; do printf '%s%#x+%s' "${sep:-}" $((a + ${2:-0})) "$n"; sep=,; done
}
user() { awk 'length($1) <= 14 && length($2) <= 14'; } # both addresses below 2^48 ("0x" + 12)

# oracle NAME ELF ARGV-OPTION [BIAS]: one boot, then the checks.
oracle() {
	local name=$1 elf=$2 argv=$3 bias=${4:-}
	boot --timeout 1800 --program "$elf" --file "$work/data/words.txt" --qemu-singlestep \
		--qemu-arg -d --qemu-arg exec,nochain --qemu-arg -dfilter \
		--qemu-arg "$("$top/scripts/qemu-exec-filter" "$build/kernel.elf" "$(exec_ranges "$elf" "$bias")")" \
		--qemu-arg -D --qemu-arg "$work/$name.exec" \
		-- workload=program trace=btsint,lbr lbr.filter=user \
		spmu=skylake "program.argv=$argv"
	status_is 0 "$name: the boot passes (natively, then under BTS and LBR)"
	QEB_ELFS="$elf${bias:+@$bias}" "$top/scripts/qemu-exec-branches" "$build/kernel.elf" "$work/$name.exec" \
		>"$work/$name.qemu" 2>"$work/$name.err"
	ok $? "$name: the oracle read QEMU's log $(head -c 200 "$work/$name.err")"
	[ "$(grep -c '^run ' "$work/$name.qemu")" = 2 ]
	ok $? "$name: QEMU's log holds the two traced runs"
	local k q n
	k=$(kind_records btsint program@skylake bts 2 3 | user)
	q=$(nth "$work/$name.qemu" 1 | grep -v '^run ' | user)
	n=$(printf '%s\n' "$q" | grep -c .)
	[ "$n" -gt 100 ]
	ok $? "$name: QEMU's log has the program's branches ($n)"
	same "$k" "$q" "$name: bts: the $n ring 3 records are QEMU's, in order"
	k=$(kind_records lbr program@skylake lbr 3 4 | user)
	n=$(printf '%s\n' "$k" | grep -c .)
	q=$(nth "$work/$name.qemu" 2 | grep -v '^run ' | user | tail -n "$n" | tac)
	[ "$n" -ge 1 ]
	ok $? "$name: lbr: $n of the 32 entries are ring 3 branches (the rest SYSRETs)"
	same "$k" "$q" "$name: lbr: they are QEMU's newest ring 3 branches, newest first"
}

if command -v musl-gcc >/dev/null; then
	musl-gcc -O2 -static -o "$work/hello-musl" "$src/hello.c"
	oracle hello-musl "$work/hello-musl" '"hello -n 100 a\ b"'
else
	ok 0 "# SKIP musl-gcc not installed (Debian musl-tools; scripts/install-deps)"
fi
# A static PIE (glibc, gcc -static-pie), placed at Linux's base (kernel/program.h: 0x555555554000,
# ELF_ET_DYN_BASE without randomisation): objdump's addresses moved there.
gcc -O2 -static-pie -o "$work/hello-pie" "$src/hello.c"
oracle hello-pie "$work/hello-pie" '"hello -n 100 a\ b"' 0x555555554000
bb=/bin/busybox
if [ -x "$bb" ] && ! readelf -lW "$bb" | grep -q INTERP; then
	oracle busybox-sort "$bb" '"sort -r data/words.txt"'
else
	ok 0 "# SKIP no static /bin/busybox (Debian busybox-static; scripts/install-deps)"
fi
done_testing
