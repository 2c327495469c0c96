// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one renderer both engines share: an aligned table (with an optional
 * bar for the sort value) ending with the totals, or JSON, or CSV with
 * typed fields.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "json.h"

char *hist_cell_text(const struct hist_col *col, const struct hist_cell *c)
{
	switch (col->kind) {
	case HIST_K_NUM:
		return c->text ? xstrdup(c->text) : xasprintf("%" PRIu64, c->num);
	case HIST_K_HEX:
		return xasprintf("0x%" PRIx64, c->num);
	case HIST_K_SYM:
		if (!c->text || !*c->text)
			return xasprintf("0x%" PRIx64, c->num);
		/*
		 * .sym keys on the address: two call sites in one function are
		 * two rows, which only the address tells apart (the kernel
		 * prints it first too).  .sym-offset's text already differs.
		 */
		if (col->mod == HIST_MOD_SYM)
			return xasprintf("[%016" PRIx64 "] %s", c->num, c->text);
		return xstrdup(c->text);
	case HIST_K_TASK:
	case HIST_K_SYSCALL:
		return xasprintf("%s [%" PRIu64 "]", c->text ? c->text : "", c->num);
	case HIST_K_RANGE:
		if (col->mod == HIST_MOD_LOG2)
			return xasprintf("~ 2^%" PRIu64, c->num2);
		return xasprintf("%" PRIu64 "-%" PRIu64, c->num, c->num2);
	case HIST_K_PERCENT:
		return xasprintf("%.2f", c->pct);
	case HIST_K_GRAPH: {
		char *b = xmalloc(c->num + 1);

		memset(b, '#', c->num);
		b[c->num] = '\0';
		return b;
	}
	default:
		return xstrdup(c->text ? c->text : "");
	}
}

static bool right_aligned(enum hist_kind k)
{
	return k == HIST_K_NUM || k == HIST_K_HEX || k == HIST_K_PERCENT;
}

static char *col_title(const struct hist_col *c, const char *unit)
{
	if (c->kind == HIST_K_PERCENT)
		return xasprintf("%s(%%)", c->name);
	/* A latency's column says its unit: "lat.log2(us)". */
	if (unit && !strcmp(c->name, "lat"))
		return c->mod == HIST_MOD_NONE ? xasprintf("lat(%s)", unit)
					       : xasprintf("lat.%s(%s)", hist_mod_name(c->mod), unit);
	if (c->mod == HIST_MOD_LOG2 || c->mod == HIST_MOD_BUCKETS || c->mod == HIST_MOD_USECS)
		return xasprintf("%s.%s", c->name, hist_mod_name(c->mod));
	return xstrdup(c->name);
}

/* Width of the widest line of s. */
static size_t text_width(const char *s)
{
	size_t w = 0, cur = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			cur = 0;
			continue;
		}
		if (((unsigned char)*s & 0xc0) != 0x80)
			cur++;
		if (cur > w)
			w = cur;
	}
	return w;
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

static void print_totals(FILE *f, const struct hist_result *r, const char *unit)
{
	if (r->has_max)
		fprintf(f, "\nMax: %" PRIu64 "%s%s%s%s\n", r->max, unit ? " " : "", unit ? unit : "",
			r->max_saved && *r->max_saved ? "  " : "", r->max_saved ? r->max_saved : "");
	if (!r->has_totals)
		return;
	fprintf(f, "\nTotals:  Hits: %" PRIu64 "  Entries: %" PRIu64 "  Dropped: %" PRIu64 "\n",
		r->hits, r->entries, r->dropped);
	if (r->dropped)
		fprintf(f, "Dropped %" PRIu64 " events: the table was full (%" PRIu64
			   " entries); raise --size\n", r->dropped, r->entries);
	if (r->lost)
		fprintf(f, "Lost %" PRIu64 " events: the ring buffer overran before they were read; "
			   "raise the buffer size (-b)\n", r->lost);
}

