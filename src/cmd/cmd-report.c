// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr report: print a recorded trace (trace.dat, versions 6 and 7, from tr or
 * trace-cmd), every buffer and CPU of every -i file merged in timestamp
 * order, each event as the kernel's `trace` file would show it.  --format
 * json|csv for machines, --stat for a summary, --events for the formats.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "fmt.h"
#include "parse.h"
#include "rec.h"

enum { MAX_CPUS = 4096 };

struct args {
	struct fmt_report r;
	uint64_t cpus[MAX_CPUS / 64];
	const char *format;
	/* --ts-offset: per input (parallel to r.inputs), and for inputs given without one */
	int64_t *offs;
	bool *off_set;
	int64_t all_off;
	bool no_graph;
	char *graph_opts;	/* --graph-opt, joined by commas */
	char *kopts;		/* -O, joined by commas */
};

enum {
	OPT_MEM = 0x1f0, OPT_PROFILE, OPT_BY_COMM,
	OPT_CPU = 0x100, OPT_EVENTS, OPT_STAT, OPT_FIRST, OPT_LAST, OPT_FORMAT, OPT_PLUGINS,
	OPT_BUFFER, OPT_COMM, OPT_TS_DIFF, OPT_TS_OFFSET, OPT_NO_GRAPH, OPT_IRQ_INFO,
	OPT_GRAPH_OPT, OPT_HEADER, OPT_USER_SYMS,
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "Read FILE (default trace.dat); repeat to merge files", 0 },
	{ "cpu", OPT_CPU, "LIST", 0, "Only these CPUs, e.g. 0-3,6", 0 },
	{ "buffer", OPT_BUFFER, "NAME", 0,
	  "Only the buffer NAME: an instance, 'snapshot', or 'top' for the top level. "
	  "Repeatable", 0 },
	{ "filter", 'F', "FILTER", 0,
	  "Only events matching FILTER, e.g. 'sched_switch: prev_pid != 0' or 'sched/.*'. "
	  "Repeatable", 0 },
	{ "invert", 'v', NULL, 0, "Show the events the -F filters do not match instead", 0 },
	{ "pid", 'P', "PID[,PID...]", 0, "Only events of these tasks. Repeatable", 0 },
	{ "comm", OPT_COMM, "GLOB", 0,
	  "Only events of tasks whose name (as printed) matches GLOB. Repeatable", 0 },
	{ "ts-diff", OPT_TS_DIFF, NULL, 0,
	  "Show the time since the previous printed event after each timestamp", 0 },
	{ "ts-offset", OPT_TS_OFFSET, "NS", 0,
	  "Add NS nanoseconds (may be negative) to the timestamps of the -i file before it, "
	  "or of every file when no -i comes before it", 0 },
	{ "raw", 'R', NULL, 0, "Print the fields as name=value instead of the event's format", 0 },
	{ "ns", 't', NULL, 0, "Timestamps to the nanosecond", 0 },
	{ "irq-info", OPT_IRQ_INFO, NULL, 0,
	  "Show the kernel's irq-info column after the CPU, as its trace file does: "
	  "irqs-off/BH-disabled, need-resched, hardirq/softirq, preempt-depth and "
	  "migrate-disable (e.g. d..2.)", 0 },
	{ "plugins", OPT_PLUGINS, NULL, 0,
	  "Load libtraceevent's plugins (trace-cmd's compact forms)", 0 },
	{ "format", OPT_FORMAT, "FMT", 0,
	  "Output text (default: each event's text as the kernel's trace file prints it), "
	  "libtraceevent (the text trace-cmd 3.4's report -N prints, to diff against "
	  "trace-cmd; with -O noirq-info 3.1's), "
	  "json (one object a line) or csv", 0 },
	{ "no-graph", OPT_NO_GRAPH, NULL, 0,
	  "Print function_graph records (funcgraph_entry/exit) one line each like other "
	  "events, not as the call graph the kernel's trace file shows (also so with -R, -t, "
	  "--ts-diff, --irq-info, --first-event, --last-event and --format libtraceevent)", 0 },
	{ "graph-opt", OPT_GRAPH_OPT, "LIST", 0,
	  "Lay the call graph out as under these function_graph options instead of those the "
	  "recording had: cpu, proc, abstime, overhead, duration, irqs, tail, retval, "
	  "retval-hex, overrun, retaddr, args, each with 'no' to clear it (e.g. proc,nocpu). "
	  "Repeatable", 0 },
	{ "option", 'O', "LIST", 0,
	  "Print as the kernel's trace file does under these trace options instead of those the "
	  "recording had: raw, hex, bin, context-info, irq-info, record-tgid, latency-format, "
	  "verbose, fields, annotate, printk-msg-only, trace_printk, sym-userobj, each with 'no' "
	  "to clear it "
	  "(e.g. nocontext-info,fields); funcgraph-* words as --graph-opt takes them. Repeatable",
	  0 },
	{ "user-syms", OPT_USER_SYMS, NULL, 0,
	  "Name user stack addresses by function too, after the object and offset "
	  "(sym-userobj, which this sets): OBJ[+0xOFF] FUNC+0xOFF, from the objects' ELF "
	  "symbol tables (.symtab and .dynsym) read at report time; the objects that cannot "
	  "be read are named once on stderr. Text output only", 0 },
	{ "header", OPT_HEADER, NULL, 0,
	  "Start with the kernel's trace file header (# tracer:, entries-in-buffer/entries-written, "
	  "#P:, the column legend) instead of cpus=N", 0 },
	{ "events", OPT_EVENTS, NULL, 0, "List the event formats stored in the file", 0 },
	{ "stat", OPT_STAT, NULL, 0,
	  "Counts per CPU and per event, lost events, time span and the file's metadata", 0 },
	{ "mem", OPT_MEM, NULL, 0, "Slab allocations per call site from kmem events (trace-cmd's "
	  "mem): allocs, bytes requested and allocated, waste, frees, still allocated at the "
	  "end", 0 },
	{ "profile", OPT_PROFILE, NULL, 0, "Per task, from the scheduler's events (record "
	  "--profile): time run, runnable (preempted, and wake-up to run) and blocked per state, "
	  "with their distributions; system calls and page faults if recorded; the stacks it "
	  "blocked at if sched_switch had them (record -T)", 0 },
	{ "by-comm", OPT_BY_COMM, NULL, 0, "With --profile: one entry per task name, its tasks' "
	  "figures added", 0 },
	{ "first-event", OPT_FIRST, NULL, 0, "Only the first event of each CPU", 0 },
	{ "last-event", OPT_LAST, NULL, 0, "Only the last event of each CPU", 0 },
	{ 0 }
};

