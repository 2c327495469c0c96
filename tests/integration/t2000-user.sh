#!/bin/bash
# tr user: user events defined, emitted, listed and deleted from the shell
# and from C (libtr-user's example program), recorded like kernel events and
# reported in the kernel's own words.  Needs CONFIG_USER_EVENTS (the full VM
# kernel); elsewhere every tr user command must refuse in one line saying so.
. "$(dirname "$0")/lib.sh"
test_kernels full

data=$TEST_ROOT/tests/data
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"
example=$TEST_ROOT/build/examples/user-events
word=$TEST_ROOT/build/examples/user-events-word
n=t$$
T=$TRACEFS

if ! test_have user_events; then
	test_expect_success 'without user_events every tr user command refuses in one line' '
		for cmd in "list" "list --json" "add ${n}_a \"u32 a\"" "add ${n}_a \"u8 a\" --multi" \
			   "emit ${n}_a a=1" "emit ${n}_a --stdin" "emit ${n}_a --if-enabled a=1" \
			   "delete ${n}_a"; do
			eval "test_expect_code 1 tr user $cmd" </dev/null >out 2>err &&
			test ! -s out &&
			test $(wc -l <err) = 1 &&
			test_grep -q "CONFIG_USER_EVENTS" err || exit 1
		done
	'
	test_expect_success 'without user_events tr probe add of a u: line refuses in one line' '
		cp $T/dynamic_events before 2>/dev/null || : >before &&
		test_expect_code 1 tr probe add "u:${n}_a u32 a" >out 2>err &&
		test ! -s out &&
		test $(wc -l <err) = 1 &&
		test_grep -q "CONFIG_USER_EVENTS" err &&
		{ cat $T/dynamic_events 2>/dev/null || :; } >after &&
		test_cmp before after
	'
	test_expect_success 'tr check says why for each user events capability' '
		tr check >out &&
		test_grep -E "^user_events +no +.*CONFIG_USER_EVENTS" out &&
		test_grep -E "^user_persist +no +.*CONFIG_USER_EVENTS" out &&
		test_grep -E "^user_multi +no +.*CONFIG_USER_EVENTS" out
	'
	test_expect_success 'libtr-user without user_events: the first emit says why, once' '
		test_expect_code 1 "$example" -n 3 >out 2>err &&
		echo "user-events: emit failed: No such file or directory" >expect &&
		test_cmp expect err
	'
	test_done
	exit
fi

# Is a user event (a tracepoint name) known to the kernel?  Non-persistent
# ones go a moment after their last user (the kernel deletes them from a
# work queue), so gone() waits a little.
present() { grep -q "^u:$1\( \|$\)" "$T/dynamic_events"; }
gone() {
	local i
	for ((i = 0; i < 30; i++)); do
		! present "$1" && ! grep -q "^$1\( \|$\|\.\)" "$T/user_events_status" && return 0
		sleep 0.1
	done
	echo "user event $1 is still there:" >&2
	cat "$T/dynamic_events" "$T/user_events_status" >&2
	return 1
}

test_expect_success 'the example programs are built (make examples)' '
	test -x "$example" && test -x "$word"
'

# Wait (bounded, 30 s: a loaded emulated guest is slow) until file $1 has $2 lines.
lines_at_least() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$({ wc -l <"$1"; } 2>/dev/null)" -ge "$2" ] 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$1 has fewer than $2 lines:" >&2
	cat "$1" >&2
	return 1
}

test_expect_success 'tr check shows user events, persistent and multi-format ones' '
	tr check >out &&
	test_grep -E "^user_events +yes +$T/user_events_data" out &&
	test_grep -E "^user_persist +yes " out &&
	test_grep -E "^user_multi +yes " out
'

test_expect_success 'add: a persistent event, with its format, that outlives tr' '
	test_when_finished "tr user delete ${n}_p 2>/dev/null || true" &&
	tr user add ${n}_p "u32 count;  char[16] who;__rel_loc char[] msg" >out &&
	echo "user_events:${n}_p" >expect &&
	test_cmp expect out &&
	grep -x "u:${n}_p u32 count; char\[16\] who; __rel_loc char\[\] msg" "$T/dynamic_events" &&
	test -f "$T/events/user_events/${n}_p/format" &&
	tr user list >list &&
	test_grep -x "user_events:${n}_p  u32 count; char\[16\] who; __rel_loc char\[\] msg    # made by tr" list &&
	test_grep -E "^active: [0-9]+, busy: 0$" list &&
	tr user list --json >list.json &&
	python3 -c "
