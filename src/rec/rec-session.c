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

static bool is_ftrace_sel(const struct evsel *e)
{
	return e->system && !strcmp(e->system, "ftrace");
}

int rec_events_to_enable(const struct evsel_list *in, const pid_t *own, size_t nown,
			 struct evsel_list *out)
{
	char *pidf = NULL;

	for (size_t i = 0; i < nown; i++) {
		char *n = xasprintf("%s%scommon_pid != %d", pidf ? pidf : "", pidf ? " && " : "",
				    (int)own[i]);

		free(pidf);
		pidf = n;
	}
	for (size_t i = 0; i < in->n; i++) {
		const struct evsel *e = &in->v[i];

		if (is_ftrace_sel(e)) {
			char *fmt;

			if (e->filter) {
				free(pidf);
				return tr_fail(-EINVAL, "'%s' takes no filter: ftrace events "
							"cannot be filtered", e->spec);
			}
			fmt = xasprintf("events/ftrace/%s/format", e->event ? e->event : "print");
			if (e->event && !has_glob(e->event) && !tfs_exists(NULL, fmt)) {
				free(fmt);
				free(pidf);
				return tr_fail(-ENOENT, "no such event '%s'", e->spec);
			}
			free(fmt);
			continue;
		}
		evsel_add(out, e->spec);
		if (e->filter && pidf) {
			char *f = xasprintf("(%s) && %s", e->filter, pidf);

			evsel_add_filter(out, f);
			out->v[out->n - 1].user_filter = xstrdup(e->filter);
			free(f);
		} else if (e->filter || pidf) {
			evsel_add_filter(out, e->filter ? e->filter : pidf);
		}
	}
	free(pidf);
	return 0;
}


/*
 * --follow: the held command's pid into set_event_pid (and the function
 * tracer's).  -P's pids were set with the rest of the set-up.
 */
static int follow_child(const struct rec_record_opts *o, pid_t child)
{
	return o->follow ? setup_follow(o->inst, child, o->children, o->setup->tracer) : 0;
}

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
 * The order matters: the tracer first, since the kernel refuses to change
 * current_tracer while trace_pipe_raw files are open (EBUSY); then the
 * readers (their thread ids are filtered out of the events) and the held
 * command (its pid goes into set_event_pid for -F); then events and
 * triggers; then the session runs.
 */
int rec_record(const struct rec_record_opts *o, struct rec_record_result *res)
{
	bool latency = rec_latency_tracer(o->setup->tracer);
	struct evsel_list enable = { 0 };
	struct tr_setup setup = *o->setup;
	struct session *sess = NULL;
	struct rec *snap = NULL;
	struct progress_ctx prog = { .o = o };
	pid_t own[1024];
	size_t nown = 0;
	int r;

	memset(res, 0, sizeof(*res));
	setup.events = NULL;
	setup.triggers = (struct strv){ 0 };
	r = setup_apply(o->inst, &setup);
	if (!r)
		r = session_open(&(struct session_opts){
					 .inst = o->inst, .command = o->command,
					 .duration_ns = o->duration_ns, .no_readers = latency,
					 .rec = { .tmp_dir = o->tmp_dir, .wake_percent = 5,
						  .wake_by_size = true,
						  /* A mapped buffer refuses to arm a snapshot. */
						  .reader = has_snapshot_trigger(o->setup)
								    ? REC_READER_SPLICE
								    : REC_READER_AUTO },
					 .tick = o->progress && !latency ? progress_tick : NULL,
					 .tick_ms = o->progress && !latency ? REC_PROGRESS_MS : 0,
					 .poll_fd = -1, .arg = &prog },
				 &sess);
	prog.sess = sess;
	if (r)
		goto out;
	if (!o->no_filter && !(o->pids && o->pids->n) && !o->follow)
		nown = session_own_pids(sess, own, ARRAY_SIZE(own));
	r = rec_events_to_enable(o->events, own, nown, &enable);
	if (!r) {
		setup = (struct tr_setup){ .events = &enable, .triggers = o->setup->triggers };
		r = setup_apply(o->inst, &setup);
	}
	if (!r)
		r = follow_child(o, session_child(sess));
	/*
	 * Note that tracing_max_latency is a result, not a setting: it is left
	 * as the recording ends, matching the max buffer (cleared by the
	 * session's clearing of the buffer), as trace-cmd leaves it.
	 */
	if (!r && latency && (r = tfs_write(o->inst, "tracing_max_latency", "0", false)))
		tr_fail(r, "cannot reset tracing_max_latency: %s", strerror(-r));
	if (!r)
		r = session_run(sess);
	if (r)
		goto out;
	res->end = session_end(sess);
	res->child_status = session_child_status(sess);
	if (latency) {
		res->latency = true;
		r = rec_write_latency(o->fd, o->inst, &res->max_us, &res->latency_bytes);
		goto out;
	}
	res->reader_err = rec_error(session_rec(sess));
	if (has_snapshot_trigger(o->setup))
		snap = read_snapshot(o->inst, o->tmp_dir);
	r = rec_write_file(session_rec(sess), o->fd, o->inst, NULL, session_stats_before(sess),
			   o->file_flags, snap, session_clocks(sess), &res->sum);
out:
	free(prog.lost);
	rec_free(snap);
	session_free(sess);
	evsel_list_free(&enable);
	return r;
}
