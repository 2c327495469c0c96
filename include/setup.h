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
	/* Latency tracers' settings, "KEY=VALUE" (--tracer-opt; see setup_tracer_opt()). */
	struct strv tracer_opts;
	/* Zero-initialised means "leave as it is", so commands can = { 0 } this. */
	bool has_max_graph_depth, has_thresh, func_stack;
	int max_graph_depth;
	long thresh_us;
};

/*
 * A latency tracer's setting, KEY=VALUE for the tracer -p selects:
 *   hwlat:    width, window, threshold (us), cpus (list), mode
 *             (none|round-robin|per-cpu)
 *   osnoise:  cpus, period, runtime, stop_tracing, stop_tracing_total,
 *             threshold (us)
 *   timerlat: cpus, period, stop_tracing, stop_tracing_total, print_stack (us)
 * Times are microseconds, or take a unit (500us, 2ms, 1s).  Checks without
 * tracefs; on success *file is the control file (top level, static) and
 * *value what to write there (malloc'ed).  -EINVAL with tr_fail() naming
 * the bad part, and the keys the tracer has.
 */
int setup_tracer_opt(const char *tracer, const char *kv, const char **file, char **value);

int setup_apply(struct tfs_inst *in, const struct tr_setup *s);
void setup_free(struct tr_setup *s);

/* Enable the selected events (and their filters) in an instance. */
int setup_events(struct tfs_inst *in, const struct evsel_list *events);

#endif
