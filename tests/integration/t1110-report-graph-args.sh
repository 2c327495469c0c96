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

# trace-cmd 3.4 keeps the recording kernel's BTF in the file (BTF_FILE,
# option 23) and /proc/modules (MODULES_FILE, 25); graphdat.py --btf makes
# such a file with a BTF that declares vfs_read(struct file *file, const
# char *buf, size_t count, loff_t *pos).  The file's kernel is not this one:
# the names can only come from the file.  6.15 prints unsigned in decimal.
test_expect_success 'the BTF a file carries names the arguments, in every compression' '
	cat >expect <<-\EOT &&
	cpus=1
	 0)               |  ksys_read() { /* <-x64_sys_call+0x1c/0x100 */
	 0)   2.500 us    |    vfs_read(file=0x3, buf=0xffff888100a0b000, count=128, pos=0x0); /* ret=-14 */
	 0) + 12.000 us   |  } /* ksys_read ret=0x340 */
	EOT
	for k in none zstd zlib; do
		python3 "$TEST_ROOT/tests/integration/graphdat.py" b-$k.dat --btf $k &&
		tr report b-$k.dat >out 2>err &&
		test_cmp expect out &&
		test_must_be_empty err || exit 1
	done
'

# An IBT kernel (7.x on x86) records the function 4 bytes in, past its
# endbr64: the kernel's symbol lookup takes any address inside, so does tr.
test_expect_success 'the arguments are named when the function is recorded past its endbr64' '
	python3 "$TEST_ROOT/tests/integration/graphdat.py" ibt.dat --btf zstd --ibt &&
	tr report ibt.dat >out 2>err &&
	test_grep -F "|    vfs_read(file=0x3, buf=0xffff888100a0b000, count=128, pos=0x0); /* ret=-14 */" out &&
	test_must_be_empty err
'

test_expect_success 'tr dump names the BTF and modules sections and their options' '
	tr dump -i b-zstd.dat >out &&
	test_grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ +23  BTF \(compressed\)$" out &&
	test_grep -E "^ +[0-9]+ +[0-9]+ +41 +25  modules \(compressed\)$" out &&
	test_grep -E "^ +[0-9]+ +8 +23  btf_file$" out &&
	test_grep -E "^ +[0-9]+ +8 +25  modules_file$" out
'

test_expect_success 'tr convert keeps them in a compressed file, and leaves them out of others' '
	tr convert -q -i b-none.dat -o c7.dat &&
	tr dump -i c7.dat >out &&
	test_grep " 23  BTF (compressed)" out &&
	test_grep " 25  modules (compressed)" out &&
	tr report c7.dat >out &&
	test_grep -F "vfs_read(file=0x3, buf=0xffff888100a0b000, count=128, pos=0x0);" out &&
	tr convert -q --compression none -i b-zstd.dat -o cn.dat &&
	tr convert -q --file-version 6 -i b-zstd.dat -o c6.dat &&
	for f in cn.dat c6.dat; do
		tr dump -i $f >out &&
		! grep -E " (23|25)  " out &&
		tr report $f >out &&
		test_grep -F "vfs_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0);" out || exit 1
	done
'

# A damaged BTF costs the names, not the report.
test_expect_success 'a damaged BTF section: a warning, and the arguments as numbers' '
	python3 - b-zstd.dat bad.dat <<-\EOT &&
	import sys
	b = bytearray(open(sys.argv[1], "rb").read())
	i = b.find(b"\x17\x00\x01\x00\x00\x00\x00\x00")
	assert i > 0
	b[i + 24:i + 28] = b"\xff\xff\xff\xff"
	open(sys.argv[2], "wb").write(b)
	EOT
	tr report bad.dat >out 2>err &&
	test_grep -F "vfs_read(0x3, 0xffff888100a0b000, 0x80, 0x0, 0x0, 0x0);" out &&
	test_grep "bad.dat.*corrupt compressed data .*(in the BTF); function arguments print as numbers" err &&
	test "$(wc -l <err)" = 1
'

# trace-cmd 3.4 prints the arguments from the file it reads (libtraceevent
# 1.9's tep_btf_print_args), with unsigned in hex and its own ret= form;
# without BTF, the words in bare hex.
test_tc34 'trace-cmd 3.4 takes the BTF from the files tr writes' '
	"$TC34" report c7.dat >out 2>err &&
	test_grep -F "vfs_read(file=0x3, buf=0xffff888100a0b000, count=0x80, pos=0x0); (ret=0xfffffff2)" out &&
	"$TC34" report cn.dat >out &&
	test_grep -F "vfs_read(3, ffff888100a0b000, 80, 0, 0, 0); (ret=0xfffffff2)" out
'

test_expect_success 'a bad funcgraph word in -O is a usage error' '
	test_expect_code 64 tr report -O funcgraph-nosuch g.dat 2>err &&
	test_grep "bad trace option .funcgraph-nosuch." err
'

test_done
