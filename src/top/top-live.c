// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr top, live: the session runner's readers hand whole sub-buffers to
 * on_pages() from each CPU's thread, and the events are decoded and counted
 * right there, under the model's lock (taken once per batch of pages, not
 * per event); nothing is queued.  The session's tick (the session thread)
 * closes an interval every -d seconds and prints it (batch) or lets the UI
 * read keys and redraw.
 *
 * The instance's trace_clock is set to "mono" (put back at exit), so that
 * the ticks' CLOCK_MONOTONIC and the events' timestamps are one clock: a
 * task that ran through a whole interval without a switch is charged up to
 * the tick.
 *
 * tr's own threads are left out of the events by common_pid filters, except
 * for sched_switch: leaving out the switches away from a reader would charge
 * its CPU time to whoever ran before it.  The model gets those pids as
 * hidden instead: their time counts as busy, they get no rows.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "evsel.h"
#include "hist.h"
#include "session.h"
#include "top-echo.h"
#include "top-local.h"

#define TICK_MS 50
#define MAX_OWN 512

struct live {
	struct top_source s;
	const struct top_opts *o;
	struct tfs_inst *in;
	struct tep_handle *tep;
	struct top_decoder *dec;
	struct top_model *m;
	struct session *sess;
	struct session_sink sink;	/* on_event() under its lock, from each CPU's reader */
	struct strv avail, enabled;
	pid_t own[MAX_OWN];
	size_t nown;
	const char *own_filter;	/* the session's "common_pid != A && ..." */
	uint64_t max_ts;
	bool mono;		/* trace_clock is CLOCK_MONOTONIC */
	uint64_t buffer_kb;
	struct top_lat_spec deflat;	/* the default pair, when --latency was not given */
	const struct top_lat_spec *lat;	/* the pair the decoder pairs, or NULL */
	struct top_echo *echo;
	uint64_t end_elapsed;	/* the session's length, once it ended */
	char pair[160];
	/* batch */
	struct top_state st;
	uint64_t next_due;
	long refreshes;
	int out_err;
	struct top_ui *ui;
	char state[128];
	char *enabled_text;
};

/* ---- the readers' side ---- */

static int on_event(void *arg, const struct tfile_event *ev)
{
	struct live *l = arg;
	struct top_rec r;

	if (ev->missed)
		top_model_lost(l->m, ev->cpu, ev->missed);
	top_decode(l->dec, ev, &r);
	if (ev->ts > l->max_ts)
		l->max_ts = ev->ts;
	top_model_feed(l->m, &r, ev);
	if (top_echo_on(l->echo))
		top_echo_event(l->echo, &r, ev);
	return 0;
}


/* ---- enabling what a view needs ---- */

static int enable(struct live *l, const char *sys, const char *ev, const char *filter)
{
	char *name = xasprintf("%s:%s", sys, ev), *path, *f = NULL;
	int r = 0;

	if (strv_contains(&l->enabled, name)) {
		free(name);
		return 0;
	}
	/* ftrace's own events (print: the trace_marker writes) are always on. */
	if (strcmp(sys, "ftrace")) {
		/* Not sched_switch: see the top of this file. */
		bool own = l->own_filter && strcmp(name, "sched:sched_switch");

		if (filter && own)
			f = xasprintf("(%s) && %s", filter, l->own_filter);
		else if (filter || own)
			f = xstrdup(filter ? filter : l->own_filter);
		if (f) {
			path = xasprintf("events/%s/%s/filter", sys, ev);
			r = tfs_set(l->in, path, f);
			free(path);
			if (r)
				r = tr_fail(r, "bad filter for '%s': '%s': %s", name, f, strerror(-r));
		}
		if (!r) {
			path = xasprintf("events/%s/%s/enable", sys, ev);
			r = tfs_set(l->in, path, "1");
			free(path);
			if (r)
				r = tr_fail(r, "cannot enable event '%s': %s", name, strerror(-r));
		}
	}
	if (!r)
		strv_push_owned(&l->enabled, name);
	else
		free(name);
	free(f);
	free(l->enabled_text);
	l->enabled_text = NULL;
	return r;
}

static int enable_name(struct live *l, const char *sysev, const char *filter)
{
	char *sys = xstrdup(sysev), *ev = strchr(sys, ':');
	int r;

	*ev++ = '\0';
	r = enable(l, sys, ev, filter);
	free(sys);
	return r;
}

