#!/usr/bin/env bash
# Consoles (docs/hardware.md "Consoles"): the serial console found on a PCI 16550 (QEMU's
# pci-serial, no COM1) carries the same record stream as COM1; with no UART at all the run ends
# cleanly and the screen says so and what was tried; the screen shows the log and never the records;
# a rate the UART cannot make, and a named UART that is not there, are handled as documented.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
font=/usr/share/consolefonts/Unifont-APL8x16.psf.gz
dec=$build/btdecode
opts=(stream=text trace=bts,lbr workload=loop,calls,indirect)

boot --timeout 60 -- "${opts[@]}"
status_is 0 "COM1: the sessions pass"
printf '%s\n' "$out" >"$work/isa"
boot --serial pci --timeout 60 -- "${opts[@]}"
status_is 0 "PCI serial only: the sessions pass"
printf '%s\n' "$out" >"$work/pci"
# QEMU's pci-serial is vendor 1b36 device 0002 (QEMU docs/specs/pci-ids.rst), a 16550 behind
# an I/O BAR; there is no ISA serial port in this machine.
printf '%s\n' "$out" | grep -Eq '^console: PCI [0-9a-f]{2}:[0-9a-f]{2}\.[0-7] 1b36:0002 io 0x[0-9a-f]+ stride 1 width 8 clock 1843200 Hz 115200 baud 8N1$'
ok $? "the console is found on the PCI function 1b36:0002, by its I/O BAR"
has "console: PCI: " "the PCI scan is reported"
has "baretrace 0.1.0" "the lines printed before the console was found reach it (the banner)"
for v in isa pci; do
	"$dec" "$work/$v" >"$work/$v.dec" 2>"$work/$v.err"
	echo $? >"$work/$v.rc"
done
[ "$(cat "$work/isa.rc")" = 0 ] && [ "$(cat "$work/pci.rc")" = 0 ] && [ ! -s "$work/pci.err" ]
ok $? "btdecode reads both captures without a problem"
n=$(grep -c ' digest=ok' "$work/pci.dec")
[ "$n" -ge 6 ] && [ "$n" = "$(grep -c ' digest=ok' "$work/isa.dec")" ]
ok $? "every session's digest matches on both ($n sessions each)"
grep -E '^(stream-begin|bts|lbr) ' "$work/isa.dec" | sed 's/ seq=[0-9]*//' >"$work/isa.rec"
grep -E '^(stream-begin|bts|lbr) ' "$work/pci.dec" | sed 's/ seq=[0-9]*//' >"$work/pci.rec"
[ "$(grep -c '^bts ' "$work/pci.rec")" -gt 100 ] && cmp -s "$work/isa.rec" "$work/pci.rec"
ok $? "the PCI UART delivers the same records as COM1 ($(grep -c '^bts ' "$work/pci.rec") BTS records, $(grep -c '^lbr ' "$work/pci.rec") LBR entries)"
grep -Eq '^stream-header cpu=0 .* console=PCI [0-9a-f]{2}:[0-9a-f]{2}\.[0-7] 1b36:0002 io 0x[0-9a-f]+ stride 1 width 8 clock 1843200 Hz 115200 baud 8N1$' "$work/pci.dec" &&
	grep -q '^stream-header cpu=0 .* console=COM1 io 0x3f8 stride 1 width 8 clock 1843200 Hz 115200 baud 8N1$' "$work/isa.dec"
ok $? "the stream's header carries the link it travelled (UART, registers, clock, rate, framing)"

# The firmware names the console: an SPCR (tests/unit/acpi/spcr_com2.dsl: COM2, Baud Rate 06 =
# 57600) added to QEMU's ACPI tables; COM1 goes nowhere, COM2 is this log.
boot --serial com2 --qemu-arg -acpitable --qemu-arg "file=$build/gen/acpi/spcr_com2.aml" -- selftest=paging
status_is 0 "SPCR naming COM2: the run passes with its log on COM2"
has "console: SPCR names a UART at port 0x2f8 (stride 1, 8-bit, its baud rate given)" "the SPCR is read"
has "console: SPCR io 0x2f8 stride 1 width 8 clock 1843200 Hz 57600 baud 8N1" "the console is COM2 at the table's 57600 baud"
has "baretrace 0.1.0" "the lines printed before (on COM1) reach COM2"

# No UART at all: the run still ends with its status (QEMU's exit code), and the screen says so.
boot --serial none --screenshot "$work/none.ppm" --timeout 60 -- selftest=paging screen.hold=2
status_is 0 "no serial device: the run ends cleanly with its status"
[ -s "$work/none.ppm" ] && tests/qemu/screen_has "$work/none.ppm" "$font" \
	"console: no serial console: SPCR: none; DBG2: none; PCI: no 16550 or LPSS UART; COM1-COM4: none answers." \
	"run finished: PASS" >"$work/why" 2>&1
ok $? "the screen says no UART was found, what was tried, and how the run ended $(cat "$work/why")"

# The screen with a UART: the log, the banner, the end; records only on the serial line.
boot --screenshot "$work/screen.ppm" --timeout 60 -- trace=bts workload=loop screen.hold=2
status_is 0 "with a screen: the session passes"
has "console: screen 1280x800, 160 x 50 characters" "the screen is reported (OVMF's GOP mode on -vga std)"
rec=$(printf '%s\n' "$out" | grep -m1 '^bts 0x')
tests/qemu/screen_has "$work/screen.ppm" "$font" "summary: bts             1      1      0" \
	"run finished: PASS" >"$work/why" 2>&1
ok $? "the screen shows the summary and the end of the run $(cat "$work/why")"
[ -n "$rec" ] && ! tests/qemu/screen_has "$work/screen.ppm" "$font" "$rec" >/dev/null
ok $? "a record the serial line carries ('$rec') is not on the screen"
rows=$(tests/qemu/screen_has --rows "$work/screen.ppm" x)
[ "$rows" -ge 20 ]
ok $? "the screen is not blank ($rows text rows drawn)"

# A rate the UART's clock cannot make is bad input, said on that UART at its own rate.
boot -- serial.baud=230400
status_is 2 "230400 baud on COM1 (1.8432 MHz clock) is refused"
has "error: option 'serial.baud': on COM1: 230400 baud cannot be made from its 1843200 Hz clock" "the message names the UART, its clock and the rate"
# A named UART that is not there: the search goes on; port I/O and MMIO alike.
boot -- serial.mmio=0xe0000000 selftest=paging
status_is 0 "a memory-mapped UART address with nothing behind it does not hang the run"
has "warning: no UART answers at MMIO 0xe0000000 (serial.mmio); looking further" "the missing UART is named"
has "console: COM1 io 0x3f8" "the console is found further"
boot -- serial=pci selftest=paging
status_is 0 "serial=pci on a machine without one: the run still ends"
has "warning: serial=pci: no UART found (PCI: no 16550 or LPSS UART); the console stays on COM1" "the missing kind is named, the console stays where the log goes"
echo "1..$tap_n"
[ "$tap_failed" = 0 ]
