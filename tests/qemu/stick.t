#!/usr/bin/env bash
# The record stream onto the USB stick, in one boot: make usb's image (a small trace
# partition) attached as a USB stick (scripts/run --stick: qemu-xhci + usb-storage, OVMF boots
# from it), two CPUs tracing at once. The kernel finds the stick on the xHCI controller and its
# trace partition by the GPT type GUID; after the run tools/btdecode reads the image and must
# give the records the serial line carried (the same text, the same per-session digests, which
# the decoder checks against the records: lib/stream.h), say COMPLETE from the commit block,
# and nothing outside the partition may have changed: the GPT's primary and backup copies (read
# by util-linux's partx) and a pattern written here into the sectors just before the partition
# (the ESP's unused end) are compared byte for byte.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
dec=$build/btdecode
img=$work/stick.img

"$top/scripts/mkimage" --gpt --trace-mib 8 "$img" >"$work/out" 2>&1
ok $? "scripts/mkimage --gpt --trace-mib 8: $(tail -n 1 "$work/out")"
read -r _ tfirst tlast _ <<<"$(partx -g -o NR,START,END -n 2 "$img")"
sectors=$(($(stat -c %s "$img") / 512))
# a pattern in the 64 sectors before the partition
perl -e 'print pack("N", 0xb7c0ffee ^ $_) x 128 for 0 .. 63' |
	dd of="$img" bs=512 seek=$((tfirst - 64)) conv=notrunc status=none
outside() { # the bytes the kernel must never write: GPT head, the pattern, GPT tail
	{
		dd if="$img" bs=512 count=34 status=none
		dd if="$img" bs=512 skip=$((tfirst - 64)) count=64 status=none
		dd if="$img" bs=512 skip=$((tlast + 1)) status=none
	} | sha256sum
}
before=$(outside)

boot --stick "$img" --smp 2 --timeout 240 --firmware-output -- stream=text trace=bts,lbr \
	workload=calls,switch trace.cpus=all
status_is 0 "a capture on two CPUs with the image as a USB stick passes"
printf '%s\n' "$out" | tr -d '\r' >"$work/serial"
has "stick: USB mass storage" "the kernel finds the stick on the xHCI controller: $(grep -m1 '^stick: USB' "$work/serial")"
# the loader's record of the boot device (its device path's PCI and USB nodes) against the
# firmware's own words for it (OVMF's BdsDxe: "from PciRoot(0x0)/Pci(0xD,0xF)/USB(0xP,0x0)")
bds=$(grep -m1 -o 'from PciRoot(0x0)/Pci(0x[0-9A-F]*,0x[0-9A-F]*)/USB(0x[0-9A-F]*,' "$work/serial" |
	sed 's/.*Pci(0x\([0-9A-F]*\),0x\([0-9A-F]*\))\/USB(0x\([0-9A-F]*\),/\1 \2 \3/')
loader=$(sed -n 's/^baretrace loader: booted from USB: PCI device \([0-9a-f]*\)\.\([0-9a-f]*\), port \([0-9]*\).*/\1 \2 \3/p' "$work/serial")
read -r bd bf bp <<<"${bds:-x x x}"
read -r ld lf lp <<<"${loader:-y y y}"
[ -n "$bds" ] && [ -n "$loader" ] && [ $((16#$bd)) = $((16#$ld)) ] && [ $((16#$bf)) = $((16#$lf)) ] &&
	[ $((16#$bp + 1)) = "$lp" ] && grep -q "port $lp (the loader booted from it)" "$work/serial"
ok $? "the loader's boot device (PCI $ld.$lf, port $lp) is the firmware's (BdsDxe: Pci($bd,$bf)/USB($bp)), and the kernel tries it first"
grep -q "trace partition LBAs $tfirst-$tlast " "$work/serial"
ok $? "at the trace partition's LBAs, as partx reads them ($tfirst-$tlast)"
grep -q '^stick: complete: [0-9]* bytes in [0-9]* frames on the trace partition, 0 bytes lost' "$work/serial"
ok $? "it says the stick's copy is complete: $(grep -m1 '^stick: complete' "$work/serial")"

"$dec" --view text "$work/serial" >"$work/serial.text" 2>"$work/serial.err"
src=$?
"$dec" --view text "$img" >"$work/stick.text" 2>"$work/stick.err"
drc=$?
[ "$src" = 0 ] && [ "$drc" = 0 ]
ok $? "btdecode reads both whole: the serial log ($src) and the image ($drc) $(head -c 300 "$work/stick.err")"
grep -q "capture COMPLETE: [0-9]* bytes, [0-9]* frames, data CRC-32 [0-9a-f]* as committed" "$work/stick.err"
ok $? "btdecode says the stick's capture is complete: $(grep COMPLETE "$work/stick.err" | sed 's/^[^:]*: [^:]*: //')"
# The CPUs' frames interleave differently on the two wires (the serial line takes them from each
# CPU's ring, the stick as they are made): the same lines, each CPU's in the same order.
for c in 0 1; do
	grep "cpu=$c\b" "$work/serial.text" >"$work/s$c"
	grep "cpu=$c\b" "$work/stick.text" >"$work/k$c"
done
sort "$work/serial.text" >"$work/s.sorted"
sort "$work/stick.text" >"$work/k.sorted"
records=$(grep -c '^\(bts\|lbr\) ' "$work/stick.text")
cmp -s "$work/s.sorted" "$work/k.sorted" && cmp -s "$work/s0" "$work/k0" && cmp -s "$work/s1" "$work/k1" &&
	[ "$records" -gt 0 ]
ok $? "the stick's records are the serial line's: $records records, the same lines"
digests=$(grep -c '^stream-end .* digest=ok' "$work/stick.text")
[ "$digests" = 8 ] && diff <(grep '^stream-end' "$work/serial.text" | sort) <(grep '^stream-end' "$work/stick.text" | sort) >/dev/null
ok $? "every session's digest checks on the stick and equals the serial line's ($digests of 8: 2 facilities x 2 workloads x 2 CPUs)"
[ "$(outside)" = "$before" ]
ok $? "nothing outside the trace partition changed: GPT head and tail, the pattern before it"
[ "$(partx -g -o START,END -n 2 "$img" | tr -s ' ' | sed 's/^ //')" = "$tfirst $tlast" ]
ok $? "partx still reads the same trace partition"
done_testing
