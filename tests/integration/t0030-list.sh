#!/bin/bash
# tr list: events, fields, systems, tracers, options, clocks, instances, functions.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_expect_success 'list -e GLOB prints matching events' '
	tr list -e "sched:sched_sw*" >out &&
	test_grep -x "sched:sched_switch" out &&
	test_must_fail grep -v "^sched:sched_sw" out
'

test_expect_success 'list -e with a bare event name' '
	tr list -e sched_switch >out &&
	echo sched:sched_switch >expect &&
	test_cmp expect out
'

test_expect_success 'list with no options lists all events' '
	tr list >out &&
	test $(wc -l <out) = $(wc -l <"$TRACEFS/available_events")
'

test_expect_success 'list -e --fields prints the format fields' '
	tr list -e sched:sched_switch --fields >out &&
	test_grep -E "^    char prev_comm\[16\] +offset:8 +size:16 +signed:[01]$" out &&
	test_grep -E "^    pid_t next_pid " out &&
	test_must_fail grep common_pid out
'

test_expect_success 'list -s prints systems once each' '
	tr list -s >out &&
	test_grep -x sched out &&
	test_grep -x irq out &&
	test "$(sort out | uniq -d)" = ""
'

test_expect_success 'list -t prints available tracers' '
	tr list -t >out &&
	test_grep -x nop out &&
	test "$(cat out | xargs)" = "$(cat $TRACEFS/available_tracers | xargs)"
'

test_expect_success 'list -o prints options with on/off' '
	tr list -o >out &&
	test_grep -E "^irq-info +(on|off)$" out &&
	test_grep -E "^overwrite +(on|off)$" out
'

test_expect_success 'list -o -B NAME shows that instance'"'"'s own option values and clock' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	I=$TRACEFS/instances/$inst &&
	top=$(cat $TRACEFS/options/irq-info) &&
	echo $((1 - top)) >$I/options/irq-info &&
	want=$(test "$(cat $I/options/irq-info)" = 1 && echo on || echo off) &&
	tr list -o -B $inst >out &&
	test_grep -E "^irq-info +$want$" out &&
	tr list -o >top &&
	test_must_fail grep -E "^irq-info +$want$" top &&
	echo global >$I/trace_clock &&
	tr list -C -B $inst >out &&
	test_grep -x "\[global\]" out &&
	test_expect_code 1 tr list -o -B no-such-instance-tr 2>err &&
	test_grep "no such instance .no-such-instance-tr." err &&
	test_expect_code 64 tr list -B $inst 2>err &&
	test_grep -- "-B NAME goes with -o or -C" err
'

test_expect_success 'list -C marks the current clock' '
	tr list -C >out &&
	test $(grep -c "^\[" out) = 1 &&
	test_grep -x "\[$(sed -E "s/.*\[([^]]*)\].*/\1/" $TRACEFS/trace_clock)\]" out
'

test_expect_success 'list -B lists instances' '
	inst=$(test_instance) &&
	mkdir "$TRACEFS/instances/$inst" &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr list -B >out &&
	test_grep -x "$inst" out
'

test_expect_success 'list -e of an unknown event fails naming it' '
	test_expect_code 1 tr list -e nosuch_event 2>err &&
	test_grep "no event matches '"'"'nosuch_event'"'"'" err
'

if test_have function_filter; then
	test_expect_success 'list -f GLOB lists functions' '
		tr list -f "schedule*" >out &&
		test_grep -x schedule out
	'
else
	test_expect_success 'list -f says the kernel refuses the function list' '
		test_expect_code 1 tr list -f 2>err &&
		test_grep "cannot list functions: the kernel refuses to read available_filter_functions" err &&
		test $(wc -l <err) = 1
	'
fi

if [ -r /sys/kernel/btf/vmlinux ]; then
	test_expect_success 'list -f --proto: prototypes from BTF, as C declares them' '
		tr list -f "vfs_read" --proto >out 2>err &&
		echo "ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)" >expect &&
		test_cmp expect out &&
		tr list -f "kthread_create_on_node" --proto >out 2>/dev/null &&
		test_grep -x "struct task_struct \*kthread_create_on_node(int (\*threadfn)(void \*), void \*data, int node, const char \*namefmt, \.\.\.)" out &&
		if test_have function_filter; then
			test_must_be_empty err
		else
			# Without the kernel'"'"'s function list, BTF'"'"'s, and a line that says so.
			test_grep -x "tr: warning: available_filter_functions cannot be read (.*): these are the functions BTF declares, traceable or not" err
		fi
	'
fi
test_expect_success 'list --proto without -f, or with --enabled: usage errors' '
	test_expect_code 64 tr list --proto 2>err && test_grep "goes with -f" err &&
	test_expect_code 64 tr list -f --proto --enabled 2>err && test_grep "exclude each other" err
'

test_done
