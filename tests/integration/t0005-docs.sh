#!/bin/bash
# The man pages and completions agree with the binary (as git's t0450 does).
. "$(dirname "$0")/lib.sh"

man=$TEST_ROOT/man

# The docs do not depend on the kernel, and emulation makes these slow: the
# host tier checks them.
[ -n "${TR_VM:-}" ] && test_skip_all="docs are checked on the host tier"

long_options() {
	"$TR" "$1" --help | sed -nE 's/^ +(-[^ ].*)/\1/p' | sed -E 's/   .*//' |
		grep -oE -- '--[a-z][a-z0-9-]*' | grep -vxE -- '--(help|usage|version)' | sort -u
}

test_expect_success 'every command has a man page, and tr.1 lists it' '
	for c in $(tr --list-cmds); do
		test -f "$man/tr-$c.1" || { echo "no man/tr-$c.1"; exit 1; }
		esc=$(printf "%s" "$c" | sed "s/-/\\\\\\\\-/g")
		grep -q "^\.B.* $esc\b\|^\.B $esc$\|^\.BR $esc " "$man/tr.1" || { echo "tr.1 lacks $c"; exit 1; }
	done
'

test_expect_success 'every long option in --help is in the command'"'"'s man page' '
	for c in $(tr --list-cmds); do
		for o in $(long_options $c); do
			esc=$(printf "%s" "$o" | sed "s/-/\\\\\\\\-/g")
			grep -q -- "$esc" "$man/tr-$c.1" || { echo "tr-$c.1 lacks $o"; exit 1; }
		done
	done
'

test_expect_success 'man pages render without groff warnings' '
	for f in "$man"/*.1; do
		groff -man -ww -z "$f" 2>err || { cat err; exit 1; }
		test ! -s err || { echo "$f:"; cat err; exit 1; }
	done
'

test_expect_success 'bash completion offers the commands and each command'"'"'s options' '
	bash -c "
		source \"$TEST_ROOT/completions/tr.bash\"
		COMP_WORDS=(\"$TR\" \"\"); COMP_CWORD=1; _tr_complete
		printf \"%s\n\" \"\${COMPREPLY[@]}\"
	" >words &&
	for c in $(tr --list-cmds); do test_grep -qx "$c" words; done &&
	for c in $(tr --list-cmds); do
		bash -c "
			source \"$TEST_ROOT/completions/tr.bash\"
			COMP_WORDS=(\"$TR\" $c --); COMP_CWORD=2; _tr_complete
			printf \"%s\n\" \"\${COMPREPLY[@]}\"
		" >opts &&
		for o in $(long_options $c); do
			grep -qx -- "$o" opts || { echo "$c: completion lacks $o"; exit 1; }
		done
	done
'

test_expect_success 'bash completion leaves coreutils tr lines alone' '
	bash -c "
		source \"$TEST_ROOT/completions/tr.bash\"
		COMP_WORDS=(\"$TR\" a-z \"\"); COMP_CWORD=2; _tr_complete
		echo \${#COMPREPLY[@]}
	" >n &&
	echo 0 >expect &&
	test_cmp expect n
'

test_done
