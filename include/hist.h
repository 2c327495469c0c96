/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histograms of event fields (tr hist), in three parts that share one model:
 *
 *  - the spec: keys, values, sort keys, filter and size as the user typed
 *    them ("next_comm", "call_site.sym", "bytes_req.buckets=32"), checked
 *    without tracefs and turned into the kernel's "hist:keys=..." trigger;
 *  - the result: a table of rows (key cells, value cells) with the kernel's
 *    totals, filled either by parsing a kernel `hist` file or by the
 *    userspace engine, and rendered the same way (aligned table, JSON, CSV);
 *  - the engines: the kernel one (a hist trigger, undone at exit) and the
 *    userspace one (a hash map fed with raw ring-buffer records, live or
 *    from a trace.dat file), for kernels without hist triggers.
 *
 * Parsers return 0 or -EINVAL with tr_fail() naming the bad part; nothing
 * here prints except hist_render(), to the FILE it is given.
 */
#ifndef TR_HIST_H
#define TR_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tfile.h"
#include "tfs.h"

/* At most this many keys, values and sort keys (the kernel's own limits are lower). */
#define HIST_MAX_KEYS 8
#define HIST_MAX_VALS 16
/* Variables and actions of one trigger (the kernel allows 32 and 8). */
#define HIST_MAX_VARS 16
#define HIST_MAX_ACTIONS 8

enum hist_mod {
	HIST_MOD_NONE,
	HIST_MOD_HEX,
	HIST_MOD_SYM,
	HIST_MOD_SYM_OFFSET,
	HIST_MOD_EXECNAME,
	HIST_MOD_SYSCALL,
	HIST_MOD_LOG2,
	HIST_MOD_BUCKETS,
	HIST_MOD_USECS,
	HIST_MOD_PERCENT,	/* values only */
	HIST_MOD_GRAPH,		/* values only */
	HIST_MOD_STACKTRACE,	/* keys only: a field that holds a stack (unsigned long[]) */
};

struct hist_field {
	char *name;		/* next_comm, common_pid, hitcount, common_stacktrace */
	enum hist_mod mod;
	uint64_t buckets;	/* .buckets=N */
	bool descending;	/* sort keys: .descending */
	bool ascending;		/* sort keys: .ascending written out */
};

struct hist_spec {
	char *system, *event;
	struct hist_field keys[HIST_MAX_KEYS];
	struct hist_field vals[HIST_MAX_VALS];
	struct hist_field sort[HIST_MAX_KEYS];
	size_t nkeys, nvals, nsort;
	char *filter;		/* " if FILTER", or NULL */
	char *name;		/* name= (a hist shared between events), or NULL */
	uint64_t size;		/* size= (entries; rounded up to a power of 2), 0 = default */
	/*
	 * clock= (a trace_clock name), or NULL: the clock of common_timestamp.
	 * The kernel applies it only to a hist that uses common_timestamp, and
	 * then sets the instance's trace_clock to it while the hist exists.
	 */
	char *clock;
	/*
	 * Hist variables "NAME=EXPR" (a field, a $reference to another
	 * trigger's variable or an alias, common_timestamp.usecs, or + - * /
	 * of those): kept per entry for actions and other triggers, never
	 * table columns.
	 */
	char *vars[HIST_MAX_VARS];
	size_t nvars;
	/* Handlers and actions, as the kernel takes them: "onchange($v).save(f)". */
	char *actions[HIST_MAX_ACTIONS];
	size_t nactions;
};

const char *hist_mod_name(enum hist_mod m);
/* "sched:sched_switch" (or "sched/sched_switch") -> system and event; no globs. */
int hist_event_parse(const char *sysev, char **system, char **event);
/* Is name one of the special fields every event has (common_timestamp ...)? */
bool hist_field_special(const char *name);

/* "next_comm", "call_site.sym", "bytes_req.buckets=32", "hitcount.descending". */
int hist_field_parse(const char *s, bool key, bool sort, struct hist_field *f);
/* "a,b.hex,c": comma-separated fields appended to v (at most max). */
int hist_fields_parse(const char *list, bool key, bool sort, struct hist_field *v, size_t *n,
		      size_t max);
