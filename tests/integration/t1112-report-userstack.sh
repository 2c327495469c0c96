#!/bin/bash
# User stacks (the userstacktrace option's ftrace:user_stack records) named
# by object and offset under sym-userobj: tr record keeps the traced
# processes' memory maps in the file (a PROCMAPS option, trace-cmd's
# --proc-map layout) and tr report prints each entry as the kernel's own
# trace file does, checked against that file of a second instance read
# while the process still lives (the kernel names objects from the live
# process's memory).  tr report --user-syms goes past the kernel's text:
# each entry's function too, from the object's ELF, checked against nm.
# Then the maps of the command's children (followed under ptrace), of -P's
# children (-c), in a killed recording's spool (tr restore), from tr
# extract and through -N; libtracecmd reads the same objects from them.
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
	# The kernel instance starts once the process sleeps in its loop: its
	# start-up stacks (imports) would be there and not in tr'"'"'s 300 ms.
	python3 -c "import time
open(\"ready\", \"w\").close()
for _ in range(3000): time.sleep(0.01)" &
	bg=$!
	test_when_finished "kill $bg 2>/dev/null || :"
	for i in $(seq 100); do test -e ready && break; sleep 0.1; done &&
	test -e ready &&
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
	# Every process'"'"'s (python3 may be a wrapper that forks on its way).
	for o in $off; do
		printf "g" | dd of=bad.dat bs=1 seek=$o conv=notrunc 2>/dev/null || return 1
	done &&
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

# The user stack entries of a trace text as "PID ADDRESS" lines, from
# tr report -O nosym-userobj (the record's pid: these workloads have one
# thread each, so it is the tgid the maps are looked up by).
stack_addrs() {
	awk '/^ =>  </ { if (pid) { a = $2; gsub(/[<>]/, "", a); print pid, a }; next }
	     /^ => / { next }
	     { pid = 0; if ($0 ~ /<user stack trace>/ && match($0, /-[0-9]+ +\[/))
		pid = substr($0, RSTART + 1, RLENGTH - 1) + 0 }' "$1"
}
# The entries tr names under sym-userobj, in the same order.
stack_named() {
	awk '/^ => / { if (keep) print; next }
	     { keep = $0 ~ /<user stack trace>/ }' "$1"
}

# libtracecmd's own reading of the file's PROCMAPS options (trace-cmd's
# --proc-map reader, tracecmd_search_task_map()): each "PID ADDRESS" as
# the kernel prints it under sym-userobj.
cat >"$TEST_TMP/tc-maps.py" <<\PY
import ctypes, sys
class Map(ctypes.Structure):
    _fields_ = [("start", ctypes.c_ulonglong), ("end", ctypes.c_ulonglong),
                ("name", ctypes.c_char_p)]
lib = ctypes.CDLL("libtracecmd.so.1")
lib.tracecmd_open.restype = ctypes.c_void_p
lib.tracecmd_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
lib.tracecmd_search_task_map.restype = ctypes.POINTER(Map)
lib.tracecmd_search_task_map.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_ulonglong]
h = lib.tracecmd_open(sys.argv[1].encode(), 0)
if not h:
    sys.exit("libtracecmd cannot open " + sys.argv[1])
for line in sys.stdin:
    pid, addr = line.split()
    m = lib.tracecmd_search_task_map(h, int(pid), int(addr, 16))
    if m:
        print(" => %s[+0x%x]" % (m.contents.name.decode(), int(addr, 16) - m.contents.start))
    else:
        print(" =>  <%s>" % addr)
PY

test_expect_success 'the command'"'"'s children: each named from its own map, read as it exited' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	for scope in "" "--follow -c"; do
		tr record -q -B $inst -O userstacktrace -e $EV $scope -o ch.dat \
			sh -c "./w-pie; ./w-no-pie; echo \$\$ >shpid" &&
		tr report -i ch.dat --user-syms >ch.txt &&
		for w in w-pie w-no-pie; do
			n=$(grep -cE "^ => $TEST_TMP/$w\[\+0x[0-9a-f]+\] tr_usym_worker\+0x[0-9a-f]+$" \
				ch.txt) &&
			test $n -ge 4 || { echo "$w: $n entries named"; return 1; }
		done &&
		tr report -i ch.dat --stat >st.txt &&
		test_grep -E "^memory maps:    3 processes \(pid .*\b$(cat shpid)\b" st.txt || return 1
	done &&
	# --follow -c: the shell and its children only, each with its map.
	test_grep -E "^user stacks:    [0-9]+ of 2 processes$" st.txt
'

test_expect_success 'a child that outlives the command: its map read as the recording ends, then let go' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	rm -f ready child &&
	test_when_finished "kill \$(cat child 2>/dev/null) 2>/dev/null || :" &&
	tr record -q -B $inst -O userstacktrace -e $EV -o out.dat sh -c "
		python3 -c \"import time
open(\\\"ready\\\", \\\"w\\\")
for _ in range(3000): time.sleep(0.01)\" & echo \$! >child
		for i in \$(seq 100); do [ -e ready ] && break; sleep 0.1; done
		sleep 0.2" &&
	child=$(cat child) &&
	# Running on, traced by no one and not stopped.
	test_grep -E "^TracerPid:\s+0$" /proc/$child/status &&
	test_grep -E "^State:\s+[RS]" /proc/$child/status &&
	tr report -i out.dat -O sym-userobj >out.txt &&
	blocks $child out.txt >out.b &&
	test_grep -E "^ => /.*libc[^ ]*\[\+0x[0-9a-f]+\]$" out.b
'

test_expect_success 'libtracecmd (trace-cmd'"'"'s reader) finds the same objects in the maps' '
	python3 -c "import ctypes; ctypes.CDLL(\"libtracecmd.so.1\")" 2>/dev/null ||
		{ say "# no libtracecmd"; return 0; }
	tr report -i ch.dat -O nosym-userobj >bare.txt &&
	tr report -i ch.dat -O sym-userobj >named.txt &&
	stack_addrs bare.txt >addrs &&
	test $(wc -l <addrs) -ge 8 &&
	python3 tc-maps.py ch.dat <addrs >tc.named &&
	stack_named named.txt >tr.named &&
	test_grep "w-no-pie\[+0x" tc.named &&
	test_cmp tc.named tr.named &&
	trace-cmd report ch.dat >chtc.txt &&
	test $(grep -c "user_stack:" chtc.txt) -ge 8 &&
	trace-cmd dump --options ch.dat >dump.txt 2>&1 &&
	test $(grep -c "Option PROCMAPS" dump.txt) = 3
'

# A process of -P's that forks once "go" exists: the child sleeps (for
# ever, or four times and exits: argv[1]), the parent waits, writes
# "done", and sleeps on.
cat >"$TEST_TMP/forker.py" <<\PY
import os, sys, time
while not os.path.exists("go"):
    time.sleep(0.01)
pid = os.fork()
if pid == 0:
    open("child", "w").write(str(os.getpid()))
    for _ in range(4 if sys.argv[1] == "short" else 3000):
        time.sleep(0.01)
    os._exit(0)
if sys.argv[1] == "short":
    os.waitpid(pid, 0)
open("done", "w").write("1")
for _ in range(3000):
    time.sleep(0.01)
PY

test_expect_success '-P -c: a child alive at the end is named from its map, read then, as the kernel names it' '
	rm -f go done child
	python3 forker.py long &
	bg=$!
	test_when_finished "kill $bg 2>/dev/null || :; kill \$(cat child 2>/dev/null) 2>/dev/null || :"
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	kernel_instance -P $bg -c
	"$TR" record -q -B $inst -O userstacktrace -O sym-userobj -e $EV -P $bg -c \
		--duration 30s -o pc.dat &
	rec=$!
	test_when_finished "kill $rec 2>/dev/null || :"
	test_wait_recording $inst &&
	touch go &&
	for i in $(seq 100); do [ -e done ] && break; sleep 0.1; done &&
	test -e done &&
	sleep 0.3 &&
	kill -INT $rec && wait $rec &&
	tr stop -B $kinst &&
	cat $TRACEFS/instances/$kinst/trace >kc.txt &&
	tr report -i pc.dat >rc.txt &&
	child=$(cat child) &&
	blocks $child kc.txt | grep "^ =>" | sort -u >kc.u &&
	blocks $child rc.txt | grep "^ =>" | sort -u >rc.u &&
	test_grep "\[+0x" rc.u &&
	test_cmp kc.u rc.u &&
	tr report -i pc.dat --stat >st.txt &&
	test_grep -E "^memory maps:    2 processes" st.txt &&
	test_grep -E "^user stacks:    [0-9]+ of 2 processes$" st.txt
'

test_expect_success '-P -c: a child gone before the end has no map: --stat names it, its stacks stay addresses' '
	rm -f go done child
	python3 forker.py short &
	bg=$!
	test_when_finished "kill $bg 2>/dev/null || :"
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :"
	"$TR" record -q -B $inst -O userstacktrace -O sym-userobj -e $EV -P $bg -c \
		--flush-interval 1h --duration 30s -o gone.dat &
	rec=$!
	test_when_finished "kill $rec 2>/dev/null || :"
	test_wait_recording $inst &&
	touch go &&
	for i in $(seq 100); do [ -e done ] && break; sleep 0.1; done &&
	test -e done &&
	kill -INT $rec && wait $rec &&
	child=$(cat child) &&
	tr report -i gone.dat --stat >st.txt &&
	test_grep -E "^user stacks:    [0-9]+ of 2 processes, 1 without a memory map \(pid $child\): bare addresses$" st.txt &&
	tr report -i gone.dat >gr.txt &&
	blocks $child gr.txt >gc.b &&
	test_grep -E "^ =>  <[0-9a-f]{16}>$" gc.b &&
	test_must_fail grep "\[+0x" gc.b &&
	blocks $bg gr.txt >gp.b &&
	test_grep "\[+0x" gp.b
'

test_expect_success 'a killed recording'"'"'s spool keeps the maps: tr restore names the stacks' '
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	rm -rf k.dat k.dat.spool shpid
	"$TR" record -q -B $inst -O userstacktrace -e $EV --flush-interval 100ms -o k.dat \
		sh -c "./w-pie; echo \$\$ >shpid; exec python3 -c \"import time
for _ in range(3000): time.sleep(0.01)\"" 2>k.err &
	rec=$!
	test_when_finished "kill -9 $rec 2>/dev/null || :; kill \$(cat shpid 2>/dev/null) 2>/dev/null || :"
	for i in $(seq 100); do
		grep -qa "python" k.dat.spool/procmaps 2>/dev/null && break
		sleep 0.1
	done &&
	test_grep -a "$TEST_TMP/w-pie" k.dat.spool/procmaps &&
	# Two flushes more (python3 keeps making events), for the pages.
	n=$(spool_bytes k.dat.spool) && wait_for 10 spool_past k.dat.spool $n &&
	n=$(spool_bytes k.dat.spool) && wait_for 10 spool_past k.dat.spool $n &&
	kill -9 $rec && { wait $rec 2>/dev/null || :; } &&
	kill $(cat shpid) &&
	tr reset -B $inst &&
	tr restore -q k.dat &&
	tr report -i k.dat --user-syms >kr.txt &&
	n=$(grep -cE "^ => $TEST_TMP/w-pie\[\+0x[0-9a-f]+\] tr_usym_worker\+0x" kr.txt) &&
	test $n -ge 4 &&
	blocks $(cat shpid) kr.txt >kr.b &&
	test_grep -E "^ => /.*libc[^ ]*\[\+0x[0-9a-f]+\]" kr.b &&
	tr report -i k.dat --stat >kst.txt &&
	test_grep -E "^memory maps:    [0-9]+ processes" kst.txt &&
	# The restored file (v7, compressed) in trace-cmd and libtracecmd.
	command -v trace-cmd >/dev/null || { say "# no trace-cmd"; return 0; }
	trace-cmd report k.dat >ktc.txt 2>ktc.err &&
	test $(grep -c "user_stack:" ktc.txt) -ge 4 &&
	python3 -c "import ctypes; ctypes.CDLL(\"libtracecmd.so.1\")" 2>/dev/null ||
		{ say "# no libtracecmd"; return 0; }
	tr report -i k.dat -O nosym-userobj >kbare.txt &&
	tr report -i k.dat -O sym-userobj >knamed.txt &&
	stack_addrs kbare.txt >kaddrs &&
	python3 tc-maps.py k.dat <kaddrs >ktc.named &&
	stack_named knamed.txt >ktr.named &&
	test_grep "w-pie\[+0x" ktc.named &&
	test_cmp ktc.named ktr.named
'

test_expect_success 'tr extract: the maps of the processes the instance traces (-P), as they are now' '
	python3 -c "import time
for _ in range(3000): time.sleep(0.01)" &
	bg=$!
	test_when_finished "kill $bg 2>/dev/null || :"
	kernel_instance -P $bg &&
	wait_for 10 show_has $kinst "-$bg +\[" &&
	tr extract -q -B $kinst -o x.dat &&
	tr report -i x.dat >xr.txt &&
	blocks $bg xr.txt | grep "^ =>" | sort -u >xr.u &&
	test_grep -E "^ => /.*libc[^ ]*\[\+0x[0-9a-f]+\]$" xr.u &&
	tr report -i x.dat --stat >xst.txt &&
	test_grep -E "^memory maps:    1 process \(pid $bg\)$" xst.txt
'

test_expect_success 'record -N: the -P process'"'"'s map goes with the metadata, read as recording starts' '
	rm -f ready
	python3 -c "import time
open(\"ready\", \"w\")
for _ in range(3000): time.sleep(0.01)" &
	bg=$!
	test_when_finished "kill $bg 2>/dev/null || :"
	# Its map as it runs (python3 may be a wrapper that forks and execs first).
	for i in $(seq 100); do [ -e ready ] && break; sleep 0.1; done &&
	test -e ready
	rm -rf net.out && mkdir net.out
	"$TR" listen -p 0 -d net.out 2>l.log &
	lpid=$!
	test_when_finished "kill $lpid 2>/dev/null || :; wait $lpid 2>/dev/null || :"
	for i in $(seq 100); do
		port=$(sed -n "s/.*listening on .* port \([0-9]*\)$/\1/p" l.log)
		[ -n "$port" ] && break
		sleep 0.1
	done &&
	test -n "$port" &&
	inst=$(test_instance) &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	tr record -q -B $inst -O userstacktrace -O sym-userobj -e $EV -P $bg --duration 300ms \
		-N 127.0.0.1:$port &&
	for i in $(seq 100); do grep -q "ended: wrote" l.log && break; sleep 0.1; done &&
	f=$(echo net.out/*.dat) && test -f "$f" &&
	tr report -i "$f" >nr.txt &&
	blocks $bg nr.txt >nr.b &&
	test_grep -E "^ => /.*libc[^ ]*\[\+0x[0-9a-f]+\]$" nr.b &&
	tr report -i "$f" --stat >nst.txt &&
	test_grep -E "^memory maps:    1 process \(pid $bg\)$" nst.txt
'

test_done
