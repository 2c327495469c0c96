#!/bin/bash
# The smaller set-up pieces: filters on a whole system, free_buffer,
# --cmdlines-size, the options of tracers that are not current, and
# tr start -p irqsoff starting from a zero tracing_max_latency.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_requires instances events

test_expect_success 'a filter on a system skips the events without its fields, and says which' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched -f "pid == 1" 2>err &&
	test "$(cat $(I $inst)/events/sched/sched_wakeup/filter)" = "pid == 1" &&
	test "$(cat $(I $inst)/events/sched/sched_wakeup/enable)" = 1 &&
	test "$(cat $(I $inst)/events/sched/sched_switch/filter)" = none &&
	test "$(cat $(I $inst)/events/sched/sched_switch/enable)" = 0 &&
	test_grep -q "filter .pid == 1. of .sched. skipped [0-9]* of [0-9]* events, which lack its fields: .*sched:sched_switch" err &&
	test "$(wc -l <err)" = 1 &&
	# Every event enabled has the filter.
	for e in $(sed -n "s/^sched://p" $(I $inst)/set_event); do
		test "$(cat $(I $inst)/events/sched/$e/filter)" = "pid == 1" || exit 1
	done
'

test_expect_success 'a system filter no event takes fails, naming the field, nothing left' '
	inst=$(test_instance) &&
	test_expect_code 1 tr start -B $inst -e sched -f "nosuchfield == 1" 2>err &&
	test_grep -q "bad filter for .sched.: .nosuchfield == 1.: no event of it has its fields: no field .nosuchfield." err &&
	test ! -d $(I $inst)
'

test_expect_success 'tr show free_buffer refuses, and the buffer keeps its size' '
	inst=$(test_instance) &&
	tr instance create $inst &&
	test_when_finished "tr instance destroy $inst" &&
	cat $(I $inst)/buffer_size_kb >before &&
	test_expect_code 64 tr show -B $inst free_buffer 2>err &&
	test_grep -q "free_buffer. is not shown: closing it empties and shrinks the ring buffer" err &&
	test_expect_code 64 tr show instances/$inst/free_buffer 2>/dev/null &&
	cat $(I $inst)/buffer_size_kb >after &&
	test_cmp before after
'

test_expect_success '--cmdlines-size holds during record and is put back after' '
	inst=$(test_instance) &&
	cat $TRACEFS/saved_cmdlines_size >before &&
	tr record -q -B $inst --cmdlines-size 30000 -e sched:sched_process_exec -o c.dat -- \
		cat $TRACEFS/saved_cmdlines_size >during &&
	test "$(cat during)" -ge 30000 &&
	cat $TRACEFS/saved_cmdlines_size >after &&
	test_cmp before after &&
	test_expect_code 64 tr record --cmdlines-size 0 -e sched true 2>err &&
	test_grep -q "bad number of task names .0." err &&
	test_expect_code 64 tr start -B $inst --cmdlines-size 500 -e sched 2>err &&
	test_grep -q "top-level setting: give it without -B" err &&
	test ! -d $(I $inst)
'

test_expect_success 'list -o lists every option file, naming the tracer of those not current' '
	tr list -o >out &&
	for f in $(ls $TRACEFS/options); do
		test_grep -qE "^$f +(on|off)( |$)" out || exit 1
	done &&
	sed "s/^no//" $TRACEFS/trace_options >current &&
	awk "{ print \$1 }" out >names &&
	grep -vxFf current names >others || : &&
	for f in $(cat others); do
		test_grep -qE "^$f +(on|off) +tracer .* \(not current\)$" out || exit 1
	done &&
	if test -e $TRACEFS/options/func_stack_trace && ! grep -qx func_stack_trace current; then
		test_grep -qE "^func_stack_trace +(on|off) +tracer function \(not current\)$" out
	fi
'

if test_have latency && grep -qw irqsoff "$TRACEFS/available_tracers"; then
	test_expect_success 'start -p irqsoff starts from tracing_max_latency 0' '
		test_when_finished "tr reset" &&
		echo 123456 >$TRACEFS/tracing_max_latency &&
		tr start -p irqsoff &&
		test "$(cat $TRACEFS/tracing_max_latency)" -lt 123456
	'
else
	test_skip 'start -p irqsoff starts from tracing_max_latency 0' \
		"no irqsoff tracer here (the full VM kernel has it)"
fi

test_done
