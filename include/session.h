/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One live tracing session: the sequence that every live command (tr
 * record, tr agent, stream, top, the hist engines, profile, show --pipe)
 * shares, written once and run by one runner, session_tool_run(), which
 * calls the tool's hooks (struct session_tool) at their places, as rtla's
 * run_tool(struct tool_ops *) does.  session_opts says what to trace; the
 * tool says what to do with it.
 *
 *   open             applies the set-up in the one order the kernel allows:
 *                    the lock on the buffer; the set-up's tracer, clock,
 *                    options, buffer and pids (current_tracer cannot change
 *                    once trace_pipe_raw files are open); the readers,
 *                    opened and parked (their thread ids known); COMMAND,
 *                    forked and held before exec (its pid known); the
 *                    events, each with tr's own pids filtered out; --follow
 *                    (set_event_pid of the command); the set-up's triggers;
 *                    and under a max-latency tracer tracing_max_latency
 *                    set to 0.  A COMMAND that is not found fails first,
 *                    before anything is touched.
 *   prepare()        the tool's: whatever differs (events a view turns on
 *                    later, with session_own_filter(); files; a screen)
 *   run              clears the buffer (unless opts.keep_buffer), takes the
 *                    per-CPU stats "before", starts the readers, on_start(),
 *                    turns tracing_on on, on_running(), lets the command
 *                    exec, and waits for the first of: the command's exit,
 *                    opts.duration_ns, tr_stop (SIGINT/SIGTERM), a reader
 *                    error, or tick() returning 1.  tick() runs every
 *                    tick_ms and, with poll_stdin, whenever stdin is
 *                    readable (a terminal's keys).  Then on_end(), the
 *                    command ended (see below), tracing_on off, and the
 *                    readers drained and joined.  A reader's error is the
 *                    session's ("a reader stopped: ..."), unless the tool
 *                    keeps what the readers read (reader_error_ok).
 *   finish()         the tool's, with the end read once (struct
 *                    session_result): reads the results (session_rec(),
 *                    the stats), writes files, renders
 *   teardown         a command that never started dies unstarted; what the
 *                    readers left in the buffer is cleared (not earlier:
 *                    clearing resets the per-CPU stats finish() reads)
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

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "evsel.h"
#include "rec.h"
#include "setup.h"
#include "tfs.h"

struct session;
struct session_sink;
struct tfile_procmap;

/*
 * A further buffer of the session (tr record's -B NAME after another
 * buffer's options): its own instance, set-up (setup->events is not read)
 * and events, applied, cleared, read and turned on and off with the first
 * buffer's, in the same steps.  Its readers are tr's own pids as well.
 * The command, --follow and the wait are the session's.
 */
struct session_buf {
	struct tfs_inst *inst;
	const struct tr_setup *setup;
	const struct evsel_list *events;
};

