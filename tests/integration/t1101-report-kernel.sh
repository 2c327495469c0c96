#!/bin/bash
# tr report's event text is the kernel's: record sched events and
# trace_marker writes into an instance, read the instance's own trace file
# (not consuming), then extract the same ring buffer to a trace.dat file and
# compare event by event: CPU, timestamp, pid, event and its text.
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"
inst=$(test_instance)
I=$TRACEFS/instances/$inst

if ! [ -d "$TRACEFS/instances" ]; then
	test_skip "kernel trace text = tr report text" "no tracefs instances"
	test_done
	exit
fi

# Fill instance $1 with sched events and markers, stop it, and leave its
# trace file in kernel.txt; the events stay enabled for the extractor.
fill() {
	local I=$TRACEFS/instances/$1
	mkdir "$I" &&
	for e in sched_switch sched_wakeup sched_waking sched_process_fork sched_process_exec \
		 sched_process_exit; do
		echo 1 >"$I/events/sched/$e/enable" || return 1
	done &&
	sh -c "printf \"hello, kernel\n\" >$I/trace_marker; printf no-newline >$I/trace_marker;
	       ls / >/dev/null; sleep 0.05" &&
	echo 0 >"$I/tracing_on" &&
	cat "$I/trace" >kernel.txt
}

# The same events, event by event, in kernel.txt and in tr report of $1.
compare() {
	tr report -i "$1" >report.txt &&
	normalize kernel kernel.txt >expect &&
	normalize report report.txt >actual &&
	test $(wc -l <expect) -gt 20 &&
	grep -q "| sched_switch: prev_comm=" expect &&
	grep -q "| tracing_mark_write: hello, kernel$" expect &&
	grep -q "| tracing_mark_write: no-newline$" expect &&
	test_cmp expect actual
}

if command -v trace-cmd >/dev/null && "$data/tc-record.sh" "$inst-p" "$TEST_TMP/p.dat" \
	-e sched:sched_switch sleep 0.01 2>/dev/null; then
	test_expect_success 'extracted by trace-cmd: tr report text = the kernel trace file text' '
		test_when_finished "rmdir $I 2>/dev/null || true" &&
		fill "$inst" &&
		TC_SUBCMD=extract "$data/tc-record.sh" "$inst" "$TEST_TMP/k.dat" &&
		compare "$TEST_TMP/k.dat"
	'
else
	test_skip "extracted by trace-cmd: tr report text = the kernel trace file text" \
		"trace-cmd cannot run here"
fi

if "$TR" extract --help >/dev/null 2>&1; then
	test_expect_success 'extracted by tr extract: tr report text = the kernel trace file text' '
		test_when_finished "rmdir $I-t 2>/dev/null || true" &&
		fill "$inst-t" &&
		tr extract -q -B "$inst-t" -o "$TEST_TMP/t.dat" &&
		compare "$TEST_TMP/t.dat"
	'
else
	test_skip "extracted by tr extract: tr report text = the kernel trace file text" \
		"no tr extract"
fi

test_done
