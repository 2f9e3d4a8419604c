#!/usr/bin/env bash
# Unmodified static Linux programs, all of tests/qemu/linux.t's cases (make long-check): g++'s
# exception and busybox's awk, factor and sort besides make test's subset.
LINUX_ALL=1 exec "$(dirname "$0")/../qemu/linux.t"
