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

# trace-cmd show's names for control files, with underscores and dashes.
# (tracing_on is off below so that the traceoff trigger never counts down.)
test_expect_success 'trace-cmd show'"'"'s file options print those files of the instance' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	echo 1234 >$I/buffer_size_kb &&
	tr show -B "$inst" --buffer_size >out &&
	tr show -B "$inst" --buffer-size >out2 &&
	cat $I/buffer_size_kb >expect &&
	test_cmp expect out && test_cmp expect out2 &&
	tr show -B "$inst" --tracing_on >out && test_cmp $I/tracing_on out &&
	tr show -B "$inst" --current-tracer >out && test_cmp $I/current_tracer out &&
	tr show -B "$inst" --cpumask >out && test_cmp $I/tracing_cpumask out &&
	tr show -B "$inst" --buffer_percent >out && test_cmp $I/buffer_percent out &&
	if [ -e $I/buffer_subbuf_size_kb ]; then
		tr show -B "$inst" --buffer-subbuf-size >out &&
		test_cmp $I/buffer_subbuf_size_kb out
	else
		test_expect_code 1 tr show -B "$inst" --buffer_subbuf_size 2>err &&
		test_grep "no file .buffer_subbuf_size_kb." err
	fi
'

test_expect_success '--trigger and --hist take SYSTEM:EVENT or an EVENT one system has' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	echo 0 >$I/tracing_on &&
	echo traceoff:5 >$I/events/sched/sched_switch/trigger &&
	test_when_finished "echo !traceoff >$I/events/sched/sched_switch/trigger" &&
	tr show -B "$inst" --trigger sched:sched_switch >out &&
	test_grep "^traceoff:count=5$" out &&
	tr show -B "$inst" --trigger sched_switch >out2 &&
	test_cmp out out2 &&
	test_expect_code 1 tr show -B "$inst" --trigger sched:nosuch 2>err &&
	test_grep "no such event .sched:nosuch." err &&
	test_expect_code 1 tr show -B "$inst" --trigger nosuch_event 2>err &&
	test_grep "no such event .nosuch_event." err &&
	if test_have hist; then
		echo "hist:keys=prev_pid" >$I/events/sched/sched_switch/trigger &&
		test_when_finished "echo !hist:keys=prev_pid >$I/events/sched/sched_switch/trigger" &&
		tr show -B "$inst" --hist sched_switch >out &&
		test_grep "^# event histogram" out
	else
		test_expect_code 1 tr show -B "$inst" --hist sched_switch 2>err &&
		test_grep "hist is not available on this kernel" err
	fi &&
	test_expect_code 64 tr show --trigger sched_switch --buffer_size 2>err &&
	test_grep "one file at a time" err &&
	test_expect_code 64 tr show --cpu 0 --hist sched_switch 2>err &&
	test_grep "cpu does not go with --hist" err
'

test_expect_success '-e without --pipe is a usage error' '
	test_expect_code 64 tr show -e sched 2>err &&
	test_grep "goes with --pipe" err
'

test_done
