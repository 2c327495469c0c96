// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The top model: typed records in, tables out (see top.h).
 *
 * Tables are hash.h's keyed tables of fixed-size entries stored in place
 * (no allocation per record).  Entries move when a map grows, so a
 * caller that needs two entries at once reserves room first.
 *
 * Records reach the model in the order each CPU's reader hands them over:
 * in time order within a CPU, but a CPU whose reader is behind delivers
 * late.  Everything per CPU (run time from sched_switch intervals, irq
 * entry/exit) is therefore exact; what pairs records across CPUs (a wakeup
 * on one CPU, the switch-in on another; a syscall that migrated) goes
 * through struct pair, which also pairs an end that arrived before its
 * start.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hist.h"
#include "pair.h"
#include "tfile.h"
#include "top-local.h"

#define GONE_TICKS 3		/* intervals an exited task stays shown */
#define MAX_LAT_KEYS 1024	/* per-task latency rows; the rest go to one "other" row */
#define MAX_PENDING 65536	/* pending latency starts before they are forgotten */
#define MAX_SYSCALL 4096
#define TOP_MODEL_MAX_CPUS 65536	/* as the trace file reader's limit */
#define LAT_SUB 8		/* sub-buckets per power of two */
#define LAT_BUCKETS (62 * LAT_SUB)
#define PID_DEAD (-1)		/* where exited tasks' rows are folded */
#define PID_DEAD_MEMBER (-2)	/* the same for tasks -P selected */
#define PID_OTHER (-3)		/* syscall and event rows past MAX_ROWS */
#define MAX_ROWS 32768		/* per-task syscall rows, and per-task event rows */
#define LAT_KEY_MASK (~(1ULL << 63))	/* a key never makes a map key of ~0 */
#define LAT_OTHER (1ULL << 63)

/* ---- the tables ---- */

struct task {
	uint64_t hkey;
	int pid, tgid;
	char comm[TOP_COMM_LEN];
	bool exited, member, hidden, named;
	uint8_t gone;		/* intervals since it exited */
	uint32_t vcsw, icsw, wakeups, migr;
	uint32_t rq_n;
	int32_t sc_nr, sc_orphan_nr;
	uint64_t run, run_prev;
	int64_t run_d;
	uint64_t rq_sum, rq_max;
	struct pair rq;		/* runnable (woken or preempted) until switched in */
	struct pair sc;		/* in a syscall */
};

/*
 * A task's syscall (or event) row: the key holds the pid and the number,
 * so the rows stay small: there is one per task and syscall it made.
 */
struct sc {
	uint64_t hkey;
	uint64_t count, count_prev, time, time_max;
	uint32_t count_d, err, time_n;
};

struct evt {
	uint64_t hkey;
	uint64_t count, count_prev;
	uint32_t count_d;
};

static inline int row_pid(uint64_t hkey)
{
	return (int)(int32_t)((hkey - 1) >> 32);
}

static inline int32_t row_num(uint64_t hkey)
{
	return (int32_t)(uint32_t)(hkey - 1);
}

static inline uint64_t row_key(int pid, int32_t num)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)num;
}

struct irq {
	uint64_t hkey;
	uint64_t key;		/* softirq << 32 | number */
	char name[24];
	uint64_t count, count_prev, count_d, time, time_n, time_max;
};

struct lat {
	uint64_t hkey;
	uint64_t key;		/* a CPU or a match value (LAT_OTHER: the rest) */
	uint64_t n, sum, min, max;
	uint32_t b[LAT_BUCKETS];
};

struct lpend {
	uint64_t hkey;
	struct pair p;
};

struct cpu {
	int cur;		/* the running pid, -1 before the first switch */
	uint64_t since;		/* cur's time is charged up to here */
	uint64_t busy, busy_prev;
	int64_t busy_d;
	uint64_t sw, irq_n, irq_t, sirq_n, sirq_t, events, events_prev, events_d;
	uint64_t irq_start, sirq_start;
	long irq_nr, sirq_vec;
	/* The last task looked up by this CPU's records (most come in runs). */
	struct task *tc;
	unsigned tc_gen;
};

struct top_model {
	struct top_model_opts o;
	pid_t *pids, *hidden;
	struct htab tasks, scs, evts, irqs, lats_cpu, lats_key, pend;
	struct cpu *cpus;
	int ncpus;
	struct lat lat_all;
	uint64_t events, lost, events_prev, lost_prev, events_d, lost_d;
	uint64_t last_tick, interval;
	char **sc_names;
	struct hist_user *custom;
	struct tep_handle *custom_tep;
	const struct hist_spec *custom_spec;
	bool custom_live;
	uint64_t ticks;
};

static const char *const softirq_names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

