#!/bin/bash
# Installing ours first in PATH must not break scripts that use coreutils' tr.
. "$(dirname "$0")/lib.sh"

bin=$TEST_TMP/bin
mkdir -p "$bin" && ln -s "$TR" "$bin/tr"
unset -f tr

test_expect_success 'translation is handed to coreutils tr' '
	echo abc | PATH=$bin:$PATH tr a-z A-Z >out &&
	echo ABC >expect &&
	test_cmp expect out
'

test_expect_success 'coreutils options (-d) are handed over' '
	printf "a\r\nb\r\n" | PATH=$bin:$PATH tr -d "\r" >out &&
	printf "a\nb\n" >expect &&
	test_cmp expect out
'

test_expect_success 'coreutils long options are handed over' '
	echo "aaabbb" | PATH=$bin:$PATH tr --squeeze-repeats ab >out &&
	echo ab >expect &&
	test_cmp expect out
'

test_expect_success 'a piped typo-like word goes to coreutils, never the typo rule' '
	echo stat | PATH=$bin:$PATH tr stta STTA >out &&
	echo STAT >expect &&
	test_cmp expect out
'

test_expect_success 'the next tr in PATH that is not ours is used' '
	mkdir -p other &&
	printf "#!/bin/sh\necho fake-tr \"\$@\"\n" >other/tr &&
	chmod +x other/tr &&
	echo x | PATH=$bin:$PWD/other:$PATH tr a b >out &&
	echo "fake-tr a b" >expect &&
	test_cmp expect out
'

test_expect_success 'coreutils exit status is preserved' '
	rc=0 &&
	echo x | PATH=$bin:$PATH tr -d 2>err || rc=$? &&
	test $rc = 1 &&
	test_grep "missing operand" err
'

test_done
