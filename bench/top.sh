#!/bin/bash
# Benchmark tr top on this machine, in one run:
#
#   bench/top.sh [EVENTS] [WRITERS] [BUFFER_KB]
#
#  1. idle: tr top -b for 10 s; its CPU as a share of one CPU (the issue
#     asks for under 2% on a quiet machine: the machine's own event rate is
#     printed beside it, since every event tr top sees costs it);
#  2. load: EVENTS (default 3000000) trace_marker lines written by
#     bench/markgen (WRITERS processes, default 2, pinned) as fast as they
#     go, into an instance with BUFFER_KB (default 1408) per CPU, once under
#     tr top (events view) and once under tr record: events counted, lost,
#     CPU per million events (less markgen's own), and the ratios;
#  3. memory: peak RSS of tr top while 10,000 threads run and sleep.
#
# Needs root; uses instances of its own and removes them.  Not part of make
# check: the numbers depend on the machine and on what else runs on it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
TR=${TR:-$root/tr}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
N=${1:-3000000}
W=${2:-2}
KB=${3:-1408}
work=$(mktemp -d /tmp/tr-bench-top.XXXXXX)
inst=trbench-top-$$
trap 'rmdir "$TRACEFS/instances/$inst" 2>/dev/null || :; rm -rf "$work"' EXIT

[ -x "$TR" ] || { echo "bench: build tr first (make tr)" >&2; exit 1; }
cc -O2 -o "$work/markgen" "$here/markgen.c"

load() { awk '{print $1}' /proc/loadavg; }

# cpu_of TIMEFILE: user + system seconds of a /usr/bin/time -f "%U %S %M %e" run.
cpu_of() { awk '{print $1 + $2}' "$1"; }

echo "machine: $(nproc) CPUs, load average $(load), $(uname -r)"
echo

# 1. idle
/usr/bin/time -f "%U %S %M %e" -o "$work/time" \
	"$TR" top -b -d 1 -n 10 --format json >"$work/idle.json" 2>"$work/err"
