#!/bin/bash
# tr record's limits: --max-size stops the recording before the file (or
# its spool) grows past the size, and what it holds is complete and
# readable; an output directory removed mid-run ends it with one line.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

test_requires instances events

# writer CPU MARKER: numbered 1 KiB markers from CPU until "run" goes.
writer() {
	taskset -c "$1" bash -c '
		exec 3>>"$2"; i=0; pad=$(printf "%0900d" 0)
		while [ -e run ]; do
			i=$((i + 1)); echo "c$1 $i $pad" >&3
		done' writer "$1" "$2"
}

# The markers of each writer run without a gap from its first.
gap_free() {
	awk '{ if (($1 in last) && $2 != last[$1] + 1) { printf "%s: gap after %d: %d\n", $1, last[$1], $2; bad = 1 }
	       last[$1] = $2; n[$1]++ }
	     END { for (c in n) printf "%s: %d markers\n", c, n[c]; exit bad }' "$1"
}

test_expect_success '--max-size stops the recording before the file or its spool passes it' '
	test "$(nproc)" -ge 2 &&
	inst=$(test_instance) &&
	test_when_finished "rm -f run; tr instance destroy $inst" &&
	limit=$((8 * 1024 * 1024)) &&
	touch run &&
	tr instance create "$inst" || return 1
	# The writers hold trace_marker open: the instance is made here, not by
	# tr record, which could not remove it under them.
	"$TR" record -B "$inst" -b 1408 --file-version 6 --max-size 8M -e ftrace:print \
		-o big.dat --duration 20s 2>summary &
	pid=$!
	test_wait_recording "$inst" || return 1
	writer 0 "$TRACEFS/instances/$inst/trace_marker" &
	w0=$!
	writer 1 "$TRACEFS/instances/$inst/trace_marker" &
	w1=$!
	max=0
	while kill -0 $pid 2>/dev/null; do
		s=$(du -sb big.dat.spool 2>/dev/null | cut -f1)
		if [ -n "$s" ] && [ "$s" -gt "$max" ]; then max=$s; fi
		sleep 0.1
	done
	wait $pid || return 1
	rm -f run
	wait $w0 $w1
	echo "spool at most $max bytes, file $(stat -c %s big.dat) bytes, limit $limit" &&
	test "$max" -le "$limit" &&
	test "$(stat -c %s big.dat)" -le "$limit" &&
	test_grep "stopped at --max-size: .big.dat. would have grown past it" summary &&
	test ! -e big.dat.spool &&
	marks_tr big.dat 2 >marks &&
	test "$(wc -l <marks)" -gt 1000 &&
	gap_free marks &&
	if command -v trace-cmd >/dev/null; then
		marks_tc big.dat 2 >tc &&
		test_cmp marks tc
	fi
'

# The markers of FILE.N .. FILE.1 and FILE, in that order, by tr report (or by trace-cmd with tc).
marks_rotated() {
	for f in $(ls r.dat.[0-9]* | sort -t. -k3 -rn) r.dat; do
		if [ "${1:-}" = tc ]; then
			marks_tc "$f" 2
		else
			marks_tr "$f" 2
		fi
	done
}

# Rotating needs several parts of megabytes of markers within seconds: the
# shell writers of a TCG guest are ten times too slow for that, so these
# three run on the host (rotation does not depend on the kernel's version).
if [ -n "${TR_VM:-}" ]; then
	test_skip '--rotate: parts within the size, each readable, together every event not lost' "a TCG guest's writers are too slow to fill several parts in seconds (1.8 MiB in 12 s): host tier"
	test_skip '--rotate: a part that cannot be written ends the recording with one line naming it, exit 1' "a TCG guest's writers are too slow to fill several parts in seconds (1.8 MiB in 12 s): host tier"
	test_skip '--rotate killed with SIGKILL: the finished parts read as they are, tr restore writes the part being recorded' "a TCG guest's writers are too slow to fill several parts in seconds (1.8 MiB in 12 s): host tier"
else

