// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr hist: a histogram of event fields while COMMAND runs (or for
 * --duration, or until interrupted), made by a kernel hist trigger or, on
 * kernels without them, by the userspace engine from the raw events (live
 * or from a trace.dat file with -i).  Also: show, clear, pause and cont on
 * histograms that already exist, and latency histograms between two events
 * through a synthetic event (--latency, --sql).  With --name, several -e
 * share one histogram; --define puts variables on other events for this
 * histogram's expressions and actions to read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "hist.h"
#include "parse.h"
#include "caps.h"

enum action { ACT_RUN, ACT_SHOW, ACT_CLEAR, ACT_PAUSE, ACT_CONT };
enum engine { ENG_AUTO, ENG_KERNEL, ENG_USER };

struct args {
	struct opt_instance inst;
	enum action act;
	struct strv events;	/* -e: one, or several sharing a --name histogram */
	struct strv defines;	/* --define SYS:EV:VAR=EXPR */
	struct strv dkeys;	/* --define-keys SYS:EV=KEY,... */
	const char *keys, *vals, *sort, *filter, *name, *input;
	uint64_t size, duration_ns;
	enum engine engine;
	struct hist_render_opts ro;
	struct hist_latency lat;
	struct strv actions;	/* --action, in order */
	const char *clock;	/* --clock */
	bool debug;		/* show --debug */
	char **command;
};

enum {
	OPT_SIZE = 0x100, OPT_BARS, OPT_JSON, OPT_CSV, OPT_ENGINE, OPT_NAME,
	OPT_LATENCY, OPT_START, OPT_START_FILTER, OPT_END, OPT_END_FILTER, OPT_MATCH, OPT_UNITS,
	OPT_ONMAX, OPT_SAVE, OPT_SNAPSHOT, OPT_SQL, OPT_LIMIT, OPT_ACTION, OPT_CLOCK, OPT_DEBUG,
	OPT_DEFINE, OPT_DEFINE_KEYS,
};

