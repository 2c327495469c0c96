#!/bin/bash
# tr serve's --hist counted by the kernel's hist triggers: the same metric
# names as tr's own count, the info metric saying aggregation="kernel",
# and the two engines agreeing within 1% on a workload of known size (two
# servers side by side, each in its own instance); the trigger gone after
# SIGINT, and after SIGKILL + tr reset.  Needs hist triggers: the full
# guest (curl only: no Prometheus under emulation).
. "$(dirname "$0")/lib.sh"

test_kernels full
test_requires events instances hist
command -v curl >/dev/null || test_skip_all="no curl (make deps-test)"

# serve_start TAG ARGS...: tr serve -p 0 ARGS in the background ($spid_TAG),
# its log in TAG.err, $port_TAG the port it answers on once it is tracing.
serve_start() {
	local tag=$1
	shift
	"$TR" serve -p 0 "$@" 2>$tag.err &
	eval "spid_$tag=\$!"
	wait_for 60 grep -q "serving metrics on" $tag.err || { cat $tag.err >&2; return 1; }
	eval "port_$tag=\$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' $tag.err)"
}

# metric PORT NAME{LABELS}: the value of one sample of a scrape, or 0.
metric() {
	curl -sf "http://127.0.0.1:$1/metrics" |
		awk -v k="$2" '$1 == k { v = $2 } END { print v ? v : 0 }'
}
metric_ge() { [ "$(metric "$1" "$2")" -ge "$3" ]; }
# metric_has PORT NAME{LABELS}: a scrape has the sample (a syscall gets its
# own series once a scrape ranks it; before, it counts in "other").
metric_has() { curl -sf "http://127.0.0.1:$1/metrics" | grep -q "^$2 "; }