static void add_input(struct args *a, const char *path)
{
	size_t n = a->r.inputs.n + 1;

	strv_push(&a->r.inputs, path);
	a->offs = xrealloc(a->offs, n * sizeof(*a->offs));
	a->off_set = xrealloc(a->off_set, n * sizeof(*a->off_set));
	a->offs[n - 1] = 0;
	a->off_set[n - 1] = false;
}

/* -P PID[,PID...] */
static void add_pids(struct argp_state *state, struct args *a, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int pid;

		if (parse_int(t, 0, INT32_MAX, &pid))
			argp_error(state, "bad pid '%s'", t);
		a->r.pids = xrealloc(a->r.pids, (a->r.npids + 1) * sizeof(*a->r.pids));
		a->r.pids[a->r.npids++] = pid;
	}
	if (!a->r.npids)
		argp_error(state, "bad pid '%s'", arg);
	free(copy);
}

/* --graph-opt LIST: checked now, joined to those before it. */
static void add_graph_opt(struct argp_state *state, struct args *a, const char *arg)
{
	struct fmt_graph_opts o;
	char bad[64], *all;

	fmt_graph_opts_default(&o);
	if (fmt_graph_opts_apply(&o, arg, true, bad, sizeof(bad)))
		argp_error(state, "bad --graph-opt '%s' (cpu, proc, abstime, overhead, duration, "
				  "irqs, tail, retval, retval-hex, overrun, retaddr, args; 'no' in "
				  "front clears)", bad);
	all = a->graph_opts ? xasprintf("%s,%s", a->graph_opts, arg) : xstrdup(arg);
	free(a->graph_opts);
	a->graph_opts = all;
	a->r.fo.graph_opts = all;
}

/*
 * -O's words are all irq-info or noirq-info: what --format libtraceevent
 * takes (noirq-info: trace-cmd 3.1's line, without the flags column).
 */
static bool irq_words_only(const char *kopts)
{
	const char *p = kopts;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if (!(n == 8 && !strncmp(p, "irq-info", 8)) &&
		    !(n == 10 && !strncmp(p, "noirq-info", 10)))
			return false;
		p += n + (p[n] == ',');
	}
	return true;
}

