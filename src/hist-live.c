// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feeding the userspace engine: live, from the per-CPU trace_pipe_raw of an
 * instance through the recorder's callback sink, or from a recorded
 * trace.dat file through the reader's cursors.  Either way the result goes
 * through the same renderer as the kernel engine's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "evsel.h"
#include "hist.h"
#include "rec.h"

struct live {
	struct hist_user *u;
	struct tfile_layout layout;
	pthread_mutex_t lock;
	uint64_t events;
};

/* Called from each CPU's reader thread with whole sub-buffers. */
static int on_pages(void *arg, int cpu, const void *pages, size_t len)
{
	struct live *l = arg;
	const uint8_t *p = pages;
	uint32_t ps = l->layout.page_size, bad;

	pthread_mutex_lock(&l->lock);
	for (size_t off = 0; off + ps <= len; off += ps) {
		struct tfile_page pg;
		struct tfile_event ev;
		int r;

		if (tfile_page_load(&pg, &l->layout, p + off, ps, &bad))
			continue;
		while ((r = tfile_page_next(&pg, &ev, &bad)) == 1) {
			ev.cpu = cpu;
			if (ev.missed > 0)
				hist_user_lost(l->u, (uint64_t)ev.missed);
			hist_user_event(l->u, &ev);
			l->events++;
		}
	}
	pthread_mutex_unlock(&l->lock);
	return 0;
}

static int finish(struct hist_user *u, const char *note, const struct hist_render_opts *o)
{
	struct hist_result res;
	int r = hist_user_result(u, &res);

	if (r)
		return r;
	/* One line on stderr for a table (so both engines print the same table), inline otherwise. */
	if (o->kind == HIST_OUT_TABLE)
		fprintf(stderr, "tr: %s\n", note);
	else
		res.note = xstrdup(note);
	r = hist_render(stdout, &res, o);
	if (res.dropped && o->kind != HIST_OUT_TABLE)
		tr_warn("%llu events were dropped: the table was full or events were lost",
			(unsigned long long)res.dropped);
	hist_result_free(&res);
	return r;
}

/*
 * A tep handle for one event of the running kernel: its format and the page
 * header, plus kallsyms only when a key wants symbols (reading all of
 * /proc/kallsyms costs more than the rest together).
 */
static struct tep_handle *local_tep(const struct hist_spec *s, const char *hp)
{
	struct tep_handle *tep = tep_alloc();
	char *path = xasprintf("events/%s/%s/format", s->system, s->event), *fmt = NULL, *ks;
	size_t len;
	bool syms = false;

	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, sizeof(long));
	tep_parse_header_page(tep, (char *)hp, strlen(hp), sizeof(long));
	if (tfs_read(tfs_top(), path, &fmt) || tep_parse_event(tep, fmt, strlen(fmt), s->system)) {
		tep_free(tep);
		tep = NULL;
	}
	for (size_t i = 0; i < s->nkeys; i++)
		syms |= s->keys[i].mod == HIST_MOD_SYM || s->keys[i].mod == HIST_MOD_SYM_OFFSET;
	if (tep && syms && !read_file("/proc/kallsyms", &ks, &len)) {
		tep_parse_kallsyms(tep, ks);
		free(ks);
	}
	free(fmt);
	free(path);
	return tep;
}

