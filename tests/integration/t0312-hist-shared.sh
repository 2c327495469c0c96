#!/bin/bash
# Histograms over several events (VM tier): --name with several -e (one
# histogram the kernel shares between the events, hits from each summed),
# and --define SYS:EV:VAR=EXPR (variables on another event, matched by key),
# run through the hist design document's examples: the wakeup latency with
# onmax().save(), the field variable of another event (prio) and the alias
# (woken_pid=$waking_pid).  Each checked against what the kernel itself
# shows (hist and trigger files read during the run, the events in the
# trace), and that every trigger tr set is gone after, on error and SIGINT too.
. "$(dirname "$0")/lib.sh"
test_kernels full
test_requires hist instances events

syn=trsh$$
# No hist trigger left on the instance's events.
no_hist() {
	! grep -ls '^hist' "$(I "$1")"/events/*/*/trigger | grep .
}
# Hitcount of key value $2 in a kernel hist file $1 ("{ common_pid: N } hitcount: M").
khits() { sed -nE "s/^\{ common_pid: +$2 \} hitcount: +([0-9]+).*/\1/p" "$1"; }

test_expect_success '--name: two events share one histogram, hits from both summed' '
	inst=$(test_instance) && own_instance $inst &&
	X=$(I $inst)/events/sched/sched_process_exec F=$(I $inst)/events/sched/sched_process_fork &&
	cat >work.sh <<-EOF &&
	echo \$\$ >pid
	sh -c "echo \\\$\\\$ >cpid; exec /bin/true"
	/bin/true
	/bin/true
	cat $X/trigger $F/trigger >trig
	cat $X/hist >hx
	cat $F/hist >hf
	echo
	EOF
	tr hist -B $inst --name ${syn}n -e sched:sched_process_exec -e sched:sched_process_fork \
		-k common_pid --csv -- sh work.sh >out &&
	p=$(cat pid) c=$(cat cpid) &&
	test "$(grep -cE "^hist:(name=)?${syn}n:keys=common_pid" trig)" = 2 &&
	# The shell: its own exec, then a fork per command; each file read after one more fork.
	test "$(khits hx $p)" = 6 &&
	test "$(khits hf $p)" = 7 &&
	test_grep -x "common_pid,hitcount" out &&
	test_grep -x "$p,7" out &&
	# The child: its two execs (sh, then true); its fork is counted on the parent.
	test "$(khits hf $c)" = 2 &&
	test_grep -x "$c,2" out &&
	no_hist $inst
'

test_expect_success 'without --name a second -e is a usage error' '
	test_expect_code 64 tr hist -e sched:sched_process_exec -e sched:sched_process_fork \
		-k common_pid -- true 2>err &&
	test_grep "one -e per histogram (.sched:sched_process_exec., then .sched:sched_process_fork.)" err
'

# The first event's trigger is in when the second is refused: it comes off.
test_expect_success '--name over an event without the key: refused, nothing left' '
	inst=$(test_instance) && own_instance $inst &&
	test_expect_code 1 tr hist -B $inst --name ${syn}m -e sched:sched_process_exec \
		-e sched:sched_process_fork -k pid -- true 2>err &&
	test_grep "^tr: the kernel refused the histogram .hist:keys=pid.*name=${syn}m. on .sched:sched_process_fork." err &&
	no_hist $inst
'

test_expect_success '--define: the wakeup latency of the design document, onmax().save()' '
	inst=$(test_instance) && own_instance $inst &&
	W=$(I $inst)/events/sched/sched_waking &&
	tr hist -B $inst -e sched:sched_switch -k next_pid \
		-v "wakeup_lat=common_timestamp.usecs-\$ts0" \
		--define sched:sched_waking:ts0=common_timestamp.usecs \
		--define-keys sched:sched_waking=pid \
		--action "onmax(\$wakeup_lat).save(next_comm,prev_pid,prev_prio,prev_comm)" \
		-- sh -c "sleep 0.1; sleep 0.1; sleep 0.1; cat $W/trigger >wtrig; cat $W/hist >whist" >out &&
	test_grep -E "^hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048:clock=global \[active\]" wtrig &&
	# The kernel keeps ts0 per waking pid: a sleep that woke is an entry there.
	test_grep -E "^\{ pid: +[0-9]+ \} hitcount: +[1-9]" whist &&
	test_grep -E "^Max: [0-9]+  next_comm: [^ ]+  prev_pid: [0-9]+  prev_prio: [0-9]+  prev_comm: " out &&
	no_hist $inst
'

# The synthetic event the kernel fills from onmatch(); kept out of every
# instance but ours, removed after (the instance first: it uses the event).
synth_setup() {
	tr synth add "$1" "$2" &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; tr synth del $1 >/dev/null 2>&1 || :" &&
	# The clock the histograms use: restoring another would empty the buffer.
	tr start -B $inst -C global -e sched:sched_waking -e sched:sched_switch -e "synthetic:$1"
}

