#!/usr/bin/env bash
# The layout rules of arch/x86 (arch/x86/README.md), checked rather than promised: which folder
# may include or call which (scripts/include-graph), one hardware contract (every MSR number
# and register bit defined once, in arch/x86/hw/), the software PMU seen only through its
# opaque face, every sub-folder saying what it owns.
. "$(dirname "$0")/lib.sh"
code() { git ls-files -- 'arch/*.[chS]' 'kernel/*.[chS]' 'boot/*.[chS]' 'lib/*.[chS]'; }

# 1. Folder rules and cycles, from the includes and (with the kernel built: make test builds it
# first) the calls, kernel/ reaching arch/x86 only through the kernel/arch_*.h doors.
out=$(scripts/include-graph --check 2>&1)
ok $? "no folder includes or calls one it may not, no cycle spans two folders${out:+: $out}"
if [ -d "${BUILD:-build}/kernel-obj" ]; then
	ok 0 "calls checked too, from the objects in ${BUILD:-build}/kernel-obj"
else
	echo "ok $((n += 1)) - calls checked too # SKIP ${BUILD:-build}/kernel-obj missing: build the kernel first"
fi

# 2. Few files at the top of arch/x86, and every sub-folder states what it owns.
count=$(git ls-files 'arch/x86/*' | awk -F/ 'NF == 3' | wc -l)
ok "$([ "$count" -le 15 ] && echo 0 || echo 1)" "arch/x86 has at most 15 files at its top level ($count)"
bad=
for d in $(git ls-files 'arch/x86/*/*' | awk -F/ 'NF >= 4 { print $1 "/" $2 "/" $3 }' | sort -u); do
	grep -qi '^owns:' "$d/README.md" 2>/dev/null && grep -qi '^may include:' "$d/README.md" || bad="$bad $d"
done
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "every arch/x86 sub-folder has a README.md with 'Owns:' and 'May include:'${bad:+ (missing:$bad)}"

# 3. One hardware contract. Register names by prefix: defined only under arch/x86/hw/.
regs='MSR_|X2APIC_MSR_BASE|DEBUGCTL_|GLOBAL_STATUS_|GLOBAL_FIXED_|LBR_SELECT_|LBR_CTL_|EVTSEL_|FIXED_CTRL_|PEBS_ENABLE_|EFER_|CR0_|CR4_|RFLAGS_|PCAP_|MISC_(EMON|BTS|PEBS)|CPUID_LEAF_|C0[0-9A-F]_|C1[0-9A-F]_|C8000000[0-9]_|APIC_BASE_|ARCH_LBR_INFO_|LBR_FROM_|LBR_INFO_|LBR_FMT[0-9]|LBR_F_|STAR_'
bad=$(code | grep -v '^arch/x86/hw/' | xargs grep -nE "^\s*#\s*define\s+($regs)[A-Za-z0-9_]*\b" 2>/dev/null)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "MSR numbers and register bits are defined only in arch/x86/hw/${bad:+: $bad}"
# (MSR_C is defined once for C and once for assembly, in the two branches of one #ifdef.)
dups=$(git ls-files 'arch/x86/hw/*.h' | xargs grep -hoE "^\s*#\s*define\s+[A-Z][A-Z0-9_]*" | awk '{print $NF}' | sort | uniq -d | grep -vx MSR_C)
ok "$([ -z "$dups" ] && echo 0 || echo 1)" "every name in arch/x86/hw/ is defined once${dups:+ (twice: $dups)}"
vals=$(grep -oE '^#define [A-Z0-9_]+\s+MSR_C\(0x[0-9a-f]+\)' arch/x86/hw/msr.h | grep -oE '0x[0-9a-f]+' | sort | uniq -d)
ok "$([ -z "$vals" ] && echo 0 || echo 1)" "every MSR number in arch/x86/hw/msr.h is defined once${vals:+ (twice: $vals)}"
# The numbers themselves never appear as bare literals elsewhere (small ones like 40H are
# also common constants, so only numbers of three or more digits are looked for).
lits=$(grep -oE 'MSR_C\(0x[0-9a-f]{3,}\)' arch/x86/hw/msr.h | grep -oE '0x[0-9a-f]+' | sort -u | paste -sd'|')
bad=$(code | grep -v '^arch/x86/hw/' | xargs grep -nwiE "($lits)u?" 2>/dev/null | grep -vE '^\S+:\s*(/\*|\*|//)')
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "no MSR number is written as a literal outside arch/x86/hw/${bad:+: $bad}"

