// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stream: trace without a file.  Sets up events and tracer as tr record
 * does, reads the per-CPU buffers live and prints each event as it arrives,
 * merged across CPUs and formatted as tr report formats it, while COMMAND
 * runs, until SIGINT, SIGTERM or --duration.  Everything set up is put
 * back after.
 */
#include <errno.h>
#include <stdio.h>

#include "cmd.h"
#include "parse.h"
#include "setup.h"
#include "stream.h"

struct args {
	struct opt_instance inst;
	struct opt_events ev;
	struct tr_setup setup;
	struct strv filters;
	bool invert;
	struct fmt_opts fo;
	struct opt_run run;
	char **command;
	uint64_t max_delay_ns;
};

enum { OPT_FORMAT = 0x100, OPT_IRQ_INFO, OPT_MAX_DELAY };

static const struct argp_option options[] = {
	{ "report-filter", 'F', "FILTER", 0,
	  "Print only events matching FILTER ('sched_switch: prev_pid == 0'). Repeatable", 0 },
	{ "invert", 'v', NULL, 0, "Print the events the -F filters do not match instead", 0 },
	{ "raw", 'R', NULL, 0, "Print the fields as name=value", 0 },
	{ "ns", 't', NULL, 0, "Timestamps to the nanosecond", 0 },
	{ "format", OPT_FORMAT, "FMT", 0,
	  "text (default: the kernel's text), libtraceevent (trace-cmd's), json or csv", 0 },
	{ "irq-info", OPT_IRQ_INFO, NULL, 0,
	  "Show the kernel's irq-info column after the CPU (e.g. d..2.), as its trace file does",
	  0 },
	{ "max-delay", OPT_MAX_DELAY, "DURATION", 0,
	  "Hold each event at most this long (default 100ms) for the other CPUs' readers to catch "
	  "up, so that events print in time order across CPUs; 0: print each batch as it comes",
	  0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		a->max_delay_ns = STREAM_MAX_DELAY_NS;
		opt_bind(state, &a->inst, &a->ev, &a->setup);
		opt_bind_run(state, &a->run);
		return 0;
	case 'F':
		opt_filter_add(state, &a->filters, arg);
		return 0;
	case 'v':
		a->invert = true;
		return 0;
	case 'R':
		a->fo.raw = true;
		return 0;
	case 't':
		a->fo.ns = true;
		return 0;
	case OPT_FORMAT:
		if (opt_output_format(arg, &a->fo))
			argp_error(state, "unknown format '%s' (text, libtraceevent, json or csv)",
				   arg);
		return 0;
	case OPT_IRQ_INFO:
		a->fo.irq_info = true;
		return 0;
	case OPT_MAX_DELAY:
		if (parse_duration(arg, &a->max_delay_ns) || a->max_delay_ns > 60000000000ull)
			argp_error(state, "bad --max-delay '%s' (a duration up to 60s)", arg);
		return 0;
	case ARGP_KEY_ARG:
		opt_command(state, &a->command);
		return 0;
	case ARGP_KEY_END:
		if (a->invert && !a->filters.n)
			argp_error(state, "-v goes with -F");
		if (a->fo.irq_info && a->fo.kind != FMT_TEXT)
			argp_error(state, "--irq-info is for text output");
		opt_check_follow(state, a->run.follow, a->command, &a->setup);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, "[COMMAND [ARGS...]]",
				  "Trace without a file: print events live as they arrive, merged "
				  "across CPUs and formatted as 'tr report' formats them, while "
				  "COMMAND runs, until interrupted or --duration ends.",
				  opt_live_children, NULL, NULL };

int cmd_stream(int argc, char **argv)
{
	struct args a = { 0 };
	struct tfs_inst *in;
	int r;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	r = cmd_instance_open(a.inst.name, true, &in);
	if (!r)
		r = stream_run(&(struct stream_opts){ .inst = in, .fo = a.fo, .filters = &a.filters,
						      .invert = a.invert, .setup = &a.setup,
						      .events = &a.ev.list, .no_filter = a.run.no_filter,
						      .follow = a.run.follow, .command = a.command,
						      .duration_ns = a.run.duration_ns,
						      .max_delay_ns = a.max_delay_ns },
			       stdout);
	if (r)
		tr_report(r, "stream");
	evsel_list_free(&a.ev.list);
	strv_free(&a.filters);
	setup_free(&a.setup);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
