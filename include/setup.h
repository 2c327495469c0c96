/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracing set-up: which events (with filters), tracer, clock, buffer size
 * and trace options an instance should have.  start, show --pipe and the
 * recorder all apply one through setup_apply(), which checks everything it
 * can before it writes anything, and writes only through tfs_set(), so the
 * control layer can put it all back.
 */
#ifndef TR_SETUP_H
#define TR_SETUP_H

#include <stdint.h>

#include "evsel.h"
#include "tfs.h"

/* CPUs tracefs may know: tracing_cpumask masks are read and written up to this many. */
#define TR_MAX_CPUS 4096

/* -M / --cpus: which CPUs trace (tracing_cpumask); set is false to leave it. */
struct tr_cpus {
	bool set;
	uint64_t mask[TR_MAX_CPUS / 64];
};

struct tr_setup {
	const struct evsel_list *events;
	const char *tracer;
	const char *clock;
	uint64_t buffer_kb;	/* 0 = leave */
	uint64_t subbuf_kb;	/* buffer_subbuf_size_kb; 0 = leave */
	struct strv options;	/* "name" or "noname" */
	struct strv triggers;	/* "SYS:EV:COMMAND..." for the life of the session */
	/* Function tracer filters: globs, "FUNC:mod:MODULE" allowed. */
	struct strv ftrace_filter, ftrace_notrace, graph_function, graph_notrace;
	/* Latency tracers' settings, "KEY=VALUE" (--tracer-opt; see setup_tracer_opt()). */
	struct strv tracer_opts;
	/* Zero-initialised means "leave as it is", so commands can = { 0 } this. */
	bool has_max_graph_depth, has_thresh, func_stack;
	int max_graph_depth;
	long thresh_us;
	struct tr_cpus cpus;
	/* -b with --cpu N: only that CPU's buffer (per_cpu/cpuN/buffer_size_kb). */
	bool has_buffer_cpu;
	int buffer_cpu;
	uint64_t cmdlines_size;	/* saved_cmdlines_size; 0 = leave */
	/*
	 * The blk tracer: the block devices to trace ("sda", "loop0", or
	 * "/dev/loop0"), their /sys/class/block/DEV/trace/enable set for the
	 * session; blk_mask their act_mask ("queue,complete"), NULL to leave.
	 */
	struct strv blk_devs;
	const char *blk_mask;
	/* -P (set_event_pid), -c (event-fork), --notrace-pid (set_event_notrace_pid). */
	struct strv pids, notrace_pids;
	bool children;
};

/*
 * A latency tracer's setting, KEY=VALUE for the tracer -p selects:
 *   hwlat:    width, window, threshold (us), cpus (list), mode
 *             (none|round-robin|per-cpu)
 *   osnoise:  cpus, period, runtime, stop_tracing, stop_tracing_total,
 *             threshold (us)
 *   timerlat: cpus, period, stop_tracing, stop_tracing_total, print_stack (us)
 * Times are microseconds, or take a unit (500us, 2ms, 1s).  Checks without
 * tracefs; on success *file is the control file (top level, static) and
 * *value what to write there (malloc'ed).  -EINVAL with tr_fail() naming
 * the bad part, and the keys the tracer has.
 */
int setup_tracer_opt(const char *tracer, const char *kv, const char **file, char **value);

int setup_apply(struct tfs_inst *in, const struct tr_setup *s);
/*
 * tracing_cpumask from c (nothing when !c->set), after checking that each
 * CPU exists in the instance (per_cpu/cpuN): "no CPU 5, 7 here (CPUs 0-3)".
 */
int setup_cpus(struct tfs_inst *in, const struct tr_cpus *c);
/*
 * Trace only these pids' events (set_event_pid; with children, event-fork
 * too), and with a function tracer its functions (set_ftrace_pid: a
 * refusal is a warning, the events are still scoped).
 */
int setup_pids(struct tfs_inst *in, const struct strv *pids, bool children, const char *tracer);
/* --follow: setup_pids() of the one held command's pid, before it runs. */
int setup_follow(struct tfs_inst *in, pid_t pid, bool children, const char *tracer);
void setup_free(struct tr_setup *s);

/*
 * Max-latency tracers (irqsoff, preemptoff, preemptirqsoff, wakeup,
 * wakeup_rt, wakeup_dl): the kernel keeps the worst section in the max
 * buffer and the trace file shows it.  hwlat, osnoise and timerlat record
 * events normally.
 */
bool setup_latency_tracer(const char *tracer);
/*
 * Under a max-latency tracer, tracing_max_latency to 0 (an old maximum
 * would hide every new section); nothing otherwise.  It is a result, not
 * a setting: nothing to restore.  0 or -errno with tr_fail().
 */
int setup_max_latency_reset(struct tfs_inst *in, const char *tracer);

/*
 * --blk-mask's names, as the kernel's act_mask takes them: 0, or -EINVAL
 * with tr_fail() naming the bad one and the names there are.
 */
int setup_blk_mask_check(const char *mask);

/* Enable the selected events (and their filters) in an instance. */
int setup_events(struct tfs_inst *in, const struct evsel_list *events);
/*
 * tr record --profile: add to events and s what tr report --profile reads
 * (fmt-tprof.c): sched_switch with the stack of each switch that blocks (a
 * stacktrace trigger), sched_wakeup, raw_syscalls and, where the kernel
 * has them, the page fault events.  0 or evsel_add()'s error.
 */
int setup_profile(struct evsel_list *events, struct tr_setup *s);

#endif
