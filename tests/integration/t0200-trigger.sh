#!/bin/bash
# tr trigger add|del|list, and --trigger on a session.
. "$(dirname "$0")/lib.sh"
test_kernels full debian
test_requires triggers

test_expect_success 'add, list and del an event trigger' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr trigger add -B $inst -e sched:sched_switch "stacktrace:5 if prev_pid == 999999" &&
	tr trigger list -B $inst >out &&
	test_grep -E "^sched:sched_switch +stacktrace:count=5 if prev_pid == 999999$" out &&
	tr trigger del -B $inst -e sched:sched_switch stacktrace &&
	tr trigger list -B $inst >out &&
	test_must_fail grep stacktrace out
'

test_expect_success 'del removes one trigger and leaves the others of the event and of other events' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "tr reset -B $inst; rmdir $TRACEFS/instances/$inst" &&
	tr trigger add -B $inst -e sched:sched_switch "stacktrace:5 if prev_pid == 999999" &&
	tr trigger add -B $inst -e sched:sched_switch "traceoff:3 if prev_pid == 999998" &&
	tr trigger add -B $inst -e sched:sched_wakeup "traceoff:2 if pid == 999997" &&
	tr trigger del -B $inst -e sched:sched_switch traceoff &&
	grep -v "^#" $TRACEFS/instances/$inst/events/sched/sched_switch/trigger >sw &&
	echo "stacktrace:count=5 if prev_pid == 999999" >expect &&
	test_cmp expect sw &&
	test_grep "^traceoff:count=2 if pid == 999997" $TRACEFS/instances/$inst/events/sched/sched_wakeup/trigger &&
	tr trigger list -B $inst >out &&
	test $(wc -l <out) = 2
'

test_expect_success 'triggers on trace_marker writes (ftrace:print, not in available_events)' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "tr reset -B $inst; rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	tr trigger add -B $inst -e ftrace:print "traceoff:1 if buf ~ \"*stop*\"" &&
	tr trigger list -B $inst >out &&
	test_grep -E "^ftrace:print +traceoff:count=1 if buf ~ \"\*stop\*\"" out &&
	echo go >$I/trace_marker &&
	test "$(cat $I/tracing_on)" = 1 &&
	echo stop >$I/trace_marker &&
	test "$(cat $I/tracing_on)" = 0 &&
	tr trigger del -B $inst -e ftrace:print traceoff &&
	tr trigger list -B $inst >out &&
	test_must_fail grep ftrace:print out
'

test_expect_success 'a traceoff trigger stops tracing after COUNT hits' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "tr reset -B $inst; rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	cp /bin/true trmark-$$ &&
	tr trigger add -B $inst -e sched:sched_process_exec "traceoff:1 if filename ~ \"*trmark-*\"" &&
	test "$(cat $I/tracing_on)" = 1 &&
	./trmark-$$ &&
	for i in $(seq 50); do [ "$(cat $I/tracing_on)" = 0 ] && break; sleep 0.1; done &&
	test "$(cat $I/tracing_on)" = 0 &&
	tr trigger list -B $inst >out &&
	test_grep -E "traceoff:count=0" out
'

test_expect_success 'an enable_event trigger enables its target' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "tr reset -B $inst; rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	tr trigger add -B $inst -e sched:sched_process_exec "enable_event:sched:sched_process_exit:1" &&
	/bin/true &&
	for i in $(seq 50); do grep -q 1 $I/events/sched/sched_process_exit/enable && break; sleep 0.1; done &&
	grep -q "^1" $I/events/sched/sched_process_exit/enable
'

test_expect_success 'a stacktrace trigger records a kernel stack' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "tr reset -B $inst; rmdir $TRACEFS/instances/$inst" &&
	tr trigger add -B $inst -e sched:sched_process_exec "stacktrace:1" &&
	/bin/true &&
	wait_for 10 show_has $inst "<stack trace>" &&
	tr show -B $inst >out &&
	test_grep "<stack trace>" out
'

test_expect_success 'tr reset removes triggers tr added' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr trigger add -B $inst -e sched:sched_switch "traceon if prev_pid == 999999" &&
	tr reset -B $inst &&
	test_must_fail grep -v "^#" $TRACEFS/instances/$inst/events/sched/sched_switch/trigger
'

test_expect_success 'start --trigger adds it; reset takes it back' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	tr start -B $inst --trigger "sched:sched_switch:stacktrace:3 if prev_pid == 999999" &&
	test_grep "stacktrace:count=3 if prev_pid == 999999" $I/events/sched/sched_switch/trigger &&
	tr reset -B $inst &&
	test_must_fail grep -v "^#" $I/events/sched/sched_switch/trigger
'

test_expect_success 'a malformed --trigger is a usage error' '
	test_expect_code 64 tr start --trigger "sched_switch" 2>err &&
	test_grep "want SYSTEM:EVENT:COMMAND" err
