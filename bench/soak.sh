#!/bin/bash
# A long recording with --rotate at a steady marker rate: does tr stay
# bounded (RSS, disk) and lose nothing trace-cmd would keep?
#
#   bench/soak.sh [DURATION]
#
# DURATION (default 30m; s, m or h) of numbered trace_marker lines from
# bench/markgen at RATE events/s (default 100000, two writers, one per
# CPU), recorded by tr record -b BUF_KB (default 1408) --max-size SIZE
# (default 64M) --rotate N (default 4).  Every second it samples tr's RSS
# (VmRSS, and VmHWM, the peak) and the disk use of the output, its rotated
# parts and its spool.  Prints RSS after the first minute (or a third of a
# shorter run), the most it reached while recording, at the end of the
# recording (the last sample before the command ended), the medians of
# a minute's samples from the first minute on and at the end, their ratio
# and whether the end is within 10% of the first minute's (issue 24's
# criterion), and the last sample of all (taken while tr writes its last
# part and the output) and the peak; then the
# most disk used against the limit ((N + 2) x SIZE, tr-record(1)), the
# rotations, and the events lost (the summary's count, and the markers
# missing between the first and last one kept).  With TRACE_CMD=1 (the
# default where trace-cmd is installed) trace-cmd record then takes the
# same run at the same buffer size, without a size limit, and its loss is
# printed beside tr's.  SOAK_LOG=FILE keeps the samples, one a second:
# "SECONDS VmRSS VmHWM DISK" (KiB, KiB, bytes).
#
# Needs root.  tr records an instance of its own (tr-soak), trace-cmd the
# top-level buffer (its -B fails on hosts that refuse the function-filter
# files); the run holds the tests' tracefs lock throughout.  Not part of
# make check.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
TR=${TR:-$root/tr}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
DURATION=${1:-30m}
RATE=${RATE:-100000}
BUF_KB=${BUF_KB:-1408}
SIZE=${SIZE:-64M}
N=${N:-4}
TRACE_CMD=${TRACE_CMD:-$(command -v trace-cmd >/dev/null && echo 1 || echo 0)}

case $DURATION in
*h) secs=$((${DURATION%h} * 3600)) ;;
*m) secs=$((${DURATION%m} * 60)) ;;
*s) secs=${DURATION%s} ;;
*) secs=$DURATION ;;
esac
case $SIZE in
*G) limit=$((${SIZE%G} << 30)) ;;
*M) limit=$((${SIZE%M} << 20)) ;;
*k) limit=$((${SIZE%k} << 10)) ;;
*) limit=$SIZE ;;
esac
events=$((RATE * secs))
early=$((secs < 180 ? secs / 3 : 60))

if command -v flock >/dev/null && [ -z "${TR_TRACEFS_LOCKED:-}" ]; then
	exec 9>"${TMPDIR:-/tmp}/tr-tracefs.lock"
	flock 9
