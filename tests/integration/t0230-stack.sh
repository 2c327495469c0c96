#!/bin/bash
# tr stack start|stop|show|reset.
. "$(dirname "$0")/lib.sh"
test_kernels full

if ! test_have stack_tracer; then
	test_expect_success 'the stack tracer is refused with the reason' '
		test_expect_code 1 tr stack start 2>err &&
		test_grep "^tr: stack_tracer is not available on this kernel: " err
	'
fi
test_requires stack_tracer

test_expect_success 'start finds a non-zero maximum, reset puts it back' '
	test_when_finished "tr reset >/dev/null 2>&1; echo 0 >/proc/sys/kernel/stack_tracer_enabled" &&
	before=$(cat /proc/sys/kernel/stack_tracer_enabled) &&
	tr stack start &&
	test "$(cat /proc/sys/kernel/stack_tracer_enabled)" = 1 &&
	{ ls -R /sys >/dev/null 2>&1 || :; } &&
	tr stack show >out &&
	test_grep -E "^max stack size: [1-9][0-9]* bytes$" out &&
	test_grep -E "Depth +Size +Location" out &&
	tr reset &&
	test "$(cat /proc/sys/kernel/stack_tracer_enabled)" = "$before"
'

test_expect_success 'stop turns it off' '
	tr stack start &&
	tr stack stop &&
	test "$(cat /proc/sys/kernel/stack_tracer_enabled)" = 0 &&
	tr reset
'

test_done
