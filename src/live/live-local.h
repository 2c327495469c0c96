/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live layer's own: the steps of the one sequence, which only the
 * runner (runner.c, session_tool_run()) calls in their order.  See
 * session.h's opening comment for what each step does.
 */
#ifndef TR_LIVE_LOCAL_H
#define TR_LIVE_LOCAL_H

#include "session.h"

/* The set-up, readers, command and events of o; t's hooks are kept for the run (NULL: o's). */
int session_open_tool(const struct session_opts *o, const struct session_tool *t, void *arg,
		      struct session **out);

#endif
