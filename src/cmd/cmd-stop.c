// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stop / tr restart: turn writing to the ring buffer off or on again
 * (tracing_on), leaving every other setting as it is.
 */
#include "cmd.h"
#include "tfs.h"

static const struct argp stop_argp = { NULL, opt_instance_only_parse, NULL,
				       "Stop writing to the ring buffer (tracing_on=0); events "
				       "stay enabled and the buffer keeps what it has.",
				       opt_instance_children, NULL, NULL };
static const struct argp restart_argp = { NULL, opt_instance_only_parse, NULL,
					  "Resume writing to the ring buffer (tracing_on=1).",
					  opt_instance_children, NULL, NULL };

static int set_tracing_on(const struct argp *argp, int argc, char **argv, const char *value)
{
	struct opt_instance inst = { 0 };
	struct tfs_inst *in;
	int r;

	argp_parse(argp, argc, argv, 0, NULL, &inst);
	r = cmd_instance_open(inst.name, false, &in);
	if (!r)
		r = tfs_set(in, "tracing_on", value);
	if (!r)
		r = tfs_keep();
	if (r)
		return tr_report(r, "cannot set tracing_on"), EXIT_RUNTIME;
	return EXIT_OK;
}

int cmd_stop(int argc, char **argv)
{
	return set_tracing_on(&stop_argp, argc, argv, "0");
}

int cmd_restart(int argc, char **argv)
{
	return set_tracing_on(&restart_argp, argc, argv, "1");
}
