#!/bin/bash
# tr report and tr stream follow the kernel's output options (raw, hex,
# bin, context-info, fields, record-tgid, latency-format, verbose,
# irq-info, annotate) as the recording had them: each compared with the
# kernel's own trace file of the same instance under the same option
# (record-tgid with the saved_tgids the file keeps).
# The header legends are 6.18's (the host's); guest kernels are not named
# until their legends are checked.
. "$(dirname "$0")/lib.sh"

# kernel_vs_tr OPTION...: an instance with the options set, a few
# processes and markers, then the kernel's trace text (k.txt) and tr's
# report --header of the extracted buffer (r.txt, its buffer prefix taken out).
kernel_vs_tr() {
	local inst o=() x
	inst=$(test_instance)
	for x in "$@"; do o+=(-O "$x"); done
	# A test may call this more than once: each time a fresh instance.
	tr reset -B $inst >/dev/null 2>&1; rmdir $TRACEFS/instances/$inst 2>/dev/null
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :"
	tr start -B $inst -b 256 -e sched:sched_process_exec -e sched:sched_process_exit "${o[@]}" &&
	/bin/true && sh -c true &&
	printf 'kopts mark\n' >$TRACEFS/instances/$inst/trace_marker &&
	printf '\x2a\x00\x00\x00raw\x01\x02' >$TRACEFS/instances/$inst/trace_marker_raw &&
	tr stop -B $inst &&
	cat $TRACEFS/instances/$inst/trace >k.txt &&
	tr extract -B $inst -q -o t.dat &&
	tr report -i t.dat --header >r.raw 2>r.err &&
	sed "s/^$inst: //" r.raw >r.txt
}

# The same lines but for the blanks between columns (tr's usual layout
# keeps trace-cmd's widths).
squeeze() { sed -e 's/  */ /g' "$1"; }

for opt in raw hex nocontext-info fields "fields nocontext-info"; do
	test_expect_success "report under '$opt' is the kernel's trace text" '
		kernel_vs_tr '"$opt"' &&
		test_cmp k.txt r.txt &&
		test_must_be_empty r.err
	'
done

test_expect_success 'report under raw: the raw layout, for every kind of record' '
	kernel_vs_tr raw &&
	test_grep -E "^[0-9]+ [0-9]+ [0-9]+ type: [0-9]+$" r.txt &&
	test_grep -E "^[0-9]+ [0-9]+ [0-9]+ # [0-9a-f]+ kopts mark$" r.txt &&
	test_grep -E "^[0-9]+ [0-9]+ [0-9]+ # 2a buf: 72 61 77 01 02" r.txt
'

test_expect_success 'report under verbose, noirq-info: the legend and lines as the kernel (blanks aside)' '
	kernel_vs_tr verbose &&
	! grep -q TASK-PID r.txt &&
	tr report -i t.dat --header --irq-info | sed "s/^trtest-[^:]*: //" >r.txt &&
	squeeze k.txt >k.sq && squeeze r.txt >r.sq &&
	test_cmp k.sq r.sq &&
	kernel_vs_tr noirq-info &&
	test_grep "TASK-PID     CPU#     TIMESTAMP" r.txt &&
	squeeze k.txt >k.sq && squeeze r.txt >r.sq &&
	test_cmp k.sq r.sq
'

test_expect_success 'report under bin: the kernel bytes, records as pid, cpu, ts and type' '
	kernel_vs_tr bin &&
	cmp k.txt r.txt &&
	python3 - r.txt <<-\PY
	import struct, sys
	d = open(sys.argv[1], "rb").read()
	body = d[d.index(b"|\n", d.index(b"TIMESTAMP")) + 2:]
	n = 0
	while body:
	    pid, cpu, ts = struct.unpack("<iiQ", body[:16])
	    end = body.index(b"\n", 16)
	    assert body[16:22] == b"type: ", body[:40]
	    assert pid > 0 and 0 <= cpu < 4096 and ts > 0
	    body = body[end + 1:]
	    n += 1
	assert n >= 5, n
	PY
'

