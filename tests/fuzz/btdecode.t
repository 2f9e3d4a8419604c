#!/usr/bin/env bash
# A short libFuzzer run of the record stream's decoder (tests/fuzz/fuzz_btdecode.c: ASan and
# UBSan, every input a whole capture) from the seed corpus kept here, 1,500 inputs (make test's
# budget); make fuzz runs longer (FUZZ_SECONDS, 300 by default).
# Any crash, leak, out-of-bounds access or undefined behaviour fails it, with the input saved.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
cp "$top"/tests/fuzz/corpus/btdecode/* "$work/"
if "$build/fuzz_btdecode" -seed=1 -runs=1500 -max_len=8192 -artifact_prefix="$build/" "$work" \
	>"$work/log" 2>&1; then
	echo "ok 1 - libFuzzer: 1500 inputs from the seed corpus, no crash or sanitizer report ($(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/log"))"
else
	echo "not ok 1 - libFuzzer found a failing input (kept under $build/crash-*)"
	sed 's/^/# /' "$work/log" | tail -n 40
fi
echo "1..1"
