// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The metrics registry (include/metrics.h): each family a vector of series
 * and a hashed table from their label values to their index.  A series'
 * key is its label values, each NUL-ended, one after the other, so that
 * ("a", "bc") and ("ab", "c") differ.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "metrics.h"
#include "tr.h"

struct mx_series {
	const struct mx_family *f;
	char *key;
	size_t keylen;
	uint64_t v;
	double d;
	bool is_set;		/* mx_set() gave the value */
	uint64_t *b;		/* a histogram's counts per bound (not cumulative) */
	uint64_t count, sum;
};

struct slot {
	uint64_t tag;
	uint32_t idx;
};

struct mx_family {
	char *name, *unit, *help;
	enum mx_type type;
	const char *labels[MX_MAX_LABELS];
	size_t nlabels, max;
	struct mx_series **s;
	size_t n, cap;
	struct htab idx;
	struct mx_series *other;
	uint64_t folded;
	uint64_t *le;
	size_t nle;
	double scale;
};

struct mx {
	struct mx_family **f;
	size_t n, cap;
};

struct mx *mx_new(void)
{
	return xcalloc(1, sizeof(struct mx));
}

static void series_free(struct mx_series *s)
{
	if (!s)
		return;
	free(s->key);
	free(s->b);
	free(s);
}

void mx_free(struct mx *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		struct mx_family *f = m->f[i];

		for (size_t j = 0; j < f->n; j++)
			series_free(f->s[j]);
		free(f->s);
		htab_clear(&f->idx);
		for (size_t j = 0; j < f->nlabels; j++)
			free((char *)f->labels[j]);
		free(f->name);
		free(f->unit);
		free(f->help);
		free(f->le);
		free(f);
	}
	free(m->f);
	free(m);
}

struct mx_family *mx_family(struct mx *m, const char *name, enum mx_type type,
			    const char *unit, const char *help, const char *const *labels,
			    size_t max_series)
{
	struct mx_family *f = xcalloc(1, sizeof(*f));

	f->name = xstrdup(name);
	f->unit = unit ? xstrdup(unit) : NULL;
	f->help = xstrdup(help ? help : "");
	f->type = type;
	for (size_t i = 0; labels && labels[i] && i < MX_MAX_LABELS; i++)
		f->labels[f->nlabels++] = xstrdup(labels[i]);
	/* One for "other", at least one of its own. */
	f->max = max_series ? max_series < 2 ? 2 : max_series : 1000;
	htab_init(&f->idx, sizeof(struct slot), 0, HTAB_HASHED);
	f->scale = 1;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->f = xrealloc(m->f, m->cap * sizeof(*m->f));
	}
	m->f[m->n++] = f;
	return f;
}

struct mx_family *mx_find(const struct mx *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->f[i]->name, name))
			return m->f[i];
	return NULL;
}

struct mx_family *mx_family_hist(struct mx *m, const char *name, const char *unit,
				 const char *help, const char *const *labels, size_t max_series,
				 const uint64_t *le, size_t n, double scale)
{
	struct mx_family *f = mx_family(m, name, MX_HISTOGRAM, unit, help, labels, max_series);

	f->le = xmalloc((n ? n : 1) * sizeof(*le));
	memcpy(f->le, le, n * sizeof(*le));
	f->nle = n;
	f->scale = scale;
	return f;
}

void mx_family_scale(struct mx_family *f, double scale)
{
	f->scale = scale;
}

static struct mx_series *series_new(struct mx_family *f, const char *key, size_t keylen)
{
	struct mx_series *s = xcalloc(1, sizeof(*s));

	s->f = f;
	s->key = xmalloc(keylen ? keylen : 1);
	memcpy(s->key, key, keylen);
	s->keylen = keylen;
	if (f->type == MX_HISTOGRAM)
		s->b = xcalloc(f->nle + 1, sizeof(*s->b));
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->s = xrealloc(f->s, f->cap * sizeof(*f->s));
	}
	f->s[f->n++] = s;
	return s;
}

static uint64_t key_tag(const char *key, size_t len)
{
	uint64_t tag = 0x84222325cbf29ce4ULL;

	for (size_t i = 0; i < len; i++)
		tag = tag * 33 + (unsigned char)key[i];
	return tag + !tag;
}

/* The slot of key: its series' (slot->tag set) or the empty one it would take. */
static struct slot *find(struct mx_family *f, const char *key, size_t len, uint64_t tag)
{
	struct slot *e;
	size_t i;

	htab_reserve(&f->idx, 1);
	for (e = htab_first(&f->idx, tag, &i); htab_tag(e); e = htab_next(&f->idx, tag, &i)) {
		const struct mx_series *s = f->s[e->idx];

		if (s->keylen == len && !memcmp(s->key, key, len))
			break;
	}
	return e;
}

static struct mx_series *add(struct mx_family *f, struct slot *e, const char *key, size_t len,
			     uint64_t tag)
{
	e = htab_claim(&f->idx, e, tag);
	e->idx = f->n;
	return series_new(f, key, len);
}