static int render_table(FILE *out, const struct hist_result *r, const struct hist_render_opts *o)
{
	/* Built in memory first, so trailing padding can be cut from every line. */
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	size_t nc = r->ncols, width[HIST_MAX_KEYS + HIST_MAX_VALS];
	char **t = xcalloc(r->nrows * nc + nc, sizeof(*t)), **title = t + r->nrows * nc;
	int barw = o->width > 0 ? o->width : 30, sc = r->sort_col;
	uint64_t max = 0;
	bool stacks = false;

	for (size_t c = 0; c < nc; c++) {
		stacks |= r->cols[c].kind == HIST_K_STACK;
		title[c] = col_title(&r->cols[c], o->unit);
		width[c] = text_width(title[c]);
	}
	for (size_t i = 0; i < r->nrows; i++)
		for (size_t c = 0; c < nc; c++) {
			char *s = hist_cell_text(&r->cols[c], hist_cell(r, i, c));
			size_t w = text_width(s);

			t[i * nc + c] = s;
			if (w > width[c])
				width[c] = w;
		}
	if (o->bars && sc >= 0)
		for (size_t i = 0; i < r->nrows; i++)
			if (hist_cell(r, i, sc)->num > max)
				max = hist_cell(r, i, sc)->num;
	if (r->note)
		fprintf(f, "# %s\n", r->note);
	for (size_t c = 0; c < nc; c++) {
		bool last = c + 1 == nc && !o->bars;

		if (right_aligned(r->cols[c].kind))
			pad(f, width[c] - text_width(title[c]));
		fputs(title[c], f);
		if (!last && !right_aligned(r->cols[c].kind))
			pad(f, width[c] - text_width(title[c]));
		fputs(last ? "\n" : "  ", f);
	}
	if (o->bars)
		fputs("\n", f);
	for (size_t i = 0; i < r->nrows; i++) {
		/* Multi-line cells (stack traces): line l of every cell, until all are done. */
		for (size_t l = 0;; l++) {
			bool more = false, any = false;

			for (size_t c = 0; c < nc; c++) {
				const char *s = t[i * nc + c];
				size_t k = 0, len, w;

				while (k < l && s && (s = strchr(s, '\n')))
					s++, k++;
				if (!s || k < l)
					s = "";
				len = strcspn(s, "\n");
				more |= s[len] == '\n';
				any |= len > 0;
				{
					char *piece = xasprintf("%.*s", (int)len, s);

					w = text_width(piece);
					if (right_aligned(r->cols[c].kind))
						pad(f, width[c] - w);
					fputs(piece, f);
					free(piece);
				}
				if (c + 1 < nc || (o->bars && l == 0))
					if (!right_aligned(r->cols[c].kind))
						pad(f, width[c] - w);
				if (c + 1 < nc || (o->bars && l == 0))
					fputs("  ", f);
			}
			if (o->bars && l == 0 && sc >= 0) {
				uint64_t v = hist_cell(r, i, sc)->num;
				int n = max ? (int)((double)v * barw / max + 0.5) : 0;

				fputc('|', f);
				for (int b = 0; b < n; b++)
					fputc('#', f);
			}
			fputc('\n', f);
			(void)any;
			if (!more)
				break;
		}
		/* Stack traces run over several lines: a blank line keeps the entries apart. */
		if (stacks && i + 1 < r->nrows)
			fputc('\n', f);
	}
	print_totals(f, r, o->unit);
	for (size_t i = 0; i < r->nrows * nc + nc; i++)
		free(t[i]);
	free(t);
	fclose(f);
	for (char *l = buf, *nl; l && *l; l = nl + 1) {
		size_t n;

		nl = strchr(l, '\n');
		if (!nl)
			nl = l + strlen(l) - 1;
		n = nl - l + (*nl != '\n');
		while (n && l[n - 1] == ' ')
			n--;
		fwrite(l, 1, n, out);
		fputc('\n', out);
	}
	free(buf);
	return ferror(out) ? -EIO : 0;
}

