#!/bin/bash
# Recording what needs the full kernel: the function and function_graph
# tracers with their filters, kprobes and uprobes, each reported from the
# file with only what was asked for and with the probes' arguments.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_requires instances events function function_filter

# Every recording bounded: a function filter the kernel did not take would
# trace every function, fill the guest's /tmp and fail the files after it.
cap="--max-size 64M"

test_expect_success 'function with -l vfs_read records vfs_read and nothing else' '
	inst=$(test_instance) &&
	tr record -q $cap -B "$inst" -p function -l vfs_read -o fn.dat \
		sh -c "cat /etc/hostname /etc/passwd >/dev/null" &&
	tr report -i fn.dat >out &&
	events_of out >ev &&
	# The kernel prints a function event as "vfs_read <-ksys_read".
	test_grep -E ": +vfs_read <-" ev &&
	test_must_fail grep -v -E ": +vfs_read <-" ev &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i fn.dat 2>/dev/null | test_grep -E "vfs_read"
	fi &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'noprint-parent and sym-offset: the function lines as the kernel printed them' '
	inst=$(test_instance) &&
	mkdir "$TRACEFS/instances/$inst" &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr record -q $cap -B "$inst" -p function -l vfs_read -O noprint-parent -O sym-offset \
		-o np.dat sh -c "cat /etc/hostname >/dev/null" &&
	test "$(cat $TRACEFS/instances/$inst/options/print-parent)" = 1 &&
	test "$(cat $TRACEFS/instances/$inst/options/sym-offset)" = 0 &&
	tr report -i np.dat >out &&
	events_of out >ev &&
	test_grep -E ": +vfs_read\+0x[0-9a-f]+/0x[0-9a-f]+$" ev &&
	test_must_fail grep -v -E ": +vfs_read\+0x[0-9a-f]+/0x[0-9a-f]+$" ev
'

# set_graph_function is the top level's only: tr record puts it all back.
test_expect_success 'function_graph with -g vfs_read records only its call graph' '
	tr record -q $cap -p function_graph -g vfs_read --max-graph-depth 2 \
		-o fg.dat sh -c "cat /etc/hostname >/dev/null" &&
	tr report -i fg.dat >graph &&
	test_grep -E "^ [0-9]+\)               \|  vfs_read\(\) \{$" graph &&
	test_grep -E "^ [0-9]+\) .* us +\|    [a-z_0-9.]+\(\);$" graph &&
	tr report -i fg.dat --no-graph >out &&
	events_of out >ev &&
	test_grep -E "funcgraph_entry: +--> vfs_read \(0\)$" ev &&
	test_grep -E "funcgraph_exit: +<-- vfs_read \(0\) " ev &&
	test_must_fail grep -v -E "funcgraph_(entry|exit):" ev &&
	grep -E "funcgraph_entry: +--> [^ ]+ \(0\)$" ev >top &&
	# (a task switched back in inside vfs_read shows finish_task_switch at depth 0)
	test_must_fail grep -v -E "vfs_read|finish_task_switch" top &&
	test_must_fail grep -E "\(([2-9]|[1-9][0-9]+)\)" ev &&
	test "$(cat $TRACEFS/current_tracer)" = nop &&
	test_must_fail grep -v "^#" $TRACEFS/set_graph_function
'

# Function arguments from BTF (Linux 6.15+: func-args, funcgraph-args):
# the kernel names them from its BTF, tr record stores that BTF in the
# file (compressed v7), and tr report names them from it.
if [ -e "$TRACEFS/options/funcgraph-args" ]; then
	args_re="vfs_read\(file=0x[0-9a-f]+, buf=0x[0-9a-f]+, count=0x[0-9a-f]+, pos=0x[0-9a-f]+\)"
	# The top level: set_graph_function is not in instances.
	test_expect_success 'funcgraph-args: the kernel BTF in the file, vfs_read(file=, buf=, count=, pos=)' '
		tr record -q $cap -p function_graph -g vfs_read --max-graph-depth 1 \
			-O funcgraph-args -o fga.dat sh -c "cat /etc/hostname >/dev/null" &&
		tr dump -i fga.dat >dump &&
		test_grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ +23 +BTF" dump &&
		tr report -i fga.dat >graph &&
		test_grep -q -E "[|]  $args_re;$" graph &&
		# The event format (F_printk) names the function alone.
		tr report -i fga.dat --no-graph >flat &&
		test_grep -q -E "funcgraph_entry: +--> vfs_read \(0\)$" flat &&
		test "$(cat $TRACEFS/current_tracer)" = nop
	'
	# trace-cmd 3.4 reads the same values from the file, named, or as six
	# registers where its lookup misses the function (seen on a build of
	# this kernel whose BTF lacked a third of its functions): the values
	# are what is compared.
	test_tc34 'funcgraph-args: trace-cmd 3.4 reads the same argument values from the file' '
		"$TC34" report -i "$TEST_TMP/fga.dat" >tc 2>tc.err &&
		vals="s/.*vfs_read\((?:file=)?(?:0x)?([0-9a-f]+), (?:buf=)?(?:0x)?([0-9a-f]+), (?:count=)?(?:0x)?([0-9a-f]+), (?:pos=)?(?:0x)?([0-9a-f]+).*/\$1 \$2 \$3 \$4/ and print" &&
		perl -ne "$vals" "$TEST_TMP/graph" | sort >ours &&
		perl -ne "$vals" tc | sort >theirs &&
		test -s ours &&
		test_cmp ours theirs
	'
	test_tc34 'funcgraph-args: a file trace-cmd 3.4 recorded reads in tr with the names' '
		# (trace-cmd leaves the tracer'"'"'s options as they are when it fails.)
		test_when_finished "echo 0 >$TRACEFS/options/funcgraph-args; echo nop >$TRACEFS/current_tracer; :" &&
		"$TC34" record -q -p function_graph -g vfs_read --max-graph-depth 1 \
			-O funcgraph-args -o tc.dat sh -c "cat /etc/hostname >/dev/null" >rec.out 2>&1 &&
		test "$(cat $TRACEFS/current_tracer)" = nop &&
		tr report -i tc.dat >graph &&
		test_grep -E "$args_re" graph
	'
