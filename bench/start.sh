#!/bin/bash
# Benchmark: how fast tr's live commands start, against trace-cmd's.
#
#   bench/start.sh [RUNS]
#
# Runs each of tr stream, tr top, tr hist (the userspace engine: the host
# may lack hist triggers) and tr record RUNS times (default 5) for a 0.1 s
# session of sched:sched_switch, with TR_DEBUG=timing, and prints for each
# the median of every start-up phase (wall and CPU ms since main() began,
# peak RSS so far), then the start-up ("tracing on": the readers run) and
# the whole process's wall, CPU and peak RSS (bench/cputime), against the
# goals (start-up under 50 ms wall and 30 ms CPU; stream's peak under 12 MB).
# Then trace-cmd record and trace-cmd stream of the same 0.1 s, whole
# process (trace-cmd says nothing of its phases): compare the totals less
# the 100 ms.  TR (default ./tr) is the binary.  Needs root, tracefs and
# trace-cmd; takes the tests' tracefs lock.  Not part of make check.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
TR=${TR:-$root/tr}
runs=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/cputime" "$here/cputime.c"

if command -v flock >/dev/null && [ -z "${TR_TRACEFS_LOCKED:-}" ]; then
	exec 9>"${TMPDIR:-/tmp}/tr-tracefs.lock"
	flock 9
	export TR_TRACEFS_LOCKED=1
fi

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

# timed OUT CMD...: run CMD (its output to $tmp/err), "wall_ms cpu_ms rss_kb" into OUT.
timed() {
	local out=$1 t0 t1
	shift
	t0=$(date +%s%N)
	"$tmp/cputime" "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || :
	t1=$(date +%s%N)
	awk -v w=$(((t1 - t0) / 1000)) '{ printf "%.1f %.1f %d\n", w / 1000, ($1 + $2) * 1000, $3 }' \
		"$tmp/time" >"$out"
}

# whole NAME CMD...: RUNS runs of CMD; the timing lines into $tmp/NAME.N.phases,
# "wall cpu rss" into $tmp/NAME.N.total.
whole() {
	local name=$1 i
	shift
	for ((i = 0; i < runs; i++)); do
		TR_DEBUG=timing timed "$tmp/$name.$i.total" "$@"
		grep '^tr: timing:' "$tmp/err" >"$tmp/$name.$i.phases" || :
	done
}

# report NAME TITLE GOAL_RSS_KB: the phases' medians, then the totals (no goal: 0).
report() {
	local name=$1 goal_rss=$3 phase col
	echo "== $2"
	# The phases in the order the first run printed them.
	sed 's/^tr: timing: \(.*[^ ]\) *wall .*/\1/' "$tmp/$name.0.phases" | while read -r phase; do
		printf '  %-22s' "$phase"
		for col in wall cpu peak; do
			v=$(cat "$tmp/$name".*.phases | grep -F "timing: $phase " |
				sed "s/.* $col *\([0-9.]*\).*/\1/" | median)
			case $col in
			peak) printf ' %6s KiB' "$v" ;;
			*) printf ' %s %7s ms' "$col" "$v" ;;
			esac
		done
		echo
	done
	on_wall=$(cat "$tmp/$name".*.phases | grep -F "timing: tracing on " |
		sed 's/.* wall *\([0-9.]*\).*/\1/' | median)
	on_cpu=$(cat "$tmp/$name".*.phases | grep -F "timing: tracing on " |
		sed 's/.* cpu *\([0-9.]*\).*/\1/' | median)
	tw=$(cut -d' ' -f1 "$tmp/$name".*.total | median)
	tc=$(cut -d' ' -f2 "$tmp/$name".*.total | median)
	tm=$(cut -d' ' -f3 "$tmp/$name".*.total | median)
	printf '  start-up: %s ms wall (goal < 50: %s), %s ms CPU (goal < 30: %s)\n' \
		"$on_wall" "$(awk -v v="$on_wall" 'BEGIN { print v < 50 ? "met" : "NOT met" }')" \
		"$on_cpu" "$(awk -v v="$on_cpu" 'BEGIN { print v < 30 ? "met" : "NOT met" }')"
	printf '  whole process: %s ms wall, %s ms CPU, %s KiB peak RSS' "$tw" "$tc" "$tm"
	if [ "$goal_rss" -gt 0 ]; then
		printf ' (goal < %d KiB: %s)' "$goal_rss" \
			"$(awk -v v="$tm" -v g="$goal_rss" 'BEGIN { print v < g ? "met" : "NOT met" }')"
	fi
	echo
}

# tc NAME ARGS...: trace-cmd's whole-process figures, through its namespace wrapper.
tc() {
	local name=$1 i
	shift
	for ((i = 0; i < runs; i++)); do
		# (trace-cmd stream need not end with its command: INT after 5 s.)
		# -k: a trace-cmd that ignores the INT (its stream once hung here
		# for half an hour) is killed, and never holds the tests' lock.
		timed "$tmp/$name.$i.total" timeout -k 5 -s INT 5 "$here/trace-cmd-ns.sh" "$@" 9>&-
	done
	printf '== %s\n  whole process: %s ms wall, %s ms CPU, %s KiB peak RSS\n' "$name" \
		"$(cut -d' ' -f1 "$tmp/$name".*.total | median)" \
		"$(cut -d' ' -f2 "$tmp/$name".*.total | median)" \
		"$(cut -d' ' -f3 "$tmp/$name".*.total | median)"
	echo "  (trace-cmd $*; with its namespace wrapper, a few ms)"
}

echo "$runs runs each, medians; a 0.1 s session of sched:sched_switch; load: $(cut -d' ' -f1-3 /proc/loadavg)"
whole stream "$TR" stream -e sched:sched_switch --duration 0.1
whole top "$TR" top -b -n 1 -d 0.1
whole hist "$TR" hist -e sched:sched_switch -k next_pid --engine=user --duration 0.1
whole record "$TR" record -q -o "$tmp/tr.dat" -e sched:sched_switch --duration 0.1
report stream "tr stream -e sched:sched_switch --duration 0.1" 12288
report top "tr top -b -n 1 -d 0.1" 0
report hist "tr hist -e sched:sched_switch -k next_pid --engine=user --duration 0.1" 0
report record "tr record -e sched:sched_switch --duration 0.1" 0
tc tc-record record -q -e sched:sched_switch -o "$tmp/tc.dat" sleep 0.1
tc tc-stream stream -e sched:sched_switch sleep 0.1
