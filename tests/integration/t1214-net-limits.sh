#!/bin/bash
# tr listen and tr agent against peers that hold, trickle and spin: a byte
# at a time never puts off a deadline (the TLS handshake, the set-up, the
# silence of a client, the agent's request), a signal ends either server
# within a second whatever its peers do, and one address cannot take every
# slot; and tr record -N and -A end within a second of a signal while a
# listener or an agent says nothing in the set-up.  Loopback only; the limits are made short with the options so that
# every case is over in seconds; every loop is bounded; each server is
# stopped by its pid.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
test_kernels debian
test_requires instances events

peer=$TEST_ROOT/tests/integration/netpeer.py

# drip PORT KIND SECONDS OUT: netpeer.py's drip in the background, its lines
# into OUT; sets DPID.  For tlsdata, SECONDS is SECONDS:KEYFILE.
drip() {
	python3 "$peer" "$1" "drip:$2:$3" >"$4" &
	DPID=$!
}

# closed_within OUT SECONDS: the peer says the server closed it, at most
# SECONDS after it connected.
closed_within() {
	local t
	test_wait_exit "$DPID" 60 || return 1
	t=$(sed -n "s/^closed after //p" "$1")
	if [ -z "$t" ] || [ "${t%.*}" -ge "$2" ]; then
		echo "closed_within: want at most $2 s:" >&2
		cat "$1" >&2
		return 1
	fi
}

# accepted PORT: the server has taken every connection waiting on PORT
# (its listen queue, ss's Recv-Q, is empty) and one is open; bounded, 10 s.
accepted() { wait_for 10 accepted_now "$1"; }
accepted_now() {
	[ "$(ss -Hltn "sport = :$1" | awk "{ print \$2 }")" = 0 ] &&
		ss -Htn state established "dport = :$1" | grep -q .
}

# ends_within PID LOG: SIGINT ends the server within 1 s, status 0, no sanitizer report.
ends_within() {
	local rc=0
	kill -INT "$1"
	if ! wait_for 1 pid_gone "$1"; then
		echo "ends_within: $1 still running 1 s after SIGINT" >&2
		cat "$2" >&2
		return 1
	fi
	wait "$1" || rc=$?
	if [ $rc != 0 ] || grep -E "Sanitizer|runtime error" "$2" >&2; then
		echo "server: status $rc" >&2
		cat "$2" >&2
		return 1
	fi
}

key() {
	python3 -c "import os; print(os.urandom(32).hex())" >"$1" && chmod 600 "$1"
}

test_expect_success 'listen --psk: a TLS handshake a byte at a time is dropped at the set-up deadline' '
	cd "$(mktemp -d -p "$TEST_TMP")" && key k &&
	net_start l.log ".*" "$TR" listen -p 0 --psk k --setup-timeout 2s &&
	test_when_finished "net_stop $NET_PID" &&
	drip $NET_PORT tls 0.3 d.out &&
	closed_within d.out 5 &&
	test_grep "refused: TLS handshake timed out" l.log &&
	net_ends $NET_PID l.log
'

test_expect_success 'listen --psk: a data connection'"'"'s TLS handshake a byte at a time is dropped at its deadline' '
	cd "$(mktemp -d -p "$TEST_TMP")" && key k &&
	net_start l.log ".*" "$TR" listen -p 0 --psk k --setup-timeout 2s &&
	test_when_finished "net_stop $NET_PID" &&
	drip $NET_PORT tlsdata 0.3:k d.out &&
	closed_within d.out 5 &&
	test_grep "refused a data connection from .*: TLS handshake timed out" l.log &&
	net_ends $NET_PID l.log
'

test_expect_success 'listen: a message a byte at a time is dropped at the set-up deadline' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	net_start l.log ".*" "$TR" listen -p 0 --setup-timeout 2s &&
	test_when_finished "net_stop $NET_PID" &&
	drip $NET_PORT msg 0.15 d.out &&
	closed_within d.out 5 &&
	test_grep "ended, no file: no metadata in time" l.log &&
	net_ends $NET_PID l.log
'

test_expect_success 'listen: a data connection a byte at a time is dropped at the idle limit' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	net_start l.log ".*" "$TR" listen -p 0 --idle-timeout 2s &&
	test_when_finished "net_stop $NET_PID" &&
	drip $NET_PORT data 0.15 d.out &&
	closed_within d.out 5 &&
	test_grep "ended early (silent for too long)" l.log &&
	net_ends $NET_PID l.log
'

