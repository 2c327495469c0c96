// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr record -A NAME@ADDR:PORT (record-local.h): the guests' part of the
 * command line, checked at its end, what each agent is asked for, and
 * their lines in the summary; with -N and -V, the options that reach
 * another machine.  Their files and their recording are the
 * live layer's (live/guests.c, live-record.h), the protocol net.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "netmsg.h"
#include "parse.h"
#include "record-buffers.h"
#include "record-local.h"
#include "setup.h"
#include "tr.h"

void guest_spec(struct argp_state *state, struct guest_args *g, const char *spec)
{
	const char *at = strchr(spec, '@');
	size_t n = at ? (size_t)(at - spec) : 0;

	g->spec = spec;
	if (!at || !n || n > 64 || spec[0] == '.' ||
	    strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
		argp_error(state, "bad guest '%s': give NAME@ADDR:PORT, NAME of letters, digits, "
				  "'_', '-' and '.' (not first)", spec);
	/* NAME@CID[:PORT], a number alone before the port: vsock, as trace-cmd's -A. */
	if (at[1] >= '0' && at[1] <= '9' && strspn(at + 1, "0123456789") == strcspn(at + 1, ":")) {
		char *v = strchr(at + 1, ':') ? xstrdup(at + 1) : xasprintf("%s:823", at + 1);
		uint32_t cid;
		int bad = net_vsock_parse(v, &cid, &g->port);

		free(v);
		if (bad)
			argp_error(state, "bad guest '%s': %s", spec, tr_failure());
		g->host = xasprintf("%u", cid);
		g->vsock = true;
	} else if (!strchr(at + 1, ':') || net_hostport_parse(at + 1, &g->host, &g->port)) {
		argp_error(state, "bad guest '%s': give NAME@ADDR:PORT or NAME@CID[:PORT]", spec);
	}
	g->name = xasprintf("%.*s", (int)n, spec);
}

/* Only -e, -f and -C mean something to an agent. */
static bool only_clock(const struct tr_setup *s)
{
	return !s->tracer && !s->buffer_kb && !s->options.n && !s->triggers.n &&
	       !s->ftrace_filter.n && !s->ftrace_notrace.n && !s->graph_function.n &&
	       !s->graph_notrace.n && !s->tracer_opts.n && !s->has_max_graph_depth &&
	       !s->has_thresh && !s->func_stack && !s->cpus.set && !s->cmdlines_size &&
	       !s->pids.n && !s->notrace_pids.n && !s->children;
}

static void check_clock(struct argp_state *state, const char *clock, const char *who)
{
	if (net_clock_id(clock) < 0)
		argp_error(state, "-A measures the guests' clock offset with a clock a program can "
				  "read: clock '%s' of %s cannot be; give -C mono, mono_raw, boot or "
				  "tai", clock, who);
}

void guests_check(struct argp_state *state, struct guest_args *g, size_t n,
		  const struct evsel_list *host_ev, struct tr_setup **host, size_t nhost)
{
	const char *clock = host[0]->clock ? host[0]->clock : "mono";

	check_clock(state, clock, "this machine");
	for (size_t i = 0; i < nhost; i++) {
		if (host[i]->clock && strcmp(host[i]->clock, clock))
			argp_error(state, "-A records every buffer with one clock: '%s' and '%s' "
					  "differ", clock, host[i]->clock);
		host[i]->clock = clock;
	}
	for (size_t i = 0; i < n; i++) {
		struct evsel_list *l = &g[i].ev.list;

		for (size_t k = 0; k < i; k++)
			if (!strcmp(g[k].name, g[i].name))
				argp_error(state, "guest '%s' is given twice with -A", g[i].name);
		if (!only_clock(&g[i].setup))
			argp_error(state, "an agent records events: after -A %s give only -e, -f and "
					  "-C", g[i].spec);
		if (g[i].setup.clock)
			check_clock(state, g[i].setup.clock, g[i].name);
		for (size_t k = 0; !l->n && k < host_ev->n; k++) {
			evsel_add(l, host_ev->v[k].spec);
			if (host_ev->v[k].filter)
				evsel_add_filter(l, host_ev->v[k].filter);
		}
		if (!l->n)
			argp_error(state, "nothing to record in guest '%s': give it events with -e "
					  "(after -A, or before it for this machine and every guest)",
				   g[i].name);
		for (size_t k = 0; k < l->n; k++) {
			strv_push(&g[i].argv, "-e");
			strv_push(&g[i].argv, l->v[k].spec);
			if (l->v[k].filter) {
				strv_push(&g[i].argv, "-f");
				strv_push(&g[i].argv, l->v[k].filter);
			}
		}
		strv_push(&g[i].argv, "-C");
		strv_push(&g[i].argv, g[i].setup.clock ? g[i].setup.clock : clock);
		if (g[i].argv.n > NETMSG_MAX_ARGS)
			argp_error(state, "too many events for guest '%s' (at most %d)", g[i].name,
				   NETMSG_MAX_ARGS / 2 - 1);
	}
}

struct live_guest *guests_opts(const struct guest_args *g, size_t n, const char *psk,
			       unsigned interval_ms, uint64_t trace_id)
{
	struct live_guest *rg = xcalloc(n, sizeof(*rg));

	for (size_t i = 0; i < n; i++) {
		rg[i].fd = -1;
		rg[i].net = (struct net_guest_opts){
			.name = g[i].name, .host = g[i].host, .port = g[i].port, .vsock = g[i].vsock,
			.argv = (const char *const *)g[i].argv.v, .argc = g[i].argv.n,
			.trace_id = trace_id,
			.clock = net_clock_id(g[i].argv.v[g[i].argv.n - 1]),
			.interval_ms = interval_ms, .psk_file = psk };
	}
	return rg;
}

bool guests_report(const struct guest_args *g, const struct live_guest *rg, size_t n, bool quiet)
{
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		const struct net_guest_result *r = &rg[i].res;

		if (rg[i].error) {
			tr_warn("guest '%s': %s", g[i].name, rg[i].error);
			ok = false;
			continue;
		}
		if (quiet)
			continue;
		fprintf(stderr, "guest %s: wrote '%s' (%d CPUs, %.1f MB of events)", g[i].name,
			rg[i].path, r->cpus, r->data_bytes / 1e6);
		if (r->nsync)
			fprintf(stderr, ", clock offset %+lld ns (%d measurements, spread %lld ns)",
				(long long)r->offset_min + (r->offset_max - r->offset_min) / 2,
				r->nsync, (long long)(r->offset_max - r->offset_min));
		else
			fputs(", no clock sync", stderr);
		fputc('\n', stderr);
		if (r->max_size_reached)
			tr_warn("guest '%s' sent more than 4G of events: the rest was left out",
				g[i].name);
	}
	return ok;
}

