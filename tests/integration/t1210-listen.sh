#!/bin/bash
# tr listen and tr record -N over loopback: the received file holds every
# marker once and in order; eight clients at once; each refusal (an address
# outside --allow, over --max-clients, over --max-size, garbage, a cut
# message) is one log line and the listener goes on serving; and trace-cmd
# on either side.  Nothing leaves loopback; every wait is bounded; each
# listener is stopped by its pid.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
# The network code is the same on every kernel: the host (6.18) and the oldest
# guest (6.1) cover it; the full guest added minutes to the VM tier and nothing else.
test_kernels debian

test_requires instances events

peer=$TEST_ROOT/tests/integration/netpeer.py

# start_listener LOG ARGS...: tr listen on a free port in the background;
# sets LPID and LPORT.  The caller stops it with net_stop.
start_listener() {
	net_start "$1" ".*" "$TR" listen -p 0 "${@:2}" && LPID=$NET_PID && LPORT=$NET_PORT
}

test_expect_success 'tr record -N into tr listen: every marker once, in order, as a local recording' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	tr record -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$LPORT \
		sh -c "$write_marks" _ "$inst" 2000 mark 2>summary &&
	test_grep "sent to .127.0.0.1:$LPORT." summary &&
	test_grep "^ *total " summary &&
	wait_log "ended: wrote" 1 l.log &&
	tr record -B "$inst" -e sched:sched_process_exit -o local.dat \
		sh -c "$write_marks" _ "$inst" 2000 mark 2>/dev/null &&
	seq 1 2000 | sed "s/^/mark /" >expect &&
	marks local.dat >local && test_cmp expect local &&
	f=$(echo out/trace.127.0.0.1:*.dat) && test -f "$f" &&
	marks "$f" >actual && test_cmp expect actual &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i "$f" 2>/dev/null | sed -n "s/.*tracing_mark_write: //p" >tc &&
		test_cmp expect tc
	fi &&
	test_grep -c "connected" l.log >n && echo 1 >one && test_cmp one n &&
	test $(ls -A out | wc -l) = 1 &&
	test ! -d "$TRACEFS/instances/$inst" &&
	net_ends $LPID l.log
'

# thread_exit: a process whose second thread prints "TID PID" and exits
# (its sched_process_exit names the thread: the TGID column shows the process).
thread_exit='import os, threading
t = threading.Thread(target=lambda: print(threading.get_native_id(), os.getpid()))
t.start(); t.join()'

test_expect_success 'tr record -N -O record-tgid into tr listen: a thread prints its process as TGID, as locally' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -O record-tgid -e sched:sched_process_exit \
		-N 127.0.0.1:$LPORT -- python3 -c "$thread_exit" >ids &&
	read tid pid <ids && test "$tid" != "$pid" &&
	wait_log "ended: wrote" 1 l.log &&
	f=$(echo out/trace.127.0.0.1:*.dat) && test -f "$f" &&
	tr report -i "$f" --header 2>r.err | sed "s/^$inst: //" >r.txt &&
	test_must_be_empty r.err &&
	test_grep "TASK-PID       TGID    CPU#" r.txt &&
	test_grep -E "^ +[^ ]+-$tid +\( *$pid\) \[[0-9]{3}\] .* sched_process_exit: .* pid=$tid " r.txt &&
	test ! -d "$TRACEFS/instances/$inst" &&
	net_ends $LPID l.log
'

