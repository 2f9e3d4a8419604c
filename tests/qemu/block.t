#!/usr/bin/env bash
# Per-block stepping (docs/engine.md "Per-block stepping (ss.block)") changes how often the engine
# traps, never what it reports: the same sessions booted with ss.block=on (the default) and
# ss.block=off (a trap after every instruction) give the same records, byte for byte. The
# sessions: the engine's own trace and BTS, LBR and PEBS on the software PMU, over the library
# workloads (loops, calls, indirect branches, a sort, a hash), code that rewrites itself (smc),
# a compiled C workload with loads and stores (memory), counted loops some of whose runs faults
# cut (counted), the engine alone over compiled C
# (qsort, crc32, interp of kernel/workloads_c.c, sizes cut) and a ring 3 program (spin), with a PEBS
# period (37) that makes counters overflow inside straight-line code, so that blocks are cut
# short where a counter would overflow (its PMI and record at their instruction), and the
# facilities whose PMIs come at a block's last branch: BTS with its threshold interrupt (btsint,
# 32 records), LBR sampled every 7 branches, counter samples every 53 instructions (pmc): the
# block's short way (ss_block_trap) must leave every such branch to the long way. What the
# records must be is the oracle tests' business (exact.t, sstrace.t, trace.t, in both modes
# under make long-check); here: the two modes agree, and the blocks were used. With option
# ss.stats each session also says its traps: with ss.block=off one a retired instruction (a
# single-step trap "after" every instruction while TF is set, SDM Vol. 3B 17.3.1.4), with
# blocks fewer.
. "$(dirname "$0")/lib.sh"
progs=$build/tests/programs
opts=(workload=loop,calls,indirect,sort,hash,smc,memory,counted,program trace=bts,btsint,lbr,pebs,pmc
	spmu=skylake pebs.period=37 lbr.period=7 pmc.period=53 ss=loop,smc,sort,qsort,crc32,interp,counted,program program.arg=300 qsort.n=160
	crc32.n=256 interp.n=150)

# what a boot prints that is no record: its timing, the engine's counts (ss.stats)
records() {
	printf '%s\n' "$1" | grep -v '^baretrace loader:\|^timer:\|^smp:\|^boot-time:\|^ss-stats ' |
		sed 's/ tsc-cycles=[0-9]*//'
}
# stats: per stepped session, "steps traps"
stats() {
	printf '%s\n' "$1" | awk '$1 == "ss-stats" { s = t = ""
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "steps") s = kv[2]; if (kv[1] == "traps") t = kv[2] }
		print s, t }'
}

unset SS_BLOCK
boot --timeout 300 --program "$progs/spin.elf" -- "${opts[@]}" ss.block=on ss.stats=on
status_is 0 "ss.block=on: every session passes"
on=$(records "$out")
on_stats=$(stats "$out")
blocks=$(printf '%s\n' "$out" | awk '$1 == "ss-blocks" && $3 > 0 { n++ } END { print n + 0 }')
[ "$blocks" -ge 3 ]
ok $? "ss.block=on: the engine ran blocks at full speed in $blocks of 8 engine sessions"
boot --timeout 300 --program "$progs/spin.elf" -- "${opts[@]}" ss.block=off ss.stats=on
status_is 0 "ss.block=off: every session passes"
off=$(records "$out")
off_stats=$(stats "$out")
n=$(printf '%s\n' "$off_stats" | grep -c .)
[ "$n" -ge 20 ] && printf '%s\n' "$off_stats" | awk '$1 == "" || $1 != $2 { exit 1 }'
ok $? "ss.block=off: one trap a retired instruction in each of the $n stepped sessions (ss-stats)"
[ "$(printf '%s\n' "$on_stats" | awk '{ print $1 }')" = "$(printf '%s\n' "$off_stats" | awk '{ print $1 }')" ] &&
	printf '%s\n' "$on_stats" | awk '$2 < $1 { fewer++ } END { exit !(fewer >= 3) }'
ok $? "ss.block=on: the same instructions in each session, fewer traps than instructions where blocks ran"
printf '%s\n' "$out" | awk '$1 == "ss-blocks" && $3 > 0 { exit 1 }'
ok $? "ss.block=off: no block"
same "$(printf '%s\n' "$on" | grep -v '^ss-blocks ')" "$(printf '%s\n' "$off" | grep -v '^ss-blocks ')" \
	"both modes print the same records, byte for byte ($(printf '%s\n' "$on" | grep -c '^bts \|^lbr \|^pebs \|^ss-branch ') record lines)"
done_testing