/* -O LIST: the funcgraph-* words go to --graph-opt, the others are checked and joined. */
static void add_kopts(struct argp_state *state, struct args *a, const char *arg)
{
	char bad[64], *all, *copy = xstrdup(arg), *save = NULL, *rest = NULL;
	struct fmt_graph_opts go;

	/* funcgraph-* words are --graph-opt's, as trace_options holds them too */
	for (char *w = strtok_r(copy, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save)) {
		if (strncmp(w, "funcgraph-", 10) && strncmp(w, "nofuncgraph-", 12)) {
			all = rest ? xasprintf("%s,%s", rest, w) : xstrdup(w);
			free(rest);
			rest = all;
			continue;
		}
		/* named as the user typed it: -O, not --graph-opt */
		fmt_graph_opts_default(&go);
		if (fmt_graph_opts_apply(&go, w, true, bad, sizeof(bad))) {
			snprintf(bad, sizeof(bad), "%s", w);
			free(copy);
			free(rest);
			argp_error(state, "bad trace option '%s' (funcgraph-: cpu, proc, "
					  "abstime, overhead, duration, irqs, tail, retval, "
					  "retval-hex, overrun, retaddr, args)", bad);
		}
		add_graph_opt(state, a, w);
	}
	free(copy);
	if (!rest)
		return;
	if (fmt_kopts_check(rest, bad, sizeof(bad)) && (free(rest), true))
		argp_error(state, "bad trace option '%s' (raw, hex, bin, context-info, irq-info, "
				  "record-tgid, latency-format, verbose, fields, annotate, "
				  "printk-msg-only, trace_printk, sym-userobj; 'no' in front "
				  "clears)", bad);
	all = a->kopts ? xasprintf("%s,%s", a->kopts, rest) : xstrdup(rest);
	free(rest);
	free(a->kopts);
	a->kopts = all;
	a->r.fo.kopts = all;
}

/*
 * Once the whole line is read: the options that exclude each other, and
 * those that need another.  Then whether text prints as the call graph.
 */
static void check_report(struct argp_state *state, struct args *a)
{
	if (a->r.list_events + a->r.stat + a->r.mem + a->r.profile +
	    (a->r.first || a->r.last) > 1)
		argp_error(state, "--events, --stat, --mem, --profile and "
				  "--first-event/--last-event exclude each other");
	if (a->r.mem && (a->format || a->r.inputs.n > 1))
		argp_error(state, "--mem reads one file and prints its own table");
	if (a->r.profile && (a->format || a->r.inputs.n > 1))
		argp_error(state, "--profile reads one file and prints its own table");
	if (a->r.by_comm && !a->r.profile)
		argp_error(state, "--by-comm goes with --profile");
	if (a->r.invert && !a->r.filters.n)
		argp_error(state, "-v goes with -F");
	if (a->format && (a->r.list_events || a->r.stat))
		argp_error(state, "--format does not go with --events or --stat");
	if (a->r.fo.kind != FMT_TEXT && (a->r.fo.raw || a->r.fo.ns || a->r.fo.ts_diff ||
					  a->r.fo.irq_info))
		argp_error(state, "-R, -t, --ts-diff and --irq-info are for text output");
	if (a->r.fo.irq_info && (a->r.list_events || a->r.stat))
		argp_error(state, "--irq-info does not go with --events or --stat");
	if ((a->kopts || a->r.header) &&
	    (a->r.list_events || a->r.stat || a->r.fo.kind != FMT_TEXT ||
	     (a->r.fo.lib && (a->r.header || !irq_words_only(a->kopts)))))
		argp_error(state, "-O and --header are for text output (not --events, --stat, "
				  "--format; --format libtraceevent takes -O noirq-info)");
	if (a->r.header && (a->r.first || a->r.last))
		argp_error(state, "--header does not go with --first-event or --last-event");
	if (a->r.fo.ts_diff && (a->r.list_events || a->r.stat))
		argp_error(state, "--ts-diff does not go with --events or --stat");
	/*
	 * The call graph has no time column and needs each CPU's
	 * next record: the options that show times or single records
	 * print the records as they are.
	 */
	if (a->graph_opts && a->no_graph)
		argp_error(state, "--graph-opt does not go with --no-graph");
	a->r.fo.graph = !a->no_graph && a->r.fo.kind == FMT_TEXT && !a->r.fo.lib &&
			!a->r.fo.raw && !a->r.fo.ns && !a->r.fo.ts_diff && !a->r.fo.irq_info &&
			!a->r.first && !a->r.last;
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'i':
		add_input(a, arg);
		return 0;
	case 'P':
		add_pids(state, a, arg);
		return 0;
	case OPT_COMM:
		if (!*arg)
			argp_error(state, "empty task name");
		strv_push(&a->r.comms, arg);
		return 0;
	case OPT_TS_DIFF:
		a->r.fo.ts_diff = true;
		return 0;
	case OPT_TS_OFFSET: {
		int64_t v;

		if (parse_i64(arg, &v))
			argp_error(state, "bad time offset '%s' (nanoseconds, e.g. -1500000)", arg);
		if (a->r.inputs.n) {
			a->offs[a->r.inputs.n - 1] = v;
			a->off_set[a->r.inputs.n - 1] = true;
		} else {
			a->all_off = v;
		}
		return 0;
	}
	case OPT_CPU:
		if (parse_cpu_list(arg, a->cpus, MAX_CPUS))
			argp_error(state, "bad cpu list '%s'", arg);
		a->r.cpus = a->cpus;
		a->r.max_cpus = MAX_CPUS;
		return 0;
	case 'F':
		opt_filter_add(state, &a->r.filters, arg);
		return 0;
	case OPT_BUFFER:
		if (!*arg)
			argp_error(state, "empty buffer name");
		strv_push(&a->r.buffers, arg);
		return 0;
	case 'v':
		a->r.invert = true;
		return 0;
	case 'R':
		a->r.fo.raw = true;
		return 0;
	case 't':
		a->r.fo.ns = true;
		return 0;
	case OPT_PLUGINS:
		a->r.plugins = true;
		return 0;
	case OPT_FORMAT:
		if (opt_output_format(arg, &a->r.fo))
			argp_error(state, "bad format '%s' (text, libtraceevent, json or csv)", arg);
		a->format = arg;
		return 0;
	case OPT_NO_GRAPH:
		a->no_graph = true;
		return 0;
	case OPT_IRQ_INFO:
		a->r.fo.irq_info = true;
		return 0;
	case OPT_GRAPH_OPT:
		add_graph_opt(state, a, arg);
		return 0;
	case 'O':
		add_kopts(state, a, arg);
		return 0;
	case OPT_USER_SYMS:
		a->r.fo.user_syms = true;
		return 0;
	case OPT_HEADER:
		a->r.header = true;
		return 0;
	case OPT_EVENTS:
		a->r.list_events = true;
		return 0;
	case OPT_STAT:
		a->r.stat = true;
		return 0;
	case OPT_MEM:
		a->r.mem = true;
		return 0;
	case OPT_PROFILE:
		a->r.profile = true;
		return 0;
	case OPT_BY_COMM:
		a->r.by_comm = true;
		return 0;
	case OPT_FIRST:
		a->r.first = true;
		return 0;
	case OPT_LAST:
		a->r.last = true;
		return 0;
	case ARGP_KEY_ARG:
		/* trace-cmd report FILE: a positional file is one more -i. */
		add_input(a, arg);
		return 0;
	case ARGP_KEY_END:
		check_report(state, a);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, "[FILE...]",
	"Print a recorded trace: the events of every CPU, buffer and file merged in time "
	"order, each as the kernel's trace file shows it: the event's text as the kernel "
	"prints it, and the time as its trace clock counts (seconds for the ns clocks, the "
	"count for counter, uptime and x86-tsc).  Where the kernel shows a task as <...>, "
	"tr fills in a name the trace itself gives that pid (sched_switch, wakeups, fork, "
	"exec, task_rename).  A function_graph recording prints as the kernel's call graph "
	"(--no-graph: one line per record).",
	NULL, NULL, NULL
};

