#!/usr/bin/env bash
# PEBS data addresses against QEMU's own record of the workload's memory accesses: a TCG
# plugin (tests/qemu/plugins/memtrace.c) logs every instruction of the `memory` workload
# (pointer chasing and stores, kernel/workloads.c) with the loads and stores QEMU performed for
# it. For each personality with memory events the PEBS counter counts the event from -P: "an
# overflow condition in the counter will arm PEBS. On the subsequent event following
# overflow, the processor will generate a PEBS event" (SDM Vol. 3B 18.4.4), so record k is the
# (P+1)k-th instruction in QEMU's log that loads (all-loads, and load latency with a threshold
# of 3, below the minimum latency of 4 cycles, SDM 18.8.1.2) or stores (stores); its data
# linear address is "the linear address of the source of the load, or linear address of the
# destination of the store" (SDM 18.9.4.1): one of the addresses QEMU read (wrote) for it.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) [ -n "${KEEP_WORK:-}" ] && echo "# kept $work" || rm -rf "$work" ;; esac' EXIT
period=7
personas=(skylake nehalem icelake arrowlake)

sym() { nm "$build/kernel.elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
entry=$(sym wl_memory)
end=$(sym __workload_end)
${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -o "$work/memtrace.so" "$top/tests/qemu/plugins/memtrace.c"
ok $? "the memory-access plugin builds"
[ -n "$entry" ] && [ -n "$end" ]
ok $? "the memory workload is at $entry (workload range ends at $end)"

# check EVENT KIND [OPTIONS]: one boot, every personality; KIND R (loads) or W (stores)
check() {
	local event=$1 kind=$2
	shift 2
	rm -f "$work/mem.log"
	boot --timeout 120 --qemu-arg -plugin --qemu-arg "$work/memtrace.so,lo=$entry,hi=$end,out=$work/mem.log" \
		-- workload=memory trace=pebs spmu=core2,"$(IFS=,; echo "${personas[*]}")" pebs.event="$event" pebs.period=$period "$@"
	status_is 0 "pebs.event=$event: the memory workload gives its result under PEBS on every personality"
	has "SKIP: pebs: memory@core2 cpu=0: " "pebs.event=$event: Core 2 (PEBS format 0, no data address) is skipped loudly"
	local run=0 p
	for p in "${personas[@]}"; do
		run=$((run + 1))
		local line fmt got want
		line=$(printf '%s\n' "$out" | grep "^trace-begin pebs memory@$p ")
		fmt=$(printf '%s\n' "$line" | sed -n 's/.* format=\([0-9]*\) .*/\1/p')
		# the kernel's records: eventing IP and data address
		got=$(printf '%s\n' "$out" | awk -v l="memory@$p" '
			$1 == "trace-begin" && $2 == "pebs" { on = ($3 == l) } $1 == "trace-end" { on = 0 }
			on && $1 == "pebs" { for (i = 1; i <= NF; i++) if ($i ~ /^dla=/) { split($i, a, "="); print $2, a[2] } }')
		# QEMU's: for every (P+1)-th instruction of run `run` that has a KIND access, its PC
		# and the addresses of those accesses
		want=$(awk -v r="$run" -v e="$entry" -v k="$kind" -v per=$((period + 1)) '
			function flush() { if (pc != "" && acc != "") { n++; if (n % per == 0) print pc, acc } acc = "" }
			$1 == "I" && $3 "" == e "" { flush(); runs++; pc = "" }
			runs != r { next }
			$1 == "I" { flush(); pc = $3 }
			$1 == k { acc = acc (acc == "" ? "" : ",") $3 }
			END { if (runs == r) flush() }' "$work/mem.log")
		# A record matches when its address is one QEMU accessed for that instruction and,
		# with an eventing IP (format 2 and later), the IP is that instruction's.
		local bad nrec
		nrec=$(printf '%s\n' "$want" | grep -c .)
		bad=$(paste -d' ' <(printf '%s\n' "$got") <(printf '%s\n' "$want") | awk -v f="${fmt:-0}" '
			{ n = split($4, a, ","); hit = 0; for (i = 1; i <= n; i++) if (a[i] "" == $2 "") hit = 1
			  if (!hit || (f >= 2 && $1 "" != $3 "")) { print; exit } }')
		[ "$nrec" -ge 10 ] && [ "$(printf '%s\n' "$got" | grep -c .)" = "$nrec" ] && [ -z "$bad" ]
		ok $? "pebs.event=$event, $p (format ${fmt:-?}): the $nrec records are QEMU's every $((period + 1))th $kind-access instruction with one of its addresses${bad:+ (first mismatch: $bad)}"
	done
}

check all-loads R
check stores W
check loads R pebs.ldlat=3
# Load latency also reports the data source and latency of the model's cache (docs/engine.md): a hit
# takes 4 cycles from the L1 (data source 01H), a miss 14 from the L2 (03H).
pairs=$(printf '%s\n' "$out" | awk '$1 == "pebs" { for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] } print v["src"], v["lat"] }' | sort -u | tr '\n' ';')
[ -n "$pairs" ] && [ -z "$(printf '%s' "$pairs" | tr ';' '\n' | grep -v '^0x1 4$' | grep -v '^0x3 14$' | grep .)" ]
ok $? "load latency: every record's data source and latency is an L1 hit (0x1, 4) or an L2 hit (0x3, 14): $pairs"
done_testing
