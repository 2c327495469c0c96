#!/bin/bash
# tr agent in a QEMU guest, tr record -A on this host: the file boots the
# Debian 6.1 guest itself (tests/vm/run --hostfwd: QEMU's user-mode network,
# host ports on 127.0.0.1 forwarded to the guest's), runs tr agent --tcp and
# a round-trip server (pingpong.py) there, and records host and guest at
# once.  Both files hold their markers, tr report merges them, and the
# clock sync passes the causality check: the host marks "send I", sends a
# line to the guest, which marks "recv I" and answers, and the host marks
# "reply I"; over 100 round trips every guest mark lies between its send
# and reply on the merged timeline.  The measured offset's spread and the
# margins are printed as comment lines.  Runs on the host, in the
# host-guest tier (after make check has prepared the guest kernels);
# skipped (with the reason) without qemu or the cached Debian kernel.  Every
# wait is bounded; the guest is stopped by pid at the end.
. "$(dirname "$0")/lib.sh"
test_boots_guest

test_requires instances events

cache=${XDG_CACHE_HOME:-$HOME/.cache}/tr
pp=$TEST_ROOT/tests/integration/pingpong.py
vm_skip=
if [ -n "${TR_VM:-}" ]; then
	vm_skip="boots its own guest: runs on the host tier"
elif ! command -v qemu-system-x86_64 >/dev/null; then
	vm_skip="no qemu-system-x86_64 (tests/vm/deps installs it)"
elif ! ls "$cache"/debian-*/modules/virtio_net.ko >/dev/null 2>&1; then
	# Never fetched here: a download has no place in a test.
	vm_skip="no cached Debian guest kernel with virtio_net (tests/vm/fetch-debian-kernel)"
fi

# A free range of 10 ports on 127.0.0.1: the agent's (P), its CPUs' and the
# clock sync's (the next free ones above P: P+1.. in a fresh guest), and
# the round-trip server's (P+8).
free_base() {
	python3 - <<-\EOF
	import random, socket
	for _ in range(50):
	    p = random.randrange(20000, 60000)
	    try:
	        ss = []
	        for q in range(p, p + 10):
	            s = socket.socket()
	            s.bind(("127.0.0.1", q))
	            ss.append(s)
	        print(p)
	        break
	    except OSError:
	        pass
	    finally:
	        for s in ss:
	            s.close()
	EOF
}

# The guest's job: the round-trip server and tr agent (its log on stderr,
# which tests/vm/run carries here); when the server is told to end, the
# agent is stopped and its status is the job's.
guest_job='P=$1 AG=$2 PP=$3
for n in /sys/class/net/*; do [ "${n##*/}" != lo ] && nic=${n##*/}; done
[ -n "${nic:-}" ] || { echo "guest: no NIC"; exit 3; }
python3 "$PP" serve $((P + 8)) /sys/kernel/tracing &
pp=$!
"$TR" agent --tcp -p $P --bind 0.0.0.0 --allow 10.0.2.2/32 --instance "$AG" &
ag=$!
wait $pp
kill $ag
wait $ag'

VMPID= P= AG=trtest-vm-$$
vm_stop() {
	[ -n "$VMPID" ] || return 0
	kill "$VMPID" 2>/dev/null
	# tests/vm/run ends QEMU on TERM; bounded all the same.
	for i in $(seq 100); do kill -0 "$VMPID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$VMPID" 2>/dev/null
	wait "$VMPID" 2>/dev/null
	VMPID=
}
trap 'vm_stop; rm -rf "$TEST_TMP"' EXIT

if [ -z "$vm_skip" ]; then
	P=$(free_base)
	(cd "$TEST_ROOT" && TR_VM_TIMEOUT=600 exec tests/vm/run --kernel debian \
		--hostfwd $P-$((P + 9)) -- bash -c "$guest_job" _ $P $AG "$pp") \
		>"$TEST_TMP/vm.log" 2>&1 </dev/null &
	VMPID=$!
fi

# wait_vm PATTERN: up to 240 s (a TCG boot on a busy machine) for a line of the guest's output.
wait_vm() {
	local i
	for i in $(seq 2400); do
		grep -q -- "$1" "$TEST_TMP/vm.log" && return 0
		kill -0 "$VMPID" 2>/dev/null || break
		sleep 0.1
	done
	echo "wait_vm: no '$1' from the guest:" >&2
	cat "$TEST_TMP/vm.log" >&2
	return 1
}

if [ -z "$vm_skip" ]; then
	wait_vm "pingpong ready\|guest: no NIC" >/dev/null 2>&1
	grep -q "guest: no NIC" "$TEST_TMP/vm.log" &&
		vm_skip="the guest has no NIC (its kernel lacks virtio_net)"
fi
if [ -n "$vm_skip" ]; then
	vm_stop
	test_skip_all=$vm_skip
fi

