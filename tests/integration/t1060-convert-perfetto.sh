#!/bin/bash
# tr convert --to perfetto: Perfetto's own trace processor (../shared/perfetto,
# or $TR_PERFETTO_DIR) loads each converted file with no import errors, and
# its SQL agrees with tr report: one sched row per sched_switch, the events
# per name, the tasks' names, the lost events, atrace markers as slices and
# counters, several buffers, two files as two machines.  Where the trace
# processor cannot run, protoc --decode against Perfetto's schema reads the
# files instead and the same counts are checked.
. "$(dirname "$0")/lib.sh"

DATA=$TEST_ROOT/tests/data
PF=${TR_PERFETTO_DIR:-$TEST_ROOT/../shared/perfetto}
case $PF in /*) ;; *) PF=$TEST_ROOT/$PF ;; esac
TPS=$PF/trace_processor_shell

# The reader: the trace processor, or protoc on the schema, or none.
reader=
if [ -z "${TR_PERFETTO_NO_TP:-}" ] && [ -x "$TPS" ] && "$TPS" --version >/dev/null 2>&1; then
	reader=tp
elif command -v protoc >/dev/null && [ -f "$PF/protos/perfetto/trace/trace.proto" ]; then
	reader=protoc
	say "# $TEST_FILE: the trace processor cannot run here ($TPS): reading with protoc --decode"
else
	test_skip_all="no Perfetto reader: neither $TPS runs nor protoc with the schema in $PF"
fi
export PF TPS reader

# tpq FILE SQL: the rows of one query, comma-separated, without the header.
tpq() {
	printf '%s\n' "$2" >"$TEST_TMP/q.sql"
	"$TPS" -q "$TEST_TMP/q.sql" "$1" 2>"$TEST_TMP/tp.err" | sed -e 1d -e 's/"//g' -e '/^$/d'
}

# The events of a converted file per name ("name count", sorted), from its reader.
pf_counts() {
	if [ "$reader" = tp ]; then
		tpq "$1" "select name, count(*) from ftrace_event group by name order by name;" |
			sed 's/,/ /'
		return
	fi
	(cd "$PF" && protoc -I . --decode=perfetto.protos.Trace protos/perfetto/trace/trace.proto) <"$1" |
	awk '
		/^    event \{$/ { want = 1; next }
		want == 1 && /^      [0-9]+ \{$/ { byid[$1]++; want = 0; next }
		want == 1 && /^      [a-z0-9_]+ \{$/ { n = $1; if (n != "generic") c[n]++; want = (n == "generic") ? 2 : 0; next }
		want == 2 && /^        event_name: / { n = $2; gsub(/"/, "", n); c[n]++; want = 0; next }
		/^      switch_timestamp: / { c["sched_switch"]++ }
		/^      waking_timestamp: / { c["sched_waking"]++ }
		# a dense generic event: its name opens its descriptor (tag, length, name)
		/^      field_id: / { id = $2 }
		/^      event_descriptor: / {
			d = $0; sub(/^[^"]*"\\n/, "", d)
			sub(/^(\\[0-7][0-7][0-7]|\\.|.)/, "", d); sub(/[\\"].*/, "", d)
			name[id] = d
		}
		END { for (i in byid) c[name[i]] += byid[i]; for (n in c) print n, c[n] }' | sort
}

# tr report --stat's events per name ("name count", sorted), the system left off.
tr_counts() {
	tr report --stat -i "$1" | sed -n '/^per event:/,/^per buffer:/p' | sed '1d;/^per buffer:/d' |
		awk '{ n = $1; sub(/^[^:]*:/, "", n); c[n] += $2 } END { for (n in c) print n, c[n] }' |
		sort
}

# Errors the trace processor reports on import, but mismatched_sched_switch_tids,
# which check_switch_chain compares with the file itself.
import_errors() {
	tpq "$1" "select name, value from stats where severity = 'error' and value > 0
		  and name != 'mismatched_sched_switch_tids';"
}

