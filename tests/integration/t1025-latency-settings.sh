#!/bin/bash
# Latency tracers' settings (VM tier): --tracer-opt for hwlat, osnoise and
# timerlat, written to the kernel's files before the tracer starts, seen by
# the tracer while it runs, and put back after tr record and after tr reset.
. "$(dirname "$0")/lib.sh"
test_kernels full
test_requires latency

T=$TRACEFS
HW="$T/hwlat_detector/width $T/hwlat_detector/window $T/hwlat_detector/mode $T/tracing_thresh $T/tracing_cpumask"
OS="$T/osnoise/period_us $T/osnoise/runtime_us $T/osnoise/cpus $T/osnoise/stop_tracing_us $T/osnoise/stop_tracing_total_us $T/osnoise/timerlat_period_us $T/osnoise/print_stack $T/tracing_thresh"

if grep -qw hwlat $T/available_tracers && test -d $T/hwlat_detector; then
	test_expect_success 'hwlat: width, window, mode, threshold and cpus while it runs, then back' '
		cat $HW >before &&
		tr record -q -p hwlat --tracer-opt width=200 --tracer-opt window=300ms \
			--tracer-opt mode=per-cpu --tracer-opt threshold=5 --tracer-opt cpus=0 \
			-o hw.dat -- sh -c "sleep 0.4; cat $HW >during" &&
		printf "200\n300000\n" >expect &&
		head -2 during >got && test_cmp expect got &&
		sed -n 3p during | test_grep -x "none round-robin \[per-cpu\]" &&
		sed -n 4p during | test_grep -x 5 &&
		sed -n 5p during | test_grep -x "0*1" &&
		cat $HW >after &&
		test_cmp before after
	'

	test_expect_success 'hwlat: tr start keeps the settings until tr reset' '
		cat $HW >before &&
		test_when_finished "tr reset >/dev/null 2>&1 || :" &&
		tr start -p hwlat --tracer-opt window=2s --tracer-opt width=1ms &&
		test_grep -x 1000 $T/hwlat_detector/width &&
		test_grep -x 2000000 $T/hwlat_detector/window &&
		tr reset &&
		cat $HW >after &&
		test_cmp before after
	'

	test_expect_success 'hwlat: a window below the width is refused with the rule, nothing changed' '
		cat $HW >before &&
		w=$(cat $T/hwlat_detector/width) &&
		test_expect_code 1 tr start -p hwlat --tracer-opt window=$((w / 2)) 2>err &&
		test_grep "cannot set hwlat_detector/window to $((w / 2)) (--tracer-opt .window=$((w / 2)).): Invalid argument (the kernel keeps width below window" err &&
		cat $HW >after &&
		test_cmp before after &&
		test_grep -x "nop" $T/current_tracer
	'
fi

if grep -qw osnoise $T/available_tracers; then
	test_expect_success 'osnoise: cpus, period, runtime, stop_tracing and threshold, then back' '
		cat $OS >before &&
		tr record -q -p osnoise --tracer-opt cpus=0 --tracer-opt period=200ms \
			--tracer-opt runtime=20ms --tracer-opt stop_tracing=900000 \
			--tracer-opt stop_tracing_total=1s --tracer-opt threshold=50 \
			-o os.dat -- sh -c "sleep 0.3; cat $OS >during" &&
		sed -n "1p;2p;3p;4p;5p;8p" during >got &&
		printf "200000\n20000\n0\n900000\n1000000\n50\n" >expect &&
		test_cmp expect got &&
		cat $OS >after &&
		test_cmp before after
	'
fi

if grep -qw timerlat $T/available_tracers; then
	test_expect_success 'timerlat: its own period, print_stack and cpus, then back' '
		cat $OS >before &&
		tr record -q -p timerlat --tracer-opt period=2ms --tracer-opt print_stack=500 \
			--tracer-opt cpus=1 -o tl.dat -- sh -c "sleep 0.3; cat $OS >during" &&
		sed -n "3p;6p;7p" during >got &&
		printf "1\n2000\n500\n" >expect &&
		test_cmp expect got &&
		cat $OS >after &&
		test_cmp before after
	'
fi

test_expect_success 'a setting of another tracer, or without -p, is a usage error naming it' '
	test_expect_code 64 tr start -p osnoise --tracer-opt width=5 2>err &&
	test_grep "osnoise has no setting .width. (cpus, period, runtime, stop_tracing, stop_tracing_total, threshold)" err &&
	test_expect_code 64 tr record --tracer-opt width=5 -o x.dat true 2>err &&
	test_grep "goes with -p hwlat, osnoise or timerlat" err
'

test_done
