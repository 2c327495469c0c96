/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr top's echo (the e key, csysdig's echo view): the raw events of the
 * selected row, formatted as tr report formats them, kept in a ring of the
 * newest lines.  Private to the top sources (top-live.c, top-replay.c);
 * callers serialise access (the live source's lock).
 */
#ifndef TR_TOP_ECHO_H
#define TR_TOP_ECHO_H

#include "top-local.h"

struct top_echo;

/* A formatter over tep's events; cmdlines ("PID COMM" lines) may be NULL. */
int top_echo_new(struct tep_handle *tep, const char *cmdlines, struct top_echo **out);
/* Echo records whose fields match both conditions (TF_NONE: any); off stops and empties it. */
void top_echo_set(struct top_echo *e, bool on, enum top_field f1, uint64_t v1,
		  enum top_field f2, uint64_t v2, bool lat_by_task);
bool top_echo_on(const struct top_echo *e);
/* Every record while echoing (for task names); those that match are formatted. */
void top_echo_event(struct top_echo *e, const struct top_rec *r, const struct tfile_event *ev);
/* The newest lines, at most max, oldest first (malloc'ed). */
size_t top_echo_lines(struct top_echo *e, char **out, size_t max);
void top_echo_clear(struct top_echo *e);
void top_echo_free(struct top_echo *e);

#endif
