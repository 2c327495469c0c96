/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live pipeline behind tr stream: the recorder's per-CPU readers hand
 * whole sub-buffers to a queue per CPU; the calling thread takes what has
 * arrived every few milliseconds, merges the CPUs by timestamp and formats
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

/* Open the readers (parked), so their thread ids can be filtered out. */
int stream_open(const struct stream_opts *o, FILE *out, struct stream **out_s);
size_t stream_tids(const struct stream *s, pid_t *tids, size_t max);
/*
 * Start reading and formatting; returns when tr_stop is set (or done() says
 * so, checked between batches), after printing what was left.  0, or -errno
 * (-EPIPE when the reader of out went away) with tr_fail().
 */
int stream_run(struct stream *s, bool (*done)(void *arg), void *arg);
void stream_free(struct stream *s);

#endif
