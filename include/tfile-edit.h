/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * New trace.dat files made from one that exists: tr convert (the same
 * trace in the other file version or compression) and tr split (parts of
 * it by time, event count or CPU).  Both read with tfile.h and write with
 * tfw.h, so everything trace-cmd reads survives: the header files, every
 * format, kallsyms, printk formats, saved cmdlines, the options describing
 * the recording (date, offset, TSC2NSEC, uname, version, clock, stats...),
 * every buffer (instance) and the lost-event marks.
 *
 * Errors: 0 or a negative errno, with the message left by tr_fail().
 */
#ifndef TR_TFILE_EDIT_H
#define TR_TFILE_EDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "tfile.h"
#include "tfw.h"

struct tfile;

/*
 * Fill m (zeroed first) with everything of tf but the page data: header
 * files, formats, kallsyms, printk formats, cmdlines, the recording's
 * options, CPU count, page size, clock and long size.  tf must be opened
 * with TFILE_KEEP_FORMATS | TFILE_LAZY_KALLSYMS.  -ENOTSUP (with the
 * reason) for what tr cannot write back: a file of the other byte order,
 * or buffers of different sub-buffer sizes.
 */
int tfile_meta(struct tfile *tf, struct tfw_meta *m);

/* The version and compression to write; version 0 or zip -1: as the input's. */
struct tfile_edit_opts {
	int version;		/* 6 or 7 */
	int zip;		/* enum tfw_zip, v7 only */
	const char *tmp_dir;	/* for staging decompressed pages; NULL: TMPDIR or /tmp */
};

/*
 * Write all of tf to fd in o's version and compression.  Page data is
 * copied as it is (decompressed and compressed again as needed), so the
 * events, their order and their lost-event marks are the input's.  A
 * latency file's text is written whole, in either version (v7: a
 * BUFFER_TEXT section, compressed in chunks as trace-cmd writes it).
 * res: the output's size.
 */
int tfile_convert(struct tfile *tf, int fd, const struct tfile_edit_opts *o,
		  struct tfw_result *res);

/* How tfile_split() cuts. */
enum tfile_split_mode {
	TFILE_SPLIT_TIME,	/* one part per range [start, end) */
	TFILE_SPLIT_EVENTS,	/* every n events, in the merged order tr report prints */
	TFILE_SPLIT_CPU,	/* one part per CPU that has events */
};

struct tfile_range {
	/* Nanoseconds, as tr report prints them; relative ones count from the first event. */
	uint64_t start, end;
	bool start_rel, end_rel;
	bool has_start, has_end;
};

struct tfile_split_opts {
	struct tfile_edit_opts edit;
	int mode;
	const struct tfile_range *ranges;	/* TIME */
	size_t nranges;
	uint64_t events;			/* EVENTS */
	const char *prefix;	/* parts are PREFIX.1, PREFIX.2 ... or PREFIX.cpuN */
};

/* What one part holds, for the caller's summary. */
struct tfile_part {
	const char *path;
	uint64_t events;
	uint64_t first_ts, last_ts;	/* as tr report prints them; 0 when empty */
	int cpu;			/* SPLIT_CPU: the CPU; -1 otherwise */
};

/*
 * Write the parts, calling done() after each file is complete (a file is
 * written even when its range holds no event).  Stops at the first error;
 * the parts written so far stay.  Latency files have no events to cut:
 * -ENOTSUP.
 */
int tfile_split(struct tfile *tf, const struct tfile_split_opts *o,
		void (*done)(void *arg, const struct tfile_part *p), void *arg);

#endif
