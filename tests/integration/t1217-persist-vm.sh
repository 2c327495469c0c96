#!/bin/bash
# A trace that survives a crash: the full guest (7.3) boots with a
# persistent instance (memmap= and trace_instance=NAME^traceoff@ADDR:SIZE,
# the lines tr persist prints), and tests/vm/run --boots lets it reboot in
# the same QEMU process, so its RAM survives.  Boot 1 arms the instance
# with tr start (markers and timer:timer_start, whose function field is a
# %ps of this boot's addresses), writes numbered markers, saves the
# kernel's own text of the instance, and crashes the kernel (sysrq c,
# panic=1).  Boot 2 finds the previous boot's data (tr check), extracts
# it (tr extract: LAST_BOOT_INFO stored), and tr report prints every
# marker written before the crash, in order, and the timer functions as
# the kernel named them before the crash, although KASLR moved the
# kernel; trace-cmd 3.4 reports the same file with the same names.  Then
# it arms the instance again and reboots cleanly; boot 3 reads that
# boot's markers.  Runs on the host, in the host-guest tier; skipped
# (with the reason) without qemu or the cached full kernel.
. "$(dirname "$0")/lib.sh"
test_boots_guest

vm_skip=
if [ -n "${TR_VM:-}" ]; then
	vm_skip="boots its own guest: runs on the host tier"
elif ! command -v qemu-system-x86_64 >/dev/null; then
	vm_skip="no qemu-system-x86_64 (tests/vm/deps installs it)"
elif ! kimg=$("$TEST_ROOT/tests/vm/build-kernel" --cached 2>/dev/null); then
	# Never built here: a kernel build has no place in a test.
	vm_skip="no cached full guest kernel (tests/vm/build-kernel)"
elif ! grep -qs "^linux-source-7" "$(dirname "$kimg")/source-version"; then
	vm_skip="the cached full kernel is not Linux 7 (no persistent buffers to test)"
fi

# 12 MiB at 1.5 GiB of the guest's 2: memmap= keeps KASLR off it, so the
# buffer is in the same place at every boot.
BOOT_LINE='memmap=12M$0x60000000 trace_instance=trp^traceoff@0x60000000:12M'

# The guest's job, run at each boot (TR_VM_BOOT); what it saves for the
# test goes to stdout between "=== NAME" lines, and what must outlive a
# boot to the results share.
guest_job='set -u
cd /tmp
# The state dir of the suite is on the host: one of this boot instead.
export TR_STATE_DIR=/tmp/tr-state
put() { echo "=== $1"; cat "$2"; echo "=== end"; }
ksym() { awk -v s="$1" "\$3 == s { print \$1; exit }" /proc/kallsyms; }
echo "boot $TR_VM_BOOT: _text $(ksym _text)"
"$TR" check >check.txt 2>&1; put "check-$TR_VM_BOOT" check.txt
put "lbi-$TR_VM_BOOT" /sys/kernel/tracing/instances/trp/last_boot_info
case $TR_VM_BOOT in
1)
	"$TR" start -B trp -e timer:timer_start >start.txt 2>&1
	echo "start status $?"; put start start.txt
	for i in $(seq 1 40); do "$TR" marker -B trp "persist $i" || echo "marker $i failed"; done
	# The kernel its own reader, before the crash: what it names each function.
	cat /sys/kernel/tracing/instances/trp/trace >before.txt; put before before.txt
	echo 1 >/proc/sys/kernel/sysrq
	sync
	echo c >/proc/sysrq-trigger
	echo "still alive after sysrq c" ;;
