#!/usr/bin/env bash
# scripts/install-deps when another apt holds the package lock: it waits, says so once, and
# installs when the lock is free; a lock held longer than INSTALL_DEPS_LOCK_WAIT names what it
# could not install (exit 1); apt failing otherwise says so. Fakes stand in for dpkg-query (one
# package missing), apt-cache and apt-get (which answers as apt does when the lock is held:
# "E: Could not get lock /var/lib/dpkg/lock-frontend ...", apt(8) and apt-get(8)); nothing is
# installed for real.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
fake=$work/bin
mkdir -p "$fake"
cat >"$fake/dpkg-query" <<'EOF'
#!/bin/sh
# every package installed but make
for a; do last=$a; done
[ "$last" = make ] && exit 1
printf 'install ok installed'
EOF
cat >"$fake/apt-cache" <<'EOF'
#!/bin/sh
echo "linux-headers-6.1.0-99-common - Common header files for Linux 6.1.0-99"
EOF
# apt-get: held for the first $FAKE_HELD calls (a count in a file), then it installs; every call
# is logged with its arguments
cat >"$fake/apt-get" <<'EOF'
#!/bin/sh
echo "$*" >>"$FAKE_DIR/calls"
n=$(cat "$FAKE_DIR/count" 2>/dev/null || echo 0)
echo $((n + 1)) >"$FAKE_DIR/count"
if [ "$n" -lt "$FAKE_HELD" ]; then
	echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
	exit 100
fi
[ "$FAKE_BROKEN" = 1 ] && { echo "E: Unable to locate package make" >&2; exit 100; }
exit 0
EOF
chmod +x "$fake"/*
headers_present=0
ls /usr/src/linux-headers-*-common/arch/x86/include/asm/msr-index.h >/dev/null 2>&1 && headers_present=1

run() { # HELD WAIT BROKEN: install-deps with the fakes; its stderr in $work/err, status in rc
	rm -f "$work/calls" "$work/count"
	PATH="$fake:$PATH" FAKE_DIR=$work FAKE_HELD=$1 INSTALL_DEPS_LOCK_WAIT=$2 FAKE_BROKEN=$3 \
		sh "$top/scripts/install-deps" >"$work/out" 2>"$work/err"
	rc=$?
}

if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
	echo "1..0 # SKIP not root and no sudo: install-deps stops before apt"
	exit 0
fi
run 1 30 0
waits=$(grep -c 'holds the package lock; waiting' "$work/err")
[ "$rc" = 0 ] && [ "$waits" = 1 ] && grep -q 'install-deps: done' "$work/out" &&
	grep -q -- '-o DPkg::Lock::Timeout=30 install -y -qq --no-install-recommends make' "$work/calls"
ok $? "the lock held once: waited, said once ($waits), then installed make with apt's own lock timeout (status $rc)"
run 100 5 0
[ "$rc" = 1 ] && grep -q 'package lock stayed held for 5s.*install these when it is free: make' "$work/err"
ok $? "the lock held past INSTALL_DEPS_LOCK_WAIT=5: status $rc, what was not installed named ($(tail -n 1 "$work/err"))"
run 0 30 1
[ "$rc" = 1 ] && grep -q 'apt-get failed (above); install these yourself: make' "$work/err" &&
	! grep -q waiting "$work/err"
ok $? "apt failing for another reason: no wait, status $rc, the package named"
echo "1..$n"
[ "$headers_present" = 1 ] || echo "# (this host lacks linux-headers-*-common: the fake named it missing too)"
exit $failed
