// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event and function triggers (see trigger.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "caps.h"
#include "evsel.h"
#include "trigger.h"

static const struct {
	const char *name;
	bool target;		/* takes SYS:EV */
	int cap;		/* capability it needs, or -1 */
} commands[] = {
	{ "traceon", false, -1 },	  { "traceoff", false, -1 },
	{ "stacktrace", false, -1 },	  { "snapshot", false, CAP_SNAPSHOT },
	{ "enable_event", true, -1 },	  { "disable_event", true, -1 },
	{ "enable_hist", true, CAP_HIST }, { "disable_hist", true, CAP_HIST },
};

void trig_free(struct trig *t)
{
	free(t->cmd);
	free(t->target);
	free(t->filter);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int trig_parse(const char *s, struct trig *t)
{
	char *copy, *iff, *parts[5], *save = NULL, *tok;
	int n = 0, ci = -1;

	memset(t, 0, sizeof(*t));
	t->count = -1;
	while (*s == ' ')
		s++;
	if (!*s)
		return tr_fail(-EINVAL, "empty trigger");
	/* hist specs have their own grammar; the kernel checks them and explains. */
	if (!strncmp(s, "hist:", 5) || !strcmp(s, "hist")) {
		t->cmd = xstrdup("hist");
		t->text = xstrdup(s);
		return 0;
	}
	copy = xstrdup(s);
	iff = strstr(copy, " if ");
	if (iff) {
		*iff = '\0';
		t->filter = xstrdup(iff + 4);
		if (!*str_rstrip(t->filter)) {
			free(copy);
			trig_free(t);
			return tr_fail(-EINVAL, "empty filter in trigger '%s'", s);
		}
	}
	str_rstrip(copy);
	for (tok = strtok_r(copy, ":", &save); tok && n < 5; tok = strtok_r(NULL, ":", &save))
		parts[n++] = tok;
	if (n == 0 || tok) {
		free(copy);
		trig_free(t);
		return tr_fail(-EINVAL, "bad trigger '%s'", s);
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(parts[0], commands[i].name))
			ci = (int)i;
	if (ci < 0) {
		trig_free(t);
		tr_fail(-EINVAL, "unknown trigger command '%s' (traceon, traceoff, snapshot, stacktrace, "
				 "enable_event, disable_event, enable_hist, disable_hist, hist)", parts[0]);
		free(copy);
		return -EINVAL;
	}
	t->cmd = xstrdup(parts[0]);
	int next = 1;

	if (commands[ci].target) {
		if (n < 3) {
			free(copy);
			tr_fail(-EINVAL, "trigger '%s' needs SYSTEM:EVENT", t->cmd);
			trig_free(t);
			return -EINVAL;
		}
		t->target = xasprintf("%s:%s", parts[1], parts[2]);
		next = 3;
	}
	if (next < n) {
		uint64_t c;

		if (next + 1 != n || !all_digits(parts[next]) || parse_u64(parts[next], &c) ||
		    c > 1000000000) {
			tr_fail(-EINVAL, "bad count '%s' in trigger '%s'", parts[next], s);
			free(copy);
			trig_free(t);
			return -EINVAL;
		}
		t->count = (long)c;
	}
	t->text = xasprintf("%s%s%s", t->cmd, t->target ? ":" : "", t->target ? t->target : "");
	if (t->count >= 0) {
		char *x = xasprintf("%s:%ld", t->text, t->count);

		free(t->text);
		t->text = x;
	}
	if (t->filter) {
		char *x = xasprintf("%s if %s", t->text, t->filter);

		free(t->text);
		t->text = x;
	}
	free(copy);
	return 0;
}

int trig_split_event(const char *s, char **system, char **event, char **trigger)
{
	const char *a = strchr(s, ':'), *b = a ? strchr(a + 1, ':') : NULL;

	if (!a || !b || a == s || b == a + 1 || !b[1])
		return tr_fail(-EINVAL, "bad trigger '%s': want SYSTEM:EVENT:COMMAND", s);
	*system = xasprintf("%.*s", (int)(a - s), s);
	*event = xasprintf("%.*s", (int)(b - a - 1), a + 1);
	*trigger = xstrdup(b + 1);
	return 0;
}

static int check_caps(const struct trig *t)
{
	if (!strcmp(t->cmd, "hist"))
		return caps_require(CAP_HIST);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(t->cmd, commands[i].name) && commands[i].cap >= 0)
			return caps_require(commands[i].cap);
	return 0;
}

