#!/bin/bash
# tr record: round trips through trace-cmd report (and tr report), signals,
# output errors, a full file system, the loss summary, pid selection.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

test_requires instances events

# Note: a command run in the background is "$TR", not the tr function, so
# that $! is tr itself and signals reach it.

have_tr_report() { "$TR" report --help >/dev/null 2>&1; }

test_expect_success 'trace_marker lines round-trip in order (trace-cmd report, tr report)' '
	inst=$(test_instance) &&
	tr record -B "$inst" -e ftrace:print -o rt.dat \
		sh -c "for i in \$(seq 1 500); do echo \"mark \$i\" >$TRACEFS/instances/$inst/trace_marker; done" \
		2>summary &&
	seq 1 500 | sed "s/^/mark /" >expect &&
	marks_ref rt.dat >actual &&
	test_cmp expect actual &&
	if have_tr_report; then marks_tr rt.dat >actual.tr && test_cmp expect actual.tr; fi &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'with --file-version 6 the file is trace.dat version 6 with the instance as a buffer' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" --file-version 6 -e ftrace:print -o v6.dat \
		sh -c "echo one >$TRACEFS/instances/$inst/trace_marker" &&
	head -c 12 v6.dat | od -An -c | tr -d " \n" >magic &&
	printf "\027\010Dtracing6\000" | od -An -c | tr -d " \n" >expect &&
	test_cmp expect magic &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd dump -i v6.dat --options >dump 2>&1 &&
		test_grep "Option BUFFER" dump && test_grep "\"$inst\" \[name\]" dump &&
		test_grep "Option CPUSTAT" dump && test_grep "Option TRACECLOCK" dump &&
		test_grep "Option UNAME" dump
	fi
'

# trace-cmd 3.4's MODULES_FILE: /proc/modules as it was, so module addresses
# resolve elsewhere.  The host's kernel has no modules; Debian's has many.
test_expect_success 'a compressed v7 recording keeps /proc/modules when modules are loaded' '
	inst=$(test_instance) &&
	cat /proc/modules >mods 2>/dev/null || : &&
	tr record -q -B "$inst" -e ftrace:print -o mod.dat \
		sh -c "echo one >$TRACEFS/instances/$inst/trace_marker" &&
	tr record -q -B "$inst" --compression none -e ftrace:print -o modn.dat \
		sh -c "echo one >$TRACEFS/instances/$inst/trace_marker" &&
	tr dump -i mod.dat >dump &&
	tr dump -i modn.dat >dumpn &&
	! grep -E " 25  modules" dumpn &&
	if [ -s mods ]; then
		test_grep -E " $(wc -c <mods) +25  modules \(compressed\)$" dump &&
		if [ -n "$TC34" ]; then
			"$TC34" dump -i mod.dat --modules >tcmods 2>&1 &&
			test_grep -F "$(head -1 mods)" tcmods &&
			"$TC34" report -i mod.dat >tcout 2>&1 &&
			test_grep "print: .*one" tcout
		fi
	else
		! grep -E " 25  modules" dump
	fi
'

# trace-cmd 3.4's -K: record with the settings as they are.
test_expect_success '-K records what is set and what the buffer holds, and changes nothing' '
	inst=$(test_instance)-k &&
	I=$TRACEFS/instances/$inst &&
	mkdir $I &&
	test_when_finished "rmdir $I" &&
	echo 1 >$I/events/sched/sched_process_exec/enable &&
	echo held-before >$I/trace_marker &&
	tr record -q -K -B $inst -o k.dat /bin/true &&
	tr report -i k.dat >out &&
	test_grep "tracing_mark_write: held-before" out &&
	test_grep -E "sched_process_exec: +filename=/(usr/)?bin/true " out &&
	test "$(cat $I/events/sched/sched_process_exec/enable)" = 1 &&
	test "$(cat $I/tracing_on)" = 1 &&
	echo held-again >$I/trace_marker &&
	tr record -q -B $inst -e sched:sched_process_exec -o k2.dat /bin/true &&
	tr report -i k2.dat >out2 &&
	! grep -q held-again out2 &&
	test "$(cat $I/events/sched/sched_process_exec/enable)" = 1 &&
	echo 0 >$I/events/sched/sched_process_exec/enable &&
	test_expect_code 64 tr record -B $inst -o k3.dat /bin/true 2>err &&
	test_grep "nothing to record in instance" err
