#!/bin/bash
# set_ftrace_filter commands and entries (VM tier): function triggers
# enable_event/disable_event/dump/cpudump added, listed and removed; -l with
# globs, '!' that takes functions out of the list instead of clearing it,
# :mod: (kept by the kernel for modules not loaded), and a command given to
# -l; everything back as it was after exit or tr reset.
. "$(dirname "$0")/lib.sh"
test_kernels full
test_requires function_filter

F=$TRACEFS/set_ftrace_filter
# The file's filter entries (no commands, no "all functions" banner), sorted.
entries() { grep -v -e '^#' -e ':' $F | sort; }

test_expect_success 'enable_event with a count: added as the kernel shows it, listed, removed' '
	test_when_finished "tr trigger del vfs_read:enable_event:sched:sched_switch:2 2>/dev/null || :" &&
	tr trigger add "vfs_read:enable_event:sched:sched_switch:2" &&
	# Each vfs_read since counts one down.
	test_grep -E "^vfs_read:enable_event:sched:sched_switch:count=[0-2]$" $F &&
	tr trigger list >out &&
	test_grep -E "^function:vfs_read +enable_event:sched:sched_switch:count=[0-2]$" out &&
	tr trigger del "vfs_read:enable_event:sched:sched_switch:count=2" &&
	test_must_fail grep -q enable_event $F
'

test_expect_success 'enable_event turns the event on when the function runs' '
	inst=$(test_instance) &&
	tr instance create $inst &&
	test_when_finished "tr reset -B $inst 2>/dev/null || :" &&
	test_must_fail grep -q "^1" $TRACEFS/instances/$inst/events/sched/sched_switch/enable &&
	tr trigger add -B $inst "vfs_read:enable_event:sched:sched_switch" &&
	cat /etc/hostname >/dev/null && sleep 0.1 &&
	tr show -B $inst >trace &&
	test_grep " sched_switch: " trace &&
	tr reset -B $inst &&
	test_must_fail grep -q enable_event $F
'

test_expect_success 'disable_event, dump and cpudump are taken and taken back' '
	tr trigger add "vfs_write:disable_event:sched:sched_switch" &&
	tr trigger add "vfs_fsync:dump" &&
	tr trigger add "vfs_fsync:cpudump" &&
	test_grep -E "^vfs_write:disable_event:sched:sched_switch:unlimited$" $F &&
	test_grep -E "^vfs_fsync:dump" $F &&
	test_grep -E "^vfs_fsync:cpudump" $F &&
	tr reset &&
	test_must_fail grep -q -e disable_event -e dump $F
'

test_expect_success 'a function or target that does not exist is named before the kernel sees it' '
	test_expect_code 1 tr trigger add "nosuchfn_tr:dump" 2>err &&
	test_grep -x "tr: no function matches .nosuchfn_tr. (tr list -f shows them)" err &&
	test_expect_code 1 tr trigger add "vfs_read:enable_event:sched:nosuch" 2>err &&
	test_grep -x "tr: no such event .sched:nosuch. (the target of .enable_event.)" err &&
	test_expect_code 1 tr trigger add "vfs_read:nosuchcmd" 2>err &&
	test_grep "unknown function command .nosuchcmd." err &&
	test_must_fail grep -q ":" $F
'

test_expect_success '-l: globs and ! in one list; a ! list alone takes out without clearing' '
	test_when_finished "tr reset" &&
	tr start -l "vfs_*" -l "!vfs_write" &&
	entries >list &&
	test_grep -x vfs_read list &&
	test_grep -x vfs_open list &&
	test_must_fail grep -qx vfs_write list &&
	tr start -l "!vfs_read" &&
	entries >list2 &&
	test_must_fail grep -qx vfs_read list2 &&
	test_grep -x vfs_open list2 &&
	tr reset &&
	test_grep "all functions enabled" $F
'

test_expect_success '-l with :mod: and with a command; all gone after the run' '
	tr record -q -l "*:mod:ext4" -l "!*:mod:ext4" -l ":mod:9p" \
		-l "vfs_read:enable_event:sched:sched_switch" -e sched:sched_wakeup -o m.dat true &&
	test_grep "all functions enabled" $F &&
	test_must_fail grep -q enable_event $F
'

test_expect_success '-l refuses, naming it, what its file cannot take' '
	test_expect_code 1 tr start -l "nosuchfn_tr*" 2>err &&
	test_grep -x "tr: no function matches .nosuchfn_tr\*. (tr list -f shows them)" err &&
	test_expect_code 1 tr start -n "vfs_read:dump" 2>err &&
	test_grep "function commands go in set_ftrace_filter (-l)" err &&
	test_grep "all functions enabled" $F
'

test_done