static const struct argp_option options[] = {
	{ "event", 'e', "SYS:EVENT", 0, "The event to make a histogram of; with --name, "
	  "repeatable: the events share one histogram (their keys must agree)", 0 },
	{ "keys", 'k', "KEY[.MOD],...", 0,
	  "Key fields, with modifiers .hex .sym .sym-offset .execname .syscall .log2 "
	  ".buckets=N .usecs; common_pid, common_cpu, common_timestamp, common_stacktrace too", 0 },
	/* -k/-v as hist triggers' keys= and vals=: what users type (tr.1, OPTION LETTERS). */
	{ "vals", 'v', "VAL[.MOD],...", 0, "Values to sum (hitcount always); .percent, .graph; "
	  "NAME=EXPR defines a hist variable (a field, $VAR, common_timestamp.usecs, + - * /)", 0 },
	{ "action", OPT_ACTION, "ACTION", 0, "Add a handler and action: onmatch(SYS.EV).trace(SYNTH,"
	  "ARGS), onchange($VAR).save(FIELDS) or .snapshot(), onmax($VAR).save(FIELDS); repeatable", 0 },
	{ "sort", 's', "FIELD[.descending],...", 0, "Sort by these keys or values", 0 },
	{ "filter", 'f', "FILTER", 0, "Count only events matching FILTER", 0 },
	{ "size", OPT_SIZE, "N", 0, "Room for N entries (default 2048)", 0 },
	{ "limit", OPT_LIMIT, "N", 0, "Print only the first N rows (the top N: counts and sums "
	  "sort biggest first)", 0 },
	{ "name", OPT_NAME, "NAME", 0, "A named histogram, shared between events (each -e gets "
	  "the trigger with name=NAME)", 0 },
	{ "define", OPT_DEFINE, "SYS:EV:VAR=EXPR", 0, "A variable on another event, for this "
	  "histogram to read as $VAR (matched by key): a trigger on SYS:EV for the run; "
	  "repeatable", 0 },
	{ "define-keys", OPT_DEFINE_KEYS, "SYS:EV=KEY,...", 0, "The keys of the variables on "
	  "SYS:EV (default: -k, which then must name fields of SYS:EV too)", 0 },
	{ "clock", OPT_CLOCK, "CLOCK", 0, "The trace clock of common_timestamp (the kernel's "
	  "clock=; a trace_clock name such as global, mono, counter)", 0 },
	{ "debug", OPT_DEBUG, NULL, 0, "With show: print the kernel's hist_debug text of the "
	  "event's histograms (their fields and variables)", 0 },
	{ "bars", OPT_BARS, NULL, 0, "Draw a bar for the sort value", 0 },
	{ "json", OPT_JSON, NULL, 0, "Print JSON", 0 },
	{ "csv", OPT_CSV, NULL, 0, "Print CSV", 0 },
	{ "engine", OPT_ENGINE, "kernel|user", 0,
	  "Aggregate in the kernel (hist triggers) or in userspace; default: the kernel if it can", 0 },
	{ "input", 'i', "FILE", 0, "Aggregate the events of a recorded trace.dat (userspace)", 0 },
	{ 0, 0, 0, 0, "Latency histograms:", 1 },
	{ "latency", OPT_LATENCY, NULL, 0, "Histogram of the time from --start to --end", 1 },
	{ "start", OPT_START, "SYS:EV", 0, "The event that starts the interval", 1 },
	{ "start-filter", OPT_START_FILTER, "FILTER", 0, "Only start events matching FILTER", 1 },
	{ "end", OPT_END, "SYS:EV", 0, "The event that ends it", 1 },
	{ "end-filter", OPT_END_FILTER, "FILTER", 0, "Only end events matching FILTER", 1 },
	{ "match", OPT_MATCH, "START_FIELD=END_FIELD", 0, "Pair start and end events on these fields", 1 },
	{ "units", OPT_UNITS, "ns|us", 0, "Latency unit (default us)", 1 },
	{ "onmax", OPT_ONMAX, "FIELD", 0, "Keep the maximum latency with --save fields (of the end)", 1 },
	{ "save", OPT_SAVE, "F1,F2", 0, "End-event fields saved with the maximum", 1 },
	{ "snapshot", OPT_SNAPSHOT, NULL, 0, "Take a snapshot at each new maximum", 1 },
	{ "sql", OPT_SQL, "SQL", 0, "A synthetic event from SQL, as libtracefs' tracefs_sql takes it", 1 },
	{ 0 }
};

/* --latency and --sql: a new histogram of their own event, its options only. */
static void check_latency(struct argp_state *state, const struct args *a)
{
	if (a->act != ACT_RUN)
		argp_error(state, "--latency and --sql make a new histogram");
	if (a->lat.on && a->lat.sql)
		argp_error(state, "--latency and --sql exclude each other");
	if (a->actions.n)
		argp_error(state, "--action goes with -e, not --latency or --sql");
	if (a->lat.on && (!a->lat.start || !a->lat.end || !a->lat.match))
		argp_error(state, "--latency needs --start, --end and --match");
	if (a->events.n)
		argp_error(state, "--latency and --sql make their own event: no -e");
	if (a->lat.save && !a->lat.onmax)
		argp_error(state, "--save goes with --onmax");
	if (a->lat.snapshot && a->lat.onmax)
		argp_error(state, "--onmax and --snapshot exclude each other");
}

/* -e: the latency options are not its; a new histogram needs keys. */
static void check_event(struct argp_state *state, const struct args *a)
{
	if (a->lat.start || a->lat.end || a->lat.match || a->lat.onmax || a->lat.save ||
	    a->lat.snapshot)
		argp_error(state, "--start, --end, --match, --onmax, --save and "
				  "--snapshot go with --latency");
	if (!a->events.n)
		argp_error(state, "which event? give -e SYS:EVENT");
	if (a->act == ACT_RUN && !a->keys)
		argp_error(state, "a histogram needs keys: give -k KEY");
}