# 4. The software PMU is opaque: outside arch/x86/model/ only the MSR accessor sees its
# internals; no driver knows it exists.
bad=$(code | grep -vE '^arch/x86/(model/|pmu/access\.c)' |
	xargs grep -lE '#include "arch/x86/model/(spmu|lbr|arch_lbr|pebs|bts|counters)\.h"' 2>/dev/null)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "only arch/x86/model/ and the MSR accessor include the model's internals${bad:+ ($bad)}"
bad=$(git ls-files 'arch/x86/drivers/*.[chS]' | xargs grep -nliE 'spmu|software PMU' 2>/dev/null)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "no driver file mentions the software PMU${bad:+ ($bad)}"

# 4b. The drivers own the registers (docs/internals.md "The seam between sessions and facilities"):
# sessions reach a facility through its driver (arch/x86/drivers/driver.h) and never access an MSR
# themselves.
bad=$(git ls-files 'arch/x86/session/*.[chS]' | xargs grep -nE '\b(pmu_rdmsr|pmu_wrmsr|rdmsr|wrmsr)\b' 2>/dev/null)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "arch/x86/session/ touches no MSR (the drivers do)${bad:+: $bad}"
bad=
for f in bts btsint lbr_legacy lbr_arch pebs btf pmc; do
	git ls-files 'arch/x86/drivers/*.c' | xargs grep -qE "^const struct facility_driver ${f}_driver = " || bad="$bad $f"
done
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "every facility is a value of the driver interface (drivers/driver.h)${bad:+ (missing:$bad)}"

# 5. Kernel code in every arch/x86 sub-folder is freestanding too (style.t's rule, recursive).
bad=$(git ls-files 'arch/*.c' 'arch/*.h' | xargs grep -lE '#include <(stdio|stdlib|string|assert)\.h>' 2>/dev/null)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "no file under arch/ includes a hosted libc header${bad:+ ($bad)}"

# 6. Citations a reader can follow: no pointer to files outside the repository (the private
# "ref N.M" digest, "seed sdm/N" excerpts or any "excerpts" of the SDM, "[L-msr]"-style keys,
# ../shared/ and the design.md and style.md there), and every "references.md N.M" topic cited
# exists in docs/references.md (every tracked file is read but that one, docs/ included).
private='(\b[Rr]ef(erence)?s? [0-9]+(\.[0-9]+)?\b|seed sdm/|\b[Ee]xcerpts?\b|\[(L|LKML|KVM)-[a-z0-9]+\]|\[(SDM|Fuchsia|Xen)\]|\.\./shared/|\b(design|style)\.md\b)'
bad=$(git ls-files | grep -vE '^docs/references\.md$|^tests/repo/layout\.t$' | grep -E '\.(c|h|S|t|sh|md|ld)$|^Makefile$|^scripts/' |
	xargs grep -nE "$private" 2>/dev/null | head -n 5)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "comments cite public sources or docs/references.md, nothing outside the repository${bad:+: $bad}"
topics=$(sed -n 's/^| \([0-9][0-9.]*\) | .*/\1/p' docs/references.md)
missing=
for t in $(git ls-files | grep -vE '^docs/references\.md$' | xargs grep -ohE 'references\.md [0-9]+(\.[0-9]+)?((, | and |-|/| / )[0-9]+(\.[0-9]+)?)*' 2>/dev/null |
	sed 's/references\.md //' | tr ',/' '  ' | sed 's/ and / /g; s/\([0-9.]*\)-\([0-9.]*\)/\1 \2/g' | tr ' ' '\n' | sort -u); do
	t=${t%.}
	[ -z "$t" ] && continue
	printf '%s\n' "$topics" | grep -qx "$t" || printf '%s\n' "$topics" | grep -q "^$t\." || missing="$missing $t"
done
ok "$([ -z "$missing" ] && echo 0 || echo 1)" "every references.md topic cited is in docs/references.md${missing:+ (missing:$missing)}"

# 7. The include graph of docs/internals.md is the generated one, not a drawing that went stale.
want=$(scripts/include-graph --markdown)
got=$(sed -n '/<!-- include-graph: begin -->/,/<!-- include-graph: end -->/p' docs/internals.md | sed '1d;$d')
[ "$want" = "$got" ]
ok $? "docs/internals.md's include graph is scripts/include-graph --markdown's output (run scripts/include-graph --update-docs)"

echo "1..$n"
exit $failed
