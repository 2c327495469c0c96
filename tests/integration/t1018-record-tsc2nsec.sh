#!/bin/bash
# tr record --tsc2nsec: where the kernel hands user space the TSC's
# conversion (the full guest: its clocksource is the TSC), the file holds
# x86-tsc counts and trace-cmd's TSC2NSEC option, and both reports print
# the same nanosecond times; where it does not (this host: perf's
# cap_user_time is 0), one line says so, before anything is changed.
. "$(dirname "$0")/lib.sh"
test_kernels full

test_requires events instances

# Whether this kernel gives the conversion, as the test knows it: the full
# guest does while its TSC is the clocksource (an emulated TSC can be
# marked unstable under load, and the kernel moves off it); elsewhere tr's
# answer is taken, and its refusal is checked for what it must say and leave.
expect_tsc() {
	[ "$(uname -n)" = tr-vm ] && uname -r | grep -q '^6\.12\.' &&
	[ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" = tsc ]
}

test_expect_success '--tsc2nsec: nanoseconds from TSC counts, as trace-cmd reads them, or one line why not' '
	inst=$(test_instance) &&
	up=$(cut -d" " -f1 /proc/uptime) &&
	rc=0 &&
	tr record -q --tsc2nsec -B "$inst" -e sched:sched_process_exec -o tsc.dat \
		sh -c "/bin/true; /bin/true" 2>err || rc=$? &&
	if [ $rc = 0 ]; then
		tr report --stat -i tsc.dat >stat &&
		test_grep "x86-tsc" stat &&
		tr report -i tsc.dat | stamps >tr.ts &&
		test $(wc -l <tr.ts) -ge 2 &&
		# The TSC counts from the machine'"'"'s start, as uptime does.
		first=$(head -1 tr.ts) &&
		awk -v t="$first" -v u="$up" "BEGIN { d = t - u; exit !(d > -30 && d < 30) }" &&
		if command -v trace-cmd >/dev/null; then
			trace-cmd report -i tsc.dat 2>/dev/null | stamps >tc.ts &&
			test_cmp tr.ts tc.ts
		fi
	else
		! expect_tsc &&
		test $rc = 1 &&
		test $(wc -l <err) = 1 &&
		test_grep "cannot convert the TSC to nanoseconds" err &&
		test ! -e tsc.dat && test ! -d "$TRACEFS/instances/$inst"
	fi
'

test_expect_success '--tsc2nsec survives a SIGKILL and goes through -N: tr restore'"'"'s and tr listen'"'"'s files convert as trace-cmd does' '
	inst=$(test_instance) &&
	rc=0 &&
	tr record -q --tsc2nsec -B "$inst" -e sched:sched_process_exec -o probe.dat /bin/true \
		2>err || rc=$? &&
	if [ $rc = 0 ]; then
		test_kill_recording "$inst" k.dat --tsc2nsec &&
		tr restore k.dat 2>/dev/null &&
		tr report --stat -i k.dat >stat &&
		test_grep "x86-tsc" stat && test_grep "^options:.* tsc2nsec" stat &&
		tr report -i k.dat | stamps >tr.ts &&
		test $(wc -l <tr.ts) = 1 &&
		up=$(cut -d" " -f1 /proc/uptime) &&
		awk -v t="$(head -1 tr.ts)" -v u="$up" "BEGIN { d = t - u; exit !(d > -30 && d < 30) }" &&
		mkdir out &&
		{ "$TR" listen -p 0 -d out 2>l.log & } &&
		lpid=$! &&
		test_when_finished "kill $lpid 2>/dev/null; wait $lpid 2>/dev/null || :" &&
		for i in $(seq 100); do
			port=$(sed -n "s/.*listening on .* port \([0-9]*\)$/\1/p" l.log)
			[ -n "$port" ] && break; sleep 0.1
		done &&
		test -n "$port" &&
		tr record -q --tsc2nsec -B "$inst" -e sched:sched_process_exec -N 127.0.0.1:$port \
			sh -c "/bin/true; /bin/true" &&
		for i in $(seq 100); do
			grep -q "ended: wrote" l.log && break; sleep 0.1
		done &&
		f=$(echo out/*.dat) && test -f "$f" &&
		tr report --stat -i "$f" >stat &&
		test_grep "x86-tsc" stat && test_grep "^options:.* tsc2nsec" stat &&
		tr report -i "$f" | stamps >net.ts &&
		test $(wc -l <net.ts) -ge 2 &&
		if command -v trace-cmd >/dev/null; then
			trace-cmd report -i k.dat 2>/dev/null | stamps >tc.ts &&
			test_cmp tr.ts tc.ts &&
			trace-cmd report -i "$f" 2>/dev/null | stamps >tc.net &&
			test_cmp net.ts tc.net
		fi
	else
		! expect_tsc && test $rc = 1 && test_grep "cannot convert the TSC" err
	fi
'

test_expect_success '--tsc2nsec with another clock or -A: usage errors' '
	test_expect_code 64 tr record --tsc2nsec -C mono -e sched:sched_switch -o x.dat true 2>err &&
	test_grep "no -C mono" err &&
	test_expect_code 64 tr record --tsc2nsec -e sched:sched_switch -A g@127.0.0.1:9 \
		-e sched:sched_switch -o x.dat true 2>err &&
	test_grep "no -A" err &&
	test ! -e x.dat
'

test_done