/*
 * The typed fields of a cell: name and value pairs.  Addresses, pids and
 * syscall ids stay numbers next to their names; ranges give both ends.
 */
static void json_cell(FILE *f, const struct hist_col *col, const struct hist_cell *c)
{
	switch (col->kind) {
	case HIST_K_NUM:
		json_fputs(f, col->name);
		if (c->text && c->text[0] == '-')
			fprintf(f, ":%s", c->text);
		else
			fprintf(f, ":%" PRIu64, c->num);
		break;
	case HIST_K_HEX:
		json_fputs(f, col->name);
		fprintf(f, ":%" PRIu64, c->num);
		break;
	case HIST_K_STR:
		json_fputs(f, col->name);
		fputc(':', f);
		json_fputs(f, c->text);
		break;
	case HIST_K_SYM:
		json_fputs(f, col->name);
		fprintf(f, ":%" PRIu64 ",", c->num);
		fprintf(f, "\"%s_sym\":", col->name);
		json_fputs(f, c->text);
		break;
	case HIST_K_TASK:
		json_fputs(f, col->name);
		fprintf(f, ":%" PRIu64 ",\"%s_comm\":", c->num, col->name);
		json_fputs(f, c->text);
		break;
	case HIST_K_SYSCALL:
		json_fputs(f, col->name);
		fprintf(f, ":%" PRIu64 ",\"%s_name\":", c->num, col->name);
		json_fputs(f, c->text);
		break;
	case HIST_K_RANGE:
		if (col->mod == HIST_MOD_LOG2)
			fprintf(f, "\"%s_log2\":%" PRIu64 ",\"%s_max\":%" PRIu64, col->name, c->num2,
				col->name, c->num);
		else
			fprintf(f, "\"%s_min\":%" PRIu64 ",\"%s_max\":%" PRIu64, col->name, c->num,
				col->name, c->num2);
		break;
	case HIST_K_STACK: {
		const char *s = c->text ? c->text : "";

		json_fputs(f, col->name);
		fputs(":[", f);
		while (*s) {
			size_t n = strcspn(s, "\n");
			char *fr = xasprintf("%.*s", (int)n, s);

			json_fputs(f, fr);
			free(fr);
			s += n;
			if (*s) {
				s++;
				fputc(',', f);
			}
		}
		fputc(']', f);
		break;
	}
	case HIST_K_PERCENT:
		fprintf(f, "\"%s_percent\":%.2f", col->name, c->pct);
		break;
	case HIST_K_GRAPH:
		fprintf(f, "\"%s_bar\":%" PRIu64, col->name, c->num);
		break;
	}
}

static int render_json(FILE *f, const struct hist_result *r, const char *unit)
{
	fputs("{", f);
	if (unit) {
		fputs("\"unit\":", f);
		json_fputs(f, unit);
		fputc(',', f);
	}
	if (r->trigger) {
		fputs("\"trigger\":", f);
		json_fputs(f, r->trigger);
		fputc(',', f);
	}
	if (r->note) {
		fputs("\"note\":", f);
		json_fputs(f, r->note);
		fputc(',', f);
	}
	fputs("\"entries\":[", f);
	for (size_t i = 0; i < r->nrows; i++) {
		fputs(i ? ",\n{" : "\n{", f);
		for (size_t c = 0; c < r->ncols; c++) {
			if (c)
				fputc(',', f);
			json_cell(f, &r->cols[c], hist_cell(r, i, c));
		}
		fputc('}', f);
	}
	if (r->has_max) {
		fprintf(f, "],\n\"max\":{\"value\":%" PRIu64 ",\"saved\":", r->max);
		json_fputs(f, r->max_saved);
		fputs("}", f);
	} else {
		fputs("]", f);
	}
	fprintf(f, ",\n\"totals\":{\"hits\":%" PRIu64 ",\"entries\":%" PRIu64
		   ",\"dropped\":%" PRIu64 ",\"lost\":%" PRIu64 "}}\n", r->hits, r->entries,
		r->dropped, r->lost);
	return ferror(f) ? -EIO : 0;
}