/* "next_comm" / "call_site.sym" / "bytes_req.buckets=32", as the kernel writes it. */
char *hist_field_str(const struct hist_field *f);

/*
 * Fill s from the command line's pieces (any of keys, vals, sort, filter,
 * name may be NULL; keys is required unless name is given).  Checks
 * modifiers against key/value use, that sort keys name a key or value
 * (or hitcount) and that there are not too many of anything.  An item
 * NAME=EXPR among the values is a variable (s->vars), not a column.
 */
int hist_spec_build(struct hist_spec *s, const char *sysev, const char *keys, const char *vals,
		    const char *sort, const char *filter, uint64_t size, const char *name);
/*
 * Check a hist variable "NAME=EXPR" (the expression's fields are the
 * kernel's to judge) or an action "onmatch(SYS.EV).trace(SYNTH,ARGS)",
 * "onmatch(SYS.EV).SYNTH(ARGS)", "onmax($VAR).save(F,...)",
 * "onchange($VAR).snapshot()" ..., and add it to s.
 */
int hist_spec_add_var(struct hist_spec *s, const char *def);
int hist_spec_add_action(struct hist_spec *s, const char *action);
/*
 * Variables held on other events (--define SYS:EV:VAR=EXPR, repeatable):
 * one spec per event named, holding its variables, keyed by its
 * --define-keys SYS:EV=KEY,... (dkeys) or, when none is given, by keys
 * (the histogram's own -k: the same field names on both events).  Another
 * trigger reads them as $VAR, matched by key.  *out is an array of *n specs
 * (hist_spec_free each, then free), NULL and 0 on error.
 */
int hist_spec_defines(const struct strv *defs, const struct strv *dkeys, const char *keys,
		      struct hist_spec **out, size_t *n);
/* "hist:keys=K:vals=V:VAR=EXPR:sort=S:size=N:name=X:ACTION if FILTER" (only what is set). */
char *hist_spec_trigger(const struct hist_spec *s);
/* Whether a key shows symbols (.sym, .sym-offset): the reader then needs kallsyms. */
bool hist_spec_wants_syms(const struct hist_spec *s);
/* Parse a trigger line as the kernel shows it ("hist:keys=...:size=2048 [active]"). */
int hist_spec_from_trigger(const char *line, struct hist_spec *s);
void hist_spec_free(struct hist_spec *s);

/* ---- the result model ---- */

enum hist_kind {
	HIST_K_NUM,	/* a plain number */
	HIST_K_HEX,
	HIST_K_STR,	/* a string field */
	HIST_K_SYM,	/* address with symbol: text is the symbol, num the address */
	HIST_K_TASK,	/* execname: text is the comm, num the pid */
	HIST_K_SYSCALL,	/* text is the name, num the id */
	HIST_K_RANGE,	/* log2 / buckets: num is the low end, num2 the high end */
	HIST_K_STACK,	/* text is the frames, one per line */
	HIST_K_PERCENT,	/* values: pct holds it, num the raw value when known */
	HIST_K_GRAPH,	/* values: the kernel's bar; num the raw value when known */
};

struct hist_col {
	char *name;		/* field name as shown ("next_comm", "bytes_req") */
	enum hist_mod mod;
	enum hist_kind kind;
	bool key;
};

struct hist_cell {
	char *text;		/* what to print (NULL: print num) */
	uint64_t num, num2;
	double pct;
};

struct hist_result {
	struct hist_col cols[HIST_MAX_KEYS + HIST_MAX_VALS];
	size_t ncols, nkeys;	/* the first nkeys columns are the keys */
	struct hist_cell *cells;	/* nrows * ncols, row-major */
	size_t nrows, cap;
	uint64_t hits, entries, dropped;
	uint64_t lost;		/* events the ring buffer overwrote before we read them (userspace) */
	bool has_totals;
	int sort_col;		/* the column bars and --json "sort" refer to; -1 none */
	/* onmax(): the largest tracked value over all entries and the fields saved with it. */
	bool has_max;
	uint64_t max;
	char *max_saved;	/* "next_comm: bash  prev_pid: 12", or NULL */
	char *trigger;		/* the trigger info line, when parsed from the kernel */
	char *note;		/* engine note ("userspace engine: ...") */
};

