// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr clear: empty an instance's ring buffer (all CPUs).
 */
#include "cmd.h"
#include "tfs.h"

static error_t parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = state->input;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ 0 }
};

static const struct argp argp = { NULL, parse, NULL, "Empty the ring buffer of every CPU.",
				  children, NULL, NULL };

int cmd_clear(int argc, char **argv)
{
	struct opt_instance inst = { 0 };
	struct tfs_inst *in;
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &inst);
	r = cmd_instance_open(inst.name, false, &in);
	/* Opening "trace" with O_TRUNC is how the kernel is asked to clear. */
	if (!r)
		r = tfs_write(in, "trace", "", false);
	if (r)
		return tr_report(r, "cannot clear the buffer"), EXIT_RUNTIME;
	return EXIT_OK;
}
