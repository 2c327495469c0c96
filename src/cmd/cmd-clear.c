// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr clear: empty an instance's ring buffer (all CPUs).
 */
#include "cmd.h"
#include "tfs.h"

static const struct argp argp = { NULL, opt_instance_only_parse, NULL,
				  "Empty the ring buffer of every CPU.", opt_instance_children,
				  NULL, NULL };

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
