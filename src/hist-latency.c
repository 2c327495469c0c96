// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Latency histograms: the start-side variables, the synthetic event, the
 * end-side onmatch().trace() and a histogram on the synthetic event, made
 * through the tfs layer so they come down in the right order at exit.
 */
#include <errno.h>

#include "hist.h"

int hist_latency_run(const struct hist_latency *l, const char *instance, char **command,
		     uint64_t duration_ns, const char *keys, const struct hist_render_opts *o)
{
	(void)l, (void)instance, (void)command, (void)duration_ns, (void)keys, (void)o;
	return tr_fail(-ENOTSUP, "latency histograms are not done yet");
}