# Switches whose prev_pid is not the previous switch's next_pid on that CPU:
# a recording of some tasks only (trace-cmd -F) has them, and the trace
# processor counts each as mismatched_sched_switch_tids.
unchained_switches() {
	tr report -i "$1" | awk '/ sched_switch: /{
		cpu = $0; sub(/^[^[]*\[/, "", cpu); sub(/\].*/, "", cpu)
		p = $0; sub(/.*prev_pid=/, "", p); sub(/ .*/, "", p)
		n = $0; sub(/.*next_pid=/, "", n); sub(/ .*/, "", n)
		if ((cpu in last) && last[cpu] != p) m++
		last[cpu] = n
	} END { print m + 0 }'
}

# check_file DAT PFTRACE: what the trace processor (or protoc) reads agrees with tr.
check_file() {
	local dat=$1 pf=$2
	tr_counts "$dat" >expect.counts &&
	pf_counts "$pf" >actual.counts &&
	test -s expect.counts &&
	test_cmp expect.counts actual.counts &&
	if [ "$reader" = tp ]; then
		import_errors "$pf" >errors &&
		test_must_be_empty errors &&
		sw=$(sed -n "s/^sched_switch //p" expect.counts) &&
		test "$(tpq "$pf" "select count(*) from sched;")" = "${sw:-0}" &&
		mm=$(tpq "$pf" "select value from stats where name = 'mismatched_sched_switch_tids';") &&
		test "${mm:-0}" = "$(unchained_switches "$dat")"
	fi
}

for f in report-v6 report-v7 report-v7-zlib report-two; do
	test_expect_success "$f.dat: every event, per name, and one sched row per switch" '
		tr convert -q -i "$DATA/'$f'.dat" -o out.pftrace &&
		check_file "$DATA/'$f'.dat" out.pftrace &&
		tr convert -q --no-compact-sched -i "$DATA/'$f'.dat" -o whole.pftrace &&
		check_file "$DATA/'$f'.dat" whole.pftrace
	'
done

test_expect_success 'a file without a clock pairing: its clock is said, and taken as MONOTONIC' '
	tr convert -i "$DATA/report-v6.dat" -o out.pftrace 2>err &&
	test_grep "report-v6.dat: clock .local. taken as MONOTONIC (no clock pairing in the file)" err &&
	if [ "$reader" = tp ]; then
		# the times stay as the file has them
		first=$(tr report -t -i "$DATA/report-v6.dat" | sed -nE "s/.* ([0-9]+)\.([0-9]+): .*/\1\2/p" |
			sort -n | head -1) &&
		test "$(tpq out.pftrace "select min(ts) from ftrace_event;")" = "$first"
	fi
'

test_expect_success 'the committed tables are what scripts/gen-perfetto.py makes of the schema' '
	[ -d "$PF/protos/perfetto" ] || { echo "no schema in $PF"; exit 0; }
	python3 "$TEST_ROOT/scripts/gen-perfetto.py" --check "$PF"
'

test_expect_success 'the names of the tasks with events are the saved cmdlines' '
	[ "$reader" = tp ] || exit 0
	tr convert -q -i "$DATA/report-v7.dat" -o out.pftrace &&
	# comm-pid of each event as tr report prints it (from the saved cmdlines)
	tr report -i "$DATA/report-v7.dat" |
		sed -nE "s/^ *(.*)-([0-9]+) +\[[0-9]+\].*/\2,\1/p" | grep -v "<\.\.\.>" |
		sort -u >expect &&
	test "$(wc -l <expect)" -ge 4 &&
	tpq out.pftrace "select tid, name from thread where tid != 0 order by tid;" >all &&
	join -t, <(sort expect) <(sort all) >both &&
	cut -d, -f1,2 both | sort -u >ok &&
	test_cmp expect ok
'

test_expect_success 'lost events: the bundle flag and the ftrace stats, as many as tr counts' '
	tr convert -i "$DATA/report-lost.dat" -o lost.pftrace 2>err &&
	test_grep -E "lost.pftrace: perfetto, [0-9]+ packets, 207 events .*, 2794 lost, [0-9]+ bytes" err &&
	tr report --stat -i "$DATA/report-lost.dat" >st &&
	test_grep -E "^lost events: +2794" st &&
	check_file "$DATA/report-lost.dat" lost.pftrace &&
	if [ "$reader" = tp ]; then
		test "$(tpq lost.pftrace "select sum(value) from stats
			where name = '"'"'ftrace_cpu_overrun_end'"'"';")" = 2794 &&
		test "$(tpq lost.pftrace "select count(*) from stats
			where name = '"'"'ftrace_cpu_has_data_loss'"'"' and value > 0;")" -ge 1
	else
		(cd "$PF" && protoc -I . --decode=perfetto.protos.Trace \
			protos/perfetto/trace/trace.proto) <lost.pftrace >txt &&
		test_grep "lost_events: true" txt &&
		test "$(awk "/^ *overrun: /{ s += \$2 } END { print s }" txt)" = 2794
	fi
