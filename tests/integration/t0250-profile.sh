#!/bin/bash
# tr profile: the kernel's function profiler around a command -- calls and
# times per function, merged over the CPUs or per CPU, sorted, as text,
# JSON or CSV -- with function_profile_enabled and set_ftrace_filter put
# back; refused in one line where the kernel cannot profile.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_expect_success '-B is a usage error: the profiler is the top level only' '
	test_expect_code 64 tr profile -B x true 2>err &&
	test_grep "^tr profile: -B .x.: the function profiler has no instances" err
'

test_expect_success 'a bad sort key is a usage error' '
	test_expect_code 64 tr profile -s slowest true 2>err &&
	test_grep "bad sort key .slowest." err
'

if ! test_have profiler; then
	test_expect_success 'refused in one line that says what is missing, nothing changed' '
		before=$(ls "$TRACEFS/instances"; cat "$TRACEFS/current_tracer" "$TRACEFS/tracing_on") &&
		test_expect_code 1 tr profile -l vfs_read cat /etc/hostname >out 2>err &&
		test_must_be_empty out &&
		test $(wc -l <err) = 1 &&
		why=$(tr check | sed -nE "s/^profiler +no +//p") &&
		test -n "$why" &&
		test_grep -Fx "tr: profiler is not available on this kernel: $why" err &&
		after=$(ls "$TRACEFS/instances"; cat "$TRACEFS/current_tracer" "$TRACEFS/tracing_on") &&
		test "$before" = "$after"
	'
fi
test_requires profiler

# filter_now: the top level's set_ftrace_filter without its comment lines.
filter_now() { grep -v "^#" "$TRACEFS/set_ftrace_filter" || :; }

test_expect_success 'profile of vfs_read around cat: hits and plausible times' '
	before=$(filter_now) &&
	tr profile -l vfs_read sh -c "cat /etc/hostname /etc/passwd /etc/hostname >/dev/null" >out &&
	cat out &&
	test_grep -E "^FUNCTION +HITS +TOTAL\(us\) +AVG\(us\) +STDDEV\(us\)$" out &&
	test $(wc -l <out) = 2 &&
	read -r fn hits total avg sd <<<"$(sed -n 2p out)" &&
	test "$fn" = vfs_read &&
	test "$hits" -ge 3 &&
	# A read of a small file: more than 0, less than a second, avg = total / hits.
	awk -v h="$hits" -v t="$total" -v a="$avg" -v s="$sd" "BEGIN {
		exit !(t > 0 && a > 0 && a < 1000000 && s >= 0 &&
		       (a - t / h) ^ 2 < 0.01 && t >= a) }" &&
	test "$(cat $TRACEFS/function_profile_enabled)" = 0 &&
	test "$(filter_now)" = "$before"
'

test_expect_success 'per CPU, JSON and CSV, sorted and limited' '
	tr profile -l vfs_read -l ksys_read --cpu 0-63 sh -c "cat /etc/passwd >/dev/null" >cpu &&
	test_grep -E "^CPU +FUNCTION +HITS" cpu &&
	test_grep -E "^[0-9]+ +(vfs_read|ksys_read) +[0-9]+ " cpu &&
	tr profile -l vfs_read -l ksys_read --json -s hits sh -c "cat /etc/passwd >/dev/null" >j &&
	python3 -c "
import json, sys
rows = [json.loads(l) for l in open(\"j\")]
names = {r[\"function\"] for r in rows}
assert names == {\"vfs_read\", \"ksys_read\"}, names
assert all(r[\"hits\"] >= 1 and r[\"total_us\"] > 0 for r in rows), rows
hits = [r[\"hits\"] for r in rows]
assert hits == sorted(hits, reverse=True), hits
" &&
	tr profile -l vfs_read -l ksys_read --csv -s name --limit 1 sh -c "cat /etc/hostname >/dev/null" >c &&
	test "$(head -1 c)" = "function,hits,total_us,avg_us,stddev_us" &&
	test $(wc -l <c) = 2 &&
	test_grep -E "^ksys_read,[0-9]+,[0-9.]+,[0-9.]+,[0-9.]+$" c
'

test_expect_success 'without a command: --duration, or until SIGINT, then put back' '
	before=$(filter_now) &&
	tr profile -l vfs_read --duration 300ms --json >dur &&
	test_grep -E "^\{\"function\":\"vfs_read\",\"hits\":[0-9]+," dur &&
	{ "$TR" profile -l vfs_read >int 2>err & } &&
	pid=$! &&
	test_when_finished "kill $pid 2>/dev/null || :" &&
	for i in $(seq 200); do
		test "$(cat $TRACEFS/function_profile_enabled)" = 1 && break
		sleep 0.1
	done &&
	cat /etc/passwd >/dev/null &&
	kill -INT $pid &&
	test_wait_exit $pid 20 &&
	test_grep -E "^vfs_read +[0-9]+ " int &&
	test "$(cat $TRACEFS/function_profile_enabled)" = 0 &&
	test "$(filter_now)" = "$before"
'

test_expect_success 'a function the kernel cannot trace is refused, nothing left set' '
	before=$(filter_now) &&
	test_expect_code 1 tr profile -l no_such_function_tr cat /etc/hostname 2>err &&
	test $(wc -l <err) = 1 &&
	test_grep "no_such_function_tr" err &&
	test "$(cat $TRACEFS/function_profile_enabled)" = 0 &&
	test "$(filter_now)" = "$before"
'

test_done