/* Once the whole line is read: what goes with what, and which source (-i, COMMAND, --duration). */
static void check_hist(struct argp_state *state, const struct args *a)
{
	/* A second -e used to replace the first without a word. */
	if (a->events.n > 1 && !a->name)
		argp_error(state, "one -e per histogram ('%s', then '%s'); events share one "
				  "with --name", a->events.v[0], a->events.v[1]);
	if (a->events.n > 1 && a->act != ACT_RUN)
		argp_error(state, "show, clear, pause and cont take one -e");
	if ((a->defines.n || a->dkeys.n) && (a->lat.on || a->lat.sql || a->act != ACT_RUN))
		argp_error(state, "--define and --define-keys go with a new -e histogram");
	if (a->dkeys.n && !a->defines.n)
		argp_error(state, "--define-keys goes with --define");
	if ((a->defines.n || a->events.n > 1) && (a->input || a->engine == ENG_USER))
		argp_error(state, "--define and several -e are the kernel's: not with -i or "
				  "--engine user");
	if (a->lat.on || a->lat.sql)
		check_latency(state, a);
	else
		check_event(state, a);
	if (a->debug && a->act != ACT_SHOW)
		argp_error(state, "--debug goes with show");
	if (a->clock && (a->act != ACT_RUN || a->lat.on || a->lat.sql))
		argp_error(state, "--clock goes with a new -e histogram");
	if (a->clock && (a->input || a->engine == ENG_USER))
		argp_error(state, "--clock is the kernel's: not with -i or --engine user");
	if (a->act != ACT_RUN && (a->keys || a->vals || a->sort || a->filter || a->size ||
				  a->duration_ns || a->input || a->engine || a->actions.n))
		argp_error(state, "show, clear, pause and cont take only -e, --name, -B and "
				  "the output options");
	if (a->input && a->lat.sql)
		argp_error(state, "--sql runs in the kernel: no -i");
	if (a->input && a->engine == ENG_KERNEL)
		argp_error(state, "-i FILE is read by the userspace engine");
	if (a->input && (a->command || a->duration_ns))
		argp_error(state, "-i FILE takes no COMMAND or --duration");
	if (a->command && a->duration_ns)
		argp_error(state, "COMMAND and --duration exclude each other");
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		opt_bind_duration(state, &a->duration_ns);
		return 0;
	case 'e':
		strv_push(&a->events, arg);
		return 0;
	case OPT_DEFINE:
		strv_push(&a->defines, arg);
		return 0;
	case OPT_DEFINE_KEYS:
		strv_push(&a->dkeys, arg);
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
	case 'f':
		a->filter = arg;
		return 0;
	case 'i':
		a->input = arg;
		return 0;
	case OPT_SIZE:
		if (parse_u64(arg, &a->size) || !a->size)
			argp_error(state, "bad size '%s'", arg);
		return 0;
	case OPT_LIMIT: {
		uint64_t n;

		if (parse_u64(arg, &n) || !n)
			argp_error(state, "bad limit '%s' (a number of rows, at least 1)", arg);
		a->ro.limit = n;
		return 0;
	}
	case OPT_NAME:
		a->name = arg;
		return 0;
	case OPT_CLOCK:
		if (!*arg || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(arg))
			argp_error(state, "bad clock '%s' (a name from trace_clock)", arg);
		a->clock = arg;
		return 0;
	case OPT_DEBUG:
		a->debug = true;
		return 0;
	case OPT_BARS:
		a->ro.bars = true;
		return 0;
	case OPT_JSON:
		a->ro.kind = HIST_OUT_JSON;
		return 0;
	case OPT_CSV:
		a->ro.kind = HIST_OUT_CSV;
		return 0;
	case OPT_ENGINE:
		if (!strcmp(arg, "kernel"))
			a->engine = ENG_KERNEL;
		else if (!strcmp(arg, "user"))
			a->engine = ENG_USER;
		else
			argp_error(state, "bad engine '%s' (kernel or user)", arg);
		return 0;
	case OPT_LATENCY:
		a->lat.on = true;
		return 0;
	case OPT_START:
		a->lat.start = arg;
		return 0;
	case OPT_START_FILTER:
		a->lat.start_filter = arg;
		return 0;
	case OPT_END:
		a->lat.end = arg;
		return 0;
	case OPT_END_FILTER:
		a->lat.end_filter = arg;
		return 0;
	case OPT_MATCH:
		a->lat.match = arg;
		return 0;
	case OPT_UNITS:
		if (strcmp(arg, "ns") && strcmp(arg, "us"))
			argp_error(state, "bad units '%s' (ns or us)", arg);
		a->lat.ns = !strcmp(arg, "ns");
		return 0;
	case OPT_ONMAX:
		a->lat.onmax = arg;
		return 0;
	case OPT_SAVE:
		a->lat.save = arg;
		return 0;
	case OPT_SNAPSHOT:
		a->lat.snapshot = true;
		return 0;
	case OPT_SQL:
		a->lat.sql = arg;
		return 0;
	case OPT_ACTION:
		strv_push(&a->actions, arg);
		return 0;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0 && a->act == ACT_RUN) {
			/* A word that is no action is the COMMAND to run. */
			static const char *const acts[] = { NULL, "show", "clear", "pause", "cont",
							    NULL };
			int i = opt_action_find(arg, acts);

			if (i) {
				a->act = (enum action)i;
				return 0;
			}
		}
		if (a->act != ACT_RUN)
			argp_error(state, "too many arguments");
		opt_command(state, &a->command);
		return 0;
	case ARGP_KEY_END:
		check_hist(state, a);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse,
	"-e SYS:EVENT -k KEY[,KEY...] [--vals VAL,...] [-s SORT] [COMMAND [ARGS...]]\n"
	"--name NAME -e SYS:EV -e SYS:EV... -k KEY[,KEY...] [COMMAND [ARGS...]]\n"
	"show|clear|pause|cont -e SYS:EVENT [--name NAME]\n"
	"--latency --start SYS:EV --end SYS:EV --match START_FIELD=END_FIELD [COMMAND...]\n"
	"--sql 'SELECT ... FROM ... JOIN ... ON ...' [COMMAND...]",
	"Histograms of event fields, in the kernel (hist triggers) or in userspace.\v"
	"Collects while COMMAND runs, for --duration, or until interrupted; then prints "
	"the table and the kernel's totals and removes everything it set up.  On kernels "
	"without hist triggers the same command line runs in userspace.  Examples:\n"
	"  tr hist -e sched:sched_switch -k next_comm --duration 5s\n"
	"  tr hist -e kmem:kmalloc -k call_site.sym --vals bytes_req -s bytes_req.descending\n"
	"  tr hist -e sched:sched_switch -k prev_pid -v st=prev_state "
	"--action 'onchange($st).save(prev_comm)'\n"
	"  tr hist --latency --start sched:sched_waking --end sched:sched_switch "
	"--match pid=next_pid\n"
	"  tr hist -e sched:sched_switch -k next_pid -v 'lat=common_timestamp.usecs-$ts0' "
	"--define sched:sched_waking:ts0=common_timestamp.usecs --define-keys "
	"sched:sched_waking=pid",
	opt_instance_duration_children, NULL, NULL
};

