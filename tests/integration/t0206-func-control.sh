#!/bin/bash
# The function tracer's controls by their effect on what the kernel traces:
# -l/-n/-g by index (a line of available_filter_functions), -n
# (set_ftrace_notrace), --graph-notrace (set_graph_notrace), -c with a
# function tracer (function-fork), --func-stack, and the function commands traceoff,
# traceon, snapshot, stacktrace and disable_event with a count.
. "$(dirname "$0")/lib.sh"
test_kernels full
test_requires instances events function function_filter

FUNCS=$TRACEFS/available_filter_functions
# The line number of function $1 in available_filter_functions.
idx_of() { grep -n -m1 -E "^$1( |$)" "$FUNCS" | cut -d: -f1; }
# Reads and writes by this shell and its children (vfs_read, vfs_write).
io() { cat /etc/hostname /etc/passwd >/dev/null && echo x >io.out; }

test_expect_success '-l N is the function at line N, and only it is traced' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	n=$(idx_of vfs_read) && test -n "$n" &&
	tr start -B $inst -p function -l $n &&
	grep -v "^#" $(I $inst)/set_ftrace_filter >list &&
	echo vfs_read >expect &&
	test_cmp expect list &&
	io && sleep 0.2 &&
	tr stop -B $inst &&
	tr show -B $inst >out &&
	events_of out >ev &&
	test_grep -E ": vfs_read <-" ev &&
	test_must_fail grep -vE ": vfs_read <-" ev
'

test_expect_success 'an index of 0 or past the end is refused with the count, nothing left' '
	inst=$(test_instance) &&
	m=$(wc -l <$FUNCS) &&
	test_expect_code 1 tr start -B $inst -p function -l $((m + 1)) 2>err &&
	test_grep -x "tr: no function number $((m + 1)): available_filter_functions has $m (from 1)" err &&
	test_expect_code 1 tr start -B $inst -p function -n 0 2>err &&
	test_grep "no function number 0:" err &&
	test ! -d $(I $inst)
'

test_expect_success '-n: set_ftrace_notrace (by name or index), and that function is not traced' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -p function -l vfs_read -l vfs_write &&
	io && sleep 0.2 &&
	# (stopped first: reading the trace and writing it out are vfs_read and vfs_write)
	tr stop -B $inst &&
	tr show -B $inst >before &&
	test_grep -E ": vfs_write <-" before &&
	tr reset -B $inst &&
	tr start -B $inst -p function -l vfs_read -l vfs_write -n vfs_write &&
	test "$(grep -v "^#" $(I $inst)/set_ftrace_notrace)" = vfs_write &&
	io && sleep 0.2 &&
	tr stop -B $inst &&
	tr show -B $inst >out &&
	test_grep -E ": vfs_read <-" out &&
	test_must_fail grep -E ": vfs_write <-" out &&
	tr reset -B $inst &&
	tr start -B $inst -p function -l vfs_read -n $(idx_of vfs_write) &&
	test "$(grep -v "^#" $(I $inst)/set_ftrace_notrace)" = vfs_write
'

# set_graph_function and set_graph_notrace are the top level's only.
test_expect_success '-g N and --graph-notrace: a callee of the graphed function left out' '
	test_when_finished "tr reset >/dev/null" &&
	tr start -p function_graph -g vfs_read --max-graph-depth 2 &&
	io && sleep 0.2 &&
	tr stop &&
	tr show >g1 &&
	sed -nE "s/.*\|   +([a-z_0-9.]+)\(\);$/\1/p" g1 | grep -vx vfs_read |
		sort | uniq -c | sort -rn | awk "NR == 1 { print \$2 }" >callee &&
	c=$(cat callee) && test -n "$c" &&
	tr reset &&
	tr start -p function_graph -g $(idx_of vfs_read) --graph-notrace "$c" --max-graph-depth 2 &&
	test "$(grep -v "^#" $TRACEFS/set_graph_function)" = vfs_read &&
	test "$(grep -v "^#" $TRACEFS/set_graph_notrace)" = "$c" &&
	io && sleep 0.2 &&
	tr stop &&
	tr show >g2 &&
	test_grep -E "vfs_read\(\) \{" g2 &&
	test_must_fail grep -E " $c\(\)" g2 &&
	tr reset &&
	test_grep "no functions disabled" $TRACEFS/set_graph_notrace
'

# The pids other than $p with a vfs_read in trace text $1.
others() { sed -nE "s/^ +.*-([0-9]+) +\[[0-9]+\] .*: vfs_read <-.*/\1/p" "$1" | grep -vx "$p" | sort -u; }

