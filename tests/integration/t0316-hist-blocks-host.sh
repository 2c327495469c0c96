#!/bin/bash
# Hist building blocks on any kernel: tr synth's checks and its refusal where
# the kernel has no synthetic events, and what the userspace engine does
# with variables, actions and .stacktrace (takes, or names what it cannot).
# The kernel side is t0315 (VM tier).
. "$(dirname "$0")/lib.sh"
test_kernels full
test_requires events

make_marks_sh

test_expect_success 'synth add: a bad name or field list is a usage error, named' '
	test_expect_code 64 tr synth add 1lat "u64 lat" 2>err &&
	test_grep -x "tr: bad synthetic event name .1lat. (letters, digits and _)" err &&
	test_expect_code 64 tr synth add lat "u64" 2>err &&
	test_grep -x "tr: field .u64. in .u64. needs a type and a name" err &&
	test_expect_code 64 tr synth add lat "u64 a;; u64 b" 2>err &&
	test_grep "empty field" err &&
	test_expect_code 64 tr synth add lat 2>err &&
	test_grep "add needs a name and its fields" err &&
	test_expect_code 64 tr synth list extra 2>err
'

if ! test_have synthetic; then
	test_expect_success 'synth refuses in one line where the kernel has no synthetic events' '
		test_expect_code 1 tr synth add trlat "u64 lat" 2>err &&
		test_grep -x "tr: synthetic is not available on this kernel: .*" err &&
		test $(wc -l <err) = 1 &&
		test_expect_code 1 tr synth list 2>err &&
		test_grep "synthetic is not available" err
	'
fi

test_expect_success 'probe add s: points to tr synth' '
	test_expect_code 1 tr probe add "s:trlat u64 lat" 2>err &&
	test_grep -x "tr: .s:trlat u64 lat. is a synthetic event: tr synth add NAME .FIELDS. makes those" err
'

test_expect_success 'hist: bad variables and actions are usage errors, named' '
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid -v "x=a b" -- true 2>err &&
	test_grep "bad character . . in variable .x=a b." err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid -v "x=a,x=b" -- true 2>err &&
	test_grep "variable .x. defined twice" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid \
		--action "onchange(prev_state).save(prev_comm)" -- true 2>err &&
	test_grep "onchange() tracks a \$variable" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid \
		--action "onmatch(sched_waking).trace(x,\$y)" -- true 2>err &&
	test_grep "onmatch() takes the SYSTEM.EVENT" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid \
		--action "whenever(\$x).save(a)" -- true 2>err &&
	test_grep "bad action .whenever" err &&
	test_expect_code 64 tr hist -e sched:sched_switch -k prev_pid.stacktrace -v x.stacktrace \
		-- true 2>err &&
	test_grep "modifier .\.stacktrace. of .x.stacktrace. applies to keys only" err &&
	test_expect_code 64 tr hist --latency --start a:b --end c:d --match a=b \
		--action "onmax(\$x).save(a)" 2>err &&
	test_grep "\-\-action goes with -e" err
'

test_expect_success 'userspace engine: variables over the event fields leave the table as it is' '
	inst=$(test_instance) &&
	tr hist --engine user -B $inst -e ftrace:print -k buf -v "x=ip*2,t=common_timestamp.usecs" \
		--csv -- sh -c "$TEST_TMP/marks.sh $inst 4 a; $TEST_TMP/marks.sh $inst 2 b" >out 2>err &&
	printf "buf,hitcount\na,4\nb,2\n" >expect &&
	test_cmp expect out &&
	test ! -d $TRACEFS/instances/$inst
'

test_expect_success 'userspace engine names the part it cannot do' '
	inst=$(test_instance) &&
	test_expect_code 1 tr hist --engine user -B $inst -e ftrace:print -k buf \
		-v "lat=common_timestamp.usecs-\$ts0" -- true 2>err &&
	test_grep -x "tr: the userspace engine cannot read .\$ts0. in variable .lat=common_timestamp.usecs-\$ts0.: references to other triggers. variables need the kernel engine" err &&
	test_expect_code 1 tr hist --engine user -B $inst -e ftrace:print -k buf -v "l=ip" \
		--action "onchange(\$l).save(buf)" -- true 2>err &&
	test_grep -x "tr: the userspace engine cannot run actions (.onchange(\$l).save(buf).): they need the kernel.s hist triggers" err &&
	test_expect_code 1 tr hist --engine user -B $inst -e ftrace:print -k ip.stacktrace \
		-- true 2>err &&
	test_grep "ip.stacktrace. needs the kernel engine" err &&
	test_expect_code 1 tr hist --engine user -B $inst -e ftrace:print -k buf -v "y=nosuch" \
		-- true 2>err &&
	test_grep "no field .nosuch. in .ftrace:print." err &&
	test ! -d $TRACEFS/instances/$inst
'

test_done
