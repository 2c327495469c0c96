// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr agent's recording (live-record.h, net.h): one request of a host's
 * tr record -A recorded into the host's connections through the session.
 * The host's half is guests.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "live-record.h"
#include "rec.h"
#include "session.h"
#include "tfw.h"

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
