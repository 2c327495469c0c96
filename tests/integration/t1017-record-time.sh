#!/bin/bash
# tr record --date and --ts-offset: what the file says about its time, as
# tr report and trace-cmd report read it.
. "$(dirname "$0")/lib.sh"

test_requires events instances

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

# offset_of FILE: the time offset tr report --stat gives (DATE or OFFSET), in ns.
offset_of() { tr report --stat -i "$1" | sed -n "s/^time offset: *\(-*[0-9]*\) ns$/\1/p"; }

test_expect_success '--date survives a SIGKILL: the restored file has the dates of a clean recording, in tr and trace-cmd' '
	inst=$(test_instance) &&
	tr record -q --date -B "$inst" -e sched:sched_process_exec -o clean.dat /bin/true &&
	before=$(date +%s) &&
	test_kill_recording "$inst" kd.dat --date &&
	after=$(date +%s) &&
	tr report -i kd.dat 2>/dev/null | stamps >spool.ts &&
	tr restore kd.dat 2>/dev/null &&
	tr report -i kd.dat | stamps >tr.ts &&
	test $(wc -l <tr.ts) = 1 &&
	test_cmp spool.ts tr.ts &&
	first=$(head -1 tr.ts) &&
	test "${first%.*}" -ge "$before" && test "${first%.*}" -le "$after" &&
	tr report --stat -i kd.dat >stat &&
	test_grep "^options:.* date" stat &&
	test_grep "restored by tr restore" stat &&
	# The same wall clock less trace clock as the clean file (the two drift apart by ppm).
	a=$(offset_of clean.dat) && b=$(offset_of kd.dat) && test -n "$a" && test -n "$b" &&
	awk -v a="$a" -v b="$b" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 50000000) }" &&
	if tc_stamps kd.dat >tc.ts; then test_cmp tr.ts tc.ts; fi
'

test_expect_success '--ts-offset survives a SIGKILL: the restored file moves every time by it, in tr and trace-cmd' '
	inst=$(test_instance) &&
	up=$(cut -d" " -f1 /proc/uptime) &&
	test_kill_recording "$inst" kb.dat --ts-offset 1000000000000 -C boot &&
	tr restore kb.dat 2>/dev/null &&
	tr report -i kb.dat | stamps >tr.ts &&
	test $(wc -l <tr.ts) = 1 &&
	first=$(head -1 tr.ts) &&
	awk -v t="$first" -v u="$up" "BEGIN { d = t - 1000 - u; exit !(d >= 0 && d < 30) }" &&
	test "$(offset_of kb.dat)" = 1000000000000 &&
	# trace-cmd prints the boot clock as a count: the local clock for it.
	test_kill_recording "$inst" ko.dat --ts-offset 1000000000000 &&
	tr restore ko.dat 2>/dev/null &&
	test "$(offset_of ko.dat)" = 1000000000000 &&
	tr report -i ko.dat | stamps >tr.ts &&
	test $(wc -l <tr.ts) = 1 &&
	if tc_stamps ko.dat >tc.ts; then test_cmp tr.ts tc.ts; fi
'

test_done
