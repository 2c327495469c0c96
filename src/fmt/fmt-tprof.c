// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The task profile's model (include/fmt-tprof.h): per task the intervals
 * trace-cmd's profile measures, fed one decoded event at a time.  Tasks
 * are found by pid through hash.h's table; per CPU, who runs since when,
 * and whether the last record was a blocking switch whose stack may come
 * next.
 */
#include <stdlib.h>
#include <string.h>

#include "fmt-tprof-local.h"
#include "tr.h"

/* prev_state's state bits; 0x100 (TASK_REPORT_MAX) marks a preemption. */
#define STATE_MASK 0xffu

struct fmt_tprof *fmt_tprof_new(void)
{
	struct fmt_tprof *p = xcalloc(1, sizeof(*p));

	htab_init(&p->by_pid, sizeof(struct tprof_slot), 256, 0);
	return p;
}

void tprof_task_clear(struct tprof_task *t)
{
	for (size_t i = 0; i < t->nstacks; i++)
		free(t->stacks[i].ip);
	free(t->stacks);
	free(t->blocked);
	free(t->sys);
	free(t->out_ip);
}

void fmt_tprof_free(struct fmt_tprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ntasks; i++)
		tprof_task_clear(&p->tasks[i]);
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i].name);
	free(p->names);
	free(p->tasks);
	htab_clear(&p->by_pid);
	free(p->cpus);
	free(p);
}

