// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The task profile's text (include/fmt-tprof.h): one block per task, or
 * per task name with by_comm, in pid (name) order.  Times print in
 * milliseconds with all six decimals, so the figures are the nanosecond
 * sums and add up exactly.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fmt-tprof-local.h"
#include "tr.h"

static void ms(FILE *out, uint64_t ns)
{
	fprintf(out, "%7" PRIu64 ".%06" PRIu64 " ms", ns / 1000000, ns % 1000000);
}

/* "  LABEL   TOTAL ms   N times  avg A ms  max M ms" */
static void dist_line(FILE *out, const char *label, const struct tprof_dist *d)
{
	fprintf(out, "  %-20s", label);
	ms(out, d->total);
	fprintf(out, " %8" PRIu64 " times  avg", d->n);
	ms(out, d->n ? d->total / d->n : 0);
	fprintf(out, "  max");
	ms(out, d->max);
	fputc('\n', out);
}

static void dist_buckets(FILE *out, const struct tprof_dist *d)
{
	int lo = TPROF_BUCKETS, hi = -1;
	uint64_t top = 0;

	for (int k = 0; k < TPROF_BUCKETS; k++) {
		if (!d->b[k])
			continue;
		lo = k < lo ? k : lo;
		hi = k;
		top = d->b[k] > top ? d->b[k] : top;
	}
	for (int k = lo; k <= hi; k++) {
		char range[48];
		int bar = (int)((d->b[k] * 40 + top - 1) / top);

		if (!k)
			snprintf(range, sizeof(range), "< 1 us");
		else if (k == TPROF_BUCKETS - 1)
			snprintf(range, sizeof(range), ">= %" PRIu64 " us", (uint64_t)1 << (k - 1));
		else
			snprintf(range, sizeof(range), "%" PRIu64 " .. %" PRIu64 " us",
				 (uint64_t)1 << (k - 1), (uint64_t)1 << k);
		fprintf(out, "    %24s %8" PRIu64 " |%.*s\n", range, d->b[k], bar,
			"########################################");
	}
}

/* The kernel's letters for prev_state's bits (its print fmt: S D T t X Z P I). */
static void state_name(uint32_t state, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZPI";
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < 8 && n + 3 < len; i++) {
		if (!(state >> i & 1))
			continue;
		if (n)
			buf[n++] = '|';
		buf[n++] = letters[i];
		buf[n] = '\0';
	}
}

static int by_total(const void *a, const void *b)
{
	const struct tprof_stack *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int by_sys_total(const void *a, const void *b)
{
	const struct tprof_sys *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static void print_task(const struct fmt_tprof *p, struct tprof_task *t, FILE *out,
		       const struct fmt_tprof_opts *o)
{
	struct tprof_dist runnable = t->preempt;
	char name[40];

	if (o->by_comm)
		fprintf(out, "\ncomm: %s (%u task%s)\n", t->comm, t->ntasks, t->ntasks == 1 ? "" : "s");
	else
		fprintf(out, "\ntask: %s-%d\n", t->comm, t->pid);
	fprintf(out, "  %-20s", "run");
	ms(out, t->run);
	fprintf(out, " %8" PRIu64 " slices\n", t->slices);
	tprof_dist_merge(&runnable, &t->wake);
	if (runnable.n) {
		dist_line(out, "runnable", &runnable);
		dist_line(out, "  preempted", &t->preempt);
		dist_line(out, "  wake-up to run", &t->wake);
		dist_buckets(out, &runnable);
	}
	for (size_t i = 0; i < t->nblocked; i++) {
		char label[64];

		state_name(t->blocked[i].state, name, sizeof(name));
		snprintf(label, sizeof(label), "blocked %s", name);
		dist_line(out, label, &t->blocked[i].d);
		dist_buckets(out, &t->blocked[i].d);
	}
	if (t->nsys) {
		uint64_t n = 0, total = 0;

		qsort(t->sys, t->nsys, sizeof(*t->sys), by_sys_total);
		for (size_t i = 0; i < t->nsys; i++)
			n += t->sys[i].count, total += t->sys[i].total;
		fprintf(out, "  %-20s", "syscalls");
		ms(out, total);
		fprintf(out, " %8" PRIu64 " calls\n", n);
		for (size_t i = 0; i < t->nsys; i++) {
			const struct tprof_sys *s = &t->sys[i];
			const char *sn = tprof_syscall(p, s->nr);

			if (sn)
				snprintf(name, sizeof(name), "  %s", sn);
			else
				snprintf(name, sizeof(name), "  syscall %ld", s->nr);
			fprintf(out, "  %-20s", name);
			ms(out, s->total);
			fprintf(out, " %8" PRIu64 " calls  max", s->count);
			ms(out, s->max);
			fputc('\n', out);
		}
	}
	if (t->faults_user || t->faults_kernel)
		fprintf(out, "  %-20s%" PRIu64 " user, %" PRIu64 " kernel\n", "page faults",
			t->faults_user, t->faults_kernel);
	if (t->nstacks > 1)
		qsort(t->stacks, t->nstacks, sizeof(*t->stacks), by_total);
	for (size_t i = 0; i < t->nstacks; i++) {
		const struct tprof_stack *s = &t->stacks[i];

		state_name(s->state, name, sizeof(name));
		fprintf(out, "  blocked %s at, %" PRIu64 " times,", name, s->count);
		ms(out, s->total);
		fputc('\n', out);
		for (uint32_t k = 0; k < s->n; k++) {
			char buf[256];
			const char *sym = o->sym ? o->sym(o->sym_arg, s->ip[k], buf, sizeof(buf)) : NULL;

			if (sym)
				fprintf(out, "      => %s\n", sym);
			else
				fprintf(out, "      => 0x%" PRIx64 "\n", s->ip[k]);
		}
	}
}

static bool has_figures(const struct tprof_task *t)
{
	return t->run || t->slices || t->preempt.n || t->wake.n || t->nblocked || t->nsys ||
	       t->faults_user || t->faults_kernel;
}

static int by_pid(const void *a, const void *b)
{
	const struct tprof_task *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int by_comm(const void *a, const void *b)
{
	const struct tprof_task *x = a, *y = b;

	return strcmp(x->comm, y->comm);
}

void fmt_tprof_print(struct fmt_tprof *p, FILE *out, const struct fmt_tprof_opts *o)
{
	struct tprof_task *v = xcalloc(p->ntasks + 1, sizeof(*v));
	size_t n = 0;

	/* Copies of the figures only: the model's open intervals stay its own. */
	for (size_t i = 0; i < p->ntasks; i++) {
		struct tprof_task *t = &p->tasks[i], *to = NULL;

		if (!has_figures(t))
			continue;
		for (size_t k = 0; o->by_comm && k < n && !to; k++)
			if (!strcmp(v[k].comm, t->comm))
				to = &v[k];
		if (!to) {
			to = &v[n++];
			to->pid = t->pid;
			memcpy(to->comm, t->comm, sizeof(to->comm));
		}
		tprof_task_merge(to, t);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), o->by_comm ? by_comm : by_pid);
	for (size_t i = 0; i < n; i++) {
		print_task(p, &v[i], out, o);
		tprof_task_clear(&v[i]);
	}
	free(v);
}