static char *trigger_file(struct tfs_inst *in, const char *system, const char *event)
{
	char *f = xasprintf("events/%s/%s/trigger", system, event);

	if (!tfs_exists(in, f)) {
		free(f);
		return NULL;
	}
	return f;
}

int trig_events(struct tfs_inst *in, struct strv *out)
{
	struct strv ft = { 0 };
	int r = tfs_events(in, out);

	if (!r && !tfs_list_dir(in, "events/ftrace", &ft)) {
		for (size_t i = 0; i < ft.n; i++) {
			char *f = xasprintf("events/ftrace/%s/trigger", ft.v[i]);

			if (tfs_exists(in, f))
				strv_push_owned(out, xasprintf("ftrace:%s", ft.v[i]));
			free(f);
		}
		strv_sort(out);
	}
	strv_free(&ft);
	return r;
}

int trig_add(struct tfs_inst *in, const char *system, const char *event, const char *trigger)
{
	struct trig t;
	char *file, *undo;
	int r;

	r = caps_require(CAP_TRIGGERS);
	if (r)
		return r;
	r = trig_parse(trigger, &t);
	if (r)
		return r;
	r = check_caps(&t);
	if (!r && t.target) {
		char *sys = xstrdup(t.target), *ev = strchr(sys, ':');
		char *tf;

		*ev++ = '\0';
		tf = xasprintf("events/%s/%s", sys, ev);
		if (!tfs_exists(in, tf))
			r = tr_fail(-ENOENT, "no such event '%s' (the target of '%s')", t.target, t.cmd);
		free(tf);
		free(sys);
	}
	file = r ? NULL : trigger_file(in, system, event);
	if (!r && !file)
		r = evsel_fail_unknown(in, system, event);
	if (!r) {
		undo = tfs_trigger_removal(t.text);
		r = tfs_append_undo(in, file, t.text, undo);
		if (r)
			r = tr_fail(r, "cannot add trigger '%s' to '%s:%s': %s", t.text, system, event,
				    strerror(-r));
		free(undo);
	}
	free(file);
	trig_free(&t);
	return r;
}

/* Is a trigger like this one on the event?  Compared by its removal line. */
static bool has_trigger(struct tfs_inst *in, const char *file, const char *removal)
{
	char *raw = NULL, *line, *save = NULL;
	bool found = false;

	if (tfs_read(in, file, &raw))
		return false;
	for (line = strtok_r(raw, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char *rm;

		if (line[0] == '#')
			continue;
		rm = tfs_trigger_removal(line);
		found = !strcmp(rm, removal);
		free(rm);
	}
	free(raw);
	return found;
}

int trig_del(struct tfs_inst *in, const char *system, const char *event, const char *trigger)
{
	char *file = trigger_file(in, system, event), *removal;
	int r;

	if (!file)
		return evsel_fail_unknown(in, system, event);
	removal = tfs_trigger_removal(trigger);
	if (!has_trigger(in, file, removal)) {
		r = tr_fail(-ENOENT, "no trigger '%s' on '%s:%s' (tr trigger list shows them)", trigger,
			    system, event);
	} else {
		r = tfs_write(in, file, removal, true);
		if (r)
			r = tr_fail(r, "cannot remove trigger '%s' from '%s:%s': %s", trigger, system,
				    event, strerror(-r));
	}
	free(removal);
	free(file);
	return r;
}

static const struct {
	const char *name;
	bool target;
	int cap;
} fcommands[] = {
	{ "traceon", false, -1 },	{ "traceoff", false, -1 },
	{ "stacktrace", false, -1 },	{ "snapshot", false, CAP_SNAPSHOT },
	{ "dump", false, -1 },		{ "cpudump", false, -1 },
	{ "enable_event", true, -1 },	{ "disable_event", true, -1 },
};

void trig_func_free(struct ftrig *f)
{
	free(f->func);
	free(f->cmd);
	free(f->target);
	memset(f, 0, sizeof(*f));
}

/* Characters of a function glob: identifiers, '.' (foo.isra.0) and glob syntax. */
static bool glob_chars(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.*?[]-", s[i]))
			return false;
	return true;
}

bool trig_func_is_command(const char *spec)
{
	const char *c = strchr(spec, ':');

	return c && strncmp(c, ":mod:", 5);
}

int trig_func_parse(const char *spec, struct ftrig *f)
{
	char *copy = xstrdup(spec), *parts[6], *save = NULL, *tok;
	int n = 0, ci = -1, next = 2, r = 0;

	memset(f, 0, sizeof(*f));
	f->count = -1;
	for (tok = strtok_r(copy, ":", &save); tok && n < 6; tok = strtok_r(NULL, ":", &save))
		parts[n++] = tok;
	if (n < 2 || tok || spec[0] == ':' || strstr(spec, "::")) {
		free(copy);
		return tr_fail(-EINVAL, "bad function trigger '%s': want FUNCTION:COMMAND[:COUNT]",
			       spec);
	}
	if (parts[0][0] == '!' || !glob_chars(parts[0], strlen(parts[0]))) {
		r = tr_fail(-EINVAL, "bad function '%s' in '%s'%s", parts[0], spec,
			    parts[0][0] == '!' ? " (tr trigger del removes)" : "");
		free(copy);
		return r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fcommands); i++)
		if (!strcmp(parts[1], fcommands[i].name))
			ci = (int)i;
	if (ci < 0) {
		r = tr_fail(-EINVAL, "unknown function command '%s' in '%s' (traceon, traceoff, "
			    "snapshot, stacktrace, dump, cpudump, enable_event, disable_event)",
			    parts[1], spec);
		goto out;
	}
	if (fcommands[ci].target) {
		if (n < 4) {
			r = tr_fail(-EINVAL, "'%s' needs SYSTEM:EVENT: %s:%s:SYS:EV[:COUNT]", spec,
				    parts[0], parts[1]);
			goto out;
		}
		f->target = xasprintf("%s:%s", parts[2], parts[3]);
		next = 4;
	}
	if (next < n) {
		const char *c = parts[next];
		uint64_t v;

		if (!strncmp(c, "count=", 6))
			c += 6;
		if (next + 1 != n) {
			r = tr_fail(-EINVAL, "bad function trigger '%s': too many parts", spec);
			goto out;
		}
		if (!strcmp(c, "unlimited"))
			v = (uint64_t)-1;
		else if (!all_digits(c) || parse_u64(c, &v) || v > 1000000000) {
			r = tr_fail(-EINVAL, "bad count '%s' in '%s'", parts[next], spec);
			goto out;
		}
		f->count = v == (uint64_t)-1 ? -1 : (long)v;
	}
	f->func = xstrdup(parts[0]);
	f->cmd = xstrdup(parts[1]);
out:
	if (r)
		trig_func_free(f);
	free(copy);
	return r;
}