'

test_expect_success 'a bad trigger filter shows the kernel'"'"'s reason' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	test_expect_code 1 tr trigger add -B $inst -e sched:sched_switch "traceoff if nosuch == 1" 2>err &&
	test_grep "cannot add trigger '"'"'traceoff if nosuch == 1'"'"' to '"'"'sched:sched_switch'"'"'" err &&
	# Kernels before 6.3 or so put no trigger filter errors in error_log.
	if ! kernel_before 6.3; then test_grep "Field not found" err; fi &&
	test_must_fail grep -v "^#" $TRACEFS/instances/$inst/events/sched/sched_switch/trigger
'

test_expect_success 'unknown commands, events and counts are named' '
	test_expect_code 1 tr trigger add -e sched:sched_switch "frob" 2>err &&
	test_grep "unknown trigger command '"'"'frob'"'"'" err &&
	test_expect_code 1 tr trigger add -e sched:nosuch "traceoff" 2>err &&
	test_grep "no such event '"'"'sched:nosuch'"'"'" err &&
	test_expect_code 1 tr trigger add -e sched:sched_switch "traceoff:x" 2>err &&
	test_grep "bad count '"'"'x'"'"'" err &&
	test_expect_code 1 tr trigger add -e sched:sched_switch "enable_event:sched:nosuch" 2>err &&
	test_grep "no such event '"'"'sched:nosuch'"'"' (the target of '"'"'enable_event'"'"')" err
'

test_expect_success 'del of a trigger that is not there names it' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	test_expect_code 1 tr trigger del -B $inst -e sched:sched_switch traceoff 2>err &&
	test_grep "no trigger '"'"'traceoff'"'"' on '"'"'sched:sched_switch'"'"'" err
'

# snapshot_has INST ERE: INST's snapshot has a line matching ERE.
snapshot_has() { "$TR" snapshot -B "$1" show 2>/dev/null | grep -qE -- "$2"; }

if test_have snapshot; then
	test_expect_success 'a snapshot trigger keeps the triggering event in the snapshot' '
		inst=$(test_instance) &&
		mkdir $TRACEFS/instances/$inst &&
		test_when_finished "tr reset -B $inst; rmdir $TRACEFS/instances/$inst" &&
		tr start -B $inst -e sched:sched_process_exec &&
		# With a filter the kernel takes the snapshot after writing the event.
		tr trigger add -B $inst -e sched:sched_process_exec "snapshot:1 if filename ~ \"*/true\"" &&
		/bin/true &&
		wait_for 10 snapshot_has $inst "sched_process_exec: filename=/bin/true" &&
		tr snapshot -B $inst show >out &&
		test_grep "sched_process_exec: filename=/bin/true" out
	'
else
	test_expect_success 'a snapshot trigger is refused, naming the capability' '
		test_expect_code 1 tr trigger add -e sched:sched_switch snapshot 2>err &&
		test_grep "^tr: snapshot is not available on this kernel" err
	'
fi

if test_have hist; then
	test_expect_success 'a hist trigger goes to the kernel whole, and back out' '
		inst=$(test_instance) &&
		mkdir $TRACEFS/instances/$inst &&
		test_when_finished "rmdir $TRACEFS/instances/$inst" &&
		tr trigger add -B $inst -e sched:sched_switch "hist:keys=next_pid" &&
		test_grep "^hist:keys=next_pid" $TRACEFS/instances/$inst/events/sched/sched_switch/trigger &&
		tr reset -B $inst &&
		test_must_fail grep -v "^#" $TRACEFS/instances/$inst/events/sched/sched_switch/trigger
	'
else
	test_expect_success 'a hist trigger is refused, naming the capability' '
		test_expect_code 1 tr trigger add -e sched:sched_switch "hist:keys=pid" 2>err &&
		test_grep "^tr: hist is not available on this kernel" err
	'
fi

if test_have function_filter; then
	test_expect_success 'a function trigger is added and removed' '
		inst=$(test_instance) &&
		mkdir $TRACEFS/instances/$inst &&
		test_when_finished "tr reset -B $inst; rmdir $TRACEFS/instances/$inst" &&
		tr trigger add -B $inst "schedule:stacktrace:2" &&
		tr trigger list -B $inst >out &&
		test_grep -E "^function:schedule +stacktrace:count=[0-2]$" out &&
		tr trigger del -B $inst "schedule:stacktrace:2" &&
		tr trigger list -B $inst >out &&
		test_must_fail grep function:schedule out
	'
else
	test_expect_success 'a function trigger is refused with the reason' '
		test_expect_code 1 tr trigger add "schedule:traceoff" 2>err &&
		test_grep "^tr: function_filter is not available on this kernel: " err
	'
fi

test_done
