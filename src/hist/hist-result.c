// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The result model (rows of key and value cells with the totals) and the
 * parser of the kernel's `hist` file into it.
 *
 * A hist file holds one section per hist trigger on the event:
 *
 *   # event histogram
 *   #
 *   # trigger info: hist:keys=next_comm:vals=hitcount:sort=hitcount:size=2048 [active]
 *   #
 *
 *   { next_comm: bash        } hitcount:        183
 *   { call_site: [ffffffff81428d6c] p9_fcall_init+0x44/0x6f } hitcount: 3  bytes_req (%):  0.15
 *   { common_stacktrace:
 *            __schedule+0x3bb/0x53c
 *   } hitcount:          1
 *
 *   Totals:
 *       Hits: 2249
 *       Entries: 12
 *       Dropped: 0
 *
 * The trigger info names the keys in order, which is how the key text is
 * split: a string key may itself hold ", " or ": ".
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

static enum hist_kind kind_of(const struct hist_field *f, bool key)
{
	if (key && (!strcmp(f->name, "common_stacktrace") || !strcmp(f->name, "stacktrace") ||
		    f->mod == HIST_MOD_STACKTRACE))
		return HIST_K_STACK;
	switch (f->mod) {
	case HIST_MOD_HEX:
		return HIST_K_HEX;
	case HIST_MOD_SYM:
	case HIST_MOD_SYM_OFFSET:
		return HIST_K_SYM;
	case HIST_MOD_EXECNAME:
		return HIST_K_TASK;
	case HIST_MOD_SYSCALL:
		return HIST_K_SYSCALL;
	case HIST_MOD_LOG2:
	case HIST_MOD_BUCKETS:
		return HIST_K_RANGE;
	case HIST_MOD_PERCENT:
		return HIST_K_PERCENT;
	case HIST_MOD_GRAPH:
		return HIST_K_GRAPH;
	default:
		return HIST_K_NUM;
	}
}

static void add_col(struct hist_result *r, const struct hist_field *f, bool key)
{
	struct hist_col *c = &r->cols[r->ncols++];

	c->name = xstrdup(f->name);
	c->mod = f->mod;
	c->kind = kind_of(f, key);
	c->key = key;
}

void hist_result_init(struct hist_result *r, const struct hist_spec *s)
{
	bool hitcount = false;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < s->nkeys; i++)
		add_col(r, &s->keys[i], true);
	r->nkeys = r->ncols;
	for (size_t i = 0; i < s->nvals; i++)
		hitcount |= !strcmp(s->vals[i].name, "hitcount");
	/* The kernel always shows hitcount, first. */
	if (!hitcount)
		add_col(r, &(struct hist_field){ .name = (char *)"hitcount" }, false);
	for (size_t i = 0; i < s->nvals; i++)
		add_col(r, &s->vals[i], false);
	/* Bars follow the first sort key when it is a value, else hitcount. */
	r->sort_col = r->nkeys;
	for (size_t c = r->nkeys; s->nsort && c < r->ncols; c++)
		if (!strcmp(r->cols[c].name, s->sort[0].name))
			r->sort_col = (int)c;
}

size_t hist_result_add_row(struct hist_result *r)
{
	if (r->nrows == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->cells = xrealloc(r->cells, r->cap * r->ncols * sizeof(*r->cells));
	}
	memset(&r->cells[r->nrows * r->ncols], 0, r->ncols * sizeof(*r->cells));
	return r->nrows++;
}

void hist_result_free(struct hist_result *r)
{
	for (size_t i = 0; i < r->nrows * r->ncols; i++)
		free(r->cells[i].text);
	for (size_t c = 0; c < r->ncols; c++)
		free(r->cols[c].name);
	free(r->cells);
	free(r->trigger);
	free(r->note);
	free(r->max_saved);
	memset(r, 0, sizeof(*r));
}

/* ---- sorting (the userspace engine; the kernel sorts its own output) ---- */

struct sort_key {
	int col;
	bool desc;
};

/* What a sort compares by (qsort_r's argument: no state outside the call). */
struct sort_by {
	const struct hist_result *r;
	struct sort_key keys[HIST_MAX_KEYS];
	size_t n;
};

