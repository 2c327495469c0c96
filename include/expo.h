/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metrics as Prometheus scrapes them: the text exposition format 0.0.4 and
 * OpenMetrics 1.0.0 (include/http.h says which a scraper asked for),
 * written from families of samples.  The same calls give either format:
 *
 *   struct expo e;
 *   expo_init(&e, HTTP_EXPO_OPENMETRICS);
 *   expo_family(&e, "tr_sched_switches", EXPO_COUNTER, NULL, "context switches");
 *   expo_u64(&e, (const char *[]){ "cpu", "0", NULL }, 1234);
 *   expo_family(&e, "tr_runq_latency_seconds", EXPO_HISTOGRAM, "seconds", "...");
 *   expo_histogram(&e, labels, le, cumulative, n, sum);
 *   expo_end(&e);          // e.buf, e.len: the body; free(e.buf)
 *
 * A counter's family is named without _total (OpenMetrics' TYPE line; the
 * text format's names the sample, _total and all); a unit, where given,
 * is the name's last word (the OpenMetrics UNIT line).  Label values are
 * escaped (\\ \" \n) and made valid UTF-8 (U+FFFD for a bad byte): comms
 * are a peer's bytes as much as any.  Names are tr's own or come through
 * expo_name(), which makes any text a valid one.
 */
#ifndef TR_EXPO_H
#define TR_EXPO_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"

enum expo_type { EXPO_COUNTER, EXPO_GAUGE, EXPO_HISTOGRAM, EXPO_INFO };

struct expo {
	enum http_expo fmt;
	char *buf;
	size_t len, cap;
	/* the family the samples belong to */
	char name[128];
	enum expo_type type;
	/*
	 * The last histogram's bounds and their text: every series of a
	 * family has the same, and the shortest text of a float is not cheap.
	 */
	double *le;
	char (*le_text)[40];
	size_t le_n;
};

void expo_init(struct expo *e, enum http_expo fmt);
void expo_family(struct expo *e, const char *name, enum expo_type type, const char *unit,
		 const char *help);
/*
 * One sample of the current family: labels are name, value pairs ending
 * in NULL (NULL for none).  A counter's gets _total, an info's _info and
 * the value 1 (v is not read).
 */
void expo_u64(struct expo *e, const char *const *labels, uint64_t v);
void expo_double(struct expo *e, const char *const *labels, double v);
/*
 * A histogram's samples: n buckets of upper bounds le[] (ascending) with
 * cumulative counts cum[]; the +Inf bucket and _count are count, _sum is
 * sum.
 */
void expo_histogram(struct expo *e, const char *const *labels, const double *le,
		    const uint64_t *cum, size_t n, uint64_t count, double sum);
/* The end of the body (OpenMetrics' "# EOF"); frees all but e->buf. */
void expo_end(struct expo *e);

/*
 * A valid metric or label name made of s (at most n - 1 bytes, in out):
 * each byte outside [a-zA-Z0-9_] becomes '_', and a leading digit gets a
 * '_' before it.  Label names beginning "__" are Prometheus's own: one
 * '_' is dropped.
 */
void expo_name(char *out, size_t n, const char *s);

#endif
