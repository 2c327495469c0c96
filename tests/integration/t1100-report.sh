#!/bin/bash
# tr report --format=libtraceevent prints what trace-cmd 3.4's report -N
# prints (with the latency flags after the CPU, as trace-cmd since 3.2), and
# with -O noirq-info what 3.1's does (Debian bookworm's, and the text kept
# in tests/data), for files trace-cmd wrote: version 6, version 7 uncompressed, zstd and
# zlib, several buffers, lost events; with --plugins what plain trace-cmd
# report prints, and with -R what trace-cmd report -R prints.  (The default
# text is the kernel's own: t1101 and t1104 compare it with the kernel's.)
#
# tests/data holds small files made by tests/data/gen-report-data.sh with
# trace-cmd's output beside them, so these run without trace-cmd; the
# second half records fresh files with trace-cmd when it can run here.
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"

# Lost-event markers: trace-cmd says "CPU:N [n EVENTS DROPPED]" (and then
# forgets the buffer name on the next line); tr says what the kernel's trace
# file says, "CPU:N [LOST n EVENTS]".  Compare everything else as is.
lost_as_kernel() {
	sed -E 's/CPU:([0-9]+) \[([0-9]+) EVENTS DROPPED\]/CPU:\1 [LOST \2 EVENTS]/' "$1"
}

for f in v6 v7 v7-zlib two; do
	test_expect_success "report-$f.dat: the same lines as trace-cmd report -N" '
		tr report --format=libtraceevent -O noirq-info -i "$data/report-'$f'.dat" >actual &&
		test_cmp "$data/report-'$f'.N" actual
	'
done

# trace-cmd 3.4's own line, flags column and all, and -R's flags in hex.
# (Its libtraceevent, 1.9, prints a raw address that names no symbol as
# "ip= (0x...)", where bookworm's 1.7 and tr print "ip=0x...".)
test_tc34 'without -O noirq-info: the same lines as trace-cmd 3.4 report -N (and -R, -t)' '
	for f in v6 v7 v7-zlib two lost; do
		for o in "" -R -t; do
			"$TC34" report -N $o -i "$data/report-$f.dat" >expect 2>/dev/null &&
			tr report --format=libtraceevent $o -i "$data/report-$f.dat" |
				sed "s/^trgenl: //" >actual &&
			lost_as_kernel expect | sed -E "s/^trgenl: //; s/= \((0x[0-9a-f]+)\)/=\1/g" \
				>expect.k &&
			test_cmp expect.k actual || exit 1
		done
	done &&
	test_grep -E "^ *[^ ]+-[0-9]+ +\[[0-9]{3}\] [dDbX.][.nNpLlBb][.hHsSzZ][.0-9a-f][.0-9a-f] " actual
'

test_expect_success 'the fast printer agrees with libtraceevent on every event' '
	for f in v6 v7 lost two; do
		TR_FMT_VERIFY=1 tr report --format=libtraceevent -O noirq-info -i "$data/report-$f.dat" >/dev/null 2>err &&
		test ! -s err || { cat err; exit 1; }
	done
'

test_expect_success 'the zlib and the zstd file print the same' '
	tr report --format=libtraceevent -O noirq-info -i "$data/report-v7-zlib.dat" >zlib &&
	tr report --format=libtraceevent -O noirq-info -i "$data/report-v7.dat" >zstd &&
	test_cmp zstd zlib &&
	tr report -i "$data/report-v7-zlib.dat" --stat >stat &&
	test_grep "^compression: *zlib" stat
'

test_expect_success '--plugins prints what plain trace-cmd report prints' '
	tr report --format=libtraceevent -O noirq-info -i "$data/report-v7.dat" --plugins >actual &&
	test_cmp "$data/report-v7.plain" actual &&
	test_grep -q "==>" actual &&
	! grep -q "prev_comm=" actual
'

test_expect_success '-R prints the fields raw, as trace-cmd report -R' '
	tr report --format=libtraceevent -O noirq-info -i "$data/report-v7.dat" -R >actual &&
	test_cmp "$data/report-v7.R" actual
'

test_expect_success 'lost events: a marker where the sub-buffer says, then the same events' '
	tr report --format=libtraceevent -O noirq-info -i "$data/report-lost.dat" >actual &&
	test_grep -q "^trgenl: CPU:1 \[LOST [0-9]* EVENTS\]$" actual &&
	lost_as_kernel "$data/report-lost.N" | sed "s/^trgenl: //" >expect &&
	sed "s/^trgenl: //" actual >actual.bare &&
	test_cmp expect actual.bare &&
	tr report -i "$data/report-lost.dat" --stat >stat &&
	n=$(grep -o "LOST [0-9]*" actual | awk "{s += \$2} END {print s}") &&
	test_grep "^lost events: *$n$" stat
'

test_expect_success 'every event line of the two-buffer file is in time order' '
	tr report --format=libtraceevent -O noirq-info -i "$data/report-two.dat" -t >actual &&
	grep -q "^trgen2: " actual &&
	grep -v "^trgen2: \|^cpus=" actual >top &&
	test -s top && ! grep -v "^        " top &&
	sed -nE "s/.*\] +([0-9]+\.[0-9]+): .*/\1/p" actual >ts &&
	sort -n -c ts
