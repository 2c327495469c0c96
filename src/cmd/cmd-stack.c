// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stack start|stop|show|reset: the stack tracer, which records the
 * deepest kernel stack seen (stack_max_size) and its trace (stack_trace).
 * start enables it until tr stack stop or tr reset; --filter limits it to
 * functions matching a glob (stack_trace_filter).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "caps.h"
#include "tfs.h"

#define STACK_SYSCTL "/proc/sys/kernel/stack_tracer_enabled"

enum op { OP_NONE, OP_START, OP_STOP, OP_SHOW, OP_RESET };

struct args {
	enum op op;
	struct strv filters;
};

static const struct argp_option options[] = {
	{ "filter", 'l', "FUNC", 0, "With start: only functions matching FUNC (stack_trace_filter)", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	static const char *const ops[] = { NULL, "start", "stop", "show", "reset", NULL };
	struct args *a = state->input;

	switch (key) {
	case 'l':
		strv_push(&a->filters, arg);
		return 0;
	case ARGP_KEY_ARG:
		if (a->op != OP_NONE)
			argp_error(state, "too many arguments");
		a->op = opt_action(state, arg, ops);
		return 0;
	case ARGP_KEY_END:
		if (a->op == OP_NONE)
			a->op = OP_SHOW;
		if (a->filters.n && a->op != OP_START)
			argp_error(state, "--filter goes with start");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, "start|stop|show|reset",
				  "Find the deepest kernel stack: start the stack tracer, show "
				  "the maximum stack size and its trace, reset the maximum.",
				  NULL, NULL, NULL };

static int show(void)
{
	char *max = NULL, *trace = NULL;
	int r = tfs_read(NULL, "stack_max_size", &max);

	if (!r)
		r = tfs_read(NULL, "stack_trace", &trace);
	if (r)
		return tr_fail(r, "cannot read the stack tracer's files: %s", strerror(-r));
	printf("max stack size: %s bytes\n%s", str_rstrip(max), trace);
	free(max);
	free(trace);
	return 0;
}

static int start(const struct strv *filters)
{
	int r = 0;

	if (filters->n) {
		char *all = xstrdup("");

		for (size_t i = 0; i < filters->n; i++) {
			char *t = xasprintf("%s%s%s", all, i ? " " : "", filters->v[i]);

			free(all);
			all = t;
		}
		r = tfs_set(NULL, "stack_trace_filter", all);
		if (r == -EINVAL)
			r = tr_fail(r, "no function matches '%s' (tr list -f shows them)", all);
		else if (r)
			r = tr_fail(r, "cannot set stack_trace_filter: %s", strerror(-r));
		free(all);
	}
	if (!r && (r = tfs_set_path(STACK_SYSCTL, "1")))
		r = tr_fail(r, "cannot enable the stack tracer (%s): %s", STACK_SYSCTL, strerror(-r));
	/* It runs until tr stack stop or tr reset. */
	return r ? r : tfs_keep();
}

int cmd_stack(int argc, char **argv)
{
	struct args a = { 0 };
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	r = caps_require(CAP_STACK_TRACER);
	if (!r) {
		switch (a.op) {
		case OP_START:
			r = start(&a.filters);
			break;
		case OP_STOP:
			r = tfs_set_path(STACK_SYSCTL, "0");
			if (!r)
				r = tfs_keep();
			break;
		case OP_RESET:
			/* Writing 0 to stack_max_size restarts the search for a maximum. */
			r = tfs_write(NULL, "stack_max_size", "0", false);
			break;
		default:
			r = show();
			break;
		}
	}
	if (r)
		tr_report(r, "stack");
	strv_free(&a.filters);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
