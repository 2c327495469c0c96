#!/bin/bash
# Benchmark tr record against trace-cmd record on this machine, in one run.
#
#   bench/record.sh [EVENTS] [CONFIGS...]
#
# EVENTS (default 2000000) numbered trace_marker lines are written by
# bench/markgen (one writer per CPU, pinned) as fast as it can, while tr and
# then trace-cmd record the top-level buffer.  CONFIGS are WRITERS:BUFFER_KB
# (default "1:1408 2:1408 2:256 2:16").  For each run it prints generated
# and recorded counts, loss, the recorder's CPU time per million events (the
# whole process tree, less markgen's own CPU, in microseconds through
# bench/cputime; for trace-cmd also less what its namespace wrapper costs,
# measured in the same run), and peak RSS; then the
# tr/trace-cmd ratios, losses side by side (goal at -b 16: at most half).
#
# Needs root and trace-cmd.  The top-level buffer is used (trace-cmd's -B
# fails on hosts that refuse the function-filter files), so run it on a
# quiet machine; both recorders put the buffer back.  On hosts where the
# ftrace control files refuse writes, trace-cmd runs in a private mount
# namespace with writable stand-ins for them.  Not part of make check.
#
# RUNS (default 3) rounds per config, each round one run of each recorder;
# the ratios are of the medians (CPU, RSS, size, loss) and, for CPU, of the
# best runs too; the loss ratio is the median of the run-by-run ratios.
# With TR_OLD=BINARY another tr (an earlier build) runs in each round too,
# beside the new one, for a before and after in one run on a busy machine:
# its ratios to trace-cmd's follow, then the new tr's to the old one's.
#
# FILE_VERSION=7 (default 6) makes both write version 7 files, compressed
# with COMPRESSION (default zstd; "none" for uncompressed): the file sizes
# and their ratio are printed too.  The run holds the tests' tracefs lock
# so it does not disturb a test run on a shared machine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
TR=${TR:-$root/tr}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
N=${1:-2000000}
shift || true
configs=${*:-"1:1408 2:1408 2:256 2:16"}
FILE_VERSION=${FILE_VERSION:-6}
RUNS=${RUNS:-3}
COMPRESSION=${COMPRESSION:-zstd}
if [ "$FILE_VERSION" = 7 ]; then
	tr_fmt="--compression $COMPRESSION" tc_fmt="--file-version 7"
	[ "$COMPRESSION" = none ] && tc_fmt="$tc_fmt --compression none"
	[ "$COMPRESSION" = zlib ] && tc_fmt="$tc_fmt --compression zlib"
else
	tr_fmt="--file-version 6" tc_fmt="--file-version 6"
fi
if command -v flock >/dev/null && [ -z "${TR_TRACEFS_LOCKED:-}" ]; then
	exec 9>"${TMPDIR:-/tmp}/tr-tracefs.lock"
	flock 9
fi
work=$(mktemp -d /tmp/tr-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

command -v trace-cmd >/dev/null || { echo "bench: trace-cmd is not installed" >&2; exit 1; }
[ -x "$TR" ] || { echo "bench: build tr first (make tr)" >&2; exit 1; }
[ -z "${TR_OLD:-}" ] || [ -x "$TR_OLD" ] || { echo "bench: TR_OLD: no '$TR_OLD'" >&2; exit 1; }
cc -O2 -o "$work/markgen" "$here/markgen.c"
cc -O2 -o "$work/cputime" "$here/cputime.c"

# count FILE: the markgen lines in a trace file.
count() {
	trace-cmd report -i "$1" 2>/dev/null | grep -c ': gen [0-9]' || true
}

# run NAME WRITERS KB: record one markgen run; prints one result line.
run() {
	local name=$1 w=$2 kb=$3 out=$work/$1.dat gen cpu mg rss rec
	rm -f "$out"*
	case $name in
	tr | tr-old)
		"$work/cputime" "$work/time" \
			"$([ "$name" = tr ] && echo "$TR" || echo "$TR_OLD")" record -q $tr_fmt -b "$kb" -e ftrace:print -o "$out" \
			"$work/markgen" "$TRACEFS/trace_marker" "$N" "$w" >"$work/gen" 2>"$work/err" ;;
	trace-cmd)
		"$work/cputime" "$work/time" \
			"$here/trace-cmd-ns.sh" record -q $tc_fmt -b "$kb" -e sched:sched_process_exit -o "$out" \
			"$work/markgen" "$TRACEFS/trace_marker" "$N" "$w" >"$work/gen" 2>"$work/err" ;;
	esac
	# The file's dirty pages are written back now, not by kernel threads
	# competing with the next run's readers (which would bill one
	# recorder's writeback to the other's losses).
	sync
	# trace-cmd leaves its buffer size (and tracing off): put them back.
	echo "$saved_kb" >"$TRACEFS/buffer_size_kb"
	echo "$saved_on" >"$TRACEFS/tracing_on"
	gen=$(sed -n 's/^generated \([0-9]*\) events in \([0-9.]*\) s.*/\1/p' "$work/gen")
	rate=$(sed -n 's/.*(\([0-9]*\)\/s)/\1/p' "$work/gen")
	mg=$(sed -n 's/^markgen cpu //p' "$work/gen")
	read -r user sys rss <"$work/time"
	cpu=$(echo "$user + $sys - ${mg:-0}" | bc -l)
	[ "$name" = trace-cmd ] && cpu=$(echo "$cpu - $wrapper" | bc -l)
	rec=$(count "$out")
	size=$(stat -c %s "$out" 2>/dev/null || echo 0)
	printf '%-10s %2s %6s %10s %10s %9s %7.3f %9.4f %8.1f %10s %8.2f\n' "$name" "$w" "$kb" \
		"${gen:-?}" "$rec" \
		"$(echo "scale=2; 100 * (${gen:-0} - $rec) / ${gen:-1}" | bc -l)%" \
		"$cpu" "$(echo "$cpu * 1000000 / ($rec + 1)" | bc -l)" \
		"$(echo "$rss / 1024" | bc -l)" "${rate:-?}" "$(echo "$size / 1048576" | bc -l)"
	echo "$name $w $kb $cpu $rec $rss $size ${gen:-0}" >>"$work/results"
}

