#!/bin/bash
# tr record's trace-cmd options, each by its effect: -k, -i, -T, --user,
# -r, -s and --poll, --temp, --module; and the instance options that move
# markers and trace_printk between instances (copy_trace_marker,
# trace_printk_dest).
. "$(dirname "$0")/lib.sh"
test_kernels full

test_requires instances events

# The bytes in tr's temp files under DIR, summed: run inside the command, whose parent is tr.
# (the pages only: the spool's kallsyms file is open too, for the output)
temp_bytes='for f in /proc/$PPID/fd/*; do
	case $(readlink "$f") in */kallsyms) ;; "$DIR"/*) stat -L -c %s "$f" ;; esac
done | awk "{ s += \$1 } END { print s + 0 }"'

test_expect_success '-k leaves the events on and the buffer filled: tr show reads what came after' '
	inst=$(test_instance) &&
	test_when_finished "test ! -d $TRACEFS/instances/$inst || \"$TR\" reset -B $inst >/dev/null 2>&1 || true" &&
	tr record -q -k -B "$inst" -e sched:sched_process_exec -o k.dat /bin/true &&
	test_grep -x "sched:sched_process_exec" "$TRACEFS/instances/$inst/set_event" &&
	echo 1 >expect && test_cmp expect "$TRACEFS/instances/$inst/tracing_on" &&
	/bin/echo after-k >/dev/null &&
	tr show -B "$inst" >shown &&
	test_grep "sched_process_exec: filename=/bin/echo" shown &&
	tr reset -B "$inst" &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'without -k nothing stays: the instance goes' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_process_exec -o nok.dat /bin/true &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success '-i: a missing event is a warning and the others are recorded' '
	inst=$(test_instance) &&
	tr record -q -i -B "$inst" -e sched:nosuch -e sched:sched_process_exec -o i.dat /bin/true 2>err &&
	test_grep "warning: no such event .sched:nosuch.: left out" err &&
	tr report -i i.dat >rep &&
	test_grep "sched_process_exec: *filename=/bin/true" rep
'

test_expect_success 'without -i a missing event is an error; -i with none left is one too' '
	inst=$(test_instance) &&
	test_expect_code 1 tr record -q -B "$inst" -e sched:nosuch -o x.dat true 2>err &&
	test_grep "no such event" err &&
	test_expect_code 1 tr record -q -i -B "$inst" -e sched:nosuch -o x.dat true 2>err &&
	test_grep "nothing to record" err &&
	test ! -e x.dat && test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success '-T: a kernel stack with each event (tr report and trace-cmd report)' '
	test -e "$TRACEFS/options/stacktrace" || { say "# no stacktrace option here"; return 0; }
	inst=$(test_instance) &&
	tr record -q -B "$inst" -T -e sched:sched_process_exec -o t.dat /bin/true &&
	tr report -i t.dat >rep &&
	grep -A3 "sched_process_exec: *filename=/bin/true" rep >after &&
	test_grep "<stack trace>" after &&
	test_grep "=> .*execve" rep &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i t.dat 2>/dev/null >tc &&
		test_grep "kernel_stack: *<stack trace" tc
	fi &&
	echo 0 >expect && test_cmp expect "$TRACEFS/options/stacktrace"
'

test_expect_success '--user runs the command with that uid' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" --user nobody -e sched:sched_process_exec -o u.dat id -u >uid &&
	id -u nobody >expect && test_cmp expect uid &&
	test_expect_code 64 tr record -q -B "$inst" --user no-such-user-tr -e sched -o x.dat id 2>err &&
	test_grep "no such user .no-such-user-tr." err &&
	test_expect_code 64 tr record -q -B "$inst" --user nobody -e sched -o x.dat 2>err &&
	test_grep "give one" err
'

test_expect_success '-r PRIO: the readers run SCHED_FIFO at PRIO' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -r 7 -e sched:sched_process_exec -o r.dat \
		sh -c "ps -L -o cls=,rtprio= -p \$PPID" >prio &&
	test_grep -E "^ *FF +7$" prio &&
	test_expect_code 64 tr record -r 100 -e sched -o x.dat true &&
	test_expect_code 64 tr record -r 0 -e sched -o x.dat true
'

# A command that writes some 80 KB of markers at once, waits half a
# second, then says how much of it tr's readers have taken so far.
burst() {
	echo "exec 3>$TRACEFS/instances/$inst/trace_marker
	for i in \$(seq 2000); do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx >&3; done
	sleep 0.5; DIR=$PWD/tmpd; $temp_bytes"
}

test_expect_success '-s and --poll: the kernel wakes a reader unless --poll; then it reads every -s' '
	# --flush-interval 1h: the spool'"'"'s own flushes (record'"'"'s crash safety) stay out of it.
	inst=$(test_instance) && mkdir -p tmpd &&
	tr record -q -B "$inst" -b 64 -s 5000000 --flush-interval 1h --temp "$PWD/tmpd" -e ftrace:print -o s1.dat \
		sh -c "$(burst)" >woken &&
	tr record -q -B "$inst" -b 64 -s 5000000 --poll --flush-interval 1h --temp "$PWD/tmpd" -e ftrace:print \
		-o s2.dat sh -c "$(burst)" >slept &&
	tr record -q -B "$inst" -b 64 -s 20000 --poll --flush-interval 1h --temp "$PWD/tmpd" -e ftrace:print \
		-o s3.dat sh -c "$(burst)" >polled &&
	test "$(cat woken)" -gt 0 &&
	test "$(cat slept)" -eq 0 &&
	test "$(cat polled)" -gt 0 &&
	test_expect_code 64 tr record -s 0 -e sched -o x.dat true &&
	test_expect_code 64 tr record -s 10ms -e sched -o x.dat true
'

test_expect_success '--temp puts the per-CPU files in DIR, not beside the output' '
	inst=$(test_instance) && mkdir -p tmpd out &&
	tr record -q -B "$inst" --temp "$PWD/tmpd" -e sched:sched_process_exec -o out/t.dat \
		sh -c "ls -l /proc/\$PPID/fd" >fds &&
	test_grep "$PWD/tmpd/" fds &&
	test_must_fail grep "$PWD/out/#" fds &&
	test -s out/t.dat &&
	test_expect_code 1 tr record -q -B "$inst" --temp /nonexistent-tr -e sched -o x.dat true 2>err &&
	test_grep "/nonexistent-tr" err && test ! -e x.dat
'

test_expect_success '--module needs a function tracer, and a good name' '
	test_expect_code 64 tr record --module ext4 -e sched -o x.dat true 2>err &&
	test_grep "give one with -p" err &&
	test_expect_code 64 tr record -p function --module "a b" -o x.dat true 2>err &&
	test_grep "bad module name" err
'

if test_have function_filter; then
	# A module with functions to trace, from the kernel's own list.
	mod=$(sed -n "s/.*\[\([a-z0-9_]*\)\]$/\1/p" "$TRACEFS/available_filter_functions" | head -1)
	test_expect_success "--module: only the module's functions are traced ($mod)" '
		test -n "$mod" || { say "# no module loaded"; return 0; }
		inst=$(test_instance) &&
		tr record -q -B "$inst" -p function --module "$mod" --duration 300ms -o m.dat &&
		sed -n "s/^\([a-z0-9_.]*\) \[$mod\]$/\1/p" "$TRACEFS/available_filter_functions" |
			sort -u >modfuncs &&
		tr report -i m.dat | sed -n "s/.*function: *\([^ ]*\).*/\1/p" | sort -u >traced &&
		comm -23 traced modfuncs >others &&
		test_must_be_empty others
	'
