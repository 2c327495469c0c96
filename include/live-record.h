/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live layer's recordings (src/live/record.c, record-files.c,
 * record-summary.c, guests.c, agent.c): tr record's whole session around
 * the recorder (rec.h) as one tool of the runner (session.h), its user and
 * files, what it says on stderr, its guests (-A) and tr agent's recording
 * of one request.
 * The live_ prefix is the live layer's; rec_ is src/rec/'s.
 *
 * Errors: 0 or -errno with tr_fail() set.  Nothing here prints to stdout.
 */
#ifndef TR_LIVE_RECORD_H
#define TR_LIVE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "net.h"
#include "rec.h"
#include "setup.h"

struct session_buf;

/*
 * What a recording has done so far, for a status line: handed to
 * live_record_opts.progress twice a second on the session's thread.
 * events and lost[] count from the start (per-CPU stats), bytes are the
 * page data the readers have written.
 */
struct live_progress {
	uint64_t elapsed_ns;
	uint64_t events;
	uint64_t bytes;
	int ncpus;
	const uint64_t *lost;	/* ncpus entries */
};


struct live_record_opts {
	struct tfs_inst *inst;
	const struct tr_setup *setup;	/* tracer, clock, options, pids, triggers */
	const struct evsel_list *events;
	bool follow, no_filter;		/* session_opts' */
	char **command;
	uint64_t duration_ns;
	/* Further buffers recorded with inst's (session.h), or NULL. */
	const struct session_buf *more;
	size_t nmore;
	int fd;				/* the output file, opened by the caller */
	struct rec_net *net;		/* or, instead of fd, a listener (tr record -N) */
	const char *output;		/* its name, for the spool's owner file */
	const char *tmp_dir;		/* the per-CPU temp files: beside the output, or --temp */
	/*
	 * Keep the recording recoverable (see the spool above): the spool
	 * directory, which live_record() makes and, once the file is written,
	 * removes; or NULL for anonymous temp files in tmp_dir.  The readers
	 * write out what they hold, and cmdlines is rewritten, every flush_ms
	 * (0: REC_FLUSH_MS).
	 */
	const char *spool_dir;
	unsigned flush_ms;
	/*
	 * With a spool: stop once the file would pass this many bytes (its
	 * header, as meta.dat measures it, and the pages; 0: no limit).
	 * -EINVAL with a message when the header alone leaves no room.
	 */
	uint64_t max_size;
	/*
	 * With max_size: instead of stopping, roll over (rec_spool_rotate()):
	 * each full part becomes OUTPUT.1, the earlier ones move up to
	 * OUTPUT.rotate, older ones are removed; the last part is OUTPUT.
	 */
	unsigned rotate;
	/* The readers: rec_opts' idle_ms (0: its default), poll_only and rt_prio. */
	unsigned idle_ms;
	bool poll_only;
	int rt_prio;
	bool keep_at_end;		/* session_opts' (-k) */
	bool keep_buffer;		/* session_opts' (-K): what the buffers hold is recorded too */
	/* Run the command as this user (session_opts'), or NULL. */
	const char *run_user;
	uid_t run_uid;
	gid_t run_gid;
	unsigned file_flags;		/* REC_FILE_V7 | REC_ZIP(z) | REC_FILE_DATE, or 0 for v6 */
	int64_t ts_offset;		/* stored as the OFFSET option (rec_time_options()) */
	/* --tsc2nsec (rec_tsc2nsec()): stored as the TSC2NSEC option, 0: none. */
	uint32_t tsc_mult, tsc_shift;
	/*
	 * tr record -A: guests recorded with the host (guests.c), each
	 * connected once the host's readers are open, stopped once they are
	 * drained, and written to its fd in file_flags' format; the host's
	 * file gets a TRACEID option (trace_id) and a GUEST option for each.
	 */
	struct live_guest *guests;
	size_t nguests;
	uint64_t trace_id;
	/* Called every LIVE_PROGRESS_MS while recording, or NULL. */
	void (*progress)(void *arg, const struct live_progress *p);
	void *progress_arg;
	/* Called once, when tracing is on (tr record --daemonize's signal), or NULL. */
	void (*on_recording)(void *arg);
	void *recording_arg;
};
#define LIVE_PROGRESS_MS 500

struct live_record_result {
	int end;			/* enum session_end: why recording stopped */
	int child_status;		/* the command's wait status, or -1 */
	int reader_err;			/* a reader's error (-ENOSPC: disk full), or 0 */
	struct rec_summary sum;		/* ring-buffer recordings */
	bool latency;			/* a max-latency tracer: max_us and latency_bytes */
	uint64_t max_us, latency_bytes;
	bool spool_kept;		/* the file was not written whole: the spool stays */
	bool max_size_reached;		/* stopped at opts.max_size */
	uint64_t rotations;		/* parts written as OUTPUT.1 (opts.rotate) */
	char failure[256];		/* why reader_err: a part not written, or "" */
};

/*
 * tr record's whole session: set-up (tracer first, then readers, then
 * events and triggers with the recorder's own pids filtered out unless
 * no_filter), pid scoping (pids, or follow: the command's pid; children:
 * event-fork), the session (session.h) and the file written to fd.  The
 * caller prints the summary.  0 or -errno with tr_fail(); a reader that
 * failed mid-way is res->reader_err with the file still written.
 */
int live_record(const struct live_record_opts *o, struct live_record_result *res);

