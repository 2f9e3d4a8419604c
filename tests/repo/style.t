#!/usr/bin/env bash
# Repository rules that a reviewer would otherwise check by eye: clang-format, generic code
# never including arch internals, lib/ never including kernel or arch headers, tools/ only the
# shared layouts.
. "$(dirname "$0")/lib.sh"

files=$(git ls-files '*.c' '*.h' 2>/dev/null)
if [ -n "$files" ] && command -v clang-format >/dev/null; then
	bad=$(for f in $files; do clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
	ok "$([ -z "$bad" ] && echo 0 || echo 1)" "C sources follow .clang-format${bad:+ (run make format: $(echo $bad))}"
else
	echo "ok $((n += 1)) - C sources follow .clang-format # SKIP clang-format or git missing"
fi

bad=$(grep -lE '#include "arch/' kernel/*.c kernel/*.h lib/*.c lib/*.h 2>/dev/null)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "kernel/ and lib/ do not include arch/ headers${bad:+ ($bad)}"
bad=$(grep -lE '#include "(kernel|boot)/' lib/*.c lib/*.h 2>/dev/null)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "lib/ includes only lib/ headers${bad:+ ($bad)}"
bad=$(grep -lE '#include <(stdio|stdlib|string|assert)\.h>' kernel/*.c arch/x86/*.c lib/*.c 2>/dev/null)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "kernel code includes no hosted libc headers${bad:+ ($bad)}"
# tools/ (the host decoder) shares the record layouts and the freestanding library, nothing
# else of the kernel: its includes name lib/ or arch/x86/hw/ headers, or system headers.
bad=$(git ls-files 'tools/*.c' 'tools/*.h' 2>/dev/null | xargs -r grep -nE '#include "' |
	grep -vE '#include "(lib/|arch/x86/hw/|tools/)' | head -n 5)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "tools/ includes only lib/ and arch/x86/hw/ headers (and its own)${bad:+: $bad}"
# The build's paths are spelled once: no "dir//file" in any command make runs (make -n: printed,
# not run; -B: every target, built or not).
bad=$(make -nB V=1 test 2>&1 | grep -n '//' | head -n 3)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "no path in make V=1's commands has '//'${bad:+: $bad}"
echo "1..$n"
exit $failed
