#!/bin/bash
# Benchmark: tr report against trace-cmd report -N on the same file.
#
#   bench/report.sh [--sched] [EVENTS] [FILE]
#
# Records EVENTS (default 2000000) trace_marker writes from one tight
# writer into a fresh instance with trace-cmd (version 7, zstd, as it writes
# by default), then formats the file with each tool (tr both ways: its
# default, the kernel's text, and --format=libtraceevent), to /dev/null and
# to a file, checks that tr --format=libtraceevent prints what trace-cmd -N
# prints, and prints events/s, the ratios and the peak RSS of each.  With --sched, records scheduler events
# (sched_switch, sched_wakeup, sched_waking, sched_stat_runtime) while
# "perf bench sched pipe" ping-pongs, about EVENTS of them.  With FILE,
# uses that trace.dat file instead of recording (and keeps it).  Needs
# root, tracefs and trace-cmd (and perf for --sched); not part of make check.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
TR=${TR:-$root/tr}
T=${TRACEFS:-/sys/kernel/tracing}
sched=
if [ "${1:-}" = --sched ]; then
	sched=1
	shift
fi
n=${1:-2000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inst=trbench-$$

if [ $# -ge 2 ]; then
	file=$2
else
	file=$tmp/bench.dat
	if [ -n "$sched" ]; then
		echo "recording about $n scheduler events with trace-cmd ..."
		"$root/tests/data/tc-record.sh" "$inst" "$file" -b 65536 \
			-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking \
			-e sched:sched_stat_runtime perf bench sched pipe -l $((n / 6))
	else
		gcc -O2 -o "$tmp/writer" "$here/report-writer.c"
		echo "recording $n trace_marker events with trace-cmd ..."
		# A buffer big enough that the recorder never falls behind.
		"$root/tests/data/tc-record.sh" "$inst" "$file" -b 65536 -p nop \
			"$tmp/writer" "$T/instances/$inst/trace_marker" "$n"
	fi
fi
events=$("$TR" report -i "$file" --stat | sed -n 's/^events: *//p')
lost=$("$TR" report -i "$file" --stat | sed -n 's/^lost events: *//p')
echo "file: $file ($(stat -c %s "$file") bytes, $events events, $lost lost)"

# run NAME OUT CMD...: wall seconds and peak RSS (KiB) of CMD > OUT.
run() {
	local name=$1 out=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$out"
	read -r secs rss <"$tmp/time"
	printf '%-34s %7.3f s %10.2f M events/s %8d KiB peak RSS\n' "$name" "$secs" \
		"$(echo "$events / $secs / 1000000" | bc -l)" "$rss"
	echo "$secs" >"$tmp/$name.secs"
}

# Warm the page cache, then take the best of three of each.
cat "$file" >/dev/null
best() {
	local name=$1 out=$2 b=
	shift 2
	for i in 1 2 3; do
		run "$name" "$out" "$@" >"$tmp/line.$i"
		s=$(cat "$tmp/$name.secs")
		if [ -z "$b" ] || [ "$(echo "$s < $b" | bc)" = 1 ]; then
			b=$s
			cp "$tmp/line.$i" "$tmp/line.best"
		fi
	done
	cat "$tmp/line.best"
	echo "$b" >"$tmp/$name.secs"
}
# tr's default text is the kernel's own; --format=libtraceevent is the text
# trace-cmd report -N prints, so that one must be byte for byte the same.
best trace-cmd-null /dev/null trace-cmd report -N "$file"
best tr-null /dev/null "$TR" report -i "$file"
best tr-lib-null /dev/null "$TR" report --format=libtraceevent -i "$file"
best trace-cmd-file "$tmp/tc.out" trace-cmd report -N "$file"
best tr-file "$tmp/tr.out" "$TR" report -i "$file"
best tr-lib-file "$tmp/trlib.out" "$TR" report --format=libtraceevent -i "$file"

if cmp -s "$tmp/tc.out" "$tmp/trlib.out"; then
	echo "outputs: tr --format=libtraceevent = trace-cmd -N ($(wc -l <"$tmp/tr.out") lines)"
else
	echo "outputs: tr --format=libtraceevent and trace-cmd -N DIFFER"
	diff "$tmp/tc.out" "$tmp/trlib.out" | head -5
fi
for w in null file; do
	for t in tr tr-lib; do
		printf 'ratio (%s): %s is %.2fx trace-cmd\n' "$w" "$t" \
			"$(echo "$(cat "$tmp/trace-cmd-$w.secs") / $(cat "$tmp/$t-$w.secs")" | bc -l)"
	done
done
