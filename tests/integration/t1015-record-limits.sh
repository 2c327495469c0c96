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

marks_tr() {
	"$TR" report -i "$1" 2>/dev/null | sed -n 's/^.*\] *[0-9.]*: tracing_mark_write: \(c[01] [0-9]*\).*/\1/p'
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
	marks_tr big.dat >marks &&
	test "$(wc -l <marks)" -gt 1000 &&
	gap_free marks &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i big.dat 2>/dev/null |
			sed -n "s/.* print: *[^ ]*: \(c[01] [0-9]*\).*/\1/p" >tc &&
		test_cmp marks tc
	fi
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

test_done