# What trace-cmd-ns.sh costs with no trace-cmd in it: the least of three.
wrapper=
for _ in 1 2 3; do
	TRACE_CMD_BIN=true "$work/cputime" "$work/time" "$here/trace-cmd-ns.sh"
	read -r user sys _ <"$work/time"
	w=$(echo "$user + $sys" | bc -l)
	if [ -z "$wrapper" ] || [ "$(echo "$w < $wrapper" | bc)" = 1 ]; then wrapper=$w; fi
done

saved_kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' "$TRACEFS/buffer_size_kb")
saved_on=$(cat "$TRACEFS/tracing_on")
echo "file version $FILE_VERSION${tr_fmt:+ (tr: $tr_fmt; trace-cmd: $tc_fmt)}"
printf 'trace-cmd namespace wrapper: %.4f s of CPU a run, not counted as trace-cmd'"'"'s\n' "$wrapper"
printf '%-10s %2s %6s %10s %10s %9s %7s %9s %8s %10s %8s\n' recorder wr buf_kb generated \
	recorded lost cpu_s cpu_s/Mev rss_MiB gen_ev/s file_MiB
for c in $configs; do
	w=${c%%:*} kb=${c##*:}
	for _ in $(seq "$RUNS"); do
		run tr "$w" "$kb"
		[ -z "${TR_OLD:-}" ] || run tr-old "$w" "$kb"
		run trace-cmd "$w" "$kb"
	done
done
echo
echo "ratios to trace-cmd, medians of $RUNS run(s) (lower is better):"
for c in $configs; do
	w=${c%%:*} kb=${c##*:}
	awk -v w="$w" -v kb="$kb" '
	function median(a, n,   i, j, t) {
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# against K2 (default trace-cmd): CPU (medians, best), RSS, size, loss.
	function line(k, k2, label,   i, m, r) {
		# Losses are compared run by run: each pair shared the machine.
		m = 0
		for (i = 1; i <= n[k] && i <= n[k2]; i++)
			if (lost[k2, i] > 0)
				r[++m] = lost[k, i] / lost[k2, i]
		printf "  %s writer(s), -b %s, %s: cpu/Mev %.2f (best %.2f), peak RSS %.2f (%.1f vs %.1f MiB), file size %.2f, lost %.2f%% vs %.2f%% (%s)\n",
			w, kb, label, mc[k] / mc[k2], bc[k] / bc[k2], mr[k] / mr[k2], mr[k] / 1024,
			mr[k2] / 1024, ms[k] / (ms[k2] + 1), ml[k], ml[k2],
			m ? sprintf("run by run %.2f", median(r, m)) : k2 " lost none"
	}
	$2 == w && $3 == kb {
		k = $1
		n[k]++
		cpu[k, n[k]] = $4 * 1e6 / ($5 + 1)
		rss[k, n[k]] = $6
		size[k, n[k]] = $7
		lost[k, n[k]] = 100 * ($8 - $5) / ($8 + 1)
	}
	END {
		for (k in n) {
			for (i = 1; i <= n[k]; i++) {
				a[i] = cpu[k, i]; b[i] = rss[k, i]; d[i] = size[k, i]; e[i] = lost[k, i]
			}
			mc[k] = median(a, n[k]); mr[k] = median(b, n[k])
			ms[k] = median(d, n[k]); ml[k] = median(e, n[k])
			bc[k] = a[1]	# sorted by median()
		}
		line("tr", "trace-cmd", "tr")
		if ("tr-old" in n) {
			line("tr-old", "trace-cmd", "TR_OLD")
			line("tr", "tr-old", "tr/TR_OLD")
		}
	}' "$work/results"
done
