#!/bin/bash
# tr report's other outputs and options on the committed trace files:
# JSON (valid, typed), CSV, --stat, --events, --first-event/--last-event,
# --cpu, -F/-v, -t, --buffer.
. "$(dirname "$0")/lib.sh"

data=$TEST_ROOT/tests/data
export LSAN_OPTIONS="suppressions=$data/lsan.supp:print_suppressions=0"
v7=$data/report-v7.dat

test_expect_success 'JSON: one valid object per event, every field typed' '
	tr report -i "$v7" --format json >out.json &&
	python3 -m json.tool --json-lines out.json >/dev/null &&
	test $(wc -l <out.json) = $(($(wc -l <"$data/report-v7.N") - 1)) &&
	python3 - out.json <<-\PY
	import json, sys
	seen = set()
	for line in open(sys.argv[1]):
	    o = json.loads(line)
	    assert isinstance(o["ts"], int) and isinstance(o["cpu"], int), o
	    assert isinstance(o["pid"], int) and isinstance(o["comm"], str), o
	    assert o["buffer"] == "trgen7" and o["system"] in ("sched", "ftrace"), o
	    f = o["fields"]
	    if o["event"] == "sched_switch":
	        assert isinstance(f["prev_comm"], str) and isinstance(f["prev_pid"], int), f
	        assert isinstance(f["prev_state"], int) and isinstance(f["next_prio"], int), f
	    if o["event"] == "sched_process_exec":
	        assert isinstance(f["filename"], str) and f["filename"].startswith("/"), f
	    if o["event"] == "print":
	        assert isinstance(f["buf"], str) and isinstance(f["ip"], int), f
	    seen.add(o["event"])
	assert {"sched_switch", "sched_process_exec", "print"} <= seen, seen
	PY
'

test_expect_success 'JSON: strings with quotes and control characters stay valid' '
	tr report -i "$v7" --format json -F print >p.json &&
	python3 -c "
