#!/bin/bash
# tr report shows a function_graph recording as the kernel's trace file
# does: the call graph with durations and marks, leaf calls on one line,
# task switches and other events as comments.  Both texts come from one
# buffer: the instance's trace file, and tr extract of the same buffer.
. "$(dirname "$0")/lib.sh"

test_requires instances events function_graph function_filter

# graph_run INST: trace ksys_read, vfs_read and rw_verify_area in INST
# around cat, with sched_switch and a marker as comments in the graph.
graph_run() {
	tr start -B "$1" -p function_graph -l ksys_read -l vfs_read -l 'rw_verify_area*' \
		-e sched:sched_switch >/dev/null &&
	cat /etc/hostname /etc/passwd /etc/hostname >/dev/null &&
	echo "tr graph marker" >"$TRACEFS/instances/$1/trace_marker" &&
	cat /etc/passwd >/dev/null &&
	tr stop -B "$1"
}

test_expect_success 'the call graph of a recording is the kernel trace file text' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	graph_run "$inst" &&
	grep -v "^#" "$TRACEFS/instances/$inst/trace" >expect &&
	tr extract -B "$inst" -q -o g.dat &&
	tr report -i g.dat >report &&
	test_grep -qx "cpus=[0-9]*" report &&
	sed "1d; s/^$inst: //" report >actual &&
	test_cmp expect actual &&
	# Nested calls, leaf calls with their durations, and comments.
	test_grep -E "^ [0-9]+\)               \|  ksys_read\(\) \{$" actual &&
	test_grep -E "^ [0-9]+\) [ +!#*@$] +[0-9]+\.[0-9]+ us +\|      +rw_verify_area[a-z0-9_.]*\(\);$" actual &&
	test_grep -E "^ [0-9]+\) [ +!#*@$] +[0-9]+\.[0-9]+ us +\|  \}$" actual &&
	test_grep -E "\|  +/\* tr graph marker \*/$" actual &&
	test_grep -E "/\* sched_switch: prev_comm=" actual
'

test_expect_success '--no-graph prints one line per funcgraph record' '
	tr report -i g.dat --no-graph >raw &&
	test_grep -E "funcgraph_entry: +--> ksys_read \(0\)$" raw &&
	test_grep -E "funcgraph_exit: +<-- vfs_read \(1\) " raw &&
	test_grep -E "sched_switch: +prev_comm=" raw &&
	test_must_fail grep -E "ksys_read\(\) \{" raw &&
	# The options that show times print the records as they are too.
	tr report -i g.dat -t >ns &&
	test_grep -E "funcgraph_entry: +--> ksys_read \(0\)$" ns
'

test_done
