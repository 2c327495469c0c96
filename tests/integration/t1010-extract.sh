#!/bin/bash
# tr extract: save what tr start collected; the read consumes; snapshot needs
# the kernel's snapshot buffer.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_requires instances events

# trace-cmd's text (tr's default is the kernel's, where a marker has no "print:").
report() {
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i "$1" 2>/dev/null
	else
		"$TR" report --format=libtraceevent -O noirq-info -i "$1"
	fi
}

test_expect_success 'extract saves the buffer after tr start, and consumes it' '
	inst=$(test_instance) &&
	tr start -B "$inst" -e sched:sched_process_exit &&
	test_when_finished "\"$TR\" reset -B $inst" &&
	for i in 1 2 3 4 5; do echo "mark $i" >"$TRACEFS/instances/$inst/trace_marker"; done &&
	/bin/true &&
	tr extract -B "$inst" -o one.dat 2>err &&
	report one.dat >out &&
	sed -n "s/.* print: *[^ ]*: //p" out >marks &&
	printf "mark %s\n" 1 2 3 4 5 >expect &&
	test_cmp expect marks &&
	test_grep "sched_process_exit: .*comm=true" out &&
	test_grep -E "^ +total +[0-9]+ +0 " err &&
	tr extract -B "$inst" -o two.dat 2>/dev/null &&
	report two.dat >out2 &&
	! grep "mark 1" out2
'

test_expect_success 'extract keeps the instance as it was (tracing on, events enabled)' '
	inst=$(test_instance) &&
	tr start -B "$inst" -e sched:sched_process_exit &&
	test_when_finished "\"$TR\" reset -B $inst" &&
	tr extract -q -B "$inst" -o x.dat &&
	test "$(cat "$TRACEFS/instances/$inst/tracing_on")" = 1 &&
	test_grep "sched:sched_process_exit" "$TRACEFS/instances/$inst/set_event"
'

test_expect_success 'extract reports events lost to an overflowing buffer' '
	inst=$(test_instance) &&
	tr start -B "$inst" -b 8 &&
	test_when_finished "\"$TR\" reset -B $inst" &&
	for i in $(seq 1 3000); do echo "mark $i overflowing a small buffer" >"$TRACEFS/instances/$inst/trace_marker"; done &&
	tr extract -B "$inst" -o lost.dat 2>err &&
	lost=$(awk "\$1 == \"total\" { print \$3 }" err) &&
	test "$lost" -gt 0 &&
	report lost.dat | sed -n "s/.* print: *[^ ]*: mark \([0-9]*\) .*/\1/p" >nums &&
	test "$(tail -n 1 nums)" = 3000
'

test_expect_success 'extract stores the formats of events disabled since they were recorded' '
	inst=$(test_instance) &&
	tr start -B "$inst" -e sched:sched_process_exec -e sched:sched_process_exit &&
	test_when_finished "\"$TR\" reset -B $inst" &&
	/bin/true &&
	echo 0 >"$TRACEFS/instances/$inst/events/sched/enable" &&
	test_must_fail grep sched "$TRACEFS/instances/$inst/set_event" &&
	tr extract -q -B "$inst" -o off.dat &&
	tr report -i off.dat >out &&
	test_grep "sched_process_exec: .*filename=/bin/true" out &&
	test_grep "sched_process_exit: .*comm=true" out &&
	test_must_fail grep -i "unknown" out &&
	tr report --events -i off.dat | grep "^name: sched_" | sort >names &&
	printf "name: %s\n" sched_process_exec sched_process_exit >expect &&
	test_cmp expect names
'

test_expect_success 'a missing instance is an error' '
	test_expect_code 1 tr extract -B trtest-no-such-instance-$$ -o x.dat 2>err &&
	test_grep "no such instance" err &&
	test ! -d "$TRACEFS/instances/trtest-no-such-instance-$$"
'

if test_have snapshot; then
	test_expect_success 'extract --snapshot saves the snapshot buffer' '
		inst=$(test_instance) &&
		tr start -B "$inst" &&
		test_when_finished "\"$TR\" reset -B $inst" &&
		echo "before snapshot" >"$TRACEFS/instances/$inst/trace_marker" &&
		echo 1 >"$TRACEFS/instances/$inst/snapshot" &&
		tr extract -q --snapshot -B "$inst" -o snap.dat &&
		report snap.dat | test_grep "before snapshot"
	'
else
	test_expect_success 'extract --snapshot says the kernel has no snapshot' '
		test_expect_code 1 tr extract --snapshot -o nosnap.dat 2>err &&
		test_grep "snapshot is not available" err &&
		test ! -e nosnap.dat
	'
fi

test_done
