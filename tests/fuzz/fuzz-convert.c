// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: `tr convert`, the trace.dat rewriter.  The input is a whole
 * trace.dat; the hash of its tail picks the version (6 or 7) and the
 * compression (none, zstd, zlib) to write.  A file tr wrote must be one tr
 * reads: the output is opened again and every event of every buffer read,
 * and a refusal there is a finding (abort).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tfile.h"
#include "tfile-edit.h"
#include "tr.h"
#include "fuzz-common.h"

/* Every event of every buffer of the file at path; 0, or the reader's error. */
static int read_all(const char *path)
{
	struct tfile *tf;
	int r = tfile_open(path, TFILE_NO_KALLSYMS, &tf);

	if (r)
		return r;
	for (int b = 0; !r && b < tfile_nbuffers(tf); b++) {
		const struct tfile_buffer *buf = tfile_buffer(tf, b);

		for (int c = 0; !r && !buf->latency && c < buf->ncpus; c++) {
			struct tfile_cursor *cur;
			struct tfile_event ev;

			r = tfile_cursor_open(tf, b, c, &cur);
			if (r)
				break;
			while ((r = tfile_cursor_next(cur, &ev)) == 1)
				;
			tfile_cursor_free(cur);
		}
	}
	tfile_close(tf);
	return r < 0 ? r : 0;
}

static void run(const char *path, uint32_t h)
{
	static int out = -1;
	static char out_path[64];
	struct tfile_edit_opts o = { .version = h & 1 ? 7 : 6, .zip = TFW_ZIP_NONE,
				     .tmp_dir = "/tmp" };
	struct tfw_result res = { 0 };
	struct tfile *tf;
	int in_ok;

	if (out < 0) {
		out = memfd_create("tr-fuzz-out", MFD_CLOEXEC);
		if (out < 0)
			abort();
		snprintf(out_path, sizeof(out_path), "/proc/self/fd/%d", out);
	}
	if (o.version == 7)
		o.zip = (h >> 1) % 3 == 0 ? TFW_ZIP_NONE : (h >> 1) % 3 == 1 ? TFW_ZIP_ZSTD
									: TFW_ZIP_ZLIB;
	if (tfile_open(path, TFILE_KEEP_FORMATS | TFILE_LAZY_KALLSYMS, &tf))
		return;
	if (ftruncate(out, 0) || lseek(out, 0, SEEK_SET))
		abort();
	in_ok = tfile_convert(tf, out, &o, &res) == 0;
	tfile_close(tf);
	/* An input whose own events cannot all be read may give an output that cannot either. */
	if (in_ok && read_all(out_path) && !read_all(path)) {
		fprintf(stderr, "fuzz-convert: tr cannot read what it wrote (v%d): %s\n",
			o.version, tr_failure() ? tr_failure() : "?");
		abort();
	}
	tr_detail_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);

	/* The replay of the hostile set: version 6, and 7 with zstd. */
	if (getenv("TR_FUZZ_ALL_MODES")) {
		run(path, 0);
		run(path, 3);
		return 0;
	}
	run(path, fuzz_pick(data, size));
	return 0;
}
