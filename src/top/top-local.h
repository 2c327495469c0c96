/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr top's parts, shared by the files of src/top (and the unit tests) only; what
 * the command sees is include/top.h.  Five parts, each usable without the ones after it:
 *
 *  - the decoder: raw ring-buffer records (page.h's tfile_event) of one tep
 *    handle's formats into typed top_rec records.  Field offsets are looked
 *    up once; decoding a record is a table lookup and a few loads;
 *  - the model: aggregates top_recs into tables (tasks, syscalls, events,
 *    CPUs, irqs, a latency histogram, a custom tr-hist table).  Pure C: no
 *    tracefs, no terminal, no threads or locks of its own (the live source
 *    holds a lock around it); unit-tested with hand-made records;
 *  - the views: static tables of columns (key, value, aggregation, unit,
 *    width) over the model; top_view_build() groups, aggregates, filters
 *    and sorts one into a top_table.  Drill-down is a link between views;
 *  - the renderers: top_batch_print() (plain text or one JSON object per
 *    refresh) and the ncurses UI (top-ui.c, the only file that includes
 *    curses);
 *  - the sources: live (the session runner and the recorder's callback
 *    sink, counting in the reader threads) and replay (a trace.dat file
 *    merged over its CPUs, stepped interval by interval).
 *
 * Times are nanoseconds of the trace clock.  Counts and times in the
 * tables are totals since the start (or the last top_model_zero()); CPU%,
 * busy% and rates are over the last interval (top_model_tick()).
 *
 * Errors: 0 or -errno with tr_fail() set, as every layer; only the
 * renderers write, to the FILE or terminal they are given.
 */
#ifndef TR_TOP_LOCAL_H
#define TR_TOP_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "page.h"
#include "top-decode.h"
#include "top.h"
#include "tr.h"

struct tep_handle;
struct hist_spec;
struct hist_user;

/* ---- records and the decoder: include/top-decode.h ---- */

/* ---- the model ---- */

struct top_model;

struct top_model_opts {
	int ncpus;
	uint64_t start_ts;	/* when counting began (run time before a CPU's first switch) */
	/* -P: only these processes (a pid, or its threads by tgid), and with children their forks. */
	const pid_t *pids;
	size_t npids;
	bool children;
	/* tr's own pids: their time counts as busy, but they get no rows. */
	const pid_t *hidden;
	size_t nhidden;
	/* The latency view's rows: per task or per CPU. */
	bool lat_by_task;
	/* Thread group of a pid, for -P (live: /proc; replay: saved_tgids), or NULL. */
	int (*tgid_of)(void *arg, int pid);
	void *tgid_arg;
	const struct top_decoder *names;	/* event names (may be NULL) */
};

struct top_model *top_model_new(const struct top_model_opts *o);
/*
 * The custom view: tr hist's userspace aggregator for spec s over tep's
 * events (both must outlive the model).  live: name tasks from /proc too.
 */
int top_model_set_custom(struct top_model *m, struct tep_handle *tep, const struct hist_spec *s,
			 bool live);
/* One record; ev (the raw record, for the custom view) may be NULL. */
void top_model_feed(struct top_model *m, const struct top_rec *r, const struct tfile_event *ev);
/* n events were lost on cpu (n < 0: an unknown number, counted as one). */
void top_model_lost(struct top_model *m, int cpu, int64_t n);
/* Names tasks from "PID COMM" lines (saved_cmdlines) that no event named yet. */
void top_model_cmdlines(struct top_model *m, const char *text);
/* Syscall names by number (the architecture's table, or learnt from syscalls:* events). */
void top_model_syscall_name(struct top_model *m, long nr, const char *name);
/* Load the architecture's syscall table (x86-64's, from the system headers); -ENOENT without. */
int top_syscall_names(struct top_model *m);
/*
 * Close the interval at now (a time of the trace clock): charge the running
 * tasks, compute the interval's deltas, forget tasks that exited a few
 * intervals ago.
 */
void top_model_tick(struct top_model *m, uint64_t now);
/*
 * Counting begins at ts (tracing was turned on), if no record came yet:
 * the time from top_model_opts.start_ts to ts is nobody's run time.
 */
void top_model_start(struct top_model *m, uint64_t ts);
/* Zero every counter (the z key); tasks and names stay. */
void top_model_zero(struct top_model *m);
void top_model_free(struct top_model *m);

struct top_stats {
	uint64_t events, lost;		/* totals */
	uint64_t events_d, lost_d;	/* in the last interval */
	uint64_t interval_ns;		/* length of the last interval (0 before the first) */
	uint64_t now;			/* the last tick */
	size_t tasks;			/* rows in the task table (exited ones included) */
	int ncpus;
};
void top_model_stats(const struct top_model *m, struct top_stats *s);
/* A task's comm ("<idle>" for 0, "" if unknown); valid until the next feed or tick. */
const char *top_model_comm(const struct top_model *m, int pid);

/* ---- views ---- */

enum top_field {
	TF_NONE,
	/* keys */
	TF_PID, TF_NR, TF_EVENT, TF_CPU, TF_IRQ, TF_LATKEY,
	/* tasks */
	TF_COMM, TF_STATE, TF_RUN, TF_RUN_D, TF_VCSW, TF_ICSW, TF_WAKE, TF_RQ_SUM, TF_RQ_N,
	TF_RQ_MAX, TF_MIGR,
	/* syscalls, events, irqs: counts and times */
	TF_COUNT, TF_COUNT_D, TF_ERR, TF_TIME, TF_TIME_N, TF_TIME_MAX,
	/* cpus */
	TF_BUSY_D, TF_SW, TF_IRQ_N, TF_IRQ_T, TF_SIRQ_N, TF_SIRQ_T, TF_EV_D,
	/* latency */
	TF_LAT_N, TF_LAT_MIN, TF_LAT_SUM, TF_LAT_MAX, TF_LAT_P50, TF_LAT_P99,
	TF__COUNT
};

enum top_agg {
	TA_KEY,		/* the row's key, shown by name (comm, syscall, event, irq) or number */
	TA_KEYNUM,	/* the row's key as a number */
	TA_TEXT,	/* a text attribute of the key (comm of a pid) */
	TA_SUM,
	TA_MAX,
	TA_MIN,
	TA_AVG,		/* sum of f / sum of f2 */
	TA_RATE,	/* sum of f per second of the interval */
	TA_PCT,		/* sum of f (ns) as a percentage of the interval */
	TA_SHARE,	/* sum of f as a percentage of f over all rows */
};

enum top_unit { TU_NUM, TU_TIME, TU_PCT, TU_RATE, TU_TEXT };

struct top_col {
	const char *name;	/* the heading: "CPU%" */
	const char *json;	/* the JSON key: "cpu_pct" */
	enum top_agg agg;
	enum top_field f, f2;
	enum top_unit unit;
	int width;		/* negative: left-aligned */
};

enum top_src { TS_TASKS, TS_SYSCALLS, TS_EVENTS, TS_CPUS, TS_IRQS, TS_LATENCY, TS_CUSTOM };

struct top_view {
	const char *id;		/* "tasks", as --view takes it */
	const char *title;
	char key;		/* '1'..'7'; 0 for a drill-down target only */
	enum top_src src;
	enum top_field group;	/* rows are the src's rows grouped by this field */
	const struct top_col *cols;
	size_t ncols;
	int sort;		/* default sort column (descending, unless sort_asc) */
	bool sort_asc;
	/* Events it enables; "a|b" takes the first this kernel has. */
	const char *const *needs;
	const char *drill;	/* the view Enter goes to, filtered by this view's group value */
	const char *help;	/* one line: what the rows are */
};

/* The model's rows, for the view engine (and tests): fn(arg, row) for each row shown. */
void top_model_rows(struct top_model *m, enum top_src src, void (*fn)(void *arg, const void *row),
		    void *arg);
uint64_t top_model_field(const struct top_model *m, enum top_src src, const void *row,
			 enum top_field f);
/* A key as text: a pid's comm, a syscall's, event's or irq's name, a CPU number. */
void top_model_text(const struct top_model *m, enum top_field f, uint64_t v, char *buf, size_t len);
bool top_model_lat_by_task(const struct top_model *m);
void top_model_set_lat_by_task(struct top_model *m, bool by_task);
/* The latency histogram over every row, and its totals: count, min, avg, p50, p99, max. */
struct top_hist;
void top_model_lat_hist(const struct top_model *m, struct top_hist *h);
void top_model_lat_total(const struct top_model *m, uint64_t v[6]);
/* The custom view's table (-ENOENT: there is none). */
struct hist_result;
int top_model_custom(struct top_model *m, struct hist_result *r);

extern const struct top_view top_views[];
extern const size_t top_nviews;
/* What to show: a view, its sort, a row filter and the drill-down filter. */
struct top_state {
	const struct top_view *view;
	int sort;		/* column; -1: sort_name's, or the view's default */
	const char *sort_name;	/* a column's heading or JSON name (-s), or NULL */
	bool reverse;		/* the other way from the column's default order */
	char filter[64];	/* rows whose text contains this ("" none) */
	enum top_field drill_field;	/* TF_NONE, or rows must have this field == drill_value */
	uint64_t drill_value;
	char drill_label[64];	/* "pid 1234 (make)", for the header */
};

struct top_cell {
	double v;		/* the value (numbers and the sort order) */
	char *s;		/* text cells */
};

/* The latency view's log2 histogram (of the selected row, or all rows). */
struct top_hist {
	uint64_t count[64];	/* [i]: values in [2^i, 2^(i+1)) ns ([0]: 0 and 1) */
	int lo, hi;		/* first and last non-empty bucket; hi < lo when empty */
};

struct top_table {
	const struct top_view *view;
	const struct top_col *cols;	/* the view's, or the custom view's own */
	size_t ncols;
	size_t nrows;
	struct top_cell *cells;		/* nrows * ncols */
	uint64_t *keys;			/* each row's group value (drill-down, echo) */
	int sort;			/* the column sorted by */
	bool sort_asc;
	/* Events this view needs that the kernel lacks ("" none); with no data, why. */
	char *missing;
	bool unavailable;		/* nothing to show: every needed event is missing */
	char *note;			/* the custom view's totals, or NULL */
	struct top_hist hist;		/* latency: every row together */
	bool has_hist;
	struct top_col *own_cols;	/* allocated columns (custom) */
};

static inline struct top_cell *top_tcell(const struct top_table *t, size_t row, size_t col)
{
	return &t->cells[row * t->ncols + col];
}

/*
 * Build st's view from the model (interval values from the last tick).
 * missing lists the view's needed events this kernel lacks (NULL: none).
 */
int top_view_build(struct top_model *m, const struct top_state *st, const char *missing,
		   struct top_table *out);
/* The latency histogram of one row (by its key). */
void top_view_row_hist(struct top_model *m, uint64_t key, struct top_hist *h);
void top_table_free(struct top_table *t);
/* A cell as text for its column's unit ("12.5", "3.2ms", "1.2k"). */
void top_cell_text(const struct top_col *c, const struct top_cell *cell, char *buf, size_t len);
/* A histogram bucket's range ("[1.0us, 2.0us)"). */
void top_hist_label(int bucket, char *buf, size_t len);
/* A time in ns for people: "850ns", "12.3us", "4.50ms", "1.25s". */
void top_time_text(double ns, char *buf, size_t len);

/* ---- the header every frame starts with ---- */

struct top_header {
	const char *source;	/* "live" or the file */
	uint64_t elapsed_ns;
	int ncpus;
	double events_s, lost_s;
	uint64_t events, lost;
	uint64_t bad_pages;	/* corrupt sub-buffers skipped */
	uint64_t buffer_kb;	/* per CPU; 0 unknown */
	double interval_s;
	const char *enabled;	/* "sched:sched_switch,..." */
	const char *state;	/* "running", "command ended (exit 0)", "interval 3/10" */
	const char *pair;	/* the latency view's pair: "sched:sched_waking -> ..." */
};

/* ---- batch output ---- */

/* One refresh: the header and the table, as text (blank line after) or one JSON line. */
int top_batch_print(FILE *f, enum top_out kind, const struct top_header *h,
		    const struct top_state *st, const struct top_table *t);

/* ---- sources and the UI ---- */

/*
 * A source of frames, driven by the UI (or a batch loop).  Live, the model
 * is fed by the readers concurrently: every op takes the source's lock.
 */
struct top_source;
struct top_source_ops {
	/*
	 * The header (s->h) and st's view as a table.  advance: close the
	 * interval first (live: now; replay: nothing, intervals are stepped).
	 */
	int (*frame)(struct top_source *s, const struct top_state *st, bool advance,
		     struct top_table *t);
	/* Enable what a view needs, before it is first shown (live). */
	void (*need)(struct top_source *s, const struct top_view *v);
	void (*zero)(struct top_source *s);
	/* Replay: step n intervals (negative: back), or go to the one holding ts (s). */
	int (*step)(struct top_source *s, long n);
	int (*go)(struct top_source *s, double ts);
	/*
	 * Echo the raw events of the rows matching both conditions (TF_NONE:
	 * no condition), formatted as tr report formats them; f1 == TF_NONE
	 * and !on stops it.
	 */
	void (*echo)(struct top_source *s, bool on, enum top_field f1, uint64_t v1,
		     enum top_field f2, uint64_t v2);
	/* The newest echo lines, at most max (malloc'ed, oldest first); returns how many. */
	size_t (*echo_lines)(struct top_source *s, char **out, size_t max);
	/* The latency view per task (on) or per CPU. */
	void (*lat_by_task)(struct top_source *s, bool on);
};

struct top_source {
	const struct top_source_ops *ops;
	struct top_header h;
	bool replay;
	bool ended;		/* live: the session is over, the model stays as it ended */
};

/*
 * The ncurses UI (top-ui.c).  top_ui_open() takes the terminal (the fatal
 * signals restore it too); top_ui_tick() reads keys and redraws when a
 * refresh is due (1: the user quit); top_ui_loop() runs it without a
 * session (replay, or after the command ended) until q; top_ui_close()
 * gives the terminal back and prints what went to stderr meanwhile.
 */
struct top_ui;
int top_ui_open(struct top_source *s, const struct top_opts *o, struct top_ui **out);
int top_ui_tick(struct top_ui *u, bool key_ready);
int top_ui_loop(struct top_ui *u);
/*
 * Replay: did the user leave with b (print every interval as batch text)?
 * If so, *st is the view, sort, filter and drill-down on screen then.
 */
bool top_ui_batch(const struct top_ui *u, struct top_state *st);
void top_ui_close(struct top_ui *u);

#endif
