// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live formatting (see stream.h).
 *
 * Note that the readers hand over partly filled sub-buffers only after
 * their CPU was quiet for a while (rec_opts.idle_ms), so a CPU's events
 * can come long after a busy CPU's later ones: stream-order.c holds each
 * event until the other CPUs have caught up with it, or --max-delay.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <event-parse.h>

#include "btf.h"
#include "rec.h"
#include "session.h"
#include "stream.h"


/* One hand-over of a reader: its place in the queue, and when it came. */
struct chunk {
	size_t off, len;
	uint64_t seq, ns;
};

struct queue {
	uint8_t *buf;
	size_t len, cap;
	struct chunk *ch;
	size_t nch, chcap;
	uint64_t idle_seq;	/* the reader's last report of an empty buffer */
};

struct stream {
	struct stream_opts o;
	struct rec *rec;		/* the session's; not ours to free */
	uint64_t bad_pages;
	struct tep_handle *tep;
	struct session_lazy *lazy;	/* the formats as the records need them */
	struct fmt *fmt;
	struct fmt_src *src;
	struct tfile_layout layout;
	int ncpus;
	pthread_mutex_t lock;
	uint64_t seq;		/* orders the hand-overs and idle reports (under lock) */
	struct queue *q;	/* filled by the reader threads */
	struct queue *work;	/* taken by the formatting thread */
	struct stream_order *order;
	char *clock;		/* the instance's trace_clock, for the time column */
	struct btf *btf;	/* this kernel's constants, for the kernel's printer */
};

/* Called from each CPU's reader thread. */
static int on_pages(void *arg, int cpu, const void *pages, size_t len)
{
	struct stream *s = arg;
	struct queue *q = &s->q[cpu];
	uint64_t now = tr_now_ns();

	pthread_mutex_lock(&s->lock);
	if (q->len + len > q->cap) {
		q->cap = (q->len + len) * 2;
		q->buf = xrealloc(q->buf, q->cap);
	}
	if (q->nch == q->chcap) {
		q->chcap = q->chcap ? q->chcap * 2 : 16;
		q->ch = xrealloc(q->ch, q->chcap * sizeof(*q->ch));
	}
	memcpy(q->buf + q->len, pages, len);
	q->ch[q->nch++] = (struct chunk){ q->len, len, ++s->seq, now };
	q->len += len;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* Called from a CPU's reader thread when it found the buffer empty. */
static void on_idle(void *arg, int cpu)
{
	struct stream *s = arg;

	pthread_mutex_lock(&s->lock);
	s->q[cpu].idle_seq = ++s->seq;
	pthread_mutex_unlock(&s->lock);
}

static int load_text(const struct tfs_inst *in, const char *file, char **out)
{
	int r = tfs_read(in, file, out);

	if (r == -ENOENT && in)
		r = tfs_read(NULL, file, out);
	return r;
}

/* The kernel's printer parses the print fmt from the event's format file. */
static char *live_format(void *ctx, const char *system, const char *name)
{
	char *path = xasprintf("events/%s/%s/format", system, name), *text = NULL;

	(void)ctx;
	if (tfs_read(NULL, path, &text))
		text = NULL;
	free(path);
	return text;
}

struct hold_ctx {
	struct stream *s;
	const struct chunk *ch;
};

static int hold_event(void *arg, const struct tfile_event *ev)
{
	struct hold_ctx *h = arg;

	stream_order_add(h->s->order, ev, h->ch->seq, h->ch->ns);
	return 0;
}

/*
 * Take what the readers have handed over so far, and print what may print
 * by now (all of it at the end), in time order across CPUs.
 */
static int drain(struct stream *s, bool all)
{
	struct tfile_walk_stats st = { 0 };
	struct tfile_event ev;
	char *text = NULL;

	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < s->ncpus; i++) {
		struct queue t = s->work[i];

		s->work[i] = s->q[i];
		s->q[i] = t;
		s->q[i].len = 0;
		s->q[i].nch = 0;
		s->q[i].idle_seq = s->work[i].idle_seq;
	}
	pthread_mutex_unlock(&s->lock);
	for (int i = 0; i < s->ncpus; i++) {
		struct queue *w = &s->work[i];

		for (size_t k = 0; k < w->nch; k++)
			tfile_pages_walk(&s->layout, i, w->buf + w->ch[k].off, w->ch[k].len,
					 hold_event, &(struct hold_ctx){ s, &w->ch[k] }, &st);
		if (w->idle_seq)
			stream_order_idle(s->order, i, w->idle_seq);
	}
	s->bad_pages += st.bad_pages;
	stream_order_due(s->order, tr_now_ns(), all);
	/* The kernel saves task names as it records events: learn the new ones. */
	if (!load_text(NULL, "saved_cmdlines", &text)) {
		fmt_src_cmdlines(s->src, text);
		free(text);
	}
	while (stream_order_next(s->order, &ev) == 1) {
		fmt_src_learn(s->src, &ev);
		fmt_event(s->fmt, s->src, "", &ev);
	}
	return fmt_flush(s->fmt);
}

