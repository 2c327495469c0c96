// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr record's session around the recorder (see rec.h): the events to
 * enable with the recorder's own pids filtered out, pid scoping, the
 * sequence through session.h, and the trace.dat file at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evsel.h"
#include "parse.h"
#include "rec.h"
#include "session.h"
#include "setup.h"
#include "tfs.h"
#include "trigger.h"

/* Is one of the session's triggers a snapshot? */
static bool has_snapshot_trigger(const struct tr_setup *s)
{
	bool found = false;

	for (size_t i = 0; i < s->triggers.n && !found; i++) {
		char *sys, *ev, *text;
		struct trig t;

		if (trig_split_event(s->triggers.v[i], &sys, &ev, &text))
			continue;
		if (!trig_parse(text, &t)) {
			found = !strcmp(t.cmd, "snapshot");
			trig_free(&t);
		}
		free(sys);
		free(ev);
		free(text);
	}
	return found;
}

/* Drain the snapshot buffer into a second file-sink recorder (NULL on failure). */
static struct rec *read_snapshot(struct tfs_inst *in, const char *dir)
{
	struct rec *snap = NULL;
	int r = rec_open(&(struct rec_opts){ .inst = in, .tmp_dir = dir, .snapshot = true,
					     .drain = true }, &snap);

	if (r) {
		tr_warn("cannot read the snapshot buffer: %s", tr_failure());
		return NULL;
	}
	rec_start(snap);
	r = rec_stop(snap);
	if (r)
		tr_warn("the snapshot buffer was not read whole: %s", strerror(-r));
	return snap;
}

struct progress_ctx {
	const struct rec_record_opts *o;
	struct session *sess;
	uint64_t *lost;
};

/* The session's tick: gather the figures and hand them to the caller's progress. */
static int progress_tick(void *arg, bool fd_ready)
{
	struct progress_ctx *p = arg;
	struct rec *r = session_rec(p->sess);
	const struct rec_kstats *before = session_stats_before(p->sess);
	struct rec_progress pr = { .elapsed_ns = session_elapsed_ns(p->sess) };

	(void)fd_ready;
	if (!r || !pr.elapsed_ns)
		return 0;
	pr.ncpus = rec_ncpus(r);
	if (!p->lost)
		p->lost = xcalloc(pr.ncpus ? pr.ncpus : 1, sizeof(*p->lost));
	for (int c = 0; c < pr.ncpus; c++) {
		struct rec_kstats k = { 0 };

		/* The readers' own counter, written by their threads. */
		pr.bytes += __atomic_load_n(&rec_cpu_stat(r, c)->bytes, __ATOMIC_RELAXED);
		if (rec_kstats_read(p->o->inst, c, &k, NULL))
			continue;
		if (before) {
			k.read -= before[c].read;
			k.overrun -= before[c].overrun;
			k.dropped -= before[c].dropped;
		}
		pr.events += k.read;
		p->lost[c] = k.overrun + k.dropped;
	}
	pr.lost = p->lost;
	p->o->progress(p->o->progress_arg, &pr);
	return 0;
}

/*
 * The session (session.h) applies the set-up in its order; then the file:
 * the ring buffer's pages, or under a max-latency tracer the trace text.
 */
int rec_record(const struct rec_record_opts *o, struct rec_record_result *res)
{
	bool latency = setup_latency_tracer(o->setup->tracer);
	struct session *sess = NULL;
	struct rec *snap = NULL;
	struct progress_ctx prog = { .o = o };
	int r;

	memset(res, 0, sizeof(*res));
	r = session_open(&(struct session_opts){
				 .inst = o->inst, .command = o->command,
				 .setup = o->setup, .events = o->events,
				 .no_filter = o->no_filter, .follow = o->follow,
				 .duration_ns = o->duration_ns, .no_readers = latency,
				 /* -N: the pages go to the listener, not to temp files. */
				 .rec = { .tmp_dir = o->net ? NULL : o->tmp_dir,
					  .fn = o->net ? rec_net_page : NULL, .arg = o->net,
					  .wake_percent = 5,
					  .wake_by_size = true,
					  /* A mapped buffer refuses to arm a snapshot. */
					  .reader = has_snapshot_trigger(o->setup) ? REC_READER_SPLICE
										     : REC_READER_AUTO },
				 .tick = o->progress && !latency ? progress_tick : NULL,
				 .tick_ms = o->progress && !latency ? REC_PROGRESS_MS : 0,
				 .arg = &prog },
			 &sess);
	prog.sess = sess;
	/*
	 * Note that tracing_max_latency is a result, not a setting: it is left
	 * as the recording ends, matching the max buffer (cleared by the
	 * session's clearing of the buffer), as trace-cmd leaves it.
	 */
	/* The output is emptied now that the recording can start (see cmd-record.c). */
	if (!r && o->net)
		r = rec_net_start(o->net, session_rec(sess), o->inst);
	else if (!r && ftruncate(o->fd, 0) && errno != EINVAL)
		r = tr_fail(-errno, "cannot write the trace file: %s", strerror(errno));
	if (!r)
		r = session_run(sess);
	/* A reader that stopped early still leaves what it read: the file is written. */
	if (r && sess && session_end(sess) == SESSION_READER_FAILED && session_rec(sess)) {
		res->reader_err = r;
		r = 0;
	}
	if (r)
		goto out;
	res->end = session_end(sess);
	res->child_status = session_child_status(sess);
	if (o->net) {
		r = rec_net_end(o->net, session_rec(sess), o->inst, session_stats_before(sess),
				&res->sum);
		goto out;
	}
	if (latency) {
		res->latency = true;
		r = rec_write_latency(o->fd, o->inst, &res->max_us, &res->latency_bytes);
		goto out;
	}
	if (has_snapshot_trigger(o->setup))
		snap = read_snapshot(o->inst, o->tmp_dir);
	r = rec_write_file(session_rec(sess), o->fd, o->inst, NULL, session_stats_before(sess),
			   o->file_flags, snap, session_clocks(sess), &res->sum);
out:
	if (o->net)
		rec_net_free(o->net);
	free(prog.lost);
	rec_free(snap);
	session_free(sess);
	return r;
}
