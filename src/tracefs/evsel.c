// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event selector parsing and resolution (see evsel.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evsel.h"
#include "parse.h"
#include "tfs.h"

/* Names and globs: what tracefs event and system directories can be called. */
static bool valid_part(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.*?[]!", *s))
			return false;
	return true;
}

static bool is_all(const char *s)
{
	return !strcmp(s, "*") || !strcmp(s, "all");
}

int evsel_parse(const char *spec, struct evsel *out)
{
	const char *sep;

	memset(out, 0, sizeof(*out));
	if (!spec || !*spec)
		return tr_fail(-EINVAL, "empty event selector");
	sep = strpbrk(spec, ":/");
	if (!sep) {
		if (!valid_part(spec))
			return tr_fail(-EINVAL, "bad event selector '%s'", spec);
		out->spec = xstrdup(spec);
		if (!is_all(spec)) {
			out->system = xstrdup(spec);
			out->bare = true;
		}
		return 0;
	}
	if (strpbrk(sep + 1, ":/"))
		return tr_fail(-EINVAL, "bad event selector '%s': more than one ':'", spec);
	char *sys = xasprintf("%.*s", (int)(sep - spec), spec);
	const char *ev = sep + 1;

	if ((*sys && !valid_part(sys)) || (*ev && !valid_part(ev)) || (!*sys && !*ev)) {
		free(sys);
		return tr_fail(-EINVAL, "bad event selector '%s'", spec);
	}
	out->spec = xstrdup(spec);
	out->user = !strcmp(sys, "user");
	if (*sys && !is_all(sys) && !out->user)
		out->system = sys;
	else
		free(sys);
	if (*ev && !is_all(ev))
		out->event = xstrdup(ev);
	return 0;
}

int evsel_add(struct evsel_list *l, const char *spec)
{
	struct evsel e;
	int r = evsel_parse(spec, &e);

	if (r)
		return r;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = e;
	return 0;
}

int evsel_add_filter(struct evsel_list *l, const char *filter)
{
	const char *why;

	/*
	 * tr wraps a filter with clauses of its own ("(F) && <its pids>"): one
	 * that closes its parentheses early, "1) || (1", would cancel them.
	 */
	if (parse_filter_enclosed(filter, &why))
		return tr_fail(-EINVAL, "bad filter '%s': %s", filter, why);
	if (!l->n)
		return tr_fail(-EINVAL, "filter '%s' must follow an -e event", filter);
	if (l->v[l->n - 1].filter)
		return tr_fail(-EINVAL, "event '%s' already has a filter", l->v[l->n - 1].spec);
	l->v[l->n - 1].filter = xstrdup(filter);
	return 0;
}

void evsel_list_free(struct evsel_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].spec);
		free(l->v[i].system);
		free(l->v[i].event);
		free(l->v[i].filter);
		free(l->v[i].user_filter);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static bool part_match(const char *glob, const char *s, size_t len)
{
	char buf[256];

	if (!glob)
		return true;
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return glob_match(glob, buf);
}

/*
 * "user:NAME": NAME (a glob) against user_events:EVENT, and against
 * user_events_multi:EVENT less its ".<hex id>" (the multi-format versions).
 */
static bool user_match(const struct evsel *e, const char *full, const char *colon)
{
	size_t slen = colon - full;
	const char *ev = colon + 1, *dot;
	size_t elen = strlen(ev);

	if (slen == 11 && !strncmp(full, "user_events", 11))
		return part_match(e->event, ev, elen);
	if (slen != 17 || strncmp(full, "user_events_multi", 17))
		return false;
	dot = strrchr(ev, '.');
	if (!dot || !dot[1] || strspn(dot + 1, "0123456789abcdefABCDEF") != strlen(dot + 1))
		return false;
	return part_match(e->event, ev, dot - ev);
}

/* Does "sys:event" match?  mode 0: system+event globs, 1: bare as system, 2: bare as event. */
static bool matches(const struct evsel *e, const char *full, int mode)
{
	const char *colon = strchr(full, ':');

	if (!colon)
		return false;
	if (e->user)
		return user_match(e, full, colon);
	switch (mode) {
	case 1:
		return part_match(e->system, full, colon - full);
	case 2:
		return part_match(e->system, colon + 1, strlen(colon + 1));
	default:
		return part_match(e->system, full, colon - full) &&
		       part_match(e->event, colon + 1, strlen(colon + 1));
	}
}

/*
 * "did you mean": for a selector without globs that matched nothing, the
 * closest available name -- a whole SYSTEM:EVENT for SYSTEM:EVENT, a system
 * or an event (shown as SYSTEM:EVENT) for a bare word.  Owned by the caller.
 */
