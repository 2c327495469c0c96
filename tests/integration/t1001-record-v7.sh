#!/bin/bash
# tr record --file-version 7 / --compression: trace.dat v7 files that
# trace-cmd report and tr report read back, smaller than v6, and the
# option errors.
. "$(dirname "$0")/lib.sh"

# The option errors need no tracefs: run them even where recording is skipped.
test_expect_success 'a bad file version is a usage error naming it' '
	test_expect_code 64 tr record --file-version 5 -e ftrace:print -o x.dat true 2>err &&
	test_grep "bad file version .5." err &&
	test ! -e x.dat
'

test_expect_success 'a bad compression is a usage error naming it' '
	test_expect_code 64 tr record --compression lz4 -e ftrace:print -o x.dat true 2>err &&
	test_grep "bad compression .lz4." err
'

test_expect_success 'a compressed version 6 file is refused' '
	test_expect_code 64 tr record --file-version 6 --compression zstd -e ftrace:print \
		-o x.dat true 2>err &&
	test_grep "version 6 file cannot be compressed" err
'

test_requires instances events

# Write N trace_marker lines into instance $1.
marker_cmd() {
	echo "for i in \$(seq 1 $2); do echo \"mark \$i\" >$TRACEFS/instances/$1/trace_marker; done"
}


for z in zstd zlib none; do
	# A file this trace-cmd reads if it reads the compression (Debian's
	# 3.1.6 reads zstd, not zlib).
	case $z in zlib) ref=report-v7-zlib.dat ;; *) ref=report-v7.dat ;; esac
	test_expect_success "--compression $z: 2000 marks round-trip through both readers" '
		inst=$(test_instance) &&
		tr record -q -B "$inst" --compression '$z' -e ftrace:print -o '$z'.dat \
			sh -c "$(marker_cmd "$inst" 2000)" &&
		head -c 12 '$z'.dat | od -An -c | tr -d " \n" >magic &&
		printf "\027\010Dtracing7\000" | od -An -c | tr -d " \n" >expect &&
		test_cmp expect magic &&
		tr report --stat -i '$z'.dat >stat &&
		test_grep -i "compression.*'$z'" stat &&
		seq 1 2000 | sed "s/^/mark /" >expect &&
		marks_tr '$z'.dat >actual.tr &&
		test_cmp expect actual.tr &&
		if tc_reads "$TEST_ROOT/tests/data/'$ref'"; then
			marks_tc '$z'.dat >actual.tc && test_cmp expect actual.tc
		fi &&
		test ! -d "$TRACEFS/instances/$inst"
	'
done

test_expect_success '--file-version 7 alone is zstd, as trace-cmd writes by default' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" --file-version 7 -e ftrace:print -o d.dat \
		sh -c "$(marker_cmd "$inst" 10)" &&
	tr report --stat -i d.dat >stat &&
	test_grep -i "compression.*zstd" stat
'

test_expect_success 'without options the file is version 7 with zstd' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e ftrace:print -o def.dat \
		sh -c "$(marker_cmd "$inst" 10)" &&
	head -c 12 def.dat | od -An -c | tr -d " \n" >magic &&
	printf "\027\010Dtracing7\000" | od -An -c | tr -d " \n" >expect &&
	test_cmp expect magic &&
	tr report --stat -i def.dat >stat &&
	test_grep -i "compression.*zstd" stat
'

test_expect_success 'a zstd file is under half the v6 file of the same marks' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" --file-version 6 -e ftrace:print -o six.dat \
		sh -c "$(marker_cmd "$inst" 3000)" &&
	inst=$(test_instance)b &&
	tr record -q -B "$inst" --compression zstd -e ftrace:print -o seven.dat \
		sh -c "$(marker_cmd "$inst" 3000)" &&
	six=$(stat -c %s six.dat) && seven=$(stat -c %s seven.dat) &&
	echo "v6 $six v7 $seven" &&
	test $((seven * 2)) -lt "$six" &&
	marks_tr six.dat >a && marks_tr seven.dat >b && test_cmp a b
'

test_expect_success 'trace-cmd dump sees the v7 sections and the instance buffer' '
	command -v trace-cmd >/dev/null || exit 0
	inst=$(test_instance) &&
	tr record -q -B "$inst" --compression zstd -e sched:sched_process_exec -o ev.dat \
		sh -c "/bin/true" &&
	trace-cmd dump --summary -i ev.dat >dump 2>&1 &&
	test_grep "zstd.*Compression algorithm" dump &&
	test_grep "buffer \"$inst\"" dump &&
	trace-cmd report -i ev.dat >out 2>/dev/null &&
	test_grep "sched_process_exec: .*filename=/bin/true" out
'

test_done