static bool in_list(const pid_t *v, size_t n, int pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

struct top_model *top_model_new(const struct top_model_opts *o)
{
	struct top_model *m = xcalloc(1, sizeof(*m));

	m->o = *o;
	m->ncpus = o->ncpus > 0 && o->ncpus <= TOP_MODEL_MAX_CPUS ? o->ncpus : 1;
	m->cpus = xcalloc(m->ncpus, sizeof(*m->cpus));
	for (int i = 0; i < m->ncpus; i++) {
		m->cpus[i].cur = -1;
		m->cpus[i].since = o->start_ts;
	}
	if (o->npids) {
		m->pids = xcalloc(o->npids, sizeof(pid_t));
		memcpy(m->pids, o->pids, o->npids * sizeof(pid_t));
	}
	if (o->nhidden) {
		m->hidden = xcalloc(o->nhidden, sizeof(pid_t));
		memcpy(m->hidden, o->hidden, o->nhidden * sizeof(pid_t));
	}
	m->o.pids = m->pids;
	m->o.hidden = m->hidden;
	htab_init(&m->tasks, sizeof(struct task), 64, 0);
	htab_init(&m->scs, sizeof(struct sc), 64, 0);
	htab_init(&m->evts, sizeof(struct evt), 64, 0);
	htab_init(&m->irqs, sizeof(struct irq), 64, 0);
	htab_init(&m->lats_cpu, sizeof(struct lat), 64, 0);
	htab_init(&m->lats_key, sizeof(struct lat), 64, 0);
	htab_init(&m->pend, sizeof(struct lpend), 64, 0);
	m->last_tick = o->start_ts;
	return m;
}

int top_model_set_custom(struct top_model *m, struct tep_handle *tep, const struct hist_spec *s,
			 bool live)
{
	struct hist_user *u = NULL;
	int r = hist_user_new(tep, s, &u);

	if (r)
		return r;
	if (live)
		hist_user_proc_comm(u);
	hist_user_free(m->custom);
	m->custom = u;
	m->custom_tep = tep;
	m->custom_spec = s;
	m->custom_live = live;
	return 0;
}

static void task_init(struct top_model *m, struct task *t, int pid)
{
	t->pid = pid;
	t->tgid = -1;
	t->hidden = in_list(m->o.hidden, m->o.nhidden, pid);
	t->member = !m->o.npids;
	if (!t->member) {
		t->member = in_list(m->o.pids, m->o.npids, pid);
		if (!t->member && m->o.tgid_of) {
			t->tgid = m->o.tgid_of(m->o.tgid_arg, pid);
			t->member = t->tgid > 0 && in_list(m->o.pids, m->o.npids, t->tgid);
		}
	}
	if (pid == 0)
		strcpy(t->comm, "<idle>");
}

static struct task *task_get(struct top_model *m, int pid)
{
	bool fresh;
	struct task *t = htab_get(&m->tasks, (uint32_t)pid, &fresh);

	if (fresh)
		task_init(m, t, pid);
	return t;
}

/* The task of a CPU's record, through the CPU's one-entry cache. */
static struct task *task_cpu(struct top_model *m, struct cpu *c, int pid)
{
	if (c->tc && c->tc_gen == m->tasks.gen && c->tc->pid == pid)
		return c->tc;
	c->tc = task_get(m, pid);
	c->tc_gen = m->tasks.gen;
	return c->tc;
}

static void set_comm(struct task *t, const struct top_str *s)
{
	size_t n = 0;

	if (!s->s || !s->len)
		return;
	while (n < s->len && n < TOP_COMM_LEN - 1 && s->s[n])
		n++;
	if (!n)
		return;
	memcpy(t->comm, s->s, n);
	t->comm[n] = '\0';
	t->named = true;
}

/*
 * CPU cpu's slot, growing the table to it.  The readers keep CPU numbers
 * below TFILE's limit of 65536; one beyond it (or negative) is charged to
 * CPU 0 rather than sizing the table by it.
 */
static struct cpu *cpu_get(struct top_model *m, int cpu)
{
	if (cpu < 0 || cpu >= TOP_MODEL_MAX_CPUS)
		cpu = 0;
	if (cpu >= m->ncpus) {
		m->cpus = xrealloc(m->cpus, ((size_t)cpu + 1) * sizeof(*m->cpus));
		for (int i = m->ncpus; i <= cpu; i++)
			m->cpus[i] = (struct cpu){ .cur = -1, .since = m->o.start_ts };
		m->ncpus = cpu + 1;
	}
	return &m->cpus[cpu];
}

/*
 * Charge the time since c->since to task t, which ran on c until ts.  When a
 * tick charged it up to a "now" beyond ts (this CPU's records came late),
 * take the excess back.
 */
static void charge(struct cpu *c, struct task *t, uint64_t ts)
{
	if (ts >= c->since) {
		uint64_t d = ts - c->since;

		t->run += d;
		if (t->pid)
			c->busy += d;
	} else {
		uint64_t d = c->since - ts;

		t->run -= d < t->run ? d : t->run;
		if (t->pid)
			c->busy -= d < c->busy ? d : c->busy;
	}
	c->since = ts;
}

static void lat_add(struct lat *l, uint64_t v)
{
	unsigned b;

	if (!l->n || v < l->min)
		l->min = v;
	if (v > l->max)
		l->max = v;
	l->n++;
	l->sum += v;
	if (v < LAT_SUB) {
		b = v;
	} else {
		int e = 63 - __builtin_clzll(v);

		b = (e - 2) * LAT_SUB + ((v >> (e - 3)) & (LAT_SUB - 1));
	}
	if (b >= LAT_BUCKETS)
		b = LAT_BUCKETS - 1;
	l->b[b]++;
}

/* The lowest and the highest value bucket b holds. */
static uint64_t lat_bucket_low(unsigned b)
{
	if (b < LAT_SUB)
		return b;
	return ((uint64_t)LAT_SUB + b % LAT_SUB) << (b / LAT_SUB - 1);
}

static uint64_t lat_bucket_high(unsigned b)
{
	return b + 1 < LAT_BUCKETS ? lat_bucket_low(b + 1) - 1 : UINT64_MAX;
}

/* The p-th percentile: the highest value of the bucket holding it, within [min, max]. */
static uint64_t lat_pct(const struct lat *l, unsigned p)
{
	uint64_t rank, seen = 0, v;

	if (!l->n)
		return 0;
	rank = (l->n * p + 99) / 100;
	if (!rank)
		rank = 1;
	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		seen += l->b[b];
		if (seen >= rank) {
			v = lat_bucket_high(b);
			return v < l->min ? l->min : v > l->max ? l->max : v;
		}
	}
	return l->max;
}

