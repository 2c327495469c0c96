#!/bin/bash
# Who may read what tr record and tr restore write (issue 36): a recording
# holds the kernel's symbols (the addresses kptr_restrict keeps from other
# users) and every traced task's events, so the output, the spool and the
# restored file are the user's alone (0600, the spool's directory 0700), as
# perf makes perf.data, whatever the umask.  tr restore reads a spool only
# when the user running it owns it and no one else can write in it, and
# opens the spool's files without following a symbolic link.
. "$(dirname "$0")/lib.sh"

test_requires instances events

# mode PATH: its permission bits, in octal.
mode() { stat -c %a "$1"; }

test_expect_success 'tr record -o writes a new FILE 0600 under umask 022; an old one keeps its mode' '
	inst=$(test_instance) &&
	(umask 022 && tr record -q -B "$inst" -e ftrace:print -o new.dat true) &&
	test -s new.dat &&
	test "$(mode new.dat)" = 600 &&
	: >shared.dat && chmod 644 shared.dat &&
	(umask 022 && tr record -q -B "$inst" -e ftrace:print -o shared.dat true) &&
	test -s shared.dat &&
	test "$(mode shared.dat)" = 644
'

test_expect_success 'the spool is 0700 and its files 0600; the restored file is 0600' '
	inst=$(test_instance) &&
	(umask 022 && test_kill_recording "$inst" k.dat) &&
	test "$(mode k.dat.spool)" = 700 &&
	find k.dat.spool -type f >files &&
	test_grep -q "/meta.dat$" files && test_grep -q "/cpu0.raw$" files &&
	for f in $(cat files); do
		test "$(mode "$f")" = 600 || { echo "$f: $(mode "$f")"; exit 1; }
	done &&
	(umask 022 && tr restore -q k.dat) &&
	test -s k.dat && test ! -e k.dat.spool &&
	test "$(mode k.dat)" = 600
'

test_expect_success 'tr restore refuses a spool another user owns, or others can write in, in one line' '
	inst=$(test_instance) &&
	test_kill_recording "$inst" o.dat &&
	chown -R nobody o.dat.spool &&
	test_must_fail tr restore o.dat 2>err &&
	test "$(wc -l <err)" = 1 &&
	test_grep "cannot restore from .o.dat.spool.: it belongs to uid $(id -u nobody), not to the user running tr restore (uid $(id -u))" err &&
	test ! -s o.dat && test -d o.dat.spool &&
	chown -R "$(id -u)" o.dat.spool && chmod 0777 o.dat.spool &&
	test_must_fail tr restore o.dat 2>err &&
	test "$(wc -l <err)" = 1 &&
	test_grep "cannot restore from .o.dat.spool.: other users can write in it (mode 0777)" err &&
	chmod 0700 o.dat.spool &&
	tr restore -q o.dat &&
	test -s o.dat && test ! -e o.dat.spool
'

test_expect_success 'the spool'"'"'s files are not followed when they are symbolic links' '
	inst=$(test_instance) &&
	test_kill_recording "$inst" l.dat &&
	mv l.dat.spool/meta.dat real-meta.dat &&
	ln -s ../real-meta.dat l.dat.spool/meta.dat &&
	test_must_fail tr restore l.dat 2>err &&
	test_grep "cannot open .l.dat.spool/meta.dat.: Too many levels of symbolic links" err &&
	rm l.dat.spool/meta.dat && mv real-meta.dat l.dat.spool/meta.dat &&
	printf "4242 planted-secret\n" >planted &&
	rm -f l.dat.spool/cmdlines && ln -s ../planted l.dat.spool/cmdlines &&
	tr restore -q --file-version 6 l.dat &&
	! grep -qa planted-secret l.dat
'

test_done
