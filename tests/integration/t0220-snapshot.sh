#!/bin/bash
# tr snapshot take|show|clear|free.
. "$(dirname "$0")/lib.sh"
test_kernels full

if ! test_have snapshot; then
	test_expect_success 'snapshot is refused with the reason' '
		test_expect_code 1 tr snapshot take 2>err &&
		test_grep "^tr: snapshot is not available on this kernel: no '"'"'snapshot'"'"' file" err
	'
fi
test_requires snapshot

test_expect_success 'take keeps what the buffer had; show prints it' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	echo before-snapshot >$TRACEFS/instances/$inst/trace_marker &&
	tr snapshot -B $inst take &&
	echo after-snapshot >$TRACEFS/instances/$inst/trace_marker &&
	tr snapshot -B $inst show >out &&
	test_grep before-snapshot out &&
	test_must_fail grep after-snapshot out
'

test_expect_success 'clear empties it and free releases it' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	echo snap-line >$TRACEFS/instances/$inst/trace_marker &&
	tr snapshot -B $inst take &&
	tr snapshot -B $inst clear &&
	tr snapshot -B $inst show >out &&
	test_must_fail grep snap-line out &&
	tr snapshot -B $inst free &&
	tr snapshot -B $inst show >out &&
	test_grep "Snapshot is freed" out
'

test_expect_success 'unknown action is a usage error' '
	test_expect_code 64 tr snapshot frob 2>err &&
	test_grep "unknown action '"'"'frob'"'"'" err
'

test_done
