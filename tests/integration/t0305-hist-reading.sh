#!/bin/bash
# hist output people read: biggest first, --limit, units on latencies, and
# errors that name the right alternatives.  On the recorded files, so every
# kernel runs them; t0310 covers the same with the kernel engine.
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"
v7=$data/report-v7.dat

# The hitcount column (the last) of a table, top to bottom.
counts() { grep -v '^#' "$1" | sed -n '2,/^$/p' | sed '/^$/d' | awk '{ print $NF }'; }

test_expect_success 'without -s, the rows are by hitcount, biggest first' '
	tr hist -i "$v7" -e sched:sched_switch -k prev_comm >out 2>/dev/null &&
	counts out >got &&
	sort -rn got >want &&
	test_cmp want got &&
	test $(head -1 got) -gt $(tail -1 got)
'

test_expect_success 'sorting by a value is descending unless .ascending says so' '
	tr hist -i "$v7" -e sched:sched_switch -k prev_comm -v prev_prio -s prev_prio \
		--csv >desc 2>/dev/null &&
	sed 1d desc | cut -d, -f3 >got &&
	sort -rn got >want && test_cmp want got &&
	tr hist -i "$v7" -e sched:sched_switch -k prev_comm --vals prev_prio -s prev_prio.ascending \
		--csv >asc 2>/dev/null &&
	sed 1d asc | cut -d, -f3 >got &&
	sort -n got >want && test_cmp want got &&
	tr hist -i "$v7" -e sched:sched_switch -k prev_pid -s prev_pid --csv >keys 2>/dev/null &&
	sed 1d keys | cut -d, -f1 >got &&
	sort -n got >want && test_cmp want got
'

test_expect_success '--limit N prints the top N rows and says so; totals count all' '
	tr hist -i "$v7" -e sched:sched_switch -k prev_comm >all 2>/dev/null &&
	tr hist -i "$v7" -e sched:sched_switch -k prev_comm --limit 3 >top 2>/dev/null &&
	test $(counts top | wc -l) = 3 &&
	counts all | head -3 >want && counts top >got && test_cmp want got &&
	n=$(counts all | wc -l) &&
	test_grep -qx "# the first 3 of $n entries (--limit)" top &&
	grep Totals all >t1 && grep Totals top >t2 && test_cmp t1 t2 &&
	tr hist -i "$v7" -e sched:sched_switch -k prev_comm --limit 2 --json >j 2>/dev/null &&
	python3 -c "import json,sys; o=json.load(open(sys.argv[1])); assert len(o[\"entries\"]) == 2, o" j &&
	test_expect_code 64 tr hist -i "$v7" -e sched:sched_switch -k prev_comm --limit 0 2>err &&
	test_grep -q "bad limit .0." err
'

test_expect_success 'a bad sort order lists the sort orders, not the key modifiers' '
	test_expect_code 64 tr hist -i "$v7" -e sched:sched_switch -k prev_comm -s hitcount.foo 2>err &&
	test_grep -qx "tr: unknown sort order .\.foo. in .hitcount\.foo. (descending or ascending)" err &&
	test_must_fail grep -q execname err
'

test_expect_success 'latency output carries its unit' '
	tr hist --latency --start sched:sched_waking --end sched:sched_switch --match pid=next_pid \
		-i "$v7" >us 2>/dev/null &&
	test_grep -qE "^lat\.log2\(us\) +hitcount$" us &&
	test_grep -qE "^Max: [0-9]+ us$" us &&
	tr hist --latency --start sched:sched_waking --end sched:sched_switch --match pid=next_pid \
		-i "$v7" --units ns --json >ns.json 2>/dev/null &&
	python3 -c "import json,sys; o=json.load(open(sys.argv[1])); assert o[\"unit\"] == \"ns\", o" ns.json
'

test_done
