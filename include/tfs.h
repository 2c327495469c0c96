/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracefs control layer.  Every control file tr changes goes through
 * here, so that one table knows what to put back:
 *
 *  - tfs_set() remembers a file's value before tr first writes it and never
 *    writes a value that is already set (some hosts refuse even a write of
 *    the current value);
 *  - tfs_inst_get() creates instances with tracing off, and tfs_undo_append()
 *    records how to remove a trigger or dynamic event tr added;
 *  - tfs_restore() undoes all of it, newest first; tfs_keep() instead makes
 *    the changes outlive the process (tr start) and notes them in a state
 *    file so that tr reset can remove what tr created.
 *
 * After a refused write the kernel's reason from error_log, if it gave one,
 * is left in tr_detail() for the caller to show.
 */
#ifndef TR_TFS_H
#define TR_TFS_H

#include <stdbool.h>
#include <stddef.h>

#include "tr.h"

struct tfs_inst {
	char *name;	/* NULL for the top-level buffer */
	char *dir;	/* absolute path of the instance's directory */
	bool created;	/* tr made it in this process */
};

/*
 * Locate tracefs: $TR_TRACEFS when set (tests point it at stand-ins), else
 * /sys/kernel/tracing, /sys/kernel/debug/tracing, then the mount table;
 * mounts it at /sys/kernel/tracing when absent and we are root.  Returns 0,
 * -ENOENT (not found / not mountable) or -EACCES (found but not ours).
 */
int tfs_open(void);
const char *tfs_root(void);
/* How tracefs was found, for tr check: "mounted", "mounted by tr", "$TR_TRACEFS". */
const char *tfs_origin(void);

struct tfs_inst *tfs_top(void);
/*
 * The instance NAME (NULL or "" = top level).  With create, a missing one is
 * made with tracing off and removed again by tfs_restore().  -ENOENT if it
 * does not exist and !create.
 */
int tfs_inst_get(const char *name, bool create, struct tfs_inst **out);
int tfs_inst_destroy(const char *name);
/* Names of all instances, sorted. */
int tfs_inst_list(struct strv *names);
bool tfs_inst_valid_name(const char *name);

char *tfs_path(const struct tfs_inst *in, const char *file);
bool tfs_exists(const struct tfs_inst *in, const char *file);
int tfs_read(const struct tfs_inst *in, const char *file, char **out);
/* The meaningful value of a control file: the [selected] clock, "" for "none" ... */
char *tfs_normalize(const char *file, const char *raw);

/* Set a control file for the life of the process (or until tr reset after tfs_keep()). */
int tfs_set(const struct tfs_inst *in, const char *file, const char *value);
/* Set a file for good, still skipping a write of the current value (tr reset). */
int tfs_ensure(const struct tfs_inst *in, const char *file, const char *value);
/* tfs_set() for a file outside tracefs (/proc/sys/kernel/stack_tracer_enabled). */
int tfs_set_path(const char *path, const char *value);
/* Write without remembering (clearing a buffer, a one-shot command). */
int tfs_write(const struct tfs_inst *in, const char *file, const char *value, bool append);
/*
 * Write without remembering and without the error log's detail: touches
 * no state of tr's, so another thread may call it (a file of an instance
 * tr made, which goes with the instance).
 */
int tfs_write_plain(const struct tfs_inst *in, const char *file, const char *value);
/*
 * Write buf in one write() (a trace_marker record), without remembering;
 * -EMSGSIZE when the kernel took less than all of it.
 */
int tfs_write_bytes(const struct tfs_inst *in, const char *file, const void *buf, size_t len);
/* Remember a file's value to restore at exit, without writing it (the kernel will). */
int tfs_save(const struct tfs_inst *in, const char *file);
/*
 * Append a line (a trigger, a probe) and remember how to take it back.
 * A hist trigger also saves the instance's trace_clock, which the kernel
 * changes for timestamped histograms.
 */
