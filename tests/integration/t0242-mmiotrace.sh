#!/bin/bash
# mmiotrace (the Debian guest's kernel has it): tr starts and stops it
# cleanly -- while it runs the kernel takes every CPU but one offline, and
# they come back when tr puts the tracer back -- and tr report prints its
# records as the kernel's trace file does: "MARK", "MAP", "UNMAP", "R", "W"
# lines.  It works in the top-level buffer only: each test resets it.
# Its records come from an ioremap() made while it runs: a read of the BIOS
# area through /dev/mem maps it (memremap() of memory that is not RAM).
# trace_pipe's "VERSION 20070824" and "PCIDEV" lines are written by its
# pipe reader from the live PCI devices, not from records: no recording
# holds them.
. "$(dirname "$0")/lib.sh"
test_kernels debian

if ! grep -qw mmiotrace "$TRACEFS/available_tracers"; then
	test_skip_all="no mmiotrace in available_tracers (kernel built without CONFIG_MMIOTRACE)"
fi
online=$(cat /sys/devices/system/cpu/online)

# The text after tr's context columns ("comm-pid [cpu] time: ").
text_of() {
	sed -nE 's/^ *.*-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: //p' "$1"
}

# mmio_io: a marker, then a bounded read of a page the kernel must ioremap.
mmio_io() {
	echo "tr-mmio-marker $1" >$TRACEFS/trace_marker
	timeout 30 dd if=/dev/mem of=/dev/null bs=4096 skip=240 count=1 status=none 2>/dev/null || :
	echo "tr-mmio-end $1" >$TRACEFS/trace_marker
}

test_expect_success 'in an instance -p mmiotrace is refused: the top level only' '
	inst=$(test_instance) &&
	test_expect_code 1 tr start -B $inst -p mmiotrace 2>err &&
	test_grep "tracer .mmiotrace. works in the top-level buffer only" err &&
	test ! -d $TRACEFS/instances/$inst &&
	test "$(cat /sys/devices/system/cpu/online)" = "$online"
'

test_expect_success 'tr start and tr reset: the CPUs go offline and come back; report is the kernel text' '
	test_when_finished "tr reset >/dev/null; test \"\$(cat /sys/devices/system/cpu/online)\" = \"$online\"" &&
	tr start -p mmiotrace -b 2048 &&
	test "$(cat $TRACEFS/current_tracer)" = mmiotrace &&
	if test "$(nproc --all)" -gt 1; then
		test "$(cat /sys/devices/system/cpu/online)" = 0
	fi &&
	mmio_io start &&
	tr stop &&
	cat $TRACEFS/trace >kernel.txt &&
	tr extract -o m.dat &&
	tr reset &&
	test "$(cat $TRACEFS/current_tracer)" = nop &&
	test "$(cat /sys/devices/system/cpu/online)" = "$online" &&
	tr report -i m.dat >tr.txt &&
	grep -vE "^#|^$" kernel.txt >kernel.lines &&
	text_of tr.txt >tr.lines &&
	cat kernel.lines &&
	test_grep -E "^MARK [0-9]+\.[0-9]{6} tr-mmio-marker start$" kernel.lines &&
	test_grep -E "^MARK [0-9]+\.[0-9]{6} tr-mmio-end start$" tr.lines &&
	test_cmp kernel.lines tr.lines &&
	if grep -q "^MAP " kernel.lines; then
		test_grep -E "^MAP [0-9]+\.[0-9]{6} [0-9]+ 0xf0000 0x[0-9a-f]+ 0x1000 0x0 0$" tr.lines
	else
		echo "# no ioremap of the BIOS area was traced here: MARK lines only"
	fi
'

test_expect_success 'tr record -p mmiotrace: the tracer and the CPUs are put back' '
	test_when_finished "tr reset >/dev/null" &&
	tr record -q -p mmiotrace -b 2048 -o r.dat -- bash -c "$(declare -f mmio_io); TRACEFS=$TRACEFS; mmio_io rec" &&
	test "$(cat $TRACEFS/current_tracer)" = nop &&
	test "$(cat /sys/devices/system/cpu/online)" = "$online" &&
	tr report -i r.dat >out &&
	text_of out >lines &&
	test_grep -E "^MARK [0-9]+\.[0-9]{6} tr-mmio-marker rec$" lines &&
	test_grep -E "^MARK [0-9]+\.[0-9]{6} tr-mmio-end rec$" lines
'

test_expect_success 'SIGINT during tr record -p mmiotrace puts it all back' '
	test_when_finished "tr reset >/dev/null"
	# Alone on its line: "a && b &" would put the whole list in the background.
	( exec "$TR" record -q -p mmiotrace -o s.dat ) &
	pid=$! &&
	test_when_finished "kill -9 $pid 2>/dev/null || :" &&
	for i in $(seq 100); do
		test "$(cat $TRACEFS/current_tracer)" = mmiotrace && break
		sleep 0.1
	done &&
	test "$(cat $TRACEFS/current_tracer)" = mmiotrace &&
	kill -INT $pid &&
	test_wait_exit $pid 20 &&
	test "$(cat $TRACEFS/current_tracer)" = nop &&
	test "$(cat /sys/devices/system/cpu/online)" = "$online"
'

if ! grep -qw branch "$TRACEFS/available_tracers"; then
	test_skip_all="no branch tracer in available_tracers (kernel built without CONFIG_BRANCH_TRACER)"
fi
test_expect_success 'the branch tracer: its lines are the kernel trace file'"'"'s' '
	test_when_finished "tr reset >/dev/null" &&
	tr start -p branch -b 2048 &&
	sleep 0.2 &&
	tr stop &&
	cat $TRACEFS/trace >kernel.txt &&
	tr extract -o b.dat &&
	tr report -i b.dat >tr.txt &&
	tr report -i b.dat --format csv >tr.csv &&
	test_grep -E "\[  ok  \]|\[ MISS \]" tr.txt &&
	python3 "$TEST_ROOT/tests/kcmp/compare.py" --threshold 100 kernel.txt tr.txt tr.csv
'

test_done
