// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The views of tr top, as data (csysdig's views are the model): each is a
 * table of columns over one of the model's row sources, grouped by a key
 * field, and one engine fills them all.  A new view is a new entry here;
 * drill-down is a link from a view to another one, filtered by the value
 * of the first view's key.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hash.h"
#include "hist.h"
#include "top-local.h"

#define COLS(...) (const struct top_col[]){ __VA_ARGS__ }, \
	sizeof((const struct top_col[]){ __VA_ARGS__ }) / sizeof(struct top_col)

static const char *const tasks_needs[] = {
	"sched:sched_switch", "sched:sched_waking|sched:sched_wakeup", "sched:sched_wakeup_new",
	"sched:sched_migrate_task", "sched:sched_process_exit", "sched:sched_process_fork",
	"task:task_rename", NULL
};
static const char *const syscalls_needs[] = {
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "sched:sched_process_exit",
	"sched:sched_process_fork", NULL
};
static const char *const cpus_needs[] = {
	"sched:sched_switch", "irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry",
	"irq:softirq_exit", NULL
};
static const char *const irqs_needs[] = {
	"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit",
	NULL
};
static const char *const no_needs[] = { NULL };

#define C_PID { "PID", "pid", TA_KEYNUM, TF_PID, TF_NONE, TU_NUM, 7 }
#define C_COMM { "COMM", "comm", TA_TEXT, TF_COMM, TF_NONE, TU_TEXT, -16 }