'

test_expect_success 'events of a command are recorded and its exit ends the recording' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exec -e sched:sched_process_exit \
		-o cmd.dat sh -c "/bin/true; exit 3" &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i cmd.dat >out 2>/dev/null
	else
		tr report -i cmd.dat >out
	fi &&
	test_grep "sched_process_exec: .*filename=/bin/true" out &&
	test_grep "sched_process_exit: .*comm=true" out
'

test_expect_success '--duration ends the recording and a command still running' '
	inst=$(test_instance) &&
	start=$(date +%s) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -o dur.dat --duration 300ms sleep 20 &&
	test $(( $(date +%s) - start )) -lt 10 &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i dur.dat >out 2>/dev/null
	else
		tr report -i dur.dat >out
	fi &&
	test_grep "sched_process_exit: .*comm=sleep" out &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'the recorder filters out its own threads' '
	inst=$(test_instance)
	# The spool'"'"'s kallsyms thread reads /proc/kallsyms once tracing is on:
	# held back 200 ms, it is alive when its tid is listed, and reads while
	# the events are recorded.
	TR_DELAY_KALLSYMS=200 "$TR" record -q -B "$inst" -e syscalls:sys_enter_splice \
		-e syscalls:sys_enter_poll -e syscalls:sys_enter_read -o self.dat &
	pid=$!
	test_when_finished "kill -INT $pid 2>/dev/null || :; wait $pid 2>/dev/null || :"
	test_wait_recording "$inst" &&
	ls /proc/$pid/task >tids &&
	test $(wc -l <tids) -ge 2 &&
	grep -q "common_pid != $pid" "$TRACEFS/instances/$inst/events/syscalls/sys_enter_read/filter" &&
	sleep 0.6 &&
	kill -INT $pid && wait $pid &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i self.dat >out 2>/dev/null
	else
		tr report -i self.dat >out
	fi &&
	for t in $(cat tids); do ! grep -E -- "-$t +\[" out || exit 1; done
'

test_expect_success 'SIGINT mid-record leaves a complete file and a clean tracefs' '
	inst=$(test_instance)
	"$TR" record -B "$inst" -e ftrace:print -e sched:sched_switch -o int.dat 2>err &
	pid=$!
	test_when_finished "kill -INT $pid 2>/dev/null || :; wait $pid 2>/dev/null || :"
	test_wait_recording "$inst" &&
	for i in $(seq 1 50); do echo "mark $i" >"$TRACEFS/instances/$inst/trace_marker"; done &&
	kill -INT $pid &&
	wait $pid &&
	seq 1 50 | sed "s/^/mark /" >expect &&
	marks_ref int.dat >actual &&
	test_cmp expect actual &&
	test_grep "^ *total " err &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'the top-level buffer is put back after recording there' '
	cat "$TRACEFS/tracing_on" >on.before &&
	cat "$TRACEFS/set_event" | sort >ev.before &&
	tr record -q -e sched:sched_process_exit -o top.dat --duration 200ms &&
	cat "$TRACEFS/tracing_on" >on.after &&
	cat "$TRACEFS/set_event" | sort >ev.after &&
	test_cmp on.before on.after &&
	test_cmp ev.before ev.after &&
	! grep -v "^none$" "$TRACEFS/events/sched/sched_process_exit/filter"
'

