#!/bin/bash
# Data connections bound to their session: between tr's own ends in plain
# mode each data connection sends the session's token first, so a process
# that reaches a data port before the real client (tr listen's) or before
# the real host (tr agent's, for tr record -A) is refused with one line and
# gets nothing, and the real recording completes with its own events only.
# netpeer.py's proxy stands on the control connection and puts a forger at
# each port the server names before passing the answer on.  Loopback only;
# every wait is bounded; each server is stopped by its pid.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
# Host only: tr talks to tr over loopback here, nothing of the guest's kernel or
# its trace-cmd is involved, and the Debian guest is the VM tier's longest path.

test_requires instances events

peer=$TEST_ROOT/tests/integration/netpeer.py

# proxy_start SERVER_PORT listen|agent KIND OUT: netpeer.py's proxy in the
# background, its lines into OUT; sets PPID_ and PPORT once it listens (10 s).
proxy_start() {
	python3 "$peer" "$1" "proxy:$2:$3" >"$4" &
	PPID_=$!
	wait_for 10 grep -q "^proxy " "$4" && PPORT=$(sed -n "s/^proxy //p" "$4")
}

# forgers_refused OUT N: N forgers, each closed by the server with nothing sent to it.
forgers_refused() {
	test_wait_exit "$PPID_" 30 &&
	test "$(grep -c "^forger [0-9]*: closed, got 0 bytes$" "$1")" = "$2" ||
		{ echo "forgers_refused: want $2:" >&2; cat "$1" >&2; return 1; }
}

test_expect_success 'listen: a forger at the data port before tr record -N is refused, the real events are recorded' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	net_start l.log ".*" "$TR" listen -p 0 -d out &&
	test_when_finished "net_stop $NET_PID" &&
	proxy_start $NET_PORT listen forge p.out &&
	test_when_finished "kill $PPID_ 2>/dev/null || :" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$PPORT \
		sh -c "$write_marks" _ "$inst" 200 real &&
	wait_log "ended: wrote" 1 l.log &&
	forgers_refused p.out "$(grep -c "^forger" p.out)" &&
	test "$(grep -c "^forger" p.out)" -ge 1 &&
	test_grep "refused a data connection from 127.0.0.1:[0-9]*: wrong session token" l.log &&
	f=$(echo out/trace.127.0.0.1:*.dat) && test -f "$f" &&
	seq 1 200 | sed "s/^/real /" >expect &&
	marks "$f" >actual && test_cmp expect actual &&
	net_ends $NET_PID l.log
'

test_expect_success 'listen: a forger that says nothing is dropped at its token deadline, the real client goes on' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	net_start l.log ".*" "$TR" listen -p 0 -d out &&
	test_when_finished "net_stop $NET_PID" &&
	proxy_start $NET_PORT listen hold p.out &&
	test_when_finished "kill $PPID_ 2>/dev/null || :" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$PPORT \
		sh -c "$write_marks" _ "$inst" 50 real &&
	wait_log "ended: wrote" 1 l.log &&
	forgers_refused p.out "$(grep -c "^forger" p.out)" &&
	test_grep "refused a data connection from 127.0.0.1:[0-9]*: no session token in time" l.log &&
	f=$(echo out/trace.127.0.0.1:*.dat) && test -f "$f" &&
	seq 1 50 | sed "s/^/real /" >expect &&
	marks "$f" >actual && test_cmp expect actual &&
	net_ends $NET_PID l.log
'

test_expect_success 'a client that names no session (trace-cmd'"'"'s way) is still served without a token' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	net_start l.log ".*" "$TR" listen -p 0 -d out --file-version 6 &&
	test_when_finished "net_stop $NET_PID" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$NET_PORT \
		sh -c "$write_marks" _ "$inst" 10 v6 &&
	wait_log "ended: wrote" 1 l.log &&
	mv out/*.dat v6.dat &&
	python3 "$peer" $NET_PORT "tgids:v6.dat:1 2\\n" &&
	wait_log "ended: wrote" 2 l.log &&
	test_must_fail grep "session token" l.log &&
	net_ends $NET_PID l.log
'

test_expect_success 'agent: forgers at the time sync and data ports before tr record -A are refused and get no page' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	net_start a.log ".*" "$TR" agent --tcp -p 0 --instance "$ag" &&
	test_when_finished "net_stop $NET_PID" &&
	proxy_start $NET_PORT agent forge p.out &&
	test_when_finished "kill $PPID_ 2>/dev/null || :" &&
	tr record -B "$host" -e sched:sched_process_exit -A g@127.0.0.1:$PPORT \
		sh -c "$pairs" _ "$host" "$ag" 20 2>summary &&
	test_grep "^guest g: wrote .trace-g.dat." summary &&
	wait_log "ended: [0-9]* bytes of events sent" 1 a.log &&
	n=$(grep -c "^forger" p.out) && test "$n" -ge 2 &&
	forgers_refused p.out "$n" &&
	test "$(grep -c "refused a connection from 127.0.0.1:[0-9]*: wrong session token" a.log)" = "$n" &&
	seq 1 20 | sed "s/^/guest /" >expect &&
	marks trace-g.dat >actual && test_cmp expect actual &&
	net_ends $NET_PID a.log
'

# For sh -c before $pairs (the agent's instance is $2): the agent traces
# only once it has taken every connection, and forgers that say nothing put
# that off by seconds (10 s at most).
agent_tracing='for i in $(seq 200); do
	grep -q ": recording [0-9]* CPUs" a.log &&
		[ "$(cat '"$TRACEFS"'/instances/$2/tracing_on)" = 1 ] && break
	sleep 0.05
done'

test_expect_success 'agent: a forger that says nothing is dropped at its token deadline, the host goes on' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	net_start a.log ".*" "$TR" agent --tcp -p 0 --instance "$ag" &&
	test_when_finished "net_stop $NET_PID" &&
	proxy_start $NET_PORT agent hold p.out &&
	test_when_finished "kill $PPID_ 2>/dev/null || :" &&
	tr record -B "$host" -e sched:sched_process_exit -A g@127.0.0.1:$PPORT \
		sh -c "$agent_tracing; $pairs" _ "$host" "$ag" 5 2>summary &&
	test_grep "^guest g: wrote .trace-g.dat." summary &&
	wait_log "ended: [0-9]* bytes of events sent" 1 a.log &&
	n=$(grep -c "^forger" p.out) && forgers_refused p.out "$n" &&
	test_grep "refused a connection from 127.0.0.1:[0-9]*: no session token in time" a.log &&
	seq 1 5 | sed "s/^/guest /" >expect &&
	marks trace-g.dat >actual && test_cmp expect actual &&
	net_ends $NET_PID a.log
'

test_done
