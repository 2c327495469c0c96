/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lasting synthetic events (tr synth): "NAME TYPE FIELD[; TYPE FIELD]...",
 * written to synthetic_events.  Each one tr adds is taken back at exit, or
 * by tr reset after tfs_keep(); hist triggers fill them with
 * onmatch().trace() and -e synthetic:NAME records them.
 *
 * Errors are returned as -errno with tr_fail() naming the bad part; a
 * refused write leaves the kernel's error_log reason in tr_detail().
 */
#ifndef TR_SYNTH_H
#define TR_SYNTH_H

#include "tr.h"

/*
 * Check a definition without tracefs: NAME an identifier, FIELDS one or more
 * "TYPE NAME" (NAME may end in [N] or TYPE in []) separated by ';'.  The
 * types are the kernel's to judge.  On success *line is "NAME FIELDS" as
 * written to synthetic_events (malloc'ed).
 */
int synth_def(const char *name, const char *fields, char **line);

/* Add it (CAP_SYNTHETIC), remembering "!NAME" to take it back. */
int synth_add(const char *name, const char *fields);
/* Remove NAME: -ENOENT if there is none, -EBUSY (named) while a trigger or -e uses it. */
int synth_del(const char *name);
/* Every synthetic event, one definition per line, as synthetic_events lists them. */
int synth_list(struct strv *out);

#endif
