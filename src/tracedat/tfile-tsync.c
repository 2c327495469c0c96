// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options of a several-machine recording as trace-cmd writes them
 * (trace-cmd.dat.v7(5), its lib/trace-cmd/trace-input.c for the
 * arithmetic): TIME_SHIFT, which moves a guest's timestamps onto its host's
 * clock, and GUEST, which names a guest in the host's file.  Both are
 * parsed from bytes a hostile file controls: every count is checked against
 * what is left of the option before anything is allocated for it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfile-local.h"

struct optrd {
	const uint8_t *p;
	size_t n, pos;
	bool be;
};

static bool take(struct optrd *r, int size, uint64_t *v)
{
	if (r->n - r->pos < (size_t)size)
		return false;
	*v = tfile_get(r->p + r->pos, size, r->be);
	r->pos += size;
	return true;
}

static int bad(struct tfile_tsync *t, char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(struct tfile_tsync *t, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	tfile_tsync_free(t);
	return -EBADMSG;
}

/* Sort by time (signed, as trace-cmd), equal times in file order. */
struct keyed {
	struct tfile_ts_sample s;
	uint32_t order;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->s.time != y->s.time)
		return x->s.time < y->s.time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void sort_samples(struct tfile_tsync_cpu *c)
{
	struct keyed *k;
	uint32_t j = 0;

	if (c->n < 2)
		return;
	k = xmalloc(c->n * sizeof(*k));
	for (uint32_t i = 0; i < c->n; i++)
		k[i] = (struct keyed){ c->s[i], i };
	qsort(k, c->n, sizeof(*k), cmp_keyed);
	/* Two samples of one time would make the interpolation divide by 0. */
	for (uint32_t i = 0; i < c->n; i++)
		if (!i || k[i].s.time != k[i - 1].s.time)
			c->s[j++] = k[i].s;
	c->n = j;
	free(k);
}

int tfile_tsync_parse(const uint8_t *p, size_t n, bool big_endian, struct tfile_tsync *out,
		      char *why, size_t whylen)
{
	struct optrd r = { .p = p, .n = n, .be = big_endian };
	uint64_t v, ncpus;

	*out = (struct tfile_tsync){ 0 };
	if (!take(&r, 8, &out->peer_id) || !take(&r, 4, &v) || !take(&r, 4, &ncpus))
		return bad(out, why, whylen, "%zu bytes, less than its header", n);
	out->flags = v;
	/* Each CPU takes at least its 4-byte count. */
	if (ncpus > (n - r.pos) / 4 || ncpus > TFILE_MAX_CPUS)
		return bad(out, why, whylen, "%llu CPUs in %zu bytes", (unsigned long long)ncpus,
			   n);
	out->ncpus = ncpus;
	out->cpus = xcalloc(ncpus ? ncpus : 1, sizeof(*out->cpus));
	for (int c = 0; c < out->ncpus; c++) {
		struct tfile_tsync_cpu *cpu = &out->cpus[c];

		if (!take(&r, 4, &v))
			return bad(out, why, whylen, "no sample count for CPU %d", c);
		/* times, offsets and scalings: 24 bytes a sample */
		if (v > (n - r.pos) / 24)
			return bad(out, why, whylen, "the %llu samples of CPU %d run past its end",
				   (unsigned long long)v, c);
		cpu->n = v;
		cpu->s = xcalloc(v ? v : 1, sizeof(*cpu->s));
		for (uint32_t i = 0; i < cpu->n; i++)
			take(&r, 8, &v), cpu->s[i].time = (int64_t)v;
		for (uint32_t i = 0; i < cpu->n; i++)
			take(&r, 8, &v), cpu->s[i].offset = (int64_t)v;
		for (uint32_t i = 0; i < cpu->n; i++)
			take(&r, 8, &v), cpu->s[i].scaling = (int64_t)v;
		out->nsamples += cpu->n;
	}
	/* The fraction bits come after all CPUs (added later, so old readers read on). */
	if (r.pos < n)
		for (int c = 0; c < out->ncpus; c++)
			for (uint32_t i = 0; i < out->cpus[c].n; i++) {
				if (!take(&r, 8, &v))
					return bad(out, why, whylen,
						   "the fraction bits of CPU %d run past its end", c);
				if (v > 63)
					return bad(out, why, whylen,
						   "fraction bits %lld on CPU %d (0 to 63)",
						   (long long)v, c);
				out->cpus[c].s[i].fraction = v;
			}
	for (int c = 0; c < out->ncpus; c++)
		sort_samples(&out->cpus[c]);
	return 0;
}

void tfile_tsync_free(struct tfile_tsync *t)
{
	if (!t)
		return;
	for (int c = 0; c < t->ncpus && t->cpus; c++)
		free(t->cpus[c].s);
	free(t->cpus);
	*t = (struct tfile_tsync){ 0 };
}

/*
 * Note that all of it is done in uint64_t, where overflow wraps: trace-cmd
 * does it in (signed) long long, and its results on a real file, where
 * nothing overflows, are these; a hostile file gets some time rather than
 * undefined behaviour.
 */
static uint64_t correct(uint64_t ts, uint32_t flags, const struct tfile_ts_sample *a,
			const struct tfile_ts_sample *b)
{
	uint64_t cor = a->offset;

	if (flags & TFILE_TSYNC_INTERPOLATE) {
		int64_t d = (int64_t)((uint64_t)b->time - (uint64_t)a->time);
		int64_t x = (int64_t)((ts - (uint64_t)a->time) *
				      ((uint64_t)b->offset - (uint64_t)a->offset));
		int64_t num = (int64_t)((uint64_t)x + (uint64_t)(d / 2)), q;

		/* d is not 0: the times are distinct.  INT64_MIN / -1 traps. */
		q = d == -1 ? (int64_t)(0 - (uint64_t)num) : num / d;
		cor += (uint64_t)q;
	}
	return ((ts * (uint64_t)a->scaling) >> a->fraction) + cor;
}

uint64_t tfile_tsync_apply(const struct tfile_tsync *t, int cpu, uint64_t ts)
{
	const struct tfile_tsync_cpu *c;
	uint32_t lo, hi;

	if (!t || cpu < 0 || cpu >= t->ncpus || !t->cpus[cpu].n)
		return ts;
	c = &t->cpus[cpu];
	if (c->n == 1)
		return ts + (uint64_t)c->s[0].offset;
	/* The pair around ts: the last sample at or before it, and the next. */
	if ((int64_t)ts <= c->s[0].time)
		return correct(ts, t->flags, &c->s[0], &c->s[1]);
	if ((int64_t)ts >= c->s[c->n - 1].time)
		return correct(ts, t->flags, &c->s[c->n - 2], &c->s[c->n - 1]);
	lo = 0;
	hi = c->n - 1;		/* s[lo].time < ts < s[hi].time */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->s[mid].time <= (int64_t)ts)
			lo = mid;
		else
			hi = mid;
	}
	return correct(ts, t->flags, &c->s[lo], &c->s[lo + 1]);
}

int tfile_guest_parse(const uint8_t *p, size_t n, bool big_endian, struct tfile_guest *out)
{
	struct optrd r = { .p = p, .n = n, .be = big_endian };
	const uint8_t *nul = memchr(p, 0, n);
	uint64_t id, count, cpu, pid;

	*out = (struct tfile_guest){ 0 };
	if (!nul)
		return -EBADMSG;
	r.pos = nul - p + 1;
	if (!take(&r, 8, &id) || !take(&r, 4, &count) || count > (n - r.pos) / 8)
		return -EBADMSG;
	out->pids = xcalloc(count ? count : 1, sizeof(*out->pids));
	out->nvcpus = count;
	for (uint64_t i = 0; i < count; i++) {
		take(&r, 4, &cpu);
		take(&r, 4, &pid);
		if (cpu >= count) {
			free(out->pids);
			*out = (struct tfile_guest){ 0 };
			return -EBADMSG;
		}
		out->pids[cpu] = (int)(uint32_t)pid;
	}
	out->name = xmalloc(nul - p + 1);
	memcpy(out->name, p, nul - p + 1);
	out->trace_id = id;
	return 0;
}
