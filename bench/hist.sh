#!/bin/bash
# Benchmark: the userspace hist engine, on one core.
#
#   bench/hist.sh [EVENTS]
#
# Builds bench/hist-bench.c against tr's objects (make tr first) and runs it:
# sched_switch records in ring-buffer pages through the engine's per-page
# loop, for a few specs, printing events/s.  No root needed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
make --no-print-directory tr >/dev/null
# A folder per layer under build/obj/; the libraries are the Makefile's.
objs=$(find build/obj -name '*.o' ! -path build/obj/tr.o | sort)
gcc -std=gnu11 -D_GNU_SOURCE -O2 -Iinclude $(pkg-config --cflags libtracefs libtraceevent) \
	-o build/hist-bench bench/hist-bench.c $objs \
	$(pkg-config --libs libtracefs libtraceevent ncursesw libzstd zlib libssl libcrypto) -lpthread -lm
taskset -c 0 build/hist-bench "${1:-10000000}"
