#!/bin/bash
# The command line: help, version, the command table, usage errors.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

test_expect_success '--help lists every command with a summary' '
	tr --help >out &&
	test_grep "^Usage: tr" out &&
	for c in $(tr --list-cmds); do
		grep -E "^  $c +[A-Z]" out || { echo "missing $c"; exit 1; }
	done
'

test_expect_success 'tr help is the same list as tr --help' '
	tr help >a &&
	tr --help >b &&
	test_cmp b a
'

test_expect_success '--list-cmds prints the command names one per line' '
	tr --list-cmds >out &&
	test_grep -x check out &&
	test_grep -x list out &&
	test_grep -x instance out &&
	test_must_fail grep " " out
'

test_expect_success '--version prints the version' '
	tr --version >out &&
	test_grep -E "^tr [0-9]+\.[0-9]+\.[0-9]+$" out
'

test_expect_success 'each command has argp help naming it' '
	for c in $(tr --list-cmds); do
		tr $c --help >out || exit 1
		head -1 out | grep -q "^Usage: tr $c" || { echo "$c:"; cat out; exit 1; }
	done
'

test_expect_success 'tr help CMD shows that command'"'"'s help' '
	tr help stat >out &&
	test_grep "^Usage: tr stat" out
'

test_expect_success 'tr help of an unknown command is a usage error' '
	test_expect_code 64 tr help nosuch 2>err &&
	test_grep "not a tr command" err
'

test_expect_success 'no arguments prints usage and exits 64' '
	test_expect_code 64 tr </dev/null 2>err &&
	test_grep "Usage: tr" err
'

test_expect_success 'an unknown option of a command exits 64' '
	test_expect_code 64 tr stat --bogus 2>err &&
	test_grep "unrecognized option" err
'

test_expect_success 'extra arguments are a usage error' '
	test_expect_code 64 tr check extra 2>err &&
	test_grep "too many arguments" err
'

test_expect_success 'a typo at a terminal suggests the closest command' '
	script -qec "$TR stta" /dev/null >out 2>&1 </dev/null || rc=$? &&
	test "${rc:-0}" = 64 &&
	test_grep "'"'"'stta'"'"' is not a tr command; did you mean '"'"'stat'"'"'?" out
'

test_expect_success 'a typo of an option at a terminal suggests it' '
	script -qec "$TR --verison" /dev/null >out 2>&1 </dev/null || rc=$? &&
	test "${rc:-0}" = 64 &&
	test_grep "did you mean '"'"'--version'"'"'" out
'

test_done