struct session_opts {
	struct tfs_inst *inst;
	char **command;		/* run this while tracing (argv, NULL-ended), or NULL */
	/*
	 * The set-up, or NULL: everything but its events, which are below
	 * (setup->events is not read), applied in the order above.
	 */
	const struct tr_setup *setup;
	/*
	 * The events to enable once the readers are open, or NULL.  Those of
	 * the ftrace system are checked and left alone (they are always on);
	 * each other one gets tr's own pids filtered out (ANDed with its
	 * filter) unless no_filter, follow or the set-up's pids say that
	 * only some pids trace anyway.
	 */
	const struct evsel_list *events;
	bool no_filter;
	/* Trace only the command (set_event_pid; with setup->children its children too). */
	bool follow;
	uint64_t duration_ns;	/* end after this long; 0 = no limit */
	/*
	 * The readers (the file sink or the callback sink); rec.inst is set
	 * from inst.  no_readers: nothing is read (a max-latency tracer, or a
	 * kernel hist trigger whose result is read from its file).
	 */
	struct rec_opts rec;
	bool no_readers;
	/*
	 * Or the readers walk their pages into this sink (rec.fn and rec.arg
	 * are set to it; see session_sink below), attached once they are open.
	 */
	struct session_sink *sink;
	/* Further buffers, each with readers as rec above (not with no_readers or passive). */
	const struct session_buf *more;
	size_t nmore;
	bool keep_buffer;	/* do not clear the ring buffer before starting */
	/*
	 * Leave every buffer as the session ends it (tr record -k): tracing
	 * back on once the readers are drained, and the buffers not cleared,
	 * so what comes after stays there (tr show).  The caller keeps the
	 * set-up with tfs_keep().
	 */
	bool keep_at_end;
	/*
	 * Run the command as this user (tr record --user): its groups, then
	 * its gid and uid, set in the child before exec; run_user is its name.
	 */
	const char *run_user;
	uid_t run_uid;
	gid_t run_gid;
	/*
	 * Keep the memory maps of the command and of the processes it forks,
	 * as each exits (session_maps()), for their user stacks: they run
	 * under ptrace (seized, stopped only at exit, fork and as signals
	 * reach them, each passed on); those still running as the session
	 * ends are read then, each handed to the tool's on_map.  Processes made by clone() without
	 * SIGCHLD, or forked by a thread other than a process's first, are
	 * not followed.
	 */
	bool child_map;
	/*
	 * Reads nothing and leaves the buffer alone (implies no_readers and
	 * keep_buffer): takes no lock and only turns tracing on, never off,
	 * so it can run inside another session's recording of the same
	 * instance (a kernel hist trigger under tr record).
	 */
	bool passive;
	/* Further threads of tr's own (stream's formatting), filtered out with the readers. */
	const pid_t *own_tids;
	size_t nown_tids;
};

enum session_end {
	SESSION_RUNNING,
	SESSION_CHILD_EXITED,	/* the command ended */
	SESSION_DURATION,	/* opts.duration_ns passed */
	SESSION_STOPPED,	/* tr_stop: SIGINT, SIGTERM (or SIGHUP) */
	SESSION_READER_FAILED,	/* a reader stopped on an error: see rec_error() */
	SESSION_TICK,		/* tick() returned 1 */
};

/*
 * A live tool: what it does with the session, as hooks the runner calls
 * (session_tool_run()).  Each hook may be NULL; arg is the tool's own.
 * The order, on the session's thread:
 *
 *   prepare(arg, s)  once the session is open (readers parked, the command
 *                    held, the events on): whatever else the tool sets up
 *                    (files, events a view turns on later, a UI).  0 goes
 *                    on; -errno ends the session unstarted.
 *   on_start         just before tracing is turned on (the buffer cleared,
 *                    the readers started), with tr_now_ns(): no event is
 *                    older.
 *   on_running       just after tracing is on, before the command is let
 *                    go: work that need not delay the start.
 *   tick             every tick_ms, and with poll_stdin whenever stdin is
 *                    readable (fd_ready): 0 goes on, 1 ends the session,
 *                    <0 fails it.
 *   on_map           with opts.child_map, as each map of the command's
 *                    processes is read (m is the session's).
 *   on_end           the moment the wait ends, before the command is ended
 *                    and tracing stops (a kernel hist trigger's table is
 *                    read here: turning tracing off does not stop it).
 *   finish(arg, s, res)  once, whatever happened: after the readers were
 *                    drained and joined, before the teardown (the per-CPU
 *                    stats are still there), with how it ended (res); s is
 *                    NULL when the session could not be opened.  A tool
 *                    whose own page walk skipped corrupt sub-buffers adds
 *                    them to res->bad_pages, for the runner's one warning.
 */
