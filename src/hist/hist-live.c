// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feeding the userspace engine: live, from the per-CPU trace_pipe_raw of an
 * instance through the recorder's callback sink, or from a recorded
 * trace.dat file through the reader's cursors.  Either way the result is
 * the same model as the kernel engine's, for the command to render.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "evsel.h"
#include "hist.h"
#include "rec.h"
#include "session.h"

struct live {
	struct hist_user *u;
	const struct tfile_layout *layout;
	pthread_mutex_t lock;
	struct tfile_walk_stats st;
};

static int on_event(void *arg, const struct tfile_event *ev)
{
	struct live *l = arg;

	/* -1: the kernel lost events here without counting them; at least one. */
	if (ev->missed)
		hist_user_lost(l->u, ev->missed > 0 ? (uint64_t)ev->missed : 1);
	hist_user_event(l->u, ev);
	return 0;
}

/* Called from each CPU's reader thread with whole sub-buffers. */
static int on_pages(void *arg, int cpu, const void *pages, size_t len)
{
	struct live *l = arg;

	pthread_mutex_lock(&l->lock);
	tfile_pages_walk(l->layout, cpu, pages, len, on_event, l, &l->st);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/* The table, with the engine's note. */
static int finish(struct hist_user *u, char *note, struct hist_result *res)
{
	int r = hist_user_result(u, res);

	if (r) {
		free(note);
		return r;
	}
	res->note = note;
	return 0;
}

void hist_spec_load_syms(const struct hist_spec *s, struct tep_handle *tep)
{
	char *ks = NULL;
	size_t len;

	if (tep && hist_spec_wants_syms(s) && !read_file("/proc/kallsyms", &ks, &len))
		tep_parse_kallsyms(tep, ks);
	free(ks);
}

/*
 * A tep handle for one event of the running kernel: its format and the page
 * header, plus kallsyms only when a key wants symbols (reading all of
 * /proc/kallsyms costs more than the rest together).
 */
static struct tep_handle *local_tep(const struct hist_spec *s, const char *hp)
{
	struct tep_handle *tep = tep_alloc();
	char *path = xasprintf("events/%s/%s/format", s->system, s->event), *fmt = NULL;

	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, sizeof(long));
	tep_parse_header_page(tep, (char *)hp, strlen(hp), sizeof(long));
	if (tfs_read(tfs_top(), path, &fmt) || tep_parse_event(tep, fmt, strlen(fmt), s->system)) {
		tep_free(tep);
		tep = NULL;
	}
	hist_spec_load_syms(s, tep);
	free(fmt);
	free(path);
	return tep;
}

int hist_user_live(const struct hist_spec *s, struct tfs_inst *in, const struct hist_when *w,
		   const char *why, struct hist_result *res)
{
	struct live l = { 0 };
	struct session *sess = NULL;
	struct tep_handle *tep = NULL;
	char *hp = NULL, *enable = NULL, *cmdlines = NULL;
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
	if (!r)
		r = session_open(&(struct session_opts){ .inst = in, .command = w->command,
							 .duration_ns = w->duration_ns,
							 .rec = { .fn = on_pages, .arg = &l } },
				 &sess);
	if (r)
		goto out;
	l.layout = rec_layout(session_rec(sess));
	enable = xasprintf("events/%s/%s/enable", s->system, s->event);
	/* The ftrace system's events (ftrace:print) are always on and have no switch. */
	r = strcmp(s->system, "ftrace") ? tfs_set(in, enable, "1") : 0;
	if (r) {
		r = tr_fail(r, "cannot enable '%s:%s': %s", s->system, s->event, strerror(-r));
		goto out;
	}
	r = session_run(sess);
	if (!r && session_end(sess) == SESSION_READER_FAILED)
		r = tr_fail(rec_error(session_rec(sess)), "a reader failed: %s",
			    strerror(-rec_error(session_rec(sess))));
	if (r)
		goto out;
	if (l.st.bad_pages)
		tr_warn("%llu corrupt sub-buffers from the kernel were skipped",
			(unsigned long long)l.st.bad_pages);
	if (!tfs_read(tfs_top(), "saved_cmdlines", &cmdlines))
		hist_user_cmdlines(l.u, cmdlines);
	hist_user_proc_comm(l.u);
	r = finish(l.u, xasprintf("ran in userspace: %s; %llu events read", why,
				  (unsigned long long)l.st.events), res);
out:
	session_free(sess);
	hist_user_free(l.u);
	if (tep)
		tep_free(tep);
	pthread_mutex_destroy(&l.lock);
	free(hp);
	free(enable);
	free(cmdlines);
	return r;
}

int hist_user_file(const struct hist_spec *s, const char *path, struct hist_result *res)
{
	struct hist_user *u = NULL;
	struct tfile *tf = NULL;
	uint64_t events = 0;
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
				if (ev.missed)
					hist_user_lost(u, ev.missed > 0 ? (uint64_t)ev.missed : 1);
				hist_user_event(u, &ev);
				events++;
			}
			tfile_cursor_free(cur);
		}
	}
	if (!r)
		r = finish(u, xasprintf("ran in userspace: reading '%s'; %llu events read", path,
					(unsigned long long)events), res);
out:
	hist_user_free(u);
	tfile_close(tf);
	return r;
}
