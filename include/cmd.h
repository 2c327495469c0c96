/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command table and the argp pieces commands share.
 *
 * Each cmd_* parses its own arguments with its own struct argp (argv[0] is
 * "tr NAME" so --help reads right), validates, delegates to a layer, and
 * returns the exit status: EXIT_OK, EXIT_RUNTIME or EXIT_USAGE.
 */
#ifndef TR_CMD_H
#define TR_CMD_H

#include <argp.h>
#include <stdint.h>
#include <stdio.h>

#include "evsel.h"
#include "tfs.h"
#include "tr.h"

enum {
	CMD_TRACEFS = 1 << 0,	/* open tracefs before running; restore after */
	CMD_HIDDEN = 1 << 1,	/* not listed by help */
};

struct tr_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	unsigned flags;
};

extern const struct tr_cmd tr_commands[];
extern const size_t tr_ncommands;
const struct tr_cmd *cmd_find(const char *name);
/* Is this first argument a command or root option of ours (not coreutils')? */
bool cmd_is_ours(const char *arg);
/* The command or option within two edits of word (a typo), or NULL. */
const char *cmd_suggest(const char *word);

/* Shared option groups, used as argp children with a .header. */

/* -B/--instance NAME */
struct opt_instance {
	const char *name;
};
extern const struct argp opt_instance_argp;
/* For commands whose only option is -B: their input is a struct opt_instance. */
extern const struct argp_child opt_instance_children[];
error_t opt_instance_only_parse(int key, char *arg, struct argp_state *state);

/*
 * The action word of a command with sub-actions (tr probe add|del|list):
 * words[] is indexed by the command's enum, whose 0 means "no action yet"
 * (words[0] is NULL) and ends with NULL.  opt_action_find() returns the
 * index of arg, or 0; opt_action() fails the parse with
 * "unknown action 'X' (a, b or c)" instead of returning 0.
 */
/*
 * tr listen's and tr agent's log: one line on stderr with the local date
 * and time (the net layer's log callback; arg unused), and the first one,
 * "listening on ADDR port PORT" (ADDR NULL: the loopback default).
 */
void opt_log_line(void *arg, const char *line);
/* "listening on ADDR port N" (vsock: "on vsock CID ... port N") on stderr. */
void opt_log_listening(const char *bind, bool vsock, uint16_t port);
/*
 * --vsock or not: the --allow entries must be of that kind (CIDs, or
 * address ranges), and --bind a CID or an address.  Usage errors.
 */
struct net_cidr;
/* The servers' -p PORT (0 to 65535) and --allow CIDR (added to *allow, *n of them). Usage errors. */
void opt_port(struct argp_state *state, const char *arg, int *port);
void opt_allow(struct argp_state *state, const char *arg, struct net_cidr **allow, int *n);
void opt_check_vsock(struct argp_state *state, bool vsock, const struct net_cidr *allow,
		     int nallow, const char *bind);
int opt_action_find(const char *arg, const char *const *words);
int opt_action(struct argp_state *state, const char *arg, const char *const *words);

/* -e SEL [-f FILTER] ... */
struct opt_events {
	struct evsel_list list;
};
extern const struct argp opt_events_argp;

/* -p TRACER, -C CLOCK, -b KB, -O OPTION: input is a struct tr_setup. */
extern const struct argp opt_setup_argp;
struct tr_setup;
/*
 * What the set-up group checks at its ARGP_KEY_END, once the whole line
 * is read (--tracer-opt against -p, --cpu with -b): for a command that
 * keeps several set-ups (record's -B buffers).
 */
void opt_setup_check(struct argp_state *state, const struct tr_setup *s);
/* -M CPUMASK / --cpus LIST: input is a struct tr_cpus (tr_setup's, or top's own). */
extern const struct argp opt_cpus_argp;
/* -P PID, -c, --notrace-pid PID: input is a struct tr_setup. */
extern const struct argp opt_pids_argp;
struct tr_setup;
/*
 * At ARGP_KEY_END of a command that runs a COMMAND (record, stream): the
 * rules of --follow (a COMMAND, not with -P) and of -c (with -P or
 * --follow), as usage errors.
 */
