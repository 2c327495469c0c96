#!/bin/bash
# KernelShark opens tr's files: its own loader, libkshark (Debian's
# kernelshark 2.2.1, installed by make deps-test), loads every event of a
# recording, v7 (zstd, the default) and v6, from the instance's buffer.
# The GUI itself is that library plus Qt drawing; the library is what
# decides whether a file loads, and it needs no display.
. "$(dirname "$0")/lib.sh"

test_requires instances events

# kshark_entries FILE: the entries libkshark loads from each of FILE's
# buffers, "BUFFER ENTRIES" per line (stream 0 is the top-level one).
cat >"$TEST_TMP/kshark.py" <<\EOF
import ctypes, sys

k = ctypes.CDLL("libkshark.so.2")
k.kshark_instance.argtypes = [ctypes.c_void_p]
k.kshark_instance.restype = ctypes.c_bool
k.kshark_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
k.kshark_tep_init_all_buffers.argtypes = [ctypes.c_void_p, ctypes.c_int]
k.kshark_load_entries.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
k.kshark_load_entries.restype = ctypes.c_ssize_t
ctx = ctypes.c_void_p()
assert k.kshark_instance(ctypes.byref(ctx))
sd = k.kshark_open(ctx, sys.argv[1].encode())
if sd < 0:
    sys.exit("kshark_open failed: %d" % sd)
n = k.kshark_tep_init_all_buffers(ctx, sd)
if n < 0:
    sys.exit("kshark_tep_init_all_buffers failed: %d" % n)
for s in range(sd, sd + n + 1):
    rows = ctypes.c_void_p()
    print(s, k.kshark_load_entries(ctx, s, ctypes.byref(rows)))
EOF

if ! python3 -c 'import ctypes; ctypes.CDLL("libkshark.so.2")' 2>/dev/null; then
	test_skip_all="no libkshark.so.2 (make deps-test installs kernelshark)"
fi

for v in 7 6; do
	test_expect_success "KernelShark loads every event of a version $v file" '
		inst=$(test_instance) &&
		tr record -q -B "$inst" --file-version '$v' -e ftrace:print -e sched:sched_process_exit \
			-o v'$v'.dat \
			sh -c "for i in \$(seq 1 2000); do echo \"mark \$i\" >$TRACEFS/instances/$inst/trace_marker; done" &&
		tr report -i v'$v'.dat >out &&
		events=$(grep -c "^ *[^ ].* \[[0-9]*\] *[0-9.]*: " out) &&
		test "$(grep -c "tracing_mark_write: mark" out)" = 2000 &&
		python3 "$TEST_TMP/kshark.py" v'$v'.dat >loaded &&
		cat loaded &&
		# The top level holds nothing (tr recorded an instance); the
		# instance buffer holds all of it.
		test_grep -qx "0 0" loaded &&
		test_grep -qx "1 $events" loaded
	'
done

test_done
