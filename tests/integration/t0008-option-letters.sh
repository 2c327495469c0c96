#!/bin/bash
# One meaning per short option across commands (tr(1), OPTION LETTERS).
. "$(dirname "$0")/lib.sh"

[ -n "${TR_VM:-}" ] && test_skip_all="the option table is checked on the host tier"

# "LETTER LONGNAME COMMAND" for every short option in every command's --help.
letters() {
	for c in $(tr --list-cmds); do
		tr "$c" --help | sed -nE 's/^ +-([A-Za-z]), --([a-z][a-z0-9-]*).*/\1 \2/p' |
			sed "s/\$/ $c/"
	done
}

test_expect_success 'a letter names the same option in every command (tr list aside)' '
	letters | grep -v " list$" >all &&
	# Same meaning, older long names kept: stack -l is --filter (of
	# functions, like --func-filter), stream -F is --report-filter.  top
	# takes top(1)'"'"'s -b (batch) and -n (iterations), and hist and top
	# take -k/-v as keys and values, and record -v is verbose (it has no
	# output filter to invert), and listen takes trace-cmd listen'"'"'s -p
	# (port) and -d (directory), agent trace-cmd agent'"'"'s -p, and record
	# and listen take trace-cmd'"'"'s -V (vsock), as tr.1 says; record keeps the letters of
	# trace-cmd record -i, -k, -r and -s (it reads no file, has no keys or sort),
	# and reset takes trace-cmd reset -k (keep dynamic events).
	grep -vxE "l filter stack|F report-filter stream|b batch top|n iterations top|v vals (hist|top)|v verbose record|(i ignore-missing|r rt-prio|s sleep) record|k keep (record|reset)|p port (listen|agent|serve)|d dir listen|V vsock (record|listen)" all |
		awk "{ print \$1, \$2 }" | sort -u >pairs &&
	cut -d" " -f1 pairs | uniq -d >dups &&
	{ test ! -s dups || { grep -wFf dups all; exit 1; }; }
'

test_expect_success 'the scheme in tr.1 holds: -v inverts (values in hist and top), -F filters the output, -P is pids' '
	letters >all &&
	test_grep -qx "v invert report" all &&
	test_grep -qx "v invert stream" all &&
	test_grep -qx "F filter report" all &&
	test_grep -qx "P pid record" all &&
	test_grep -qx "P pid report" all &&
	test_grep -qx "v vals hist" all &&
	test_grep -qx "v vals top" all &&
	test_grep -qx "v verbose record" all &&
	test_must_fail grep -E "^F .* (hist|record)$" all
'

test_expect_success 'trace-cmd habits get a pointer, not a surprise' '
	test_expect_code 64 tr record -F -e sched true 2>err &&
	test_grep -q "use --follow" err
'

test_done
