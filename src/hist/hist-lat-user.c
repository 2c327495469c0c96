// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Latency histograms in userspace, for kernels without hist triggers or
 * synthetic events, live or from a trace.dat file.
 *
 * The start events' timestamps are kept per match value (read once, as the
 * kernel's variables are); each end event with a pending start makes a
 * record of a stand-in synthetic event "synthetic:tr_lat" (u64 lat plus
 * the end event's key fields), which the ordinary userspace aggregator
 * counts, so keys, modifiers, sorting and rendering are those of every
 * other histogram.  Events must come in time order: a file is merged over
 * its CPUs; a live run keeps the two events' records and sorts them at the
 * end.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "fmt.h"
#include "fmt-filter.h"
#include "hash.h"
#include "hist.h"
#include "hist-local.h"
#include "session.h"
#include "rec.h"

#define SYNTH_ID 65432

struct side {
	char *system, *event;
	struct tep_event *ev;
	struct tep_format_field *match;
	struct tep_event_filter *filter;
};

/* A start waiting for its end: hash.h's hashed table, as a match value may be any 64 bits. */
struct pend {
	uint64_t tag;		/* htab_hash_u64(k) */
	uint64_t k;		/* the match value */
	uint64_t ts;
};

struct ulat {
	struct tep_handle *tep;	/* the trace's */
	struct tep_handle *step;	/* the stand-in synthetic event's */
	const struct hist_latency *l;
	struct side start, end;
	struct tep_format_field *copy[HIST_MAX_KEYS];	/* end fields copied into the record */
	unsigned copy_off[HIST_MAX_KEYS], copy_size[HIST_MAX_KEYS];
	size_t ncopy;
	unsigned rec_size;
	struct hist_spec spec;
	struct hist_user *u;
	struct htab pend;	/* struct pend */
	/* The max and the end fields saved with it. */
	bool has_max;
	uint64_t max;
	char *saved;
	struct strv save;
};

static uint64_t field_u64(struct tep_handle *tep, struct tep_format_field *f, const void *data)
{
	uint64_t v = tep_read_number(tep, (const char *)data + f->offset, f->size);

	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {
		unsigned sh = 64 - 8 * f->size;

		v = (uint64_t)((int64_t)(v << sh) >> sh);
	}
	return v;
}

static bool is_string(const struct tep_format_field *f)
{
	return (f->flags & TEP_FIELD_IS_STRING) ||
	       ((f->flags & TEP_FIELD_IS_ARRAY) && f->elementsize == 1);
}

static int side_init(struct ulat *x, struct side *s, const char *sysev, const char *match,
		     const char *filter)
{
	if (hist_event_parse(sysev, &s->system, &s->event))
		return -EINVAL;
	s->ev = tep_find_event_by_name(x->tep, s->system, s->event);
	if (!s->ev)
		return tr_fail(-ENOENT, "no event '%s' in the trace", sysev);
	s->match = tep_find_any_field(s->ev, match);
	if (!s->match)
		return hist_no_field(s->ev, match, sysev);
	if (is_string(s->match) || s->match->size > 8)
		return tr_fail(-ENOTSUP, "--match field '%s' must be a number in userspace", match);
	if (filter) {
		char *ev = xasprintf("%s/%s", s->system, s->event);
		int r = fmt_filter_compile(x->tep, filter, FMT_FILTER_EXPR, ev, &s->filter);

		free(ev);
		return r;
	}
	return 0;
}

static void side_free(struct side *s)
{
	free(s->system);
	free(s->event);
	if (s->filter)
		tep_filter_free(s->filter);
}

static bool side_match(struct ulat *x, struct side *s, const struct tfile_event *ev)
{
	struct tep_record rec = { .ts = ev->ts, .size = ev->size, .cpu = ev->cpu,
				  .data = ev->data };

	(void)x;
	return !s->filter || tep_filter_match(s->filter, &rec) == TEP_ERRNO__FILTER_MATCH;
}

/* The stand-in synthetic event: u64 lat, then the end event's key fields. */
static int synth_init(struct ulat *x)
{
	char *fmt = xasprintf("name: tr_lat\nID: %d\nformat:\n"
			      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			      "\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;\n", SYNTH_ID);
	unsigned off = 16;
	char *tmp;
	int r;

	for (size_t i = 0; i < x->spec.nkeys; i++) {
		const char *n = x->spec.keys[i].name;
		struct tep_format_field *f;
		unsigned size;

		if (!strcmp(n, "lat") || hist_field_special(n))
			continue;
		f = tep_find_any_field(x->end.ev, n);
		if (!f) {
			char *sysev = xasprintf("%s:%s", x->end.system, x->end.event);

			r = hist_no_field(x->end.ev, n, sysev);
			free(sysev);
			return r;
		}
		size = (f->flags & TEP_FIELD_IS_DYNAMIC) || !f->size ? 64 : f->size;
		if (is_string(f))
			tmp = xasprintf("%s\tfield:char %s[%u];\toffset:%u;\tsize:%u;\tsigned:0;\n",
					fmt, n, size, off, size);
		else
			tmp = xasprintf("%s\tfield:u64 %s;\toffset:%u;\tsize:8;\tsigned:%d;\n", fmt, n,
					off, !!(f->flags & TEP_FIELD_IS_SIGNED));
		free(fmt);
		fmt = tmp;
		x->copy[x->ncopy] = f;
		x->copy_off[x->ncopy] = off;
		x->copy_size[x->ncopy] = is_string(f) ? size : 8;
		off += (x->copy_size[x->ncopy] + 7) & ~7u;
		x->ncopy++;
	}
	tmp = xasprintf("%s\nprint fmt: \"lat=%%llu\", REC->lat\n", fmt);
	free(fmt);
	fmt = tmp;
	x->rec_size = off;
	/* No events of the kernel's: the host's order, as the records copied from them. */
	x->step = session_tep(&(struct session_tep_opts){ 0 });
	if (!x->step || tep_parse_event(x->step, fmt, strlen(fmt), "synthetic")) {
		free(fmt);
		return tr_fail(-EINVAL, "cannot make the stand-in synthetic event");
	}
	free(fmt);
	r = hist_user_new(x->step, &x->spec, &x->u);
	return r;
}

static void ulat_free(struct ulat *x)
{
	hist_user_free(x->u);
	if (x->step)
		tep_free(x->step);
	side_free(&x->start);
	side_free(&x->end);
	hist_spec_free(&x->spec);
	htab_clear(&x->pend);
	free(x->saved);
	strv_free(&x->save);
}

/* k's pending start, or the empty slot where it would go; NULL when there are no slots. */
static struct pend *pend_of(struct ulat *x, uint64_t k, uint64_t tag)
{
	struct pend *p;
	size_t i;

	for (p = htab_first(&x->pend, tag, &i); p && p->tag; p = htab_next(&x->pend, tag, &i))
		if (p->k == k)
			break;
	return p;
}

static void save_max(struct ulat *x, const struct tfile_event *ev, uint64_t lat)
{
	char *s = xstrdup(""), *t;

	x->has_max = true;
	x->max = lat;
	for (size_t i = 0; i < x->save.n; i++) {
		struct tep_format_field *f = tep_find_any_field(x->end.ev, x->save.v[i]);

		if (!f)
			continue;
		if (is_string(f)) {
			int n = f->size ? (int)strnlen((const char *)ev->data + f->offset, f->size) : 0;

			t = xasprintf("%s%s%s: %.*s", s, *s ? "  " : "", f->name, n,
				      (const char *)ev->data + f->offset);
		} else {
			t = xasprintf("%s%s%s: %lld", s, *s ? "  " : "", f->name,
				      (long long)field_u64(x->tep, f, ev->data));
		}
		free(s);
		s = t;
	}
	free(x->saved);
	x->saved = s;
}

static void ulat_event(struct ulat *x, const struct tfile_event *ev)
{
	unsigned type;
	struct pend *p;

	if (ev->size < 2)
		return;
	type = (unsigned)tep_read_number(x->tep, ev->data, 2);
	if (type == (unsigned)x->start.ev->id && side_match(x, &x->start, ev)) {
		uint64_t k = field_u64(x->tep, x->start.match, ev->data), tag = htab_hash_u64(k);

		htab_reserve(&x->pend, 1);
		p = pend_of(x, k, tag);
		if (!p->tag) {
			p = htab_claim(&x->pend, p, tag);
			p->k = k;
		}
		p->ts = ev->ts;
	}
	if (type == (unsigned)x->end.ev->id && x->pend.n && side_match(x, &x->end, ev)) {
		uint64_t k = field_u64(x->tep, x->end.match, ev->data), start, lat;
		uint8_t rec[512] = { 0 };
		struct tfile_event sev = { .ts = ev->ts, .cpu = ev->cpu, .data = rec };

		p = pend_of(x, k, htab_hash_u64(k));
		if (!p->tag)
			return;
		start = p->ts;
		htab_del(&x->pend, p);
		if (ev->ts < start)
			return;
		lat = ev->ts - start;
		if (!x->l->ns)
			lat /= 1000;
		if (!x->has_max || lat > x->max)
			save_max(x, ev, lat);
		*(uint16_t *)rec = SYNTH_ID;
		memcpy(rec + 8, &lat, 8);
		for (size_t c = 0; c < x->ncopy; c++) {
			struct tep_format_field *f = x->copy[c];

			if (is_string(f)) {
				const uint8_t *p = (const uint8_t *)ev->data + f->offset;
				unsigned n = f->size;

				if (f->flags & TEP_FIELD_IS_DYNAMIC) {
					uint32_t loc = (uint32_t)tep_read_number(x->tep, p, 4);

					n = loc >> 16;
					p = (const uint8_t *)ev->data + (loc & 0xffff);
				}
				if (n > x->copy_size[c])
					n = x->copy_size[c];
				if (p + n <= (const uint8_t *)ev->data + ev->size)
					memcpy(rec + x->copy_off[c], p, n);
			} else {
				uint64_t v = field_u64(x->tep, f, ev->data);

				memcpy(rec + x->copy_off[c], &v, 8);
			}
		}
		sev.size = x->rec_size;
		hist_user_event(x->u, &sev);
	}
}

static int ulat_init(struct ulat *x, struct tep_handle *tep, const struct hist_latency *l,
		     const char *keys)
{
	const char *eq = strchr(l->match, '=');
	char *sf, *key_spec;
	int r;

	memset(x, 0, sizeof(*x));
	htab_init(&x->pend, sizeof(struct pend), 1024, HTAB_HASHED);
	x->tep = tep;
	x->l = l;
	if (!eq || eq == l->match || !eq[1])
		return tr_fail(-EINVAL, "bad --match '%s': want START_FIELD=END_FIELD", l->match);
	if (l->onmax && strcmp(l->onmax, "lat"))
		return tr_fail(-ENOTSUP, "the userspace engine tracks the max of lat only");
	if (l->snapshot)
		return tr_fail(-ENOTSUP, "--snapshot needs the kernel engine");
	sf = xasprintf("%.*s", (int)(eq - l->match), l->match);
	r = side_init(x, &x->start, l->start, sf, l->start_filter);
	free(sf);
	if (!r)
		r = side_init(x, &x->end, l->end, eq + 1, l->end_filter);
	if (r)
		return r;
	if (l->save) {
		char *c = xstrdup(l->save), *save = NULL;

		for (char *t = strtok_r(c, ",", &save); t; t = strtok_r(NULL, ",", &save))
			strv_push(&x->save, t);
		free(c);
	}
	key_spec = hist_latency_keys(keys);
	r = hist_spec_build(&x->spec, "synthetic:tr_lat", key_spec, NULL, "lat", NULL, 0, NULL);
	if (!r)
		r = synth_init(x);
	free(key_spec);
	return r;
}

/* The table, with the worst case found and the engine's note. */
static int ulat_finish(struct ulat *x, char *note, struct hist_result *res)
{
	int r = hist_user_result(x->u, res);

	if (r) {
		free(note);
		return r;
	}
	res->has_max = x->has_max;
	res->max = x->max;
	res->max_saved = x->saved;
	x->saved = NULL;
	res->note = note;
	return 0;
}

static int cursor_next(void *ctx, struct tfile_event *ev)
{
	return tfile_cursor_next(ctx, ev);
}

int hist_ulat_file(const struct hist_latency *l, const char *path, const char *keys,
		   struct hist_result *res)
{
	struct tfile *tf = NULL;
	struct tfile_cursor *cur[1024];
	struct fmt_merge *m = NULL;
	struct tfile_event *ev;
	struct ulat x;
	uint64_t n = 0;
	size_t nc = 0;
	void *tag;
	int r = tfile_open(path, 0, &tf);

	if (r)
		return r;
	r = ulat_init(&x, tfile_tep(tf), l, keys);
	if (!r)
		m = fmt_merge_new();
	/* Every buffer's CPUs, merged by time (a -B recording keeps its events in a BUFFER). */
	for (int b = 0; !r && b < tfile_nbuffers(tf); b++) {
		const struct tfile_buffer *buf = tfile_buffer(tf, b);

		for (int c = 0; !r && !buf->latency && c < buf->ncpus && nc < ARRAY_SIZE(cur);
		     c++) {
			r = tfile_cursor_open(tf, b, c, &cur[nc]);
			if (r)
				break;
			nc++;
			r = fmt_merge_add(m, cursor_next, cur[nc - 1], NULL);
		}
	}
	while (!r && (r = fmt_merge_next(m, &ev, &tag)) == 1) {
		r = 0;
		ulat_event(&x, ev);
		n++;
	}
	if (!r)
		r = ulat_finish(&x, xasprintf("ran in userspace: reading '%s'; %llu events read",
					      path, (unsigned long long)n), res);
	if (m)
		fmt_merge_free(m);
	for (size_t i = 0; i < nc; i++)
		tfile_cursor_free(cur[i]);
	ulat_free(&x);
	tfile_close(tf);
	return r;
}

/* ---- live: keep the two events' records, sort them by time at the end ---- */

struct kept {
	uint64_t ts;
	uint32_t off, size;
	int cpu;
};

struct live {
	struct session_sink sink;	/* keep() under its lock, from each CPU's reader */
	unsigned sid, eid;
	struct kept *k;
	size_t nk, capk;
	uint8_t *data;
	size_t ndata, capdata;
	struct ulat *x;
	const char *why;
	struct hist_result *res;
};

/* Keep a copy of each start and end record (under the lock). */
static int keep(void *arg, const struct tfile_event *ev)
{
	struct live *l = arg;
	unsigned type = ev->size >= 2 ? *(const uint16_t *)ev->data : 0;

	if (type != l->sid && type != l->eid)
		return 0;
	if (l->nk == l->capk) {
		l->capk = l->capk ? l->capk * 2 : 4096;
		l->k = xrealloc(l->k, l->capk * sizeof(*l->k));
	}
	if (l->ndata + ev->size > l->capdata) {
		l->capdata = (l->ndata + ev->size) * 2;
		l->data = xrealloc(l->data, l->capdata);
	}
	memcpy(l->data + l->ndata, ev->data, ev->size);
	l->k[l->nk++] = (struct kept){ ev->ts, (uint32_t)l->ndata, ev->size, ev->cpu };
	l->ndata += ev->size;
	return 0;
}

static int by_ts(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The session ended: the pairs matched in time order, across CPUs. */
static int live_finish(void *arg, struct session *sess, struct session_result *end)
{
	struct live *lv = arg;

	(void)sess;
	if (end->err)
		return 0;
	qsort(lv->k, lv->nk, sizeof(*lv->k), by_ts);
	for (size_t i = 0; i < lv->nk; i++) {
		struct tfile_event ev = { .ts = lv->k[i].ts, .data = lv->data + lv->k[i].off,
					  .size = lv->k[i].size, .cpu = lv->k[i].cpu };

		ulat_event(lv->x, &ev);
	}
	return ulat_finish(lv->x, xasprintf("ran in userspace: %s; %llu events read", lv->why,
					    (unsigned long long)lv->sink.st.events), lv->res);
}

static const struct session_tool ulat_tool = { .finish = live_finish };

int hist_ulat_live(const struct hist_latency *l, struct tfs_inst *in, const struct hist_when *w,
		   const char *keys, const char *why, struct hist_result *res)
{
	struct ulat x = { 0 };
	struct live lv = { .x = &x, .why = why, .res = res };
	struct evsel_list ev = { 0 };
	struct strv both = { 0 };
	struct tep_handle *tep;
	char *en = NULL;
	int r = 0;

	session_sink_init(&lv.sink, keep, &lv);
	for (int i = 0; i < 2 && !r; i++) {
		char *sys, *e;

		if (hist_event_parse(i ? l->end : l->start, &sys, &e))
			r = tr_fail(-ENOENT, "no such event '%s'", i ? l->end : l->start);
		else
			strv_push_owned(&both, xasprintf("%s:%s", sys, e));
		if (!r)
			free(sys), free(e);
	}
	tep = session_tep(&(struct session_tep_opts){ .events = &both });
	tr_phase("formats loaded");
	for (int i = 0; i < 2 && !r; i++) {
		char *sys = xstrdup(both.v[i]), *e = strchr(sys, ':'), *f;

		*e++ = '\0';
		f = xasprintf("events/%s/%s/format", sys, e);
		if (!tep || !tep_find_event_by_name(tep, sys, e))
			r = tfs_exists(tfs_top(), f)
				    ? tr_fail(-EINVAL, "cannot read the format of '%s'",
					      i ? l->end : l->start)
				    : tr_fail(-ENOENT, "no such event '%s'", i ? l->end : l->start);
		free(f);
		free(sys);
	}
	if (!r)
		r = ulat_init(&x, tep, l, keys);
	if (r)
		goto out;
	lv.sid = (unsigned)x.start.ev->id;
	lv.eid = (unsigned)x.end.ev->id;
	for (int i = 0; i < 2; i++) {
		struct side *sd = i ? &x.end : &x.start;

		free(en);
		en = xasprintf("%s:%s", sd->system, sd->event);
		if (!i || strcmp(en, ev.v[0].spec))
			evsel_add(&ev, en);
	}
	r = hist_sink_run(&lv.sink, in, w, &ev, &ulat_tool, &lv);
out:
	ulat_free(&x);
	if (tep)
		tep_free(tep);
	session_sink_destroy(&lv.sink);
	strv_free(&both);
	free(lv.k);
	free(lv.data);
	free(en);
	evsel_list_free(&ev);
	return r;
}
