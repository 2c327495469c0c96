#!/bin/bash
# tr stream: live events, formatted like report, and nothing left behind.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

# stream_markers INST N ARGS...: stream for a while, writing N markers into INST.
stream_markers() {
	local inst=$1 n=$2 pid i
	shift 2
	( exec "$TR" stream -B $inst "$@" >out 2>err ) &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null || :"
	# Ready when a marker comes out (stream starts from an empty buffer,
	# so markers written while it was setting up are gone).
	for i in $(seq 100); do
		echo stream-ready >$TRACEFS/instances/$inst/trace_marker
		sleep 0.2
		grep -q stream-ready out 2>/dev/null && break
	done
	for i in $(seq $n); do echo "stream-line-$i" >$TRACEFS/instances/$inst/trace_marker; done
	sleep 1
	kill -INT $pid
	test_wait_exit $pid 20
}

test_expect_success 'markers come out live, in order, formatted like the kernel' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	stream_markers $inst 20 &&
	grep -o "tracing_mark_write: stream-line-[0-9]*" out >got &&
	seq 20 | sed "s/^/tracing_mark_write: stream-line-/" >expect &&
	test_cmp expect got &&
	test_grep -E "^ +.*-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: tracing_mark_write: stream-line-1$" out
'

test_expect_success 'events it enabled are put back after SIGINT' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	echo 0 >$TRACEFS/instances/$inst/tracing_on &&
	stream_markers $inst 1 -e sched:sched_switch || :
	test "$(cat $TRACEFS/instances/$inst/events/sched/sched_switch/enable)" = 0 &&
	test "$(cat $TRACEFS/instances/$inst/tracing_on)" = 0 &&
	test_grep -E "sched_switch: +prev_comm=" out
'

test_expect_success 'its own threads are filtered out of the events it enables' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	stream_markers $inst 1 -e sched:sched_switch &&
	test_must_fail grep -E "^ +tr-[0-9]+ .*sched_switch" out
'

test_expect_success '--format json prints one object per event' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	stream_markers $inst 3 --format json &&
	python3 -c "
