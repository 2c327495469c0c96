#!/bin/bash
# Hist building blocks (VM tier): lasting synthetic events (tr synth), hist
# variables and expressions (-v NAME=EXPR), onmatch().trace() and onchange()
# from the command line, the .stacktrace modifier, the kernel's error_log,
# and that tr reset and tr synth del leave nothing behind.
. "$(dirname "$0")/lib.sh"
test_kernels full
test_requires synthetic
test_requires hist

syn=trsyn$$

no_leftovers() {
	! grep -rls '^hist' $TRACEFS/events/*/*/trigger 2>/dev/null | grep . &&
	! grep "^$syn" $TRACEFS/synthetic_events &&
	! ls $TRACEFS/instances | grep -E '^(tr-hist-|trtest-)'
}

test_expect_success 'synth add makes a lasting event that list marks and del removes' '
	test_when_finished "tr synth del ${syn}a >/dev/null 2>&1 || :" &&
	tr synth add ${syn}a "u64 lat; pid_t pid; char comm[16]" &&
	test_grep -x "${syn}a	u64 lat; pid_t pid; char\[16\] comm" $TRACEFS/synthetic_events &&
	test_grep "field:pid_t pid;" $TRACEFS/events/synthetic/${syn}a/format &&
	tr synth list >out &&
	test_grep -E "^${syn}a	u64 lat; pid_t pid; char\[16\] comm +# made by tr$" out &&
	tr list -e "synthetic:${syn}a" >out &&
	test_grep "synthetic:${syn}a" out &&
	tr synth del ${syn}a &&
	test_must_fail grep -q "^${syn}a" $TRACEFS/synthetic_events &&
	tr synth list >out &&
	test_must_fail grep -q "^${syn}a" out
'

test_expect_success 'tr reset removes the synthetic events tr added' '
	tr synth add ${syn}b "u64 x" &&
	test_grep "^${syn}b" $TRACEFS/synthetic_events &&
	tr reset &&
	test_must_fail grep -q "^${syn}b" $TRACEFS/synthetic_events &&
	no_leftovers
'

test_expect_success 'a type the kernel refuses shows its error_log reason' '
	test_expect_code 1 tr synth add ${syn}c "nosuchtype x" 2>err &&
	test_grep "^tr: cannot add synthetic event .${syn}c nosuchtype x." err &&
	test_grep -i "type" err &&
	test_grep "Command: ${syn}c nosuchtype x" err &&
	test_must_fail grep -q "^${syn}c" $TRACEFS/synthetic_events
'

test_expect_success 'del of a missing one, and of one in use, is named' '
	test_expect_code 1 tr synth del ${syn}nosuch 2>err &&
	test_grep "no synthetic event .${syn}nosuch." err &&
	inst=$(test_instance) &&
	tr synth add ${syn}d "u64 lat" &&
	test_when_finished "tr reset -B $inst || :; tr synth del ${syn}d >/dev/null 2>&1 || :" &&
	tr start -B $inst -e synthetic:${syn}d &&
	test_expect_code 1 tr synth del ${syn}d 2>err &&
	test_grep "cannot remove synthetic event .${syn}d.: it is in use" err &&
	test_grep "^${syn}d" $TRACEFS/synthetic_events
'

test_expect_success 'onmatch().trace() from the command line fills a synthetic event' '
	inst=$(test_instance) &&
	tr synth add ${syn}w "u64 lat; pid_t pid" &&
	test_when_finished "tr reset -B $inst || :; tr synth del ${syn}w >/dev/null 2>&1 || :" &&
	# The same clock as the histogram: restoring another would empty the buffer.
	tr start -B $inst -C global -e synthetic:${syn}w &&
	tr trigger add -B $inst -e sched:sched_waking "hist:keys=pid:ts0=common_timestamp.usecs" &&
	tr hist -B $inst -e sched:sched_switch -k next_pid -v "lat=common_timestamp.usecs-\$ts0" \
		--action "onmatch(sched.sched_waking).trace(${syn}w,\$lat,next_pid)" \
		-- sh -c "sleep 0.1; sleep 0.1; sleep 0.1" >out 2>err &&
	test_grep -E "^Totals:  Hits: [0-9]+" out &&
	tr show -B $inst >trace &&
	test_grep -E " ${syn}w: lat=[0-9]+ pid=[0-9]+$" trace &&
	! grep -q "lat=common_timestamp" $TRACEFS/instances/$inst/events/sched/sched_switch/trigger
'

test_expect_success 'onchange() of a variable saves fields; the table is still read' '
	tr hist -e sched:sched_switch -k prev_pid -v st=prev_state \
		--action "onchange(\$st).save(prev_comm)" -- sh -c "sleep 0.1; sleep 0.1" >out 2>err &&
	test_grep -E "^Totals:  Hits: [1-9][0-9]*  Entries: [1-9]" out &&
	no_leftovers
'

test_expect_success 'variables over the event fields: kernel and userspace tables agree' '
	inst=$(test_instance) &&
	mkdir $TRACEFS/instances/$inst &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	tr hist --engine kernel -B $inst -e sched:sched_process_exec -k filename -s filename \
		-v "x=pid*2,t=common_timestamp.usecs" -- \
		sh -c "for i in 1 2 3; do /bin/true; done" >k &&
	tr hist --engine user -B $inst -e sched:sched_process_exec -k filename -s filename \
		-v "x=pid*2,t=common_timestamp.usecs" -- \
		sh -c "for i in 1 2 3; do /bin/true; done" >u 2>err &&
	grep "^/bin/true " k >k2 && grep "^/bin/true " u >u2 &&
	test_cmp k2 u2 &&
	test_grep -E "^/bin/true +3$" u2
'

# Stack fields of synthetic events came with Linux 6.5 (README's example has one).
if grep -q 'long\[\] stack' $TRACEFS/README; then
	test_expect_success 'the .stacktrace modifier: a histogram of stacks from a synthetic event' '
		inst=$(test_instance) &&
		tr synth add ${syn}s "u64 lat; unsigned long[] stack" &&
		test_when_finished "tr reset -B $inst || :; tr synth del ${syn}s >/dev/null 2>&1 || :" &&
		tr instance create $inst &&
		tr trigger add -B $inst -e sched:sched_waking "hist:keys=pid:ts0=common_timestamp.usecs" &&
		tr trigger add -B $inst -e sched:sched_switch \
			"hist:keys=next_pid:lat=common_timestamp.usecs-\$ts0,st=common_stacktrace:onmatch(sched.sched_waking).trace(${syn}s,\$lat,\$st)" &&
		tr hist -B $inst -e synthetic:${syn}s -k stack.stacktrace --json \
			-- sh -c "sleep 0.1; sleep 0.1; sleep 0.1" >out 2>err &&
		test_grep "\"stack\"" out &&
		test_grep "schedule" out
	'
fi

test_expect_success 'the kernel names a bad variable reference from error_log' '
	test_expect_code 1 tr hist -e sched:sched_switch -k next_pid \
		-v "lat=common_timestamp.usecs-\$nosuchvar" \
		--action "onmatch(sched.sched_waking).trace(nosynth,\$lat)" -- true 2>err &&
	test_grep "Command: hist:keys=next_pid" err &&
	no_leftovers
'

test_done