/* The fold's series: every label "other" (the one a set so named had, if any). */
static struct mx_series *other_of(struct mx_family *f)
{
	if (!f->other) {
		char key[MX_MAX_LABELS * 6];
		size_t len = 0;
		uint64_t tag;
		struct slot *e;

		for (size_t i = 0; i < f->nlabels; i++) {
			memcpy(key + len, "other", 6);
			len += 6;
		}
		tag = key_tag(key, len);
		e = find(f, key, len, tag);
		f->other = htab_tag(e) ? f->s[e->idx] : add(f, e, key, len, tag);
	}
	return f->other;
}

struct mx_series *mx_series(struct mx_family *f, const char *const *values)
{
	char buf[512], *key = buf;
	size_t len = 0, need = 0;
	struct mx_series *s;
	struct slot *e;
	uint64_t tag;

	for (size_t i = 0; i < f->nlabels; i++)
		need += strlen(values[i] ? values[i] : "") + 1;
	if (need > sizeof(buf))
		key = xmalloc(need);
	for (size_t i = 0; i < f->nlabels; i++) {
		const char *v = values[i] ? values[i] : "";
		size_t l = strlen(v) + 1;

		memcpy(key + len, v, l);
		len += l;
	}
	tag = key_tag(key, len);
	e = find(f, key, len, tag);
	if (htab_tag(e)) {
		s = f->s[e->idx];
	} else if (f->n + !f->other >= f->max) {
		f->folded++;
		s = other_of(f);
	} else {
		s = add(f, e, key, len, tag);
	}
	if (key != buf)
		free(key);
	return s;
}

void mx_add(struct mx_series *s, uint64_t v)
{
	s->v += v;
}

void mx_set(struct mx_series *s, double v)
{
	s->d = v;
	s->is_set = true;
}

void mx_observe(struct mx_series *s, uint64_t v)
{
	const struct mx_family *f = s->f;
	size_t i = 0;

	/* Some twenty bounds, and the small ones are the common case: a linear scan. */
	while (i < f->nle && v > f->le[i])
		i++;
	s->b[i]++;
	s->count++;
	s->sum += v;
}

size_t mx_family_size(const struct mx_family *f)
{
	return f->n;
}

uint64_t mx_family_folded(const struct mx_family *f)
{
	return f->folded;
}

void mx_log2_bounds(uint64_t *le, size_t n, uint64_t base)
{
	for (size_t i = 0; i < n; i++)
		le[i] = base << i;
}

/*
 * v times the family's scale, as a division where the scale is a
 * fraction (1e-9): 1000 / 1e9 is the double nearest 1e-06, which reads
 * as "1e-06", where 1000 * 1e-9 is one a bit off it.
 */
static double scaled(const struct mx_family *f, double v)
{
	return f->scale < 1 ? v / nearbyint(1 / f->scale) : v * f->scale;
}

static const enum expo_type expo_of[] = {
	[MX_COUNTER] = EXPO_COUNTER, [MX_GAUGE] = EXPO_GAUGE,
	[MX_HISTOGRAM] = EXPO_HISTOGRAM, [MX_INFO] = EXPO_INFO,
};

static void write_series(const struct mx_family *f, const struct mx_series *s, struct expo *e,
			 double *le, uint64_t *cum)
{
	const char *labels[2 * MX_MAX_LABELS + 1];
	const char *v = s->key;
	size_t k = 0;

	for (size_t i = 0; i < f->nlabels; i++) {
		labels[k++] = f->labels[i];
		labels[k++] = v;
		v += strlen(v) + 1;
	}
	labels[k] = NULL;
	if (f->type == MX_HISTOGRAM) {
		uint64_t c = 0;

		for (size_t i = 0; i < f->nle; i++)
			cum[i] = c += s->b[i];
		expo_histogram(e, labels, le, cum, f->nle, s->count, scaled(f, (double)s->sum));
	} else if (s->is_set) {
		expo_double(e, labels, s->d);
	} else if (f->scale != 1) {
		expo_double(e, labels, scaled(f, (double)s->v));
	} else {
		expo_u64(e, labels, s->v);
	}
}

void mx_write(const struct mx *m, struct expo *e)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct mx_family *f = m->f[i];
		double *le = NULL;
		uint64_t *cum = NULL;

		/* A family with no series yet is still named: a dashboard's query finds it. */
		expo_family(e, f->name, expo_of[f->type], f->unit, f->help);
		if (f->type == MX_HISTOGRAM) {
			le = xmalloc((f->nle + 1) * sizeof(*le));
			cum = xmalloc((f->nle + 1) * sizeof(*cum));
			for (size_t j = 0; j < f->nle; j++)
				le[j] = scaled(f, (double)f->le[j]);
		}
		for (size_t j = 0; j < f->n; j++)
			write_series(f, f->s[j], e, le, cum);
		free(le);
		free(cum);
	}
}