/* The first of "a|b" this kernel has, or NULL. */
static char *pick(const struct live *l, const char *need)
{
	char *alts = xstrdup(need), *save = NULL, *found = NULL;

	for (char *a = strtok_r(alts, "|", &save); a && !found; a = strtok_r(NULL, "|", &save))
		if (strv_contains(&l->avail, a))
			found = xstrdup(a);
	free(alts);
	return found;
}

/* The view's needed events this kernel lacks, "" if none; *all: it lacks every one. */
static char *missing_of(const struct live *l, const struct top_view *v, bool *all)
{
	char *out = xstrdup("");
	size_t n = 0, have = 0;

	for (size_t i = 0; v->needs[i]; i++, n++) {
		char *p = pick(l, v->needs[i]), *t;

		if (p) {
			have++;
			free(p);
			continue;
		}
		t = xasprintf("%s%s%s", out, *out ? " " : "", v->needs[i]);
		free(out);
		out = t;
	}
	*all = n && !have;
	return out;
}

static int need(struct live *l, const struct top_view *v)
{
	int r = 0;

	for (size_t i = 0; v->needs[i] && !r; i++) {
		char *p = pick(l, v->needs[i]);

		if (p)
			r = enable_name(l, p, NULL);
		free(p);
	}
	if (!r && v->src == TS_LATENCY && l->lat) {
		r = enable_name(l, l->lat->start, NULL);
		if (!r)
			r = enable_name(l, l->lat->end, NULL);
	}
	if (!r && v->src == TS_CUSTOM && l->o->custom) {
		char *n = xasprintf("%s:%s", l->o->custom->system, l->o->custom->event);

		r = enable_name(l, n, NULL);
		free(n);
	}
	return r;
}

static void op_need(struct top_source *s, const struct top_view *v)
{
	struct live *l = (struct live *)s;

	/* The UI cannot stop for an error here: the view says what is missing instead. */
	if (need(l, v))
		tr_warn("%s", tr_failure());
}

/* ---- frames ---- */

static uint64_t trace_now(const struct live *l)
{
	/* Without the mono clock the newest event is the best guess of "now". */
	return l->mono ? tr_now_ns() : l->max_ts;
}

static const char *enabled_text(struct live *l)
{
	if (!l->enabled_text) {
		struct strv sorted = { 0 };
		size_t len = 1;
		char *t;

		for (size_t i = 0; i < l->enabled.n; i++)
			strv_push(&sorted, l->enabled.v[i]);
		strv_sort(&sorted);
		for (size_t i = 0; i < sorted.n; i++)
			len += strlen(sorted.v[i]) + 1;
		t = xcalloc(1, len);
		for (size_t i = 0; i < sorted.n; i++) {
			if (i)
				strcat(t, " ");
			strcat(t, sorted.v[i]);
		}
		strv_free(&sorted);
		l->enabled_text = t;
	}
	return l->enabled_text;
}

static int op_frame(struct top_source *s, const struct top_state *st, bool advance,
		    struct top_table *t)
{
	struct live *l = (struct live *)s;
	struct top_stats stats;
	char *cmdlines = NULL, *missing;
	bool all = false;
	int r;

	/* Names the kernel saved for tasks no event named: read before taking the lock. */
	if (advance && !s->ended && tfs_read(NULL, "saved_cmdlines", &cmdlines))
		cmdlines = NULL;
	missing = missing_of(l, st->view, &all);
	pthread_mutex_lock(&l->sink.lock);
	if (advance && !s->ended)
		top_model_tick(l->m, trace_now(l));
	if (cmdlines)
		top_model_cmdlines(l->m, cmdlines);
	r = top_view_build(l->m, st, missing, t);
	t->unavailable |= all;
	top_model_stats(l->m, &stats);
	s->h.bad_pages = l->sink.st.bad_pages;
	pthread_mutex_unlock(&l->sink.lock);
	free(cmdlines);
	free(missing);
	s->h.source = "live";
	s->h.elapsed_ns = s->ended ? l->end_elapsed : session_elapsed_ns(l->sess);
	s->h.ncpus = stats.ncpus;
	s->h.events = stats.events;
	s->h.lost = stats.lost;
	s->h.interval_s = stats.interval_ns / 1e9;
	s->h.events_s = stats.interval_ns ? stats.events_d * 1e9 / stats.interval_ns : 0;
	s->h.lost_s = stats.interval_ns ? stats.lost_d * 1e9 / stats.interval_ns : 0;
	s->h.buffer_kb = l->buffer_kb;
	s->h.enabled = enabled_text(l);
	s->h.state = l->state;
	s->h.pair = l->pair;
	return r;
}

