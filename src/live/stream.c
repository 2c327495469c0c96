// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live formatting (see stream.h).
 *
 * Note that events are merged within a batch, not across batches: an event
 * a CPU hands over late can print after a later event of another CPU that
 * was already printed.  The readers hand over partly filled pages when idle
 * and batches are taken every STREAM_BATCH_MS, so this only happens when one CPU's
 * reader lags the others, as with trace-cmd stream.
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


struct queue {
	uint8_t *buf;
	size_t len, cap;
};

struct cursor {
	const struct tfile_layout *l;
	const uint8_t *buf;
	size_t len, pos;
	struct tfile_page pg;
	bool loaded;
	int cpu;
	uint64_t *bad;		/* the stream's count of corrupt sub-buffers */
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
	struct queue *q;	/* filled by the reader threads */
	struct queue *work;	/* taken by the formatting thread */
	char *clock;		/* the instance's trace_clock, for the time column */
	struct btf *btf;	/* this kernel's constants, for the kernel's printer */
};

/* Called from each CPU's reader thread. */
static int on_pages(void *arg, int cpu, const void *pages, size_t len)
{
	struct stream *s = arg;
	struct queue *q = &s->q[cpu];

	pthread_mutex_lock(&s->lock);
	if (q->len + len > q->cap) {
		q->cap = (q->len + len) * 2;
		q->buf = xrealloc(q->buf, q->cap);
	}
	memcpy(q->buf + q->len, pages, len);
	q->len += len;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int next_event(void *ctx, struct tfile_event *ev)
{
	struct cursor *c = ctx;
	uint32_t bad;

	for (;;) {
		int r;

		if (!c->loaded) {
			if (c->pos + c->l->page_size > c->len)
				return 0;
			/* page.h's rule: count a corrupt sub-buffer, skip it, go on. */
			if (tfile_page_load(&c->pg, c->l, c->buf + c->pos, c->l->page_size, &bad)) {
				(*c->bad)++;
				c->pos += c->l->page_size;
				continue;
			}
			c->pos += c->l->page_size;
			c->loaded = true;
		}
		r = tfile_page_next(&c->pg, ev, &bad);
		if (r == 1) {
			ev->cpu = c->cpu;
			return 1;
		}
		if (r < 0)
			(*c->bad)++;
		c->loaded = false;
	}
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

/* Format what the readers have handed over so far, merged by time. */
static int drain(struct stream *s)
{
	struct cursor *cur = xcalloc(s->ncpus, sizeof(*cur));
	struct fmt_merge *m = fmt_merge_new();
	struct tfile_event *ev;
	char *text = NULL;
	void *tag;
	int r = 0;

	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < s->ncpus; i++) {
		struct queue t = s->work[i];

		s->work[i] = s->q[i];
		s->q[i] = t;
		s->q[i].len = 0;
	}
	pthread_mutex_unlock(&s->lock);
	/* The kernel saves task names as it records events: learn the new ones. */
	if (!load_text(NULL, "saved_cmdlines", &text)) {
		fmt_src_cmdlines(s->src, text);
		free(text);
	}
	for (int i = 0; i < s->ncpus && !r; i++) {
		cur[i] = (struct cursor){ &s->layout, s->work[i].buf, s->work[i].len, 0, { 0 },
					  false, i, &s->bad_pages };
		if (s->work[i].len)
			r = fmt_merge_add(m, next_event, &cur[i], NULL);
	}
	while (!r && (r = fmt_merge_next(m, &ev, &tag)) == 1) {
		fmt_src_learn(s->src, ev);
		fmt_event(s->fmt, s->src, "", ev);
		r = 0;
	}
	if (!r)
		r = fmt_flush(s->fmt);
	fmt_merge_free(m);
	free(cur);
	return r;
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
	*ro = (struct rec_opts){ .fn = on_pages, .arg = s, .partial = true,
				 .idle_ms = STREAM_BATCH_MS / 2, .wake_percent = 5 };
}

static void stream_attach(struct stream *s, struct rec *rec)
{
	s->rec = rec;
	s->ncpus = rec_ncpus(rec);
	s->q = xcalloc(s->ncpus, sizeof(*s->q));
	s->work = xcalloc(s->ncpus, sizeof(*s->work));
	s->layout = *rec_layout(rec);
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
	r = drain(s);
	if (r == -EPIPE)
		return 1;	/* the reader of the output went away: end quietly */
	if (r && !tr_failure())
		r = tr_fail(r, "cannot write the events: %s", strerror(-r));
	return r;
}

static int stream_finish(struct stream *s)
{
	int r = drain(s);

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
		free(s->work[i].buf);
	}
	free(s->q);
	free(s->work);
	free(s->clock);
	btf_free(s->btf);
	pthread_mutex_destroy(&s->lock);
	free(s);
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
					    .tick_ms = STREAM_BATCH_MS, .arg = s };
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
