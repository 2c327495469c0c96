#!/bin/bash
# tr split: parts by event count, time range or CPU that tr report and
# trace-cmd report read; the parts' reports one after the other are the
# whole report; a per-CPU part has that CPU's events only; bad ranges are
# usage errors of one line.
. "$(dirname "$0")/lib.sh"

DATA=$(cd "$(dirname "$0")/../data" && pwd)

# A report without its "cpus=N" first line, which every file's report has.
body() { "$TR" report -i "$1" | tail -n +2; }
body_tc() { trace-cmd report -i "$1" 2>/dev/null | tail -n +2; }

# The parts named on stdout ("PATH: N events, ..."), in order.
parts() { sed -n 's/^\([^:]*\): [0-9]* events\{0,1\}.*/\1/p' "$1"; }

for f in report-v6 report-v7 report-two report-lost; do
	test_expect_success "$f.dat in parts of 7 events: the parts' reports make the whole" '
		tr split -i "$DATA/'$f'.dat" -o p --events 7 >out &&
		n=$(tr report -i "$DATA/'$f'.dat" | tail -n +2 | grep -vc "LOST\|DROPPED") &&
		test "$(parts out | wc -l)" = $(( (n + 6) / 7 )) &&
		test_grep -x "p.1: 7 events, .*" out &&
		body "$DATA/'$f'.dat" >expect &&
		for p in $(parts out); do body "$p"; done >actual &&
		test_cmp expect actual &&
		if tc_reads "$DATA/'$f'.dat"; then
			body_tc "$DATA/'$f'.dat" >expect.tc &&
			for p in $(parts out); do body_tc "$p"; done >actual.tc &&
			test_cmp expect.tc actual.tc
		fi
	'
done

test_expect_success 'time ranges that follow each other make the whole (relative and absolute)' '
	f=$DATA/report-v6.dat &&
	mid=$(tr report -i "$f" | sed -n 30p | sed -E "s/.* ([0-9]+\.[0-9]{6}): .*/\1/") &&
	tr split -i "$f" -o t --time ,+2ms --time +2ms,$mid --time $mid, >out &&
	test "$(parts out)" = "$(printf "t.1\nt.2\nt.3")" &&
	body "$f" >expect &&
	for p in t.1 t.2 t.3; do body $p; done >actual &&
	test_cmp expect actual &&
	body t.3 | head -1 | test_grep " $mid: " &&
	test "$(body t.1 | wc -l)" -gt 0
'

test_expect_success 'a range outside the trace writes an empty part that both reports read' '
	tr split -i "$DATA/report-v7.dat" -o e --time 1,2 >out &&
	test_grep -x "e.1: 0 events" out &&
	body e.1 >rep && test_must_be_empty rep &&
	if tc_reads e.1; then body_tc e.1 >rep.tc && test_must_be_empty rep.tc; fi &&
	tr split -i e.1 -o none --events 5 >out 2>err &&
	test_must_be_empty out &&
	test_grep "e.1.* has no events: no files written" err &&
	! ls none.* 2>/dev/null
'

test_expect_success 'parts keep the version, or take the one asked for' '
	tr split -q -i "$DATA/report-v7.dat" -o v --events 1000 &&
	tr report --stat -i v.1 | test_grep -E "^compression: +zstd" &&
	tr split -q -i "$DATA/report-v7.dat" -o w --events 1000 --file-version 6 &&
	tr report --stat -i w.1 | test_grep -E "^version: +6 " &&
	body "$DATA/report-v7.dat" >expect && body w.1 >actual && test_cmp expect actual
'

test_expect_success 'new parts are 0600 whatever the umask; one that exists keeps its mode' '
	(umask 022 && tr split -q -i "$DATA/report-v7.dat" -o m --events 1000) &&
	test "$(stat -c %a m.1)" = 600 &&
	chmod 640 m.1 &&
	tr split -q -i "$DATA/report-v7.dat" -o m --events 1000 &&
	test "$(stat -c %a m.1)" = 640
'