test_expect_success 'report under record-tgid: the TGID column, from the saved_tgids the file keeps' '
	kernel_vs_tr record-tgid &&
	test_grep "TASK-PID       TGID    CPU#" r.txt &&
	test_grep -E "^ +true-[0-9]+ +\( *[0-9]+\) \[[0-9]{3}\] " r.txt &&
	test_must_be_empty r.err &&
	test_cmp k.txt r.txt
'

test_expect_success 'record -O record-tgid: a thread prints its process as TGID' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :" &&
	tr record -B $inst -q -O record-tgid -e sched:sched_process_exit -o tg.dat -- \
		python3 -c "import os, threading
t = threading.Thread(target=lambda: print(threading.get_native_id(), os.getpid()))
t.start(); t.join()" >ids 2>rec.err &&
	read tid pid <ids &&
	test "$tid" != "$pid" &&
	tr report -i tg.dat --header 2>r.err | sed "s/^$inst: //" >r.txt &&
	test_must_be_empty r.err &&
	test_grep -E "^ +[^ ]+-$tid +\( *$pid\) \[[0-9]{3}\] .* sched_process_exit: .* pid=$tid " r.txt &&
	tr report -i tg.dat --header -O norecord-tgid >r2.txt &&
	! grep -q TGID r2.txt
'

test_expect_success 'start -O stacktrace: the kernel stack of each event, as the kernel prints it' '
	test -e "$TRACEFS/options/stacktrace" || { say "# no stacktrace option here"; return 0; }
	kernel_vs_tr stacktrace &&
	test_grep "sched_process_exec: filename=/bin/true" k.txt &&
	grep -A2 "sched_process_exec: filename=/bin/true" k.txt >after &&
	test_grep "<stack trace>" after &&
	test_grep -E "^ => [a-z_0-9.]+" after &&
	tr report -i t.dat --header --irq-info | sed "s/^trtest-[^:]*: //" >r.txt &&
	squeeze k.txt >k.sq && squeeze r.txt >r.sq &&
	test_cmp k.sq r.sq
'

test_expect_success 'report under latency-format (and verbose): the kernel lines, its header but the model' '
	for v in "" verbose; do
		kernel_vs_tr latency-format $v &&
		test_grep "^# nop latency trace v1.1.5 on $(uname -r)$" r.txt &&
		sed "s/(M:[^ ]* /(M:unknown /" k.txt >k.lat &&
		test_cmp k.lat r.txt &&
		test_grep "latency-format (its times count from boot" r.err || return 1
	done
'

test_expect_success '-O over the recording: tr report -O nocontext-info,fields, -O raw' '
	kernel_vs_tr &&
	tr report -i t.dat -O nocontext-info -O fields >o.txt &&
	grep -v "^cpus=" o.txt | sed "s/^ *trtest-[^:]*: //" >o.lines &&
	test_grep -E "^sched_process_exec: filename=/bin/true pid=0x[0-9a-f]+ \([0-9]+\) old_pid=0x[0-9a-f]+ \([0-9]+\)$" o.lines &&
	test_grep -x "UNKNOWN TYPE 5" o.lines &&
	test_must_fail grep -vE "^(sched_process_e[a-z]+: [a-z_]+=.* [a-z_]+=.*|UNKNOWN TYPE [0-9]+)$" o.lines &&
	tr report -i t.dat -O raw | sed "s/^trtest-[^:]*: //" >r2.txt &&
	test_grep -E "^[0-9]+ [0-9]+ [0-9]+ type: [0-9]+$" r2.txt &&
	test_expect_code 64 tr report -i t.dat -O bogus 2>err &&
	test_grep "bad trace option .bogus." err &&
	test_expect_code 64 tr report -i t.dat -O raw --format json 2>err &&
	test_expect_code 64 tr report -i t.dat --header --stat 2>err
'

test_expect_success 'report --header of an ordinary recording: the kernel header, then the lines' '
	kernel_vs_tr &&
	head -12 k.txt >k.head && head -12 r.txt >r.head &&
	test_cmp k.head r.head &&
	tr report -i t.dat | head -1 | test_grep "^cpus=" -
'

