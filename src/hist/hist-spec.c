// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hist spec: keys, values and sort keys with their modifiers, checked
 * without tracefs, and the kernel trigger text made from them (see hist.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "parse.h"

static const struct {
	const char *name;
	enum hist_mod mod;
	bool key, val;
} mods[] = {
	{ "hex", HIST_MOD_HEX, true, true },
	{ "sym", HIST_MOD_SYM, true, true },
	{ "sym-offset", HIST_MOD_SYM_OFFSET, true, true },
	{ "execname", HIST_MOD_EXECNAME, true, true },
	{ "syscall", HIST_MOD_SYSCALL, true, true },
	{ "log2", HIST_MOD_LOG2, true, false },
	{ "buckets", HIST_MOD_BUCKETS, true, false },
	{ "usecs", HIST_MOD_USECS, true, true },
	{ "percent", HIST_MOD_PERCENT, false, true },
	{ "graph", HIST_MOD_GRAPH, false, true },
	{ "stacktrace", HIST_MOD_STACKTRACE, true, false },
};

const char *hist_mod_name(enum hist_mod m)
{
	for (size_t i = 0; i < ARRAY_SIZE(mods); i++)
		if (mods[i].mod == m)
			return mods[i].name;
	return "";
}

bool hist_field_special(const char *name)
{
	static const char *const special[] = { "common_timestamp", "common_cpu", "cpu",
					       "common_stacktrace", "stacktrace", "hitcount" };

	for (size_t i = 0; i < ARRAY_SIZE(special); i++)
		if (!strcmp(name, special[i]))
			return true;
	return false;
}

int hist_field_parse(const char *s, bool key, bool sort, struct hist_field *f)
{
	const char *dot = strchr(s, '.');
	size_t n = dot ? (size_t)(dot - s) : strlen(s);

	memset(f, 0, sizeof(*f));
	if (!is_ident(s, n))
		return tr_fail(-EINVAL, "bad field name '%.*s'", (int)n, s);
	f->name = xasprintf("%.*s", (int)n, s);
	if (!dot)
		return 0;
	const char *m = dot + 1;

	if (sort) {
		if (!strcmp(m, "descending")) {
			f->descending = true;
			return 0;
		}
		if (!strcmp(m, "ascending")) {
			f->ascending = true;
			return 0;
		}
		/* The kernel shows a sort key with its key's modifier: "x.buckets=32". */
	}
	for (size_t i = 0; i < ARRAY_SIZE(mods); i++) {
		size_t ml = strlen(mods[i].name);

		if (strncmp(m, mods[i].name, ml) || (m[ml] && m[ml] != '='))
			continue;
		if (!sort && ((key && !mods[i].key) || (!key && !mods[i].val))) {
			free(f->name);
			f->name = NULL;
			return tr_fail(-EINVAL, "modifier '.%s' of '%s' applies to %s only",
				       mods[i].name, s, key ? "values" : "keys");
		}
		f->mod = mods[i].mod;
		if (f->mod == HIST_MOD_BUCKETS) {
			if (m[ml] != '=' || parse_u64(m + ml + 1, &f->buckets) || !f->buckets) {
				free(f->name);
				f->name = NULL;
				return tr_fail(-EINVAL, "'%s': .buckets needs a size, e.g. .buckets=10",
					       s);
			}
		} else if (m[ml]) {
			break;
		}
		return 0;
	}
	free(f->name);
	f->name = NULL;
	if (sort)
		return tr_fail(-EINVAL, "unknown sort order '.%s' in '%s' (descending or ascending)",
			       m, s);
	return tr_fail(-EINVAL,
		       "unknown modifier '.%s' in '%s' (hex, sym, sym-offset, execname, syscall, "
		       "log2, buckets=N, usecs%s)", m, s, key ? ", stacktrace" : ", percent, graph");
}

int hist_fields_parse(const char *list, bool key, bool sort, struct hist_field *v, size_t *n,
		      size_t max)
{
	char *copy = xstrdup(list), *save = NULL, *tok;
	int r = 0;

	if (!*list)
		r = tr_fail(-EINVAL, "empty field list");
	for (tok = strtok_r(copy, ",", &save); tok && !r; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max) {
			r = tr_fail(-EINVAL, "too many fields in '%s' (at most %zu)", list, max);
			break;
		}
		r = hist_field_parse(tok, key, sort, &v[*n]);
		if (!r)
			(*n)++;
	}
	if (!r && strstr(list, ",,"))
		r = tr_fail(-EINVAL, "empty field in '%s'", list);
	free(copy);
	return r;
}