fi
# funcgraph-retaddr (6.13+): each call with the address it returns to, as
# the kernel's own trace file prints it, line for line; the flat records
# are fgraph_retaddr_entry.
if [ -e "$TRACEFS/options/funcgraph-retaddr" ]; then
	test_expect_success 'funcgraph-retaddr: each call with its caller, as the kernel prints it' '
		test_when_finished "tr reset >/dev/null 2>&1 || :" &&
		tr start -p function_graph -g vfs_read --max-graph-depth 2 -O funcgraph-retaddr \
			>/dev/null &&
		cat /etc/hostname >/dev/null &&
		tr stop >/dev/null &&
		grep -v "^#" "$TRACEFS/trace" >expect &&
		tr extract -q -o ra.dat &&
		tr reset >/dev/null &&
		test "$(cat $TRACEFS/options/funcgraph-retaddr)" = 0 &&
		tr report -i ra.dat >report &&
		sed "1d; /^CPU:[0-9]* \[LOST/d" report >actual &&
		test_cmp expect actual &&
		test_grep -E "vfs_read\(\) \{ /\* <-ksys_read\+0x[0-9a-f]+/0x[0-9a-f]+ \*/$" actual &&
		tr report -i ra.dat --no-graph >flat &&
		test_grep -E "fgraph_retaddr_entry: +--> vfs_read \(0\) <- ksys_read" flat
	'
fi
if [ -e "$TRACEFS/options/func-args" ]; then
	# The top level: in an instance (7.3), with func-args, tr record filled
	# the guest's 1 GB /tmp (vfs_read alone writes 1.4 MB at the top).
	test_expect_success 'func-args: vfs_read(file=, buf=, count=, pos=) <-ksys_read, from the file' '
		tr record -q $cap -p function -l vfs_read -O func-args -o fa.dat \
			sh -c "cat /etc/hostname >/dev/null" &&
		tr report -i fa.dat >out &&
		test_grep -E ": +vfs_read\(file=0x[0-9a-f]+, buf=0x[0-9a-f]+, count=0x[0-9a-f]+, pos=0x[0-9a-f]+\) <-" out
	'
fi

grp=trt$$

if test_have kprobes; then
	test_expect_success 'kprobe and kretprobe events are recorded with their arguments' '
		inst=$(test_instance) &&
		test_when_finished "tr probe del $grp/open $grp/openret >/dev/null 2>&1 || :" &&
		tr probe add "p:$grp/open do_sys_openat2 dfd=\$arg1:s32 name=+0(\$arg2):string" &&
		tr probe add "r:$grp/openret do_sys_openat2 ret=\$retval:s32" &&
		tr record -q -B "$inst" -e "$grp:*" -o kp.dat cat /etc/hostname &&
		tr report -i kp.dat >out &&
		test_grep -E "open: +\([^)]+\) dfd=-100 name=\"/etc/hostname\"" out &&
		test_grep -E "openret: +\([^)]+ <- [^)]+\) ret=[0-9]+" out
	'
fi

if test_have uprobes; then
	cat >"$TEST_TMP/target.c" <<-'C'
	#include <stdio.h>
	__attribute__((noinline)) int tr_probe_target(int x) { return printf("%d\n", x); }
	int main(int argc, char **argv) { (void)argv; return tr_probe_target(41 + argc) < 0; }
	C
	cc -O0 -o "$TEST_TMP/target" "$TEST_TMP/target.c" || exit 1

	test_expect_success 'uprobe and uretprobe events are recorded with their arguments' '
		inst=$(test_instance) &&
		test_when_finished "tr probe del $grp/target $grp/ret >/dev/null 2>&1 || :" &&
		tr probe add -u "$TEST_TMP/target" --name $grp/target tr_probe_target "x=%di:s32" >/dev/null &&
		tr probe add -u "$TEST_TMP/target" -r --name $grp/ret tr_probe_target "rv=\$retval:s32" >/dev/null &&
		tr record -q -B "$inst" -e "$grp:*" -o up.dat "$TEST_TMP/target" >/dev/null &&
		tr report -i up.dat >out &&
		test_grep -E "target-[0-9]+ .* target: +\((0x)?[0-9a-f]+\) x=42$" out &&
		test_grep -E "target-[0-9]+ .* ret: +\((0x)?[0-9a-f]+ <- (0x)?[0-9a-f]+\) rv=3$" out
	'
fi

test_done
