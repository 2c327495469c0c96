// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: `tr split`.  The input is a whole trace.dat; the hash of its
 * tail picks the cut (per CPU, every N events, or time ranges absolute or
 * relative to the first event, open at either end) and the version and
 * compression of the parts.  The parts go to a directory of their own,
 * emptied after each input.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfile.h"
#include "tfile-edit.h"
#include "tr.h"
#include "fuzz-common.h"

static char dir[64], prefix[80];

static void done(void *arg, const struct tfile_part *p)
{
	(void)arg;
	unlink(p->path);
}

/* big: parts of 100,000 events (the replay's: a part every few events of a big file is slow). */
static void run(const char *path, uint32_t h, bool big)
{
	struct tfile_range ranges[3] = { 0 };
	struct tfile_split_opts o = { 0 };
	struct tfile *tf;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/tr-fuzz-split.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(prefix, sizeof(prefix), "%s/p", dir);
	}
	o.prefix = prefix;
	o.edit.tmp_dir = dir;
	o.edit.version = (h & 3) == 0 ? 6 : (h & 3) == 1 ? 7 : 0;
	o.edit.zip = o.edit.version == 7 ? (int)((h >> 2) % 3) : -1;
	switch ((h >> 4) % 3) {
	case 0:
		o.mode = TFILE_SPLIT_CPU;
		break;
	case 1:
		o.mode = TFILE_SPLIT_EVENTS;
		o.events = big ? 100000 : 1 + (h >> 6) % 64;
		break;
	default:
		/* Up to three ranges, of a few ns to seconds, some open, some relative. */
		o.mode = TFILE_SPLIT_TIME;
		o.ranges = ranges;
		o.nranges = 1 + (h >> 6) % 3;
		for (size_t i = 0; i < o.nranges; i++) {
			uint32_t g = h >> (8 + 7 * i);
			uint64_t unit = g & 4 ? 1000000000ull : 1000ull;

			ranges[i] = (struct tfile_range){
				.start = (g & 3) * unit, .end = ((g & 3) + 1 + (g >> 3 & 1)) * unit,
				.start_rel = !(g & 0x20), .end_rel = !(g & 0x20),
				.has_start = !(g & 0x40), .has_end = true };
		}
		break;
	}
	if (tfile_open(path, TFILE_KEEP_FORMATS | TFILE_LAZY_KALLSYMS, &tf))
		return;
	tfile_split(tf, &o, done, NULL);
	tfile_close(tf);
	/* A part cut short by an error is not reported done: whatever is left goes too. */
	for (int i = 1; i <= 200; i++) {
		char p[128];

		snprintf(p, sizeof(p), "%s.%d", prefix, i);
		unlink(p);
	}
	for (int c = 0; c < 64; c++) {
		char p[128];

		snprintf(p, sizeof(p), "%s.cpu%d", prefix, c);
		unlink(p);
	}
	tr_detail_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);

	/*
	 * The replay of the hostile set: two narrow time ranges, which read
	 * every event and write few.  (Per CPU and parts of N events are the
	 * fuzzer's: rewriting the set's 256 MB decompression bomb is 40 s of
	 * CPU under ASan, past the replay's limit.)
	 */
	if (getenv("TR_FUZZ_ALL_MODES")) {
		run(path, 2 << 4 | 1 << 6 | 2, false);
		return 0;
	}
	run(path, fuzz_pick(data, size), false);
	return 0;
}
