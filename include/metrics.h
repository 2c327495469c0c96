/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr serve's metrics: families of series with bounded label sets, counted
 * as events arrive and written as Prometheus scrapes them (expo.h).  Pure:
 * no tracefs, no sockets, no threads or locks (the caller holds one).
 *
 *   struct mx *m = mx_new();
 *   struct mx_family *f = mx_family(m, "tr_syscalls", MX_COUNTER, NULL, "...",
 *                                   (const char *[]){ "syscall", NULL }, 64);
 *   mx_add(mx_series(f, (const char *[]){ "read" }), 1);
 *   mx_write(m, &expo);            // every family, in the order made
 *
 * Bounded labels: a family keeps at most max_series label sets.  Once it
 * has max_series - 1, each new set is counted in one series whose every
 * label is "other", and stays there: a set never moves between its own
 * series and "other", so no counter goes backwards (a folding by rank at
 * scrape time would move counts out of "other").
 *
 * Histograms count values (nanoseconds, bytes) against fixed upper bounds
 * and are written scaled (mx_family_hist()'s scale: 1e-9 for seconds).
 */
#ifndef TR_METRICS_H
#define TR_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "expo.h"

enum mx_type { MX_COUNTER, MX_GAUGE, MX_HISTOGRAM, MX_INFO };

struct mx;
struct mx_family;
struct mx_series;

#define MX_MAX_LABELS 4

struct mx *mx_new(void);
void mx_free(struct mx *m);
/*
 * A family: name (tr's own, a valid metric name), its unit (or NULL) and
 * help, its label names (NULL-ended, at most MX_MAX_LABELS), and at most
 * max_series label sets (0: 1000).  Owned by m.
 */
struct mx_family *mx_family(struct mx *m, const char *name, enum mx_type type,
			    const char *unit, const char *help, const char *const *labels,
			    size_t max_series);
/*
 * A histogram family: n upper bounds le[] (ascending, in the values'
 * unit), written times scale.
 */
struct mx_family *mx_family_hist(struct mx *m, const char *name, const char *unit,
				 const char *help, const char *const *labels, size_t max_series,
				 const uint64_t *le, size_t n, double scale);
/* The family of that name, or NULL. */
struct mx_family *mx_find(const struct mx *m, const char *name);
/* A counter family's values written times scale (1e-9: nanoseconds counted, seconds shown). */
void mx_family_scale(struct mx_family *f, double scale);
/*
 * The series of these label values (as many as the family has names; a
 * value may be any bytes, escaped when written), made on first use, or
 * the family's "other" once it is full.  Never NULL.  The pointer stays
 * valid while m lives.
 */
struct mx_series *mx_series(struct mx_family *f, const char *const *values);
/* A counter's or gauge's value: add, or set (a value read from the kernel). */
void mx_add(struct mx_series *s, uint64_t v);
void mx_set(struct mx_series *s, double v);
/* A histogram's observation. */
void mx_observe(struct mx_series *s, uint64_t v);
/* The label sets the family has, and the observations folded into "other" (tests, health). */
size_t mx_family_size(const struct mx_family *f);
uint64_t mx_family_folded(const struct mx_family *f);
/* Every family (those with no series yet too: their TYPE and HELP), in the order made. */
void mx_write(const struct mx *m, struct expo *e);

/* Upper bounds 1, 2, 4 ... 2^(n-1) times base: a log2 histogram's. */
void mx_log2_bounds(uint64_t *le, size_t n, uint64_t base);

#endif
