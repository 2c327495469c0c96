#!/bin/bash
# tr start / stop / restart / clear, and the shared event selection.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

E=events/sched/sched_switch

test_expect_success 'start enables the selected events in a new instance' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch -e sched_wakeup &&
	I=$TRACEFS/instances/$inst &&
	test "$(cat $I/$E/enable)" = 1 &&
	test "$(cat $I/events/sched/sched_wakeup/enable)" = 1 &&
	test "$(cat $I/events/sched/sched_waking/enable)" = 0 &&
	test "$(cat $I/tracing_on)" = 1 &&
	sort $I/set_event >out &&
	printf "sched:sched_switch\nsched:sched_wakeup\n" >expect &&
	test_cmp expect out
'

test_expect_success 'start with a glob and a filter on the preceding -e' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e "sched:sched_wakeup*" -f "pid > 1" -e irq:irq_handler_entry &&
	I=$TRACEFS/instances/$inst &&
	test "$(cat $I/events/sched/sched_wakeup_new/filter)" = "pid > 1" &&
	test "$(cat $I/events/sched/sched_wakeup/filter)" = "pid > 1" &&
	test "$(cat $I/events/sched/sched_waking/enable)" = 0 &&
	test "$(cat $I/events/irq/irq_handler_entry/filter)" = none
'

test_expect_success 'an empty -f clears the filter of that event alone' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch -f "prev_pid == 1" -e sched:sched_wakeup -f "pid == 1" &&
	I=$TRACEFS/instances/$inst &&
	echo "traceoff if prev_pid == 999999" >$I/events/sched/sched_switch/trigger &&
	tr start -B $inst -e sched:sched_switch -f "" &&
	test "$(cat $I/events/sched/sched_switch/filter)" = none &&
	test "$(cat $I/events/sched/sched_wakeup/filter)" = "pid == 1" &&
	test_grep "^1" $I/events/sched/sched_switch/enable &&
	test_grep "^traceoff:unlimited if prev_pid == 999999" $I/events/sched/sched_switch/trigger
'

test_expect_success '--clear-filter is -f "": the preceding event alone, and it must follow an -e' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch -f "prev_pid == 1" -e sched:sched_wakeup -f "pid == 1" &&
	I=$TRACEFS/instances/$inst &&
	tr start -B $inst -e sched:sched_wakeup --clear-filter &&
	test "$(cat $I/events/sched/sched_wakeup/filter)" = none &&
	test "$(cat $I/events/sched/sched_switch/filter)" = "prev_pid == 1" &&
	test_grep "^1" $I/events/sched/sched_wakeup/enable &&
	test_expect_code 64 tr start -B $inst --clear-filter -e sched:sched_switch 2>err &&
	test_grep "filter .. must follow an -e event" err &&
	test_expect_code 64 tr start -B $inst -e sched:sched_switch -f "prev_pid == 2" --clear-filter 2>err &&
	test_grep "event .sched:sched_switch. already has a filter" err &&
	test "$(cat $I/events/sched/sched_switch/filter)" = "prev_pid == 1"
'

test_expect_success 'start -e SYSTEM enables the whole system' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e irq &&
	grep -c "^irq:" $TRACEFS/available_events >want &&
	grep -c "^irq:" $TRACEFS/instances/$inst/set_event >got &&
	test_cmp want got
'

test_expect_success 'events really get recorded after start' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch &&
	wait_for 10 show_has $inst "sched_switch: prev_comm=.* ==> next_comm=" &&
	tr show -B $inst >out &&
	test_grep -E "sched_switch: prev_comm=.* ==> next_comm=" out
'

test_expect_success 'an unknown event fails naming it and changes nothing' '
	inst=$(test_instance) &&
	test_expect_code 1 tr start -B $inst -e sched:sched_switch -e sched:nosuch 2>err &&
	echo "tr: no such event '"'"'sched:nosuch'"'"'" >expect &&
	test_cmp expect err &&
	test ! -d $TRACEFS/instances/$inst
'

test_expect_success 'a bad filter shows the kernel'"'"'s reason and changes nothing' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	test_expect_code 1 tr start -B $inst -e sched:sched_wakeup -e sched:sched_switch -f "nosuchfield == 1" 2>err &&
	test_grep "^tr: bad filter for '"'"'sched:sched_switch'"'"': '"'"'nosuchfield == 1'"'"'" err &&
	test_grep "Field not found" err &&
	test_grep "Command: nosuchfield == 1" err &&
	I=$TRACEFS/instances/$inst &&
	test "$(cat $I/$E/filter)" = none &&
	test "$(cat $I/$E/enable)" = 0 &&
	test "$(cat $I/events/sched/sched_wakeup/enable)" = 0
'