test_expect_success '--rotate: parts within the size, each readable, together every event not lost' '
	test "$(nproc)" -ge 2 &&
	inst=$(test_instance) &&
	test_when_finished "rm -f run; tr instance destroy $inst" &&
	limit=$((12 * 1024 * 1024)) &&
	touch run &&
	tr instance create "$inst" || return 1
	"$TR" record -B "$inst" -b 1408 --file-version 6 --max-size 12M --rotate 2 --date \
		-e ftrace:print -o r.dat --duration 12s 2>summary &
	pid=$!
	test_wait_recording "$inst" || return 1
	writer 0 "$TRACEFS/instances/$inst/trace_marker" &
	w0=$!
	writer 1 "$TRACEFS/instances/$inst/trace_marker" &
	w1=$!
	max=0 big=0
	while kill -0 $pid 2>/dev/null; do
		s=$(du -scb r.dat* 2>/dev/null | tail -n 1 | cut -f1)
		if [ -n "$s" ] && [ "$s" -gt "$max" ]; then max=$s; fi
		for f in r.dat.[0-9]*; do
			test -f "$f" || continue
			s=$(stat -c %s "$f" 2>/dev/null) &&
			if [ "$s" -gt "$big" ]; then big=$s; fi
		done
		sleep 0.1
	done
	wait $pid || return 1
	rm -f run
	wait $w0 $w1
	cat summary &&
	echo "on disk at most $max bytes, a part at most $big, limit $limit" &&
	test "$max" -le $((4 * limit)) &&
	test "$big" -le "$limit" &&
	test "$(stat -c %s r.dat)" -le "$limit" &&
	n=$(sed -n "s/^rotated \([0-9]*\) times at --max-size.*/\1/p" summary) &&
	test "$n" -gt 2 &&
	test -f r.dat.1 && test -f r.dat.2 && test ! -e r.dat.3 &&
	test ! -e r.dat.spool && test ! -e r.dat.rotating &&
	# Every part carries --date (from the spool'"'"'s header), as the last does.
	for f in r.dat.2 r.dat.1 r.dat; do
		tr report --stat -i "$f" >stat &&
		test_grep "^options:.* date" stat || return 1
	done &&
	marks_rotated >marks &&
	test "$(wc -l <marks)" -gt 1000 &&
	# The oldest parts are gone: the markers start after the first.
	test "$(head -n 1 marks | cut -d" " -f2)" -gt 1 &&
	lost=$(awk "\$1 == \"total\" { print \$3 }" summary) &&
	awk -v lost="$lost" "{ if ((\$1 in last) && \$2 != last[\$1] + 1) {
			if (\$2 <= last[\$1]) { print \"out of order: \" \$0; bad = 1 }
			miss += \$2 - last[\$1] - 1 }
		last[\$1] = \$2 }
		END { printf \"%d markers missing, %d reported lost\\n\", miss, lost
		      exit (bad || miss > lost) }" marks &&
	if command -v trace-cmd >/dev/null; then
		marks_rotated tc >tc &&
		{ test_cmp marks tc || {
			# DIAG: what tr report said of each file, and how many markers each holds.
			for f in r.dat*; do
				echo "DIAG: $f: tr $(marks_tr "$f" 2 | wc -l), trace-cmd" \
					"$(trace-cmd report -i "$f" 2>/dev/null | grep -c " print: ")"
				"$TR" report -i "$f" 2>&1 >/dev/null | tail -n 3
			done
			false
		}; }
	fi
'

# markers_rise FILE: each writer's markers in FILE only ever go up (losses
# may leave gaps, nothing may come twice or out of order).
markers_rise() {
	awk '{ if (($1 in last) && $2 <= last[$1]) { print "not after " last[$1] ": " $0; bad = 1 }
	       last[$1] = $2 } END { exit bad }' "$1"
}