cpu=$(cpu_of "$work/time")
read -r _ _ rss el <"$work/time"
evs=$(python3 -c "
import json
R = [json.loads(l) for l in open('$work/idle.json')]
print('%.0f' % (sum(r['events_per_s'] for r in R) / len(R)))")
printf 'idle: tr top -b -d 1 for %.1f s: %.2f%% of one CPU (%.3f s), %s events/s seen, peak RSS %.1f MiB\n' \
	"$el" "$(echo "100 * $cpu / $el" | bc -l)" "$cpu" "$evs" "$(echo "$rss / 1024" | bc -l)"
echo

# 2. load: the same markgen run under tr top and under tr record
mkdir "$TRACEFS/instances/$inst"
echo "$KB" >"$TRACEFS/instances/$inst/buffer_size_kb"
marker=$TRACEFS/instances/$inst/trace_marker

/usr/bin/time -f "%U %S %M %e" -o "$work/time" \
	"$TR" top -b -B "$inst" -d 1 --view events --format json -- \
	"$work/markgen" "$marker" "$N" "$W" >"$work/top.out" 2>"$work/err"
grep '^{' "$work/top.out" >"$work/top.json"
gen=$(sed -n 's/^generated \([0-9]*\) events in.*/\1/p' "$work/top.out")
rate=$(sed -n 's/.*(\([0-9]*\)\/s)/\1/p' "$work/top.out")
mg=$(sed -n 's/^markgen cpu //p' "$work/top.out")
read -r top_seen top_lost <<<"$(python3 -c "
import json
r = [json.loads(l) for l in open('$work/top.json')][-1]
print(sum(x['total'] for x in r['rows'] if x['event'] == 'ftrace:print'), r['lost'])")"
top_cpu=$(echo "$(cpu_of "$work/time") - ${mg:-0}" | bc -l)
read -r _ _ top_rss _ <"$work/time"

/usr/bin/time -f "%U %S %M %e" -o "$work/time" \
	"$TR" record -q -B "$inst" -e ftrace:print -o "$work/rec.dat" -- \
	"$work/markgen" "$marker" "$N" "$W" >"$work/rec.out" 2>"$work/err"
rgen=$(sed -n 's/^generated \([0-9]*\) events in.*/\1/p' "$work/rec.out")
rrate=$(sed -n 's/.*(\([0-9]*\)\/s)/\1/p' "$work/rec.out")
rmg=$(sed -n 's/^markgen cpu //p' "$work/rec.out")
rec_seen=$("$TR" report --stat -i "$work/rec.dat" | awk '$1 == "ftrace:print" {print $2}')
rec_lost=$("$TR" report --stat -i "$work/rec.dat" | awk '/^lost events:/ {print $3}')
rec_cpu=$(echo "$(cpu_of "$work/time") - ${rmg:-0}" | bc -l)
read -r _ _ rec_rss _ <"$work/time"

printf '%-10s %10s %10s %10s %9s %8s %10s %8s\n' "" generated "gen ev/s" counted lost "cpu_s" \
	"cpu_s/Mev" rss_MiB
printf '%-10s %10s %10s %10s %9s %8.3f %10.3f %8.1f\n' "tr top" "$gen" "$rate" "$top_seen" \
	"$((gen - top_seen))" "$top_cpu" "$(echo "$top_cpu * 1000000 / ($top_seen + 1)" | bc -l)" \
	"$(echo "$top_rss / 1024" | bc -l)"
printf '%-10s %10s %10s %10s %9s %8.3f %10.3f %8.1f\n' "tr record" "$rgen" "$rrate" \
	"${rec_seen:-0}" "$((rgen - ${rec_seen:-0}))" "$rec_cpu" \
	"$(echo "$rec_cpu * 1000000 / (${rec_seen:-0} + 1)" | bc -l)" "$(echo "$rec_rss / 1024" | bc -l)"
echo "  (lost: generated - counted; tr top's header said $top_lost lost, tr record's file says ${rec_lost:-?})"
printf 'ratios tr top / tr record: lost %s, cpu per event %.2f (the issue asks for <= 1.5)\n' \
	"$(echo "scale=2; ($gen - $top_seen + 1) / ($rgen - ${rec_seen:-0} + 1)" | bc -l)" \
	"$(echo "($top_cpu / ($top_seen + 1)) / ($rec_cpu / (${rec_seen:-0} + 1))" | bc -l)"
echo

# 3. memory with 10,000 tasks: live, 10,000 threads in four waves of 2,500
#    (hosts often cap the tasks a user may have at once), each thread
#    sleeping and waking for 2 s; then the model alone with 10,000 tasks at
#    once (bench/top-model-bench.c), which also gives its records per CPU
#    second.
cat >"$work/threads.py" <<'EOF'
import sys, threading, time, os
threading.stack_size(64 * 1024)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
def sleeper():
    for _ in range(8):
        time.sleep(0.25)
for wave in range(4):
    ts = [threading.Thread(target=sleeper) for _ in range(2500)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
EOF
python3 "$work/threads.py" "$work/go" &
gen_pid=$!
( sleep 1; touch "$work/go" ) &
/usr/bin/time -f "%U %S %M %e" -o "$work/time" \
	"$TR" top -b -d 1 -n 14 --format json >"$work/mem.json" 2>"$work/err"
wait $gen_pid || echo "bench: the thread generator failed (a limit on tasks?)" >&2
read -r _ _ rss _ <"$work/time"
read -r rows seen <<<"$(python3 -c "
import json
R = [json.loads(l) for l in open('$work/mem.json')]
pids = set(x['pid'] for r in R for x in r['rows'])
print(max(len(r['rows']) for r in R), len(pids))")"
printf 'memory, live: peak RSS %.1f MiB; %s tasks seen, up to %s in one refresh (the issue asks for < 30 MiB with 10,000)\n' \
	"$(echo "$rss / 1024" | bc -l)" "$seen" "$rows"
# The objects are in a folder per layer (build/obj/top/, ...), and the model's
# header is top/'s own; the libraries are the Makefile's.
objs=$(find "$root/build/obj" -name '*.o' ! -path "$root/build/obj/tr.o" | sort)
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$root/include" -I"$root/src/top" \
	$(pkg-config --cflags libtracefs libtraceevent) \
	-o "$work/top-model-bench" "$here/top-model-bench.c" $objs \
	$(pkg-config --libs libtracefs libtraceevent ncursesw libzstd zlib libssl libcrypto) \
	-lpthread -lm
"$work/top-model-bench" 10000000 10000
echo "load average after: $(load)"
