/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live pipeline behind tr stream: the session's per-CPU readers hand
 * whole sub-buffers to a queue per CPU; at each session tick the calling
 * thread takes what has arrived, merges the CPUs by timestamp and formats
 * each event as tr report would.  No file is written.
 */
#ifndef TR_STREAM_H
#define TR_STREAM_H

#include <stdio.h>

#include "evsel.h"
#include "fmt.h"
#include "setup.h"
#include "tfs.h"

struct stream_opts {
	struct tfs_inst *inst;
	struct fmt_opts fo;
	const struct strv *filters;	/* libtraceevent filter expressions, as report -F */
	bool invert;
	/* The session's (session.h): set-up, events, --no-filter, --follow, COMMAND, --duration. */
	const struct tr_setup *setup;
	const struct evsel_list *events;
	bool no_filter, follow;
	char **command;
	uint64_t duration_ns;
};

/* How often the merged batches print (the session's tick). */
#define STREAM_BATCH_MS 100

/*
 * The whole of tr stream: the event formats of the running kernel, the
 * filters, the session with its readers, and every event printed to out
 * as it arrives, until the session ends; then what the readers handed
 * over last.  A reader of out that went away ends it quietly.  Warns once
 * about corrupt sub-buffers that were skipped.  0, or -errno with tr_fail().
 */
int stream_run(const struct stream_opts *o, FILE *out);

#endif