const struct top_view top_views[] = {
	{ "tasks", "Tasks", '1', TS_TASKS, TF_PID,
	  COLS(C_PID, C_COMM,
	       { "CPU%", "cpu_pct", TA_PCT, TF_RUN_D, TF_NONE, TU_PCT, 6 },
	       { "TIME", "time_ns", TA_SUM, TF_RUN, TF_NONE, TU_TIME, 8 },
	       { "VCSW", "vcsw", TA_SUM, TF_VCSW, TF_NONE, TU_NUM, 7 },
	       { "ICSW", "icsw", TA_SUM, TF_ICSW, TF_NONE, TU_NUM, 7 },
	       { "WAKEUPS", "wakeups", TA_SUM, TF_WAKE, TF_NONE, TU_NUM, 7 },
	       { "RQAVG", "rq_avg_ns", TA_AVG, TF_RQ_SUM, TF_RQ_N, TU_TIME, 8 },
	       { "RQMAX", "rq_max_ns", TA_MAX, TF_RQ_MAX, TF_NONE, TU_TIME, 8 },
	       { "MIGR", "migrations", TA_SUM, TF_MIGR, TF_NONE, TU_NUM, 6 },
	       { "STATE", "state", TA_TEXT, TF_STATE, TF_NONE, TU_TEXT, -6 }),
	  2, false, tasks_needs, "syscalls",
	  "threads: CPU% over the interval, the rest since the start (or z)" },
	{ "syscalls", "System calls", '2', TS_SYSCALLS, TF_NR,
	  COLS({ "SYSCALL", "syscall", TA_KEY, TF_NR, TF_NONE, TU_TEXT, -20 },
	       { "CALLS/s", "calls_per_s", TA_RATE, TF_COUNT_D, TF_NONE, TU_RATE, 8 },
	       { "COUNT", "count", TA_SUM, TF_COUNT, TF_NONE, TU_NUM, 9 },
	       { "ERRORS", "errors", TA_SUM, TF_ERR, TF_NONE, TU_NUM, 7 },
	       { "TOTAL", "total_ns", TA_SUM, TF_TIME, TF_NONE, TU_TIME, 8 },
	       { "AVG", "avg_ns", TA_AVG, TF_TIME, TF_TIME_N, TU_TIME, 8 },
	       { "MAX", "max_ns", TA_MAX, TF_TIME_MAX, TF_NONE, TU_TIME, 8 }),
	  2, false, syscalls_needs, "syscall-tasks",
	  "system calls, counted as they return; times from entry to return" },
	{ "events", "Events", '3', TS_EVENTS, TF_EVENT,
	  COLS({ "EVENT", "event", TA_KEY, TF_EVENT, TF_NONE, TU_TEXT, -32 },
	       { "RATE/s", "per_s", TA_RATE, TF_COUNT_D, TF_NONE, TU_RATE, 8 },
	       { "COUNT", "count", TA_SUM, TF_COUNT_D, TF_NONE, TU_NUM, 9 },
	       { "TOTAL", "total", TA_SUM, TF_COUNT, TF_NONE, TU_NUM, 10 },
	       { "SHARE%", "share_pct", TA_SHARE, TF_COUNT, TF_NONE, TU_PCT, 6 }),
	  3, false, tasks_needs, "event-tasks",
	  "every event in the buffer: COUNT in the interval, TOTAL since the start" },
	{ "cpus", "CPUs", '4', TS_CPUS, TF_CPU,
	  COLS({ "CPU", "cpu", TA_KEYNUM, TF_CPU, TF_NONE, TU_NUM, 4 },
	       { "BUSY%", "busy_pct", TA_PCT, TF_BUSY_D, TF_NONE, TU_PCT, 6 },
	       { "SWITCHES", "switches", TA_SUM, TF_SW, TF_NONE, TU_NUM, 9 },
	       { "IRQS", "irqs", TA_SUM, TF_IRQ_N, TF_NONE, TU_NUM, 8 },
	       { "IRQTIME", "irq_ns", TA_SUM, TF_IRQ_T, TF_NONE, TU_TIME, 8 },
	       { "SOFTIRQS", "softirqs", TA_SUM, TF_SIRQ_N, TF_NONE, TU_NUM, 9 },
	       { "SIRQTIME", "softirq_ns", TA_SUM, TF_SIRQ_T, TF_NONE, TU_TIME, 8 },
	       { "EVENTS/s", "events_per_s", TA_RATE, TF_EV_D, TF_NONE, TU_RATE, 9 }),
	  0, true, cpus_needs, NULL,
	  "per CPU: BUSY% over the interval (not in the idle task), the rest since the start" },
	{ "irqs", "Interrupts", '5', TS_IRQS, TF_IRQ,
	  COLS({ "IRQ", "irq", TA_KEY, TF_IRQ, TF_NONE, TU_TEXT, -24 },
	       { "RATE/s", "per_s", TA_RATE, TF_COUNT_D, TF_NONE, TU_RATE, 8 },
	       { "COUNT", "count", TA_SUM, TF_COUNT, TF_NONE, TU_NUM, 9 },
	       { "TOTAL", "total_ns", TA_SUM, TF_TIME, TF_NONE, TU_TIME, 8 },
	       { "AVG", "avg_ns", TA_AVG, TF_TIME, TF_TIME_N, TU_TIME, 8 },
	       { "MAX", "max_ns", TA_MAX, TF_TIME_MAX, TF_NONE, TU_TIME, 8 }),
	  2, false, irqs_needs, NULL, "hard irqs (by handler) and softirq vectors" },
	{ "custom", "Custom histogram", '6', TS_CUSTOM, TF_NONE, NULL, 0, -1, false, no_needs,
	  NULL, "-e EVENT -k KEY -v VAL: tr hist's table, live" },
	{ "latency", "Latency", '7', TS_LATENCY, TF_LATKEY,
	  COLS({ "CPU", "cpu", TA_KEYNUM, TF_LATKEY, TF_NONE, TU_NUM, 4 },
	       { "COUNT", "count", TA_SUM, TF_LAT_N, TF_NONE, TU_NUM, 9 },
	       { "MIN", "min_ns", TA_MIN, TF_LAT_MIN, TF_NONE, TU_TIME, 8 },
	       { "AVG", "avg_ns", TA_AVG, TF_LAT_SUM, TF_LAT_N, TU_TIME, 8 },
	       { "P50", "p50_ns", TA_MAX, TF_LAT_P50, TF_NONE, TU_TIME, 8 },
	       { "P99", "p99_ns", TA_MAX, TF_LAT_P99, TF_NONE, TU_TIME, 8 },
	       { "MAX", "max_ns", TA_MAX, TF_LAT_MAX, TF_NONE, TU_TIME, 8 }),
	  0, true, no_needs, NULL, "--latency START,END: from each start to the end that matches it" },
	/* Drill-down targets. */
	{ "syscall-tasks", "Tasks making the system call", 0, TS_SYSCALLS, TF_PID,
	  COLS(C_PID, C_COMM,
	       { "CALLS/s", "calls_per_s", TA_RATE, TF_COUNT_D, TF_NONE, TU_RATE, 8 },
	       { "COUNT", "count", TA_SUM, TF_COUNT, TF_NONE, TU_NUM, 9 },
	       { "ERRORS", "errors", TA_SUM, TF_ERR, TF_NONE, TU_NUM, 7 },
	       { "TOTAL", "total_ns", TA_SUM, TF_TIME, TF_NONE, TU_TIME, 8 },
	       { "AVG", "avg_ns", TA_AVG, TF_TIME, TF_TIME_N, TU_TIME, 8 },
	       { "MAX", "max_ns", TA_MAX, TF_TIME_MAX, TF_NONE, TU_TIME, 8 }),
	  3, false, syscalls_needs, NULL, "the tasks making one system call" },
	{ "event-tasks", "Tasks emitting the event", 0, TS_EVENTS, TF_PID,
	  COLS(C_PID, C_COMM,
	       { "RATE/s", "per_s", TA_RATE, TF_COUNT_D, TF_NONE, TU_RATE, 8 },
	       { "COUNT", "count", TA_SUM, TF_COUNT_D, TF_NONE, TU_NUM, 9 },
	       { "TOTAL", "total", TA_SUM, TF_COUNT, TF_NONE, TU_NUM, 10 },
	       { "SHARE%", "share_pct", TA_SHARE, TF_COUNT, TF_NONE, TU_PCT, 6 }),
	  4, false, tasks_needs, NULL, "the tasks (common_pid) emitting one event" },
};
const size_t top_nviews = ARRAY_SIZE(top_views);

