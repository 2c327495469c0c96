#!/bin/bash
# README's code blocks work as written: "A first look" from a fresh clone
# (./tr after make), and the sample error is what tr really prints.
. "$(dirname "$0")/lib.sh"
test_requires events instances

readme=$TEST_ROOT/README.md

# The indented code block that follows the heading $1 (its first block).
readme_block() {
	awk -v h="$1" '
		$0 == h { inh = 1; next }
		inh && /^## / { exit }
		inh && /^    / { inb = 1; sub(/^    /, ""); print; next }
		inh && inb && !/^$/ { exit }
	' "$readme"
}

# A checkout-like directory where ./tr is the binary under test; the
# instance "mine" becomes this test's own, so parallel users never meet.
setup_clone() {
	mkdir -p clone &&
	ln -sf "$TR" clone/tr &&
	sed -e "s/\bmine\b/$inst/g" >clone/block.sh
}

test_expect_success 'README: the first look uses ./tr, which exists after make' '
	readme_block "## A first look" >block &&
	test_grep -q "^make$" block &&
	test_grep -q "^\./tr check" block &&
	test_must_fail grep -E "^tr " block
'

test_expect_success 'README: the first look runs as written' '
	inst=$(test_instance) &&
	readme_block "## A first look" | grep -v "^make$" | setup_clone &&
	test_when_finished "cd $TEST_TMP/clone && ./tr reset -B $inst >/dev/null 2>&1 || :" &&
	cd clone &&
	bash -e -o pipefail block.sh >out 2>err || { cat err; exit 1; } &&
	test_grep -qE "^tracefs +yes" out &&
	test_grep -qx "sched:sched_waking" out &&
	test_grep -qE "^    pid_t pid +offset:" out &&
	test_grep -qE "^ +[^ ].*-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: sched_" out &&
	test_grep -qE "^events: +[1-9]" out &&
	test_grep -qE "^  sched:sched_switch +[1-9]" out &&
	test_grep -qE "sched_switch: .*prev_pid=[1-9]" out &&
	test_grep -qx "$inst" out &&
	test_grep -qE "^  record +Record events" out &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_expect_success 'README: the sample error is what tr prints' '
	inst=$(test_instance) &&
	awk "/^    \\$ \\.\\/tr start/ { on = 1 } on && /^    / { sub(/^    /, \"\"); print; next } on { exit }" \
		"$readme" >sample &&
	test $(wc -l <sample) -ge 3 &&
	head -n 1 sample | sed "s/^\$ //" | setup_clone &&
	sed 1d sample | sed -e "s/\bmine\b/$inst/g" >expect &&
	cd clone &&
	test_expect_code 1 bash block.sh 2>actual &&
	test_cmp ../expect actual &&
	test ! -d "$TRACEFS/instances/$inst"
'

test_done
