#!/bin/bash
# tr hist: the userspace engine (runs on every kernel), the spec checks, and
# clean-up after a run and after SIGINT.
. "$(dirname "$0")/lib.sh"
test_requires events

make_marks_sh

test_expect_success 'userspace engine counts a known generator exactly' '
	inst=$(test_instance) &&
	tr hist --engine user -B $inst -e ftrace:print -k buf -- \
		sh -c "$TEST_TMP/marks.sh $inst 17 alpha; $TEST_TMP/marks.sh $inst 40 beta" >out 2>err &&
	test_grep "ran in userspace: --engine user" err &&
	test_grep -E "^alpha +17$" out &&
	test_grep -E "^beta +40$" out &&
	test_grep -E "^Totals:  Hits: 57  Entries: 2  Dropped: 0$" out &&
	test ! -d $TRACEFS/instances/$inst
'

test_expect_success 'keys by common_pid, sorted, as JSON and CSV' '
	inst=$(test_instance) &&
	tr hist --engine user -B $inst -e ftrace:print -k common_pid.execname,buf \
		-s hitcount.descending --json -- \
		sh -c "$TEST_TMP/marks.sh $inst 5 x; $TEST_TMP/marks.sh $inst 9 y" >out 2>err &&
	test_grep "\"buf\":\"y\",\"hitcount\":9}" out &&
	test_grep "\"common_pid_comm\":\"" out &&
	test_grep "\"totals\":{\"hits\":14,\"entries\":2,\"dropped\":0,\"lost\":0}" out &&
	head -2 out | tail -1 | grep -q "\"hitcount\":9" &&
	tr hist --engine user -B $inst -e ftrace:print -k buf --csv -- \
		$TEST_TMP/marks.sh $inst 3 z >out 2>err &&
	printf "buf,hitcount\nz,3\n" >expect &&
	test_cmp expect out
'

test_expect_success '.sym keys show the address before the symbol, .sym-offset the offset' '
	inst=$(test_instance) &&
	tr hist --engine user -B $inst -e ftrace:print -k ip.sym -- \
		$TEST_TMP/marks.sh $inst 6 s >out 2>err &&
	grep -E "^\[[0-9a-f]{16}\] [A-Za-z_][A-Za-z0-9_.]* +6$" out >line &&
	sym=$(sed "s/^\[[0-9a-f]*\] \([^ ]*\).*/\1/" line) &&
	grep -q " $sym$" /proc/kallsyms &&
	tr hist --engine user -B $inst -e ftrace:print -k ip.sym-offset -- \
		$TEST_TMP/marks.sh $inst 4 s >out 2>err &&
	test_grep -E "^$sym\+0x[0-9a-f]+ +4$" out
'

test_expect_success 'a filter counts only the matching events' '
	cp /bin/true trmk && cp /bin/true trmk2 &&
	printf "filename,hitcount\n$PWD/trmk2,3\n" >expect &&
	tr hist --engine user -e sched:sched_process_exec -k filename --csv \
		-f "filename == \"$PWD/trmk2\"" -- \
		sh -c "$PWD/trmk; $PWD/trmk2; $PWD/trmk; $PWD/trmk2; $PWD/trmk2" >out 2>err &&
	test_cmp expect out
'

test_expect_success 'a full table counts Dropped and says to raise --size' '
	inst=$(test_instance) &&
	tr hist --engine user -B $inst -e ftrace:print -k common_timestamp --size 65 -- \
		$TEST_TMP/marks.sh $inst 300 t >out 2>err &&
	test_grep -E "Entries: 128  Dropped: [1-9]" out &&
	test_grep "raise --size" out
'

test_expect_success 'sched_switch live: counts add up to Hits' '
	tr hist --engine user -e sched:sched_switch -k next_comm,next_pid --vals hitcount,prev_prio \
		--csv -- sleep 0.3 >out 2>err &&
	head -1 out >h && echo "next_comm,next_pid,hitcount,prev_prio" >expect && test_cmp expect h &&
	test $(wc -l <out) -gt 1
'

test_expect_success 'a recorded file gives the same counts (-i)' '
	inst=$(test_instance) &&
	tr record -q -B $inst -e ftrace:print -o t.dat -- \
		sh -c "$TEST_TMP/marks.sh $inst 12 one; $TEST_TMP/marks.sh $inst 30 two" &&
	tr hist -i t.dat -e ftrace:print -k buf -s buf >out 2>err &&
	test_grep "reading .t.dat." err &&
	test_grep -E "^one +12$" out &&
	test_grep -E "^two +30$" out
'

test_expect_success 'bad keys, modifiers and events are refused with the reason' '
	test_expect_code 64 tr hist -e sched:sched_switch -k next_pid.nosuch --duration 1s 2>err &&
	test_grep "unknown modifier .\.nosuch." err &&
	test_expect_code 64 tr hist -e sched_switch -k x 2>err &&
	test_grep "want SYSTEM:EVENT" err &&
	test_expect_code 64 tr hist -e a:b -k x --vals y.log2 2>err &&
	test_grep "applies to keys only" err &&
	test_expect_code 64 tr hist -e a:b 2>err &&
	test_grep "needs keys" err &&
	test_must_fail tr hist --engine user -e sched:sched_switch -k nosuch --duration 1s 2>err &&
	test_grep "no field .nosuch." err &&
	test_must_fail tr hist --engine user -e sched:sched_switch -k common_stacktrace --duration 1s 2>err &&
	test_grep "needs the kernel engine" err
'