/* The latency view per task instead of per CPU: the key is a pid. */
static const struct top_col lat_task_cols[] = {
	{ "PID", "pid", TA_KEYNUM, TF_LATKEY, TF_NONE, TU_NUM, 7 },
	{ "COMM", "comm", TA_KEY, TF_LATKEY, TF_NONE, TU_TEXT, -16 },
	{ "COUNT", "count", TA_SUM, TF_LAT_N, TF_NONE, TU_NUM, 9 },
	{ "MIN", "min_ns", TA_MIN, TF_LAT_MIN, TF_NONE, TU_TIME, 8 },
	{ "AVG", "avg_ns", TA_AVG, TF_LAT_SUM, TF_LAT_N, TU_TIME, 8 },
	{ "P50", "p50_ns", TA_MAX, TF_LAT_P50, TF_NONE, TU_TIME, 8 },
	{ "P99", "p99_ns", TA_MAX, TF_LAT_P99, TF_NONE, TU_TIME, 8 },
	{ "MAX", "max_ns", TA_MAX, TF_LAT_MAX, TF_NONE, TU_TIME, 8 },
};

const struct top_view *top_view_find(const char *id)
{
	for (size_t i = 0; i < top_nviews; i++)
		if (!strcmp(top_views[i].id, id))
			return &top_views[i];
	return NULL;
}

const struct top_view *top_view_pick(const char *name)
{
	if (name && name[0] >= '1' && name[0] <= '7' && !name[1])
		for (size_t i = 0; i < top_nviews; i++)
			if (top_views[i].key == name[0])
				return &top_views[i];
	/* By name, only the views that have a number: not a drill-down target alone. */
	for (size_t i = 0; name && i < top_nviews; i++)
		if (top_views[i].key && !strcmp(top_views[i].id, name))
			return &top_views[i];
	return NULL;
}

const char *top_view_id(const struct top_view *v)
{
	return v->id;
}

const char *top_view_names(void)
{
	return "tasks, syscalls, events, cpus, irqs, custom, latency";
}

/* ---- the engine ---- */

struct group {
	uint64_t key;
	double *acc, *acc2;
};

