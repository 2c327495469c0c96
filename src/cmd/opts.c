// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Option groups shared by several commands, as argp children: the parent
 * hands each its input with opt_bind() at ARGP_KEY_INIT.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "fmt-filter.h"
#include "fmt.h"
#include "net.h"
#include "tfw.h"
#include "parse.h"
#include "setup.h"
#include "trigger.h"

enum {
	OPT_TRIGGER = 0x200, OPT_GRAPH_NOTRACE, OPT_MAX_DEPTH, OPT_FUNC_STACK, OPT_THRESH,
	OPT_CPUS, OPT_BUFFER_CPU, OPT_CMDLINES, OPT_NOTRACE_PID, OPT_TRACER_OPT, OPT_CLEAR_FILTER,
	OPT_BLK_DEV, OPT_BLK_MASK, OPT_SUBBUF,
};
#include "tfs-persist.h"
#include "tfs.h"

static const struct argp_option instance_options[] = {
	{ "instance", 'B', "NAME", 0, "Use the tracefs instance NAME instead of the top-level buffer", 0 },
	{ 0 }
};

static error_t instance_parse(int key, char *arg, struct argp_state *state)
{
	struct opt_instance *o = state->input;

	switch (key) {
	case 'B':
		if (!tfs_inst_valid_name(arg))
			argp_error(state, "bad instance name '%s'", arg);
		o->name = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp opt_instance_argp = { instance_options, instance_parse, NULL, NULL, NULL, NULL, NULL };

const struct argp_child opt_instance_children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ 0 }
};

error_t opt_instance_only_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, state->input, NULL, NULL);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static bool is_shared(const struct argp *a)
{
	return a == &opt_instance_argp || a == &opt_events_argp || a == &opt_setup_argp ||
	       a == &opt_cpus_argp || a == &opt_pids_argp || a == &opt_file_format_argp ||
	       a == &opt_run_argp || a == &opt_duration_argp;
}

/*
 * The command's own argp: the one whose children are the shared groups.
 * Note that glibc puts the argp given to argp_parse() under a root of its
 * own (with --help and --usage), so the search starts there.
 */
static const struct argp *owner(const struct argp *a)
{
	const struct argp_child *c = a ? a->children : NULL;

	for (int i = 0; c && c[i].argp; i++)
		if (is_shared(c[i].argp))
			return a;
	for (int i = 0; c && c[i].argp; i++) {
		const struct argp *o = owner(c[i].argp);

		if (o)
			return o;
	}
	return NULL;
}

void opt_bind(struct argp_state *state, struct opt_instance *inst, struct opt_events *ev,
	      struct tr_setup *setup)
{
	const struct argp *a = owner(state->root_argp);
	const struct argp_child *c = a ? a->children : NULL;

	for (int i = 0; c && c[i].argp; i++) {
		if (c[i].argp == &opt_instance_argp)
			state->child_inputs[i] = inst;
		else if (c[i].argp == &opt_events_argp)
			state->child_inputs[i] = ev;
		else if (c[i].argp == &opt_setup_argp || c[i].argp == &opt_pids_argp)
			state->child_inputs[i] = setup;
		else if (c[i].argp == &opt_cpus_argp && setup)
			state->child_inputs[i] = &setup->cpus;
	}
}

/* Hand input to the command's child group g (the shared groups' owner, see owner()). */
static void bind_child(struct argp_state *state, const struct argp *g, void *input)
{
	const struct argp *a = owner(state->root_argp);
	const struct argp_child *c = a ? a->children : NULL;

	for (int i = 0; c && c[i].argp; i++)
		if (c[i].argp == g)
			state->child_inputs[i] = input;
}

void opt_bind_cpus(struct argp_state *state, struct tr_cpus *cpus)
{
	bind_child(state, &opt_cpus_argp, cpus);
}

void opt_bind_file_format(struct argp_state *state, struct opt_file_format *ff)
{
	bind_child(state, &opt_file_format_argp, ff);
}

void opt_bind_run(struct argp_state *state, struct opt_run *run)
{
	bind_child(state, &opt_run_argp, run);
}

enum { OPT_DURATION = 0x380, OPT_FOLLOW, OPT_NO_FILTER };

