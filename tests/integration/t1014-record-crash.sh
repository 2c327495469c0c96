#!/bin/bash
# tr record killed with SIGKILL: what it read up to its last flush is kept
# in FILE.spool, tr restore writes the trace.dat from it (tr report and
# trace-cmd report read it), and nothing recorded more than the flush
# interval before the kill is missing.  The kernel stopped tracing and
# freed the buffer when tr died (free_buffer, disable_on_free); tr stat
# names the leftovers and tr reset removes them.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

test_requires instances events

# Note: a command run in the background is "$TR", not the tr function, so
# that $! is tr itself and SIGKILL reaches it.

# writer CPU MARKER: write "cCPU 1", "cCPU 2"... to MARKER from CPU, in
# batches of 50 with a short rest (about 20k a second: no loss at -b 1408),
# putting the last number written in last.CPU after each batch, until the
# file "run" goes.
writer() {
	taskset -c "$1" bash -c '
		exec 3>>"$2"; i=0
		while [ -e run ]; do
			for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 \
				 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 \
				 41 42 43 44 45 46 47 48 49 50; do
				i=$((i + 1)); echo "c$1 $i" >&3
			done
			echo $i >last.tmp.$1 && mv last.tmp.$1 last.$1
			sleep 0.002
		done' writer "$1" "$2"
}

# check_cpu CPU FILE AT_LEAST: FILE's markers of writer CPU (one number a
# line) run without a gap from the first and reach AT_LEAST.
check_cpu() {
	awk -v cpu="c$1" -v want="$3" '
		$1 == cpu { n++; if (n > 1 && $2 != last + 1) { printf "%s: gap after %d: %d\n", cpu, last, $2; bad = 1 }
			   if (n == 1) first = $2; last = $2 }
		END { if (!n) { print cpu ": no markers"; exit 1 }
		      if (first > want) { printf "%s: starts at %d, after %d\n", cpu, first, want; bad = 1 }
		      if (last < want) { printf "%s: ends at %d, before %d\n", cpu, last, want; bad = 1 }
		      printf "%s: %d..%d, %d markers (want at least up to %d)\n", cpu, first, last, n, want
		      exit bad }' "$2"
}

# spool_has_exit SPOOL PID: SPOOL's pages hold the sched_process_exit of
# task PID: its common_pid, comm[16] and pid fields, PID both ends.
spool_has_exit() {
	python3 - "$@" <<-\PY
	import glob, re, struct, sys
	spool, pid = sys.argv[1], struct.pack("=i", int(sys.argv[2]))
	data = b"".join(open(f, "rb").read() for f in glob.glob(spool + "/**/cpu*.raw", recursive=True))
	sys.exit(0 if re.search(re.escape(pid) + b".{16}" + re.escape(pid), data, re.S) else 1)
	PY
}

