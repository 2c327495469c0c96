#!/bin/bash
# tr agent and tr record -A over loopback: the host's markers land in
# trace.dat and the agent's in trace-NAME.dat, each once and in order; the
# measured clock offset is stored as trace-cmd does (TIME_SHIFT in the
# guest's file, TRACEID and GUEST in the host's: trace-cmd dump reads them)
# and trace-cmd report's merged timeline puts every guest marker between
# the host markers written before and after it.  With --psk on both ends
# they speak TLS; another key, or none, is refused with one line at each end
# and nothing written.  The agent binds loopback, refuses hosts outside
# --allow, hostile peers and a second host while it records with one line
# each and serves on; bad
# arguments are usage errors.  Every wait is bounded; each agent is stopped
# by its pid.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
# The network code is the same on every kernel: the host (6.18) and the oldest
# guest (6.1) cover it; the full guest added minutes to the VM tier and nothing else.
test_kernels debian

test_requires instances events

peer=$TEST_ROOT/tests/integration/agentpeer.py

# start_agent LOG ARGS...: tr agent on a free port in the background; sets APID and APORT.
start_agent() {
	net_start "$1" ".*" "$TR" agent --tcp -p 0 "${@:2}" && APID=$NET_PID && APORT=$NET_PORT
}

test_expect_success 'tr agent listens on loopback and says where' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	start_agent a.log &&
	test_when_finished "net_stop $APID" &&
	test_grep "listening on 127.0.0.1 port $APORT" a.log &&
	hex=$(printf "%04X" $APORT) &&
	grep -q "0100007F:$hex 00000000:0000 0A" /proc/net/tcp &&
	test_must_fail grep -q "00000000:$hex 00000000:0000 0A" /proc/net/tcp &&
	net_ends $APID a.log
'

