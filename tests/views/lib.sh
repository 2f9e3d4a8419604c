# Shared by the decoder's tests on fixed captures (tests/views/*.t): where things are, a work
# folder removed at the end, and TAP points (ok STATUS DESCRIPTION; $last: the last one's status).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
dec=$build/btdecode
here=$top/tests/views
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 last=0
ok() {
	n=$((n + 1)) last=$1
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
