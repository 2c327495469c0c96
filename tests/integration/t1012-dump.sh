#!/bin/bash
# tr dump: a trace.dat file's layout (header, sections, options, buffers
# and where each CPU's data is), checked against trace-cmd dump, and
# --validate, which finds a corrupted sub-buffer.
. "$(dirname "$0")/lib.sh"

test_requires instances events

a=$(test_instance)a

# "OFFSET SIZE" of each CPU's data in tr dump's buffers list, in order.
tr_cpu_data() { sed -nE 's/^    cpu [0-9]+ +offset +([0-9]+) +size +([0-9]+)$/\1 \2/p'; }

test_expect_success 'a recording with two buffers' '
	tr record -q -e sched:sched_process_exec -B "$a" -e sched:sched_process_exit \
		-o two.dat sh -c "/bin/true; /bin/true" &&
	tr convert -q -i two.dat --file-version 6 -o two6.dat
'

test_expect_success 'the header, the sections and the buffers of a version 7 file' '
	tr dump -i two.dat >d7 &&
	test_grep -E "^version: +7, little-endian, 8-byte long, page size [0-9]+$" d7 &&
	test_grep -E "^compression: +zstd " d7 &&
	test_grep -E " 16  header info \(compressed\)$" d7 &&
	test_grep -E " 18  event formats \(compressed\)$" d7 &&
	test_grep -E " 0  options$" d7 &&
	test_grep -E "^buffers: +2$" d7 &&
	test_grep -E "^  \(top\): clock " d7 && test_grep -E "^  $a: clock " d7 &&
	test_grep -E "^ +[0-9]+ +[0-9]+ +3  buffer$" d7
'

test_expect_success 'where each CPU'"'"'s data is, as trace-cmd dump says' '
	command -v trace-cmd >/dev/null || { say "# no trace-cmd here"; return 0; }
	tr dump -i two.dat | tr_cpu_data >ours &&
	trace-cmd dump -i two.dat --flyrecord 2>/dev/null |
		sed -nE "s/^ +[0-9]+ ([0-9]+)\t([0-9]+)\t\[id, data offset and size\]$/\1 \2/p" >theirs &&
	test -s theirs && test_cmp theirs ours &&
	# Of a v6 file trace-cmd lists the top level'"'"'s CPUs that have data.
	tr dump -i two6.dat | sed -n "/^  (top)/,/^  [^ ]/p" | tr_cpu_data |
		awk "\$2 > 0" >ours6 &&
	trace-cmd dump -i two6.dat --flyrecord 2>/dev/null |
		sed -nE "s/^\t+ *([0-9]+) +([0-9]+)\t\[offset, size of cpu [0-9]+\]$/\1 \2/p" |
		awk "\$2 > 0" >theirs6 &&
	test -s theirs6 && test_cmp theirs6 ours6
'

test_expect_success 'a version 6 file: its parts in order, no compression' '
	tr dump -i two6.dat >d6 &&
	test_grep -E "^version: +6," d6 &&
	test_grep -E "^compression: +none$" d6 &&
	sed -nE "s/^ +[0-9]+ +[0-9]+ +[0-9]+ +-  //p" d6 >parts &&
	printf "%s\n" "header page" "ftrace event formats" "event formats" kallsyms \
		"printk formats" "saved cmdlines" options >expect &&
	test_cmp expect parts
'

test_expect_success '--validate reads every sub-buffer: a good file passes' '
	tr dump -i two.dat --validate >v &&
	test_grep -E "^  \(top\) cpu [0-9]+: [0-9]+ sub-buffers, [0-9]+ events, .*: ok$" v &&
	test_grep -E "^  $a cpu [0-9]+: .*: ok$" v &&
	test_must_fail grep BAD v &&
	tr dump -i two6.dat --validate >v6 && test_must_fail grep BAD v6
'

test_expect_success '--validate finds a sub-buffer whose commit size is past its end' '
	off=$(tr dump -i two6.dat | tr_cpu_data | awk "\$2 > 0 { print \$1; exit }") &&
	cp two6.dat bad.dat &&
	# The commit word follows the 8-byte timestamp: 0x7fff0000 bytes of data.
	printf "\000\000\377\177" | dd of=bad.dat bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null &&
	test_expect_code 1 tr dump -i bad.dat --validate >v 2>err &&
	test_grep -E "BAD: sub-buffer 0, byte [0-9]+: commit size past the end" v &&
	test_grep "failed validation" err
'

test_expect_success 'usage and a file that is not there' '
	test_expect_code 64 tr dump -i two.dat extra &&
	test_expect_code 1 tr dump -i nosuch.dat 2>err &&
	test_grep "nosuch.dat" err
'

test_done
