// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The default metrics, counted from decoded records (serve-local.h).
 *
 * Each record costs a switch on its kind, a series pointer from a table
 * made once (per CPU, per syscall number) or a small hash lookup (irqs,
 * block devices), and an add.  Durations pair a start with its end in
 * tables of what is in flight: a woken task by pid until it runs, a
 * syscall by thread until it returns, an irq and a softirq per CPU, a
 * block request by device and sector.  A table that reaches max_pending
 * starts over empty (what was in flight goes untimed, never counted
 * wrong): a start whose end never comes, as for a task woken just before
 * tracing stopped, cannot fill memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "pair.h"
#include "serve-local.h"
#include "tr.h"

/* Syscall numbers with their own table slot; a larger one is "sys_NR" in the table too. */
#define MAX_NR 1024

struct pending {
	uint64_t tag;
	uint64_t ts;
	int64_t aux;		/* a syscall's number, a request's device */
	int64_t aux2;		/* a request's sector */
};

struct waiting {
	uint64_t tag;
	struct pair p;
};

struct irq_ent {
	uint64_t tag;
	struct mx_series *count, *time;
};

struct cpu_state {
	struct mx_series *events, *lost, *switches, *runq;
	struct mx_series *fault_user, *fault_kernel;
	uint64_t irq_ts, sirq_ts;
	struct mx_series *irq_time;	/* the irq being handled (NULL: none), irq_num */
	int64_t irq_num;
	int64_t sirq_vec;
};

struct serve_agg {
	struct serve_agg_opts o;
	struct cpu_state *cpu;
	struct mx_family *f_sc, *f_sc_err, *f_sc_lat, *f_irq, *f_irq_t, *f_sirq, *f_sirq_t,
		*f_blk, *f_fault;
	char *names[MAX_NR];
	/* A syscall's own series once it ranks in the top max_syscalls - 1 (see rank()). */
	struct mx_series *sc[MAX_NR], *sc_err[MAX_NR], *sc_lat[MAX_NR];
	struct mx_series *sc_o, *sc_err_o, *sc_lat_o;	/* "other" */
	uint64_t sc_n[MAX_NR];				/* entries of each, for the ranking */
	size_t nsc;
	struct mx_series *sirq[16], *sirq_t[16];
	struct htab wake, sys, blk, irqs, devs;
	size_t max_pending;
};

/* The kernel's softirq vectors, by number (include/linux/interrupt.h). */
static const char *const sirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

static const char *const l_cpu[] = { "cpu", NULL };

struct serve_agg *serve_agg_new(struct mx *m, const struct serve_agg_opts *o)
{
	struct serve_agg *a = xcalloc(1, sizeof(*a));
	uint64_t le[SERVE_LAT_BOUNDS];
	struct mx_family *ev, *lost, *sw, *rq;

