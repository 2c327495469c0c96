/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One live tracing session: the sequence that tr record, stream, hist and
 * top share, written once (rtla's top/hist main loops are the model).
 *
 *   session_open()   the recorder's readers are opened and parked (their
 *                    thread ids known, for common_pid filters), COMMAND is
 *                    forked and held before exec (its pid known, for
 *                    set_event_pid); nothing in tracefs is touched yet
 *   the caller       enables events, filters session_own_pids() out, sets
 *                    pid filters for session_child() -- whatever differs
 *   session_run()    clears the buffer (unless opts.keep_buffer), takes the
 *                    per-CPU stats "before", starts the readers, turns
 *                    tracing_on on, lets the command exec, and waits for the
 *                    first of: the command's exit, opts.duration_ns, tr_stop
 *                    (SIGINT/SIGTERM), a reader error, or tick() returning
 *                    1.  tick() runs every tick_ms and whenever poll_fd is
 *                    readable (a terminal's keys).  Then it ends the command
 *                    (see below), turns tracing_on off and drains and joins
 *                    the readers.
 *   the caller       reads the results (session_rec(), the stats), writes
 *                    files, renders
 *   session_free()   a command that never started dies unstarted; what the
 *                    readers left in the buffer is cleared (not earlier:
 *                    clearing resets the per-CPU stats the caller reads)
 *
 * Ending the command (when the session ends first): the signal that
 * stopped tr (SIGTERM otherwise) is forwarded; after 2 s SIGKILL; the
 * command is always reaped.  tr never leaves a child behind.
 *
 * Errors: 0 or -errno with tr_fail() set, as every layer.  Nothing here
 * prints to stdout.
 */
#ifndef TR_SESSION_H
#define TR_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rec.h"
#include "tfs.h"

struct session;

struct session_opts {
	struct tfs_inst *inst;
	char **command;		/* run this while tracing (argv, NULL-ended), or NULL */
	uint64_t duration_ns;	/* end after this long; 0 = no limit */
	/*
	 * The readers (the file sink or the callback sink); rec.inst is set
	 * from inst.  no_readers: nothing is read (a max-latency tracer, or a
	 * kernel hist trigger whose result is read from its file).
	 */
	struct rec_opts rec;
	bool no_readers;
	bool keep_buffer;	/* do not clear the ring buffer before starting */
	/*
	 * Reads nothing and leaves the buffer alone (implies no_readers and
	 * keep_buffer): takes no lock and only turns tracing on, never off,
	 * so it can run inside another session's recording of the same
	 * instance (a kernel hist trigger under tr record).
	 */
	bool passive;
	/* Called on the session's thread; 0 goes on, 1 ends the session, <0 fails it. */
	int (*tick)(void *arg, bool fd_ready);
	unsigned tick_ms;	/* 0: only when poll_fd is readable */
	int poll_fd;		/* -1 for none */
	/*
	 * Called once, the moment the wait ends, before the command is ended
	 * and tracing stops: a kernel hist trigger's table is read here, since
	 * turning tracing off does not stop a trigger.  0 or -errno.
	 */
	int (*on_end)(void *arg);
	/*
	 * Called once on the session's thread just before tracing is turned
	 * on (after the buffer was cleared and the readers started), with
	 * tr_now_ns(): no event is older.  May be NULL.
	 */
	void (*on_start)(void *arg, uint64_t now_ns);
	void *arg;
};

enum session_end {
	SESSION_RUNNING,
	SESSION_CHILD_EXITED,	/* the command ended */
	SESSION_DURATION,	/* opts.duration_ns passed */
	SESSION_STOPPED,	/* tr_stop: SIGINT, SIGTERM (or SIGHUP) */
	SESSION_READER_FAILED,	/* a reader stopped on an error: see rec_error() */
	SESSION_TICK,		/* tick() returned 1 */
};

int session_open(const struct session_opts *o, struct session **out);
/* The recorder, or NULL with no_readers. */
struct rec *session_rec(struct session *s);
/* The command's pid (forked, not yet exec'd before session_run()), or 0. */
pid_t session_child(const struct session *s);
/* tr's own pid and its readers' thread ids, to leave out of the events. */
size_t session_own_pids(const struct session *s, pid_t *pids, size_t max);
/*
 * Run as above.  Returns 0 or -errno (tracing could not be started, a
 * tick failed); a reader's error is session_end() == SESSION_READER_FAILED
 * with rec_error(), and the session still ends cleanly.
 */
int session_run(struct session *s);
enum session_end session_end(const struct session *s);
/* The per-CPU stats taken just before tracing started (rec_ncpus() entries), or NULL. */
const struct rec_kstats *session_stats_before(const struct session *s);
/* The clock pairing's start (rec_clock_pair()), read with those stats; .valid if it was. */
struct tfile_clocks;
const struct tfile_clocks *session_clocks(const struct session *s);
/* The command's wait status once it was reaped, or -1. */
int session_child_status(const struct session *s);
/* Monotonic nanoseconds since session_run() turned tracing on (0 before). */
uint64_t session_elapsed_ns(const struct session *s);
void session_free(struct session *s);

/* Is there a program to run as argv0 (in PATH unless it has a '/')? */
bool session_runnable(const char *argv0);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tr_now_ns(void);

#endif