test_expect_success 'an unwritable output fails before tracing starts' '
	inst=$(test_instance) &&
	test_expect_code 1 tr record -B "$inst" -e sched:sched_switch -o /nonexistent/dir/x.dat \
		true 2>err &&
	test_grep "cannot write .*/nonexistent/dir/x.dat" err &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'a full file system fails cleanly and keeps a readable file' '
	inst=$(test_instance) &&
	mkdir small &&
	# Room for the header twice (the spool holds a copy while recording;
	# saved_cmdlines alone grows to 100 KiB on a long-running host) and
	# for some pages, then full.  The marks come from one CPU, into a
	# buffer that holds them all: which marks the file keeps is then up to
	# the recorder, not to the scheduler (with the writer moving between
	# CPUs, the pages of the first can still be in its ring buffer when the
	# other reader fills the disk) nor to the ring overwriting under load.
	mount -t tmpfs -o size=512k tmpfs small &&
	test_when_finished "umount $TEST_TMP/small" &&
	test_expect_code 1 tr record -B "$inst" -b 8192 -e ftrace:print -o small/full.dat \
		taskset -c 0 sh -c "for i in \$(seq 1 30000); do echo \"mark \$i with some padding to fill pages\" >$TRACEFS/instances/$inst/trace_marker; done" \
		2>err &&
	test_grep "no space left" err &&
	marks_ref small/full.dat | cut -d" " -f2 >actual &&
	{ test "$(wc -l <actual)" -gt 10 || { echo "DIAG: $(wc -l <actual) marks"; cat err; false; }; } &&
	{ test "$(head -n 1 actual)" = 1 || { echo "DIAG: first $(head -n 1 actual)"; cat err; false; }; } &&
	sort -n -u actual >sorted &&
	test_cmp sorted actual &&
	{ test $(ls -A small | wc -l) = 1 || { echo "DIAG:"; ls -laR small; cat err; false; }; } &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'lost events are counted per CPU; --fail-on-loss fails' '
	inst=$(test_instance)
	"$TR" record -B "$inst" -b 8 -e ftrace:print -o lost.dat --fail-on-loss 2>err &
	pid=$!
	test_when_finished "kill -CONT $pid 2>/dev/null || :; kill -INT $pid 2>/dev/null || :; wait $pid 2>/dev/null || :"
	test_wait_recording "$inst" &&
	kill -STOP $pid &&
	for i in $(seq 1 3000); do echo "mark $i overflowing a small buffer" >"$TRACEFS/instances/$inst/trace_marker"; done &&
	kill -CONT $pid &&
	kill -INT $pid &&
	rc=0 && wait $pid || rc=$? &&
	test $rc = 1 &&
	cat err &&
	test_grep -E "^ +CPU +events +lost +bytes" err &&
	test_grep -E "^ +0 +[0-9]+ +[0-9]+ " err &&
	lost=$(awk "\$1 == \"total\" { print \$3 }" err) &&
	test "$lost" -gt 0 &&
	test_grep "events were lost" err
'

test_expect_success '--follow records only the command; -c adds its children' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" --follow -e sched:sched_process_exit -o f1.dat \
		sh -c "/bin/true; /bin/true; exit 0" &&
	tr record -q -B "$inst" --follow -c -e sched:sched_process_exit -o f2.dat \
		sh -c "/bin/true; /bin/true; exit 0" &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i f1.dat >out1 2>/dev/null && trace-cmd report -i f2.dat >out2 2>/dev/null
	else
		tr report -i f1.dat >out1 && tr report -i f2.dat >out2
	fi &&
	! grep "comm=true" out1 &&
	test $(grep -c "comm=true" out2) = 2
'

# The kernel empties set_event_pid as the followed tasks exit, but keeps
# the (empty) list, which then filters out every task: the file must be
# cleared at the end although it reads as it did before.
test_expect_success 'after --follow -c a kept buffer records every task again' '
	inst=$(test_instance) &&
	mkdir "$TRACEFS/instances/$inst" &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr record -q -B "$inst" --follow -c -e sched:sched_switch -o f3.dat sleep 0.1 &&
	test_must_be_empty "$TRACEFS/instances/$inst/set_event_pid" &&
	ev=$TRACEFS/instances/$inst/events/sched/sched_switch/enable &&
	echo 1 >"$ev" && sleep 0.3 && echo 0 >"$ev" &&
	grep -c "sched_switch:" "$TRACEFS/instances/$inst/trace" >n &&
	test "$(cat n)" -gt 0
