#!/bin/bash
# tr report -i HOST -i GUEST: a guest's file (trace-cmd's TIME_SHIFT option,
# which the host writes into it) reads on the host's clock and merges into
# one timeline with the host's, each line naming its file; files of several
# hosts without one (tr listen's) merge with their clocks as recorded, and
# the header says which is which.  The pairs are made here from one
# recording of 20 numbered markers (tests/data/report-marks.dat: tr record
# on this host, the same events as "host" and as "guest", the guest's with a
# known shift, by tests/data/rewrite-dat.py); trace-cmd 3.1.6 cannot record
# a guest on this host (its agent over loopback hangs), but it reads the
# pairs: it is the oracle for the order and the times.  Reads files only.
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
rw() { python3 "$data/rewrite-dat.py" "$@"; }

# merged_marks FILE...: "FILE N" for each marker line of tr report's merge.
merged_marks() {
	"$TR" report "$@" | sed -n 's/^ *\([a-z0-9.-]*\): .* print: .*: mark \([0-9]*\)$/\1 \2/p'
}

# ns FILE N: the time of marker N in FILE, in ns.
ns() {
	"$TR" report -t -i "$1" | sed -n "s/.* \([0-9]*\)\.\([0-9]\{9\}\): print: .*: mark $2\$/\1\2/p"
}

test_expect_success 'setup: the recording as v7 and v6, uncompressed' '
	cp "$data/report-marks.dat" rec.dat &&
	tr convert -q -i rec.dat --file-version 7 --compression none -o plain.dat &&
	tr convert -q -i rec.dat --file-version 6 -o plain6.dat &&
	test $(tr report -i plain6.dat | grep -c " print: .*: mark [0-9]*$") = 20
'

# The guest's marker 10 moved to 1 ns before the host's marker 1.
test_expect_success 'a guest file is moved onto its host'"'"'s clock: one sample' '
	t1=$(ns rec.dat 1) && t10=$(ns rec.dat 10) && test -n "$t1" && test -n "$t10" &&
	off=$((t1 - t10 - 1)) &&
	rw rec.dat host.dat --trace-id 0x1111 --guest "vm 0x2222 501,502" &&
	rw plain.dat guest.dat --trace-id 0x2222 --time-shift "0x1111 0 0:$off 0:$off" &&
	merged_marks -i host.dat -i guest.dat >got &&
	{ seq 1 10 | sed "s/^/guest.dat /"; echo "host.dat 1"; } >expect &&
	head -11 got >first && test_cmp expect first &&
	test $(wc -l <got) = 40 &&
	# the same as the unshifted guest moved by --ts-offset
	rw plain.dat guest0.dat &&
	merged_marks -i host.dat -i guest0.dat --ts-offset $off | sed "s/^guest0/guest/" >byoffset &&
	test_cmp byoffset got
'

test_expect_success 'the header says whose clock each file is on; JSON names the file' '
	tr report -i host.dat -i guest.dat >out &&
	head -4 out >head &&
	cat >expect <<-\EOF &&
	 host.dat: cpus=2
	guest.dat: cpus=2
	# host.dat: clock as recorded
	# guest.dat: clock moved to host.dat'"'"'s (guest '"'"'vm'"'"'), by a time shift of 2 samples
	EOF
	test_cmp expect head &&
	test_grep -q "^guest.dat: .* print: .*: mark 1$" out &&
	tr report -i guest.dat >alone &&
	test_grep -q "^# guest.dat: clock moved to its host'"'"'s (trace id 0x1111, not among the files)" alone &&
	tr report -i host.dat -i guest.dat --format json >j &&
	test_grep -q "\"file\":\"guest.dat\".*\"buf\":\"mark 10" j &&
	test $(grep -c "\"file\":\"host.dat\"" j) = 20 &&
	tr report -i rec.dat --format json >one &&
	! grep -q "\"file\"" one
'

test_expect_success 'files of several hosts without a time shift: clocks as recorded' '
	cp rec.dat a.dat && cp plain.dat b.dat &&
	tr report -i a.dat -i b.dat >out &&
	test_grep -q "^# a.dat: clock as recorded$" out &&
	test_grep -q "^# b.dat: clock as recorded$" out &&
	merged_marks -i a.dat -i b.dat | head -2 >two && printf "a.dat 1\nb.dat 1\n" >expect &&
	test_cmp expect two &&
	tr report --format libtraceevent -O noirq-info -i a.dat -i b.dat >lib &&
	! grep -q "^#" lib
'

