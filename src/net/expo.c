// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The exposition formats: see include/expo.h.  The text format 0.0.4 is
 * Prometheus's (docs: "Exposition formats"); OpenMetrics 1.0.0 is the
 * OpenMetrics specification's: a counter family "foo" has samples
 * "foo_total", a histogram "foo_bucket{le=...}", "foo_count", "foo_sum",
 * an info "foo_info" with value 1, and the body ends with "# EOF".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"
#include "json.h"
#include "tr.h"

static void grow(struct expo *e, size_t n)
{
	if (e->len + n + 1 <= e->cap)
		return;
	while (e->len + n + 1 > e->cap)
		e->cap = e->cap ? e->cap * 2 : 4096;
	e->buf = xrealloc(e->buf, e->cap);
}

static void put(struct expo *e, const char *s, size_t n)
{
	grow(e, n);
	memcpy(e->buf + e->len, s, n);
	e->len += n;
	e->buf[e->len] = '\0';
}

static void puts_(struct expo *e, const char *s)
{
	put(e, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) printf_(struct expo *e, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (n < 0)
		return;
	grow(e, (size_t)n);
	va_start(ap, f);
	vsnprintf(e->buf + e->len, (size_t)n + 1, f, ap);
	va_end(ap);
	e->len += (size_t)n;
}

void expo_init(struct expo *e, enum http_expo fmt)
{
	memset(e, 0, sizeof(*e));
	e->fmt = fmt;
}

/* Text escaped as the formats ask: '\' and newline; '"' too in label values (quote). */
static void escaped(struct expo *e, const char *s, int quote)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t k = p[i] < 0x80 ? 1 : utf8_len(p + i, n - i);

		if (!k) {
			put(e, "\xef\xbf\xbd", 3);
			i++;
		} else if (p[i] == '\\') {
			put(e, "\\\\", 2), i++;
		} else if (p[i] == '\n') {
			put(e, "\\n", 2), i++;
		} else if (p[i] == '"' && quote) {
			put(e, "\\\"", 2), i++;
		} else {
			put(e, s + i, k);
			i += k;
		}
	}
}

void expo_family(struct expo *e, const char *name, enum expo_type type, const char *unit,
		 const char *help)
{
	bool om = e->fmt == HTTP_EXPO_OPENMETRICS;
	const char *suffix = "";
	static const char *const types[] = { "counter", "gauge", "histogram", "info" };
	const char *t = types[type];

	snprintf(e->name, sizeof(e->name), "%s", name);
	e->type = type;
	/* The text format names a counter family by its samples, and has no info. */
	if (!om && type == EXPO_COUNTER)
		suffix = "_total";
	if (!om && type == EXPO_INFO) {
		suffix = "_info";
		t = "gauge";
	}
	printf_(e, "# TYPE %s%s %s\n", name, suffix, t);
	if (om && unit && *unit)
		printf_(e, "# UNIT %s %s\n", name, unit);
	if (help && *help) {
		printf_(e, "# HELP %s%s ", name, suffix);
		escaped(e, help, om);
		put(e, "\n", 1);
	}
}

static void labels_(struct expo *e, const char *const *labels, const char *le)
{
	bool any = false;

	for (size_t i = 0; labels && labels[i] && labels[i + 1]; i += 2) {
		put(e, any ? "," : "{", 1);
		puts_(e, labels[i]);
		put(e, "=\"", 2);
		escaped(e, labels[i + 1], 1);
		put(e, "\"", 1);
		any = true;
	}
	if (le) {
		put(e, any ? "," : "{", 1);
		printf_(e, "le=\"%s\"", le);
		any = true;
	}
	if (any)
		put(e, "}", 1);
}

static const char *sample_suffix(const struct expo *e)
{
	return e->type == EXPO_COUNTER ? "_total" : e->type == EXPO_INFO ? "_info" : "";
}