test_expect_success 'lost-event marks stay before the event they precede' '
	tr split -q -i "$DATA/report-lost.dat" -o l --events 50 &&
	cat l.* >/dev/null &&
	grep -c "LOST [0-9]* EVENTS" <(tr report -i "$DATA/report-lost.dat") >expect &&
	for p in l.*; do tr report -i $p; done | grep -c "LOST [0-9]* EVENTS" >actual &&
	test_cmp expect actual
'

test_expect_success 'bad ranges are usage errors of one line, and write nothing' '
	for r in 12,11 +2s,+1s x, ,+1q 1,2,3 nocomma +,1; do
		test_expect_code 64 tr split -i "$DATA/report-v6.dat" -o bad --time "$r" 2>err &&
		head -1 err | test_grep "^tr split: bad time range .$r." &&
		test "$(grep -vc "^Try " err)" = 1 || exit 1
	done &&
	! ls bad.* 2>/dev/null
'

test_expect_success 'a range that resolves empty is a usage error naming it' '
	test_expect_code 64 tr split -i "$DATA/report-v6.dat" -o bad --time 99999,+1s 2>err &&
	test_grep "time range 1 is empty" err
'

test_expect_success 'no way to cut, two ways, or 0 events are usage errors' '
	test_expect_code 64 tr split -i "$DATA/report-v6.dat" 2>err &&
	test_grep "one of --time, --events or --per-cpu" err &&
	test_expect_code 64 tr split -i "$DATA/report-v6.dat" --events 5 --per-cpu 2>err &&
	test_grep "one of --time, --events or --per-cpu" err &&
	test_expect_code 64 tr split -i "$DATA/report-v6.dat" --events 0 2>err &&
	test_grep "bad event count .0." err
'

test_expect_success 'a part named like the input is refused before it is written over' '
	cp "$DATA/report-v6.dat" in.1 &&
	test_expect_code 64 tr split -i in.1 -o in --events 1000 2>err &&
	test_grep "in.1. is the input file" err &&
	cmp in.1 "$DATA/report-v6.dat"
'

test_expect_success 'a missing input fails with one line' '
	test_expect_code 1 tr split -i nosuch.dat --events 5 2>err &&
	test_grep "nosuch.dat" err
'

test_requires instances events

test_expect_success 'a recording on two CPUs: one part per CPU, with only its events' '
	inst=$(test_instance) &&
	m=$TRACEFS/instances/$inst/trace_marker &&
	tr record -q -B "$inst" -e ftrace:print -o rec.dat \
		sh -c "taskset -c 0 sh -c \"for i in \\\$(seq 700); do echo a\\\$i >$m; done\" &
		       taskset -c 1 sh -c \"for i in \\\$(seq 700); do echo b\\\$i >$m; done\"; wait" &&
	tr split -i rec.dat -o c --per-cpu >out &&
	test "$(parts out)" = "$(printf "c.cpu0\nc.cpu1")" &&
	body c.cpu0 >r0 && body c.cpu1 >r1 &&
	test "$(grep -c "tracing_mark_write: a" r0)" = 700 &&
	test "$(grep -c "tracing_mark_write: b" r1)" = 700 &&
	test_must_fail grep -v "\[000\]" r0 &&
	test_must_fail grep -v "\[001\]" r1 &&
	if command -v trace-cmd >/dev/null; then
		body_tc c.cpu1 >t1 && test "$(grep -c " \[001\] .*: b[0-9]" t1)" = 700 &&
		test_must_fail grep -v "\[001\]" t1
	fi
'

test_expect_success 'the recording in parts of 100 and by time: both readers, the whole again' '
	test -f rec.dat || exit 0
	tr split -i rec.dat -o n --events 100 >out &&
	test "$(parts out | wc -l)" = 14 &&
	body rec.dat >expect &&
	for p in $(parts out); do body $p; done >actual && test_cmp expect actual &&
	tr split -q -i rec.dat -o s --time ,+1ms --time +1ms,+5ms --time +5ms, &&
	for p in s.1 s.2 s.3; do body $p; done >actual && test_cmp expect actual &&
	if command -v trace-cmd >/dev/null; then
		body_tc rec.dat >expect.tc &&
		for p in $(parts out); do body_tc $p; done >actual.tc && test_cmp expect.tc actual.tc
	fi
'

test_done