static void lat_record(struct top_model *m, int cpu, uint64_t key, uint64_t v)
{
	struct lat *l;

	key &= LAT_KEY_MASK;
	lat_add(&m->lat_all, v);
	l = htab_get(&m->lats_cpu, (uint32_t)cpu, NULL);
	l->key = (uint32_t)cpu;
	lat_add(l, v);
	if (m->lats_key.n >= MAX_LAT_KEYS && !htab_find(&m->lats_key, key))
		key = LAT_OTHER;
	l = htab_get(&m->lats_key, key, NULL);
	l->key = key;
	lat_add(l, v);
}

static void lat_feed(struct top_model *m, const struct top_rec *r)
{
	struct lpend *p;
	uint64_t v;
	int cpu;

	if (m->pend.n >= MAX_PENDING)
		htab_clear(&m->pend);
	/* End first: a record that is both (switch to switch) ends one pair and starts the next. */
	if (r->lat_end) {
		p = htab_get(&m->pend, r->lat_ekey & LAT_KEY_MASK, NULL);
		if (pair_end(&p->p, r->ts, r->cpu, &v))
			lat_record(m, r->cpu, r->lat_ekey, v);
	}
	if (r->lat_start) {
		p = htab_get(&m->pend, r->lat_skey & LAT_KEY_MASK, NULL);
		if (pair_start(&p->p, r->ts, &v, &cpu))
			lat_record(m, cpu, r->lat_skey, v);
	}
}

/*
 * The row of a task's syscall.  Past MAX_ROWS rows, new pairs of task and
 * syscall share one row per syscall (PID_OTHER): the totals stay right and
 * memory stays bounded however many tasks come.
 */
static struct sc *sc_get(struct top_model *m, int pid, long nr)
{
	uint64_t key = row_key(pid, (int32_t)nr);

	if (m->scs.n >= MAX_ROWS && !htab_find(&m->scs, key))
		key = row_key(PID_OTHER, (int32_t)nr);
	return htab_get(&m->scs, key, NULL);
}

static void sc_time(struct sc *s, uint64_t d)
{
	s->time += d;
	s->time_n++;
	if (d > s->time_max)
		s->time_max = d;
}

static struct irq *irq_get(struct top_model *m, bool soft, long nr)
{
	uint64_t key = (uint64_t)soft << 32 | (uint32_t)nr;
	bool fresh;
	struct irq *q = htab_get(&m->irqs, key, &fresh);

	if (fresh) {
		q->key = key;
		if (soft && nr >= 0 && nr < (long)ARRAY_SIZE(softirq_names))
			snprintf(q->name, sizeof(q->name), "%s", softirq_names[nr]);
		else if (soft)
			snprintf(q->name, sizeof(q->name), "vec %ld", nr);
	}
	return q;
}

static void irq_time(struct irq *q, uint64_t d)
{
	q->time += d;
	q->time_n++;
	if (d > q->time_max)
		q->time_max = d;
}

static void rq_add(struct task *t, uint64_t lat)
{
	t->rq_sum += lat;
	t->rq_n++;
	if (lat > t->rq_max)
		t->rq_max = lat;
}