/*
 * Render one result to stdout.  A userspace engine's note goes on stderr
 * before a table (so both engines print the same table) and inline in JSON
 * and CSV; outside a table (which says so itself) Dropped gets a warning.
 */
static int print_result(struct hist_result *res, const struct hist_render_opts *o)
{
	int r;

	if (res->note && o->kind == HIST_OUT_TABLE) {
		fprintf(stderr, "tr: %s\n", res->note);
		free(res->note);
		res->note = NULL;
	}
	r = hist_render(stdout, res, o);
	if (res->dropped && o->kind != HIST_OUT_TABLE)
		tr_warn("%llu events were dropped: the table was full; raise --size",
			(unsigned long long)res->dropped);
	if (res->lost && o->kind != HIST_OUT_TABLE)
		tr_warn("%llu events were lost: the ring buffer overran; raise the buffer size (-b)",
			(unsigned long long)res->lost);
	return r;
}

/* Every histogram of an event, each under its trigger in a table. */
static int print_results(struct hist_results *rs, const struct hist_render_opts *o)
{
	int r = 0;

	for (size_t i = 0; i < rs->n && !r; i++) {
		if (o->kind == HIST_OUT_TABLE)
			printf("%s# %s\n", i ? "\n" : "", rs->v[i].trigger);
		r = print_result(&rs->v[i], o);
	}
	return r;
}