test_expect_success 'the guest is up: tr agent on its NIC, the round-trip server' '
	wait_vm "listening on 0.0.0.0 port $P$" &&
	wait_vm "pingpong ready" &&
	# QEMU forwards from 127.0.0.1 only: no other machine reaches the guest
	for p in $P $((P + 8)); do
		hex=$(printf "%04X" $p) &&
		grep -q "0100007F:$hex 00000000:0000 0A" /proc/net/tcp &&
		test_must_fail grep -q "00000000:$hex 00000000:0000 0A" /proc/net/tcp || exit 1
	done
'

# causal_order REPORT N MIN: REPORT's markers read "host send I", "guest
# recv I" (if there), "host reply I" for I = 1..N in turn, with at least MIN recvs.
causal_order() {
	local i
	sed -n "s/.*: \(host send\|guest recv\|host reply\) \([0-9]*\)$/\1 \2/p" "$1" >order &&
	for i in $(seq 1 "$2"); do
		echo "host send $i"
		grep -qx "guest recv $i" order && echo "guest recv $i"
		echo "host reply $i"
	done >expect.order &&
	test_cmp expect.order order &&
	test "$(grep -c "^guest recv" order)" -ge "$3"
}

marks() {
	"$TR" report -i "$1" | sed -n 's/^.*\] *[0-9.]*: tracing_mark_write: //p'
}

test_expect_success 'tr record -A: host and guest recorded, merged by tr report' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	host=$(test_instance) &&
	timeout -k 5 180 "$TR" record -B "$host" -e sched:sched_process_exit \
		-A vm@127.0.0.1:$P --tsync-interval 100 \
		sh -c "python3 \"\$0\" ping \"\$@\" 2>ping.err; echo \$? >ping.rc" \
		"$pp" $((P + 8)) 100 "$TRACEFS/instances/$host/trace_marker" 10 "$AG" \
		2>summary &&
	# The round trips ran whole (else the marks below say little).
	{ test "$(cat ping.rc)" = 0 || { cat ping.err summary; false; }; } &&
	test_grep "^guest vm: wrote .trace-vm.dat. (.*clock offset [-+][0-9]* ns ([0-9]* measurements, spread [0-9]* ns)" summary &&
	test ! -d "$TRACEFS/instances/$host" &&
	for i in $(seq 1 100); do echo "host send $i"; echo "host reply $i"; done >expect.host &&
	marks trace.dat >actual.host && test_cmp expect.host actual.host &&
	seq 1 100 | sed "s/^/guest recv /" >expect.guest &&
	marks trace-vm.dat >actual.guest && test_cmp expect.guest actual.guest &&
	"$TR" report -t -i trace.dat -i trace-vm.dat >merged &&
	test_grep -q "^# trace-vm.dat: clock moved to trace.dat.s (guest .vm.)" merged &&
	test_grep -q "^ *trace-vm.dat: .*: guest recv 100$" merged &&
	test_grep -q "^ *$host: .*: host reply 100$" merged &&
	cp summary merged "$TEST_TMP/"
'

# The merged timeline, marker by marker: "send I", "recv I", "reply I" for
# each I in turn; with the times, the margins on either side of each recv.
test_expect_success 'causality: each guest recv between its host send and reply, 100 round trips' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	test -s "$TEST_TMP/merged" &&
	sed -n "s/.* \([0-9]*\)\.\([0-9]\{9\}\): .*: \(host send\|guest recv\|host reply\) \([0-9]*\)$/\3 \4 \1\2/p" \
		"$TEST_TMP/merged" >seq &&
	causal_order "$TEST_TMP/merged" 100 100 &&
	awk "\$2 == \"send\" { s = \$4 } \$2 == \"recv\" { r = \$4 }
	     \$2 == \"reply\" { a = r - s; b = \$4 - r;
		if (n == 0 || a < mina) mina = a; if (n == 0 || b < minb) minb = b; n++ }
	     END { printf \"%d round trips, least margin send->recv %d ns, recv->reply %d ns\n\", n, mina, minb }" \
		seq >"$TEST_TMP/margins" &&
	cat "$TEST_TMP/margins"
'
if [ -s "$TEST_TMP/summary" ]; then
	say "# $TEST_FILE: $(sed -n 's/^guest vm: .*\(clock offset .*\)$/\1/p' "$TEST_TMP/summary")"
fi
[ -s "$TEST_TMP/margins" ] && say "# $TEST_FILE: $(cat "$TEST_TMP/margins")"

# Told to end, the guest stops its agent (TERM: status 0) and powers off.
vm_rc=
if [ -n "$VMPID" ] && [ -z "$test_skip_all" ]; then
	python3 "$pp" quit $((P + 8)) 2>>"$TEST_TMP/vm.log"
	for i in $(seq 1200); do kill -0 "$VMPID" 2>/dev/null || break; sleep 0.1; done
	if ! kill -0 "$VMPID" 2>/dev/null; then
		wait "$VMPID"
		vm_rc=$?
		VMPID=
	fi
fi
test_expect_success 'the guest ends cleanly: the agent stopped by TERM exits 0' '
	test "$vm_rc" = 0 || { echo "guest: status ${vm_rc:-(still running)}"; cat vm.log; exit 1; } &&
	test_must_fail grep -E "Sanitizer|runtime error" vm.log &&
	test_grep "ended: [0-9]* bytes of events sent" vm.log
'

test_done
