// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr top over a trace.dat file (-i): the same model and views, fed by the
 * file's CPUs merged in time order, one interval (-d) of trace time at a
 * time.  Interval k covers [first + k*d, first + (k+1)*d) of the file's
 * clock.  Going back re-reads the file from its start: the model only
 * moves forward, and a file is read much faster than it was recorded.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "top-echo.h"
#include "top-local.h"

/* Empty intervals replayed one by one before a stretch of them is crossed at once. */
#define REPLAY_GAP 10

struct cur {
	struct tfile_cursor *c;
	int cpu_index;
};

struct replay {
	struct top_source s;
	const struct top_opts *o;
	struct tfile *tf;
	int buffer;
	const char *bufname;
	struct top_decoder *dec;
	struct top_model *m;
	struct top_echo *echo;
	struct cur *curs;
	int ncurs;
	struct fmt_merge *merge;
	struct tfile_event *next;	/* the first event past the current interval */
	bool done;			/* the merge ran out */
	uint64_t first, last;		/* the file's first and last timestamps */
	long cur;			/* the interval shown; -1 before the first */
	long count;			/* intervals in the file */
	uint64_t fed;			/* events fed to the model so far */
	/* saved_tgids, for -P: pid -> tgid */
	int *tg_pid, *tg_tgid;
	size_t ntg;
	/* echo, re-read into the current interval when asked for */
	bool echo_on;
	enum top_field ef1, ef2;
	uint64_t ev1, ev2;
	bool lat_by_task;
	char pair[160];
	char state[128];
	char *source;
};

static int tgid_of(void *arg, int pid)
{
	struct replay *x = arg;

	for (size_t i = 0; i < x->ntg; i++)
		if (x->tg_pid[i] == pid)
			return x->tg_tgid[i];
	return -1;
}

static void tgid_line(void *arg, int pid, const char *rest, size_t len)
{
	struct replay *x = arg;
	long tgid = 0;
	size_t i;

	for (i = 0; i < len && rest[i] >= '0' && rest[i] <= '9' && tgid <= INT32_MAX; i++)
		tgid = tgid * 10 + (rest[i] - '0');
	if (!i || i < len || tgid <= 0 || tgid > INT32_MAX)
		return;
	if (x->ntg % 64 == 0) {
		x->tg_pid = xrealloc(x->tg_pid, (x->ntg + 64) * sizeof(int));
		x->tg_tgid = xrealloc(x->tg_tgid, (x->ntg + 64) * sizeof(int));
	}
	x->tg_pid[x->ntg] = pid;
	x->tg_tgid[x->ntg++] = (int)tgid;
}

/* saved_tgids has saved_cmdlines' shape, "PID TGID" lines. */
static void load_tgids(struct replay *x)
{
	tfile_cmdlines_each(tfile_tgids(x->tf), tgid_line, x);
}

static int cur_next(void *ctx, struct tfile_event *ev)
{
	return tfile_cursor_next(((struct cur *)ctx)->c, ev);
}

static void close_cursors(struct replay *x)
{
	if (x->merge)
		fmt_merge_free(x->merge);
	x->merge = NULL;
	for (int i = 0; i < x->ncurs; i++)
		tfile_cursor_free(x->curs[i].c);
	free(x->curs);
	x->curs = NULL;
	x->ncurs = 0;
	x->next = NULL;
	x->done = false;
}