'

test_expect_success '-P records only those pids (set_event_pid, no own-pid filters)' '
	inst=$(test_instance)
	sleep 30 &
	target=$!
	test_when_finished "kill $target 2>/dev/null || :"
	"$TR" record -q -B "$inst" -P "$target" -P $$ -e sched:sched_process_exit -o pid.dat &
	pid=$!
	test_when_finished "kill -INT $pid 2>/dev/null || :; wait $pid 2>/dev/null || :"
	test_wait_recording "$inst" &&
	tr "\n" " " <"$TRACEFS/instances/$inst/set_event_pid" >pids &&
	test_grep -w "$target" pids && test_grep -w "$$" pids &&
	! grep -q "common_pid" "$TRACEFS/instances/$inst/events/sched/sched_process_exit/filter" &&
	kill $target && { wait $target || :; } &&
	kill -INT $pid && wait $pid &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i pid.dat >out 2>/dev/null
	else
		tr report -i pid.dat >out
	fi &&
	test_grep "sched_process_exit: .*pid=$target " out &&
	test $(grep -c sched_process_exit out) = 1
'

test_expect_success 'a command that cannot be found fails before anything is changed' '
	inst=$(test_instance) &&
	test_expect_code 1 tr record -B "$inst" -e sched -o nocmd.dat no-such-command-here 2>err &&
	test_grep "cannot run .no-such-command-here." err &&
	test ! -e nocmd.dat &&
	test ! -d "$TRACEFS/instances/$inst" &&
	# An old file of that name is left as it was.
	echo old >nocmd.dat &&
	test_expect_code 1 tr record -B "$inst" -e sched -o nocmd.dat no-such-command-here 2>err &&
	test "$(cat nocmd.dat)" = old &&
	test $(wc -l <err) = 1
'

test_expect_success 'usage errors' '
	test_expect_code 64 tr record -e sched --follow &&
	test_expect_code 64 tr record -e sched -c true &&
	test_expect_code 64 tr record true &&
	test_expect_code 64 tr record -e sched --duration 5x
'

test_expect_success 'a missing event fails before anything is changed' '
	inst=$(test_instance) &&
	test_expect_code 1 tr record -B "$inst" -e sched:nosuch -o x.dat true 2>err &&
	test_grep "no such event" err &&
	test ! -e x.dat &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'a second recording of the same buffer is refused, naming the first' '
	inst=$(test_instance)
	mkdir "$TRACEFS/instances/$inst"
	test_when_finished "rmdir $TRACEFS/instances/$inst"
	( exec "$TR" record -q -B "$inst" -e ftrace:print -o first.dat --duration 20s ) &
	pid=$!
	test_when_finished "kill $pid 2>/dev/null || :; wait $pid 2>/dev/null || :" &&
	test_wait_recording "$inst" &&
	test_expect_code 1 tr record -B "$inst" -e ftrace:print -o second.dat true 2>err &&
	test_grep "instance .$inst. is in use by another tr session (pid $pid)" err &&
	test ! -e second.dat &&
	test -e "$TR_STATE_DIR/session-$inst.lock" &&
	echo still-first >"$TRACEFS/instances/$inst/trace_marker" &&
	kill -INT $pid && test_wait_exit $pid 20 &&
	marks_ref first.dat >got &&
	echo still-first >expect &&
	test_cmp expect got &&
	# The lock file goes with its session: /run/tr does not fill up.
	test ! -e "$TR_STATE_DIR/session-$inst.lock"
'

test_expect_success 'the buffer is left empty: no events of the recording stay behind' '
	inst=$(test_instance) &&
	mkdir "$TRACEFS/instances/$inst" &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	echo before-recording >"$TRACEFS/instances/$inst/trace_marker" &&
	tr record -q -B "$inst" -e sched -o empty.dat \
		sh -c "for i in 1 2 3; do echo m\$i >$TRACEFS/instances/$inst/trace_marker; done" &&
	grep -v "^#" "$TRACEFS/instances/$inst/trace" >left || : &&
	test_must_be_empty left &&
	marks_ref empty.dat >got &&
	printf "m1\nm2\nm3\n" >expect &&
	test_cmp expect got
