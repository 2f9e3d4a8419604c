#!/usr/bin/env bash
# scripts/run --kvm: the QEMU command line a KVM user needs, and what the guest will get on the
# host, said before booting. KVM with OVMF cannot run on our machines, so --dry-run prints the
# command and the test checks it word by word, then boots the same command with only the
# accelerator and CPU model swapped for TCG's. What the guest gets is checked on made-up hosts
# (BARETRACE_HOST_ROOT: their /proc/cpuinfo and sysfs), each expectation from upstream Linux
# 6.x and QEMU as docs/kvm.md cites them: hybrid hosts and kvm.enable_pmu=N get
# no vPMU (arch/x86/kvm/pmu.c kvm_init_pmu_capability); Architectural LBR is not virtualized
# and legacy LBRs are (vmx.c vmx_get_perf_capabilities); PEBS only on Xeons with EPT-friendly
# PEBS (Ice Lake-X 06_6AH, Sapphire Rapids 06_8FH and later); BTS never; BTF dropped.
. "$(dirname "$0")/lib.sh"

boot --kvm --dry-run -- trace=lbr workload=calls
cmd=$(printf '%s\n' "$out" | grep '^qemu-system-x86_64 ')
work=$(printf '%s\n' "$out" | sed -n 's/.*the boot volume is kept in \([^ ]*\) .*/\1/p')
status_is 0 "--kvm --dry-run: exits without booting"
printf '%s\n' "$cmd" | grep -q -- ' -machine q35,accel=kvm ' &&
	printf '%s\n' "$cmd" | grep -q -- ' -cpu host,migratable=no,pmu=on ' &&
	printf '%s\n' "$cmd" | grep -q -- '-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd' &&
	printf '%s\n' "$cmd" | grep -q -- '-device isa-debug-exit,iobase=0xf4,iosize=0x04'
ok $? "--kvm: the command line has accel=kvm, -cpu host,migratable=no,pmu=on, OVMF and the exit device"
[ -n "$work" ] && [ -f "$work/esp/EFI/BOOT/BOOTX64.EFI" ] &&
	cmp -s "$work/esp/EFI/BOOT/BOOTX64.EFI" "$build/BOOTX64.EFI" &&
	[ "$(cat "$work/esp/baretrace.cfg")" = "$(printf 'trace=lbr\nworkload=calls\nstream=off')" ]
ok $? "--dry-run: the boot volume it names is kept, with the loader and the options"
has 'scripts/run: --kvm: what the guest will get on this host' "--kvm: says what the guest will get before booting"

# The same command under TCG (KVM cannot boot OVMF here): it boots and runs the session.
tcg_cmd=$(printf '%s\n' "$cmd" | sed 's/ -machine q35,accel=kvm / -machine q35,accel=tcg /; s/ -cpu host,migratable=no,pmu=on / -cpu max /')
log=$(mktemp)
eval "timeout 60 $tcg_cmd" >"$log" 2>/dev/null </dev/null
qrc=$?
[ "$qrc" = 1 ] && grep -q '^run finished: PASS' "$log" && grep -q '^trace-begin lbr calls@skylake cpu=0 ' "$log"
ok $? "the printed command, accelerator and CPU model swapped for TCG's, boots the session (QEMU exit $qrc = PASS)"
rm -f "$log"
rm_kept "$work"

boot --kvm --dry-run --cpu host,pmu=on,lbr-fmt=0x5
printf '%s\n' "$out" | grep -q -- ' -cpu host,pmu=on,lbr-fmt=0x5 '
ok $? "--kvm --cpu: the user's CPU model is kept"
rm_kept "$(printf '%s\n' "$out" | sed -n 's/.*the boot volume is kept in \([^ ]*\) .*/\1/p')"
boot --kvm --accel tcg
[ "$rc" = 2 ] && printf '%s\n' "$out" | grep -q -- "--kvm with --accel tcg: accepted"
ok $? "--kvm with --accel tcg: refused, status 2, saying what is accepted"

# host NAME FAMILY MODEL FLAGS BRANCHES ENABLE_PMU [VENDOR]: a made-up host under $hosts/NAME.
hosts=$(mktemp -d)
host() {
	local d=$hosts/$1
	mkdir -p "$d/proc" "$d/sys/module/kvm/parameters" "$d/sys/bus/event_source/devices/cpu/caps"
	printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: Test %s\nflags\t\t: fpu pdcm %s\n' \
		"${7:-GenuineIntel}" "$2" "$3" "$1" "$4" >"$d/proc/cpuinfo"
	printf '%s\n' "$6" >"$d/sys/module/kvm/parameters/enable_pmu"
	[ -z "$5" ] || printf '%s\n' "$5" >"$d/sys/bus/event_source/devices/cpu/caps/branches"
}
view() { BARETRACE_HOST_ROOT=$hosts/$1 "$top/scripts/kvm-guest-view"; }
line() { view "$1" | sed -n "s/^  $2: *//p"; }
host skylake 6 94 "ds_cpl bts pebs" 32 Y
host icx 6 106 "ds_cpl bts pebs" 32 Y
host spr 6 143 "arch_lbr bts pebs" "" Y
host adl 6 151 "hybrid_cpu arch_lbr" "" Y
host nopmu 6 94 "bts pebs" 32 N
host zen 25 1 "" "" Y AuthenticAMD

[[ "$(line skylake vPMU)" == "architectural perfmon version min(host, 2)"* ]] &&
	[[ "$(line skylake LBR)" == "yes: the host's legacy LBRs, 32 deep"* ]] &&
	[[ "$(line skylake PEBS)" == no:* ]] && [[ "$(line skylake BTS)" == no:* ]] && [[ "$(line skylake BTF)" == no:* ]]
ok $? "a Skylake host (06_5EH): perfmon v2 at most, legacy LBRs 32 deep, no PEBS, no BTS, no BTF"
[[ "$(line icx PEBS)" == yes:* ]] && [[ "$(line icx LBR)" == yes:* ]]
ok $? "an Ice Lake-X host (06_6AH): PEBS (EPT-friendly) and legacy LBRs"
[[ "$(line spr LBR)" == "no: the host has Architectural LBR"* ]] && [[ "$(line spr PEBS)" == yes:* ]]
ok $? "a Sapphire Rapids host (06_8FH): no LBR (Architectural LBR is not virtualized), PEBS"
[[ "$(line adl vPMU)" == "none: KVM disables its vPMU on hybrid hosts"* ]] && [ -z "$(line adl LBR)" ]
ok $? "an Alder Lake host (hybrid): no vPMU at all"
[[ "$(line nopmu vPMU)" == "none: kvm.enable_pmu=N"* ]]
ok $? "kvm.enable_pmu=N: no vPMU"
[[ "$(line zen trace)" == "none: baretrace's facilities are Intel's"* ]]
ok $? "an AMD host: none of the Intel facilities"
rm -rf "$hosts"
done_testing
