#!/bin/bash
# Hostile files, filters and command lines: the defects issue 13 found,
# each from the file tests/fuzz/hostile.py makes for it.  No crash, no
# sanitizer report (this suite runs the ASan/UBSan build), no hang, no
# memory blow-up: a clean report, or one error line and exit status 1.
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
plain=$TEST_ROOT/tr
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"

test_expect_success 'the hostile-input set is made' '
	python3 "$TEST_ROOT/tests/fuzz/hostile.py" h >/dev/null &&
	test -s h/good-v6.dat
'

test_expect_success 'header_page with an offset of 2^31-1 (v6 and v7): one error' '
	one_error h/fmt-header-page-commit-intmax-v6.dat "cannot find the page layout" &&
	one_error h/fmt-header-page-commit-intmax-v7.dat "cannot find the page layout" &&
	one_error h/fmt-header-page-data-intmax-v7.dat "cannot find the page layout"
'

test_expect_success 'hist key on a char[4096] field: counted, no overflow' '
	tr hist -i h/fmt-field-comm-4096.dat -e sched:sched_switch -k prev_comm >out 2>err &&
	test_grep -q "^bash " out
'

test_expect_success 'hist key on a field of 2^31 bytes: a clean error naming the reason' '
	one_error h/fmt-field-comm-intmax.dat \
		"no field .prev_comm. in .sched:sched_switch. (the trace.s format of it is damaged: field .prev_comm. at offset 8 of 2147483647 bytes" \
		hist -i h/fmt-field-comm-intmax.dat -e sched:sched_switch -k prev_comm
'

test_expect_success 'print fmts libtraceevent cannot take: the fields, one warning per event' '
	for f in h/fmt-print-*.dat; do
		case $f in *-field-count.dat|*-field-len.dat|*-shift-huge.dat) continue ;; esac
		timeout 20 "$TR" report -i "$f" >out 2>err || { echo "$f failed"; cat err; exit 1; }
		n=$(grep -c "warning: event .sched:sched_switch.: its print fmt is not used" err)
		test "$n" = 1 || { echo "$f: $n warnings"; cat err; exit 1; }
	done &&
	tr report -i h/fmt-print-hex-intmax.dat 2>err >out &&
	test_grep -q "sched_switch: *prev_comm=bash prev_pid=100 prev_prio=120 prev_state=1 next_comm=sleep next_pid=200" out &&
	test_grep -q "(__print_hex may read past the record" err &&
	tr report -i h/fmt-print-div-zero-const.dat 2>err >/dev/null &&
	test_grep -q "(a divisor that is not a positive number" err
'

test_expect_success 'a __print_hex/__print_array length from the record is checked per record' '
	tr report -i h/fmt-print-hex-field-len.dat >out 2>err &&
	test_grep -q "prev_comm=bash prev_pid=100 " out &&
	test "$(grep -c "a record.s __print_hex or __print_array length runs past it" err)" = 1 &&
	tr report -i h/fmt-print-array-field-count.dat >out 2>err &&
	test_grep -q "prev_comm=bash prev_pid=100 " out &&
	tr report -i h/good-v6.dat >out 2>err &&
	test ! -s err
'

test_expect_success 'a filter of 100,000 characters is refused on every path' '
	long=$(head -c 100000 /dev/zero | /usr/bin/tr "\\0" a) &&
	one_error h/good-v6.dat "bad filter .a*\.\.\..: 100000 bytes long" \
		hist -i h/good-v6.dat -e sched:sched_switch -k prev_pid -f "$long" &&
	test_expect_code 64 "$TR" report -i h/good-v6.dat -F "sched_switch: $long == 1" 2>err &&
	test_grep -q "^tr report: bad filter .sched_switch: a*\.\.\..: 100019 bytes long" err
'

test_expect_success 'a number out of range in a filter is refused, not matched silently' '
	test_expect_code 64 "$TR" report -i h/good-v6.dat \
		-F "sched_switch: prev_pid == -99999999999999999999999" 2>err &&
	test_grep -q "the number .-99999999999999999999999. is out of range" err
'

