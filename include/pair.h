/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pairing a start with its end when they may arrive out of order: each
 * CPU's reader walks its own pages, so a wakeup read from one CPU can come
 * after the switch-in it caused, read from another.  An end that finds no
 * start waits as an orphan for a start at or before it; a start after an
 * orphan gives the orphan up (its real start came before we looked).
 * Used by tr top's model and tr serve's metrics, one pair per key.
 */
#ifndef TR_PAIR_H
#define TR_PAIR_H

#include <stdbool.h>
#include <stdint.h>

struct pair {
	uint64_t start;		/* a start waiting for its end */
	uint64_t orphan;	/* an end that came before any start */
	int orphan_cpu;
};

/* A start at t: pairs with an end that came first (another CPU's reader was ahead), else waits. */
static inline bool pair_start(struct pair *p, uint64_t t, uint64_t *lat, int *cpu)
{
	if (p->orphan && t <= p->orphan) {
		*lat = p->orphan - t;
		*cpu = p->orphan_cpu;
		p->orphan = 0;
		return true;
	}
	/* An end older than this start had its start before we looked: give up on it. */
	p->orphan = 0;
	if (t > p->start)
		p->start = t;
	return false;
}

/* An end at t on cpu: the latency of the start waiting, if there is one. */
static inline bool pair_end(struct pair *p, uint64_t t, int cpu, uint64_t *lat)
{
	if (p->start && p->start <= t) {
		*lat = t - p->start;
		p->start = 0;
		return true;
	}
	/* Its start may still come from a CPU whose reader is behind: the earliest such end waits. */
	if (!p->orphan || t < p->orphan) {
		p->orphan = t;
		p->orphan_cpu = cpu;
	}
	return false;
}

/* Nothing started before t can end after it (the task went to sleep at t). */
static inline void pair_cancel(struct pair *p, uint64_t t)
{
	if (p->start < t)
		p->start = 0;
}

#endif