test_expect_success 'SIGINT prints the histogram and leaves nothing behind' '
	inst=$(test_instance)
	"$TR" hist --engine user -B $inst -e sched:sched_switch -k next_comm >out 2>err &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null || :" &&
	wait_for 10 file_is $TRACEFS/instances/$inst/events/sched/sched_switch/enable 1 &&
	wait_for 10 reads_pipes $pid &&
	kill -INT $pid &&
	test_wait_exit $pid 10 &&
	test_grep "^Totals:" out &&
	test ! -d $TRACEFS/instances/$inst
'

test_expect_success 'userspace latency: wakeup to switch, with the max and its saved fields' '
	tr hist --engine user --latency --start sched:sched_waking --end sched:sched_switch \
		--match pid=next_pid --onmax lat --save next_comm,prev_pid -- \
		sh -c "for i in 1 2 3 4 5; do sleep 0.02; done" >out 2>err &&
	test_grep "ran in userspace: --engine user" err &&
	test_grep -E "^lat.log2\(us\) +hitcount$" out &&
	test_grep -E "^~ 2\^[0-9]+ +[1-9]" out &&
	test_grep -E "^Max: [0-9]+ us  next_comm: [^ ]+  prev_pid: [0-9]+$" out &&
	! ls $TRACEFS/instances | grep -q "^tr-hist-"
'

test_expect_success 'userspace latency from a recorded file, keyed by an end field' '
	inst=$(test_instance)
	# A spinner keeps the CPU the workload runs on busy, so each wakeup of sleep ends
	# in a switch from the spinner: the host kernel here traces no switch out of idle
	# on its CPU 1, and a workload there left nothing to match (it failed in CI).
	taskset -c 0 timeout 60 sh -c "while :; do :; done" &
	spin=$!
	test_when_finished "kill $spin 2>/dev/null || :; wait $spin 2>/dev/null || :"
	for try in 1 2 3; do
		tr record -q -B $inst -e sched:sched_waking -e sched:sched_switch -o lat.dat -- \
			taskset -c 0 sh -c "for i in 1 2 3 4 5 6 7 8; do sleep 0.02; done" &&
		tr hist -i lat.dat --latency --start sched:sched_waking --end sched:sched_switch \
			--match pid=next_pid -k lat.buckets=1000,next_comm --csv >out 2>err &&
		grep -qE "^[0-9]*0,[0-9]*999,sleep,[1-9]" out && break
	done &&
	test_grep "^lat_min,lat_max,next_comm,hitcount$" out &&
	test_grep -E "^[0-9]*0,[0-9]*999,sleep,[1-9]" out
'

test_expect_success 'latency options are checked' '
	test_expect_code 64 tr hist --latency --start sched:sched_waking 2>err &&
	test_grep "needs --start, --end and --match" err &&
	test_expect_code 64 tr hist --start sched:sched_waking -e a:b -k x 2>err &&
	test_grep "go with --latency" err &&
	test_must_fail tr hist --engine user --latency --start sched:sched_waking \
		--end sched:sched_switch --match pid --duration 1s 2>err &&
	test_grep "bad --match" err
'

test_expect_success '--clock, --debug and a second -e: usage errors naming them' '
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid --clock "Bad!" 2>err &&
	test_grep "bad clock .Bad!." err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid --clock global --engine user 2>err &&
	test_grep -- "--clock is the kernel.s: not with -i or --engine user" err &&
	test_expect_code 64 tr hist show -e sched:sched_switch --clock global 2>err &&
	test_grep -- "--clock goes with a new -e histogram" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid --debug 2>err &&
	test_grep -- "--debug goes with show" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -e sched:sched_wakeup -k pid 2>err &&
	test_grep "one -e per histogram (.sched:sched_switch., then .sched:sched_wakeup.)" err
'

test_expect_success '--define, --define-keys and --name over several -e: errors naming them' '
	test_expect_code 64 tr hist -e sched:sched_switch -k next_pid --define ts0=pid 2>err &&
	test_grep -x "tr: bad --define .ts0=pid.: want SYS:EVENT:VAR=EXPR" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k next_pid \
		--define "sched:sched_waking:t=a:b" 2>err &&
	test_grep "bad character .:. in variable .t=a:b." err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k next_pid --define-keys a:b=pid 2>err &&
	test_grep -- "--define-keys goes with --define" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k next_pid --define a:b:x=pid \
		--define-keys a:c=pid 2>err &&
	test_grep -x "tr: --define-keys .a:c=pid. names an event no --define has" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k next_pid --define a:b:x=pid \
		--engine user 2>err &&
	test_grep -- "--define and several -e are the kernel.s: not with -i or --engine user" err &&
	test_expect_code 64 tr hist show --name x -e sched:sched_switch -e sched:sched_wakeup 2>err &&
	test_grep "show, clear, pause and cont take one -e" err &&
	test_expect_code 64 tr hist --name x -e sched:sched_switch -e sched:sched_wakeup -k common_pid \
		-i nosuch.dat 2>err &&
	test_grep -- "not with -i or --engine user" err
'

# Where the kernel has hist triggers, t0312 (full guest) tests these options;
# here only their refusal without them.  (Read from the caps file, not with
# test_have: run-all counts a file that asks test_have for a capability the
# host lacks as one that needs a guest kernel.)
if grep -qE "^hist +no " "$TR_CAPS_FILE"; then
	test_expect_success 'without hist triggers, --name over several -e says why and sets nothing' '
		test_expect_code 1 tr hist --name x -e sched:sched_process_exec \
			-e sched:sched_process_fork -k common_pid -- true 2>err &&
		test_grep "^tr: --define and several -e need hist triggers: " err &&
		test "$(wc -l <err)" = 1 &&
		! ls $TRACEFS/instances | grep "^tr-hist-"
	'
fi

test_done