char *trig_func_text(const struct ftrig *f)
{
	char cnt[32] = "";

	if (f->count >= 0)
		snprintf(cnt, sizeof(cnt), ":%ld", f->count);
	return xasprintf("%s:%s%s%s%s", f->func, f->cmd, f->target ? ":" : "",
			 f->target ? f->target : "", cnt);
}

/* The kernel documents "!FUNC:COMMAND[:SYS:EV]:0" for a counted one; either goes. */
char *trig_func_removal(const struct ftrig *f)
{
	return xasprintf("!%s:%s%s%s%s", f->func, f->cmd, f->target ? ":" : "",
			 f->target ? f->target : "", f->count >= 0 ? ":0" : "");
}

int trig_func_filter_check(const char *funcs, const char *spec)
{
	const char *g = spec[0] == '!' ? spec + 1 : spec, *mod = strstr(g, ":mod:");
	size_t gn = mod ? (size_t)(mod - g) : strlen(g);
	char *glob, *copy, *line, *save = NULL;
	bool found = false;

	if (!glob_chars(g, gn) || (!gn && !mod))
		return tr_fail(-EINVAL, "bad function filter '%s': want [!]GLOB or "
			       "[!][GLOB]:mod:[!]MODULE", spec);
	if (mod) {
		const char *m = mod + 5 + (mod[5] == '!');

		if (!*m || !glob_chars(m, strlen(m)))
			return tr_fail(-EINVAL, "bad module in function filter '%s'", spec);
		/* The kernel keeps a module's filter until the module loads: nothing to match. */
		return 0;
	}
	if (gn && strspn(g, "0123456789") == gn) {
		size_t lines = 0, idx = 0;
		bool over = false;

		/*
		 * The kernel reads an entry that starts with a digit as a line
		 * number of available_filter_functions, from 1; past the end it
		 * matches nothing and says only EINVAL, so check it here.
		 */
		for (const char *p = funcs; *p; p++)
			lines += *p == '\n' || !p[1];
		for (size_t i = 0; i < gn && !over; i++) {
			over = idx > (SIZE_MAX - 9) / 10;
			idx = idx * 10 + (size_t)(g[i] - '0');
		}
		if (over || !idx || idx > lines)
			return tr_fail(-ENOENT, "no function number %.*s: available_filter_functions "
				       "has %zu (from 1)", (int)gn, g, lines);
		return 0;
	}
	glob = xasprintf("%.*s", (int)gn, g);
	copy = xstrdup(funcs);
	for (line = strtok_r(copy, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		/* "name [module]" */
		line[strcspn(line, " \t")] = '\0';
		found = glob_match(glob, line);
	}
	free(copy);
	free(glob);
	if (!found)
		return tr_fail(-ENOENT, "no function matches '%s' (tr list -f shows them)", spec);
	return 0;
}

char *trig_func_by_index(const char *funcs, const char *spec)
{
	const char *g = spec[0] == '!' ? spec + 1 : spec, *line = funcs;
	size_t idx = 0;

	if (!*g || strspn(g, "0123456789") != strlen(g) || strlen(g) > 9)
		return NULL;
	for (const char *p = g; *p; p++)
		idx = idx * 10 + (size_t)(*p - '0');
	for (size_t n = 1; line && *line && idx; n++) {
		if (n == idx)
			return xasprintf("%s%.*s", g == spec ? "" : "!",
					 (int)strcspn(line, " \t\n"), line);
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return NULL;
}

/* FUNC must match a traceable function, and enable_event's SYS:EV must exist. */
static int func_check(struct tfs_inst *in, const struct ftrig *f)
{
	char *funcs = NULL;
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fcommands); i++)
		if (!strcmp(f->cmd, fcommands[i].name) && fcommands[i].cap >= 0)
			r = caps_require(fcommands[i].cap);
	if (!r && (r = tfs_read(NULL, "available_filter_functions", &funcs)))
		r = tr_fail(r, "cannot read available_filter_functions: %s", strerror(-r));
	if (!r)
		r = trig_func_filter_check(funcs, f->func);
	free(funcs);
	if (!r && f->target) {
		char *ev = xasprintf("events/%s", f->target);

		*strchr(ev, ':') = '/';
		if (!tfs_exists(in, ev))
			r = tr_fail(-ENOENT, "no such event '%s' (the target of '%s')", f->target,
				    f->cmd);
		free(ev);
	}
	return r;
}

