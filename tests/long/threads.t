#!/usr/bin/env bash
# Threaded Linux programs, all of tests/qemu/threads.t's cases (make long-check): std::thread
# (g++ -static) and a worker's fault besides make test's.
THREADS_ALL=1 exec "$(dirname "$0")/../qemu/threads.t"