# getppids N: one process that makes exactly N getppid() calls.
getppids() { python3 -c "import os
for i in range($1): os.getppid()"; }

# the_triggers: every hist trigger of raw_syscalls:sys_exit, in every instance.
the_triggers() {
	cat $TRACEFS/events/raw_syscalls/sys_exit/trigger $TRACEFS/instances/*/events/raw_syscalls/sys_exit/trigger 2>/dev/null |
		grep "^hist" || :
}

H="raw_syscalls:sys_exit -k id.syscall -v ret -n exits"
Q="tr_exits_hits_total{id=\"sys_getppid\"}"
V="tr_exits_ret_total{id=\"sys_getppid\"}"

test_expect_success 'the kernel engine and tr'"'"'s own count N calls alike, within 1%' '
	the_triggers >before &&
	serve_start k --hist "$H" &&
	test_when_finished "kill $spid_k 2>/dev/null || :; wait $spid_k 2>/dev/null || :" &&
	serve_start u --engine user --hist "$H" &&
	test_when_finished "kill $spid_u 2>/dev/null || :; wait $spid_u 2>/dev/null || :" &&
	curl -sf http://127.0.0.1:$port_k/metrics >k.text &&
	test_grep "^tr_hist_info{name=\"exits\",.*aggregation=\"kernel\"} 1" k.text &&
	test_grep "^# TYPE tr_exits_hits_total counter" k.text &&
	curl -sf http://127.0.0.1:$port_u/metrics >u.text &&
	test_grep "^tr_hist_info{name=\"exits\",.*aggregation=\"user\"} 1" u.text &&
	test_grep "hist:keys=id.syscall:vals=hitcount,ret" $TRACEFS/instances/tr-serve-$spid_k/events/raw_syscalls/sys_exit/trigger &&
	getppids 100 &&
	wait_for 30 metric_ge $port_k "$Q" 100 &&
	wait_for 30 metric_ge $port_u "$Q" 100 &&
	k0=$(metric $port_k "$Q") && u0=$(metric $port_u "$Q") &&
	kv0=$(metric $port_k "$V") && uv0=$(metric $port_u "$V") &&
	getppids 10000 &&
	wait_for 30 metric_ge $port_k "$Q" $((k0 + 10000)) &&
	wait_for 30 metric_ge $port_u "$Q" $((u0 + 10000)) &&
	k1=$(metric $port_k "$Q") && u1=$(metric $port_u "$Q") &&
	kv1=$(metric $port_k "$V") && uv1=$(metric $port_u "$V") &&
	echo "kernel: $k0 then $k1 (ret $kv0 then $kv1); user: $u0 then $u1 (ret $uv0 then $uv1)" &&
	dk=$((k1 - k0)) && du=$((u1 - u0)) &&
	test $dk -le 10100 && test $du -le 10100 &&
	awk -v a="$((kv1 - kv0))" -v b="$((uv1 - uv0))" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * a) }" &&
	kill -INT $spid_k && test_wait_exit $spid_k 30 &&
	kill -INT $spid_u && test_wait_exit $spid_u 30 &&
	the_triggers >after &&
	test_cmp before after
'

S="tr_syscalls_total{syscall=\"getppid\"}"

# The kernel counts every thread (tr's own too, and the other server's):
# enough syscall series that getppid gets its own.
test_expect_success 'the default counters from the kernel'"'"'s histograms: N calls as tr counts them' '
	serve_start k --max-syscalls 1000 &&
	test_when_finished "kill $spid_k 2>/dev/null || :; wait $spid_k 2>/dev/null || :" &&
	serve_start u --engine user --max-syscalls 1000 &&
	test_when_finished "kill $spid_u 2>/dev/null || :; wait $spid_u 2>/dev/null || :" &&
	curl -sf http://127.0.0.1:$port_k/metrics >k.text &&
	test_grep "^tr_serve_info{.*aggregation=\"kernel\"" k.text &&
	curl -sf http://127.0.0.1:$port_u/metrics >u.text &&
	test_grep "^tr_serve_info{.*aggregation=\"user\"" u.text &&
	for e in raw_syscalls/sys_enter raw_syscalls/sys_exit sched/sched_switch irq/softirq_entry; do
		test_grep "^hist:keys=" $TRACEFS/instances/tr-serve-$spid_k/events/$e/trigger || exit 1
	done &&
	test_must_be_empty "$(grep -l "^hist" $TRACEFS/instances/tr-serve-$spid_u/events/*/*/trigger)" &&
	getppids 3000 &&
	wait_for 30 metric_has $port_k "$S" &&
	wait_for 30 metric_has $port_u "$S" &&
	k0=$(metric $port_k "$S") && u0=$(metric $port_u "$S") &&
	getppids 10000 &&
	wait_for 30 metric_ge $port_k "$S" $((k0 + 10000)) &&
	wait_for 30 metric_ge $port_u "$S" $((u0 + 10000)) &&
	k1=$(metric $port_k "$S") && u1=$(metric $port_u "$S") &&
	echo "getppid, kernel: $k0 then $k1; user: $u0 then $u1" &&
	test $((k1 - k0)) -le 10100 && test $((u1 - u0)) -le 10100 &&
	curl -sf http://127.0.0.1:$port_k/metrics >k.text &&
	test_grep "^tr_context_switches_total{cpu=\"0\"} [1-9]" k.text &&
	test_grep "^tr_softirqs_total{vec=\"[A-Z]*\"} [1-9]" k.text &&
	test_grep "^tr_syscall_duration_seconds_count{syscall=\"getppid\"} [1-9]" k.text &&
	if command -v promtool >/dev/null; then
		promtool check metrics <k.text
	fi &&
	kill -INT $spid_k && test_wait_exit $spid_k 30 &&
	kill -INT $spid_u && test_wait_exit $spid_u 30
'

test_expect_success 'after SIGKILL, tr reset takes the trigger and the instance away' '
	ls $TRACEFS/instances >before &&
	serve_start k --hist "$H" &&
	kill -9 $spid_k && { wait $spid_k 2>/dev/null || :; } &&
	test -d $TRACEFS/instances/tr-serve-$spid_k &&
	"$TR" reset 2>err &&
	ls $TRACEFS/instances >after &&
	test_cmp before after &&
	test -z "$(the_triggers)"
'

test_done