test_expect_success 'agent: a request a byte at a time is dropped at its 10 s deadline' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	net_start a.log ".*" "$TR" agent --tcp -p 0 &&
	test_when_finished "net_stop $NET_PID" &&
	drip $NET_PORT agent 0.5 d.out &&
	closed_within d.out 13 &&
	test_grep "refused: no request in time" a.log &&
	net_ends $NET_PID a.log
'

test_expect_success 'SIGINT ends listen within 1 s with slow TLS and plain peers connected' '
	cd "$(mktemp -d -p "$TEST_TMP")" && key k &&
	net_start l.log ".*" "$TR" listen -p 0 --psk k &&
	test_when_finished "net_stop $NET_PID" &&
	drip $NET_PORT tls 0.3 d1.out && p1=$DPID &&
	wait_log "connected" 1 l.log &&
	ends_within $NET_PID l.log &&
	test_wait_exit $p1 10 &&
	net_start l2.log ".*" "$TR" listen -p 0 &&
	drip $NET_PORT msg 0.15 d2.out && p2=$DPID &&
	wait_log "^connected" 1 d2.out &&
	ends_within $NET_PID l2.log &&
	test_wait_exit $p2 10
'

test_expect_success 'SIGINT ends listen within 1 s with a slow TLS peer on a data port' '
	cd "$(mktemp -d -p "$TEST_TMP")" && key k &&
	net_start l.log ".*" "$TR" listen -p 0 --psk k &&
	test_when_finished "net_stop $NET_PID" &&
	drip $NET_PORT tlsdata 1:k d.out &&
	wait_log "^connected" 1 d.out &&
	accepted "$(sed -n "s/^data port //p" d.out)" &&
	ends_within $NET_PID l.log &&
	test_wait_exit $DPID 10 &&
	test_grep "^closed after" d.out
'

test_expect_success 'SIGINT ends agent within 1 s with a slow peer, TLS or plain' '
	cd "$(mktemp -d -p "$TEST_TMP")" && key k &&
	net_start a.log ".*" "$TR" agent --tcp -p 0 --psk k &&
	test_when_finished "net_stop $NET_PID" &&
	drip $NET_PORT tls 0.3 d1.out && p1=$DPID &&
	accepted $NET_PORT &&
	ends_within $NET_PID a.log &&
	test_wait_exit $p1 10 &&
	net_start a2.log ".*" "$TR" agent --tcp -p 0 &&
	drip $NET_PORT agent 0.3 d2.out && p2=$DPID &&
	accepted $NET_PORT &&
	ends_within $NET_PID a2.log &&
	test_wait_exit $p2 10
'

# mute OUT: netpeer.py's silent server in the background, its lines into
# OUT; waits for its port (MPORT) and sets MPID.
mute() {
	python3 "$peer" 0 mute >"$1" &
	MPID=$!
	wait_for 10 grep -q "^port " "$1" && MPORT=$(sed -n "s/^port //p" "$1")
}

# record_stops OUT ERR ARGS...: tr record ARGS in the background, SIGINT once
# the silent server has its connection: it ends within 1 s, status 1, with
# one line saying the signal stopped the set-up, its instance gone.
record_stops() {
	local out=$1 err=$2 inst pid rc=0
	shift 2
	inst=$(test_instance)
	"$TR" record -B "$inst" -e sched:sched_switch "$@" true 2>"$err" &
	pid=$!
	wait_for 10 grep -q "^accepted" "$out" || { kill "$pid"; wait "$pid"; return 1; }
	kill -INT "$pid"
	if ! wait_for 1 pid_gone "$pid"; then
		echo "record_stops: $pid still running 1 s after SIGINT" >&2
		kill "$pid"
		wait "$pid"
		return 1
	fi
	wait "$pid" || rc=$?
	test $rc = 1 && test_grep "stopped (a signal) before the .* answered" "$err" &&
		test "$(wc -l <"$err")" = 1 && test ! -d "$TRACEFS/instances/$inst" &&
		test ! -e r.dat
}

test_expect_success 'SIGINT ends record -N and record -A within 1 s while the peer is silent' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	mute m1.out && test_when_finished "net_stop $MPID" &&
	record_stops m1.out n.err -N 127.0.0.1:$MPORT &&
	test_grep "to .127.0.0.1:$MPORT.: the handshake" n.err &&
	mute m2.out && test_when_finished "net_stop $MPID" &&
	record_stops m2.out a.err -A g1@127.0.0.1:$MPORT -e sched:sched_switch -o r.dat &&
	test_grep "guest .g1. at .127.0.0.1:$MPORT.: the request" a.err
'

