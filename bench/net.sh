#!/bin/bash
# Loopback throughput of recording over the network (tr listen, tr record -N)
# against a local tr record and against trace-cmd's listen and record -N -t.
#
#   bench/net.sh [EVENTS] [WRITERS] [BUFFER_KB]
#
# EVENTS (default 1000000) numbered trace_marker lines are written by
# bench/markgen (WRITERS, default 2, pinned) as fast as it can while each
# pair records the top-level buffer (-b BUFFER_KB, default 1408).  For each
# pair it prints the events generated and recorded, the loss, the writers'
# rate, and the events recorded per second of writing (recorded / the
# writers' wall time): what reached the file, per second.  Needs root and
# trace-cmd (run in bench/trace-cmd-ns.sh's namespace); holds the tests'
# tracefs lock.  Not part of make check.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
TR=${TR:-$root/tr}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
N=${1:-1000000} W=${2:-2} KB=${3:-1408}
if command -v flock >/dev/null && [ -z "${TR_TRACEFS_LOCKED:-}" ]; then
	exec 9>"${TMPDIR:-/tmp}/tr-tracefs.lock"
	flock 9
fi
work=$(mktemp -d /tmp/tr-bench-net.XXXXXX)
lpid=
trap '[ -z "$lpid" ] || kill $lpid 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -o "$work/markgen" "$here/markgen.c"
saved_kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' "$TRACEFS/buffer_size_kb")
saved_on=$(cat "$TRACEFS/tracing_on")
gen=("$work/markgen" "$TRACEFS/trace_marker" "$N" "$W")

count() { "$TR" report -i "$1" 2>/dev/null | grep -c ': gen [0-9]' || true; }

# listen tr|trace-cmd: start a listener on a free port in $work/in; sets port, lpid.
listen() {
	rm -rf "$work/in" && mkdir "$work/in"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	if [ "$1" = tr ]; then
		"$TR" listen -p "$port" -d "$work/in" 2>"$work/listen.log" &
	else
		trace-cmd listen -p "$port" -d "$work/in" >"$work/listen.log" 2>&1 &
	fi
	lpid=$!
	local hex i
	hex=$(printf "%04X" "$port")
	for i in $(seq 100); do
		grep -q ":$hex 00000000:0000 0A" /proc/net/tcp && return 0
		sleep 0.1
	done
	echo "bench: listener did not start" >&2
	exit 1
}

# wait_file: the listener's file, once written (the listener is then stopped).
wait_file() {
	local i f
	for i in $(seq 600); do
		if [ -f "$work/listen.log" ] && grep -q "ended: wrote\|bytes in size" "$work/listen.log"; then
			sleep 3
			break
		fi
		sleep 0.1
	done
	kill $lpid 2>/dev/null || :
	wait $lpid 2>/dev/null || :
	lpid=
	f=$(ls "$work"/in/*.dat | head -n 1)
	echo "$f"
}

report() {
	local name=$1 file=$2 g t rec
	g=$(sed -n 's/^generated \([0-9]*\) events in \([0-9.]*\) s.*/\1/p' "$work/gen")
	t=$(sed -n 's/^generated [0-9]* events in \([0-9.]*\) s.*/\1/p' "$work/gen")
	rec=$(count "$file")
	printf '%-28s %9s %9s %7s%% %10.0f\n' "$name" "$g" "$rec" \
		"$(echo "scale=2; 100 * ($g - $rec) / $g" | bc -l)" "$(echo "$rec / $t" | bc -l)"
	echo "$saved_kb" >"$TRACEFS/buffer_size_kb"
	echo "$saved_on" >"$TRACEFS/tracing_on"
}

printf '%-28s %9s %9s %8s %10s\n' pair generated recorded lost rec_ev/s
"$TR" record -q -b "$KB" -e ftrace:print -o "$work/local.dat" "${gen[@]}" >"$work/gen"
report "tr record (local file)" "$work/local.dat"
listen tr
"$TR" record -q -b "$KB" -e ftrace:print -N "127.0.0.1:$port" "${gen[@]}" >"$work/gen"
report "tr record -N -> tr listen" "$(wait_file)"
listen trace-cmd
"$TR" record -q -b "$KB" -e ftrace:print -N "127.0.0.1:$port" "${gen[@]}" >"$work/gen"
report "tr record -N -> trace-cmd" "$(wait_file)"
listen tr
"$here/trace-cmd-ns.sh" record -q -b "$KB" -e sched:sched_process_exit -N "127.0.0.1:$port" -t \
	"${gen[@]}" >"$work/gen" 2>/dev/null
report "trace-cmd -N -t -> tr listen" "$(wait_file)"
listen trace-cmd
"$here/trace-cmd-ns.sh" record -q -b "$KB" -e sched:sched_process_exit -N "127.0.0.1:$port" -t \
	"${gen[@]}" >"$work/gen" 2>/dev/null
report "trace-cmd -N -t -> trace-cmd" "$(wait_file)"