test_expect_success 'decompression bomb: refused at once, memory bounded whatever the CPU count' '
	for n in 1 8 64; do
		one_error h/zip-bomb-${n}cpus.dat "chunk of [0-9]* bytes, 268435456 decompressed" &&
		# The plain build: ASan cannot start under a limit of address space.
		(ulimit -v 400000 && test_expect_code 1 "$plain" report -i h/zip-bomb-${n}cpus.dat \
			>/dev/null 2>err) || exit 1
	done &&
	(ulimit -v 400000 && test_expect_code 1 "$plain" report -i h/zip-16m-chunks-8cpus.dat \
		>/dev/null 2>err) &&
	test_grep -q "more than 64 MB decompressed at once" err
'

test_expect_success 'function_graph depths past any kernel'"'"'s: no overflow, lines of at most 1024 levels' '
	for f in h/absurd-graph-depth-*.dat; do
		timeout 20 "$TR" report -i "$f" >out 2>err &&
		test_must_be_empty err &&
		test "$(wc -L <out)" -le 2200 || { echo "$f: $(wc -L <out) columns"; exit 1; }
	done &&
	# 2^30 levels were one line of 2 GB: the plain build under 400 MB of address space.
	for v in 3fffffff 40000000; do
		(ulimit -v 400000 && "$plain" report -i h/absurd-graph-depth-$v-v6.dat >out 2>err) &&
		test_must_be_empty err && test "$(wc -l <out)" = 8 || exit 1
	done
'

test_expect_success 'a FIFO, a directory, a device: refused at once, without reading' '
	mkfifo fifo &&
	one_error fifo "^tr: .fifo. is not a regular file (a FIFO)$" &&
	one_error . "is not a regular file (a directory)$" &&
	one_error /dev/null "is not a regular file (a character device)$"
'

test_expect_success 'saved cmdlines of 200,000 empty lines read in linear time' '
	start=$(date +%s%N) &&
	tr report -i h/text-cmdlines-empty-lines-v7.dat >/dev/null &&
	tr hist -i h/text-cmdlines-empty-lines-v6.dat -e sched:sched_switch -k prev_pid \
		>/dev/null 2>&1 &&
	test $((($(date +%s%N) - start) / 1000000)) -lt 5000
'

test_expect_success 'odd saved cmdlines: names from the good lines, no leak' '
	LSAN_OPTIONS= tr report -i h/text-cmdlines-odd-v6.dat >out &&
	LSAN_OPTIONS= tr report -i h/text-printk-odd-v7.dat >/dev/null
'

test_expect_success 'a CPU count of 2^32-1 or 10^9 in a v7 file is refused' '
	one_error h/absurd-cpucount-4294967295.dat "corrupt option CPUCOUNT at offset [0-9]* (4294967295 cpus)" &&
	one_error h/absurd-cpucount-1000000000.dat "(1000000000 cpus)"
'

test_expect_success '--first-event: one line for every CPU, not only CPU 0' '
	tr report -i h/good-v7.dat --first-event >out &&
	test_grep -q "\[000\]" out && test_grep -q "\[001\]" out &&
	test "$(wc -l <out)" = 2
'

test_expect_success 'report -F naming a field the event lacks says so' '
	one_error h/good-v6.dat "bad filter .sched_switch: nosuch == 1.: no field .nosuch. in .sched:sched_switch.$" \
		report -i h/good-v6.dat -F "sched_switch: nosuch == 1" &&
	one_error h/good-v6.dat "no field .nosuch. in the events it selects$" \
		report -i h/good-v6.dat -F "sched/.*: nosuch == 1"
'

test_expect_success 'report -F without an event applies to every event' '
	tr report -i h/good-v6.dat -F "common_pid == 42" >out &&
	test "$(grep -cE -- "-42 +\[" out)" = 4 && ! test_grep -q "sched_\|prev_comm" out &&
	tr report -i h/good-v6.dat -F "prev_pid == 100" >out &&
	test "$(grep -c "sched_switch:" out)" = 1
'

test_expect_success 'peak memory of report does not grow with the file (256 MB: under 64 MB)' '
	command -v /usr/bin/time >/dev/null || { say "no GNU time"; exit 0; } &&
	python3 "$TEST_ROOT/tests/fuzz/hostile.py" --big $((256 << 20)) big.dat &&
	/usr/bin/time -o rss -f %M "$plain" report -i big.dat >/dev/null &&
	/usr/bin/time -o rss.stat -f %M "$plain" report -i big.dat --stat >/dev/null &&
	rm -f big.dat &&
	test "$(cat rss)" -lt 65536 && test "$(cat rss.stat)" -lt 65536
'

test_done