	a->o = *o;
	if (!a->o.max_syscalls)
		a->o.max_syscalls = 64;
	a->max_pending = o->max_pending ? o->max_pending : 65536;
	mx_log2_bounds(le, SERVE_LAT_BOUNDS, 1000);
	ev = mx_family(m, "tr_events", MX_COUNTER, NULL,
		       "Events tr read from the ring buffer, per CPU", l_cpu, 0);
	lost = mx_family(m, "tr_lost_events", MX_COUNTER, NULL,
			 "Events the ring buffer lost before tr read them, per CPU", l_cpu, 0);
	sw = mx_family(m, "tr_context_switches", MX_COUNTER, NULL,
		       "Context switches (sched_switch), per CPU", l_cpu, 0);
	rq = mx_family_hist(m, "tr_runqueue_latency_seconds", "seconds",
			    "From a task's wakeup (or preemption) to its running, per CPU", l_cpu,
			    0, le, SERVE_LAT_BOUNDS, 1e-9);
	a->f_sc = mx_family(m, "tr_syscalls", MX_COUNTER, NULL, "System calls entered",
			    (const char *[]){ "syscall", NULL }, a->o.max_syscalls + 1);
	a->f_sc_err = mx_family(m, "tr_syscall_errors", MX_COUNTER, NULL,
				"System calls that returned an error (-4095 to -1)",
				(const char *[]){ "syscall", NULL }, a->o.max_syscalls + 1);
	a->f_sc_lat = mx_family_hist(m, "tr_syscall_duration_seconds", "seconds",
				     "From a system call's entry to its return",
				     (const char *[]){ "syscall", NULL }, a->o.max_syscalls + 1, le,
				     SERVE_LAT_BOUNDS, 1e-9);
	a->sc_o = mx_series(a->f_sc, (const char *[]){ "other" });
	a->sc_err_o = mx_series(a->f_sc_err, (const char *[]){ "other" });
	a->sc_lat_o = mx_series(a->f_sc_lat, (const char *[]){ "other" });
	a->f_fault = mx_family(m, "tr_page_faults", MX_COUNTER, NULL,
			       "Page faults (exceptions:page_fault_user and _kernel), per CPU",
			       (const char *[]){ "cpu", "mode", NULL }, 0);
	a->f_irq = mx_family(m, "tr_irqs", MX_COUNTER, NULL, "Hardware interrupts handled",
			     (const char *[]){ "irq", "name", NULL }, 256);
	a->f_irq_t = mx_family(m, "tr_irq_seconds", MX_COUNTER, "seconds",
			       "Time in hardware interrupt handlers",
			       (const char *[]){ "irq", "name", NULL }, 256);
	mx_family_scale(a->f_irq_t, 1e-9);
	a->f_sirq = mx_family(m, "tr_softirqs", MX_COUNTER, NULL, "Softirqs run",
			      (const char *[]){ "vec", NULL }, 32);
	a->f_sirq_t = mx_family(m, "tr_softirq_seconds", MX_COUNTER, "seconds",
				"Time in softirq handlers", (const char *[]){ "vec", NULL }, 32);
	mx_family_scale(a->f_sirq_t, 1e-9);
	a->f_blk = mx_family_hist(m, "tr_block_io_latency_seconds", "seconds",
				  "From a block request's issue to its completion, per device",
				  (const char *[]){ "device", NULL }, 256, le, SERVE_LAT_BOUNDS, 1e-9);
	a->cpu = xcalloc(o->ncpus > 0 ? o->ncpus : 1, sizeof(*a->cpu));
	/* Every CPU's series from the start: rate() over them works from the first scrape. */
	for (int i = 0; i < o->ncpus; i++) {
		char n[16];
		const char *v[] = { n };

		snprintf(n, sizeof(n), "%d", i);
		a->cpu[i].events = mx_series(ev, v);
		a->cpu[i].lost = mx_series(lost, v);
		a->cpu[i].switches = mx_series(sw, v);
		a->cpu[i].runq = mx_series(rq, v);
	}
	htab_init(&a->wake, sizeof(struct waiting), 0, 0);
	htab_init(&a->sys, sizeof(struct pending), 0, 0);
	htab_init(&a->blk, sizeof(struct pending), 0, HTAB_HASHED);
	htab_init(&a->irqs, sizeof(struct irq_ent), 0, 0);
	htab_init(&a->devs, sizeof(struct irq_ent), 0, 0);
	return a;
}

void serve_agg_syscall_name(struct serve_agg *a, unsigned nr, const char *name)
{
	if (nr < MAX_NR && !a->names[nr])
		a->names[nr] = xstrdup(name);
}

void serve_agg_free(struct serve_agg *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < MAX_NR; i++)
		free(a->names[i]);
	htab_clear(&a->wake);
	htab_clear(&a->sys);
	htab_clear(&a->blk);
	htab_clear(&a->irqs);
	htab_clear(&a->devs);
	free(a->cpu);
	free(a);
}

/* A start, unless the table is full: then it starts over (see the top). */
static struct pending *pend(struct serve_agg *a, struct htab *h, uint64_t key)
{
	struct pending *p = htab_find(h, key);

	if (p)
		return p;
	if (h->n >= a->max_pending)
		htab_clear(h);
	return htab_add(h, key);
}

/* A task's wait to run, paired across CPUs (pair.h): an entry per pid, kept for its orphan. */
static struct pair *wait_of(struct serve_agg *a, int pid)
{
	struct waiting *w = htab_find(&a->wake, (uint64_t)pid);

	if (!w) {
		if (a->wake.n >= a->max_pending)
			htab_clear(&a->wake);
		w = htab_add(&a->wake, (uint64_t)pid);
	}
	return &w->p;
}

