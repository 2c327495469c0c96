#!/bin/bash
# Tracers, function filters and latency tracers on start (record uses the same set-up).
. "$(dirname "$0")/lib.sh"
test_kernels full debian

if ! test_have function_filter; then
	test_expect_success 'function filters are refused in one line with the reason' '
		test_expect_code 1 tr start -B $(test_instance) -l schedule 2>err &&
		test_grep "^tr: function_filter is not available on this kernel: " err &&
		test $(wc -l <err) = 1 &&
		test ! -d $TRACEFS/instances/$(test_instance)
	'
	test_expect_success 'unrelated work still works on the same host' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst" &&
		tr start -B $inst -e sched:sched_switch &&
		test "$(cat $TRACEFS/instances/$inst/events/sched/sched_switch/enable)" = 1
	'
fi

if ! test_have function; then
	test_expect_success 'the function tracer is refused with the reason' '
		test_expect_code 1 tr start -B $(test_instance) -p function 2>err &&
		test_grep "^tr: function is not available on this kernel: " err
	'
fi
test_requires function function_filter

test_expect_success 'function tracer with -l traces only the filtered functions' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -p function -l "vfs_read" -l "vfs_write" &&
	cat /etc/hostname >/dev/null && echo x >/dev/null &&
	sleep 0.2 &&
	tr stop -B $inst &&
	tr show -B $inst >out &&
	test_grep -E ": vfs_read <-" out &&
	grep -E "^ +.*-[0-9]+ +\[[0-9]+\]" out | grep -vE ": vfs_(read|write) <-" >other || : &&
	test_must_fail test -s other
'

test_expect_success 'a function that matches nothing is named' '
	test_expect_code 1 tr start -B $(test_instance) -p function -l "no_such_function_xyz" 2>err &&
	test_grep "no function matches '"'"'no_such_function_xyz'"'"'" err
'

# Instances have no set_graph_function: this one works on the top level.
test_expect_success 'function_graph with -g graphs the function and its callees' '
	test_when_finished "tr reset >/dev/null" &&
	tr start -p function_graph -g vfs_read --max-graph-depth 2 &&
	cat /etc/hostname >/dev/null &&
	sleep 0.2 &&
	tr stop &&
	tr show >out &&
	test_grep -E "vfs_read\(\) \{" out &&
	test "$(cat $TRACEFS/max_graph_depth)" = 2 &&
	tr reset &&
	test "$(cat $TRACEFS/max_graph_depth)" = 0 &&
	test_grep "all functions enabled" $TRACEFS/set_graph_function
'

test_expect_success '-g in an instance says instances have no graph filter' '
	test_expect_code 1 tr start -B $(test_instance) -p function_graph -g vfs_read 2>err &&
	# 6.1 has no function_graph in instances at all (tr names the top
	# level as its place); later kernels lack only the filter.
	test_grep -E "this kernel has no set_graph_function in instances|tracer .function_graph. works in the top-level buffer only, not in instance" err &&
	test ! -d $TRACEFS/instances/$(test_instance)
'

test_expect_success 'filters and tracer are restored after a failure' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	test_expect_code 1 tr start -B $inst -p function -l vfs_read -e sched:nosuch 2>err &&
	test "$(cat $TRACEFS/instances/$inst/current_tracer)" = nop &&
	test_grep "all functions enabled" $TRACEFS/instances/$inst/set_ftrace_filter
'

if test_have latency; then
	test_expect_success 'irqsoff records a max latency above 0' '
		test_when_finished "tr reset >/dev/null 2>&1" &&
		tr start -p irqsoff &&
		sleep 0.5 &&
		tr stop &&
		max=$(cat $TRACEFS/tracing_max_latency) &&
		test "$max" -gt 0 &&
		tr show >out &&
		test_grep "# tracer: irqsoff" out &&
		test_grep "latency: $max us" out
	'
fi

test_done
