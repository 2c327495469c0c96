/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The task profile's tables, shared by the model (fmt-tprof.c) and its
 * print (fmt-tprof-print.c); include/fmt-tprof.h is the interface.
 */
#ifndef TR_FMT_TPROF_LOCAL_H
#define TR_FMT_TPROF_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "fmt-tprof.h"
#include "hash.h"

/* Bucket 0: under 1 us; bucket k: [2^(k-1), 2^k) us; the last takes the rest. */
enum { TPROF_BUCKETS = 40 };

struct tprof_dist {
	uint64_t n, total, max;
	uint64_t min;			/* valid when n */
	uint64_t b[TPROF_BUCKETS];
};

/* Blocked in one state (prev_state & 0xff, never 0). */
struct tprof_state {
	uint32_t state;
	struct tprof_dist d;
};

struct tprof_stack {
	uint32_t state;			/* the blocked state it led to */
	uint32_t n;
	uint64_t *ip;
	uint64_t count, total;
};

struct tprof_sys {
	long nr;
	uint64_t count, total, max;
};

struct tprof_task {
	int pid;
	unsigned ntasks;		/* with by_comm: how many were merged */
	char comm[17];
	uint64_t run, slices;
	struct tprof_dist preempt, wake;
	struct tprof_state *blocked;
	size_t nblocked;
	struct tprof_sys *sys;
	size_t nsys;
	uint64_t faults_user, faults_kernel;
	struct tprof_stack *stacks;
	size_t nstacks;

	/* Open intervals, while the events are fed. */
	bool out_open, wake_open, sys_open;
	bool sleeping;			/* switched out blocked, no wake-up yet */
	uint32_t out_state;
	uint64_t out_ts, wake_ts, sys_ts;
	long sys_nr;
	uint64_t *out_ip;		/* the stack of the switch out, if one came */
	uint32_t out_nip;
};

struct tprof_cpu {
	int pid;			/* running, or -1 unknown */
	uint64_t since;
	int stack_pid;			/* the last record was this task's blocking switch; or -1 */
};

/* hash.h's keyed table of tasks by pid; the tasks stay in the order first seen. */
struct tprof_slot {
	uint64_t tag;			/* the pid (as a uint32_t) + 1 */
	uint32_t task;			/* its index in tasks */
};

struct tprof_name {
	long nr;
	char *name;
};

struct fmt_tprof {
	struct tprof_task *tasks;
	size_t ntasks, cap;
	struct htab by_pid;		/* struct tprof_slot */
	struct tprof_cpu *cpus;
	size_t ncpus;
	struct tprof_name *names;
	size_t nnames;
};

void tprof_dist_add(struct tprof_dist *d, uint64_t v);
void tprof_dist_merge(struct tprof_dist *to, const struct tprof_dist *from);
void tprof_task_merge(struct tprof_task *to, const struct tprof_task *from);
void tprof_task_clear(struct tprof_task *t);
const char *tprof_syscall(const struct fmt_tprof *p, long nr);

#endif
