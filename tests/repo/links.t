#!/usr/bin/env bash
# Links a reader can follow: every relative link of every tracked Markdown file (README.md,
# docs/*.md, the folders' README.md) names a file that exists, and every '#anchor' (in the same
# file or in FILE#anchor) a heading that file has, by GitHub's rule: the heading's text in lower
# case, its punctuation dropped (letters, digits, '_', '-' and blanks kept), blanks made '-', a
# second heading of the same text '-1', a third '-2'. Fenced code blocks hold no headings or links.
. "$(dirname "$0")/lib.sh"

out=$(git ls-files '*.md' | python3 -c '
import os, re, sys

def slug(h):
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h.strip()).lower()
    return re.sub(r"[^\w\- ]", "", h.replace("*", "")).replace(" ", "-")

def lines(path):
    fence = False
    for n, l in enumerate(open(path, encoding="utf-8"), 1):
        if l.startswith("```"):
            fence = not fence
        elif not fence:
            yield n, l

anchors = {}
def anchors_of(path):
    if path not in anchors:
        seen, res = {}, set()
        for _, l in lines(path):
            m = re.match(r"#{1,6} (.*)", l)
            if m:
                s = slug(m.group(1))
                k = seen.get(s, 0)
                res.add(s if k == 0 else "%s-%d" % (s, k))
                seen[s] = k + 1
        anchors[path] = res
    return anchors[path]

links = 0
for f in sys.stdin.read().split():
    for n, l in lines(f):
        for t in re.findall(r"\]\(([^)\s]+)\)", l):
            if re.match(r"[a-z]+:", t):
                continue
            links += 1
            path, _, anc = t.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(target):
                print("%s:%d: %s: no such file" % (f, n, t))
            elif anc and target.endswith(".md") and anc not in anchors_of(target):
                print("%s:%d: %s: %s has no such heading" % (f, n, t, target))
print("checked %d links" % links)
')
count=$(printf '%s\n' "$out" | sed -n 's/^checked //p')
out=$(printf '%s\n' "$out" | grep -v '^checked ')
[ -z "$out" ] && [ -n "$count" ]
ok $? "every relative link and #anchor of the tracked .md files names a file and a heading there ($count)${out:+: $(printf '%s\n' "$out" | head -n 5 | tr '\n' ' ')}"

# The README leads: a new user's page, short; the rest lives in docs/.
lines=$(wc -l <README.md)
[ "$lines" -le 500 ]
ok $? "README.md is at most 500 lines ($lines)"

echo "1..$n"
exit $failed
