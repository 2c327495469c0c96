/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the userspace engines (hist-live.c, hist-ulat.c) share, and nothing
 * outside src/hist sees.
 */
#ifndef TR_HIST_LOCAL_H
#define TR_HIST_LOCAL_H

#include "hist.h"
#include "session.h"

/*
 * Run w (its command, or for its duration) on instance in with the events
 * of ev into the sink, own-pid filter off (the engines want tr's events
 * too): session_sink_run's result; *sess to session_free.
 */
int hist_sink_run(struct session_sink *k, struct tfs_inst *in, const struct hist_when *w,
		  struct evsel_list *ev, struct session **sess);

#endif
