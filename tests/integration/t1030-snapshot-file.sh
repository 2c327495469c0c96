#!/bin/bash
# The snapshot buffer in trace files: tr extract --snapshot, and a snapshot
# trigger during tr record kept as the file's buffer "snapshot", which
# tr report --buffer snapshot shows alone.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_requires instances events triggers snapshot

test_expect_success 'extract --snapshot saves the snapshot buffer, not the live one' '
	inst=$(test_instance) &&
	tr start -B "$inst" &&
	test_when_finished "\"$TR\" reset -B $inst" &&
	echo "in the snapshot" >"$TRACEFS/instances/$inst/trace_marker" &&
	echo 1 >"$TRACEFS/instances/$inst/snapshot" &&
	echo "after the snapshot" >"$TRACEFS/instances/$inst/trace_marker" &&
	tr extract -q --snapshot -B "$inst" -o snap.dat &&
	tr report -i snap.dat >out &&
	test_grep "in the snapshot" out &&
	test_must_fail grep "after the snapshot" out &&
	tr extract -q -B "$inst" -o live.dat &&
	tr report -i live.dat >out &&
	test_grep "after the snapshot" out &&
	test_must_fail grep "in the snapshot" out
'

# Note: a trigger without a filter runs before its event is written, so
# the snapshot ends just before that event; with "if FILTER" the event is
# written first and the snapshot holds it.
test_expect_success 'a snapshot trigger during record is kept as the buffer "snapshot"' '
	inst=$(test_instance) &&
	tr record -B "$inst" -e sched:sched_process_exec \
		--trigger "sched:sched_process_exec:snapshot:1 if pid > 0" \
		-o trig.dat sh -c "/bin/true; sleep 0.2; /bin/echo >/dev/null" 2>err &&
	test_grep "kept as buffer .snapshot." err &&
	tr report -i trig.dat --buffer snapshot >snap &&
	test_grep -E "^ *snapshot: +sh-[0-9]+ .* sched_process_exec: +filename=[^ ]*/sh " snap &&
	test_must_fail grep -E "^ *$inst: " snap &&
	tr report -i trig.dat --buffer "$inst" >main &&
	test_grep "filename=/bin/echo" main &&
	test_must_fail grep "^ *snapshot: " main &&
	tr report -i trig.dat >all &&
	test_grep "^ *snapshot: " all && test_grep -E "^ *$inst: " all &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'trace-cmd report reads the snapshot buffer of the file' '
	if ! command -v trace-cmd >/dev/null; then exit 0; fi &&
	trace-cmd report -i trig.dat >tc 2>&1 || { cat tc; exit 1; } &&
	test_grep -E "^ *snapshot: .*sched_process_exec" tc
'

test_expect_success 'report --buffer with a name the file lacks lists the buffers' '
	tr record -q -B "$(test_instance)" -e sched:sched_process_exec -o nb.dat true &&
	test_expect_code 1 tr report -i nb.dat --buffer nosuch 2>err &&
	test_grep "no buffer .nosuch. in .nb.dat. (buffers: top, $(test_instance))" err
'

test_done
