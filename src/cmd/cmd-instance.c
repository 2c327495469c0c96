// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr instance create|destroy|list: manage tracefs instances, each a separate
 * ring buffer with its own events, tracer and settings.  Instances made here
 * are noted so that tr reset removes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "tfs.h"

enum op { OP_NONE, OP_CREATE, OP_DESTROY, OP_LIST };
static const char *const ops[] = { NULL, "create", "destroy", "list", NULL };

struct args {
	enum op op;
	struct strv names;
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (a->op == OP_NONE) {
			a->op = opt_action(state, arg, ops);
			return 0;
		}
		if (a->op == OP_LIST)
			argp_error(state, "list takes no names");
		if (!tfs_inst_valid_name(arg))
			argp_error(state, "bad instance name '%s'", arg);
		strv_push(&a->names, arg);
		return 0;
	case ARGP_KEY_END:
		if (a->op == OP_NONE)
			a->op = OP_LIST;
		if ((a->op == OP_CREATE || a->op == OP_DESTROY) && !a->names.n)
			argp_error(state, "%s needs an instance name",
				   a->op == OP_CREATE ? "create" : "destroy");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { NULL, parse, "create NAME...\ndestroy NAME...\nlist",
				  "Manage tracefs instances: separate ring buffers with their own "
				  "events and settings.",
				  NULL, NULL, NULL };

static int create(const struct strv *names)
{
	int r;

	for (size_t i = 0; i < names->n; i++) {
		struct tfs_inst *in;

		if (tfs_inst_get(names->v[i], false, &in) == 0)
			return tr_error("instance '%s' already exists", names->v[i]);
		r = tfs_inst_get(names->v[i], true, &in);
		/* tfs_inst_get leaves a new instance off; a created one behaves like mkdir's. */
		if (!r)
			r = tfs_write(in, "tracing_on", "1", false);
		if (r)
			return tr_report(r, "cannot create instance '%s'", names->v[i]);
	}
	r = tfs_keep();
	return r ? tr_report(r, "cannot note the new instances for tr reset") : 0;
}

static int destroy(const struct strv *names)
{
	for (size_t i = 0; i < names->n; i++) {
		int r = tfs_inst_destroy(names->v[i]);

		if (r == -ENOENT)
			return tr_error("no such instance '%s'", names->v[i]);
		if (r == -EBUSY)
			return tr_error("cannot destroy instance '%s': busy (a reader has it open)",
					names->v[i]);
		if (r)
			return tr_report(r, "cannot destroy instance '%s'", names->v[i]);
	}
	return 0;
}

static int list(void)
{
	struct strv names = { 0 };
	int r = tfs_inst_list(&names);

	if (r)
		return tr_report(r, "cannot list instances");
	for (size_t i = 0; i < names.n; i++) {
		struct tfs_inst *in;
		char *tracer = NULL, *on = NULL;

		if (tfs_inst_get(names.v[i], false, &in))
			continue;
		tfs_read(in, "current_tracer", &tracer);
		tfs_read(in, "tracing_on", &on);
		printf("%-24s tracer=%s tracing_on=%s\n", names.v[i],
		       tracer ? str_rstrip(tracer) : "?", on ? str_rstrip(on) : "?");
		free(tracer);
		free(on);
	}
	strv_free(&names);
	return 0;
}

int cmd_instance(int argc, char **argv)
{
	struct args a = { 0 };
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	switch (a.op) {
	case OP_CREATE:
		r = create(&a.names);
		break;
	case OP_DESTROY:
		r = destroy(&a.names);
		break;
	default:
		r = list();
		break;
	}
	strv_free(&a.names);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