test_expect_success 'a failure after some events were enabled puts them back' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	test_expect_code 1 tr start -B $inst -e sched:sched_switch -p nosuchtracer 2>err &&
	test_grep "unknown tracer '"'"'nosuchtracer'"'"' (available: " err &&
	test "$(cat $TRACEFS/instances/$inst/$E/enable)" = 0
'

test_expect_success '-f without a preceding -e is a usage error' '
	test_expect_code 64 tr start -f "pid == 1" 2>err &&
	test_grep "must follow an -e event" err
'

test_expect_success 'a malformed selector is a usage error' '
	test_expect_code 64 tr start -e "a:b:c" 2>err &&
	test_grep "bad event selector '"'"'a:b:c'"'"'" err
'

test_expect_success 'start sets clock, buffer size and options' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -C global -b 256 -O noirq-info -O record-tgid &&
	I=$TRACEFS/instances/$inst &&
	test_grep "\[global\]" $I/trace_clock &&
	kb=$(cat $I/buffer_size_kb) &&
	test $kb -ge 256 && test $kb -lt 300 &&
	test "$(cat $I/options/irq-info)" = 0 &&
	test "$(cat $I/options/record-tgid)" = 1
'

test_expect_success 'unknown clock and option are named' '
	test_expect_code 1 tr start -B $(test_instance) -C nosuchclock 2>err &&
	test_grep "unknown clock '"'"'nosuchclock'"'"'" err &&
	test_expect_code 1 tr start -B $(test_instance) -O nosuchopt 2>err &&
	test_grep "unknown trace option '"'"'nosuchopt'"'"'" err &&
	test ! -d $TRACEFS/instances/$(test_instance)
'

test_expect_success 'function_graph options this kernel lacks name the kernel that has them' '
	for o in funcgraph-args nofuncgraph-retaddr; do
		if test -e $TRACEFS/options/${o#no}; then
			echo "# this kernel has ${o#no}" && continue
		fi
		test_expect_code 1 tr start -B $(test_instance) -O $o 2>err &&
		test_grep -x "tr: this kernel has no trace option .$o. (Linux 6.1[35] with CONFIG_FUNCTION_[A-Z_]* has it)" err &&
		test ! -d $TRACEFS/instances/$(test_instance) || return 1
	done
'

test_expect_success 'bad buffer sizes are usage errors' '
	test_expect_code 64 tr start -b 12abc 2>err &&
	test_grep "bad buffer size '"'"'12abc'"'"'" err &&
	test_expect_code 64 tr start -b 0 2>err
'

if test_have function; then
	test_expect_success 'start -p function selects the function tracer' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst" &&
		tr start -B $inst -p function &&
		test "$(cat $TRACEFS/instances/$inst/current_tracer)" = function
	'
else
	test_expect_success 'start -p function is refused with the reason' '
		inst=$(test_instance) &&
		test_expect_code 1 tr start -B $inst -p function 2>err &&
		test_grep "^tr: function is not available on this kernel: " err &&
		test ! -d $TRACEFS/instances/$inst
	'
fi

test_expect_success 'stop and restart flip tracing_on and nothing else' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch &&
	tr stop -B $inst &&
	test "$(cat $TRACEFS/instances/$inst/tracing_on)" = 0 &&
	test "$(cat $TRACEFS/instances/$inst/$E/enable)" = 1 &&
	tr restart -B $inst &&
	test "$(cat $TRACEFS/instances/$inst/tracing_on)" = 1
'

test_expect_success 'stop -e turns only those events off; tracing stays on' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch -e "irq:*" &&
	test_grep "^irq:" $TRACEFS/instances/$inst/set_event &&
	tr stop -B $inst -e "irq:*" &&
	test "$(cat $TRACEFS/instances/$inst/set_event)" = sched:sched_switch &&
	test "$(cat $TRACEFS/instances/$inst/tracing_on)" = 1 &&
	test_expect_code 1 tr stop -B $inst -e sched:sched_switch -e nosuch:ev 2>err &&
	test_grep "no such event .nosuch:ev." err &&
	test "$(cat $TRACEFS/instances/$inst/set_event)" = sched:sched_switch &&
	test_expect_code 64 tr stop -B $inst -e sched:sched_switch -f "prev_pid == 1" 2>err &&
	test_grep "only turns events off" err &&
	tr stop -B $inst -e sched &&
	test -z "$(cat $TRACEFS/instances/$inst/set_event)"
'

test_expect_success 'clear empties the buffer' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst &&
	echo hello-marker >$TRACEFS/instances/$inst/trace_marker &&
	tr show -B $inst >out &&
	test_grep hello-marker out &&
	tr clear -B $inst &&
	tr show -B $inst >out &&
	test_must_fail grep hello-marker out
'

test_expect_success 'stop of a missing instance names it' '
	test_expect_code 1 tr stop -B nosuch-inst-$$ 2>err &&
	test_grep "no such instance '"'"'nosuch-inst-$$'"'"'" err
'

test_done
