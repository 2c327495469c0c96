// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --tracer-opt KEY=VALUE: the latency tracers' settings, which file each
 * goes to and the value written, and the refusals that name the bad part.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "setup.h"
#include "unit.h"

static char *file_value(const char *tracer, const char *kv)
{
	const char *file;
	char *value;

	if (setup_tracer_opt(tracer, kv, &file, &value))
		return xasprintf("ERR %s", tr_failure());
	char *out = xasprintf("%s=%s", file, value);

	free(value);
	return out;
}

TEST(hwlat)
{
	CHECK_OWNED(file_value("hwlat", "width=500"), "hwlat_detector/width=500");
	CHECK_OWNED(file_value("hwlat", "window=2ms"), "hwlat_detector/window=2000");
	CHECK_OWNED(file_value("hwlat", "window=1s"), "hwlat_detector/window=1000000");
	CHECK_OWNED(file_value("hwlat", "threshold=10us"), "tracing_thresh=10");
	CHECK_OWNED(file_value("hwlat", "mode=per-cpu"), "hwlat_detector/mode=per-cpu");
	CHECK_OWNED(file_value("hwlat", "cpus=0-1,3"), "tracing_cpumask=0000000b");
	CHECK_OWNED(file_value("hwlat", "cpus=32"), "tracing_cpumask=00000001,00000000");
	CHECK_OWNED(file_value("hwlat", "cpus=0,33"), "tracing_cpumask=00000002,00000001");
}

TEST(osnoise_timerlat)
{
	CHECK_OWNED(file_value("osnoise", "cpus=0-1,3"), "osnoise/cpus=0-1,3");
	CHECK_OWNED(file_value("osnoise", "period=100ms"), "osnoise/period_us=100000");
	CHECK_OWNED(file_value("osnoise", "runtime=50000"), "osnoise/runtime_us=50000");
	CHECK_OWNED(file_value("osnoise", "stop_tracing=20"), "osnoise/stop_tracing_us=20");
	CHECK_OWNED(file_value("osnoise", "stop_tracing_total=1ms"),
		    "osnoise/stop_tracing_total_us=1000");
	CHECK_OWNED(file_value("osnoise", "threshold=5"), "tracing_thresh=5");
	/* timerlat's period is its own file. */
	CHECK_OWNED(file_value("timerlat", "period=1000"), "osnoise/timerlat_period_us=1000");
	CHECK_OWNED(file_value("timerlat", "print_stack=300us"), "osnoise/print_stack=300");
	CHECK_OWNED(file_value("timerlat", "cpus=1"), "osnoise/cpus=1");
}

TEST(refusals)
{
	char *s;

	s = file_value(NULL, "width=5");
	CHECK(strstr(s, "goes with -p hwlat, osnoise or timerlat"));
	free(s);
	s = file_value("function", "width=5");
	CHECK(strstr(s, "goes with -p"));
	free(s);
	CHECK_OWNED(file_value("osnoise", "width=5"),
		    "ERR osnoise has no setting 'width' (cpus, period, runtime, stop_tracing, "
		    "stop_tracing_total, threshold)");
	s = file_value("timerlat", "runtime=5");
	CHECK(strstr(s, "timerlat has no setting 'runtime'"));
	free(s);
	s = file_value("hwlat", "width");
	CHECK(strstr(s, "needs a value"));
	free(s);
	s = file_value("hwlat", "width=");
	CHECK(strstr(s, "needs a value"));
	free(s);
	s = file_value("hwlat", "width=1.0005ms");
	CHECK(strstr(s, "bad width '1.0005ms'"));
	free(s);
	s = file_value("hwlat", "width=1500ns");
	CHECK(strstr(s, "bad width"));
	free(s);
	s = file_value("hwlat", "width=-5");
	CHECK(strstr(s, "bad width"));
	free(s);
	s = file_value("hwlat", "mode=fast");
	CHECK(strstr(s, "bad hwlat mode 'fast'"));
	free(s);
	s = file_value("osnoise", "cpus=3-1");
	CHECK(strstr(s, "bad cpus '3-1'"));
	free(s);
}

UNIT_MAIN(T(hwlat), T(osnoise_timerlat), T(refusals))
