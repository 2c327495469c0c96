#!/bin/bash
# tr hist with the kernel's hist triggers (VM tier): the kernel and userspace
# engines side by side on the same events, show/clear/pause/cont, the
# kernel's error_log, latency histograms, and that nothing is left behind.
. "$(dirname "$0")/lib.sh"
test_kernels full debian
test_requires hist

make_marks_sh

# no_leftovers: no hist trigger, synthetic event or tr instance remains.
no_leftovers() {
	! grep -rls '^hist' $TRACEFS/events/*/*/trigger 2>/dev/null | grep -q . &&
	test ! -s $TRACEFS/synthetic_events &&
	! ls $TRACEFS/instances | grep -q '^tr-hist-'
}

test_expect_success 'kernel engine: counts by key, the kernel totals' '
	tr hist --engine kernel -e sched:sched_process_exec -k filename -- \
		sh -c "for i in 1 2 3 4 5 6 7; do /bin/true; done" >out 2>err &&
	test_grep -E "^/bin/true +7$" out &&
	test_grep -E "^Totals:  Hits: [0-9]+  Entries: [0-9]+  Dropped: 0$" out &&
	test_must_fail grep -q "ran in userspace" err &&
	no_leftovers
'

test_expect_success 'kernel and userspace engines agree on the same events' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr hist --engine kernel -B $inst -e sched:sched_process_exec -k filename -s filename -- \
		sh -c "for i in 1 2 3; do /bin/true; done; for i in 1 2 3 4 5; do /bin/echo >/dev/null; done" >k &&
	tr hist --engine user -B $inst -e sched:sched_process_exec -k filename -s filename -- \
		sh -c "for i in 1 2 3; do /bin/true; done; for i in 1 2 3 4 5; do /bin/echo >/dev/null; done" >u 2>err &&
	test_grep "ran in userspace: --engine user" err &&
	grep -E "^/bin/(true|echo) " k >k2 && grep -E "^/bin/(true|echo) " u >u2 &&
	test_cmp k2 u2 &&
	test_grep -E "^/bin/echo +5$" u2
'

test_expect_success 'sched_switch by next_comm: kernel hist = tr record + tr hist -i' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	cp /bin/true trmk &&
	cat >work.sh <<-EOS &&
	"$TR" hist --engine kernel -B $inst -e sched:sched_switch -k prev_comm,next_comm \
		-s prev_comm,next_comm -f "next_comm == \"trmk\"" --csv -- \
		sh -c "for i in 1 2 3 4 5 6; do ./trmk; sleep 0.02; done" >k
	EOS
	tr record -q -B $inst -e sched:sched_switch -o sw.dat --no-filter --fail-on-loss -- \
		sh work.sh &&
	tr hist -i sw.dat -e sched:sched_switch -k prev_comm,next_comm -s prev_comm,next_comm \
		-f "next_comm == \"trmk\"" --csv >u 2>err &&
	test_grep ",trmk," k &&
	test_cmp k u
'

test_expect_success 'modifiers render: sym, execname, log2, stacktrace, percent, graph' '
	tr hist -e kmem:kmalloc -k call_site.sym --vals bytes_req.percent --duration 1s >out &&
	test_grep "bytes_req(%)" out &&
	tr hist -e sched:sched_switch -k common_pid.execname --json --duration 1s >out &&
	test_grep "\"common_pid_comm\":" out &&
	tr hist -e kmem:kmalloc -k bytes_req.log2 --csv --duration 1s >out &&
	test_grep "^bytes_req_log2,bytes_req_max,hitcount$" out &&
	# Linux 6.1 calls the stack key "stacktrace" and has no .graph yet.
	st=common_stacktrace &&
	if kernel_before 6.5; then st=stacktrace; fi &&
	tr hist -e sched:sched_switch -k $st --duration 1s >out &&
	test_grep "__schedule" out &&
	if ! kernel_before 6.5; then
		tr hist -e kmem:kmalloc -k call_site.sym --vals bytes_req.graph --duration 1s >out &&
		test_grep "#" out
	fi &&
	no_leftovers
'

test_expect_success 'a bad key shows the kernel error_log line with its caret' '
	test_must_fail tr hist --engine kernel -e sched:sched_switch -k nosuch --duration 1s 2>err &&
	test_grep "Couldn.t find field" err &&
	test_grep "Command: hist:keys=nosuch" err &&
	test_grep "^ *\\^$" err &&
	no_leftovers
'