/*
 * tr record --daemonize (daemon.c).  live_daemon_fork(), before anything
 * is set up and with stdout flushed: returns 1 in the parent once the child is recording
 * (*status 0) or has ended (*status its exit status, its message on the
 * terminal already), with *child its pid; 0 in the child, which is in a
 * session of its own and has written pidfile; -errno with tr_fail() (a
 * recording of this binary already runs under pidfile, no fork).  The
 * child passes live_daemon_ready as live_record_opts.on_recording (arg d):
 * it tells the parent and lets the terminal go; live_daemon_done() at its
 * end removes the pidfile.
 */
struct live_daemon {
	int ready_fd;
	const char *pidfile;
};
int live_daemon_fork(struct live_daemon *d, const char *pidfile, pid_t *child, int *status);
void live_daemon_ready(void *arg);
void live_daemon_done(struct live_daemon *d);

/*
 * tr record's words on stderr (record-summary.c).  live_record_summary():
 * once the recording is done, the latency file's line, or the per-CPU
 * summary (rec_summary_print(); the readers' table with verbose) and the
 * warnings: a reader that stopped early, what did not fit in the file,
 * the rotations and --max-size, a spool kept for tr restore.  Nothing but
 * the warnings when quiet.
 */
struct live_record_say {
	bool quiet, verbose;
	const char *tracer;		/* the first buffer's (a latency file's line) */
	const char *output, *spool;	/* rec_paths' */
	const char *net;		/* -N's listener as given, or NULL */
	unsigned rotate;		/* --rotate */
};
void live_record_summary(const struct live_record_say *a, const struct live_record_result *res);
/*
 * The status line at a terminal, as live_record_opts.progress (arg: a
 * zeroed struct live_status): elapsed, events/s since the last line, MB
 * written, the CPUs that lost events so far, redrawn in place.
 * live_status_erase() clears it before anything else is said.
 */
struct live_status {
	bool drawn;
	uint64_t last_ns, last_events;	/* what was drawn last, to rate events */
};
void live_status_draw(void *arg, const struct live_progress *p);
void live_status_erase(struct live_status *st);

/*
 * A guest of tr record -A (guests.c): net is the caller's (its agent, what
 * it records, the clock, the sync interval, --psk, the temp directory);
 * the rest is the recording's, and how it went.
 */
struct live_guest {
	struct net_guest_opts net;	/* net.h */
	char *path;			/* its file: the output's name with -NAME */
	bool created;			/* made by live_guests_files() */
	int fd;				/* -1 until opened */
	struct net_guest *g;
	struct net_guest_result res;
	char *error;			/* its failure's message (malloc'd), or NULL */
};
/*
 * Before the recording, once the host's output is named (and before
 * tracefs is touched): each guest's file beside output, in trace-cmd's
 * layout (trace.dat's guest NAME in trace-NAME.dat), opened.  0 or -errno
 * with tr_fail() naming the file; live_guests_close() cleans up either way.
 */
int live_guests_files(struct live_guest *g, size_t n, const char *output);
/* Connect every guest; 0 or the first failure (the others are let go). */
int live_guests_open(const struct live_record_opts *o);
/*
 * Stop and write every guest, each failure left in its error; the options
 * for the host's file (TRACEID, then a GUEST per guest written) in *opts.
 */
void live_guests_finish(const struct live_record_opts *o, struct tfw_opt **opts, size_t *nopts);
/* The connections let go (live_record() calls the three above). */
void live_guests_free(const struct live_record_opts *o);
/*
 * After the recording: the files closed, those live_guests_files() made
 * removed when the recording failed (failed) or the guest wrote nothing;
 * g[] (n of them, or NULL) freed with its paths and errors.
 */
void live_guests_close(struct live_guest *g, size_t n, bool failed);

/*
 * Around live_record() (record-files.c), first before tracefs is touched,
 * so that a bad --user or an output that cannot be written fails first.
 * Errors are -errno with tr_fail() set, for the command's tr_report().
 * live_record_user(): --user's uid and gid (-ENOENT: "no such user").
 * live_record_files_open(): p's names decided (rec_paths_decide(); output
 * NULL is trace.dat), the output opened, and each of o's guests' files
 * beside it; o's fd, output, tmp_dir and spool_dir (and the guests'
 * tmp_dir) set from p, which must outlive the recording.
 * live_record_failed(): live_record() returned r: tr_fail() in one line,
 * naming the spool that keeps the recording if it stayed; the output
 * removed if nothing was recorded and it was made here; r again.
 * live_record_files_close(): the output closed (0, or -errno from close()),
 * the guests' files closed (live_guests_close(): failed removes them) and
 * p freed; after live_record_files_open() whatever it returned, or with p
 * zeroed but for fd -1 (tr record -N).
 */
struct rec_paths;
int live_record_user(const char *name, uid_t *uid, gid_t *gid);
int live_record_files_open(struct rec_paths *p, const char *output, const char *temp_dir,
			   struct live_record_opts *o);
int live_record_failed(const struct rec_paths *p, const struct live_record_result *res, int r);
int live_record_files_close(struct rec_paths *p, struct live_guest *g, size_t n, bool failed);

/*
 * tr agent's recording of one request (agent.c): a session in
 * instance in with setup and events, its pages into the host's data
 * connections (net_agent_send_pages()), its metadata with a TRACEID
 * option; until the host sends CLOSE or goes, a reader fails, or tr_stop.
 * clk: the trace clock's clockid for the time sync, or -1.  *bytes: what
 * was sent.  0 or -errno with tr_fail().
 */
struct net_agent_job;
int live_agent_record(struct net_agent_job *job, struct tfs_inst *in, const struct tr_setup *setup,
		     const struct evsel_list *events, int clk);

#endif
