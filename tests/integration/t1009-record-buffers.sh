#!/bin/bash
# tr record with several buffers in one file (trace-cmd's positional -B):
# the options after -B NAME are that instance's, those before the first -B
# the top level's; each event lands in its buffer, in tr report and in
# trace-cmd report, and split, convert, --stat and top -i keep them apart.
. "$(dirname "$0")/lib.sh"

test_requires instances events

# "BUFFER EVENT" for each event line of a report on stdin (the buffer is
# the line's "NAME:" prefix, "top" without one), ftrace's print left out
# (tr names it by its text), sorted and unique.
pairs() {
	awk '{
		buf = "top"
		if ($1 ~ /:$/ && $2 !~ /^\[/) { buf = substr($1, 1, length($1) - 1) }
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { ev = $(i + 1); break }
		sub(/:$/, "", ev)
		if (ev != "" && ev != "print" && ev != "tracing_mark_write") print buf, ev
		ev = ""
	}' | sort -u
}

# The buffer of the line holding a trace_marker text.
mark_buffer() {
	grep -- "$1" | awk '{ if ($1 ~ /:$/ && $2 !~ /^\[/) print substr($1, 1, length($1) - 1); else print "top" }'
}

# The buffer_size_kb read in FILE is KB as asked, up to the kernel's
# rounding to whole sub-buffers of data (4080 of 4096 bytes: some 0.5 %).
size_near() {
	awk -v want="$1" '{ if ($1 >= want && $1 <= want * 1.02) ok = 1 }
		END { if (!ok) { print "buffer_size_kb " $0 ", not near " want; exit 1 } }' "$2"
}

a=$(test_instance)a
b=$(test_instance)b

test_expect_success 'the top level and two instances, each with its events and buffer size' '
	tr record -q -e sched:sched_process_exec -b 512 \
		-B "$a" -e sched:sched_process_exit -b 1024 \
		-B "$b" -e sched:sched_process_fork -b 2048 -o multi.dat \
		sh -c "cat $TRACEFS/buffer_size_kb >size.top;
		       cat $TRACEFS/instances/$a/buffer_size_kb >size.a;
		       cat $TRACEFS/instances/$b/buffer_size_kb >size.b;
		       echo mark-top >$TRACEFS/trace_marker;
		       echo mark-a >$TRACEFS/instances/$a/trace_marker;
		       echo mark-b >$TRACEFS/instances/$b/trace_marker; /bin/true" &&
	size_near 512 size.top &&
	size_near 1024 size.a &&
	size_near 2048 size.b &&
	test ! -d "$TRACEFS/instances/$a" && test ! -d "$TRACEFS/instances/$b"
'

# What each buffer of multi.dat holds.
expect_pairs() {
	printf "%s\n" "$a sched_process_exit" "$b sched_process_fork" "top sched_process_exec" | sort
}

test_expect_success 'tr report puts each event in its buffer, the name first' '
	tr report -i multi.dat >rep &&
	pairs <rep >actual && expect_pairs >expect.pairs && test_cmp expect.pairs actual &&
	for m in top a b; do
		case $m in top) want=top ;; a) want=$a ;; b) want=$b ;; esac &&
		echo "$want" >expect && mark_buffer "mark-$m" <rep >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'trace-cmd report reads the same buffers' '
	command -v trace-cmd >/dev/null || { say "# no trace-cmd here"; return 0; }
	trace-cmd report -i multi.dat 2>/dev/null >tc &&
	pairs <tc >actual && expect_pairs >expect.pairs && test_cmp expect.pairs actual &&
	echo "$a" >expect && mark_buffer mark-a <tc >actual && test_cmp expect actual &&
	echo "$b" >expect && mark_buffer mark-b <tc >actual && test_cmp expect actual
'