static const struct argp_option duration_options[] = {
	{ "duration", OPT_DURATION, "TIME", 0, "Stop after TIME (1.5, 250ms, 10s, 2m)", 0 },
	{ 0 }
};

static error_t duration_parse(int key, char *arg, struct argp_state *state)
{
	uint64_t *ns = state->input;

	if (key != OPT_DURATION)
		return ARGP_ERR_UNKNOWN;
	if (parse_duration(arg, ns) || !*ns)
		argp_error(state, "bad duration '%s'", arg);
	return 0;
}

const struct argp opt_duration_argp = { duration_options, duration_parse, NULL, NULL,
					NULL, NULL, NULL };

void opt_bind_duration(struct argp_state *state, uint64_t *duration_ns)
{
	bind_child(state, &opt_duration_argp, duration_ns);
}

const struct argp_child opt_duration_children[] = {
	{ &opt_duration_argp, 0, "Run:", 0 },
	{ 0 }
};

const struct argp_child opt_instance_duration_children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ &opt_duration_argp, 0, "Run:", 0 },
	{ 0 }
};

static const struct argp_option run_options[] = {
	{ "follow", OPT_FOLLOW, NULL, 0, "Trace only COMMAND (and with -c, its children)", 0 },
	{ "no-filter", OPT_NO_FILTER, NULL, 0, "Also trace tr's own events (its readers' too)", 0 },
	{ 0 }
};

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct opt_run *r = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		/* --duration is its own group, nested here: it fills r's field. */
		state->child_inputs[0] = r ? &r->duration_ns : NULL;
		return 0;
	case OPT_FOLLOW:
		r->follow = true;
		return 0;
	case OPT_NO_FILTER:
		r->no_filter = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child run_children[] = {
	{ &opt_duration_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp opt_run_argp = { run_options, run_parse, NULL, NULL, run_children, NULL, NULL };

enum { OPT_FILE_VERSION = 0x300, OPT_COMPRESSION };

static const struct argp_option file_format_options[] = {
	{ "file-version", OPT_FILE_VERSION, "6|7", 0, "The trace.dat version to write", 0 },
	{ "compression", OPT_COMPRESSION, "zstd|zlib|none", 0,
	  "Compress a version 7 file with this (implies --file-version 7)", 0 },
	{ 0 }
};

static error_t file_format_parse(int key, char *arg, struct argp_state *state)
{
	struct opt_file_format *ff = state->input;

	switch (key) {
	case OPT_FILE_VERSION:
		if (strcmp(arg, "6") && strcmp(arg, "7"))
			argp_error(state, "bad file version '%s' (6 or 7)", arg);
		ff->version = arg[0] - '0';
		return 0;
	case OPT_COMPRESSION:
		ff->zip = tfw_zip_parse(arg);
		if (ff->zip < 0)
			argp_error(state, "bad compression '%s' (zstd, zlib or none)", arg);
		return 0;
	case ARGP_KEY_END:
		if (!ff)
			return 0;
		if (ff->version == 6 && ff->zip > TFW_ZIP_NONE)
			argp_error(state, "a version 6 file cannot be compressed: use --file-version 7");
		if (ff->zip >= 0 && !ff->version)
			ff->version = 7;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp opt_file_format_argp = { file_format_options, file_format_parse, NULL, NULL,
					   NULL, NULL, NULL };

const struct argp_child opt_file_format_children[] = {
	{ &opt_file_format_argp, 0, "File:", 0 },
	{ 0 }
};

int opt_action_find(const char *arg, const char *const *words)
{
	for (int i = 1; words[i]; i++)
		if (!strcmp(arg, words[i]))
			return i;
	return 0;
}

int opt_action(struct argp_state *state, const char *arg, const char *const *words)
{
	int i = opt_action_find(arg, words), n = 0;
	char list[256] = "";

	if (i)
		return i;
	while (words[n + 1])
		n++;
	for (int k = 1; k <= n; k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 k == 1 ? "" : k == n ? " or " : ", ", words[k]);
	argp_error(state, "unknown action '%s' (%s)", arg, list);
	return 0;
}

static const struct argp_option event_options[] = {
	{ "event", 'e', "SEL", 0,
	  "Event selector: SYSTEM:EVENT, SYSTEM:*, SYSTEM, EVENT, all; globs allowed. Repeatable", 0 },
	{ "filter", 'f', "FILTER", 0, "Event filter for the preceding -e (the kernel checks it); '' clears the event's filter", 0 },
	{ "clear-filter", OPT_CLEAR_FILTER, NULL, 0, "Clear the preceding -e's filter (the same as -f '')", 0 },
	{ 0 }
};

static error_t event_parse(int key, char *arg, struct argp_state *state)
{
	struct opt_events *o = state->input;
	int r;

	switch (key) {
	case 'e':
		r = evsel_add(&o->list, arg);
		break;
	case 'f':
		r = evsel_add_filter(&o->list, arg);
		break;
	case OPT_CLEAR_FILTER:
		r = evsel_add_filter(&o->list, "");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	if (r)
		argp_error(state, "%s", tr_failure());
	return 0;
}

const struct argp opt_events_argp = { event_options, event_parse, NULL, NULL, NULL, NULL, NULL };

int cmd_instance_open(const char *name, bool create, struct tfs_inst **out)
{
	int r = tfs_inst_get(name, create, out);

	tr_phase(create ? "instance made" : "instance opened");
	if (r == -ENOENT)
		return tr_fail(r, "no such instance '%s' (tr instance list shows them)", name);
	if (r)
		return tr_fail(r, "cannot open instance '%s': %s", name, strerror(-r));
	return 0;
}

int cmd_instance_keeps_last_boot(const char *name, const char *how)
{
	struct tfs_persist p;
	bool last;

	if (!name || tfs_persist_get(name, &p))
		return 0;
	last = p.last_boot;
	tfs_persist_clear(&p);
	if (!last)
		return 0;
	return tr_fail(-EBUSY, "instance '%s' holds the previous boot's data, which tracing in it "
			       "clears: save it first (tr extract -B %s), or %s", name, name, how);
}

static const struct argp_option setup_options[] = {
	{ "tracer", 'p', "TRACER", 0, "Set current_tracer (tr list -t shows them)", 0 },
	{ "clock", 'C', "CLOCK", 0, "Set trace_clock (tr list -C shows them)", 0 },
	{ "buffer-size", 'b', "KB", 0, "Per-CPU ring buffer size in KiB (k/M/G suffixes allowed)", 0 },
	{ "cpu", OPT_BUFFER_CPU, "N", 0, "With -b: size only CPU N's buffer (per_cpu/cpuN)", 0 },
	{ "subbuf-size", OPT_SUBBUF, "KB", 0, "Sub-buffer size in KiB (buffer_subbuf_size_kb, "
	  "Linux 6.8+): an event may be nearly this large", 0 },
	{ "cmdlines-size", OPT_CMDLINES, "N", 0,
	  "Keep the names of N tasks (saved_cmdlines_size), for long traces", 0 },
	{ "option", 'O', "OPT", 0, "Set trace option OPT, or clear it with noOPT. Repeatable", 0 },
	{ "func-filter", 'l', "FUNC", 0, "Trace only functions matching FUNC (set_ftrace_filter): "
	  "a glob, !GLOB, GLOB:mod:MODULE, or a command (FUNC:dump, FUNC:enable_event:SYS:EV). "
	  "Repeatable", 0 },
	{ "func-notrace", 'n', "FUNC", 0, "Do not trace functions matching FUNC (set_ftrace_notrace)", 0 },
	{ "graph-function", 'g', "FUNC", 0, "function_graph: graph FUNC and what it calls", 0 },
	{ "graph-notrace", OPT_GRAPH_NOTRACE, "FUNC", 0, "function_graph: leave FUNC (and callees) out", 0 },
	{ "max-graph-depth", OPT_MAX_DEPTH, "N", 0, "function_graph: at most N levels deep", 0 },
	{ "func-stack", OPT_FUNC_STACK, NULL, 0, "function: record a stack trace at every function", 0 },
	{ "thresh", OPT_THRESH, "USECS", 0, "Latency tracers: only record latencies above USECS", 0 },
	{ "tracer-opt", OPT_TRACER_OPT, "KEY=VALUE", 0, "A latency tracer's setting (with -p): hwlat "
	  "width, window, threshold, cpus, mode; osnoise cpus, period, runtime, stop_tracing, "
	  "stop_tracing_total, threshold; timerlat cpus, period, stop_tracing, stop_tracing_total, "
	  "print_stack. Repeatable", 0 },
	{ "blk-dev", OPT_BLK_DEV, "DEV", 0, "With -p blk: trace block device DEV (its "
	  "/sys/class/block/DEV/trace/enable, for the session). Repeatable", 0 },
	{ "blk-mask", OPT_BLK_MASK, "CATS", 0, "With --blk-dev: only these categories (act_mask), "
	  "e.g. queue,complete", 0 },
	{ "trigger", OPT_TRIGGER, "SYS:EV:CMD", 0,
	  "Add an event trigger for the session, e.g. 'sched:sched_switch:traceoff:5'. Repeatable", 0 },
	{ 0 }
};

void opt_setup_check(struct argp_state *state, const struct tr_setup *s)
{
	/* Checked once -p is known, wherever it came on the line. */
	for (size_t i = 0; i < s->tracer_opts.n; i++) {
		const char *file;
		char *value;

		if (setup_tracer_opt(s->tracer, s->tracer_opts.v[i], &file, &value))
			argp_error(state, "%s", tr_failure());
		free(value);
	}
	if (s->has_buffer_cpu && !s->buffer_kb)
		argp_error(state, "--cpu goes with -b: it says which CPU's buffer to size");
	if (s->blk_devs.n && (!s->tracer || strcmp(s->tracer, "blk")))
		argp_error(state, "--blk-dev goes with -p blk");
	if (s->blk_mask && !s->blk_devs.n)
		argp_error(state, "--blk-mask goes with --blk-dev: it is each device's act_mask");
}

/*
 * -b and --subbuf-size: a bare number is KiB, as the kernel's *_kb files
 * take it; a size with a suffix (k, M, G) is bytes.
 */
static int parse_kib(const char *arg, uint64_t *kb)
{
	uint64_t v;

	if (!parse_u64(arg, &v)) {
		*kb = v;
		return 0;
	}
	if (!parse_size(arg, &v) && v >= 1024) {
		*kb = v / 1024;
		return 0;
	}
	return -EINVAL;
}

static error_t setup_parse(int key, char *arg, struct argp_state *state)
{
	struct tr_setup *s = state->input;
	char *sys, *ev, *trig;
	uint64_t v;

	switch (key) {
	case 'l':
		strv_push(&s->ftrace_filter, arg);
		return 0;
	case 'n':
		strv_push(&s->ftrace_notrace, arg);
		return 0;
	case 'g':
		strv_push(&s->graph_function, arg);
		return 0;
	case OPT_GRAPH_NOTRACE:
		strv_push(&s->graph_notrace, arg);
		return 0;
	case OPT_MAX_DEPTH:
		if (parse_int(arg, 0, 1000000, &s->max_graph_depth))
			argp_error(state, "bad graph depth '%s'", arg);
		s->has_max_graph_depth = true;
		return 0;
	case OPT_FUNC_STACK:
		s->func_stack = true;
		return 0;
	case OPT_THRESH: {
		int us;

		if (parse_int(arg, 0, 2000000000, &us))
			argp_error(state, "bad threshold '%s' (microseconds)", arg);
		s->thresh_us = us;
		s->has_thresh = true;
		return 0;
	}
	case OPT_TRIGGER:
		if (trig_split_event(arg, &sys, &ev, &trig))
			argp_error(state, "%s", tr_failure());
		free(sys);
		free(ev);
		free(trig);
		strv_push(&s->triggers, arg);
		return 0;
	case 'p':
		s->tracer = arg;
		return 0;
	case OPT_TRACER_OPT:
		strv_push(&s->tracer_opts, arg);
		return 0;
	case OPT_BLK_DEV:
		if (!*arg)
			argp_error(state, "bad block device ''");
		strv_push(&s->blk_devs, arg);
		return 0;
	case OPT_BLK_MASK:
		if (setup_blk_mask_check(arg))
			argp_error(state, "%s", tr_failure());
		s->blk_mask = arg;
		return 0;
	case ARGP_KEY_END:
		if (s)
			opt_setup_check(state, s);
		return 0;
	case 'C':
		s->clock = arg;
		return 0;
	case 'b':
		if (parse_kib(arg, &s->buffer_kb))
			argp_error(state, "bad buffer size '%s'", arg);
		if (!s->buffer_kb)
			argp_error(state, "bad buffer size '%s': must be at least 1 KiB", arg);
		return 0;
	case 'O':
		if (!*arg || strpbrk(arg, "/ \t"))
			argp_error(state, "bad trace option '%s'", arg);
		strv_push(&s->options, arg);
		return 0;
	case OPT_SUBBUF:
		/* The kernel rounds it up to a power of two pages. */
		if (parse_kib(arg, &s->subbuf_kb))
			argp_error(state, "bad sub-buffer size '%s'", arg);
		if (!s->subbuf_kb || s->subbuf_kb > 1024 * 1024)
			argp_error(state, "bad sub-buffer size '%s': from 1 KiB", arg);
		return 0;
	case OPT_BUFFER_CPU:
		if (parse_int(arg, 0, TR_MAX_CPUS - 1, &s->buffer_cpu))
			argp_error(state, "bad CPU '%s'", arg);
		s->has_buffer_cpu = true;
		return 0;
	case OPT_CMDLINES:
		/* The kernel's limit (PID_MAX_DEFAULT). */
		if (parse_u64(arg, &v) || !v || v > 32768)
			argp_error(state, "bad number of task names '%s' (1 to 32768)", arg);
		s->cmdlines_size = v;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp opt_setup_argp = { setup_options, setup_parse, NULL, NULL, NULL, NULL, NULL };

static const struct argp_option cpus_options[] = {
	{ "cpumask", 'M', "CPUMASK", 0,
	  "Trace only the CPUs of this hex mask (tracing_cpumask), e.g. 3 or ff,ffffffff", 0 },
	{ "cpus", OPT_CPUS, "LIST", 0, "Trace only these CPUs (tracing_cpumask), e.g. 0-1,3", 0 },
	{ 0 }
};

static error_t cpus_parse(int key, char *arg, struct argp_state *state)
{
	struct tr_cpus *c = state->input;
	int r;

	switch (key) {
	case 'M':
	case OPT_CPUS:
		if (c->set)
			argp_error(state, "give the CPUs once, with -M or --cpus");
		r = key == 'M' ? parse_cpu_mask(arg, c->mask, TR_MAX_CPUS)
			       : parse_cpu_list(arg, c->mask, TR_MAX_CPUS);
		if (r)
			argp_error(state, "bad CPU %s '%s'", key == 'M' ? "mask" : "list", arg);
		for (size_t i = 0; i < ARRAY_SIZE(c->mask) && !c->set; i++)
			c->set = c->mask[i] != 0;
		if (!c->set)
			argp_error(state, "CPU mask '%s' selects no CPU", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp opt_cpus_argp = { cpus_options, cpus_parse, NULL, NULL, NULL, NULL, NULL };

static const struct argp_option pids_options[] = {
	{ "pid", 'P', "PID", 0, "Trace only this process (set_event_pid). Repeatable", 0 },
	{ "children", 'c', NULL, 0, "Follow the traced processes' children (event-fork)", 0 },
	{ "notrace-pid", OPT_NOTRACE_PID, "PID", 0,
	  "Leave this process out (set_event_notrace_pid, set_ftrace_notrace_pid). Repeatable", 0 },
	{ 0 }
};

static error_t pids_parse(int key, char *arg, struct argp_state *state)
{
	struct tr_setup *s = state->input;
	int pid;

	switch (key) {
	case 'P':
	case OPT_NOTRACE_PID:
		if (parse_int(arg, 1, 1 << 22, &pid))
			argp_error(state, "bad pid '%s'", arg);
		strv_push(key == 'P' ? &s->pids : &s->notrace_pids, arg);
		return 0;
	case 'c':
		s->children = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp opt_pids_argp = { pids_options, pids_parse, NULL, NULL, NULL, NULL, NULL };

void opt_command(struct argp_state *state, char ***command)
{
	*command = &state->argv[state->next - 1];
	state->next = state->argc;
}

void opt_filter_add(struct argp_state *state, struct strv *filters, const char *arg)
{
	char why[160];

	/* The grammar is checked here, so a mistyped filter is a usage error (64). */
	if (fmt_check_filter(arg, why, sizeof(why)))
		argp_error(state, "bad filter '%.60s%s': %s", arg, strlen(arg) > 60 ? "..." : "",
			   why);
	strv_push(filters, arg);
}

int opt_output_format(const char *arg, struct fmt_opts *fo)
{
	static const struct {
		const char *name;
		enum fmt_kind kind;
		bool lib;
	} formats[] = { { "text", FMT_TEXT, false }, { "libtraceevent", FMT_TEXT, true },
			{ "json", FMT_JSON, false }, { "csv", FMT_CSV, false } };

	fo->lib = false;
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		if (!strcmp(arg, formats[i].name)) {
			fo->kind = formats[i].kind;
			fo->lib = formats[i].lib;
			return 0;
		}
	}
	return -EINVAL;
}

void opt_check_follow(struct argp_state *state, bool follow, bool command,
		      const struct tr_setup *setup)
{
	if (follow && !command)
		argp_error(state, "--follow needs a COMMAND to follow");
	if (follow && setup->pids.n)
		argp_error(state, "--follow and -P exclude each other");
	if (setup->children && !follow && !setup->pids.n)
		argp_error(state, "-c goes with -P or --follow");
}

/* -B, -e/-f and the tracer set-up: what start and stream share. */
const struct argp_child opt_session_children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ &opt_events_argp, 0, "Events:", 0 },
	{ &opt_setup_argp, 0, "Tracer and buffer:", 0 },
	{ &opt_cpus_argp, 0, "CPUs:", 0 },
	{ &opt_pids_argp, 0, "Processes:", 0 },
	{ 0 }
};

const struct argp_child opt_live_children[] = {
	{ &opt_instance_argp, 0, "Instance:", 0 },
	{ &opt_events_argp, 0, "Events:", 0 },
	{ &opt_setup_argp, 0, "Tracer and buffer:", 0 },
	{ &opt_cpus_argp, 0, "CPUs:", 0 },
	{ &opt_pids_argp, 0, "Processes:", 0 },
	{ &opt_run_argp, 0, "Run:", 0 },
	{ 0 }
};

void opt_log_line(void *arg, const char *line)
{
	char when[32];
	time_t t = time(NULL);
	struct tm tm;

	(void)arg;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
	fprintf(stderr, "%s %s\n", when, line);
	fflush(stderr);
}

void opt_log_listening(const char *bind, bool vsock, uint16_t port)
{
	char line[128];

	if (vsock)
		snprintf(line, sizeof(line), "listening on vsock CID %s port %u",
			 bind ? bind : "any", port);
	else
		snprintf(line, sizeof(line), "listening on %s port %u", bind ? bind : "127.0.0.1",
			 port);
	opt_log_line(NULL, line);
}

void opt_port(struct argp_state *state, const char *arg, int *port)
{
	if (parse_int(arg, 0, 65535, port))
		argp_error(state, "bad port '%s' (0 to 65535)", arg);
}

void opt_allow(struct argp_state *state, const char *arg, struct net_cidr **allow, int *n)
{
	*allow = xrealloc(*allow, (*n + 1) * sizeof(**allow));
	if (net_cidr_parse(arg, &(*allow)[*n]))
		argp_error(state, "%s", tr_failure());
	(*n)++;
}

void opt_check_vsock(struct argp_state *state, bool vsock, const struct net_cidr *allow,
		     int nallow, const char *bind)
{
	struct net_cidr b;

	for (int i = 0; i < nallow; i++)
		if ((allow[i].family == AF_VSOCK) != vsock)
			argp_error(state, vsock ? "vsock takes peers by CID: give --allow CID"
						: "--allow CID is for vsock: give an address range");
	if (bind && vsock && (net_cidr_parse(bind, &b) || b.family != AF_VSOCK))
		argp_error(state, "bad --bind '%s' for --vsock: give a CID", bind);
}
