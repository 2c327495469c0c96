/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracing set-up: which events (with filters), tracer, clock, buffer size
 * and trace options an instance should have.  start, show --pipe and the
 * recorder all apply one through setup_apply(), which checks everything it
 * can before it writes anything, and writes only through tfs_set(), so the
 * control layer can put it all back.
 */
#ifndef TR_SETUP_H
#define TR_SETUP_H

#include <stdint.h>

#include "evsel.h"
#include "tfs.h"

struct tr_setup {
	const struct evsel_list *events;
	const char *tracer;
	const char *clock;
	uint64_t buffer_kb;	/* 0 = leave */
	struct strv options;	/* "name" or "noname" */
	struct strv triggers;	/* "SYS:EV:COMMAND..." for the life of the session */
	/* Function tracer filters: globs, "FUNC:mod:MODULE" allowed. */
	struct strv ftrace_filter, ftrace_notrace, graph_function, graph_notrace;
	/* Zero-initialised means "leave as it is", so commands can = { 0 } this. */
	bool has_max_graph_depth, has_thresh, func_stack;
	int max_graph_depth;
	long thresh_us;
};

int setup_apply(struct tfs_inst *in, const struct tr_setup *s);
void setup_free(struct tr_setup *s);

/* Enable the selected events (and their filters) in an instance. */
int setup_events(struct tfs_inst *in, const struct evsel_list *events);

#endif