char *hist_field_str(const struct hist_field *f)
{
	if (f->mod == HIST_MOD_BUCKETS)
		return xasprintf("%s.buckets=%llu", f->name, (unsigned long long)f->buckets);
	if (f->mod != HIST_MOD_NONE)
		return xasprintf("%s.%s", f->name, hist_mod_name(f->mod));
	if (f->descending)
		return xasprintf("%s.descending", f->name);
	return xstrdup(f->name);
}

static void field_free(struct hist_field *f)
{
	free(f->name);
	f->name = NULL;
}

void hist_spec_free(struct hist_spec *s)
{
	for (size_t i = 0; i < s->nkeys; i++)
		field_free(&s->keys[i]);
	for (size_t i = 0; i < s->nvals; i++)
		field_free(&s->vals[i]);
	for (size_t i = 0; i < s->nsort; i++)
		field_free(&s->sort[i]);
	free(s->system);
	free(s->event);
	free(s->filter);
	free(s->name);
	free(s->clock);
	for (size_t i = 0; i < s->nvars; i++)
		free(s->vars[i]);
	for (size_t i = 0; i < s->nactions; i++)
		free(s->actions[i]);
	memset(s, 0, sizeof(*s));
}

static bool names_field(const struct hist_field *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return true;
	return false;
}

static int check(struct hist_spec *s)
{
	for (size_t i = 0; i < s->nkeys; i++) {
		const struct hist_field *k = &s->keys[i];

		if (!strcmp(k->name, "hitcount"))
			return tr_fail(-EINVAL, "hitcount is a value, not a key");
		if ((!strcmp(k->name, "common_stacktrace") || !strcmp(k->name, "stacktrace")) &&
		    k->mod)
			return tr_fail(-EINVAL, "'%s' takes no modifier", k->name);
		if (k->mod == HIST_MOD_USECS && strcmp(k->name, "common_timestamp"))
			return tr_fail(-EINVAL, ".usecs applies to common_timestamp only");
	}
	for (size_t i = 0; i < s->nvals; i++) {
		const struct hist_field *v = &s->vals[i];

		if (!strcmp(v->name, "common_stacktrace") || !strcmp(v->name, "stacktrace"))
			return tr_fail(-EINVAL, "'%s' is a key, not a value", v->name);
		if (names_field(s->vals, i, v->name))
			return tr_fail(-EINVAL, "value '%s' given twice", v->name);
	}
	for (size_t i = 0; i < s->nsort; i++) {
		const char *n = s->sort[i].name;

		if (strcmp(n, "hitcount") && !names_field(s->keys, s->nkeys, n) &&
		    !names_field(s->vals, s->nvals, n))
			return tr_fail(-EINVAL, "sort key '%s' is neither a key nor a value", n);
	}
	return 0;
}

/* "NAME=..." rather than "field.buckets=N": an identifier, then '='. */
static bool is_var_def(const char *item)
{
	size_t n = strcspn(item, "=.");

	return item[n] == '=' && is_ident(item, n);
}

static bool var_defined(const struct hist_spec *s, const char *name, size_t n)
{
	for (size_t i = 0; i < s->nvars; i++)
		if (!strncmp(s->vars[i], name, n) && s->vars[i][n] == '=')
			return true;
	return false;
}

int hist_spec_add_var(struct hist_spec *s, const char *def)
{
	size_t n = strcspn(def, "=");
	const char *e = def + n + 1;

	if (!def[n] || !is_ident(def, n))
		return tr_fail(-EINVAL, "bad variable '%s': want NAME=EXPR", def);
	if (!*e)
		return tr_fail(-EINVAL, "variable '%.*s' has no expression", (int)n, def);
	/* ':' and ',' separate the trigger's parts; the kernel's expressions have no blanks. */
	for (const char *c = e; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.$+-*/", *c))
			return tr_fail(-EINVAL, "bad character '%c' in variable '%s' (fields, "
				       "$variables, numbers and + - * /)", *c, def);
	if (var_defined(s, def, n))
		return tr_fail(-EINVAL, "variable '%.*s' defined twice", (int)n, def);
	if (s->nvars >= HIST_MAX_VARS)
		return tr_fail(-EINVAL, "too many variables (at most %d)", HIST_MAX_VARS);
	s->vars[s->nvars++] = xstrdup(def);
	return 0;
}

/* The values, with NAME=EXPR items taken out as variables. */
static int vals_parse(struct hist_spec *s, const char *vals)
{
	char *copy = xstrdup(vals), *save = NULL, *tok, *rest = xstrdup("");
	int r = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !r; tok = strtok_r(NULL, ",", &save)) {
		if (is_var_def(tok)) {
			r = hist_spec_add_var(s, tok);
		} else {
			char *x = xasprintf("%s%s%s", rest, *rest ? "," : "", tok);

			free(rest);
			rest = x;
		}
	}
	if (!r && strstr(vals, ",,"))
		r = tr_fail(-EINVAL, "empty field in '%s'", vals);
	if (!r && *rest)
		r = hist_fields_parse(rest, false, false, s->vals, &s->nvals, HIST_MAX_VALS);
	free(rest);
	free(copy);
	return r;
}