static void op_zero(struct top_source *s)
{
	struct live *l = (struct live *)s;

	pthread_mutex_lock(&l->sink.lock);
	top_model_zero(l->m);
	pthread_mutex_unlock(&l->sink.lock);
}

static int make_echo(struct live *l);

static void op_echo(struct top_source *s, bool on, enum top_field f1, uint64_t v1,
		    enum top_field f2, uint64_t v2)
{
	struct live *l = (struct live *)s;

	pthread_mutex_lock(&l->sink.lock);
	/*
	 * Made at its first use, not at start-up: reading saved_cmdlines into
	 * a formatter took a fifth of top's start-up, for a view few open.
	 * Without it (it could not be made) the view stays empty.
	 */
	if (on && !l->echo)
		make_echo(l);
	if (l->echo)
		top_echo_set(l->echo, on, f1, v1, f2, v2, top_model_lat_by_task(l->m));
	pthread_mutex_unlock(&l->sink.lock);
}

static size_t op_echo_lines(struct top_source *s, char **out, size_t max)
{
	struct live *l = (struct live *)s;
	size_t n;

	pthread_mutex_lock(&l->sink.lock);
	n = l->echo ? top_echo_lines(l->echo, out, max) : 0;
	pthread_mutex_unlock(&l->sink.lock);
	return n;
}

static void op_lat_by_task(struct top_source *s, bool on)
{
	struct live *l = (struct live *)s;

	pthread_mutex_lock(&l->sink.lock);
	top_model_set_lat_by_task(l->m, on);
	pthread_mutex_unlock(&l->sink.lock);
}

static const struct top_source_ops live_ops = {
	.frame = op_frame, .need = op_need, .zero = op_zero, .echo = op_echo,
	.echo_lines = op_echo_lines, .lat_by_task = op_lat_by_task,
};

/* ---- batch ---- */

static int batch_refresh(struct live *l)
{
	struct top_table t;
	int r = op_frame(&l->s, &l->st, true, &t);

	if (!r)
		r = top_batch_print(l->o->outf, l->o->out, &l->s.h, &l->st, &t);
	top_table_free(&t);
	return r;
}

/*
 * Tracing starts now: the model's clock starts here, not when it was made.
 * Setting up (clearing buffers, starting readers) can take a second in a
 * slow VM, and that second would be billed to each CPU's first task.
 */
static void live_start(void *arg, uint64_t now)
{
	struct live *l = arg;

	l->next_due = now + l->o->interval_ns;
	if (!l->mono)
		return;		/* the model's times are the events' own: nothing to align */
	pthread_mutex_lock(&l->sink.lock);
	top_model_start(l->m, now);
	pthread_mutex_unlock(&l->sink.lock);
}

static int live_tick(void *arg, bool fd_ready)
{
	struct live *l = arg;
	uint64_t now;
	int r;

	if (l->ui)
		return top_ui_tick(l->ui, fd_ready);
	now = tr_now_ns();
	if (now < l->next_due)
		return 0;
	l->next_due += l->o->interval_ns;
	if (l->next_due <= now)
		l->next_due = now + l->o->interval_ns;
	r = batch_refresh(l);
	if (r) {
		l->out_err = r;
		return 1;	/* the output is gone (a closed pipe): end quietly */
	}
	l->refreshes++;
	return l->o->iterations && l->refreshes >= l->o->iterations;
}

/* ---- set-up ---- */

static int tgid_of(void *arg, int pid)
{
	char *path = xasprintf("/proc/%d/status", pid), *text = NULL, *p;
	size_t len;
	int tgid = -1;

	(void)arg;
	if (!read_file(path, &text, &len) && (p = strstr(text, "\nTgid:")))
		tgid = atoi(p + 6);
	free(text);
	free(path);
	return tgid;
}

