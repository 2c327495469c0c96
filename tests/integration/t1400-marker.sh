#!/bin/bash
# tr marker: text into trace_marker and binary records into
# trace_marker_raw, read back as the kernel prints them.
. "$(dirname "$0")/lib.sh"

test_requires instances events

# "comm-pid [cpu] time: text" from the kernel's trace file (flags dropped)
# and from tr report (the buffer's name dropped), blanks squeezed (the
# padding differs), to compare.
kernel_lines() { grep -v "^#" | sed -E "s/^ +//; s/ +/ /g; s/ (\[[0-9]+\]) [^ ]+ / \1 /"; }
report_lines() { grep -v "^cpus=" | sed -E "s/^[^ ]+: +//; s/ +/ /g"; }

test_expect_success 'text and raw markers read back as the kernel prints them' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_process_exec -f "pid == 1" &&
	tr marker -B $inst hello   marker world &&
	tr marker -B $inst --raw 0x1f abcde &&
	tr marker -B $inst --raw 7 &&
	tr show -B $inst | kernel_lines >kernel &&
	test_grep -qx ".*tracing_mark_write: hello marker world" kernel &&
	test_grep -qx ".*: # 1f buf: 61 62 63 64 65.*" kernel &&
	test_grep -qx ".*: # 7 buf:.*" kernel &&
	tr extract -q -B $inst -o m.dat &&
	tr report -i m.dat | report_lines >report &&
	test_cmp kernel report
'

test_expect_success 'a marker written while tr record -B runs is in the file' '
	inst=$(test_instance) &&
	tr record -q -B $inst -e ftrace:print -o r.dat -- "$TR" marker -B $inst in record &&
	tr report -i r.dat >out &&
	test_grep -q "tracing_mark_write: in record$" out
'

test_expect_success 'a marker while tracing is off: it says so, nothing recorded' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -e sched:sched_process_exec -f "pid == 1" &&
	tr stop -B $inst &&
	{ tr marker -B $inst lost 2>err || :; } &&
	test_grep -q "tracing is off in .$inst.: the marker was not recorded" err &&
	tr show -B $inst >out &&
	test_must_fail grep -q "lost" out
'

test_expect_success 'markers turned off in the instance: said in one line' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst" &&
	tr start -B $inst -O nomarkers -e sched:sched_process_exec -f "pid == 1" &&
	test_expect_code 1 tr marker -B $inst hi 2>err &&
	test_grep -qx "tr: trace markers are off (the option .markers.): the marker was not recorded" err
'

test_expect_success 'bad input: one line naming it' '
	test_expect_code 64 tr marker 2>err &&
	test_grep -q "no TEXT to write" err &&
	test_expect_code 64 tr marker --raw 12x data 2>err &&
	test_grep -q "bad marker id .12x." err &&
	test_expect_code 64 tr marker --raw 0x123456789 data 2>err &&
	test_grep -q "bad marker id" err &&
	test_expect_code 1 tr marker -B trtest-none-$$ hi 2>err &&
	test_grep -q "no such instance .trtest-none-$$." err &&
	test "$(wc -l <err)" = 1
'

test_done