/* This kernel's BTF, read when a format first names a constant (it is megabytes). */
static const struct btf *stream_btf(void *arg)
{
	struct stream *s = arg;
	char *text = NULL;
	size_t len;

	if (!read_file("/sys/kernel/btf/vmlinux", &text, &len))
		s->btf = btf_load(text, len);
	free(text);
	return s->btf;
}

static int stream_new(const struct stream_opts *o, FILE *out, struct stream **out_s)
{
	struct stream *s = xcalloc(1, sizeof(*s));
	char *text = NULL;
	int r;

	s->o = *o;
	pthread_mutex_init(&s->lock, NULL);
	*out_s = s;
	/*
	 * Only ftrace's own formats now (the printer's, and those of the events
	 * that need no enabling); the rest as their first records come.  A
	 * filter is compiled for the events the tep has: then all of them.
	 */
	if (o->filters && o->filters->n)
		s->tep = session_tep(&(struct session_tep_opts){ .all = true });
	else
		s->tep = session_tep(&(struct session_tep_opts){
			.systems = &(struct strv){ .v = (char *[]){ "ftrace" }, .n = 1 },
			.printk = true });
	if (!s->tep)
		return tr_fail(-EIO, "cannot load the event formats from %s", tfs_root());
	tr_phase("formats loaded");
	s->fmt = fmt_new(out, &o->fo);
	s->src = fmt_src_new(s->fmt, s->tep);
	if (!(o->filters && o->filters->n)) {
		s->lazy = session_lazy_new(o->inst);
		fmt_src_lazy(s->src, session_lazy_event, session_lazy_syms, s->lazy);
	}
	if (!load_text(NULL, "saved_cmdlines", &text))
		fmt_src_cmdlines(s->src, text);
	free(text);
	if (!load_text(NULL, "saved_tgids", &text))
		fmt_src_tgids(s->src, text);
	free(text);
	for (size_t i = 0; o->filters && i < o->filters->n; i++)
		if ((r = fmt_src_filter(s->src, o->filters->v[i])))
			return r;
	fmt_src_filter_invert(s->src, o->invert);
	if (!o->fo.lib) {
		struct utsname u;

		fmt_src_formats(s->src, live_format, NULL);
		if (!s->lazy)
			fmt_src_tep_symbols(s->src);
		fmt_src_vmemmap(s->src, fmt_running_vmemmap());
		if (!uname(&u))
			fmt_src_kernel(s->src, u.release);
		if (!load_text(NULL, "printk_formats", &text))
			fmt_src_printk(s->src, text);
		free(text);
		fmt_src_btf_lazy(s->src, stream_btf, s);
	}
	tr_phase("printer ready");
	return 0;
}

static void stream_rec_opts(struct stream *s, struct rec_opts *ro)
{
	*ro = (struct rec_opts){ .fn = on_pages, .idle = on_idle, .arg = s, .partial = true,
				 .idle_ms = STREAM_BATCH_MS / 2, .wake_percent = 5 };
}