struct session;
struct session_result;
struct session_tool {
	int (*prepare)(void *arg, struct session *s);
	void (*on_start)(void *arg, uint64_t now_ns);
	void (*on_running)(void *arg);
	int (*tick)(void *arg, bool fd_ready);
	unsigned tick_ms;	/* 0: only when stdin is readable (poll_stdin) */
	bool poll_stdin;	/* tick(arg, true) as soon as stdin is readable (keys) */
	void (*on_map)(void *arg, const struct tfile_procmap *m);
	int (*on_end)(void *arg);
	int (*finish)(void *arg, struct session *s, struct session_result *res);
	/*
	 * A reader that stopped on an error still leaves what it read: the
	 * session succeeds and finish() gets the error in res->reader_err
	 * (tr record writes its file, tr agent's host took what it took).
	 * Otherwise the reader's error is the session's.
	 */
	bool reader_error_ok;
	/* The tool shows opts.sink's corrupt sub-buffers itself (top): no warning. */
	bool shows_bad_pages;
};

/*
 * How the session ended, read once by the runner for finish().  err is
 * the session's error so far (0, or -errno with tr_fail() set: it could
 * not be opened, prepare or a tick failed, tracing could not start, or a
 * reader failed without reader_error_ok); finish() then only undoes what
 * the tool made.
 */
struct session_result {
	int err;
	enum session_end end;
	int reader_err;		/* a reader's error with reader_error_ok, or 0 */
	const char *reader_failure;	/* why, from the recorder (rec_failure()), or NULL */
	int child_status;	/* the command's wait status once reaped, or -1 */
	/* With end SESSION_CHILD_EXITED: "'CMD' exited with N" or "'CMD' killed by signal N". */
	char child_text[128];
	uint64_t bad_pages;	/* corrupt sub-buffers opts.sink (and finish()) skipped */
	/*
	 * Events the kernel lost before those opts.sink delivered (its walk's
	 * lost: the sub-buffers' stored counts, a flag without one as one),
	 * or 0 without a sink.  A tool's own counts (the recorder's summary,
	 * top's per-CPU rates) are its own.
	 */
	uint64_t lost;
};

/*
 * The whole sequence for tool t (see the opening comment): open, prepare,
 * run, finish, and the teardown.  Returns res.err when
 * it is set, else what finish() returned (0 without one).  Corrupt
 * sub-buffers skipped (res.bad_pages) get their one warning here, after
 * finish(), unless t->shows_bad_pages.
 */
int session_tool_run(const struct session_opts *o, const struct session_tool *t, void *arg);

/* The recorder, or NULL with no_readers. */
struct rec *session_rec(struct session *s);
/* The command's pid (forked, held before exec until tracing is on), or 0. */
pid_t session_child(const struct session *s);
/*
 * With opts.child_map: the maps read so far (*n of them, one a pid; see
 * child_map), the session's.  Whole by the tool's finish().
 */
const struct tfile_procmap *session_maps(const struct session *s, size_t *n);
/* With opts.child_map: the processes seized now (*n of them), the session's. */
const pid_t *session_tracees(const struct session *s, size_t *n);
/* tr's own pid and its readers' thread ids, to leave out of the events. */
size_t session_own_pids(const struct session *s, pid_t *pids, size_t max);
/*
 * "common_pid != A && common_pid != B ..." for session_own_pids(), to AND
 * with the filter of an event enabled later; NULL when the session filters
 * nothing out (no_filter, follow, the set-up's pids).  Owned by s.
 */
const char *session_own_filter(const struct session *s);
enum session_end session_end(const struct session *s);
/* The per-CPU stats taken just before tracing started (rec_ncpus() entries), or NULL. */
const struct rec_kstats *session_stats_before(const struct session *s);
/* The same two of opts.more[i]. */
struct rec *session_more_rec(struct session *s, size_t i);
const struct rec_kstats *session_more_stats_before(const struct session *s, size_t i);
/* The clock pairing's start (rec_clock_pair()), read with those stats; .valid if it was. */
struct tfile_clocks;
const struct tfile_clocks *session_clocks(const struct session *s);
/* The command's wait status once it was reaped, or -1. */
int session_child_status(const struct session *s);
/* Monotonic nanoseconds since tracing was turned on (0 before). */
uint64_t session_elapsed_ns(const struct session *s);

