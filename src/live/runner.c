// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one runner of the live tools (session.h, session_tool_run()): the
 * sequence in its order, the tool's hooks called at their places, and the
 * end of the session read once for every tool: a reader's failure, the
 * command's exit, the corrupt sub-buffers a sink skipped and the events
 * the kernel lost before those it delivered.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "live-local.h"
#include "rec.h"
#include "session.h"

/* How the session ended, for finish(): s ran (session_run() returned r). */
static int read_end(struct session *s, const struct session_opts *o, const struct session_tool *t,
		    int r, struct session_result *res)
{
	struct rec *rec = session_rec(s);

	res->end = session_end(s);
	res->child_status = session_child_status(s);
	if (res->end == SESSION_CHILD_EXITED && o->command) {
		int st = res->child_status;

		if (WIFEXITED(st))
			snprintf(res->child_text, sizeof(res->child_text), "'%s' exited with %d",
				 o->command[0], WEXITSTATUS(st));
		else
			snprintf(res->child_text, sizeof(res->child_text),
				 "'%s' killed by signal %d", o->command[0], WTERMSIG(st));
	}
	/* A reader that stopped early still leaves what it read, for a tool that keeps it. */
	if (r && res->end == SESSION_READER_FAILED && rec && t->reader_error_ok) {
		res->reader_err = r;
		res->reader_failure = rec_failure(rec);
		r = 0;
	}
	return r;
}

int session_tool_run(const struct session_opts *o, const struct session_tool *t, void *arg)
{
	struct session *s = NULL;
	struct session_result res = { .child_status = -1 };
	bool opened;
	int r, fr = 0;

	r = session_open_tool(o, t, arg, &s);
	opened = !r;
	if (!r && t->prepare)
		r = t->prepare(arg, s);
	if (!r)
		r = read_end(s, o, t, session_run(s), &res);
	res.err = r;
	if (o->sink) {
		res.bad_pages = o->sink->st.bad_pages;
		res.lost = o->sink->st.lost;
	}
	if (t->finish)
		fr = t->finish(arg, opened ? s : NULL, &res);
	if (res.bad_pages && !t->shows_bad_pages)
		tr_warn("%llu corrupt sub-buffers from the kernel were skipped",
			(unsigned long long)res.bad_pages);
	session_free(s);
	return r ? r : fr;
}
