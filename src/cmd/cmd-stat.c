// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stat: what is set now, for the top-level buffer and every instance (or
 * only -B NAME): tracer, tracing_on, clock, buffer sizes, enabled events,
 * event filters and triggers, function and pid filters, per-CPU stats.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "session.h"
#include "tfs-persist.h"
#include "tfs.h"

static const struct argp argp = { NULL, opt_instance_only_parse, NULL,
				  "Show what is set now: tracer, events, filters, triggers, "
				  "buffers, clock and per-CPU statistics.",
				  opt_instance_children, NULL, NULL };

static void show_value(struct tfs_inst *in, const char *label, const char *file)
{
	char *raw = NULL, *v;
	int r = tfs_read(in, file, &raw);

	if (r == -ENOENT)
		return;
	if (r) {
		printf("  %-17s unavailable (%s)\n", label, strerror(-r));
		return;
	}
	v = tfs_normalize(file, raw);
	printf("  %-17s %s\n", label, *v ? v : "none");
	free(v);
	free(raw);
}

struct per_event {
	const char *label;
	size_t shown;
};

static int print_event_lines(const char *sys, const char *ev, char *content, void *ctx)
{
	struct per_event *pe = ctx;
	char *line, *save = NULL;

	for (line = strtok_r(content, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* Empty trigger files list the available triggers as comments. */
		if (line[0] == '#' || !strcmp(line, "none"))
			continue;
		printf("  %-17s %s:%s: %s\n", pe->shown++ ? "" : pe->label, sys, ev, line);
	}
	return 0;
}

/* Every events/SYS/EVENT/FILE that holds something, as "sys:event: value". */
static void show_per_event(struct tfs_inst *in, const char *label, const char *file)
{
	struct per_event pe = { label, 0 };

	tfs_each_event_file(in, file, print_event_lines, &pe);
	if (!pe.shown)
		printf("  %-17s none\n", label);
}

/*
 * Each system's enable file as the kernel has it, for the systems with any
 * event on: 1 (all of its events) or X (some).
 */
static void show_system_enable(struct tfs_inst *in)
{
	struct strv sys = { 0 };
	size_t shown = 0;

	if (tfs_list_dir(in, "events", &sys))
		return;
	for (size_t i = 0; i < sys.n; i++) {
		char *file = xasprintf("events/%s/enable", sys.v[i]), *raw = NULL;

		if (!tfs_read(in, file, &raw) && (raw[0] == '1' || raw[0] == 'X'))
			printf("  %-17s %s: %c (%s)\n", shown++ ? "" : "systems enabled:", sys.v[i],
			       raw[0], raw[0] == '1' ? "all events" : "some events");
		free(raw);
		free(file);
	}
	if (!shown)
		printf("  %-17s none\n", "systems enabled:");
	strv_free(&sys);
}

static void show_cpu_stats(struct tfs_inst *in)
{
	printf("  %-17s %5s %10s %10s %10s %10s\n", "per-cpu stats:", "cpu", "entries", "overrun",
	       "commit", "dropped");
	for (int cpu = 0;; cpu++) {
		char *file = xasprintf("per_cpu/cpu%d/stats", cpu), *raw = NULL;
		unsigned long long entries = 0, overrun = 0, commit = 0, dropped = 0;
		const char *p;

		if (tfs_read(in, file, &raw)) {
			free(file);
			break;
		}
		if ((p = strstr(raw, "entries:")))
			entries = strtoull(p + 8, NULL, 10);
		if ((p = strstr(raw, "\noverrun:")))
			overrun = strtoull(p + 9, NULL, 10);
		if ((p = strstr(raw, "commit overrun:")))
			commit = strtoull(p + 15, NULL, 10);
		if ((p = strstr(raw, "dropped events:")))
			dropped = strtoull(p + 15, NULL, 10);
		printf("  %-17s %5d %10llu %10llu %10llu %10llu\n", "", cpu, entries, overrun, commit,
		       dropped);
		free(raw);
		free(file);
	}
}

/* A persistent instance (made at boot, kept across boots): what it holds. */
static void show_persistent(const struct tfs_inst *in)
{
	struct tfs_persist p;

	if (!in->name || tfs_persist_get(in->name, &p))
		return;
	if (p.bad)
		printf("  %-17s yes, %s: %s\n", "persistent:", tfs_persist_what(&p), p.bad);
	else if (p.last_boot)
		printf("  %-17s yes, %s (its kernel text at %llx, %zu modules)%s\n", "persistent:",
		       tfs_persist_what(&p), (unsigned long long)p.lb.text, p.lb.nmods,
		       p.backup ? ", a read-only backup" : "");
	else
		printf("  %-17s yes, %s%s\n", "persistent:", tfs_persist_what(&p),
		       p.backup && !p.empty ? ", a read-only backup" : "");
	tfs_persist_clear(&p);
}

static void show_instance(struct tfs_inst *in)
{
	char *ev = NULL;

	printf("%s\n", in->name ? in->name : "top-level buffer");
	show_persistent(in);
	show_value(in, "tracer:", "current_tracer");
	show_value(in, "tracing_on:", "tracing_on");
	show_value(in, "clock:", "trace_clock");
	/* absolute while a hist trigger keeps timestamps (the buffer writes no deltas). */
	show_value(in, "timestamp_mode:", "timestamp_mode");
	show_value(in, "buffer_size_kb:", "buffer_size_kb");
	show_value(in, "buffer_total_kb:", "buffer_total_size_kb");
	show_value(in, "subbuf_size_kb:", "buffer_subbuf_size_kb");
	if (!tfs_read(in, "set_event", &ev)) {
		char *line, *save = NULL;
		size_t n = 0;

		for (line = strtok_r(ev, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("  %-17s %s\n", n++ ? "" : "events:", line);
		if (!n)
			printf("  %-17s none\n", "events:");
		free(ev);
	}
	show_system_enable(in);
	show_per_event(in, "event filters:", "filter");
	show_per_event(in, "triggers:", "trigger");
	show_value(in, "function filter:", "set_ftrace_filter");
	show_value(in, "function notrace:", "set_ftrace_notrace");
	show_value(in, "event pids:", "set_event_pid");
	show_value(in, "function pids:", "set_ftrace_pid");
	show_cpu_stats(in);
}

/* What a tr that died left set up, in one line on stderr. */
static void orphans_note(void)
{
	struct strv dead = { 0 };
	char *all = NULL;

	session_orphans(false, &dead);
	for (size_t i = 0; i < dead.n; i++) {
		char *t = xasprintf("%s%s%s", all ? all : "", all ? "; " : "", dead.v[i]);

		free(all);
		all = t;
	}
	if (all)
		tr_warn("left set up by a tr that died (%s): 'tr reset' puts it back", all);
	free(all);
	strv_free(&dead);
}

int cmd_stat(int argc, char **argv)
{
	struct opt_instance a = { 0 };
	struct strv names = { 0 };
	struct tfs_inst *in;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	orphans_note();
	if (a.name) {
		if (cmd_instance_open(a.name, false, &in))
			return tr_report(-ENOENT, "stat"), EXIT_RUNTIME;
		show_instance(in);
		return EXIT_OK;
	}
	show_instance(tfs_top());
	tfs_inst_list(&names);
	for (size_t i = 0; i < names.n; i++) {
		if (cmd_instance_open(names.v[i], false, &in))
			continue;
		putchar('\n');
		show_instance(in);
	}
	strv_free(&names);
	return EXIT_OK;
}
