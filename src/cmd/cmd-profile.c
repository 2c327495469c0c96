// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr profile: the kernel's function profiler around a command (or for
 * --duration; Ctrl-C ends either early): per function the calls, the total and
 * average time and its standard deviation, summed over the CPUs or per
 * CPU with --cpu, sorted, as text, JSON or CSV.  -l limits it to functions
 * (set_ftrace_filter, put back afterwards).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "parse.h"
#include "profile.h"
#include "session.h"

enum { MAX_CPUS = 4096 };

struct args {
	struct prof_opts o;
	uint64_t cpus[MAX_CPUS / 64];
	bool per_cpu;
	enum prof_sort sort;
	enum prof_out out;
	int limit;
};

enum { OPT_CPU = 0x100, OPT_JSON, OPT_CSV, OPT_LIMIT };

static const struct argp_option options[] = {
	{ "func-filter", 'l', "FUNC", 0,
	  "Profile only functions matching FUNC (set_ftrace_filter, for the run). Repeatable", 0 },
	{ "cpu", OPT_CPU, "LIST", 0, "One row per CPU and function, for these CPUs (e.g. 0-3,6)",
	  0 },
	{ "sort", 's', "KEY", 0, "Sort by total (default), hits, avg, stddev or name", 0 },
	{ "limit", OPT_LIMIT, "N", 0, "Only the first N rows", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per row", 0 },
	{ "csv", OPT_CSV, NULL, 0, "CSV with a header row", 0 },
	{ "instance", 'B', "NAME", 0,
	  "Refused: the function profiler belongs to the top level only", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'l':
		if (!*arg)
			argp_error(state, "empty function name");
		strv_push(&a->o.funcs, arg);
		return 0;
	case OPT_CPU:
		if (parse_cpu_list(arg, a->cpus, MAX_CPUS))
			argp_error(state, "bad cpu list '%s'", arg);
		a->per_cpu = true;
		return 0;
	case 's':
		if (prof_sort_parse(arg, &a->sort))
			argp_error(state, "bad sort key '%s' (total, hits, avg, stddev or name)", arg);
		return 0;
	case OPT_LIMIT:
		if (parse_int(arg, 1, INT32_MAX, &a->limit))
			argp_error(state, "bad row count '%s'", arg);
		return 0;
	case OPT_JSON:
		a->out = PROF_JSON;
		return 0;
	case OPT_CSV:
		a->out = PROF_CSV;
		return 0;
	case 'B':
		/* function_profile_enabled and trace_stat exist at the top level only. */
		argp_error(state, "-B '%s': the function profiler has no instances (it is the "
				  "top level's only)", arg);
		return 0;
	case ARGP_KEY_INIT:
		opt_bind_duration(state, &a->o.duration_ns);
		return 0;
	case ARGP_KEY_ARG:
		opt_command(state, &a->o.command);
		return 0;
	case ARGP_KEY_END:
		if (a->o.command && a->o.duration_ns)
			argp_error(state, "COMMAND and --duration exclude each other");
		/* The profiler runs until one of them ends it, or Ctrl-C does (without either). */
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, "[COMMAND [ARGS...]]\n--duration TIME",
	"Profile kernel functions with the kernel's function profiler while COMMAND runs (or "
	"for --duration, or without either until Ctrl-C; Ctrl-C ends each early): per function the calls, the total and average time "
	"and the standard deviation of one call's time, summed over the CPUs (per CPU with "
	"--cpu).  Times are in microseconds; names are cut to 30 characters, as the kernel "
	"keeps them.",
	opt_duration_children, NULL, NULL
};

int cmd_profile(int argc, char **argv)
{
	struct args a = { .sort = PROF_SORT_TOTAL };
	struct prof_table t = { 0 }, merged = { 0 };
	int r;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	r = prof_run(&a.o, &t);
	if (!r) {
		struct prof_table *show = &t;

		if (a.per_cpu) {
			prof_keep_cpus(&t, a.cpus, MAX_CPUS);
		} else {
			prof_merge(&t, &merged);
			show = &merged;
		}
		prof_sort(show, a.sort);
		prof_print(stdout, show, a.out, a.limit);
	} else {
		tr_report(r, "cannot profile");
	}
	prof_free(&t);
	prof_free(&merged);
	strv_free(&a.o.funcs);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
