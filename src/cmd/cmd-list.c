// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr list: what the kernel offers.  -e [GLOB] events (--fields adds each
 * event's format fields), -s systems, -t tracers, -o options, -C clocks,
 * -B instances, -f [GLOB] functions.  Events when nothing is asked.
 * -B NAME with -o or -C: that instance's options or clock instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "cmd.h"
#include "parse.h"
#include "caps.h"
#include "tfs.h"

enum what { W_EVENTS = 1, W_SYSTEMS = 2, W_TRACERS = 4, W_OPTIONS = 8, W_CLOCKS = 16,
	    W_INSTANCES = 32, W_FUNCTIONS = 64 };

struct args {
	int last;	/* the previous option, so "-e GLOB" works as well as "-eGLOB" */
	unsigned what;
	const char *event_glob;
	const char *func_glob;
	const char *inst;	/* -B NAME: -o and -C of this instance */
	bool fields;
	bool enabled;	/* -f --enabled: enabled_functions */
	bool proto;	/* -f --proto: prototypes from BTF */
};

enum { OPT_FIELDS = 0x100, OPT_ENABLED, OPT_PROTO };

static const struct argp_option options[] = {
	{ "events", 'e', "GLOB", OPTION_ARG_OPTIONAL, "Events (SYSTEM:EVENT), matching GLOB if given", 0 },
	{ "fields", OPT_FIELDS, NULL, 0, "With -e: each event's format fields", 0 },
	{ "systems", 's', NULL, 0, "Event systems", 0 },
	{ "tracers", 't', NULL, 0, "Available tracers", 0 },
	{ "options", 'o', NULL, 0, "Trace options and their values", 0 },
	{ "clocks", 'C', NULL, 0, "Trace clocks, the current one in brackets", 0 },
	{ "instances", 'B', "NAME", OPTION_ARG_OPTIONAL,
	  "Instances; with NAME, the -o options and -C clocks of that instance", 0 },
	{ "functions", 'f', "GLOB", OPTION_ARG_OPTIONAL, "Traceable functions, matching GLOB if given", 0 },
	{ "enabled", OPT_ENABLED, NULL, 0, "With -f: only the functions ftrace has hooked now "
	  "(enabled_functions), with the kernel's count and flags", 0 },
	{ "proto", OPT_PROTO, NULL, 0, "With -f: each function's prototype, from the kernel's "
	  "BTF (trace-cmd list --proto)", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	int last = a->last;

	a->last = key;
	switch (key) {
	case 'e':
		a->what |= W_EVENTS;
		a->event_glob = arg;
		return 0;
	case OPT_FIELDS:
		a->fields = true;
		return 0;
	case OPT_ENABLED:
		a->enabled = true;
		return 0;
	case OPT_PROTO:
		a->proto = true;
		return 0;
	case 's':
		a->what |= W_SYSTEMS;
		return 0;
	case 't':
		a->what |= W_TRACERS;
		return 0;
	case 'o':
		a->what |= W_OPTIONS;
		return 0;
	case 'C':
		a->what |= W_CLOCKS;
		return 0;
	case 'B':
		a->what |= W_INSTANCES;
		a->inst = arg;
		return 0;
	case 'f':
		a->what |= W_FUNCTIONS;
		a->func_glob = arg;
		return 0;
	case ARGP_KEY_ARG:
		if (last == 'e' && !a->event_glob)
			a->event_glob = arg;
		else if (last == 'f' && !a->func_glob)
			a->func_glob = arg;
		else if (last == 'B' && !a->inst)
			a->inst = arg;
		else
			argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (!a->what)
			a->what = W_EVENTS;
		if (a->fields && !(a->what & W_EVENTS))
			argp_error(state, "--fields goes with -e");
		if (a->proto && !(a->what & W_FUNCTIONS))
			argp_error(state, "--proto goes with -f");
		if (a->proto && a->enabled)
			argp_error(state, "--proto and --enabled exclude each other");
		if (a->enabled && !(a->what & W_FUNCTIONS))
			argp_error(state, "--enabled goes with -f");
		if (a->inst && !(a->what & (W_OPTIONS | W_CLOCKS)))
			argp_error(state, "-B NAME goes with -o or -C");
		if (a->inst)
			a->what &= ~W_INSTANCES;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, NULL,
				  "List what the kernel offers: events, systems, tracers, "
				  "options, clocks, instances or functions.",
				  NULL, NULL, NULL };

/* "sched:sched_switch" matches "sched_switch", "sched:*" or "*switch*". */
static bool event_matches(const char *glob, const char *full)
{
	const char *colon = strchr(full, ':');

	if (!glob)
		return true;
	if (strpbrk(glob, ":/")) {
		char *g = xstrdup(glob);
		bool m;

		for (char *c = g; *c; c++)
			if (*c == '/')
				*c = ':';
		m = glob_match(g, full);
		free(g);
		return m;
	}
	return glob_match(glob, colon ? colon + 1 : full) || glob_match(glob, full);
}

/* The field lines of an event's format file, trimmed to "type name; offset size signed". */
static void print_fields(const char *full)
{
	char *colon = strchr(full, ':');
	char *file = xasprintf("events/%.*s/%s/format", (int)(colon - full), full, colon + 1);
	char *buf = NULL, *line, *save = NULL;

	if (tfs_read(NULL, file, &buf)) {
		printf("    (format unreadable)\n");
		free(file);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char decl[256];
		int off, size, sign;

		if (sscanf(line, " field:%255[^;]; offset:%d; size:%d; signed:%d;", decl, &off, &size,
			   &sign) == 4 && !strstr(decl, " common_"))
			printf("    %-40s offset:%-4d size:%-4d signed:%d\n", decl, off, size, sign);
	}
	free(buf);
	free(file);
}

static int list_events(const struct args *a, bool systems)
{
	struct strv ev = { 0 };
	const char *last = NULL;
	size_t lastlen = 0, shown = 0;
	int r = tfs_events(NULL, &ev);

	if (r)
		return tr_report(r, "cannot read available_events");
	for (size_t i = 0; i < ev.n; i++) {
		const char *colon = strchr(ev.v[i], ':');

		if (systems) {
			size_t len = colon ? (size_t)(colon - ev.v[i]) : strlen(ev.v[i]);

			if (!last || len != lastlen || strncmp(last, ev.v[i], len))
				printf("%.*s\n", (int)len, ev.v[i]);
			last = ev.v[i];
			lastlen = len;
			continue;
		}
		if (!event_matches(a->event_glob, ev.v[i]))
			continue;
		puts(ev.v[i]);
		shown++;
		if (a->fields)
			print_fields(ev.v[i]);
	}
	strv_free(&ev);
	if (!systems && a->event_glob && !shown)
		return tr_error("no event matches '%s'", a->event_glob);
	return 0;
}

static int print_words(const struct tfs_inst *in, const char *file)
{
	char *buf = NULL, *tok, *save = NULL;
	int r = tfs_read(in, file, &buf);

	if (r)
		return tr_report(r, "cannot read %s", file);
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		puts(tok);
	free(buf);
	return 0;
}

/*
 * trace_options lists the global options and the current tracer's; options/
 * also has the files of the other tracers' options (the kernel makes them
 * when a tracer registers), which are listed after, with their tracer.
 */
static int list_options(const struct tfs_inst *in)
{
	char *buf = NULL, *line, *save = NULL;
	struct strv shown = { 0 }, files = { 0 };
	int r = tfs_read(in, "trace_options", &buf);

	if (r)
		return tr_report(r, "cannot read trace_options");
	/* trace_options says "noirq-info" for an option that is off. */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *file = xasprintf("options/%s", line);
		bool off = !tfs_exists(in, file) && !strncmp(line, "no", 2);
		const char *name = off ? line + 2 : line, *owner = tfs_option_tracer(name);

		if (owner)
			printf("%-24s %-3s  tracer %s\n", name, off ? "off" : "on", owner);
		else
			printf("%-24s %s\n", name, off ? "off" : "on");
		strv_push(&shown, name);
		free(file);
	}
	free(buf);
	tfs_list_dir(in, "options", &files);
	for (size_t i = 0; i < files.n; i++) {
		char *file, *val = NULL;
		const char *owner = tfs_option_tracer(files.v[i]);

		if (strv_contains(&shown, files.v[i]))
			continue;
		file = xasprintf("options/%s", files.v[i]);
		if (!tfs_read(in, file, &val))
			printf("%-24s %-3s  tracer %s (not current)\n", files.v[i],
			       val[0] == '1' ? "on" : "off", owner ? owner : "other than the current");
		free(val);
		free(file);
	}
	strv_free(&files);
	strv_free(&shown);
	return 0;
}

static int list_instances(void)
{
	struct strv names = { 0 };
	int r = tfs_inst_list(&names);

	if (r)
		return tr_report(r, "cannot list instances");
	for (size_t i = 0; i < names.n; i++)
		puts(names.v[i]);
	strv_free(&names);
	return 0;
}

/*
 * available_filter_functions' names, or with enabled the lines of
 * enabled_functions whole ("vfs_read (1) R I  tramp: ..."): the functions
 * some tracer, filter or probe has hooked now, all instances together.
 */
struct protos {
	const struct btf *btf;
	const char *glob;
	struct strv names;
};

static void add_proto(void *arg, const char *name)
{
	struct protos *p = arg;

	if (!p->glob || glob_match(p->glob, name))
		strv_push(&p->names, name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One function's line with --proto: its prototype, or its name as the kernel gave it. */
static void put_proto(const struct btf *b, const char *name, const char *line)
{
	char proto[1024];

	puts(btf_func_proto(b, name, proto, sizeof(proto)) ? proto : line);
}

/*
 * Where available_filter_functions cannot be read, --proto still has BTF:
 * every function it declares, traceable or not (said on stderr), sorted.
 */
static int btf_functions(const struct btf *b, const char *glob, const char *why)
{
	struct protos p = { b, glob, { 0 } };

	tr_warn("%s: these are the functions BTF declares, traceable or not", why);
	btf_each_func(b, add_proto, &p);
	if (p.names.n)
		qsort(p.names.v, p.names.n, sizeof(*p.names.v), by_name);
	for (size_t i = 0; i < p.names.n; i++)
		if (!i || strcmp(p.names.v[i], p.names.v[i - 1]))
			put_proto(b, p.names.v[i], p.names.v[i]);
	strv_free(&p.names);
	return 0;
}

static struct btf *load_btf(void)
{
	char *data = NULL;
	size_t len = 0;
	struct btf *b = NULL;

	if (!read_file("/sys/kernel/btf/vmlinux", &data, &len))
		b = btf_load(data, len);
	free(data);
	return b;
}

static int list_functions(const char *glob, bool enabled, bool proto)
{
	const char *file = enabled ? "enabled_functions" : "available_filter_functions";
	char *buf = NULL, *line, *save = NULL;
	struct btf *b = NULL;
	int r;

	if (proto && !(b = load_btf()))
		return tr_error("cannot list prototypes: no BTF here (/sys/kernel/btf/vmlinux, "
				"CONFIG_DEBUG_INFO_BTF)");
	r = tfs_read(NULL, file, &buf);
	if (b && r) {
		char why[128];

		snprintf(why, sizeof(why), "%s cannot be read (%s)", file, strerror(-r));
		r = btf_functions(b, glob, why);
		btf_free(b);
		free(buf);
		return r;
	}
	if (r == -EPERM || r == -EACCES)
		return tr_error("cannot list functions: the kernel refuses to read "
				"%s (%s)", file, strerror(-r));
	if (r == -ENOENT)
		return tr_error("cannot list functions: this kernel has no dynamic ftrace "
				"(no %s)", file);
	if (r)
		return tr_report(r, "cannot read %s", file);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "name [module]", or enabled_functions' "name (count) flags ..." */
		size_t n = strcspn(line, " \t");
		char c = line[n];

		line[n] = '\0';
		if (glob && !glob_match(glob, line))
			continue;
		line[n] = c;
		if (b) {
			char name[256];

			snprintf(name, sizeof(name), "%.*s", (int)n, line);
			put_proto(b, name, line);
			continue;
		}
		if (!enabled)
			line[n] = '\0';
		puts(line);
	}
	btf_free(b);
	free(buf);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct args a = { 0 };
	struct tfs_inst *in = NULL;
	int r = 0;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (a.inst && (r = cmd_instance_open(a.inst, false, &in))) {
		tr_report(r, "list");
		return EXIT_RUNTIME;
	}
	if (a.what & W_SYSTEMS)
		r |= list_events(&a, true);
	if (a.what & W_EVENTS)
		r |= list_events(&a, false);
	if (a.what & W_TRACERS)
		r |= print_words(NULL, "available_tracers");
	if (a.what & W_OPTIONS)
		r |= list_options(in);
	if (a.what & W_CLOCKS)
		r |= print_words(in, "trace_clock");
	if (a.what & W_INSTANCES)
		r |= list_instances();
	if (a.what & W_FUNCTIONS)
		r |= list_functions(a.func_glob, a.enabled, a.proto);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
