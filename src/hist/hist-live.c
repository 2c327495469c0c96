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
#include "hist-local.h"
#include "rec.h"
#include "session.h"

struct live {
	struct hist_user *u;
	struct session_sink sink;	/* on_event() under its lock, from each CPU's reader */
	const char *why;
	struct hist_result *res;
};

static int on_event(void *arg, const struct tfile_event *ev)
{
	struct live *l = arg;

	/* The events lost before it are the runner's to count (end->lost). */
	hist_user_event(l->u, ev);
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

/* The session ended: the table, with the names of the tasks it saw. */
static int live_finish(void *arg, struct session *sess, struct session_result *end)
{
	struct live *l = arg;
	char *cmdlines = NULL;

	(void)sess;
	if (end->err)
		return 0;
	hist_user_lost(l->u, end->lost);
	if (!tfs_read(tfs_top(), "saved_cmdlines", &cmdlines))
		hist_user_cmdlines(l->u, cmdlines);
	free(cmdlines);
	hist_user_proc_comm(l->u);
	return finish(l->u, xasprintf("ran in userspace: %s; %llu events read", l->why,
				      (unsigned long long)l->sink.st.events), l->res);
}

static const struct session_tool hist_user_tool = { .finish = live_finish };

int hist_user_live(const struct hist_spec *s, struct tfs_inst *in, const struct hist_when *w,
		   const char *why, struct hist_result *res)
{
	struct live l = { .why = why, .res = res };
	struct tep_handle *tep = NULL;
	char *enable = xasprintf("%s:%s", s->system, s->event);
	struct strv one = { 0 };
	struct evsel_list ev = { 0 };
	int r;

	session_sink_init(&l.sink, on_event, &l);
	/* Its format only; kallsyms only when a key wants symbols. */
	strv_push(&one, enable);
	tep = session_tep(&(struct session_tep_opts){ .events = &one });
	tr_phase("formats loaded");
	if (!tep || !tep_find_event_by_name(tep, s->system, s->event)) {
		r = evsel_fail_unknown(in, s->system, s->event);
		goto out;
	}
	hist_spec_load_syms(s, tep);
	r = hist_user_new(tep, s, &l.u);
	evsel_add(&ev, enable);
	if (!r)
		r = hist_sink_run(&l.sink, in, w, &ev, &hist_user_tool, &l);
out:
	hist_user_free(l.u);
	if (tep)
		tep_free(tep);
	session_sink_destroy(&l.sink);
	strv_free(&one);
	free(enable);
	evsel_list_free(&ev);
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

int hist_sink_run(struct session_sink *k, struct tfs_inst *in, const struct hist_when *w,
		  struct evsel_list *ev, const struct session_tool *t, void *arg)
{
	return session_tool_run(&(struct session_opts){ .inst = in, .command = w->command,
							.duration_ns = w->duration_ns,
							.events = ev, .no_filter = true, .sink = k },
				t, arg);
}
