/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live pipeline behind tr stream: the session's per-CPU readers hand
 * whole sub-buffers to a bounded queue per CPU; a formatting thread takes
 * what has arrived, merges the CPUs by timestamp and formats each event
 * as tr report would.  No file is written.
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
/*
 * The queues between the readers and the formatting draw their sub-buffers
 * (4 KiB each on most kernels) from one pool of STREAM_QUEUE_PAGES to
 * STREAM_QUEUE_MAX a CPU, STREAM_QUEUE_BYTES in all where that is between
 * (1024 sub-buffers, 4 MiB, on 2 CPUs), so that a busy CPU can use what
 * quiet ones do not.  It is touched only as deep as the queues get.  With
 * 256 KiB a CPU, a million markers on a loaded 2-CPU host lost a quarter
 * in one run; with 2 MiB a CPU, each its own, a few in a thousand.
 */
#define STREAM_QUEUE_PAGES 64
#define STREAM_QUEUE_MAX 512
#define STREAM_QUEUE_BYTES (16u << 20)
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
 * The hand-over and the order across CPUs (stream-order.c): a queue of
 * sub-buffers per CPU between its reader and the formatting thread, which
 * walks them in place, all drawn from one bounded pool in which each CPU
 * keeps a few for itself.  A reader that finds no room waits (the kernel's
 * ring buffer holds what comes meanwhile, and reports what it could not
 * hold as lost events on the next sub-buffer).
 *
 * Each event is held until no other CPU can still hand over an earlier one
 * (it has handed over a later one, or its reader found its buffer empty
 * after the event came), or until it has been held max_delay_ns; then the
 * events come out in time order.  A reader that lags longer than that can
 * still print out of order.  now_ns is a monotonic clock.
 *
 *   // each CPU's reader thread:
 *   stream_order_put(o, cpu, page, now, true);	// each sub-buffer; waits for room
 *   stream_order_idle(o, cpu);			// it found its buffer empty
 *   // the formatting thread:
 *   while (!stream_order_wait(o, ms)) {		// work, or ms passed
 *	stream_order_due(o, now, false);	// what is queued now may go
 *	while (stream_order_next(o, &ev) == 1)	// ev valid until the next call
 *		print(&ev);
 *   }
 *   stream_order_due(o, now, true);		// closed: everything, in order
 *   ...
 *
 * A CPU with no reader is marked with stream_order_no_reader().  The
 * order's own calls are the formatting thread's alone; put and idle may
 * come from any thread, one per CPU.
 */
struct stream_order;

/* A pool of cap sub-buffers a CPU, of l->page_size bytes (l is kept, not copied). */
struct stream_order *stream_order_new(int ncpus, const struct tfile_layout *l, size_t cap,
				      uint64_t max_delay_ns);
void stream_order_free(struct stream_order *o);
/*
 * Copy one sub-buffer into cpu's queue.  When the pool has no room for it:
 * wait for room (wait), or -EAGAIN.  After stream_order_discard() the page
 * is dropped.  0, or -EINVAL for a CPU out of range.
 */
int stream_order_put(struct stream_order *o, int cpu, const void *page, uint64_t now_ns,
		     bool wait);
void stream_order_idle(struct stream_order *o, int cpu);
void stream_order_no_reader(struct stream_order *o, int cpu);
/*
 * Wait until the first sub-buffer comes, or an eighth of the pool is new,
 * or a reader waits for room and something changed, or a CPU the last
 * drain lacked reported its buffer empty, or ms pass, or the queue is
 * closed.  True once closed (nothing more will be put).
 */
bool stream_order_wait(struct stream_order *o, unsigned ms);
void stream_order_close(struct stream_order *o);
/* From now on puts never wait and drop their pages (the output went away). */
void stream_order_discard(struct stream_order *o);
/*
 * Take what is queued now for the calls of stream_order_next() that follow,
 * and mark what has been held max_delay_ns by now_ns for release
 * (everything with all).
 */
void stream_order_due(struct stream_order *o, uint64_t now_ns, bool all);
/* The next event that may print: 1 with *ev, 0 when the rest must wait. */
int stream_order_next(struct stream_order *o, struct tfile_event *ev);
/* Events queued now (walks them: for tests). */
size_t stream_order_held(struct stream_order *o);
/*
 * Did the last drain stop waiting for cpu's word (a later event, or its
 * reader's report of an empty buffer)?  Its idle report then also ends
 * stream_order_wait().
 */
bool stream_order_lacks(struct stream_order *o, int cpu);
/* The hand-overs so far and the readers' waits for room (TR_DEBUG=stream). */
struct stream_order_stats {
	uint64_t puts, waits, wait_ns, max_wait_ns;
	size_t max_fill;	/* the most sub-buffers of the pool in use at once */
};
void stream_order_stats(struct stream_order *o, struct stream_order_stats *st);
/* Corrupt sub-buffers (partly) skipped so far. */
uint64_t stream_order_bad_pages(const struct stream_order *o);

#endif