int tfs_append_undo(const struct tfs_inst *in, const char *file, const char *line,
		    const char *undo_line);

/*
 * Remember how to take back something tr added by other means than a
 * write to FILE (a user event registered through its ioctl): undo_line is
 * appended to FILE by tfs_restore(), or by tr reset after tfs_keep().
 */
void tfs_undo_note(const struct tfs_inst *in, const char *file, const char *undo_line);

int tfs_restore(void);
/*
 * A scope inside one command: tfs_restore_to(tfs_undo_mark()'s value) undoes
 * only what was changed since, newest first, and leaves the rest for
 * tfs_restore() (a histogram that must go before what it was built on).
 */
size_t tfs_undo_mark(void);
int tfs_restore_to(size_t mark);
/* Make this process's changes permanent; record created objects for tr reset. */
int tfs_keep(void);

/*
 * Undo what earlier kept runs recorded under prefix (a path; NULL for all),
 * then forget them (tr reset).
 */
int tfs_state_undo(const char *prefix);
/*
 * The same, but what stays() says stays (tr reset -k): not undone, and
 * still noted for a later reset.  kind is "set", "append" or "instance".
 */
int tfs_state_undo_keep(const char *prefix,
			bool (*stays)(const char *kind, const char *file, const char *value, void *arg),
			void *arg);

/* Did a kept run note this undo value ("-:tr/ev")?  For "made by tr" marks. */
bool tfs_state_has(const char *value);

/* Forget notes of this undo value: what they would remove is gone already. */
void tfs_state_forget(const char *value);

/*
 * A live session's journal: the undo table as it stands, in the state
 * file's format, written whole to path (under path.new, then renamed), so
 * that what a killed tr changed can still be undone.  0 or -errno.
 */
int tfs_journal(const char *path);
/*
 * A dead session's journal joins the state file (tr reset undoes it, as a
 * kept tr start's) and path goes.  0 or -errno.
 */
int tfs_state_adopt(const char *path);

/* The state file written by tfs_keep(): $TR_STATE_DIR/state, default /run/tr. */
char *tfs_state_path(void);

/* Back to kernel defaults: no events, filters, triggers, tracer; empty buffer; on. */
int tfs_reset_defaults(struct tfs_inst *in);
/* "traceoff:count=2" (as a trigger file shows it) -> "!traceoff". */
char *tfs_trigger_removal(const char *shown);

/*
 * Call fn for every event of an instance (sorted by system, then event) with
 * the contents of its FILE ("trigger", "filter", ...), skipping unreadable
 * ones.  Stops at, and returns, the first non-zero fn result.
 */
int tfs_each_event_file(const struct tfs_inst *in, const char *file,
			int (*fn)(const char *system, const char *event, char *content, void *ctx),
			void *ctx);

/* The names in a directory of the instance ("options"), sorted. */
int tfs_list_dir(const struct tfs_inst *in, const char *dir, struct strv *names);
/*
 * The instance's options that shape the kernel's text beyond each event's
 * format, a line each as trace_options lists them ("nosym-offset\n"):
 * funcgraph-*, sym-offset, sym-addr, print-parent, raw, hex, bin, verbose,
 * context-info, annotate, latency-format, fields, record-tgid, irq-info,
 * userstacktrace, sym-userobj, printk-msg-only, trace_printk; then
 * "tracer:NAME" (current_tracer); then the eprobes' lines of
 * dynamic_events ("e:grp/ep sched.sched_switch ..."), whose text names the
 * event each is on.  Malloc'ed; "" for none.
 */
char *tfs_text_options(const struct tfs_inst *in);
/* The tracer an option file belongs to (func_stack_trace: "function"), or NULL. */
const char *tfs_option_tracer(const char *opt);

/* Every "system:event" the kernel offers (for an instance, its own list). */
int tfs_events(const struct tfs_inst *in, struct strv *out);

#endif