'

test_expect_success 'two files are two machines, each with its uname and events' '
	tr convert -q -i "$DATA/report-v6.dat" -i "$DATA/report-v7.dat" -o two.pftrace &&
	{ tr_counts "$DATA/report-v6.dat"; tr_counts "$DATA/report-v7.dat"; } |
		awk "{ c[\$1] += \$2 } END { for (n in c) print n, c[n] }" | sort >expect &&
	pf_counts two.pftrace >actual &&
	test_cmp expect actual &&
	if [ "$reader" = tp ]; then
		tpq two.pftrace "select raw_id, name, sysname, release, arch, num_cpus
				 from machine order by raw_id;" >machines &&
		cat >expect.m <<-\EOF &&
		0,vm,Linux,6.18.44-fc-v595,x86_64,2
		1,vm,Linux,6.18.44-fc-v595,x86_64,2
		EOF
		test_cmp expect.m machines &&
		tpq two.pftrace "select m.raw_id, count(*) from ftrace_event e join cpu c on e.ucpu = c.id
				 join machine m on c.machine_id = m.id group by m.raw_id;" >per &&
		printf "0,%s\n1,%s\n" \
			"$(tr report --stat -i "$DATA/report-v6.dat" | sed -n "s/^events: *//p")" \
			"$(tr report --stat -i "$DATA/report-v7.dat" | sed -n "s/^events: *//p")" \
			>expect.per &&
		test_cmp expect.per per &&
		tpq two.pftrace "select c.machine_id, count(*) from sched s join cpu c on s.ucpu = c.id
				 group by 1 order by 1;" >sched &&
		printf "0,%s\n1,%s\n" \
			"$(tr report --stat -i "$DATA/report-v6.dat" | sed -n "/^per buffer:/q; s/^ *sched:sched_switch *//p")" \
			"$(tr report --stat -i "$DATA/report-v7.dat" | sed -n "/^per buffer:/q; s/^ *sched:sched_switch *//p")" \
			>expect.sched &&
		test_cmp expect.sched sched &&
		import_errors two.pftrace >errors && test_must_be_empty errors
	fi
'

test_expect_success 'a new output is 0600 whatever the umask; one replaced keeps its mode' '
	(umask 022 && tr convert -q -i "$DATA/report-v7.dat" -o mode.pftrace) &&
	test "$(stat -c %a mode.pftrace)" = 600 &&
	chmod 640 mode.pftrace &&
	tr convert -q -i "$DATA/report-v7.dat" -o mode.pftrace &&
	test "$(stat -c %a mode.pftrace)" = 640
'

test_expect_success '- writes the same trace to the standard output' '
	tr convert -q -i "$DATA/report-v7.dat" -o file.pftrace &&
	tr convert -q -i "$DATA/report-v7.dat" -o - --to perfetto >out.pftrace &&
	cmp file.pftrace out.pftrace &&
	tr convert -q -i "$DATA/report-v7.dat" -o - >out2.pftrace &&
	cmp file.pftrace out2.pftrace
'

test_expect_success 'a corrupt or truncated input: one line, and no output file at all' '
	head -c 20000 "$DATA/report-v6.dat" >cut.dat &&
	test_expect_code 1 tr convert -i cut.dat -o x.pftrace 2>err &&
	test "$(wc -l <err)" = 1 &&
	test_grep "cut.dat" err &&
	test ! -e x.pftrace &&
	ls >files && test_must_fail grep "x.pftrace" files &&
	test_expect_code 1 tr convert -i nosuch.dat -o x.pftrace 2>err &&
	test_grep "nosuch.dat" err && test ! -e x.pftrace
'