static void stream_attach(struct stream *s, struct rec *rec)
{
	s->rec = rec;
	s->ncpus = rec_ncpus(rec);
	s->q = xcalloc(s->ncpus, sizeof(*s->q));
	s->work = xcalloc(s->ncpus, sizeof(*s->work));
	s->layout = *rec_layout(rec);
	s->order = stream_order_new(s->ncpus, s->o.max_delay_ns);
	for (int i = 0; i < s->ncpus; i++)
		if (!rec_has_cpu(rec, i))
			stream_order_idle(s->order, i, UINT64_MAX);
	/*
	 * How the instance prints (sym-offset, raw, context-info, ...), as a
	 * file keeps it: the options set up by now, -O among them.
	 */
	if (!s->o.fo.lib) {
		char *text = tfs_text_options(s->o.inst);

		fmt_src_graph_opts(s->src, text);
		free(text);
	}
	/* The clock set up by now is the one the timestamps count in. */
	if (!load_text(s->o.inst, "trace_clock", &s->clock))
		fmt_src_clock(s->src, s->clock, false);
}

static int stream_tick(void *arg, bool fd_ready)
{
	struct stream *s = arg;
	int r;

	(void)fd_ready;
	r = drain(s, false);
	if (r == -EPIPE)
		return 1;	/* the reader of the output went away: end quietly */
	if (r && !tr_failure())
		r = tr_fail(r, "cannot write the events: %s", strerror(-r));
	return r;
}

static int stream_finish(struct stream *s)
{
	int r = drain(s, true);

	if (r == -EPIPE)
		r = 0;
	else if (r && !tr_failure())
		r = tr_fail(r, "cannot write the events: %s", strerror(-r));
	if (s->bad_pages)
		tr_warn("%llu corrupt sub-buffers from the kernel were skipped",
			(unsigned long long)s->bad_pages);
	return r;
}

static void stream_free(struct stream *s)
{
	if (!s)
		return;
	if (s->src)
		fmt_src_free(s->src);
	if (s->fmt)
		fmt_free(s->fmt);
	if (s->tep)
		tep_free(s->tep);
	session_lazy_free(s->lazy);
	for (int i = 0; s->q && i < s->ncpus; i++) {
		free(s->q[i].buf);
		free(s->q[i].ch);
		free(s->work[i].buf);
		free(s->work[i].ch);
	}
	stream_order_free(s->order);
	free(s->q);
	free(s->work);
	free(s->clock);
	btf_free(s->btf);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Often enough that nothing waits much past --max-delay, and never less than 10 ms. */
static unsigned stream_tick_ms(const struct stream_opts *o)
{
	uint64_t ms = o->max_delay_ns / 2000000;

	if (!o->max_delay_ns || ms > STREAM_BATCH_MS)
		return STREAM_BATCH_MS;
	return ms < 10 ? 10 : (unsigned)ms;
}

int stream_run(const struct stream_opts *o, FILE *out)
{
	struct session *sess = NULL;
	struct stream *s = NULL;
	struct session_opts so;
	int r;

	r = stream_new(o, out, &s);
	if (!r) {
		so = (struct session_opts){ .inst = o->inst, .duration_ns = o->duration_ns,
					    .command = o->command, .setup = o->setup,
					    .events = o->events, .no_filter = o->no_filter,
					    .follow = o->follow, .tick = stream_tick,
					    .tick_ms = stream_tick_ms(o), .arg = s };
		stream_rec_opts(s, &so.rec);
		r = session_open(&so, &sess);
	}
	if (!r) {
		stream_attach(s, session_rec(sess));
		r = session_run(sess);
	}
	/* What the readers handed over last, even after a reader's error. */
	if (sess && session_rec(sess) && s->q) {
		int rr = stream_finish(s);

		if (!r)
			r = rr;
	}
	session_free(sess);
	stream_free(s);
	return r;
}