static int render_csv(FILE *f, const struct hist_result *r)
{
	for (size_t c = 0; c < r->ncols; c++) {
		const struct hist_col *col = &r->cols[c];
		const char *n = col->name;

		if (c)
			fputc(',', f);
		switch (col->kind) {
		case HIST_K_SYM:
			fprintf(f, "%s,%s_sym", n, n);
			break;
		case HIST_K_TASK:
			fprintf(f, "%s,%s_comm", n, n);
			break;
		case HIST_K_SYSCALL:
			fprintf(f, "%s,%s_name", n, n);
			break;
		case HIST_K_RANGE:
			if (col->mod == HIST_MOD_LOG2)
				fprintf(f, "%s_log2,%s_max", n, n);
			else
				fprintf(f, "%s_min,%s_max", n, n);
			break;
		case HIST_K_PERCENT:
			fprintf(f, "%s_percent", n);
			break;
		case HIST_K_GRAPH:
			fprintf(f, "%s_bar", n);
			break;
		default:
			fputs(n, f);
		}
	}
	fputc('\n', f);
	for (size_t i = 0; i < r->nrows; i++) {
		for (size_t c = 0; c < r->ncols; c++) {
			const struct hist_col *col = &r->cols[c];
			const struct hist_cell *x = hist_cell(r, i, c);

			if (c)
				fputc(',', f);
			switch (col->kind) {
			case HIST_K_NUM:
				if (x->text && x->text[0] == '-')
					fputs(x->text, f);
				else
					fprintf(f, "%" PRIu64, x->num);
				break;
			case HIST_K_HEX:
			case HIST_K_GRAPH:
				fprintf(f, "%" PRIu64, x->num);
				break;
			case HIST_K_SYM:
			case HIST_K_TASK:
			case HIST_K_SYSCALL:
				fprintf(f, "%" PRIu64 ",", x->num);
				csv_fputs(f, x->text);
				break;
			case HIST_K_RANGE:
				if (col->mod == HIST_MOD_LOG2)
					fprintf(f, "%" PRIu64 ",%" PRIu64, x->num2, x->num);
				else
					fprintf(f, "%" PRIu64 ",%" PRIu64, x->num, x->num2);
				break;
			case HIST_K_PERCENT:
				fprintf(f, "%.2f", x->pct);
				break;
			case HIST_K_STACK: {
				char *s = xstrdup(x->text ? x->text : "");

				for (char *p = s; *p; p++)
					if (*p == '\n')
						*p = ';';
				csv_fputs(f, s);
				free(s);
				break;
			}
			default:
				csv_fputs(f, x->text);
			}
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

int hist_render(FILE *f, const struct hist_result *r, const struct hist_render_opts *o)
{
	struct hist_result view = *r;
	char *note = NULL;
	int err;

	/*
	 * --limit: the first rows only (the top ones, as the table is sorted);
	 * the totals still count them all, and the table says what it left out.
	 */
	if (o->limit && r->nrows > o->limit) {
		view.nrows = o->limit;
		note = xasprintf("%s%sthe first %zu of %zu entries (--limit)", r->note ? r->note : "",
				 r->note ? "; " : "", o->limit, r->nrows);
		view.note = note;
	}
	switch (o->kind) {
	case HIST_OUT_JSON:
		err = render_json(f, &view, o->unit);
		break;
	case HIST_OUT_CSV:
		err = render_csv(f, &view);
		break;
	default:
		err = render_table(f, &view, o);
		break;
	}
	free(note);
	return err;
}