import json, sys
bufs = [json.loads(l)[\"fields\"][\"buf\"] for l in open(sys.argv[1])]
assert \"hello, \\\"world\\\"\\n\" in bufs, bufs
assert \"no newline\\n\" in bufs, bufs" p.json
'

test_expect_success 'CSV: a header and one row per event, the text as the last column' '
	tr report -i "$v7" --format csv >out.csv &&
	python3 - out.csv "$data/report-v7.N" <<-\PY
	import csv, sys
	rows = list(csv.reader(open(sys.argv[1], newline="")))
	assert rows[0] == ["timestamp", "cpu", "comm", "pid", "system", "event", "info"], rows[0]
	text = [l.rstrip("\n") for l in open(sys.argv[2])][1:]
	assert len(rows) - 1 == len(text), (len(rows), len(text))
	for r, t in zip(rows[1:], text):
	    assert t.endswith(r[6]) and (r[5] + ":") in t and ("-" + r[3]) in t, (r, t)
	assert any(r[6].endswith("hello, \"world\"") for r in rows)
	PY
'

test_expect_success '--stat: metadata, counts per CPU and per event, time span' '
	tr report -i "$v7" --stat >stat &&
	n=$(($(wc -l <"$data/report-v7.N") - 1)) &&
	test_grep "^events: *$n$" stat &&
	test_grep "^version: *7 (little-endian, 8-byte long, page size 4096)$" stat &&
	test_grep "^compression: *zstd" stat &&
	test_grep "^cpus: *2$" stat &&
	test_grep -E "^clock: +local$" stat &&
	test_grep "^uname: *Linux" stat &&
	test_grep "^options: .*cmdlines" stat &&
	test_grep "^buffers: *(top) trgen7$" stat &&
	test_grep "^lost events: *0$" stat &&
	test_grep "^time span: *0\.[0-9]\{9\} s$" stat &&
	sw=$(grep -c " sched_switch: " "$data/report-v7.N") &&
	test_grep "^  sched:sched_switch  *$sw$" stat &&
	test_grep "^  cpu 0 " stat
'

test_expect_success '--events lists the formats stored in the file' '
	tr report -i "$v7" --events >ev &&
	test_grep "^name: sched_switch$" ev &&
	test_grep "^system: sched$" ev &&
	test_grep "^print fmt: \"prev_comm=%s" ev
'

test_expect_success '--first-event and --last-event: one line per CPU with events' '
	tr report -i "$v7" --first-event >first &&
	sed -n 2p "$data/report-v7.N" >expect &&
	test_cmp expect first &&
	tr report -i "$v7" --last-event >last &&
	tail -n 1 "$data/report-v7.N" >expect &&
	test_cmp expect last
'

test_expect_success '--cpu keeps only those CPUs' '
	tr report -i "$data/report-v6.dat" --cpu 1 >one &&
	grep -v "^cpus=" one >events &&
	test -s events &&
	! grep -v "\[001\]" events &&
	grep -c "\[001\]" "$data/report-v6.N" >n &&
	test $(wc -l <events) = $(cat n)
'

test_expect_success '-F keeps the matching events, -v the others, several -F are ORed' '
	tr report -i "$v7" -F "sched_switch: prev_comm == \"bash\"" >f &&
	grep -v "^cpus=" f >fe &&
	test $(wc -l <fe) = $(grep -c "sched_switch: *prev_comm=bash " "$data/report-v7.N") &&
	! grep -v "sched_switch: *prev_comm=bash " fe &&
	tr report -i "$v7" -F "sched_switch: prev_comm == \"bash\"" -v >v &&
	test $(($(wc -l <f) + $(wc -l <v) - 2)) = $(($(wc -l <"$data/report-v7.N") - 1)) &&
	tr report -i "$v7" -F "sched_switch: prev_comm == \"bash\"" -F sched_waking >o &&
	w=$(grep -c " sched_waking: " "$data/report-v7.N") &&
	test $(wc -l <o) = $(($(wc -l <f) + w)) &&
	tr report -i "$v7" -F "sched/sched_wak.*" >re &&
	! grep -v "^cpus=\| sched_waking: \| sched_wakeup: " re
'

test_expect_success '-t prints nanoseconds' '
	tr report -i "$v7" -t >t &&
	test_grep -q "\] [ 0-9]*\.[0-9]\{9\}: " t
'

test_expect_success '--irq-info: the kernel'"'"'s flags column on every line' '
	tr report -i "$v7" --irq-info >l &&
	test_grep -E "^trgen7: +bash-26667 \[000\] d\.h2\.  1977\.122362: sched_waking: " l &&
	test_grep -E "^trgen7: +bash-26667 \[000\] dNh3\.  1977\.122371: sched_wakeup: " l &&
	! grep -vE "^cpus=|^trgen7: +.*-[0-9]+ +\[[0-9]{3}\] [.dDbX][.nNpBLbl][.hHsZz][.0-9a-f][.0-9a-f] +[0-9]+\.[0-9]{6}: " l &&
	test $(wc -l <l) = $(wc -l <"$data/report-v7.N") &&
	test_expect_code 64 tr report -i "$v7" --irq-info --format json 2>err &&
	test_grep "are for text output" err &&
	test_expect_code 64 tr report -i "$v7" --irq-info --stat 2>err &&
	test_grep "does not go with --events or --stat" err
'

test_expect_success 'a reader that goes away is not an error' '
	tr report -i "$data/report-lost.dat" | head -n 2 >two &&
	test $(wc -l <two) = 2
'

test_expect_success '--buffer NAME shows that buffer only; top is the top level; others are named' '
	tr report -i "$v7" --buffer trgen7 >one &&
	tr report -i "$v7" >all &&
	test_cmp all one &&
	tr report -i "$v7" --buffer top >top &&
	echo cpus=2 >expect &&
	test_cmp expect top &&
	test_expect_code 1 tr report -i "$v7" --buffer nope 2>err &&
	test_grep "no buffer .nope. in .*report-v7.dat. (buffers: top, trgen7)" err
'

test_done
