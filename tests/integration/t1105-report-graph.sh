#!/bin/bash
# tr report shows a function_graph recording as the kernel's trace file
# does: the call graph with durations and marks, leaf calls on one line,
# task switches and other events as comments.  Both texts come from one
# buffer: the kernel's trace file, and tr extract of the same buffer.
. "$(dirname "$0")/lib.sh"

test_requires instances events function_graph function_filter

# In an instance where the kernel allows function_graph there (6.11+);
# before that, only the top level has it.
inst=$(test_instance)
tr instance create "$inst" >/dev/null || exit 1
if grep -qw function_graph "$TRACEFS/instances/$inst/available_tracers"; then
	B=(-B "$inst") dir=$TRACEFS/instances/$inst prefix="$inst: "
else
	tr instance destroy "$inst" >/dev/null
	B=() dir=$TRACEFS prefix=
fi
cleanup() {
	tr reset "${B[@]}" >/dev/null 2>&1
	[ ${#B[@]} = 0 ] || tr instance destroy "$inst" >/dev/null 2>&1
}
trap cleanup EXIT

# Trace ksys_read, vfs_read and rw_verify_area around cat, with
# sched_switch and a marker as comments in the graph.
graph_run() {
	tr start "${B[@]}" -p function_graph -l ksys_read -l vfs_read -l 'rw_verify_area*' \
		-e sched:sched_switch >/dev/null &&
	cat /etc/hostname /etc/passwd /etc/hostname >/dev/null &&
	echo "tr graph marker" >"$dir/trace_marker" &&
	cat /etc/passwd >/dev/null &&
	tr stop "${B[@]}"
}

test_expect_success 'the call graph of a recording is the kernel trace file text' '
	graph_run &&
	grep -v "^#" "$dir/trace" >expect &&
	tr extract "${B[@]}" -q -o g.dat &&
	tr report -i g.dat >report &&
	test_grep -qx "cpus=[0-9]*" report &&
	# (The kernel does not say where a full buffer overwrote events: tr does.)
	sed "1d; s/^$prefix//; /^CPU:[0-9]* \[LOST/d" report >actual &&
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
