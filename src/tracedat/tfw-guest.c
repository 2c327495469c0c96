// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options of a host-and-guest recording (tfw.h), laid out as
 * trace-cmd v7 writes them and its reader takes them (trace-cmd's
 * tracecmd_write_guest_time_shift(), trace_add_guest_info(),
 * add_trace_id(); read back in trace-input.c): every number in the
 * writing machine's byte order, as the rest of the file.
 */
#include <stdlib.h>
#include <string.h>

#include "tfw.h"

void tfw_opt_traceid(struct tfw_opt *o, uint64_t id)
{
	*o = (struct tfw_opt){ .id = TFW_OPT_TRACEID };
	tfw_blob_append(&o->data, &id, sizeof(id));
}

void tfw_opt_time_shift(struct tfw_opt *o, uint64_t host_id, int cpus, uint32_t n,
			const int64_t *ts, const int64_t *offsets)
{
	uint32_t flags = TFW_TSYNC_INTERPOLATE, ncpus = cpus;
	int64_t one = 1, zero = 0;

	*o = (struct tfw_opt){ .id = TFW_OPT_TIME_SHIFT };
	tfw_blob_append(&o->data, &host_id, 8);
	tfw_blob_append(&o->data, &flags, 4);
	tfw_blob_append(&o->data, &ncpus, 4);
	/* Per CPU: the count, the times, the offsets, the scalings (1: none). */
	for (int c = 0; c < cpus; c++) {
		tfw_blob_append(&o->data, &n, 4);
		tfw_blob_append(&o->data, ts, 8 * (size_t)n);
		tfw_blob_append(&o->data, offsets, 8 * (size_t)n);
		for (uint32_t i = 0; i < n; i++)
			tfw_blob_append(&o->data, &one, 8);
	}
	/* Then per CPU the fraction bits (0), which trace-cmd 2.9 did not write: a second loop. */
	for (int c = 0; c < cpus; c++)
		for (uint32_t i = 0; i < n; i++)
			tfw_blob_append(&o->data, &zero, 8);
}

void tfw_opt_guest(struct tfw_opt *o, const char *name, uint64_t guest_id, int cpus)
{
	uint32_t ncpus = cpus;

	*o = (struct tfw_opt){ .id = TFW_OPT_GUEST };
	tfw_blob_append(&o->data, name, strlen(name) + 1);
	tfw_blob_append(&o->data, &guest_id, 8);
	tfw_blob_append(&o->data, &ncpus, 4);
	/* Each guest CPU and the host task running it: none known over the network (-1). */
	for (int32_t c = 0, pid = -1; c < cpus; c++) {
		tfw_blob_append(&o->data, &c, 4);
		tfw_blob_append(&o->data, &pid, 4);
	}
}
