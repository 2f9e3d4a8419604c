#!/usr/bin/env bash
# One boot runs every in-kernel self-test (TAP relayed) and the host checks the banner, the
# memory map report, the boot timing line, and that the build id the kernel prints is the one
# of build/kernel.elf (so dumps can be symbolized against it).
. "$(dirname "$0")/lib.sh"

boot --timeout 120 -- selftest=all memmap=full
status_is 0 "all self-tests pass"
relay_kernel_tap kernel
has "baretrace loader" "the loader announces itself"
has "cpu: " "the banner names the CPU"
printf '%s\n' "$out" | grep -Eq '^cpu: .* family 0x[0-9a-f]+ model 0x[0-9a-f]+ stepping [0-9]+'
ok $? "the CPU line has family, model and stepping"
printf '%s\n' "$out" | grep -Eq '^memory map: [0-9]+ ranges; usable [1-9][0-9]* MiB'
ok $? "the memory map summary reports usable memory"
printf '%s\n' "$out" | grep -Eq '^  \[0x[0-9a-f]+-0x[0-9a-f]+\) usable'
ok $? "memmap=full lists the ranges"
printf '%s\n' "$out" | grep -Eq '^boot-time: loader entry -> kernel ready [0-9]+ us'
ok $? "the kernel reports its boot time"
want=$(readelf -n "$build/kernel.elf" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
printf '%s\n' "$out" | grep -q "build-id $want"
ok $? "printed build id is build/kernel.elf's ($want)"
done_testing
