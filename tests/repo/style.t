#!/usr/bin/env bash
# Repository rules that a reviewer would otherwise check by eye: clang-format, generic code
# never including arch internals, lib/ never including kernel or arch headers, tools/ only the
# shared layouts.
. "$(dirname "$0")/lib.sh"

files=$(git ls-files '*.c' '*.h' 2>/dev/null)
if [ -n "$files" ] && command -v clang-format >/dev/null; then
	# one clang-format for all files (one per file cost 40 s); its "FILE:LINE:COL: error: ..."
	# lines name the files that differ
	# shellcheck disable=SC2086
	bad=$(clang-format --dry-run -Werror $files 2>&1 >/dev/null | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
	# shellcheck disable=SC2086
	[ -n "$bad" ] || clang-format --dry-run -Werror $files >/dev/null 2>&1 || bad="(clang-format failed)"
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
# Names say where a thing is. An include guard is its header's path (arch/x86/caps/caps.h:
# ARCH_X86_CAPS_CAPS_H; include/baretrace/user.h, which programs include by that path too:
# INCLUDE_BARETRACE_USER_H), as its first #ifndef and #define.
# (one awk over every header: a process per header cost seconds)
bad=$(git ls-files '*.h' | xargs awk '
	function check() { if (f != "" && g != want " " want) printf "%s ", f }
	FNR == 1 { check(); f = FILENAME; want = toupper(f); gsub(/[\/.-]/, "_", want); g = ""; c = 0 }
	c < 2 && /^#[[:space:]]*(ifndef|define)[[:space:]]/ { g = (c ? g " " : "") $2; c++ }
	END { check() }')
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "every include guard is its header's path${bad:+ (not: $bad)}"
# A unit test is named after what it tests: tests/unit/test_NAME.c, NAME the base name of a
# source on its UNIT-SOURCES line or of a header it includes, alone or after its folder's name
# (test_model_bts.c: arch/x86/model/bts.c, beside test_bts.c: arch/x86/drivers/bts.c).
bad=$(for t in $(git ls-files 'tests/unit/test_*.c'); do
	name=${t#tests/unit/test_}
	name=${name%.c}
	found=
	for f in $(sed -n 's|^// UNIT-SOURCES:||p' "$t") $(sed -n 's|^#include "\([^"]*\)".*|\1|p' "$t" | grep -v '^tests/'); do
		b=${f##*/}
		b=${b%.*}
		d=${f%/*}
		d=${d##*/}
		[ "$name" = "$b" ] || [ "$name" = "${d}_$b" ] && found=1
	done
	[ -n "$found" ] || printf '%s ' "$t"
done)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "every unit test is named after a source it tests${bad:+ (not: $bad)}"
# The build's paths are spelled once: no "dir//file" in any command make runs (make -n: printed,
# not run; -B: every target, built or not; the flags of a make that runs this test left out).
bad=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -nB V=1 test 2>&1 | grep -n '//' | head -n 3)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "no path in make V=1's commands has '//'${bad:+: $bad}"
echo "1..$n"
exit $failed
