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
# prints, and prints events/s, the ratios and the peak RSS of each.  The
# ratios are of CPU time (user + system), the best and the median of RUNS
# rounds (default 5; each round runs every contender once); with TR_OLD=BINARY another tr (an earlier build)
# runs beside them, for a before and after in one run.  With --sched, records scheduler events
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

# run NAME OUT CMD...: CPU seconds (user + system), wall seconds and peak
# RSS (KiB) of CMD > OUT.
run() {
	local name=$1 out=$2
	shift 2
	/usr/bin/time -f "%U %S %e %M" -o "$tmp/time" "$@" >"$out"
	read -r user sys wall rss <"$tmp/time"
	echo "$(echo "$user + $sys" | bc -l) $wall $rss"
}

runs=${RUNS:-5}
# Warm the page cache.
cat "$file" >/dev/null
# The contenders, "NAME OUT" then the command, run in turn in every round
# (one run of each, then the next round), not each one's runs back to
# back: this VM's CPU time drifts between batches, and a before and after
# compared batch against batch was once inverted.
names=() outs=() cmds=()
add() {
	names+=("$1") outs+=("$2")
	shift 2
	cmds+=("$(printf '%q ' "$@")")
}
# tr's default text is the kernel's own; --format=libtraceevent is the text
# trace-cmd report -N prints, so that one must be byte for byte the same.
# out W FILE: /dev/null for the "null" runs, FILE in the temp dir for "file".
out() { if [ "$1" = null ]; then echo /dev/null; else echo "$tmp/$2"; fi; }
for w in null file; do
	add trace-cmd-$w "$(out $w tc.out)" trace-cmd report -N "$file"
	add tr-$w "$(out $w tr.out)" "$TR" report -i "$file"
	add tr-lib-$w "$(out $w trlib.out)" "$TR" report --format=libtraceevent -O noirq-info -i "$file"
	if [ -n "${TR_OLD:-}" ]; then
		add tr-old-$w "$(out $w trold.out)" "$TR_OLD" report -i "$file"
	fi
done
for ((i = 0; i < runs; i++)); do
	for k in "${!names[@]}"; do
		eval "run ${names[k]} ${outs[k]} ${cmds[k]}" >>"$tmp/${names[k]}.runs"
	done
done
# NAME.cpu gets the best CPU time, NAME.med the median; one line each.
for name in "${names[@]}"; do
	sort -n "$tmp/$name.runs" -o "$tmp/$name.runs"
	read -r cpu wall rss <"$tmp/$name.runs"
	med=$(sed -n "$(((runs + 1) / 2))p" "$tmp/$name.runs" | cut -d' ' -f1)
	echo "$cpu" >"$tmp/$name.cpu"
	echo "$med" >"$tmp/$name.med"
	printf '%-24s cpu %6.3f s (median %6.3f) wall %6.3f s %7.2f M events/s (cpu) %8d KiB peak RSS\n' \
		"$name" "$cpu" "$med" "$wall" "$(echo "$events / $cpu / 1000000" | bc -l)" "$rss"
done
if [ -n "${TR_OLD:-}" ]; then
	if cmp -s "$tmp/tr.out" "$tmp/trold.out"; then
		echo "outputs: tr = TR_OLD"
	else
		echo "outputs: tr and TR_OLD DIFFER"
	fi
fi

if cmp -s "$tmp/tc.out" "$tmp/trlib.out"; then
	echo "outputs: tr --format=libtraceevent = trace-cmd -N ($(wc -l <"$tmp/tr.out") lines)"
else
	echo "outputs: tr --format=libtraceevent and trace-cmd -N DIFFER"
	diff "$tmp/tc.out" "$tmp/trlib.out" | head -5
fi
for w in null file; do
	for t in tr tr-lib ${TR_OLD:+tr-old}; do
		printf 'ratio (%s, cpu): %s is %.2fx trace-cmd (medians: %.2fx)\n' "$w" "$t" \
			"$(echo "$(cat "$tmp/trace-cmd-$w.cpu") / $(cat "$tmp/$t-$w.cpu")" | bc -l)" \
			"$(echo "$(cat "$tmp/trace-cmd-$w.med") / $(cat "$tmp/$t-$w.med")" | bc -l)"
	done
done
