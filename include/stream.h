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

#include "fmt.h"
#include "tfs.h"

struct stream_opts {
	struct tfs_inst *inst;
	struct fmt_opts fo;
	const struct strv *filters;	/* libtraceevent filter expressions, as report -F */
	bool invert;
};

struct stream;
struct rec;
struct rec_opts;

/* How often the merged batches print (session tick_ms). */
#define STREAM_BATCH_MS 100

/*
 * The formatting side: event formats of the running kernel, output and
 * filters.  Then, in this order: stream_rec_opts() for the session's
 * readers, session_open(), stream_attach(session_rec()), session_run() with
 * stream_tick as the tick (every STREAM_BATCH_MS, and when stream_fd() is
 * readable), and stream_finish() for what the readers handed over last.
 * 0, or -errno with tr_fail().
 */
int stream_new(const struct stream_opts *o, FILE *out, struct stream **out_s);
void stream_rec_opts(struct stream *s, struct rec_opts *ro);
void stream_attach(struct stream *s, struct rec *rec);
/* Readable when the readers handed over pages. */
int stream_fd(const struct stream *s);
/* A session tick: format the batch merged by time.  1 when the output's reader went away. */
int stream_tick(void *arg, bool fd_ready);
/* The last batch; warns once about corrupt sub-buffers that were skipped. */
int stream_finish(struct stream *s);
void stream_free(struct stream *s);

#endif
