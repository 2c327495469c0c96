// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr user add|emit|list|delete: user events (the kernel's user_events) from
 * the shell.  add defines a persistent event (tr reset removes the ones tr
 * added), emit writes events into it (one per line of stdin with --stdin),
 * list shows each event with its format and who traces it, delete removes
 * one.  The events are ordinary events: -e user_events:NAME, or
 * -e user:NAME for every format of NAME.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "caps.h"
#include "user.h"

enum op { OP_NONE, OP_ADD, OP_EMIT, OP_LIST, OP_DELETE };

struct args {
	enum op op;
	bool multi, in, if_enabled, json;
	const char *format;
	struct strv words;
};

enum { OPT_MULTI = 0x100, OPT_STDIN, OPT_FORMAT, OPT_IF_ENABLED, OPT_JSON };

static const struct argp_option options[] = {
	{ "multi", OPT_MULTI, NULL, 0,
	  "add, emit: a multi-format event (user_events_multi:NAME.ID), one tracepoint per format", 0 },
	{ "stdin", OPT_STDIN, NULL, 0,
	  "emit: one event per input line (FIELD=VALUE..., or the whole line for an event of one "
	  "string field)", 0 },
	{ "format", OPT_FORMAT, "FIELDS", 0,
	  "emit: register the event with FIELDS while emitting, if it does not exist", 0 },
	{ "if-enabled", OPT_IF_ENABLED, NULL, 0,
	  "emit: write only if the event is traced now; exit 1 (silently) if it is not", 0 },
	{ "json", OPT_JSON, NULL, 0, "list: one JSON object", 0 },
	{ 0 }
};

static const char *const op_names[] = { NULL, "add", "emit", "list", "delete", NULL };

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case OPT_MULTI:
		a->multi = true;
		return 0;
	case OPT_STDIN:
		a->in = true;
		return 0;
	case OPT_FORMAT:
		a->format = arg;
		return 0;
	case OPT_IF_ENABLED:
		a->if_enabled = true;
		return 0;
	case OPT_JSON:
		a->json = true;
		return 0;
	case ARGP_KEY_ARG:
		if (a->op == OP_NONE) {
			/* "del", as tr probe spells it, is delete too. */
			a->op = !strcmp(arg, "del") ? OP_DELETE : opt_action(state, arg, op_names);
			return 0;
		}
		strv_push(&a->words, arg);
		return 0;
	case ARGP_KEY_END:
		if (a->op == OP_NONE)
			a->op = OP_LIST;
		if (a->op == OP_LIST && a->words.n)
			argp_error(state, "list takes no arguments");
		if (a->op == OP_ADD && (a->words.n < 1 || a->words.n > 2))
			argp_error(state, "add takes NAME and 'FIELD; FIELD...' (quoted as one argument)");
		if ((a->op == OP_EMIT || a->op == OP_DELETE) && !a->words.n)
			argp_error(state, "%s needs an event name", op_names[a->op]);
		if (a->op == OP_EMIT && a->in && a->words.n > 1)
			argp_error(state, "--stdin reads the values: no FIELD=VALUE arguments");
		if (a->multi && a->op != OP_ADD && a->op != OP_EMIT)
			argp_error(state, "--multi goes with add or emit");
		if ((a->in || a->format || a->if_enabled) && a->op != OP_EMIT)
			argp_error(state, "--stdin, --format and --if-enabled go with emit");
		if (a->json && a->op != OP_LIST)
			argp_error(state, "--json goes with list");
		if (a->multi && a->op == OP_EMIT && !a->format)
			argp_error(state, "emit --multi needs --format (which format to register)");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse,
	"add NAME ['FIELD; FIELD...'] [--multi]\n"
	"emit NAME [FIELD=VALUE...] [--format 'FIELDS' [--multi]] [--if-enabled]\n"
	"emit NAME --stdin [--format 'FIELDS' [--multi]] [--if-enabled]\n"
	"list [--json]\n"
	"delete NAME|user_events_multi:NAME.ID...",
	"Define, emit, list and delete user events: events a process writes into the ring "
	"buffers beside the kernel's (needs CONFIG_USER_EVENTS).\v"
	"Field types: u8 u16 u32 u64, s8 s16 s32 s64, char short int (and unsigned ...), "
	"char[N] (N <= 1024), __data_loc char[] and __rel_loc char[] (strings), "
	"__rel_loc u8[] (bytes), 'struct TYPE NAME SIZE'.  Values: integers in decimal or 0x hex, "
	"text for char fields, hex bytes (01,02,ff) for byte arrays and structs.  An added "
	"event stays until deleted; tr reset removes the ones tr added.  Select them with "
	"-e user_events:NAME, or -e user:NAME for every format of NAME.",
	NULL, NULL, NULL
};

static int add(const struct args *a)
{
	char *tp = NULL;
	int r = uev_add(a->words.v[0], a->words.n > 1 ? a->words.v[1] : "", a->multi, &tp);

	if (!r)
		printf("%s\n", tp);
	free(tp);
	return r;
}

