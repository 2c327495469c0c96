#!/bin/bash
# tr serve: metrics a real Prometheus scrapes, counted right for a workload
# of known size, an exposition promtool accepts, a server that refuses
# what it must and keeps answering, and tracefs as found after SIGINT and
# after SIGKILL + tr reset.
. "$(dirname "$0")/lib.sh"

test_kernels full
test_requires events instances
command -v curl >/dev/null || test_skip_all="no curl (make deps-test)"

# serve_start ARGS...: tr serve -p 0 ARGS in the background ($spid), its log
# in serve.err, $port the port it answers on once it is tracing.
serve_start() {
	"$TR" serve -p 0 "$@" 2>serve.err &
	spid=$!
	wait_for 30 grep -q "serving metrics on" serve.err || { cat serve.err >&2; return 1; }
	port=$(sed -n 's|.*https\?://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' serve.err)
	[ -n "$port" ]
}

# serve_stop: SIGINT, and the exit status 0.
serve_stop() {
	local rc=0
	kill -INT $spid
	test_wait_exit $spid 30 || rc=$?
	[ $rc = 0 ] || { echo "tr serve exited with $rc" >&2; cat serve.err >&2; }
	return $rc
}

# metric NAME{LABELS}: the value of one sample of a scrape, or 0.
metric() {
	curl -sf "http://127.0.0.1:$port/metrics" |
		awk -v k="$1" '$1 == k { v = $2 } END { print v ? v : 0 }'
}

# metric_ge NAME{LABELS} N: a scrape has the sample at N or more (for wait_for).
metric_ge() { [ "$(metric "$1")" -ge "$2" ]; }

# metric_has NAME{LABELS}: a scrape has the sample (a syscall gets its own
# series once a scrape ranks it among the most called; before, it counts
# in syscall="other").
metric_has() { curl -sf "http://127.0.0.1:$port/metrics" | grep -q "^$1 "; }

