#!/bin/bash
# tr report's everyday conveniences: a positional file, --pid/-P, --comm,
# the COMM pseudo-field of -F, --ts-diff, --ts-offset, and --stat's clock.
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"
v7=$data/report-v7.dat
v6=$data/report-v6.dat

# The task column ("comm-pid") of each event line, one per line.
tasks() { sed -nE 's/^ *trgen[67]: +(.*)-([0-9]+) +\[[0-9]{3}\].*/\1 \2/p' "$1"; }

test_expect_success 'a positional file is read like -i FILE' '
	tr report -i "$v7" >expect &&
	tr report "$v7" >actual &&
	test_cmp expect actual &&
	tr report "$v7" "$v6" >two &&
	tr report -i "$v7" -i "$v6" >expect2 &&
	test_cmp expect2 two
'

test_expect_success '--pid / -P: only the events of those tasks' '
	tr report "$v7" --pid 26667 >out &&
	tasks out | sort -u >seen &&
	echo "bash 26667" >expect &&
	test_cmp expect seen &&
	n=$(grep -c -- "-26667 " "$data/report-v7.N") &&
	test $(tasks out | wc -l) = $n &&
	tr report "$v7" -P 26667,15 >two &&
	tasks two | cut -d" " -f2 | sort -u >pids &&
	printf "15\n26667\n" >expect &&
	test_cmp expect pids
'

test_expect_success '--comm GLOB: tasks by the name the report prints' '
	tr report "$v7" --comm "rcu*" >out &&
	tasks out | cut -d" " -f1 | sort -u >names &&
	echo rcu_preempt >expect &&
	test_cmp expect names &&
	tr report "$v7" --comm sh --comm rcu_preempt >two &&
	tasks two | cut -d" " -f1 | sort -u >names2 &&
	printf "rcu_preempt\nsh\n" >expect2 &&
	test_cmp expect2 names2
'

test_expect_success '--pid and --comm add up; -F applies on top' '
	tr report "$v7" --pid 15 --comm sh -F sched_switch >out &&
	tasks out | cut -d" " -f1 | sort -u >names &&
	printf "rcu_preempt\nsh\n" >expect &&
	test_cmp expect names &&
	test_must_fail grep -v -e "sched_switch:" -e "^cpus=" out
'

test_expect_success '--stat counts only the selected tasks' '
	tr report "$v7" --stat --pid 26667 >stat &&
	n=$(grep -c -- "-26667 " "$data/report-v7.N") &&
	test_grep -E "^events: +$n$" stat
'

test_expect_success 'the COMM pseudo-field in -F' '
	tr report "$v7" -F "sched_switch: COMM == \"bash\"" >out &&
	test_grep -q "sched_switch:" out &&
	tasks out | cut -d" " -f1 | sort -u >names &&
	echo bash >expect &&
	test_cmp expect names
'

test_expect_success '--ts-diff: the time since the previous printed event' '
	tr report -t "$v7" --ts-diff >out &&
	sed -nE "s/.* ([0-9]+)\.([0-9]{9}) \(\+([0-9]+)\.([0-9]{9})\): .*/\1\2 \3\4/p" out >pairs &&
	test $(wc -l <pairs) = $(($(wc -l <out) - 1)) &&
	awk "NR == 1 { if (\$2 != 0) exit 1 }
	     NR > 1 { if (\$1 - prev != \$2) { print NR, \$0; exit 1 } }
	     { prev = \$1 }" pairs &&
	tr report "$v7" --ts-diff --comm bash >us &&
	test_grep -qE "^ *trgen7: +bash-26667 +\[000\] +[0-9]+\.[0-9]{6} \(\+0\.[0-9]{6}\): sched_" us
'

test_expect_success '--ts-offset moves every timestamp, or one file'"'"'s' '
	tr report -t "$v7" | sed -n 2p | sed -E "s/.* ([0-9]+\.[0-9]{9}): .*/\1/" >t0 &&
	tr report -t "$v7" --ts-offset -1000000000 | sed -n 2p |
		sed -E "s/.* ([0-9]+\.[0-9]{9}): .*/\1/" >t1 &&
	test "$(awk "{ printf \"%.9f\", \$1 - 1 }" t0)" = "$(cat t1)" &&
	tr report -t -i "$v7" -i "$v6" --ts-offset 5000000000 >moved &&
	test_grep -q "trgen6: .* 1980\.5678" moved &&
	test_grep -q "trgen7: .* 1977\.1209" moved
'

test_expect_success 'bad values are usage errors naming the value' '
	test_expect_code 64 tr report "$v7" --pid x 2>err &&
	test_grep -q "bad pid .x." err &&
	test_expect_code 64 tr report "$v7" --ts-offset 1ms 2>err &&
	test_grep -q "bad time offset .1ms." err &&
	test_expect_code 64 tr report "$v7" --ts-diff --format json 2>err &&
	test_grep -q "text output" err &&
	test_expect_code 1 tr report nosuch.dat 2>err &&
	test_grep -q "nosuch.dat" err
'

test_expect_success '--stat names the clock in use, not the whole list' '
	tr report --stat "$v7" >stat &&
	test_grep -E "^clock: +local$" stat
'

if test_have events && test_have clocks; then
	test_expect_success '--stat of a recording with -C global says global' '
		tr record -q -C global -e sched:sched_switch -o g.dat sleep 0.1 &&
		tr report --stat g.dat >stat &&
		test_grep -E "^clock: +global$" stat
	'
else
	test_skip '--stat of a recording with -C global says global' 'missing events or clocks'
fi

test_done
