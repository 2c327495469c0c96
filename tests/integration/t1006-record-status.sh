#!/bin/bash
# tr record's status line: at a terminal, one line redrawn twice a second
# (elapsed, events/s, MB written, losses), erased before the summary; never
# with -q, never on a stderr that is not a terminal.
. "$(dirname "$0")/lib.sh"

test_requires instances events
command -v script >/dev/null || test_skip_all="no script(1) to give tr a terminal"

# Run tr record at a pseudo-terminal (script(1)); its output to ./tty.out.
at_tty() {
	script -qec "$*" /dev/null >tty.out 2>&1 </dev/null
}

test_expect_success 'at a terminal the status line is drawn, redrawn and erased' '
	inst=$(test_instance) &&
	at_tty "\"$TR\" record -B $inst -e sched:sched_switch -o t.dat sleep 1.3" &&
	tr -d "\r" <tty.out | sed "s/\x1b\[K/<EL>/g" >out &&
	cat out &&
	test_grep -E "^[0-9.]+ s, [0-9]+ events/s, [0-9.]+ MB written<EL>" out &&
	test $(grep -o "events/s" out | wc -l) -ge 2 &&
	test_grep "<EL><EL> *CPU" out &&
	test_grep "wrote .t.dat." out &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'the status line counts every buffer of the recording (-B ... -B ...)' '
	inst=$(test_instance) &&
	# 40 markers, one each 50 ms: less than a page, so the readers take
	# none before the end; the status counts what the kernel wrote.
	printf "for i in \$(seq 40); do echo m\$i >$TRACEFS/instances/${inst}b/trace_marker; sleep 0.05; done\n" >marks &&
	# The first buffer takes an event that hardly ever comes; the second the markers.
	at_tty "\"$TR\" record -B ${inst}a -e sched:sched_kthread_stop -B ${inst}b -e ftrace:print -o two.dat sh ./marks" &&
	tr -d "\r" <tty.out | sed "s/\x1b\[K/<EL>/g" >out &&
	grep -oE "[0-9.]+ s, [0-9]+ events/s, [0-9.]+ MB written<EL>" out >st &&
	test_grep -E "^[0-9.]+ s, [1-9][0-9]* events/s" st &&
	test_grep -E "^buffer ${inst}b: 40 events" out
'

test_expect_success 'with -q at a terminal there is no status line' '
	inst=$(test_instance) &&
	at_tty "\"$TR\" record -q -B $inst -e sched:sched_switch -o q.dat sleep 0.8" &&
	test_must_be_empty tty.out
'

test_expect_success 'a stderr that is not a terminal gets the summary alone' '
	inst=$(test_instance) &&
	tr record -B "$inst" -e sched:sched_switch -o f.dat sleep 0.8 2>err &&
	test_grep "wrote .f.dat." err &&
	! grep -q "events/s" err &&
	! grep -q "$(printf "\r")" err
'

test_done
