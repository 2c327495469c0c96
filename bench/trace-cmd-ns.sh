#!/bin/sh
# trace-cmd-ns.sh ARGS...: run trace-cmd ARGS in a private mount namespace in
# which the control files this host refuses writes to (ftrace_enabled, the
# function-filter and function-pid files) are writable stand-ins, so that
# trace-cmd's unconditional writes to them do not make it fail.
# TRACE_CMD_BIN=true runs the namespace set-up alone, so a benchmark can
# measure what the wrapper costs and not bill it to trace-cmd.
T=${TRACEFS:-/sys/kernel/tracing}
d=$(mktemp -d /tmp/trace-cmd-ns.XXXXXX)
trap 'rm -rf "$d"' EXIT
cat /proc/sys/kernel/ftrace_enabled >"$d/fe" 2>/dev/null || echo 1 >"$d/fe"
unshare -m sh -c '
	d=$1; T=$2; shift 2
	mount --bind "$d/fe" /proc/sys/kernel/ftrace_enabled 2>/dev/null
	for f in set_ftrace_filter set_ftrace_notrace set_graph_function \
		 set_graph_notrace set_ftrace_pid set_ftrace_notrace_pid; do
		[ -e "$T/$f" ] || continue
		: >"$d/$f"
		mount --bind "$d/$f" "$T/$f" 2>/dev/null
	done
	exec "${TRACE_CMD_BIN:-trace-cmd}" "$@"' sh "$d" "$T" "$@"