static void on_switch(struct top_model *m, struct cpu *c, const struct top_rec *r)
{
	struct task *prev, *next;
	uint64_t lat;

	htab_reserve(&m->tasks, 2);
	prev = task_get(m, r->tpid);
	next = task_get(m, r->tpid2);
	c->sw++;
	set_comm(prev, &r->str);
	set_comm(next, &r->str2);
	charge(c, prev, r->ts);
	if (prev->pid) {
		int cpu;

		/* The state's low byte: 0 is TASK_RUNNING (preempted), anything else is a sleep. */
		if (r->num & 0xff) {
			prev->vcsw++;
			pair_cancel(&prev->rq, r->ts);
		} else {
			prev->icsw++;
			/* Runnable from here; its switch-in may have been read first. */
			if (pair_start(&prev->rq, r->ts, &lat, &cpu))
				rq_add(prev, lat);
		}
	}
	if (next->pid && pair_end(&next->rq, r->ts, r->cpu, &lat))
		rq_add(next, lat);
	c->cur = r->tpid2;
}

static void on_wake(struct top_model *m, const struct top_rec *r)
{
	struct task *t = task_get(m, r->tpid);
	uint64_t lat;
	int cpu;

	set_comm(t, &r->str);
	t->wakeups++;
	if (pair_start(&t->rq, r->ts, &lat, &cpu))
		rq_add(t, lat);
}

static void on_sys_enter(struct top_model *m, struct task *t, const struct top_rec *r)
{
	uint64_t d;
	int cpu;

	if (t->sc.orphan && t->sc_orphan_nr != r->num)
		t->sc.orphan = 0;
	if (pair_start(&t->sc, r->ts, &d, &cpu)) {
		/* Its exit was read first, from the CPU it migrated to. */
		sc_time(sc_get(m, t->pid, r->num), d);
		return;
	}
	t->sc.start = r->ts;
	t->sc_nr = r->num;
}

static void on_sys_exit(struct top_model *m, struct task *t, const struct top_rec *r)
{
	uint64_t d;
	struct sc *s;

	htab_reserve(&m->scs, 1);
	s = sc_get(m, t->pid, r->num);
	s->count++;
	/* -1 .. -4095 are errors (-MAX_ERRNO); larger negative values are addresses. */
	if (r->num2 < 0 && r->num2 >= -4095)
		s->err++;
	if (t->sc.start && t->sc_nr != r->num)
		t->sc.start = 0;
	if (pair_end(&t->sc, r->ts, r->cpu, &d))
		sc_time(s, d);
	else
		t->sc_orphan_nr = r->num;
}

void top_model_feed(struct top_model *m, const struct top_rec *r, const struct tfile_event *ev)
{
	struct cpu *c = cpu_get(m, r->cpu);
	struct task *t, *o;
	struct evt *e;
	struct irq *q;
	uint64_t key;

	m->events++;
	c->events++;
	/*
	 * A record's common_pid is the task running on its CPU at its time.
	 * When that is not the task the last switch put there, a switch was
	 * not seen (some kernels do not trace every switch out of the idle
	 * task): charge the gap to the task we saw, and take this one as
	 * running from here.  Charging it to the next switch's prev instead
	 * would bill an idle CPU's whole idle time to whatever woke on it.
	 */
	if (c->cur != r->pid) {
		htab_reserve(&m->tasks, 1);
		charge(c, task_get(m, c->cur >= 0 ? c->cur : r->pid), r->ts);
		c->cur = r->pid;
	}
	htab_reserve(&m->evts, 1);
	t = task_cpu(m, c, r->pid);
	/*
	 * A task that emits a record is running: if it is still waiting for
	 * the switch-in of a wakeup, that switch-in was lost (or the wakeup was
	 * one of tr's own, filtered out): forget it rather than pair it with a
	 * later one.  Its own CPU's records come in order, so a switch-in there
	 * would have been read by now.
	 */
	if (t->rq.start && t->rq.start < r->ts && r->pid)
		t->rq.start = 0;
	key = row_key(r->pid, r->id);
	if (m->evts.n >= MAX_ROWS && !htab_find(&m->evts, key))
		key = row_key(PID_OTHER, r->id);
	e = htab_get(&m->evts, key, NULL);
	e->count++;

	switch (r->kind) {
	case TOP_EV_SWITCH:
		on_switch(m, c, r);
		break;
	case TOP_EV_WAKING:
	case TOP_EV_WAKEUP_NEW:
		on_wake(m, r);
		break;
	case TOP_EV_MIGRATE:
		o = task_get(m, r->tpid);
		set_comm(o, &r->str);
		o->migr++;
		break;
	case TOP_EV_EXIT:
		o = task_get(m, r->tpid);
		set_comm(o, &r->str);
		o->exited = true;
		break;
	case TOP_EV_FORK:
		htab_reserve(&m->tasks, 2);
		t = task_get(m, r->tpid);
		o = task_get(m, r->tpid2);
		set_comm(o, &r->str2);
		o->exited = false;
		o->gone = 0;
		if (m->o.children && t->member)
			o->member = true;
		break;
	case TOP_EV_RENAME:
		set_comm(task_get(m, r->tpid), &r->str);
		break;
	case TOP_EV_SYS_ENTER:
		on_sys_enter(m, t, r);
		break;
	case TOP_EV_SYS_EXIT:
		on_sys_exit(m, t, r);
		break;
	case TOP_EV_IRQ_ENTRY:
		c->irq_start = r->ts;
		c->irq_nr = r->num;
		q = irq_get(m, false, r->num);
		if (r->str.s && r->str.len) {
			unsigned n = r->str.len < sizeof(q->name) - 1 ? r->str.len : sizeof(q->name) - 1;

			memcpy(q->name, r->str.s, n);
			q->name[n] = '\0';
		}
		break;
	case TOP_EV_IRQ_EXIT:
		q = irq_get(m, false, r->num);
		q->count++;
		c->irq_n++;
		if (c->irq_start && c->irq_nr == r->num && r->ts >= c->irq_start) {
			irq_time(q, r->ts - c->irq_start);
			c->irq_t += r->ts - c->irq_start;
		}
		c->irq_start = 0;
		break;
	case TOP_EV_SOFTIRQ_ENTRY:
		c->sirq_start = r->ts;
		c->sirq_vec = r->num;
		break;
	case TOP_EV_SOFTIRQ_EXIT:
		q = irq_get(m, true, r->num);
		q->count++;
		c->sirq_n++;
		if (c->sirq_start && c->sirq_vec == r->num && r->ts >= c->sirq_start) {
			irq_time(q, r->ts - c->sirq_start);
			c->sirq_t += r->ts - c->sirq_start;
		}
		c->sirq_start = 0;
		break;
	default:
		break;
	}
	if (r->sc_name && r->num >= 0 && r->num < MAX_SYSCALL &&
	    (!m->sc_names || !m->sc_names[r->num]))
		top_model_syscall_name(m, r->num, r->sc_name);
	if (r->lat_start || r->lat_end)
		lat_feed(m, r);
	if (m->custom && ev)
		hist_user_event(m->custom, ev);
}

