#!/bin/bash
# User stacks (the userstacktrace option's ftrace:user_stack records) named
# by object and offset under sym-userobj: tr record keeps the traced
# processes' memory maps in the file (a PROCMAPS option, trace-cmd's
# --proc-map layout) and tr report prints each entry as the kernel's own
# trace file does, checked against that file of a second instance read
# while the process still lives (the kernel names objects from the live
# process's memory).  tr report --user-syms goes past the kernel's text:
# each entry's function too, from the object's ELF, checked against nm.
. "$(dirname "$0")/lib.sh"

EV=syscalls:sys_enter_clock_nanosleep
if [ ! -e "$TRACEFS/options/userstacktrace" ] || [ ! -e "$TRACEFS/options/sym-userobj" ]; then
	test_skip_all="no userstacktrace option (CONFIG_USER_STACKTRACE_SUPPORT)"
elif [ ! -d "$TRACEFS/events/syscalls/sys_enter_clock_nanosleep" ]; then
	test_skip_all="no syscall events (CONFIG_FTRACE_SYSCALLS)"
fi

# The records of task PID in a trace text (tr report's or the kernel's):
# each event's name and its text, then its stack lines, as "EVENT: TEXT"
# and " => ..." lines; the columns before the event (which differ between
# two instances: times) are dropped.
blocks() {
	awk -v pid="$1" '
		/^ => / { if (keep) print; next }
		/^#/ { next }
		{
			keep = 0
			if (match($0, "-" pid " +\\[")) {
				keep = 1
				t = $0; sub(/^.*[0-9]+\.[0-9]+: /, "", t); print t
			}
		}' "$2"
}

# A second instance with the same options and event: the kernel's text.
kernel_instance() {
	kinst=$(test_instance)-k
	test_when_finished "tr reset -B $kinst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$kinst 2>/dev/null || :"
	tr start -B $kinst -O userstacktrace -O sym-userobj -e $EV "$@"
}

# The workload: a few sleeps in libc's clock_nanosleep, then (while the
# process lives) the kernel's trace text of instance $1 into $2.
cat >"$TEST_TMP/work.py" <<\PY
import os, sys, time
for _ in range(4):
    time.sleep(0.002)
open(sys.argv[3], "w").write(str(os.getpid()))
os.system("echo 0 > %s/instances/%s/tracing_on" % (sys.argv[4], sys.argv[1]))
open(sys.argv[2], "w").write(open("%s/instances/%s/trace" % (sys.argv[4], sys.argv[1])).read())
PY

test_expect_success 'record a command: its stacks by object+offset, as the kernel prints them' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	kernel_instance &&
	tr record -q -B $inst -O userstacktrace -O sym-userobj -e $EV -o t.dat \
		python3 work.py $kinst k.txt pid $TRACEFS &&
	pid=$(cat pid) &&
	tr report -i t.dat >r.txt 2>r.err &&
	test_must_be_empty r.err &&
	blocks $pid k.txt >k.b && blocks $pid r.txt >r.b &&
	test_grep -E "^ => /.*libc[^ ]*\[\+0x[0-9a-f]+\]$" k.b &&
	test $(grep -c "<user stack trace>" r.b) -ge 4 &&
	test_cmp k.b r.b
'

test_expect_success 'the file reads in trace-cmd report, stacks and all' '
	command -v trace-cmd >/dev/null || { say "# no trace-cmd"; return 0; }
	trace-cmd report t.dat >tc.txt 2>tc.err &&
	test_must_fail grep -i "unknown option\|error\|fail" tc.err &&
	test $(grep -c "user_stack:" tc.txt) -ge 4 &&
	test_grep -E "=> 0x[0-9a-f]+" tc.txt
'

test_expect_success 'the file lists the map as a PROCMAPS option (id 10, as trace-cmd numbers it)' '
	tr dump -i t.dat >d.txt &&
	test_grep -E " 10 +procmaps$" d.txt &&
	tr report -i t.dat --stat | test_grep "procmaps"
'

test_expect_success 'sym-userobj at report time: -O sym-userobj names, -O nosym-userobj does not' '
	tr report -i t.dat -O nosym-userobj >bare.txt &&
	blocks $(cat pid) bare.txt >bare.b &&
	test_grep -E "^ =>  <[0-9a-f]{16}>$" bare.b &&
	test_must_fail grep "\[+0x" bare.b &&
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	kernel_instance &&
	tr record -q -B $inst -O userstacktrace -e $EV -o plain.dat \
		python3 work.py $kinst k2.txt pid $TRACEFS &&
	tr report -i plain.dat >p.txt &&
	test_must_fail grep "\[+0x" p.txt &&
	tr report -i plain.dat -O sym-userobj >p2.txt &&
	blocks $(cat pid) k2.txt >k2.b && blocks $(cat pid) p2.txt >p2.b &&
	test_cmp k2.b p2.b
'

test_expect_success 'record -P PID: a running process'"'"'s map, read as the recording ends' '
	python3 -c "import time
for _ in range(3000): time.sleep(0.01)" &
	bg=$!
	test_when_finished "kill $bg 2>/dev/null || :"
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	kernel_instance -P $bg &&
	tr record -q -B $inst -O userstacktrace -O sym-userobj -e $EV -P $bg --duration 300ms \
		-o p.dat &&
	tr stop -B $kinst &&
	cat $TRACEFS/instances/$kinst/trace >kp.txt &&
	tr report -i p.dat >rp.txt &&
	blocks $bg kp.txt | grep "^ =>" | sort -u >kp.u &&
	blocks $bg rp.txt | grep "^ =>" | sort -u >rp.u &&
	test_grep "\[+0x" rp.u &&
	test_cmp kp.u rp.u
