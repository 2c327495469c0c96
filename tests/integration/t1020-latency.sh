#!/bin/bash
# Latency tracers in files: tr record -p irqsoff and tr start + tr extract
# save the worst section the kernel kept (its trace file) as a v6 "latency"
# file, with tracing_max_latency in the first line; trace-cmd reads it too.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_requires latency

# Latency tracers work in the top-level buffer only: tr record puts back
# all it changed (but tracing_max_latency, a result); after tr start,
# tr reset does.

# The value of "# tracing_max_latency: N us" in a report.
max_of() { sed -n 's/^# tracing_max_latency: \([0-9]*\) us$/\1/p' "$1"; }

test_expect_success 'record -p irqsoff keeps a max latency above 0, and report shows it' '
	# Under emulation the max buffer is sometimes read before the kernel has
	# copied the worst section into it (header only): try a few times.
	for i in 1 2 3; do
		tr record -p irqsoff -o lat.dat sleep 0.5 2>err &&
		tr report -i lat.dat >out &&
		grep -q "^# latency: " out && break
	done &&
	test_grep -E "^irqsoff: max latency [0-9]+ us$" err &&
	max=$(max_of out) &&
	test "$max" -gt 0 &&
	test_grep "^# tracer: irqsoff" out &&
	test_grep "^# latency: $max us, " out &&
	test_grep -E "^ *[^ #]+-[0-9]+ +[0-9]d[^ ]* +[0-9]+us" out &&
	test "$(cat $TRACEFS/current_tracer)" = nop &&
	test "$(cat $TRACEFS/tracing_max_latency)" = "$max"
'

test_expect_success 'the file is a v6 latency file that trace-cmd report reads' '
	tr record -q -p preemptirqsoff -o pi.dat sleep 0.3 &&
	tr report --stat -i pi.dat >st &&
	test_grep -x "version: *6 .*" st &&
	test_grep -x "buffers: *(top) (latency text)" st &&
	tr report -i pi.dat >tr.out &&
	test_grep "^# tracer: preemptirqsoff" tr.out &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i pi.dat >tc.out 2>tc.err &&
		test_cmp tr.out tc.out &&
		test_must_fail grep -i "unknown option" tc.err
	fi
'

test_expect_success '--thresh sets tracing_thresh for the recording and puts it back' '
	old=$(cat $TRACEFS/tracing_thresh) &&
	tr record -p irqsoff --thresh 1000000 -o th.dat sleep 0.3 2>err &&
	test "$(cat $TRACEFS/tracing_thresh)" = "$old" &&
	tr report -i th.dat >out &&
	test_grep "^# tracer: irqsoff" out
'

test_expect_success 'a latency tracer with -B is refused' '
	test_expect_code 64 tr record -B "$(test_instance)" -p irqsoff -o x.dat true 2>err &&
	test_grep "top-level buffer only" err &&
	test ! -d "$TRACEFS/instances/$(test_instance)"
'

test_expect_success 'tr start -p wakeup_rt then tr extract saves the latency trace' '
	test_when_finished "tr reset >/dev/null 2>&1" &&
	tr start -p wakeup_rt &&
	chrt -f 50 sleep 0.1 && chrt -f 50 sleep 0.1 &&
	# Stopped, so no later wakeup raises the maximum between the two reads.
	tr stop &&
	tr extract -o w.dat 2>err &&
	test_grep -E "^wakeup_rt: max latency [0-9]+ us$" err &&
	tr report -i w.dat >out &&
	test_grep "^# tracer: wakeup_rt" out &&
	test "$(max_of out)" = "$(cat $TRACEFS/tracing_max_latency)"
'

# Every max-latency tracer the kernel lists, each by the file it records:
# its header, its "max latency" line, and the tracer put back.  The
# workload wakes an RT task (wakeup_rt) and others; no SCHED_DEADLINE task
# runs, so wakeup_dl's maximum may stay 0.
for t in irqsoff preemptoff preemptirqsoff wakeup wakeup_rt wakeup_dl; do
	if ! grep -qw $t "$TRACEFS/available_tracers"; then
		test_skip "record -p $t: the latency file, its maximum, the tracer put back" \
			"$t is not in available_tracers"
		continue
	fi
	test_expect_success "record -p $t: the latency file, its maximum, the tracer put back" '
		for i in 1 2 3; do
			tr record -p '$t' -o l.dat -- sh -c \
				"chrt -f 10 sleep 0.2 2>/dev/null || sleep 0.2; ls -R /sys >/dev/null 2>&1; sleep 0.2" \
				2>err &&
			tr report -i l.dat >out &&
			max=$(max_of out) &&
			{ [ '$t' = wakeup_dl ] || [ "${max:-0}" -gt 0 ]; } && break
		done &&
		test_grep -E "^'$t': max latency [0-9]+ us$" err &&
		test_grep "^# tracer: '$t'" out &&
		test -n "$max" &&
		{ [ '$t' = wakeup_dl ] || test "$max" -gt 0; } &&
		test "$(cat $TRACEFS/current_tracer)" = nop
	'
done

test_expect_success 'hwlat is not a max-latency tracer: its events are recorded' '
	tr record -p hwlat --duration 1500ms -o hw.dat 2>err &&
	tr report -i hw.dat --stat >st &&
	test_must_fail grep "latency text" st
'

# Each of hwlat, osnoise and timerlat the kernel has: its samples as the
# kernel's trace file prints them (its own printers, not the formats' print
# fmts), time and text.
for t in hwlat osnoise timerlat; do
	grep -qw $t "$TRACEFS/available_tracers" || continue
	test_expect_success "$t samples print as the kernel prints them" '
		test_when_finished "tr reset >/dev/null 2>&1 || :" &&
		tr start -p '$t' &&
		sleep 2.5 &&
		tr stop &&
		grep -v "^#" "$TRACEFS/trace" | grep -oE "[0-9]+\.[0-9]{6}: .*" | head -50 >expect &&
		test -s expect &&
		tr extract -q -o lat.dat &&
		tr report -i lat.dat | grep -oE "[0-9]+\.[0-9]{6}: .*" | head -50 >actual &&
		test_cmp expect actual
	'
done

test_done