/* The text inside the parentheses that open at *p; NULL if they do not close. */
static const char *paren_end(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && !--depth)
			return p;
	}
	return NULL;
}

int hist_spec_add_action(struct hist_spec *s, const char *a)
{
	static const char *const handlers[] = { "onmatch", "onmax", "onchange" };
	const char *open = strchr(a, '('), *close, *act, *aopen, *aclose;
	size_t h, hn = open ? (size_t)(open - a) : 0;

	for (h = 0; h < ARRAY_SIZE(handlers); h++)
		if (hn == strlen(handlers[h]) && !strncmp(a, handlers[h], hn))
			break;
	if (h == ARRAY_SIZE(handlers))
		return tr_fail(-EINVAL, "bad action '%s': it starts with onmatch(SYS.EVENT), "
			       "onmax($VAR) or onchange($VAR)", a);
	for (const char *c = a; *c; c++)
		if (isspace((unsigned char)*c) || *c == ':')
			return tr_fail(-EINVAL, "bad action '%s': no blanks or ':' in an action", a);
	close = paren_end(open);
	if (!close || close == open + 1)
		return tr_fail(-EINVAL, "bad action '%s': %s() needs its argument", a, handlers[h]);
	if (h == 0 && !memchr(open, '.', close - open))
		return tr_fail(-EINVAL, "bad action '%s': onmatch() takes the SYSTEM.EVENT that "
			       "defines the variables", a);
	/* The kernel: "For onmax(x) or onchange(x), x must be a variable". */
	if (h > 0 && open[1] != '$')
		return tr_fail(-EINVAL, "bad action '%s': %s() tracks a $variable (define one "
			       "with -v NAME=FIELD)", a, handlers[h]);
	act = close + 1;
	aopen = *act == '.' ? strchr(act, '(') : NULL;
	aclose = aopen ? paren_end(aopen) : NULL;
	if (!aclose || aclose[1] || !is_ident(act + 1, aopen - act - 1))
		return tr_fail(-EINVAL, "bad action '%s': want %s(...).ACTION(ARGS), ACTION one "
			       "of save, snapshot, trace%s", a, handlers[h],
			       h == 0 ? " or a synthetic event's name" : "");
	size_t an = aopen - act - 1;

	if (h > 0 && !(an == 4 && !strncmp(act + 1, "save", 4)) &&
	    !(an == 8 && !strncmp(act + 1, "snapshot", 8)) &&
	    !(an == 5 && !strncmp(act + 1, "trace", 5)))
		return tr_fail(-EINVAL, "bad action '%s': %s() can save(), snapshot() or trace()",
			       a, handlers[h]);
	if (s->nactions >= HIST_MAX_ACTIONS)
		return tr_fail(-EINVAL, "too many actions (at most %d)", HIST_MAX_ACTIONS);
	s->actions[s->nactions++] = xstrdup(a);
	return 0;
}

int hist_event_parse(const char *sysev, char **system, char **event)
{
	const char *c = strchr(sysev, ':');

	if (!c)
		c = strchr(sysev, '/');
	if (!c || c == sysev || !c[1] || strchr(c + 1, ':') || strchr(c + 1, '/') ||
	    has_glob(sysev))
		return tr_fail(-EINVAL, "bad event '%s': want SYSTEM:EVENT", sysev);
	*system = xasprintf("%.*s", (int)(c - sysev), sysev);
	*event = xstrdup(c + 1);
	return 0;
}

