/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event and function triggers: parsing what the user typed, checking it
 * against the capabilities, and adding/removing it through the tfs layer so
 * it is taken back at exit (or, after tfs_keep(), by tr reset).
 *
 * Event trigger:    COMMAND[:COUNT] [if FILTER], on events/SYS/EV/trigger
 *   COMMAND is traceon, traceoff, snapshot, stacktrace,
 *   enable_event:SYS:EV, disable_event:SYS:EV, enable_hist:SYS:EV,
 *   disable_hist:SYS:EV, or a hist:... spec passed to the kernel whole.
 * Function trigger: FUNC:COMMAND[:COUNT], appended to set_ftrace_filter
 *   (COMMAND as for events, and dump, cpudump; no hist, no filter).
 */
#ifndef TR_TRIGGER_H
#define TR_TRIGGER_H

#include "tfs.h"

struct trig {
	char *cmd;	/* traceon, enable_event, hist ... */
	char *target;	/* SYS:EV for enable_event & co, else NULL */
	long count;	/* -1 = unlimited */
	char *filter;	/* after " if ", or NULL */
	char *text;	/* normalized, as written to the kernel */
};

/* Parse an event trigger.  -EINVAL with tr_fail() naming the bad part. */
int trig_parse(const char *s, struct trig *t);
void trig_free(struct trig *t);

/* "SYS:EV:COMMAND..." (the --trigger option) -> event and trigger text. */
int trig_split_event(const char *s, char **system, char **event, char **trigger);

/*
 * Add/remove an event trigger in an instance.  Add checks the event exists
 * and the command's capability (snapshot, hist), and is undone at exit.
 */
int trig_add(struct tfs_inst *in, const char *system, const char *event, const char *trigger);
int trig_del(struct tfs_inst *in, const char *system, const char *event, const char *trigger);
/*
 * The events that take triggers, sorted: available_events, and ftrace's own
 * events with a trigger file (ftrace:print, the trace_marker writes), which
 * available_events leaves out because they cannot be enabled.
 */
int trig_events(struct tfs_inst *in, struct strv *out);

/*
 * Function triggers (set_ftrace_filter commands): "FUNC:COMMAND[:COUNT]",
 * FUNC a glob; COMMAND traceon, traceoff, snapshot, stacktrace, dump,
 * cpudump, or enable_event:SYS:EV / disable_event:SYS:EV.  COUNT may also
 * be written as set_ftrace_filter shows it ("count=3", "unlimited"), so
 * what tr trigger list prints can be given back to del.
 */
struct ftrig {
	char *func;	/* the glob */
	char *cmd;
	char *target;	/* SYS:EV for enable_event/disable_event, else NULL */
	long count;	/* -1 = unlimited */
};
/* Parse one, without tracefs.  -EINVAL with tr_fail() naming the bad part. */
int trig_func_parse(const char *spec, struct ftrig *f);
void trig_func_free(struct ftrig *f);
/* "FUNC:CMD[:SYS:EV][:COUNT]" as written, and the "!..." line that removes it. */
char *trig_func_text(const struct ftrig *f);
char *trig_func_removal(const struct ftrig *f);
/* Is spec a command ("vfs_read:dump") rather than a filter entry ("vfs_*:mod:ext4")? */
bool trig_func_is_command(const char *spec);

/*
 * A function filter entry as set_ftrace_filter takes it: [!]GLOB, or
 * [!][GLOB]:mod:[!]MODULE.  0 if it is well formed and (unless it names a
 * module, which the kernel keeps for when the module loads) matches some
 * function in funcs (available_filter_functions' text); else -EINVAL or
 * -ENOENT with tr_fail().  An all-digit GLOB is the kernel's index form: line
 * N of available_filter_functions, from 1, checked against its length.
 */
int trig_func_filter_check(const char *funcs, const char *spec);

/*
 * An index entry ("N" or "!N") as the function name at line N of funcs
 * (with its "!"), for the files whose kernel parser takes names only
 * (set_graph_function, set_graph_notrace); NULL if spec is no index or
 * past the end.  The caller frees it.
 */
char *trig_func_by_index(const char *funcs, const char *spec);

/* Add (undone at exit) or remove a function trigger; checks FUNC and SYS:EV exist. */
int trig_func_add(struct tfs_inst *in, const char *spec);
int trig_func_del(struct tfs_inst *in, const char *spec);

/* Every trigger of an instance as "SYS:EV<TAB>TRIGGER" (functions as "function:NAME<TAB>..."). */
int trig_list(struct tfs_inst *in, struct strv *out);

#endif