# One trial: record, start the writers, wait a random while, note what they
# have written, let the flush interval (1 s) and half a second more pass,
# SIGKILL tr, restore, and check.
trial() {
	local inst=$1 n=$2 pid w0 w1 at0 at1
	rm -f last.* run "k$n.dat"
	touch run
	"$TR" record -q -B "$inst" -b 1408 -e ftrace:print -o "k$n.dat" 2>"err$n" &
	pid=$!
	test_wait_recording "$inst" || return 1
	writer 0 "$TRACEFS/instances/$inst/trace_marker" & w0=$!
	writer 1 "$TRACEFS/instances/$inst/trace_marker" & w1=$!
	sleep "0.$((RANDOM % 9 + 1))"
	while [ ! -e last.0 ] || [ ! -e last.1 ]; do sleep 0.05; done
	at0=$(cat last.0) at1=$(cat last.1)
	sleep 1.5
	kill -9 $pid
	wait $pid 2>/dev/null
	rm -f run
	wait $w0 $w1
	echo "trial $n: killed with c0 past $at0, c1 past $at1"
	if test_have disable_on_free; then
		test "$(cat "$TRACEFS/instances/$inst/tracing_on")" = 0 || return 1
	fi
	size=$(cat "$TRACEFS/instances/$inst/buffer_size_kb") &&
	test "${size%% *}" -lt 1408 &&
	tr stat >/dev/null 2>orphans$n &&
	test_grep "left set up by a tr that died (pid $pid, instance '$inst'): 'tr reset' puts it back" \
		orphans$n &&
	tr reset -B "$inst" &&
	test ! -d "$TRACEFS/instances/$inst" &&
	tr stat >/dev/null 2>orphans$n.after &&
	test_must_be_empty orphans$n.after &&
	test -d "k$n.dat.spool" &&
	test ! -s "k$n.dat" &&
	marks_tr "k$n.dat" >direct$n &&
	tr report -i "k$n.dat" 2>&1 >/dev/null | tee report$n &&
	test_grep "'k$n.dat' is a recording that ended abruptly: reading 'k$n.dat.spool' ('tr restore k$n.dat' writes the file)" \
		report$n &&
	test -d "k$n.dat.spool" && test ! -s "k$n.dat" &&
	tr restore "k$n.dat" 2>restore$n &&
	test_grep "restored 'k$n.dat' from 'k$n.dat.spool'" restore$n &&
	test ! -e "k$n.dat.spool" &&
	marks_tr "k$n.dat" >marks$n &&
	test_cmp marks$n direct$n &&
	check_cpu 0 marks$n "$at0" &&
	check_cpu 1 marks$n "$at1" &&
	tr report -i "k$n.dat" --stat >stat$n &&
	test_grep "recorded by: .*restored by tr restore: the recording ended abruptly" stat$n &&
	if command -v trace-cmd >/dev/null; then
		marks_tc "k$n.dat" >tc$n &&
		test_cmp marks$n tc$n
	fi
}

test_expect_success 'SIGKILL at random moments: every marker up to the last flush is restored, the kernel stopped tracing, tr reset cleans up' '
	test "$(nproc)" -ge 2 &&
	for n in 1 2 3 4 5; do
		inst=$(test_instance)-$n &&
		test_when_finished "tr reset -B $inst 2>/dev/null || :" &&
		trial "$inst" $n || return 1
	done
'

test_expect_success 'a clean end leaves no spool behind' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e ftrace:print -o clean.dat \
		sh -c "echo one >$TRACEFS/instances/$inst/trace_marker" &&
	test -s clean.dat &&
	test ! -e clean.dat.spool &&
	marks_tr clean.dat >actual &&
	echo one >expect &&
	test_cmp expect actual
'

test_expect_success 'a dead recording'"'"'s spool is never overwritten' '
	mkdir busy.dat.spool &&
	echo 999999999 >busy.dat.spool/owner &&
	inst=$(test_instance) &&
	test_must_fail tr record -q -B "$inst" -e ftrace:print -o busy.dat true 2>err &&
	test_grep "holds an unfinished recording; run .tr restore busy.dat." err &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'tr restore: a missing spool, and bad arguments' '
	test_must_fail tr restore nosuch.dat 2>err &&
	test_grep "cannot restore from .nosuch.dat.spool.: No such file or directory" err &&
	test_expect_code 64 tr restore 2>err &&
	test_grep "nothing to restore" err &&
	test_expect_code 64 tr restore a.dat -i x 2>err &&
	test_grep "not both" err
'

test_expect_success 'tr restore -i SPOOL -o FILE, in version 6' '
	inst=$(test_instance)
	"$TR" record -q -B "$inst" -e ftrace:print -o s.dat 2>err &
	pid=$! &&
	test_wait_recording "$inst" &&
	echo "before the kill" >"$TRACEFS/instances/$inst/trace_marker" &&
	# The flush (every second) that writes it.
	wait_for 10 spool_has_pages s.dat.spool &&
	kill -9 $pid && { wait $pid 2>/dev/null || :; } &&
	tr reset -B "$inst" &&
	mv s.dat.spool elsewhere &&
	tr restore -q --file-version 6 -i elsewhere -o other.dat &&
	test ! -e elsewhere &&
	head -c 11 other.dat | tail -c 1 >v && echo 6 | head -c 1 >expect && test_cmp expect v &&
	marks_tr other.dat >actual &&
	echo "before the kill" >expect &&
	test_cmp expect actual
'

# tr record reads /proc/kallsyms once tracing is on, not before (it is most
# of its start-up), into the spool's kallsyms file beside meta.dat; until then
# the spool's kallsyms.boot names the boot, whose /proc/kallsyms tr restore takes.
ksyms_size() {
	"$TR" dump -i "$1" | awk '$NF == "kallsyms" && $(NF - 1) == "-" { print $2 }'
}