/*
 * Sessions whose tr died (SIGKILL, the OOM killer): their lock in
 * $TR_STATE_DIR (default /run/tr) is held by no one and their journal of
 * changes is still there.  For each, "pid N, instance 'X'" (or "pid N,
 * the top-level buffer") is added to dead; with adopt, the journal joins
 * the state file that tr reset undoes, and the lock goes.  0 or -errno.
 */
int session_orphans(bool adopt, struct strv *dead);

/*
 * The selectors to enable: those of the ftrace system are left out (they
 * have no enable file; they are checked and must carry no filter), and
 * each other one gets own_filter (session_pid_filter()), ANDed with its
 * own filter, unless own_filter is NULL.  0 or -errno with tr_fail().
 */
int session_events_to_enable(const struct evsel_list *in, const char *own_filter,
			     struct evsel_list *out);
/* "common_pid != A && common_pid != B ..." (malloc'ed), or NULL for no pids. */
char *session_pid_filter(const pid_t *pids, size_t n);

/* ---- the kit of the live consumers (live-kit.c) ---- */

struct tep_handle;
struct session_tep_opts {
	/*
	 * Every event format, as libtracefs loads them (with kallsyms, saved
	 * command names and printk formats), and the multi-format user events
	 * it leaves out: what tr stream prints any event with.
	 */
	bool all;
	/* Otherwise every event of these systems, and these "SYS:EVENT" (either NULL). */
	const struct strv *systems, *events;
	/* And the printk formats, for trace_printk's strings printed by address. */
	bool printk;
};
/*
 * A tep handle for the running kernel's events: the host's byte order (the
 * events are read where they were made), its long and page size and the
 * ring buffer's header page; then the formats of o.  Formats that cannot
 * be read or parsed are left out: look the events up after.  Without
 * o->all, no kallsyms (reading it costs more than the rest together; see
 * hist_spec_load_syms()).  NULL only when memory runs out, or with all
 * when libtracefs cannot read the formats.
 */
struct tep_handle *session_tep(const struct session_tep_opts *o);

/*
 * The rest of the formats as the records need them (fmt_src_lazy() takes
 * the two functions with the struct as their ctx): session_lazy_event()
 * parses the format of event id into tep, looking first among the events
 * enabled in the instance (set_event), then, for an event enabled some
 * other way, in every event's id file (read once, and again for an id they
 * did not have).  0 or -errno.  session_lazy_syms() gives the printer
 * /proc/kallsyms (fmt_src_kallsyms()), and libtraceevent's handle them
 * only when it prints.  Nothing is kept that could go stale but the ids of events that
 * exist, which the kernel does not reuse while they do.
 */
struct session_lazy;
struct fmt_src;
struct session_lazy *session_lazy_new(const struct tfs_inst *in);
int session_lazy_event(void *lazy, struct tep_handle *tep, int id);
int session_lazy_syms(void *lazy, struct fmt_src *src, struct tep_handle *tep);
void session_lazy_free(struct session_lazy *l);

/*
 * The live consumers' page sink (hist, hist --latency, top): give it as
 * session_opts.sink.  Each CPU's reader then walks its whole sub-buffers
 * into fn(arg, event) under the sink's lock, taken once per batch of
 * pages, not per event; whoever else reads what fn fills takes the same
 * lock.  Nothing is queued.
 */
struct session_sink {
	pthread_mutex_t lock;
	const struct tfile_layout *layout;
	tfile_event_fn fn;
	void *arg;
	struct tfile_walk_stats st;	/* events walked, corrupt sub-buffers skipped */
};
void session_sink_init(struct session_sink *k, tfile_event_fn fn, void *arg);
void session_sink_destroy(struct session_sink *k);

/* Is there a program to run as argv0 (in PATH unless it has a '/')? */
bool session_runnable(const char *argv0);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tr_now_ns(void);

#endif