/* From the start of the file: new cursors, a new model. */
static int rewind_file(struct replay *x)
{
	const struct tfile_buffer *b = tfile_buffer(x->tf, x->buffer);
	void *tag;
	int r = 0;

	close_cursors(x);
	top_model_free(x->m);
	x->m = top_model_new(&(struct top_model_opts){
		.ncpus = tfile_info(x->tf)->cpus > b->ncpus ? tfile_info(x->tf)->cpus : b->ncpus,
		.start_ts = x->first, .pids = x->o->pids, .npids = x->o->npids,
		.children = x->o->children, .lat_by_task = x->lat_by_task,
		.tgid_of = x->o->npids ? tgid_of : NULL, .tgid_arg = x, .names = x->dec });
	top_syscall_names(x->m);
	if (x->o->custom)
		r = top_model_set_custom(x->m, tfile_tep(x->tf), x->o->custom, false);
	x->merge = fmt_merge_new();
	x->curs = xcalloc(b->ncpus + 1, sizeof(*x->curs));
	for (int i = 0; i < b->ncpus && !r; i++) {
		x->curs[i].cpu_index = i;
		r = tfile_cursor_open(x->tf, x->buffer, i, &x->curs[i].c);
		x->ncurs = i + 1;
		if (!r)
			r = fmt_merge_add(x->merge, cur_next, &x->curs[i], &x->curs[i]);
	}
	if (!r) {
		r = fmt_merge_next(x->merge, &x->next, &tag);
		x->done = r == 0;
		r = r < 0 ? r : 0;
	}
	x->cur = -1;
	return r;
}

/* Feed the next interval; echo matching events when this is the one shown. */
static int feed_interval(struct replay *x, bool echo)
{
	uint64_t end = x->first + (uint64_t)(x->cur + 2) * x->o->interval_ns;
	void *tag;
	int r = 0;

	while (!x->done && x->next && x->next->ts < end) {
		struct top_rec rec;

		if (x->next->missed)
			top_model_lost(x->m, x->next->cpu, x->next->missed);
		top_decode(x->dec, x->next, &rec);
		top_model_feed(x->m, &rec, x->next);
		x->fed++;
		if (echo)
			top_echo_event(x->echo, &rec, x->next);
		r = fmt_merge_next(x->merge, &x->next, &tag);
		if (r <= 0) {
			x->done = true;
			break;
		}
		r = 0;
	}
	x->cur++;
	top_model_tick(x->m, end);
	top_model_cmdlines(x->m, tfile_cmdlines(x->tf));
	return r;
}

/* The interval that holds the next event (x->count when there is none). */
static long next_busy(const struct replay *x)
{
	if (x->done || !x->next || x->next->ts < x->first)
		return x->count;
	return (long)((x->next->ts - x->first) / x->o->interval_ns);
}

/*
 * Go to interval k (clamped to the file).  A stretch without events is
 * crossed in one step rather than an interval at a time (a file's two
 * timestamps can be centuries apart): the model ticks once at the start of
 * the interval before the target, which charges the whole gap, and then
 * ticks as usual, so the work is bounded by the events, not the time.
 */
static int seek(struct replay *x, long k, bool force)
{
	int r = 0;

	if (k >= x->count)
		k = x->count - 1;
	if (k < 0)
		k = 0;
	if (k < x->cur || force)
		r = rewind_file(x);
	top_echo_set(x->echo, x->echo_on, x->ef1, x->ev1, x->ef2, x->ev2, x->lat_by_task);
	while (!r && x->cur < k) {
		long j = next_busy(x), to = (j < k ? j : k) - 2;

		if (to > x->cur + REPLAY_GAP)
			x->cur = to;
		r = feed_interval(x, x->echo_on && x->cur + 1 == k);
	}
	return r;
}

static int op_frame(struct top_source *s, const struct top_state *st, bool advance,
		    struct top_table *t)
{
	struct replay *x = (struct replay *)s;
	struct top_stats stats;
	uint64_t a, b;
	int r;

	(void)advance;
	r = top_view_build(x->m, st, NULL, t);
	top_model_stats(x->m, &stats);
	a = x->first + (uint64_t)x->cur * x->o->interval_ns;
	b = a + x->o->interval_ns;
	snprintf(x->state, sizeof(x->state), "interval %ld of %ld, %llu.%06llu to %llu.%06llu",
		 x->cur + 1, x->count, (unsigned long long)(a / 1000000000),
		 (unsigned long long)(a % 1000000000 / 1000),
		 (unsigned long long)(b / 1000000000),
		 (unsigned long long)(b % 1000000000 / 1000));
	s->h = (struct top_header){
		.source = x->source, .elapsed_ns = b - x->first, .ncpus = stats.ncpus,
		.events = stats.events, .lost = stats.lost,
		.events_s = stats.interval_ns ? stats.events_d * 1e9 / stats.interval_ns : 0,
		.lost_s = stats.interval_ns ? stats.lost_d * 1e9 / stats.interval_ns : 0,
		.interval_s = x->o->interval_ns / 1e9, .enabled = "(what the file holds)",
		.state = x->state, .pair = x->pair };
	return r;
}

