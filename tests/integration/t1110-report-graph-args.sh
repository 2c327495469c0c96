#!/bin/bash
# tr report on a function_graph recording of a 6.15 kernel with
# funcgraph-retaddr, -retval and -args on (a file made by hand by
# graphdat.py: no kernel here has those options).  The expected lines are
# the kernel's text for those records (trace_functions_graph.c:
# print_graph_entry_nested() writes the caller after the brace,
# print_graph_entry_leaf() and print_graph_retval() the arguments and
# "ret=", print_graph_return() the closing "} /* ksys_read ret=0x340 */");
# the arguments are plain hex as the file's kernel is not this one (no BTF).
. "$(dirname "$0")/lib.sh"

test_expect_success 'a 6.15 graph file is made' '
	python3 "$TEST_ROOT/tests/integration/graphdat.py" g.dat &&
	test -s g.dat
'

test_expect_success 'retaddr, args and ret= print as the kernel prints them' '
	tr report g.dat >out &&
	cat >expect <<-\EOT &&
	cpus=1
	 0)               |  ksys_read() { /* <-x64_sys_call+0x1c/0x100 */
	 0)   2.500 us    |    vfs_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0); /* ret=-14 */
	 0) + 12.000 us   |  } /* ksys_read ret=0x340 */
	EOT
	test_cmp expect out
'

test_expect_success '-O and --graph-opt turn retaddr and retval off; args stay as recorded' '
	tr report -O nofuncgraph-retaddr,nofuncgraph-retval g.dat >out &&
	tr report --graph-opt noretaddr,noretval,noargs g.dat >out2 &&
	cat >expect <<-\EOT &&
	cpus=1
	 0)               |  ksys_read() {
	 0)   2.500 us    |    vfs_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0);
	 0) + 12.000 us   |  }
	EOT
	test_cmp expect out &&
	test_cmp expect out2
'

test_expect_success 'retval-hex keeps the error in hex; --no-graph shows the records' '
	tr report --graph-opt retval-hex g.dat >out &&
	test_grep -F "vfs_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0); /* ret=0xfffffff2 */" out &&
	tr report --no-graph g.dat >out &&
	test_grep "fgraph_retaddr_entry: --> ksys_read (0) <- x64_sys_call$" out &&
	test_grep "funcgraph_entry: *--> vfs_read (1)$" out
'

# The kernel's depth is small (50 calls before 6.9, a page of frames since);
# a file may say anything.
test_expect_success 'a depth past 1024 is indented as 1024; one past INT_MAX as the top level' '
	python3 "$TEST_ROOT/tests/integration/graphdat.py" deep.dat 1023 0x7ffffffe 0xffffffff &&
	timeout 20 "$TR" report deep.dat >out 2>err &&
	test_must_be_empty err &&
	blanks() { printf "%*s" $(($1 * 2)) ""; } &&
	{
		echo "cpus=1" &&
		for d in 1023 1024; do
			echo " 0)               |  $(blanks $d)ksys_read() {" &&
			echo " 0)               |  $(blanks 1024)vfs_read() {" &&
			echo " 0)               |  $(blanks 1025)/* 0xffffffff81000000: in vfs_read */" &&
			echo " 0)   2.500 us    |  $(blanks 1024)}" &&
			echo " 0)   2.500 us    |  $(blanks 1024)x64_sys_call();" &&
			echo " 0)               |  $(blanks 1024)/* 0xffffffff81000000: after the leaf */" &&
			echo " 0)   2.500 us    |  $(blanks $d)}" || exit 1
		done &&
		echo " 0)               |  ksys_read() {" &&
		echo " 0)               |  vfs_read() {" &&
		echo " 0)               |  /* 0xffffffff81000000: in vfs_read */" &&
		echo " 0)   2.500 us    |  }" &&
		echo " 0)   2.500 us    |  x64_sys_call();" &&
		echo " 0)               |  /* 0xffffffff81000000: after the leaf */" &&
		echo " 0)   2.500 us    |  } /* ksys_read */"
	} >expect &&
	test_cmp expect out
'

test_expect_success 'a bad funcgraph word in -O is a usage error' '
	test_expect_code 64 tr report -O funcgraph-nosuch g.dat 2>err &&
	test_grep "bad trace option .funcgraph-nosuch." err
'

test_done
