// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stop / tr restart: turn writing to the ring buffer off or on again
 * (tracing_on), leaving every other setting as it is.  tr stop -e turns
 * only those events off instead: tr start adds events, and this takes
 * some away without a reset of the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "evsel.h"
#include "tfs.h"

struct stop_args {
	struct opt_instance inst;
	struct opt_events ev;
};

static error_t stop_parse(int key, char *arg, struct argp_state *state)
{
	struct stop_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, &a->ev, NULL);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		for (size_t i = 0; i < a->ev.list.n; i++)
			if (a->ev.list.v[i].filter)
				argp_error(state, "-f and --clear-filter set filters: tr stop -e only turns events off");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child stop_children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ &opt_events_argp, 0, "Events (turn only these off, leaving tracing on):", 0 },
	{ 0 }
};

static const struct argp stop_argp = { NULL, stop_parse, NULL,
				       "Stop writing to the ring buffer (tracing_on=0); events "
				       "stay enabled and the buffer keeps what it has.  With -e, "
				       "turn only those events off instead.",
				       stop_children, NULL, NULL };
static const struct argp restart_argp = { NULL, opt_instance_only_parse, NULL,
					  "Resume writing to the ring buffer (tracing_on=1).",
					  opt_instance_children, NULL, NULL };

/* Each event the selectors match, off; all of them or none are checked first. */
static int events_off(struct tfs_inst *in, const struct evsel_list *sel)
{
	struct strv avail = { 0 };
	struct evmatch *m = NULL;
	size_t n = 0;
	int r = tfs_events(in, &avail);

	if (r)
		r = tr_fail(r, "cannot read available_events: %s", strerror(-r));
	if (!r)
		r = evsel_resolve(sel, &avail, &m, &n);
	for (size_t i = 0; i < n && !r; i++) {
		char *path = xasprintf("events/%s/%s/enable", m[i].system, m[i].event);

		r = tfs_set(in, path, "0");
		if (r)
			r = tr_fail(r, "cannot turn off '%s:%s': %s", m[i].system, m[i].event,
				    strerror(-r));
		free(path);
	}
	evmatch_free(m, n);
	strv_free(&avail);
	return r;
}

/*
 * In the instance: the events of off turned off, or without them,
 * tracing_on set to value; kept for tr reset, or one line and 1.
 */
static int apply(const char *inst, const struct evsel_list *off, const char *value)
{
	struct tfs_inst *in;
	int r = cmd_instance_open(inst, false, &in);

	if (!r)
		r = off ? events_off(in, off) : tfs_set(in, "tracing_on", value);
	/* Kept only when whole: a refused event puts back the ones before it. */
	if (!r)
		r = tfs_keep();
	if (r)
		return tr_report(r, off ? "stop" : "cannot set tracing_on"), EXIT_RUNTIME;
	return EXIT_OK;
}

int cmd_stop(int argc, char **argv)
{
	struct stop_args a = { 0 };
	int rc;

	argp_parse(&stop_argp, argc, argv, 0, NULL, &a);
	rc = apply(a.inst.name, a.ev.list.n ? &a.ev.list : NULL, "0");
	evsel_list_free(&a.ev.list);
	return rc;
}

int cmd_restart(int argc, char **argv)
{
	struct opt_instance inst = { 0 };

	argp_parse(&restart_argp, argc, argv, 0, NULL, &inst);
	return apply(inst.name, NULL, "1");
}