test_expect_success 'report --stat names the buffers and counts each' '
	tr report --stat -i multi.dat >stat &&
	test_grep -E "^buffers: +\(top\) $a $b$" stat &&
	test_grep -E "buffer $a$" stat && test_grep -E "buffer $b$" stat &&
	# Per buffer: its counts of sched events as the report of that buffer alone has
	# them, and an events total that adds up its lines.
	sed -n "/^per buffer:/,\$p" stat >per &&
	for buf in top "$a" "$b"; do
		name=$buf && [ "$buf" != top ] || name="(top)"
		tr report --buffer "$buf" -i multi.dat | grep -oE " sched_[a-z_]+: " | tr -d " :" |
			sort | uniq -c | awk "{ print \"sched:\" \$2, \$1 }" >expect &&
		test -s expect &&
		awk -v n="$name" "\$1 == n && \$3 == \"events\" { p = 1; next }
			p && /^    / { print \$1, \$2; next } { p = 0 }" per >got &&
		grep "^sched:" got | sort >actual && test_cmp expect actual &&
		total=$(awk -v n="$name" "\$1 == n && \$3 == \"events\" { print \$2 }" per) &&
		test "$total" = "$(awk "{ t += \$2 } END { print t + 0 }" got)" || return 1
	done
'

test_expect_success 'the summary has a line per buffer' '
	tr record -e sched:sched_process_exec -B "$a" -e sched:sched_process_exit \
		-o sum.dat /bin/true 2>sum &&
	test_grep -E "^buffer top: [0-9]+ events" sum &&
	test_grep -E "^buffer $a: [0-9]+ events" sum
'

test_expect_success 'split keeps every part'"'"'s events in their buffers' '
	n=$(tr report -i multi.dat | wc -l) &&
	tr split -q -i multi.dat -o part --events $(( n / 2 + 1 )) &&
	test -f part.1 && test -f part.2 &&
	{ tr report -i part.1 && tr report -i part.2; } | pairs >actual &&
	expect_pairs >expect.pairs && test_cmp expect.pairs actual
'

test_expect_success 'convert to version 6 keeps the buffers (tr and trace-cmd read them)' '
	tr convert -q -i multi.dat --file-version 6 -o v6.dat &&
	tr report -i v6.dat | pairs >actual && expect_pairs >expect.pairs && test_cmp expect.pairs actual &&
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i v6.dat 2>/dev/null | pairs >actual && expect_pairs >expect.pairs && test_cmp expect.pairs actual
	fi
'

test_expect_success 'top -i shows the buffer -B names' '
	tr top -i multi.dat -B "$a" -b -n 1 >top &&
	test_grep "multi.dat (buffer $a)" top
'

test_expect_success '-B first: that instance alone, as before (no empty top level asked for)' '
	tr record -q -B "$a" -e sched:sched_process_exit -o one.dat /bin/true &&
	tr report --stat -i one.dat >stat &&
	tr report -i one.dat | pairs >actual &&
	echo "$a sched_process_exit" >expect && test_cmp expect actual
'

test_expect_success '--instance puts the whole command in one instance, wherever it comes' '
	tr record -q -e sched:sched_process_exec --instance "$a" -e sched:sched_process_exit \
		-o inst.dat /bin/true &&
	tr report -i inst.dat | pairs >actual &&
	printf "%s\n" "$a sched_process_exec" "$a sched_process_exit" >expect &&
	test_cmp expect actual
'

test_expect_success 'bad -B lines are usage errors and change nothing' '
	test_expect_code 64 tr record -e sched -B "$a" -o x.dat true 2>err &&
	test_grep "nothing to record in instance '"'$a'"'" err &&
	test_expect_code 64 tr record -B "$a" -e sched -B "$a" -e irq -o x.dat true 2>err &&
	test_grep "given twice" err &&
	test_expect_code 64 tr record -b 64 -B "$a" -e sched -o x.dat true 2>err &&
	test_grep "top-level buffer, which records nothing" err &&
	test_expect_code 64 tr record --instance "$a" -B "$b" -e sched -o x.dat true 2>err &&
	test_grep "exclude each other" err &&
	test_expect_code 64 tr record -e sched -B "$a" -p irqsoff -o x.dat true 2>err &&
	test_grep "top-level buffer only" err &&
	test_expect_code 64 tr record -e sched -B "bad/name" -e irq -o x.dat true 2>err &&
	test_grep "bad instance name" err &&
	test ! -e x.dat &&
	test ! -d "$TRACEFS/instances/$a" && test ! -d "$TRACEFS/instances/$b"
'

test_expect_success 'a missing event in a second buffer fails before anything is recorded' '
	test_expect_code 1 tr record -e sched:sched_process_exec -B "$a" -e sched:nosuch \
		-o x.dat true 2>err &&
	test_grep "no such event" err &&
	test ! -e x.dat && test ! -d "$TRACEFS/instances/$a"
'

test_done
