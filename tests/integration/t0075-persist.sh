#!/bin/bash
# tr persist: the boot line of a persistent instance, checked against this
# kernel, and nothing in tracefs changed; tr start and tr record on an
# instance that is not persistent are not held back.  The boot itself is
# t1217-persist-vm.sh's (the full guest, three boots).
. "$(dirname "$0")/lib.sh"

test_requires events

test_expect_success 'the default line: reserve_mem and a traceoff instance, the next steps on stderr' '
	tr persist >line 2>next &&
	echo "reserve_mem=12M:4096:boot trace_instance=boot^traceoff@boot" >expect &&
	test_cmp expect line &&
	test_grep "^after each boot: tr extract -B boot -o last-boot.dat, then tr start -B boot -e EVENT to arm it again$" next
'

test_expect_success 'events go on the line only with a backup instance' '
	tr persist -B crash -b 64M --align 2M -e sched:sched_switch -e irq >line 2>next &&
	echo "reserve_mem=64M:2097152:crash trace_instance=crash^traceoff@crash" >expect &&
	test_cmp expect line &&
	test_grep "tr start -B crash -e sched:sched_switch -e irq to arm it again" next &&
	tr persist -B crash -e "sched:*" --backup prev --printk >line 2>next &&
	echo "reserve_mem=12M:4096:crash trace_instance=crash^traceprintk@crash,sched:* trace_instance=prev=crash" >expect &&
	test_cmp expect line &&
	test_must_be_empty next
'

test_expect_success 'a fixed address through memmap=, and bootconfig lines' '
	tr persist --addr 0x284500000 -b 12M >line &&
	echo "memmap=12M\$0x284500000 trace_instance=boot^traceoff@0x284500000:12M" >expect &&
	test_cmp expect line &&
	tr persist --bootconfig -e sched --backup bk >conf &&
	printf "kernel {\n\treserve_mem = \"12M:4096:boot\"\n\ttrace_instance = \"boot@boot,sched\",\n\t\t\"bk=boot\"\n}\n" >expect &&
	test_cmp expect conf
'

test_expect_success 'bad input: one line naming it, 64 for usage, 1 for an unknown event' '
	for args in "-b 1000" "-b 1M1" "--align 5000" "--addr 0x1001" "--addr 12zz" \
		    "-B a/b" "-B x --backup x" "-e a,b" "extra"; do
		test_expect_code 64 tr persist $args 2>err &&
		test "$(wc -l <err)" -le 2 || exit 1
	done &&
	test_expect_code 64 tr persist --addr 0x1001 2>err &&
	test_grep "^tr: bad address 0x1001: not page-aligned$" err &&
	test_expect_code 1 tr persist -e nosuch:event 2>err &&
	test_grep "^tr: no event .nosuch:event. on this kernel$" err
'

test_expect_success 'an instance that is not persistent: tr start arms it, tr stat says nothing' '
	inst=$(test_instance) &&
	tr start -B "$inst" -e sched:sched_switch &&
	test_when_finished "tr reset -B $inst >/dev/null 2>&1 || :; rmdir $TRACEFS/instances/$inst 2>/dev/null || :" &&
	tr stat -B "$inst" >stat &&
	test_must_fail grep -q "persistent:" stat
'

test_done
