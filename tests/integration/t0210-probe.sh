#!/bin/bash
# tr probe add|del|list: uprobes by symbol, kprobes, eprobes, and errors.
. "$(dirname "$0")/lib.sh"
test_kernels full

# A tiny program with a function to probe.
cat >"$TEST_TMP/target.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) int tr_probe_target(int x) { return printf("%d\n", x); }
int main(int argc, char **argv) { (void)argv; return tr_probe_target(41 + argc) < 0; }
C
cc -O0 -o "$TEST_TMP/target" "$TEST_TMP/target.c" || exit 1
grp=trt$$

if test_have uprobes; then
	test_expect_success 'add -u BINARY SYMBOL finds the offset in the ELF symbol table' '
		test_when_finished "tr probe del $grp/target >/dev/null 2>&1 || :" &&
		tr probe add -u "$TEST_TMP/target" --name $grp/target tr_probe_target "x=%di:s32" >out &&
		off=$(nm "$TEST_TMP/target" | sed -n "s/^0*\([0-9a-f]*\) T tr_probe_target$/\1/p") &&
		test_grep -x "p:$grp/target $TEST_TMP/target:0x$off x=%di:s32" out &&
		tr probe list >list &&
		test_grep -E "^p:$grp/target $TEST_TMP/target:0x0*$off x=%di:s32 +# made by tr$" list
	'

	test_expect_success 'a uprobe is an event that -e selects, with its arguments' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst; tr probe del $grp/target >/dev/null 2>&1 || :" &&
		tr probe add -u "$TEST_TMP/target" --name $grp/target tr_probe_target "x=%di:s32" >/dev/null &&
		tr start -B $inst -e $grp:target &&
		"$TEST_TMP/target" >/dev/null &&
		wait_for 10 show_has $inst " target: " &&
		tr show -B $inst >out &&
		test_grep -E "target-[0-9]+ .* target: \(0x[0-9a-f]+\) x=42$" out
	'

	test_expect_success 'a uretprobe (-r) sees the return value' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst; tr probe del $grp/ret >/dev/null 2>&1 || :" &&
		tr probe add -u "$TEST_TMP/target" -r --name $grp/ret tr_probe_target "rv=\$retval:s32" >/dev/null &&
		tr start -B $inst -e $grp:ret &&
		"$TEST_TMP/target" >/dev/null &&
		wait_for 10 show_has $inst " ret: " &&
		tr show -B $inst >out &&
		test_grep -E " ret: \(0x[0-9a-f]+ <- 0x[0-9a-f]+\) rv=3$" out
	'

	test_expect_success 'probe list --stats: a uprobe'"'"'s hits, as uprobe_profile counts them, and its file' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst >/dev/null 2>&1; tr probe del $grp/st >/dev/null 2>&1 || :" &&
		tr probe add -u "$TEST_TMP/target" --name $grp/st tr_probe_target >/dev/null &&
		tr probe list --stats >out0 &&
		test_grep -E "^uprobe +st +0 +- +$TEST_TMP/target$" out0 &&
		tr start -B $inst -e $grp:st &&
		"$TEST_TMP/target" >/dev/null && "$TEST_TMP/target" x >/dev/null &&
		"$TEST_TMP/target" x y >/dev/null &&
		tr probe list --stats >out &&
		test_grep -E "^TYPE +EVENT +HITS +MISSED +FILE$" out &&
		awk "\$2 == \"st\" { print \$3 }" $TRACEFS/uprobe_profile >expect &&
		test "$(cat expect)" = 3 &&
		awk "\$1 == \"uprobe\" && \$2 == \"st\" { print \$3 }" out >got &&
		test_cmp expect got
	'

	test_expect_success 'del removes one probe and leaves the others' '
		tr probe add -u "$TEST_TMP/target" --name $grp/a tr_probe_target >/dev/null &&
		tr probe add -u "$TEST_TMP/target" --name $grp/b tr_probe_target >/dev/null &&
		tr probe del $grp/a &&
		tr probe list >out &&
		test_must_fail grep "$grp/a " out &&
		test_grep "$grp/b " out &&
		tr probe del $grp/b &&
		tr probe list >out &&
		test_must_fail grep "$grp/" out
	'

	test_expect_success 'a syntax error shows the kernel'"'"'s error_log line with its caret' '
		test_expect_code 1 tr probe add "p:$grp/bad $TEST_TMP/target:0x10 y=%nosuchreg" 2>err &&
		test_grep "^tr: cannot add probe " err &&
		test_grep "Invalid register name" err &&
		test_grep "Command: p:$grp/bad" err &&
		test_grep -E "^ +\^$" err &&
		tr probe list >out &&
		test_must_fail grep "$grp/bad" out
	'
