// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host's half of tr record -A (live-record.h, net.h): each guest's
 * file opened before the recording, its agent connected once the host's
 * readers are open, stopped and written once they are drained (the
 * receiving and the clock sync are net-guest.c's threads), the options
 * that name the guests in the host's file, and at the end the files
 * closed and those of a failure removed.  tr agent's half is agent.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live-record.h"
#include "net.h"
#include "rec-paths.h"
#include "rec.h"
#include "tfw.h"

int live_guests_files(struct live_guest *g, size_t n, const char *output)
{
	for (size_t i = 0; i < n; i++) {
		int fd;

		g[i].path = rec_guest_path(output, g[i].net.name);
		fd = rec_output_open(g[i].path, &g[i].created);
		if (fd < 0)
			return fd;
		g[i].fd = fd;
	}
	return 0;
}

int live_guests_open(const struct live_record_opts *o)
{
	for (size_t i = 0; i < o->nguests; i++) {
		struct live_guest *g = &o->guests[i];
		int e;

		g->net.stop = &tr_stop;
		e = net_guest_open(&g->net, &g->g);
		if (e) {
			for (size_t k = 0; k <= i; k++) {
				net_guest_free(o->guests[k].g);
				o->guests[k].g = NULL;
			}
			return e;
		}
	}
	return 0;
}

void live_guests_finish(const struct live_record_opts *o, struct tfw_opt **opts, size_t *nopts)
{
	int version = o->file_flags & REC_FILE_V7 ? 7 : 6;
	struct tfw_opt *v = xcalloc(o->nguests + 1, sizeof(*v));
	size_t n = 0;

	tfw_opt_traceid(&v[n++], o->trace_id);
	/* Every guest is told to stop first: they end together, as they began. */
	for (size_t i = 0; i < o->nguests; i++) {
		struct live_guest *g = &o->guests[i];

		if (g->g && net_guest_stop(g->g))
			g->error = xstrdup(tr_failure());
	}
	for (size_t i = 0; i < o->nguests; i++) {
		struct live_guest *g = &o->guests[i];

		if (!g->g)
			continue;
		if (net_guest_write(g->g, g->fd, version, version == 7 ? REC_ZIP_OF(o->file_flags) : 0,
				    &g->res) && !g->error)
			g->error = xstrdup(tr_failure());
		net_guest_option(g->g, &v[n++]);
	}
	*opts = v;
	*nopts = n;
}

void live_guests_free(const struct live_record_opts *o)
{
	for (size_t i = 0; i < o->nguests; i++) {
		net_guest_free(o->guests[i].g);
		o->guests[i].g = NULL;
	}
}

void live_guests_close(struct live_guest *g, size_t n, bool failed)
{
	for (size_t i = 0; g && i < n; i++) {
		if (g[i].fd >= 0)
			close(g[i].fd);
		/* A guest that wrote nothing leaves no file either. */
		if (g[i].created && (failed || (g[i].error && !g[i].res.file_bytes)))
			unlink(g[i].path);
		free(g[i].error);
		free(g[i].path);
	}
	free(g);
}
