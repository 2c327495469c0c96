#!/bin/bash
# The recorder's readers: the memory-mapped ring buffer (Linux 6.10+, tr
# check's "mmap") where the kernel maps it, splice where it does not, and
# tr record -v saying which one each CPU used.  tr record splices by
# default (cheaper for a file, see rec.c); TR_READER=mmap maps, as the live
# commands do.  Both readers record the same events with the same counts,
# and a sub-buffer taken while the kernel was still writing it keeps its
# events' time stamps (checked against the writer's own clock).  On the
# host (6.18) the mapped reader runs when asked for; on the VM's Debian 6.1
# the fallback does, with the same results.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

test_requires instances events

# "CPU EVENTS LOST" rows of tr record's summary.
summary_rows() { sed -nE 's/^ +([0-9]+|total) +([0-9]+) +([0-9]+) +[0-9.]+ [KMG]?i?B$/\1 \2 \3/p' "$1"; }
ncpus=$(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l)

test_expect_success "tr record -v names each CPU's reader: splice by default" '
	inst=$(test_instance) &&
	tr record -v -B "$inst" -e ftrace:print -o v.dat \
		sh -c "echo one >$TRACEFS/instances/$inst/trace_marker" 2>err &&
	cat err &&
	grep -E "^cpu[0-9]+: reader " err >readers &&
	test "$(wc -l <readers)" = "$ncpus" &&
	test "$(grep -c "reader splice, nice" readers)" = "$ncpus" &&
	test_grep -q "wake-ups" readers &&
	test_grep -q "^wrote .v.dat." err
'

if test_have mmap; then
	want=mmap
else
	want="splice (mmap failed: "
fi

test_expect_success "TR_READER=mmap: tr record -v names each CPU's reader: $want" '
	inst=$(test_instance) &&
	TR_READER=mmap "$TR" record -v -B "$inst" -e ftrace:print -o m.dat \
		sh -c "echo one >$TRACEFS/instances/$inst/trace_marker" 2>err &&
	cat err &&
	grep -E "^cpu[0-9]+: reader " err >readers &&
	test "$(wc -l <readers)" = "$ncpus" &&
	test "$(grep -cF "reader $want" readers)" = "$ncpus" &&
	"$TR" report -i m.dat | test_grep -q "tracing_mark_write: one"
'

test_expect_success 'without -v no reader lines' '
	inst=$(test_instance) &&
	tr record -B "$inst" -e ftrace:print -o q.dat true 2>err &&
	test_must_fail grep -q "reader" err
'

for rd in mmap splice; do
	test_expect_success "TR_READER=$rd: 3000 marks, counted and reported alike" '
		inst=$(test_instance) &&
		TR_READER='$rd' "$TR" record -v -B "$inst" -e ftrace:print -o '$rd'.dat \
			taskset -c 0 sh -c "for i in \$(seq 1 3000); do echo \"mark \$i\" >$TRACEFS/instances/$inst/trace_marker; done" \
			2>err &&
		cat err &&
		if [ '$rd' = splice ] || ! test_have mmap; then
			test_grep -q "^cpu0: reader splice" err
		else
			test_grep -q "^cpu0: reader mmap" err
		fi &&
		seq 1 3000 | sed "s/^/mark /" >expect &&
		marks_tr '$rd'.dat >actual &&
		test_cmp expect actual &&
		summary_rows err >rows &&
		test_grep -qx "0 3000 0" rows &&
		test_grep -qx "total 3000 0" rows &&
		tr report --stat -i '$rd'.dat | sed -nE "s/^ +(cpu [0-9]+ .* lost).*/\1/p" >'$rd'.stat &&
		cat '$rd'.stat
	'
done

test_expect_success 'a file recorded through the mapping reports as one recorded with splice' '
	test_cmp splice.stat mmap.stat &&
	marks_tr mmap.dat >m &&
	marks_tr splice.dat >s &&
	test_cmp s m &&
	if command -v trace-cmd >/dev/null; then
		marks_tc mmap.dat >tc &&
		test_cmp expect tc
	fi