void top_model_lost(struct top_model *m, int cpu, int64_t n)
{
	(void)cpu;
	m->lost += n > 0 ? (uint64_t)n : 1;
	if (m->custom)
		hist_user_lost(m->custom, n > 0 ? (uint64_t)n : 1);
}

static void cmdline_comm(void *arg, int pid, const char *comm, size_t len)
{
	struct top_model *m = arg;
	struct task *t = htab_find(&m->tasks, (uint32_t)pid);

	if (t && !t->named)
		set_comm(t, &(struct top_str){ comm, len });
}

/* Line by line within each line: sscanf's %d would skip empty lines and rescan them. */
void top_model_cmdlines(struct top_model *m, const char *text)
{
	tfile_cmdlines_each(text, cmdline_comm, m);
}

void top_model_syscall_name(struct top_model *m, long nr, const char *name)
{
	if (nr < 0 || nr >= MAX_SYSCALL)
		return;
	if (!m->sc_names)
		m->sc_names = xcalloc(MAX_SYSCALL, sizeof(char *));
	free(m->sc_names[nr]);
	m->sc_names[nr] = xstrdup(name);
}

static bool leaving(const struct top_model *m, int pid)
{
	const struct task *t = htab_find(&m->tasks, (uint32_t)pid);

	return t && t->gone > GONE_TICKS;
}

static int dead_pid(const struct top_model *m, int pid)
{
	const struct task *t = htab_find(&m->tasks, (uint32_t)pid);

	return t->member && m->o.npids ? PID_DEAD_MEMBER : PID_DEAD;
}

/*
 * Forget the tasks that exited a few intervals ago.  Their syscall and
 * event rows are folded into one row per syscall and event (pid
 * PID_DEAD), so the views' totals stay.  The survivors are copied first:
 * the folded rows add to an existing PID_DEAD row, never the other way.
 */