test_expect_success 'the same order and times as trace-cmd report -i HOST -i GUEST' '
	command -v trace-cmd >/dev/null || exit 0
	trace-cmd report -N -i host.dat -i guest.dat >expect 2>/dev/null &&
	tr report --format libtraceevent -O noirq-info -i host.dat -i guest.dat >actual &&
	cmp_names expect actual actual 40
'

# Per-CPU samples, interpolated between them and extrapolated past them,
# the offsets wide enough (ms) to reorder the markers; v7 and v6 guests.
test_expect_success 'interpolated samples per CPU (v7 and v6): as trace-cmd' '
	command -v trace-cmd >/dev/null || exit 0
	t1=$(ns rec.dat 1) && t20=$(ns rec.dat 20) && mid=$(((t1 + t20) / 2)) &&
	c0="$t1:-30000000,$mid:-1000:1:0,$t20:20000000" &&
	c1="$mid:-2500000,$t20:500000:3:1" &&
	for v in plain plain6; do
		rw $v.dat g.dat --trace-id 0x2222 --time-shift "0x1111 1 $c0 $c1" &&
		trace-cmd report -N -i host.dat -i g.dat >expect 2>/dev/null &&
		tr report --format libtraceevent -O noirq-info -i host.dat -i g.dat >actual &&
		cmp_names expect actual actual 40 &&
		trace-cmd report -N -t -i host.dat -i g.dat >expect 2>/dev/null &&
		tr report --format libtraceevent -O noirq-info -t -i host.dat -i g.dat >actual &&
		cmp_names expect actual actual 40 || exit 1
	done &&
	# trace-cmd 2.9 wrote no fraction bits
	rw plain.dat g.dat --trace-id 0x2222 --no-frac --time-shift "0x1111 1 $c0 $c1" &&
	trace-cmd report -N -t -i host.dat -i g.dat >expect 2>/dev/null &&
	tr report --format libtraceevent -O noirq-info -t -i host.dat -i g.dat >actual &&
	cmp_names expect actual actual 40
'

test_expect_success '--stat and tr dump show the trace ids, the time shift and the guest' '
	t1=$(ns rec.dat 1) && t10=$(ns rec.dat 10) &&
	tr report --stat -i host.dat -i guest.dat >stat &&
	test_grep -q "^trace id: *0x1111$" stat &&
	test_grep -q "^guest: *vm, trace id 0x2222, 2 vCPUs (host tasks 501 502)$" stat &&
	test_grep -q "^time shift: *to the clock of trace id 0x1111, 2 samples on 2 CPUs$" stat &&
	tr dump -i guest.dat >dump &&
	test_grep -q "^time shift: *to the host of trace id 0x1111, flags 0x0, 2 CPUs$" dump &&
	test_grep -q "^    time 0  offset $((t1 - t10 - 1))  scaling 1  fraction 0$" dump &&
	test_grep -q " 12  time_shift$" dump &&
	tr dump -i host.dat >dump &&
	test_grep -q "^guest: *.vm., trace id 0x2222, 2 vCPUs$" dump &&
	test_grep -q "^  vcpu 1: host task 502$" dump
'

test_expect_success 'a time shift that does not hold what it says: one line naming it, exit 1' '
	# 3 CPUs in a 16-byte option; and 1 CPU whose 2 samples are cut short
	rw plain.dat bad1.dat --option "12=00000000000000000000000003000000" &&
	test_expect_code 1 tr report -i bad1.dat >out 2>err &&
	test $(wc -l <err) = 1 &&
	test_grep -q "bad1.dat.: corrupt option TIME_SHIFT at offset [0-9]*: 3 CPUs in 16 bytes" err &&
	test_must_be_empty out &&
	rw plain.dat bad2.dat --option "12=0000000000000000000000000100000002000000$(printf %040d 0)" &&
	test_expect_code 1 tr report -i host.dat -i bad2.dat 2>err &&
	test_grep -q "bad2.dat.: corrupt option TIME_SHIFT .*run past its end" err &&
	test_expect_code 1 tr dump -i bad2.dat 2>err &&
	test_grep -q "corrupt option TIME_SHIFT" err &&
	# shorter than its header: ignored, as trace-cmd does
	rw plain.dat short.dat --option "12=0000" &&
	merged_marks -i short.dat >got && merged_marks -i plain.dat >expect && test_cmp expect got &&
	# a malformed GUEST only names no guest
	rw rec.dat badguest.dat --option "13=766d00" &&
	tr report --stat -i badguest.dat >stat && ! grep -q "^guest:" stat
'

test_done