2)
	"$TR" stat -B trp >stat.txt 2>&1; put stat stat.txt
	"$TR" extract -B trp -o prev.dat >extract.txt 2>&1
	echo "extract status $?"; put extract extract.txt
	"$TR" report -i prev.dat >report.txt 2>report.err
	echo "report status $?"; put report report.txt; put report-err report.err
	"$TR" dump -i prev.dat >dump.txt 2>&1; put dump dump.txt
	if [ -n "${TR_TC34:-}" ]; then
		"$TR_TC34" report -i prev.dat >tc34.txt 2>tc34.err
		echo "tc34 status $?"; put tc34 tc34.txt
	fi
	"$TR" check --has persistent; put check-after <("$TR" check)
	# Armed again, a clean reboot.
	"$TR" start -B trp -e sched:sched_process_exec >start2.txt 2>&1
	echo "start2 status $?"; put start2 start2.txt
	for i in 1 2 3; do "$TR" marker -B trp "again $i"; done
	sync
	# reboot(2) RESTART: the kernel goes down cleanly (the reboot command
	# of the host root is systemd, which does nothing in a chroot).
	python3 -c "import ctypes; ctypes.CDLL(None).syscall(169, 0xfee1dead, 672274793, 0x01234567, 0)"
	echo "still alive after reboot" ;;
3)
	"$TR" extract -B trp -o again.dat >extract3.txt 2>&1
	echo "extract3 status $?"; put extract3 extract3.txt
	"$TR" report -i again.dat >again.txt 2>&1; put again again.txt ;;
esac'

test -n "$vm_skip" && test_skip_all=$vm_skip

# boot_guest LOG SECONDS BOOTLINE BOOTS JOB: boot the full guest BOOTS
# times with BOOTLINE appended, running JOB at each boot, its output in
# $TEST_TMP/LOG and each "=== NAME" part of it in $TEST_TMP/NAME.
boot_guest() {
	local rc
	(cd "$TEST_ROOT" && TR_VM_TIMEOUT=$2 TR_VM_APPEND="$3" \
		timeout -k 10 $(($2 + 50)) tests/vm/run --boots "$4" -- bash -c "$5") \
		>"$TEST_TMP/$1" 2>&1 </dev/null
	rc=$?
	awk -v d="$TEST_TMP/" '/^=== end$/ { f = ""; next } /^=== / { f = d $2; printf "" >f; next }
	     f { print >>f }' "$TEST_TMP/$1"
	test "$rc" = 0 || { tail -n 60 "$TEST_TMP/$1"; return 1; }
}

test_expect_success 'three boots of one guest: armed, crashed, read, armed, rebooted, read' '
	boot_guest vm.log 900 "$BOOT_LINE" 3 "$guest_job"
'

cd "$TEST_TMP" || exit 1

# Memory just powered on is zeros, which pass the kernel's checks as a
# previous boot with its kernel at 0 and nothing in it: nothing to keep.
test_expect_success 'boot 1: the instance is persistent and empty, armed; the kernel crashed' '
	test_grep "^persistent  *yes  *trp: empty (nothing kept from a previous boot)$" check-1 &&
	test_grep "^start status 0$" vm.log &&
	test_must_fail grep -q "marker .* failed\|still alive after sysrq" vm.log &&
	test_grep -c "tracing_mark_write: persist" before >/dev/null
'

test_expect_success 'boot 2: tr check finds the previous boot in trp; KASLR moved the kernel' '
	test_grep "^persistent  *yes  *trp: the previous boot.s data" check-2 &&
	t1=$(sed -n "s/^boot 1: _text //p" vm.log) && t2=$(sed -n "s/^boot 2: _text //p" vm.log) &&
	test -n "$t1" && test -n "$t2" &&
	if [ "$t1" = "$t2" ]; then say "# $TEST_FILE: KASLR chose the same place twice"; fi
'

test_expect_success 'tr extract saves it with LAST_BOOT_INFO; trp then holds this boot' '
	test_grep "^extract status 0$" vm.log &&
	test_grep -E "^ +[0-9]+ +[0-9]+ +24 +last_boot_info$" dump &&
	test_grep "^persistent  *yes  *trp: this boot.s data" check-after
'

test_expect_success 'tr report: every marker written before the crash, in order' '
	test_grep "^report status 0$" vm.log &&
	test_grep "holds events of an earlier boot (instance .trp.)" report-err &&
	sed -n "s/.*tracing_mark_write: persist //p" report >marks &&
	seq 1 40 >expect &&
	test_cmp expect marks
'

