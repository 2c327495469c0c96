#!/bin/bash
# Hist controls by their effect in the kernel (VM tier): --clock (clock=,
# the instance's trace_clock while the histogram runs, put back after),
# enable_hist/disable_hist triggers turning a paused histogram on and off,
# onchange().snapshot() and onmax().snapshot() kept in the snapshot buffer
# for tr show --snapshot,
# and tr hist show --debug as the kernel's hist_debug text.
. "$(dirname "$0")/lib.sh"
test_kernels full
test_requires hist instances events

hits() { sed -nE "s/^Totals: +Hits: ([0-9]+) .*/\1/p" "$1"; }

test_expect_success '--clock counter: clock= in the trigger, trace_clock while it runs, put back' '
	inst=$(test_instance) && own_instance $inst &&
	cat $(I $inst)/trace_clock >before &&
	tr hist -B $inst --engine kernel -e sched:sched_process_exec -k pid -v t=common_timestamp \
		--clock counter -- sh -c "cat $(I $inst)/events/sched/sched_process_exec/trigger >trig;
			cat $(I $inst)/trace_clock >during; /bin/true" >out &&
	test_grep -E "^hist:.*:clock=counter" trig &&
	test_grep "\[counter\]" during &&
	test_grep -E "^Totals:" out &&
	cat $(I $inst)/trace_clock >after &&
	test_cmp before after &&
	test_must_fail grep -q "^hist" $(I $inst)/events/sched/sched_process_exec/trigger
'

test_expect_success 'a clock the kernel does not have is refused with its reason' '
	inst=$(test_instance) && own_instance $inst &&
	test_expect_code 1 tr hist -B $inst -e sched:sched_process_exec -k pid \
		-v t=common_timestamp --clock nosuchclock -- true 2>err &&
	test_grep "refused the histogram" err &&
	test_must_fail grep -q "^hist" $(I $inst)/events/sched/sched_process_exec/trigger
'

test_expect_success 'enable_hist and disable_hist: a paused histogram turned on and off' '
	inst=$(test_instance) && own_instance $inst &&
	E=$(I $inst)/events/sched/sched_process_exec &&
	tr trigger add -B $inst -e sched:sched_process_exec "hist:keys=common_pid:pause" &&
	test_grep "\[paused\]" $E/trigger &&
	/bin/true &&
	tr hist show -B $inst -e sched:sched_process_exec >out0 &&
	test "$(hits out0)" = 0 &&
	tr trigger add -B $inst -e ftrace:print "enable_hist:sched:sched_process_exec:1" &&
	echo on >$(I $inst)/trace_marker &&
	test_grep "\[active\]" $E/trigger &&
	/bin/true &&
	tr hist show -B $inst -e sched:sched_process_exec >out1 &&
	test "$(hits out1)" -ge 1 &&
	tr trigger del -B $inst -e ftrace:print "enable_hist:sched:sched_process_exec" &&
	tr trigger add -B $inst -e ftrace:print "disable_hist:sched:sched_process_exec" &&
	echo off >$(I $inst)/trace_marker &&
	test_grep "\[paused\]" $E/trigger &&
	tr hist show -B $inst -e sched:sched_process_exec >out2 &&
	/bin/true && /bin/true &&
	tr hist show -B $inst -e sched:sched_process_exec >out3 &&
	test "$(hits out3)" = "$(hits out2)"
'

if test_have snapshot; then
	test_expect_success 'onchange().snapshot(): the snapshot taken while the histogram runs' '
		inst=$(test_instance) && own_instance $inst &&
		tr start -B $inst -e sched:sched_process_exec &&
		tr hist -B $inst -e sched:sched_process_exec -k common_pid -v t=common_timestamp \
			--action "onchange(\$t).snapshot()" -- sh -c "/bin/true; /bin/echo >/dev/null;
				cat $(I $inst)/snapshot >during" >out &&
		test_grep -E "sched_process_exec: filename=/bin/(true|echo)" during
	'

	# Without common_timestamp: a histogram that uses it switches trace_clock,
	# and putting the clock back at exit empties the buffers, snapshot too.
	test_expect_success 'onchange().snapshot(): tr show --snapshot prints it after the run' '
		inst=$(test_instance) && own_instance $inst &&
		tr start -B $inst -e sched:sched_process_exec &&
		tr hist -B $inst -e sched:sched_process_exec -k common_pid -v p=pid \
			--action "onchange(\$p).snapshot()" -- sh -c "/bin/true; /bin/echo >/dev/null" >out &&
		tr show -B $inst --snapshot >snap &&
		test_grep -E "sched_process_exec: filename=/bin/(true|echo)" snap
	'

	# Each exec is a new task with a higher pid: a new maximum, a snapshot.
	test_expect_success 'onmax().snapshot(): tr show --snapshot holds the event of the max' '
		inst=$(test_instance) && own_instance $inst &&
		tr start -B $inst -e sched:sched_process_exec &&
		tr hist -B $inst -e sched:sched_process_exec -k common_pid -v p=pid \
			--action "onmax(\$p).snapshot()" -- sh -c "/bin/true; /bin/echo >/dev/null;
				cat $(I $inst)/events/sched/sched_process_exec/trigger >trig;
				cat $(I $inst)/events/sched/sched_process_exec/hist >during" >out &&
		test_grep -E "^hist:keys=common_pid:vals=hitcount:p=pid:.*:onmax\(\\\$p\)\.snapshot\(\)" trig &&
		test_grep -E "triggering value \{ onmax\(.?p\) \}: +[0-9]+" during &&
		max=$(sed -nE "s/^Max: ([0-9]+)$/\1/p" out) && test -n "$max" &&
		tr show -B $inst --snapshot >snap &&
		test_grep -E "sched_process_exec: filename=[^ ]+ pid=$max old_pid=$max$" snap &&
		test_must_fail grep -q "^hist" $(I $inst)/events/sched/sched_process_exec/trigger
	'
else
	test_skip 'onchange().snapshot(): the snapshot taken while the histogram runs' 'no snapshot'
	test_skip 'onchange().snapshot(): tr show --snapshot prints it after the run' 'no snapshot'
	test_skip 'onmax().snapshot(): tr show --snapshot holds the event of the max' 'no snapshot'
fi

test_expect_success 'hist show --debug is the kernel'"'"'s hist_debug, or says it has none' '
	inst=$(test_instance) && own_instance $inst &&
	E=$(I $inst)/events/sched/sched_process_exec &&
	tr trigger add -B $inst -e sched:sched_process_exec "hist:keys=pid" &&
	if [ -e $E/hist_debug ]; then
		tr hist show -B $inst -e sched:sched_process_exec --debug >out &&
		cat $E/hist_debug >expect &&
		test_cmp expect out &&
		test_grep "hist_data" out
	else
		test_expect_code 1 tr hist show -B $inst -e sched:sched_process_exec --debug 2>err &&
		test_grep "this kernel has no hist_debug files (CONFIG_HIST_TRIGGERS_DEBUG is off)" err &&
		test "$(wc -l <err)" = 1
	fi
'

test_done