static char *evsel_suggest(const struct evsel *e, const struct strv *available)
{
	const char **cands = xcalloc(available->n * 2 + 1, sizeof(*cands));
	char *word, *best = NULL;
	const char *hit;
	size_t n = 0;

	if ((e->system && has_glob(e->system)) || (e->event && has_glob(e->event)) || !e->system) {
		free(cands);
		return NULL;
	}
	if (e->bare) {
		/* Systems first (each once), then events by their bare name. */
		for (size_t i = 0; i < available->n; i++) {
			const char *v = available->v[i], *colon = strchr(v, ':');

			if (colon && (!i || strncmp(v, available->v[i - 1], colon - v + 1)))
				cands[n++] = v;
		}
		for (size_t i = 0; i < n; i++)
			cands[i] = xasprintf("%.*s", (int)(strchr(cands[i], ':') - cands[i]), cands[i]);
		size_t nsys = n;

		for (size_t i = 0; i < available->n; i++) {
			const char *colon = strchr(available->v[i], ':');

			if (colon)
				cands[n++] = colon + 1;
		}
		hit = suggest_closest(e->system, cands, n);
		for (size_t i = 0; hit && !best && i < nsys; i++)
			if (cands[i] == hit)
				best = xstrdup(hit);
		/* An event is shown with its system, as -e takes it everywhere. */
		for (size_t i = 0; hit && !best && i < available->n; i++) {
			const char *colon = strchr(available->v[i], ':');

			if (colon && colon + 1 == hit)
				best = xstrdup(available->v[i]);
		}
		for (size_t i = 0; i < nsys; i++)
			free((char *)cands[i]);
	} else {
		word = xasprintf("%s:%s", e->system, e->event ? e->event : "");
		for (size_t i = 0; i < available->n; i++)
			cands[n++] = available->v[i];
		hit = e->event ? suggest_closest(word, cands, n) : NULL;
		best = hit ? xstrdup(hit) : NULL;
		free(word);
	}
	free(cands);
	return best;
}

int evsel_resolve(const struct evsel_list *l, const struct strv *available, struct evmatch **out,
		  size_t *n)
{
	const struct evsel **filter = xcalloc(available->n, sizeof(*filter));
	bool *chosen = xcalloc(available->n, sizeof(*chosen));
	size_t count = 0;
	int r = 0;

	for (size_t s = 0; s < l->n && !r; s++) {
		const struct evsel *e = &l->v[s];
		int mode = e->bare ? 1 : 0;
		size_t hits = 0;

		for (int pass = 0; pass < 2 && !hits; pass++, mode = 2) {
			for (size_t i = 0; i < available->n; i++) {
				if (!matches(e, available->v[i], mode))
					continue;
				hits++;
				if (!chosen[i])
					count++;
				chosen[i] = true;
				if (e->filter)
					filter[i] = e;
			}
			if (!e->bare)
				break;
		}
		if (!hits) {
			char *sugg = evsel_suggest(e, available);

			if (sugg)
				r = tr_fail(-ENOENT, "no such event '%s' (did you mean %s?)", e->spec,
					    sugg);
			else
				r = tr_fail(-ENOENT, "no such event '%s'", e->spec);
			free(sugg);
		}
	}
	*out = NULL;
	*n = 0;
	if (!r) {
		struct evmatch *m = xcalloc(count, sizeof(*m));
		size_t k = 0;

		for (size_t i = 0; i < available->n; i++) {
			if (!chosen[i])
				continue;
			const char *colon = strchr(available->v[i], ':');

			m[k].system = xasprintf("%.*s", (int)(colon - available->v[i]), available->v[i]);
			m[k].event = xstrdup(colon + 1);
			m[k].filter = filter[i] ? filter[i]->filter : NULL;
			m[k].user_filter = filter[i] ? filter[i]->user_filter : NULL;
			m[k].sel = filter[i];
			k++;
		}
		*out = m;
		*n = count;
	}
	free(filter);
	free(chosen);
	return r;
}

void evsel_keep_existing(struct evsel_list *l, const struct strv *available, struct strv *dropped)
{
	struct evsel_list kept = { 0 };

	for (size_t k = 0; k < l->n; k++) {
		const struct evsel *e = &l->v[k];
		struct evsel_list one = { 0 };
		struct evmatch *m = NULL;
		size_t n = 0;
		bool ftrace = e->system && !strcmp(e->system, "ftrace");

		evsel_add(&one, e->spec);
		if (!ftrace && evsel_resolve(&one, available, &m, &n) == -ENOENT) {
			strv_push(dropped, e->spec);
		} else {
			evsel_add(&kept, e->spec);
			if (e->filter)
				evsel_add_filter(&kept, e->filter);
		}
		evmatch_free(m, n);
		evsel_list_free(&one);
	}
	evsel_list_free(l);
	*l = kept;
}

int evsel_fail_unknown(const struct tfs_inst *in, const char *system, const char *event)
{
	struct strv avail = { 0 };
	struct evsel e = { 0 };
	char *spec = xasprintf("%s:%s", system, event), *sugg = NULL;
	int r;

	if (!tfs_events(in, &avail) && !evsel_parse(spec, &e))
		sugg = evsel_suggest(&e, &avail);
	if (sugg)
		r = tr_fail(-ENOENT, "no such event '%s' (did you mean %s?)", spec, sugg);
	else
		r = tr_fail(-ENOENT, "no such event '%s'", spec);
	free(sugg);
	free(e.spec);
	free(e.system);
	free(e.event);
	free(e.filter);
	strv_free(&avail);
	free(spec);
	return r;
}

void evmatch_free(struct evmatch *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].system);
		free(m[i].event);
	}
	free(m);
}
