/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event selection, shared by every command that takes -e/-f.
 *
 * A selector is what the user typed: "sched:sched_switch", "sched:*",
 * "sched" (a system, or failing that an event name in any system), "all",
 * or globs on either side of ':' (or '/', as set_event writes it), and
 * "user:NAME": the user event NAME in every format it has, that is
 * user_events:NAME and each user_events_multi:NAME.<hex id>.  Parsing
 * is pure; resolution matches selectors against the kernel's "sys:event"
 * list, so both are testable without tracefs.
 */
#ifndef TR_EVSEL_H
#define TR_EVSEL_H

#include <stddef.h>

#include "tr.h"

struct evsel {
	char *spec;	/* as typed, for messages */
	char *system;	/* glob; NULL = any system */
	char *event;	/* glob; NULL = every event of the system(s) */
	char *filter;	/* -f that followed it, or NULL */
	/*
	 * The filter as the user typed it, when tr added clauses of its own
	 * to filter (its readers' pids); errors show this one.  Or NULL.
	 */
	char *user_filter;
	bool bare;	/* no ':' typed: a system name, else an event name */
	bool user;	/* "user:NAME": event is a user event's name, any format */
};

struct evsel_list {
	struct evsel *v;
	size_t n;
};

/* Returns 0 or -EINVAL (with tr_fail() saying what is wrong with spec). */
int evsel_parse(const char *spec, struct evsel *out);
int evsel_add(struct evsel_list *l, const char *spec);
/*
 * Attach FILTER to the newest selector; -EINVAL if there is none, or if
 * FILTER is not one enclosed expression (parse_filter_enclosed(): "bad
 * filter 'F': unbalanced parentheses"), since tr may wrap it in its own.
 */
int evsel_add_filter(struct evsel_list *l, const char *filter);
void evsel_list_free(struct evsel_list *l);

struct evmatch {
	char *system;
	char *event;
	const char *filter;	/* borrowed from the selector */
	const char *user_filter;	/* ditto: see struct evsel */
	const struct evsel *sel;	/* the selector whose filter this is, or NULL */
};

/*
 * Match every selector against available ("sys:event" strings).  The result
 * is deduplicated, in the order of available.  A selector that matches
 * nothing fails with -ENOENT and tr_fail() naming it: nothing is half-done.
 */
int evsel_resolve(const struct evsel_list *l, const struct strv *available, struct evmatch **out,
		  size_t *n);

/*
 * tr record -i: keep the selectors of l that match an event of available,
 * in their order and with their filters, and those of the ftrace system
 * (checked later, as always); push the others' specs onto dropped.
 */
void evsel_keep_existing(struct evsel_list *l, const struct strv *available, struct strv *dropped);

struct tfs_inst;
/*
 * "no such event 'SYS:EV' (did you mean sched:sched_switch?)": tr_fail()
 * for an event the kernel does not have, with the closest it has (read
 * from the instance in, NULL for the top level); returns -ENOENT.
 */
int evsel_fail_unknown(const struct tfs_inst *in, const char *system, const char *event);
void evmatch_free(struct evmatch *m, size_t n);

#endif