static void set_comm(struct tprof_task *t, const char *comm)
{
	if (comm && *comm)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* The task of pid, made on first sight; comm (if given) is its latest name. */
static struct tprof_task *task(struct fmt_tprof *p, int pid, const char *comm)
{
	bool fresh;
	struct tprof_slot *e = htab_get(&p->by_pid, (uint32_t)pid, &fresh);
	struct tprof_task *t;

	if (fresh) {
		if (p->ntasks == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 64;
			p->tasks = xrealloc(p->tasks, p->cap * sizeof(*p->tasks));
		}
		e->task = p->ntasks++;
		p->tasks[e->task] = (struct tprof_task){ .pid = pid, .ntasks = 1, .comm = "<...>" };
	}
	t = &p->tasks[e->task];
	set_comm(t, comm);
	return t;
}

static struct tprof_cpu *cpu_of(struct fmt_tprof *p, int cpu)
{
	if (cpu < 0)
		cpu = 0;
	if ((size_t)cpu >= p->ncpus) {
		size_t n = cpu + 1;

		p->cpus = xrealloc(p->cpus, n * sizeof(*p->cpus));
		for (size_t i = p->ncpus; i < n; i++)
			p->cpus[i] = (struct tprof_cpu){ .pid = -1, .stack_pid = -1 };
		p->ncpus = n;
	}
	return &p->cpus[cpu];
}

void tprof_dist_add(struct tprof_dist *d, uint64_t v)
{
	uint64_t us = v / 1000;
	int k = 0;

	while (us && k < TPROF_BUCKETS - 1) {
		us >>= 1;
		k++;
	}
	d->b[k]++;
	if (!d->n || v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	d->n++;
	d->total += v;
}

void tprof_dist_merge(struct tprof_dist *to, const struct tprof_dist *from)
{
	if (!from->n)
		return;
	if (!to->n || from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->n += from->n;
	to->total += from->total;
	for (int k = 0; k < TPROF_BUCKETS; k++)
		to->b[k] += from->b[k];
}

static struct tprof_dist *blocked(struct tprof_task *t, uint32_t state)
{
	for (size_t i = 0; i < t->nblocked; i++)
		if (t->blocked[i].state == state)
			return &t->blocked[i].d;
	t->blocked = xrealloc(t->blocked, (t->nblocked + 1) * sizeof(*t->blocked));
	t->blocked[t->nblocked] = (struct tprof_state){ .state = state };
	return &t->blocked[t->nblocked++].d;
}

static struct tprof_sys *sys(struct tprof_task *t, long nr)
{
	for (size_t i = 0; i < t->nsys; i++)
		if (t->sys[i].nr == nr)
			return &t->sys[i];
	t->sys = xrealloc(t->sys, (t->nsys + 1) * sizeof(*t->sys));
	t->sys[t->nsys] = (struct tprof_sys){ .nr = nr };
	return &t->sys[t->nsys++];
}

/* Count one blocked interval at a stack (taken over when ip is owned). */
static void add_stack(struct tprof_task *t, uint32_t state, const uint64_t *ip, uint32_t n,
		      uint64_t count, uint64_t total)
{
	struct tprof_stack *s = NULL;

	for (size_t i = 0; i < t->nstacks && !s; i++)
		if (t->stacks[i].state == state && t->stacks[i].n == n &&
		    !memcmp(t->stacks[i].ip, ip, n * sizeof(*ip)))
			s = &t->stacks[i];
	if (!s) {
		t->stacks = xrealloc(t->stacks, (t->nstacks + 1) * sizeof(*t->stacks));
		s = &t->stacks[t->nstacks++];
		*s = (struct tprof_stack){ .state = state, .n = n };
		s->ip = xmalloc(n * sizeof(*ip) + 1);
		memcpy(s->ip, ip, n * sizeof(*ip));
	}
	s->count += count;
	s->total += total;
}

static uint64_t since(uint64_t ts, uint64_t from)
{
	return ts > from ? ts - from : 0;	/* CPUs' clocks may disagree a little */
}

/* The switch-out interval ends at ts: blocked time (and its stack) or preemption. */
static void close_out(struct tprof_task *t, uint64_t ts)
{
	uint64_t d = since(ts, t->out_ts);

	if (!t->out_open)
		return;
	t->out_open = false;
	if (!(t->out_state & STATE_MASK)) {
		tprof_dist_add(&t->preempt, d);
	} else {
		tprof_dist_add(blocked(t, t->out_state & STATE_MASK), d);
		if (t->out_ip)
			add_stack(t, t->out_state & STATE_MASK, t->out_ip, t->out_nip, 1, d);
	}
	free(t->out_ip);
	t->out_ip = NULL;
}

static void forget(struct tprof_task *t)
{
	t->out_open = t->wake_open = t->sys_open = t->sleeping = false;
	free(t->out_ip);
	t->out_ip = NULL;
}

void fmt_tprof_switch(struct fmt_tprof *p, uint64_t ts, int cpu, int prev_pid,
		      const char *prev_comm, uint64_t prev_state, int next_pid,
		      const char *next_comm)
{
	struct tprof_cpu *c = cpu_of(p, cpu);
	struct tprof_task *t = task(p, prev_pid, prev_comm);

	if (c->pid == prev_pid) {
		t->run += since(ts, c->since);
		t->slices++;
	}
	c->stack_pid = -1;
	if (prev_pid) {
		/* A system call may go on across the switch: only the sched intervals restart. */
		free(t->out_ip);
		t->out_ip = NULL;
		t->wake_open = false;
		t->out_open = true;
		t->out_ts = ts;
		t->out_state = prev_state;
		t->sleeping = (prev_state & STATE_MASK) != 0;
		if (t->sleeping)
			c->stack_pid = prev_pid;
	}
	t = task(p, next_pid, next_comm);
	c->pid = next_pid;
	c->since = ts;
	if (!next_pid)
		return;
	if (t->wake_open) {
		tprof_dist_add(&t->wake, since(ts, t->wake_ts));
		t->wake_open = false;
	}
	/* Preempted, or blocked with no wake-up recorded: blocked until now. */
	close_out(t, ts);
	t->sleeping = false;
}

void fmt_tprof_wakeup(struct fmt_tprof *p, uint64_t ts, int cpu, int pid, const char *comm)
{
	struct tprof_task *t = task(p, pid, comm);

	cpu_of(p, cpu)->stack_pid = -1;
	if (!pid || !t->sleeping)
		return;
	t->sleeping = false;
	close_out(t, ts);
	t->wake_open = true;
	t->wake_ts = ts;
}

void fmt_tprof_sys_enter(struct fmt_tprof *p, uint64_t ts, int cpu, int pid, long nr)
{
	struct tprof_task *t = task(p, pid, NULL);

	cpu_of(p, cpu)->stack_pid = -1;
	t->sys_open = true;
	t->sys_ts = ts;
	t->sys_nr = nr;
}

void fmt_tprof_sys_exit(struct fmt_tprof *p, uint64_t ts, int cpu, int pid, long nr)
{
	struct tprof_task *t = task(p, pid, NULL);
	struct tprof_sys *s;
	uint64_t d;

	cpu_of(p, cpu)->stack_pid = -1;
	if (!t->sys_open || t->sys_nr != nr)
		return;
	t->sys_open = false;
	d = since(ts, t->sys_ts);
	s = sys(t, nr);
	s->count++;
	s->total += d;
	if (d > s->max)
		s->max = d;
}

void fmt_tprof_fault(struct fmt_tprof *p, int cpu, int pid, bool user)
{
	struct tprof_task *t = task(p, pid, NULL);

	cpu_of(p, cpu)->stack_pid = -1;
	if (user)
		t->faults_user++;
	else
		t->faults_kernel++;
}

void fmt_tprof_stack(struct fmt_tprof *p, int cpu, int pid, const uint64_t *ip, size_t n)
{
	struct tprof_cpu *c = cpu_of(p, cpu);
	struct tprof_task *t;

	if (c->stack_pid != pid || pid <= 0) {
		c->stack_pid = -1;
		return;
	}
	c->stack_pid = -1;
	t = task(p, pid, NULL);
	if (!t->out_open || t->out_ip || n > UINT32_MAX)
		return;
	t->out_ip = xmalloc(n * sizeof(*ip) + 1);
	memcpy(t->out_ip, ip, n * sizeof(*ip));
	t->out_nip = n;
}

void fmt_tprof_other(struct fmt_tprof *p, int cpu)
{
	cpu_of(p, cpu)->stack_pid = -1;
}

void fmt_tprof_lost(struct fmt_tprof *p, int cpu)
{
	struct tprof_cpu *c = cpu_of(p, cpu);

	c->pid = -1;
	c->stack_pid = -1;
	for (size_t i = 0; i < p->ntasks; i++)
		forget(&p->tasks[i]);
}

void fmt_tprof_end(struct fmt_tprof *p, uint64_t ts)
{
	for (size_t i = 0; i < p->ncpus; i++) {
		struct tprof_cpu *c = &p->cpus[i];

		if (c->pid < 0)
			continue;
		task(p, c->pid, NULL)->run += since(ts, c->since);
		c->pid = -1;
	}
}

void fmt_tprof_syscall_name(struct fmt_tprof *p, long nr, const char *name)
{
	p->names = xrealloc(p->names, (p->nnames + 1) * sizeof(*p->names));
	p->names[p->nnames++] = (struct tprof_name){ nr, xstrdup(name) };
}

const char *tprof_syscall(const struct fmt_tprof *p, long nr)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (p->names[i].nr == nr)
			return p->names[i].name;
	return NULL;
}

void tprof_task_merge(struct tprof_task *to, const struct tprof_task *from)
{
	to->ntasks += from->ntasks;
	to->run += from->run;
	to->slices += from->slices;
	tprof_dist_merge(&to->preempt, &from->preempt);
	tprof_dist_merge(&to->wake, &from->wake);
	for (size_t i = 0; i < from->nblocked; i++)
		tprof_dist_merge(blocked(to, from->blocked[i].state), &from->blocked[i].d);
	for (size_t i = 0; i < from->nsys; i++) {
		struct tprof_sys *s = sys(to, from->sys[i].nr);

		s->count += from->sys[i].count;
		s->total += from->sys[i].total;
		if (from->sys[i].max > s->max)
			s->max = from->sys[i].max;
	}
	to->faults_user += from->faults_user;
	to->faults_kernel += from->faults_kernel;
	for (size_t i = 0; i < from->nstacks; i++) {
		const struct tprof_stack *s = &from->stacks[i];

		add_stack(to, s->state, s->ip, s->n, s->count, s->total);
	}
}