test_expect_success '--rotate killed with SIGKILL: the finished parts read as they are, tr restore writes the part being recorded' '
	test "$(nproc)" -ge 2 &&
	inst=$(test_instance) &&
	test_when_finished "rm -f run; tr reset -B $inst 2>/dev/null || :; tr instance destroy $inst 2>/dev/null || :" &&
	touch run &&
	tr instance create "$inst" || return 1
	"$TR" record -q -B "$inst" -b 1408 --file-version 6 --max-size 12M --rotate 2 \
		-e ftrace:print -o kr.dat --flush-interval 100ms --duration 60s 2>err &
	pid=$!
	test_wait_recording "$inst" || return 1
	# When tr dies the kernel stops tracing, and trace_marker refuses writes (EBADF).
	writer 0 "$TRACEFS/instances/$inst/trace_marker" 2>/dev/null &
	w0=$!
	writer 1 "$TRACEFS/instances/$inst/trace_marker" 2>/dev/null &
	w1=$!
	# Up to 40 s for the first part, then a little into the next one.
	for i in $(seq 400); do test -f kr.dat.1 && break; sleep 0.1; done
	sleep 0.7
	kill -9 $pid
	wait $pid 2>/dev/null
	rm -f run
	wait $w0 $w1
	test -f kr.dat.1 && test -d kr.dat.spool && test ! -s kr.dat &&
	tr reset -B "$inst" &&
	# A copy of the spool elsewhere restores the same, by -i and -o.
	cp -r kr.dat.spool moved.spool &&
	for f in kr.dat.2 kr.dat.1; do
		test -f "$f" || continue
		marks_tr "$f" 2 >"$f.marks" &&
		test -s "$f.marks" &&
		cat "$f.marks" >>parts || return 1
		if command -v trace-cmd >/dev/null; then
			marks_tc "$f" 2 >"$f.tc" &&
			test_cmp "$f.marks" "$f.tc" || return 1
		fi
	done &&
	tr restore kr.dat 2>restore &&
	test_grep "restored .kr.dat. from .kr.dat.spool." restore &&
	test ! -e kr.dat.spool &&
	marks_tr kr.dat 2 >last &&
	test -s last &&
	if command -v trace-cmd >/dev/null; then
		marks_tc kr.dat 2 >last.tc &&
		test_cmp last last.tc
	fi &&
	tr restore -i moved.spool -o moved.dat 2>restore &&
	test_grep "restored .moved.dat. from .moved.spool." restore &&
	test ! -e moved.spool &&
	marks_tr moved.dat 2 >moved &&
	test_cmp last moved &&
	cat parts last >all &&
	echo "parts: $(wc -l <parts) markers, restored: $(wc -l <last)" &&
	markers_rise all
'

test_expect_success '--rotate: a part that cannot be written ends the recording with one line naming it, exit 1' '
	inst=$(test_instance) &&
	test_when_finished "rm -f run; tr instance destroy $inst" &&
	mkdir p.dat.rotating &&
	touch run &&
	tr instance create "$inst" || return 1
	"$TR" record -B "$inst" -b 1408 --file-version 6 --max-size 8M --rotate 2 \
		-e ftrace:print -o p.dat --duration 20s 2>err &
	pid=$!
	test_wait_recording "$inst" || return 1
	writer 0 "$TRACEFS/instances/$inst/trace_marker" &
	w0=$!
	test_expect_code 1 wait $pid &&
	rm -f run &&
	wait $w0 &&
	cat err &&
	test_grep "^tr: cannot write .p.dat.rotating.: Is a directory: recording stopped early$" err &&
	test "$(grep -c "^tr: " err)" = 1 &&
	test ! -e p.dat.1 && test ! -e p.dat.spool &&
	marks_tr p.dat 2 >marks &&
	test -s marks &&
	gap_free marks
'

fi

test_expect_success '--rotate needs --max-size and a count' '
	test_expect_code 64 tr record --rotate 3 -e ftrace:print -o x.dat true 2>err &&
	test_grep "rotate says how many parts of --max-size to keep: give --max-size" err &&
	test_expect_code 64 tr record --max-size 10M --rotate 0 -e ftrace:print -o x.dat true 2>err &&
	test_grep "bad number of parts .0.: give 1 to 1000" err &&
	test ! -e x.dat
'

test_expect_success '--max-size smaller than the header is refused, leaving nothing' '
	inst=$(test_instance) &&
	test_must_fail tr record -B "$inst" --max-size 64k -e ftrace:print -o small.dat true 2>err &&
	test_grep "max-size is too small: the file.s header and formats alone take" err &&
	test ! -e small.dat.spool && test ! -e small.dat &&
	test ! -d "$TRACEFS/instances/$inst" &&
	test_expect_code 64 tr record --max-size 12x -e ftrace:print -o small.dat true 2>err &&
	test_grep "bad size .12x." err
'