test_expect_success 'annotate: after an overrun, each CPU after the first records is marked' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	tr start -B $inst -b 4 &&
	for c in 0 1; do
		taskset -c $c sh -c "i=0; while [ \$i -lt 600 ]; do echo ann-\$i; i=\$((i+1)); done" \
			>$TRACEFS/instances/$inst/trace_marker 2>/dev/null || :
	done &&
	tr stop -B $inst &&
	cat $TRACEFS/instances/$inst/trace >k.txt &&
	tr extract -B $inst -q -o t.dat &&
	tr report -i t.dat --header | sed "s/^$inst: //" | grep -v "^CPU:[0-9]* \[LOST" >r.txt &&
	test_cmp k.txt r.txt &&
	if [ $(nproc) -gt 1 ]; then test_grep "^##### CPU [0-9]* buffer started ####$" r.txt; fi
'

test_expect_success 'stream follows the instance options it sets: -O raw, -O nocontext-info' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	for o in raw nocontext-info; do
		( exec "$TR" stream -B $inst -O $o >out.$o 2>err.$o ) &
		pid=$! &&
		for i in $(seq 100); do
			echo stream-kopts >$TRACEFS/instances/$inst/trace_marker
			sleep 0.2
			grep -q stream-kopts out.$o 2>/dev/null && break
		done &&
		kill -INT $pid && test_wait_exit $pid 20 || return 1
	done &&
	test_grep -E "^[0-9]+ [0-9]+ [0-9]+ # [0-9a-f]+ stream-kopts$" out.raw &&
	test_grep -x "tracing_mark_write: stream-kopts" out.nocontext-info &&
	test "$(cat $TRACEFS/instances/$inst/options/raw)" = 0
'

# mask OPTION FILE: the first event line of FILE with what two writes of
# one marker may differ in masked: the time, the irq-info flags (a tick
# between the writes may set need-resched) and latency-format's mark of the
# time to the next record (trace_pipe prints a line before the next comes).
mask() {
	case $1 in
	hex) sed -nE "s/^([0-9a-f]{8} [0-9a-f]{8}) [0-9a-f]{16} /\1 T /p" "$2" ;;
	latency-format) sed -nE "s/^( *[^ ]+-[0-9]+ +[0-9]+)[^ ]+ +[0-9]+us.: /\1 F T: /p" "$2" ;;
	*) sed -nE "s/\] [^ ]+ +[0-9]+\.[0-9]+: /] F T: /p" "$2" ;;
	esac | head -n 1
}

test_expect_success 'stream under hex, fields, record-tgid and latency-format: the kernel'"'"'s marker lines' '
	inst=$(test_instance) && twin=$(test_instance)2 &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst; tr reset -B $twin >/dev/null 2>&1 || :" &&
	for o in hex fields record-tgid latency-format; do
		tr start -B $twin -O $o || return 1
		( exec "$TR" stream -B $inst -O $o >out.$o 2>err.$o ) &
		pid=$!
		# One writer on CPU 0 puts the marker in both instances until
		# the stream has printed two (a latency-format line waits for
		# the next), or 20 s have gone by.
		taskset -c 0 bash -c "for i in \$(seq 100); do
			echo stream-kopts >$TRACEFS/instances/$inst/trace_marker
			echo stream-kopts >$TRACEFS/instances/$twin/trace_marker
			sleep 0.2
			test \$(wc -l <out.$o) -ge 2 && break
		done" &&
		kill -INT $pid && test_wait_exit $pid 20 &&
		cat $TRACEFS/instances/$twin/trace >k.$o &&
		tr reset -B $twin >/dev/null &&
		mask $o k.$o >k.m && mask $o out.$o >s.m &&
		test -s k.m &&
		test_cmp k.m s.m &&
		test_must_be_empty err.$o || return 1
	done &&
	test "$(cat $TRACEFS/instances/$inst/options/hex)" = 0
'

