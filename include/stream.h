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
	/*
	 * The longest an event is held back waiting for the other CPUs'
	 * readers (--max-delay); 0: none, each batch is merged on its own.
	 */
	uint64_t max_delay_ns;
};

/* How often the merged batches print (the session's tick), at most. */
#define STREAM_BATCH_MS 100
/* --max-delay's default. */
#define STREAM_MAX_DELAY_NS 100000000ull

/*
 * The whole of tr stream: the event formats of the running kernel, the
 * filters, the session with its readers, and every event printed to out
 * as it arrives, until the session ends; then what the readers handed
 * over last.  A reader of out that went away ends it quietly.  Warns once
 * about corrupt sub-buffers that were skipped.  0, or -errno with tr_fail().
 */
int stream_run(const struct stream_opts *o, FILE *out);

/*
 * The order across CPUs (stream-order.c): each event is held until no
 * other CPU can still hand over an earlier one (it has handed over a later
 * one, or its reader found its buffer empty after the event came), or
 * until it has been held max_delay_ns; then the events come out in time
 * order.  A reader that lags longer than that can still print out of
 * order.  seq orders the hand-overs and idle reports (a counter the caller
 * increments for each); now_ns is a monotonic clock.
 *
 *   stream_order_add(o, &ev, seq, now);	// each event of a hand-over
 *   stream_order_idle(o, cpu, seq);		// CPU's reader found it empty
 *   stream_order_due(o, now, at_end);		// then, at each tick:
 *   while (stream_order_next(o, &ev) == 1)	// ev valid until the next add
 *	print(&ev);
 *
 * A CPU with no reader is reported idle with seq UINT64_MAX.
 */
struct stream_order;

struct stream_order *stream_order_new(int ncpus, uint64_t max_delay_ns);
void stream_order_free(struct stream_order *o);
void stream_order_add(struct stream_order *o, const struct tfile_event *ev, uint64_t seq,
		      uint64_t now_ns);
void stream_order_idle(struct stream_order *o, int cpu, uint64_t seq);
/* Mark what has been held max_delay_ns by now_ns for release (everything with all). */
void stream_order_due(struct stream_order *o, uint64_t now_ns, bool all);
/* The next event that may print: 1 with *ev, 0 when the rest must wait. */
int stream_order_next(struct stream_order *o, struct tfile_event *ev);
/* Events held now. */
size_t stream_order_held(const struct stream_order *o);

#endif