test_expect_success 'usage errors name what is wrong' '
	test_expect_code 64 tr convert -i "$DATA/report-v6.dat" -o x.pftrace --to json 2>err &&
	test_grep "bad format .json." err &&
	test_expect_code 64 tr convert -i "$DATA/report-v6.dat" -i "$DATA/report-v7.dat" \
		-o x.dat 2>err &&
	test_grep "one input for a trace.dat output" err &&
	test_expect_code 64 tr convert -i "$DATA/report-v6.dat" -o x.pftrace --file-version 6 2>err &&
	test_grep "not Perfetto" err &&
	test_expect_code 64 tr convert -i "$DATA/report-v6.dat" -o x.dat --no-compact-sched 2>err &&
	test_grep "for Perfetto output" err &&
	test ! -e x.pftrace && test ! -e x.dat
'

test_requires instances events

# B|/E| slices are the writing thread's (the shell's own echo writes both);
# S|/F| async slices and C| counters are the process's named in them, so
# separate tr marker processes can write them.
test_expect_success 'a tr v7 recording: events, names, and atrace markers as slices and counters' '
	inst=$(test_instance) &&
	m=$TRACEFS/instances/$inst/trace_marker &&
	tr record -q -B "$inst" -e sched:sched_switch -e sched:sched_waking -e ftrace:print \
		-o rec.dat sh -c "
			\"$TR\" marker -B $inst \"S|\$\$|build|1\"
			echo \"B|\$\$|work\" >$m; sleep 0.05
			\"$TR\" marker -B $inst \"C|\$\$|queue|5\"
			echo \"E|\$\$\" >$m
			\"$TR\" marker -B $inst \"C|\$\$|queue|7\"
			\"$TR\" marker -B $inst \"F|\$\$|build|1\"
			\"$TR\" marker -B $inst plain text" &&
	tr convert -i rec.dat -o rec.pftrace 2>err &&
	test_grep "rec.dat: clock .local., tied to BOOTTIME, MONOTONIC and REALTIME by the recording.s clock pairing" err &&
	check_file rec.dat rec.pftrace &&
	[ "$reader" = tp ] || exit 0
	# the times are BOOTTIME, through the pairing: the trace clock (64 in the
	# snapshot) minus BOOTTIME (6) is what they move by, give or take the
	# drift between the start and end pairs
	(cd "$PF" && protoc -I . --decode=perfetto.protos.Trace protos/perfetto/trace/trace.proto) \
		<rec.pftrace | awk "/clock_id: /{ id = \$2 } /timestamp: /{ if (!(id in t)) t[id] = \$2 }
			END { print t[64] - t[6] }" >shift &&
	first=$(tr report -t -i rec.dat | sed -nE "s/.* ([0-9]+)\.([0-9]+): sched_switch:.*/\1\2/p" | head -1) &&
	tp_first=$(tpq rec.pftrace "select min(ts) from sched;") &&
	d=$((first - $(cat shift) - tp_first)) &&
	test "${d#-}" -le 100000 &&
	# each slice lasts from its first mark to its last, to the nanosecond
	tr report -t -i rec.dat |
		sed -nE "s/.* ([0-9]+)\.([0-9]+): tracing_mark_write: ([BESF])\|.*/\3 \1\2/p" >marks &&
	ts() { sed -n "s/^$1 //p" marks; } &&
	printf "build,%s\nwork,%s\n" $(($(ts F) - $(ts S))) $(($(ts E) - $(ts B))) >expect &&
	tpq rec.pftrace "select name, dur from slice order by name;" >slices &&
	test_cmp expect slices &&
	tpq rec.pftrace "select t.name, cast(c.value as int) from counter c join counter_track t
			 on c.track_id = t.id where t.name = '"'"'queue'"'"' order by c.ts;" >counters &&
	printf "queue,5\nqueue,7\n" >expect.c &&
	test_cmp expect.c counters
'

test_expect_success 'an event Perfetto has no message for goes generic, every field kept' '
	tr list -e sched:sched_stat_runtime | grep -q sched_stat_runtime ||
		{ echo "no sched:sched_stat_runtime on this kernel"; exit 0; }
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e sched:sched_stat_runtime -e sched:sched_switch -o g.dat sleep 0.1 &&
	tr convert -i g.dat -o g.pftrace 2>err &&
	test_grep -E " [1-9][0-9]* generic\), " err &&
	check_file g.dat g.pftrace &&
	[ "$reader" = tp ] || exit 0
	tr report -R -i g.dat | sed -nE "s/.*: sched_stat_runtime: +//p" | head -1 |
		sed -E "s/ ([a-z_]+)=/\n\1=/g" | sed "s/=/,/" | sort >expect &&
	test "$(wc -l <expect)" -ge 3 &&
	tpq g.pftrace "select key, coalesce(int_value, string_value) from args where arg_set_id =
		(select arg_set_id from ftrace_event where name = '"'"'sched_stat_runtime'"'"'
		 order by ts limit 1) order by key;" >actual &&
	test_cmp expect actual
