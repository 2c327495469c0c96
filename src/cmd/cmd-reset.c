// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr reset: back to defaults.  Undoes what earlier tr start/stop runs kept,
 * and what live sessions whose tr died left (session_orphans())
 * (restoring buffer sizes and options, removing the instances, triggers and
 * probes tr created), then puts the top-level buffer (or -B NAME) to the
 * kernel's defaults.  -a also removes every instance and dynamic event,
 * whoever made them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "session.h"
#include "tfs.h"

struct args {
	struct opt_instance inst;
	bool all;
};

static const struct argp_option options[] = {
	{ "all", 'a', NULL, 0, "Also remove every instance and dynamic event, not only tr's", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		return 0;
	case 'a':
		a->all = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (a->all && a->inst.name)
			argp_error(state, "-a and -B exclude each other");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, NULL,
				  "Put tracing back to defaults: events off, nop tracer, no "
				  "filters or triggers, empty buffer, tracing on; remove the "
				  "instances and dynamic events tr created.",
				  opt_instance_children, NULL, NULL };

/*
 * "p:grp/ev ..." goes with "-:grp/ev"; a user event "u:NAME FIELDS" with
 * "-:NAME FIELDS".  A user event that a program has registered cannot go
 * while it runs: that is said, but is not a failure of the reset.
 */
static int remove_one_by_one(char *list)
{
	char *line, *save = NULL;
	int first = 0;

	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool user = !strncmp(line, "u:", 2);
		char *sp = strchr(line, ' '), *colon = strchr(line, ':');
		int nlen;

		if (!colon || (sp && colon > sp))
			continue;
		nlen = sp ? (int)(sp - colon - 1) : (int)strlen(colon + 1);
		char *undo = user ? xasprintf("-:%s", colon + 1) : xasprintf("-:%.*s", nlen, colon + 1);
		int r = tfs_write(NULL, "dynamic_events", undo, true);

		tr_detail_clear();
		if (r == -EBUSY && user)
			tr_warn("user event '%.*s' stays: a running program has it registered, or it "
				"is traced", nlen, colon + 1);
		else if (r && r != -ENOENT && !first)
			first = r;
		free(undo);
	}
	return first;
}

static int remove_all(void)
{
	struct strv names = { 0 };
	int first = 0;

	tfs_inst_list(&names);
	for (size_t i = 0; i < names.n; i++) {
		int r = tfs_inst_destroy(names.v[i]);

		if (r && !first)
			first = tr_fail(r, "cannot remove instance '%s': %s", names.v[i],
					strerror(-r));
	}
	strv_free(&names);
	/* Emptying dynamic_events removes every probe and synthetic event at once. */
	if (tfs_exists(NULL, "dynamic_events")) {
		char *cur = NULL;

		if (!tfs_read(NULL, "dynamic_events", &cur) && *str_rstrip(cur)) {
			int r = tfs_write(NULL, "dynamic_events", "", false);

			/* One busy event (a user event a running program registered) stops
			 * the kernel from removing any: then remove them one by one. */
			if (r == -EBUSY)
				r = remove_one_by_one(cur);
			if (r && !first)
				first = tr_fail(r, "cannot remove dynamic events (%s): are they in use?",
						strerror(-r));
		}
		free(cur);
	}
	return first;
}

int cmd_reset(int argc, char **argv)
{
	struct args a = { 0 };
	struct tfs_inst *in = NULL;
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.inst.name && cmd_instance_open(a.inst.name, false, &in))
		return tr_report(-ENOENT, "reset"), EXIT_RUNTIME;
	/* What a tr that died left (its journal) is undone like what tr start kept. */
	{
		struct strv dead = { 0 };

		if (session_orphans(true, &dead))
			tr_report(-EIO, "cannot undo what a tr that died left");
		strv_free(&dead);
	}
	/* -B: only what tr kept inside that instance; else everything. */
	r = tfs_state_undo(in ? in->dir : NULL);
	if (r)
		tr_report(r, "cannot undo what tr kept");
	if (a.inst.name && !tfs_exists(NULL, in->dir + strlen(tfs_root()) + 1))
		return r ? EXIT_RUNTIME : EXIT_OK;	/* tr made it, and it is gone now */
	if (a.all && (r = remove_all()))
		return tr_report(r, "cannot remove what tr created"), EXIT_RUNTIME;
	if ((r = tfs_reset_defaults(in ? in : tfs_top())))
		return tr_report(r, "cannot reset the tracing settings"), EXIT_RUNTIME;
	return r ? EXIT_RUNTIME : EXIT_OK;
}