static void runq_observe(struct serve_agg *a, int cpu, uint64_t lat)
{
	if (cpu >= 0 && cpu < a->o.ncpus)
		mx_observe(a->cpu[cpu].runq, lat);
}

static void on_switch(struct serve_agg *a, const struct top_rec *r)
{
	uint64_t lat;
	int cpu;

	if (r->tpid > 0) {
		struct pair *p = wait_of(a, r->tpid);

		/* The state's low byte: 0 is preempted (runnable from now), else a sleep. */
		if (r->num & 0xff)
			pair_cancel(p, r->ts);
		else if (pair_start(p, r->ts, &lat, &cpu))
			runq_observe(a, cpu, lat);
	}
	if (r->tpid2 > 0 && pair_end(wait_of(a, r->tpid2), r->ts, r->cpu, &lat))
		runq_observe(a, r->cpu, lat);
}

static void on_wake(struct serve_agg *a, const struct top_rec *r)
{
	uint64_t lat;
	int cpu;

	if (r->tpid > 0 && pair_start(wait_of(a, r->tpid), r->ts, &lat, &cpu))
		runq_observe(a, cpu, lat);
}

/*
 * A syscall's series: its own once it ranks among the most entered (a
 * scrape ranks them, serve_agg_rank()), "other" until then.  What a
 * syscall did before it got its own series stays in "other": no series
 * ever goes backwards, and the families still add up to every call.
 */
static void syscall_series(struct serve_agg *a, int64_t nr, struct mx_series **cnt,
			   struct mx_series **err, struct mx_series **lat)
{
	if (nr >= 0 && nr < MAX_NR && a->sc[nr]) {
		*cnt = a->sc[nr], *err = a->sc_err[nr], *lat = a->sc_lat[nr];
		return;
	}
	*cnt = a->sc_o, *err = a->sc_err_o, *lat = a->sc_lat_o;
}

static int by_count(const void *x, const void *y, void *arg)
{
	const uint64_t *n = arg;
	unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;

	return n[a] != n[b] ? (n[a] < n[b] ? 1 : -1) : (a > b) - (a < b);
}

void serve_agg_rank(struct serve_agg *a)
{
	unsigned cand[MAX_NR];
	size_t n = 0, room = a->o.max_syscalls - 1;

	if (a->nsc >= room)
		return;
	for (unsigned nr = 0; nr < MAX_NR; nr++)
		if (!a->sc[nr] && a->sc_n[nr])
			cand[n++] = nr;
	qsort_r(cand, n, sizeof(*cand), by_count, a->sc_n);
	for (size_t i = 0; i < n && a->nsc < room; i++) {
		unsigned nr = cand[i];
		char buf[32];
		const char *v[1] = { buf };

		if (a->names[nr])
			v[0] = a->names[nr];
		else
			snprintf(buf, sizeof(buf), "sys_%u", nr);
		a->sc[nr] = mx_series(a->f_sc, v);
		a->sc_err[nr] = mx_series(a->f_sc_err, v);
		a->sc_lat[nr] = mx_series(a->f_sc_lat, v);
		a->nsc++;
	}
}

static void on_sys_enter(struct serve_agg *a, const struct top_rec *r)
{
	struct mx_series *cnt, *err, *lat;
	struct pending *p;

	if (r->num < 0 || r->pid <= 0)
		return;
	syscall_series(a, r->num, &cnt, &err, &lat);
	if (!a->o.kernel_counts) {
		mx_add(cnt, 1);
		if (r->num < MAX_NR)
			a->sc_n[r->num]++;
	}
	p = pend(a, &a->sys, (uint64_t)r->pid);
	p->ts = r->ts;
	p->aux = r->num;
}

static void on_sys_exit(struct serve_agg *a, const struct top_rec *r)
{
	struct mx_series *cnt, *err, *lat;
	struct pending *p;

	if (r->num < 0 || r->pid <= 0)
		return;
	syscall_series(a, r->num, &cnt, &err, &lat);
	if (!a->o.kernel_counts && r->num2 < 0 && r->num2 >= -4095)
		mx_add(err, 1);
	p = htab_find(&a->sys, (uint64_t)r->pid);
	if (!p)
		return;
	if (p->aux == r->num && r->ts >= p->ts)
		mx_observe(lat, r->ts - p->ts);
	htab_del(&a->sys, p);
}

