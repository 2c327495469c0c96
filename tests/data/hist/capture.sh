#!/bin/bash
# Capture real kernel hist output for the unit tests (run in the VM tier):
#   tests/vm/run -- bash tests/data/hist/capture.sh > all.out
# Each capture sets one hist trigger in a scratch instance, makes some load,
# and prints "=== NAME" then the hist file; the sections were split into
# NAME.txt by hand (usecs and stacktrace cut to their first entries).
# lat_synth.txt and lat_end.txt come from a wakeup-latency set-up (the
# synthetic event's hist, and the end event's hist with its onmax() lines,
# cut after 17 entries; its Totals block was added by hand).
T=/sys/kernel/tracing
I=$T/instances/trhistcap
mkdir -p $I
cap() {	# NAME SYS/EV SPEC
	local name=$1 ev=$2 spec=$3
	echo "$spec" >> $I/events/$ev/trigger || { echo "refused: $name: $spec"; tail -3 $T/error_log; return; }
	echo 1 > $I/tracing_on
	for i in 1 2 3 4 5 6 7 8; do /bin/true; cat /proc/self/stat >/dev/null; done
	sleep 0.1
	echo "=== $name"
	cat $I/events/$ev/hist
	echo "!$spec" >> $I/events/$ev/trigger
}
cap plain sched/sched_switch 'hist:keys=next_comm'
cap hex sched/sched_switch 'hist:keys=next_pid.hex:vals=hitcount,prev_pid'
cap sym kmem/kmalloc 'hist:keys=call_site.sym:vals=bytes_req'
cap symoff kmem/kmalloc 'hist:keys=call_site.sym-offset:vals=bytes_req,bytes_alloc:sort=bytes_alloc.descending'
cap execname sched/sched_switch 'hist:keys=common_pid.execname'
cap syscall raw_syscalls/sys_enter 'hist:keys=id.syscall:vals=hitcount'
cap log2 kmem/kmalloc 'hist:keys=bytes_req.log2'
cap buckets kmem/kmalloc 'hist:keys=bytes_req.buckets=32:sort=bytes_req'
cap usecs sched/sched_switch 'hist:keys=common_timestamp.usecs'
cap stacktrace sched/sched_switch 'hist:keys=common_stacktrace:vals=hitcount'
cap stacktrace_old sched/sched_switch 'hist:keys=stacktrace:vals=hitcount'
cap multikey sched/sched_switch 'hist:keys=prev_pid,next_pid:vals=hitcount:sort=hitcount.descending'
cap cpu sched/sched_switch 'hist:keys=common_cpu'
cap percent kmem/kmalloc 'hist:keys=call_site.sym:vals=bytes_req.percent,bytes_alloc.percent'
cap graph kmem/kmalloc 'hist:keys=call_site.sym:vals=bytes_req.graph,bytes_alloc'
cap string sched/sched_process_exec 'hist:keys=filename'
cap nokeyhit sched/sched_switch 'hist:keys=next_prio:vals=hitcount,next_pid:sort=next_pid'
cap filter sched/sched_switch 'hist:keys=next_comm if next_pid != 0'
echo 'hist:keys=nosuch' >> $I/events/sched/sched_switch/trigger 2>/dev/null; echo "=== error_log-badkey"; tail -3 $I/error_log
echo 'hist:keys=next_pid.nosuchmod' >> $I/events/sched/sched_switch/trigger 2>/dev/null; echo "=== error_log-badmod"; tail -3 $I/error_log
rmdir $I
uname -r
