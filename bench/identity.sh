#!/bin/bash
# Do two builds of tr print the same bytes?  tr top -b and tr stream.
#
#   bench/identity.sh OLD_TR [NEW_TR]
#
# NEW_TR defaults to this checkout's tr.  Prints one line per check, "same"
# or "DIFFERENT" (with the first lines of the diff), and exits 1 if any
# differs.  For a refactoring that must not change the output.
#
# tr top replays a trace.dat (-i) interval by interval, so its batch output
# is a function of the file alone: every view, text and JSON, over
# tests/data's recordings, is compared byte for byte.
#
# tr stream has no file input: it reads the live buffers, whose events and
# timestamps differ from run to run.  Its formatting is tr report's, which
# the files do exercise (tr report with each --format on the same files is
# compared too); the stream itself is compared on a fixed workload (COUNT,
# default 2000, numbered trace_marker lines written by bench/markgen, one
# writer, 20,000 a second so that none is lost) with the columns that change
# from run to run (task, pid, CPU, timestamp) cut: the lines it prints, in
# their order, in each --format.
# That part needs root and tracefs, and holds the tests' tracefs lock;
# without them it is skipped (said so).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
OLD=${1:?usage: bench/identity.sh OLD_TR [NEW_TR]}
NEW=${2:-$root/tr}
COUNT=${COUNT:-2000}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
for b in "$OLD" "$NEW"; do
	[ -x "$b" ] || { echo "identity: no '$b'" >&2; exit 2; }
done
work=$(mktemp -d /tmp/tr-identity.XXXXXX)
trap 'rm -rf "$work"' EXIT
bad=0

# same NAME CMD...: run CMD with $TR as the old, then the new binary; compare.
same() {
	local name=$1
	shift
	TR=$OLD "$@" >"$work/old" 2>&1
	echo "exit $?" >>"$work/old"
	TR=$NEW "$@" >"$work/new" 2>&1
	echo "exit $?" >>"$work/new"
	if cmp -s "$work/old" "$work/new"; then
		printf 'same       %s (%s lines)\n' "$name" "$(wc -l <"$work/new")"
	else
		printf 'DIFFERENT  %s\n' "$name"
		diff "$work/old" "$work/new" | head -10 | sed 's/^/    /'
		bad=1
	fi
}

# tr top names its source (the file's path) in its header: one path for both.
files=$(ls "$root"/tests/data/*.dat)
for f in $files; do
	b=$(basename "$f")
	for view in tasks syscalls events cpus; do
		for fmt in text json; do
			same "top -b -i $b --view $view --format $fmt" \
				sh -c '"$TR" top -b -i "$1" -d 250ms -n 20 --view "$2" --format "$3"' \
				sh "$f" "$view" "$fmt"
		done
	done
	for fmt in text libtraceevent json csv; do
		same "report -i $b --format $fmt" sh -c '"$TR" report -i "$1" --format "$2"' sh "$f" "$fmt"
	done
done

# The live part: root, tracefs, and the lock the tests and benchmarks share.
if [ "$(id -u)" != 0 ] || [ ! -w "$TRACEFS/trace_marker" ]; then
	echo "skipped    stream (needs root and a writable $TRACEFS)"
	exit $bad
fi
if command -v flock >/dev/null && [ -z "${TR_TRACEFS_LOCKED:-}" ]; then
	exec 9>"${TMPDIR:-/tmp}/tr-tracefs.lock"
	flock 9
fi
cc -O2 -o "$work/markgen" "$here/markgen.c" || exit 2
# stream_lines FMT: the markers' lines, less what differs from run to run.
stream_lines() {
	"$TR" stream -b 1408 -e ftrace:print --format "$1" \
		"$work/markgen" "$TRACEFS/trace_marker" "$COUNT" 1 20000 2>&1 |
		grep 'gen 0 ' |
		sed -E 's/^.*(tracing_mark_write)/\1/; s/^\{"ts":[0-9]+,"cpu":[0-9]+,"pid":[0-9]+,"comm":"[^"]*",//'
}
export -f stream_lines
export work TRACEFS COUNT
for fmt in text libtraceevent json csv; do
	same "stream --format $fmt ($COUNT markers, run-to-run columns cut)" \
		bash -c 'stream_lines "$1"' bash "$fmt"
done
exit $bad
