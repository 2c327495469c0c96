/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the userspace engines (hist-live.c, hist-lat-user.c) share, and nothing
 * outside src/hist sees.
 */
#ifndef TR_HIST_LOCAL_H
#define TR_HIST_LOCAL_H

#include "hist.h"
#include "session.h"

/*
 * Run tool t (session.h) for w (its command, or for its duration) on
 * instance in with the events of ev into the sink, own-pid filter off
 * (the engines want tr's events too): session_tool_run()'s result.
 */
int hist_sink_run(struct session_sink *k, struct tfs_inst *in, const struct hist_when *w,
		  struct evsel_list *ev, const struct session_tool *t, void *arg);

#endif