else
	test_expect_success '--module on a kernel without function filters fails, changing nothing' '
		inst=$(test_instance) &&
		test_expect_code 1 tr record -q -B "$inst" -p function --module ext4 -o x.dat true 2>err &&
		test -s err && test ! -e x.dat && test ! -d "$TRACEFS/instances/$inst"
	'
fi

if [ -e "$TRACEFS/options/copy_trace_marker" ]; then
	test_expect_success '-O copy_trace_marker: the instance gets what programs write to the top-level trace_marker' '
		inst=$(test_instance) &&
		tr record -q -B "$inst" -O copy_trace_marker -e sched:sched_process_exit -o c.dat \
			sh -c "echo to-the-top-$$ >$TRACEFS/trace_marker" &&
		tr report -i c.dat >c.txt &&
		test_grep "tracing_mark_write: to-the-top-$$" c.txt &&
		test ! -d "$TRACEFS/instances/$inst" &&
		echo 1 >expect && test_cmp expect "$TRACEFS/options/copy_trace_marker"
	'
else
	test_expect_success '-O copy_trace_marker on a kernel without it: one line naming the release' '
		inst=$(test_instance) &&
		test_expect_code 1 tr record -q -B "$inst" -O copy_trace_marker -e sched:sched_process_exit \
			-o c.dat true 2>err &&
		test_grep -x "tr: this kernel has no trace option .copy_trace_marker. (Linux 6.16 has it)" err &&
		test ! -e c.dat && test ! -d "$TRACEFS/instances/$inst"
	'