'

# ---- fresh files from trace-cmd on this machine ----

rec() { "$data/tc-record.sh" "$@"; }
inst=$(test_instance)
fresh=$TEST_TMP/fresh
mkdir -p "$fresh"

if ! command -v trace-cmd >/dev/null || ! [ -d "$TRACEFS/instances" ] ||
	! rec "$inst" "$fresh/probe.dat" -e sched:sched_switch sleep 0.01 2>/dev/null; then
	why="trace-cmd cannot record here"
	for t in "v6" "v7 zstd" "v7 none" "v7 zlib (rewritten)" "merging two files"; do
		test_skip "fresh $t file: tr report = trace-cmd report -N" "$why"
	done
	test_done
	exit
fi

# rec_fresh FILE OPTIONS...: record the workload; a recording that came out
# (nearly) empty -- the machine is shared -- is tried again, twice.
rec_fresh() {
	local out=$1 try
	shift
	for try in 1 2 3; do
		eval rec "$inst" "$out" "$@" $events "$work" &&
			[ "$(trace-cmd report -N "$out" 2>/dev/null | wc -l)" -gt 10 ] && return 0
	done
	echo "rec_fresh: no events recorded in $out" >&2
	return 1
}

events="-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking -e sched:sched_process_fork -e sched:sched_process_exec -e sched:sched_process_exit"
work="sh -c 'printf \"one, two\n\" >$TRACEFS/instances/$inst/trace_marker; ls / >/dev/null; sleep 0.05'"

test_expect_success 'fresh v6 file: tr report = trace-cmd report -N' '
	rec_fresh "$fresh/v6.dat" --file-version 6 &&
	trace-cmd report -N "$fresh/v6.dat" >expect &&
	tr report --format=libtraceevent -O noirq-info -i "$fresh/v6.dat" >actual &&
	cmp_names expect actual &&
	test $(wc -l <actual) -gt 10
'

test_expect_success 'fresh v7 zstd file: tr report = trace-cmd report -N, and with --plugins' '
	rec_fresh "$fresh/v7.dat" --file-version 7 --compression zstd &&
	trace-cmd report -N "$fresh/v7.dat" >expect &&
	tr report --format=libtraceevent -O noirq-info -i "$fresh/v7.dat" >actual &&
	cmp_names expect actual &&
	trace-cmd report "$fresh/v7.dat" >expect.plain &&
	tr report --format=libtraceevent -O noirq-info -i "$fresh/v7.dat" --plugins >actual.plain &&
	cmp_names expect.plain actual.plain actual &&
	TR_FMT_VERIFY=1 tr report --format=libtraceevent -O noirq-info -i "$fresh/v7.dat" >/dev/null 2>err &&
	test ! -s err
'

test_expect_success 'fresh v7 none file: tr report = trace-cmd report -N (and -R, -t)' '
	rec_fresh "$fresh/v7n.dat" --file-version 7 --compression none &&
	for o in "" -R -t; do
		trace-cmd report -N $o "$fresh/v7n.dat" >expect &&
		tr report --format=libtraceevent -O noirq-info -i "$fresh/v7n.dat" $o >actual &&
		tr report --format=libtraceevent -O noirq-info -i "$fresh/v7n.dat" >names &&
		cmp_names expect actual names || exit 1
	done
'

test_expect_success 'fresh v7 zlib (rewritten) file: the same events as the original' '
	python3 "$data/rewrite-dat.py" "$fresh/v7n.dat" "$fresh/v7z.dat" --zip zlib &&
	tr report -i "$fresh/v7z.dat" --stat >stat &&
	test_grep "^compression: *zlib" stat &&
	trace-cmd report -N "$fresh/v7n.dat" >expect &&
	tr report --format=libtraceevent -O noirq-info -i "$fresh/v7z.dat" >actual &&
	cmp_names expect actual
'

test_expect_success 'merging two files: the same as trace-cmd report -N -i A -i B' '
	trace-cmd report -N -i "$fresh/v6.dat" -i "$fresh/v7.dat" >expect 2>/dev/null &&
	tr report --format=libtraceevent -O noirq-info -i "$fresh/v6.dat" -i "$fresh/v7.dat" >actual &&
	cmp_names expect actual
'

test_expect_success 'a marker on a CPU read after one whose events name tasks prints its symbol' '
	test "$(nproc)" -ge 2 || { say "# needs two CPUs"; return 0; }
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :" &&
	# CPU 0 has task-naming events (sched_process_exit, its format parsed
	# as met); on CPU 1 one comes before the marker: the pass that learns
	# names must read CPU 1 whole too (tr extract keeps only the formats
	# of the events enabled).
	"$TR" start -B $inst -e sched:sched_process_exit &&
	taskset -c 0 sh -c true &&
	taskset -c 1 sh -c "sh -c true; echo cpu1-mark >$TRACEFS/instances/$inst/trace_marker" &&
	"$TR" stop -B $inst &&
	"$TR" extract -B $inst -q -o cpus.dat &&
	"$TR" report -i cpus.dat >out &&
	test_grep "tracing_mark_write: cpu1-mark$" out
'

test_done