'

test_expect_success 'plain marker text goes generic, its ip as fixed64: the same address, 2 bytes less an event' '
	inst=$(test_instance) &&
	tr record -q -B "$inst" -e ftrace:print -o pm.dat \
		sh -c "for i in 1 2 3; do echo plain \$i >$TRACEFS/instances/$inst/trace_marker; done" &&
	tr convert -i pm.dat -o pm.pftrace 2>err &&
	test_grep -E " 3 generic\), " err &&
	check_file pm.dat pm.pftrace &&
	[ "$reader" = tp ] || exit 0
	tr report -i pm.dat --format=json | python3 -c "
import json, sys
for l in sys.stdin:
    f = json.loads(l)[\"fields\"]
    ip = f[\"ip\"] - (1 << 64) if f[\"ip\"] >= 1 << 63 else f[\"ip\"]
    print(\"%d,%s\" % (ip, f[\"buf\"].strip()))
" >expect &&
	tpq pm.pftrace "select a.int_value, trim(b.string_value, char(10)) from ftrace_event f
		join args a on a.arg_set_id = f.arg_set_id and a.key = '"'"'ip'"'"'
		join args b on b.arg_set_id = f.arg_set_id and b.key = '"'"'buf'"'"'
		where f.name = '"'"'print'"'"' order by f.ts;" >actual &&
	test "$(wc -l <actual)" = 3 &&
	test_cmp expect actual
'

test_expect_success 'a probe (a uprobe here) goes generic, its arguments as fields' '
	test_have uprobes || { echo "no uprobes on this kernel"; exit 0; }
	printf "%s\n" "__attribute__((noinline)) int tr_pf_target(int x) { return x * 2; }" \
		"int main(int c, char **v) { (void)v; int s = 0; for (int i = 0; i < 5; i++) s += tr_pf_target(40 + i + c); return s == 0; }" >pt.c &&
	cc -O0 -o pt pt.c &&
	grp=trpf$$ && inst=$(test_instance) &&
	test_when_finished "tr probe del $grp/t >/dev/null 2>&1 || :" &&
	tr probe add -u "$PWD/pt" --name $grp/t tr_pf_target "x=%di:s32" >/dev/null &&
	tr record -q -B "$inst" -e $grp:t -o pr.dat ./pt &&
	tr convert -i pr.dat -o pr.pftrace 2>err &&
	test_grep -E " 5 generic\), " err &&
	check_file pr.dat pr.pftrace &&
	[ "$reader" = tp ] || exit 0
	printf "%s\n" 41 42 43 44 45 >expect &&
	tpq pr.pftrace "select a.int_value from ftrace_event f join args a
		on a.arg_set_id = f.arg_set_id and a.key = '"'"'x'"'"' where f.name = '"'"'t'"'"'
		order by f.ts;" >actual &&
	test_cmp expect actual
'

test_expect_success 'a trace-cmd v7 recording converts and reads the same' '
	command -v trace-cmd >/dev/null || { echo "no trace-cmd"; exit 0; }
	inst=$(test_instance) &&
	"$DATA/tc-record.sh" "$inst" tc.dat --file-version 7 -e sched:sched_switch \
		-e sched:sched_wakeup -e sched:sched_process_exec \
		sh -c "echo \"B|\$\$|tc\" >$TRACEFS/instances/$inst/trace_marker; ls / >/dev/null
		       echo \"E|\$\$\" >$TRACEFS/instances/$inst/trace_marker" &&
	tr report --stat -i tc.dat >st &&
	test_grep -E "^version: +7 " st &&
	tr convert -q -i tc.dat -o tc.pftrace &&
	check_file tc.dat tc.pftrace &&
	if [ "$reader" = tp ]; then
		test "$(tpq tc.pftrace "select name from slice;")" = tc
	fi
'

test_done
