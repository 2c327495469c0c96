#!/bin/bash
# Regenerate the trace files tests/integration/t11xx-*.sh read, with the
# output trace-cmd 3.1.6 gives for them.  Needs root, tracefs, trace-cmd and
# the zstd program; run from anywhere:  tests/data/gen-report-data.sh
#
#   report-v6.dat        version 6
#   report-v7.dat        version 7, zstd      (trace-cmd wrote it uncompressed;
#   report-v7-zlib.dat   version 7, zlib       rewrite-dat.py compressed it)
#   report-lost.dat      version 7, zlib, with events lost to overruns
#   report-two.dat       version 7, zstd, the top-level buffer and an instance
#   *.N                  trace-cmd report -N of each
#   report-v7.plain/.R   trace-cmd report and report -N -R of report-v7.dat
#   report-marks.dat     version 7, by tr record: 20 numbered markers, the
#                        top-level buffer (t1111 makes host and guest files
#                        of it; trace-cmd shifts a guest's top level only)
#
# The kallsyms and printk formats are dropped (they are most of a small file), so addresses
# print as numbers: trace-cmd's expected output is made from the same file.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
T=${TRACEFS:-/sys/kernel/tracing}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rec=$here/tc-record.sh

# rewrite-dat.py, keeping only the saved_cmdlines of the tasks that have
# events (the machine's whole table is most of a small file); the output
# must not change for it.
rw() {
	local in=$1 out=$2 pids
	shift 2
	pids=$(trace-cmd report -N "$in" | sed -nE 's/^.{0,40}-([0-9]+) +\[[0-9]+\].*/\1/p' |
		sort -u | paste -sd, -)
	python3 "$here/rewrite-dat.py" "$in" "$out" --no-kallsyms --no-printk \
		--keep-pids "${pids:-0}" "$@"
}

work() {
	# A little of everything: a fork and exec, wakeups, markers with and
	# without a newline, a comma and a quote (for CSV/JSON).
	local m=$T/instances/$1/trace_marker
	sh -c "printf 'hello, \"world\"\n' >$m; printf 'no newline' >$m; sleep 0.02; ls / >/dev/null"
}
export -f work
export T

events=(-F -c -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
	-e sched:sched_process_fork -e sched:sched_process_exec -e sched:sched_process_exit)

"$rec" trgen6 "$tmp/v6.dat" --file-version 6 "${events[@]}" bash -c 'work trgen6'
rw "$tmp/v6.dat" "$here/report-v6.dat"

"$rec" trgen7 "$tmp/v7.dat" --file-version 7 --compression none "${events[@]}" \
	bash -c 'work trgen7'
rw "$tmp/v7.dat" "$here/report-v7.dat" --zip zstd
rw "$tmp/v7.dat" "$tmp/v7n.dat"
rw "$tmp/v7.dat" "$here/report-v7-zlib.dat" --zip zlib --chunk 2

# Overruns: a small buffer read rarely while a writer floods it.
gcc -O2 -o "$tmp/writer" "$here/../../bench/report-writer.c"
"$rec" trgenl "$tmp/lost.dat" --file-version 7 --compression none -b 4 -s 200000 \
	-F -e sched:sched_process_exit \
	"$tmp/writer" "$T/instances/trgenl/trace_marker" 3000
rw "$tmp/lost.dat" "$here/report-lost.dat" --zip zlib --chunk 8
rw "$tmp/lost.dat" "$tmp/lostn.dat"

# The top level and an instance in one file.  This one touches the
# top-level buffer (trace-cmd puts it back); check it did.
before=$(cat "$T/current_tracer" "$T/tracing_on" "$T/set_event" "$T/trace_clock")
mkdir -p "$T/instances/trgen2"
"$rec" - "$tmp/two.dat" --file-version 7 --compression none -F -e sched:sched_switch \
	-B trgen2 -e sched:sched_wakeup -e sched:sched_waking sleep 0.02
rmdir "$T/instances/trgen2" 2>/dev/null || true
after=$(cat "$T/current_tracer" "$T/tracing_on" "$T/set_event" "$T/trace_clock")
[ "$before" = "$after" ] || { echo "gen: the top-level tracefs changed" >&2; exit 1; }
rw "$tmp/two.dat" "$here/report-two.dat" --zip zstd
rw "$tmp/two.dat" "$tmp/twon.dat"

for pair in v6:report-v6 v7n:report-v7 v7n:report-v7-zlib lostn:report-lost twon:report-two; do
	src=${pair%%:*} dst=${pair#*:}
	f=$tmp/$src.dat
	[ "$src" = v6 ] && f=$here/report-v6.dat
	trace-cmd report -N "$f" >"$here/$dst.N"
done
# Markers by tr record (its own instance; the file's top-level buffer).
"$here/../../tr" record -q -e ftrace:print -o "$tmp/marks.dat" sh -c \
	'for i in $(seq 1 20); do echo "mark $i" >'"$T"'/trace_marker; sleep 0.01; done'
"$here/../../tr" convert -q -i "$tmp/marks.dat" --compression none -o "$tmp/marksn.dat"
python3 "$here/rewrite-dat.py" "$tmp/marksn.dat" "$here/report-marks.dat" --no-kallsyms \
	--no-printk --keep-pids "$(sed -nE 's/^.*-([0-9]+) +\[[0-9]+\].*mark 1$/\1/p' \
	<("$here/../../tr" report -i "$tmp/marks.dat"))"
trace-cmd report "$tmp/v7n.dat" >"$here/report-v7.plain"
trace-cmd report -N -R "$tmp/v7n.dat" >"$here/report-v7.R"
[ "$(cat "$T/tracing_on")" = 1 ] || echo "gen: warning: tracing_on is 0 now" >&2
ls -l "$here"/report-*
