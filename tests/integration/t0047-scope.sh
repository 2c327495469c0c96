#!/bin/bash
# CPU and pid scoping: -M/--cpus (tracing_cpumask), -b KB --cpu N,
# tr clear --cpu N, -P/-c and --notrace-pid on start and stream; all
# restored after.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_requires instances events
command -v taskset >/dev/null || test_skip_all="no taskset to run a task on one CPU"
[ "$(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l)" -ge 2 ] || test_skip_all="needs two CPUs"

# Exec /bin/true on CPU 0 and /bin/echo on CPU 1: sched_process_exec fires on each.
on_both_cpus() { taskset -c 0 /bin/true && taskset -c 1 /bin/echo >/dev/null; }
# The CPU column of the kernel's trace text, one line per CPU seen.
cpus_seen() { grep -v "^#" | sed -nE "s/.*\[([0-9]+)\].*/\1/p" | sort -u; }
# A shell that waits for the file "go", then runs CMD: its exec comes after
# tracing started, however slow the start was.
waiting() { exec sh -c "while ! test -e go; do sleep 0.05; done; $1"; }

test_expect_success 'start --cpus 1: tracing_cpumask, and events only from CPU 1' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst --cpus 1 -e sched:sched_process_exec &&
	test "$(cat $(I $inst)/tracing_cpumask | sed "s/^0*//")" = 2 &&
	on_both_cpus &&
	tr show -B $inst >out &&
	test_grep -q "filename=/bin/echo" out &&
	test_must_fail grep -q "filename=/bin/true" out &&
	cpus_seen <out >seen &&
	echo 001 >expect &&
	test_cmp expect seen
'

test_expect_success 'record -M 1 records CPU 0 only, and puts tracing_cpumask back' '
	inst=$(test_instance) &&
	tr instance create $inst &&
	test_when_finished "tr instance destroy $inst" &&
	cat $(I $inst)/tracing_cpumask >before &&
	tr record -q -B $inst -M 1 -e sched:sched_process_exec -o m.dat -- sh -c \
		"taskset -c 0 /bin/true; taskset -c 1 /bin/echo >/dev/null" &&
	cat $(I $inst)/tracing_cpumask >after &&
	test_cmp before after &&
	tr report -i m.dat >out &&
	test_grep -q "filename=/bin/true" out &&
	test_must_fail grep -q "filename=/bin/echo" out &&
	sed -nE "s/.* \[([0-9]+)\] .*/\1/p" out | sort -u >seen &&
	echo 000 >expect &&
	test_cmp expect seen
'

test_expect_success 'top --cpus 1: only CPU 1 switches; a CPU not here is refused' '
	tr top -b -n 2 -d 0.3 --cpus 1 --view cpus >out &&
	awk "\$1 == 0 && NF == 8 { print \$3 }" out | sort -u >cpu0 &&
	echo 0 >expect &&
	test_cmp expect cpu0 &&
	awk "\$1 == 1 && NF == 8 && \$3 > 0" out | grep -q . &&
	n=$(ls -d $TRACEFS/per_cpu/cpu* | wc -l) &&
	test_expect_code 1 tr top -b -n 1 -d 0.2 --cpus $n 2>err &&
	test_grep -q "no CPU $n on this machine" err &&
	test_expect_code 64 tr top -b -n 1 -M 1 -i nosuch.dat 2>err &&
	test_grep -q "not with -i" err
'

test_expect_success 'CPUs that do not exist: one line naming them, nothing left' '
	inst=$(test_instance) &&
	n=$(ls -d $TRACEFS/per_cpu/cpu* | wc -l) &&
	test_expect_code 1 tr start -B $inst --cpus 0,$n-$((n + 2)) -e sched:sched_switch 2>err &&
	test_grep -qx "tr: no CPU $n-$((n + 2)) on this machine (CPUs 0-$((n - 1)))" err &&
	test "$(wc -l <err)" = 1 &&
	test ! -d $(I $inst) &&
	test_expect_code 64 tr start -B $inst --cpus 1-0 -e sched:sched_switch 2>err &&
	test_grep -q "bad CPU list .1-0." err &&
	test_expect_code 64 tr start -B $inst -M 0 -e sched:sched_switch 2>err &&
	test_grep -q "selects no CPU" err &&
	test_expect_code 64 tr start -B $inst -M xyz -e sched:sched_switch 2>err &&
	test_grep -q "bad CPU mask .xyz." err &&
	test ! -d $(I $inst)
'

test_expect_success '-b KB --cpu N sizes one CPU buffer, restored after record' '
	inst=$(test_instance) &&
	tr instance create $inst &&
	test_when_finished "tr instance destroy $inst" &&
	cat $(I $inst)/per_cpu/cpu0/buffer_size_kb $(I $inst)/per_cpu/cpu1/buffer_size_kb >before &&
	tr start -B $inst -b 3000 --cpu 1 -e sched:sched_process_exec &&
	test "$(cat $(I $inst)/per_cpu/cpu1/buffer_size_kb)" -ge 3000 &&
	test "$(cat $(I $inst)/per_cpu/cpu0/buffer_size_kb)" = "$(head -1 before)" &&
	tr reset -B $inst &&
	tr instance create $inst &&
	tr record -q -B $inst -b 3000 --cpu 1 -e sched:sched_process_exec -o b.dat -- true &&
	cat $(I $inst)/per_cpu/cpu0/buffer_size_kb $(I $inst)/per_cpu/cpu1/buffer_size_kb >after &&
	test_cmp before after &&
	test_expect_code 64 tr start -B $inst --cpu 1 -e sched:sched_switch 2>err &&
	test_grep -q -- "--cpu goes with -b" err