'

# tsmark MARKER N US [wait]: N lines "t NS" (CLOCK_MONOTONIC read just
# before the write), US apart; with "wait", for a session that creates the
# instance: wait for MARKER to appear, and ignore refused writes.
cat >"$TEST_TMP/tsmark.c" <<\EOF
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = atoi(argv[2]), us = atoi(argv[3]), fd = -1;

	for (int i = 0; i < 500 && fd < 0; i++) {
		fd = open(argv[1], O_WRONLY);
		if (fd < 0 && argc < 5)
			return 1;
		if (fd < 0)
			usleep(10000);
	}
	for (int i = 0; i < n; i++) {
		struct timespec ts;
		char b[64];
		int l;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		l = snprintf(b, sizeof(b), "t %llu",
			     (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
		if (write(fd, b, l) != l && argc < 5)
			return 1;
		usleep(us);
	}
	return 0;
}
EOF

# Each event lies between its own write and the next one: the writer read
# the clock just before writing, so kernel >= user, and the next line was
# begun after this one was written.  Input: "KERNEL_NS USER_NS" lines.
check_ts() {
	awk '{ if ($1 < $2) b++; if (NR > 1 && prev > $2) a++; prev = $1 }
	     END { print NR, "lines,", b + 0, "before their write,", a + 0, "after the next"; exit (b + a > 0) }' "$1"
}

test_expect_success 'sub-buffers taken while being written keep their time stamps (record -b 16, -C mono)' '
	command -v cc >/dev/null || { echo "no C compiler"; exit 1; } &&
	cc -O2 -o tsmark "$TEST_TMP/tsmark.c" &&
	inst=$(test_instance) &&
	TR_READER=mmap "$TR" record -v -B "$inst" -b 16 -C mono -e ftrace:print -o ts.dat \
		taskset -c 0 ./tsmark "$TRACEFS/instances/$inst/trace_marker" 3000 100 2>err &&
	cat err &&
	if test_have mmap; then
		pieces=$(sed -nE "s/^cpu0: reader mmap.*, ([0-9]+) taken while being written$/\1/p" err) &&
		echo "pieces: $pieces" &&
		test "$pieces" -gt 0
	fi &&
	tr report -t -i ts.dat |
		sed -n "s/.* \([0-9]*\)\.\([0-9]*\): tracing_mark_write: t \([0-9]*\)$/\1\2 \3/p" >pairs &&
	test "$(wc -l <pairs)" = 3000 &&
	check_ts pairs
'

test_expect_success 'stream: sub-buffers handed on while idle keep their time stamps' '
	# The test makes the instance: the writer may still hold trace_marker
	# open when stream ends, and an instance with an open file cannot go.
	inst=$(test_instance) &&
	mkdir "$TRACEFS/instances/$inst" &&
	test_when_finished "rmdir $TRACEFS/instances/$inst" &&
	# The writer goes on until the stream is over: the sanitizer build
	# takes seconds to start tracing on a loaded machine, and the stream
	# starts from an empty buffer.
	{ taskset -c 0 ./tsmark "$TRACEFS/instances/$inst/trace_marker" 1000000 100 wait & } &&
	wpid=$! &&
	test_when_finished "kill $wpid 2>/dev/null || :" &&
	tr stream -B "$inst" -t -C mono --duration 3s -e ftrace:print >out 2>err &&
	kill $wpid && { wait $wpid || :; } &&
	test_must_be_empty err &&
	sed -n "s/.* \([0-9]*\)\.\([0-9]*\): tracing_mark_write: t \([0-9]*\)$/\1\2 \3/p" out >pairs &&
	test "$(wc -l <pairs)" -gt 500 &&
	check_ts pairs
'

test_done
