#!/bin/bash
# Benchmark: tr convert --to perfetto against tr report of the same file.
#
#   bench/convert.sh [--print] [EVENTS] [FILE]
#
# Records about EVENTS (default 1000000) scheduler events (sched_switch,
# sched_wakeup, sched_waking while "perf bench sched pipe" ping-pongs) with
# tr record into an uncompressed version 6 file, or with --print that many
# trace_marker lines (bench/report-writer.c); with FILE, uses that file.
# Then, best of three each, the CPU time (user + system, microseconds) of
#   tr report -i FILE >/dev/null
#   tr convert -i FILE -o OUT.pftrace          (compact sched, the default)
#   tr convert -i FILE -o OUT.pftrace --no-compact-sched
# and prints the ratios: convert's CPU over report's, and the Perfetto
# file's size over the v6 file's.  KEEP=PATH keeps the recorded file there.  Needs root and tracefs (and perf without
# --print) to record; not part of make check.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
TR=${TR:-$root/tr}
T=${TRACEFS:-/sys/kernel/tracing}
print=
if [ "${1:-}" = --print ]; then
	print=1
	shift
fi
n=${1:-1000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inst=trbench-$$
gcc -O2 -o "$tmp/cputime" "$here/cputime.c"

if [ $# -ge 2 ]; then
	file=$2
else
	file=$tmp/bench.dat
	# One user of tracefs at a time, as the tests do.
	exec 9>"${TMPDIR:-/tmp}/tr-tracefs.lock"
	flock 9
	if [ -n "$print" ]; then
		gcc -O2 -o "$tmp/writer" "$here/report-writer.c"
		echo "recording $n trace_marker events with tr record ..."
		"$TR" record -q -B "$inst" -b 65536 --file-version 6 -e ftrace:print -o "$file" \
			"$tmp/writer" "$T/instances/$inst/trace_marker" "$n"
	else
		echo "recording about $n scheduler events with tr record ..."
		"$TR" record -q -B "$inst" -b 65536 --file-version 6 -e sched:sched_switch \
			-e sched:sched_wakeup -e sched:sched_waking -o "$file" \
			perf bench sched pipe -l $((n / 6)) >/dev/null
	fi
	flock -u 9
	[ -n "${KEEP:-}" ] && cp "$file" "$KEEP"
fi
events=$("$TR" report -i "$file" --stat | sed -n 's/^events: *//p')
size=$(stat -c %s "$file")
echo "file: $file ($size bytes, $events events, version" \
	"$("$TR" report -i "$file" --stat | sed -n 's/^version: *\([0-9]*\).*/\1/p'))"

# best KEY LABEL CMD...: the least CPU (user + sys, s) of three runs, to $tmp/KEY.
best() {
	local key=$1 label=$2 b= u s rss
	shift 2
	for i in 1 2 3; do
		"$tmp/cputime" "$tmp/cpu" "$@" >/dev/null
		read -r u s rss <"$tmp/cpu"
		t=$(echo "$u + $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then
			b=$t
			echo "$rss" >"$tmp/$key.rss"
		fi
	done
	echo "$b" >"$tmp/$key"
	printf '%-36s %10.3f s CPU %8d KiB peak RSS\n' "$label" "$b" "$(cat "$tmp/$key.rss")"
}

cat "$file" >/dev/null
best report "tr report >/dev/null" sh -c "exec \"$TR\" report -i \"$file\" >/dev/null"
best compact "tr convert (compact sched)" "$TR" convert -q -i "$file" -o "$tmp/out.pftrace"
best whole "tr convert --no-compact-sched" "$TR" convert -q --no-compact-sched -i "$file" \
	-o "$tmp/whole.pftrace"
out=$(stat -c %s "$tmp/out.pftrace")
whole=$(stat -c %s "$tmp/whole.pftrace")
rep=$(cat "$tmp/report")
echo
printf 'convert / report CPU:            %.2f (compact), %.2f (--no-compact-sched)\n' \
	"$(echo "$(cat "$tmp/compact") / $rep" | bc -l)" "$(echo "$(cat "$tmp/whole") / $rep" | bc -l)"
printf 'perfetto / trace.dat size:       %.2f (compact, %d bytes), %.2f (--no-compact-sched, %d bytes)\n' \
	"$(echo "$out / $size" | bc -l)" "$out" "$(echo "$whole / $size" | bc -l)" "$whole"
