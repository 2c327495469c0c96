#!/bin/bash
# Errors that come from the machine rather than the command line.
. "$(dirname "$0")/lib.sh"

test_expect_success 'tracefs absent: one clear line and exit 1' '
	mkdir empty &&
	TR_TRACEFS=$PWD/empty test_expect_code 1 "$TR" stat 2>err &&
	test_grep "^tr: cannot find tracefs$" err &&
	test_grep "no tracefs files in '"'"'$PWD/empty'"'"'" err &&
	test $(wc -l <err) = 2
'

test_expect_success 'tracefs absent: tr check says so, line by line' '
	mkdir -p empty &&
	TR_TRACEFS=$PWD/empty test_expect_code 1 "$TR" check >out &&
	test_grep -E "^tracefs +no +no tracefs files in '"'"'$PWD/empty'"'"'" out &&
	test_grep -E "^hist +no +unknown: tracefs cannot be used$" out &&
	TR_TRACEFS=$PWD/empty test_expect_code 1 "$TR" check --has hist
'

if ! unshare -m true 2>/dev/null; then
	test_skip 'tracefs not mounted: tr mounts it' 'no mount namespaces (unshare -m)'
else
test_expect_success 'tracefs not mounted: tr mounts it (in a private mount namespace)' '
	unshare -m sh -c "
		umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
		test ! -e /sys/kernel/tracing/tracing_on || exit 3
		\"$TR\" check
	" >out &&
	test_grep -E "^tracefs +yes +/sys/kernel/tracing \(mounted by tr\)$" out
'
fi

test_expect_success 'commands that need no tracefs work without it' '
	mkdir -p empty &&
	TR_TRACEFS=$PWD/empty "$TR" help >out &&
	test_grep "^Commands:" out
'

test_expect_success 'not root: permission denied with what to do' '
	chmod 755 "$TEST_TMP" &&
	rc=0 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TR" stat >out 2>err || rc=$? &&
	test $rc = 1 &&
	test_grep "^tr: permission denied on tracefs at " err &&
	test_grep "run tr as root, or as a member of the group that owns" err
'

test_expect_success 'not root: tr check says access is missing, and why' '
	chmod 755 "$TEST_TMP" &&
	rc=0 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TR" check >out 2>err || rc=$? &&
	test $rc = 1 &&
	test_grep -E "^tracefs +yes " out &&
	test_grep -E "^access +no +run tr as root, or as a member of the group that owns " out
'

test_expect_success 'a write error on stdout is reported and fails' '
	test_expect_code 1 tr list -t >/dev/full 2>err &&
	test_grep "write failure on standard output" err
'

test_expect_success 'a closed pipe on stdout is not an error' '
	tr list -e >/dev/null &&
	( tr list -e; echo "rc=$?" >rc ) | head -1 >out &&
	test -s out &&
	test_grep "rc=0" rc
'

test_done