'

test_expect_success 'the loss summary agrees with report --stat when events are lost (-b 8)' '
	command -v cc >/dev/null || { echo "no C compiler for bench/markgen.c"; exit 1; } &&
	cc -O2 -o markgen "$TEST_ROOT/bench/markgen.c" || exit 1
	inst=$(test_instance)
	"$TR" record -B "$inst" -b 8 -e ftrace:print -o loss.dat 2>summary &
	pid=$!
	test_when_finished "kill -CONT $pid 2>/dev/null || :; kill -INT $pid 2>/dev/null || :; wait $pid 2>/dev/null || :"
	# The readers keep up with two writers even at -b 8: stop them to lose events.
	test_wait_recording "$inst" &&
	kill -STOP $pid &&
	./markgen "$TRACEFS/instances/$inst/trace_marker" 300000 2 &&
	kill -CONT $pid &&
	kill -INT $pid && wait $pid &&
	cat summary &&
	tr report -i loss.dat --stat >stat &&
	sed -nE "s/^ +cpu ([0-9]+) +([0-9]+) events +([0-9]+) lost.*/\1 \2 \3/p" stat >from-report &&
	sed -nE "s/^ +([0-9]+) +([0-9]+) +([0-9]+) +[0-9.]+ [KMG]?i?B$/\1 \2 \3/p" summary >from-summary &&
	test -s from-report &&
	test_cmp from-report from-summary &&
	lost=$(sed -nE "s/^lost events: +([0-9]+)$/\1/p" stat) &&
	echo "lost $lost" &&
	test "$lost" -gt 0
'

test_expect_success 'a bad filter is shown as typed, not with tr'"'"'s own pid clauses' '
	inst=$(test_instance) &&
	test_expect_code 1 tr record -B "$inst" -e sched:sched_switch -f "prev_pid =! 3" -o f.dat true 2>err &&
	test_grep "bad filter for .sched:sched_switch.: .prev_pid =! 3.:" err &&
	test_must_fail grep common_pid err &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'a filter that would reach outside tr'"'"'s parentheses is a usage error, nothing traced' '
	inst=$(test_instance) &&
	for f in "1) || (1" "prev_pid > 0) || (prev_pid > 0" "(prev_pid > 0" "prev_comm == \"x"; do
		for c in record stream top; do
			args="-B $inst -e sched:sched_switch -f"
			test $c = top && args="-b -n 1 $args"
			test_expect_code 64 tr $c $args "$f" true 2>err || exit 1
			test_grep "^tr $c: bad filter .*: \(unbalanced parentheses\|unclosed quote\)$" err ||
				exit 1
			test $(grep -c "bad filter" err) = 1 || exit 1
		done
	done &&
	test ! -d "$TRACEFS/instances/$inst" &&
	test ! -e f.dat
'

test_expect_success 'a command that ignores SIGTERM is killed after the grace period, never left behind' '
	inst=$(test_instance) &&
	# The pid file says the traps are set: a slow machine could otherwise
	# end the session before the command ignores anything.
	rm -f stubborn.pid &&
	{ "$TR" record -q -B "$inst" -e ftrace:print -o stubborn.dat \
		sh -c "trap \"\" TERM INT; echo \$\$ >stubborn.pid; while :; do sleep 0.1; done" \
		2>err & } &&
	rec=$! &&
	test_when_finished "kill -KILL $rec 2>/dev/null || :" &&
	for i in $(seq 300); do test -s stubborn.pid && break; sleep 0.1; done &&
	start=$(date +%s) &&
	kill -TERM $rec &&
	test_wait_exit $rec 30 &&
	end=$(date +%s) &&
	test $((end - start)) -lt 15 &&
	test_grep "did not exit on signal 15: killed" err &&
	pid=$(cat stubborn.pid) &&
	test_must_fail kill -0 "$pid" 2>/dev/null &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_done
