#!/usr/bin/env bash
# make usb's image (scripts/mkimage --gpt): a GPT disk whose one partition is an EFI System
# Partition holding FAT32, booted by a plain QEMU command line (OVMF, the image as a raw disk,
# no runner) into the default session. The table is read back by util-linux (partx, blkid)
# and its CRCs recomputed with zlib (Perl's Compress::Zlib), not by our own writer's code.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
img=$work/usb.img

"$top/scripts/mkimage" --gpt "$img" >"$work/out" 2>&1
ok $? "scripts/mkimage --gpt writes an image: $(tail -n 1 "$work/out")"
sectors=$(($(stat -c %s "$img") / 512))
parts=$(partx -g -o NR,START,END,TYPE "$img")
[ "$(printf '%s\n' "$parts" | grep -c .)" = 2 ]
ok $? "partx finds two partitions"
read -r nr start end type <<<"$(printf '%s\n' "$parts" | sed -n 1p)"
read -r _ tstart tend ttype <<<"$(printf '%s\n' "$parts" | sed -n 2p)"
[ "$type" = c12a7328-f81f-11d2-ba4b-00a0c93ec93b ]
ok $? "the first of the EFI System Partition type, C12A7328-F81F-11D2-BA4B-00A0C93EC93B (UEFI 2.10 5.3.3) ($type)"
[ "$ttype" = c3a5bfb3-93b4-4a05-8c3a-70db0078f423 ]
ok $? "the second of the trace partition's type, C3A5BFB3-93B4-4A05-8C3A-70DB0078F423 (lib/trace_part.h) ($ttype)"
[ "$sectors" = $(((64 + 448) * 2048)) ] && [ "$start" = 2048 ] && [ "$end" = $((tstart - 1)) ] &&
	[ $((tstart % 2048)) = 0 ] && [ "$tend" = $((sectors - 34)) ] &&
	[ $((tend - tstart + 1)) -ge $((448 * 2048 - 2048)) ]
ok $? "a 512 MiB disk: the ESP from LBA 2048, the trace partition of 448 MiB (less the GPT's tail) from the next 1 MiB boundary to the last usable LBA, the disk's last minus 33 ($start-$end, $tstart-$tend of $sectors)"
"$top/scripts/mkimage" --gpt --trace-mib 0 "$work/none.img" >"$work/out" 2>&1 &&
	[ "$(partx -g -o NR "$work/none.img" | grep -c .)" = 1 ] &&
	[ "$(stat -c %s "$work/none.img")" = $((64 << 20)) ]
ok $? "--trace-mib 0: a 64 MiB disk with the ESP alone"
"$top/scripts/mkimage" --gpt --trace-mib 12x "$work/none2.img" >"$work/out" 2>&1
[ $? = 2 ] && [ ! -e "$work/none2.img" ] && grep -q "accepted: a whole number of MiB" "$work/out"
ok $? "--trace-mib 12x: status 2, what is accepted, no image"
[ "$(blkid -p -o value -s TYPE --offset $((start * 512)) "$img")" = vfat ] &&
	[ "$(blkid -p -o value -s LABEL --offset $((start * 512)) "$img")" = BARETRACE ]
ok $? "the partition holds a FAT file system labelled BARETRACE (blkid)"
# The headers' and the entry arrays' CRC-32 (UEFI 2.10 Table 5-5), primary and backup, by zlib.
perl -MCompress::Zlib -e '
	open(my $f, "<:raw", $ARGV[0]) or die; my $n = $ARGV[1]; my $bad = 0;
	for my $lba (1, $n - 1) {
		seek($f, $lba * 512, 0); read($f, my $h, 92);
		my ($sig, $size, $crc, $my, $alt, $ents, $count, $esize, $ecrc) =
			unpack("a8 x4 V V x4 Q< Q< x16 x16 Q< V V V", $h);
		(my $z = $h) =~ s/^(.{16}).{4}/$1\0\0\0\0/s;
		$bad++ unless $sig eq "EFI PART" && $size == 92 && crc32($z) == $crc && $my == $lba;
		seek($f, $ents * 512, 0); read($f, my $e, $count * $esize);
		$bad++ unless crc32($e) == $ecrc;
	}
	exit($bad ? 1 : 0);' "$img" "$sectors"
ok $? "primary and backup GPT headers and entry arrays carry the CRC-32 zlib computes"
mtype -i "$img@@$((start * 512))" ::/baretrace.cfg >"$work/cfg"
! grep -qv '^#' "$work/cfg" && grep -q 'default session' "$work/cfg"
ok $? "its baretrace.cfg is a commented example (every line a comment)"