static int list(const struct args *a)
{
	struct uev_list l;
	int r = uev_list(&l);

	if (r)
		return r;
	if (a->json) {
		printf("{\"active\": %d, \"busy\": %d, \"events\": [", l.active, l.busy);
		for (size_t i = 0; i < l.n; i++) {
			const struct uev_info *u = &l.v[i];

			printf("%s\n  {\"name\": ", i ? "," : "");
			json_fputs(stdout, u->name);
			printf(", \"system\": ");
			json_fputs(stdout, u->system);
			printf(", \"tracepoint\": ");
			json_fputs(stdout, u->tracepoint);
			printf(", \"multi_format\": %s, \"format\": ",
			       strcmp(u->system, "user_events_multi") ? "false" : "true");
			json_fputs(stdout, u->fields);
			printf(", \"used_by\": [%s%s%s%s%s], \"made_by_tr\": %s}",
			       u->used_by & UEV_FTRACE ? "\"ftrace\"" : "",
			       (u->used_by & UEV_FTRACE) && (u->used_by & (UEV_PERF | UEV_OTHER)) ? ", " : "",
			       u->used_by & UEV_PERF ? "\"perf\"" : "",
			       (u->used_by & UEV_PERF) && (u->used_by & UEV_OTHER) ? ", " : "",
			       u->used_by & UEV_OTHER ? "\"other\"" : "", u->by_tr ? "true" : "false");
		}
		printf("%s]}\n", l.n ? "\n" : "");
	} else {
		for (size_t i = 0; i < l.n; i++) {
			const struct uev_info *u = &l.v[i];
			bool note = u->used_by || u->by_tr;

			printf("%s:%s  %s%s%s%s%s%s\n", u->system, u->tracepoint,
			       *u->fields ? u->fields : "(no fields)", note ? "    # " : "",
			       u->used_by ? "used by " : "", uev_used_by_text(u->used_by),
			       u->used_by && u->by_tr ? "; " : "", u->by_tr ? "made by tr" : "");
		}
		printf("active: %d, busy: %d\n", l.active, l.busy);
	}
	uev_list_free(&l);
	return 0;
}

/* One event: check the values, then write it if anyone traces the event. */
static int emit_one(struct uev_writer *w, const char *name, const struct strv *values,
		    bool if_enabled, int *not_written)
{
	struct uev_buf b;
	int r = uev_encode_values(name, uev_writer_fields(w), uev_writer_format(w), values,
				  uev_writer_max_event(w), &b);

	if (r)
		return r;
	/* The enable bit is the whole point: no system call when nobody listens. */
	r = uev_enabled(w) ? uev_write(w, &b) : 0;
	if (r == 0 && if_enabled)
		(*not_written)++;
	uev_buf_free(&b);
	return r < 0 ? r : 0;
}

/* An event of one text field takes each line whole. */
static bool whole_line_field(const struct uev_writer *w, char *name, size_t n)
{
	const struct uf_format *f = uev_writer_format(w);

	if (f->n != 1 || !(f->f[0].kind == UF_ARRAY || (f->f[0].kind == UF_DYN && f->f[0].str)))
		return false;
	uf_name(uev_writer_fields(w), &f->f[0], name, n);
	return true;
}

static int emit_stdin(struct uev_writer *w, const char *name, bool if_enabled, int *not_written)
{
	char *line = NULL, field[128];
	size_t cap = 0, lineno = 0;
	bool whole = whole_line_field(w, field, sizeof(field));
	int first = 0;
	ssize_t n;

	while (!tr_stop && (n = getline(&line, &cap, stdin)) >= 0) {
		struct strv values = { 0 };
		int r;

		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (whole)
			strv_push_owned(&values, xasprintf("%s=%s", field, line));
		r = whole ? 0 : uev_split_line(line, &values);
		if (!r)
			r = emit_one(w, name, &values, if_enabled, not_written);
		strv_free(&values);
		/* A bad line is reported and skipped: the pipeline goes on logging. */
		if (r) {
			tr_report(r, "stdin line %zu", lineno);
			if (!first)
				first = r;
		}
	}
	free(line);
	if (ferror(stdin) && !tr_stop && !first)
		first = tr_fail(-EIO, "cannot read standard input: %s", strerror(errno));
	return first;
}

static int emit(const struct args *a)
{
	struct uev_writer *w;
	const char *name = a->words.v[0];
	int not_written = 0, r = uev_open(name, a->format, a->multi, &w);

	if (r)
		return r;
	if (a->in) {
		r = emit_stdin(w, name, a->if_enabled, &not_written);
		if (r)
			r = 1;	/* reported line by line */
	} else {
		struct strv values = { 0 };

		for (size_t i = 1; i < a->words.n; i++)
			strv_push(&values, a->words.v[i]);
		r = emit_one(w, name, &values, a->if_enabled, &not_written);
		strv_free(&values);
	}
	uev_close(w);
	if (!r && not_written)
		return 2;
	return r;
}

int cmd_user(int argc, char **argv)
{
	struct args a = { 0 };
	int r = 0;

	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	/* Every action needs the kernel's user_events: say so first, in one line. */
	r = caps_require(CAP_USER_EVENTS);
	if (!r) {
		switch (a.op) {
		case OP_ADD:
			r = add(&a);
			/* The event outlives this process; tr reset takes it back. */
			if (!r)
				r = tfs_keep();
			break;
		case OP_EMIT:
			r = emit(&a);
			break;
		case OP_DELETE:
			for (size_t i = 0; i < a.words.n && !r; i++)
				r = uev_delete(a.words.v[i]);
			break;
		default:
			r = list(&a);
			break;
		}
	}
	strv_free(&a.words);
	if (r == 1 || r == 2)	/* already reported, or --if-enabled: not traced */
		return EXIT_RUNTIME;
	if (r)
		tr_report(r, "user");
	return r ? EXIT_RUNTIME : EXIT_OK;
}