static bool textual(enum hist_kind k)
{
	return k == HIST_K_STR || k == HIST_K_STACK;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct sort_by *by = arg;
	size_t ra = *(const size_t *)a, rb = *(const size_t *)b;

	for (size_t i = 0; i < by->n; i++) {
		const struct hist_cell *x = hist_cell(by->r, ra, by->keys[i].col);
		const struct hist_cell *y = hist_cell(by->r, rb, by->keys[i].col);
		int d;

		if (textual(by->r->cols[by->keys[i].col].kind))
			d = strcmp(x->text ? x->text : "", y->text ? y->text : "");
		else
			d = x->num < y->num ? -1 : x->num > y->num;
		if (d)
			return by->keys[i].desc ? -d : d;
	}
	return ra < rb ? -1 : ra > rb;
}

void hist_result_sort(struct hist_result *r, const struct hist_spec *s)
{
	struct sort_by by = { .r = r };
	size_t *order;
	struct hist_cell *cells;

	for (size_t i = 0; i < s->nsort; i++)
		for (size_t c = 0; c < r->ncols; c++)
			if (!strcmp(r->cols[c].name, s->sort[i].name)) {
				by.keys[by.n++] = (struct sort_key){ (int)c, s->sort[i].descending };
				break;
			}
	if (!by.n)
		by.keys[by.n++] = (struct sort_key){ (int)r->nkeys, false };
	if (r->nrows < 2)
		return;
	order = xmalloc(r->nrows * sizeof(*order));
	for (size_t i = 0; i < r->nrows; i++)
		order[i] = i;
	qsort_r(order, r->nrows, sizeof(*order), cmp_rows, &by);
	cells = xmalloc(r->cap * r->ncols * sizeof(*cells));
	for (size_t i = 0; i < r->nrows; i++)
		memcpy(&cells[i * r->ncols], &r->cells[order[i] * r->ncols],
		       r->ncols * sizeof(*cells));
	free(r->cells);
	r->cells = cells;
	free(order);
}

/* ---- the kernel's hist file ---- */

static char *trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xasprintf("%.*s", (int)n, s);
}

static bool parse_num(const char *s, int base, uint64_t *v)
{
	char *end;

	while (*s == ' ')
		s++;
	if (!*s)
		return false;
	errno = 0;
	if (*s == '-')
		*v = (uint64_t)strtoll(s, &end, base);
	else
		*v = strtoull(s, &end, base);
	return !errno && end != s && !*end;
}

/* Fill a key cell from its text as the kernel printed it. */
static void key_cell(struct hist_col *col, struct hist_cell *c, char *text)
{
	char *b;

	switch (col->kind) {
	case HIST_K_HEX:
		parse_num(text, 16, &c->num);
		break;
	case HIST_K_SYM:
		/* "[ffffffff81428d6c] p9_fcall_init+0x44/0x6f" */
		if (text[0] == '[' && (b = strchr(text, ']'))) {
			*b = '\0';
			parse_num(text + 1, 16, &c->num);
			memmove(text, b + 1, strlen(b + 1) + 1);
			b = trim(text, strlen(text));
			free(text);
			text = b;
		}
		break;
	case HIST_K_TASK:
	case HIST_K_SYSCALL:
		/* "bash            [       155]", "sys_write                     [  1]" */
		b = strrchr(text, '[');
		if (b && strchr(b, ']')) {
			*strchr(b, ']') = '\0';
			parse_num(b + 1, 10, &c->num);
			*b = '\0';
			b = trim(text, strlen(text));
			free(text);
			text = b;
		}
		break;
	case HIST_K_RANGE:
		/* "~ 2^8", "~ 32-63" */
		b = text + (text[0] == '~') + (text[0] == '~' && text[1] == ' ');
		if (!strncmp(b, "2^", 2)) {
			uint64_t e = 0;

			parse_num(b + 2, 10, &e);
			c->num = e < 64 ? 1ULL << e : UINT64_MAX;
			c->num2 = e;
		} else if (strchr(b, '-')) {
			char *d = strchr(b, '-');

			*d = '\0';
			parse_num(b, 10, &c->num);
			parse_num(d + 1, 10, &c->num2);
			*d = '-';
		}
		break;
	case HIST_K_STACK:
		break;
	default:
		if (!parse_num(text, 10, &c->num))
			col->kind = HIST_K_STR;
		break;
	}
	c->text = text;
}