import json
n = 0
for line in open(\"out\"):
    o = json.loads(line)
    n += 1
assert n >= 3, n
"
'

test_expect_success '-F prints only the matching events' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	stream_markers $inst 5 -e sched:sched_switch -F print &&
	test_must_fail grep sched_switch out &&
	test $(grep -c stream-line out) = 5
'

test_expect_success '--duration ends it by itself' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	timeout 30 "$TR" stream -B $inst --duration 1 >out &&
	test "$(cat $TRACEFS/instances/$inst/tracing_on)" = 1
'

test_expect_success 'COMMAND: events while it runs, and the stream ends with it' '
	cp /bin/true trmk &&
	inst=$(test_instance) &&
	timeout 30 "$TR" stream -B $inst -e sched:sched_process_exec -- sh -c "$PWD/trmk; true" >out 2>err &&
	test_grep -E "^ +trmk-[0-9]+ +\[[0-9]{3}\] +[0-9.]+: sched_process_exec: +filename=$PWD/trmk " out &&
	test ! -d $TRACEFS/instances/$inst
'

test_expect_success '--follow: only the command, and with -c its children' '
	cp /bin/true trmk &&
	inst=$(test_instance) &&
	timeout 30 "$TR" stream -B $inst --follow -e sched:sched_process_exit -- \
		sh -c "$PWD/trmk; true" >out 2>err &&
	test_grep "comm=sh pid=" out &&
	! grep -q "comm=trmk" out &&
	test $(wc -l <out) = 1 &&
	timeout 30 "$TR" stream -B $inst --follow -c -e sched:sched_process_exit -- \
		sh -c "$PWD/trmk; true" >out 2>err &&
	test_grep "comm=trmk pid=" out &&
	test_grep "comm=sh pid=" out &&
	test $(wc -l <out) = 2 &&
	test ! -d $TRACEFS/instances/$inst
'

test_expect_success '--irq-info shows the kernel'"'"'s flags column' '
	inst=$(test_instance) &&
	timeout 30 "$TR" stream -B $inst --irq-info -e sched:sched_process_exit -- /bin/true >out 2>err &&
	test_grep -E "^ +true-[0-9]+ +\[[0-9]{3}\] [.dDbX][.nNpBLbl][.hHsZz][.0-9a-f][.0-9a-f] +[0-9]+\.[0-9]{6}: sched_process_exit: +comm=true " out &&
	test_expect_code 64 tr stream --irq-info --format json 2>err &&
	test_grep "is for text output" err
'

test_expect_success 'bad options are usage errors' '
	test_expect_code 64 tr stream --format xml 2>err &&
	test_grep "unknown format '"'"'xml'"'"'" err &&
	test_expect_code 64 tr stream --duration 5x 2>err &&
	test_grep "bad duration" err &&
	test_expect_code 64 tr stream --follow -e sched:sched_switch 2>err &&
	test_grep "needs a COMMAND" err &&
	test_expect_code 64 tr stream -c -e sched:sched_switch 2>err &&
	test_grep "goes with -P or --follow" err &&
	test_expect_code 1 tr stream -e sched:sched_switch -- no-such-command-tr 2>err &&
	test_grep "cannot run .no-such-command-tr." err
'

# The formats are read as the events come: one enabled after the start
# prints with its fields all the same, whether it is still enabled when its
# first record is read (found in set_event) or not any more (found by id).
test_expect_success 'events enabled after it started print with their fields' '
	cp /bin/true trmk &&
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	{ ( exec "$TR" stream -B $inst >out 2>err ) & } &&
	pid=$! &&
	test_when_finished "kill -9 $pid 2>/dev/null || :" &&
	for i in $(seq 100); do
		echo stream-ready >$TRACEFS/instances/$inst/trace_marker &&
		sleep 0.2 &&
		if grep -q stream-ready out; then break; fi
	done &&
	ev=$TRACEFS/instances/$inst/events/sched &&
	echo 1 >$ev/sched_process_exec/enable &&
	echo 1 >$ev/sched_process_exit/enable &&
	"$PWD/trmk" &&
	echo 0 >$ev/sched_process_exit/enable &&
	sleep 1 &&
	kill -INT $pid &&
	test_wait_exit $pid 20 &&
	test_grep -E "^ +trmk-[0-9]+ +\[[0-9]{3}\] +[0-9.]+: sched_process_exec: +filename=$PWD/trmk pid=[0-9]+ old_pid=[0-9]+$" out &&
	test_grep -E "^ +trmk-[0-9]+ +\[[0-9]{3}\] +[0-9.]+: sched_process_exit: +comm=trmk pid=[0-9]+ prio=[0-9]+" out
'

test_expect_success 'events already in the buffer are not printed' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	echo old-marker >$TRACEFS/instances/$inst/trace_marker &&
	stream_markers $inst 2 &&
	test_must_fail grep old-marker out &&
	test $(grep -c stream-line out) = 2
'

test_expect_success '--duration is kept to within a few tenths of a second' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	start=$(date +%s%N) &&
	timeout 30 "$TR" stream -B $inst --duration 1500ms >out &&
	end=$(date +%s%N) &&
	ms=$(( (end - start) / 1000000 )) &&
	echo "took $ms ms" &&
	test $ms -ge 1500
'

test_expect_success 'a bad filter is shown as typed, not with tr'"'"'s own pid clauses' '
	inst=$(test_instance) &&
	test_expect_code 1 tr stream -B "$inst" -e sched:sched_switch -f "prev_pid =! 3" --duration 1 2>err &&
	test_grep "bad filter for .sched:sched_switch.: .prev_pid =! 3.:" err &&
	test_must_fail grep common_pid err &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'a reader that goes away (| head) ends the stream quietly, tracefs put back' '
	inst=$(test_instance) &&
	tr stream -B "$inst" -e sched:sched_switch --duration 3 2>err | head -n 1 >one &&
	test "$(wc -l <one)" = 1 &&
	{ ! test -s err || { cat err; false; }; } &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_done
