// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command table.  tr help, tr --list-cmds, the completion scripts and the
 * coreutils hand-off all read it, so a command exists in exactly one place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "parse.h"

const struct tr_cmd tr_commands[] = {
	{ "check", cmd_check, "Report what this kernel's tracing can do, and why not", 0 },
	{ "check-events", cmd_check_events, "Check that every event format parses, and name "
	  "those that do not", 0 },
	{ "list", cmd_list, "List events, tracers, options, clocks, instances, functions", CMD_TRACEFS },
	{ "stat", cmd_stat, "Show what is set now, per instance", CMD_TRACEFS },
	{ "show", cmd_show, "Print the trace, trace_pipe, snapshot or any control file", CMD_TRACEFS },
	{ "record", cmd_record, "Record events into a trace.dat file", CMD_TRACEFS },
	{ "listen", cmd_listen, "Receive recordings from tr record -N and trace-cmd record -N", 0 },
	{ "agent", cmd_agent, "Record on request of tr record -A or trace-cmd record -A",
	  CMD_TRACEFS },
	{ "persist", cmd_persist, "Print the boot line that makes a ring buffer survive a crash "
	  "and the reboot after it", 0 },
	{ "extract", cmd_extract, "Save what is in the ring buffer now to a trace.dat file",
	  CMD_TRACEFS },
	{ "restore", cmd_restore, "Write the trace.dat of a recording whose tr died, from its "
	  "spool", 0 },
	{ "report", cmd_report, "Print a recorded trace, merged and formatted like the kernel does", 0 },
	{ "convert", cmd_convert,
	  "Rewrite a trace.dat in the other file version or compression, or in Perfetto's format",
	  0 },
	{ "split", cmd_split, "Cut a trace.dat into files by time range, event count or CPU", 0 },
	{ "dump", cmd_dump, "Show a trace.dat file's layout: sections, options, buffers; "
	  "--validate checks every sub-buffer", 0 },
	{ "stream", cmd_stream, "Print events live as they arrive, without a file", CMD_TRACEFS },
	{ "start", cmd_start, "Enable events, tracer and filters, without recording", CMD_TRACEFS },
	{ "stop", cmd_stop, "Stop writing to the ring buffer (tracing_on=0)", CMD_TRACEFS },
	{ "restart", cmd_restart, "Resume writing to the ring buffer (tracing_on=1)", CMD_TRACEFS },
	{ "clear", cmd_clear, "Empty the ring buffer", CMD_TRACEFS },
	{ "marker", cmd_marker, "Write a marker (text or a binary record) into the trace",
	  CMD_TRACEFS },
	{ "reset", cmd_reset, "Put tracing back to defaults and remove what tr created",
	  CMD_TRACEFS },
	{ "instance", cmd_instance, "Create, destroy and list tracefs instances", CMD_TRACEFS },
	{ "trigger", cmd_trigger, "Add, remove and list event and function triggers", CMD_TRACEFS },
	{ "probe", cmd_probe, "Add, remove and list kprobes, uprobes, eprobes and fprobes", CMD_TRACEFS },
	{ "synth", cmd_synth, "Add, remove and list synthetic events (for hist triggers)",
	  CMD_TRACEFS },
	{ "user", cmd_user, "Define, emit, list and delete user events (user_events)", CMD_TRACEFS },
	{ "snapshot", cmd_snapshot, "Take, show, clear or free the snapshot buffer", CMD_TRACEFS },
	{ "stack", cmd_stack, "The stack tracer: deepest kernel stack and its trace", CMD_TRACEFS },
	{ "hist", cmd_hist, "Histograms of event fields, in the kernel or in userspace", CMD_TRACEFS },
	{ "profile", cmd_profile, "Count calls and time per kernel function (function profiler)",
	  CMD_TRACEFS },
	{ "top", cmd_top, "What the kernel is doing, live: tasks, syscalls, events, CPUs, irqs",
	  CMD_TRACEFS },
	{ "serve", cmd_serve, "Metrics for Prometheus: what the kernel does, on /metrics",
	  CMD_TRACEFS },
	{ "help", cmd_help, "Show the commands, or one command's help", 0 },
};
const size_t tr_ncommands = ARRAY_SIZE(tr_commands);

