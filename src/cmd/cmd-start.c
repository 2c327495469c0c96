// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr start: enable events (with filters), a tracer, clock, buffer size and
 * options, and turn tracing on, without recording.  The settings stay after
 * tr exits (that is the point); tr reset puts them back.  If any part fails,
 * everything already changed is restored and nothing stays.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "rec.h"
#include "setup.h"
#include "tfs.h"

struct args {
	struct opt_instance inst;
	struct opt_events ev;
	struct tr_setup setup;
	bool replace, discard;
};

enum { OPT_REPLACE = 0x100, OPT_DISCARD };

static const struct argp_option options[] = {
	{ "replace", OPT_REPLACE, NULL, 0,
	  "First turn off the events already enabled in the instance, so only the -e events trace "
	  "(what trace-cmd start does); without it, tr start adds to them", 0 },
	{ "discard", OPT_DISCARD, NULL, 0,
	  "Arm a persistent instance that holds the previous boot's data, which the kernel then "
	  "clears (without it, tr start refuses: tr extract saves that data)", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, &a->ev, &a->setup);
		return 0;
	case OPT_REPLACE:
		a->replace = true;
		return 0;
	case OPT_DISCARD:
		a->discard = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (a->setup.children && !a->setup.pids.n)
			argp_error(state, "-c goes with -P");
		/* tr reset -B puts back the instance's settings only. */
		if (a->setup.cmdlines_size && a->inst.name)
			argp_error(state, "--cmdlines-size is a top-level setting: give it without -B "
					  "(tr reset puts it back)");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, NULL,
				  "Enable events, a tracer and filters, and turn tracing on, "
				  "without recording. 'tr show' prints the result, 'tr extract' "
				  "saves it, 'tr reset' undoes it.\v"
				  "tr start adds to what is enabled: events enabled before stay "
				  "enabled.  --replace turns them off first, as trace-cmd start "
				  "does.",
				  opt_session_children, NULL, NULL };

/*
 * --replace: turn off every event enabled in the instance (set_event lists
 * them), through tfs so that an error restores them and tr reset knows.
 */
static int events_off(struct tfs_inst *in)
{
	char *text = NULL, *line, *save = NULL;
	int r = tfs_read(in, "set_event", &text);

	if (r)
		return tr_fail(r, "cannot read set_event: %s", strerror(-r));
	for (line = strtok_r(text, "\n", &save); line && !r; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *f;

		if (!colon)
			continue;
		*colon = '\0';
		f = xasprintf("events/%s/%s/enable", line, colon + 1);
		r = tfs_set(in, f, "0");
		if (r)
			r = tr_fail(r, "cannot turn off event '%s:%s': %s", line, colon + 1,
				    strerror(-r));
		free(f);
	}
	free(text);
	return r;
}

int cmd_start(int argc, char **argv)
{
	struct args a = { 0 };
	struct tfs_inst *in;
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	a.setup.events = &a.ev.list;
	r = a.discard ? 0 : cmd_instance_keeps_last_boot(a.inst.name, "pass --discard");
	if (!r)
		r = cmd_instance_open(a.inst.name, true, &in);
	if (!r && a.replace)
		r = events_off(in);
	if (!r)
		r = setup_apply(in, &a.setup);
	/* A max-latency tracer starts from 0, as tr record's session does. */
	if (!r)
		r = setup_max_latency_reset(in, a.setup.tracer);
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