/*
 * A recording whose tr died leaves FILE empty and FILE.spool beside it
 * (tr record): read what the spool holds, as tr restore would write it,
 * from a temp file (fds[i], closed by the caller), and say so.
 */
static int read_spools(struct strv *inputs, int *fds)
{
	for (size_t i = 0; i < inputs->n; i++) {
		int e = rec_spool_peek(inputs->v[i], &fds[i]);

		if (e == -ENOENT)
			continue;
		if (e)
			return tr_report(e, "cannot read '%s'", inputs->v[i]);
		tr_warn("'%s' is a recording that ended abruptly: reading '%s.spool' "
			"('tr restore %s' writes the file)", inputs->v[i], inputs->v[i],
			inputs->v[i]);
		free(inputs->v[i]);
		inputs->v[i] = xasprintf("/proc/self/fd/%d", fds[i]);
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static char buf[1 << 20];
	struct args a = { 0 };
	int r, *fds;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.r.inputs.n)
		add_input(&a, "trace.dat");
	for (size_t i = 0; i < a.r.inputs.n; i++)
		if (!a.off_set[i])
			a.offs[i] = a.all_off;
	a.r.ts_offsets = a.offs;
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	fds = xcalloc(a.r.inputs.n, sizeof(*fds));
	for (size_t i = 0; i < a.r.inputs.n; i++)
		fds[i] = -1;
	r = read_spools(&a.r.inputs, fds);
	if (!r && (r = fmt_report_run(&a.r, stdout)))
		tr_report(r, "report");
	fflush(stdout);
	for (size_t i = 0; i < a.r.inputs.n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	strv_free(&a.r.inputs);
	strv_free(&a.r.filters);
	strv_free(&a.r.buffers);
	strv_free(&a.r.comms);
	free(a.r.pids);
	free(a.offs);
	free(a.off_set);
	free(a.graph_opts);
	free(a.kopts);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