# stream_twin OPTS...: tr stream of one instance and the kernel's trace of
# a twin, both under OPTS, while one writer on CPU 0 puts a marker in each
# (up to 100 times, until the stream has two lines): out and k.  $extra
# goes to tr stream alone.
stream_twin() {
	tr start -B $twin "$@" || return 1
	( exec "$TR" stream -B $inst "$@" $extra >out 2>err ) &
	pid=$!
	taskset -c 0 bash -c "for i in \$(seq 100); do
		echo stream-kopts >$TRACEFS/instances/$inst/trace_marker
		echo stream-kopts >$TRACEFS/instances/$twin/trace_marker
		sleep 0.2
		test \$(grep -c stream-kopts out) -ge 2 && break
	done; :" &&
	kill -INT $pid && test_wait_exit $pid 20 &&
	cat $TRACEFS/instances/$twin/trace >k &&
	tr reset -B $twin >/dev/null &&
	test_must_be_empty err
}

test_expect_success 'stream under verbose, alone and with latency-format, and under bin: the kernel'"'"'s records' '
	inst=$(test_instance) && twin=$(test_instance)2 &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst; tr reset -B $twin >/dev/null 2>&1 || :" &&
	# verbose alone changes no event line (the kernel uses it in the
	# latency layout): tr'"'"'s line with the kernel'"'"'s columns (--irq-info)
	# is the kernel'"'"'s, blanks aside, under the default mask.
	extra=--irq-info &&
	stream_twin -O verbose &&
	extra= &&
	mask verbose k | sed -E "s/ +/ /g" >k.m && mask verbose out | sed -E "s/ +/ /g" >s.m &&
	test -s k.m && test_cmp k.m s.m &&
	# With latency-format: comm, pid, cpu, flags, preempt count, the
	# entry index, [time], the time and the time to the next record.
	# The index counts from where each reader began, the comm may be
	# <...> in one, and trace_pipe prints a line before the next comes:
	# those are masked.
	stream_twin -O latency-format -O verbose &&
	v="s/^ *[^ ]+ +([0-9]+ +[0-9]+ [0-9a-f]+ [0-9a-f]{8}) [0-9a-f]{8} \[[0-9a-f]+\] [0-9]+\.[0-9]{3}ms \(\+[0-9]+\.[0-9]{3}ms\): /\1 I T: /p" &&
	sed -nE "$v" k | head -n 1 >k.m && sed -nE "$v" out | head -n 1 >s.m &&
	test -s k.m && test_cmp k.m s.m &&
	test "$(cat $TRACEFS/instances/$inst/options/verbose)" = 0 &&
	# bin: each record is pid, cpu and time as the kernel stores them,
	# then "type: N"; the kernel has the same records, times aside.
	stream_twin -O bin &&
	python3 - k out <<-\PY
	import struct, sys
	def recs(d):
	    if b"TIMESTAMP" in d:
	        d = d[d.index(b"|\n", d.index(b"TIMESTAMP")) + 2:]
	    out = []
	    while d:
	        pid, cpu, ts = struct.unpack("<iiQ", d[:16])
	        end = d.index(b"\n", 16)
	        assert d[16:22] == b"type: ", d[:40]
	        out.append((pid, cpu, d[16:end]))
	        d = d[end + 1:]
	    return out
	k, s = (recs(open(f, "rb").read()) for f in sys.argv[1:])
	assert len(s) >= 2, s
	assert all(r in k for r in s), (s, k)
	PY
'

# The kernel saves a task's TGID at a switch after an event was written on
# its CPU (while some enabled event has record-tgid: here sched_process_exit),
# so a process that writes a marker and then sleeps has its TGID saved by
# its second marker; trace_pipe prints what is saved as it reads.
test_expect_success 'stream under record-tgid: a process started since it began gets its TGID' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst || return 1
	test_when_finished "rmdir $TRACEFS/instances/$inst"
	( exec "$TR" stream -B $inst -O record-tgid -e sched:sched_process_exit >out 2>err ) &
	pid=$!
	for i in $(seq 40); do
		sh -c "echo tgid-a-\$\$ >$TRACEFS/instances/$inst/trace_marker; sleep 0.5
			echo tgid-b-\$\$ >$TRACEFS/instances/$inst/trace_marker"
		sleep 0.2
		grep -q tgid-b- out && break
	done &&
	kill -INT $pid && test_wait_exit $pid 20 &&
	test_grep -E "^ +[^ ]+-([0-9]+) +\( *\1\) \[[0-9]{3}\] .*: tgid-b-\1$" out &&
	test_must_be_empty err
'

test_done