int hist_user_live(const struct hist_spec *s, struct tfs_inst *in, struct hist_session *w,
		   const char *why, const struct hist_render_opts *o)
{
	struct live l = { 0 };
	struct tep_handle *tep = NULL;
	struct rec *rec = NULL;
	char *hp = NULL, *enable = NULL, *note = NULL, *cmdlines = NULL;
	int r;

	pthread_mutex_init(&l.lock, NULL);
	r = tfs_read(tfs_top(), "events/header_page", &hp);
	if (r) {
		r = tr_fail(r, "cannot read events/header_page: %s", strerror(-r));
		goto out;
	}
	tep = local_tep(s, hp);
	if (!tep) {
		r = evsel_fail_unknown(in, s->system, s->event);
		goto out;
	}
	r = hist_user_new(tep, s, &l.u);
	if (r)
		goto out;
	r = rec_open(&(struct rec_opts){ .inst = in, .fn = on_pages, .arg = &l }, &rec);
	if (r)
		goto out;
	if (tfile_layout_parse(&l.layout, hp, strlen(hp), false, rec_page_size(rec))) {
		r = tr_fail(-EINVAL, "cannot read the ring buffer's page header layout");
		goto out;
	}
	enable = xasprintf("events/%s/%s/enable", s->system, s->event);
	/* The ftrace system's events (ftrace:print) are always on and have no switch. */
	r = strcmp(s->system, "ftrace") ? tfs_set(in, enable, "1") : 0;
	if (r) {
		r = tr_fail(r, "cannot enable '%s:%s': %s", s->system, s->event, strerror(-r));
		goto out;
	}
	r = hist_spawn(w);
	if (!r)
		r = rec_start(rec);
	if (!r && (r = tfs_set(in, "tracing_on", "1")))
		tr_fail(r, "cannot turn tracing on: %s", strerror(-r));
	if (r)
		goto out;
	w->stop_fd = rec_event_fd(rec);
	hist_wait(w);
	if (tfs_set(in, "tracing_on", "0"))
		tr_warn("cannot turn tracing off");
	r = rec_stop(rec);
	if (r) {
		r = tr_fail(r, "a reader failed: %s", strerror(-r));
		goto out;
	}
	for (int c = 0; c < rec_ncpus(rec); c++) {
		const struct rec_cpu_stat *st = rec_cpu_stat(rec, c);

		/* Pages flagged as following lost events, without a count: at least one each. */
		if (st && st->missed_pages > st->missed_events)
			hist_user_lost(l.u, 0);
	}
	if (!tfs_read(tfs_top(), "saved_cmdlines", &cmdlines))
		hist_user_cmdlines(l.u, cmdlines);
	hist_user_proc_comm(l.u);
	note = xasprintf("ran in userspace: %s; %llu events read", why,
			 (unsigned long long)l.events);
	r = finish(l.u, note, o);
out:
	rec_free(rec);
	hist_user_free(l.u);
	if (tep)
		tep_free(tep);
	pthread_mutex_destroy(&l.lock);
	free(hp);
	free(enable);
	free(note);
	free(cmdlines);
	return r;
}

int hist_user_file(const struct hist_spec *s, const char *path, const struct hist_render_opts *o)
{
	struct hist_user *u = NULL;
	struct tfile *tf = NULL;
	uint64_t events = 0;
	char *note = NULL;
	int r = tfile_open(path, 0, &tf);

	if (r)
		return r;
	r = hist_user_new(tfile_tep(tf), s, &u);
	if (r)
		goto out;
	hist_user_cmdlines(u, tfile_cmdlines(tf));
	/* Every buffer and CPU: aggregation does not need time order. */
	for (int b = 0; b < tfile_nbuffers(tf) && !r; b++) {
		const struct tfile_buffer *buf = tfile_buffer(tf, b);

		if (buf->latency)
			continue;
		for (int c = 0; c < buf->ncpus && !r; c++) {
			struct tfile_cursor *cur;
			struct tfile_event ev;

			r = tfile_cursor_open(tf, b, c, &cur);
			if (r)
				break;
			while ((r = tfile_cursor_next(cur, &ev)) == 1) {
				if (ev.missed > 0)
					hist_user_lost(u, (uint64_t)ev.missed);
				hist_user_event(u, &ev);
				events++;
			}
			tfile_cursor_free(cur);
		}
	}
	if (!r) {
		note = xasprintf("ran in userspace: reading '%s'; %llu events read", path,
				 (unsigned long long)events);
		r = finish(u, note, o);
	}
out:
	hist_user_free(u);
	tfile_close(tf);
	free(note);
	return r;
}
