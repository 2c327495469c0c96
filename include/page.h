/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ring buffer's sub-buffer format (trace_pipe_raw pages, and the pages
 * of a trace.dat file): one parser, used by the recorder, the file reader,
 * stream, hist and top.  Nothing here allocates, prints or trusts a length
 * it has not checked against the buffer it was given.
 */
#ifndef TR_PAGE_H
#define TR_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the page header's fields are (from header_page) and the page size. */
struct tfile_layout {
	bool big_endian;
	int ts_off;		/* u64 timestamp of the first event */
	int commit_off;		/* local_t commit: data size and the missed-event flags */
	int commit_size;	/* 4 or 8: the kernel's long */
	int data_off;		/* where the events start */
	uint32_t page_size;	/* the whole sub-buffer, header included */
};

/*
 * An n-byte (1 to 8) unsigned number at p in the given byte order: the one
 * reader of a file's and a kernel's numbers (page headers, events, the
 * trace.dat sections).
 */
static inline uint64_t tfile_get(const void *p, int n, bool big_endian)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	if (big_endian)
		for (int i = 0; i < n; i++)
			v = v << 8 | b[i];
	else
		for (int i = n - 1; i >= 0; i--)
			v = v << 8 | b[i];
	return v;
}

/* Parse the header_page format text; 0 or -EINVAL. */
int tfile_layout_parse(struct tfile_layout *l, const char *text, size_t len, bool big_endian,
		       uint32_t page_size);

/* One event: the record as the kernel wrote it, with its absolute time. */
struct tfile_event {
	uint64_t ts;
	uint64_t raw_ts;	/* as in the file, before any TSC2NSEC or offset option */
	void *data;
	uint32_t size;
	int cpu;
	/* Events lost just before this one: 0, the count, or -1 when unknown. */
	int64_t missed;
};

/* Commit-field flags of a sub-buffer that lost events. */
#define TFILE_MISSED_EVENTS (1ULL << 31)
#define TFILE_MISSED_STORED (1ULL << 30)

/* A walk over the events of one sub-buffer. */
struct tfile_page {
	const struct tfile_layout *l;
	const uint8_t *buf;
	uint32_t pos, end;	/* offsets into buf */
	uint64_t ts;
	int64_t missed;		/* pending for the next event returned */
};

/*
 * Start on a sub-buffer of len bytes (at most l->page_size).  Returns 0, or
 * -EBADMSG when its commit size does not fit, with *bad_off set to the
 * offset within buf of the bad field.
 */
int tfile_page_load(struct tfile_page *pg, const struct tfile_layout *l, const void *buf,
		    size_t len, uint32_t *bad_off);
/*
 * Next data event: 1 and *ev filled, 0 at the end of the sub-buffer, or
 * -EBADMSG with *bad_off at the malformed event header.
 */
int tfile_page_next(struct tfile_page *pg, struct tfile_event *ev, uint32_t *bad_off);

/*
 * The header of one sub-buffer alone (what the recorder needs to count
 * losses without walking events): 0, or -EBADMSG when the commit size does
 * not fit in len.  missed: 0, the stored count, or -1 (lost, count unknown).
 */
struct tfile_page_head {
	uint64_t ts;
	uint32_t size;		/* bytes of event data */
	int64_t missed;
};
/*
 * The commit word of a sub-buffer the kernel may still be writing (a mapped
 * ring buffer of the running kernel: its byte order and long size), loaded
 * atomically with acquire order, so the data up to the size it gives is
 * there to read: the data size in *size, the TFILE_MISSED_* flags in *flags.
 */
void tfile_page_commit(const struct tfile_layout *l, const void *page, uint32_t *size,
		       uint32_t *flags);
int tfile_page_head(const struct tfile_layout *l, const void *buf, size_t len,
		    struct tfile_page_head *h);

/*
 * Walk whole sub-buffers (len a multiple of l->page_size, as the recorder's
 * callback sink hands them) and call fn for each event, with ev->cpu set.
 * The one rule for a corrupt sub-buffer: its events up to the bad spot are
 * delivered, the rest of it is skipped and counted in st->bad_pages, and the
 * walk goes on with the next one; the caller reports the count once.  fn
 * returns 0, or non-zero to stop the walk (returned as is).
 */
struct tfile_walk_stats {
	uint64_t pages, events;
	uint64_t bad_pages;	/* corrupt sub-buffers (partly) skipped */
	uint64_t missed_pages;	/* sub-buffers flagged as following lost events */
	uint64_t missed_events;	/* the counts the kernel stored */
	/*
	 * Events lost before the events delivered, as each sub-buffer's first
	 * event carries them: its stored count, or one for a flag without a
	 * count (what a consumer of the events would add up).
	 */
	uint64_t lost;
};
typedef int (*tfile_event_fn)(void *arg, const struct tfile_event *ev);
int tfile_pages_walk(const struct tfile_layout *l, int cpu, const void *pages, size_t len,
		     tfile_event_fn fn, void *arg, struct tfile_walk_stats *st);

/*
 * Building sub-buffers from events, for files cut out of others (tr split):
 * the kernel's own encoding, with a time-extend record where a delta needs
 * more than 27 bits.  Start a page on a buffer of l->page_size bytes, add
 * events while tfile_page_out_add() returns 1; at 0 the page is full (or
 * the event must open a page: it follows lost events, or goes back in
 * time), so finish it, write it out and start the next.  -EINVAL: the event
 * fits in no page.  An event's missed count becomes the page's lost-events
 * flag, as the kernel sets it.
 */
struct tfile_page_out {
	const struct tfile_layout *l;
	uint8_t *buf;
	uint32_t pos;		/* where the next event goes */
	uint64_t ts;		/* of the last event added */
	int64_t missed;		/* of the page's first event */
	bool empty;
};
void tfile_page_out_start(struct tfile_page_out *o, const struct tfile_layout *l, void *buf);
int tfile_page_out_add(struct tfile_page_out *o, uint64_t ts, const void *data, uint32_t size,
		       int64_t missed);
void tfile_page_out_finish(struct tfile_page_out *o);

#endif
