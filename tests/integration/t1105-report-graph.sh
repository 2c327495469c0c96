#!/bin/bash
# tr report shows a function_graph recording as the kernel's trace file
# does: the call graph with durations and marks, leaf calls on one line,
# task switches and other events as comments.  Both texts come from one
# buffer: the kernel's trace file, and tr extract of the same buffer.
. "$(dirname "$0")/lib.sh"
test_kernels full

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
# sched_switch and a marker as comments in the graph; more tr start
# options as arguments.
graph_run() {
	tr start "${B[@]}" -p function_graph -l ksys_read -l vfs_read -l 'rw_verify_area*' \
		-e sched:sched_switch "$@" >/dev/null &&
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
	# The marker, where the kernel kept it: on the top-level buffer of 6.1
	# the text of the kernel sometimes starts after it (its oldest records
	# gone, count unknown), and tr must match the kernel, not the marker.
	{ ! grep -q "tr graph marker" expect ||
		test_grep -E "\|  +/\* tr graph marker \*/$" actual; } &&
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

# The kernel's text under other funcgraph options: the time, the task and
# no CPU in front, no marks, every brace named, and the return values where
# the kernel has them (6.5+; "} /* f = 0x0 */" in 6.12, "} /* f ret=0x0 */"
# and "f(); /* ret=0x0 */" in 7.3).
# (An instance has these files only while function_graph is its tracer;
# the top level always has them, and the tracer's flags are shared.)
gopts=(-O funcgraph-proc -O funcgraph-abstime -O nofuncgraph-cpu -O nofuncgraph-overhead
       -O funcgraph-tail)
[ -e "$TRACEFS/options/funcgraph-retval" ] && gopts+=(-O funcgraph-retval)

test_expect_success 'under other funcgraph options the report is the kernel text too' '
	tr reset "${B[@]}" >/dev/null &&
	graph_run "${gopts[@]}" &&
	grep -v "^#" "$dir/trace" >expect &&
	tr extract "${B[@]}" -q -o o.dat &&
	tr reset "${B[@]}" >/dev/null &&
	test "$(cat "$TRACEFS/options/funcgraph-proc")" = 0 &&
	test "$(cat "$TRACEFS/options/funcgraph-cpu")" = 1 &&
	tr report -i o.dat >report &&
	sed "1d; s/^$prefix//; /^CPU:[0-9]* \[LOST/d" report >actual &&
	test_cmp expect actual &&
	p="^ *[0-9]+\.[0-9]{6} \|  +[^ ]+-[0-9]+ +\|  " &&
	test_grep -E "$p             \|  ksys_read\(\) \{$" actual &&
	test_grep -E "$p +[0-9]+\.[0-9]+ us +\|  \} /\* ksys_read(( = | ret=)[-0-9a-fx]+)? \*/$" actual &&
	test_must_fail grep -E "^ *[0-9]+\.[0-9]{6} \| +[0-9]+\) " actual &&
	if [ -e "$TRACEFS/options/funcgraph-retval" ]; then
		test_grep -E "\|  \} /\* ksys_read( = | ret=)(0x[0-9a-f]+|-[0-9]+) \*/$" actual &&
		test_grep -E "rw_verify_area[a-z0-9_.]*\(\); /\* (= |ret=)(0x[0-9a-f]+|-[0-9]+) \*/$" actual
	fi
'

test_expect_success '--graph-opt lays out the same records as under other options' '
	tr report -i o.dat --graph-opt noproc,noabstime,cpu,overhead,notail,noretval >back &&
	test_grep -E "^($prefix)? [0-9]+\)               \|  ksys_read\(\) \{$" back &&
	test_grep -E "^($prefix)? [0-9]+\) [ +!#*@$] +[0-9]+\.[0-9]+ us +\|  \}$" back &&
	# (A brace whose entry was lost is still named, so only the values go.)
	test_must_fail grep -E "[0-9]\.[0-9]{6} \||\} /\* [^ ]+ (= |ret=)|\(\); /\* (= |ret=)" back &&
	tr report -i o.dat --graph-opt noproc,noabstime,cpu,nofuncgraph-duration >nodur &&
	test_grep -E "^($prefix)? [0-9]+\) ksys_read\(\) \{$" nodur &&
	test_must_fail grep -E " us " nodur &&
	test_expect_code 64 tr report -i o.dat --graph-opt proc,sleep-time 2>err &&
	test_grep "bad --graph-opt .sleep-time." err &&
	test_expect_code 64 tr report -i o.dat --graph-opt proc --no-graph 2>err &&
	test_grep "no-graph" err
'

test_expect_success 'tr record keeps the funcgraph options it sets, then puts them back' '
	tr record "${B[@]}" -q -p function_graph -l vfs_read -O funcgraph-proc -O nofuncgraph-cpu \
		-o r.dat cat /etc/hostname >/dev/null &&
	# (The kernel shares a tracer'"'"'s options among instances: an instance
	# tr made and removed must not leave them changed at the top level.)
	test "$(cat "$TRACEFS/options/funcgraph-proc")" = 0 &&
	test "$(cat "$TRACEFS/options/funcgraph-cpu")" = 1 &&
	tr report -i r.dat >rep &&
	# (The task is the one tr forked: its name may be tr or cat.)
	test_grep -E "^($prefix)? *[^ ]+-[0-9]+ +\| .* us +\|  vfs_read\(\);$" rep &&
	test_must_fail grep -E "^($prefix)? [0-9]+\) .*vfs_read" rep
'

# tr keeps the funcgraph options after the NUL of its VERSION option:
# trace-cmd reads the version alone, without a word (even with --verbose).
if command -v trace-cmd >/dev/null; then
	test_expect_success 'trace-cmd reads the file with the funcgraph options quietly' '
		tr report --stat -i o.dat >stat &&
		test_grep "^recorded by: *tr [0-9]" stat &&
		trace-cmd report --verbose=all o.dat >tc 2>err &&
		test_must_be_empty err &&
		test_grep "ksys_read" tc
	'
fi

# KernelShark's loader (libkshark, as t1008 uses it) loads every event of
# the file with the funcgraph options in it, without a warning.
if python3 -c 'import ctypes; ctypes.CDLL("libkshark.so.2")' 2>/dev/null; then
	test_expect_success 'KernelShark loads the file with the funcgraph options' '
		cat >kshark.py <<-\EOF &&
		import ctypes, sys
		k = ctypes.CDLL("libkshark.so.2")
		k.kshark_instance.argtypes = [ctypes.c_void_p]
		k.kshark_instance.restype = ctypes.c_bool
		k.kshark_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
		k.kshark_tep_init_all_buffers.argtypes = [ctypes.c_void_p, ctypes.c_int]
		k.kshark_load_entries.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
		k.kshark_load_entries.restype = ctypes.c_ssize_t
		ctx = ctypes.c_void_p()
		assert k.kshark_instance(ctypes.byref(ctx))
		sd = k.kshark_open(ctx, sys.argv[1].encode())
		assert sd >= 0, sd
		n = k.kshark_tep_init_all_buffers(ctx, sd)
		assert n >= 0, n
		rows = ctypes.c_void_p()
		print(sum(k.kshark_load_entries(ctx, s, ctypes.byref(rows)) for s in range(sd, sd + n + 1)))
		EOF
		tr report --stat -i o.dat >stat &&
		events=$(awk "/^events:/ { n += \$2 } END { print n + 0 }" stat) &&
		test "$events" -gt 0 &&
		# KernelShark has an entry for each loss too.
		tr report -i o.dat --no-graph >raw &&
		losses=$(grep -cE "^($prefix)?CPU:[0-9]+ \[LOST" raw || :) &&
		python3 kshark.py o.dat >loaded 2>err &&
		echo "kshark: $(cat loaded), tr: $events events, $losses losses" &&
		test "$(cat loaded)" = $((events + losses)) &&
		test_must_be_empty err
	'
fi

test_done
