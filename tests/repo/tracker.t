#!/usr/bin/env bash
# No tracked file speaks of tracker issues by number: a number means nothing to a reader without
# the tracker, and says nothing of what the code does. A comment, a test's description, a README
# heading or a script's message names the behaviour instead (docs/record-stream.md "Nothing lost",
# "the record stream", "per-block stepping", "exactness class 7 of tests/qemu/exact.t", ...).
# 1. No tracked file matches the pattern (the word, an optional plural, a space, an optional
#    hash, digits; any case). The pattern is built from pieces, so that this file does not
#    match it.
# 2. The pattern finds each form it stands for, and leaves alone longer words that hold the word
#    and the word without a number after it.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT

word="iss""ue"
pattern="\\b${word}s? #?[0-9]+"

# ---- 1. the tracked files ------------------------------------------------------------------------
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	bad=$(git grep -n -i -E "$pattern" 2>&1 | head -n 5)
	[ -z "$bad" ]
	ok $? "no tracked file names a tracker ${word} by number (git grep -i -E '$pattern')${bad:+: $(printf '%s\n' "$bad" | tr '\n' ' ')}"
else
	echo "ok $((n += 1)) - no tracked file names a tracker ${word} by number # SKIP not a git work tree"
fi

# ---- 2. the pattern itself -----------------------------------------------------------------------
# one line each: the forms it must find, then the words it must leave alone
for form in "${word} 7" "${word}s 3 and 4" "${word} #12" "(${word^} 35's goal)" "${word^^} 9"; do
	printf '%s\n' "$form"
done >"$work/found.txt"
for form in "t${word} 7" "${word}d 3" "${word}: 12" "the ${word}'s goal" "${word}-7"; do
	printf '%s\n' "$form"
done >"$work/left.txt"
found=$(cd "$work" && git grep --no-index -h -i -E "$pattern" -- found.txt | wc -l)
left=$(cd "$work" && git grep --no-index -h -i -E "$pattern" -- left.txt | wc -l)
[ "$found" = 5 ] && [ "$left" = 0 ]
ok $? "the pattern finds all 5 forms of a numbered ${word} ($found) and none of 5 other words ($left)"

echo "1..$n"
exit $failed