void guests_free(struct guest_args *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].name);
		free(g[i].host);
		strv_free(&g[i].argv);
		evsel_list_free(&g[i].ev.list);
		setup_free(&g[i].setup);
	}
	free(g);
}

/* -N HOST:PORT or -V CID:PORT: the listener (the count is checked at the end). */
static void add_listener(struct argp_state *state, struct record_remote *a, bool vsock,
			 const char *arg)
{
	char *host;
	uint32_t cid;

	if (vsock ? net_vsock_parse(arg, &cid, &a->rn.port)
		  : net_hostport_parse(arg, &host, &a->rn.port))
		argp_error(state, "%s", tr_failure());
	free((char *)a->rn.host);
	a->rn.host = vsock ? xasprintf("%u", cid) : host;
	a->rn.vsock = vsock;
	a->net = arg;
	a->nnet++;
}

error_t remote_parse(struct argp_state *state, struct record_bufs *rb, struct record_remote *n,
		     int key, const char *arg)
{
	switch (key) {
	case 'A': {
		struct guest_args g = { 0 };

		/* Said now, not at the end of the line. */
		guest_spec(state, &g, arg);
		free(g.name);
		free(g.host);
		bufs_next_guest(rb, arg);
		return 0;
	}
	case OPT_TSYNC: {
		int ms;

		if (parse_int(arg, 1, 3600000, &ms))
			argp_error(state, "bad --tsync-interval '%s' (milliseconds, 1 to 3600000)",
				   arg);
		n->tsync_ms = ms;
		n->has_tsync = true;
		return 0;
	}
	case 'N':
	case 'V':
		add_listener(state, n, key == 'V', arg);
		return 0;
	case OPT_PSK:
		n->rn.psk_file = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* -A: what its guests need (--psk and --tsync-interval are theirs or -N's), then guests_check(). */
void remote_check(struct argp_state *state, struct record_bufs *rb, struct record_remote *n)
{
	struct tr_setup **host;

	if (n->rn.psk_file && !n->net && !rb->nguests)
		argp_error(state, "--psk goes with -N, -V or -A");
	if (n->has_tsync && !rb->nguests)
		argp_error(state, "--tsync-interval goes with -A");
	if (!rb->nguests)
		return;
	if (n->net || setup_latency_tracer(rb->done[0].setup.tracer))
		argp_error(state, "-A records into files here: no -N or -V, no latency tracer");
	host = xcalloc(rb->ndone, sizeof(*host));
	for (size_t i = 0; i < rb->ndone; i++)
		host[i] = &rb->done[i].setup;
	guests_check(state, rb->guests, rb->nguests, &rb->done[0].ev.list, host, rb->ndone);
	free(host);
}
