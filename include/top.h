/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr top: what the kernel is doing, live or from a trace.dat file, from
 * plain tracepoints.  What the command hands over: the command line,
 * checked (top_opts), and the two sources that run it.  Everything else
 * (decoder, model, views, renderers, UI) is src/top/top-local.h's.
 *
 * Errors: 0 or -errno with tr_fail() set, as every layer; only the
 * renderers write, to the FILE or terminal they are given.
 */
#ifndef TR_TOP_H
#define TR_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct evsel_list;
struct hist_spec;
struct tfs_inst;
struct top_view;

/* --latency START,END[,MATCH]: MATCH is START_FIELD=END_FIELD (default common_pid=common_pid). */
struct top_lat_spec {
	char *start, *end;	/* "sys:event" */
	char *start_field, *end_field;
	bool by_task;		/* rows per task (the matched pid), else per CPU */
};

/* Parse "START,END[,MATCH]" (a NULL text: the sched_waking -> sched_switch default). */
int top_lat_parse(const char *text, struct top_lat_spec *out);
void top_lat_free(struct top_lat_spec *l);

/* A view by --view's NAME or number ('1'..'7'), or by its id; NULL if none. */
const struct top_view *top_view_pick(const char *name);
const struct top_view *top_view_find(const char *id);
/* "tasks, syscalls, ..." of the numbered views, for messages. */
const char *top_view_names(void);

/* The view's id ("tasks"), as --view takes it. */
const char *top_view_id(const struct top_view *v);

enum top_out { TOP_OUT_TEXT, TOP_OUT_JSON };

/* What cmd-top hands the sources: the command line, checked. */
struct top_opts {
	struct tfs_inst *inst;		/* live: the instance, opened by the command */
	const char *instance;		/* -B: its name (live), or a buffer of the file (replay) */
	const char *input;		/* -i FILE: replay */
	char **command;
	uint64_t interval_ns;		/* -d */
	const struct top_view *view;
	const struct evsel_list *events;	/* -e/-f: more events to enable */
	const struct hist_spec *custom;	/* -e -k -v: the custom view, or NULL */
	const struct top_lat_spec *lat;	/* --latency, or the default pair */
	bool lat_by_task;
	bool batch;
	long iterations;		/* -n: refreshes (batch); 0 no limit */
	enum top_out out;
	FILE *outf;			/* where batch refreshes go; the UI's terminal */
	const pid_t *pids;		/* -P */
	size_t npids;
	bool children;			/* -c */
	const char *sort;		/* -s: a column of the view, or NULL */
	bool reverse;
};

/* tr top, live or over a file, batch or interactive.  0 or -errno with tr_fail(). */
int top_live_run(const struct top_opts *o);
int top_replay_run(const struct top_opts *o);

#endif
