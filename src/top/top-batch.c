// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr top's batch output (-b): each refresh as plain text, like top -b (a
 * header, the view's table, a blank line), or as one JSON object per line
 * with raw numbers (times in ns) for scripts.
 */
#include <errno.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "top-local.h"

static void json_str(FILE *f, const char *s)
{
	json_fputs(f, s);
}

/* "a b c" as a JSON array of strings. */
static void json_words(FILE *f, const char *s)
{
	char *copy = xstrdup(s ? s : ""), *save = NULL;
	bool first = true;

	fputc('[', f);
	for (char *w = strtok_r(copy, " ,", &save); w; w = strtok_r(NULL, " ,", &save)) {
		if (!first)
			fputc(',', f);
		json_str(f, w);
		first = false;
	}
	fputc(']', f);
	free(copy);
}

static void json_cell(FILE *f, const struct top_col *c, const struct top_cell *cell)
{
	if (cell->s)
		json_str(f, cell->s);
	else if (c->unit == TU_PCT || c->unit == TU_RATE)
		fprintf(f, "%.2f", cell->v);
	else
		fprintf(f, "%.0f", cell->v);
}

static int print_json(FILE *f, const struct top_header *h, const struct top_state *st,
		      const struct top_table *t)
{
	fprintf(f, "{\"source\":");
	json_str(f, h->source);
	fprintf(f, ",\"elapsed_s\":%.3f,\"cpus\":%d,\"interval_s\":%.3f,\"events\":%llu,"
		   "\"events_per_s\":%.1f,\"lost\":%llu,\"lost_per_s\":%.1f,\"bad_pages\":%llu,"
		   "\"buffer_kb\":%llu,\"state\":",
		h->elapsed_ns / 1e9, h->ncpus, h->interval_s, (unsigned long long)h->events,
		h->events_s, (unsigned long long)h->lost, h->lost_s,
		(unsigned long long)h->bad_pages, (unsigned long long)h->buffer_kb);
	json_str(f, h->state);
	fprintf(f, ",\"enabled\":");
	json_words(f, h->enabled);
	fprintf(f, ",\"view\":");
	json_str(f, t->view->id);
	if (t->view->src == TS_LATENCY && h->pair) {
		fprintf(f, ",\"pair\":");
		json_str(f, h->pair);
	}
	if (st->drill_field != TF_NONE) {
		fprintf(f, ",\"drill\":");
		json_str(f, st->drill_label);
	}
	if (st->filter[0]) {
		fprintf(f, ",\"filter\":");
		json_str(f, st->filter);
	}
	fprintf(f, ",\"missing\":");
	json_words(f, t->missing);
	fprintf(f, ",\"unavailable\":%s", t->unavailable ? "true" : "false");
	if (t->sort >= 0 && (size_t)t->sort < t->ncols) {
		fprintf(f, ",\"sort\":");
		json_str(f, t->cols[t->sort].json);
	}
	fprintf(f, ",\"rows\":[");
	for (size_t r = 0; r < t->nrows; r++) {
		fprintf(f, "%s{\"key\":%lld", r ? "," : "", (long long)t->keys[r]);
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(',', f);
			json_str(f, t->cols[c].json);
			fputc(':', f);
			json_cell(f, &t->cols[c], top_tcell(t, r, c));
		}
		fputc('}', f);
	}
	fputc(']', f);
	if (t->has_hist) {
		fprintf(f, ",\"histogram\":[");
		for (int b = t->hist.lo, first = 1; b <= t->hist.hi; b++, first = 0)
			fprintf(f, "%s{\"low_ns\":%llu,\"high_ns\":%llu,\"count\":%llu}",
				first ? "" : ",", b ? 1ULL << b : 0ULL, 1ULL << (b + 1),
				(unsigned long long)t->hist.count[b]);
		fputc(']', f);
	}
	if (t->note) {
		fprintf(f, ",\"note\":");
		json_str(f, t->note);
	}
	fprintf(f, "}\n");
	return 0;
}