void opt_check_follow(struct argp_state *state, bool follow, bool command,
		      const struct tr_setup *setup);
/*
 * At the first argument of a command that runs a COMMAND (record, stream,
 * hist, top, profile): it and everything after it are COMMAND's, not
 * options of ours; *command points into argv.
 */
void opt_command(struct argp_state *state, char ***command);
/*
 * -F FILTER of report and stream: its grammar checked now (a bad one is a
 * usage error, "bad filter 'F': why"), then pushed onto filters.
 */
void opt_filter_add(struct argp_state *state, struct strv *filters, const char *arg);
/*
 * --format FMT of report and stream: text, libtraceevent, json or csv into
 * fo's kind and lib; -EINVAL for another word (each command says its own
 * usage error).
 */
struct fmt_opts;
int opt_output_format(const char *arg, struct fmt_opts *fo);
/*
 * --file-version 6|7 and --compression zstd|zlib|none, for the commands
 * that write trace.dat files (record, convert, split); each says its own
 * default in its --help.  A compression implies version 7; version 6 with
 * one is a usage error.
 */
struct opt_file_format {
	int version;	/* 0: not given */
	int zip;	/* enum tfw_zip, or -1: not given (set it so before parsing) */
};
extern const struct argp opt_file_format_argp;
/* The group alone, under "File:" (convert, split, restore). */
extern const struct argp_child opt_file_format_children[];
void opt_bind_file_format(struct argp_state *state, struct opt_file_format *ff);
/*
 * --duration, --follow and --no-filter: how long a live session runs and
 * whose events it takes (record, stream).  --follow is checked against
 * COMMAND and -P with opt_check_follow() at the command's ARGP_KEY_END.
 */
struct opt_run {
	uint64_t duration_ns;	/* 0: no limit */
	bool follow, no_filter;
};
extern const struct argp opt_run_argp;
void opt_bind_run(struct argp_state *state, struct opt_run *run);
/*
 * --duration alone (hist, profile; opt_run_argp holds it too): bind the
 * command's nanoseconds at its ARGP_KEY_INIT.  The children lists give the
 * group with nothing else, or after the Instance group.
 */
extern const struct argp opt_duration_argp;
extern const struct argp_child opt_duration_children[];
extern const struct argp_child opt_instance_duration_children[];
void opt_bind_duration(struct argp_state *state, uint64_t *duration_ns);

/* Instance, events, set-up, CPUs and processes together (start, stream). */
extern const struct argp_child opt_session_children[];
/* The same with the Run group (stream). */
extern const struct argp_child opt_live_children[];

struct tr_setup;
struct tr_cpus;
/*
 * At ARGP_KEY_INIT: hand each shared option group its input by which group
 * it is, not by its position among the command's children.  NULL for a
 * group the command does not have.
 */
void opt_bind(struct argp_state *state, struct opt_instance *inst, struct opt_events *ev,
	      struct tr_setup *setup);
/* For a command with the CPU group but no tr_setup (top). */
void opt_bind_cpus(struct argp_state *state, struct tr_cpus *cpus);

int cmd_check(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_check_events(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_listen(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_persist(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_restart(int argc, char **argv);
int cmd_clear(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_marker(int argc, char **argv);
int cmd_instance(int argc, char **argv);
int cmd_trigger(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_user(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_stack(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* The root parser: takes the command name and leaves the rest to the command. */
struct root_args {
	const struct tr_cmd *cmd;
	int cmd_index;
};
extern const struct argp tr_root_argp;
/* Print tr --help to stdout and exit 0. */
void tr_root_help(void);

/* Open the -B instance: the top level when name is NULL; -ENOENT names it. */
int cmd_instance_open(const char *name, bool create, struct tfs_inst **out);
/*
 * A persistent instance that still holds the previous boot's data, which
 * the kernel clears as soon as an event or a tracer is enabled in it:
 * -EBUSY with tr_fail() saying so and how to go on anyway (how), else 0.
 */
int cmd_instance_keeps_last_boot(const char *name, const char *how);

#endif
