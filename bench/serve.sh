#!/bin/bash
# Benchmark tr serve on this machine, in one run:
#
#   bench/serve.sh [SECONDS] [RATE]
#
#  1. idle: tr serve scraped once a second by curl for SECONDS (default 20):
#     its CPU as a share of one CPU (goal: under 0.5%) and the scrapes'
#     time (goal: under 50 ms);
#  2. load: bench/sysrate making RATE (default 50000) getppid() calls a
#     second for SECONDS, 2 x RATE events a second, scraped once a second:
#     tr serve's CPU (goals: under 10% of one CPU where tr counts, under 2%
#     where the kernel's hist triggers count: run it in the full guest too,
#     tests/vm/run -- bench/serve.sh, where emulation makes every figure
#     larger), and whether tr_syscalls_total saw every call;
#  3. labels: 10,000 command names under --by comm --max-comms 10000
#     (40,000 series): resident memory (goal: under 32 MB) and a scrape's
#     time.
#
# There is no other ftrace exporter to compare with: the figures are
# absolute, with the machine's load beside them.  Needs root and curl;
# tr serve uses an instance of its own.  Not part of make check.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
TR=${TR:-$root/tr}
S=${1:-20}
RATE=${2:-50000}
work=$(mktemp -d /tmp/tr-bench-serve.XXXXXX)
spid=
trap '[ -n "$spid" ] && kill -INT $spid 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

[ -x "$TR" ] || { echo "bench: build tr first (make tr)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench: needs curl" >&2; exit 1; }
cc -O2 -o "$work/sysrate" "$here/sysrate.c"
hz=$(getconf CLK_TCK)

# start ARGS...: tr serve -p 0 ARGS in the background ($spid, $url).
start() {
	"$TR" serve -p 0 "$@" 2>"$work/err" &
	spid=$!
	for _ in $(seq 300); do
		grep -q "serving metrics on" "$work/err" && break
		sleep 0.1
	done
	url=$(grep -o 'http://[^ ]*/metrics' "$work/err")
}
stop() { kill -INT "$spid"; wait "$spid" || :; spid=; }
# cpu PID: its user + system time so far, in seconds.
cpu() { awk -v hz="$hz" '{ print ($14 + $15) / hz }' "/proc/$1/stat"; }
# scrapes N: N scrapes a second apart; prints the slowest's time in ms.
scrapes() {
	local worst=0 t
	for _ in $(seq "$1"); do
		t=$(curl -s -o /dev/null -w '%{time_total}' "$url")
		worst=$(echo "if ($t * 1000 > $worst) $t * 1000 else $worst" | bc -l)
		sleep 1
	done
	printf '%.1f' "$worst"
}
metric() { curl -s "$url" | awk -v k="$1" '$1 == k { print $2 }'; }

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg), $(uname -r)"
start
# getppid ranked among the first syscalls to get a series of their own,
# before the idle phase's scrapers (curl, bc) have used up the rest.
"$work/sysrate" 1000 1 >/dev/null
agg=$(curl -s "$url" | sed -n 's/.*aggregation="\([a-z]*\)".*/\1/p')
echo "tr serve counts in: $agg"

# 1. idle
c0=$(cpu "$spid")
worst=$(scrapes "$S")
c1=$(cpu "$spid")
printf 'idle, scraped 1/s for %s s: %.2f%% of one CPU; slowest scrape %s ms\n' "$S" \
	"$(echo "100 * ($c1 - $c0) / $S" | bc -l)" "$worst"

# 2. load
q='tr_syscalls_total{syscall="getppid"}'
"$work/sysrate" 1000 1 >/dev/null
scrapes 2 >/dev/null
b0=$(metric "$q")
c0=$(cpu "$spid")
"$work/sysrate" "$RATE" "$S" >"$work/calls" &
lpid=$!
worst=$(scrapes "$S")
wait $lpid
c1=$(cpu "$spid")
scrapes 2 >/dev/null
b1=$(metric "$q")
printf 'load, %s calls/s (%s events/s) for %s s: %.2f%% of one CPU; slowest scrape %s ms; %s of %s calls counted\n' \
	"$RATE" "$((2 * RATE))" "$S" "$(echo "100 * ($c1 - $c0) / $S" | bc -l)" "$worst" \
	"$(echo "${b1:-0} - ${b0:-0}" | bc)" "$(cat "$work/calls")"
stop

# 3. labels
start --by comm --max-comms 10000
"$work/sysrate" -n 10000 >/dev/null
for _ in $(seq 100); do
	[ "$(curl -s "$url" | grep -c '^tr_comm_syscalls_total{comm="tr-bench-')" -ge 9990 ] && break
	sleep 1
done
n=$(curl -s "$url" | grep -c '^tr_comm_')
t=$(curl -s -o /dev/null -w '%{time_total}' "$url")
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$spid/status")
printf 'labels: %s tr_comm_ series: resident %.1f MiB; a scrape %.1f ms\n' "$n" \
	"$(echo "$rss / 1024" | bc -l)" "$(echo "$t * 1000" | bc -l)"
stop