int hist_spec_build(struct hist_spec *s, const char *sysev, const char *keys, const char *vals,
		    const char *sort, const char *filter, uint64_t size, const char *name)
{
	int r = 0;

	memset(s, 0, sizeof(*s));
	if (sysev && hist_event_parse(sysev, &s->system, &s->event))
		return -EINVAL;
	if (!keys && !name)
		r = tr_fail(-EINVAL, "a histogram needs keys (-k)");
	if (!r && keys)
		r = hist_fields_parse(keys, true, false, s->keys, &s->nkeys, HIST_MAX_KEYS);
	if (!r && vals)
		r = vals_parse(s, vals);
	if (!r && sort)
		r = hist_fields_parse(sort, false, true, s->sort, &s->nsort, HIST_MAX_KEYS);
	/* The kernel rounds size up to a power of 2 between 2^7 and 2^17. */
	if (!r && size && (size > (1u << 17) || size <= 64))
		r = tr_fail(-EINVAL, "bad size %llu (65 to 131072 entries)", (unsigned long long)size);
	if (!r && name && !is_ident(name, strlen(name)))
		r = tr_fail(-EINVAL, "bad histogram name '%s'", name);
	if (!r)
		r = check(s);
	if (r) {
		hist_spec_free(s);
		return r;
	}
	/*
	 * Biggest first, as people read a histogram: counts and sums sort
	 * descending unless .ascending says otherwise, and with no sort key the
	 * table is by hitcount, descending (the kernel's default is ascending).
	 * A named histogram is left alone: every event sharing it must agree.
	 */
	for (size_t i = 0; i < s->nsort; i++) {
		struct hist_field *f = &s->sort[i];

		if (!f->ascending && (!strcmp(f->name, "hitcount") ||
				      names_field(s->vals, s->nvals, f->name)))
			f->descending = true;
	}
	if (!s->nsort && !name && s->nkeys) {
		s->sort[0] = (struct hist_field){ .name = xstrdup("hitcount"), .descending = true };
		s->nsort = 1;
	}
	s->size = size;
	s->filter = filter && *filter ? xstrdup(filter) : NULL;
	s->name = name ? xstrdup(name) : NULL;
	return 0;
}

static void append_fields(char **out, const char *label, const struct hist_field *v, size_t n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		char *f = hist_field_str(&v[i]);

		xstrcatf(out, "%s%s", i ? "," : label, f);
		free(f);
	}
}

bool hist_spec_wants_syms(const struct hist_spec *s)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].mod == HIST_MOD_SYM || s->keys[i].mod == HIST_MOD_SYM_OFFSET)
			return true;
	return false;
}

char *hist_spec_trigger(const struct hist_spec *s)
{
	char *t = xstrdup("hist");

	append_fields(&t, ":keys=", s->keys, s->nkeys);
	append_fields(&t, ":vals=", s->vals, s->nvals);
	for (size_t i = 0; i < s->nvars; i++)
		xstrcatf(&t, ":%s", s->vars[i]);
	append_fields(&t, ":sort=", s->sort, s->nsort);
	if (s->size)
		xstrcatf(&t, ":size=%llu", (unsigned long long)s->size);
	if (s->name)
		xstrcatf(&t, ":name=%s", s->name);
	if (s->clock)
		xstrcatf(&t, ":clock=%s", s->clock);
	for (size_t i = 0; i < s->nactions; i++)
		xstrcatf(&t, ":%s", s->actions[i]);
	if (s->filter)
		xstrcatf(&t, " if %s", s->filter);
	return t;
}

/*
 * The kernel shows "hist:keys=a,b:vals=hitcount,c:sort=hitcount:size=2048
 * [active]" (and may add name=, clock=, actions and " if FILTER").
 */
int hist_spec_from_trigger(const char *line, struct hist_spec *s)
{
	char *copy, *p, *save = NULL, *tok, *iff;
	int r = 0;

	memset(s, 0, sizeof(*s));
	while (*line == ' ')
		line++;
	if (!strncmp(line, "hist:", 5))
		line += 5;
	else if (strncmp(line, "hist", 4))
		return tr_fail(-EINVAL, "not a hist trigger: '%s'", line);
	copy = xstrdup(line);
	iff = strstr(copy, " if ");
	if (iff) {
		*iff = '\0';
		s->filter = xstrdup(iff + 4);
		p = strstr(s->filter, " [");
		if (p)
			*p = '\0';
	}
	p = strstr(copy, " [");
	if (p)
		*p = '\0';
	for (tok = strtok_r(copy, ":", &save); tok && !r; tok = strtok_r(NULL, ":", &save)) {
		if (!strncmp(tok, "keys=", 5) || !strncmp(tok, "key=", 4)) {
			r = hist_fields_parse(strchr(tok, '=') + 1, true, false, s->keys, &s->nkeys,
					      HIST_MAX_KEYS);
		} else if (!strncmp(tok, "vals=", 5) || !strncmp(tok, "values=", 7)) {
			r = hist_fields_parse(strchr(tok, '=') + 1, false, false, s->vals,
					      &s->nvals, HIST_MAX_VALS);
		} else if (!strncmp(tok, "sort=", 5)) {
			r = hist_fields_parse(tok + 5, false, true, s->sort, &s->nsort,
					      HIST_MAX_KEYS);
		} else if (!strncmp(tok, "size=", 5)) {
			r = parse_u64(tok + 5, &s->size);
			if (r)
				r = tr_fail(-EINVAL, "bad size in '%s'", line);
		} else if (!strncmp(tok, "name=", 5)) {
			s->name = xstrdup(tok + 5);
		}
		/* Variables, actions, clock= and pause state are not table columns. */
	}
	free(copy);
	if (r)
		hist_spec_free(s);
	return r;
}

