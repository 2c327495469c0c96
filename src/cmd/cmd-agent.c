// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr agent: record on request of a host running tr record -A or
 * trace-cmd record -A (trace-cmd's agent protocol over vsock, as
 * trace-cmd agent, or with --tcp over TCP), one host at
 * a time, until interrupted.  Each request names events (-e, -f) and the
 * trace clock (-C); nothing else is taken from the network.  Safe when
 * forgotten, as tr listen: loopback unless --bind and --allow say
 * otherwise, every wait bounded, one log line per connection, refusal and
 * end on stderr (net.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "net.h"
#include "netmsg.h"
#include "parse.h"
#include "live-record.h"
#include "rec.h"
#include "setup.h"
#include "tfs.h"

#define AGENT_PORT 823	/* trace-cmd's */

struct args {
	int port;
	bool tcp;
	const char *bind, *psk, *instance;
	struct net_cidr *allow;
	int nallow;
};

enum { OPT_TCP = 0x100, OPT_BIND, OPT_ALLOW, OPT_PSK, OPT_INSTANCE };

static const struct argp_option options[] = {
	{ "port", 'p', "PORT", 0, "Listen on PORT (default 823, trace-cmd's; 0: any free port, "
				  "said in the log); the CPUs' and the clock sync's ports are the "
				  "next free ones above it", 0 },
	{ "tcp", OPT_TCP, NULL, 0, "Listen on TCP (trace-cmd agent -N) instead of vsock", 0 },
	{ "bind", OPT_BIND, "ADDR", 0, "Listen on ADDR (default 127.0.0.1; 0.0.0.0 or :: for all); "
				       "on vsock a CID (default: any of this machine's)", 0 },
	{ "allow", OPT_ALLOW, "CIDR", 0, "Take hosts from this address range (default: loopback "
					 "only); on vsock from this CID (default: 1 and 2, this "
					 "machine and its host). Repeatable", 0 },
	{ "psk", OPT_PSK, "FILE", 0, "TLS 1.3 with the pre-shared key in FILE on every connection: "
				     "only 'tr record -A --psk' with the same file gets in", 0 },
	{ "instance", OPT_INSTANCE, "NAME", 0, "Record in the instance NAME (made if missing, and "
					       "then removed after each recording) instead of "
					       "the top level", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'p':
		opt_port(state, arg, &a->port);
		return 0;
	case OPT_TCP:
		a->tcp = true;
		return 0;
	case OPT_BIND:
		a->bind = arg;
		return 0;
	case OPT_ALLOW:
		opt_allow(state, arg, &a->allow, &a->nallow);
		return 0;
	case OPT_PSK:
		a->psk = arg;
		return 0;
	case OPT_INSTANCE:
		if (!tfs_inst_valid_name(arg))
			argp_error(state, "bad instance name '%s'", arg);
		a->instance = arg;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		opt_check_vsock(state, !a->tcp, a->allow, a->nallow, a->bind);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, NULL,
	"Record on request of 'tr record -A NAME@CID' or 'trace-cmd record -A' over vsock "
	"(with --tcp: 'tr record -A NAME@ADDR:PORT', 'trace-cmd record -A' of an agent -N), one "
	"host at a time, until interrupted.\v"
	"A request names the events (-e, -f) and the trace clock (-C); nothing else is taken. "
	"The clock offset to the host is measured (trace-cmd's ptp) when the clock is mono, "
	"mono_raw, boot or tai.  Without --allow only loopback hosts are served (vsock: CIDs 1 "
	"and 2, this machine and its host).  The "
	"protocol has no authentication: a host that may connect may record any event here and "
	"read it, unless --psk is given (then only tr hosts with the same key, over TLS).  One "
	"line per connection, refusal and end goes to stderr.",
	NULL, NULL, NULL
};

static void ready(void *arg, uint16_t port)
{
	const struct args *a = arg;

	opt_log_listening(a->bind, !a->tcp, port);
}

/* One request: its events and clock, recorded in the instance, then put back. */
static int run(void *arg, struct net_agent_job *job, const struct netmsg_agent_args *req)
{
	const struct args *a = arg;
	struct evsel_list ev = { 0 };
	struct tr_setup setup = { 0 };
	struct tfs_inst *in = NULL;
	size_t mark = tfs_undo_mark();
	char *clock = req->clock ? xstrdup(req->clock) : NULL;
	int clk = net_clock_id(clock), r = 0;

	for (uint32_t i = 0; !r && i < req->nevents; i++) {
		r = evsel_add(&ev, req->events[i]);
		if (!r && req->filters[i])
			r = evsel_add_filter(&ev, req->filters[i]);
	}
	if (!r && !ev.n)
		r = tr_fail(-EINVAL, "the request names no event");
	if (!r && clock && clk < 0) {
		char line[160];

		snprintf(line, sizeof(line), "clock '%s' is not one a program can read: no clock "
			 "sync (ask for mono, mono_raw, boot or tai)", clock);
		opt_log_line(NULL, line);
	}
	setup.clock = clock;
	if (!r)
		r = cmd_instance_open(a->instance, true, &in);
	if (!r)
		r = live_agent_record(job, in, &setup, &ev, clk < 0 ? -1 : clk);
	if (tfs_restore_to(mark) && !r)
		r = tr_fail(-EIO, "cannot put tracefs back after the recording");
	evsel_list_free(&ev);
	free(clock);
	return r;
}

int cmd_agent(int argc, char **argv)
{
	struct args a = { .port = AGENT_PORT };
	int e;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	for (int i = 0; i < a.nallow && !a.psk; i++)
		if (!net_cidr_loopback(&a.allow[i])) {
			tr_warn("--allow lets other machines in without authentication: anyone in "
				"those ranges who reaches the port can record any event here");
			break;
		}
	e = net_agent_serve(&(struct net_agent_opts){
		.bind = a.bind, .vsock = !a.tcp, .port = a.port, .allow = a.allow, .nallow = a.nallow,
		.psk_file = a.psk, .log = opt_log_line, .log_arg = &a, .stop = &tr_stop,
		.ready = ready, .run = run, .run_arg = &a });
	free(a.allow);
	if (e) {
		tr_report(e, "cannot serve");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