fi

test_expect_success 'an unknown symbol or a non-ELF file is named' '
	test_expect_code 1 tr probe add -u "$TEST_TMP/target" nosuchfn 2>err &&
	test_grep "no function '"'"'nosuchfn'"'"' in '"'"'$TEST_TMP/target'"'"'" err &&
	test_expect_code 1 tr probe add -u /etc/passwd main 2>err &&
	test_grep "'"'"'/etc/passwd'"'"' is not an ELF file" err
'

test_expect_success 'del of a probe that does not exist names it' '
	test_expect_code 1 tr probe del $grp/nosuch 2>err &&
	test_grep "no probe '"'"'$grp/nosuch'"'"'" err
'

test_expect_success 'a probe without a name is refused' '
	test_expect_code 1 tr probe add "p $TEST_TMP/target:0x10" 2>err &&
	test_grep "needs a name" err
'

if test_have kprobes; then
	test_expect_success 'a kprobe and kretprobe record their arguments' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst; tr probe del $grp/open $grp/openret >/dev/null 2>&1 || :" &&
		tr probe add "p:$grp/open do_sys_openat2 dfd=\$arg1:s32 name=+0(\$arg2):string" &&
		tr probe add "r:$grp/openret do_sys_openat2 ret=\$retval:s32" &&
		tr start -B $inst -e "$grp:*" &&
		cat /etc/hostname >/dev/null &&
		wait_for 10 show_has $inst "openret: " &&
		tr show -B $inst >out &&
		test_grep -E "open: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) dfd=-100 name=\"/etc/hostname\"" out &&
		test_grep -E "openret: \(.* <- do_sys_openat2\) ret=" out
	'
else
	test_expect_success 'a kprobe is refused, naming the capability' '
		test_expect_code 1 tr probe add "p:$grp/open do_sys_openat2" 2>err &&
		test_grep "^tr: kprobes is not available on this kernel: no '"'"'kprobe_events'"'"' file" err
	'
fi

if test_have eprobes; then
	test_expect_success 'an eprobe on sched_switch fields' '
		inst=$(test_instance) &&
		test_when_finished "tr reset -B $inst; tr probe del $grp/sw >/dev/null 2>&1 || :" &&
		tr probe add "e:$grp/sw sched.sched_switch prev=\$prev_pid:s32 next=\$next_pid:s32" &&
		tr start -B $inst -e $grp:sw &&
		wait_for 10 show_has $inst " sw: " &&
		tr show -B $inst >out &&
		test_grep -E " sw: \(sched.sched_switch\) prev=[0-9]+ next=[0-9]+$" out
	'

	# trace-cmd 3.4's reset -k: tr's own probes (noted when added) and, with
	# -a, anyone's, kept by kind or by name; a kept one stays noted.
	has_ev() { grep -q "^e:$1 " $TRACEFS/dynamic_events; }
	test_expect_success 'reset -k keeps dynamic events by kind or by name' '
		test_when_finished "tr probe del $grp/k1 $grp/k2 >/dev/null 2>&1 || :; echo -:oth$$/k3 >>$TRACEFS/dynamic_events 2>/dev/null || :" &&
		tr probe add "e:$grp/k1 sched.sched_switch" >/dev/null &&
		tr probe add "e:$grp/k2 sched.sched_wakeup" >/dev/null &&
		echo "e:oth$$/k3 sched.sched_switch" >>$TRACEFS/dynamic_events &&
		tr reset -k $grp/k1 &&
		has_ev $grp/k1 && ! has_ev $grp/k2 && has_ev oth$$/k3 &&
		tr reset -k eprobe &&
		has_ev $grp/k1 &&
		tr reset &&
		! has_ev $grp/k1 && has_ev oth$$/k3 &&
		tr reset -a -k k3 &&
		has_ev oth$$/k3 &&
		tr reset -a -k nosuch 2>err &&
		test_grep "^tr: warning: -k nosuch: no dynamic event has that name$" err &&
		! has_ev oth$$/k3 &&
		test_expect_code 64 tr reset -k "a b" 2>err &&
		test_grep "bad -k .a b." err
	'
else
	test_expect_success 'an eprobe is refused, naming the capability' '
		test_expect_code 1 tr probe add "e:$grp/sw sched.sched_switch" 2>err &&
		test_grep "^tr: eprobes is not available on this kernel: " err
	'
fi

test_done
