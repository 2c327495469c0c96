#!/bin/bash
# Whatever tr changed is put back when it is interrupted or terminated.
. "$(dirname "$0")/lib.sh"

# run_and_signal SIG: follow the pipe with an event enabled, signal, check.
run_and_signal() {
	local sig=$1 inst I pid
	inst=$(test_instance)
	I=$TRACEFS/instances/$inst
	mkdir $I
	test_when_finished "rmdir $I"
	echo 0 >$I/tracing_on
	( exec "$TR" show -B $inst --pipe -e sched:sched_wakeup -f "pid > 0" -e irq >out 2>err ) &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null || :"
	wait_for 10 file_is $I/events/sched/sched_wakeup/enable 1
	test "$(cat $I/events/sched/sched_wakeup/filter)" = "pid > 0"
	wait_for 10 file_is $I/tracing_on 1
	kill -$sig $pid
	test_wait_exit $pid 10
	test "$(cat $I/events/sched/sched_wakeup/enable)" = 0
	test "$(cat $I/events/sched/sched_wakeup/filter)" = none
	test "$(cat $I/tracing_on)" = 0
	test "$(cat $I/set_event)" = ""
}

test_expect_success 'SIGINT restores events, filters and tracing_on' '
	run_and_signal INT
'

test_expect_success 'SIGTERM restores them too' '
	run_and_signal TERM
'

test_expect_success 'an instance tr created for the run is removed on SIGINT' '
	inst=$(test_instance) &&
	test_when_finished "rmdir $TRACEFS/instances/$inst 2>/dev/null || :"
	( exec "$TR" show -B $inst --pipe -e sched:sched_switch >out 2>err ) &
	pid=$!
	# Signalled once it is set up: its event on, tracing on.
	wait_for 10 file_is $TRACEFS/instances/$inst/events/sched/sched_switch/enable 1
	wait_for 10 file_is $TRACEFS/instances/$inst/tracing_on 1
	kill -INT $pid
	test_wait_exit $pid 10
	test ! -d $TRACEFS/instances/$inst
'

test_done
