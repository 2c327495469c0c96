#!/bin/bash
# Run "trace-cmd agent" on this machine for tests:
#
#   tc-agent.sh [trace-cmd agent options...]
#
# trace-cmd 3.1.6 insists on writing the function-filter files and
# ftrace_enabled, which a kernel without function tracing refuses; as in
# tc-record.sh it runs in a private mount namespace where those files (of
# the top level, where trace-cmd's agent records) are writable stand-ins.
# The agent is this script's pid (exec all the way), so the caller stops
# it with kill.
set -u
T=${TRACEFS:-/sys/kernel/tracing}
d=$(mktemp -d)
echo 1 >"$d/fe"
: >"$d/sff"
exec unshare -m bash -c '
	d=$1 T=$2
	shift 2
	mount --bind "$d/fe" /proc/sys/kernel/ftrace_enabled || exit 1
	for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid \
		 set_ftrace_notrace_pid set_graph_function set_graph_notrace; do
		[ -e "$T/$f" ] && mount --bind "$d/sff" "$T/$f"
	done
	rm -rf "$d"
	exec trace-cmd agent "$@"
' _ "$d" "$T" "$@"
