#!/bin/bash
# tr top's latency view: the default pair (sched_waking -> sched_switch on
# the woken pid) and --latency START,END[,MATCH], per CPU and per task; the
# histogram holds every pair the table counts.  Runs on every tier (the
# view is computed in userspace, so kernels without hist triggers have it).
. "$(dirname "$0")/lib.sh"

test_requires events instances

# check_latency FILE: every refresh's rows and histogram agree.
check_latency() {
	python3 - "$1" <<'EOF'
import json, sys
R = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert R, "no refresh"
last = R[-1]
assert last["view"] == "latency", last["view"]
rows = last["rows"]
assert rows, "no latency rows"
n = sum(x["count"] for x in rows)
assert n > 0
for x in rows:
    if x["count"]:
        assert x["min_ns"] <= x["avg_ns"] <= x["max_ns"], x
        assert x["min_ns"] <= x["p50_ns"] <= x["p99_ns"] <= x["max_ns"], x
assert sum(b["count"] for b in last["histogram"]) == n, (last["histogram"], n)
assert last["note"].startswith("all: count %d " % n), last["note"]
print("pairs", n)
EOF
}

test_expect_success 'the default pair: waking to switch-in, per CPU' '
	timeout 60 "$TR" top -b -d 0.5 -n 3 --view latency --format json -- sh -c "
		for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.05; done" >out &&
	check_latency out &&
	python3 -c "
import json
r = [json.loads(l) for l in open(\"out\")][-1]
assert \"sched:sched_waking to sched:sched_switch where pid = next_pid\" in r[\"pair\"], r[\"pair\"]
assert all(x[\"cpu\"] >= 0 for x in r[\"rows\"])
" &&
	test -z "$(ls $TRACEFS/instances | grep "^tr-top-")"
'

test_expect_success '--latency on syscall entry and exit, per task, in text' '
	timeout 60 "$TR" top -b -d 0.5 -n 2 --per-task \
		--latency raw_syscalls:sys_enter,raw_syscalls:sys_exit -- sh -c "
		for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.05; done" >out &&
	test_grep "^view: latency, by .* - from raw_syscalls:sys_enter to raw_syscalls:sys_exit where common_pid = common_pid$" out &&
	test_grep "^    PID COMM  *COUNT  *MIN  *AVG  *P50  *P99  *MAX$" out &&
	test_grep "^latency in ns, log2 buckets:$" out &&
	test_grep "^ *\[[0-9]*[KMG]*, [0-9]*[KMG]*) *[0-9]* |#* *|$" out &&
	test_grep "^all: count [0-9]*  min .*  p99 " out
'

test_expect_success '--latency per task JSON agrees with itself' '
	timeout 60 "$TR" top -b -d 0.5 -n 2 --per-task --format json \
		--latency raw_syscalls:sys_enter,raw_syscalls:sys_exit,common_pid -- sh -c "
		for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.05; done" >out &&
	check_latency out &&
	python3 -c "
import json
r = [json.loads(l) for l in open(\"out\")][-1]
assert all(\"pid\" in x and \"comm\" in x for x in r[\"rows\"]), r[\"rows\"][:3]
"
'

test_expect_success 'a pair the kernel lacks is an error naming it' '
	test_expect_code 1 tr top -b -n 1 --latency sched:sched_waking,sched:nosuch 2>err &&
	test_grep "no event '"'"'sched:nosuch'"'"'" err &&
	test_expect_code 1 tr top -b -n 1 --latency sched:sched_waking,sched:sched_switch,nosuch=next_pid 2>err &&
	test_grep "no number field '"'"'nosuch'"'"'" err
'

test_done
