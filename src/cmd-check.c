// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr check: one line per capability of this kernel's tracing, with the
 * reason where it is missing; --json for the same as one object, and
 * --has CAP to ask about one (exit 0 if present, 1 if not), for scripts and
 * for the test suite's test_requires.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "probe.h"

struct args {
	bool json;
	const char *has;
};

enum { OPT_JSON = 0x100, OPT_HAS };

static const struct argp_option options[] = {
	{ "json", OPT_JSON, NULL, 0, "Print one JSON object", 0 },
	{ "has", OPT_HAS, "CAP", 0, "Exit 0 if CAP is present, 1 (saying why) if not", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_HAS:
		if (cap_from_name(arg) < 0)
			argp_error(state, "unknown capability '%s'", arg);
		a->has = arg;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "too many arguments");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = {
	options, parse, NULL,
	"Report what this kernel's tracing can do, one capability per line, with the reason when "
	"something is missing.\vCapabilities: tracefs access instances tracers function "
	"function_graph function_filter latency events triggers hist snapshot kprobes uprobes "
	"eprobes fprobes synthetic user_events stack_tracer mmap clocks buffers",
	NULL, NULL, NULL
};

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

int cmd_check(int argc, char **argv)
{
	struct args a = { 0 };

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.has) {
		int c = cap_from_name(a.has);

		if (probe_has(c))
			return EXIT_OK;
		printf("%s: %s\n", a.has, probe_detail(c));
		return EXIT_RUNTIME;
	}
	if (a.json)
		putchar('{');
	for (int c = 0; c < CAP__COUNT; c++) {
		bool ok = probe_has(c);

		if (a.json) {
			printf("%s\n  ", c ? "," : "");
			json_string(cap_name(c));
			printf(": {\"present\": %s, \"detail\": ", ok ? "true" : "false");
			json_string(probe_detail(c));
			putchar('}');
		} else {
			printf("%-16s %-4s %s\n", cap_name(c), ok ? "yes" : "no", probe_detail(c));
		}
	}
	if (a.json)
		puts("\n}");
	return EXIT_OK;
}