static inline struct hist_cell *hist_cell(const struct hist_result *r, size_t row, size_t col)
{
	return &r->cells[row * r->ncols + col];
}

/* Columns from a spec: keys then values (hitcount first when no values are given). */
void hist_result_init(struct hist_result *r, const struct hist_spec *s);
/* A new zeroed row; returns its index. */
size_t hist_result_add_row(struct hist_result *r);
/* Sort the rows by the spec's sort keys (default: hitcount ascending, as the kernel). */
void hist_result_sort(struct hist_result *r, const struct hist_spec *s);
void hist_result_free(struct hist_result *r);

/*
 * Parse one histogram from the text of a `hist` file, starting at *pos
 * (byte offset; updated to the start of the next histogram).  A hist file
 * holds one section per hist trigger on the event.  Returns 1 and fills r,
 * 0 when no histogram is left, -EINVAL (tr_fail() names the line) when the
 * text is not a histogram.
 */
int hist_output_parse(const char *text, size_t *pos, struct hist_result *r);

enum hist_out { HIST_OUT_TABLE, HIST_OUT_JSON, HIST_OUT_CSV };

struct hist_render_opts {
	enum hist_out kind;
	bool bars;		/* table: a bar for the sort value */
	int width;		/* bar width in characters (0 = 30) */
	size_t limit;		/* only the first (top) limit rows; 0 = all */
	const char *unit;	/* latency: the unit of the lat column and Max ("us"), or NULL */
};

/* Print r to f; the table ends with the totals and, if any, advice on Dropped and Lost. */
int hist_render(FILE *f, const struct hist_result *r, const struct hist_render_opts *o);
/* The text a table shows for a cell (malloc'ed): "comm [pid]", "[addr] sym". */
char *hist_cell_text(const struct hist_col *col, const struct hist_cell *c);

/* ---- how long a histogram collects (a session.h session runs it) ---- */

struct hist_when {
	char **command;		/* run this (NULL: until --duration or a signal) */
	uint64_t duration_ns;	/* 0 = no limit */
};

/* Several results (hist show): every histogram on an event. */
struct hist_results {
	struct hist_result *v;
	size_t n;
};
void hist_results_free(struct hist_results *r);

/* ---- the kernel engine ---- */

/* Add the spec's trigger to an instance (undone at exit); error_log in tr_detail(). */
int hist_kernel_add(struct tfs_inst *in, const struct hist_spec *s);
/*
 * s's section of a hist file's text (an event may have several hist
 * triggers): the one whose trigger info has s's keys, values and filter.
 * 0, or -ENOENT / -EINVAL with tr_fail().
 */
int hist_kernel_ours(const char *text, const struct hist_spec *s, struct hist_result *res);
/* Read SYS:EV's hist file. */
int hist_kernel_read(struct tfs_inst *in, const char *system, const char *event, char **text);
/* The event's hist triggers as shown, state cut off; only those named name if set. */
int hist_kernel_triggers(struct tfs_inst *in, const char *system, const char *event,
			 const char *name, struct strv *out);
/*
 * Add the triggers of v[0..n-1] in that order (other events' variables
 * first, then the histogram on each of its events: a named one is shared
 * by them all), collect for w, then parse v[n-1]'s section of its event's
 * hist file into res.  The triggers come off at tfs_restore(), newest
 * first, so no variable goes while a trigger still refers to it.
 */
int hist_kernel_run(struct tfs_inst *in, const struct hist_spec *v, size_t n,
		    const struct hist_when *w, struct hist_result *res);