int trig_func_add(struct tfs_inst *in, const char *spec)
{
	struct ftrig f;
	char *text, *removal;
	int r = caps_require(CAP_FUNCTION_FILTER);

	if (!r)
		r = trig_func_parse(spec, &f);
	if (r)
		return r;
	r = func_check(in, &f);
	if (r) {
		trig_func_free(&f);
		return r;
	}
	text = trig_func_text(&f);
	removal = trig_func_removal(&f);
	r = tfs_append_undo(in, "set_ftrace_filter", text, removal);
	if (r)
		r = tr_fail(r, "cannot add function trigger '%s': %s", text, strerror(-r));
	free(text);
	free(removal);
	trig_func_free(&f);
	return r;
}

int trig_func_del(struct tfs_inst *in, const char *spec)
{
	struct ftrig f;
	char *removal;
	int r = caps_require(CAP_FUNCTION_FILTER);

	if (!r)
		r = trig_func_parse(spec, &f);
	if (r)
		return r;
	removal = trig_func_removal(&f);
	r = tfs_write(in, "set_ftrace_filter", removal, true);
	if (r)
		r = tr_fail(r, "cannot remove function trigger '%s': %s", spec, strerror(-r));
	else
		tfs_state_forget(removal);	/* tr reset has nothing left to take back */
	free(removal);
	trig_func_free(&f);
	return r;
}

static int collect(const char *sys, const char *ev, char *content, void *ctx)
{
	char *line, *save = NULL;

	for (line = strtok_r(content, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			strv_push_owned(ctx, xasprintf("%s:%s\t%s", sys, ev, line));
	return 0;
}

int trig_list(struct tfs_inst *in, struct strv *out)
{
	char *raw = NULL;

	tfs_each_event_file(in, "trigger", collect, out);
	/* Function triggers live in set_ftrace_filter as "func:command:count=N". */
	if (!tfs_read(in, "set_ftrace_filter", &raw)) {
		char *line, *save = NULL;

		for (line = strtok_r(raw, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *c = strchr(line, ':');

			if (line[0] != '#' && c)
				strv_push_owned(out, xasprintf("function:%.*s\t%s", (int)(c - line), line,
							       c + 1));
		}
		free(raw);
	}
	return 0;
}
