#!/bin/bash
# tr check: one line per capability, the truth about this kernel.
. "$(dirname "$0")/lib.sh"
test_kernels full debian

caps="tracefs access instances tracers function function_graph function_filter latency
events triggers hist snapshot kprobes uprobes eprobes fprobes synthetic user_events
user_persist user_multi stack_tracer profiler mmap clocks buffers disable_on_free persistent subbuf vsock
vsock_loopback"

# One full run serves the tests that read its lines: each run probes every
# capability, seconds apiece under emulation.
test_expect_success 'one line per capability, yes or no with a reason' '
	tr check >all &&
	for c in $caps; do
		test_grep -E "^$c +(yes|no) +[^ ]" all || exit 1
	done &&
	test $(wc -l <all) = $(echo $caps | wc -w)
'

test_expect_success '--json is one valid object with the same capabilities' '
	tr check --json >out.json &&
	python3 -c "
import json, sys
d = json.load(open(\"out.json\"))
want = \"\"\"$caps\"\"\".split()
assert list(d) == want, list(d)
for k, v in d.items():
    assert isinstance(v[\"present\"], bool) and isinstance(v[\"detail\"], str), k
"
'

test_expect_success 'tracefs line names where tracefs is' '
	test_grep -E "^tracefs +yes +$TRACEFS " all
'

test_expect_success 'the event count matches available_events' '
	n=$(wc -l <"$TRACEFS/available_events") &&
	test_grep -E "^events +yes +$n events in " all
'

if test_have function_filter; then
	test_expect_success 'function_filter counts available_filter_functions (the range of -l N)' '
		n=$(wc -l <"$TRACEFS/available_filter_functions") &&
		test_grep -E "^function_filter +yes +$n functions in available_filter_functions; " all
	'
fi

test_expect_success 'tracers line is available_tracers' '
	test_grep -E "^tracers +yes +$(cat $TRACEFS/available_tracers | sed "s/ *$//")$" all
'

test_expect_success 'clocks line names the current clock' '
	cur=$(sed -E "s/.*\[([^]]*)\].*/\1/" "$TRACEFS/trace_clock") &&
	test_grep -E "^clocks +yes .*\(current: $cur\)" all
'

# Each capability against an oracle that does not use tr.
file_cap() {
	local cap=$1 file=$2
	test_expect_success "$cap agrees with the presence of $file" "
		if [ -e \"\$TRACEFS/$file\" ]; then
			tr check --has $cap
		else
			test_expect_code 1 tr check --has $cap >out &&
			test_grep \"^$cap: .*$file\" out
		fi
	"
}
file_cap snapshot snapshot
file_cap kprobes kprobe_events
file_cap uprobes uprobe_events
file_cap synthetic synthetic_events
file_cap user_events user_events_data
file_cap stack_tracer stack_trace
file_cap instances instances

test_expect_success 'hist agrees with the presence of hist files' '
	if [ -e "$TRACEFS/events/sched/sched_switch/hist" ]; then
		tr check --has hist
	else
		test_expect_code 1 tr check --has hist >out &&
		test_grep "CONFIG_HIST_TRIGGERS" out
	fi
'

test_expect_success 'function_graph agrees with available_tracers' '
	if grep -qw function_graph "$TRACEFS/available_tracers"; then
		tr check --has function_graph || test_expect_code 1 tr check --has function
	else
		test_expect_code 1 tr check --has function_graph
	fi
'

test_expect_success 'the probes change nothing: no instance, tracer or event left' '
	before=$(ls "$TRACEFS/instances"; cat "$TRACEFS/current_tracer" "$TRACEFS/set_event") &&
	tr check >/dev/null &&
	after=$(ls "$TRACEFS/instances"; cat "$TRACEFS/current_tracer" "$TRACEFS/set_event") &&
	test "$before" = "$after"
'

test_expect_success '--has of an unknown capability is a usage error' '
	test_expect_code 64 tr check --has nosuch 2>err &&
	test_grep "unknown capability '"'"'nosuch'"'"'" err
'

# What each tier is known to have.  The host is the restricted machine the
# product must tell the truth about; the full VM kernel has everything.
case $TR_TIER in
host)
	present="tracefs access instances events triggers uprobes clocks buffers"
	absent="function function_graph function_filter hist snapshot kprobes eprobes synthetic user_events stack_tracer profiler persistent"
	;;
vm-full)
	present="tracefs access instances tracers function function_graph function_filter latency events triggers hist snapshot kprobes uprobes eprobes fprobes synthetic user_events stack_tracer profiler clocks buffers disable_on_free subbuf"
	absent="persistent"
	;;
vm-debian61)
	present="tracefs access instances function function_graph events triggers hist snapshot kprobes uprobes eprobes synthetic disable_on_free"
	absent="user_events mmap persistent subbuf"
	;;
*)
	present="" absent=""
	;;
esac
# The present ones from the suite's own tr check (run-all.sh's; the --has
# path is tested above): under emulation each --has of a tracer costs seconds.
for c in $present; do
	test_expect_success "$TR_TIER kernel has $c" "test_grep -E '^$c +yes ' \"\$TR_CAPS_FILE\""
done
# No persistent instance in a suite's kernel: why, and on 6.12+ the boot
# line's shape (t1217 boots a guest with one).
case $TR_TIER in
vm-debian61)
	test_expect_success '6.1 keeps no ring buffer across boots: tr check says so' '
		test_grep -E "^persistent +no +Linux 6\.1 keeps no ring buffer across boots \(6\.12 and later do\)$" "$TR_CAPS_FILE"
	' ;;
host | vm-full)
	test_expect_success 'no persistent instance: tr check gives the boot line that makes one' '
		test_grep -E "^persistent +no +no persistent instance: boot with reserve_mem=[^ ]+ trace_instance=NAME\^traceoff@trace" "$TR_CAPS_FILE"
	' ;;
esac
for c in $absent; do
	test_expect_success "$TR_TIER kernel lacks $c, with a reason" "
		test_expect_code 1 tr check --has $c >out &&
		test_grep -E '^$c: .{10,}' out
	"
done

test_done
