// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr serve: metrics for Prometheus (include/serve.h).  Parses and checks
 * the command line, opens the instance and delegates; the log (listening,
 * refused peers) goes to stderr in tr listen's format.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "net.h"
#include "parse.h"
#include "serve.h"

struct args {
	struct opt_instance inst;
	uint64_t duration_ns;
	int port;
	const char *bind, *tls_cert, *tls_key, *auth_file;
	struct net_cidr *allow;
	int nallow;
	int max_syscalls, max_series, max_comms;
	struct serve_hist hists[SERVE_MAX_USER];
	struct serve_lat lats[SERVE_MAX_USER];
	size_t nhists, nlats;
	enum serve_engine engine;
	bool by_comm;
	char **command;
};

enum { OPT_BIND = 0x100, OPT_ALLOW, OPT_MAX_SYSCALLS, OPT_HIST, OPT_LATENCY, OPT_ENGINE,
       OPT_MAX_SERIES, OPT_BY, OPT_MAX_COMMS, OPT_TLS_CERT, OPT_TLS_KEY, OPT_AUTH_FILE };

static const struct argp_option options[] = {
	{ "port", 'p', "PORT", 0, "Answer on PORT (default 9464; 0: any free port, said in the "
				  "log)", 0 },
	{ "bind", OPT_BIND, "ADDR", 0, "Listen on ADDR (default 127.0.0.1; :: or 0.0.0.0 for all)",
	  0 },
	{ "allow", OPT_ALLOW, "CIDR", 0, "Answer scrapers from this address range (default: "
					 "loopback only). Repeatable", 0 },
	{ "tls-cert", OPT_TLS_CERT, "FILE", 0, "Serve HTTPS with this PEM certificate (chain); "
					       "with --tls-key", 0 },
	{ "tls-key", OPT_TLS_KEY, "FILE", 0, "The certificate's PEM private key (mode 600)", 0 },
	{ "auth-file", OPT_AUTH_FILE, "FILE", 0, "Answer only scrapers that give a user and "
						 "password of FILE (htpasswd's USER:HASH lines, "
						 "htpasswd -B or openssl passwd -6; mode 600)", 0 },
	{ "max-syscalls", OPT_MAX_SYSCALLS, "N", 0, "Give at most N system calls series of their "
						    "own (default 64); later ones count in "
						    "syscall=\"other\"", 0 },
	{ "hist", OPT_HIST, "'SYS:EV -k KEY -v VAL'", 0, "Export tr hist's table of SYS:EV as "
	  "counters tr_NAME_hits_total and tr_NAME_VAL_total, one label per key (-f FILTER, -n "
	  "NAME; NAME: the event's). Repeatable", 1 },
	{ "latency", OPT_LATENCY, "[NAME=]START,END[,MATCH]", 0, "Export the time from START "
	  "to END (paired on MATCH, START_FIELD=END_FIELD, default common_pid=common_pid) as "
	  "the histogram tr_NAME_latency_seconds. Repeatable", 1 },
	{ "engine", OPT_ENGINE, "auto|kernel|user", 0, "Where the counters and --hist count: the "
	  "kernel's hist triggers (auto, where the kernel has them) or tr itself", 1 },
	{ "max-series", OPT_MAX_SERIES, "N", 0, "Label sets of each --hist family (default "
	  "1000); later keys count in \"other\"", 1 },
	{ "by", OPT_BY, "comm", 0, "Also export CPU time, context switches, system calls and "
	  "page faults per command name (tr_comm_*)", 1 },
	{ "max-comms", OPT_MAX_COMMS, "N", 0, "Command names with series of their own under "
	  "--by comm (default 200); later ones count in comm=\"other\"", 1 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		opt_bind_duration(state, &a->duration_ns);
		return 0;
	case 'p':
		opt_port(state, arg, &a->port);
		return 0;
	case OPT_BIND:
		a->bind = arg;
		return 0;
	case OPT_ALLOW:
		opt_allow(state, arg, &a->allow, &a->nallow);
		return 0;
	case OPT_TLS_CERT:
		a->tls_cert = arg;
		return 0;
	case OPT_TLS_KEY:
		a->tls_key = arg;
		return 0;
	case OPT_AUTH_FILE:
		a->auth_file = arg;
		return 0;
	case OPT_MAX_SYSCALLS:
		if (parse_int(arg, 2, 100000, &a->max_syscalls))
			argp_error(state, "bad --max-syscalls '%s' (2 to 100000)", arg);
		return 0;
	case OPT_HIST:
		if (a->nhists == SERVE_MAX_USER)
			argp_error(state, "at most %d --hist", SERVE_MAX_USER);
		if (serve_hist_parse(arg, &a->hists[a->nhists]))
			argp_error(state, "%s", tr_failure());
		a->nhists++;
		return 0;
	case OPT_LATENCY:
		if (a->nlats == SERVE_MAX_USER)
			argp_error(state, "at most %d --latency", SERVE_MAX_USER);
		if (serve_lat_parse(arg, &a->lats[a->nlats]))
			argp_error(state, "%s", tr_failure());
		a->nlats++;
		return 0;
	case OPT_ENGINE:
		if (!strcmp(arg, "auto"))
			a->engine = SERVE_ENGINE_AUTO;
		else if (!strcmp(arg, "kernel"))
			a->engine = SERVE_ENGINE_KERNEL;
		else if (!strcmp(arg, "user"))
			a->engine = SERVE_ENGINE_USER;
		else
			argp_error(state, "bad --engine '%s' (auto, kernel or user)", arg);
		return 0;
	case OPT_MAX_SERIES:
		if (parse_int(arg, 2, 1000000, &a->max_series))
			argp_error(state, "bad --max-series '%s' (2 to 1000000)", arg);
		return 0;
	case OPT_BY:
		if (strcmp(arg, "comm"))
			argp_error(state, "bad --by '%s' (comm)", arg);
		a->by_comm = true;
		return 0;
	case OPT_MAX_COMMS:
		if (parse_int(arg, 2, 100000, &a->max_comms))
			argp_error(state, "bad --max-comms '%s' (2 to 100000)", arg);
		return 0;
	case ARGP_KEY_ARG:
		opt_command(state, &a->command);
		return 0;
	case ARGP_KEY_END:
		if (a->command && a->duration_ns)
			argp_error(state, "COMMAND and --duration exclude each other");
		if (!a->tls_cert != !a->tls_key)
			argp_error(state, "--tls-cert and --tls-key go together");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, "[-- COMMAND...]",
	"Serve the kernel's activity as metrics for Prometheus: GET /metrics answers in the "
	"text exposition format or OpenMetrics, as the scraper asks.  Counted from tracepoints "
	"in user space, or by the kernel's hist triggers where it has them: CPU time per CPU "
	"and mode, context switches, run-queue latency, system calls (counts, errors, "
	"durations), page faults, irqs and softirqs, block I/O latency, "
	"and the ring buffer's and tr's own health (tr-serve(1) lists every metric).\n"
	"Tracing happens in an instance of its own (tr-serve-PID), removed at exit, unless -B "
	"names one.  Runs until interrupted, for --duration, or while COMMAND runs.  Only "
	"loopback can scrape unless --bind and --allow say otherwise.  Examples:\n"
	"  tr serve\n"
	"  tr serve --bind 0.0.0.0 --allow 10.0.0.0/8\n"
	"  tr serve -p 0 --duration 60s\n"
	"  tr serve --hist 'kmem:kmalloc -k call_site.sym -v bytes_req' "
	"--latency sched:sched_waking,sched:sched_switch,pid=next_pid",
	opt_instance_duration_children, NULL, NULL
};

static void listening(void *arg, const char *addr)
{
	char line[160];

	(void)arg;
	snprintf(line, sizeof(line), "serving metrics on %s/metrics", addr);
	opt_log_line(NULL, line);
}

static int run(struct args *a)
{
	struct serve_opts o = {
		.command = a->command, .duration_ns = a->duration_ns, .bind = a->bind,
		.port = (unsigned short)a->port, .allow = a->allow, .nallow = a->nallow,
		.tls_cert = a->tls_cert, .tls_key = a->tls_key, .auth_file = a->auth_file,
		.max_syscalls = (size_t)a->max_syscalls, .listening = listening,
		.log = opt_log_line, .hists = a->hists, .nhists = a->nhists, .lats = a->lats,
		.nlats = a->nlats, .engine = a->engine, .max_series = (size_t)a->max_series,
		.by_comm = a->by_comm, .max_comms = (size_t)a->max_comms,
	};
	int r;

	/* Its own instance unless -B: someone else's tracing at the top level is left alone. */
	if (a->inst.name) {
		r = cmd_instance_open(a->inst.name, false, &o.inst);
	} else {
		char *name = xasprintf("tr-serve-%d", (int)getpid());

		r = cmd_instance_open(name, true, &o.inst);
		free(name);
	}
	if (!r)
		r = serve_run(&o);
	return r;
}

int cmd_serve(int argc, char **argv)
{
	struct args a = { .port = SERVE_PORT };
	int r;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	r = run(&a);
	free(a.allow);
	for (size_t i = 0; i < a.nhists; i++)
		serve_hist_free(&a.hists[i]);
	for (size_t i = 0; i < a.nlats; i++)
		serve_lat_free(&a.lats[i]);
	if (r) {
		tr_report(r, "serve");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
