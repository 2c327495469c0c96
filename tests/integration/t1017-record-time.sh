#!/bin/bash
# tr record --date and --ts-offset: what the file says about its time, as
# tr report and trace-cmd report read it.
. "$(dirname "$0")/lib.sh"

test_requires events instances

# The timestamps of a report, one a line.
stamps() { grep -oE " [0-9]+\.[0-9]{6}: " | tr -d ' :'; }

# The file's timestamps as trace-cmd prints them, if it is here.
tc_stamps() {
	command -v trace-cmd >/dev/null || { say "# no trace-cmd here"; return 1; }
	trace-cmd report -i "$1" 2>/dev/null | stamps
}

test_expect_success '--date: the times are seconds since the epoch, in tr and trace-cmd' '
	inst=$(test_instance) &&
	before=$(date +%s) &&
	tr record -q --date -B "$inst" -e sched:sched_process_exec -o date.dat sh -c "/bin/true" &&
	after=$(date +%s) &&
	tr report -i date.dat | stamps >tr.ts &&
	test -s tr.ts &&
	first=$(head -1 tr.ts) &&
	test "${first%.*}" -ge "$before" && test "${first%.*}" -le "$after" &&
	if tc_stamps date.dat >tc.ts; then test_cmp tr.ts tc.ts; fi
'

test_expect_success '--ts-offset: every time moves by the offset' '
	inst=$(test_instance) &&
	# The boot clock is /proc/uptime'"'"'s: every event comes after this reading.
	up=$(cut -d" " -f1 /proc/uptime) &&
	tr record -q --ts-offset 1000000000000 -B "$inst" -C boot -e sched:sched_process_exec \
		-o off.dat sh -c "/bin/true" &&
	tr report -i off.dat | stamps >tr.ts &&
	first=$(head -1 tr.ts) &&
	awk -v t="$first" -v u="$up" "BEGIN { d = t - 1000 - u; exit !(d >= 0 && d < 5) }" &&
	tr report --stat -i off.dat >stat &&
	test_grep "^time offset: *1000000000000 ns" stat &&
	tr record -q --ts-offset -1 -B "$inst" -C boot -e sched:sched_process_exec \
		-o neg.dat /bin/true &&
	tr report --stat -i neg.dat >stat &&
	test_grep "^time offset: *-1 ns" stat
'

test_expect_success '--ts-offset: trace-cmd report reads the same times' '
	inst=$(test_instance) &&
	tr record -q --ts-offset 1000000000000 -B "$inst" -e sched:sched_process_exec \
		-o offl.dat sh -c "/bin/true" &&
	tr report -i offl.dat | stamps >tr.ts &&
	test -s tr.ts &&
	if tc_stamps offl.dat >tc.ts; then test_cmp tr.ts tc.ts; fi
'

test_expect_success '--date with a clock that counts no nanoseconds stores no date' '
	inst=$(test_instance) &&
	tr record -q --date -B "$inst" -C counter -e sched:sched_process_exec -o cnt.dat \
		/bin/true 2>err &&
	test_grep "no date stored" err &&
	tr report --stat -i cnt.dat >stat &&
	test_must_fail grep "^options:.* date" stat
'

test_expect_success 'bad offsets and --date with --ts-offset are usage errors' '
	test_expect_code 64 tr record --ts-offset 12abc -e sched -o x.dat /bin/true 2>err &&
	test_grep "bad time offset .12abc." err &&
	test_expect_code 64 tr record --date --ts-offset 5 -e sched -o x.dat /bin/true 2>err &&
	test_grep "exclude each other" err &&
	test ! -e x.dat
'

test_done
