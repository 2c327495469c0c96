// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr clear: empty an instance's ring buffer (all CPUs, or one with --cpu).
 */
#include <errno.h>
#include <stdio.h>

#include "cmd.h"
#include "parse.h"
#include "setup.h"
#include "tfs.h"

struct args {
	struct opt_instance inst;
	int cpu;	/* -1: all */
};

enum { OPT_CPU = 0x100 };

static const struct argp_option options[] = {
	{ "cpu", OPT_CPU, "N", 0, "Empty only CPU N's buffer (per_cpu/cpuN/trace)", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		return 0;
	case OPT_CPU:
		if (parse_int(arg, 0, TR_MAX_CPUS - 1, &a->cpu))
			argp_error(state, "bad CPU '%s'", arg);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, NULL,
				  "Empty the ring buffer of every CPU, or of one with --cpu.",
				  opt_instance_children, NULL, NULL };

int cmd_clear(int argc, char **argv)
{
	struct args a = { .cpu = -1 };
	struct tfs_inst *in;
	char file[64] = "trace";
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	r = cmd_instance_open(a.inst.name, false, &in);
	if (a.cpu >= 0)
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace", a.cpu);
	if (!r && a.cpu >= 0 && !tfs_exists(in, file))
		r = tr_fail(-ENOENT, "no CPU %d on this machine (%s missing)", a.cpu, file);
	/* Opening "trace" with O_TRUNC is how the kernel is asked to clear. */
	if (!r)
		r = tfs_write(in, file, "", false);
	if (r)
		return tr_report(r, "cannot clear the buffer"), EXIT_RUNTIME;
	return EXIT_OK;
}