/* "{ k0: v0, k1: v1 }" between the braces (exclusive). */
static int parse_keys(struct hist_result *r, size_t row, const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	for (size_t k = 0; k < r->nkeys; k++) {
		struct hist_col *col = &r->cols[k];
		size_t nl = strlen(col->name);
		const char *vs, *ve;

		while (p < end && *p == ' ')
			p++;
		if ((size_t)(end - p) < nl + 1 || strncmp(p, col->name, nl))
			return -EINVAL;
		/* A stack field's key reads "{ stack.stacktrace         frame\n...": no ':'. */
		if (col->mod == HIST_MOD_STACKTRACE && (size_t)(end - p) >= nl + 11 &&
		    !strncmp(p + nl, ".stacktrace", 11))
			nl += 10;
		else if (p[nl] != ':')
			return -EINVAL;
		vs = p + nl + 1;
		ve = end;
		if (k + 1 < r->nkeys) {
			char *pat = xasprintf(", %s:", r->cols[k + 1].name);
			const char *q = vs, *hit = NULL;

			/* The last match: a string value may contain the pattern too. */
			while ((q = memmem(q, end - q, pat, strlen(pat))))
				hit = q++;
			free(pat);
			if (!hit)
				return -EINVAL;
			ve = hit;
		}
		if (col->kind == HIST_K_STACK) {
			/* Frames on their own lines: keep them one per line, trimmed. */
			char *t = xstrdup(""), *x;
			const char *l = vs;

			while (l < ve) {
				const char *nlp = memchr(l, '\n', ve - l);
				char *fr = trim(l, (nlp ? nlp : ve) - l);

				if (*fr) {
					x = xasprintf("%s%s%s", t, *t ? "\n" : "", fr);
					free(t);
					t = x;
				}
				free(fr);
				l = nlp ? nlp + 1 : ve;
			}
			key_cell(col, hist_cell(r, row, k), t);
		} else {
			key_cell(col, hist_cell(r, row, k), trim(vs, ve - vs));
		}
		p = ve + (k + 1 < r->nkeys ? 1 : 0);
	}
	return 0;
}

/* " hitcount:   6  bytes_req (%):   0.15  bytes_alloc: ####    " */
static int parse_vals(struct hist_result *r, size_t row, const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	while (p < end) {
		const char *ns, *ne;
		bool pct = false;
		size_t c;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end)
			break;
		ns = p;
		while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '.'))
			p++;
		ne = p;
		if (p + 4 <= end && !strncmp(p, " (%)", 4)) {
			pct = true;
			p += 4;
		}
		if (ne == ns || p >= end || *p != ':')
			return -EINVAL;
		p++;
		for (c = r->nkeys; c < r->ncols; c++)
			if (strlen(r->cols[c].name) == (size_t)(ne - ns) &&
			    !strncmp(r->cols[c].name, ns, ne - ns))
				break;
		bool graph = c < r->ncols && r->cols[c].kind == HIST_K_GRAPH;
		const char *vs;

		while (p < end && *p == ' ')
			p++;
		vs = p;
		if (graph || (p < end && *p == '#')) {
			/* A bar of '#' padded with spaces to 20; an empty bar is all spaces. */
			while (p < end && *p == '#')
				p++;
		} else if (p < end && *p == '[') {
			while (p < end && *p != ']')
				p++;
			p += p < end;
		} else {
			while (p < end && !isspace((unsigned char)*p))
				p++;
		}
		if (c == r->ncols)
			continue;	/* a value the trigger info did not list: skip it */
		struct hist_cell *cell = hist_cell(r, row, c);

		if (pct || r->cols[c].kind == HIST_K_PERCENT) {
			r->cols[c].kind = HIST_K_PERCENT;
			cell->pct = strtod(vs, NULL);
		} else if (graph || *vs == '#') {
			r->cols[c].kind = HIST_K_GRAPH;
			cell->num = p - vs;	/* the bar's length: all the kernel shows */
		} else {
			char *t = xasprintf("%.*s", (int)(p - vs), vs);

			if (!parse_num(t, 10, &cell->num)) {
				free(t);
				return -EINVAL;
			}
			free(t);
		}
	}
	return 0;
}

static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

static bool starts(const char *p, const char *prefix)
{
	return !strncmp(p, prefix, strlen(prefix));
}

static uint64_t total(const char *p)
{
	uint64_t v = 0;

	p = strchr(p, ':');
	if (p)
		v = strtoull(p + 1, NULL, 10);
	return v;
}