/* hash.h's hashed table, as a key may take all 64 bits; the groups stay in the order first seen. */
struct group_slot {
	uint64_t tag;		/* htab_hash_u64() of the group's key */
	size_t group;		/* its index in g */
};

struct build {
	struct top_model *m;
	const struct top_view *v;
	const struct top_col *cols;
	size_t ncols;
	const struct top_state *st;
	struct group *g;
	size_t n, cap;
	struct htab index;	/* struct group_slot: g by key */
	double *accs;		/* 2 * ncols per group */
};

static size_t group_of(struct build *b, uint64_t key)
{
	uint64_t tag = htab_hash_u64(key);
	struct group_slot *e;
	size_t i;

	htab_reserve(&b->index, 1);
	for (e = htab_first(&b->index, tag, &i); e->tag; e = htab_next(&b->index, tag, &i))
		if (b->g[e->group].key == key)
			return e->group;
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->g = xrealloc(b->g, b->cap * sizeof(*b->g));
		b->accs = xrealloc(b->accs, b->cap * 2 * b->ncols * sizeof(double));
	}
	e = htab_claim(&b->index, e, tag);
	e->group = b->n;
	b->g[b->n].key = key;
	for (size_t c = 0; c < 2 * b->ncols; c++) {
		enum top_agg a = b->cols[c % b->ncols].agg;

		b->accs[b->n * 2 * b->ncols + c] = a == TA_MIN && c < b->ncols ? DBL_MAX : 0;
	}
	return b->n++;
}

static void add_row(void *arg, const void *row)
{
	struct build *b = arg;
	const struct top_state *st = b->st;
	enum top_src src = b->v->src;
	size_t gi;
	double *acc, *acc2;

	if (st->drill_field != TF_NONE &&
	    top_model_field(b->m, src, row, st->drill_field) != st->drill_value)
		return;
	gi = group_of(b, top_model_field(b->m, src, row, b->v->group));
	acc = &b->accs[gi * 2 * b->ncols];
	acc2 = acc + b->ncols;
	for (size_t c = 0; c < b->ncols; c++) {
		const struct top_col *col = &b->cols[c];
		double x;

		switch (col->agg) {
		case TA_SUM:
		case TA_RATE:
		case TA_PCT:
		case TA_SHARE:
			acc[c] += (double)top_model_field(b->m, src, row, col->f);
			break;
		case TA_AVG:
			acc[c] += (double)top_model_field(b->m, src, row, col->f);
			acc2[c] += (double)top_model_field(b->m, src, row, col->f2);
			break;
		case TA_MAX:
			x = (double)top_model_field(b->m, src, row, col->f);
			if (x > acc[c])
				acc[c] = x;
			break;
		case TA_MIN:
			/* Only rows that have a value (a count) take part in a minimum. */
			if (col->f == TF_LAT_MIN && !top_model_field(b->m, src, row, TF_LAT_N))
				break;
			x = (double)top_model_field(b->m, src, row, col->f);
			if (x < acc[c])
				acc[c] = x;
			break;
		default:
			break;
		}
	}
}

static bool row_matches(const struct top_table *t, size_t row, const char *filter)
{
	char buf[128];

	if (!*filter)
		return true;
	for (size_t c = 0; c < t->ncols; c++) {
		top_cell_text(&t->cols[c], top_tcell(t, row, c), buf, sizeof(buf));
		if (strcasestr(buf, filter))
			return true;
	}
	return false;
}

struct sort_ctx {
	const struct top_table *t;
	int col;
	bool asc;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *x = arg;
	size_t ra = *(const size_t *)a, rb = *(const size_t *)b;
	const struct top_cell *ca = top_tcell(x->t, ra, x->col), *cb = top_tcell(x->t, rb, x->col);
	int r;

	if (ca->s || cb->s)
		r = strcmp(ca->s ? ca->s : "", cb->s ? cb->s : "");
	else
		r = ca->v < cb->v ? -1 : ca->v > cb->v;
	if (!r)	/* the same value: a stable order, by key */
		return x->t->keys[ra] < x->t->keys[rb] ? -1 : x->t->keys[ra] > x->t->keys[rb];
	return x->asc ? r : -r;
}

