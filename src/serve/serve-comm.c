// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --by comm (serve-local.h): CPU time, context switches, system calls and
 * page faults per command name.
 *
 * A task's name comes from the records that carry one (a switch's
 * prev_comm and next_comm, a wakeup's comm, task_rename's newcomm, which
 * an exec makes as well as a write to /proc/PID/comm), else once from
 * /proc/PID/comm; it is kept per pid with the task's four series, so a
 * record costs one table lookup.  A name seen to change (an exec, a
 * rename) moves the task's later counts to the new name's series.  The
 * table starts over when it holds max_pids tasks (names are read again).
 * CPU time is charged at each switch to the task that ran since the
 * previous one on that CPU; before a CPU's first switch nothing is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "serve-local.h"
#include "tr.h"

struct task {
	uint64_t tag;
	char comm[TOP_COMM_LEN + 1];
	struct mx_series *cpu, *sw, *sys, *flt;
};

struct ccpu {
	int pid;		/* what runs since `since` (0: idle or not known yet) */
	uint64_t since;
};

struct serve_comm {
	struct mx_family *f_cpu, *f_sw, *f_sys, *f_flt;
	struct ccpu *cpu;
	int ncpus;
	size_t max_pids;
	struct htab tasks;	/* struct task by pid */
};

struct serve_comm *serve_comm_new(struct mx *m, int ncpus, size_t max_comms)
{
	struct serve_comm *c = xcalloc(1, sizeof(*c));
	const char *l[] = { "comm", NULL };
	size_t n = (max_comms ? max_comms : 200) + 1;

	c->f_cpu = mx_family(m, "tr_comm_cpu_seconds", MX_COUNTER, "seconds",
			     "CPU time per command name (--by comm), charged at context switches",
			     l, n);
	mx_family_scale(c->f_cpu, 1e-9);
	c->f_sw = mx_family(m, "tr_comm_context_switches", MX_COUNTER, NULL,
			    "Context switches away from a task, per command name (--by comm)", l, n);
	c->f_sys = mx_family(m, "tr_comm_syscalls", MX_COUNTER, NULL,
			     "System calls entered, per command name (--by comm)", l, n);
	c->f_flt = mx_family(m, "tr_comm_page_faults", MX_COUNTER, NULL,
			     "Page faults, per command name (--by comm)", l, n);
	c->ncpus = ncpus;
	c->cpu = xcalloc(ncpus > 0 ? ncpus : 1, sizeof(*c->cpu));
	c->max_pids = 65536;
	htab_init(&c->tasks, sizeof(struct task), 0, 0);
	return c;
}

void serve_comm_free(struct serve_comm *c)
{
	if (!c)
		return;
	htab_clear(&c->tasks);
	free(c->cpu);
	free(c);
}

static void name_task(struct serve_comm *c, struct task *t, const char *s, size_t n)
{
	const char *v[] = { t->comm };

	memcpy(t->comm, s, n);
	t->comm[n] = '\0';
	t->cpu = mx_series(c->f_cpu, v);
	t->sw = mx_series(c->f_sw, v);
	t->sys = mx_series(c->f_sys, v);
	t->flt = mx_series(c->f_flt, v);
}

/* pid's task, named by the record's text if it has one (str), else by /proc. */
static struct task *task_of(struct serve_comm *c, int pid, const struct top_str *str)
{
	struct task *t = htab_find(&c->tasks, (uint64_t)pid);
	size_t n = str && str->s ? strnlen(str->s, str->len) : 0;

	if (n > TOP_COMM_LEN)
		n = TOP_COMM_LEN;
	if (t && (!n || (strlen(t->comm) == n && !memcmp(t->comm, str->s, n))))
		return t;
	if (!t) {
		if (c->tasks.n >= c->max_pids)
			htab_clear(&c->tasks);
		t = htab_add(&c->tasks, (uint64_t)pid);
	}
	if (n) {
		name_task(c, t, str->s, n);
	} else {
		char path[40], *text = NULL;
		size_t len = 0;

		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		/* A task gone before we asked: "?", until a record names it. */
		if (read_file(path, &text, &len) || !len)
			name_task(c, t, "?", 1);
		else
			name_task(c, t, text, strnlen(text, TOP_COMM_LEN) < strcspn(text, "\n")
						       ? strnlen(text, TOP_COMM_LEN)
						       : strcspn(text, "\n"));
		free(text);
	}
	return t;
}

static void on_switch(struct serve_comm *c, const struct top_rec *r)
{
	struct ccpu *cc = &c->cpu[r->cpu];

	if (r->tpid > 0) {
		struct task *t = task_of(c, r->tpid, &r->str);

		mx_add(t->sw, 1);
		if (cc->pid == r->tpid && cc->since && r->ts > cc->since)
			mx_add(t->cpu, r->ts - cc->since);
	}
	if (r->tpid2 > 0)
		task_of(c, r->tpid2, &r->str2);
	cc->pid = r->tpid2;
	cc->since = r->ts;
}

void serve_comm_feed(struct serve_comm *c, const struct top_rec *r)
{
	if (r->cpu < 0 || r->cpu >= c->ncpus)
		return;
	switch (r->kind) {
	case TOP_EV_SWITCH:
		on_switch(c, r);
		break;
	case TOP_EV_WAKING:
	case TOP_EV_WAKEUP_NEW:
		if (r->tpid > 0)
			task_of(c, r->tpid, &r->str);
		break;
	case TOP_EV_RENAME:
		/* The task renamed is the one running (kernels without the pid field too). */
		if (r->pid > 0)
			task_of(c, r->tpid > 0 ? r->tpid : r->pid, &r->str);
		break;
	case TOP_EV_SYS_ENTER:
		if (r->pid > 0)
			mx_add(task_of(c, r->pid, NULL)->sys, 1);
		break;
	case TOP_EV_FAULT_USER:
	case TOP_EV_FAULT_KERNEL:
		if (r->pid > 0)
			mx_add(task_of(c, r->pid, NULL)->flt, 1);
		break;
	default:
		break;
	}
}