static void op_need(struct top_source *s, const struct top_view *v)
{
	(void)s;
	(void)v;
}

static void op_zero(struct top_source *s)
{
	top_model_zero(((struct replay *)s)->m);
}

static int op_step(struct top_source *s, long n)
{
	struct replay *x = (struct replay *)s;

	return seek(x, x->cur + n, false);
}

static int op_go(struct top_source *s, double ts)
{
	struct replay *x = (struct replay *)s;
	double first = x->first / 1e9;
	long k = ts <= first ? 0 : (long)((ts - first) * 1e9 / x->o->interval_ns);

	return seek(x, k, false);
}

static void op_echo(struct top_source *s, bool on, enum top_field f1, uint64_t v1,
		    enum top_field f2, uint64_t v2)
{
	struct replay *x = (struct replay *)s;

	x->echo_on = on;
	x->ef1 = f1, x->ev1 = v1, x->ef2 = f2, x->ev2 = v2;
	/* The shown interval again, with its events echoed. */
	if (on && seek(x, x->cur, true))
		tr_warn("%s", tr_failure());
	if (!on)
		top_echo_set(x->echo, false, TF_NONE, 0, TF_NONE, 0, false);
}

static size_t op_echo_lines(struct top_source *s, char **out, size_t max)
{
	return top_echo_lines(((struct replay *)s)->echo, out, max);
}

static void op_lat_by_task(struct top_source *s, bool on)
{
	struct replay *x = (struct replay *)s;

	x->lat_by_task = on;
	top_model_set_lat_by_task(x->m, on);
}

static const struct top_source_ops replay_ops = {
	.frame = op_frame, .need = op_need, .zero = op_zero, .step = op_step, .go = op_go,
	.echo = op_echo, .echo_lines = op_echo_lines, .lat_by_task = op_lat_by_task,
};

/* The buffer to show: -B NAME ("top" for the top level), else the first with events in it. */
static int pick_buffer(struct replay *x)
{
	const char *want = x->o->instance;

	for (int b = 0; b < tfile_nbuffers(x->tf); b++) {
		const struct tfile_buffer *buf = tfile_buffer(x->tf, b);
		const char *name = buf->name[0] ? buf->name : "top";

		bool data = false;

		for (int i = 0; i < buf->ncpus; i++)
			data |= buf->cpus[i].size > 0;
		/* A recording of an instance has an empty top-level buffer beside it. */
		if (buf->latency || (!data && !want))
			continue;
		if (!want || !strcmp(want, name)) {
			x->buffer = b;
			x->bufname = name;
			return 0;
		}
	}
	if (want)
		return tr_fail(-ENOENT, "no buffer '%s' in '%s'", want, x->o->input);
	return tr_fail(-ENOENT, "'%s' holds no ring-buffer events", x->o->input);
}

/* The first and last timestamps (one pass over every CPU). */
static int span(struct replay *x)
{
	const struct tfile_buffer *b = tfile_buffer(x->tf, x->buffer);
	bool any = false;
	int r = 0;

	for (int i = 0; i < b->ncpus && !r; i++) {
		struct tfile_cursor *c;
		struct tfile_event ev;

		r = tfile_cursor_open(x->tf, x->buffer, i, &c);
		if (r)
			break;
		while ((r = tfile_cursor_next(c, &ev)) == 1) {
			if (!any || ev.ts < x->first)
				x->first = ev.ts;
			if (!any || ev.ts > x->last)
				x->last = ev.ts;
			any = true;
		}
		tfile_cursor_free(c);
	}
	if (r < 0)
		return r;
	if (!any)
		return tr_fail(-ENOENT, "'%s' holds no events", x->o->input);
	x->count = (long)((x->last - x->first) / x->o->interval_ns) + 1;
	return 0;
}