/* Sort t's rows by column col and drop those the filter does not match. */
static void sort_filter(struct top_table *t, int col, bool asc, const char *filter)
{
	size_t *order = xmalloc((t->nrows + 1) * sizeof(size_t)), n = 0;
	struct top_cell *cells;
	uint64_t *keys;

	for (size_t r = 0; r < t->nrows; r++)
		if (row_matches(t, r, filter))
			order[n++] = r;
		else
			for (size_t c = 0; c < t->ncols; c++)
				free(top_tcell(t, r, c)->s);
	if (col >= 0 && (size_t)col < t->ncols)
		qsort_r(order, n, sizeof(size_t), cmp_rows,
			&(struct sort_ctx){ t, col, asc });
	cells = xcalloc(n * t->ncols + 1, sizeof(*cells));
	keys = xcalloc(n + 1, sizeof(*keys));
	for (size_t i = 0; i < n; i++) {
		memcpy(&cells[i * t->ncols], top_tcell(t, order[i], 0), t->ncols * sizeof(*cells));
		keys[i] = t->keys[order[i]];
	}
	free(t->cells);
	free(t->keys);
	t->cells = cells;
	t->keys = keys;
	t->nrows = n;
	t->sort = col;
	t->sort_asc = asc;
	free(order);
}

/* The widest text of column c, between lo and hi ("[addr] sym" keys need 30). */
static int text_width(const struct top_table *t, size_t c, int lo, int hi)
{
	int w = lo;

	for (size_t i = 0; i < t->nrows; i++) {
		const char *s = top_tcell(t, i, c)->s;
		int n = s ? (int)strlen(s) : 0;

		if (n > w)
			w = n;
	}
	return w < hi ? w : hi;
}

/* The custom view: tr hist's table, its columns made ours. */
static int build_custom(struct top_model *m, struct top_table *t)
{
	struct hist_result r;
	int err = top_model_custom(m, &r);

	if (err)
		return err;
	t->own_cols = xcalloc(r.ncols + 1, sizeof(*t->own_cols));
	for (size_t c = 0; c < r.ncols; c++) {
		struct top_col *col = &t->own_cols[c];
		bool text = r.cols[c].key && r.cols[c].kind != HIST_K_NUM &&
			    r.cols[c].kind != HIST_K_HEX && r.cols[c].kind != HIST_K_RANGE;

		col->name = r.cols[c].name;
		col->json = r.cols[c].name;
		col->agg = r.cols[c].key ? TA_KEY : TA_SUM;
		col->unit = text ? TU_TEXT : r.cols[c].kind == HIST_K_PERCENT ? TU_PCT : TU_NUM;
		col->width = text ? -16 : (int)strlen(col->name) > 10 ? (int)strlen(col->name) : 10;
	}
	t->cols = t->own_cols;
	t->ncols = r.ncols;
	t->nrows = r.nrows;
	t->cells = xcalloc(r.nrows * r.ncols + 1, sizeof(*t->cells));
	t->keys = xcalloc(r.nrows + 1, sizeof(*t->keys));
	for (size_t i = 0; i < r.nrows; i++) {
		t->keys[i] = i;
		for (size_t c = 0; c < r.ncols; c++) {
			const struct hist_cell *hc = hist_cell(&r, i, c);
			struct top_cell *tc = top_tcell(t, i, c);

			tc->v = r.cols[c].kind == HIST_K_PERCENT ? hc->pct : (double)hc->num;
			if (t->own_cols[c].unit == TU_TEXT)
				tc->s = hist_cell_text(&r.cols[c], hc);
			else if (r.cols[c].kind == HIST_K_RANGE)
				tc->s = xasprintf("%llu-%llu", (unsigned long long)hc->num,
						  (unsigned long long)hc->num2);
			else if (r.cols[c].kind == HIST_K_HEX)
				tc->s = xasprintf("0x%llx", (unsigned long long)hc->num);
		}
	}
	/* The column names belong to r: keep them with the table. */
	for (size_t c = 0; c < r.ncols; c++) {
		t->own_cols[c].name = xstrdup(r.cols[c].name);
		t->own_cols[c].json = t->own_cols[c].name;
		if (t->own_cols[c].unit == TU_TEXT)
			t->own_cols[c].width = -text_width(t, c, 16, 48);
	}
	t->note = xasprintf("Hits: %llu  Entries: %llu  Dropped: %llu",
			    (unsigned long long)r.hits, (unsigned long long)r.entries,
			    (unsigned long long)r.dropped);
	t->sort = r.nkeys < r.ncols ? (int)r.nkeys : 0;
	hist_result_free(&r);
	return 0;
}

