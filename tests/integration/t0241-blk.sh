#!/bin/bash
# The blk tracer: tr names the block device it traces (--blk-dev), puts the
# device's trace/enable back, and tr report prints its records as the
# kernel's trace file does.  The tracer works in the top-level buffer only:
# each test resets it.  A loop device over a file in the test's directory
# gives it IO to trace (the full guest has no loop driver: the host and the
# Debian guest run this).
. "$(dirname "$0")/lib.sh"
test_kernels debian

compare=$TEST_ROOT/tests/kcmp/compare.py

if ! grep -qw blk "$TRACEFS/available_tracers"; then
	test_skip_all="no blk tracer in available_tracers (kernel built without CONFIG_BLK_DEV_IO_TRACE)"
elif ! command -v losetup >/dev/null || ! { truncate -s 8M "$TEST_TMP/disk.img" &&
	dev=$(losetup -f --show "$TEST_TMP/disk.img" 2>/dev/null); }; then
	test_skip_all="no loop device to trace (no loop driver or losetup here)"
fi
name=${dev#/dev/}
E=/sys/class/block/$name/trace/enable
# The device goes whatever the tests did (each asserts that tr put its
# trace/enable back; a failed one must not leave the next run's loop
# device traced).
trap 'test -n "${dev:-}" && { echo 0 >"$E"; losetup -d "$dev"; }; rm -rf "$TEST_TMP"' EXIT

# io: direct writes and reads of the loop device, enough for every step
# of a request (queue, insert, issue, complete) to show many times.
io() {
	dd if=/dev/zero of="$dev" bs=4k count=32 oflag=direct status=none &&
	dd if="$dev" of=/dev/null bs=4k count=32 iflag=direct status=none
}

test_expect_success 'in an instance -p blk is refused: the top level only' '
	inst=$(test_instance) &&
	test_expect_code 1 tr start -B $inst -p blk --blk-dev $name 2>err &&
	test_grep "^tr: .*tracer .blk. works in the top-level buffer only, not in instance .$inst." err &&
	test $(wc -l <err) = 1 &&
	test ! -d $TRACEFS/instances/$inst &&
	test "$(cat $E)" = 0
'

test_expect_success '--blk-dev without -p blk, and a bad --blk-mask, are usage errors' '
	test_expect_code 64 tr start --blk-dev $name 2>err &&
	test_grep "blk-dev goes with -p blk" err &&
	test_expect_code 64 tr start -p blk --blk-dev $name --blk-mask queue,bogus 2>err &&
	test_grep "bad --blk-mask category .bogus." err &&
	test_expect_code 64 tr start -p blk --blk-mask queue 2>err &&
	test_grep "blk-mask goes with --blk-dev" err &&
	test "$(cat $E)" = 0 &&
	test "$(cat $TRACEFS/current_tracer)" = nop
'

test_expect_success 'a device that is not there is named, and nothing stays changed' '
	test_expect_code 1 tr start -p blk --blk-dev nosuchdisk9 2>err &&
	test_grep "no block device .nosuchdisk9. to trace" err &&
	test $(wc -l <err) = 1 &&
	test "$(cat $TRACEFS/current_tracer)" = nop &&
	test_expect_code 1 tr start -p blk --blk-dev ../$name 2>err &&
	test_grep "no block device" err
'

test_expect_success '-p blk with no device traced says why nothing will come' '
	test_when_finished "tr reset >/dev/null" &&
	grep -l 1 /sys/class/block/*/trace/enable >busy 2>/dev/null || : &&
	if test -s busy; then exit 0; fi &&
	tr start -p blk 2>err &&
	test_grep "traces only block devices whose trace/enable is set, and none is: name them with --blk-dev" err
'

test_expect_success 'tr report prints the blk records as the kernel trace file does' '
	test_when_finished "tr reset >/dev/null" &&
	tr start -p blk --blk-dev /dev/$name -b 4096 &&
	test "$(cat $E)" = 1 &&
	io &&
	tr stop &&
	cat $TRACEFS/trace >kernel.txt &&
	tr extract -o blk.dat &&
	tr report -i blk.dat >tr.txt &&
	tr report -i blk.dat --format csv >tr.csv &&
	# The kernel printed the requests: dd queued writes and reads on this device.
	test_grep -E "dd-[0-9]+ .*: +7,[0-9]+ +Q +WS? [0-9]+ \+ 8 \[dd\]" kernel.txt &&
	test_grep -E ": +7,[0-9]+ +C +RS? [0-9]+ \+ 8 \[0\]" kernel.txt &&
	test_grep -E ": +7,[0-9]+ +Q +RS? [0-9]+ \+ 8 \[dd\]" tr.txt &&
	python3 "$compare" --threshold 100 kernel.txt tr.txt tr.csv >cmp &&
	cat cmp &&
	n=$(awk "\$1 == \"total\" { print \$2 }" cmp) &&
	test "$n" -ge 64 &&
	tr reset &&
	test "$(cat $E)" = 0 &&
	test "$(cat $TRACEFS/current_tracer)" = nop
'

test_expect_success 'verbose: the actions by their long names, as the kernel prints them' '
	test_when_finished "tr reset >/dev/null" &&
	tr start -p blk --blk-dev $name -O verbose -b 4096 &&
	io &&
	tr stop &&
	cat $TRACEFS/trace >kernel.txt &&
	tr extract -o v.dat &&
	tr report -i v.dat >tr.txt &&
	tr report -i v.dat --format csv >tr.csv &&
	test_grep -E ": +7,[0-9]+ +queue +WS? [0-9]+ \+ 8 \[dd\]" tr.txt &&
	python3 "$compare" --threshold 100 kernel.txt tr.txt tr.csv
'

test_expect_success '--blk-mask: only those categories, and the device is put back' '
	test_when_finished "tr reset >/dev/null" &&
	tr record -q -p blk --blk-dev $name --blk-mask complete -b 4096 -o m.dat -- \
		dd if=/dev/zero of="$dev" bs=4k count=16 oflag=direct status=none &&
	tr report -i m.dat >out &&
	test_grep -E ": +7,[0-9]+ +C +WS? [0-9]+ \+ 8 \[0\]" out &&
	test_must_fail grep -E ": +7,[0-9]+ +[QGIDP] " out &&
	test "$(cat $E)" = 0 &&
	test "$(cat $TRACEFS/current_tracer)" = nop
'

test_expect_success 'tr record -p blk records the device and restores it; SIGINT too' '
	test_when_finished "tr reset >/dev/null" &&
	tr record -q -p blk --blk-dev $name -b 4096 -o r.dat -- dd if=/dev/zero of="$dev" bs=4k \
		count=16 oflag=direct status=none &&
	test "$(cat $E)" = 0 &&
	tr report -i r.dat >out &&
	test_grep -E "dd-[0-9]+ +\[[0-9]+\] .*: +7,[0-9]+ +Q +WS? [0-9]+ \+ 8 \[dd\]" out
	# Alone on its line: "a && b &" would put the whole list in the background.
	( exec "$TR" record -q -p blk --blk-dev $name -o s.dat ) 2>rec.err &
	pid=$! &&
	test_when_finished "kill -9 $pid 2>/dev/null || :" &&
	for i in $(seq 100); do
		test "$(cat $E)" = 1 && test "$(cat $TRACEFS/current_tracer)" = blk && break
		sleep 0.1
	done &&
	test "$(cat $E)" = 1 &&
	kill -INT $pid &&
	test_wait_exit $pid 20 &&
	test "$(cat $E)" = 0 &&
	test "$(cat $TRACEFS/current_tracer)" = nop
'

test_expect_success 'tr stream -p blk prints the records live and puts the device back' '
	test_when_finished "tr reset >/dev/null"
	# IO every half second while the stream runs, so that some of it is
	# certainly read, however late the readers start (alone on its line:
	# "a && b &" would put the whole list in the background).
	( for i in $(seq 200); do test "$(cat $E)" = 1 && break; sleep 0.1; done
	  for i in $(seq 12); do
		dd if=/dev/zero of="$dev" bs=4k count=2 oflag=direct status=none; sleep 0.5
	  done ) &
	io=$! &&
	test_when_finished "kill $io 2>/dev/null || :" &&
	tr stream -p blk --blk-dev $name -b 4096 --duration 8s >out &&
	wait $io &&
	test_grep -E "dd-[0-9]+ .*: +7,[0-9]+ +Q +WS? [0-9]+ \+ 8 \[dd\]" out &&
	test "$(cat $E)" = 0 &&
	test "$(cat $TRACEFS/current_tracer)" = nop
'

test_done