import json
d = json.load(open(\"list.json\"))
e = [x for x in d[\"events\"] if x[\"name\"] == \"${n}_p\"]
assert len(e) == 1, d
e = e[0]
assert e[\"system\"] == \"user_events\" and e[\"tracepoint\"] == \"${n}_p\", e
assert e[\"format\"] == \"u32 count; char[16] who; __rel_loc char[] msg\", e
assert e[\"used_by\"] == [] and e[\"made_by_tr\"] is True and e[\"multi_format\"] is False, e
assert d[\"active\"] >= 1 and d[\"busy\"] == 0, d
"
'

test_expect_success 'delete removes it; a second delete says there is no such event' '
	tr user add ${n}_d "u8 x" >/dev/null &&
	present ${n}_d &&
	tr user delete ${n}_d &&
	gone ${n}_d &&
	test_expect_code 1 tr user delete ${n}_d 2>err &&
	echo "tr: no user event '"'"'${n}_d'"'"' (tr user list shows them)" >expect &&
	test_cmp expect err
'

test_expect_success 'delete of a traced event fails, names who uses it, and leaves every format' '
	test_when_finished "{ echo 0 >$T/events/user_events/${n}_b/enable; } 2>/dev/null || true; tr user delete ${n}_b 2>/dev/null || true" &&
	tr user add ${n}_b "u32 a" >/dev/null &&
	tr user add ${n}_b "u64 a" --multi >/dev/null &&
	echo 1 >"$T/events/user_events/${n}_b/enable" &&
	test_expect_code 1 tr user delete ${n}_b 2>err &&
	echo "tr: cannot delete user event '"'"'${n}_b'"'"': in use by ftrace (disable it first)" >expect &&
	test_cmp expect err &&
	tr user list >list &&
	test_grep "^user_events:${n}_b  u32 a    # used by ftrace; made by tr$" list &&
	test_grep "^user_events_multi:${n}_b\.[0-9a-f]*  u64 a    # made by tr$" list &&
	echo 0 >"$T/events/user_events/${n}_b/enable" &&
	tr user delete ${n}_b &&
	gone ${n}_b
'

test_expect_success 'emit: values of every type land as typed, as the kernel prints them' '
	inst=$(test_instance) &&
	test_when_finished "rmdir $T/instances/$inst 2>/dev/null || true; tr user delete ${n}_v 2>/dev/null || true" &&
	tr user add ${n}_v "u8 a; s16 b; int c; s64 d; char e; char[6] s; __rel_loc char[] r; __data_loc char[] l; struct pt p 4; __rel_loc u8[] blob" >/dev/null &&
	mkdir "$T/instances/$inst" &&
	echo 1 >"$T/instances/$inst/events/user_events/${n}_v/enable" &&
	tr user emit ${n}_v a=255 b=-2 c=-2147483648 d=0x7fffffffffffffff e=65 s=hello "r=two words" l=x p=01020304 blob=de,ad,be,ef &&
	tr user emit ${n}_v &&
	echo 0 >"$T/instances/$inst/tracing_on" &&
	grep -av "^#" "$T/instances/$inst/trace" | sed -E "s/^.*: ${n}_v: //" >actual &&
	cat >expect <<-EOF &&
	a='"'"'\xff'"'"'(255) b=0xfffe (65534) c=0x80000000 (-2147483648) d=0x7fffffffffffffff (9223372036854775807) e='"'"'A'"'"'(65) s=hello r=two words l=x p=0x4030201 (67305985) blob=de,ad,be,ef
	a=(0) b=0x0 (0) c=0x0 (0) d=0x0 (0) e=(0) s= r= l= p=0x0 (0) blob=
	EOF
	printf "%b" "$(cat expect)\n" >expect.bin &&
	test_cmp expect.bin actual
'

test_expect_success 'report: the same text as the kernel trace file, for every field type' '
	inst=$(test_instance) &&
	test_when_finished "rmdir $T/instances/$inst 2>/dev/null || true; tr user delete ${n}_k 2>/dev/null || true; tr user delete tr_example 2>/dev/null || true" &&
	tr user add ${n}_k "u8 a; s16 b; u32 c; s64 d; char e; char[6] s; __rel_loc char[] r; __data_loc char[] l; struct pt p 8; struct odd q 3; __rel_loc u8[] blob" >/dev/null &&
	tr user add tr_example "u32 seq; s64 value; __rel_loc char[] msg" >/dev/null &&
	mkdir "$T/instances/$inst" &&
	echo 4096 >"$T/instances/$inst/buffer_size_kb" &&
	echo 1 >"$T/instances/$inst/events/user_events/enable" &&
	tr user emit ${n}_k a=200 b=-1 c=4294967295 d=-5 e=0 s=abcde r= l=world p=0102030405060708 q=aabbcc blob=00,ff &&
	tr user emit ${n}_k a=32 e=126 "r=tab	and space" &&
	for i in $(seq 0 199); do echo "a=$((i % 256)) b=$((i - 100)) c=$((i * 1000)) s=s$i \"r=line $i\""; done |
		tr user emit ${n}_k --stdin &&
	"$example" -n 1000 >ex.out &&
	echo "emitted 1000 written 1000" >expect.ex &&
	test_cmp expect.ex ex.out &&
	echo 0 >"$T/instances/$inst/tracing_on" &&
	cat "$T/instances/$inst/trace" >kernel.txt &&
	tr extract -q -B "$inst" -o k.dat &&
	tr report -i k.dat >report.txt &&
	normalize kernel kernel.txt >expect &&
	normalize report report.txt >actual &&
	test $(grep -c "| ${n}_k: " expect) = 202 &&
	test $(grep -c "| tr_example: " expect) = 1000 &&
	test_cmp expect actual
'

test_expect_success 'record: 1,000 events from the CLI and 100,000 from C, in order, with their values' '
	test_when_finished "tr user delete tr_example 2>/dev/null || true" &&
	tr user add tr_example "u32 seq; s64 value; __rel_loc char[] msg" >/dev/null &&
	seq 0 999 | sed -E "s/.*/seq=& value=-& \"msg=cli &\"/" >lines &&
	cat >run.sh <<-EOF &&
	"$TR" user emit tr_example --stdin <lines && "$example" -n 100000
	EOF
	tr record -q --fail-on-loss -b 16384 -e user_events:tr_example -o rec.dat \
		taskset -c 0 bash run.sh >ex.out &&
	echo "emitted 100000 written 100000" >expect.ex &&
	test_cmp expect.ex ex.out &&
	tr report -i rec.dat >report.txt &&
	python3 - <<-\PY
	import re
	got = []
	for line in open("report.txt"):
	    m = re.search(r" tr_example: +seq=0x[0-9a-f]+ \((\d+)\) value=0x[0-9a-f]+ \((-?\d+)\) msg=(.*)$", line)
	    if m:
	        got.append((int(m.group(1)), int(m.group(2)), m.group(3)))
	want = [(i, -i, "cli %d" % i) for i in range(1000)]
	want += [(i, i * i - 1000, "event %d" % i) for i in range(100000)]
	assert len(got) == len(want), (len(got), len(want))
	for i, (g, w) in enumerate(zip(got, want)):
	    assert g == w, (i, g, w)
	PY
'

test_expect_success 'the enable bit: untraced, the example makes no write at all' '
	test_when_finished "tr user delete tr_example 2>/dev/null || true" &&
	tr user add tr_example "u32 seq; s64 value; __rel_loc char[] msg" >/dev/null &&
	"$example" -n 1000 >out &&
	echo "emitted 1000 written 0" >expect &&
	test_cmp expect out &&
	if command -v strace >/dev/null; then
		strace -f -qq -e trace=write,writev -o st.txt "$example" -n 1000 >out &&
		test_cmp expect out &&
		# The only writes: its own stdout line.
		! grep -v "^[0-9]* *write(1, " st.txt
	fi
'

test_expect_success 'the enable bit: traced, every emit is written, in a forked child too' '
	test_when_finished "tr user delete tr_example 2>/dev/null || true" &&
	tr user add tr_example "u32 seq; s64 value; __rel_loc char[] msg" >/dev/null &&
	tr record -q -e user_events:tr_example -o f.dat "$example" -n 1000 -f >out &&
	test_grep -x "emitted 500 written 500" out &&
	test_grep -x "child: emitted 500 written 500" out &&
	tr report -i f.dat >report.txt &&
	test $(grep -c " tr_example: " report.txt) = 1000 &&
	test $(sed -nE "s/^ *user-events-([0-9]+) .*/\1/p" report.txt | sort -u | wc -l) = 2
'

test_expect_success 'convert --to perfetto: user events go generic, every field as the trace processor reads it' '
	inst=$(test_instance) &&
	test_when_finished "tr user delete ${n}_pf 2>/dev/null || true" &&
	tr user add ${n}_pf "u32 seq; s64 v; __rel_loc char[] msg" >/dev/null &&
	cat >emit.sh <<-EOF &&
	"$TR" user emit ${n}_pf seq=1 v=-7 msg=one && "$TR" user emit ${n}_pf seq=2 v=9 msg=two
	EOF
	tr record -q -B "$inst" -e user_events:${n}_pf -o pf.dat sh emit.sh &&
	tr convert -i pf.dat -o pf.pftrace 2>err &&
	test_grep -E " 2 generic\), " err &&
	tps=$TEST_ROOT/../shared/perfetto/trace_processor_shell &&
	{ [ -x "$tps" ] && "$tps" --version >/dev/null 2>&1 || { echo "no trace processor here"; exit 0; }; } &&
	echo "select a.key, coalesce(a.int_value, a.string_value) from ftrace_event f join args a using(arg_set_id) where f.name = '"'"'${n}_pf'"'"' order by f.ts, a.key;" >q.sql &&
	"$tps" -q q.sql pf.pftrace 2>/dev/null | sed -e 1d -e "s/\"//g" >actual &&
	printf "%s\n" msg,one seq,1 v,-7 msg,two seq,2 v,9 >expect &&
	test_cmp expect actual
'

test_expect_success 'multi-format: two formats, two tracepoints; -e user:NAME records both' '
	test_when_finished "tr user delete ${n}_m 2>/dev/null || true" &&
	tr user add ${n}_m "u32 a" --multi >tp1 &&
	tr user add ${n}_m "u64 a; u64 b" --multi >tp2 &&
	test_grep -E "^user_events_multi:${n}_m\.[0-9a-f]+$" tp1 &&
	test_grep -E "^user_events_multi:${n}_m\.[0-9a-f]+$" tp2 &&
	! test_cmp tp1 tp2 &&
	tr user list >list &&
	test $(grep -c "^user_events_multi:${n}_m\." list) = 2 &&
	test_expect_code 1 tr user emit ${n}_m a=1 2>err &&
	test_grep "has 2 formats: --format says which" err &&
	tr record -q -e user:${n}_m -o m.dat sh -c "
		\"$TR\" user emit ${n}_m --multi --format \"u32 a\" a=1 &&
		\"$TR\" user emit ${n}_m --multi --format \"u64 a; u64 b\" a=2 b=3" &&
	tr report -i m.dat >report.txt &&
	test_grep -E "^ +tr-[0-9]+ +\[[0-9]+\] +[0-9.]+: $(sed "s/.*://" tp1): +a=0x1 \(1\)$" report.txt &&
	test_grep -E "^ +tr-[0-9]+ +\[[0-9]+\] +[0-9.]+: $(sed "s/.*://" tp2): +a=0x2 \(2\) b=0x3 \(3\)$" report.txt &&
	test $(grep -c ": ${n}_m\." report.txt) = 2
'

test_expect_success 'multi-format from C: the example registers its own format' '
	test_when_finished "tr user delete tr_example_multi 2>/dev/null || true" &&
	tr user add tr_example_multi "u64 seq; __rel_loc char[] msg" --multi >/dev/null &&
	tr record -q -e user:tr_example_multi -o mc.dat "$example" -m -n 10 >out &&
	test_grep -x "emitted 10 written 10" out &&
	tr report -i mc.dat >report.txt &&
	test $(grep -c ": tr_example_multi\.[0-9a-f]*: *seq=" report.txt) = 10
'

# tr_user_register_bit(): the program's own word, 32 and 64 bits; the
# program sets bit 0 for itself first, and the kernel must leave it alone.
for case in "4 5 0x00000001 0x00000021" "8 37 0x0000000000000001 0x0000002000000001"; do
	read -r size bit w0 w1 <<<"$case"
	test_expect_success "tr_user_register_bit: the kernel keeps bit $bit of the program's own $size-byte word" "
		inst=\$(test_instance) &&
		test_when_finished \"exec 6>&-; { echo 0 >$T/instances/\$inst/events/user_events/tr_example_word/enable; } 2>/dev/null || true; rmdir $T/instances/\$inst 2>/dev/null || true\" &&
		rm -f fifo-w && mkfifo fifo-w &&
		(\"\$word\" -s $size -b $bit <fifo-w >word.out 2>&1 &) &&
		exec 6>fifo-w &&
		lines_at_least word.out 1 &&
		echo show >&6 && lines_at_least word.out 2 &&
		mkdir $T/instances/\$inst &&
		echo 1 >$T/instances/\$inst/events/user_events/tr_example_word/enable &&
		echo show >&6 && lines_at_least word.out 3 &&
		echo 'emit traced $size' >&6 && lines_at_least word.out 4 &&
		echo 0 >$T/instances/\$inst/events/user_events/tr_example_word/enable &&
		echo show >&6 && lines_at_least word.out 5 &&
		echo 'emit untraced' >&6 && lines_at_least word.out 6 &&
		grep -v '^#' $T/instances/\$inst/trace | sed -nE 's/.*: tr_example_word: +//p' >actual &&
		exec 6>&- &&
		gone tr_example_word &&
		printf '%s\\n' registered 'word $w0' 'word $w1' 'written 1' 'word $w0' 'written 0' >expect &&
		test_cmp expect word.out &&
		echo 'seq=0x0 (0) msg=traced $size' >expect &&
		test_cmp expect actual
	"
done

test_expect_success 'tr_user_register_bit: a bit outside the word, or a bad size, is refused' '
	test_expect_code 1 "$word" -s 4 -b 32 </dev/null >out &&
	echo "register failed: Invalid argument" >expect &&
	test_cmp expect out &&
	test_expect_code 1 "$word" -s 2 -b 0 </dev/null >out &&
	test_cmp expect out &&
	! grep -q "^u:tr_example_word" $T/dynamic_events &&
	"$word" -s 8 -b 63 </dev/null >out &&
	echo registered >expect &&
	test_cmp expect out &&
	gone tr_example_word
'

test_expect_success 'tr_user_writev: fields from four iovecs arrive as one event, as tr_user_emit writes it' '
	inst=$(test_instance) &&
	test_when_finished "rmdir $T/instances/$inst 2>/dev/null || true; tr user delete tr_example 2>/dev/null || true" &&
	tr user add tr_example "u32 seq; s64 value; __rel_loc char[] msg" >/dev/null &&
	mkdir "$T/instances/$inst" &&
	echo 1 >"$T/instances/$inst/events/user_events/tr_example/enable" &&
	"$example" -w -n 50 >ex.out &&
	"$example" -n 50 >>ex.out &&
	printf "emitted 50 written 50\nemitted 50 written 50\n" >expect.ex &&
	test_cmp expect.ex ex.out &&
	echo 0 >"$T/instances/$inst/tracing_on" &&
	grep -v "^#" "$T/instances/$inst/trace" | sed -nE "s/.*: tr_example: +//p" >kernel.txt &&
	head -n 50 kernel.txt >writev.txt &&
	tail -n +51 kernel.txt >emit.txt &&
	test_cmp emit.txt writev.txt &&
	python3 - <<-\PY
	import re
	got = []
	for line in open("writev.txt"):
	    m = re.match(r"seq=0x[0-9a-f]+ \((\d+)\) value=0x[0-9a-f]+ \((-?\d+)\) msg=(.*)$", line)
	    assert m, line
	    got.append((int(m.group(1)), int(m.group(2)), m.group(3)))
	want = [(i, i * i - 1000, "event %d" % i) for i in range(50)]
	assert got == want, (got[:3], want[:3])
	PY
'

test_expect_success 'delete one format of a multi-format event: the other formats stay and still trace' '
	test_when_finished "tr user delete ${n}_o 2>/dev/null || true" &&
	tr user add ${n}_o "u32 a" --multi >tp1 &&
	tr user add ${n}_o "u64 a; u64 b" --multi >tp2 &&
	tr user add ${n}_o "u8 c" >/dev/null &&
	one=$(cat tp1) two=$(cat tp2) &&
	tr user delete "$one" &&
	tr user list >list &&
	! grep "^$one " list &&
	test_grep -x "$two  u64 a; u64 b    # made by tr" list &&
	test_grep -x "user_events:${n}_o  u8 c    # made by tr" list &&
	test ! -e "$T/events/user_events_multi/${one#*:}" &&
	test -d "$T/events/user_events_multi/${two#*:}" &&
	! grep -x "u:${n}_o u32 a" $T/dynamic_events &&
	grep -x "u:${n}_o u64 a; u64 b" $T/dynamic_events &&
	tr record -q -e user:${n}_o -o o.dat sh -c "
		\"$TR\" user emit ${n}_o --multi --format \"u64 a; u64 b\" a=5 b=6 &&
		\"$TR\" user emit ${n}_o c=7" &&
	tr report -i o.dat >report.txt &&
	test_grep -E ": ${two#*:}: +a=0x5 \(5\) b=0x6 \(6\)$" report.txt &&
	test_grep -E ": ${n}_o: +c=" report.txt &&
	test_expect_code 1 tr user delete "$one" 2>err &&
	echo "tr: no user event '"'"'$one'"'"' (tr user list shows them)" >expect &&
	test_cmp expect err
'

test_expect_success 'delete one format: refused in one line when the kernel would take its twin too' '
	test_when_finished "tr user delete ${n}_t 2>/dev/null || true" &&
	tr user add ${n}_t "u32 a" >/dev/null &&
	tr user add ${n}_t "u32 a" --multi >tp &&
	cp $T/dynamic_events before &&
	test_expect_code 1 tr user delete "$(cat tp)" >out 2>err &&
	test ! -s out &&
	echo "tr: cannot delete '"'"'$(cat tp)'"'"' alone: the kernel would delete user_events:${n}_t (the same format) with it" >expect &&
	test_cmp expect err &&
	test_cmp before $T/dynamic_events &&
	tr user delete ${n}_t &&
	gone ${n}_t
'

test_expect_success 'probe add: a u: line makes a persistent user event, as dynamic_events does' '
	inst=$(test_instance) &&
	test_when_finished "rmdir $T/instances/$inst 2>/dev/null || true; tr user delete ${n}_u 2>/dev/null || true" &&
	tr probe add "u:${n}_u u32 count;  __rel_loc char[] msg" >out &&
	test ! -s out &&
	grep -x "u:${n}_u u32 count; __rel_loc char\[\] msg" $T/dynamic_events &&
	tr probe list >list &&
	test_grep -x "u:${n}_u u32 count; __rel_loc char\[\] msg    # made by tr" list &&
	tr user list >ulist &&
	test_grep -x "user_events:${n}_u  u32 count; __rel_loc char\[\] msg    # made by tr" ulist &&
	mkdir "$T/instances/$inst" &&
	echo 1 >"$T/instances/$inst/events/user_events/${n}_u/enable" &&
	tr user emit ${n}_u count=3 msg=hi &&
	grep -v "^#" "$T/instances/$inst/trace" | sed -nE "s/.*: ${n}_u: +//p" >actual &&
	echo "count=0x3 (3) msg=hi" >expect &&
	test_cmp expect actual &&
	echo 0 >"$T/instances/$inst/events/user_events/${n}_u/enable" &&
	sleep 0.3 && present ${n}_u &&
	tr probe del ${n}_u &&
	gone ${n}_u
'

test_expect_success 'probe add u: is taken back by tr reset; probe del user_events/NAME deletes one' '
	tr probe add "u:${n}_ur u8 a" &&
	tr probe add "u:${n}_ud" &&
	grep -x "u:${n}_ud" $T/dynamic_events &&
	tr probe del user_events/${n}_ud &&
	gone ${n}_ud &&
	present ${n}_ur &&
	tr reset &&
	gone ${n}_ur
'

test_expect_success 'emit --stdin: a one-string event takes each line whole' '
	test_when_finished "tr user delete ${n}_log 2>/dev/null || true" &&
	tr user add ${n}_log "__rel_loc char[] line" >/dev/null &&
	printf "make: Entering directory\ncc -c a.c  (two  spaces)\n\n" >log.in &&
	tr record -q -e user_events:${n}_log -o log.dat sh -c "\"$TR\" user emit ${n}_log --stdin <log.in" &&
	tr report -i log.dat | sed -nE "s/.*: ${n}_log: +//p" >actual &&
	printf "line=make: Entering directory\nline=cc -c a.c  (two  spaces)\nline=\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'emit --format registers the event only while it emits' '
	inst=$(test_instance) &&
	test_when_finished "exec 8>&-; { echo 0 >$T/instances/$inst/events/user_events/${n}_f/enable; } 2>/dev/null || true; rmdir $T/instances/$inst 2>/dev/null || true" &&
	mkfifo fifo-f &&
	("$TR" user emit ${n}_f --format "u16 port" --stdin <fifo-f >emit.out 2>&1 &) &&
	exec 8>fifo-f &&
	for i in $(seq 1 50); do present ${n}_f && break; sleep 0.1; done &&
	grep -x "u:${n}_f u16 port" "$T/dynamic_events" &&
	mkdir "$T/instances/$inst" &&
	echo 1 >"$T/instances/$inst/events/user_events/${n}_f/enable" &&
	echo port=8080 >&8 &&
	for i in $(seq 1 50); do grep -q "${n}_f: port=" "$T/instances/$inst/trace" && break; sleep 0.1; done &&
	grep "${n}_f: port=0x1f90 (8080)$" "$T/instances/$inst/trace" &&
	echo 0 >"$T/instances/$inst/events/user_events/${n}_f/enable" &&
	rmdir "$T/instances/$inst" &&
	exec 8>&- &&
	gone ${n}_f &&
	test ! -s emit.out
'

test_expect_success 'emit --if-enabled: exit 1 and no write when untraced, 0 when traced' '
	inst=$(test_instance) &&
	test_when_finished "rmdir $T/instances/$inst 2>/dev/null || true; tr user delete ${n}_i 2>/dev/null || true" &&
	tr user add ${n}_i "u32 a" >/dev/null &&
	test_expect_code 1 tr user emit ${n}_i --if-enabled a=1 >out 2>err &&
	test ! -s out && test ! -s err &&
	mkdir "$T/instances/$inst" &&
	echo 1 >"$T/instances/$inst/events/user_events/${n}_i/enable" &&
	tr user emit ${n}_i --if-enabled a=2 &&
	grep -c "${n}_i: a=" "$T/instances/$inst/trace" >count &&
	echo 1 >expect &&
	test_cmp expect count
'

test_expect_success 'hist takes user events as any other' '
	test_when_finished "tr user delete ${n}_h 2>/dev/null || true" &&
	tr user add ${n}_h "u32 key; u32 val" >/dev/null &&
	tr hist -e user_events:${n}_h -k key -v val sh -c "
		for i in 1 2 3 4 5 6; do \"$TR\" user emit ${n}_h key=\$((i % 2)) val=\$i; done" >hist.txt &&
	awk "\$1 == 0 && \$2 == 3 && \$3 == 12 { z = 1 } \$1 == 1 && \$2 == 3 && \$3 == 9 { o = 1 }
	     END { exit !(z && o) }" hist.txt
'

test_expect_success 'stream shows user events live, in the kernel words' '
	test_when_finished "tr user delete ${n}_s 2>/dev/null || true" &&
	tr user add ${n}_s "u32 key; __rel_loc char[] what" >/dev/null &&
	{ "$TR" stream -e user_events:${n}_s --duration 120s >stream.txt 2>stream.err & } &&
	spid=$! &&
	for i in $(seq 1 100); do
		"$TR" user emit ${n}_s key=7 what=live
		grep -q "${n}_s: *key=0x7" stream.txt && break
		sleep 0.2
	done &&
	kill -INT $spid &&
	test_wait_exit $spid 30 &&
	test_grep -E "${n}_s: +key=0x7 \(7\) what=live$" stream.txt
'

# Bad input: one line naming the bad thing, exit 1, nothing written or left.
bad() {
	local what=$1 expect=$2
	shift 2
	test_expect_success "bad input: $what" "
		inst=\$(test_instance) &&
		test_when_finished \"rmdir $T/instances/\$inst 2>/dev/null || true; tr user delete ${n}_x 2>/dev/null || true\" &&
		tr user add ${n}_x \"u8 a; char[4] s; __rel_loc char[] m\" >/dev/null &&
		mkdir $T/instances/\$inst &&
		echo 1 >$T/instances/\$inst/events/user_events/enable &&
		cp $T/dynamic_events before &&
		test_expect_code 1 $* >out 2>err &&
		test ! -s out &&
		test \$(wc -l <err) = 1 &&
		test_grep -F \"$expect\" err &&
		sleep 0.3 &&
		test_cmp before $T/dynamic_events &&
		! grep -v '^#' $T/instances/\$inst/trace
	"
}
bad "bad type" "bad field 'u24 b' of user event '${n}_y': unknown type" \
	tr user add ${n}_y "'u8 a; u24 b'"
bad "too-long name" "name too long (at most 238 bytes)" \
	tr user add "$(printf "x%.0s" $(seq 239))" "'u8 a'"
bad "value out of range" "value '256' of field 'a' is out of range for u8 (0..255)" \
	tr user emit ${n}_x a=256
bad "string too long" "string of 4 bytes is too long for field 's' (char[4]: at most 3)" \
	tr user emit ${n}_x s=abcd
bad "string too long for the ring buffer" "value of field 'm' is too long: the event would be" \
	tr user emit ${n}_x "m=$(head -c 5000 /dev/zero | sed "s/\x0/x/g")"
bad "unknown event" "no user event '${n}_nosuch' (tr user add defines one" \
	tr user emit ${n}_nosuch a=1
bad "unknown field" "user event '${n}_x' has no field 'b'" \
	tr user emit ${n}_x b=1
bad "emit --format with another format" "user event '${n}_x' exists with another format" \
	tr user emit ${n}_x --format "'u16 a'" a=1
bad "without CAP_PERFMON (setpriv)" "persistent events need CAP_PERFMON" \
	setpriv --bounding-set=-perfmon,-sys_admin "$TR" user add ${n}_y "'u8 a'"
bad "probe add u: without CAP_PERFMON (setpriv)" "persistent events need CAP_PERFMON" \
	setpriv --bounding-set=-perfmon,-sys_admin "$TR" probe add "'u:${n}_y u8 a'"
bad "probe add u: with flags" "bad user event 'u:${n}_y:BPF_ITER u8 a': the kernel takes no flags after the name (u:NAME FIELDS)" \
	tr probe add "'u:${n}_y:BPF_ITER u8 a'"
bad "probe add u: with a group" "user events have no group (the kernel puts them in user_events)" \
	tr probe add "'u:grp/${n}_y u8 a'"
bad "probe add u: with a bad type" "bad field 'u24 b' of user event '${n}_y': unknown type" \
	tr probe add "'u:${n}_y u8 a; u24 b'"
bad "probe add u: of an event that exists" "user event '${n}_x' already exists as user_events:${n}_x" \
	tr probe add "'u:${n}_x u8 a; char[4] s; __rel_loc char[] m'"
test_expect_success 'bad input: not root (setpriv): refused, nothing registered' '
	cp $T/dynamic_events before &&
	test_expect_code 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TR" user add ${n}_y "u8 a" >out 2>err &&
	test ! -s out &&
	test_grep -x "tr: permission denied on tracefs at $T" err &&
	test_cmp before $T/dynamic_events
'

test_expect_success 'tr reset removes the user events tr added, not the ones programs hold' '
	tr user add ${n}_r1 "u32 a" >/dev/null &&
	mkfifo fifo-r &&
	("$TR" user emit ${n}_r2 --format "u32 a" --stdin <fifo-r &) &&
	exec 7>fifo-r &&
	for i in $(seq 1 50); do present ${n}_r2 && break; sleep 0.1; done &&
	present ${n}_r2 &&
	tr reset &&
	gone ${n}_r1 &&
	present ${n}_r2 &&
	tr reset -a 2>err &&
	present ${n}_r2 &&
	test_grep "user event '"'"'${n}_r2'"'"' stays" err &&
	exec 7>&- &&
	gone ${n}_r2
'

test_done
