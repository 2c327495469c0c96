# Shared by the network tests (t1210 listen, t1211 agent, t1213 vsock):
# a tr server in the background, its log, and the markers that cross.
# Sourced after lib.sh.

# net_start LOG WHERE CMD...: CMD (a tr server on port 0) in the
# background, stderr to LOG; waits up to 10 s for its "listening on
# WHERE port N" line and sets NET_PID and NET_PORT.
net_start() {
	local log=$1 where=$2 i
	shift 2
	"$@" 2>"$log" &
	NET_PID=$!
	for i in $(seq 100); do
		NET_PORT=$(sed -n "s/.*listening on $where port \([0-9]*\)\$/\1/p" "$log")
		[ -n "$NET_PORT" ] && return 0
		sleep 0.1
	done
	cat "$log" >&2
	return 1
}

# net_stop PID: for test_when_finished; never fails.
net_stop() {
	kill "$1" 2>/dev/null || :
	wait "$1" 2>/dev/null || :
}

# net_ends PID LOG: stopped by SIGTERM, the server exits 0 with no
# sanitizer report.
net_ends() {
	local rc=0
	kill "$1" && wait "$1" || rc=$?
	if [ $rc != 0 ] || grep -E "Sanitizer|runtime error" "$2" >&2; then
		echo "server: status $rc" >&2
		cat "$2" >&2
		return 1
	fi
}

# cpu_ticks PID: the process's user and system time, in clock ticks (for
# the cases that measure a server's CPU over a span: t1214, t1216).
cpu_ticks() { awk "{ print \$14 + \$15 }" "/proc/$1/stat"; }

# wait_log PATTERN N LOG: up to 60 s for N lines matching PATTERN (a
# loaded machine's TCG guest needs the margin; the loop is bounded).
wait_log() {
	local i
	for i in $(seq 600); do
		[ "$(grep -c -- "$1" "$3")" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "wait_log: fewer than $2 lines '$1' in $3:" >&2
	cat "$3" >&2
	return 1
}

# marks FILE: the text of its trace_marker lines, as tr report prints them.
marks() {
	"$TR" report -i "$1" | sed -n 's/^.*\] *[0-9.]*: tracing_mark_write: //p'
}

# For sh -c: write_marks INST N TAG writes N numbered markers into an
# instance; pairs HOST_INST GUEST_INST N writes "host I" into the first,
# then "guest I" into the second, N times.
write_marks='for i in $(seq 1 $2); do echo "$3 $i" >'"$TRACEFS"'/instances/$1/trace_marker; done'
pairs='for i in $(seq 1 $3); do
	echo "host $i" >'"$TRACEFS"'/instances/$1/trace_marker; sleep 0.005
	echo "guest $i" >'"$TRACEFS"'/instances/$2/trace_marker; sleep 0.005
done'

# For sh -c, before markers that trace-cmd's agent must see: it starts
# tracing a while after it answers, so wait (at most 10 s) until its
# recorders hold every CPU's top-level trace_pipe_raw open, tracing_on is 1
# and sched_process_exit (what these tests ask it for) is enabled.  A fixed
# sleep here lost the markers on a busy machine; so did waiting for one
# CPU's recorder: trace-cmd 3.1.6's recorder that gets its stop signal
# before it has opened its CPU never reads it, and a busy Debian guest lost
# that CPU's markers.
tc_agent_tracing='ncpu=$(getconf _NPROCESSORS_CONF)
for i in $(seq 200); do
	[ "$(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -v /instances/ |
		grep -o "/per_cpu/cpu[0-9]*/trace_pipe_raw$" | sort -u | wc -l)" -ge "$ncpu" ] &&
		[ "$(cat '"$TRACEFS"'/tracing_on)" = 1 ] &&
		[ "$(cat '"$TRACEFS"'/events/sched/sched_process_exit/enable)" = 1 ] && break
	sleep 0.05
done
echo "$i" >tc.waited'

# For sh -c, after markers that trace-cmd's agent must send: a sub-buffer
# of "fill" markers on every CPU (marks_only drops them).  A busy Debian
# guest lost a whole CPU's markers now and then, all of them in its last,
# partial sub-buffer: trace-cmd's recorder (3.1.6, and 3.4 the same) that
# is told to stop when its next read finds no full sub-buffer gets EAGAIN
# and returns before tracecmd_flush_recording() (trace-recorder.c,
# tracecmd_start_recording), so the partial one is never read.  With a
# full one there, that read returns data and the flush runs.
tc_agent_fill='for c in $(seq 0 $(($(getconf _NPROCESSORS_CONF) - 1))); do
	taskset -c $c sh -c "for i in \$(seq 64); do echo fill-$c-\$i-................................................................; done" >'"$TRACEFS"'/trace_marker
done'

# marks_only: a marks list without tc_agent_fill's lines.
marks_only() { grep -v "^fill-"; }

# tc_agent_lost FILE LOG: for a case whose markers trace-cmd's agent did not
# send, what its file holds per CPU, how long tc_agent_tracing waited (in
# 50 ms passes, 200 when it gave up) and the agent's log.
tc_agent_lost() {
	echo "tc_agent_tracing passes: $(cat tc.waited 2>/dev/null)"
	"$TR" report -i "$1" --stat 2>&1 | head -30
	"$TR" report -i "$1" 2>&1 | tail -20
	echo "--- $2"
	tail -30 "$2"
}

# trace-cmd's time sync leaves its instances (clock_synch-N) behind:
# tc_sync_note lists those there before, and tc_sync_cleanup (for
# test_when_finished) removes the new ones.
tc_sync_note() {
	ls -d "$TRACEFS"/instances/clock_synch-* >"$TEST_TMP/synch.before" 2>/dev/null || :
}
tc_sync_cleanup='for d in "$TRACEFS"/instances/clock_synch-*; do
	[ -d "$d" ] && ! grep -qx "$d" "$TEST_TMP/synch.before" && { rmdir "$d" || :; }
done; :'

# A TCP port free on loopback now, for a trace-cmd server that cannot
# take port 0.
tc_free_port() {
	python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])"
}