/* irq's entry (its series), made on first sight with its name (len bytes). */
static struct irq_ent *irq_of(struct serve_agg *a, int64_t irqn, const char *str, unsigned len)
{
	struct irq_ent *q = htab_find(&a->irqs, (uint64_t)irqn);

	if (!q) {
		char irq[24], name[64];
		unsigned n = len < sizeof(name) - 1 ? len : sizeof(name) - 1;

		snprintf(irq, sizeof(irq), "%lld", (long long)irqn);
		memcpy(name, str ? str : "", str ? n : 0);
		name[str ? n : 0] = '\0';
		name[strnlen(name, sizeof(name))] = '\0';
		q = htab_add(&a->irqs, (uint64_t)irqn);
		q->count = mx_series(a->f_irq, (const char *[]){ irq, name });
		q->time = mx_series(a->f_irq_t, (const char *[]){ irq, name });
	}
	return q;
}

static void on_irq_entry(struct serve_agg *a, struct cpu_state *c, const struct top_rec *r)
{
	struct irq_ent *q = irq_of(a, r->num, r->str.s, r->str.len);

	if (!a->o.kernel_counts)
		mx_add(q->count, 1);
	/* The series, not the entry: entries move as the table grows. */
	c->irq_time = q->time;
	c->irq_num = r->num;
	c->irq_ts = r->ts;
}

static void on_irq_exit(struct cpu_state *c, const struct top_rec *r)
{
	if (c->irq_time && c->irq_num == r->num && r->ts >= c->irq_ts)
		mx_add(c->irq_time, r->ts - c->irq_ts);
	c->irq_time = NULL;
}

static void sirq_series(struct serve_agg *a, int64_t vec)
{
	char buf[24];
	const char *v[1] = { buf };

	if (vec < (int64_t)ARRAY_SIZE(sirq_names))
		v[0] = sirq_names[vec];
	else
		snprintf(buf, sizeof(buf), "%lld", (long long)vec);
	a->sirq[vec] = mx_series(a->f_sirq, v);
	a->sirq_t[vec] = mx_series(a->f_sirq_t, v);
}

static void on_softirq(struct serve_agg *a, struct cpu_state *c, const struct top_rec *r,
		       bool entry)
{
	if (r->num < 0 || r->num >= (int64_t)ARRAY_SIZE(a->sirq))
		return;
	if (entry) {
		c->sirq_ts = r->ts;
		c->sirq_vec = r->num;
		return;
	}
	if (!a->sirq[r->num])
		sirq_series(a, r->num);
	if (!a->o.kernel_counts)
		mx_add(a->sirq[r->num], 1);
	if (c->sirq_ts && c->sirq_vec == r->num && r->ts >= c->sirq_ts)
		mx_add(a->sirq_t[r->num], r->ts - c->sirq_ts);
	c->sirq_ts = 0;
}

static struct mx_series *fault_series(struct serve_agg *a, int cpu, bool user)
{
	struct cpu_state *c = &a->cpu[cpu];
	struct mx_series **s = user ? &c->fault_user : &c->fault_kernel;

	if (!*s) {
		char n[16];

		snprintf(n, sizeof(n), "%d", cpu);
		*s = mx_series(a->f_fault, (const char *[]){ n, user ? "user" : "kernel" });
	}
	return *s;
}

/* A request is its device and first sector; both fit in the tag's hash. */
static uint64_t blk_key(const struct top_rec *r)
{
	return htab_hash_u64((uint64_t)r->num2 * 0x9e3779b97f4a7c15ULL ^ (uint64_t)r->num);
}