/* A float as Prometheus reads it; OpenMetrics wants a '.' or an exponent in le values. */
static void number(char *b, size_t n, double v, bool om_le)
{
	if (isnan(v)) {
		snprintf(b, n, "NaN");
	} else if (isinf(v)) {
		snprintf(b, n, v > 0 ? "+Inf" : "-Inf");
	} else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		/* A whole number as one, never "3e+01" (a count reads as a count). */
		snprintf(b, n, "%.0f", v);
		if (om_le)
			snprintf(b + strlen(b), n - strlen(b), ".0");
	} else {
		snprintf(b, n, "%.17g", v);
		/* The shortest text that reads back as v. */
		for (int p = 1; p <= 17; p++) {
			char t[40];

			snprintf(t, sizeof(t), "%.*g", p, v);
			if (strtod(t, NULL) == v) {
				snprintf(b, n, "%s", t);
				break;
			}
		}
		if (om_le && !strpbrk(b, ".eEnN"))
			snprintf(b + strlen(b), n - strlen(b), ".0");
	}
}

void expo_u64(struct expo *e, const char *const *labels, uint64_t v)
{
	puts_(e, e->name);
	puts_(e, sample_suffix(e));
	labels_(e, labels, NULL);
	printf_(e, " %llu\n", e->type == EXPO_INFO ? 1ULL : (unsigned long long)v);
}

void expo_double(struct expo *e, const char *const *labels, double v)
{
	char b[40];

	if (e->type == EXPO_INFO) {
		expo_u64(e, labels, 1);
		return;
	}
	number(b, sizeof(b), v, false);
	puts_(e, e->name);
	puts_(e, sample_suffix(e));
	labels_(e, labels, NULL);
	printf_(e, " %s\n", b);
}

void expo_histogram(struct expo *e, const char *const *labels, const double *le,
		    const uint64_t *cum, size_t n, uint64_t count, double sum)
{
	bool om = e->fmt == HTTP_EXPO_OPENMETRICS;
	char b[40];

	if (n != e->le_n || (n && memcmp(le, e->le, n * sizeof(*le)))) {
		e->le = xrealloc(e->le, (n ? n : 1) * sizeof(*le));
		e->le_text = xrealloc(e->le_text, (n ? n : 1) * sizeof(*e->le_text));
		memcpy(e->le, le, n * sizeof(*le));
		for (size_t i = 0; i < n; i++)
			number(e->le_text[i], sizeof(e->le_text[i]), le[i], om);
		e->le_n = n;
	}
	for (size_t i = 0; i < n; i++) {
		printf_(e, "%s_bucket", e->name);
		labels_(e, labels, e->le_text[i]);
		printf_(e, " %llu\n", (unsigned long long)cum[i]);
	}
	printf_(e, "%s_bucket", e->name);
	labels_(e, labels, "+Inf");
	printf_(e, " %llu\n", (unsigned long long)count);
	number(b, sizeof(b), sum, false);
	printf_(e, "%s_sum", e->name);
	labels_(e, labels, NULL);
	printf_(e, " %s\n", b);
	printf_(e, "%s_count", e->name);
	labels_(e, labels, NULL);
	printf_(e, " %llu\n", (unsigned long long)count);
}

void expo_end(struct expo *e)
{
	free(e->le);
	free(e->le_text);
	e->le = NULL;
	e->le_text = NULL;
	e->le_n = 0;
	if (e->fmt == HTTP_EXPO_OPENMETRICS)
		puts_(e, "# EOF\n");
	else
		grow(e, 0);
}

void expo_name(char *out, size_t n, const char *s)
{
	size_t o = 0;

	if (!n)
		return;
	if (s[0] >= '0' && s[0] <= '9' && o + 1 < n)
		out[o++] = '_';
	if (s[0] == '_' && s[1] == '_')
		s++;
	for (; *s && o + 1 < n; s++) {
		char c = *s;

		out[o++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				   (c >= '0' && c <= '9') || c == '_'
			   ? c
			   : '_';
	}
	if (!o && n > 1)
		out[o++] = '_';
	out[o] = '\0';
}
