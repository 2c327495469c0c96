#!/bin/bash
# tr instance create|destroy|list, and tr reset of what tr created.
. "$(dirname "$0")/lib.sh"

test_expect_success 'create makes an instance, list shows it, destroy removes it' '
	inst=$(test_instance) &&
	test_when_finished "rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	tr instance create $inst &&
	test -d $TRACEFS/instances/$inst &&
	test "$(cat $TRACEFS/instances/$inst/tracing_on)" = 1 &&
	tr instance list >out &&
	test_grep -E "^$inst +tracer=nop tracing_on=1$" out &&
	tr instance destroy $inst &&
	test ! -d $TRACEFS/instances/$inst
'

test_expect_success 'create of an existing instance fails naming it' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	test_expect_code 1 tr instance create $inst 2>err &&
	test_grep "instance '"'"'$inst'"'"' already exists" err
'

test_expect_success 'destroy of a missing instance fails naming it' '
	test_expect_code 1 tr instance destroy nosuch-$$ 2>err &&
	test_grep "no such instance '"'"'nosuch-$$'"'"'" err
'

test_expect_success 'destroy of a busy instance says so' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	exec 7<$TRACEFS/instances/$inst/trace_pipe &&
	test_expect_code 1 tr instance destroy $inst 2>err &&
	exec 7<&- &&
	test_grep "busy" err
'

test_expect_success 'bad names and actions are usage errors' '
	test_expect_code 64 tr instance create "a/b" 2>err &&
	test_grep "bad instance name" err &&
	test_expect_code 64 tr instance frob x 2>err &&
	test_grep "unknown action '"'"'frob'"'"'" err &&
	test_expect_code 64 tr instance create 2>err &&
	test_grep "create needs an instance name" err
'

test_expect_success 'reset removes the instances tr created, not others' '
	mine=$(test_instance)-mine theirs=$(test_instance)-theirs &&
	mkdir $TRACEFS/instances/$theirs &&
	test_when_finished "rmdir $TRACEFS/instances/$theirs $TRACEFS/instances/$mine 2>/dev/null || :" &&
	tr instance create $mine &&
	tr reset -B $mine &&
	test ! -d $TRACEFS/instances/$mine &&
	test -d $TRACEFS/instances/$theirs
'

test_expect_success 'reset -B puts an instance back to defaults' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	echo 1 >$I/events/sched/sched_switch/enable &&
	echo "prev_pid == 1" >$I/events/sched/sched_switch/filter &&
	echo "traceoff:3 if prev_pid == 999999" >$I/events/sched/sched_switch/trigger &&
	echo "enable_event:sched:sched_wakeup if prev_pid == 2" >$I/events/sched/sched_switch/trigger &&
	echo hello >$I/trace_marker &&
	echo 0 >$I/tracing_on &&
	{ echo "prev_pid ==" >$I/events/sched/sched_switch/filter 2>/dev/null || :; } &&
	if test -f $I/error_log; then test_grep "prev_pid ==" $I/error_log; fi &&
	tr reset -B $inst &&
	{ ! test -f $I/error_log || test_must_be_empty $I/error_log; } &&
	test "$(cat $I/events/sched/sched_switch/enable)" = 0 &&
	test "$(cat $I/events/sched/sched_switch/filter)" = none &&
	test_must_fail grep -v "^#" $I/events/sched/sched_switch/trigger &&
	test "$(cat $I/tracing_on)" = 1 &&
	test "$(cat $I/set_event)" = "" &&
	test_must_fail grep hello $I/trace
'

test_expect_success 'reset -B: an event an enable_event trigger turned on is off after' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "echo 0 >$TRACEFS/instances/$inst/events/enable; rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	echo 1 >$I/events/sched/sched_switch/enable &&
	echo "enable_event:sched:sched_wakeup" >$I/events/sched/sched_switch/trigger &&
	# The trigger fires at the next switch; the kernel then keeps its
	# target on through events/enable until the trigger is gone.
	for i in $(seq 50); do
		grep -qx sched:sched_wakeup $I/set_event && break
		sleep 0.1
	done &&
	test_grep -qx sched:sched_wakeup $I/set_event &&
	tr reset -B $inst &&
	test "$(cat $I/events/sched/sched_wakeup/enable)" = 0 &&
	test "$(cat $I/set_event)" = ""
'

test_expect_success 'start then reset restores the buffer size tr changed' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	before=$(cat $I/buffer_size_kb) &&
	tr start -B $inst -b 512 &&
	test "$(cat $I/buffer_size_kb)" != "$before" &&
	tr reset -B $inst &&
	test "$(cat $I/buffer_size_kb)" = "$before"
'

test_expect_success 'destroy forgets what tr noted inside the instance: a later reset is quiet' '
	inst=$(test_instance) &&
	test_when_finished "rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	tr instance create $inst &&
	tr trigger add -B $inst -e ftrace:print traceoff &&
	test_grep -q "instances/$inst" "$TR_STATE_DIR/state" &&
	tr instance destroy $inst &&
	! grep -qs "instances/$inst" "$TR_STATE_DIR/state" &&
	tr reset >out 2>err &&
	test_must_be_empty err
'

test_done