/* Our own instance unless -B says otherwise: the top-level buffer is left alone. */
static int open_instance(const struct args *a, struct tfs_inst **in)
{
	char *name = a->inst.name ? xstrdup(a->inst.name) : xasprintf("tr-hist-%d", (int)getpid());
	int r = cmd_instance_open(name, true, in);

	free(name);
	return r;
}

/*
 * v[0..n-1]: the variables of other events, then the histogram on each of
 * its events; only the kernel engine takes more than one.
 */
static int run(struct args *a, struct hist_spec *v, size_t n, struct hist_result *res)
{
	struct hist_spec *s = &v[n - 1];
	struct hist_when w = { .command = a->command, .duration_ns = a->duration_ns };
	struct tfs_inst *in = NULL;
	bool kernel = a->engine == ENG_KERNEL || (a->engine == ENG_AUTO && !a->input &&
						   caps_has(CAP_HIST));
	char *why;
	int r;

	if (a->input)
		return hist_user_file(s, a->input, res);
	r = open_instance(a, &in);
	if (r)
		return r;
	if (kernel)
		return hist_kernel_run(in, v, n, &w, res);
	if (n > 1)
		return tr_fail(-EOPNOTSUPP, "--define and several -e need hist triggers: %s",
			       caps_detail(CAP_HIST) ? caps_detail(CAP_HIST) : "no hist triggers");
	if (s->clock)
		return tr_fail(-EOPNOTSUPP, "--clock needs hist triggers: %s",
			       caps_detail(CAP_HIST) ? caps_detail(CAP_HIST) : "no hist triggers");
	why = xstrdup(a->engine == ENG_USER ? "--engine user"
		      : caps_detail(CAP_HIST) ? caps_detail(CAP_HIST)
					       : "no hist triggers");
	r = hist_user_live(s, in, &w, why, res);
	free(why);
	return r;
}

/* Latency: synthetic events in the kernel when it has them, else the userspace matcher. */
static int latency(struct args *a, struct hist_result *res)
{
	struct hist_when w = { .command = a->command, .duration_ns = a->duration_ns };
	bool kernel = a->engine == ENG_KERNEL ||
		      (a->engine == ENG_AUTO && !a->input && caps_has(CAP_HIST) &&
		       caps_has(CAP_SYNTHETIC));
	struct tfs_inst *in;
	char *why;
	int r;

	if (kernel)
		return hist_latency_run(&a->lat, a->inst.name, &w, a->keys, res);
	if (a->lat.sql)
		return tr_fail(-ENOTSUP, "--sql needs hist triggers and synthetic events: %s",
			       caps_has(CAP_HIST) ? caps_detail(CAP_SYNTHETIC)
						   : caps_detail(CAP_HIST));
	if (a->input)
		return hist_ulat_file(&a->lat, a->input, a->keys, res);
	r = open_instance(a, &in);
	if (r)
		return r;
	why = xstrdup(a->engine == ENG_USER	     ? "--engine user"
		      : !caps_has(CAP_HIST)	     ? caps_detail(CAP_HIST)
						     : caps_detail(CAP_SYNTHETIC));
	r = hist_ulat_live(&a->lat, in, &w, a->keys, why, res);
	free(why);
	return r;
}