int hist_output_parse(const char *text, size_t *pos, struct hist_result *r)
{
	const char *p = text + *pos, *e;
	struct hist_spec spec;
	int lineno = 1, rv;

	for (const char *q = text; q < p; q++)
		lineno += *q == '\n';
	memset(r, 0, sizeof(*r));
	/* Find the section's trigger info. */
	for (;; p = *e ? e + 1 : e, lineno++) {
		if (!*p)
			return 0;
		e = line_end(p);
		if (starts(p, "# trigger info: "))
			break;
	}
	{
		char *info = xasprintf("%.*s", (int)(e - p - 16), p + 16), *dup;

		/*
		 * 7.3 shows a common_cpu key twice over in the trigger info
		 * ("keys=common_cpucommon_cpu"), not in the rows: read it once.
		 */
		while ((dup = strstr(info, "common_cpucommon_cpu")))
			memmove(dup + 10, dup + 20, strlen(dup + 20) + 1);
		if (hist_spec_from_trigger(info, &spec)) {
			tr_fail(-EINVAL, "hist output line %d: unreadable trigger info '%s'", lineno,
				info);
			free(info);
			return -EINVAL;
		}
		hist_result_init(r, &spec);
		hist_spec_free(&spec);
		r->trigger = info;
	}
	for (p = *e ? e + 1 : e, lineno++; *p; lineno++) {
		e = line_end(p);
		if (starts(p, "# event histogram")) {
			break;
		} else if (p[0] == '{') {
			/* The entry runs to the line that has its closing brace. */
			const char *close = NULL, *q = p, *ve;
			int start = lineno;

			for (;;) {
				const char *le = line_end(q);

				close = memchr(q, '}', le - q);
				/* A stack frame never holds '}'; a string key might, so take the last. */
				if (close) {
					const char *c2;

					while ((c2 = memchr(close + 1, '}', le - close - 1)))
						close = c2;
					break;
				}
				if (!*le)
					break;
				q = le + 1;
				lineno++;
			}
			if (!close) {
				tr_fail(-EINVAL, "hist output line %d: entry without '}'", start);
				goto bad;
			}
			ve = line_end(close);
			size_t row = hist_result_add_row(r);

			if (parse_keys(r, row, p + 1, close - p - 1) ||
			    parse_vals(r, row, close + 1, ve - close - 1)) {
				tr_fail(-EINVAL, "hist output line %d: cannot read '%.*s'", start,
					(int)(line_end(p) - p), p);
				goto bad;
			}
			e = ve;
		} else if (starts(p, "\tmax:")) {
			/* onmax(): "\tmax:  176  next_comm: kworker/1:1   prev_pid:  31 ..." */
			char *end, *line = xasprintf("%.*s", (int)(e - p - 5), p + 5);
			uint64_t v = strtoull(line, &end, 10);

			if (!r->has_max || v > r->max) {
				char *q, *w;

				r->has_max = true;
				r->max = v;
				free(r->max_saved);
				/* Squeeze the kernel's column padding to two spaces. */
				r->max_saved = w = xmalloc(strlen(end) + 1);
				for (q = end; *q == ' ' || *q == '\t'; q++)
					;
				for (; *q; q++) {
					if ((*q == ' ' || *q == '\t') && (q[1] == ' ' || q[1] == '\t'))
						continue;
					if (*q == ' ' && w > r->max_saved && w[-1] != ':' &&
					    q[1] && !(q[-1] == ':'))
						*w++ = ' ';
					*w++ = *q == '\t' ? ' ' : *q;
				}
				*w = '\0';
				str_rstrip(r->max_saved);
			}
			free(line);
		} else if (starts(p, "\ttriggering value { onmax(")) {
			/*
			 * onmax().snapshot() prints no max per entry, only this
			 * after the entries: "\ttriggering value { onmax($v) }:
			 * 261\ttriggered by event with key: { ... }".
			 */
			const char *v = strstr(p, "}:");
			char *end;
			uint64_t n = v ? strtoull(v + 2, &end, 10) : 0;

			if (v && end != v + 2 && (!r->has_max || n > r->max)) {
				r->has_max = true;
				r->max = n;
			}
		} else if (starts(p, "Totals:")) {
			r->has_totals = true;
		} else if (starts(p, "    Hits:")) {
			r->hits = total(p);
		} else if (starts(p, "    Entries:")) {
			r->entries = total(p);
		} else if (starts(p, "    Dropped:")) {
			r->dropped = total(p);
		}
		p = *e ? e + 1 : e;
	}
	*pos = p - text;
	return 1;
bad:
	rv = -EINVAL;
	hist_result_free(r);
	return rv;
}
