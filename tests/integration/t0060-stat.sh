#!/bin/bash
# tr stat: what is set now.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_expect_success 'stat shows tracer, events, filters and triggers of an instance' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch -f "prev_pid == 1" -C global &&
	echo "stacktrace:5 if prev_pid == 999999" >$TRACEFS/instances/$inst/events/sched/sched_switch/trigger &&
	tr stat -B $inst >out &&
	test_grep -x "$inst" out &&
	test_grep -E "^  tracer: +nop$" out &&
	test_grep -E "^  tracing_on: +1$" out &&
	test_grep -E "^  clock: +global$" out &&
	test_grep -E "^  events: +sched:sched_switch$" out &&
	test_grep -E "^  event filters: +sched:sched_switch: prev_pid == 1$" out &&
	test_grep -E "^  triggers: +sched:sched_switch: stacktrace:count=5 if prev_pid == 999999$" out &&
	test_grep -E "^  buffer_size_kb: +[0-9]+$" out
'

test_expect_success 'stat shows the timestamp mode and the total buffer size as the kernel has them' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -b 1024 &&
	tr stat -B $inst >out &&
	mode=$(sed -nE "s/.*\[([a-z]+)\].*/\1/p" $TRACEFS/instances/$inst/timestamp_mode) &&
	test -n "$mode" &&
	test_grep -E "^  timestamp_mode: +$mode$" out &&
	total=$(cat $TRACEFS/instances/$inst/buffer_total_size_kb) &&
	n=$(ls -d $TRACEFS/instances/$inst/per_cpu/cpu* | wc -l) &&
	size=$(cat $TRACEFS/instances/$inst/buffer_size_kb) &&
	test "$size" -ge 1024 && test "$size" -lt 1100 &&
	test "$total" = $((size * n)) &&
	test_grep -E "^  buffer_total_kb: +$total$" out &&
	test_grep -E "^  buffer_size_kb: +$size$" out
'

test_expect_success 'stat shows each system'"'"'s enable state: 1 all, X some' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch -e irq &&
	I=$TRACEFS/instances/$inst &&
	test "$(cat $I/events/sched/enable)" = X &&
	test "$(cat $I/events/irq/enable)" = 1 &&
	tr stat -B $inst >out &&
	sed -n "/^  systems enabled:/,/^  event filters:/p" out >sys &&
	test_grep -E "^ +(systems enabled: +)?irq: 1 \(all events\)$" sys &&
	test_grep -E "^ +(systems enabled: +)?sched: X \(some events\)$" sys &&
	test $(grep -c ": [1X] (" sys) = 2 &&
	echo 0 >$I/events/enable &&
	tr stat -B $inst >out &&
	test_grep -E "^  systems enabled: +none$" out
'

# With overwrite off a full buffer drops the new events and keeps the old
# ones (stat: dropped, no overrun); with it on, the old ones are overrun.
test_expect_success '-O nooverwrite: a full buffer drops new events, stat counts them' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -b 16 -O nooverwrite &&
	I=$TRACEFS/instances/$inst &&
	test "$(cat $I/options/overwrite)" = 0 &&
	# The kernel refuses the markers that do not fit (EIO).
	{ taskset -c 0 sh -c "for i in \$(seq 3000); do echo marker-number-\$i >$I/trace_marker; done" 2>/dev/null || :; } &&
	tr stat -B $inst >out &&
	row=$(grep -E "^ +0 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$" out) &&
	set -- $row &&
	echo "cpu 0: entries $2 overrun $3 dropped $5" &&
	test $3 = 0 && test $5 -gt 0 &&
	test_grep -E "marker-number-1$" $I/trace &&
	test_must_fail grep -E "marker-number-3000$" $I/trace &&
	tr start -B $inst -O overwrite &&
	echo >$I/trace &&
	taskset -c 0 sh -c "for i in \$(seq 3000); do echo marker-number-\$i >$I/trace_marker; done" &&
	tr stat -B $inst >out &&
	row=$(grep -E "^ +0 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$" out) &&
	set -- $row &&
	test $3 -gt 0 && test $5 = 0 &&
	test_must_fail grep -E "marker-number-1$" $I/trace &&
	test_grep -E "marker-number-3000$" $I/trace
'

test_expect_success 'stat shows per-CPU statistics, one row per CPU' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr stat -B $inst >out &&
	test_grep -E "^  per-cpu stats: +cpu +entries +overrun +commit +dropped$" out &&
	n=$(ls -d $TRACEFS/instances/$inst/per_cpu/cpu* | wc -l) &&
	test $(grep -cE "^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$" out) = $n
'

test_expect_success 'stat counts the entries in the buffer' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	for i in 1 2 3; do taskset -c 0 sh -c "echo m$i >$TRACEFS/instances/$inst/trace_marker"; done &&
	tr stat -B $inst >out &&
	test_grep -E "^ +0 +3 +0 +0 +0$" out
'

test_expect_success 'stat without -B covers the top level and every instance' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr stat >out &&
	test_grep -x "top-level buffer" out &&
	test_grep -x "$inst" out
'

if ! test_have function_filter; then
	test_expect_success 'stat says function filters are unavailable, with the reason' '
		tr stat >out &&
		test_grep -E "^  function filter: +unavailable \(Operation not permitted\)$" out
	'
fi

test_expect_success 'stat of a missing instance names it' '
	test_expect_code 1 tr stat -B nosuch-$$ 2>err &&
	test_grep "no such instance '"'"'nosuch-$$'"'"'" err
'

test_done