static void evict(struct top_model *m)
{
	struct htab old;
	bool any = false;

	HTAB_EACH(&m->tasks, struct task, t)
		any |= t->gone > GONE_TICKS;
	if (!any)
		return;
	old = m->scs;
	htab_init(&m->scs, old.esize, 64, 0);
	HTAB_EACH(&old, struct sc, s)
		if (!leaving(m, row_pid(s->hkey)))
			*(struct sc *)htab_get(&m->scs, s->hkey - 1, NULL) = *s;
	HTAB_EACH(&old, struct sc, s) {
		struct sc *d;

		if (!leaving(m, row_pid(s->hkey)))
			continue;
		d = htab_get(&m->scs, row_key(dead_pid(m, row_pid(s->hkey)), row_num(s->hkey)), NULL);
		d->count += s->count;
		d->count_prev += s->count_prev;
		d->count_d += s->count_d;
		d->err += s->err;
		d->time += s->time;
		d->time_n += s->time_n;
		if (s->time_max > d->time_max)
			d->time_max = s->time_max;
	}
	free(old.v);
	old = m->evts;
	htab_init(&m->evts, old.esize, 64, 0);
	HTAB_EACH(&old, struct evt, e)
		if (!leaving(m, row_pid(e->hkey)))
			*(struct evt *)htab_get(&m->evts, e->hkey - 1, NULL) = *e;
	HTAB_EACH(&old, struct evt, e) {
		struct evt *d;

		if (!leaving(m, row_pid(e->hkey)))
			continue;
		d = htab_get(&m->evts, row_key(dead_pid(m, row_pid(e->hkey)), row_num(e->hkey)),
			     NULL);
		d->count += e->count;
		d->count_prev += e->count_prev;
		d->count_d += e->count_d;
	}
	free(old.v);
	old = m->tasks;
	htab_init(&m->tasks, old.esize, 64, 0);
	HTAB_EACH(&old, struct task, t)
		if (t->gone <= GONE_TICKS)
			*(struct task *)htab_get(&m->tasks, t->hkey - 1, NULL) = *t;
	free(old.v);
	for (int i = 0; i < m->ncpus; i++)
		m->cpus[i].tc = NULL;
}

void top_model_start(struct top_model *m, uint64_t ts)
{
	if (m->events)
		return;
	for (int i = 0; i < m->ncpus; i++)
		if (m->cpus[i].cur < 0)
			m->cpus[i].since = ts;
	m->o.start_ts = ts;
	m->last_tick = ts;
}

void top_model_tick(struct top_model *m, uint64_t now)
{
	/* Tasks that ran through the whole interval have no switch to charge them: do it here. */
	htab_reserve(&m->tasks, m->ncpus);
	for (int i = 0; i < m->ncpus; i++) {
		struct cpu *c = &m->cpus[i];

		if (c->cur >= 0 && now > c->since)
			charge(c, task_get(m, c->cur), now);
		c->busy_d = (int64_t)(c->busy - c->busy_prev);
		c->busy_prev = c->busy;
		c->events_d = c->events - c->events_prev;
		c->events_prev = c->events;
	}
	HTAB_EACH(&m->tasks, struct task, t) {
		t->run_d = (int64_t)(t->run - t->run_prev);
		t->run_prev = t->run;
		if (t->exited)
			t->gone++;
	}
	HTAB_EACH(&m->scs, struct sc, s) {
		s->count_d = (uint32_t)(s->count - s->count_prev);
		s->count_prev = s->count;
	}
	HTAB_EACH(&m->evts, struct evt, e) {
		e->count_d = (uint32_t)(e->count - e->count_prev);
		e->count_prev = e->count;
	}
	HTAB_EACH(&m->irqs, struct irq, q) {
		q->count_d = q->count - q->count_prev;
		q->count_prev = q->count;
	}
	m->events_d = m->events - m->events_prev;
	m->events_prev = m->events;
	m->lost_d = m->lost - m->lost_prev;
	m->lost_prev = m->lost;
	m->interval = now > m->last_tick ? now - m->last_tick : 0;
	m->last_tick = now;
	m->ticks++;
	evict(m);
}

void top_model_zero(struct top_model *m)
{
	HTAB_EACH(&m->tasks, struct task, t) {
		t->run = t->run_prev = 0;
		t->run_d = 0;
		t->vcsw = t->icsw = t->wakeups = t->migr = 0;
		t->rq_sum = t->rq_n = t->rq_max = 0;
	}
	HTAB_EACH(&m->scs, struct sc, s) {
		uint64_t hkey = s->hkey;

		*s = (struct sc){ .hkey = hkey };
	}
	HTAB_EACH(&m->evts, struct evt, e)
		e->count = e->count_prev = e->count_d = 0;
	HTAB_EACH(&m->irqs, struct irq, q)
		q->count = q->count_prev = q->count_d = q->time = q->time_n = q->time_max = 0;
	for (int i = 0; i < m->ncpus; i++) {
		struct cpu *c = &m->cpus[i];

		c->busy = c->busy_prev = 0;
		c->busy_d = 0;
		c->sw = c->irq_n = c->irq_t = c->sirq_n = c->sirq_t = 0;
		c->events = c->events_prev = c->events_d = 0;
	}
	htab_clear(&m->lats_cpu);
	htab_clear(&m->lats_key);
	memset(&m->lat_all, 0, sizeof(m->lat_all));
	m->events = m->lost = m->events_prev = m->lost_prev = m->events_d = m->lost_d = 0;
	/* A fresh aggregator for the same spec: the engine has no reset of its own. */
	if (m->custom)
		top_model_set_custom(m, m->custom_tep, m->custom_spec, m->custom_live);
}