/*
 * Split "SYS:EV:VAR=EXPR" at the last ':' before the '=' (expressions hold
 * no ':', the trigger's separator; "SYS/EV:VAR=EXPR" works too).
 */
static int define_split(const char *def, char **sysev, const char **var)
{
	const char *eq = strchr(def, '='), *colon = NULL;

	for (const char *c = def; c < (eq ? eq : def + strlen(def)); c++)
		if (*c == ':')
			colon = c;
	if (!eq || !colon || colon == def)
		return tr_fail(-EINVAL, "bad --define '%s': want SYS:EVENT:VAR=EXPR", def);
	*sysev = xasprintf("%.*s", (int)(colon - def), def);
	*var = colon + 1;
	return 0;
}

/* The spec of event (system, event) in v, or NULL. */
static struct hist_spec *spec_of(struct hist_spec *v, size_t n, const char *system,
				 const char *event)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].system, system) && !strcmp(v[i].event, event))
			return &v[i];
	return NULL;
}

int hist_spec_defines(const struct strv *defs, const struct strv *dkeys, const char *keys,
		      struct hist_spec **out, size_t *nout)
{
	struct hist_spec *v = NULL;
	size_t n = 0;
	bool *keyed = NULL;
	int r = 0;

	for (size_t i = 0; i < defs->n && !r; i++) {
		char *sysev = NULL, *sys = NULL, *ev = NULL;
		const char *var = NULL;
		struct hist_spec *s;

		r = define_split(defs->v[i], &sysev, &var);
		if (!r)
			r = hist_event_parse(sysev, &sys, &ev);
		if (!r && !(s = spec_of(v, n, sys, ev))) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			s = &v[n];
			memset(s, 0, sizeof(*s));
			s->system = xstrdup(sys);
			s->event = xstrdup(ev);
			n++;
		}
		if (!r)
			r = hist_spec_add_var(s, var);
		free(sysev);
		free(sys);
		free(ev);
	}
	keyed = xcalloc(n ? n : 1, sizeof(*keyed));
	for (size_t i = 0; i < dkeys->n && !r; i++) {
		const char *d = dkeys->v[i], *eq = strchr(d, '=');
		char *sysev = eq ? xasprintf("%.*s", (int)(eq - d), d) : NULL, *sys = NULL, *ev = NULL;
		struct hist_spec *s = NULL;

		if (!eq || !eq[1])
			r = tr_fail(-EINVAL, "bad --define-keys '%s': want SYS:EVENT=KEY[,KEY...]", d);
		if (!r)
			r = hist_event_parse(sysev, &sys, &ev);
		if (!r && !(s = spec_of(v, n, sys, ev)))
			r = tr_fail(-EINVAL, "--define-keys '%s' names an event no --define has", d);
		if (!r && keyed[s - v])
			r = tr_fail(-EINVAL, "--define-keys given twice for '%s'", sysev);
		if (!r)
			r = hist_fields_parse(eq + 1, true, false, s->keys, &s->nkeys, HIST_MAX_KEYS);
		if (!r)
			keyed[s - v] = true;
		free(sysev);
		free(sys);
		free(ev);
	}
	/* Keyed like the histogram itself unless told: the same field names on both events. */
	for (size_t i = 0; i < n && !r; i++) {
		if (keyed[i])
			continue;
		if (!keys)
			r = tr_fail(-EINVAL, "which key for the variables of '%s:%s'? give "
				    "--define-keys %s:%s=FIELD", v[i].system, v[i].event,
				    v[i].system, v[i].event);
		else
			r = hist_fields_parse(keys, true, false, v[i].keys, &v[i].nkeys,
					      HIST_MAX_KEYS);
	}
	free(keyed);
	if (r) {
		for (size_t i = 0; i < n; i++)
			hist_spec_free(&v[i]);
		free(v);
		v = NULL;
		n = 0;
	}
	*out = v;
	*nout = n;
	return r;
}