test_expect_success 'show, pause, cont and clear a named histogram' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	echo 1 >$I/tracing_on &&
	echo "hist:name=trt:keys=common_pid" >>$I/events/ftrace/print/trigger 2>/dev/null ||
	echo "hist:name=trt:keys=pid" >>$I/events/sched/sched_process_exec/trigger &&
	ev=$(grep -l "name=trt" $I/events/*/*/trigger | sed "s|$I/events/||;s|/trigger||;s|/|:|") &&
	test_when_finished "echo \"!hist:name=trt:keys=\$(sed -n \"s/.*keys=\\([^:]*\\).*/\\1/p\" $I/events/${ev%%:*}/${ev#*:}/trigger)\" >>$I/events/${ev%%:*}/${ev#*:}/trigger" &&
	$TEST_TMP/marks.sh $inst 3 x && /bin/true &&
	tr hist show -B $inst -e $ev --name trt >out &&
	test_grep "^Totals:" out &&
	tr hist pause -B $inst -e $ev --name trt &&
	test_grep "\[paused\]" $I/events/${ev%%:*}/${ev#*:}/trigger &&
	tr hist cont -B $inst -e $ev &&
	test_grep "\[active\]" $I/events/${ev%%:*}/${ev#*:}/trigger &&
	tr hist clear -B $inst -e $ev &&
	tr hist show -B $inst -e $ev >out &&
	test_grep "Hits: 0 " out || test_grep "Hits: [0-9]" out &&
	test_must_fail tr hist show -B $inst -e $ev --name nosuch 2>err &&
	test_grep "no histogram named" err
'

test_expect_success 'wakeup latency: entries, a max naming a real task, all removed' '
	tr hist --latency --start sched:sched_waking --end sched:sched_switch --match pid=next_pid \
		--onmax lat --save next_comm,prev_pid -- \
		sh -c "for i in 1 2 3 4 5; do sleep 0.05; done" >out 2>err &&
	test_grep -E "^lat.log2\(us\) +hitcount$" out &&
	test_grep -E "^~ 2\^[0-9]+ +[1-9]" out &&
	test_grep -E "^Max: [0-9]+ us  next_comm: [^ ]+  prev_pid: [0-9]+$" out &&
	no_leftovers
'

test_expect_success 'latency keyed by an end field, in ns' '
	tr hist --latency --start sched:sched_waking --end sched:sched_switch --match pid=next_pid \
		-k lat.buckets=100000,next_comm --units ns --duration 1s >out 2>err &&
	test_grep -E "^lat.buckets\(ns\) +next_comm +hitcount$" out &&
	test_grep -E "^[0-9]+00000-[0-9]+99999 " out &&
	no_leftovers
'

test_expect_success 'SIGINT ends a latency histogram and removes everything' '
	"$TR" hist --latency --start sched:sched_waking --end sched:sched_switch \
		--match pid=next_pid >out 2>err &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null || :" &&
	for i in $(seq 100); do
		grep -qs "^hist" $TRACEFS/events/synthetic/tr_lat_*/trigger && break
		sleep 0.1
	done &&
	# Signalled once the histogram counts something.
	wait_for 10 grep -qsE "^ +Hits: [1-9]" $TRACEFS/events/synthetic/tr_lat_*/hist &&
	kill -INT $pid &&
	test_wait_exit $pid 20 &&
	test_grep "^Totals:" out &&
	no_leftovers
'

test_expect_success 'SQL makes the same kind of histogram' '
	tr hist --sql "SELECT end.next_comm AS comm, (end.TIMESTAMP_USECS - start.TIMESTAMP_USECS) AS delta FROM sched_waking AS start JOIN sched_switch AS end ON start.pid = end.next_pid" \
		-k comm --duration 1s >out 2>err &&
	test_grep -E "^comm +hitcount$" out &&
	no_leftovers
'

test_expect_success 'kernel engine: biggest first by default, --limit keeps the top rows' '
	tr hist --engine kernel -e sched:sched_process_exec -k filename -- \
		sh -c "for i in 1 2 3 4 5 6; do /bin/true; done; /bin/echo >/dev/null; for i in 1 2 3; do /bin/sleep 0; done" >all &&
	grep -E "^/bin/(true|sleep|echo) " all | awk "{ print \$1 }" >order &&
	printf "/bin/true\n/bin/sleep\n/bin/echo\n" >expect &&
	test_cmp expect order &&
	tr hist --engine kernel -e sched:sched_process_exec -k filename --limit 1 -- \
		sh -c "for i in 1 2 3 4 5 6; do /bin/true; done; /bin/echo >/dev/null" >top &&
	test_grep -qE "^# the first 1 of [0-9]+ entries \(--limit\)$" top &&
	test_grep -qE "^/bin/true +6$" top &&
	test_must_fail grep -q "^/bin/echo" top &&
	no_leftovers
'

test_done
