// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr probe add|del|list: kprobes, kretprobes, uprobes, uretprobes, eprobes
 * and fprobes in the kernel's own syntax, or a uprobe on a function named by
 * symbol (-u BINARY SYMBOL), its file offset found in the ELF symbol table,
 * and user events as dynamic_events takes them ("u:NAME FIELDS", made and
 * deleted by the user layer, which tr user shares).
 * A probe becomes an ordinary event that -e selects.  Probes added here stay
 * after tr exits; tr reset removes them (and -a removes every probe).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dynev.h"
#include "tfs.h"
#include "user.h"

enum op { OP_NONE, OP_ADD, OP_DEL, OP_LIST };
static const char *const ops[] = { NULL, "add", "del", "list", NULL };

struct args {
	enum op op;
	const char *binary;
	const char *name;
	bool ret;
	bool stats;	/* list --stats */
	struct strv words;
};

enum { OPT_NAME = 0x100, OPT_STATS };

static const struct argp_option options[] = {
	{ "uprobe", 'u', "BINARY", 0, "Probe a function of BINARY named by the first argument", 0 },
	{ "return", 'r', NULL, 0, "With -u: probe the function's return (uretprobe)", 0 },
	{ "name", OPT_NAME, "GROUP/EVENT", 0, "With -u: the event's name (default tr/SYMBOL)", 0 },
	{ "stats", OPT_STATS, NULL, 0, "With list: each probe's hits and misses (kprobe_profile, "
	  "uprobe_profile)", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'u':
		a->binary = arg;
		return 0;
	case 'r':
		a->ret = true;
		return 0;
	case OPT_NAME:
		a->name = arg;
		return 0;
	case OPT_STATS:
		a->stats = true;
		return 0;
	case ARGP_KEY_ARG:
		if (a->op == OP_NONE) {
			a->op = opt_action(state, arg, ops);
			return 0;
		}
		if (a->op == OP_LIST)
			argp_error(state, "list takes no arguments");
		strv_push(&a->words, arg);
		return 0;
	case ARGP_KEY_END:
		if (a->op == OP_NONE)
			a->op = OP_LIST;
		if (a->op != OP_LIST && !a->words.n)
			argp_error(state, "%s needs %s", a->op == OP_ADD ? "add" : "del",
				   a->op == OP_ADD ? "a probe definition" : "a probe name");
		if ((a->ret || a->name) && !a->binary)
			argp_error(state, "-r and --name go with -u");
		if (a->binary && a->op != OP_ADD)
			argp_error(state, "-u goes with add");
		if (a->stats && a->op != OP_LIST)
			argp_error(state, "--stats goes with list");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse,
	"add 'p:[GROUP/]EVENT SYMBOL[+OFFS] [ARGS]'\n"
	"add 'r:[GROUP/]EVENT SYMBOL [ARGS]'\n"
	"add 'p:[GROUP/]EVENT /path/to/binary:OFFSET [ARGS]'\n"
	"add 'e:[GROUP/]EVENT SYSTEM.EVENT [ARGS] [if FILTER]'\n"
	"add 'f:[GROUP/]EVENT FUNCTION[%return] [ARGS]'\n"
	"add 'u:NAME [FIELD; FIELD...]'\n"
	"add -u BINARY [-r] [--name GROUP/EVENT] SYMBOL [ARGS...]\n"
	"del [GROUP/]EVENT...\n"
	"list [--stats]",
	"Add, remove and list dynamic probes: kprobes, kretprobes, uprobes, uretprobes, eprobes "
	"and fprobes, in the kernel's own syntax.  Each becomes an event that -e selects.\v"
	"A u: line adds a persistent user event (user_events:NAME), as tr user add does: the "
	"kernel takes no flags after the name and has no multi-format form of the line (tr user "
	"add --multi makes those).  del NAME deletes a user event with every format of it.",
	NULL, NULL, NULL
};

/* "main" -> "main"; "foo@plt" or "a.b" -> "foo_plt", "a_b": event names are identifiers. */
static char *event_name(const char *symbol)
{
	char *s = xstrdup(symbol);

	for (char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
	return s;
}

static int add_uprobe(const struct args *a)
{
	const char *symbol = a->words.v[0];
	char *def, *name, *rest = xstrdup("");
	uint64_t off;
	int r = elf_symbol_offset(a->binary, symbol, &off);

	if (r)
		goto out_rest;
	for (size_t i = 1; i < a->words.n; i++) {
		char *t = xasprintf("%s %s", rest, a->words.v[i]);

		free(rest);
		rest = t;
	}
	if (a->name) {
		name = xstrdup(a->name);
	} else {
		char *ev = event_name(symbol);

		name = xasprintf("tr/%s%s", ev, a->ret ? "_ret" : "");
		free(ev);
	}
	def = xasprintf("%c:%s %s:0x%llx%s", a->ret ? 'r' : 'p', name, a->binary,
			(unsigned long long)off, rest);
	r = dynev_add(def);
	if (!r)
		printf("%s\n", def);
	free(def);
	free(name);
out_rest:
	free(rest);
	return r;
}

static int add(const struct args *a)
{
	char *def;
	int r;

	if (a->binary)
		return add_uprobe(a);
	def = xstrdup(a->words.v[0]);
	for (size_t i = 1; i < a->words.n; i++) {
		char *t = xasprintf("%s %s", def, a->words.v[i]);

		free(def);
		def = t;
	}
	if (!strncmp(def + strspn(def, " \t"), "u:", 2)) {
		char *tp = NULL;

		r = uev_add_dyn(def, &tp);
		free(tp);
	} else {
		r = dynev_add(def);
	}
	free(def);
	return r;
}

/* A user event's name if dynamic_events has "u:NAME ..." for it ("user_events/NAME" too). */
static const char *user_event_name(const char *name)
{
	struct strv all = { 0 };
	const char *ev = !strncmp(name, "user_events/", 12) ? name + 12 : name;
	size_t n = strlen(ev);
	bool found = false;

	dynev_list(&all);
	for (size_t i = 0; i < all.n && !found; i++)
		found = !strncmp(all.v[i], "u:", 2) && !strncmp(all.v[i] + 2, ev, n) &&
			(!all.v[i][2 + n] || all.v[i][2 + n] == ' ');
	strv_free(&all);
	return found ? ev : NULL;
}

static int del(const char *name)
{
	const char *user = user_event_name(name);

	return user ? uev_delete(user) : dynev_del(name);
}

static int list(void)
{
	struct strv all = { 0 };
	int r = dynev_list(&all);

	for (size_t i = 0; i < all.n; i++) {
		struct dynev d = { 0 };
		bool ours = false;

		if (!strncmp(all.v[i], "u:", 2)) {
			ours = uev_dyn_by_tr(all.v[i]);
		} else if (!dynev_parse(all.v[i], &d) && d.event) {
			char *undo = xasprintf("-:%s/%s", d.group ? d.group : "", d.event);

			ours = tfs_state_has(undo);
			free(undo);
		}
		dynev_free(&d);
		printf("%s%s\n", all.v[i], ours ? "    # made by tr" : "");
	}
	strv_free(&all);
	return r;
}

/* kprobe_profile and uprobe_profile as one table; the kernel names events without groups. */
static int stats(void)
{
	struct dynev_hits *v;
	size_t n;
	int r = dynev_profile(&v, &n);

	if (r)
		return r;
	printf("%-7s %-32s %12s %12s  %s\n", "TYPE", "EVENT", "HITS", "MISSED", "FILE");
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == 'k')
			printf("%-7s %-32s %12llu %12llu\n", "kprobe", v[i].event,
			       (unsigned long long)v[i].hits, (unsigned long long)v[i].missed);
		else
			printf("%-7s %-32s %12llu %12s  %s\n", "uprobe", v[i].event,
			       (unsigned long long)v[i].hits, "-", v[i].file);
	dynev_profile_free(v, n);
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct args a = { 0 };
	int r = 0;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	switch (a.op) {
	case OP_ADD:
		r = add(&a);
		/* Probes outlive this process; tr reset takes them back. */
		if (!r)
			r = tfs_keep();
		break;
	case OP_DEL:
		for (size_t i = 0; i < a.words.n && !r; i++)
			r = del(a.words.v[i]);
		break;
	default:
		r = a.stats ? stats() : list();
		break;
	}
	if (r)
		tr_report(r, "probe");
	strv_free(&a.words);
	return r ? EXIT_RUNTIME : EXIT_OK;
}