void top_model_free(struct top_model *m)
{
	if (!m)
		return;
	htab_clear(&m->tasks);
	htab_clear(&m->scs);
	htab_clear(&m->evts);
	htab_clear(&m->irqs);
	htab_clear(&m->lats_cpu);
	htab_clear(&m->lats_key);
	htab_clear(&m->pend);
	for (int i = 0; m->sc_names && i < MAX_SYSCALL; i++)
		free(m->sc_names[i]);
	free(m->sc_names);
	hist_user_free(m->custom);
	free(m->cpus);
	free(m->pids);
	free(m->hidden);
	free(m);
}

void top_model_stats(const struct top_model *m, struct top_stats *s)
{
	*s = (struct top_stats){ .events = m->events, .lost = m->lost, .events_d = m->events_d,
				 .lost_d = m->lost_d, .interval_ns = m->interval,
				 .now = m->last_tick, .tasks = m->tasks.n, .ncpus = m->ncpus };
}

const char *top_model_comm(const struct top_model *m, int pid)
{
	const struct task *t;

	if (pid == 0)
		return "<idle>";
	if (pid == PID_DEAD || pid == PID_DEAD_MEMBER)
		return "<exited>";
	if (pid == PID_OTHER)
		return "<other>";
	t = htab_find(&m->tasks, (uint32_t)pid);
	return t ? t->comm : "";
}

/* ---- rows for the view engine ---- */

/* Does a syscall or event row of pid show (not tr's own, a -P member)? */
static bool row_shown(const struct top_model *m, int pid)
{
	const struct task *t = htab_find(&m->tasks, (uint32_t)pid);

	if (t)
		return !t->hidden && t->member;
	return pid == PID_DEAD_MEMBER || !m->o.npids;
}

void top_model_rows(struct top_model *m, enum top_src src, void (*fn)(void *arg, const void *row),
		    void *arg)
{
	switch (src) {
	case TS_TASKS:
		HTAB_EACH(&m->tasks, struct task, t)
			if (t->pid > 0 && !t->hidden && t->member)
				fn(arg, t);
		break;
	case TS_SYSCALLS:
		HTAB_EACH(&m->scs, struct sc, s)
			if (row_shown(m, row_pid(s->hkey)))
				fn(arg, s);
		break;
	case TS_EVENTS:
		HTAB_EACH(&m->evts, struct evt, e)
			if (row_shown(m, row_pid(e->hkey)))
				fn(arg, e);
		break;
	case TS_CPUS:
		for (int i = 0; i < m->ncpus; i++)
			fn(arg, &m->cpus[i]);
		break;
	case TS_IRQS:
		HTAB_EACH(&m->irqs, struct irq, q)
			fn(arg, q);
		break;
	case TS_LATENCY:
		if (m->o.lat_by_task) {
			HTAB_EACH(&m->lats_key, struct lat, l) {
				const struct task *t = htab_find(&m->tasks, (uint32_t)l->key);

				if (!t || (!t->hidden && t->member))
					fn(arg, l);
			}
		} else {
			HTAB_EACH(&m->lats_cpu, struct lat, l)
				fn(arg, l);
		}
		break;
	case TS_CUSTOM:
		break;
	}
}

static uint64_t task_field(const struct top_model *m, const struct task *t, enum top_field f)
{
	(void)m;
	switch (f) {
	case TF_PID: return (uint64_t)(int64_t)t->pid;
	case TF_STATE: return t->exited;
	case TF_RUN: return t->run;
	case TF_RUN_D: return t->run_d > 0 ? (uint64_t)t->run_d : 0;
	case TF_VCSW: return t->vcsw;
	case TF_ICSW: return t->icsw;
	case TF_WAKE: return t->wakeups;
	case TF_RQ_SUM: return t->rq_sum;
	case TF_RQ_N: return t->rq_n;
	case TF_RQ_MAX: return t->rq_max;
	case TF_MIGR: return t->migr;
	default: return 0;
	}
}

static uint64_t cpu_field(const struct top_model *m, const struct cpu *c, enum top_field f)
{
	switch (f) {
	case TF_CPU: return (uint64_t)(c - m->cpus);
	case TF_BUSY_D: return c->busy_d > 0 ? (uint64_t)c->busy_d : 0;
	case TF_SW: return c->sw;
	case TF_IRQ_N: return c->irq_n;
	case TF_IRQ_T: return c->irq_t;
	case TF_SIRQ_N: return c->sirq_n;
	case TF_SIRQ_T: return c->sirq_t;
	case TF_EV_D: return c->events_d;
	case TF_COUNT: return c->events;
	default: return 0;
	}
}