test_expect_success 'the spool gets the kernel symbols once tracing is on: its kallsyms file has them, kallsyms.boot goes' '
	inst=$(test_instance)
	"$TR" record -q -B "$inst" -e ftrace:print -o later.dat 2>err &
	pid=$! &&
	test_when_finished "kill $pid 2>/dev/null || :" &&
	test_wait_recording "$inst" &&
	for i in $(seq 100); do
		test -e later.dat.spool/kallsyms.boot || break
		sleep 0.1
	done &&
	test ! -e later.dat.spool/kallsyms.boot &&
	test "$(wc -c <later.dat.spool/kallsyms)" -gt 10000 &&
	echo after >"$TRACEFS/instances/$inst/trace_marker" &&
	kill -INT $pid && wait $pid &&
	marks_tr later.dat >actual &&
	echo after >expect &&
	test_cmp expect actual
'

test_expect_success 'killed before it kept the kernel symbols: restore takes this boot'"'"'s, and after a restart says they are lost' '
	inst=$(test_instance) &&
	TR_DELAY_KALLSYMS=60000 test_kill_recording "$inst" early.dat &&
	test -s early.dat.spool/kallsyms.boot &&
	test "$(ksyms_size early.dat.spool/meta.dat)" -lt 100 &&
	test ! -e early.dat.spool/kallsyms &&
	cp -r early.dat.spool rebooted.dat.spool &&
	echo 00000000-0000-0000-0000-000000000000 >rebooted.dat.spool/kallsyms.boot &&
	tr restore early.dat 2>err &&
	test_grep "tr died before it kept the kernel.s symbols: .early.dat. has this boot.s, the recording.s boot" err &&
	marks_tr early.dat >actual &&
	echo "before the kill" >expect &&
	test_cmp expect actual &&
	tr restore -q rebooted.dat 2>err &&
	test_grep "^tr: warning: .rebooted.dat. has no kernel symbols: tr died before it kept them, and the machine has restarted since" err &&
	tr report -i rebooted.dat >text &&
	test_grep "before the kill" text &&
	! grep tracing_mark_write text
'

test_expect_success 'killed under -O record-tgid: the restored file has the kernel'"'"'s TGIDs (a thread prints its process)' '
	inst=$(test_instance)
	"$TR" record -q -B "$inst" -O record-tgid -e sched:sched_process_exit -o tg.dat 2>err &
	pid=$! &&
	test_when_finished "kill -9 $pid 2>/dev/null || :; wait $pid 2>/dev/null || :; tr reset -B $inst 2>/dev/null || :" &&
	test_wait_recording "$inst" &&
	python3 -c "import os, threading
t = threading.Thread(target=lambda: print(threading.get_native_id(), os.getpid()))
t.start(); t.join()" >ids &&
	read tid tgid <ids && test "$tid" != "$tgid" &&
	# The flush that saw the thread, and the one that wrote its exit.
	wait_for 10 grep -qx "$tid $tgid" tg.dat.spool/tgids &&
	wait_for 10 spool_has_exit tg.dat.spool $tid &&
	kill -9 $pid && { wait $pid 2>/dev/null || :; } &&
	tr reset -B "$inst" &&
	tr restore -q tg.dat &&
	tr report -i tg.dat --header 2>r.err | sed "s/^$inst: //" >r.txt &&
	test_must_be_empty r.err &&
	test_grep "TASK-PID       TGID    CPU#" r.txt &&
	test_grep -E "^ +[^ ]+-$tid +\( *$tgid\) \[[0-9]{3}\] .* sched_process_exit: .* pid=$tid " r.txt
'