static void on_block(struct serve_agg *a, const struct top_rec *r, bool issue)
{
	uint64_t tag = blk_key(r);
	struct pending *p;
	struct irq_ent *d;
	size_t i;

	htab_reserve(&a->blk, 1);
	for (p = htab_first(&a->blk, tag, &i); htab_tag(p); p = htab_next(&a->blk, tag, &i))
		if (p->aux == r->num && p->aux2 == r->num2)
			break;
	if (issue) {
		if (htab_tag(p))
			return;
		if (a->blk.n >= a->max_pending) {
			htab_clear(&a->blk);
			htab_reserve(&a->blk, 1);
			p = htab_first(&a->blk, tag, &i);
		}
		p = htab_claim(&a->blk, p, tag);
		p->ts = r->ts;
		p->aux = r->num;
		p->aux2 = r->num2;
		return;
	}
	if (!htab_tag(p))
		return;
	d = htab_find(&a->devs, (uint64_t)r->num);
	if (!d) {
		char dev[32];

		/* The kernel's dev_t: 12 bits of major over 20 of minor. */
		snprintf(dev, sizeof(dev), "%llu:%llu", (unsigned long long)r->num >> 20,
			 (unsigned long long)r->num & 0xfffff);
		d = htab_add(&a->devs, (uint64_t)r->num);
		d->count = mx_series(a->f_blk, (const char *[]){ dev });
	}
	if (r->ts >= p->ts)
		mx_observe(d->count, r->ts - p->ts);
	htab_del(&a->blk, p);
}

void serve_agg_feed(struct serve_agg *a, const struct top_rec *r)
{
	struct cpu_state *c;

	if (r->cpu < 0 || r->cpu >= a->o.ncpus)
		return;
	c = &a->cpu[r->cpu];
	mx_add(c->events, 1);
	switch (r->kind) {
	case TOP_EV_SWITCH:
		if (!a->o.kernel_counts)
			mx_add(c->switches, 1);
		on_switch(a, r);
		break;
	case TOP_EV_WAKING:
	case TOP_EV_WAKEUP_NEW: on_wake(a, r); break;
	case TOP_EV_SYS_ENTER: on_sys_enter(a, r); break;
	case TOP_EV_SYS_EXIT: on_sys_exit(a, r); break;
	case TOP_EV_IRQ_ENTRY: on_irq_entry(a, c, r); break;
	case TOP_EV_IRQ_EXIT: on_irq_exit(c, r); break;
	case TOP_EV_SOFTIRQ_ENTRY: on_softirq(a, c, r, true); break;
	case TOP_EV_SOFTIRQ_EXIT: on_softirq(a, c, r, false); break;
	case TOP_EV_FAULT_USER:
	case TOP_EV_FAULT_KERNEL:
		if (!a->o.kernel_counts)
			mx_add(fault_series(a, r->cpu, r->kind == TOP_EV_FAULT_USER), 1);
		break;
	case TOP_EV_BLOCK_ISSUE: on_block(a, r, true); break;
	case TOP_EV_BLOCK_DONE: on_block(a, r, false); break;
	default: break;
	}
}

void serve_agg_count(struct serve_agg *a, enum serve_count what, int64_t key, const char *name,
		     uint64_t n)
{
	struct mx_series *cnt, *err, *lat;

	switch (what) {
	case SERVE_CNT_SYSCALL:
	case SERVE_CNT_SYSCALL_ERR:
		if (key < 0)
			return;
		syscall_series(a, key, &cnt, &err, &lat);
		mx_add(what == SERVE_CNT_SYSCALL ? cnt : err, n);
		if (what == SERVE_CNT_SYSCALL && key < MAX_NR)
			a->sc_n[key] += n;
		break;
	case SERVE_CNT_SWITCH:
	case SERVE_CNT_FAULT_USER:
	case SERVE_CNT_FAULT_KERNEL:
		if (key < 0 || key >= a->o.ncpus)
			return;
		mx_add(what == SERVE_CNT_SWITCH ? a->cpu[key].switches
						: fault_series(a, (int)key, what == SERVE_CNT_FAULT_USER),
		       n);
		break;
	case SERVE_CNT_IRQ:
		mx_add(irq_of(a, key, name, name ? (unsigned)strlen(name) : 0)->count, n);
		break;
	case SERVE_CNT_SOFTIRQ:
		if (key < 0 || key >= (int64_t)ARRAY_SIZE(a->sirq))
			return;
		if (!a->sirq[key])
			sirq_series(a, key);
		mx_add(a->sirq[key], n);
		break;
	}
}

void serve_agg_lost(struct serve_agg *a, int cpu, int64_t n)
{
	if (cpu >= 0 && cpu < a->o.ncpus)
		mx_add(a->cpu[cpu].lost, n < 0 ? 1 : (uint64_t)n);
}
