#!/usr/bin/env bash
# make lava-job's job (scripts/lava-job): both variants valid against LAVA's own job schema
# (lava_common.schemas.validate, strict: scripts/lava/validate), carrying the result contract's
# pattern and fixupdict unchanged, the lab variant deploying the image to a stick through the
# device's flasher commands and booting with nothing to type; bad input refused with status 2
# and the problem named; a job the schema refuses is refused (the check is not vacuous).
. "$(dirname "$0")/../repo/lib.sh"
build=${BUILD:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
img=$work/stick.img
truncate -s 1M "$img" # the generator reads only its path

scripts/lava-job --device-type qemu --image "$img" --output "$work/qemu.yaml" 2>"$work/err"
ok $? "scripts/lava-job --device-type qemu writes a job $(cat "$work/err")"
scripts/lava-job --image "$img" --tag uefi-usb --output "$work/lab.yaml" 2>"$work/err"
ok $? "scripts/lava-job (a lab's x86-uefi-usb device) writes a job $(cat "$work/err")"
out=$(scripts/lava/validate "$work/qemu.yaml" "$work/lab.yaml" 2>&1)
ok $? "both are valid against LAVA's job schema, strict: ${out//$'\n'/; }"

# The jobs' content, read back by YAML (python3-yaml), not by the generator's text.
py() { /usr/bin/python3 -c "import sys, yaml; j = yaml.safe_load(open(sys.argv[1])); $1" "${@:2}"; }
monitor='[a["test"]["monitors"][0] for a in j["actions"] if "test" in a][0]'
for v in qemu lab; do
	py "m = $monitor; sys.exit(m['pattern'] != open('scripts/lava/result-pattern.re').read())" "$work/$v.yaml"
	ok $? "$v: the monitor's pattern is scripts/lava/result-pattern.re, unchanged"
	py "m = $monitor; f = dict(l.rstrip('\n').split('\t') for l in open('scripts/lava/result-fixup') if l[0] != '#'); sys.exit(m['fixupdict'] != f)" "$work/$v.yaml"
	ok $? "$v: its fixupdict is scripts/lava/result-fixup"
	py "m = $monitor; sys.exit((m['start'], m['end']) != ('baretrace (loader: |[0-9][^ ]* [(]boot_info v)', r'run finished: [A-Z-]+\r*\n'))" "$work/$v.yaml"
	ok $? "$v: it watches from the loader's first line or the kernel's banner to the whole 'run finished:' line"
done
py "d = j['actions'][0]['deploy']; b = j['actions'][1]['boot']; sys.exit(not (j['device_type'] == 'x86-uefi-usb' and d['to'] == 'flasher' and d['images']['image']['url'] == 'file://$img' and b['method'] == 'minimal' and j['tags'] == ['uefi-usb']))" "$work/lab.yaml"
ok $? "lab: device type x86-uefi-usb (tagged), the image deployed to: flasher from its file:// URL, boot method minimal"
py "d = j['actions'][0]['deploy']; c = j['context']; sys.exit(not (d['to'] == 'tmpfs' and sorted(d['images']) == ['firmware', 'stick', 'vars'] and 'usb-storage' in d['images']['stick']['image_arg'] and d['images']['firmware']['url'] == 'file:///usr/share/OVMF/OVMF_CODE_4M.fd' and c['no_kvm'] is True and c['arch'] == 'amd64'))" "$work/qemu.yaml"
ok $? "qemu: the image on a USB stick, Debian's OVMF code and a copy of its variables, amd64 without KVM"

# The console as the dispatcher reads it: pexpect (LAVA's window: reads of 2000 bytes, the last
# 4000 characters searched), the monitor's order (EOF, timeout, end, pattern: the earliest match,
# the end on a tie; lava_dispatcher/actions/test/monitor.py), the output in pieces cut where a race
# could lose a case: inside a result line and inside the last line, after "run finished: ".
cat >"$work/console" <<'SH'
printf 'firmware\r\nbaretrace loader: x\r\nok 1 - selfcheck lbr loop@skylake cpu=0: 32 newest'; sleep 0.3
printf ' entries\r\nsummary: lbr             1      1      0       0          0        1/1  x\r\n'
printf 'selfcheck: 1 checks\r\nrun finished: '; sleep 0.3; printf 'SK'; sleep 0.3; printf 'IP\r\n'; sleep 0.3
SH
/usr/bin/python3 - "$work/qemu.yaml" "$work/console" >"$work/read" 2>&1 <<'PY'
import re, sys, pexpect, yaml
job = yaml.safe_load(open(sys.argv[1]))
m = [a["test"]["monitors"][0] for a in job["actions"] if "test" in a][0]
c = pexpect.spawn("sh", [sys.argv[2]], encoding="utf-8", searchwindowsize=4000, maxread=2000, timeout=5)
c.expect(m["start"])
while True:
    i = c.expect([pexpect.EOF, pexpect.TIMEOUT, m["end"], m["pattern"]])
    if i != 3:
        print(["eof", "timeout", "end"][i])
        break
    g = c.match.groupdict()
    print(re.sub(r"\W+", "_", g["test_case_id"].strip().lower()), m["fixupdict"].get(g["result"], "?"))
PY
[ "$(tr '\n' ' ' <"$work/read")" = "selfcheck_lbr_loop_skylake_cpu_0 pass summary_lbr pass run_finished skip end " ]
ok $? "read in pieces as the dispatcher reads, every case comes, run_finished too, then the end: $(tr '\n' ' ' <"$work/read")"

# The schema check is not vacuous: a monitor without its end, an unknown key.
py "m = $monitor; del m['end']; yaml.safe_dump(j, open(sys.argv[2], 'w'))" "$work/qemu.yaml" "$work/bad.yaml"
out=$(scripts/lava/validate "$work/bad.yaml")
[ $? = 1 ] && [[ "$out" == *"monitors/0/end"* ]]
ok $? "a monitor without 'end' is refused, the path named: $out"
py "j['actions'][0]['deploy']['nosuch'] = 1; yaml.safe_dump(j, open(sys.argv[2], 'w'))" "$work/lab.yaml" "$work/bad.yaml"
out=$(scripts/lava/validate "$work/bad.yaml")
[ $? = 1 ] && [[ "$out" == *nosuch* ]]
ok $? "an unknown key is refused: $out"

# Bad input: status 2, the problem and what is accepted named, nothing written.
refused() { # refused WANT-TEXT ARGS...: status 2, the text in the message, no job written
	local want=$1 err
	shift
	err=$(scripts/lava-job --output "$work/x.yaml" "$@" 2>&1)
	[ $? = 2 ] && [[ "$err" == *"$want"* ]] && [ ! -e "$work/x.yaml" ]
	ok $? "refused: $* (${err//$'\n'/ })"
}
refused "no such file" --image "$work/none.img"
refused "accepted: an http://, https:// or file:/// URL" --image ftp://lab/baretrace.img
refused "accepted: a LAVA device type name" --device-type 'x86 uefi'
refused "accepted: whole minutes" --timeout 0
refused "accepted: 1-99 vCPUs" --device-type qemu --smp 0 --image "$img"
refused "unknown argument" --image "$img" --nosuch
refused "needs a value" --image
err=$(scripts/lava-job --image "$img" --output "$work/nodir/x.yaml" 2>&1)
[ $? = 2 ] && [[ "$err" == *"no folder"* ]]
ok $? "refused: an --output in a missing folder ($err)"
# The Makefile's values reach the scripts as they are, quotes and blanks included (POSIX sh reads
# make -n's command line, a stand-in for the script printing its arguments), and a device type
# with a quote is refused by scripts/lava-job (status 2) before anything is made or written.
args() { # TARGET SCRIPT VARIABLE=VALUE...: SCRIPT's arguments on TARGET's command line, [each]
	local target=$1 script=$2 line
	shift 2
	line=$(make -s -n "$target" BUILD="$build" "$@" 2>/dev/null | grep "^$script " | head -n 1)
	[ -n "$line" ] && sh -c "stand_in() { printf '[%s]' \"\$@\"; }; stand_in ${line#"$script"}"
}
got=$(args lava-job scripts/lava-job DEVICE_TYPE="a'b\"c d" IMAGE_URL="http://h/x'y z")
[ "$got" = "[--device-type][a'b\"c d][--image][http://h/x'y z][--check]" ]
ok $? "make lava-job: DEVICE_TYPE and IMAGE_URL with quotes and blanks reach scripts/lava-job whole: $got"
got=$(args usb scripts/mkimage PROGRAM="it's a.elf" TRACE_MIB="8'" SIGN_KEY="k'1" SIGN_CERT='c"2')
[ "$got" = "[--gpt][--trace-mib][8'][--sign][k'1][c\"2][--program][it's a.elf][$build/baretrace.img]" ]
ok $? "make usb: TRACE_MIB, SIGN_KEY, SIGN_CERT and PROGRAM with quotes and blanks reach scripts/mkimage whole: $got"
before=$(stat -c %Y "$build/baretrace.img" 2>/dev/null)
err=$(make -s lava-job BUILD="$build" DEVICE_TYPE="x'y" 2>&1)
st=$?
[ "$st" != 0 ] && [[ "$err" == *"scripts/lava-job: --device-type 'x'y': accepted: a LAVA device type name"* ]] &&
	[[ "$err" != *"rror:"*"quote"* ]] && [ "$(stat -c %Y "$build/baretrace.img" 2>/dev/null)" = "$before" ]
ok $? "make lava-job DEVICE_TYPE=\"x'y\": refused by scripts/lava-job, before the image is made (make status $st: ${err//$'\n'/ })"
scripts/lava-job --image https://lab.example/baretrace.img >"$work/url.yaml" 2>/dev/null &&
	py "sys.exit(j['actions'][0]['deploy']['images']['image']['url'] != 'https://lab.example/baretrace.img')" "$work/url.yaml"
ok $? "an https:// image URL is taken as it is (the worker fetches it)"
echo "1..$n"
exit $failed
