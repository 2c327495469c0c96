// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr top: what the kernel is doing, live, from tracepoints: tasks (CPU%,
 * switches, wakeups, run-queue latency), system calls, events, CPUs, irqs,
 * a tr hist table and a latency histogram, in an ncurses view or as text
 * or JSON refreshes (-b), from the running kernel (in an instance of its
 * own, tr-top-PID, unless -B) or from a trace.dat file (-i).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "hist.h"
#include "parse.h"
#include "setup.h"
#include "top.h"

struct args {
	struct opt_instance inst;
	struct opt_events ev;
	struct tr_cpus cpus;
	const char *keys, *vals, *view, *sort, *latency, *input;
	uint64_t interval_ns;
	bool batch, json, per_task, children, reverse, has_format;
	long iterations;
	pid_t *pids;
	size_t npids;
	char **command;
};

enum { OPT_VIEW = 0x100, OPT_FORMAT, OPT_LATENCY, OPT_PER_TASK, OPT_REVERSE };

static const struct argp_option options[] = {
	{ "delay", 'd', "SECONDS", 0, "Refresh every SECONDS (default 1; 0.5, 250ms, 2s)", 0 },
	{ "view", OPT_VIEW, "VIEW", 0,
	  "Start in VIEW: tasks, syscalls, events, cpus, irqs, custom, latency (or 1-7)", 0 },
	{ "keys", 'k', "KEY[.MOD],...", 0, "Custom view: tr hist's keys for the -e event", 0 },
	/* -k/-v as in tr hist (tr.1, OPTION LETTERS). */
	{ "vals", 'v', "VAL,...", 0, "Custom view: values to sum (hitcount always)", 0 },
	{ "sort", 's', "COLUMN", 0, "Sort by this column (its heading, e.g. COUNT)", 0 },
	{ "reverse", OPT_REVERSE, NULL, 0, "Sort the other way", 0 },
	{ "latency", OPT_LATENCY, "START,END[,MATCH]", 0,
	  "Latency view: from each START event to the END whose MATCH field agrees "
	  "(START_FIELD=END_FIELD; default common_pid)", 0 },
	{ "per-task", OPT_PER_TASK, NULL, 0, "Latency view: a row per task instead of per CPU", 0 },
	{ "input", 'i', "FILE", 0, "Replay a trace.dat file, interval by interval", 0 },
	{ "batch", 'b', NULL, 0, "No terminal: print each refresh (text or JSON)", 0 },
	{ "iterations", 'n', "N", 0, "Batch: stop after N refreshes", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "Batch: text (default) or json (one object per refresh)", 0 },
	{ "pid", 'P', "PID", 0, "Only this process and its threads. Repeatable", 0 },
	{ "children", 'c', NULL, 0, "With -P: their children too", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	int v;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, &a->ev, NULL);
		opt_bind_cpus(state, &a->cpus);
		return 0;
	case 'd':
		if (parse_duration(arg, &a->interval_ns) || a->interval_ns < 100000000ULL ||
		    a->interval_ns > 3600000000000ULL)
			argp_error(state, "bad delay '%s' (0.1 to 3600 seconds)", arg);
		return 0;
	case OPT_VIEW:
		a->view = arg;
		return 0;
	case 'k':
		a->keys = arg;
		return 0;
	case 'v':
		a->vals = arg;
		return 0;
	case 's':
		a->sort = arg;
		return 0;
	case OPT_REVERSE:
		a->reverse = true;
		return 0;
	case OPT_LATENCY:
		a->latency = arg;
		return 0;
	case OPT_PER_TASK:
		a->per_task = true;
		return 0;
	case 'i':
		a->input = arg;
		return 0;
	case 'b':
		a->batch = true;
		return 0;
	case 'n':
		if (parse_int(arg, 1, 1 << 30, &v))
			argp_error(state, "bad number of iterations '%s'", arg);
		a->iterations = v;
		return 0;
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json"))
			argp_error(state, "unknown format '%s' (text or json)", arg);
		a->json = !strcmp(arg, "json");
		a->has_format = true;
		return 0;
	case 'P':
		if (parse_int(arg, 1, 1 << 22, &v))
			argp_error(state, "bad pid '%s'", arg);
		a->pids = xrealloc(a->pids, (a->npids + 1) * sizeof(pid_t));
		a->pids[a->npids++] = v;
		return 0;
	case 'c':
		a->children = true;
		return 0;
	case ARGP_KEY_ARG:
		opt_command(state, &a->command);
		return 0;
	case ARGP_KEY_END:
		if ((a->iterations || a->has_format) && !a->batch)
			argp_error(state, "-n and --format go with -b");
		if (a->children && !a->npids)
			argp_error(state, "-c goes with -P");
		if (a->vals && !a->keys)
			argp_error(state, "--vals goes with -k");
		if (a->keys && a->ev.list.n != 1)
			argp_error(state, "-k makes a histogram of one event: give one -e SYS:EVENT");
		if (a->per_task && a->view && strcmp(a->view, "latency") && strcmp(a->view, "7"))
			argp_error(state, "--per-task goes with the latency view");
		if (a->input && a->command)
			argp_error(state, "-i FILE takes no COMMAND");
		if (a->input && a->cpus.set)
			argp_error(state, "-M and --cpus choose CPUs to trace live: not with -i");
		if (a->input && a->ev.list.n && !a->keys)
			argp_error(state, "-e enables events live: with -i the file has what it has");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ &opt_events_argp, 0, "Events (for the events view, or one for the custom view):", 0 },
	{ &opt_cpus_argp, 0, "CPUs:", 0 },
	{ 0 }
};