test_expect_success 'the prio example: a field of the other event (a kernel-made histogram)' '
	inst=$(test_instance) &&
	synth_setup ${syn}p "u64 lat; pid_t pid; int prio" &&
	W=$(I $inst)/events/sched/sched_waking &&
	tr hist -B $inst -e sched:sched_switch -k next_pid \
		-v "wakeup_lat=common_timestamp.usecs-\$ts0" \
		--define sched:sched_waking:ts0=common_timestamp.usecs \
		--define-keys sched:sched_waking=pid \
		--action "onmatch(sched.sched_waking).${syn}p(\$wakeup_lat,next_pid,prio)" \
		-- sh -c "sleep 0.1; sleep 0.1; sleep 0.1; cat $W/trigger >wtrig" >out &&
	tr stop -B $inst &&
	# Two histograms on sched_waking: ours (ts0) and the one the kernel made for prio.
	test_grep -E "^hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs:" wtrig &&
	test_grep -E "^hist:keys=pid:vals=hitcount:synthetic_prio=prio:" wtrig &&
	tr show -B $inst >trace &&
	# Each one carries the prio sched_waking showed for that pid (one pass: TCG is slow).
	sed -nE "s/.* sched_waking: comm=.* (pid=[0-9]+ prio=[0-9]+) .*/\1/p" trace | sort -u >w &&
	sed -nE "s/.* ${syn}p: lat=[0-9]+ (pid=[0-9]+ prio=[0-9]+)$/\1/p" trace | sort -u >syn &&
	test_grep -E "^pid=[0-9]+ prio=120$" syn &&
	comm -23 syn w >missing &&
	test_must_be_empty missing &&
	no_hist $inst
'

test_expect_success 'the alias example: woken_pid=$waking_pid into a synthetic event' '
	inst=$(test_instance) &&
	synth_setup ${syn}a "u64 lat; pid_t pid; char comm[16]" &&
	tr hist -B $inst -e sched:sched_switch -k next_pid \
		-v "woken_pid=\$waking_pid,wakeup_lat=common_timestamp.usecs-\$ts0" \
		--define sched:sched_waking:waking_pid=pid \
		--define sched:sched_waking:ts0=common_timestamp.usecs \
		--define-keys sched:sched_waking=pid \
		--action "onmatch(sched.sched_waking).${syn}a(\$wakeup_lat,\$woken_pid,next_comm)" \
		-- sh -c "cat $(I $inst)/events/sched/sched_switch/trigger >strig;
			sleep 0.1; sleep 0.1; sleep 0.1" >out &&
	tr stop -B $inst &&
	test_grep -E "^hist:keys=next_pid:vals=hitcount:woken_pid=\\\$waking_pid,wakeup_lat=common_timestamp.usecs-\\\$ts0:" strig &&
	tr show -B $inst >trace &&
	# The woken pid is the pid switched in: its sched_switch names the same task.
	sed -nE "s/.*==> next_comm=(.*) next_pid=([0-9]+) next_prio=.*/\2 \1/p" trace | sort -u >w &&
	sed -nE "s/.* ${syn}a: lat=[0-9]+ pid=([0-9]+) comm=(.*)$/\1 \2/p" trace | sort -u >syn &&
	test_grep -E "^[0-9]+ sleep$" syn &&
	comm -23 syn w >missing &&
	test_must_be_empty missing &&
	no_hist $inst
'

test_expect_success 'an unknown event in --define: named, exit 1, nothing left' '
	inst=$(test_instance) && own_instance $inst &&
	test_expect_code 1 tr hist -B $inst -e sched:sched_switch -k next_pid \
		--define sched:nosuch:ts0=common_timestamp.usecs -- true 2>err &&
	test_grep "sched:nosuch" err &&
	test "$(wc -l <err)" = 1 &&
	no_hist $inst
'

test_expect_success 'a bad variable: the kernel reason, nothing left' '
	inst=$(test_instance) && own_instance $inst &&
	test_expect_code 1 tr hist -B $inst -e sched:sched_switch -k next_pid \
		--define sched:sched_waking:ts0=nosuchfield --define-keys sched:sched_waking=pid \
		-- true 2>err &&
	test_grep "^tr: the kernel refused the histogram .hist:keys=pid:ts0=nosuchfield. on .sched:sched_waking." err &&
	no_hist $inst
'

test_expect_success 'a reference the histogram cannot resolve: the variables come off too' '
	inst=$(test_instance) && own_instance $inst &&
	test_expect_code 1 tr hist -B $inst -e sched:sched_switch -k next_pid \
		-v "lat=common_timestamp.usecs-\$nosuch" \
		--define sched:sched_waking:ts0=common_timestamp.usecs \
		--define-keys sched:sched_waking=pid -- true 2>err &&
	test_grep "on .sched:sched_switch." err &&
	no_hist $inst
'

test_expect_success 'a bad --define is a usage error, before anything is set' '
	test_expect_code 64 tr hist -e sched:sched_switch -k next_pid --define ts0=pid -- true 2>err &&
	test_grep -x "tr: bad --define .ts0=pid.: want SYS:EVENT:VAR=EXPR" err
'

test_expect_success 'SIGINT: the histogram and the other event'"'"'s variables removed' '
	inst=$(test_instance) && own_instance $inst &&
	W=$(I $inst)/events/sched/sched_waking &&
	# Braces: a bare & would put the whole list, inst= too, in the background.
	{ "$TR" hist -B $inst -e sched:sched_switch -k next_pid \
		-v "lat=common_timestamp.usecs-\$ts0" \
		--define sched:sched_waking:ts0=common_timestamp.usecs \
		--define-keys sched:sched_waking=pid >out 2>err & } &&
	pid=$! &&
	test_when_finished "kill -9 $pid 2>/dev/null || :" &&
	for i in $(seq 100); do
		grep -qs "^hist" $(I $inst)/events/sched/sched_switch/trigger && break
		sleep 0.1
	done &&
	test_grep "^hist:keys=pid" $W/trigger &&
	kill -INT $pid &&
	test_wait_exit $pid 20 &&
	test_grep "^Totals:" out &&
	no_hist $inst
'

test_done
