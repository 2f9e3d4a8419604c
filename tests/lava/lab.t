#!/usr/bin/env bash
# make lava-check: the lab variant of make lava-job's job (deploy to: flasher, boot: method:
# minimal, the monitor) run by lava-dispatcher's lava-run on a device of the x86-uefi-usb
# device type (scripts/lava/device-types/x86-uefi-usb.jinja2, rendered by jinja2 over a
# stand-in for lava-server's base template, tests/lava/base.jinja2) whose device dictionary
# drives a stand-in machine (tests/lava/machine: QEMU with OVMF, its USB stick a file, its serial
# console a FIFO): the flasher commands write the image onto the stick, the machine is powered
# on, the console read. The job completes, LAVA's results hold one passing case per self-check
# line the kernel printed, and the machine is powered off at the end.
. "$(dirname "$0")/lib.sh"
command -v lava-run >/dev/null || { echo "1..0 # SKIP lava-run missing: scripts/install-deps lava"; exit 0; }
m=$work/machine
mkdir -p "$m" && mkfifo "$m/console.in" "$m/console.out"
trap 'case $BASHPID in $$) tests/lava/machine off "$m"; rm -rf "$work" ;; esac' EXIT

scripts/mkimage --gpt "$work/lab.img" >"$work/out" 2>&1 &&
	scripts/lava-job --image "$work/lab.img" --timeout 5 --output "$work/lab.yaml" 2>>"$work/out"
ok $? "the default session's image and the lab job (x86-uefi-usb) $(tail -n 2 "$work/out" | tr '\n' ' ')"
cat >"$work/lab-01.jinja2" <<DEV
{% extends 'x86-uefi-usb.jinja2' %}
{% set connection_command = 'cat $m/console.out' %}
{% set hard_reset_command = '$top/tests/lava/machine reset $m' %}
{% set power_on_command = '$top/tests/lava/machine reset $m' %}
{% set power_off_command = '$top/tests/lava/machine off $m' %}
{% set flasher_deploy_commands = ['cp {IMAGE} $m/stick.img'] %}
DEV
/usr/bin/python3 -c '
import sys, jinja2
env = jinja2.Environment(loader=jinja2.FileSystemLoader(sys.argv[1:]), trim_blocks=True)
print(env.get_template("lab-01.jinja2").render())' "$work" tests/lava scripts/lava/device-types >"$work/lab-device.yaml"
grep -qx "  spawn_maxread: '2000'" "$work/lab-device.yaml"
ok $? "the device dictionary renders on the x86-uefi-usb device type, reads of 2000 bytes at most (within the search window)"
lava_run lab
# The run writes its records onto the stick's trace partition (docs/usb-stick.md "Records onto the
# stick"): the flasher's copy is the image everywhere else (GPT head and tail, the ESP; partition
# 2's bounds read by util-linux's partx), and the partition holds the run's stream, whole.
read -r tfirst tlast <<<"$(partx -g -o START,END -n 2 "$work/lab.img")"
cmp -s -n $((tfirst * 512)) "$work/lab.img" "$m/stick.img" &&
	cmp -s -i $(((tlast + 1) * 512)) "$work/lab.img" "$m/stick.img"
outside=$?
"$build/btdecode" --view verify "$m/stick.img" >"$work/stick.verify" 2>&1
stream=$?
[ "$rc" = 0 ] && [ "$(result lab lava job)" = pass ] && [ "$outside" = 0 ] && [ "$stream" = 0 ]
ok $? "lava-run completes the job (status $rc), the flasher commands wrote the image onto the stick (outside the trace partition: cmp $outside), the run its records onto the trace partition (btdecode --view verify: $stream $(tail -n 1 "$work/stick.verify"))"
[ "$(grep -v -e '^$' -e '^poweroff$' "$work/lab.serial" | tail -n 1)" = "run finished: PASS" ] &&
	grep -q '^default session: no config file and no options' "$work/lab.serial"
ok $? "the machine's console in LAVA's log: the default session, to 'run finished: PASS'"
out=$(cases_match lab)
ok $? "one LAVA case per self-check line, named by it, with its verdict${out:+: $(echo "$out" | head -n 5 | tr '\n' ' ')}"
[ "$(result lab baretrace run_finished)" = pass ] && [ "$(grep -c '^baretrace summary_.* pass$' "$work/lab.results")" = \
	"$(grep -cE '^summary: [a-z]+ +[0-9]' "$work/lab.serial")" ]
ok $? "a passing case per summary row, and run_finished"
[ ! -f "$m/qemu.pid" ]
ok $? "the job powered the machine off at its end"
echo "1..$n"
exit $failed