/* Add v's triggers and collect for w; *text is v[n-1]'s hist file, read as the wait ended. */
int hist_kernel_collect(struct tfs_inst *in, const struct hist_spec *v, size_t n,
			const struct hist_when *w, char **text);
/* Every histogram of the event (only those named name, if set). */
/*
 * The event's hist_debug text (the kernel's own description of each hist
 * trigger's fields and variables, CONFIG_HIST_TRIGGERS_DEBUG), into *text;
 * -EOPNOTSUPP with tr_fail() when the kernel has no hist_debug files.
 */
int hist_kernel_debug(struct tfs_inst *in, const char *system, const char *event, char **text);
int hist_kernel_show(struct tfs_inst *in, const char *system, const char *event, const char *name,
		     struct hist_results *out);
/* Append ":clear", ":pause" or ":cont" (what) to each matching hist trigger, for good. */
int hist_kernel_control(struct tfs_inst *in, const char *system, const char *event,
			const char *name, const char *what);


/* ---- the userspace engine ---- */

struct tep_handle;
struct hist_user;

/*
 * An aggregator for spec over events described by tep.  Fails with -ENOTSUP
 * and tr_fail() for what it cannot do in userspace (stack-trace keys).
 */
int hist_user_new(struct tep_handle *tep, const struct hist_spec *s, struct hist_user **out);
/* Task names for .execname ("PID COMM" lines of saved_cmdlines). */
void hist_user_cmdlines(struct hist_user *u, const char *text);
/* Live: name tasks saved_cmdlines does not know from /proc/PID/comm. */
void hist_user_proc_comm(struct hist_user *u);
/* Feed one record; records of other events are ignored.  Not thread-safe. */
void hist_user_event(struct hist_user *u, const struct tfile_event *ev);
/* Events the ring buffer lost before the engine saw them (result.lost, not Dropped). */
void hist_user_lost(struct hist_user *u, uint64_t n);
/* The table (sorted), with Hits, Entries and Dropped. */
int hist_user_result(struct hist_user *u, struct hist_result *r);
uint64_t hist_user_hits(const struct hist_user *u);
void hist_user_free(struct hist_user *u);
/* tr_fail(-ENOENT) "no field 'X' in 'SYS:EV' (did you mean Y?)"; e may be NULL. */
struct tep_event;
int hist_no_field(struct tep_event *e, const char *name, const char *sysev);

struct tep_handle;
/* /proc/kallsyms into tep when a key of s shows symbols (reading it all is not cheap). */
void hist_spec_load_syms(const struct hist_spec *s, struct tep_handle *tep);
/*
 * The userspace engine run end to end into res (with res->note saying how
 * it ran): live from an instance's per-CPU trace_pipe_raw for w (the event
 * is enabled for it; why says why the kernel engine is not used), or from a
 * recorded trace.dat file.
 */
int hist_user_live(const struct hist_spec *s, struct tfs_inst *in, const struct hist_when *w,
		   const char *why, struct hist_result *res);
int hist_user_file(const struct hist_spec *s, const char *path, struct hist_result *res);

/* ---- latency histograms through a synthetic event ---- */

struct hist_latency {
	bool on;
	const char *start, *start_filter, *end, *end_filter, *match;
	bool ns;		/* units: ns instead of us */
	const char *onmax, *save;
	bool snapshot;
	const char *sql;
};

/* The kernel engine: synthetic event, triggers, histogram; all removed at exit. */
int hist_latency_run(const struct hist_latency *l, const char *instance,
		     const struct hist_when *w, const char *keys, struct hist_result *res);
/* The latency histogram's keys: -k as given if it names lat, else "lat.log2" first. */
char *hist_latency_keys(const char *keys);
/* The userspace engine: from a trace.dat file, or live in an instance. */
int hist_ulat_file(const struct hist_latency *l, const char *path, const char *keys,
		   struct hist_result *res);
int hist_ulat_live(const struct hist_latency *l, struct tfs_inst *in, const struct hist_when *w,
		   const char *keys, const char *why, struct hist_result *res);

#endif