/* The column st sorts by: its index, its name, or -1 for the default. */
static int sort_col(const struct top_state *st, const struct top_table *t)
{
	if (st->sort >= 0 && (size_t)st->sort < t->ncols)
		return st->sort;
	for (size_t c = 0; st->sort_name && c < t->ncols; c++)
		if (!strcasecmp(st->sort_name, t->cols[c].name) ||
		    !strcasecmp(st->sort_name, t->cols[c].json))
			return (int)c;
	return -1;
}

int top_view_build(struct top_model *m, const struct top_state *st, const char *missing,
		   struct top_table *out)
{
	const struct top_view *v = st->view;
	struct build b = { .m = m, .v = v, .st = st, .cols = v->cols, .ncols = v->ncols };
	struct top_stats stats;
	double *total;
	int sort;
	bool asc;

	htab_init(&b.index, sizeof(struct group_slot), 256, HTAB_HASHED);
	memset(out, 0, sizeof(*out));
	out->view = v;
	out->missing = xstrdup(missing ? missing : "");
	top_model_stats(m, &stats);
	if (v->src == TS_CUSTOM) {
		int r = build_custom(m, out);

		if (r == -ENOENT) {
			out->unavailable = true;
			free(out->missing);
			out->missing = xstrdup("no histogram: give -e SYS:EVENT -k KEY [-v VAL]");
			return 0;
		}
		if (r)
			return r;
		sort = sort_col(st, out) >= 0 ? sort_col(st, out) : out->sort;
		asc = out->cols[sort].unit == TU_TEXT;
		sort_filter(out, sort, st->reverse ? !asc : asc, st->filter);
		return 0;
	}
	if (v->src == TS_LATENCY && top_model_lat_by_task(m)) {
		b.cols = lat_task_cols;
		b.ncols = ARRAY_SIZE(lat_task_cols);
	}
	out->cols = b.cols;
	out->ncols = b.ncols;
	top_model_rows(m, v->src, add_row, &b);
	total = xcalloc(b.ncols, sizeof(double));
	for (size_t g = 0; g < b.n; g++)
		for (size_t c = 0; c < b.ncols; c++)
			if (b.cols[c].agg == TA_SHARE)
				total[c] += b.accs[g * 2 * b.ncols + c];
	out->nrows = b.n;
	out->cells = xcalloc(b.n * b.ncols + 1, sizeof(*out->cells));
	out->keys = xcalloc(b.n + 1, sizeof(*out->keys));
	for (size_t g = 0; g < b.n; g++) {
		const double *acc = &b.accs[g * 2 * b.ncols], *acc2 = acc + b.ncols;
		uint64_t key = b.g[g].key;
		char text[128];

		out->keys[g] = key;
		for (size_t c = 0; c < b.ncols; c++) {
			const struct top_col *col = &b.cols[c];
			struct top_cell *cell = top_tcell(out, g, c);
			double ns = (double)stats.interval_ns;

			switch (col->agg) {
			case TA_KEY:
				top_model_text(m, v->group, key, text, sizeof(text));
				cell->s = xstrdup(text);
				cell->v = (double)(int64_t)key;
				break;
			case TA_KEYNUM:
				cell->v = (double)(int64_t)key;
				break;
			case TA_TEXT:
				top_model_text(m, col->f, key, text, sizeof(text));
				cell->s = xstrdup(text);
				break;
			case TA_SUM:
			case TA_MAX:
				cell->v = acc[c];
				break;
			case TA_MIN:
				cell->v = acc[c] == DBL_MAX ? 0 : acc[c];
				break;
			case TA_AVG:
				cell->v = acc2[c] ? acc[c] / acc2[c] : 0;
				break;
			case TA_RATE:
				cell->v = ns > 0 ? acc[c] * 1e9 / ns : 0;
				break;
			case TA_PCT:
				cell->v = ns > 0 ? acc[c] * 100 / ns : 0;
				if (cell->v > 100)
					cell->v = 100;
				break;
			case TA_SHARE:
				cell->v = total[c] > 0 ? acc[c] * 100 / total[c] : 0;
				break;
			}
		}
	}
	free(total);
	free(b.g);
	free(b.accs);
	htab_clear(&b.index);
	if (v->src == TS_LATENCY) {
		uint64_t tot[6];

		top_model_lat_hist(m, &out->hist);
		out->has_hist = true;
		top_model_lat_total(m, tot);
		out->note = xasprintf("all: count %llu", (unsigned long long)tot[0]);
		if (tot[0]) {
			char mn[16], av[16], p50[16], p99[16], mx[16];

			top_time_text((double)tot[1], mn, sizeof(mn));
			top_time_text((double)tot[2], av, sizeof(av));
			top_time_text((double)tot[3], p50, sizeof(p50));
			top_time_text((double)tot[4], p99, sizeof(p99));
			top_time_text((double)tot[5], mx, sizeof(mx));
			free(out->note);
			out->note = xasprintf("all: count %llu  min %s  avg %s  p50 %s  p99 %s  max %s",
					      (unsigned long long)tot[0], mn, av, p50, p99, mx);
		}
	}
	sort = sort_col(st, out) >= 0 ? sort_col(st, out) : v->sort;
	asc = v->sort_asc && sort == v->sort ? true : out->cols[sort].unit == TU_TEXT;
	sort_filter(out, sort, st->reverse ? !asc : asc, st->filter);
	return 0;
}

