#!/bin/bash
# tr listen --vsock, tr record -V, tr agent on vsock and tr record -A
# NAME@CID over vsock's loopback transport (CID 1 reaches the machine
# itself: the Debian guest loads vsock_loopback; the host has none, and the
# file skips there).  The received file holds every marker once and in
# order; a CID outside --allow is refused with one line at each end; a
# refused connection is one line and exit 1; and trace-cmd on the other
# side, both ways, where its vsock works.  Every wait is bounded; each
# server is stopped by its pid.
. "$(dirname "$0")/lib.sh"
test_kernels debian

test_requires instances events vsock_loopback

# start_server LOG ARGS...: tr ARGS (listen or agent) in the background,
# on a free vsock port; sets SPID and SPORT.
start_server() {
	local log=$1 i
	shift
	"$TR" "$@" -p 0 2>"$log" &
	SPID=$!
	for i in $(seq 100); do
		SPORT=$(sed -n 's/.*listening on vsock CID any port \([0-9]*\)$/\1/p' "$log")
		[ -n "$SPORT" ] && return 0
		sleep 0.1
	done
	cat "$log" >&2
	return 1
}

stop_server() {
	kill "$1" 2>/dev/null || :
	wait "$1" 2>/dev/null || :
}

# server_ends PID LOG: stopped by SIGTERM, it exits 0 with no sanitizer report.
server_ends() {
	local rc=0
	kill "$1" && wait "$1" || rc=$?
	if [ $rc != 0 ] || grep -E "Sanitizer|runtime error" "$2" >&2; then
		echo "server: status $rc" >&2
		cat "$2" >&2
		return 1
	fi
}

