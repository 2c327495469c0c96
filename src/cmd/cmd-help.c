// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr help [COMMAND]: the command list, or one command's --help.
 */
#include <stdlib.h>

#include "cmd.h"

static const struct argp_option options[] = { { 0 } };

static error_t parse(int key, char *arg, struct argp_state *state)
{
	const char **topic = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (*topic)
			argp_error(state, "too many arguments");
		if (!cmd_find(arg))
			argp_error(state, "'%s' is not a tr command", arg);
		*topic = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp argp = { options, parse, "[COMMAND]",
				  "Show the list of commands, or the help of one command.", NULL,
				  NULL, NULL };

int cmd_help(int argc, char **argv)
{
	const char *topic = NULL;

	argp_parse(&argp, argc, argv, 0, NULL, &topic);
	if (!topic) {
		tr_root_help();
		return EXIT_OK;
	}
	char *name = xasprintf("tr %s", topic);
	char *args[] = { name, (char *)"--help", NULL };
	int r = cmd_find(topic)->fn(2, args);

	free(name);
	return r;
}
