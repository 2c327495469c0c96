/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr record's buffers, as trace-cmd's -B (record-buffers.c): each -B NAME
 * starts a buffer whose options (the set-up and event groups) are those up
 * to the next -B; the top level's are those before the first, and an -A
 * guest's those after its -A.  Parsing fills ev, setup and module in place
 * (the option groups are bound to them) and moves them to done[] at each -B
 * or -A; bufs_end() makes of done[] the buffers the recording makes, the
 * first the session's own, and takes the guests out into guests[].
 */
#ifndef TR_RECORD_BUFFERS_H
#define TR_RECORD_BUFFERS_H

#include <argp.h>
#include <stdbool.h>

#include "cmd.h"
#include "record-local.h"
#include "setup.h"

/* One buffer's options: those between its -B and the next (the top level's: before the first). */
struct buf_args {
	const char *name;	/* NULL: the top level */
	struct opt_events ev;
	struct tr_setup setup;
	bool module;		/* --module was given (it needs a function tracer) */
	const char *guest;	/* -A NAME@ADDR:PORT: these are a guest's options */
};

struct record_bufs {
	/* The buffer whose options are being read, named cur (NULL: the top level). */
	const char *cur;
	struct opt_events ev;
	struct tr_setup setup;
	bool module;		/* --module in the buffer being read */
	const char *cur_guest;	/* the -A whose options are being read, or NULL */
	struct buf_args *done;
	size_t ndone;
	struct guest_args *guests;	/* taken out of done[] by bufs_end() */
	size_t nguests;
	struct session_buf *more;	/* bufs_open()'s: done[1...] as the recording takes them */
	bool as_set;		/* -K: a buffer without -e or -p records what is set in it */
};

/* -B NAME: the buffer read so far moves to done[]; what follows is NAME's.  Usage errors. */
void bufs_next(struct argp_state *state, struct record_bufs *rb, const char *name);
/* -A SPEC: the buffer read so far moves to done[]; what follows is the guest's. */
void bufs_next_guest(struct record_bufs *rb, const char *spec);
/*
 * At the end of the line: the last buffer joins done[]; -B names are
 * unique and not with --instance (instance, or NULL), which names the
 * first buffer; the guests leave done[]; the top level goes when nothing
 * asked for it (-B NAME first: that instance alone); every buffer needs
 * events or a tracer; -P, -c, --notrace-pid and --cmdlines-size, wherever
 * they came, are every buffer's.  Usage errors.
 */
void bufs_end(struct argp_state *state, struct record_bufs *rb, const char *instance);
/*
 * -i: selectors that match no event the kernel has are dropped with a
 * warning (the ftrace system's are checked later, as always); a buffer
 * left with nothing to record is an error.  0 or -errno, said.
 */
int bufs_drop_missing(struct record_bufs *rb);
/*
 * Before the recording: each buffer's instance opened or made
 * (cmd_instance_open()), the first as o's own (inst, setup, events), the
 * others as o's more[].  0 or -errno with tr_fail(); bufs_free() frees
 * more[] either way.
 */
int bufs_open(struct record_bufs *rb, struct live_record_opts *o);
/* The buffers' lists and set-ups, and more[] (not the guests: guests_free()). */
void bufs_free(struct record_bufs *rb);

#endif
