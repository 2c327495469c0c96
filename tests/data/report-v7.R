cpus=2
trgen7:             bash-26667 [000]  1977.120928: sched_process_exec:    filename=/usr/bin/bash pid=26667 old_pid=26667
trgen7:             bash-26667 [000]  1977.122362: sched_waking:          comm=qemu-system-x86 pid=23277 prio=120 target_cpu=000
trgen7:             bash-26667 [000]  1977.122371: sched_wakeup:          comm=qemu-system-x86 pid=23277 prio=120 target_cpu=000
trgen7:             bash-26667 [000]  1977.122406: sched_switch:          prev_comm=bash prev_pid=26667 prev_prio=120 prev_state=256 next_comm=qemu-system-x86 next_pid=23277 next_prio=120
trgen7:      rcu_preempt-15    [000]  1977.123893: sched_switch:          prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=128 next_comm=bash next_pid=26667 next_prio=120
trgen7:             bash-26667 [000]  1977.123958: sched_process_fork:    parent_comm=bash parent_pid=26667 child_comm=bash child_pid=26668
trgen7:             bash-26667 [000]  1977.124033: sched_switch:          prev_comm=bash prev_pid=26667 prev_prio=120 prev_state=1 next_comm=bash next_pid=26668 next_prio=120
trgen7:               sh-26668 [000]  1977.124268: sched_process_exec:    filename=/usr/bin/sh pid=26668 old_pid=26668
trgen7:               sh-26668 [000]  1977.124823: print:                 ip=0xffffffff8149895a buf=hello, "world"
trgen7:               sh-26668 [000]  1977.124839: print:                 ip=0xffffffff8149895a buf=no newline
trgen7:               sh-26668 [000]  1977.124888: sched_process_fork:    parent_comm=sh parent_pid=26668 child_comm=sh child_pid=26669
trgen7:               sh-26668 [000]  1977.124897: sched_switch:          prev_comm=sh prev_pid=26668 prev_prio=120 prev_state=2 next_comm=sh next_pid=26669 next_prio=120
trgen7:            sleep-26669 [000]  1977.124940: sched_waking:          comm=sh pid=26668 prio=120 target_cpu=000
trgen7:            sleep-26669 [000]  1977.124943: sched_wakeup:          comm=sh pid=26668 prio=120 target_cpu=000
trgen7:            sleep-26669 [000]  1977.125007: sched_process_exec:    filename=/usr/bin/sleep pid=26669 old_pid=26669
trgen7:            sleep-26669 [000]  1977.125700: sched_switch:          prev_comm=sleep prev_pid=26669 prev_prio=120 prev_state=1 next_comm=sh next_pid=26668 next_prio=120
trgen7:               sh-26668 [000]  1977.125709: sched_switch:          prev_comm=sh prev_pid=26668 prev_prio=120 prev_state=1 next_comm=cc1 next_pid=26442 next_prio=120
trgen7:              cc1-26442 [000]  1977.145764: sched_waking:          comm=sleep pid=26669 prio=120 target_cpu=000
trgen7:              cc1-26442 [000]  1977.145771: sched_wakeup:          comm=sleep pid=26669 prio=120 target_cpu=000
trgen7:              cc1-26442 [000]  1977.145781: sched_switch:          prev_comm=cc1 prev_pid=26442 prev_prio=120 prev_state=0 next_comm=sleep next_pid=26669 next_prio=120
trgen7:            sleep-26669 [000]  1977.145825: sched_process_exit:    comm=sleep pid=26669 prio=120 group_dead=1
trgen7:            sleep-26669 [000]  1977.145970: sched_waking:          comm=sh pid=26668 prio=120 target_cpu=000
trgen7:            sleep-26669 [000]  1977.145973: sched_wakeup:          comm=sh pid=26668 prio=120 target_cpu=000
trgen7:            sleep-26669 [000]  1977.145980: sched_switch:          prev_comm=sleep prev_pid=26669 prev_prio=120 prev_state=32 next_comm=sh next_pid=26668 next_prio=120
trgen7:               sh-26668 [000]  1977.146094: sched_process_fork:    parent_comm=sh parent_pid=26668 child_comm=sh child_pid=26670
trgen7:               sh-26668 [000]  1977.146102: sched_switch:          prev_comm=sh prev_pid=26668 prev_prio=120 prev_state=2 next_comm=cc1 next_pid=26442 next_prio=120
trgen7:      rcu_preempt-15    [000]  1977.147902: sched_switch:          prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=128 next_comm=sh next_pid=26670 next_prio=120
trgen7:               ls-26670 [000]  1977.147981: sched_waking:          comm=sh pid=26668 prio=120 target_cpu=000
trgen7:               ls-26670 [000]  1977.147983: sched_wakeup:          comm=sh pid=26668 prio=120 target_cpu=000
trgen7:               ls-26670 [000]  1977.147988: sched_switch:          prev_comm=sh prev_pid=26670 prev_prio=120 prev_state=256 next_comm=sh next_pid=26668 next_prio=120
trgen7:               sh-26668 [000]  1977.147995: sched_switch:          prev_comm=sh prev_pid=26668 prev_prio=120 prev_state=1 next_comm=sh next_pid=26670 next_prio=120
trgen7:               ls-26670 [000]  1977.148083: sched_process_exec:    filename=/usr/bin/ls pid=26670 old_pid=26670
trgen7:               ls-26670 [000]  1977.148401: sched_switch:          prev_comm=ls prev_pid=26670 prev_prio=120 prev_state=0 next_comm=qemu-system-x86 next_pid=23277 next_prio=120
trgen7:  memfd:sealed-91-26812 [000]  1977.150251: sched_switch:          prev_comm=memfd:sealed-91 prev_pid=26812 prev_prio=120 prev_state=1 next_comm=ls next_pid=26670 next_prio=120
trgen7:               ls-26670 [000]  1977.151091: sched_process_exit:    comm=ls pid=26670 prio=120 group_dead=1
trgen7:               ls-26670 [000]  1977.151280: sched_waking:          comm=sh pid=26668 prio=120 target_cpu=000
trgen7:               ls-26670 [000]  1977.151285: sched_wakeup:          comm=sh pid=26668 prio=120 target_cpu=000
trgen7:               ls-26670 [000]  1977.151294: sched_switch:          prev_comm=ls prev_pid=26670 prev_prio=120 prev_state=32 next_comm=tr next_pid=26671 next_prio=120
trgen7:      rcu_preempt-15    [000]  1977.155905: sched_switch:          prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=128 next_comm=sh next_pid=26668 next_prio=120
trgen7:               sh-26668 [000]  1977.155949: sched_process_exit:    comm=sh pid=26668 prio=120 group_dead=1
trgen7:               sh-26668 [000]  1977.156031: sched_switch:          prev_comm=sh prev_pid=26668 prev_prio=120 prev_state=256 next_comm=qemu-system-x86 next_pid=23277 next_prio=120
trgen7:  qemu-system-x86-23277 [000]  1977.156066: sched_switch:          prev_comm=qemu-system-x86 prev_pid=23277 prev_prio=120 prev_state=1 next_comm=sh next_pid=26668 next_prio=120
trgen7:               sh-26668 [000]  1977.156120: sched_waking:          comm=bash pid=26667 prio=120 target_cpu=000
trgen7:               sh-26668 [000]  1977.156123: sched_wakeup:          comm=bash pid=26667 prio=120 target_cpu=000
trgen7:               sh-26668 [000]  1977.156128: sched_switch:          prev_comm=sh prev_pid=26668 prev_prio=120 prev_state=32 next_comm=bash next_pid=26667 next_prio=120
trgen7:             bash-26667 [000]  1977.156161: sched_switch:          prev_comm=bash prev_pid=26667 prev_prio=120 prev_state=0 next_comm=qemu-system-x86 next_pid=23277 next_prio=120
trgen7:  qemu-system-x86-23277 [000]  1977.156186: sched_switch:          prev_comm=qemu-system-x86 prev_pid=23277 prev_prio=120 prev_state=1 next_comm=bash next_pid=26667 next_prio=120
trgen7:             bash-26667 [000]  1977.156260: sched_process_exit:    comm=bash pid=26667 prio=120 group_dead=1
trgen7:             bash-26667 [000]  1977.156363: sched_switch:          prev_comm=bash prev_pid=26667 prev_prio=120 prev_state=256 next_comm=qemu-system-x86 next_pid=23277 next_prio=120
trgen7:  qemu-system-x86-23277 [000]  1977.156378: sched_switch:          prev_comm=qemu-system-x86 prev_pid=23277 prev_prio=120 prev_state=1 next_comm=bash next_pid=26667 next_prio=120
trgen7:             bash-26667 [000]  1977.156480: sched_waking:          comm=trace-cmd pid=26637 prio=120 target_cpu=000
trgen7:             bash-26667 [000]  1977.156483: sched_wakeup:          comm=trace-cmd pid=26637 prio=120 target_cpu=000
trgen7:             bash-26667 [000]  1977.156488: sched_switch:          prev_comm=bash prev_pid=26667 prev_prio=120 prev_state=32 next_comm=trace-cmd next_pid=26637 next_prio=120