# A --rotate recording killed while a full part was being written out (the
# spool's cpuN.rot, and FILE.rotating), made from a killed recording's
# spool: the windows are too short to hit with a kill.
test_expect_success 'killed mid --rotate: a part still in the spool is restored before the last, a cut copy goes' '
	inst=$(test_instance) &&
	{ "$TR" record -q -B "$inst" -e ftrace:print --flush-interval 100ms -o rot.dat 2>err & } &&
	pid=$! &&
	test_when_finished "kill -9 $pid 2>/dev/null || :; tr reset -B $inst 2>/dev/null || :" &&
	test_wait_recording "$inst" &&
	taskset -c 0 sh -c "for i in \$(seq 1 3000); do echo \"m \$i\"; done" \
		>"$TRACEFS/instances/$inst/trace_marker" &&
	for i in $(seq 100); do
		grep -aqs "m 3000" rot.dat.spool/cpu0.raw && break
		sleep 0.1
	done &&
	kill -9 $pid && { wait $pid 2>/dev/null || :; } &&
	tr reset -B "$inst" &&
	marks_tr rot.dat >expect &&
	test $(wc -l <expect) = 3000 &&
	page=$(tr report --stat -i rot.dat | sed -n "s/.*page size \([0-9]*\)).*/\1/p") &&
	size=$(stat -c %s rot.dat.spool/cpu0.raw) &&
	half=$((size / page / 2 * page)) &&
	test $half -gt 0 &&
	# The first half of CPU 0 is the part not yet written out.
	head -c $half rot.dat.spool/cpu0.raw >rot.dat.spool/cpu0.rot &&
	tail -c +$((half + 1)) rot.dat.spool/cpu0.raw >rest &&
	mv rest rot.dat.spool/cpu0.raw &&
	echo "cut short" >rot.dat.rotating &&
	marks_tr rot.dat >direct &&
	test_cmp expect direct &&
	tr restore rot.dat 2>restore &&
	test_grep "also holds the part that was to become .rot.dat.1." restore &&
	test ! -e rot.dat.rotating && test ! -e rot.dat.1 && test ! -e rot.dat.spool &&
	marks_tr rot.dat >actual &&
	test_cmp expect actual
'

test_expect_success 'killed mid --rotate: a part written out whole but not yet named becomes FILE.1' '
	inst=$(test_instance) &&
	test_kill_recording "$inst" b.dat &&
	tr restore -q b.dat &&
	mv b.dat whole.dat &&
	test_kill_recording "$inst" b.dat &&
	cp whole.dat b.dat.rotating &&
	echo "an older part" >b.dat.1 &&
	tr restore b.dat 2>restore &&
	test_grep "finished .b.dat.1., the part being written out when tr died" restore &&
	test ! -e b.dat.rotating &&
	cmp whole.dat b.dat.1 &&
	echo "an older part" >expect && test_cmp expect b.dat.2 &&
	marks_tr b.dat >actual &&
	echo "before the kill" >expect && test_cmp expect actual
'

test_expect_success 'tr restore -i SPOOL -o FILE of a killed --rotate recording: its parts are finished where the spool still is, left where it was moved' '
	inst=$(test_instance) &&
	test_kill_recording "$inst" c.dat &&
	tr restore -q c.dat &&
	mv c.dat whole.dat &&
	test_kill_recording "$inst" c.dat &&
	cp whole.dat c.dat.rotating &&
	tr restore -i c.dat.spool -o other.dat 2>restore &&
	test_grep "finished .c.dat.1., the part being written out when tr died" restore &&
	test ! -e c.dat.rotating && test ! -e c.dat.spool && test ! -e other.dat.1 &&
	cmp whole.dat c.dat.1 &&
	marks_tr other.dat >actual &&
	echo "before the kill" >expect && test_cmp expect actual &&
	# Moved: the recording FILE.rotating is left alone.
	test_kill_recording "$inst" d.dat &&
	cp whole.dat d.dat.rotating &&
	mv d.dat.spool moved &&
	tr restore -i moved -o moved.dat 2>restore &&
	! grep finished restore &&
	test ! -e moved && cmp whole.dat d.dat.rotating && test ! -e d.dat.1 &&
	marks_tr moved.dat >actual && test_cmp expect actual &&
	# A part still in the moved spool goes into the file, named as it can be.
	test_kill_recording "$inst" e.dat &&
	for f in e.dat.spool/cpu*.raw; do
		test -s "$f" || continue
		cp "$f" "${f%.raw}.rot" || return 1
	done &&
	mv e.dat.spool moved &&
	tr restore -i moved -o rot.dat 2>restore &&
	test_grep "also holds the part that was to become the recording.s newest rotated part" restore &&
	marks_tr rot.dat >actual &&
	printf "before the kill\nbefore the kill\n" >expect && test_cmp expect actual
'

test_done
