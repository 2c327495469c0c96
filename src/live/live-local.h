/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live layer's own: the steps of the one sequence, which only the
 * runner (runner.c, session_tool_run()) calls, in this order.  See
 * session.h's opening comment for what each step does.
 */
#ifndef TR_LIVE_LOCAL_H
#define TR_LIVE_LOCAL_H

#include "session.h"

/*
 * The set-up, readers, command and events of o, in session.h's order; t's
 * hooks (and arg) are kept for the run.  *out is set whenever it was
 * allocated, even on an error (session_free() it).  0 or -errno with
 * tr_fail(); a COMMAND that is not found fails first, before anything is
 * touched.
 */
int session_open_tool(const struct session_opts *o, const struct session_tool *t, void *arg,
		      struct session **out);
/*
 * Clear, start the readers, tracing on, the command let go, the wait, the
 * command ended, tracing off, the readers drained and joined.  0 or
 * -errno with tr_fail() (tracing could not be started, a tick failed, or
 * a reader stopped on an error: then session_end() is
 * SESSION_READER_FAILED and the session still ended cleanly, its readers'
 * data there to read).
 */
int session_run(struct session *s);
/* A command that never started dies unstarted; what the readers left is cleared. */
void session_free(struct session *s);
/* The readers' callback for session_opts.sink (rec_opts.fn, the sink its arg). */
int session_sink_pages(void *sink, int cpu, const void *pages, size_t len);

#endif
