#!/bin/bash
# A near-miss names what was meant: events, fields and trace options.
. "$(dirname "$0")/lib.sh"
test_requires events instances

test_expect_success 'a misspelt event names the closest one' '
	test_expect_code 1 tr record -q -e sched:sched_swich -o x.dat true 2>err &&
	echo "tr: no such event '"'"'sched:sched_swich'"'"' (did you mean sched:sched_switch?)" >expect &&
	test_cmp expect err &&
	test ! -e x.dat
'

test_expect_success 'a bare word: the closest system or event' '
	test_expect_code 1 tr record -q -e schet -o x.dat true 2>err &&
	test_grep -qx "tr: no such event .schet. (did you mean sched?)" err &&
	test_expect_code 1 tr record -q -e sched_swich -o x.dat true 2>err &&
	test_grep -qx "tr: no such event .sched_swich. (did you mean sched:sched_switch?)" err
'

test_expect_success 'nothing close: no guess' '
	test_expect_code 1 tr record -q -e sched:zzzzzz -o x.dat true 2>err &&
	test_grep -qx "tr: no such event .sched:zzzzzz." err
'

test_expect_success 'start, trigger and hist suggest too' '
	inst=$(test_instance) &&
	test_expect_code 1 tr start -B "$inst" -e sched:sched_wakup 2>err &&
	test_grep -q "did you mean sched:sched_wakeup?" err &&
	test ! -d "$TRACEFS/instances/$inst" &&
	test_expect_code 1 tr trigger add -e sched:sched_swich traceoff 2>err &&
	test_grep -q "did you mean sched:sched_switch?" err &&
	test_expect_code 1 tr hist -e sched:sched_swich -k next_comm --duration 100ms 2>err &&
	test_grep -q "did you mean sched:sched_switch?" err
'

test_expect_success 'a misspelt field of hist names the closest field' '
	test_expect_code 1 tr hist -i "$TEST_ROOT/tests/data/report-v7.dat" -e sched:sched_switch \
		-k prev_pdi 2>err &&
	test_grep -qx "tr: no field .prev_pdi. in .sched:sched_switch. (did you mean prev_pid?)" err
'

test_expect_success 'a misspelt trace option names the closest, with its no' '
	test_expect_code 1 tr record -q -e sched:sched_switch -O noprint-parnet -o x.dat true 2>err &&
	test_grep -qx "tr: unknown trace option .noprint-parnet. (did you mean noprint-parent?)" err &&
	test_expect_code 1 tr record -q -e sched:sched_switch -O zzzzzz -o x.dat true 2>err &&
	test_grep -qx "tr: unknown trace option .zzzzzz. (tr list -o shows them)" err
'

test_expect_success 'a filter naming a missing field names the field and the closest one' '
	inst=$(test_instance) &&
	test_expect_code 1 tr start -B "$inst" -e sched:sched_switch -f "prev_pd == 1" 2>err &&
	test_grep -qx "tr: bad filter for .sched:sched_switch.: .prev_pd == 1.: no field .prev_pd. (did you mean prev_pid?)" err &&
	test_grep -q "Field not found" err &&
	test ! -d "$TRACEFS/instances/$inst" &&
	test_expect_code 1 tr record -q -e sched:sched_switch -f "next_comm == \"x\" && next_pdi > 0" \
		-o x.dat true 2>err &&
	test_grep -q "no field .next_pdi. (did you mean next_pid?)" err
'

test_done
