// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live formatting (see stream.h).
 *
 * Note that events are merged within a batch, not across batches: an event
 * a CPU hands over late can print after a later event of another CPU that
 * was already printed.  The readers hand over partly filled pages when idle
 * and batches are taken every BATCH_MS, so this only happens when one CPU's
 * reader lags the others, as with trace-cmd stream.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>

#include "btf.h"
#include "rec.h"
#include "stream.h"

#define BATCH_MS 100

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
};

struct stream {
	struct stream_opts o;
	struct rec *rec;
	struct tep_handle *tep;
	struct fmt *fmt;
	struct fmt_src *src;
	struct tfile_layout layout;
	int ncpus;
	pthread_mutex_t lock;
	struct queue *q;	/* filled by the reader threads */
	struct queue *work;	/* taken by the formatting thread */
	int efd;
	char *clock;		/* the instance's trace_clock, for the time column */
	struct btf *btf;	/* this kernel's constants, for the kernel's printer */
};

/* Called from each CPU's reader thread. */
static int on_pages(void *arg, int cpu, const void *pages, size_t len)
{
	struct stream *s = arg;
	struct queue *q = &s->q[cpu];
	uint64_t one = 1;

	pthread_mutex_lock(&s->lock);
	if (q->len + len > q->cap) {
		q->cap = (q->len + len) * 2;
		q->buf = xrealloc(q->buf, q->cap);
	}
	memcpy(q->buf + q->len, pages, len);
	q->len += len;
	pthread_mutex_unlock(&s->lock);
	if (write(s->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return -errno;
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
			if (tfile_page_load(&c->pg, c->l, c->buf + c->pos, c->l->page_size, &bad))
				return tr_fail(-EBADMSG, "cpu %d: corrupt sub-buffer from the kernel",
					       c->cpu);
			c->pos += c->l->page_size;
			c->loaded = true;
		}
		r = tfile_page_next(&c->pg, ev, &bad);
		if (r == 1) {
			ev->cpu = c->cpu;
			return 1;
		}
		if (r < 0)
			return tr_fail(-EBADMSG, "cpu %d: corrupt event from the kernel", c->cpu);
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
					  false, i };
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

int stream_open(const struct stream_opts *o, FILE *out, struct stream **out_s)
{
	struct stream *s = xcalloc(1, sizeof(*s));
	char *text = NULL;
	int r;

	s->o = *o;
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&s->lock, NULL);
	*out_s = s;
	if (s->efd < 0)
		return tr_fail(-errno, "eventfd: %s", strerror(errno));
	r = rec_open(&(struct rec_opts){ .inst = o->inst, .fn = on_pages, .arg = s, .partial = true,
					 .idle_ms = BATCH_MS / 2, .wake_percent = 5 },
		     &s->rec);
	if (r)
		return r;
	s->ncpus = rec_ncpus(s->rec);
	s->q = xcalloc(s->ncpus, sizeof(*s->q));
	s->work = xcalloc(s->ncpus, sizeof(*s->work));
	s->tep = tracefs_local_events(tfs_root());
	if (!s->tep)
		return tr_fail(-EIO, "cannot load the event formats from %s", tfs_root());
	r = load_text(NULL, "events/header_page", &text);
	if (!r)
		r = tfile_layout_parse(&s->layout, text, strlen(text), false, rec_page_size(s->rec));
	free(text);
	if (r)
		return tr_fail(r, "cannot read events/header_page: %s", strerror(-r));
	s->fmt = fmt_new(out, &o->fo);
	s->src = fmt_src_new(s->fmt, s->tep);
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
		size_t len;

		struct utsname u;

		fmt_src_formats(s->src, live_format, NULL);
		fmt_src_tep_symbols(s->src);
		fmt_src_vmemmap(s->src, fmt_running_vmemmap());
		if (!uname(&u))
			fmt_src_kernel(s->src, u.release);
		if (!load_text(NULL, "printk_formats", &text))
			fmt_src_printk(s->src, text);
		free(text);
		text = NULL;
		if (!read_file("/sys/kernel/btf/vmlinux", &text, &len))
			s->btf = btf_load(text, len);
		free(text);
		fmt_src_btf(s->src, s->btf);
	}
	return 0;
}

size_t stream_tids(const struct stream *s, pid_t *tids, size_t max)
{
	return rec_tids(s->rec, tids, max);
}

int stream_run(struct stream *s, bool (*done)(void *arg), void *arg)
{
	int r = rec_start(s->rec);

	/* The clock set up by now is the one the timestamps count in. */
	if (!load_text(s->o.inst, "trace_clock", &s->clock))
		fmt_src_clock(s->src, s->clock, false);

	while (!r && !tr_stop && !(done && done(arg))) {
		struct pollfd p[2] = { { .fd = s->efd, .events = POLLIN },
				       { .fd = rec_event_fd(s->rec), .events = POLLIN } };
		uint64_t n;

		poll(p, 2, BATCH_MS);
		if (p[1].revents) {
			r = rec_error(s->rec);
			break;
		}
		/* Gather a little before formatting: one merge per batch. */
		usleep(BATCH_MS * 1000 / 4);
		if (read(s->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
			r = -errno;
		if (!r)
			r = drain(s);
	}
	/* The readers flush the partly filled pages, then the last batch prints. */
	int rr = rec_stop(s->rec);

	if (!r)
		r = drain(s);
	if (!r && rr)
		r = tr_fail(rr, "a reader stopped: %s", strerror(-rr));
	else if (r == -EPIPE)
		r = 0;
	else if (r && !tr_failure())
		r = tr_fail(r, "cannot write the events: %s", strerror(-r));
	return r;
}

void stream_free(struct stream *s)
{
	if (!s)
		return;
	rec_free(s->rec);
	if (s->src)
		fmt_src_free(s->src);
	if (s->fmt)
		fmt_free(s->fmt);
	if (s->tep)
		tep_free(s->tep);
	for (int i = 0; s->q && i < s->ncpus; i++) {
		free(s->q[i].buf);
		free(s->work[i].buf);
	}
	free(s->q);
	free(s->work);
	free(s->clock);
	btf_free(s->btf);
	if (s->efd >= 0)
		close(s->efd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
