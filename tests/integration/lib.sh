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

# test_kernels KERNEL...: the guest kernels this file must also run on
# (full: 6.12 with every tracing feature; debian: stock 6.1).  The host tier
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

# test_wait_exit PID SECONDS: wait for a background child, failing (not
# hanging) if it is still running after SECONDS.  Its status must be 0.
test_wait_exit() {
	local pid=$1 i
	for ((i = 0; i < $2 * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			return
		fi
		sleep 0.1
	done
	echo "test_wait_exit: $pid still running after $2s" >&2
	return 1
}

# A fresh instance name; the test creates it (tr start -B / mkdir) and cleans up.
# test_wait_recording INST: wait (up to 10 s) until tr record is tracing in
# an instance.  An instance may start with tracing on until tr turns it off
# to set it up, so first wait for the recorder's own buffer_percent (25, or
# 5 for small buffers; the kernel's default is 50), which comes after.
test_wait_recording() {
	local i p
	for i in $(seq 100); do
		p=$(cat "$TRACEFS/instances/$1/buffer_percent" 2>/dev/null)
		if { [ "$p" = 5 ] || [ "$p" = 25 ]; } &&
		   [ "$(cat "$TRACEFS/instances/$1/tracing_on" 2>/dev/null)" = 1 ]; then
			return 0
		fi
		sleep 0.1
	done
	echo "instance $1 never started tracing" >&2
	return 1
}

# test_kill_recording INST FILE ARGS...: tr record ARGS of INST's markers to
# FILE, one marker written, SIGKILL once the spool holds it (a flush every
# 100 ms; waited for at most 10 s), and the instance put back: FILE.spool
# is all that is left.  A background run is "$TR", so that $! is tr itself.
test_kill_recording() {
	local inst=$1 out=$2 pid i
	shift 2
	"$TR" record -q -B "$inst" -e ftrace:print --flush-interval 100ms "$@" -o "$out" \
		2>"$out.err" &
	pid=$!
	test_wait_recording "$inst" || { kill -9 $pid; wait $pid; return 1; }
	echo "before the kill" >"$TRACEFS/instances/$inst/trace_marker"
	for i in $(seq 100); do
		[ -n "$(find "$out.spool" -name "cpu*.raw" -size +0 2>/dev/null)" ] && break
		sleep 0.1
	done
	kill -9 $pid
	wait $pid 2>/dev/null
	tr reset -B "$inst" &&
	test -d "$out.spool" && test ! -s "$out"
}

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