# dashboard_metrics FILE: every metric name a query of the Grafana dashboard
# FILE asks for, one a line.
dashboard_metrics() {
	python3 -c "import json, re, sys
d = json.load(open(sys.argv[1]))
names = set()
for p in d[\"panels\"]:
    for t in p[\"targets\"]:
        names |= set(re.findall(r\"\\btr_[a-z_]+\", t[\"expr\"]))
names |= set(re.findall(r\"\\btr_[a-z_]+\", json.dumps(d[\"templating\"])))
print(\"\\n\".join(sorted(names)))" "$1"
}

# getppids N: one process that makes exactly N getppid() calls.
getppids() { python3 -c "import os
for i in range($1): os.getppid()"; }

# named_loop NAME N SECS [wait]: a process named NAME (its comm) that makes
# N getppid() calls, then spins SECS of CPU (a clock call every 200000
# turns: the CPU clock is a system call); prints its parent pid and the
# CPU time it used, in seconds.  With wait, it renames itself and reads a
# line from stdin before its calls.
named_loop() { python3 -c "import os, sys, time
open(\"/proc/self/comm\", \"w\").write(sys.argv[1])
if sys.argv[4:]: sys.stdin.readline()
for i in range(int(sys.argv[2])): os.getppid()
t = time.process_time()
while time.process_time() - t < float(sys.argv[3]):
    for i in range(200000): pass
print(os.getppid(), time.process_time())" "$@"; }

# prom_query EXPR: the first value Prometheus gives for an instant query,
# or "none" (no python here: wait_for runs it every 50 ms).
prom_query() {
	curl -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
		grep -o '"value":\[[^]]*\]' | head -1 | sed 's/.*,"\(.*\)"\]/\1/' | grep . ||
		echo none
}
# prom_ge EXPR N: Prometheus has EXPR at N or more.
prom_ge() {
	local v
	v=$(prom_query "$1")
	[ "$v" != none ] && awk -v v="$v" -v n="$2" 'BEGIN { exit !(v + 0 >= n + 0) }'
}

# prom_start [LINE...]: Prometheus on a free loopback port ($pport, pid
# $prompid), scraping tr serve's $port every second, its data in the test's
# directory; each LINE goes into the scrape job (scheme:, basic_auth: ...).
prom_start() {
	local l
	pport=$(python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])")
	cat >prom.yml <<-EOF
	global: { scrape_interval: 1s, scrape_timeout: 900ms }
	scrape_configs:
	  - job_name: tr
	    static_configs: [ { targets: [ "127.0.0.1:$port" ] } ]
	EOF
	for l in "$@"; do
		echo "    $l" >>prom.yml
	done
	prometheus --config.file=prom.yml --storage.tsdb.path=pdata.$pport \
		--web.listen-address=127.0.0.1:$pport >prom.log 2>&1 &
	prompid=$!
}

# hold_port: a free loopback port taken by a listener ($hpid) that never
# accepts, its number in held.port.
hold_port() {
	python3 -c "import socket, time
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); print(s.getsockname()[1], flush=True)
time.sleep(120)" >held.port &
	hpid=$!
}

# tls_files: a self-signed certificate for 127.0.0.1 (cert.pem, key.pem)
# and a users file (users: prom, password secret), the secrets mode 600.
tls_files() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-keyout key.pem -out cert.pem -subj /CN=localhost \
		-addext subjectAltName=IP:127.0.0.1 2>/dev/null &&
	chmod 600 key.pem &&
	echo "prom:$(openssl passwd -6 secret)" >users &&
	chmod 600 users
}

# code URL CURL-ARGS...: the status curl gets (000: no HTTP answer).
code() { curl -s -o /dev/null -w "%{http_code}" "$@"; }

# num_le X Y: X <= Y, both numbers or sums of them (awk reads floats).
num_le() { awk "BEGIN { exit !(($1) <= ($2)) }"; }

test_expect_success 'N getppid() calls count as N in tr_syscalls_total, tracefs as found after SIGINT' '
	ls $TRACEFS/instances >before &&
	serve_start &&
	getppids 5000 &&
	wait_for 10 metric_has "tr_syscalls_total{syscall=\"getppid\"}" &&
	a=$(metric "tr_syscalls_total{syscall=\"getppid\"}") &&
	getppids 20000 &&
	wait_for 10 metric_ge "tr_syscalls_total{syscall=\"getppid\"}" $((a + 20000)) &&
	b=$(metric "tr_syscalls_total{syscall=\"getppid\"}") &&
	echo "getppid: $a then $b" &&
	test $((b - a)) -le 20200 &&
	test -d $TRACEFS/instances/tr-serve-$spid &&
	serve_stop &&
	ls $TRACEFS/instances >after &&
	test_cmp before after
'

test_expect_success 'promtool accepts the exposition, both formats; the default families are there' '
	serve_start &&
	test_when_finished "kill $spid 2>/dev/null || :; wait $spid 2>/dev/null || :" &&
	getppids 5000 &&
	wait_for 10 metric_has "tr_syscalls_total{syscall=\"getppid\"}" &&
	curl -sf http://127.0.0.1:$port/metrics >text &&
	curl -sf -H "Accept: application/openmetrics-text; version=1.0.0" \
		-D om.head http://127.0.0.1:$port/metrics >om &&
	test_grep -i "content-type: application/openmetrics-text" om.head &&
	tail -1 om | grep -qx "# EOF" &&
	if command -v promtool >/dev/null; then
		promtool check metrics <text
	fi &&
	for f in tr_events_total tr_context_switches_total tr_runqueue_latency_seconds_bucket \
		tr_syscalls_total tr_syscall_duration_seconds_count tr_cpu_seconds_total \
		tr_ring_buffer_overrun_total tr_process_resident_memory_bytes tr_serve_info; do
		grep -q "^$f[{ ]" text || { echo "no $f" >&2; exit 1; }
	done &&
	if test_have hist; then agg=kernel; else agg=user; fi &&
	grep -q "^tr_serve_info{.*aggregation=\"$agg\"" text &&
	test "$(grep -c "^tr_cpu_seconds_total{cpu=\"0\"" text)" = 8 &&
	dashboard_metrics "$TEST_ROOT/examples/grafana-dashboard.json" >names &&
	test "$(wc -l <names)" -ge 10 &&
	while read -r n; do
		b=${n%_bucket} &&
		grep -q "^# TYPE \($b\|${b%_total}\) " text ||
			{ echo "the dashboard asks for $n, not exported" >&2; exit 1; }
	done <names &&
	serve_stop
'

test_expect_success 'the server refuses what it must, one log line each, and keeps answering' '
	serve_start &&
	test_when_finished "kill $spid 2>/dev/null || :; wait $spid 2>/dev/null || :" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:$port/nothing)" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -X POST http://127.0.0.1:$port/metrics)" = 405 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -H "X-Big: $(head -c 9000 /dev/zero | command tr "\0" x)" http://127.0.0.1:$port/metrics)" = 431 &&
	printf "garbage\r\n\r\n" | timeout 10 python3 -c "
import socket, sys
s = socket.create_connection((\"127.0.0.1\", $port)); s.sendall(sys.stdin.buffer.read())
print(s.recv(100).decode().split()[1])" >code &&
	test "$(cat code)" = 400 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:$port/metrics)" = 200 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -I http://127.0.0.1:$port/metrics)" = 200 &&
	wait_for 10 test "$(grep -c " 40[05] \| 431 " serve.err)" -ge 3 &&
	serve_stop
'

test_expect_success 'bad command lines: one line, exit 64; a taken port: one line, exit 1, nothing left' '
	test_expect_code 64 tr serve -p 70000 2>err &&
	test_grep "bad port" err && test $(wc -l <err) -le 2 &&
	test_expect_code 64 tr serve --allow 10.0.0.0/99 2>err &&
	test_expect_code 64 tr serve --duration 1s -- true 2>err &&
	test_grep "exclude" err &&
	ls $TRACEFS/instances >before &&
	hold_port &&
	test_when_finished "kill $hpid 2>/dev/null || :" &&
	wait_for 10 test -s held.port &&
	test_expect_code 1 tr serve -p "$(cat held.port)" 2>err &&
	test_grep "cannot listen" err && test $(wc -l <err) = 1 &&
	ls $TRACEFS/instances >after &&
	test_cmp before after
'

test_expect_success '--hist counts per key and sums a value; --latency pairs; both exact for N calls' '
	serve_start --hist "raw_syscalls:sys_exit -k id.syscall -v ret -n exits" \
		--latency "ppid=syscalls:sys_enter_getppid,syscalls:sys_exit_getppid" &&
	test_when_finished "kill $spid 2>/dev/null || :; wait $spid 2>/dev/null || :" &&
	named_loop trwarm 100 0 >/dev/null &&
	wait_for 10 metric_ge "tr_exits_hits_total{id=\"sys_getppid\"}" 100 &&
	h=$(metric "tr_exits_hits_total{id=\"sys_getppid\"}") &&
	v=$(metric "tr_exits_ret_total{id=\"sys_getppid\"}") &&
	n=$(metric tr_ppid_latency_seconds_count) &&
	named_loop trloop 20000 0 >out &&
	read -r ppid cpu <out &&
	wait_for 10 metric_ge "tr_exits_hits_total{id=\"sys_getppid\"}" $((h + 20001)) &&
	{ wait_for 30 metric_ge tr_ppid_latency_seconds_count $((n + 20001)) ||
		{ curl -sf http://127.0.0.1:$port/metrics | grep "^tr_lost\|^tr_ppid_latency_seconds_count\|^tr_ring\|^tr_exits_hits" >&2; false; }; } &&
	h2=$(metric "tr_exits_hits_total{id=\"sys_getppid\"}") &&
	v2=$(metric "tr_exits_ret_total{id=\"sys_getppid\"}") &&
	n2=$(metric tr_ppid_latency_seconds_count) &&
	echo "hits $h then $h2, sum of ret $v then $v2 (ppid $ppid), latency count $n then $n2" &&
	test $((h2 - h)) -le 20200 && test $((n2 - n)) -le 20200 &&
	num_le "$ppid * 20001" "$v2 - $v" &&
	curl -sf http://127.0.0.1:$port/metrics >text &&
	if test_have hist; then agg=kernel; else agg=user; fi &&
	test_grep "^tr_hist_info{name=\"exits\",event=\"raw_syscalls:sys_exit\",trigger=\"hist:keys=id.syscall:vals=hitcount,ret:sort=hitcount.descending\",aggregation=\"$agg\"} 1" text &&
	awk -F"[{} ]" "/^tr_ppid_latency_seconds_bucket/ { if (\$(NF) + 0 < last) bad = 1; last = \$(NF) }
		END { exit bad }" text &&
	if command -v promtool >/dev/null; then
		promtool check metrics <text
	fi &&
	serve_stop
'

# comm_loop_start NAME N SECS: named_loop in the background ($lpid, its
# output in out), held before its calls on the fifo go (fd 3 opens it).
comm_loop_start() {
	rm -f go
	mkfifo go || return
	named_loop "$@" wait <go >out &
	lpid=$!
	exec 3>go
}

test_expect_success '--by comm: a named task'"'"'s calls and CPU time under its name' '
	serve_start --by comm &&
	test_when_finished "kill $spid 2>/dev/null || :; wait $spid 2>/dev/null || :" &&
	comm_loop_start trbycomm 20000 0.3 &&
	test_when_finished "exec 3>&-; kill $lpid 2>/dev/null || :; wait $lpid 2>/dev/null || :" &&
	wait_for 10 metric_has "tr_comm_syscalls_total{comm=\"trbycomm\"}" &&
	echo >&3 && exec 3>&- &&
	wait $lpid &&
	read -r ppid cpu <out &&
	wait_for 10 metric_ge "tr_comm_syscalls_total{comm=\"trbycomm\"}" 20000 &&
	wait_for 10 metric_ge "tr_comm_context_switches_total{comm=\"trbycomm\"}" 1 &&
	c=$(metric "tr_comm_syscalls_total{comm=\"trbycomm\"}") &&
	t=$(metric "tr_comm_cpu_seconds_total{comm=\"trbycomm\"}") &&
	echo "trbycomm: $c calls, $t s of CPU (it says $cpu)" &&
	test "$c" -le 20500 &&
	# Under emulation the trace clock and the scheduler'"'"'s disagree (0.4 s against 0.7).
	if [ -z "${TR_VM:-}" ]; then
		num_le "$cpu * 0.8 - 0.02" "$t" && num_le "$t" "$cpu * 1.2 + 0.05"
	fi &&
	metric_has "tr_comm_page_faults_total{comm=\"trbycomm\"}" &&
	serve_stop
'

test_expect_success 'bad --hist, --latency, --engine, --by: one line naming it, exit 64' '
	test_expect_code 64 tr serve --hist "sched:sched_switch" 2>err &&
	test_grep "bad --hist .sched:sched_switch.: want" err && test $(wc -l <err) -le 2 &&
	test_expect_code 64 tr serve --hist "sched:sched_switch -k a,b,c,d,e" 2>err &&
	test_grep "at most 4 keys" err &&
	test_expect_code 64 tr serve --hist "sched:sched_switch -k prev_pid -n a-b" 2>err &&
	test_grep "bad --hist name .a-b." err &&
	test_expect_code 64 tr serve --hist "sched:sched_switch -k prev_pid -f \"x" 2>err &&
	test_grep "unmatched" err &&
	test_expect_code 64 tr serve --latency "sched:sched_switch" 2>err &&
	test_grep "bad --latency" err &&
	test_expect_code 64 tr serve --engine gpu 2>err &&
	test_grep "bad --engine .gpu." err &&
	test_expect_code 64 tr serve --by pid 2>err &&
	test_grep "bad --by .pid." err &&
	ls $TRACEFS/instances >before &&
	test_expect_code 1 tr serve -p 0 --hist "sched:sched_switch -k nosuch" 2>err &&
	test_grep "no field .nosuch.\|refused the histogram .hist:keys=nosuch" err &&
	test_expect_code 1 tr serve -p 0 --latency "sched:nosuch,sched:sched_switch" 2>err &&
	test_grep "no such event .sched:nosuch." err &&
	test_expect_code 1 tr serve -p 0 --hist "sched:sched_switch -k prev_pid -n x" --hist "sched:sched_switch -k next_pid -n x" 2>err &&
	test_grep "metric .tr_x_hits. twice" err &&
	ls $TRACEFS/instances >after &&
	test_cmp before after
'

test_expect_success 'HTTPS with a certificate and Basic users: the right ones scrape, the rest get 401' '
	tls_files &&
	serve_start --tls-cert cert.pem --tls-key key.pem --auth-file users &&
	test_when_finished "kill $spid 2>/dev/null || :; wait $spid 2>/dev/null || :" &&
	test_grep "serving metrics on https://127.0.0.1:$port/metrics" serve.err &&
	u=https://127.0.0.1:$port/metrics &&
	test "$(code --cacert cert.pem -u prom:secret $u)" = 200 &&
	test "$(code --cacert cert.pem -u prom:wrong $u)" = 401 &&
	test "$(code --cacert cert.pem -u nobody:secret $u)" = 401 &&
	test "$(code --cacert cert.pem $u)" = 401 &&
	curl -s -D head -o /dev/null --cacert cert.pem $u &&
	test_grep -i "^www-authenticate: Basic realm=" head &&
	test "$(code http://127.0.0.1:$port/metrics)" = 000 &&
	test "$(code --cacert cert.pem -u prom:secret $u)" = 200 &&
	curl -sf --cacert cert.pem -u prom:secret $u >text &&
	test_grep "^tr_events_total{cpu=\"0\"}" text &&
	wait_for 10 test "$(grep -c "401 Unauthorized" serve.err)" -ge 4 &&
	test_grep "401 Unauthorized: wrong user or password" serve.err &&
	test_grep "401 Unauthorized: no Basic credentials" serve.err &&
	wait_for 10 grep -q "TLS handshake failed" serve.err &&
	if command -v prometheus >/dev/null; then
		prom_start "scheme: https" "tls_config: { ca_file: $PWD/cert.pem }" \
			"basic_auth: { username: prom, password: secret }" &&
		test_when_finished "kill $prompid 2>/dev/null || :; wait $prompid 2>/dev/null || :" &&
		wait_for 60 prom_ge "up{job=\"tr\"}" 1 &&
		wait_for 30 prom_ge "tr_scrapes_total" 1
	fi &&
	serve_stop
'

test_expect_success 'HTTPS and users: bad files are one line naming them, exit 1; half an option pair 64' '
	tls_files &&
	ls $TRACEFS/instances >before &&
	test_expect_code 64 tr serve --tls-cert cert.pem 2>err &&
	test_grep "go together" err &&
	chmod 644 key.pem &&
	test_expect_code 1 tr serve -p 0 --tls-cert cert.pem --tls-key key.pem 2>err &&
	test_grep "TLS key .key.pem. is readable by group or others" err && test $(wc -l <err) = 1 &&
	chmod 600 key.pem &&
	openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null && chmod 600 other.pem &&
	test_expect_code 1 tr serve -p 0 --tls-cert cert.pem --tls-key other.pem 2>err &&
	test_grep "is not the key of the certificate" err &&
	test_expect_code 1 tr serve -p 0 --tls-cert key.pem --tls-key key.pem 2>err &&
	test_grep "cannot use the TLS certificate .key.pem." err &&
	echo "prom:plaintext" >bad-users && chmod 600 bad-users &&
	test_expect_code 1 tr serve -p 0 --auth-file bad-users 2>err &&
	test_grep "bad-users:1: .prom. has no crypt(3) hash" err && test $(wc -l <err) = 1 &&
	chmod 640 users &&
	test_expect_code 1 tr serve -p 0 --auth-file users 2>err &&
	test_grep "users file .users. is readable by group or others" err &&
	ls $TRACEFS/instances >after &&
	test_cmp before after
'

test_expect_success 'after SIGKILL the next tr reset removes the instance' '
	ls $TRACEFS/instances >before &&
	serve_start &&
	kill -9 $spid && wait $spid 2>/dev/null; 
	test -d $TRACEFS/instances/tr-serve-$spid &&
	tr reset 2>err &&
	ls $TRACEFS/instances >after &&
	test_cmp before after
'

test_expect_success 'Prometheus scrapes it: N calls within 1%, a run-queue latency quantile' '
	command -v prometheus >/dev/null || { echo "no prometheus (make deps-test)"; exit 0; }
	serve_start &&
	test_when_finished "kill $spid 2>/dev/null || :; wait $spid 2>/dev/null || :" &&
	prom_start &&
	test_when_finished "kill $prompid 2>/dev/null || :; wait $prompid 2>/dev/null || :" &&
	getppids 5000 &&
	q="tr_syscalls_total{syscall=\"getppid\"}" &&
	wait_for 60 prom_ge "$q" 0 &&
	a=$(metric "$q") &&
	wait_for 20 prom_ge "$q" "$a" &&
	getppids 30000 &&
	wait_for 30 prom_ge "$q" $((a + 30000)) &&
	b=$(prom_query "$q") &&
	echo "Prometheus: $a then $b" &&
	num_le "$b - $a" 30300 &&
	wait_for 20 prom_ge "histogram_quantile(0.99, sum by (le) (rate(tr_runqueue_latency_seconds_bucket[30s])))" 0 &&
	p50=$(prom_query "histogram_quantile(0.5, sum by (le) (rate(tr_runqueue_latency_seconds_bucket[30s])))") &&
	p99=$(prom_query "histogram_quantile(0.99, sum by (le) (rate(tr_runqueue_latency_seconds_bucket[30s])))") &&
	echo "run-queue latency p50 $p50 p99 $p99" &&
	num_le 0.000000001 "$p50" && num_le "$p50" "$p99" &&
	test "$(prom_query "up{job=\"tr\"}")" = 1 &&
	serve_stop
'

test_done