test_expect_success 'the output directory removed while recording: one line naming the file, exit 1, tracefs put back' '
	inst=$(test_instance) &&
	mkdir out || return 1
	"$TR" record -B "$inst" -e ftrace:print -o out/k.dat --duration 10s 2>err &
	pid=$!
	test_wait_recording "$inst" || return 1
	rm -rf out
	test_expect_code 1 wait $pid &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	test_grep "cannot write .out/k.dat.spool/cmdlines.: No such file or directory" err &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'a read-only output directory: one line naming the file, exit 1, tracefs untouched' '
	inst=$(test_instance) &&
	mkdir ro &&
	mount -t tmpfs -o ro,size=1m tmpfs ro &&
	test_when_finished "umount $TEST_TMP/ro" &&
	test_expect_code 1 tr record -B "$inst" -e ftrace:print -o ro/k.dat true 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	test_grep "^tr: cannot write .ro/k.dat.: Read-only file system$" err &&
	test -z "$(ls -A ro)" &&
	test ! -d "$TRACEFS/instances/$inst"
'

# A file system whose device starts failing every write mid-recording: the
# device-mapper error target swapped in under a mounted ext4 (the Debian
# guest loads loop, dm-mod and ext4: tests/vm/fetch-debian-kernel).  The
# swap suspends the device, which first writes out what the file system
# holds, so the disk keeps exactly what tr wrote before the failure: the
# spool, which tr report reads once the device works again.
if command -v dmsetup >/dev/null && command -v losetup >/dev/null &&
   command -v mkfs.ext4 >/dev/null && grep -qw device-mapper /proc/devices; then
test_expect_success 'a file system failing writes with EIO: one line naming the file, exit 1, tracefs put back, the spool readable' '
	inst=$(test_instance) &&
	dm=tr-eio-$$ &&
	truncate -s 64M eio.img &&
	loop=$(losetup -f --show eio.img) &&
	test_when_finished "losetup -d $loop" &&
	sectors=$(blockdev --getsz "$loop") &&
	dmsetup create "$dm" --table "0 $sectors linear $loop 0" &&
	test_when_finished "dmsetup remove $dm" &&
	# Without udev (the guest) the node in /dev/mapper is dmsetup'"'"'s to make.
	dmsetup mknodes "$dm" &&
	mkfs.ext4 -q "/dev/mapper/$dm" &&
	mkdir eio &&
	mount "/dev/mapper/$dm" eio &&
	test_when_finished "umount -l $TEST_TMP/eio 2>/dev/null || :" || return 1
	"$TR" record -B "$inst" -e ftrace:print -o eio/k.dat --flush-interval 100ms \
		--duration 8s 2>err &
	pid=$!
	test_wait_recording "$inst" || return 1
	for i in $(seq 1 500); do echo "mark $i" >"$TRACEFS/instances/$inst/trace_marker"; done
	# Up to 20 s for the last of them to reach the spool (its text is in the pages).
	for i in $(seq 200); do
		grep -aqs "mark 500" eio/k.dat.spool/cpu*.raw && break
		sleep 0.1
	done
	dmsetup suspend "$dm" &&
	dmsetup load "$dm" --table "0 $sectors error" &&
	dmsetup resume "$dm" || return 1
	for i in $(seq 501 5000); do
		echo "mark $i" >"$TRACEFS/instances/$inst/trace_marker" 2>/dev/null || break
	done
	test_expect_code 1 wait $pid &&
	cat err &&
	test_grep -E "^tr: cannot (write|create|rename) .eio/k.dat[^ ]*.: (Input/output error|Read-only file system)" err &&
	test "$(grep -c "^tr: " err)" = 1 &&
	if test -d eio/k.dat.spool; then
		test_grep "; what was recorded is kept in .eio/k.dat.spool.: .tr restore eio/k.dat. writes it$" err
	fi &&
	test ! -d "$TRACEFS/instances/$inst" &&
	# The device works again: what the disk kept is the spool as it was at the swap.
	umount eio &&
	dmsetup suspend "$dm" &&
	dmsetup load "$dm" --table "0 $sectors linear $loop 0" &&
	dmsetup resume "$dm" &&
	mount "/dev/mapper/$dm" eio &&
	test -d eio/k.dat.spool &&
	"$TR" report -i eio/k.dat 2>report.err | sed -n "s/.*tracing_mark_write: //p" >marks &&
	test_grep "ended abruptly" report.err &&
	seq 1 500 | sed "s/^/mark /" >expect &&
	head -n 500 marks >first &&
	test_cmp expect first &&
	tr restore eio/k.dat &&
	"$TR" report -i eio/k.dat | sed -n "s/.*tracing_mark_write: //p" >restored &&
	test_cmp marks restored
'
else
	test_skip 'a file system failing writes with EIO' 'no device-mapper (dmsetup, losetup, mkfs.ext4 and the kernel driver)'
fi

test_done
