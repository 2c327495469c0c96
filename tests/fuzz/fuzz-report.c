// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the trace.dat reader and the formatter, as `tr report` runs
 * them.  The input is a whole trace.dat; the hash of its tail picks text,
 * raw text, JSON, CSV, --stat, --first/--last-event, --events, --mem or
 * --profile (by task or by name).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "fuzz-common.h"

static void run(const char *path, uint32_t h)
{
	struct fmt_report r = { 0 };
	FILE *out;

	strv_push(&r.inputs, path);
	switch (h % 11) {
	case 0: break;
	case 1: r.plugins = true; break;	/* libtraceevent's plugins print these */
	case 2: r.fo.raw = true; r.fo.ns = true; break;
	case 3: r.fo.kind = FMT_JSON; break;
	case 4: r.fo.kind = FMT_CSV; break;
	case 5: r.stat = true; break;
	case 6: r.first = r.last = true; break;
	case 7: r.list_events = true; break;
	case 8: r.mem = true; break;
	case 9: r.profile = true; break;
	case 10: r.profile = r.by_comm = true; break;
	}
	if (h & 0x100)
		strv_push(&r.filters, "common_pid != 1");
	out = fopen("/dev/null", "w");
	fmt_report_run(&r, out);
	fclose(out);
	strv_free(&r.inputs);
	strv_free(&r.filters);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);

	/* The replay of the hostile set wants every mode of each file, not the hash's one. */
	if (getenv("TR_FUZZ_ALL_MODES")) {
		for (uint32_t m = 0; m < 11; m++)
			run(path, m | (m & 1 ? 0x100 : 0));
		return 0;
	}
	run(path, fuzz_pick(data, size));
	return 0;
}