/*
 * The triggers of a new histogram, in the order they go in: the variables
 * of other events (--define), then the histogram on each -e.
 */
static int build(const struct args *a, struct hist_spec **out, size_t *nout)
{
	struct hist_spec *v = NULL;
	size_t n = 0;
	int r = hist_spec_defines(&a->defines, &a->dkeys, a->keys, &v, &n);

	for (size_t e = 0; e < a->events.n && !r; e++) {
		struct hist_spec *s;

		v = xrealloc(v, (n + 1) * sizeof(*v));
		s = &v[n];
		r = hist_spec_build(s, a->events.v[e], a->keys, a->vals, a->sort, a->filter,
				    a->size, a->name);
		if (r)
			break;
		n++;
		for (size_t i = 0; i < a->actions.n && !r; i++)
			r = hist_spec_add_action(s, a->actions.v[i]);
	}
	for (size_t i = 0; i < n && !r && a->clock; i++)
		v[i].clock = xstrdup(a->clock);
	*out = v;
	*nout = n;
	return r;
}

static void specs_free(struct hist_spec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hist_spec_free(&v[i]);
	free(v);
}

int cmd_hist(int argc, char **argv)
{
	struct args a = { 0 };
	struct hist_spec *v = NULL, *sp;
	size_t n = 0;
	struct hist_result res = { 0 };
	struct hist_results all = { 0 };
	struct tfs_inst *in;
	int r = 0;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	/* --latency measures in us (or ns with --units ns); --sql's fields are the user's. */
	if (a.lat.on)
		a.ro.unit = a.lat.ns ? "ns" : "us";
	if (a.lat.on || a.lat.sql) {
		r = latency(&a, &res);
		if (!r)
			r = print_result(&res, &a.ro);
		hist_result_free(&res);
		if (r)
			tr_report(r, "cannot make the latency histogram");
		strv_free(&a.actions);
		return r ? EXIT_RUNTIME : EXIT_OK;
	}
	if (a.act == ACT_RUN) {
		r = build(&a, &v, &n);
	} else {
		v = xcalloc(1, sizeof(*v));
		n = 1;
		r = hist_event_parse(a.events.v[0], &v[0].system, &v[0].event);
	}
	strv_free(&a.actions);
	strv_free(&a.events);
	strv_free(&a.defines);
	strv_free(&a.dkeys);
	if (r) {
		tr_error("%s", tr_failure());
		specs_free(v, n);
		return EXIT_USAGE;
	}
	sp = &v[n - 1];
	switch (a.act) {
	case ACT_RUN:
		r = run(&a, v, n, &res);
		if (!r)
			r = print_result(&res, &a.ro);
		hist_result_free(&res);
		break;
	case ACT_SHOW:
	case ACT_CLEAR:
	case ACT_PAUSE:
	case ACT_CONT:
		r = cmd_instance_open(a.inst.name, false, &in);
		if (r)
			break;
		if (a.act == ACT_SHOW && a.debug) {
			char *text = NULL;

			r = hist_kernel_debug(in, sp->system, sp->event, &text);
			if (!r)
				fputs(text, stdout);
			free(text);
		} else if (a.act == ACT_SHOW) {
			r = hist_kernel_show(in, sp->system, sp->event, a.name, &all);
			if (!r)
				r = print_results(&all, &a.ro);
			hist_results_free(&all);
		} else {
			r = hist_kernel_control(in, sp->system, sp->event, a.name,
						a.act == ACT_CLEAR   ? "clear"
						: a.act == ACT_PAUSE ? "pause"
								     : "cont");
		}
		break;
	}
	if (r)
		tr_report(r, "hist");
	specs_free(v, n);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
