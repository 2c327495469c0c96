#!/bin/bash
# The commands around report on hostile files and strings: what issue 29's
# campaign found in convert, split, top's replay, --ts-offset and -F, each
# from the file tests/fuzz/hostile.py makes for it.  No crash, no sanitizer
# report (this suite runs the ASan/UBSan build), no hang, no memory blow-up:
# a clean result, or one error line and the right exit status.
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"

test_expect_success 'the hostile-input set is made' '
	python3 "$TEST_ROOT/tests/fuzz/hostile.py" h >/dev/null &&
	test -s h/absurd-v7-cpuid-65536000.dat && test -s h/gap-2e62-v7.dat
'

test_expect_success 'a buffer naming CPU 2^31-1 or 65536000: every command refuses the file' '
	for v in 2147483647 65536000; do
		f=h/absurd-v7-cpuid-$v.dat
		pat="corrupt buffer .*: CPU $v of a file of 2 CPUs"
		one_error $f "$pat" convert -i $f -o x.dat --file-version 6 &&
		one_error $f "$pat" convert -i $f -o x.dat --compression zstd &&
		one_error $f "$pat" split -i $f -o p --per-cpu &&
		one_error $f "$pat" split -i $f -o p --events 2 &&
		one_error $f "$pat" top -b -i $f -n 2 &&
		one_error $f "$pat" report -i $f || exit 1
		test ! -e x.dat && test ! -e p.cpu0 && test ! -e p.1 || exit 1
	done
'

test_expect_success '65,536 CPUs declared for 257 buffers: convert and split refuse to write them' '
	f=h/absurd-v7-cpucount-65536-257buffers.dat &&
	pat="declares 65536 CPUs for 257 buffers: more than the 65536 CPU buffers a file may hold" &&
	one_error $f "$pat" convert -i $f -o x.dat --file-version 6 &&
	one_error $f "$pat" split -i $f -o p --events 1 &&
	test ! -e x.dat && test ! -e p.1 &&
	tr report -i $f >out && test_grep -q "^cpus=65536" out
'

test_expect_success 'an event id of 2,000,000,000: top replays the file, the event unnamed' '
	timeout 20 "$TR" top -b -i h/fmt-id-huge-v7.dat -n 2 >out 2>err &&
	test ! -s err && test_grep -q "^interval\|interval 1 of" out &&
	timeout 20 "$TR" convert -q -i h/fmt-id-huge-v7.dat -o x.dat &&
	tr report -i x.dat --events >ev &&
	test_grep -q "^ID: 2000000000" ev
'

test_expect_success 'top replay of 200,000 empty cmdlines takes as long as report' '
	for v in v6 v7; do
		f=h/text-cmdlines-empty-lines-$v.dat
		( ulimit -t 5 && exec "$TR" top -b -i $f -n 2 ) >out 2>err ||
			{ echo "$f:"; cat err; exit 1; }
		test "$(grep -c "^tr top" out)" = 1 || exit 1
	done
'

test_expect_success 'top replay over a 2^62 ns gap ends, printing frames for the events only' '
	( ulimit -t 10 && exec "$TR" top -b -i h/gap-2e62-v7.dat ) >out 2>err &&
	n=$(grep -c "^tr top" out) &&
	test "$n" -ge 2 && test "$n" -le 12 &&
	test_grep -q "interval 1 of " out &&
	test_grep -q "interval 4611686019 of 4611686019" out &&
	( ulimit -t 10 && exec "$TR" top -b -i h/gap-2e62-v7.dat -n 3 ) >out3 2>err &&
	test "$(grep -c "^tr top" out3)" = 3
'

test_expect_success 'replay over a gap of a few intervals: every interval, as before' '
	tr top -b -i h/gap-5s-v7.dat >out &&
	test "$(grep -c "^tr top" out)" = 5 &&
	for k in 1 2 3 4 5; do
		test_grep -q "interval $k of 5, " out || exit 1
	done
'

test_expect_success '--ts-offset of -2^63 and 2^63-1: times stop at 0 and at 2^64-1' '
	tr report -i "$data/report-v7.dat" --ts-offset -9223372036854775808 -t >out 2>err &&
	test ! -s err && test_grep -q " 0\.000000000: sched_switch:" out &&
	tr report -i "$data/report-v7.dat" --ts-offset 9223372036854775807 -t >out 2>err &&
	test ! -s err && test_grep -q "\[000\] 9223374013\.975703543: sched_process_exec:" out
'

# bad_filter FILTER PATTERN: report and stream refuse it as a usage error, naming the token.
bad_filter() {
	test_expect_code 64 timeout 20 "$TR" report -i "$data/report-v7.dat" -F "$1" >out 2>err &&
	test_grep -q "^tr report: bad filter .*: $2\$" err &&
	test_expect_code 64 "$TR" stream -F "$1" 2>err &&
	test_grep -q "^tr stream: bad filter .*: $2\$" err
}

test_expect_success 'the three -F strings that crashed libtraceevent: usage errors' '
	bad_filter "prev_comm == \"" "unterminated string \"" &&
	bad_filter "prev_pid == 1 && prev_pid * 1 prev_pid | \"x\"" "unexpected .\*." &&
	bad_filter "prev_pid == 1 , b" "unexpected .,."
'

test_expect_success 'other mistyped filters: usage errors naming the token' '
	bad_filter "prev_pid = 1" "unexpected .=. (a comparison is .==.)" &&
	bad_filter "prev_pid == 12abc" "bad number .12abc." &&
	bad_filter "((prev_pid == 0)" "expected .). before the end" &&
	bad_filter "prev_comm < \"a\"" ".<. takes a number, not .\"a\"." &&
	bad_filter "sched_switch: prev_pid == -1 ||" "expected a field name, not the end"
'

test_expect_success 'hist -i: a mistyped filter is one error, exit 1' '
	one_error "$data/report-v7.dat" "bad filter .prev_comm == \".: unterminated string" \
		hist -i "$data/report-v7.dat" -e sched:sched_switch -k prev_pid -f "prev_comm == \"" &&
	one_error "$data/report-v7.dat" "bad filter .*: unexpected .,.$" \
		hist -i "$data/report-v7.dat" -e sched:sched_switch -k prev_pid -f "prev_pid == 1 , b"
'

test_expect_success 'filters in the kernel grammar select what the kernel would' '
	tr report -i "$data/report-v7.dat" -F "prev_comm ~ \"*sh\"" >glob &&
	tr report -i "$data/report-v7.dat" -F "prev_comm == bash || prev_comm == sh" >eq &&
	test_cmp eq glob && test "$(grep -c sched_switch: glob)" -gt 2 &&
	tr report -i "$data/report-v7.dat" -F "sched_switch: prev_comm ~ \"b?sh\"" >g2 &&
	tr report -i "$data/report-v7.dat" -F "sched_switch: prev_comm == \"bash\"" >e2 &&
	test_cmp e2 g2 &&
	tr report -i "$data/report-v7.dat" -F "sched_switch: !(prev_pid == 0) && prev_prio >= 0" >n &&
	tr report -i "$data/report-v7.dat" -F "sched_switch: prev_pid != 0" >m &&
	test_cmp m n
'

test_done
