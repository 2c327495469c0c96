// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr reset: back to defaults.  Undoes what earlier tr start/stop runs kept,
 * and what live sessions whose tr died left (session_orphans())
 * (restoring buffer sizes and options, removing the instances, triggers and
 * probes tr created), then puts the top-level buffer (or -B NAME) to the
 * kernel's defaults.  -a also removes every instance and dynamic event,
 * whoever made them; -k keeps dynamic events of a kind or by name (as
 * trace-cmd 3.4's reset -k), from both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "session.h"
#include "tfs.h"

struct args {
	struct opt_instance inst;
	bool all;
	struct strv keep;	/* -k: kinds of dynamic event, or events' names */
};

/* -k's kinds (trace-cmd 3.4's reset -k, and the kinds tr adds: fprobe, user). */
static const char *const kinds[] = {
	"kprobe", "kretprobe", "uprobe", "uretprobe", "eprobe", "fprobe", "synth", "user", "all",
};

static const struct argp_option options[] = {
	{ "all", 'a', NULL, 0, "Also remove every instance and dynamic event, not only tr's", 0 },
	{ "keep", 'k', "KIND|EVENT", 0,
	  "Keep these dynamic events: kprobe, kretprobe, uprobe, uretprobe, eprobe, fprobe, "
	  "synth, user, all, or one by its name (EVENT or GROUP/EVENT). Repeatable", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		opt_bind(state, &a->inst, NULL, NULL);
		return 0;
	case 'a':
		a->all = true;
		return 0;
	case 'k':
		if (!*arg || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789_.-/") != strlen(arg))
			argp_error(state, "bad -k '%s': a kind of dynamic event or an event's name",
				   arg);
		strv_push(&a->keep, arg);
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (a->all && a->inst.name)
			argp_error(state, "-a and -B exclude each other");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, NULL,
				  "Put tracing back to defaults: events off, nop tracer, no "
				  "filters or triggers, empty buffer, tracing on; remove the "
				  "instances and dynamic events tr created.",
				  opt_instance_children, NULL, NULL };

/*
 * A dynamic_events line's kind as -k names it, and its names: "GROUP/EVENT"
 * and "EVENT" (the kernel lists "p:kprobes/ev do_open ...", uprobes with a
 * path:offset place, "s:synthetic/ev FIELDS", "u:ev FIELDS").
 */
static const char *line_kind(const char *line, char *full, char *name, size_t n)
{
	const char *colon = strchr(line, ':'), *sp = strchr(line, ' '), *slash;
	bool upath = sp && sp[1] == '/';

	*full = *name = '\0';
	if (!colon || (sp && colon > sp))
		return NULL;
	snprintf(full, n, "%.*s", sp ? (int)(sp - colon - 1) : (int)strlen(colon + 1), colon + 1);
	slash = strchr(full, '/');
	snprintf(name, n, "%s", slash ? slash + 1 : full);
	switch (line[0]) {
	case 'p': return upath ? "uprobe" : "kprobe";
	case 'r': return upath ? "uretprobe" : "kretprobe";
	case 'e': return "eprobe";
	case 'f': case 't': return "fprobe";
	case 's': return "synth";
	case 'u': return "user";
	default: return NULL;
	}
}

/* The names ("GROUP/EVENT" and "EVENT") of the dynamic events -k keeps; warns of a name none has. */
static void kept_names(const struct strv *keep, struct strv *out)
{
	struct strv defs = { 0 };
	bool *used;

	if (!keep->n)
		return;
	used = xcalloc(keep->n, sizeof(*used));
	if (tfs_exists(NULL, "dynamic_events")) {
		char *text = NULL, *line, *save = NULL;

		if (!tfs_read(NULL, "dynamic_events", &text))
			for (line = strtok_r(text, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				strv_push(&defs, line);
		free(text);
	}
	for (size_t i = 0; i < defs.n; i++) {
		char full[256], name[256];
		const char *kind = line_kind(defs.v[i], full, name, sizeof(full));

		for (size_t k = 0; kind && k < keep->n; k++) {
			const char *w = keep->v[k];

			if (!strcmp(w, "all") || !strcmp(w, kind) || !strcmp(w, full) ||
			    !strcmp(w, name)) {
				used[k] = true;
				strv_push(out, full);
				strv_push(out, name);
			}
		}
	}
	for (size_t k = 0; k < keep->n; k++) {
		bool is_kind = false;

		for (size_t j = 0; j < ARRAY_SIZE(kinds); j++)
			is_kind |= !strcmp(keep->v[k], kinds[j]);
		if (!used[k] && !is_kind)
			tr_warn("-k %s: no dynamic event has that name", keep->v[k]);
	}
	free(used);
	strv_free(&defs);
}

/* tfs_state_undo_keep(): a kept run's removal of a dynamic event -k keeps ("-:G/E", "!E"). */
static bool keeps_undo(const char *kind, const char *file, const char *value, void *arg)
{
	const struct strv *names = arg;
	const char *base = strrchr(file, '/');

	if (strcmp(kind, "append") || !base)
		return false;
	base++;
	if (!strcmp(base, "synthetic_events") && value[0] == '!')
		return strv_contains(names, value + 1);
	if ((!strcmp(base, "dynamic_events") || !strcmp(base, "kprobe_events") ||
	     !strcmp(base, "uprobe_events")) && !strncmp(value, "-:", 2))
		return strv_contains(names, value + 2);
	return false;
}

/*
 * "p:grp/ev ..." goes with "-:grp/ev"; a user event "u:NAME FIELDS" with
 * "-:NAME FIELDS".  A user event that a program has registered cannot go
 * while it runs: that is said, but is not a failure of the reset.
 */
static int remove_one_by_one(char *list, const struct strv *kept)
{
	char *line, *save = NULL;
	int first = 0;

	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool user = !strncmp(line, "u:", 2);
		char *sp = strchr(line, ' '), *colon = strchr(line, ':');
		char full[256], name[256];
		int nlen;

		if (!colon || (sp && colon > sp))
			continue;
		if (line_kind(line, full, name, sizeof(full)) && strv_contains(kept, full))
			continue;
		nlen = sp ? (int)(sp - colon - 1) : (int)strlen(colon + 1);
		char *undo = user ? xasprintf("-:%s", colon + 1) : xasprintf("-:%.*s", nlen, colon + 1);
		int r = tfs_write(NULL, "dynamic_events", undo, true);

		tr_detail_clear();
		if (r == -EBUSY && user)
			tr_warn("user event '%.*s' stays: a running program has it registered, or it "
				"is traced", nlen, colon + 1);
		else if (r && r != -ENOENT && !first)
			first = r;
		free(undo);
	}
	return first;
}

static int remove_all(const struct strv *kept)
{
	struct strv names = { 0 };
	int first = 0;

	tfs_inst_list(&names);
	for (size_t i = 0; i < names.n; i++) {
		int r = tfs_inst_destroy(names.v[i]);

		if (r && !first)
			first = tr_fail(r, "cannot remove instance '%s': %s", names.v[i],
					strerror(-r));
	}
	strv_free(&names);
	/* Emptying dynamic_events removes every probe and synthetic event at once. */
	if (tfs_exists(NULL, "dynamic_events")) {
		char *cur = NULL;

		if (!tfs_read(NULL, "dynamic_events", &cur) && *str_rstrip(cur)) {
			/* -k: one by one, past those kept. */
			int r = kept->n ? -EBUSY : tfs_write(NULL, "dynamic_events", "", false);

			/* One busy event (a user event a running program registered) stops
			 * the kernel from removing any: then remove them one by one. */
			if (r == -EBUSY)
				r = remove_one_by_one(cur, kept);
			if (r && !first)
				first = tr_fail(r, "cannot remove dynamic events (%s): are they in use?",
						strerror(-r));
		}
		free(cur);
	}
	return first;
}

int cmd_reset(int argc, char **argv)
{
	struct args a = { 0 };
	struct tfs_inst *in = NULL;
	struct strv kept = { 0 };
	int r;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.inst.name && cmd_instance_open(a.inst.name, false, &in))
		return tr_report(-ENOENT, "reset"), EXIT_RUNTIME;
	/* What a tr that died left (its journal) is undone like what tr start kept. */
	{
		struct strv dead = { 0 };

		if (session_orphans(true, &dead))
			tr_report(-EIO, "cannot undo what a tr that died left");
		strv_free(&dead);
	}
	kept_names(&a.keep, &kept);
	strv_free(&a.keep);
	/* -B: only what tr kept inside that instance; else everything. */
	r = tfs_state_undo_keep(in ? in->dir : NULL, keeps_undo, &kept);
	if (r)
		tr_report(r, "cannot undo what tr kept");
	if (a.inst.name && !tfs_exists(NULL, in->dir + strlen(tfs_root()) + 1)) {
		strv_free(&kept);
		return r ? EXIT_RUNTIME : EXIT_OK;	/* tr made it, and it is gone now */
	}
	if (a.all && (r = remove_all(&kept))) {
		strv_free(&kept);
		return tr_report(r, "cannot remove what tr created"), EXIT_RUNTIME;
	}
	strv_free(&kept);
	if ((r = tfs_reset_defaults(in ? in : tfs_top())))
		return tr_report(r, "cannot reset the tracing settings"), EXIT_RUNTIME;
	return r ? EXIT_RUNTIME : EXIT_OK;
}
