#!/bin/bash
# Run "trace-cmd record" on this machine for tests:
#
#   tc-record.sh INSTANCE OUT [trace-cmd record options...] [-- COMMAND...]
#   TC_SUBCMD=extract tc-record.sh INSTANCE OUT    (what the instance holds now)
#   TC_NET=HOST:PORT tc-record.sh INSTANCE - [options...]  (record -N to a listener;
#                                   give -t in the options for data over TCP)
#   TC_VSOCK=CID:PORT tc-record.sh INSTANCE - [options...]  (record -V to a vsock listener)
#   TC_BIN=PATH: another trace-cmd (trace-cmd 3.4's, say) than the one on PATH
#
# trace-cmd 3.1.6 insists on writing the function-filter files and
# ftrace_enabled, which a kernel without function tracing (or a container)
# refuses; here it runs in a private mount namespace where those files are
# writable stand-ins, recording into INSTANCE (created for it, removed
# after), so the machine's top-level tracefs is left as it was.  INSTANCE
# "-" records the top level and nothing else: the caller checks it restores.
set -u
inst=$1 out=$2
shift 2
T=${TRACEFS:-/sys/kernel/tracing}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
buf=()
# The instances the stand-ins go over: INSTANCE and any other -B NAME.
binds=()
prev=
for a in "$@"; do
	[ "$prev" = -B ] && binds+=("$T/instances/$a")
	prev=$a
done
if [ "$inst" != - ]; then
	binds+=("$T/instances/$inst")
	[ "${TC_SUBCMD:-record}" = extract ] || mkdir -p "$T/instances/$inst" || exit 1
	buf=(-B "$inst")
fi
unshare -m bash -c '
	d=$1 T=$2 out=$3 nb=$4 tc=$5
	shift 5
	dirs=("$T" "${@:1:$nb}")
	shift "$nb"
	echo 1 >"$d/fe"
	: >"$d/sff"
	mount --bind "$d/fe" /proc/sys/kernel/ftrace_enabled || exit 1
	for b in "${dirs[@]}"; do
		for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid \
			 set_ftrace_notrace_pid set_graph_function set_graph_notrace; do
			[ -e "$b/$f" ] && mount --bind "$d/sff" "$b/$f"
		done
	done
	if [ -n "${TC_NET:-}" ]; then
		exec "$tc" record -q -N "$TC_NET" "$@"
	fi
	if [ -n "${TC_VSOCK:-}" ]; then
		exec "$tc" record -q -V "$TC_VSOCK" "$@"
	fi
	if [ "${TC_SUBCMD:-record}" = record ]; then
		exec "$tc" record -q -o "$out" "$@"
	fi
	exec "$tc" "$TC_SUBCMD" -o "$out" "$@"
' _ "$d" "$T" "$out" "${#binds[@]}" "${TC_BIN:-trace-cmd}" "${binds[@]}" "${buf[@]}" "$@" >"$d/log" 2>&1
rc=$?
[ "$inst" != - ] && rmdir "$T/instances/$inst" 2>/dev/null
if [ $rc -ne 0 ] || { [ -z "${TC_NET:-}${TC_VSOCK:-}" ] && [ ! -s "$out" ]; }; then
	cat "$d/log" >&2
	exit 1
fi
exit 0