test_expect_success '-P -c with the function tracer: function-fork, the children traced' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst 2>/dev/null || :" &&
	for children in "" -c; do
		rm -f go &&
		# A child that reads (cat, forked: "&" then wait), after tracing
		# started.  Bounded: a failed start leaves no shell waiting for ever.
		{ sh -c "i=0; while ! test -e go && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
			cat /etc/hostname >/dev/null & wait; exec true" & } &&
		p=$! &&
		tr start -B $inst -p function -l vfs_read -P $p $children &&
		echo "$(cat $(I $inst)/options/function-fork)" >>forks &&
		touch go &&
		test_wait_exit $p 5 &&
		tr stop -B $inst &&
		tr show -B $inst >out$children &&
		others out$children >others$children &&
		tr reset -B $inst || exit 1
	done &&
	printf "0\n1\n" >expect &&
	test_cmp expect forks &&
	# The forked cat (and the sleeps of the wait loop) are traced with -c only.
	test_grep -E "^ +cat-[0-9]+ +\[[0-9]+\] .*: vfs_read <-" out-c &&
	test -s others-c &&
	test_must_be_empty others
'

test_expect_success '--func-stack: func_stack_trace, a kernel stack after each function' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst 2>/dev/null || :" &&
	tr start -B $inst -p function -l vfs_read --func-stack &&
	test "$(cat $(I $inst)/options/func_stack_trace)" = 1 &&
	io && sleep 0.2 &&
	tr stop -B $inst &&
	tr show -B $inst >out &&
	test_grep -E ": vfs_read <-" out &&
	test "$(grep -c "<stack trace>" out)" -ge "$(grep -cE ": vfs_read <-" out)" &&
	test_grep -E "^ => [a-z_]" out
'

test_expect_success 'traceoff:1 and traceon: tracing_on as the function runs, the count spent' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst 2>/dev/null || :" &&
	tr start -B $inst -e sched:sched_switch &&
	test "$(cat $(I $inst)/tracing_on)" = 1 &&
	tr trigger add -B $inst "vfs_read:traceoff:1" &&
	io &&
	test "$(cat $(I $inst)/tracing_on)" = 0 &&
	test_grep -x "vfs_read:traceoff:count=0" $(I $inst)/set_ftrace_filter &&
	tr reset -B $inst &&
	tr start -B $inst -e sched:sched_switch &&
	tr stop -B $inst &&
	test "$(cat $(I $inst)/tracing_on)" = 0 &&
	tr trigger add -B $inst "vfs_read:traceon" &&
	io &&
	test_grep -x 1 $(I $inst)/tracing_on &&
	test_grep -x "vfs_read:traceon:unlimited" $(I $inst)/set_ftrace_filter &&
	tr reset -B $inst &&
	test_must_fail grep -e traceon -e traceoff $TRACEFS/set_ftrace_filter
'

test_expect_success 'disable_event:1: the event soft-disabled when the function runs' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_switch &&
	tr trigger add -B $inst "vfs_read:disable_event:sched:sched_switch:1" &&
	io &&
	test "$(cat $(I $inst)/events/sched/sched_switch/enable)" = "0*" &&
	tr clear -B $inst &&
	sleep 0.3 &&
	tr show -B $inst >out &&
	test_must_fail grep " sched_switch: " out
'

if test_have snapshot; then
	test_expect_success 'snapshot:1: the buffer as it was when the function ran' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst" &&
		tr start -B $inst -e sched:sched_switch &&
		for i in $(seq 50); do
			tr show -B $inst | grep -q " sched_switch: " && break
			sleep 0.1
		done &&
		tr trigger add -B $inst "vfs_read:snapshot:1" &&
		io &&
		test_grep -x "vfs_read:snapshot:count=0" $(I $inst)/set_ftrace_filter &&
		tr show -B $inst --snapshot >snap &&
		test_grep " sched_switch: " snap
	'
else
	test_skip 'snapshot:1: the buffer as it was when the function ran' 'no snapshot'
fi

# The kernel writes a function probe's stack to the top-level buffer.
test_expect_success 'stacktrace:1: one kernel stack, and the count spent' '
	test_when_finished "tr reset >/dev/null" &&
	tr clear &&
	tr trigger add "vfs_read:stacktrace:1" &&
	io &&
	test_grep -x "vfs_read:stacktrace:count=0" $TRACEFS/set_ftrace_filter &&
	tr show >out &&
	test "$(grep -c "<stack trace>" out)" = 1 &&
	test_grep -E "^ => [a-z_]" out
'

test_done