/* The first lines of every refresh: what is measured, how fast, what is lost. */
static void print_header(FILE *f, const struct top_header *h)
{
	char el[16];

	top_time_text((double)h->elapsed_ns, el, sizeof(el));
	fprintf(f, "tr top - %s, %s, %d CPUs, %.0f events/s, %.0f lost/s", h->source, el,
		h->ncpus, h->events_s, h->lost_s);
	if (h->buffer_kb)
		fprintf(f, ", %llu KiB/CPU", (unsigned long long)h->buffer_kb);
	fprintf(f, ", every %.2gs, %s\n", h->interval_s, h->state ? h->state : "");
	if (h->lost || h->bad_pages)
		fprintf(f, "lost: %llu events in all, %llu corrupt sub-buffers skipped\n",
			(unsigned long long)h->lost, (unsigned long long)h->bad_pages);
	fprintf(f, "enabled: %s\n", h->enabled && *h->enabled ? h->enabled : "(nothing)");
}

static void print_hist(FILE *f, const struct top_table *t)
{
	uint64_t max = 0;

	for (int b = t->hist.lo; b <= t->hist.hi; b++)
		if (t->hist.count[b] > max)
			max = t->hist.count[b];
	for (int b = t->hist.lo; b <= t->hist.hi; b++) {
		char label[48];
		int w = max ? (int)(t->hist.count[b] * 40 / max) : 0;

		top_hist_label(b, label, sizeof(label));
		fprintf(f, "%22s %10llu |%-40.*s|\n", label, (unsigned long long)t->hist.count[b], w,
			"########################################");
	}
}

static void print_text(FILE *f, const struct top_header *h, const struct top_state *st,
		       const struct top_table *t)
{
	print_header(f, h);
	if (t->missing && *t->missing)
		fprintf(f, "%s: %s\n", t->unavailable ? "not available" : "missing on this kernel",
			t->missing);
	fprintf(f, "view: %s", t->view->id);
	if (st->drill_field != TF_NONE)
		fprintf(f, " of %s", st->drill_label);
	if (st->filter[0])
		fprintf(f, ", rows matching '%s'", st->filter);
	if (t->sort >= 0 && (size_t)t->sort < t->ncols)
		fprintf(f, ", by %s%s", t->cols[t->sort].name, t->sort_asc ? "" : " (descending)");
	if (t->view->src == TS_LATENCY && h->pair)
		fprintf(f, " - %s\n", h->pair);
	else
		fprintf(f, " - %s\n", t->view->help);
	if (t->unavailable) {
		fputc('\n', f);
		return;
	}
	for (size_t c = 0; c < t->ncols; c++)
		fprintf(f, "%s%*s", c ? " " : "", t->cols[c].width, t->cols[c].name);
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			char buf[128];
			int w = t->cols[c].width;

			top_cell_text(&t->cols[c], top_tcell(t, r, c), buf, sizeof(buf));
			/* Text wider than its column is cut, except in the last column. */
			if (w < 0 && c + 1 < t->ncols)
				fprintf(f, "%s%-*.*s", c ? " " : "", -w, -w, buf);
			else
				fprintf(f, "%s%*s", c ? " " : "", w, buf);
		}
		fputc('\n', f);
	}
	if (t->has_hist && t->hist.hi >= t->hist.lo) {
		fprintf(f, "latency in ns, log2 buckets:\n");
		print_hist(f, t);
	}
	if (t->note)
		fprintf(f, "%s\n", t->note);
	fputc('\n', f);
}

int top_batch_print(FILE *f, enum top_out kind, const struct top_header *h,
		    const struct top_state *st, const struct top_table *t)
{
	if (kind == TOP_OUT_JSON)
		print_json(f, h, st, t);
	else
		print_text(f, h, st, t);
	if (fflush(f) || ferror(f)) {
		int e = errno ? errno : EIO;

		/* The reader went away (tr top -b | head): drop what is left, end quietly. */
		if (e == EPIPE) {
			__fpurge(f);
			clearerr(f);
		}
		return -e;
	}
	return 0;
}
