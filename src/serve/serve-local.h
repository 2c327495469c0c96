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
#include "serve.h"
#include "top-decode.h"

struct serve_agg;
struct tfs_inst;

struct serve_agg_opts {
	int ncpus;
	size_t max_syscalls;	/* syscall label sets, "other" one of them (0: 64) */
	size_t max_pending;	/* in-flight entries per table (0: 65536), the rest not timed */
	/*
	 * The counters (syscalls and their errors, switches, faults, irqs,
	 * softirqs) come from the kernel's histograms through
	 * serve_agg_count(); records only time what they pair.
	 */
	bool kernel_counts;
};

/* What a kernel histogram of serve-kernel.c counts. */
enum serve_count {
	SERVE_CNT_SYSCALL,	/* key: the syscall's number */
	SERVE_CNT_SYSCALL_ERR,
	SERVE_CNT_SWITCH,	/* key: the CPU */
	SERVE_CNT_FAULT_USER,
	SERVE_CNT_FAULT_KERNEL,
	SERVE_CNT_IRQ,		/* key: the irq, name its name */
	SERVE_CNT_SOFTIRQ,	/* key: the vector */
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
/* n more of what, as a kernel histogram counted them (kernel_counts). */
void serve_agg_count(struct serve_agg *a, enum serve_count what, int64_t key, const char *name,
		     uint64_t n);
void serve_agg_free(struct serve_agg *a);

/* ---- --by comm (serve-comm.c) ---- */

struct serve_comm;
/* The tr_comm_* families in m, with at most max_comms names (0: 200) and "other". */
struct serve_comm *serve_comm_new(struct mx *m, int ncpus, size_t max_comms);
void serve_comm_feed(struct serve_comm *c, const struct top_rec *r);
void serve_comm_free(struct serve_comm *c);

/* ---- the default counters in the kernel's histograms (serve-kernel.c) ---- */

#define SERVE_KERN_N 7
struct serve_kern;
struct strv;
/* Is the kernel's histogram all the default metrics need of sysev (sys:event)? */
bool serve_kern_replaces(const char *sysev);
/* A hist trigger on each of those avail has, in instance in (undone at tfs_restore()). */
int serve_kern_new(struct tfs_inst *in, const struct strv *avail, struct serve_kern **out);
/* The tables a scrape reads without the lock, and sets into the aggregator under it. */
struct serve_kern_tables {
	struct hist_result res[SERVE_KERN_N];
	bool ok[SERVE_KERN_N];
};
void serve_kern_read(struct serve_kern *k, struct serve_kern_tables *t);
void serve_kern_set(struct serve_kern *k, struct serve_agg *a, const struct serve_kern_tables *t);
void serve_kern_tables_free(struct serve_kern_tables *t);
void serve_kern_free(struct serve_kern *k);

/* ---- the user's metrics: --hist and --latency (serve-user.c) ---- */

struct serve_user;
struct tep_handle;

struct serve_user_opts {
	struct mx *mx;
	struct tep_handle *tep;		/* the session's formats */
	struct tfs_inst *inst;		/* where kernel hist triggers go */
	const struct serve_hist *hists;
	size_t nhists;
	const struct serve_lat *lats;
	size_t nlats;
	enum serve_engine engine;
	size_t max_series;
};

/* Does engine e count a --hist in the kernel (on this kernel)? */
bool serve_engine_kernel(enum serve_engine e);
/* The families, and each --hist's trigger in the kernel (undone at tfs_restore()). */
int serve_user_new(const struct serve_user_opts *o, struct serve_user **out);
/* A record of the session (under the lock). */
void serve_user_feed(struct serve_user *u, const struct tfile_event *ev);

/* The tables a scrape reads: the kernel's without the lock, the engines' under it. */
struct serve_user_tables {
	struct hist_result *res;
	bool *ok;
	size_t n;
};
void serve_user_read(struct serve_user *u, struct serve_user_tables *t);
void serve_user_set(struct serve_user *u, struct serve_user_tables *t);
void serve_user_tables_free(struct serve_user_tables *t);
void serve_user_free(struct serve_user *u);

/* Log2 bounds of the latency histograms: 1 us to 2^22 us (4.2 s), in ns. */
#define SERVE_LAT_BOUNDS 23

#endif
