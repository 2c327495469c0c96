#!/bin/bash
# tr record when things break under it: a reader thread that fails (an
# injected error, TR_FAULT_READER=CPU:PAGES), an output directory on a
# read-only file system, a traced command killed with SIGKILL, SIGINT and
# SIGTERM sent twice.  Each time the recording ends cleanly, the file that
# was written reads back, the command is reaped and tracefs is put back
# (the suite checks the last for every test).  A full file system is
# t1000-record.sh's.
. "$(dirname "$0")/lib.sh"

test_requires instances events

# -b 128: 32 sub-buffers, so the reader wakes (at 5%) while the command writes.
test_expect_success 'a reader that fails mid-recording: exit 1, the file reads back' '
	inst=$(test_instance) &&
	test_expect_code 1 env TR_FAULT_READER=0:1 "$TR" record -B "$inst" -b 128 -e ftrace:print -o fault.dat \
		taskset -c 0 sh -c "for i in \$(seq 1 3000); do echo \"mark \$i\" >$TRACEFS/instances/$inst/trace_marker; done" \
		2>err &&
	test_grep "a reader stopped early: Input/output error" err &&
	test_grep "^wrote .fault.dat." err &&
	tr report -i fault.dat >out &&
	test_grep -q "tracing_mark_write: mark 1$" out &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'an output directory on a read-only file system: refused before tracing' '
	inst=$(test_instance) &&
	mkdir ro &&
	mount -t tmpfs -o ro,size=64k tmpfs ro &&
	test_when_finished "umount $TEST_TMP/ro" &&
	test_expect_code 1 tr record -B "$inst" -e sched:sched_switch -o ro/x.dat true 2>err &&
	test_grep "^tr: cannot write .ro/x.dat.: Read-only file system$" err &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'a traced command killed with SIGKILL ends the recording; the file reads back' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e ftrace:print -e sched:sched_process_exit -o killed.dat \
		sh -c "echo before-kill >$TRACEFS/instances/$inst/trace_marker; kill -9 \$\$" &&
	tr report -i killed.dat >out &&
	test_grep -q "before-kill" out &&
	test ! -d "$TRACEFS/instances/$inst"
'

for sig in INT TERM; do
	test_expect_success "SIG$sig twice: one clean end, the file reads back, the command reaped" '
		inst=$(test_instance)
		"$TR" record -B "$inst" -e ftrace:print -e sched:sched_switch -o twice.dat \
			sh -c "echo \$\$ >cmd.pid; exec sleep 300" 2>err &
		pid=$!
		test_when_finished "kill -KILL $pid 2>/dev/null || :; wait $pid 2>/dev/null || :"
		test_wait_recording "$inst" &&
		echo "before-signal" >"$TRACEFS/instances/$inst/trace_marker" &&
		kill -'$sig' $pid && sleep 0.05 && kill -'$sig' $pid 2>/dev/null;
		wait $pid &&
		tr report -i twice.dat >out &&
		test_grep -q "before-signal" out &&
		test_grep "^wrote .twice.dat." err &&
		! kill -0 "$(cat cmd.pid)" 2>/dev/null &&
		test ! -d "$TRACEFS/instances/$inst"
	'
done

test_done
