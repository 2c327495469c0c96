// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user's own metrics (serve-local.h): --hist tables turned into
 * counter families, and --latency pairs into a histogram.
 *
 * A --hist is aggregated by the kernel's hist trigger where the kernel has
 * them, else by hist's userspace engine fed the session's records; either
 * way a scrape reads the table (the hist file, or the engine's result) and
 * sets each row's series.  Rows never leave a table and a row's series is
 * fixed once made (metrics.h: later label sets fold into "other" for
 * good), so the sum set on a series never goes down.
 *
 * A --latency pair is matched as top matches it (the decoder marks starts
 * and ends, pair.h pairs them across CPUs) and observed in nanoseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "hash.h"
#include "pair.h"
#include "serve-local.h"
#include "tr.h"

/* Pending latency starts per pair before the table starts over. */
#define LAT_MAX_PENDING 65536
/* A table key is never ~0 (hash.h): the match value's top bit is dropped. */
#define LAT_KEY_MASK (~(1ULL << 63))

struct uhist {
	const struct serve_hist *def;
	bool kernel;
	struct hist_user *u;		/* the userspace engine, or NULL */
	struct mx_family *f[HIST_MAX_VALS + 1];	/* hits, then each value */
	size_t nf;
};

struct waiting {
	uint64_t tag;
	struct pair p;
};

struct ulat {
	struct top_decoder *dec;
	struct mx_series *s;
	struct htab pend;
};

struct serve_user {
	struct tfs_inst *inst;
	struct uhist *h;
	size_t nh;
	struct ulat *l;
	size_t nl;
};

/* ---- the command's text ---- */

static bool metric_name_ok(const char *s)
{
	if (!*s || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* Words split on blanks; '...' and "..." keep blanks (a filter's). */
static int split_words(const char *text, struct strv *out)
{
	const char *p = text;

	while (*p) {
		char *w = xstrdup(""), q = 0;
		size_t n = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p) {
			free(w);
			break;
		}
		for (; *p && (q || (*p != ' ' && *p != '\t')); p++) {
			if (q && *p == q) {
				q = 0;
				continue;
			}
			if (!q && (*p == '\'' || *p == '"')) {
				q = *p;
				continue;
			}
			w = xrealloc(w, n + 2);
			w[n++] = *p;
			w[n] = '\0';
		}
		if (q) {
			free(w);
			return tr_fail(-EINVAL, "unmatched %c in '%s'", q, text);
		}
		strv_push_owned(out, w);
	}
	return 0;
}

int serve_hist_parse(const char *text, struct serve_hist *out)
{
	struct strv w = { 0 };
	const char *event = NULL, *keys = NULL, *filter = NULL, *name = NULL;
	char *vals = NULL, *stem;
	int r = split_words(text, &w);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !r && i < w.n; i++) {
		const char **to = NULL, *o = w.v[i];

		if (!strcmp(o, "-k") || !strcmp(o, "--keys"))
			to = &keys;
		else if (!strcmp(o, "-v") || !strcmp(o, "--vals"))
			to = (const char **)&vals;
		else if (!strcmp(o, "-f") || !strcmp(o, "--filter"))
			to = &filter;
		else if (!strcmp(o, "-n") || !strcmp(o, "--name"))
			to = &name;
		else if (o[0] == '-')
			r = tr_fail(-EINVAL, "bad --hist '%s': unknown option '%s' (-k, -v, -f, -n)",
				    text, o);
		else if (event)
			r = tr_fail(-EINVAL, "bad --hist '%s': one event, then -k KEYS", text);
		else
			event = o;
		if (to && i + 1 == w.n)
			r = tr_fail(-EINVAL, "bad --hist '%s': %s wants a value", text, o);
		else if (to)
			*to = w.v[++i];
	}
	if (!r && (!event || !keys))
		r = tr_fail(-EINVAL, "bad --hist '%s': want 'SYS:EVENT -k KEY[,KEY] [-v VAL]'", text);
	/* hitcount first: the counts of each key beside the values' sums. */
	if (!r)
		vals = vals ? xasprintf("hitcount,%s", vals) : NULL;
	if (!r)
		r = hist_spec_build(&out->spec, event, keys, vals, NULL, filter, 0, NULL);
	free(vals);
	if (!r && out->spec.nkeys > MX_MAX_LABELS)
		r = tr_fail(-EINVAL, "bad --hist '%s': at most %d keys (they are the labels)", text,
			    MX_MAX_LABELS);
	for (size_t i = 0; !r && i < out->spec.nkeys; i++)
		if (out->spec.keys[i].mod == HIST_MOD_STACKTRACE)
			r = tr_fail(-EINVAL, "bad --hist '%s': a stack is not a label", text);
	stem = xstrdup(name ? name : r ? "" : out->spec.event);
	if (!r && !metric_name_ok(stem))
		r = tr_fail(-EINVAL, "bad --hist name '%s': letters, digits and _ only", stem);
	out->name = stem;
	strv_free(&w);
	if (r)
		serve_hist_free(out);
	return r;
}

void serve_hist_free(struct serve_hist *h)
{
	hist_spec_free(&h->spec);
	free(h->name);
	memset(h, 0, sizeof(*h));
}

int serve_lat_parse(const char *text, struct serve_lat *out)
{
	const char *eq = strchr(text, '='), *comma = strchr(text, ',');
	char *name = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	/* NAME=START,END: a '=' before the first ',' names it (MATCH has one after). */
	if (eq && (!comma || eq < comma)) {
		name = xasprintf("%.*s", (int)(eq - text), text);
		text = eq + 1;
	}
	r = top_lat_parse(text, &out->spec);
	if (!r && !name) {
		const char *s = strchr(out->spec.start, ':'), *e = strchr(out->spec.end, ':');

		name = xasprintf("%s_%s", s ? s + 1 : out->spec.start, e ? e + 1 : out->spec.end);
	}
	if (!r && !metric_name_ok(name))
		r = tr_fail(-EINVAL, "bad --latency name '%s': letters, digits and _ only", name);
	out->name = name;
	if (r)
		serve_lat_free(out);
	return r;
}

void serve_lat_free(struct serve_lat *l)
{
	top_lat_free(&l->spec);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

/* ---- the engines ---- */

/* A family's name taken? (the defaults', or an earlier --hist's) */
static int name_free(struct mx *m, const char *name)
{
	if (mx_find(m, name))
		return tr_fail(-EEXIST, "metric '%s' twice: give a --hist or --latency another "
					"name (-n NAME, NAME=...)", name);
	return 0;
}

static int hist_families(struct mx *m, struct uhist *h, size_t max_series)
{
	const struct hist_spec *s = &h->def->spec;
	const char *labels[MX_MAX_LABELS + 1] = { 0 };
	char *lab[MX_MAX_LABELS] = { 0 };
	int r = 0;

	for (size_t k = 0; k < s->nkeys; k++) {
		/* A key's field name is a label name already, but for a leading digit. */
		lab[k] = xstrdup(s->keys[k].name);
		labels[k] = lab[k];
	}
	for (size_t v = 0; !r && v < (s->nvals ? s->nvals : 1); v++) {
		const char *val = s->nvals ? s->vals[v].name : "hitcount";
		bool hits = !strcmp(val, "hitcount");
		char *n = xasprintf("tr_%s_%s", h->def->name, hits ? "hits" : val);
		char *help = hits ? xasprintf("Hits of %s:%s per key (--hist)", s->system, s->event)
				  : xasprintf("Sum of %s of %s:%s per key (--hist)", val, s->system,
					      s->event);

		r = name_free(m, n);
		if (!r)
			h->f[h->nf++] = mx_family(m, n, MX_COUNTER, NULL, help, labels, max_series);
		free(n);
		free(help);
	}
	for (size_t k = 0; k < s->nkeys; k++)
		free(lab[k]);
	return r;
}

int serve_user_new(const struct serve_user_opts *o, struct serve_user **out)
{
	struct serve_user *u = xcalloc(1, sizeof(*u));
	int r = 0;

	u->inst = o->inst;
	u->h = xcalloc(o->nhists + 1, sizeof(*u->h));
	u->l = xcalloc(o->nlats + 1, sizeof(*u->l));
	for (size_t i = 0; !r && i < o->nhists; i++) {
		struct uhist *h = &u->h[u->nh++];

		h->def = &o->hists[i];
		h->kernel = serve_engine_kernel(o->engine);
		r = hist_families(o->mx, h, o->max_series);
		if (!r && h->kernel)
			r = hist_kernel_add(o->inst, &h->def->spec);
		else if (!r)
			r = hist_user_new(o->tep, &h->def->spec, &h->u);
	}
	for (size_t i = 0; !r && i < o->nlats; i++) {
		const struct serve_lat *d = &o->lats[i];
		struct ulat *l = &u->l[u->nl++];
		char *n = xasprintf("tr_%s_latency_seconds", d->name);
		char *help = xasprintf("From %s to %s, paired on %s=%s (--latency)", d->spec.start,
				       d->spec.end, d->spec.start_field, d->spec.end_field);
		uint64_t le[SERVE_LAT_BOUNDS];

		htab_init(&l->pend, sizeof(struct waiting), 0, 0);
		mx_log2_bounds(le, SERVE_LAT_BOUNDS, 1000);
		r = name_free(o->mx, n);
		if (!r)
			r = top_decoder_new(o->tep, &d->spec, &l->dec);
		if (!r)
			l->s = mx_series(mx_family_hist(o->mx, n, "seconds", help, NULL, 0, le,
							SERVE_LAT_BOUNDS, 1e-9),
					 NULL);
		free(n);
		free(help);
	}
	if (r) {
		serve_user_free(u);
		return r;
	}
	*out = u;
	return 0;
}

bool serve_engine_kernel(enum serve_engine e)
{
	return e == SERVE_ENGINE_KERNEL || (e == SERVE_ENGINE_AUTO && caps_has(CAP_HIST));
}

static void lat_feed(struct ulat *l, const struct tfile_event *ev)
{
	struct top_rec r;
	struct waiting *w;
	uint64_t lat;
	int cpu;

	top_decode(l->dec, ev, &r);
	if (!r.lat_start && !r.lat_end)
		return;
	if (l->pend.n >= LAT_MAX_PENDING)
		htab_clear(&l->pend);
	/* End first: a record that is both (switch to switch) ends one pair and starts the next. */
	if (r.lat_end) {
		w = htab_get(&l->pend, r.lat_ekey & LAT_KEY_MASK, NULL);
		if (pair_end(&w->p, r.ts, r.cpu, &lat))
			mx_observe(l->s, lat);
	}
	if (r.lat_start) {
		w = htab_get(&l->pend, r.lat_skey & LAT_KEY_MASK, NULL);
		if (pair_start(&w->p, r.ts, &lat, &cpu))
			mx_observe(l->s, lat);
	}
}

void serve_user_feed(struct serve_user *u, const struct tfile_event *ev)
{
	for (size_t i = 0; i < u->nh; i++)
		if (u->h[i].u)
			hist_user_event(u->h[i].u, ev);
	for (size_t i = 0; i < u->nl; i++)
		lat_feed(&u->l[i], ev);
}

/* ---- a scrape ---- */

/* A key cell as a label value: what tr hist shows, without its pid or address. */
static char *label_text(const struct hist_col *col, const struct hist_cell *c)
{
	switch (col->kind) {
	case HIST_K_SYM:
	case HIST_K_TASK:
	case HIST_K_SYSCALL:
		if (c->text && *c->text)
			return xstrdup(c->text);
		return xasprintf(col->kind == HIST_K_SYM ? "0x%" PRIx64 : "%" PRIu64, c->num);
	case HIST_K_RANGE:
		return xasprintf("%" PRIu64, c->num);	/* the bucket's low end */
	default:
		return hist_cell_text(col, c);
	}
}

struct acc {
	struct mx_series *s;
	uint64_t v;
};

static int by_series(const void *a, const void *b)
{
	const struct acc *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

/* Each row's value added to its series (rows folded into "other" add up), then set. */
static void set_column(struct mx_family *f, const struct hist_result *res, size_t col,
		       char ***labels)
{
	struct acc *a = xcalloc(res->nrows + 1, sizeof(*a));
	size_t n = 0;

	for (size_t row = 0; row < res->nrows; row++) {
		a[n].s = mx_series(f, (const char *const *)labels[row]);
		a[n++].v = hist_cell(res, row, col)->num;
	}
	qsort(a, n, sizeof(*a), by_series);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint64_t sum = 0;

		for (; j < n && a[j].s == a[i].s; j++)
			sum += a[j].v;
		mx_set(a[i].s, (double)sum);
		i = j;
	}
	free(a);
}

static void hist_set(struct uhist *h, const struct hist_result *res)
{
	char ***labels = xcalloc(res->nrows + 1, sizeof(*labels));

	for (size_t row = 0; row < res->nrows; row++) {
		labels[row] = xcalloc(res->nkeys + 1, sizeof(char *));
		for (size_t k = 0; k < res->nkeys; k++)
			labels[row][k] = label_text(&res->cols[k], hist_cell(res, row, k));
	}
	/* The families follow the value columns, hitcount first. */
	for (size_t i = 0; i < h->nf && res->nkeys + i < res->ncols; i++)
		set_column(h->f[i], res, res->nkeys + i, labels);
	for (size_t row = 0; row < res->nrows; row++) {
		for (size_t k = 0; k < res->nkeys; k++)
			free(labels[row][k]);
		free(labels[row]);
	}
	free(labels);
}

void serve_user_read(struct serve_user *u, struct serve_user_tables *t)
{
	t->res = xcalloc(u->nh + 1, sizeof(*t->res));
	t->ok = xcalloc(u->nh + 1, sizeof(bool));
	t->n = u->nh;
	for (size_t i = 0; i < u->nh; i++) {
		const struct hist_spec *s = &u->h[i].def->spec;
		char *text = NULL;

		if (!u->h[i].kernel)
			continue;
		/* A table that cannot be read leaves its series as they were. */
		if (!hist_kernel_read(u->inst, s->system, s->event, &text) &&
		    !hist_kernel_ours(text, s, &t->res[i]))
			t->ok[i] = true;
		free(text);
	}
}

void serve_user_set(struct serve_user *u, struct serve_user_tables *t)
{
	for (size_t i = 0; i < u->nh; i++) {
		if (u->h[i].u && !hist_user_result(u->h[i].u, &t->res[i]))
			t->ok[i] = true;
		if (t->ok[i])
			hist_set(&u->h[i], &t->res[i]);
	}
}

void serve_user_tables_free(struct serve_user_tables *t)
{
	for (size_t i = 0; i < t->n; i++)
		hist_result_free(&t->res[i]);
	free(t->res);
	free(t->ok);
	memset(t, 0, sizeof(*t));
}

void serve_user_free(struct serve_user *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nh; i++)
		hist_user_free(u->h[i].u);
	for (size_t i = 0; i < u->nl; i++) {
		top_decoder_free(u->l[i].dec);
		htab_clear(&u->l[i].pend);
	}
	free(u->h);
	free(u->l);
	free(u);
}