static uint64_t lat_field(const struct lat *l, enum top_field f)
{
	switch (f) {
	case TF_LATKEY: return l->key;
	case TF_CPU: return l->key;
	case TF_PID: return l->key;
	case TF_LAT_N: return l->n;
	case TF_LAT_MIN: return l->min;
	case TF_LAT_SUM: return l->sum;
	case TF_LAT_MAX: return l->max;
	case TF_LAT_P50: return lat_pct(l, 50);
	case TF_LAT_P99: return lat_pct(l, 99);
	default: return 0;
	}
}

uint64_t top_model_field(const struct top_model *m, enum top_src src, const void *row,
			 enum top_field f)
{
	const struct sc *s = row;
	const struct evt *e = row;
	const struct irq *q = row;

	switch (src) {
	case TS_TASKS:
		return task_field(m, row, f);
	case TS_SYSCALLS:
		switch (f) {
		case TF_PID: return (uint64_t)(int64_t)row_pid(s->hkey);
		case TF_NR: return (uint64_t)(int64_t)row_num(s->hkey);
		case TF_COUNT: return s->count;
		case TF_COUNT_D: return s->count_d;
		case TF_ERR: return s->err;
		case TF_TIME: return s->time;
		case TF_TIME_N: return s->time_n;
		case TF_TIME_MAX: return s->time_max;
		default: return 0;
		}
	case TS_EVENTS:
		switch (f) {
		case TF_PID: return (uint64_t)(int64_t)row_pid(e->hkey);
		case TF_EVENT: return (uint64_t)(int64_t)row_num(e->hkey);
		case TF_COUNT: return e->count;
		case TF_COUNT_D: return e->count_d;
		default: return 0;
		}
	case TS_CPUS:
		return cpu_field(m, row, f);
	case TS_IRQS:
		switch (f) {
		case TF_IRQ: return q->key;
		case TF_COUNT: return q->count;
		case TF_COUNT_D: return q->count_d;
		case TF_TIME: return q->time;
		case TF_TIME_N: return q->time_n;
		case TF_TIME_MAX: return q->time_max;
		default: return 0;
		}
	case TS_LATENCY:
		return lat_field(row, f);
	case TS_CUSTOM:
		break;
	}
	return 0;
}

void top_model_text(const struct top_model *m, enum top_field f, uint64_t v, char *buf, size_t len)
{
	const struct irq *q;
	const char *n;

	switch (f) {
	case TF_PID:
	case TF_COMM:
		snprintf(buf, len, "%s", top_model_comm(m, (int)(int64_t)v));
		break;
	case TF_STATE: {
		const struct task *t = htab_find(&m->tasks, (uint32_t)v);

		snprintf(buf, len, "%s", t && t->exited ? "exited" : "");
		break;
	}
	case TF_NR:
		if (m->sc_names && v < MAX_SYSCALL && m->sc_names[v])
			snprintf(buf, len, "%s", m->sc_names[v]);
		else
			snprintf(buf, len, "syscall %lld", (long long)v);
		break;
	case TF_EVENT:
		n = m->o.names ? top_decoder_event_name(m->o.names, (int)v) : NULL;
		if (n)
			snprintf(buf, len, "%s", n);
		else
			snprintf(buf, len, "event %d", (int)v);
		break;
	case TF_IRQ:
		q = htab_find(&m->irqs, v);
		if (v >> 32)
			snprintf(buf, len, "softirq %s", q ? q->name : "?");
		else
			snprintf(buf, len, "irq %u%s%s", (unsigned)v, q && q->name[0] ? ": " : "",
				 q ? q->name : "");
		break;
	case TF_LATKEY:
		if (v == LAT_OTHER)
			snprintf(buf, len, "(other)");
		else if (m->o.lat_by_task)
			snprintf(buf, len, "%s", top_model_comm(m, (int)v));
		else
			snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
}

bool top_model_lat_by_task(const struct top_model *m)
{
	return m->o.lat_by_task;
}

void top_model_set_lat_by_task(struct top_model *m, bool by_task)
{
	m->o.lat_by_task = by_task;
}

void top_model_lat_hist(const struct top_model *m, struct top_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->lo = 64;
	h->hi = -1;
	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		uint64_t low = lat_bucket_low(b);
		int e = low ? 63 - __builtin_clzll(low) : 0;

		if (!m->lat_all.b[b])
			continue;
		h->count[e] += m->lat_all.b[b];
		if (e < h->lo)
			h->lo = e;
		if (e > h->hi)
			h->hi = e;
	}
}

/* The totals row of the latency view. */
void top_model_lat_total(const struct top_model *m, uint64_t v[6])
{
	const struct lat *l = &m->lat_all;

	v[0] = l->n;
	v[1] = l->min;
	v[2] = l->n ? l->sum / l->n : 0;
	v[3] = lat_pct(l, 50);
	v[4] = lat_pct(l, 99);
	v[5] = l->max;
}

int top_model_custom(struct top_model *m, struct hist_result *r)
{
	if (!m->custom)
		return -ENOENT;
	return hist_user_result(m->custom, r);
}