# wait_log PATTERN N LOG: up to 60 s for N lines matching PATTERN.
wait_log() {
	local i
	for i in $(seq 600); do
		[ "$(grep -c -- "$1" "$3")" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "wait_log: fewer than $2 lines '$1' in $3:" >&2
	cat "$3" >&2
	return 1
}

marks() {
	"$TR" report -i "$1" | sed -n 's/^.*\] *[0-9.]*: tracing_mark_write: //p'
}

write_marks='for i in $(seq 1 $2); do echo "$3 $i" >'"$TRACEFS"'/instances/$1/trace_marker; done'

# N numbered markers, each "host I" into the host's instance, then "guest I" into the agent's.
pairs='for i in $(seq 1 $3); do
	echo "host $i" >'"$TRACEFS"'/instances/$1/trace_marker; sleep 0.005
	echo "guest $i" >'"$TRACEFS"'/instances/$2/trace_marker; sleep 0.005
done'

# A vsock port nobody listens on: in the guest only this file's servers
# listen on vsock, each on a port of its own.
free_vsock_port() { echo $((20000 + $$ % 30000)); }

test_expect_success 'tr check: vsock and its loopback' '
	tr check >caps &&
	test_grep "^vsock  *yes  *this machine is CID" caps &&
	test_grep "^vsock_loopback  *yes  *CID 1 reaches this machine" caps &&
	tr check --has vsock_loopback
'

test_expect_success 'tr record -V into tr listen --vsock: every marker once, in order' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_server l.log listen --vsock -d out &&
	test_when_finished "stop_server $SPID" &&
	inst=$(test_instance) &&
	tr record -B "$inst" -e sched:sched_process_exit -V 1:$SPORT \
		sh -c "$write_marks" _ "$inst" 2000 mark 2>summary &&
	test_grep "sent to .1:$SPORT." summary &&
	test_grep "^ *total " summary &&
	wait_log "ended: wrote" 1 l.log &&
	test_grep "vsock-1:[0-9]*: connected" l.log &&
	seq 1 2000 | sed "s/^/mark /" >expect &&
	f=$(echo out/trace.vsock-1:*.dat) && test -f "$f" &&
	marks "$f" >actual && test_cmp expect actual &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i "$f" 2>/dev/null | sed -n "s/.*tracing_mark_write: //p" >tc &&
		test_cmp expect tc
	fi &&
	test $(ls -A out | wc -l) = 1 &&
	test ! -d "$TRACEFS/instances/$inst" &&
	server_ends $SPID l.log
'

test_expect_success 'a CID outside --allow: refused, one line at each end, nothing written' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_server l.log listen --vsock --allow 3 -d out &&
	test_when_finished "stop_server $SPID" &&
	inst=$(test_instance) &&
	test_expect_code 1 tr record -B "$inst" -e sched:sched_process_exit -V 1:$SPORT \
		true 2>err &&
	test_grep "^tr: cannot send to .vsock:1:$SPORT." err &&
	test $(wc -l <err) = 1 &&
	wait_log "refused: address not allowed" 1 l.log &&
	test_grep "vsock-1:[0-9]*: refused: address not allowed (see --allow)" l.log &&
	test "$(ls -A out)" = "" &&
	test ! -d "$TRACEFS/instances/$inst" &&
	server_ends $SPID l.log
'

test_expect_success 'nobody at the port: one line, exit 1' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	inst=$(test_instance) &&
	port=$(free_vsock_port) &&
	test_expect_code 1 tr record -B "$inst" -e sched:sched_process_exit -V 1:$port \
		true 2>err &&
	test_grep "^tr: cannot send to .vsock:1:$port.: cannot connect" err &&
	test $(wc -l <err) = 1 &&
	test ! -d "$TRACEFS/instances/$inst" &&
	test_expect_code 1 tr record -B "$inst" -e sched:sched_process_exit \
		-A g@1:$port true 2>err &&
	test_grep "vsock:1:$port" err &&
	test ! -e trace.dat && test ! -e trace-g.dat
'

test_expect_success 'tr record -A NAME@CID:PORT with tr agent on vsock' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	start_server a.log agent --instance "$ag" &&
	test_when_finished "stop_server $SPID" &&
	tr record -B "$host" -e sched:sched_process_exit -A g1@1:$SPORT \
		--tsync-interval 100 sh -c "$pairs" _ "$host" "$ag" 50 2>summary &&
	test_grep "^guest g1: wrote .trace-g1.dat. (.*clock offset [-+][0-9]* ns" summary &&
	seq 1 50 | sed "s/^/host /" >expect.host &&
	seq 1 50 | sed "s/^/guest /" >expect.guest &&
	marks trace.dat >actual.host && test_cmp expect.host actual.host &&
	marks trace-g1.dat >actual.guest && test_cmp expect.guest actual.guest &&
	wait_log "ended: [0-9]* bytes of events sent" 1 a.log &&
	test_grep "vsock-1:[0-9]*: connected" a.log &&
	test ! -d "$TRACEFS/instances/$ag" && test ! -d "$TRACEFS/instances/$host" &&
	off=$(sed -n "s/.*clock offset \([-+][0-9]*\) ns.*/\1/p" summary) &&
	test ${off#[-+]} -lt 1000000 &&
	server_ends $SPID a.log
'

test_expect_success 'tr agent on vsock refuses a CID outside --allow' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	host=$(test_instance) &&
	start_server a.log agent --allow 3 &&
	test_when_finished "stop_server $SPID" &&
	test_expect_code 1 tr record -B "$host" -e sched:sched_process_exit -A g@1:$SPORT \
		true 2>err &&
	test_grep "vsock:1:$SPORT" err &&
	wait_log "refused: address not allowed" 1 a.log &&
	test ! -e trace.dat && test ! -e trace-g.dat &&
	server_ends $SPID a.log
'

# trace-cmd's time sync leaves its instance (clock_synch-N) behind: remove the new ones.
tc_sync_cleanup='for d in "$TRACEFS"/instances/clock_synch-*; do
	[ -d "$d" ] && ! grep -qx "$d" "$TEST_TMP/synch.before" && { rmdir "$d" || :; }
done; :'
tc_sync_note() {
	ls -d "$TRACEFS"/instances/clock_synch-* >"$TEST_TMP/synch.before" 2>/dev/null || :
}

test_expect_success 'trace-cmd record -A NAME@1:PORT with tr agent on vsock' '
	command -v trace-cmd >/dev/null || exit 0
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	tc_sync_note && test_when_finished "$tc_sync_cleanup" &&
	start_server a.log agent --instance "$ag" &&
	test_when_finished "stop_server $SPID" &&
	timeout 120 "$TEST_ROOT/tests/data/tc-record.sh" "$host" tc.dat -C mono \
		-e sched:sched_process_exit -A g@1:$SPORT -e sched:sched_process_exit \
		sh -c "sleep 0.5; $pairs" _ "$host" "$ag" 5 &&
	test -s tc-g.dat &&
	marks tc-g.dat >actual && seq 1 5 | sed "s/^/guest /" >expect &&
	test_cmp expect actual &&
	trace-cmd report -i tc.dat -i tc-g.dat 2>/dev/null |
		sed -n "s/.*tracing_mark_write: //p" >merged &&
	for i in $(seq 1 5); do echo "host $i"; echo "guest $i"; done >expect &&
	test_cmp expect merged &&
	wait_log "ended: [0-9]* bytes of events sent" 1 a.log &&
	server_ends $SPID a.log
'

test_expect_success 'bad arguments: usage errors, nothing started' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	test_expect_code 64 tr record -e sched:sched_switch -V 1 2>err &&
	test_grep "bad vsock address .1.: give CID:PORT" err &&
	test_expect_code 64 tr record -e sched:sched_switch -V x:5 2>err &&
	test_grep "the CID must be a number" err &&
	test_expect_code 64 tr record -e sched:sched_switch -V 1:0 2>err &&
	test_expect_code 64 tr record -e sched:sched_switch -V 1:5 -N 127.0.0.1:5 2>err &&
	test_grep "give one" err &&
	test_expect_code 64 tr record -e sched:sched_switch -A g@1:70000 2>err &&
	test_expect_code 64 tr listen --vsock -p 0 --allow 10.0.0.0/8 2>err &&
	test_grep "give --allow CID" err &&
	test_expect_code 64 tr listen -p 0 --allow 3 2>err &&
	test_expect_code 64 tr listen --vsock -p 0 --bind 127.0.0.1 2>err &&
	test_expect_code 64 tr agent --allow 0 2>err &&
	test "$(ls -A)" = err
'

test_done
