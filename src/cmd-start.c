// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr start: enable events (with filters), a tracer, clock, buffer size and
 * options, and turn tracing on, without recording.  The settings stay after
 * tr exits (that is the point); tr reset puts them back.  If any part fails,
 * everything already changed is restored and nothing stays.
 */
#include <errno.h>
#include <stdlib.h>

#include "cmd.h"
#include "setup.h"
#include "tfs.h"

struct args {
	struct opt_instance inst;
	struct opt_events ev;
	struct tr_setup setup;
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, &a->ev, &a->setup);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { NULL, parse, NULL,
				  "Enable events, a tracer and filters, and turn tracing on, "
				  "without recording. 'tr show' prints the result, 'tr extract' "
				  "saves it, 'tr reset' undoes it.",
				  opt_session_children, NULL, NULL };

int cmd_start(int argc, char **argv)
{
	struct args a = { 0 };
	struct tfs_inst *in;
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	a.setup.events = &a.ev.list;
	r = cmd_instance_open(a.inst.name, true, &in);
	if (!r)
		r = setup_apply(in, &a.setup);
	if (!r)
		r = tfs_set(in, "tracing_on", "1");
	/* Interrupted half-way: nothing stays, as after any other failure. */
	if (!r && tr_stop)
		r = tr_fail(-EINTR, "interrupted: nothing was changed");
	if (!r)
		r = tfs_keep();
	if (r)
		tr_report(r, "cannot start tracing");
	evsel_list_free(&a.ev.list);
	setup_free(&a.setup);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
