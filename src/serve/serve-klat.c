// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The default durations timed by the kernel (serve-local.h), so that with
 * hist triggers tr serve reads no records at all.  For each duration, in
 * tr serve's instance (P is tr's pid, t the path):
 *
 *   synthetic_events:  tr_NAME_P u64 lat; TYPE LABEL
 *   start trigger:     hist:keys=K:trsP_t=common_timestamp [if F]
 *   end trigger:       hist:keys=K:trlP_t=common_timestamp-$trsP_t:
 *                      onmatch(START).trace(tr_NAME_P,$trlP_t,LABEL)
 *   synthetic's:       hist:keys=LABEL,lat.log2:vals=lat
 *
 * A run-queue wait has three starts (a wakeup, a new task's wakeup, a
 * preemption), so three end triggers on sched_switch trace one synthetic
 * event.  Every trigger has clock=mono, the instance's clock: a hist
 * trigger with timestamps sets its own (global by default).
 *
 * The start and end tables of durations keyed by a task or a request
 * keep an entry for every one they saw, and a full table times nothing
 * new: now and then their entries are counted, and a table past half
 * full starts over (its end trigger, then its start, taken out and put
 * back), which leaves untimed only what was in flight then.  The kernel
 * cannot clear a trigger that defines variables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "serve-local.h"
#include "tfs.h"
#include "tr.h"

#define MAX_PATHS 3
/*
 * Entries of a table keyed by a task or request (the kernel allocates
 * them all), and seconds between counts of their entries; the tests make
 * them small (TR_SERVE_TASK_ENTRIES, TR_SERVE_RECYCLE_S) to see a table
 * start over.
 */
#define TASK_SIZE 8192
#define RECYCLE_S 30

struct kpath {
	const char *start;	/* "sys:event", or "a|b": the first the kernel has */
	const char *key, *filter;
	const char *end, *ekey;
};

struct kdur {
	enum serve_dur what;
	const char *name;
	const char *label;	/* the synthetic field, "cpu": the end's CPU */
	const char *decl;	/* its declaration (the end's field's type, as the kernel takes it) */
	bool hist;		/* log2 buckets, else a sum per label */
	bool per_task;		/* keyed by a task or a request: recycled */
	size_t size;		/* the synthetic histogram's entries */
	struct kpath path[MAX_PATHS];
};

static const struct kdur kdurs[] = {
	{ SERVE_DUR_RUNQ, "rq", "cpu", "unsigned int cpu", true, true, 2048,
	  { { "sched:sched_waking|sched:sched_wakeup", "pid", NULL, "sched:sched_switch",
	      "next_pid" },
	    { "sched:sched_wakeup_new", "pid", NULL, "sched:sched_switch", "next_pid" },
	    /* Preempted: its state's low byte is 0 (the high bits may say "preempted"). */
	    { "sched:sched_switch", "prev_pid", "!(prev_state & 255)", "sched:sched_switch",
	      "next_pid" } } },
	{ SERVE_DUR_SYSCALL, "sc", "id", "long id", true, true, 8192,
	  { { "raw_syscalls:sys_enter", "common_pid", NULL, "raw_syscalls:sys_exit",
	      "common_pid" } } },
	{ SERVE_DUR_IRQ, "irq", "irq", "int irq", false, false, 2048,
	  { { "irq:irq_handler_entry", "common_cpu", NULL, "irq:irq_handler_exit",
	      "common_cpu" } } },
	{ SERVE_DUR_SOFTIRQ, "si", "vec", "unsigned int vec", false, false, 256,
	  { { "irq:softirq_entry", "common_cpu", NULL, "irq:softirq_exit", "common_cpu" } } },
	/* dev_t, which synthetic events do not take: the kernel passes it as the u32 it is. */
	{ SERVE_DUR_BLOCK, "blk", "dev", "unsigned int dev", true, true, 2048,
	  { { "block:block_rq_issue", "dev,sector", NULL, "block:block_rq_complete",
	      "dev,sector" } } },
};
_Static_assert(ARRAY_SIZE(kdurs) == SERVE_DUR_N, "one duration each");

struct ktrig {
	char *sys, *ev, *text;	/* where, and what was written */
	char *var;		/* its variable: finds its section of the hist file */
};

struct kstate {
	bool on;
	char *synth;
	struct ktrig start[MAX_PATHS], end[MAX_PATHS];
	size_t npath;
};

struct seen {
	uint64_t tag;
	uint64_t n, sum;
};

struct serve_klat {
	struct tfs_inst *in;
	struct kstate d[SERVE_DUR_N];
	struct htab seen;
	time_t checked;
	unsigned task_size, recycle_s;
};

static unsigned env_num(const char *name, unsigned dflt, unsigned min, unsigned max)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return dflt;
	n = strtoul(v, &end, 10);
	return *end || n < min || n > max ? dflt : (unsigned)n;
}

static void trig_free(struct ktrig *t)
{
	free(t->sys), free(t->ev), free(t->text), free(t->var);
	memset(t, 0, sizeof(*t));
}

