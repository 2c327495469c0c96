#!/bin/bash
# trace-cmd 3.4 (../shared/trace-cmd, made runnable by scripts/tc34-oracle)
# both ways: every kind of file tr records reads in 3.4 with the same lines
# as tr's --format libtraceevent (3.4's own layout), and the files 3.4
# records (v7 zstd, zlib and none, v6, two buffers) read in tr the same.
# 3.4 records here as 3.1.6 does in t1100, with writable stand-ins for the
# function files (tests/data/tc-record.sh, TC_BIN).
. "$(dirname "$0")/lib.sh"

test_requires instances events

if [ -z "$TC34" ]; then
	for t in "tr's files read in trace-cmd 3.4" "trace-cmd 3.4's files read in tr"; do
		test_skip "$t" "no trace-cmd 3.4 (scripts/tc34-oracle: none in ../shared/trace-cmd)"
	done
	test_done
	exit
fi

events="-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_process_fork -e sched:sched_process_exec -e sched:sched_process_exit"
inst=$(test_instance)

# same FILE: trace-cmd 3.4 report -N and tr's libtraceevent text agree
# (tasks trace-cmd left as <...> that tr names from the trace aside), and
# so do -t's nanoseconds; the recording is not nearly empty.
same() {
	"$TC34" report -N -i "$1" >expect 2>/dev/null &&
	"$TR" report --format=libtraceevent -i "$1" >actual &&
	cmp_names expect actual &&
	"$TC34" report -N -t -i "$1" >expect 2>/dev/null &&
	"$TR" report --format=libtraceevent -t -i "$1" >actual.t &&
	cmp_names expect actual.t actual
}

test_expect_success "tr's files read in trace-cmd 3.4: v7 zstd, zlib, none, v6, two buffers" '
	work="sh -c \"echo one, two >$TRACEFS/instances/$inst/trace_marker; ls / >/dev/null; /bin/true; /bin/true\"" &&
	for f in "zstd" "zlib" "none"; do
		eval tr record -q -B "$inst" --compression $f $events -o tr-$f.dat "$work" &&
		same tr-$f.dat || exit 1
	done &&
	eval tr record -q -B "$inst" --file-version 6 $events -o tr-v6.dat "$work" &&
	same tr-v6.dat &&
	eval tr record -q -B "$inst" -e sched:sched_switch -B "$inst-b" -e sched:sched_wakeup \
		-o tr-two.dat "$work" &&
	same tr-two.dat &&
	grep -q "^$inst-b: " actual
'

test_expect_success "trace-cmd 3.4's files read in tr: v7 zstd, zlib, none, v6, two buffers" '
	work="sh -c \"echo one, two >$TRACEFS/instances/$inst/trace_marker; ls / >/dev/null; /bin/true; /bin/true\"" &&
	for f in "" "--compression zlib" "--compression none" "--file-version 6"; do
		eval TC_BIN=\"\$TC34\" "$TEST_ROOT/tests/data/tc-record.sh" "$inst" tc.dat $f $events \
			"$work" &&
		same tc.dat &&
		"$TC34" report --stat -i tc.dat >/dev/null 2>&1 &&
		tr report --stat -i tc.dat >stat &&
		test_grep -E "^events: +[1-9]" stat || exit 1
	done &&
	mkdir "$TRACEFS/instances/$inst-c" &&
	test_when_finished "rmdir $TRACEFS/instances/$inst-c 2>/dev/null || :" &&
	eval TC_BIN=\"\$TC34\" "$TEST_ROOT/tests/data/tc-record.sh" "$inst" tc2.dat \
		-e sched:sched_switch -B "$inst-c" -e sched:sched_wakeup "$work" &&
	same tc2.dat &&
	grep -q "^$inst-c: " actual
'

test_done
