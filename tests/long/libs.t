#!/usr/bin/env bash
# Real programs at default options, every library of tests/programs/libs/ (tests/qemu/libs.t
# boots two of them in make test).
LIBS_ALL=1 exec "$(dirname "$0")/../qemu/libs.t"
