#!/bin/bash
# tr record --daemonize (trace-cmd 3.4's): the command returns once tracing
# is on, the recording goes on in the background under a pidfile until
# SIGINT, SIGTERM or --duration, and ends with a whole file; a failure before
# tracing is on is the command's status and message; a running recording's
# pidfile is not taken, a dead one's is.  The daemon's sanitizer reports go
# to asan.* files (its stderr is /dev/null), which each case checks.
. "$(dirname "$0")/lib.sh"

test_requires instances events

export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$TEST_TMP/asan"

# no_reports: the daemons left no sanitizer report.
no_reports() {
	! ls "$TEST_TMP"/asan.* 2>/dev/null || { cat "$TEST_TMP"/asan.*; false; }
}

# daemon_start INST PIDFILE OUT [OPTIONS...]: a background recording of
# sched_process_exit in INST; sets DPID.
daemon_start() {
	local inst=$1 pidfile=$2 out=$3
	shift 3
	tr record --daemonize --pidfile "$pidfile" -B "$inst" -e sched:sched_process_exit \
		-o "$out" "$@" 2>start.err &&
	DPID=$(cat "$pidfile") && test -n "$DPID" && kill -0 "$DPID" &&
	test_grep "^tr record: recording in the background as pid $DPID " start.err
}

test_expect_success '--daemonize: returns once tracing is on; SIGINT ends it with a whole file, the pidfile and instance gone' '
	inst=$(test_instance) &&
	daemon_start "$inst" "$PWD/r.pid" d.dat &&
	test_when_finished "kill -INT $DPID 2>/dev/null || :" &&
	# Its own session: the terminal'"'"'s Ctrl-C is not for it.
	test "$(ps -o sid= -p "$DPID" | tr -d " ")" = "$DPID" &&
	# Tracing is on by the time the command returned: these are recorded.
	for i in 1 2 3 4 5; do echo "bg-$i" >"$TRACEFS/instances/$inst/trace_marker"; done &&
	kill -INT "$DPID" && wait_for 20 pid_gone "$DPID" &&
	tr report -i d.dat | sed -n "s/.*tracing_mark_write: //p" >got &&
	seq 5 | sed "s/^/bg-/" >expect && test_cmp expect got &&
	test ! -e r.pid && test ! -d "$TRACEFS/instances/$inst" &&
	no_reports
'

test_expect_success '--daemonize: SIGTERM ends it the same, and --duration by itself' '
	inst=$(test_instance) &&
	daemon_start "$inst" "$PWD/t.pid" t.dat &&
	echo bg-term >"$TRACEFS/instances/$inst/trace_marker" &&
	kill -TERM "$DPID" && wait_for 20 pid_gone "$DPID" &&
	tr report -i t.dat >t.txt && test_grep "tracing_mark_write: bg-term$" t.txt &&
	daemon_start "$inst" "$PWD/u.pid" u.dat --duration 1s &&
	wait_for 30 pid_gone "$DPID" &&
	tr report -i u.dat >/dev/null && test ! -e u.pid &&
	test ! -d "$TRACEFS/instances/$inst" &&
	no_reports
'

test_expect_success '--daemonize: a failure before tracing is on is its exit status and one line, nothing left' '
	inst=$(test_instance) &&
	test_expect_code 1 tr record --daemonize --pidfile "$PWD/f.pid" -B "$inst" \
		-e sched:sched_process_exit -o /nonexistent/x.dat 2>err &&
	test_grep -x "tr: cannot write .*/nonexistent/x.dat.*" err && test $(wc -l <err) = 1 &&
	test ! -e f.pid && test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success '--daemonize: a running recording'"'"'s pidfile is refused, a killed one'"'"'s taken over' '
	inst=$(test_instance) &&
	daemon_start "$inst" "$PWD/p.pid" p.dat &&
	first=$DPID && test_when_finished "kill -INT $first 2>/dev/null || :" &&
	test_expect_code 1 tr record --daemonize --pidfile "$PWD/p.pid" -B "$inst-2" \
		-e sched:sched_process_exit -o q.dat 2>err &&
	test_grep -x "tr: a recording in the background is running as pid $first (pidfile .*p.pid.)" err &&
	test ! -d "$TRACEFS/instances/$inst-2" &&
	kill -KILL "$first" && wait_for 20 pid_gone "$first" &&
	tr reset -B "$inst" >/dev/null 2>&1 &&
	daemon_start "$inst" "$PWD/p.pid" p2.dat &&
	test "$DPID" != "$first" &&
	kill -INT "$DPID" && wait_for 20 pid_gone "$DPID" &&
	test ! -e p.pid && test ! -d "$TRACEFS/instances/$inst" &&
	no_reports
'

test_expect_success '--daemonize with a COMMAND, --pidfile without it: usage errors' '
	test_expect_code 64 tr record --daemonize -e sched -o x.dat true 2>err &&
	test_grep "no COMMAND" err &&
	test_expect_code 64 tr record --pidfile x.pid -e sched -o x.dat true 2>err &&
	test_grep "give --daemonize" err &&
	test ! -e x.dat
'

test_done
