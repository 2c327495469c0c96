// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Putting an instance back to the kernel's defaults (tr reset): events off,
 * nop tracer, no filters, no triggers, no pid filters, an empty buffer,
 * tracing on.  Each file is written only when it differs from the default,
 * because some hosts refuse even a write of the current value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tfs.h"

/*
 * The line that removes a trigger as the trigger file shows it.  Count and
 * filter are not part of the match for the simple triggers, but they are for
 * hist triggers, which must be echoed back whole (less "[active]").
 */
char *tfs_trigger_removal(const char *shown)
{
	char *s = xstrdup(shown), *p;

	if ((p = strstr(s, " [active]")) || (p = strstr(s, " [paused]")))
		*p = '\0';
	if (strncmp(s, "hist", 4)) {
		if ((p = strstr(s, " if ")))
			*p = '\0';
		if ((p = strstr(s, ":count=")) || (p = strstr(s, ":unlimited")))
			*p = '\0';
		/* "traceoff:3", as tr itself writes a count. */
		p = strrchr(s, ':');
		if (p && p[1] && strspn(p + 1, "0123456789") == strlen(p + 1))
			*p = '\0';
	}
	p = xasprintf("!%s", s);
	free(s);
	return p;
}

struct reset_ctx {
	struct tfs_inst *in;
	int first;
};

static int remove_triggers(const char *sys, const char *ev, char *content, void *ctx)
{
	struct reset_ctx *c = ctx;
	struct strv lines = { 0 };
	char *line, *save = NULL, *rel;

	for (line = strtok_r(content, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			strv_push(&lines, line);
	rel = xasprintf("events/%s/%s/trigger", sys, ev);
	/* Newest first: a hist trigger others refer to was added before them. */
	for (size_t i = lines.n; i-- > 0;) {
		char *undo = tfs_trigger_removal(lines.v[i]);
		int r = tfs_write(c->in, rel, undo, true);

		if (r && !c->first)
			c->first = r;
		free(undo);
	}
	free(rel);
	strv_free(&lines);
	return 0;
}

static int clear_filter(const char *sys, const char *ev, char *content, void *ctx)
{
	struct reset_ctx *c = ctx;
	char *rel;
	int r;

	if (!strcmp(str_rstrip(content), "none"))
		return 0;
	rel = xasprintf("events/%s/%s/filter", sys, ev);
	r = tfs_ensure(c->in, rel, "0");
	if (r && !c->first)
		c->first = r;
	free(rel);
	return 0;
}

static int reset_event_files(struct tfs_inst *in)
{
	struct reset_ctx c = { in, 0 };

	tfs_each_event_file(in, "trigger", remove_triggers, &c);
	tfs_each_event_file(in, "filter", clear_filter, &c);
	return c.first;
}

int tfs_reset_defaults(struct tfs_inst *in)
{
	static const struct {
		const char *file, *value;
	} defaults[] = {
		{ "tracing_on", "0" },
		{ "events/enable", "0" },
		{ "current_tracer", "nop" },
		{ "set_event_pid", "" },
		{ "set_event_notrace_pid", "" },
		{ "set_ftrace_pid", "" },
		{ "set_ftrace_notrace_pid", "" },
		{ "set_ftrace_filter", "" },
		{ "set_ftrace_notrace", "" },
		{ "set_graph_function", "" },
		{ "set_graph_notrace", "" },
		{ "tracing_thresh", "0" },
	};
	int first = 0, r;

	/*
	 * Triggers go first: an enable_event trigger that fires after
	 * events/enable is cleared (they fire on soft-disabled events)
	 * leaves its target enabled when it is removed.
	 */
	r = reset_event_files(in);
	if (r)
		first = tr_fail(r, "cannot remove every trigger and filter: %s", strerror(-r));
	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++) {
		r = tfs_ensure(in, defaults[i].file, defaults[i].value);
		/* Missing or refused optional files (function filters here) are not failures. */
		if (r && r != -ENOENT && r != -EPERM && r != -EACCES && !first) {
			first = r;
			tr_fail(r, "cannot reset '%s': %s", defaults[i].file, strerror(-r));
		}
	}
	r = tfs_write(in, "trace", "", false);
	if (r && !first)
		first = tr_fail(r, "cannot clear the buffer: %s", strerror(-r));
	/* The kernel's reasons for writes refused before: stale once all is reset. */
	r = tfs_write(in, "error_log", "", false);
	if (r && r != -ENOENT && !first)
		first = tr_fail(r, "cannot clear 'error_log': %s", strerror(-r));
	r = tfs_ensure(in, "tracing_on", "1");
	if (r && !first)
		first = tr_fail(r, "cannot turn tracing back on: %s", strerror(-r));
	return first;
}
