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
 * Function trigger: FUNC:COMMAND[:COUNT], appended to set_ftrace_filter.
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

/* Function triggers: "FUNC:COMMAND[:COUNT]". */
int trig_func_add(struct tfs_inst *in, const char *spec);
int trig_func_del(struct tfs_inst *in, const char *spec);

/* Every trigger of an instance as "SYS:EV<TAB>TRIGGER" (functions as "function:NAME<TAB>..."). */
int trig_list(struct tfs_inst *in, struct strv *out);

#endif