# plain_boot IMAGE VCPUS: boot it with nothing but QEMU and OVMF (no runner); QEMU's exit code
# in $rc, the serial log in $out. The exit device turns the kernel's status s into QEMU's exit
# code 2s + 1: 1 is PASS.
plain_boot() {
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$work/vars.fd"
	timeout 300 qemu-system-x86_64 -machine q35 -cpu max -smp "$2" -m 512M -nodefaults \
		-display none -no-reboot -serial stdio \
		-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
		-drive if=pflash,format=raw,unit=1,file="$work/vars.fd" -drive format=raw,file="$1" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 >"$work/serial" 2>&1
	rc=$?
	out=$(tr -d '\r' <"$work/serial")
}

# The default session, on two vCPUs.
plain_boot "$img" 2
[ "$rc" = 1 ]
ok $? "plain QEMU booting the image exits with 1: the kernel's status 0 (exit code $rc)"
has "default session: no config file and no options" "the commented config runs the default session"
has "run finished: PASS" "and it passes"
printf '%s\n' "$out" | grep -Eq '^summary: bts +[0-9]+ +[0-9]+ +0 +0 '
ok $? "its summary table has bts, none failed"

"$top/scripts/mkimage" --gpt "$work/bad.img" trace=nosuch >"$work/out" 2>&1
[ $? = 2 ] && [ ! -e "$work/bad.img" ] && grep -q "option 'trace'" "$work/out"
ok $? "a bad option: status 2, the option named, no image written"

# A user program on the stick (make usb PROGRAM=ELF): copied to \progs\, traced by every facility.
"$top/scripts/mkimage" --gpt --program "$build/examples/branches.elf" "$work/prog.img" >"$work/out" 2>&1 &&
	mdir -b -i "$work/prog.img@@$((2048 * 512))" ::/progs | grep -q 'branches.elf$'
ok $? "scripts/mkimage --gpt --program puts the program in \\progs\\"
plain_boot "$work/prog.img" 1
n=$(printf '%s\n' "$out" | grep -c '^trace-begin [a-z]* program@skylake cpu=0 ')
[ "$rc" = 1 ] && [ "$n" = 6 ]
ok $? "booted, the stick's program is traced by all six facilities and the run passes ($n sessions, exit code $rc)"

# Secure Boot: a throw-away key and self-signed certificate (openssl), the loader signed by
# make usb SIGN_KEY/SIGN_CERT (sbsign) and checked by sbverify, which we do not write.
openssl req -new -x509 -newkey rsa:2048 -nodes -subj "/CN=baretrace test/" -days 1 \
	-keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1 &&
	openssl req -new -x509 -newkey rsa:2048 -nodes -subj "/CN=someone else/" -days 1 \
		-keyout "$work/key2.pem" -out "$work/cert2.pem" >/dev/null 2>&1
ok $? "openssl makes two throw-away keys and certificates"
make -n -C "$top" BUILD="$build" usb SIGN_KEY="$work/key.pem" SIGN_CERT="$work/cert.pem" 2>/dev/null |
	grep -qF "scripts/mkimage --gpt --sign '$work/key.pem' '$work/cert.pem' $build/baretrace.img"
ok $? "make usb SIGN_KEY SIGN_CERT runs scripts/mkimage --gpt --sign KEY CERT (make -n)"
"$top/scripts/mkimage" --gpt --sign "$work/key.pem" "$work/cert.pem" "$work/signed.img" >"$work/out" 2>&1 &&
	mcopy -o -i "$work/signed.img@@$((2048 * 512))" ::/EFI/BOOT/BOOTX64.EFI "$work/signed.efi"
ok $? "scripts/mkimage --gpt --sign writes an image: $(tail -n 1 "$work/out")"
sbverify --cert "$work/cert.pem" "$work/signed.efi" >/dev/null 2>&1
ok $? "sbverify accepts the image's loader with the test certificate"
! sbverify --cert "$work/cert2.pem" "$work/signed.efi" >/dev/null 2>&1 &&
	! sbverify --cert "$work/cert.pem" "$build/BOOTX64.EFI" >/dev/null 2>&1
ok $? "sbverify refuses it with another certificate, and refuses the unsigned loader"
boot --efi "$work/signed.efi" -- trace=lbr workload=loop
status_is 0 "the signed loader boots (OVMF without Secure Boot enforcement)"
"$top/scripts/mkimage" --gpt --sign "$work/key2.pem" "$work/cert.pem" "$work/mismatch.img" >"$work/out" 2>&1
[ $? = 2 ] && [ ! -e "$work/mismatch.img" ] && grep -q "signing failed" "$work/out"
ok $? "a key that does not match the certificate: status 2, no image written"
done_testing