# gives_up_within ERR RC_FILE START: the record whose status went into
# RC_FILE failed with one line, no whole answer in 30 s, at 29 to 36 s
# after START (seconds since the epoch).
gives_up_within() {
	local t
	t=$(awk -v s="$3" -v e="$(stat -c %.3Y "$2")" "BEGIN { print int(e - s) }")
	if [ "$(cat "$2")" != 1 ] || [ "$t" -lt 29 ] || [ "$t" -gt 36 ] ||
	   ! grep -q "no whole answer within 30 s" "$1" || [ "$(wc -l <"$1")" != 1 ]; then
		echo "gives_up_within: status $(cat "$2") after $t s:" >&2
		cat "$1" >&2
		return 1
	fi
}

test_expect_success 'record -N and record -A give up at 30 s on a peer that answers a byte every 5 s' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	{ python3 "$peer" 0 slow:5 >s.out & } &&
	spid=$! &&
	test_when_finished "net_stop $spid" &&
	wait_for 10 grep -q "^port " s.out && port=$(sed -n "s/^port //p" s.out) &&
	ni=$(test_instance) && ai=$(test_instance) &&
	# one after the other: a second tr waits for the first one to end
	start=$(date +%s.%N) &&
	{ "$TR" record -B "$ni" -e sched:sched_switch -N 127.0.0.1:$port true 2>n.err
	  echo $? >n.rc; } &&
	gives_up_within n.err n.rc "$start" &&
	start=$(date +%s.%N) &&
	{ "$TR" record -B "$ai" -e sched:sched_switch -A g1@127.0.0.1:$port \
		-e sched:sched_switch -o r.dat true 2>a.err
	  echo $? >a.rc; } &&
	gives_up_within a.err a.rc "$start" &&
	test_grep "to .127.0.0.1:$port.: the handshake: no whole answer" n.err &&
	test_grep "guest .g1. at .127.0.0.1:$port.: the request: no whole answer" a.err &&
	test ! -d "$TRACEFS/instances/$ni" && test ! -d "$TRACEFS/instances/$ai" && test ! -e r.dat
'

test_expect_success 'listen --max-per-host: one address cannot take every slot' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	net_start l.log ".*" "$TR" listen -p 0 --max-per-host 1 &&
	test_when_finished "net_stop $NET_PID" &&
	mkfifo hold &&
	{ python3 "$peer" $NET_PORT hold <hold >/dev/null & } && hpid=$! &&
	exec 9>hold &&
	test_when_finished "exec 9>&-; wait $hpid || :" &&
	wait_log "connected" 1 l.log &&
	{ python3 "$peer" $NET_PORT garbage >/dev/null 2>&1 || :; } &&
	wait_log "refused: 1 clients from this address already (--max-per-host)" 1 l.log &&
	python3 "$peer" $NET_PORT garbage 127.0.0.2 >/dev/null &&
	wait_log "127.0.0.2:.*refused: handshake string too long\|127.0.0.2:.*refused: not protocol" 1 l.log &&
	exec 9>&- && test_wait_exit $hpid 30 &&
	net_ends $NET_PID l.log
'

test_expect_success 'listen under ulimit -n 64: clients past the descriptors are refused, no busy loop' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	net_start l.log ".*" bash -c "ulimit -n 64 && exec \"\$@\"" _ "$TR" listen -p 0 --max-per-host 16 &&
	test_when_finished "net_stop $NET_PID" &&
	mkfifo hold && exec 9<>hold &&
	test_when_finished "exec 9>&-" &&
	# The peers must not inherit fd 9, the fifo'"'"'s writer, or closing it
	# never ends them (each would be left behind, reading its stdin).
	for i in 1 2 3 4 5 6 7 8; do
		{ python3 "$peer" $NET_PORT holdcpus:3 <hold >/dev/null 2>&1 9>&- & } || exit 1
	done &&
	wait_log "recording 3 CPUs" 3 l.log &&
	wait_log "refused: 3 CPUs need 9 descriptors\|refused: out of descriptors" 5 l.log &&
	{ python3 "$peer" $NET_PORT hold <hold >/dev/null 2>&1 9>&- & } &&
	# Each of the nine is either taken ("connected") or refused at accept,
	# before it has a line of its own, when the descriptors are gone: which
	# one depends on the order the threads ran in (in a TCG guest, another).
	wait_log "connected$\|refused: out of descriptors\|cannot accept a client" 9 l.log &&
	# A measurement over a span of time, not a wait: under 0.3 s of CPU in 3 s.
	t0=$(cpu_ticks $NET_PID) && sleep 3 && t1=$(cpu_ticks $NET_PID) &&
	test $((t1 - t0)) -lt $(( $(getconf CLK_TCK) * 3 / 10 )) &&
	exec 9>&- &&
	net_ends $NET_PID l.log
'

test_done
