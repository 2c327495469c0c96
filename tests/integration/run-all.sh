#!/bin/bash
# Run every integration test file (t[0-9]*.sh) and print one summary line:
#   TIER: N passed, N failed, N skipped
# --tier NAME labels the run (host, host-guest, vm-full, vm-debian61) and is
# exported as TR_TIER so tests can state tier-specific expectations.  The
# host tier leaves the files that boot a guest (test_boots_guest) to the
# host-guest tier, which runs only those, on this host too.  The suite also
# checks that it left tracefs exactly as it found it.
set -u
tier=host
while [ $# -gt 0 ]; do
	case $1 in
	--tier) tier=$2; shift 2 ;;
	*) break ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
export TR_TIER=$tier
export TRACEFS=${TRACEFS:-/sys/kernel/tracing}
files=("$@")
# Which files a VM tier runs: those whose test_kernels line (lib.sh) names
# its kernel; all of them with TR_SUITE_ALL=1 (make check-vm-full) or when
# files are named on the command line.  The host tier runs every file.
case $tier in
vm-full) kernel=full ;;
vm-debian61) kernel=debian ;;
*) kernel= ;;
esac
declares() { grep -qE "^test_kernels( +[a-z0-9]+)* +$2( |\$)" "$1"; }
boots() { grep -qE "^test_boots_guest *\$" "$1"; }
if [ ${#files[@]} -eq 0 ]; then
	left=0 booting=0
	for f in "$here"/t[0-9]*.sh; do
		if [ "$tier" = host-guest ]; then
			boots "$f" && files+=("$f")
		elif [ "$tier" = host ] && boots "$f"; then
			booting=$((booting + 1))
		elif [ -z "$kernel" ] || [ "${TR_SUITE_ALL:-0}" = 1 ] || declares "$f" "$kernel"; then
			files+=("$f")
		else
			left=$((left + 1))
		fi
	done
	[ $booting -eq 0 ] ||
		echo "# $tier: $booting files that boot a guest (test_boots_guest) are left to the host-guest tier"
	[ $left -eq 0 ] ||
		echo "# $tier: $left files not named for this kernel (test_kernels) are left to the host tier; TR_SUITE_ALL=1 runs them"
fi

# What "clean" means: the things a test could leave behind.
tracefs_state() {
	local t=$TRACEFS
	[ -d "$t" ] || return 0
	echo "tracer: $(cat "$t/current_tracer" 2>/dev/null)"
	echo "tracing_on: $(cat "$t/tracing_on" 2>/dev/null)"
	echo "clock: $(cat "$t/trace_clock" 2>/dev/null)"
	# The kernel grows an unused buffer ("7 (expanded: 1408)") to its real
	# size on first use, rounded up to whole sub-buffers: that is not a
	# setting anyone changed, so both read as "default".
	local kb
	kb=$(cat "$t/buffer_size_kb" 2>/dev/null)
	case $kb in *"(expanded: "*) kb=default ;; esac
	if [ -n "$default_kb" ] && [ "$kb" != default ] && [ "$kb" -ge "$default_kb" ] &&
		[ "$kb" -le $((default_kb + 64)) ]; then
		kb=default
	fi
	echo "buffer: $kb"
	echo "events: $(cat "$t/set_event" 2>/dev/null | sort | tr '\n' ' ')"
	echo "instances: $(ls "$t/instances" 2>/dev/null | tr '\n' ' ')"
	echo "dynamic: $(cat "$t/dynamic_events" 2>/dev/null | tr '\n' ' ')"
	echo "event_pid: $(cat "$t/set_event_pid" 2>/dev/null | tr '\n' ' ')"
	echo "options: $(cat "$t/trace_options" 2>/dev/null | tr '\n' ' ')"
	grep -H -v '^#' "$t"/events/*/*/trigger 2>/dev/null | sort
	grep -H -v '^none$' "$t"/events/*/*/filter 2>/dev/null | sort
}

# Several developers (or agents) may share this machine's tracefs: one host
# suite at a time, and single test files wait for it too (lib.sh).
# -o: the lock's descriptor is not inherited, so a stray background process
# of a test cannot hold it after the suite.
if { [ "$tier" = host ] || [ "$tier" = host-guest ]; } && [ -z "${TR_TRACEFS_LOCKED:-}" ] &&
	command -v flock >/dev/null; then
	export TR_TRACEFS_LOCKED=1
	exec flock -o "${TMPDIR:-/tmp}/tr-tracefs.lock" bash "$0" --tier "$tier" "$@"
fi

before=$(mktemp) after=$(mktemp) caps=$(mktemp)
# One tr check for the whole suite; tests read it (lib.sh's test_requires).
"${TR:-$here/../../tr}" check >"$caps" 2>/dev/null
export TR_CAPS_FILE=$caps
# The unused buffer's nominal size, to recognise it once the kernel grew it.
default_kb=$(sed -nE 's/^[0-9]+ \(expanded: ([0-9]+)\)$/\1/p' "$TRACEFS/buffer_size_kb" 2>/dev/null)
trap 'rm -f "$before" "$after" "$caps"' EXIT
tracefs_state >"$before"

# uncovered FILE SKIPS: why the host tier alone does not test all of FILE:
# it skipped cases for a capability this host lacks (test_requires), or it
# asks (test_requires, test_have) for one.  A skip for a missing tool (a
# Perfetto reader, trace-cmd) is not one a guest kernel would cover.  Empty
# when the host covers it.
lacking=$(awk '$2 == "no" { print $1 }' "$caps")
uncovered() {
	local c why=
	[ "$2" -eq 0 ] || why="$2 skipped"
	for c in $lacking; do
		if grep -qE "^[^#]*test_(requires|have)( +[a-z_]+)* +$c\b" "$1"; then
			why="${why:+$why, }needs $c"
		fi
	done
	printf '%s' "$why"
}

pass=0 fail=0 skip=0 n=0
for f in "${files[@]}"; do
	echo "# running ${f##*/}"
	t0=$SECONDS
	pids_before=$(ps -e -o pid=)
	out=$(bash "$f" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	echo "# ${f##*/}: $((SECONDS - t0)) s"
	# Said, not failed (yet): a process a test left behind, orphaned to
	# init, may disturb the files after it (the guest's /tmp filled once
	# in t1040 for a reason not found).
	left=$(ps -e -o pid=,ppid=,comm= | awk 'NR == FNR { seen[$1]; next }
		!($1 in seen) && $2 == 1 { printf "%s %s, ", $1, $3 }' <(printf '%s\n' "$pids_before") -)
	[ -z "$left" ] || echo "# ${f##*/} left running (orphaned to init): ${left%, }"
	p=$(grep -c '^ok .*' <<<"$out" | head -1)
	s=$(grep -c '^ok .* # skip' <<<"$out")
	missing=$(grep -c '^ok .* # skip missing ' <<<"$out")
	x=$(grep -c '^not ok ' <<<"$out")
	pass=$((pass + p - s)) skip=$((skip + s)) fail=$((fail + x))
	if [ $rc -ne 0 ] && [ "$x" -eq 0 ]; then
		echo "not ok - ${f##*/}: the test file itself failed (status $rc)"
		fail=$((fail + 1))
	fi
	if [ "$tier" = host ] && [ $# -eq 0 ] && ! grep -qE '^test_kernels ' "$f"; then
		why=$(uncovered "$f" "$missing")
		if [ -n "$why" ]; then
			echo "not ok - ${f##*/}: this host cannot cover it ($why) and it names no guest kernel (test_kernels in lib.sh)"
			fail=$((fail + 1))
		fi
	fi
done

# A number names one file (tNNNN-what.sh): two files of one number are a
# slip of a rename or a merge.
if [ $# -eq 0 ]; then
	dups=$(ls "$here" | sed -n 's/^\(t[0-9]\{4\}\)-.*\.sh$/\1/p' | sort | uniq -d | paste -sd' ')
	if [ -z "$dups" ]; then
		echo "ok - suite: every test file has a number of its own"
		pass=$((pass + 1))
	else
		echo "not ok - suite: test numbers used by two files or more: $dups"
		fail=$((fail + 1))
	fi
fi

tracefs_state >"$after"
if diff -u "$before" "$after" >/dev/null; then
	echo "ok - suite: tracefs is as the suite found it"
	pass=$((pass + 1))
else
	echo "not ok - suite: tracefs is as the suite found it"
	diff -u "$before" "$after" | sed 's/^/#   /'
	fail=$((fail + 1))
fi
echo "$tier: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
