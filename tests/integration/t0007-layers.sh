#!/bin/bash
# The house rule, checked on the link map: only the command layer (src/cmd/
# and the root in tr.c) writes to stdout.  Layers below return
# errors and fill models; renderers print to the FILE they are handed.
. "$(dirname "$0")/lib.sh"

[ -n "${TR_VM:-}" ] && test_skip_all="the link map is checked on the host tier"
case $TR in
*/build/asan/tr) objs=$(dirname "$TR") ;;
*) objs=$TEST_ROOT/build/obj ;;
esac
[ -f "$objs/tr.o" ] || test_skip_all="no object files in $objs"
command -v nm >/dev/null || test_skip_all="no nm (binutils)"

test_expect_success 'no file below the command layer prints to stdout' '
	for o in $(find "$objs" -name "*.o" ! -path "*/cmd/*" ! -name tr.o); do
		n=$(basename "$o" .o)
		nm -u "$o" | awk "{print \$2}" |
			grep -xE "printf|puts|putchar|putchar_unlocked|vprintf|__printf_chk|__vprintf_chk|stdout" |
			sed "s/^/$n: /"
	done >found &&
	# util.c flushes stdout before it writes an error, so the two stay in
	# order; top-ui.c is the curses view, which draws on the terminal.
	grep -vxE "util: stdout|top-ui: stdout" found >bad || : &&
	test_must_be_empty bad
'

test_done
