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
	const char *bind;
	struct net_cidr *allow;
	int nallow;
	int max_syscalls;
	char **command;
};

enum { OPT_BIND = 0x100, OPT_ALLOW, OPT_MAX_SYSCALLS };

static const struct argp_option options[] = {
	{ "port", 'p', "PORT", 0, "Answer on PORT (default 9464; 0: any free port, said in the "
				  "log)", 0 },
	{ "bind", OPT_BIND, "ADDR", 0, "Listen on ADDR (default 127.0.0.1; :: or 0.0.0.0 for all)",
	  0 },
	{ "allow", OPT_ALLOW, "CIDR", 0, "Answer scrapers from this address range (default: "
					 "loopback only). Repeatable", 0 },
	{ "max-syscalls", OPT_MAX_SYSCALLS, "N", 0, "Give at most N system calls series of their "
						    "own (default 64); later ones count in "
						    "syscall=\"other\"", 0 },
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
	case OPT_MAX_SYSCALLS:
		if (parse_int(arg, 2, 100000, &a->max_syscalls))
			argp_error(state, "bad --max-syscalls '%s' (2 to 100000)", arg);
		return 0;
	case ARGP_KEY_ARG:
		opt_command(state, &a->command);
		return 0;
	case ARGP_KEY_END:
		if (a->command && a->duration_ns)
			argp_error(state, "COMMAND and --duration exclude each other");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, "[-- COMMAND...]",
	"Serve the kernel's activity as metrics for Prometheus: GET /metrics answers in the "
	"text exposition format or OpenMetrics, as the scraper asks.  Counted from tracepoints "
	"in user space: CPU time per CPU and mode, context switches, run-queue latency, system "
	"calls (counts, errors, durations), page faults, irqs and softirqs, block I/O latency, "
	"and the ring buffer's and tr's own health (tr-serve(1) lists every metric).\n"
	"Tracing happens in an instance of its own (tr-serve-PID), removed at exit, unless -B "
	"names one.  Runs until interrupted, for --duration, or while COMMAND runs.  Only "
	"loopback can scrape unless --bind and --allow say otherwise.  Examples:\n"
	"  tr serve\n"
	"  tr serve --bind 0.0.0.0 --allow 10.0.0.0/8\n"
	"  tr serve -p 0 --duration 60s",
	opt_instance_duration_children, NULL, NULL
};

static void listening(void *arg, const char *addr)
{
	char line[160];

	(void)arg;
	snprintf(line, sizeof(line), "serving metrics on http://%s/metrics", addr);
	opt_log_line(NULL, line);
}

static int run(struct args *a)
{
	struct serve_opts o = {
		.command = a->command, .duration_ns = a->duration_ns, .bind = a->bind,
		.port = (unsigned short)a->port, .allow = a->allow, .nallow = a->nallow,
		.max_syscalls = (size_t)a->max_syscalls, .listening = listening,
		.log = opt_log_line,
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
	if (r) {
		tr_report(r, "serve");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
