// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr split: cut a trace.dat into smaller ones that tr report and trace-cmd
 * report read, by time range (--time START,END, several allowed), every N
 * events (--events N) or one file per CPU (--per-cpu).  Each part keeps the
 * input's formats, kallsyms, cmdlines, options and buffers; its events are
 * re-encoded into new sub-buffers.  One line per file written goes to
 * stdout, as trace-cmd's commands report their files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "parse.h"
#include "tfile-edit.h"

struct args {
	const char *input, *prefix;
	struct tfile_range *ranges;
	size_t nranges;
	uint64_t events;
	bool per_cpu, quiet;
	struct opt_file_format ff;
	size_t written;		/* parts written */
};

enum { OPT_TIME = 0x100, OPT_EVENTS, OPT_PER_CPU };

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read the trace from FILE (default trace.dat)", 0 },
	{ "output", 'o', "PREFIX", 0,
	  "Name the parts PREFIX.1, PREFIX.2 ... (PREFIX.cpuN with --per-cpu; default: the "
	  "input's name)", 0 },
	{ "time", OPT_TIME, "START,END", 0,
	  "One part with the events from START (included) to END (excluded); either may be "
	  "left out.  Seconds as tr report prints them (12345.678901), or +TIME from the first "
	  "event with a unit (+1.5s, +200ms, +50us); repeat for more parts", 0 },
	{ "events", OPT_EVENTS, "N", 0, "A part every N events, in the order tr report prints them",
	  0 },
	{ "per-cpu", OPT_PER_CPU, NULL, 0, "One part per CPU that has events", 0 },
	{ "quiet", 'q', NULL, 0, "Print nothing but errors", 0 },
	{ 0 }
};

/* One side of a range: "" (open), "12345.678901" or "+1.5s". */
static int parse_bound(const char *s, uint64_t *ns, bool *rel, bool *has)
{
	*rel = *s == '+';
	*has = *s != '\0';
	if (!*has)
		return 0;
	if (*rel && !s[1])
		return -EINVAL;
	return parse_time(s + *rel, ns);
}

static void parse_range(struct argp_state *state, struct args *a, const char *arg)
{
	const char *comma = strchr(arg, ',');
	struct tfile_range g = { 0 };
	char *start;
	int r;

	if (!comma || strchr(comma + 1, ','))
		argp_error(state, "bad time range '%s' (START,END: 12345.6,12346 or +1s,+2s)", arg);
	start = xasprintf("%.*s", (int)(comma - arg), arg);
	r = parse_bound(start, &g.start, &g.start_rel, &g.has_start);
	free(start);
	if (r)
		argp_error(state, "bad time range '%s': bad start (seconds such as 12345.678901, "
			   "or +TIME with a unit such as +1.5s)", arg);
	if (parse_bound(comma + 1, &g.end, &g.end_rel, &g.has_end))
		argp_error(state, "bad time range '%s': bad end (seconds such as 12345.678901, "
			   "or +TIME with a unit such as +1.5s)", arg);
	if (g.has_start && g.has_end && g.start_rel == g.end_rel && g.end <= g.start)
		argp_error(state, "bad time range '%s': the end is not after the start", arg);
	a->ranges = xrealloc(a->ranges, (a->nranges + 1) * sizeof(*a->ranges));
	a->ranges[a->nranges++] = g;
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind_file_format(state, &a->ff);
		return 0;
	case 'i':
	case 'o':
		if (!*arg)
			argp_error(state, "empty %s name",
				   key == 'i' ? "input file" : "output prefix");
		*(key == 'i' ? &a->input : &a->prefix) = arg;
		return 0;
	case OPT_TIME:
		parse_range(state, a, arg);
		return 0;
	case OPT_EVENTS:
		if (parse_u64(arg, &a->events) || !a->events)
			argp_error(state, "bad event count '%s' (a number above 0)", arg);
		return 0;
	case OPT_PER_CPU:
		a->per_cpu = true;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if ((a->nranges > 0) + (a->events > 0) + a->per_cpu != 1)
			argp_error(state, "say how to cut: one of --time, --events or --per-cpu");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, NULL,
	"Cut a trace.dat into smaller files, by time range, event count or CPU.\v"
	"Each part is a whole trace.dat (formats, kallsyms, cmdlines, options and buffers of "
	"the input) that tr report and trace-cmd report read; concatenated, the reports of "
	"the parts of an --events split, or of --time ranges that follow each other, are "
	"the report of the whole, but for each report's first line (cpus=N).  Lost-event "
	"marks stay with the events they precede.  "
	"Each file written is named on stdout with its event count and time span.  The parts "
	"have the input's version and compression unless --file-version or --compression "
	"say otherwise.",
	opt_file_format_children, NULL, NULL
};

static void wrote(void *arg, const struct tfile_part *p)
{
	struct args *a = arg;
	/* Microseconds rounded, as tr report prints them. */
	uint64_t first = (p->first_ts + 500) / 1000, last = (p->last_ts + 500) / 1000;

	a->written++;
	if (a->quiet)
		return;
	if (!p->events)
		printf("%s: 0 events\n", p->path);
	else
		printf("%s: %" PRIu64 " event%s, %" PRIu64 ".%06" PRIu64 " to %" PRIu64
		       ".%06" PRIu64 "\n", p->path, p->events, p->events == 1 ? "" : "s",
		       first / 1000000, first % 1000000, last / 1000000, last % 1000000);
}

int cmd_split(int argc, char **argv)
{
	struct args a = { .ff.zip = -1 };
	struct tfile_split_opts o;
	struct tfile *tf = NULL;
	char *dir = NULL, *slash;
	int r, status = EXIT_RUNTIME;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.input)
		a.input = "trace.dat";
	if (!a.prefix)
		a.prefix = a.input;
	o = (struct tfile_split_opts){
		.edit = { .version = a.ff.version, .zip = a.ff.zip },
		.mode = a.per_cpu ? TFILE_SPLIT_CPU : a.events ? TFILE_SPLIT_EVENTS :
			TFILE_SPLIT_TIME,
		.ranges = a.ranges, .nranges = a.nranges, .events = a.events, .prefix = a.prefix,
	};
	/* Compressed pages are staged beside the parts, where the room is. */
	dir = xstrdup(a.prefix);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	o.edit.tmp_dir = slash ? dir : ".";
	r = tfile_open(a.input, TFILE_KEEP_FORMATS | TFILE_LAZY_KALLSYMS, &tf);
	if (!r)
		r = tfile_split(tf, &o, wrote, &a);
	if (r) {
		tr_report(r, "cannot split '%s'", a.input);
		/* What the user asked cannot be done with this file: a usage error. */
		status = r == -ENOTSUP || r == -E2BIG || r == -EDOM || r == -EEXIST ? EXIT_USAGE
										     : EXIT_RUNTIME;
	} else {
		/* Only an --events or --per-cpu split of a file without events writes nothing. */
		if (!a.written)
			tr_warn("'%s' has no events: no files written", a.input);
		status = EXIT_OK;
	}
	tfile_close(tf);
	free(dir);
	free(a.ranges);
	return status;
}
