// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr trigger add|del|list: event triggers ('COMMAND[:COUNT] [if FILTER]' on
 * the events -e selects) and function triggers ('FUNC:COMMAND[:COUNT]').
 * Triggers added here stay after tr exits; tr reset removes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "tfs.h"
#include "trigger.h"

enum op { OP_NONE, OP_ADD, OP_DEL, OP_LIST };
static const char *const ops[] = { NULL, "add", "del", "list", NULL };

struct args {
	struct opt_instance inst;
	struct evsel_list ev;
	enum op op;
	const char *trigger;
};

static const struct argp_option options[] = {
	{ "event", 'e', "SEL", 0, "The event(s) the trigger is on (globs allowed). Repeatable", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		return 0;
	case 'e':
		if (evsel_add(&a->ev, arg))
			argp_error(state, "%s", tr_failure());
		return 0;
	case ARGP_KEY_ARG:
		if (a->op == OP_NONE) {
			a->op = opt_action(state, arg, ops);
		} else if (a->op != OP_LIST && !a->trigger) {
			a->trigger = arg;
		} else {
			argp_error(state, "too many arguments");
		}
		return 0;
	case ARGP_KEY_END:
		if (a->op == OP_NONE)
			a->op = OP_LIST;
		if (a->op != OP_LIST && !a->trigger)
			argp_error(state, "%s needs a trigger", a->op == OP_ADD ? "add" : "del");
		if (a->op == OP_LIST && a->ev.n)
			argp_error(state, "list takes no -e");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse,
	"add -e SYS:EVENT 'COMMAND[:COUNT] [if FILTER]'\n"
	"add 'FUNCTION:COMMAND[:COUNT]'\n"
	"del -e SYS:EVENT 'COMMAND'\n"
	"list",
	"Add, remove and list event and function triggers.\v"
	"Event trigger commands: traceon, traceoff, snapshot, stacktrace, "
	"enable_event:SYS:EV, disable_event:SYS:EV, enable_hist:SYS:EV, disable_hist:SYS:EV, "
	"hist:... .  Function triggers (set_ftrace_filter commands, FUNC a glob): FUNC:traceon, "
	"FUNC:traceoff, FUNC:snapshot, FUNC:stacktrace, FUNC:dump, FUNC:cpudump, "
	"FUNC:enable_event:SYS:EV, FUNC:disable_event:SYS:EV, each [:COUNT]; they need the "
	"function_filter capability.",
	opt_instance_children, NULL, NULL
};

static int on_events(struct args *a, struct tfs_inst *in)
{
	struct strv avail = { 0 };
	struct evmatch *m = NULL;
	size_t n = 0;
	int r = trig_events(in, &avail);

	if (!r)
		r = evsel_resolve(&a->ev, &avail, &m, &n);
	for (size_t i = 0; i < n && !r; i++)
		r = a->op == OP_ADD ? trig_add(in, m[i].system, m[i].event, a->trigger)
				    : trig_del(in, m[i].system, m[i].event, a->trigger);
	evmatch_free(m, n);
	strv_free(&avail);
	return r;
}

static int list(struct tfs_inst *in)
{
	struct strv lines = { 0 };
	int r = trig_list(in, &lines);

	for (size_t i = 0; i < lines.n; i++) {
		char *tab = strchr(lines.v[i], '\t');

		*tab = '\0';
		printf("%-36s %s\n", lines.v[i], tab + 1);
	}
	strv_free(&lines);
	return r;
}

int cmd_trigger(int argc, char **argv)
{
	struct args a = { 0 };
	struct tfs_inst *in;
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	r = cmd_instance_open(a.inst.name, false, &in);
	if (r)
		goto out;
	if (a.op == OP_LIST)
		r = list(in);
	else if (a.ev.n)
		r = on_events(&a, in);
	else if (a.op == OP_ADD)
		r = trig_func_add(in, a.trigger);
	else
		r = trig_func_del(in, a.trigger);
	/* Added triggers outlive this process; tr reset takes them back. */
	if (!r && a.op == OP_ADD)
		r = tfs_keep();
out:
	if (r)
		tr_report(r, "trigger");
	evsel_list_free(&a.ev);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
