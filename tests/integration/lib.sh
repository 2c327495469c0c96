# Test library for tr's integration tests, in the style of git's t/test-lib.sh.
#
#   . "$(dirname "$0")/lib.sh"
#   test_requires triggers            # skip the whole file if tr check lacks it
#   test_expect_success 'what it checks' '
#           tr start -B "$inst" -e sched:sched_switch &&
#           test_when_finished "tr reset -B $inst" &&
#           ...
#   '
#   test_done
#
# Each body runs in a subshell with set -e, its output captured and shown
# only when it fails.  Lines printed: "ok N - FILE: what" / "not ok ..." /
# "ok N - FILE: what # skip REASON", then "# FILE: N passed, N failed, N skipped".

set -u
TEST_FILE=$(basename "$0" .sh)
TEST_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TR=${TR:-$TEST_ROOT/tr}
case $TR in /*) ;; *) TR=$TEST_ROOT/$TR ;; esac
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
TR_TIER=${TR_TIER:-host}
export TR TRACEFS TR_TIER

# Sanitizer reports must fail a test even where a non-zero exit is expected.
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1:abort_on_error=0}
# glibc's argp leaks a byte building help for option-less parsers: not ours.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$TEST_ROOT/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=86:halt_on_error=1:print_stacktrace=1}

# One user of the host's tracefs at a time (run-all.sh holds it for a
# suite): the file runs again under flock(1).  -o: the lock's descriptor is
# not inherited, so a stray background process cannot hold it.
if [ "$TR_TIER" = host ] && [ -z "${TR_TRACEFS_LOCKED:-}" ] && command -v flock >/dev/null; then
	export TR_TRACEFS_LOCKED=1
	exec flock -o "${TMPDIR:-/tmp}/tr-tracefs.lock" bash "$0" "$@"
fi

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tr-test.XXXXXX")
# tr start/reset keep their notes here, never in the machine's /run/tr.
export TR_STATE_DIR=$TEST_TMP/state
trap 'rm -rf "$TEST_TMP"' EXIT

# "tr" in a test body is ours; the system's stays reachable as /usr/bin/tr.
tr() { "$TR" "$@"; }

test_count=0 test_pass=0 test_fail=0 test_skip=0
test_skip_all=
test_prereq_missing=

say() { printf '%s\n' "$*"; }

# What tr check says, once per suite: run-all.sh writes it to TR_CAPS_FILE
# (probing the function tracer takes seconds under emulation).
if [ -z "${TR_CAPS_FILE:-}" ] || [ ! -s "$TR_CAPS_FILE" ]; then
	TR_CAPS_FILE=$TEST_TMP/caps
	"$TR" check >"$TR_CAPS_FILE" 2>/dev/null
fi

# kernel_before MAJOR.MINOR: the running kernel is older (what a test
# expects of the kernel goes by its version, not by the tier that runs it).
kernel_before() {
	local v=$(uname -r) want=$1
	v=${v%%[!0-9.]*}
	[ "$(printf '%s\n%s\n' "${v%.*}" "$want" | sort -V | head -1)" != "$want" ]
}

# test_kernels KERNEL...: the guest kernels this file must also run on
# (full: 7.3 with every tracing feature and BTF; debian: stock 6.1).  The host tier
# runs every file; a VM tier runs only the files that name its kernel, so a
# file names them when the host cannot cover it (a feature this host lacks,
# a path only an older kernel takes) or when it is in the guests' smoke set.
# run-all.sh reads the line without running the file: write it alone on its
# line, with literal names.  make check-vm-full runs every file everywhere.
test_kernels() {
	local k
	for k in "$@"; do
		case $k in
		full | debian) ;;
		*)
			test_count=$((test_count + 1)) test_fail=$((test_fail + 1))
			say "not ok $test_count - $TEST_FILE: test_kernels: unknown kernel '$k' (full or debian)"
			;;
		esac
	done
}

# test_boots_guest: this file runs on the host and boots a guest of its own
# (tests/vm/run), so it needs the guest kernels, which make check prepares
# in the background while the host tier runs.  run-all.sh reads the line:
# the host tier leaves the file to the host-guest tier, which tests/check
# runs once those kernels are ready.  Write it alone on its line.
test_boots_guest() { :; }

# test_requires CAP...: skip the rest of this file unless tr check has them.
test_requires() {
	local cap line
	for cap in "$@"; do
		line=$(grep -E "^$cap +" "$TR_CAPS_FILE")
		if ! grep -qE "^$cap +yes " <<<"$line"; then
			test_skip_all="missing $cap: $(sed -E 's/^[^ ]+ +(yes|no) +//' <<<"$line")"
			return 0
		fi
	done
}

# test_have CAP: for a test that runs either way but asserts differently.
test_have() { grep -qE "^$1 +yes " "$TR_CAPS_FILE"; }

test_when_finished() {
	test_cleanup="$1
${test_cleanup:-}"
}

test_must_fail() {
	local rc=0
	"$@" || rc=$?
	if [ $rc -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*" >&2
		return 1
	elif [ $rc -eq 86 ] || [ $rc -gt 128 ]; then
		echo "test_must_fail: command died (status $rc): $*" >&2
		return 1
	fi
	return 0
}

# test_expect_code CODE CMD...: exactly that exit status.
test_expect_code() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "test_expect_code: want $want, got $rc: $*" >&2
		return 1
	fi
}

test_must_be_empty() {
	if [ -s "$1" ]; then
		echo "test_must_be_empty: '$1' is not empty:" >&2
		cat "$1" >&2
		return 1
	fi
}

test_cmp() {
	diff -u "$1" "$2"
}

# test_grep [-v] PATTERN FILE: grep that shows the file when it fails.
test_grep() {
	if ! grep "$@"; then
		echo "test_grep: no match for '$*'; file was:" >&2
		cat "${@: -1}" >&2
		return 1
	fi
}

# wait_for SECONDS CMD...: run CMD every 50 ms until it succeeds; fail (not
# hang) once SECONDS (whole or with decimals) have gone by, saying what was
# waited for and what CMD said the last time.  The way every test waits for
# another program (a file, a line in a log, a port, a marker seen): never
# a bare sleep.
wait_for() {
	local n i
	n=$(awk -v s="$1" 'BEGIN { n = int(s * 20); print n < 1 ? 1 : n }')
	shift
	for ((i = 1; i < n; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	"$@" && return 0
	echo "wait_for: still not true after $((n / 20)) s: $*" >&2
	return 1
}

# pid_gone PID: no process PID is left (bash reaps a child as it ends and keeps
# its status for wait).
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# reads_pipes PID: process PID has a per-CPU trace_pipe_raw open (its
# readers have started).
reads_pipes() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q trace_pipe_raw; }

# spool_bytes SPOOL: how many bytes of events tr record's spool holds.
spool_bytes() { find "$1" -name "cpu*.raw" -exec cat {} + 2>/dev/null | wc -c; }
# spool_past SPOOL BYTES: the spool holds more than BYTES (a flush since).
spool_past() { [ "$(spool_bytes "$1")" -gt "$2" ]; }

# file_is FILE TEXT: FILE holds TEXT (a tracefs setting, a status file).
file_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

# show_has INST ERE: tr show of instance INST (the top level if INST is
# empty) has a line matching ERE.
show_has() { "$TR" show ${1:+-B "$1"} 2>/dev/null | grep -qE -- "$2"; }

# test_wait_exit PID SECONDS: wait for a background child, failing (not
# hanging) if it is still running after SECONDS.  Its status must be 0.
test_wait_exit() {
	wait_for "$2" pid_gone "$1" || { echo "test_wait_exit: $1 still running after $2s" >&2; return 1; }
	wait "$1"
}

# test_wait_recording INST: wait (up to 10 s) until tr record is tracing in
# an instance.  An instance may start with tracing on until tr turns it off
# to set it up, so first wait for the recorder's own buffer_percent (25, or
# 5 for small buffers; the kernel's default is 50), which comes after.
test_wait_recording() {
	wait_for 10 recording "$1" || { echo "instance $1 never started tracing" >&2; return 1; }
}
# recording INST: tr record's set-up of INST is done and it is tracing.
recording() {
	local p
	p=$(cat "$TRACEFS/instances/$1/buffer_percent" 2>/dev/null)
	{ [ "$p" = 5 ] || [ "$p" = 25 ]; } &&
		[ "$(cat "$TRACEFS/instances/$1/tracing_on" 2>/dev/null)" = 1 ]
}

# test_kill_recording INST FILE ARGS...: tr record ARGS of INST's markers to
# FILE, one marker written, SIGKILL once the spool holds it (a flush every
# 100 ms; waited for at most 10 s), and the instance put back: FILE.spool
# is all that is left.  A background run is "$TR", so that $! is tr itself.
test_kill_recording() {
	local inst=$1 out=$2 pid
	shift 2
	"$TR" record -q -B "$inst" -e ftrace:print --flush-interval 100ms "$@" -o "$out" \
		2>"$out.err" &
	pid=$!
	test_wait_recording "$inst" || { kill -9 $pid; wait $pid; return 1; }
	echo "before the kill" >"$TRACEFS/instances/$inst/trace_marker"
	wait_for 10 spool_has_pages "$out.spool"
	kill -9 $pid
	wait $pid 2>/dev/null
	tr reset -B "$inst" &&
	test -d "$out.spool" && test ! -s "$out"
}

# ---- Helpers several files share: write them here, not again in a file. ----

# I INST: the path of instance INST in tracefs.
I() { printf '%s/instances/%s' "$TRACEFS" "$1"; }

# own_instance INST: make instance INST for this test; the test's end resets
# and removes it.
own_instance() {
	mkdir "$(I "$1")" &&
	test_when_finished "tr reset -B $1 >/dev/null 2>&1; rmdir $(I "$1") 2>/dev/null || :"
}

# make_marks_sh: write $TEST_TMP/marks.sh, a script that a traced command
# runs as "marks.sh INST N TEXT" to write TEXT to INST's trace_marker N
# times from one shell.
make_marks_sh() {
	cat >"$TEST_TMP/marks.sh" <<-\EOS
	#!/bin/sh
	m=$TRACEFS/instances/$1/trace_marker
	i=0
	while [ $i -lt $2 ]; do echo "$3" >$m; i=$((i + 1)); done
	EOS
	chmod +x "$TEST_TMP/marks.sh"
}

# first_words [N]: each line cut to its first N words (all of it without N).
first_words() {
	if [ -n "${1:-}" ]; then cut -d' ' -f1-"$1"; else cat; fi
}

# marks_tr FILE [N]: the text of FILE's trace_marker lines (ftrace:print), in
# order, as tr report prints them ("tracing_mark_write: TEXT", as the
# kernel's trace file does; irq-info flags before the time or not); with N,
# only each text's first N words.
marks_tr() {
	"$TR" report -i "$1" 2>/dev/null |
		sed -n 's/^.*\] [^:]*: tracing_mark_write: //p' | first_words "${2:-}"
}

# marks_tc FILE [N]: the same as trace-cmd report prints them ("print:
# tracing_mark_write: TEXT").
marks_tc() {
	trace-cmd report -i "$1" 2>/dev/null | sed -n 's/.* print: *[^ ]*: //p' |
		first_words "${2:-}"
}

# marks_ref FILE [N]: the reference reading: trace-cmd's where it is
# installed, else tr's (a test that has both then checks that they agree).
marks_ref() {
	if command -v trace-cmd >/dev/null; then marks_tc "$@"; else marks_tr "$@"; fi
}

# tc_reads FILE: trace-cmd is installed and reads FILE (Debian's 3.1.6
# reads no zlib, for one).
tc_reads() { command -v trace-cmd >/dev/null && trace-cmd report -i "$1" >/dev/null 2>&1; }

# TC34: trace-cmd 3.4, the second reference reader and the first to know
# the BTF and modules sections (scripts/tc34-oracle, which make deps-test
# runs, puts it in the cache; TR_TC34 names another).  Empty when absent:
# test_tc34 then skips the test, saying so.
TC34=${TR_TC34:-${XDG_CACHE_HOME:-$HOME/.cache}/tr/trace-cmd-3.4/bin/trace-cmd}
[ -x "$TC34" ] || TC34=
# test_tc34 DESC BODY: test_expect_success when trace-cmd 3.4 is there.
test_tc34() {
	if [ -n "$TC34" ]; then test_expect_success "$1" "$2"
	else test_skip "$1" "no trace-cmd 3.4 (scripts/tc34-oracle: none in ../shared/trace-cmd)"; fi
}

# stamps: the timestamps of a report on stdin, one a line.
stamps() { grep -oE " [0-9]+\.[0-9]{6}: " | command tr -d ' :'; }

# events_of FILE: the event lines ("task-pid [cpu] ...") of a report or of a
# kernel trace file; none is no error.
events_of() { grep -E "[^ ]+-[0-9]+ +\[[0-9]+\]" "$1" || :; }

# one_error FILE PATTERN [ARGS...]: tr ARGS (by default, report -i FILE)
# exits 1 within 20 s, prints nothing on stdout and one line on stderr,
# matching PATTERN.  Leaves out and err.
one_error() {
	local f=$1 pat=$2
	shift 2
	[ $# -gt 0 ] || set -- report -i "$f"
	test_expect_code 1 timeout 20 "$TR" "$@" >out 2>err &&
	test ! -s out || { echo "stdout:"; cat out; return 1; }
	test "$(wc -l <err)" = 1 || { echo "stderr:"; cat err; return 1; }
	test_grep -q -- "$pat" err
}

# normalize kernel|report FILE: "cpu ts pid | event: text" for every event
# of a kernel trace file or of tr report output (whose event names are
# padded to a column; a marker's "tracing_mark_write: x" is the kernel's,
# and trace-cmd's "print: tracing_mark_write: x" is taken too), sorted.
normalize() {
	python3 - "$1" "$2" <<-\PY
	import re, sys
	kind, path = sys.argv[1], sys.argv[2]
	out = []
	for line in open(path, errors="replace"):
	    line = line.rstrip("\n")
	    if kind == "kernel":
	        m = re.match(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(?:\S{4,5}\s+)?(\d+\.\d+): (.*)$", line)
	        if not m:
	            continue
	        pid, cpu, ts, rest = m.group(2), m.group(3), m.group(4), m.group(5)
	    else:
	        m = re.match(r"^(?:\S+: )?\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+\.\d+): (\S+):\s+(.*)$", line)
	        if not m:
	            continue
	        pid, cpu, ts, name, text = m.group(2), m.group(3), m.group(4), m.group(5), m.group(6)
	        rest = text if name == "print" else name + ": " + text
	    out.append("%s %s %s | %s" % (int(cpu), ts, pid, rest))
	print("\n".join(sorted(out)))
	PY
}

# cmp_names EXPECT ACTUAL [NAMES [MIN]]: test_cmp of trace-cmd's report
# and tr's, except where trace-cmd printed a task as <...> because the
# saved_cmdlines did not have it: tr names it from the trace itself, and the
# name must be one the trace shows for that pid (in the file NAMES, tr
# report -N output, else in ACTUAL).  At least MIN lines (10) compared.
cmp_names() {
	python3 - "$1" "$2" "${3:-$2}" "${4:-10}" <<-\EOF
	import re, sys
	e = open(sys.argv[1]).read().splitlines()
	a = open(sys.argv[2]).read().splitlines()
	if len(e) != len(a):
	    sys.exit("line counts differ: %d and %d" % (len(e), len(a)))
	if len(a) < int(sys.argv[4]):
	    sys.exit("only %d lines: nothing much was compared" % len(a))
	text = open(sys.argv[3]).read()
	named = 0
	for x, y in zip(e, a):
	    if x == y:
	        continue
	    m = re.match(r"^(.*?)<\.\.\.>-(\d+)( +\[\d+\].*)$", x)
	    n = re.match(r"^(.*?) *(\S+)-(\d+)( +\[\d+\].*)$", y)
	    if not m or not n or m.group(2) != n.group(3) or m.group(3) != n.group(4):
	        sys.exit("differ:\n-%s\n+%s" % (x, y))
	    comm, pid = n.group(2), n.group(3)
	    if not re.search(r"(comm=%s pid=%s|_comm=%s \w*_pid=%s)\b" % (re.escape(comm), pid, re.escape(comm), pid), text):
	        sys.exit("name %s for %s is not in the trace:\n+%s" % (comm, pid, y))
	    named += 1
	print("%d lines where trace-cmd had <...> are named" % named)
	EOF
}

# spool_has_pages SPOOL: tr record's spool SPOOL holds data of some CPU.
spool_has_pages() { [ -n "$(find "$1" -name "cpu*.raw" -size +0 2>/dev/null)" ]; }

# A fresh instance name; the test creates it (tr start -B / mkdir) and cleans up.
test_instance() {
	printf 'trtest-%s-%s' "$$" "$test_count"
}

test_expect_success() {
	local desc=$1 body=$2 log rc=0
	test_count=$((test_count + 1))
	if [ -n "$test_skip_all" ]; then
		test_skip=$((test_skip + 1))
		say "ok $test_count - $TEST_FILE: $desc # skip $test_skip_all"
		return 0
	fi
	log=$TEST_TMP/log.$test_count
	(
		test_cleanup=
		trap 'eval "$test_cleanup"' EXIT
		cd "$TEST_TMP"
		set -e
		eval "$body"
	) >"$log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		test_pass=$((test_pass + 1))
		say "ok $test_count - $TEST_FILE: $desc"
	else
		test_fail=$((test_fail + 1))
		say "not ok $test_count - $TEST_FILE: $desc"
		sed 's/^/#   /' <<<"$body"
		say "#   --- output (status $rc) ---"
		sed 's/^/#   /' "$log"
	fi
}

# A test that must be skipped on this machine, with the reason.
test_skip() {
	test_count=$((test_count + 1))
	test_skip=$((test_skip + 1))
	say "ok $test_count - $TEST_FILE: $1 # skip $2"
}

test_done() {
	say "# $TEST_FILE: $test_pass passed, $test_fail failed, $test_skip skipped"
	[ $test_fail -eq 0 ]
}
