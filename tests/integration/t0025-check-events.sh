#!/bin/bash
# tr check-events: every event format of the kernel or of a file, parsed as
# report would; those that do not parse are named, and the exit status says.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

data=$TEST_ROOT/tests/data
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"

test_expect_success 'a trace file whose formats all parse: a count, status 0' '
	tr check-events -i "$data/report-v7.dat" >out &&
	n=$(tr report --events -i "$data/report-v7.dat" | grep -c "^name: ") &&
	echo "$n event formats in $data/report-v7.dat: $n parse, 0 do not" >expect &&
	test_cmp expect out &&
	tr check-events -q -i "$data/report-v6.dat" >quiet &&
	test ! -s quiet
'

test_expect_success 'a missing file is a runtime error naming it' '
	test_expect_code 1 tr check-events -i nosuch.dat 2>err &&
	test_grep -q "nosuch.dat" err &&
	test_expect_code 64 tr check-events -i x.dat -B y 2>err &&
	test_expect_code 64 tr check-events extra 2>err
'

if test_have events; then
	test_expect_success 'the running kernel: every event counted, each failure named' '
		rc=0 && tr check-events >out || rc=$? &&
		total=$(ls -d "$TRACEFS"/events/*/*/ | wc -l) &&
		last=$(tail -1 out) &&
		echo "$last" | grep -qE "^$total event formats in this kernel: [0-9]+ parse, [0-9]+ do not$" &&
		bad=$(echo "$last" | sed -E "s/.* ([0-9]+) do not$/\1/") &&
		test $(($(wc -l <out) - 1)) = $bad &&
		if [ $bad = 0 ]; then test $rc = 0; else test $rc = 1; fi &&
		sed \$d out | while IFS=: read -r sys ev why; do
			test -d "$TRACEFS/events/$sys/$ev" || { echo "no event $sys:$ev"; exit 1; }
		done
	'
else
	test_skip 'the running kernel: every event counted, each failure named' 'missing events'
fi

test_done
