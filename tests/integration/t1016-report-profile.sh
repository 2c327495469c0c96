#!/bin/bash
# tr record --profile and tr report --profile: a known workload (a task
# that sleeps 10 times for 20 ms, one that spins) measured against what
# the tasks know of themselves, and against trace-cmd report --profile on
# the same file.
. "$(dirname "$0")/lib.sh"

test_requires events triggers

# The workload: a spinner that reports its pid and its own run time (the
# kernel's sum_exec_runtime, schedstat's first field, in ns) and a sleeper
# that blocks in read -t on a FIFO no one writes, each a task of its own.
cat >"$TEST_TMP/work.sh" <<'EOF'
( i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done
  read -r s _ </proc/$BASHPID/schedstat; echo "$BASHPID $s" >spin.out ) &
( for i in 1 2 3 4 5 6 7 8 9 10; do read -t 0.02 <>fifo; done; echo $BASHPID >sleep.out ) &
wait
EOF

# Our figures as "PID KIND COUNT NS": blocked-STATE, preempted, wake (wake-up to run).
tr_figures() {
	awk 'function ns(v) { sub(/\./, "", v); return v + 0 }
	/^task: / { n = split($2, a, "-"); pid = a[n]; next }
	/^  blocked [A-Za-z|]+ / && $4 == "ms" && $6 == "times" { if ($5 > 0) print pid, "blocked-" $2, $5, ns($3); next }
	/^    preempted / { if ($4 > 0) print pid, "preempted", $4, ns($2); next }
	/^    wake-up to run / { if ($6 > 0) print pid, "wake", $6, ns($4) }' | sort
}

# trace-cmd's: its sched_switch:STATE events (R, and W for the kernel's 0x100
# preemption mark, are preemptions; x and K are the kernel's P and I) and sched_wakeup.
tc_figures() {
	awk '/^task: / { n = split($2, a, "-"); pid = a[n]; next }
	/^  Event: sched_switch:/ {
		s = $2; sub(/^sched_switch:/, "", s); c = $3; gsub(/[()]/, "", c)
		k = (s == "R" || s == "W") ? "preempted" : "blocked-" (s == "x" ? "P" : s == "K" ? "I" : s)
		cnt[pid " " k] += c; tot[pid " " k] += $5; next }
	/^  Event: sched_wakeup[: ]/ { c = $3; gsub(/[()]/, "", c); cnt[pid " wake"] += c; tot[pid " wake"] += $5 }
	END { for (k in cnt) print k, cnt[k], tot[k] }' | sort
}

# within A B PCT: A is within PCT percent of B.
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= b * p) }' ||
	{ echo "$1 is not within $3% of $2" >&2; return 1; }
}

test_expect_success 'record --profile enables the events the profile reads' '
	mkfifo fifo &&
	# A large buffer: raw_syscalls of the whole machine must not overrun it.
	tr record -q --profile -b 16384 -o prof.dat bash work.sh >rec 2>&1 &&
	tr report --stat -i prof.dat >stat &&
	for e in sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter raw_syscalls:sys_exit \
		 ftrace:kernel_stack; do
		test_grep "^  $e " stat || return 1
	done &&
	if [ -d "$TRACEFS/events/exceptions/page_fault_user" ]; then
		test_grep "^  exceptions:page_fault_user " stat
	fi &&
	test_must_fail grep -E "^  (irq|sched:sched_process_exec)" stat &&
	test -s sleep.out && { test -s spin.out || test ! -r /proc/self/schedstat; }
'

test_expect_success 'the sleeper blocked 10 times for 20 ms, at a stack in the scheduler' '
	tr report --profile -i prof.dat >prof &&
	pid=$(cat sleep.out) &&
	sed -n "/^task: .*-$pid\$/,/^task: /p" prof >sleeper &&
	test_grep "^  blocked S  " sleeper &&
	set -- $(grep "^  blocked S  " sleeper) &&
	test "$5" = 10 &&
	# 10 x 20 ms, and more by each timer'"'"'s wake-up latency: under load it was
	# 213 ms (+6.5%) here, so up to 10 ms late each, not 5% in all.
	awk -v t="$3" "BEGIN { exit !(t >= 198 && t <= 300) }" ||
		{ echo "blocked S $3 ms: not within 198..300" >&2; false; } &&
	test_grep "^  blocked S at, [0-9]* times," sleeper &&
	test_grep "^      => .*schedule" sleeper &&
	# The call it slept in (pselect6 or read, as bash has it): 10 times, 200 ms and more
	# (more by the wake-up latency on a busy machine).
	awk "/^    [a-z0-9_]+ +[0-9.]+ ms +10 calls/ && \$2 >= 200 { ok = 1 } END { exit !ok }" sleeper
'

test_expect_success 'the spinner ran as long as the kernel says it did' '
	test -r /proc/self/schedstat || { say "# no /proc/PID/schedstat (CONFIG_SCHED_INFO)"; return 0; }
	set -- $(cat spin.out) &&
	pid=$1 own=$2 &&
	sed -n "/^task: .*-$pid\$/,/^task: /p" prof >spinner &&
	set -- $(grep "^  run  " spinner) &&
	within "${2%.*}${2#*.}" "$own" 5 || { grep -i "lost" stat >&2; cat spinner >&2; false; } &&
	test_must_fail grep "^  blocked " spinner
'

test_expect_success 'trace-cmd report --profile has the same figures for the workload' '
	command -v trace-cmd >/dev/null || { say "# no trace-cmd here"; return 0; }
	pids="$(cut -d" " -f1 spin.out 2>/dev/null) $(cat sleep.out)" &&
	trace-cmd report --profile -i prof.dat 2>/dev/null | tc_figures >tc.all &&
	tr_figures <prof >tr.all &&
	for p in $pids; do grep "^$p " tc.all; done >expect &&
	for p in $pids; do grep "^$p " tr.all; done >actual &&
	test_grep " blocked-S 10 " expect &&
	test_cmp expect actual
'

test_expect_success '--by-comm adds the tasks of one name' '
	tr report --profile --by-comm -i prof.dat >bycomm &&
	test_grep "^comm: bash ([0-9]* tasks)$" bycomm &&
	test_must_fail grep "^task: " bycomm &&
	sed -n "/^comm: bash /,/^comm: /p" bycomm >bash &&
	set -- $(grep "^  blocked S  " bash) &&
	test "$5" -ge 10
'

test_expect_success 'a file without sched_switch, and bad combinations' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exec -o noswitch.dat /bin/true &&
	test_expect_code 1 tr report --profile -i noswitch.dat 2>err &&
	test_grep "no sched_switch events to profile" err &&
	test_expect_code 64 tr report --profile --stat -i prof.dat &&
	test_expect_code 64 tr report --profile --mem -i prof.dat &&
	test_expect_code 64 tr report --profile -i prof.dat -i noswitch.dat &&
	test_expect_code 64 tr report --by-comm -i prof.dat 2>err &&
	test_grep "by-comm goes with --profile" err
'

test_done