'

test_expect_success 'clear --cpu 0 empties CPU 0 only' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_process_exec &&
	on_both_cpus &&
	tr show -B $inst | cpus_seen >seen &&
	printf "000\n001\n" >expect &&
	test_cmp expect seen &&
	tr clear -B $inst --cpu 0 &&
	tr show -B $inst >out &&
	test_grep -q "filename=/bin/echo" out &&
	test_must_fail grep -q "filename=/bin/true" out &&
	test_expect_code 1 tr clear -B $inst --cpu 4095 2>err &&
	test_grep -q "no CPU 4095" err
'

test_expect_success 'start -P traces that process only; -c adds its children' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	rm -f go &&
	{ waiting "exec /bin/true" & } && p=$! &&
	{ waiting "exec /bin/echo >/dev/null" & } && q=$! &&
	tr start -B $inst -P $p -e sched:sched_process_exec &&
	test "$(cat $(I $inst)/set_event_pid)" = $p &&
	touch go &&
	test_wait_exit $p 5 && test_wait_exit $q 5 &&
	tr show -B $inst >out &&
	test_grep -q "true-$p .*filename=/bin/true" out &&
	test_must_fail grep -q "filename=/bin/echo" out &&
	test_must_fail grep -q "filename=.*sleep" out &&
	tr reset -B $inst &&
	rm -f go &&
	{ waiting "/bin/echo >/dev/null; exec /bin/true" & } && p=$! &&
	tr start -B $inst -P $p -c -e sched:sched_process_exec &&
	test "$(cat $(I $inst)/options/event-fork)" = 1 &&
	touch go &&
	test_wait_exit $p 5 &&
	tr show -B $inst >out &&
	test_grep -q "filename=/bin/echo" out &&
	test_grep -q "filename=/bin/true" out
'

test_expect_success '-c without -P, and a bad pid: usage errors, nothing created' '
	inst=$(test_instance) &&
	test_expect_code 64 tr start -B $inst -c -e sched 2>err &&
	test_grep -q "\-c goes with -P" err &&
	test_expect_code 64 tr stream -B $inst -c -e sched 2>err &&
	test_grep -q "\-c goes with -P" err &&
	test_expect_code 64 tr start -B $inst -P 0 -e sched 2>err &&
	test_grep -q "bad pid .0." err &&
	test ! -d $(I $inst)
'

test_expect_success 'stream -P prints that process only' '
	inst=$(test_instance) &&
	rm -f go &&
	{ waiting "exec /bin/true" & } && p=$! &&
	{ waiting "exec /bin/echo >/dev/null" & } && q=$! &&
	{ tr stream -B $inst -P $p -e sched:sched_process_exec --duration 4s >out & } &&
	s=$! &&
	# The session turns tracing on last, after the pid filter (a new
	# instance starts with tracing on: the filter says it is ours).
	for i in $(seq 200); do
		test "$(cat $(I $inst)/set_event_pid 2>/dev/null)" = $p &&
			test "$(cat $(I $inst)/tracing_on 2>/dev/null)" = 1 && break
		sleep 0.1
	done &&
	test $i -lt 200 &&
	touch go &&
	test_wait_exit $p 5 && test_wait_exit $q 5 && test_wait_exit $s 10 &&
	test_grep -q "true-$p .*filename=/bin/true" out &&
	test_must_fail grep -q "filename=/bin/echo" out &&
	test ! -d $(I $inst)
'

test_expect_success '--notrace-pid leaves a process out; set_ftrace_notrace_pid refused is a note' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	rm -f go &&
	{ waiting "exec /bin/true" & } && p=$! &&
	{ waiting "exec /bin/echo >/dev/null" & } && q=$! &&
	tr start -B $inst --notrace-pid $q -e sched:sched_process_exec 2>err &&
	test "$(cat $(I $inst)/set_event_notrace_pid)" = $q &&
	touch go &&
	test_wait_exit $p 5 && test_wait_exit $q 5 &&
	tr show -B $inst >out &&
	test_grep -q "filename=/bin/true" out &&
	test_must_fail grep -q "filename=/bin/echo" out &&
	if test -s err; then
		test_grep -q "set_ftrace_notrace_pid refused .*: skipped, only events are selected" err
	fi
'

if test_have function && test_have function_filter; then
	test_expect_success 'with the function tracer, -P and --notrace-pid scope functions too' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst" &&
		tr start -B $inst -p function -l vfs_read -P $$ --notrace-pid 1 &&
		test "$(cat $(I $inst)/set_event_pid)" = $$ &&
		test "$(cat $(I $inst)/set_ftrace_pid)" = $$ &&
		test "$(cat $(I $inst)/set_event_notrace_pid)" = 1 &&
		test "$(cat $(I $inst)/set_ftrace_notrace_pid)" = 1
	'
else
	test_skip 'with the function tracer, -P and --notrace-pid scope functions too' \
		"no function tracer here (the full VM kernel has it)"
fi

test_done
