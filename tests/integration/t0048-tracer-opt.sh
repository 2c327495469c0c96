#!/bin/bash
# --tracer-opt on any kernel: what tr refuses before touching tracefs (usage,
# exit 64), and a latency tracer the kernel lacks refused in one line with
# nothing changed.  The settings themselves are t1025 (VM tier).
. "$(dirname "$0")/lib.sh"
test_requires tracefs

test_expect_success 'a setting without -p, of another tracer, or with a bad value: usage, named' '
	test_expect_code 64 tr start --tracer-opt width=100 2>err &&
	test_grep "^tr start: --tracer-opt .width=100. goes with -p hwlat, osnoise or timerlat$" err &&
	test_expect_code 64 tr record -p timerlat --tracer-opt runtime=5 -o x.dat true 2>err &&
	test_grep "^tr record: timerlat has no setting .runtime. (cpus, period, stop_tracing, stop_tracing_total, print_stack)$" err &&
	test_expect_code 64 tr start -p hwlat --tracer-opt width=1.0005ms 2>err &&
	test_grep "bad width .1.0005ms. for hwlat (microseconds, or with a unit: 500us, 2ms, 1s)" err &&
	test_expect_code 64 tr stream -p osnoise --tracer-opt cpus=2-1 2>err &&
	test_grep "bad cpus .2-1. for osnoise" err &&
	test_expect_code 64 tr start -p hwlat --tracer-opt mode=fast 2>err &&
	test_grep "bad hwlat mode .fast. (none, round-robin or per-cpu)" err &&
	test ! -e x.dat
'

if ! grep -qw hwlat $TRACEFS/available_tracers; then
	test_expect_success 'a kernel without the tracer: one line, nothing changed' '
		cat $TRACEFS/current_tracer $TRACEFS/tracing_thresh >before &&
		test_expect_code 1 tr start -p hwlat --tracer-opt threshold=10 2>err &&
		test_grep "^tr: unknown tracer .hwlat. (available: " err &&
		test $(wc -l <err) = 1 &&
		cat $TRACEFS/current_tracer $TRACEFS/tracing_thresh >after &&
		test_cmp before after
	'
fi

test_done
