// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: `tr top -b -i FILE`, top's replay of a trace.dat: the
 * decoder, the model and the views over the file's events.  The hash of
 * the input's tail picks the view, the interval (0.1 s or 1 s), the number
 * of refreshes (all of them, or 1 to 3), text or JSON and the latency view
 * per task or per CPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"
#include "tr.h"
#include "fuzz-common.h"

static void run(const char *path, uint32_t h)
{
	static const char *const views[] = { "tasks", "cpus", "events", "syscalls", "irqs",
					     "latency", "tasks", "events" };
	FILE *out = fopen("/dev/null", "w");
	struct top_opts o = {
		.input = path, .batch = true, .outf = out,
		.interval_ns = h & 1 ? 100000000ull : 1000000000ull,
		.view = top_view_find(views[(h >> 1) % 8]),
		.iterations = (h >> 4) % 4,
		.out = (h >> 6) & 1 ? TOP_OUT_JSON : TOP_OUT_TEXT,
		.lat_by_task = (h >> 7) & 1,
	};

	if (!out)
		abort();
	if (!o.view)
		o.view = top_view_find("tasks");
	top_replay_run(&o);
	fclose(out);
	tr_detail_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);

	/* The replay of the hostile set: every interval of the tasks view; two of latency, JSON. */
	if (getenv("TR_FUZZ_ALL_MODES")) {
		run(path, 0);
		run(path, 1 | 5 << 1 | 2 << 4 | 1 << 6);
		return 0;
	}
	run(path, fuzz_pick(data, size));
	return 0;
}