static char *trig_file(const struct ktrig *t)
{
	return xasprintf("events/%s/%s/trigger", t->sys, t->ev);
}

/* Write t's text (undone at tfs_restore() if undo). */
static int trig_add(struct tfs_inst *in, struct ktrig *t, bool undo)
{
	char *file = trig_file(t), *un = xasprintf("!%s", t->text);
	int r = undo ? tfs_append_undo(in, file, t->text, un) : tfs_write(in, file, t->text, true);

	free(un);
	free(file);
	return r;
}

static int trig_remove(struct tfs_inst *in, const struct ktrig *t)
{
	char *file = trig_file(t), *un = xasprintf("!%s", t->text);
	int r = tfs_write(in, file, un, true);

	free(un);
	free(file);
	return r;
}

static void split_event(const char *sysev, char **sys, char **ev)
{
	size_t n = strcspn(sysev, ":");

	*sys = xasprintf("%.*s", (int)n, sysev);
	*ev = xstrdup(sysev[n] ? sysev + n + 1 : "");
}

/* The first of "a|b" avail has, or NULL. */
static char *first_avail(const char *alts, const struct strv *avail)
{
	char *all = xstrdup(alts), *save = NULL, *found = NULL;

	for (char *a = strtok_r(all, "|", &save); a && !found; a = strtok_r(NULL, "|", &save))
		if (strv_contains(avail, a))
			found = xstrdup(a);
	free(all);
	return found;
}

/* The synthetic event, its histogram, and each path the kernel has. */
static int dur_add(struct serve_klat *k, const struct kdur *d, struct kstate *st,
		   const struct strv *avail)
{
	struct tfs_inst *in = k->in;
	int pid = (int)getpid();
	char *def, *undo, *file, *h;
	bool cpu = !strcmp(d->label, "cpu");
	int r;

	if (!strv_contains(avail, d->path[0].end))
		return -ENOENT;
	st->synth = xasprintf("tr_%s_%d", d->name, pid);
	def = xasprintf("%s u64 lat; %s", st->synth, d->decl);
	undo = xasprintf("!%s", st->synth);
	r = tfs_append_undo(tfs_top(), "synthetic_events", def, undo);
	free(def);
	free(undo);
	if (r)
		return r;
	/* Negative: a start stamped on a CPU whose clock was ahead. */
	h = xasprintf("hist:keys=%s%s:vals=lat:size=%zu if lat < 4611686018427387904", d->label,
		      d->hist ? ",lat.log2" : "", d->size);
	file = xasprintf("events/synthetic/%s/trigger", st->synth);
	undo = xasprintf("!%s", h);
	r = tfs_append_undo(in, file, h, undo);
	free(undo);
	free(file);
	free(h);
	for (size_t i = 0; !r && i < MAX_PATHS && d->path[i].start; i++) {
		const struct kpath *p = &d->path[i];
		char *start = first_avail(p->start, avail), *ssys, *sev;
		struct ktrig *s = &st->start[st->npath], *e = &st->end[st->npath];
		char size[24] = "";
		char *cvar;

		if (!start || !strv_contains(avail, p->end)) {
			free(start);
			continue;
		}
		if (d->per_task)
			snprintf(size, sizeof(size), ":size=%u", k->task_size);
		split_event(start, &ssys, &sev);
		s->sys = ssys, s->ev = sev;
		s->var = xasprintf("trs%d_%zu", pid, i);
		s->text = xasprintf("hist:keys=%s:%s=common_timestamp%s:clock=mono%s%s", p->key, s->var,
				    size, p->filter ? " if " : "", p->filter ? p->filter : "");
		split_event(p->end, &e->sys, &e->ev);
		e->var = xasprintf("trl%d_%zu", pid, i);
		cvar = cpu ? xasprintf("trc%d_%zu", pid, i) : NULL;
		e->text = xasprintf("hist:keys=%s:%s=common_timestamp-$%s%s%s%s%s:clock=mono:"
				    "onmatch(%s.%s).trace(%s,$%s,%s%s)",
				    p->ekey, e->var, s->var, cpu ? "," : "", cpu ? cvar : "",
				    cpu ? "=common_cpu" : "", size, ssys, sev, st->synth, e->var,
				    cpu ? "$" : "", cpu ? cvar : d->label);
		free(cvar);
		free(start);
		/* Undone newest first: the end goes before the start whose variable it reads. */
		r = trig_add(in, s, true);
		if (!r)
			r = trig_add(in, e, true);
		if (!r)
			st->npath++;
	}
	return r ? r : st->npath ? 0 : -ENOENT;
}

struct serve_klat *serve_klat_new(struct tfs_inst *in, const struct strv *avail)
{
	struct serve_klat *k = xcalloc(1, sizeof(*k));