const struct tr_cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < tr_ncommands; i++)
		if (!strcmp(tr_commands[i].name, name))
			return &tr_commands[i];
	return NULL;
}

/* Long options that are ours, for deciding what to hand to coreutils. */
static const char *const root_words[] = { "--help", "-?", "--usage", "--version", "-V",
					  "--list-cmds" };

/* The closest command or option name within two edits, or NULL. */
const char *cmd_suggest(const char *word)
{
	const char *best = NULL;
	int best_d = 3;

	for (size_t i = 0; i < tr_ncommands; i++) {
		int d = edit_distance(word, tr_commands[i].name, 2);

		if (!(tr_commands[i].flags & CMD_HIDDEN) && d < best_d)
			best = tr_commands[i].name, best_d = d;
	}
	for (size_t i = 0; i < ARRAY_SIZE(root_words); i++) {
		int d = strlen(root_words[i]) > 3 ? edit_distance(word, root_words[i], 2) : 3;

		if (d < best_d)
			best = root_words[i], best_d = d;
	}
	/* Two edits on a three-letter word is a different word, not a typo. */
	if (best && best_d * 2 >= (int)strlen(word))
		return NULL;
	return best;
}

bool cmd_is_ours(const char *arg)
{
	if (cmd_find(arg))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(root_words); i++)
		if (!strcmp(arg, root_words[i]))
			return true;
	return false;
}


const char *argp_program_version = "tr " TR_VERSION;
const char *argp_program_bug_address = NULL;

enum { OPT_LIST_CMDS = 0x100 };

static const struct argp_option root_options[] = {
	{ "list-cmds", OPT_LIST_CMDS, NULL, 0, "Print the command names, one per line", 0 },
	{ 0 }
};

static void list_cmds(FILE *f, bool summaries)
{
	for (size_t i = 0; i < tr_ncommands; i++) {
		if (tr_commands[i].flags & CMD_HIDDEN)
			continue;
		if (summaries)
			fprintf(f, "  %-10s %s\n", tr_commands[i].name, tr_commands[i].summary);
		else
			fprintf(f, "%s\n", tr_commands[i].name);
	}
}

static error_t root_parse(int key, char *arg, struct argp_state *state)
{
	struct root_args *a = state->input;

	switch (key) {
	case OPT_LIST_CMDS:
		list_cmds(stdout, false);
		exit(fflush(stdout) ? EXIT_RUNTIME : EXIT_OK);
	case ARGP_KEY_ARG:
		a->cmd = cmd_find(arg);
		if (!a->cmd)
			argp_error(state, "'%s' is not a tr command", arg);
		a->cmd_index = state->next - 1;
		/* The rest belongs to the command's own parser. */
		state->next = state->argc;
		return 0;
	case ARGP_KEY_NO_ARGS:
		argp_help(&tr_root_argp, stderr, ARGP_HELP_USAGE | ARGP_HELP_LONG | ARGP_HELP_DOC,
			  (char *)"tr");
		exit(EXIT_USAGE);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static char *root_help(int key, const char *text, void *input)
{
	(void)input;
	if (key == ARGP_KEY_HELP_POST_DOC) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		fputs("Commands:\n", f);
		list_cmds(f, true);
		fputs("\n'tr COMMAND --help' shows a command's options.  Anything else on the\n"
		      "command line is handed to the system's tr (coreutils).",
		      f);
		fclose(f);
		return buf;
	}
	return (char *)text;
}

const struct argp tr_root_argp = {
	root_options, root_parse, "COMMAND [ARGS...]",
	"tr -- a command-line front end to the kernel's ftrace\v", NULL, root_help, NULL
};

/* The same text as tr --help: argp adds --help/--version only when it parses. */
void tr_root_help(void)
{
	char *argv[] = { (char *)"tr", (char *)"--help", NULL };

	argp_parse(&tr_root_argp, 2, argv, ARGP_IN_ORDER, NULL, NULL);
}

