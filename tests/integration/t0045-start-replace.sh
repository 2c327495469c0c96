#!/bin/bash
# tr start adds to what is enabled; --replace turns the rest off first (as
# trace-cmd start does).  Both kept until tr reset; a failure changes nothing.
. "$(dirname "$0")/lib.sh"
test_requires events instances

test_expect_success 'tr start adds: earlier events stay enabled' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :" &&
	tr start -B "$inst" -e sched:sched_switch &&
	tr start -B "$inst" -e sched:sched_wakeup &&
	sort "$TRACEFS/instances/$inst/set_event" >got &&
	printf "sched:sched_switch\nsched:sched_wakeup\n" >expect &&
	test_cmp expect got
'

test_expect_success 'tr start --replace: only the new events are enabled' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :" &&
	tr start -B "$inst" -e sched:sched_switch -e sched:sched_wakeup &&
	tr start --replace -B "$inst" -e sched:sched_waking &&
	echo sched:sched_waking >expect &&
	test_cmp expect "$TRACEFS/instances/$inst/set_event" &&
	tr reset -B "$inst" &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'a failing --replace leaves the earlier events on' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :" &&
	tr start -B "$inst" -e sched:sched_switch &&
	test_expect_code 1 tr start --replace -B "$inst" -e sched:nosuch 2>err &&
	test_grep -q "no such event" err &&
	echo sched:sched_switch >expect &&
	test_cmp expect "$TRACEFS/instances/$inst/set_event"
'

test_done
