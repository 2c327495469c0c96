// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr synth add|del|list: lasting synthetic events, the building block of
 * hist triggers' onmatch().trace() (tr trigger add, tr hist --action).  An
 * event added here stays after tr exits, like a probe; tr reset removes the
 * ones tr made (and -a every one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "synth.h"
#include "tfs.h"

enum op { OP_NONE, OP_ADD, OP_DEL, OP_LIST };
static const char *const ops[] = { NULL, "add", "del", "list", NULL };

struct args {
	enum op op;
	struct strv words;
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (a->op == OP_NONE) {
			a->op = opt_action(state, arg, ops);
			return 0;
		}
		strv_push(&a->words, arg);
		return 0;
	case ARGP_KEY_END:
		if (a->op == OP_NONE)
			a->op = OP_LIST;
		if (a->op == OP_LIST && a->words.n)
			argp_error(state, "list takes no arguments");
		if (a->op == OP_ADD && a->words.n < 2)
			argp_error(state, "add needs a name and its fields: add NAME 'TYPE FIELD[; ...]'");
		if (a->op == OP_DEL && !a->words.n)
			argp_error(state, "del needs a synthetic event name");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	NULL, parse,
	"add NAME 'TYPE FIELD[; TYPE FIELD]...'\n"
	"del NAME...\n"
	"list",
	"Add, remove and list synthetic events.  A hist trigger's onmatch().trace() fills one; "
	"-e synthetic:NAME selects it.  Fields are as synthetic_events takes them: 'u64 lat; "
	"pid_t pid; char comm[16]; unsigned long[] stack'.",
	NULL, NULL, NULL
};

/* The fields may come as one word or several ("u64 lat;" "int x"). */
static char *joined(const struct strv *w, size_t from)
{
	char *s = xstrdup(w->v[from]);

	for (size_t i = from + 1; i < w->n; i++) {
		char *t = xasprintf("%s %s", s, w->v[i]);

		free(s);
		s = t;
	}
	return s;
}

static int list(void)
{
	struct strv all = { 0 };
	int r = synth_list(&all);

	for (size_t i = 0; i < all.n; i++) {
		char *undo = xasprintf("!%.*s", (int)strcspn(all.v[i], " \t"), all.v[i]);

		printf("%s%s\n", all.v[i], tfs_state_has(undo) ? "    # made by tr" : "");
		free(undo);
	}
	strv_free(&all);
	return r;
}

int cmd_synth(int argc, char **argv)
{
	struct args a = { 0 };
	int r = 0;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	switch (a.op) {
	case OP_ADD: {
		char *fields = joined(&a.words, 1), *line;

		/* A name or field list tr can tell is wrong is a usage error. */
		if (synth_def(a.words.v[0], fields, &line)) {
			tr_error("%s", tr_failure());
			free(fields);
			strv_free(&a.words);
			return EXIT_USAGE;
		}
		free(line);
		r = synth_add(a.words.v[0], fields);
		free(fields);
		/* Lasting, like probes: tr reset takes it back. */
		if (!r)
			r = tfs_keep();
		break;
	}
	case OP_DEL:
		for (size_t i = 0; i < a.words.n && !r; i++)
			r = synth_del(a.words.v[i]);
		break;
	default:
		r = list();
		break;
	}
	if (r)
		tr_report(r, "synth");
	strv_free(&a.words);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