static const struct argp argp = {
	options, parse, "[COMMAND [ARGS...]]",
	"What the kernel is doing, live, from tracepoints: tasks, system calls, events, CPUs, "
	"interrupts, a tr hist table and a latency histogram, refreshed every -d seconds.\v"
	"The letters -b, -n and -d are top(1)'s: batch, iterations, delay.\n"
	"Keys: 1-7 or Tab switch views, arrows/PgUp/PgDn/Home/End move, < > (F6) choose the "
	"sort column, r reverses, / filters rows (Esc clears), Enter drills down, Backspace "
	"goes back, e echoes the raw events of the row, p or space pauses, z zeroes, + - change "
	"the delay, t latency per task or CPU, h or ? help, q (F10) quits; with -i: n N next "
	"and previous interval, g goes to a time.\n"
	"Tracing happens in an instance of its own (tr-top-PID), removed at exit, unless -B "
	"names one.  With COMMAND, tr top shows the system while it runs and stops when it "
	"ends.  Examples:\n"
	"  tr top\n"
	"  tr top -b -n 3 --view syscalls -P 1234\n"
	"  tr top --view latency -- make -j2\n"
	"  tr top -e kmem:kmalloc -k call_site.sym -v bytes_req\n"
	"  tr top -b -i trace.dat --view events",
	children, NULL, NULL
};

static int run(struct args *a, struct hist_spec *spec, struct top_lat_spec *lat)
{
	struct top_opts o = {
		.instance = a->inst.name, .input = a->input, .command = a->command,
		.interval_ns = a->interval_ns ? a->interval_ns : 1000000000ULL,
		.events = &a->ev.list, .custom = a->keys ? spec : NULL,
		.lat = a->latency ? lat : NULL, .lat_by_task = a->per_task, .batch = a->batch,
		.iterations = a->iterations, .out = a->json ? TOP_OUT_JSON : TOP_OUT_TEXT,
		.outf = stdout,
		.pids = a->pids, .npids = a->npids, .children = a->children, .sort = a->sort,
		.reverse = a->reverse,
	};
	int r;

	o.view = a->view ? top_view_pick(a->view) : a->keys ? top_view_find("custom")
					 : a->latency ? top_view_find("latency")
						      : top_view_find("tasks");
	if (!a->batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return tr_fail(-ENOTTY, "tr top draws on a terminal: use -b for batch output");
	if (a->input)
		return top_replay_run(&o);
	/* Its own instance unless -B: someone else's tracing at the top level is left alone. */
	if (a->inst.name) {
		r = cmd_instance_open(a->inst.name, false, &o.inst);
	} else {
		char *name = xasprintf("tr-top-%d", (int)getpid());

		r = cmd_instance_open(name, true, &o.inst);
		free(name);
	}
	/* Before the session opens its readers; restored at exit as every setting. */
	if (!r)
		r = setup_cpus(o.inst, &a->cpus);
	if (!r)
		r = top_live_run(&o);
	return r;
}

int cmd_top(int argc, char **argv)
{
	struct args a = { 0 };
	struct hist_spec spec = { 0 };
	struct top_lat_spec lat = { 0 };
	int r = 0, status = EXIT_OK;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (a.view && !top_view_pick(a.view)) {
		tr_error("unknown view '%s' (%s, or 1-7)", a.view, top_view_names());
		status = EXIT_USAGE;
	} else if (a.view && !strcmp(top_view_id(top_view_pick(a.view)), "custom") && !a.keys) {
		tr_error("the custom view needs -e SYS:EVENT -k KEY");
		status = EXIT_USAGE;
	} else if (a.keys && (r = hist_spec_build(&spec, a.ev.list.v[0].spec, a.keys, a.vals, NULL,
						   NULL, 0, NULL))) {
		tr_error("%s", tr_failure());
		status = EXIT_USAGE;
	} else if (a.latency && (r = top_lat_parse(a.latency, &lat))) {
		tr_error("%s", tr_failure());
		status = EXIT_USAGE;
	} else {
		/* The custom view's event filter (-f) is the kernel's, as for any -e. */
		r = run(&a, &spec, &lat);
		if (r) {
			tr_report(r, "top");
			status = EXIT_RUNTIME;
		}
	}
	hist_spec_free(&spec);
	top_lat_free(&lat);
	evsel_list_free(&a.ev.list);
	free(a.pids);
	return status;
}