test_expect_success 'tr record -A: host and guest markers in their files, the offset stored' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	start_agent a.log --instance "$ag" &&
	test_when_finished "net_stop $APID" &&
	tr record -B "$host" -e sched:sched_process_exit -A g1@127.0.0.1:$APORT \
		--tsync-interval 100 sh -c "$pairs" _ "$host" "$ag" 50 2>summary &&
	test_grep "^guest g1: wrote .trace-g1.dat. (.*clock offset [-+][0-9]* ns ([0-9]* measurements, spread [0-9]* ns)" summary &&
	seq 1 50 | sed "s/^/host /" >expect.host &&
	seq 1 50 | sed "s/^/guest /" >expect.guest &&
	marks trace.dat >actual.host && test_cmp expect.host actual.host &&
	marks trace-g1.dat >actual.guest && test_cmp expect.guest actual.guest &&
	wait_log "ended: [0-9]* bytes of events sent" 1 a.log &&
	test_grep -c "connected: 1 events, clock mono" a.log &&
	test ! -d "$TRACEFS/instances/$ag" && test ! -d "$TRACEFS/instances/$host" &&
	# the same host and guest on loopback: one clock, so the offset is small
	off=$(sed -n "s/.*clock offset \([-+][0-9]*\) ns.*/\1/p" summary) &&
	test ${off#[-+]} -lt 1000000 &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd dump --options -i trace.dat >host.opt 2>/dev/null &&
		trace-cmd dump --options -i trace-g1.dat >guest.opt 2>/dev/null &&
		hid=$(sed -n "/Option TRACEID/{n;p;q}" host.opt) && test -n "$hid" &&
		gid=$(sed -n "/Option TRACEID/{n;p;q}" guest.opt) && test -n "$gid" &&
		test_grep "^$hid \[peer.s trace id\]" guest.opt &&
		test_grep "^0x1 \[peer.s protocol flags\]" guest.opt &&
		n=$(sed -n "s/^\([0-9]*\) \[samples count for CPU 0\]/\1/p" guest.opt) &&
		test "$n" -ge 2 &&
		test_grep -A1 "^g1 \[Guest name\]" host.opt >gopt &&
		test_grep "^$gid \[trace id\]" gopt &&
		# merged and shifted: each guest marker between its host markers
		trace-cmd report -i trace.dat -i trace-g1.dat 2>/dev/null |
			sed -n "s/.*tracing_mark_write: //p" >merged &&
		for i in $(seq 1 50); do echo "host $i"; echo "guest $i"; done >expect &&
		test_cmp expect merged
	fi &&
	tr record -B "$host" -e sched:sched_process_exit -A g2@127.0.0.1:$APORT -e ftrace:print \
		-o second.dat sh -c "$pairs" _ "$host" "$ag" 5 2>summary2 &&
	marks second-g2.dat >actual && seq 1 5 | sed "s/^/guest /" >expect && test_cmp expect actual &&
	net_ends $APID a.log
'

test_expect_success 'hostile hosts: one line each, the agent serves on' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	start_agent a.log --instance "$ag" &&
	test_when_finished "net_stop $APID" &&
	for m in garbage bigmsg option manyargs cut quiet; do
		python3 "$peer" $APORT $m >peer.$m || exit 1
	done &&
	wait_log "refused:" 6 a.log &&
	test_grep "refused: message over 8192 bytes" a.log &&
	test_grep "refused: only -e, -f and -C are taken" a.log &&
	test_grep "refused: TRACE_REQ has more than 64 arguments" a.log &&
	test_grep "refused: closed before its request" a.log &&
	test $(grep -c "refused:" a.log) = 6 &&
	test_must_fail grep -q "ended" a.log &&
	test ! -d "$TRACEFS/instances/$ag" &&
	tr record -q -B "$host" -e sched:sched_process_exit -A g@127.0.0.1:$APORT \
		sh -c "$pairs" _ "$host" "$ag" 3 &&
	marks trace-g.dat >actual && seq 1 3 | sed "s/^/guest /" >expect && test_cmp expect actual &&
	net_ends $APID a.log
'

test_expect_success 'a filter that closes its parentheses early is refused, host and agent' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	ag=$(test_instance)-ag &&
	start_agent a.log --instance "$ag" &&
	test_when_finished "net_stop $APID" &&
	python3 "$peer" $APORT breakout >peer.out &&
	wait_log "bad filter" 1 a.log &&
	test_grep "ended: bad filter .1) || (1.: unbalanced parentheses$" a.log &&
	test $(grep -c "bad filter" a.log) = 1 &&
	test ! -d "$TRACEFS/instances/$ag" &&
	test_expect_code 64 tr record -e sched:sched_process_exit -f "1) || (1" \
		-A g@127.0.0.1:$APORT true 2>err &&
	test_grep "^tr record: bad filter .1) || (1.: unbalanced parentheses$" err &&
	test $(grep -c "bad filter" err) = 1 &&
	net_ends $APID a.log
'

test_expect_success 'a host outside --allow is refused with one line' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	start_agent a.log --allow 127.0.0.2 &&
	test_when_finished "net_stop $APID" &&
	test_expect_code 1 tr record -e sched:sched_process_exit -A g@127.0.0.1:$APORT true 2>err &&
	test_grep "cannot record guest .g. at .127.0.0.1:$APORT." err &&
	test $(wc -l <err) = 1 &&
	wait_log "127.0.0.1:[0-9]*: refused: address not allowed" 1 a.log &&
	test ! -e trace.dat && test ! -e trace-g.dat &&
	net_ends $APID a.log
'

test_expect_success '--psk: TLS between tr record -A and tr agent; another key is refused with one line' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	python3 -c "import os; print(os.urandom(32).hex())" >key &&
	python3 -c "import os; print(os.urandom(32).hex())" >other &&
	chmod 600 key other &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	start_agent a.log --instance "$ag" --psk key &&
	test_when_finished "net_stop $APID" &&
	tr record -q -B "$host" -e sched:sched_process_exit -A g@127.0.0.1:$APORT --psk key \
		sh -c "$pairs" _ "$host" "$ag" 5 &&
	marks trace-g.dat >actual && seq 1 5 | sed "s/^/guest /" >expect && test_cmp expect actual &&
	wait_log "ended: [0-9]* bytes of events sent" 1 a.log &&
	mkdir wrong && cd wrong &&
	test_expect_code 1 tr record -e sched:sched_process_exit -A g@127.0.0.1:$APORT \
		--psk ../other true 2>err &&
	test_grep "cannot record guest .g. at .127.0.0.1:$APORT.: .*refused the key" err &&
	test $(wc -l <err) = 1 &&
	wait_log "refused: TLS handshake failed" 1 ../a.log &&
	test $(grep -c "refused" ../a.log) = 1 &&
	# a host without TLS: refused the same way, nothing written either
	test_expect_code 1 tr record -e sched:sched_process_exit -A g@127.0.0.1:$APORT true 2>err2 &&
	test $(wc -l <err2) = 1 &&
	wait_log "refused: TLS handshake failed" 2 ../a.log &&
	test $(grep -c "refused" ../a.log) = 2 &&
	test "$(ls -A)" = "$(printf "err\nerr2")" &&
	test ! -d "$TRACEFS/instances/$ag" &&
	cd .. && net_ends $APID a.log
'

test_expect_success 'a second host while the agent records: refused with one line, the first goes on' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir second &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	start_agent a.log --instance "$ag" &&
	test_when_finished "net_stop $APID" &&
	# the first recording writes its markers once the second host was refused (touch go)
	{ tr record -q -B "$host" -e sched:sched_process_exit -A g@127.0.0.1:$APORT \
		sh -c "i=0; while [ ! -e go ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done; $pairs" \
		_ "$host" "$ag" 5 2>first.err & } &&
	rpid=$! &&
	test_when_finished "kill $rpid 2>/dev/null || :" &&
	wait_log "recording [0-9]* CPUs" 1 a.log &&
	(cd second && test_expect_code 1 tr record -e sched:sched_process_exit \
		-A g2@127.0.0.1:$APORT true 2>err) &&
	test_grep "cannot record guest .g2. at .127.0.0.1:$APORT.: the request: connection closed" second/err &&
	test $(wc -l <second/err) = 1 &&
	test "$(ls -A second)" = err &&
	wait_log "refused: busy recording for 127.0.0.1:[0-9]*$" 1 a.log &&
	test $(grep -c "refused" a.log) = 1 &&
	touch go &&
	test_wait_exit $rpid 60 &&
	marks trace-g.dat >actual && seq 1 5 | sed "s/^/guest /" >expect && test_cmp expect actual &&
	marks trace.dat >actual && seq 1 5 | sed "s/^/host /" >expect && test_cmp expect actual &&
	wait_log "ended: [0-9]* bytes of events sent" 1 a.log &&
	net_ends $APID a.log
'

test_expect_success 'no agent at the port: one line, no files' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	port=$(python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	test_expect_code 1 tr record -e sched:sched_process_exit -A g@127.0.0.1:$port true 2>err &&
	test_grep "cannot record guest .g. at .127.0.0.1:$port.: cannot connect" err &&
	test $(wc -l <err) = 1 &&
	test ! -e trace.dat && test ! -e trace-g.dat
'

test_expect_success 'tr record -A with trace-cmd agent -N' '
	command -v trace-cmd >/dev/null || exit 0
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	host=$(test_instance) && port=$(tc_free_port) &&
	tc_sync_note && test_when_finished "$tc_sync_cleanup" &&
	{ "$TEST_ROOT/tests/data/tc-agent.sh" -N 127.0.0.1 -p $port >tc.log 2>&1 & } &&
	tpid=$! &&
	test_when_finished "kill $tpid 2>/dev/null || :; wait $tpid 2>/dev/null || :" &&
	hex=$(printf "%04X" $port) &&
	for i in $(seq 100); do
		grep -q ":$hex 00000000:0000 0A" /proc/net/tcp && break
		sleep 0.1
	done &&
	# trace-cmd agent starts tracing a while after it answers: the markers wait for
	# it (tc_agent_tracing), and a sub-buffer of filler follows them on each CPU
	# (tc_agent_fill)
	tr record -B "$host" -e sched:sched_process_exit -A tc@127.0.0.1:$port \
		--tsync-interval 200 sh -c "$tc_agent_tracing; $pairs; $tc_agent_fill" _ "$host" .. 5 \
		2>summary &&
	test_grep "^guest tc: wrote .trace-tc.dat. (.*clock offset" summary &&
	marks trace-tc.dat | marks_only >actual && seq 1 5 | sed "s/^/guest /" >expect &&
	{ test_cmp expect actual || { tc_agent_lost trace-tc.dat tc.log; false; }; } &&
	trace-cmd report -i trace.dat -i trace-tc.dat 2>/dev/null |
		sed -n "s/.*tracing_mark_write: //p" | marks_only >merged &&
	for i in $(seq 1 5); do echo "host $i"; echo "guest $i"; done >expect &&
	test_cmp expect merged &&
	trace-cmd dump --options -i trace-tc.dat 2>/dev/null >guest.opt &&
	n=$(sed -n "s/^\([0-9]*\) \[samples count for CPU 0\]/\1/p" guest.opt) &&
	test "$n" -ge 3 &&
	{ kill $tpid; wait $tpid || :; }
'

test_expect_success 'trace-cmd record -A with tr agent' '
	command -v trace-cmd >/dev/null || exit 0
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	ag=$(test_instance)-ag && host=$(test_instance) &&
	tc_sync_note && test_when_finished "$tc_sync_cleanup" &&
	start_agent a.log --instance "$ag" &&
	test_when_finished "net_stop $APID" &&
	"$TEST_ROOT/tests/data/tc-record.sh" "$host" tc.dat -C mono -e sched:sched_process_exit \
		-A 127.0.0.1:$APORT -e sched:sched_process_exit \
		sh -c "sleep 0.5; $pairs" _ "$host" "$ag" 5 &&
	test -s tc-127.0.0.1.dat &&
	marks tc-127.0.0.1.dat >actual && seq 1 5 | sed "s/^/guest /" >expect &&
	test_cmp expect actual &&
	trace-cmd report -i tc.dat -i tc-127.0.0.1.dat 2>/dev/null |
		sed -n "s/.*tracing_mark_write: //p" >merged &&
	for i in $(seq 1 5); do echo "host $i"; echo "guest $i"; done >expect &&
	test_cmp expect merged &&
	trace-cmd dump --options -i tc-127.0.0.1.dat 2>/dev/null >guest.opt &&
	test_grep "samples count for CPU 0" guest.opt &&
	wait_log "ended: [0-9]* bytes of events sent" 1 a.log &&
	test_grep "recording [0-9]* CPUs, clock sync ptp" a.log &&
	net_ends $APID a.log
'

test_expect_success 'bad arguments: usage errors, nothing started' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	test_expect_code 64 tr record -e sched:sched_switch -A g 2>err && test_grep "bad guest .g." err &&
	test_expect_code 64 tr record -e sched:sched_switch -A g@127.0.0.1 2>err &&
	test_grep "NAME@ADDR:PORT" err &&
	test_expect_code 64 tr record -e sched:sched_switch -A .g@127.0.0.1:1 2>err &&
	test_expect_code 64 tr record -e sched:sched_switch -A a/b@127.0.0.1:1 2>err &&
	test_expect_code 64 tr record -e sched:sched_switch -A g@127.0.0.1:1 -b 100 2>err &&
	test_grep "give only -e, -f and -C" err &&
	test_expect_code 64 tr record -e sched:sched_switch -C local -A g@127.0.0.1:1 2>err &&
	test_grep "clock .local. of this machine cannot be" err &&
	test_expect_code 64 tr record -e sched:sched_switch -A g@127.0.0.1:1 -A g@127.0.0.1:2 2>err &&
	test_grep "given twice" err &&
	test_expect_code 64 tr record -e sched:sched_switch --tsync-interval 10 2>err &&
	test_grep "goes with -A" err &&
	test_expect_code 64 tr record -e sched:sched_switch -A g@127.0.0.1:1 --tsync-interval 0 2>err &&
	test_expect_code 64 tr record -e sched:sched_switch -A g@127.0.0.1:1 -N 127.0.0.1:2 2>err &&
	test_expect_code 64 tr agent --allow 127.0.0.1 2>err && test_grep "give --allow CID" err &&
	test_expect_code 64 tr agent --tcp -p 70000 2>err && test_grep "bad port" err &&
	test_expect_code 64 tr agent --tcp --allow 10.0.0.0/33 2>err &&
	test_expect_code 64 tr agent --tcp --instance a/b 2>err &&
	test_expect_code 64 tr agent --tcp extra 2>err &&
	test "$(ls -A)" = err
'

test_done