/* The event formats of the systems tr top reads, and those the user asked for. */
static int load_tep(struct live *l)
{
	struct strv sys = { 0 };
	static const char *const base[] = { "sched", "task", "irq", "raw_syscalls", "ftrace" };
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(base); i++)
		strv_push(&sys, base[i]);
	if (l->o->events && l->o->events->n) {
		struct evmatch *m = NULL;
		size_t n = 0;

		r = evsel_resolve(l->o->events, &l->avail, &m, &n);
		for (size_t i = 0; i < n && !r; i++)
			if (!strv_contains(&sys, m[i].system))
				strv_push(&sys, m[i].system);
		evmatch_free(m, n);
	}
	if (!r && l->o->custom && !strv_contains(&sys, l->o->custom->system))
		strv_push(&sys, l->o->custom->system);
	for (int side = 0; !r && l->lat && side < 2; side++) {
		char *s = xstrdup(side ? l->lat->end : l->lat->start), *c = strchr(s, ':');

		if (c)
			*c = '\0';
		if (!strv_contains(&sys, s))
			strv_push(&sys, s);
		free(s);
	}
	if (!r)
		l->tep = session_tep(&(struct session_tep_opts){ .systems = &sys });
	/* Only a custom view keyed on .sym shows kernel symbols. */
	if (!r && l->o->custom)
		hist_spec_load_syms(l->o->custom, l->tep);
	strv_free(&sys);
	return r;
}

/*
 * Setting the trace clock resets the buffer, which waits for an RCU grace
 * period (some 25 ms here, a third of top's start-up): in top's own
 * instance, which goes at exit with its clock, it is done on a thread
 * while the formats load.
 */
struct mono_set {
	const struct tfs_inst *in;
	pthread_t thread;
	bool running;
	int r;
};

static void *set_mono(void *arg)
{
	struct mono_set *m = arg;

	m->r = tfs_write_plain(m->in, "trace_clock", "mono");
	return NULL;
}

/* 0 when the instance's trace_clock is mono now. */
static int mono_done(struct mono_set *m)
{
	if (m->running) {
		pthread_join(m->thread, NULL);
		m->running = false;
		return m->r;
	}
	return tfs_set(m->in, "trace_clock", "mono");
}

/* setup()'s reading: the events there are, their formats, the latency pair. */
static int setup_formats(struct live *l)
{
	static const char *const marks[] = { "print", "raw_data", "bprint", "bputs" };
	const struct top_opts *o = l->o;
	int r;

	/* Without --latency the latency view shows the default pair, when the kernel has it. */
	l->lat = o->lat;
	if (!l->lat && !top_lat_parse(NULL, &l->deflat))
		l->lat = &l->deflat;
	r = tfs_events(l->in, &l->avail);
	if (r)
		return tr_fail(r, "cannot read available_events: %s", strerror(-r));
	/*
	 * The ftrace events of trace_marker and trace_printk are always on,
	 * so available_events leaves them out; -e ftrace:print still names one.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
		char *fmt = xasprintf("events/ftrace/%s/format", marks[i]);

		if (tfs_exists(NULL, fmt))
			strv_push_owned(&l->avail, xasprintf("ftrace:%s", marks[i]));
		free(fmt);
	}
	strv_sort(&l->avail);
	r = load_tep(l);
	if (r)
		return r;
	if (o->custom) {
		char *n = xasprintf("%s:%s", o->custom->system, o->custom->event);

		if (!strv_contains(&l->avail, n))
			r = tr_fail(-ENOENT, "no such event '%s'", n);
		free(n);
		if (r)
			return r;
	}
	/* The latency pair: an error when asked for, a view that says so when only defaulted. */
	r = top_decoder_new(l->tep, l->lat, &l->dec);
	if (r && !o->lat) {
		tr_detail_clear();
		l->lat = NULL;
		r = top_decoder_new(l->tep, NULL, &l->dec);
	}
	if (r)
		return r;
	if (l->lat)
		snprintf(l->pair, sizeof(l->pair), "from %s to %s where %s = %s", l->lat->start,
			 l->lat->end, l->lat->start_field, l->lat->end_field);
	else
		snprintf(l->pair, sizeof(l->pair), "no latency pair on this kernel (--latency)");
	return 0;
}

static int setup(struct live *l)
{
	struct mono_set mono = { .in = l->in };
	char *text = NULL;
	int r;

	if (l->in->created && !pthread_create(&mono.thread, NULL, set_mono, &mono))
		mono.running = true;
	r = setup_formats(l);
	/* Tracing stamps in CLOCK_MONOTONIC, the clock of the ticks. */
	l->mono = !mono_done(&mono);
	if (r)
		return r;
	if (!tfs_read(l->in, "buffer_size_kb", &text))
		l->buffer_kb = strtoull(text, NULL, 10);
	free(text);
	return 0;
}

static int make_echo(struct live *l)
{
	char *text = NULL;
	int r;

	if (tfs_read(NULL, "saved_cmdlines", &text))
		text = NULL;
	r = top_echo_new(l->tep, text, &l->echo);
	free(text);
	return r;
}

