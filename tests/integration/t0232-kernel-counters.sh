#!/bin/bash
# What the kernel counts and keeps, read back through tr (VM tier): probe
# hit counts (tr probe list --stats against kprobe_profile), the hooked
# functions (tr list -f --enabled against enabled_functions), one CPU's
# snapshot (per_cpu/cpuN/snapshot), and the stack tracer's filter and reset
# (stack_trace_filter, stack_max_size).
. "$(dirname "$0")/lib.sh"
test_kernels full
test_requires instances events

io() { cat /etc/hostname /etc/passwd >/dev/null; }

if test_have kprobes; then
	test_expect_success 'probe list --stats: the hits kprobe_profile counts, per probe' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst >/dev/null 2>&1; tr probe del trtest/trk 2>/dev/null || :" &&
		tr probe add "p:trtest/trk vfs_read" &&
		tr probe list --stats >out0 &&
		test_grep -E "^kprobe +trk +0 +0$" out0 &&
		tr start -B $inst -e trtest:trk &&
		io &&
		echo 0 >$(I $inst)/events/trtest/trk/enable &&
		tr probe list --stats >out &&
		test_grep -E "^TYPE +EVENT +HITS +MISSED +FILE$" out &&
		awk "\$1 == \"trk\" { print \$2, \$3 }" $TRACEFS/kprobe_profile >expect &&
		awk "\$1 == \"kprobe\" && \$2 == \"trk\" { print \$3, \$4 }" out >got &&
		test_cmp expect got &&
		test "$(cut -d" " -f1 got)" -ge 1 &&
		test_expect_code 64 tr probe del trtest/trk --stats 2>err &&
		test_grep -- "--stats goes with list" err
	'
else
	test_skip 'probe list --stats: the hits kprobe_profile counts, per probe' 'no kprobes'
fi

if test_have function && test_have function_filter; then
	test_expect_success 'list -f --enabled: enabled_functions, a glob on the name' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst 2>/dev/null || :" &&
		tr start -B $inst -p function -l vfs_read -l vfs_write &&
		grep -E "^vfs_read[ 	]" $TRACEFS/enabled_functions >expect &&
		tr list -f vfs_read --enabled >got &&
		test_cmp expect got &&
		test_grep -E "^vfs_read \([1-9][0-9]*\)" got &&
		tr list -f --enabled >all &&
		test_grep -E "^vfs_write \(" all &&
		test "$(wc -l <all)" -ge 2 &&
		tr reset -B $inst &&
		tr list -f --enabled >after &&
		test_must_fail grep -E "^vfs_(read|write) " after
	'
else
	test_skip 'list -f --enabled: enabled_functions, a glob on the name' 'no function tracer'
fi

if test_have snapshot && command -v taskset >/dev/null &&
   [ "$(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l)" -ge 2 ]; then
	test_expect_success 'snapshot take --cpu 1 swaps CPU 1 alone' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst" &&
		tr start -B $inst -e sched:sched_process_exec &&
		taskset -c 0 /bin/true && taskset -c 1 /bin/echo >/dev/null &&
		if tr snapshot take -B $inst --cpu 1 2>err; then
			tr snapshot show -B $inst --cpu 1 >s1 &&
			test_grep "filename=/bin/echo" s1 &&
			test_must_fail grep "filename=/bin/true" s1 &&
			tr snapshot show -B $inst --cpu 0 >s0 &&
			test_must_fail grep "filename=/bin/" s0 &&
			tr show -B $inst >main &&
			test_grep "filename=/bin/true" main &&
			test_must_fail grep "filename=/bin/echo" main
		else
			test_grep "CONFIG_RING_BUFFER_ALLOW_SWAP" err
		fi
	'
else
	test_skip 'snapshot take --cpu 1 swaps CPU 1 alone' 'no snapshot, taskset or second CPU'
fi

if test_have stack_tracer; then
	test_expect_success 'stack start -l: stack_trace_filter, the deepest stack measured there' '
		test_when_finished "tr reset >/dev/null 2>&1; echo 0 >/proc/sys/kernel/stack_tracer_enabled" &&
		# The maximum stays from the last reset on, whoever measured it.
		tr stack reset &&
		tr stack start -l vfs_read &&
		test "$(grep -v "^#" $TRACEFS/stack_trace_filter)" = vfs_read &&
		io &&
		tr stack stop &&
		tr stack show >out &&
		test_grep -E "^max stack size: [1-9][0-9]* bytes$" out &&
		test_grep -E "^ +0\) +[0-9]+ +[0-9]+ +vfs_read" out &&
		tr reset &&
		test_grep "all functions enabled" $TRACEFS/stack_trace_filter
	'

	test_expect_success 'stack reset: stack_max_size back to 0' '
		test_when_finished "tr reset >/dev/null 2>&1; echo 0 >/proc/sys/kernel/stack_tracer_enabled" &&
		tr stack start &&
		io &&
		tr stack stop &&
		test "$(cat $TRACEFS/stack_max_size)" -gt 0 &&
		tr stack reset &&
		test "$(cat $TRACEFS/stack_max_size)" = 0 &&
		tr stack show >out &&
		test_grep -E "^max stack size: 0 bytes$" out
	'
else
	test_skip 'stack start -l: stack_trace_filter, the deepest stack measured there' 'no stack tracer'
	test_skip 'stack reset: stack_max_size back to 0' 'no stack tracer'
fi

test_done
