#!/usr/bin/env bash
# Options and the config file: the default run passes; each kind of bad input is named with
# what is accepted, and ends with the bad-config status (2), never a hang.
. "$(dirname "$0")/lib.sh"
cfg=$(mktemp)
trap 'case $BASHPID in $$) rm -f "$cfg" ;; esac' EXIT

boot
status_is 0 "the default run (no options) exits 0"
has "kernel ready" "the default run reaches 'kernel ready'"

boot -- exit=boom
status_is 2 "a bad enum value is rejected"
has "option 'exit': invalid value 'boom'; accepted: auto, qemu, halt, reset" "the message names the value and the accepted ones"
has "accepted options" "the accepted options are listed"

boot -- colour=blue
status_is 2 "an unknown option is rejected"
has "unknown option 'colour'" "the unknown option is named"

boot -- serial.baud=7000
status_is 2 "a baud rate that does not divide 115200 is rejected"
has "option 'serial.baud': 7000" "the bad baud rate is named"

boot -- selftest=paging,nosuchtest
status_is 2 "an unknown self-test name is rejected"
has "option 'selftest': unknown 'nosuchtest'" "the unknown test is named"
has "paging" "the accepted test names are listed"

boot -- spmu=pentium
status_is 2 "an unknown software PMU personality is rejected"
has "option 'spmu': unknown 'pentium'; accepted: none, or names separated by commas from: skylake nehalem core2 icelake arrowlake" "the personalities are listed"

printf 'exit = qemu\nthis line has no equals sign\n' >"$cfg"
boot --config "$cfg"
status_is 2 "a malformed config line is rejected"
has "baretrace.cfg:2:" "the message gives file and line"

# A line holds 2047 bytes (lib/config.h: any 511-byte value, each byte escaped), through the
# loader's reading of the file and the kernel's: one of 2047 is read, one more byte is refused.
{ printf '#'; head -c 2046 /dev/zero | tr '\0' 'x'; printf '\ntrace = lbr\nworkload = loop\nexit = qemu\n'; } >"$cfg"
boot --config "$cfg"
status_is 0 "a 2047-byte line is read"
{ printf '#'; head -c 2047 /dev/zero | tr '\0' 'x'; printf '\ntrace = lbr\nexit = qemu\n'; } >"$cfg"
boot --config "$cfg"
status_is 2 "a 2048-byte line is refused"
has "baretrace.cfg:1: line '#xxx" "... naming the line"
has "is too long (2048 bytes); accepted: at most 2047 bytes per line" "... and what is accepted"

head -c 9000 /dev/zero | tr '\0' '#' >"$cfg"
boot --config "$cfg"
status_is 2 "an oversized config file is rejected"
has "baretrace.cfg: file too large; accepted: at most 8191 bytes" "the size limit is named"

boot -- serial.port=0x2e8
status_is 0 "a console port with no UART behind it does not hang the run"
has "warning: no UART answers at port 0x2e8 (serial.port); looking further" "the missing UART is named"
has "console: COM1 io 0x3f8 " "the console is found further: QEMU's COM1"

boot -- pmi=nmi selftest=pmi
status_is 77 "a run whose only test point is skipped ends with the skip status"
has "# SKIP" "the skip is reported in TAP"

boot --timeout 8 -- exit=halt
status_is 124 "exit=halt under the runner ends in its time-out, reported as such"

"$top/scripts/run" --smp many >/dev/null 2>"$cfg"
r=$?
[ $r = 2 ] && grep -q "accepted" "$cfg"
ok $? "the runner rejects a bad --smp with what it accepts (status $r)"
done_testing
