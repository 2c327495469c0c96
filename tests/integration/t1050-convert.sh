#!/bin/bash
# tr convert: a trace.dat rewritten in the other version or compression
# prints the same trace in tr report and in trace-cmd report (v6, v7 with
# zstd, zlib or none; several buffers; lost events), keeps the recording's
# options, and refuses what it cannot do with one line.
. "$(dirname "$0")/lib.sh"
test_kernels full

DATA=$(cd "$(dirname "$0")/../data" && pwd)

for f in report-v6 report-v7 report-two report-lost; do
	for to in "--file-version 6:6:none" "--compression zstd:7:zstd" \
		  "--compression none:7:none" "--file-version 7 --compression zlib:7:zlib"; do
		opts=${to%%:*} ver=${to#*:} ver=${ver%%:*} zip=${to##*:}
		test_expect_success "$f.dat to version $ver ($zip): the same report in tr and trace-cmd" '
			tr convert -q -i "$DATA/'$f'.dat" -o out.dat '"$opts"' &&
			tr report --stat -i out.dat >stat &&
			test_grep -E "^version: +'$ver' " stat &&
			test_grep -E "^compression: +'$zip'" stat &&
			tr report -i "$DATA/'$f'.dat" >expect &&
			tr report -i out.dat >actual &&
			test -s expect && test_cmp expect actual &&
			if tc_reads "$DATA/'$f'.dat" && tc_reads out.dat; then
				trace-cmd report -i "$DATA/'$f'.dat" >expect.tc 2>/dev/null &&
				trace-cmd report -i out.dat >actual.tc 2>/dev/null &&
				test -s expect.tc && test_cmp expect.tc actual.tc
			fi
		'
	done
done

test_expect_success 'the default is version 7 with zstd, and a summary names the output' '
	tr convert -i "$DATA/report-v6.dat" -o def.dat 2>err &&
	head -c 12 def.dat | od -An -c | tr -d " \n" >magic &&
	printf "\027\010Dtracing7\000" | od -An -c | tr -d " \n" >expect &&
	test_cmp expect magic &&
	test_grep -E "^def.dat: version 7, zstd, [0-9]+ bytes \(from 28672\)$" err
'

test_expect_success 'a new output is 0600 whatever the umask; one that exists keeps its mode' '
	(umask 022 && tr convert -q -i "$DATA/report-v6.dat" -o mode.dat) &&
	test "$(stat -c %a mode.dat)" = 600 &&
	chmod 640 mode.dat &&
	tr convert -q -i "$DATA/report-v6.dat" -o mode.dat &&
	test "$(stat -c %a mode.dat)" = 640
'

test_expect_success 'buffers, clock, uname, cpus and the lost-event marks survive both ways' '
	tr convert -q -i "$DATA/report-lost.dat" -o six.dat --file-version 6 &&
	tr convert -q -i six.dat -o back.dat --compression zlib &&
	for f in "$DATA/report-lost.dat" six.dat back.dat; do
		tr report --stat -i "$f" | grep -E "^(buffers|cpus|clock|uname):" >"$(basename $f).st"
	done &&
	test_grep "^buffers: .*trgenl" report-lost.dat.st &&
	test_cmp report-lost.dat.st six.dat.st &&
	test_cmp report-lost.dat.st back.dat.st &&
	tr report -i six.dat >out &&
	test_grep -E "LOST [0-9]+ EVENTS" out &&
	tr report -i "$DATA/report-lost.dat" >expect && tr report -i back.dat >actual &&
	test_cmp expect actual
'

test_expect_success 'no -o is a usage error, and nothing is written' '
	test_expect_code 64 tr convert -i "$DATA/report-v6.dat" 2>err &&
	test_grep "no output file" err
'

test_expect_success 'a version 6 file with compression is a usage error' '
	test_expect_code 64 tr convert -i "$DATA/report-v6.dat" -o x.dat --file-version 6 \
		--compression zstd 2>err &&
	test_grep "version 6 file cannot be compressed" err &&
	test ! -e x.dat
'

test_expect_success 'bad version and compression names are usage errors naming them' '
	test_expect_code 64 tr convert -i "$DATA/report-v6.dat" -o x.dat --file-version 8 2>err &&
	test_grep "bad file version .8." err &&
	test_expect_code 64 tr convert -i "$DATA/report-v6.dat" -o x.dat --compression lz4 2>err &&
	test_grep "bad compression .lz4." err
'

test_expect_success 'converting a file onto itself is refused and leaves it whole' '
	cp "$DATA/report-v7.dat" self.dat &&
	test_expect_code 64 tr convert -i self.dat -o ./self.dat 2>err &&
	test_grep "is the input file" err &&
	cmp self.dat "$DATA/report-v7.dat"
'

test_expect_success 'a missing or corrupt input fails with one line and leaves no output' '
	test_expect_code 1 tr convert -i nosuch.dat -o x.dat 2>err &&
	test_grep "nosuch.dat" err &&
	test ! -e x.dat &&
	head -c 3000 "$DATA/report-v6.dat" >cut.dat &&
	test_expect_code 1 tr convert -i cut.dat -o x.dat 2>err &&
	test_grep "cut.dat.*truncated" err &&
	test ! -e x.dat
'

test_requires instances events

test_expect_success 'a recording of two CPUs and 3000 marks converts to v6 and back unchanged' '
	inst=$(test_instance) &&
	m=$TRACEFS/instances/$inst/trace_marker &&
	tr record -q -B "$inst" -e ftrace:print -e sched:sched_switch -o rec.dat \
		sh -c "taskset -c 0 sh -c \"for i in \\\$(seq 1500); do echo a\\\$i >$m; done\" &
		       taskset -c 1 sh -c \"for i in \\\$(seq 1500); do echo b\\\$i >$m; done\"; wait" &&
	tr convert -q -i rec.dat -o rec6.dat --file-version 6 &&
	tr convert -q -i rec6.dat -o rec7.dat &&
	tr report -i rec.dat >expect &&
	test "$(grep -c "tracing_mark_write: [ab][0-9]" expect)" = 3000 &&
	tr report -i rec6.dat >a6 && test_cmp expect a6 &&
	tr report -i rec7.dat >a7 && test_cmp expect a7 &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i rec.dat >tc 2>/dev/null &&
		trace-cmd report -i rec6.dat >tc6 2>/dev/null && test_cmp tc tc6 &&
		trace-cmd report -i rec7.dat >tc7 2>/dev/null && test_cmp tc tc7
	fi
'

test_requires latency

test_expect_success 'a latency file converts to version 7 and back, the same in both readers' '
	tr record -q -p irqsoff -o lat.dat sleep 0.3 &&
	tr convert -q -i lat.dat -o lat7.dat &&
	tr convert -q -i lat7.dat -o lat6.dat --file-version 6 &&
	tr report --stat -i lat7.dat >st &&
	test_grep -E "^version: +7 " st &&
	test_grep -x "buffers: *(top) (latency text)" st &&
	tr report -i lat.dat >expect &&
	test_grep "^# tracer: irqsoff" expect &&
	tr report -i lat7.dat >actual7 && test_cmp expect actual7 &&
	tr report -i lat6.dat >actual6 && test_cmp expect actual6 &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i lat.dat >expect.tc 2>/dev/null &&
		trace-cmd report -i lat7.dat >actual.tc 2>/dev/null && test_cmp expect.tc actual.tc
	fi &&
	test_expect_code 64 tr split -i lat.dat --events 10 2>err &&
	test_grep "nothing to split" err
'

test_expect_success 'trace-cmd'"'"'s own compressed v7 latency file reads and converts' '
	command -v trace-cmd >/dev/null || exit 0
	test_when_finished "echo nop >$TRACEFS/current_tracer" &&
	trace-cmd record --file-version 7 --compression zstd -p irqsoff -o tc7.dat \
		sleep 0.3 >/dev/null 2>&1 &&
	trace-cmd report -i tc7.dat >expect 2>/dev/null &&
	test_grep "^# tracer: irqsoff" expect &&
	tr report -i tc7.dat >actual && test_cmp expect actual &&
	tr convert -q -i tc7.dat -o tc6.dat --file-version 6 &&
	trace-cmd report -i tc6.dat >actual.tc 2>/dev/null && test_cmp expect actual.tc
'

test_done