test_expect_success 'a listener refuses bad saved_tgids with one line, and writes the file without them' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out --file-version 6 &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$LPORT \
		sh -c "$write_marks" _ "$inst" 10 v6 &&
	wait_log "ended: wrote" 1 l.log &&
	mv out/*.dat v6.dat &&
	python3 "$peer" $LPORT "tgids:v6.dat:1 2\\nx 3\\n" &&
	wait_log "ended early (bad saved_tgids line): wrote" 1 l.log &&
	f=$(echo out/*.dat) && test -f "$f" &&
	tr report -i "$f" >/dev/null &&
	net_ends $LPID l.log
'

# stamps: the timestamps of a report, one a line.
stamps() { grep -oE " [0-9]+\.[0-9]{6}: " | tr -d ' :'; }

test_expect_success 'tr record -N --date and --ts-offset: the listener'"'"'s file has the times, as tr and trace-cmd read them' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	before=$(date +%s) &&
	tr record -q -B "$inst" --date -e sched:sched_process_exit -N 127.0.0.1:$LPORT \
		sh -c "$write_marks" _ "$inst" 5 date &&
	after=$(date +%s) &&
	wait_log "ended: wrote" 1 l.log &&
	f=$(echo out/*.dat) && mv "$f" date.dat &&
	"$TR" report -i date.dat | grep tracing_mark_write | stamps >tr.ts &&
	test $(wc -l <tr.ts) = 5 &&
	first=$(head -1 tr.ts) &&
	test "${first%.*}" -ge "$before" && test "${first%.*}" -le "$after" &&
	"$TR" report --stat -i date.dat >stat &&
	test_grep "^options:.* date" stat &&
	tr record -q -B "$inst" --ts-offset 1000000000000 -e sched:sched_process_exit \
		-N 127.0.0.1:$LPORT sh -c "$write_marks" _ "$inst" 5 offset &&
	wait_log "ended: wrote" 2 l.log &&
	f=$(echo out/*.dat) && mv "$f" off.dat &&
	"$TR" report --stat -i off.dat >stat &&
	test_grep "^time offset: *1000000000000 ns" stat &&
	"$TR" report -i off.dat | stamps >tr.off &&
	test -s tr.off && test "$(head -1 tr.off | cut -d. -f1)" -ge 1000 &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i date.dat 2>/dev/null | grep tracing_mark_write | stamps >tc.ts &&
		test_cmp tr.ts tc.ts &&
		trace-cmd report -i off.dat 2>/dev/null | stamps >tc.off &&
		test_cmp tr.off tc.off
	fi &&
	net_ends $LPID l.log
'

test_expect_success 'eight clients at once: eight complete files' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out --max-per-host 8 &&
	test_when_finished "net_stop $LPID" &&
	pids= &&
	for c in 1 2 3 4 5 6 7 8; do
		"$TR" record -q -B "$(test_instance)-$c" -e sched:sched_process_exit \
			-N 127.0.0.1:$LPORT sh -c "$write_marks" _ "$(test_instance)-$c" 300 "c$c" &
		pids="$pids $!"
	done &&
	for p in $pids; do test_wait_exit $p 120; done &&
	wait_log "ended: wrote" 8 l.log &&
	test $(ls out | wc -l) = 8 &&
	for f in out/*.dat; do
		marks "$f" >m &&
		c=$(sed -n "1s/^c\([0-9]\) 1$/\1/p" m) && test -n "$c" &&
		seq 1 300 | sed "s/^/c$c /" >expect && test_cmp expect m &&
		echo $c >>seen || exit 1
	done &&
	sort -u seen | wc -l >n && echo 8 >eight && test_cmp eight n &&
	test_must_fail grep -E "refused|early|no file" l.log &&
	net_ends $LPID l.log
'

test_expect_success 'a client outside --allow is refused with one line; the listener serves on' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out --allow 127.0.0.2 &&
	test_when_finished "net_stop $LPID" &&
	test_expect_code 1 tr record -e sched:sched_process_exit -N 127.0.0.1:$LPORT true 2>err &&
	test_grep "cannot send to" err &&
	wait_log "refused: address not allowed" 1 l.log &&
	test_grep -c "127.0.0.1:.*refused" l.log >n && echo 1 >one && test_cmp one n &&
	python3 "$peer" $LPORT garbage 127.0.0.2 &&
	wait_log "127.0.0.2:.*refused: handshake string too long\|127.0.0.2:.*refused: not protocol" 1 l.log &&
	kill -0 $LPID &&
	test_must_be_empty_dir() { test -z "$(ls -A "$1")"; } && test_must_be_empty_dir out
'

test_expect_success 'garbage and a cut message: one line each, no file, the listener serves on' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out &&
	test_when_finished "net_stop $LPID" &&
	python3 "$peer" $LPORT garbage &&
	python3 "$peer" $LPORT truncated &&
	python3 "$peer" $LPORT bigmsg &&
	wait_log "ended, no file" 2 l.log &&
	wait_log "refused:" 1 l.log &&
	test_grep -c "refused:" l.log >n && echo 1 >one && test_cmp one n &&
	test_grep "ended, no file: connection closed inside a message" l.log &&
	test_grep "ended, no file: message over 8192 bytes" l.log &&
	test -z "$(ls -A out)" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$LPORT \
		sh -c "$write_marks" _ "$inst" 50 after &&
	wait_log "ended: wrote" 1 l.log &&
	marks out/*.dat >m && seq 1 50 | sed "s/^/after /" >expect && test_cmp expect m &&
	net_ends $LPID l.log
'

test_expect_success 'a client gone mid-stream leaves a file that reads up to the break' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out --file-version 6 &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -b 64 -e sched:sched_process_exit -N 127.0.0.1:$LPORT \
		sh -c "$write_marks" _ "$inst" 3000 cut &&
	wait_log "ended: wrote" 1 l.log &&
	whole=$(echo out/*.dat) && mv "$whole" whole.dat &&
	python3 "$peer" $LPORT cut:whole.dat &&
	wait_log "ended early (connection lost)" 1 l.log &&
	f=$(echo out/*.dat) && test -f "$f" &&
	marks whole.dat >all && marks "$f" >got &&
	test $(wc -l <got) -gt 100 && test $(wc -l <got) -lt 3000 &&
	sort all >all.s && sort got >got.s && comm -13 all.s got.s >extra &&
	test_must_be_empty extra && sort got | uniq -d >dups && test_must_be_empty dups &&
	net_ends $LPID l.log
'

test_expect_success 'over --max-clients: refused with one line, served once a slot frees' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out --max-clients 1 &&
	test_when_finished "net_stop $LPID" &&
	mkfifo hold &&
	{ python3 "$peer" $LPORT hold <hold >/dev/null & } &&
	hpid=$! &&
	exec 9>hold &&
	test_when_finished "exec 9>&-; wait $hpid || :" &&
	wait_log "connected" 1 l.log &&
	test_expect_code 1 tr record -q -e sched:sched_process_exit -N 127.0.0.1:$LPORT true &&
	wait_log "refused: 1 clients already (--max-clients)" 1 l.log &&
	exec 9>&- && test_wait_exit $hpid 30 &&
	wait_log "refused: connection closed in the handshake" 1 l.log &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$LPORT \
		sh -c "$write_marks" _ "$inst" 10 later &&
	wait_log "ended: wrote" 1 l.log &&
	test $(ls out | wc -l) = 1 &&
	test_grep -c "max-clients" l.log >n && echo 1 >one && test_cmp one n
'

test_expect_success 'over --max-size: the client is stopped, its file reads up to there' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out --max-size 64k &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	{ tr record -q -B "$inst" -b 1024 -e sched:sched_process_exit \
		-N 127.0.0.1:$LPORT sh -c "$write_marks" _ "$inst" 20000 big 2>err || :; } &&
	wait_log "ended early (over --max-size)" 1 l.log &&
	test_grep -c "max-size" l.log >n && echo 1 >one && test_cmp one n &&
	f=$(echo out/*.dat) && test -f "$f" &&
	test $(stat -c %s "$f") -gt 0 &&
	marks "$f" >m && test -s m &&
	n=$(wc -l <m) && test $n -lt 20000 &&
	# Whole sub-buffers: no marker twice, and each CPU'"'"'s in order.
	sort m | uniq -d >dups && test_must_be_empty dups &&
	test ! -d "$TRACEFS/instances/$inst" &&
	net_ends $LPID l.log
'

test_expect_success '--psk: TLS between tr'"'"'s ends; another key is refused with one line' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	python3 -c "import os; print(os.urandom(32).hex())" >key &&
	python3 -c "import os; print(os.urandom(32).hex())" >other &&
	chmod 600 key other &&
	start_listener l.log -d out --psk key &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$LPORT --psk key \
		sh -c "$write_marks" _ "$inst" 1000 psk &&
	wait_log "ended: wrote" 1 l.log &&
	seq 1 1000 | sed "s/^/psk /" >expect &&
	marks out/*.dat >actual && test_cmp expect actual &&
	test_expect_code 1 tr record -q -e sched:sched_process_exit -N 127.0.0.1:$LPORT \
		--psk other true 2>err &&
	test_grep "cannot send to .*refused the key" err &&
	wait_log "refused: TLS handshake failed" 1 l.log &&
	test_grep -c "refused" l.log >n && echo 1 >one && test_cmp one n &&
	test $(ls out | wc -l) = 1 &&
	net_ends $LPID l.log &&
	printf "%031d\n" 0 >short && chmod 600 short &&
	test_expect_code 1 tr listen -p 0 --psk short 2>err &&
	test_grep "^tr: key file .short. is too short: give 32 bytes or more" err &&
	test $(wc -l <err) = 1 &&
	chmod 640 key &&
	test_expect_code 1 tr listen -p 0 --psk key 2>err &&
	echo "tr: key file '"'"'key'"'"' is readable by group or others (mode 0640): chmod 600 it" >expect &&
	test_cmp expect err &&
	test_expect_code 1 tr record -e sched:sched_process_exit -N 127.0.0.1:$LPORT --psk key \
		true 2>err &&
	test_cmp expect err &&
	chmod 600 key &&
	test_expect_code 64 tr record -e sched --psk key true 2>err &&
	test_grep "goes with -N" err
'

test_expect_success 'tr record -N into trace-cmd listen' '
	command -v trace-cmd >/dev/null || exit 0
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	port=$(tc_free_port) &&
	{ trace-cmd listen -p $port -d out >tc.log 2>&1 & } &&
	tpid=$! &&
	test_when_finished "kill $tpid 2>/dev/null; wait $tpid 2>/dev/null || :" &&
	hex=$(printf "%04X" $port) &&
	for i in $(seq 100); do
		grep -q ":$hex 00000000:0000 0A" /proc/net/tcp && break
		sleep 0.1
	done &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exit -N 127.0.0.1:$port \
		sh -c "$write_marks" _ "$inst" 1000 tc &&
	f=$(echo out/trace.*.dat) && test -f "$f" &&
	seq 1 1000 | sed "s/^/tc /" >expect &&
	marks "$f" >actual && test_cmp expect actual &&
	trace-cmd report -i "$f" 2>/dev/null | sed -n "s/.*tracing_mark_write: //p" >tc &&
	test_cmp expect tc
'

test_expect_success 'tr record -N -O record-tgid into trace-cmd listen: sent no saved_tgids it would refuse' '
	command -v trace-cmd >/dev/null || exit 0
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	port=$(tc_free_port) &&
	{ trace-cmd listen -p $port -d out >tc.log 2>&1 & } &&
	tpid=$! &&
	test_when_finished "kill $tpid 2>/dev/null; wait $tpid 2>/dev/null || :" &&
	hex=$(printf "%04X" $port) &&
	for i in $(seq 100); do
		grep -q ":$hex 00000000:0000 0A" /proc/net/tcp && break
		sleep 0.1
	done &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -O record-tgid -e sched:sched_process_exit -N 127.0.0.1:$port \
		-- python3 -c "$thread_exit" >ids &&
	read tid pid <ids &&
	f=$(echo out/trace.*.dat) && test -f "$f" &&
	trace-cmd report -i "$f" >tc.txt 2>/dev/null &&
	test_grep -E "sched_process_exit: .*pid=$tid " tc.txt &&
	# A message after the metadata but CLOSE: trace-cmd warns "Message: cmd=..." and answers NOT_SUPP.
	! grep -i "message: cmd\|not supp\|cannot understand" tc.log
'

test_expect_success 'trace-cmd record -N -t into tr listen' '
	command -v trace-cmd >/dev/null || exit 0
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	TC_NET=127.0.0.1:$LPORT "$TEST_ROOT/tests/data/tc-record.sh" "$inst" - -t \
		-e sched:sched_process_exit sh -c "$write_marks" _ "$inst" 1000 fromtc &&
	wait_log "ended: wrote" 1 l.log &&
	f=$(echo out/trace.127.0.0.1:*.dat) && test -f "$f" &&
	seq 1 1000 | sed "s/^/fromtc /" >expect &&
	marks "$f" >actual && test_cmp expect actual &&
	trace-cmd report -i "$f" 2>/dev/null | sed -n "s/.*tracing_mark_write: //p" >tc &&
	test_cmp expect tc &&
	test ! -d "$TRACEFS/instances/$inst" &&
	net_ends $LPID l.log
'

test_expect_success 'trace-cmd record -N without -t (UDP data): one line saying why' '
	command -v trace-cmd >/dev/null || exit 0
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	start_listener l.log -d out &&
	test_when_finished "net_stop $LPID" &&
	inst=$(test_instance) &&
	{ TC_NET=127.0.0.1:$LPORT "$TEST_ROOT/tests/data/tc-record.sh" "$inst" - \
		-e sched:sched_process_exit true 2>/dev/null || :; } &&
	wait_log "refused: data over UDP is not supported" 1 l.log &&
	test -z "$(ls -A out)"
'

test_expect_success 'bad arguments: usage errors, nothing started' '
	test_expect_code 64 tr listen 2>err && test_grep "give the port" err &&
	test_expect_code 64 tr listen -p 70000 2>err && test_grep "bad port" err &&
	test_expect_code 64 tr listen -p 1 --allow 10.0.0.0/33 2>err &&
	test_grep "bad address range" err &&
	test_expect_code 64 tr listen -p 1 --max-size 12x 2>err &&
	test_expect_code 64 tr listen -p 1 -o a/b 2>err &&
	test_expect_code 1 tr listen -p 1 -d /nonexistent 2>err &&
	test_grep "cannot write in ./nonexistent." err &&
	test_expect_code 64 tr record -e sched -N nohost 2>err &&
	test_grep "bad address" err &&
	test_expect_code 64 tr record -e sched -N 127.0.0.1:1 -o x.dat 2>err &&
	test_grep "no -o" err &&
	test_expect_code 1 tr record -q -e sched:sched_process_exit -N 127.0.0.1:1 true 2>err &&
	test_grep "cannot send to .127.0.0.1:1.: cannot connect" err &&
	test ! -e trace.dat
'

test_done