fi

if [ -e "$TRACEFS/options/trace_printk_dest" ]; then
	# flags: the trace_printk_dest flag of the top level and of each instance named.
	flags() {
		echo "top $(cat "$TRACEFS/options/trace_printk_dest")"
		for i in "$@"; do echo "$i $(cat "$TRACEFS/instances/$i/options/trace_printk_dest")"; done
	}
	test_expect_success '-O trace_printk_dest: the instance takes trace_printk, and whoever had it has it again after' '
		holder=$(test_instance)-holder && inst=$(test_instance) &&
		mkdir "$TRACEFS/instances/$holder" &&
		test_when_finished "test ! -d $TRACEFS/instances/$holder || rmdir $TRACEFS/instances/$holder" &&
		echo 1 >"$TRACEFS/instances/$holder/options/trace_printk_dest" &&
		tr record -q -B "$inst" -O trace_printk_dest -e sched:sched_process_exit -o p.dat \
			sh -c "cat $TRACEFS/instances/$inst/options/trace_printk_dest \
				$TRACEFS/instances/$holder/options/trace_printk_dest" >during &&
		printf "1\n0\n" >expect && test_cmp expect during &&
		flags "$holder" >after && printf "top 0\n$holder 1\n" >expect && test_cmp expect after &&
		rmdir "$TRACEFS/instances/$holder" &&
		flags >after && echo "top 1" >expect && test_cmp expect after &&
		test ! -d "$TRACEFS/instances/$inst"
	'
fi

if [ -e "$TRACEFS/buffer_subbuf_size_kb" ] && ! test_have subbuf; then
	# (A kernel may list the file and refuse every size: tr check says why.)
	test_skip '--subbuf-size: the file has sub-buffers of that size, tr and trace-cmd read it, both sizes put back' \
		"$(tr check --has subbuf 2>&1)"
fi
if [ -e "$TRACEFS/buffer_subbuf_size_kb" ]; then
	test_have subbuf && test_expect_success '--subbuf-size: the file has sub-buffers of that size, tr and trace-cmd read it, both sizes put back' '
		inst=$(test_instance) && mkdir "$TRACEFS/instances/$inst" &&
		test_when_finished "test ! -d $TRACEFS/instances/$inst || rmdir $TRACEFS/instances/$inst" &&
		d=$TRACEFS/instances/$inst &&
		cat "$d/buffer_subbuf_size_kb" "$d/buffer_size_kb" >before &&
		tr record -q -B "$inst" --subbuf-size 16 -e sched:sched_process_exit -o s.dat \
			sh -c "cat $d/buffer_subbuf_size_kb >during; echo sub-$$ >$d/trace_marker" &&
		echo 16 >expect && test_cmp expect during &&
		tr dump -i s.dat >dump && test_grep "page size 16384" dump &&
		tr report -i s.dat >r.txt && test_grep "tracing_mark_write: sub-$$\$" r.txt &&
		{ ! command -v trace-cmd >/dev/null ||
			{ trace-cmd report -i s.dat >tc.txt 2>tc.err && test_grep "sub-$$\$" tc.txt; }; } &&
		{ [ -z "$TC34" ] ||
			{ "$TC34" report -i s.dat >tc34.txt 2>tc34.err && test_grep "sub-$$\$" tc34.txt &&
			  "$TC34" dump --summary -i s.dat >tc34.dump 2>&1 &&
			  test_grep -i "16384" tc34.dump; }; } &&
		cat "$d/buffer_subbuf_size_kb" "$d/buffer_size_kb" >after && test_cmp before after
	'
	test_expect_success '--subbuf-size: 0 is a usage error; more than the kernel takes is one line, nothing left' '
		inst=$(test_instance) &&
		test_expect_code 64 tr record -q --subbuf-size 0 -e sched -o x.dat true 2>err &&
		test_grep "bad sub-buffer size .0." err &&
		test_expect_code 1 tr record -q -B "$inst" --subbuf-size 1024 -e sched:sched_process_exit \
			-o x.dat true 2>err &&
		test_grep -x "tr: cannot set the sub-buffer size to 1024 KiB: .*" err &&
		test $(wc -l <err) = 1 &&
		test ! -e x.dat && test ! -d "$TRACEFS/instances/$inst"
	'
fi

test_done
