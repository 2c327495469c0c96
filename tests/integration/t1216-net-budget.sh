#!/bin/bash
# tr listen's budgets for all its clients together, and tr record -A's for
# a guest: --max-total ends a client that would pass it and refuses one
# when nothing is left, --min-free refuses a client while the directory is
# short of space, a full disk keeps the client's file up to what was
# written, received files are 0600, one client's file being written holds
# up no other client, a writer out of memory ends only its client's file,
# a guest that announces too many CPUs or too much
# metadata is refused, and tr agent out of descriptors does not spin.  The
# peers are netpeer.py sending a recording made here and agentpeer.py (a
# host, or an agent); loopback only; the disk is a small tmpfs the test
# mounts; every wait is bounded; each server is stopped by its pid.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
# Host only: tr talks to tr over loopback here, nothing of the guest's kernel or
# its trace-cmd is involved, and the Debian guest is the VM tier's longest path.

test_requires instances events

peer=$TEST_ROOT/tests/integration/netpeer.py

# meta_bytes FILE: the size of a v6 file's metadata (what netpeer sends first).
meta_bytes() {
	python3 -c "import sys; print(open(sys.argv[1], 'rb').read().index(b'flyrecord\0'))" "$1"
}

# temp_past PID BYTES: the listener's temp files (unlinked) hold more than BYTES.
temp_past() {
	local t=0 f
	for f in /proc/$1/fd/*; do
		case $(readlink "$f") in
		*"(deleted)") t=$((t + $(stat -L -c %s "$f"))) ;;
		esac
	done
	[ "$t" -gt "$2" ]
}

# The peers send a file the listener wrote (its metadata names no buffer
# of an instance, which needs its own data).
# paced PORT BYTES FLAGS OUT: netpeer.py's pages in the background (FLAGS p
# and maybe h), its lines into OUT, its stdin the fifo OUT.in held open on
# fd 8; once its metadata is all in the listener's temp file, the pages go
# (charged after the metadata, as a recorder's come).  Sets PPID_.
paced() {
	mkfifo "$4.in" &&
	{ python3 "$peer" "$1" "pages:$TEST_TMP/w.dat:$2:$3" <"$4.in" >"$4" & } &&
	PPID_=$! && exec 8>"$4.in" &&
	wait_log "^meta" 1 "$4" &&
	wait_for 10 temp_past $NET_PID $((M - 1)) &&
	echo go >&8
}

test_expect_success 'a v6 recording for the peers to send' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	net_start l.log ".*" "$TR" listen -p 0 -d out --file-version 6 &&
	test_when_finished "net_stop $NET_PID" &&
	inst=$(test_instance) &&
	tr record -q -B "$inst" -b 64 -e sched:sched_process_exit -N 127.0.0.1:$NET_PORT \
		sh -c "$write_marks" _ "$inst" 2000 w &&
	wait_log "ended: wrote" 1 l.log &&
	mv out/*.dat "$TEST_TMP/w.dat" &&
	M=$(meta_bytes "$TEST_TMP/w.dat") && test "$M" -gt 0 &&
	echo "$M" >"$TEST_TMP/meta" &&
	net_ends $NET_PID l.log
'
M=$(cat "$TEST_TMP/meta" 2>/dev/null || echo 0)

test_expect_success '--min-free: a client is refused with one line while DIR is short of space' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	net_start l.log ".*" "$TR" listen -p 0 -d out --min-free 1000000000G &&
	test_when_finished "net_stop $NET_PID" &&
	python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:65536 >/dev/null 2>&1 || : &&
	wait_log "refused: only [0-9]* MB free in '"'"'out'"'"' (--min-free)" 1 l.log &&
	test_must_fail grep connected l.log &&
	test -z "$(ls out)" &&
	net_ends $NET_PID l.log
'

test_expect_success '--max-total: a client that would pass it is ended, its file keeps what came, 0600' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	# Room for the metadata, counted 4 times, and about 4 MB of pages, twice.
	net_start l.log ".*" "$TR" listen -p 0 -d out --file-version 6 --min-free 0 \
		--max-total $(( (4 * M + 2 * 4 * 1048576) / 1024 ))k &&
	test_when_finished "net_stop $NET_PID" &&
	test_when_finished "exec 8>&-; wait \$PPID_ || :" &&
	paced $NET_PORT $((16 * 1048576)) p p1.out && exec 8>&- &&
	test_wait_exit $PPID_ 30 &&
	wait_log "ended early (over --max-total): wrote" 1 l.log &&
	test_grep -c "max-total" l.log >n && echo 1 >one && test_cmp one n &&
	f=$(echo out/*.dat) && test -f "$f" &&
	test "$(stat -c %a "$f")" = 600 &&
	size=$(stat -c %s "$f") &&
	test "$size" -gt $((M + 3 * 1048576)) && test "$size" -lt $((M + 5 * 1048576)) &&
	"$TR" report -i "$f" >/dev/null &&
	net_ends $NET_PID l.log
'

test_expect_success '--max-total: a client is refused while the others hold it, served once they end' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	# The first client holds all but 512 KiB: less than a client needs.
	net_start l.log ".*" "$TR" listen -p 0 -d out --min-free 0 \
		--max-total $(( (4 * M + 2 * 4 * 1048576) / 1024 + 512 ))k &&
	test_when_finished "net_stop $NET_PID" &&
	test_when_finished "exec 8>&-; wait \$PPID_ || :" &&
	paced $NET_PORT $((4 * 1048576)) ph p1.out &&
	wait_log "^sent" 1 p1.out &&
	# Charged as it is read: once the temp files hold it all.
	wait_for 10 temp_past $NET_PID $((M + 4 * 1048576 - 1)) &&
	python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:65536 >/dev/null 2>&1 || : &&
	wait_log "refused: the clients being received hold [0-9]* MB of --max-total" 1 l.log &&
	exec 8>&- && test_wait_exit $PPID_ 30 &&
	wait_log "ended: wrote" 1 l.log &&
	python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:65536 >/dev/null &&
	wait_log "ended: wrote" 2 l.log &&
	test $(ls out | wc -l) = 2 &&
	net_ends $NET_PID l.log
'

test_expect_success 'a full disk keeps the client'"'"'s file up to what was written, named in the log' '
	d=$(mktemp -d -p "$TEST_TMP") && cd "$d" && mkdir out &&
	# The temp files (metadata and 16 MB of pages) fit; the file written from
	# them (version 6, as large) does not, about halfway through its pages.
	mount -t tmpfs -o size=$(( (2 * M + 24 * 1048576) / 1024 ))k tmpfs out &&
	test_when_finished "umount $d/out" &&
	net_start l.log ".*" "$TR" listen -p 0 -d out --file-version 6 --min-free 0 &&
	test_when_finished "net_stop $NET_PID" &&
	python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:$((16 * 1048576)) >/dev/null &&
	wait_log "ended" 1 l.log &&
	f=$(echo out/*.dat) && test -f "$f" &&
	test_grep "ended: kept a partial file '"'"'${f#out/}'"'"': No space left on device" l.log &&
	test "$(stat -c %s "$f")" -gt "$M" &&
	test "$(stat -c %a "$f")" = 600 &&
	# Once the file is closed the listener serves on (another client is taken).
	python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:65536 >/dev/null 2>&1 || : &&
	wait_log "ended" 2 l.log &&
	net_ends $NET_PID l.log
'

test_expect_success 'a second client'"'"'s file is written while the first one'"'"'s is' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	# The first file the listener writes waits 20 s once created (a slow disk).
	net_start l.log ".*" env TR_DELAY_LISTEN_WRITE=20000 \
		"$TR" listen -p 0 -d out --min-free 0 --max-per-host 8 &&
	test_when_finished "net_stop $NET_PID" &&
	{ python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:$((4 * 1048576)) >/dev/null 2>&1 & } &&
	p1=$! && test_when_finished "kill $p1 2>/dev/null || :; wait $p1 || :" &&
	wait_for 10 eval "ls out/*.dat" &&
	first=$(echo out/*.dat) &&
	python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:65536 >/dev/null &&
	wait_log "ended: wrote" 1 l.log &&
	test_must_fail grep -F "${first#out/}" l.log &&
	test $(ls out | wc -l) = 2 &&
	# A stop ends the wait, and the file is written.
	kill -INT $NET_PID && wait_for 10 pid_gone $NET_PID &&
	wait $NET_PID &&
	test_grep "wrote '"'"'${first#out/}'"'"'" l.log &&
	test_must_fail grep -E "Sanitizer|runtime error" l.log
'

test_expect_success 'a writer out of memory ends that client'"'"'s file with one line; the listener serves on' '
	cd "$(mktemp -d -p "$TEST_TMP")" && mkdir out &&
	# The writer child may use 32 MB more than it starts with (the plain
	# build: its address space); under ASan, no allocation over 32 MB
	# succeeds.  The first client'"'"'s metadata carries 64 MB of cmdlines.
	net_start l.log ".*" env TR_WRITER_MEM_MB=32 \
		ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=1:max_allocation_size_mb=32" \
		"$TR" listen -p 0 -d out --min-free 0 &&
	test_when_finished "net_stop $NET_PID" &&
	python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:65536:c64 >/dev/null &&
	wait_log "ended" 1 l.log &&
	test_grep -E ": ended, no file: .*(out of memory|Cannot allocate memory)" l.log &&
	test $(grep -c ": ended" l.log) = 1 &&
	test_must_fail grep /proc/self l.log &&
	python3 "$peer" $NET_PORT pages:$TEST_TMP/w.dat:65536 >/dev/null &&
	wait_log "ended: wrote" 1 l.log &&
	test $(ls out | wc -l) = 1 &&
	tr report -i out/*.dat >/dev/null &&
	kill $NET_PID && wait $NET_PID &&
	# ASan says each allocation it refused; nothing else may be its.
	test -z "$(grep -v "WARNING: AddressSanitizer failed to allocate" l.log |
		grep -E "Sanitizer|runtime error")"
'

# fake_agent CPUS BYTES OUT: agentpeer.py as an agent announcing CPUS CPUs
# and BYTES of metadata, in the background; sets FPID and FPORT.
fake_agent() {
	python3 "$TEST_ROOT/tests/integration/agentpeer.py" 0 "agent:$1:$2" >"$3" &
	FPID=$!
	wait_log "^port" 1 "$3" && FPORT=$(sed -n "s/^port //p" "$3")
}

test_expect_success 'tr record -A: a guest of 1024 CPUs is refused, naming the guest and the count' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	fake_agent 1024 100 f.out &&
	test_when_finished "kill $FPID 2>/dev/null || :; wait $FPID || :" &&
	test_expect_code 1 tr record -q -B "$(test_instance)" -e sched:sched_process_exit \
		-A g@127.0.0.1:$FPORT true 2>err &&
	test_grep "cannot record guest .g. at .127.0.0.1:$FPORT.: it has 1024 CPUs, more than the [0-9]* a guest may have here" err &&
	test ! -d "$TRACEFS/instances/$(test_instance)"
'

test_expect_success 'tr record -A: a guest sending over 64 MB of metadata is refused' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	fake_agent 1 $((65 * 1048576)) f.out &&
	test_when_finished "kill $FPID 2>/dev/null || :; wait $FPID || :" &&
	test_expect_code 1 tr record -q -B "$(test_instance)" -e sched:sched_process_exit \
		-A g@127.0.0.1:$FPORT true 2>err &&
	test_grep "cannot record guest .g. at .127.0.0.1:$FPORT.: the metadata: metadata over 64 MB" err &&
	test ! -d "$TRACEFS/instances/$(test_instance)"
'

test_expect_success 'agent with no descriptor left: says so once, no busy loop' '
	cd "$(mktemp -d -p "$TEST_TMP")" &&
	# The limit is the lowest descriptor it leaves free when idle: the next
	# accept fails.
	net_start a0.log ".*" "$TR" agent --tcp -p 0 &&
	for n in $(seq 0 64); do test -e /proc/$NET_PID/fd/$n || break; done &&
	net_ends $NET_PID a0.log &&
	net_start a.log ".*" bash -c "ulimit -n $n && exec \"\$@\"" _ "$TR" agent --tcp -p 0 &&
	test_when_finished "net_stop $NET_PID" &&
	{ python3 "$TEST_ROOT/tests/integration/agentpeer.py" $NET_PORT garbage >/dev/null 2>&1 & } &&
	p=$! && test_when_finished "kill $p 2>/dev/null || :; wait $p || :" &&
	wait_log "cannot accept a client: Too many open files" 1 a.log &&
	# A measurement over a span of time, not a wait: under 0.3 s of CPU in 3 s.
	t0=$(cpu_ticks $NET_PID) && sleep 3 && t1=$(cpu_ticks $NET_PID) &&
	test $((t1 - t0)) -lt $(( $(getconf CLK_TCK) * 3 / 10 )) &&
	test_grep -c "cannot accept" a.log >n1 && echo 1 >one && test_cmp one n1 &&
	net_ends $NET_PID a.log
'

test_expect_success 'bad --max-total and --min-free: usage errors' '
	test_expect_code 64 "$TR" listen -p 0 --max-total 12x 2>err &&
	test_grep "bad --max-total" err &&
	test_expect_code 64 "$TR" listen -p 0 --max-total 10k 2>err &&
	test_grep "at least 1M" err &&
	test_expect_code 64 "$TR" listen -p 0 --min-free lots 2>err &&
	test_grep "bad --min-free" err
'

test_done
