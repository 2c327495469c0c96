/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr serve's parts, shared by the files of src/serve (and the unit tests)
 * only; what the command sees is include/serve.h.
 *
 * The aggregator turns decoded records (top-decode.h) into the default
 * metrics of a registry (metrics.h) as they arrive: counters and
 * histograms only grow, and what is in flight (a task woken and not yet
 * running, a syscall entered and not yet left, an irq, a block request)
 * is kept in bounded tables.  Pure: the caller holds the lock around it.
 */
#ifndef TR_SERVE_LOCAL_H
#define TR_SERVE_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "top-decode.h"

struct serve_agg;

struct serve_agg_opts {
	int ncpus;
	size_t max_syscalls;	/* syscall label sets, "other" one of them (0: 64) */
	size_t max_pending;	/* in-flight entries per table (0: 65536), the rest not timed */
};

/* The families are made in m (which must outlive the aggregator). */
struct serve_agg *serve_agg_new(struct mx *m, const struct serve_agg_opts *o);
/* A syscall's name by number (the architecture's table); unnamed ones are "sys_NR". */
void serve_agg_syscall_name(struct serve_agg *a, unsigned nr, const char *name);
/*
 * Give the most entered syscalls without a series of their own one, up to
 * max_syscalls - 1 of them (a scrape calls it, before writing).
 */
void serve_agg_rank(struct serve_agg *a);
void serve_agg_feed(struct serve_agg *a, const struct top_rec *r);
/* n events lost on cpu (-1: an unknown number, counted as one). */
void serve_agg_lost(struct serve_agg *a, int cpu, int64_t n);
void serve_agg_free(struct serve_agg *a);

/* Log2 bounds of the latency histograms: 1 us to 2^22 us (4.2 s), in ns. */
#define SERVE_LAT_BOUNDS 23

#endif
