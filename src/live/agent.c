// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host and guest recording (live-record.h, net.h).  The host's half, for
 * live_record(): its guests connected, stopped and written, and the
 * options that name them in the host's file.  The agent's half: one
 * request recorded into the host's connections through the session.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "live-record.h"
#include "rec.h"
#include "session.h"
#include "tfw.h"


int live_guests_open(const struct live_record_opts *o)
{
	for (size_t i = 0; i < o->nguests; i++) {
		struct live_guest *g = &o->guests[i];
		int e = net_guest_open(&g->net, &g->g);

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

/*
 * tr agent's recording as a live tool: the metadata and the start sent
 * once the readers are open (their CPUs known), ended by the host's CLOSE.
 */
struct agent_run {
	struct net_agent_job *job;
	struct tfs_inst *in;
	int clk;
};

static int agent_start(void *arg, struct session *sess)
{
	struct agent_run *a = arg;
	struct tfw_opt traceid;
	void *meta = NULL;
	size_t len = 0;
	int r;

	tfw_opt_traceid(&traceid, net_agent_trace_id(a->job));
	r = rec_net_meta(session_rec(sess), a->in, &traceid, 1, &meta, &len, NULL);
	if (!r)
		r = net_agent_start(a->job, rec_ncpus(session_rec(sess)), a->clk, meta, len);
	free(meta);
	free(traceid.data.data);
	return r;
}

static int agent_tick(void *arg, bool fd_ready)
{
	struct agent_run *a = arg;

	(void)fd_ready;
	return net_agent_closed(a->job) ? 1 : 0;
}

/* The host that stopped reading ended it: what it took is what it has. */
static const struct session_tool agent_tool = { .prepare = agent_start, .tick = agent_tick,
						.tick_ms = 100, .reader_error_ok = true };

int live_agent_record(struct net_agent_job *job, struct tfs_inst *in, const struct tr_setup *setup,
		     const struct evsel_list *events, int clk)
{
	struct agent_run a = { .job = job, .in = in, .clk = clk };

	return session_tool_run(&(struct session_opts){
					.inst = in, .setup = setup, .events = events,
					.rec = { .fn = net_agent_send_pages, .arg = job,
						 .wake_percent = 5, .wake_by_size = true,
						 .reader = REC_READER_AUTO } },
				&agent_tool, &a);
}