# The kernel named each timer function in boot 1; tr names the same from
# boot 2, through the stored delta.  Compared event by event (timestamps
# and all), over the events the kernel had shown before the crash.
test_expect_success 'tr report: %ps functions as the kernel named them before the crash' '
	grep " timer_start: " before | sed "s/^.*\] [^ ]* *\([0-9.]*\): timer_start: .*function=\([^ ]*\) .*/\1 \2/" >k &&
	grep " timer_start: " report | sed "s/^.*\] [^ ]* *\([0-9.]*\): timer_start: .*function=\([^ ]*\) .*/\1 \2/" >t &&
	test -s k &&
	head -n "$(wc -l <k)" t >t.head &&
	test_cmp k t.head &&
	test_must_fail grep -q "function=0x\|function=ffff" k t.head
'

test_tc34 'trace-cmd 3.4 reports the same markers and functions' '
	test_grep "^tc34 status 0$" vm.log &&
	sed -n "s/.*tracing_mark_write: persist //p" tc34 >marks34 &&
	test_cmp expect marks34 &&
	sed -n "s/.* timer_start: .*function=\([^ ]*\) .*/\1/p" tc34 | head -n "$(wc -l <k)" >f34 &&
	cut -d" " -f2 k >fk &&
	test_cmp fk f34
'

test_expect_success 'boot 3, after a clean reboot: the markers of boot 2' '
	test_grep "^start2 status 0$" vm.log &&
	test_must_fail grep -q "still alive after reboot" vm.log &&
	test_grep "^extract3 status 0$" vm.log &&
	sed -n "s/.*tracing_mark_write: again //p" again >marks3 &&
	printf "1\n2\n3\n" >expect3 &&
	test_cmp expect3 marks3
'

# A backup instance (trace_instance=BK=NAME): at boot the kernel copies the
# previous boot's data into read-only BK, and NAME traces again from boot.
BACKUP_LINE='memmap=12M$0x60000000 trace_instance=trp@0x60000000:12M,sched:sched_process_exec trace_instance=bk=trp'
backup_job='set -u
cd /tmp
export TR_STATE_DIR=/tmp/tr-state
put() { echo "=== $1"; cat "$2"; echo "=== end"; }
"$TR" check >check.txt 2>&1; put "bcheck-$TR_VM_BOOT" check.txt
case $TR_VM_BOOT in
1)
	for i in $(seq 1 20); do "$TR" marker -B trp "backup $i" || echo "marker $i failed"; done
	echo 1 >/proc/sys/kernel/sysrq
	echo c >/proc/sysrq-trigger
	echo "still alive after sysrq c" ;;
2)
	"$TR" stat -B bk >stat.txt 2>&1; put bstat stat.txt
	"$TR" extract -B bk -o bk.dat >extract.txt 2>&1
	echo "bextract status $?"; put bextract extract.txt
	"$TR" report -i bk.dat >report.txt 2>&1; put breport report.txt
	"$TR" check >check.txt 2>&1; put bcheck-after check.txt ;;
esac'

test_expect_success 'a backup instance: the previous boot copied into it at boot' '
	boot_guest bvm.log 600 "$BACKUP_LINE" 2 "$backup_job"
'

test_expect_success 'boot 2: bk holds the previous boot (read-only), trp this one' '
	test_grep "^persistent  *yes  *bk: the previous boot.s data (a read-only backup); trp: this boot.s data" bcheck-2 &&
	test_grep "persistent: *yes, the previous boot.s data .*, a read-only backup" bstat
'

# Read out, the backup holds nothing (the kernel removes it once a read()
# of its pipe finds it empty; tr reads by splice or mapping).
test_expect_success 'tr extract -B bk: the markers of the crashed boot; then bk holds nothing' '
	test_grep "^bextract status 0$" bvm.log &&
	sed -n "s/.*tracing_mark_write: backup //p" breport >bmarks &&
	seq 1 20 >bexpect &&
	test_cmp bexpect bmarks &&
	test_must_fail grep -q "bk: the previous boot" bcheck-after
'

test_done