/*
 * Batch output of the file: the view of st for each interval from the
 * first, at most n of them (0: all), in the -b format.  Of a stretch of
 * intervals without events only the first REPLAY_GAP are printed, so the
 * frames are bounded by the events, not by the time between them.
 */
static int print_all(struct replay *x, struct top_state *st, long n)
{
	long empty = 0;		/* frames without events printed in a row */
	int r = 0;

	if (!n || n > x->count)
		n = x->count;
	for (long k = 0, frames = 0; k < x->count && frames < n && !r && !tr_stop; k++) {
		struct top_table t;
		uint64_t fed = x->fed;

		/* After REPLAY_GAP empty frames, on to the next interval with events. */
		if (empty >= REPLAY_GAP && k < next_busy(x)) {
			k = next_busy(x);
			if (k >= x->count)
				break;
		}
		r = seek(x, k, false);
		empty = x->fed == fed ? empty + 1 : 0;
		if (!r)
			r = op_frame(&x->s, st, false, &t);
		if (!r) {
			r = top_batch_print(x->o->outf, x->o->out, &x->s.h, st, &t);
			top_table_free(&t);
			frames++;
		}
		if (r == -EPIPE)
			r = 0, frames = n;
	}
	return r;
}

int top_replay_run(const struct top_opts *o)
{
	struct replay x = { .o = o, .s = { .ops = &replay_ops, .replay = true }, .cur = -1,
			    .lat_by_task = o->lat_by_task };
	struct top_state st = { .view = o->view, .sort = -1, .sort_name = o->sort,
				.reverse = o->reverse };
	struct top_ui *ui = NULL;
	int r = tfile_open(o->input, 0, &x.tf);

	if (!r)
		r = pick_buffer(&x);
	if (!r)
		r = span(&x);
	if (!r) {
		r = top_decoder_new(tfile_tep(x.tf), o->lat, &x.dec);
		if (r && !o->lat) {
			struct top_lat_spec def;

			/* The default pair, when the file has both events. */
			tr_detail_clear();
			r = top_decoder_new(tfile_tep(x.tf), NULL, &x.dec);
			if (!r && !top_lat_parse(NULL, &def)) {
				struct top_decoder *d;

				if (!top_decoder_new(tfile_tep(x.tf), &def, &d)) {
					top_decoder_free(x.dec);
					x.dec = d;
				}
				top_lat_free(&def);
			}
		}
	}
	if (!r) {
		const struct top_lat_spec *l = o->lat;
		struct top_lat_spec def = { 0 };

		if (!l && !top_lat_parse(NULL, &def))
			l = &def;
		snprintf(x.pair, sizeof(x.pair), "from %s to %s where %s = %s", l->start, l->end,
			 l->start_field, l->end_field);
		top_lat_free(&def);
		load_tgids(&x);
		x.source = strcmp(x.bufname, "top") ? xasprintf("%s (buffer %s)", o->input, x.bufname)
						    : xstrdup(o->input);
		r = top_echo_new(tfile_tep(x.tf), tfile_cmdlines(x.tf), &x.echo);
	}
	if (!r)
		r = rewind_file(&x);
	if (!r && o->batch) {
		r = print_all(&x, &st, o->iterations);
	} else if (!r) {
		bool batch;

		r = seek(&x, 0, false);
		if (!r)
			r = top_ui_open(&x.s, o, &ui);
		if (!r)
			r = top_ui_loop(ui);
		batch = ui && top_ui_batch(ui, &st);
		if (ui)
			top_ui_close(ui);
		/* b: the screen is given back first, then the intervals go to it as text. */
		if (!r && batch)
			r = print_all(&x, &st, 0);
	}
	close_cursors(&x);
	top_model_free(x.m);
	top_echo_free(x.echo);
	top_decoder_free(x.dec);
	if (x.tf)
		tfile_close(x.tf);
	free(x.tg_pid);
	free(x.tg_tgid);
	free(x.source);
	return r;
}