'

test_expect_success 'the command under ptrace: its signals reach it, a duration ends it' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	tr record -q -B $inst -O userstacktrace -e $EV -o s.dat \
		sh -c "trap \"echo got-usr1\" USR1; kill -USR1 \$\$; echo after; exit 3" >out 2>err &&
	test_grep -x got-usr1 out &&
	test_grep -x after out &&
	start=$(date +%s) &&
	tr record -q -B $inst -O userstacktrace -e $EV --duration 300ms -o d.dat sleep 30 &&
	test $(( $(date +%s) - start )) -lt 10 &&
	tr report -i d.dat -O sym-userobj >d.txt &&
	test_grep -E "^ => /.*\[\+0x[0-9a-f]+\]" d.txt
'

test_expect_success 'a malformed PROCMAPS option is left out: bare addresses, said once' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	tr record -q -B $inst --file-version 6 -O userstacktrace -O sym-userobj -e $EV -o v6.dat \
		python3 -c "import time; time.sleep(0.002)" &&
	tr report -i v6.dat >good.txt &&
	test_grep "\[+0x" good.txt &&
	off=$(tr dump -i v6.dat | awk "\$3 == 10 && \$4 == \"procmaps\" { print \$1 }") &&
	test -n "$off" &&
	cp v6.dat bad.dat &&
	printf "g" | dd of=bad.dat bs=1 seek=$off conv=notrunc 2>/dev/null &&
	tr report -i bad.dat >bad.txt 2>bad.err &&
	test_must_fail grep "\[+0x" bad.txt &&
	test_grep -E "^ =>  <[0-9a-f]{16}>$" bad.txt &&
	test_grep "sym-userobj (the processes" bad.err &&
	test $(wc -l <bad.err) = 1
'

# --user-syms: a workload of known functions, each calling the next, the
# last sleeping in libc.  The kernel walks a user stack by frame pointers,
# and libc's clock_nanosleep makes no frame: the entry after libc's is the
# return into tr_usym_worker (from tr_usym_nap's frame), then main's.
cat >"$TEST_TMP/w.c" <<\C
#include <time.h>
__attribute__((noinline)) static void tr_usym_nap(void)
{
	struct timespec ts = { 0, 2000000 };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	__asm__ volatile("");
}
__attribute__((noinline)) void tr_usym_worker(int n)
{
	for (int i = 0; i < n; i++)
		tr_usym_nap();
	__asm__ volatile("");
}
int main(void)
{
	tr_usym_worker(4);
	return 0;
}
C

# in_function NAME BINARY OFF: is OFF inside NAME by nm's value and size?
# (OFF is from the function's start, as --user-syms prints it.)
in_function() {
	size=$(nm -S "$2" | awk -v n="$1" '$4 == n { print $2 }') &&
	test -n "$size" &&
	test $(( 0x$3 )) -lt $(( 0x$size ))
}

test_expect_success '--user-syms: the workload'"'"'s functions by name (PIE and not), libc'"'"'s from .dynsym' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	for pie in -pie -no-pie; do
		cc -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls -fPIE $pie \
			-o w$pie w.c || return 1
		tr record -q -B $inst -O userstacktrace -e $EV -o u$pie.dat ./w$pie &&
		tr report -i u$pie.dat --user-syms >us$pie.txt 2>us$pie.err &&
		test_must_be_empty us$pie.err &&
		grep -E "^ => $TEST_TMP/w$pie\[\+0x[0-9a-f]+\] tr_usym_worker\+0x[0-9a-f]+$" \
			us$pie.txt >worker &&
		test $(wc -l <worker) -ge 4 &&
		off=$(sed -n "1s/.*tr_usym_worker+0x//p" worker) &&
		in_function tr_usym_worker w$pie $off &&
		grep -E "^ => $TEST_TMP/w$pie\[\+0x[0-9a-f]+\] main\+0x[0-9a-f]+$" us$pie.txt >main &&
		in_function main w$pie $(sed -n "1s/.*main+0x//p" main) &&
		libc=$(grep -oE -m1 "^ => /[^[]*libc[^[]*\[\+0x[0-9a-f]+\] clock_nanosleep[@a-zA-Z0-9_.]*\+0x" \
			us$pie.txt | sed -E "s/^ => //; s/\[.*//") &&
		nm -D --defined-only "$libc" | test_grep -E " clock_nanosleep(@|$)" &&
		# Without the names it is sym-userobj'"'"'s text, line for line.
		tr report -i u$pie.dat -O sym-userobj >uo$pie.txt &&
		sed -E "s/^( => [^ ]*\[\+0x[0-9a-f]+\]) [^ ]+\+0x[0-9a-f]+$/\1/" us$pie.txt >stripped &&
		test_cmp uo$pie.txt stripped || return 1
	done
'

test_expect_success '--user-syms: an object gone since the recording keeps its offsets, said once' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	cp w-pie gone &&
	tr record -q -B $inst -O userstacktrace -e $EV -o g.dat ./gone &&
	rm gone &&
	tr report -i g.dat --user-syms >g.txt 2>g.err &&
	test_grep -E "^ => $TEST_TMP/gone\[\+0x[0-9a-f]+\]$" g.txt &&
	test_grep -E " clock_nanosleep[@a-zA-Z0-9_.]*\+0x[0-9a-f]+$" g.txt &&
	test $(wc -l <g.err) = 1 &&
	test_grep "no user symbols from .$TEST_TMP/gone. (No such file or directory)$" g.err
'

test_done
