#!/bin/bash
# tr show: the trace, one CPU, control files, snapshot, trace_pipe.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_expect_success 'show FILE prints one control file' '
	tr show current_tracer >out &&
	test_cmp "$TRACEFS/current_tracer" out
'

test_expect_success 'show FILE in an instance' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr show -B $inst tracing_on >out &&
	echo 1 >expect &&
	test_cmp expect out
'

test_expect_success 'show prints the trace with its header' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	echo show-test-line >$TRACEFS/instances/$inst/trace_marker &&
	tr show -B $inst >out &&
	test_grep "^# tracer: nop" out &&
	test_grep "tracing_mark_write: show-test-line" out
'

test_expect_success 'show --cpu N prints that CPU only' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	taskset -c 0 sh -c "echo on-cpu0 >$TRACEFS/instances/$inst/trace_marker" &&
	tr show -B $inst --cpu 0 >out0 &&
	test_grep on-cpu0 out0 &&
	if [ -d $TRACEFS/per_cpu/cpu1 ]; then
		tr show -B $inst --cpu 1 >out1 &&
		test_must_fail grep on-cpu0 out1
	fi
'

test_expect_success 'show --cpu of a CPU that does not exist' '
	test_expect_code 1 tr show --cpu 4000 2>err &&
	test_grep "no cpu 4000" err
'

test_expect_success 'show of a file that does not exist names it' '
	test_expect_code 1 tr show nosuchfile 2>err &&
	test_grep "no file '"'"'nosuchfile'"'"'" err
'

test_expect_success 'show refuses paths outside the instance' '
	test_expect_code 64 tr show ../../../etc/passwd 2>err &&
	test_expect_code 64 tr show /etc/passwd 2>err
'

if test_have snapshot; then
	test_expect_success 'show --snapshot prints the snapshot buffer' '
		tr show --snapshot >out &&
		test_grep "^# tracer:" out
	'
else
	test_expect_success 'show --snapshot is refused, naming the capability' '
		test_expect_code 1 tr show --snapshot 2>err &&
		test_grep "^tr: snapshot is not available on this kernel: no '"'"'snapshot'"'"' file" err
	'
fi

test_expect_success 'show --pipe -e follows trace_pipe and restores on SIGINT' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	echo 0 >$I/tracing_on
	( exec "$TR" show -B $inst --pipe -e sched:sched_switch >out 2>err ) &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null || :"
	for i in $(seq 50); do
		[ "$(cat $I/tracing_on)" = 1 ] && break
		sleep 0.1
	done &&
	echo piped-line >$I/trace_marker &&
	for i in $(seq 50); do grep -q piped-line out && break; sleep 0.1; done &&
	kill -INT $pid &&
	test_wait_exit $pid 10 &&
	test_grep "tracing_mark_write: piped-line" out &&
	test "$(cat $I/tracing_on)" = 0 &&
	test "$(cat $I/events/sched/sched_switch/enable)" = 0
'

test_expect_success 'show --pipe -e starts from an empty buffer' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	echo old-line >$I/trace_marker &&
	echo 0 >$I/tracing_on
	( exec "$TR" show -B $inst --pipe -e sched:sched_switch >out 2>err ) &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null || :"
	for i in $(seq 100); do
		[ "$(cat $I/tracing_on)" = 1 ] && break
		sleep 0.1
	done &&
	echo new-line >$I/trace_marker &&
	for i in $(seq 50); do grep -q new-line out && break; sleep 0.1; done &&
	kill -INT $pid &&
	test_wait_exit $pid 10 &&
	test_grep "tracing_mark_write: new-line" out &&
	! grep -q old-line out
'

test_expect_success 'show --pipe -e is refused on a buffer another tr session holds' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	mkdir -p "$TR_STATE_DIR" &&
	lock="$TR_STATE_DIR/session-$inst.lock" &&
	test_when_finished "rm -f $lock" &&
	flock "$lock" env TR="$TR" INST="$inst" sh -c \
		"\"\$TR\" show -B \"\$INST\" --pipe -e sched:sched_switch >out 2>err; echo \$? >rc" &&
	test "$(cat rc)" = 1 &&
	test_grep "instance .$inst. is in use by another tr session" err &&
	test "$(cat $TRACEFS/instances/$inst/events/sched/sched_switch/enable)" = 0
'

test_expect_success '-e without --pipe is a usage error' '
	test_expect_code 64 tr show -e sched 2>err &&
	test_grep "goes with --pipe" err
'

test_done
