# Shared by the repository checks (tests/repo/*.t): start at the top of the tree, and a TAP
# "ok STATUS DESCRIPTION" that numbers the points and remembers a failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