fi
work=$(mktemp -d "${SOAK_DIR:-/tmp}/tr-soak.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -x "$TR" ] || { echo "soak: build tr first (make tr)" >&2; exit 1; }
cc -O2 -o "$work/markgen" "$here/markgen.c"

# missing FILES...: markers lost between each writer's first and last kept one.
missing() {
	for f in "$@"; do
		"$TR" report -i "$f" 2>/dev/null
	done | awk '!/tracing_mark_write: gen [0-9]+ [0-9]+$/ { next }
		   { $1 = $(NF - 1); $2 = $NF }
		   { if (($1 in last) && $2 > last[$1] + 1) miss += $2 - last[$1] - 1
		       if (!($1 in last) || $2 > last[$1]) last[$1] = $2; n++ }
		     END { printf "%d kept, %d missing in between\n", n, miss }'
}

echo "soak: $DURATION at $RATE events/s, -b $BUF_KB, --max-size $SIZE --rotate $N"
"$TR" record -B tr-soak -b "$BUF_KB" --max-size "$SIZE" --rotate "$N" -e ftrace:print \
	-o "$work/soak.dat" "$work/markgen" "$TRACEFS/instances/tr-soak/trace_marker" \
	"$events" 2 "$RATE" \
	>"$work/gen" 2>"$work/summary" &
pid=$!
t=0 rss_early=0 rss_end=0 rss_last=0 rss_max=0 hwm=0 disk_max=0
: >"$work/rss"
: >"${SOAK_LOG:=/dev/null}"
while kill -0 $pid 2>/dev/null; do
	set -- $(awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { print r + 0, h + 0 }' \
		/proc/$pid/status 2>/dev/null || echo 0 0)
	rss=${1:-0}
	if [ "$rss" -gt 0 ]; then
		rss_last=$rss
		hwm=${2:-0}
		# Up to the command's end: after it tr only writes its last part.
		if [ ! -s "$work/gen" ]; then
			rss_end=$rss
			echo "$t $rss" >>"$work/rss"
			[ "$rss" -le $rss_max ] || rss_max=$rss
		fi
	fi
	[ $t = $early ] && rss_early=$rss_end
	disk=$(du -scb "$work"/soak.dat* 2>/dev/null | tail -n 1 | cut -f1)
	[ "${disk:-0}" -gt $disk_max ] && disk_max=$disk
	echo "$t $rss $hwm ${disk:-0}" >>"$SOAK_LOG"
	sleep 1
	t=$((t + 1))
done
wait $pid || echo "soak: tr record failed" >&2
cat "$work/gen" "$work/summary"
# The parts, oldest (highest number) first.
parts=$(for f in "$work"/soak.dat.[0-9]*; do [ -e "$f" ] && echo "${f##*.} $f"; done |
	sort -rn | cut -d" " -f2)
echo "tr: RSS ${rss_early} KiB at ${early} s, at most ${rss_max} KiB while recording," \
	"${rss_end} KiB at the end of the recording; ${rss_last} KiB writing the last part," \
	"peak ${hwm} KiB"
# A single sample can fall on a rotation, when tr briefly holds a part's
# buffers: compare the medians of a minute's samples (a third of a short
# run's) after the first minute and at the end of the recording.
win=$((early < 60 ? early : 60))
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
med_early=$(awk -v a=$early -v w=$win '$1 >= a && $1 < a + w { print $2 }' "$work/rss" | median)
med_end=$(tail -n $win "$work/rss" | cut -d" " -f2 | median)
echo "tr: RSS median of ${win} s of samples: ${med_early} KiB from ${early} s, ${med_end} KiB" \
	"at the end of the recording"
echo "tr: RSS end / ${early} s (medians): $(awk -v a="$med_early" -v b="$med_end" 'BEGIN {
	if (!a) { print "no sample"; exit }
	printf "%.3f (%+.1f%%), within 10%%: %s", b / a, (b - a) * 100 / a,
		(b - a) * 100 / a <= 10 && (a - b) * 100 / a <= 10 ? "yes" : "no" }')"
echo "tr: disk at most $disk_max bytes, limit $(((N + 2) * limit)) ((N + 2) x $SIZE)," \
	"largest part $(stat -c %s $parts "$work/soak.dat" | sort -n | tail -n 1)"
echo "tr: lost $(awk '$1 == "total" { print $3 }' "$work/summary") (summary);" \
	"$(missing $parts "$work/soak.dat")"
rm -f "$work"/soak.dat*

if [ "$TRACE_CMD" = 1 ]; then
	"$here/trace-cmd-ns.sh" record -q -b "$BUF_KB" -e sched:sched_process_exit \
		-o "$work/tc.dat" "$work/markgen" "$TRACEFS/trace_marker" "$events" 2 "$RATE" \
		>"$work/gen" 2>"$work/err" || echo "soak: trace-cmd record failed" >&2
	echo "trace-cmd: $(trace-cmd report -i "$work/tc.dat" 2>/dev/null | grep -c ': gen [0-9]') of" \
		"$events markers kept; $(missing "$work/tc.dat")"
fi