static void live_free(struct live *l)
{
	top_model_free(l->m);
	top_decoder_free(l->dec);
	top_echo_free(l->echo);
	if (l->tep)
		tep_free(l->tep);
	top_lat_free(&l->deflat);
	strv_free(&l->avail);
	strv_free(&l->enabled);
	free(l->enabled_text);
	session_sink_destroy(&l->sink);
}

/*
 * The readers are open and the command held: what -e asked for (with its
 * -f filters) and what the first view needs, on; the model; the screen.
 */
static int top_prepare(void *arg, struct session *sess)
{
	struct live *l = arg;
	const struct top_opts *o = l->o;
	int r = 0;

	l->sess = sess;
	l->nown = session_own_pids(sess, l->own, MAX_OWN);
	l->own_filter = session_own_filter(sess);
	if (o->events && o->events->n) {
		struct evmatch *m = NULL;
		size_t n = 0;

		r = evsel_resolve(o->events, &l->avail, &m, &n);
		for (size_t i = 0; i < n && !r; i++)
			r = enable(l, m[i].system, m[i].event, m[i].filter);
		evmatch_free(m, n);
	}
	if (!r)
		r = need(l, o->view);
	if (r)
		return r;
	l->m = top_model_new(&(struct top_model_opts){
		.ncpus = rec_ncpus(session_rec(sess)), .start_ts = tr_now_ns(),
		.pids = o->pids, .npids = o->npids, .children = o->children,
		.hidden = l->own, .nhidden = l->nown, .lat_by_task = o->lat_by_task,
		.tgid_of = o->npids ? tgid_of : NULL, .names = l->dec });
	top_syscall_names(l->m);
	if (o->custom)
		r = top_model_set_custom(l->m, l->tep, o->custom, true);
	if (r)
		return r;
	l->st = (struct top_state){ .view = o->view, .sort = -1, .sort_name = o->sort,
				    .reverse = o->reverse };
	l->next_due = tr_now_ns() + o->interval_ns;
	return o->batch ? 0 : top_ui_open(&l->s, o, &l->ui);
}

/*
 * The session ended: what came in since the last tick, in one last
 * interval; the state line says why; the final view stays on the screen
 * until q, or in batch the last (partial) interval prints too, unless -n
 * was reached.
 */
static int top_finish(void *arg, struct session *sess, struct session_result *res)
{
	struct live *l = arg;
	int r = 0;

	if (res->err)
		return 0;
	pthread_mutex_lock(&l->sink.lock);
	top_model_tick(l->m, trace_now(l));
	pthread_mutex_unlock(&l->sink.lock);
	l->end_elapsed = session_elapsed_ns(sess);
	l->s.ended = true;
	if (res->end == SESSION_CHILD_EXITED) {
		snprintf(l->state, sizeof(l->state), "%s", res->child_text);
		if (l->ui)
			r = top_ui_loop(l->ui);
	} else if (res->end == SESSION_STOPPED) {
		snprintf(l->state, sizeof(l->state), "stopped by signal %d", (int)tr_stop_signal);
	}
	if (!r && !l->ui && !l->out_err && res->end != SESSION_TICK)
		l->out_err = batch_refresh(l);
	return r;
}

int top_live_run(const struct top_opts *o)
{
	struct live l = { .o = o, .in = o->inst, .s = { .ops = &live_ops } };
	int r;

	session_sink_init(&l.sink, on_event, &l);
	snprintf(l.state, sizeof(l.state), "running");
	r = setup(&l);
	tr_phase("formats loaded");
	if (!r) {
		const struct session_tool tool = { .prepare = top_prepare, .on_start = live_start,
						   .tick = live_tick, .tick_ms = TICK_MS,
						   .poll_stdin = !o->batch, .finish = top_finish,
						   .shows_bad_pages = true };
		/*
		 * Partly filled pages too, so an idle CPU's events are counted
		 * within the interval; woken at 5% full so a burst does not
		 * overrun the buffer before its reader runs.
		 */
		r = session_tool_run(&(struct session_opts){
					     .inst = l.in, .command = o->command, .sink = &l.sink,
					     .rec = { .partial = true, .idle_ms = 100,
						      .wake_percent = 5 } },
				     &tool, &l);
		l.sess = NULL;
	}
	if (l.ui)
		top_ui_close(l.ui);
	if (!r && l.out_err && l.out_err != -EPIPE)
		r = tr_fail(l.out_err, "cannot write the output: %s", strerror(-l.out_err));
	live_free(&l);
	return r;
}