void top_table_free(struct top_table *t)
{
	for (size_t i = 0; t->cells && i < t->nrows * t->ncols; i++)
		free(t->cells[i].s);
	free(t->cells);
	free(t->keys);
	free(t->missing);
	free(t->note);
	if (t->own_cols)
		for (size_t c = 0; c < t->ncols; c++)
			free((char *)t->own_cols[c].name);
	free(t->own_cols);
	memset(t, 0, sizeof(*t));
}

/* ---- cells as text ---- */

void top_time_text(double ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

static void compact(double v, char *buf, size_t len)
{
	if (v < 1e4)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.1fG", v / 1e9);
}

void top_cell_text(const struct top_col *c, const struct top_cell *cell, char *buf, size_t len)
{
	int w = abs(c->width);

	if (cell->s) {
		snprintf(buf, len, "%s", cell->s);
		return;
	}
	switch (c->unit) {
	case TU_TIME:
		top_time_text(cell->v, buf, len);
		break;
	case TU_PCT:
		snprintf(buf, len, "%.1f", cell->v);
		break;
	case TU_RATE:
		if (cell->v < 100 && cell->v != floor(cell->v))
			snprintf(buf, len, "%.1f", cell->v);
		else
			compact(cell->v, buf, len);
		break;
	case TU_NUM:
		snprintf(buf, len, "%.0f", cell->v);
		if ((int)strlen(buf) > w)
			compact(cell->v, buf, len);
		break;
	case TU_TEXT:
		buf[0] = '\0';
		break;
	}
}

/* 2^b as bpftrace writes it: 512, 1K, 64K, 2M, 4G. */
static void pow2_text(int b, char *buf, size_t len)
{
	static const char units[] = " KMGTPE";

	snprintf(buf, len, "%llu%.*s", 1ULL << (b % 10), b >= 10, &units[b / 10]);
}

void top_hist_label(int b, char *buf, size_t len)
{
	char lo[16], hi[16];

	if (b)
		pow2_text(b, lo, sizeof(lo));
	else
		snprintf(lo, sizeof(lo), "0");
	pow2_text(b + 1, hi, sizeof(hi));
	snprintf(buf, len, "[%s, %s)", lo, hi);
}