	k->in = in;
	k->checked = time(NULL);
	k->task_size = env_num("TR_SERVE_TASK_ENTRIES", TASK_SIZE, 128, 1u << 17);
	k->recycle_s = env_num("TR_SERVE_RECYCLE_S", RECYCLE_S, 1, 3600);
	htab_init(&k->seen, sizeof(struct seen), 0, 0);
	for (size_t i = 0; i < SERVE_DUR_N; i++) {
		size_t mark = tfs_undo_mark();
		struct kstate *st = &k->d[kdurs[i].what];

		st->on = !dur_add(k, &kdurs[i], st, avail);
		if (st->on)
			continue;
		/* Refused (or absent): what was set of it comes down, and records time it. */
		tfs_restore_to(mark);
		tr_detail_clear();
		for (size_t j = 0; j < MAX_PATHS; j++)
			trig_free(&st->start[j]), trig_free(&st->end[j]);
		st->npath = 0;
	}
	return k;
}

unsigned serve_klat_durs(const struct serve_klat *k)
{
	unsigned m = 0;

	for (size_t i = 0; k && i < SERVE_DUR_N; i++)
		if (k->d[i].on)
			m |= 1u << i;
	return m;
}

/* Entries of t's section of its event's hist file (0 if not found). */
static uint64_t trig_entries(struct tfs_inst *in, const struct ktrig *t)
{
	char *text = NULL;
	size_t pos = 0;
	uint64_t n = 0;
	struct hist_result res;

	if (hist_kernel_read(in, t->sys, t->ev, &text))
		return 0;
	while (hist_output_parse(text, &pos, &res) == 1) {
		bool ours = res.trigger && strstr(res.trigger, t->var);

		if (ours)
			n = res.entries;
		hist_result_free(&res);
		if (ours)
			break;
	}
	free(text);
	return n;
}

/* A path whose start or end table is past half full starts over. */
static void recycle(struct serve_klat *k)
{
	for (size_t i = 0; i < SERVE_DUR_N; i++) {
		struct kstate *st = &k->d[i];

		if (!st->on || !kdurs[i].per_task)
			continue;
		for (size_t p = 0; p < st->npath; p++) {
			if (trig_entries(k->in, &st->start[p]) < k->task_size / 2 &&
			    trig_entries(k->in, &st->end[p]) < k->task_size / 2)
				continue;
			/* The undo lines stay: removing what is not there fails harmlessly. */
			if (!trig_remove(k->in, &st->end[p]) && !trig_remove(k->in, &st->start[p]) &&
			    !trig_add(k->in, &st->start[p], false))
				trig_add(k->in, &st->end[p], false);
		}
	}
}

void serve_klat_read(struct serve_klat *k, struct serve_klat_tables *t)
{
	time_t now = time(NULL);

	memset(t, 0, sizeof(*t));
	if (now - k->checked >= (time_t)k->recycle_s) {
		k->checked = now;
		recycle(k);
	}
	for (size_t i = 0; i < SERVE_DUR_N; i++) {
		char *text = NULL;
		size_t pos = 0;

		/* A table that cannot be read now counts at the next scrape. */
		if (k->d[i].on && !hist_kernel_read(k->in, "synthetic", k->d[i].synth, &text) &&
		    hist_output_parse(text, &pos, &t->res[i]) == 1)
			t->ok[i] = true;
		free(text);
	}
}

void serve_klat_set(struct serve_klat *k, struct serve_agg *a, const struct serve_klat_tables *t)
{
	for (size_t i = 0; i < SERVE_DUR_N; i++) {
		const struct hist_result *res = &t->res[i];
		size_t nk = kdurs[i].hist ? 2 : 1;

		/* Keys, then hitcount and lat. */
		if (!t->ok[i] || res->nkeys != nk || res->ncols < nk + 2)
			continue;
		for (size_t row = 0; row < res->nrows; row++) {
			int64_t key = (int64_t)hist_cell(res, row, 0)->num;
			unsigned exp = nk > 1 ? (unsigned)hist_cell(res, row, 1)->num2 : 0;
			uint64_t hits = hist_cell(res, row, nk)->num;
			uint64_t sum = hist_cell(res, row, nk + 1)->num;
			uint64_t id = ((uint64_t)i << 60) ^ ((uint64_t)(exp & 0x7f) << 52) ^
				      ((uint64_t)key & ((1ULL << 52) - 1));
			struct seen *sn;

			htab_reserve(&k->seen, 1);
			sn = htab_get(&k->seen, id, NULL);
			if (hits > sn->n && sum >= sn->sum)
				serve_agg_dur(a, kdurs[i].what, key, exp, hits - sn->n, sum - sn->sum);
			sn->n = hits;
			sn->sum = sum;
		}
	}
}

void serve_klat_tables_free(struct serve_klat_tables *t)
{
	for (size_t i = 0; i < SERVE_DUR_N; i++)
		hist_result_free(&t->res[i]);
}

void serve_klat_free(struct serve_klat *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < SERVE_DUR_N; i++) {
		for (size_t j = 0; j < MAX_PATHS; j++)
			trig_free(&k->d[i].start[j]), trig_free(&k->d[i].end[j]);
		free(k->d[i].synth);
	}
	htab_clear(&k->seen);
	free(k);
}
