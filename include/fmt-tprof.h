/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The task profile of a recording (tr report --profile, trace-cmd report
 * --profile's figures): per task, the time it ran, was runnable and was
 * blocked, from the scheduler's events; its system calls and page faults
 * when those were recorded; and the kernel stacks at which it blocked when
 * each sched_switch is followed by its stack (record -T, or a stacktrace
 * trigger on sched_switch).
 *
 *   p = fmt_tprof_new();
 *   fmt_tprof_switch(p, ...); fmt_tprof_wakeup(p, ...); ...  // time order
 *   fmt_tprof_end(p, last_ts);
 *   fmt_tprof_print(p, out, &opts);
 *   fmt_tprof_free(p);
 *
 * The model takes decoded events, so it needs no trace file and no
 * libtraceevent (tests/unit/test-tprof.c feeds it by hand);
 * fmt_tprof_src_* decode a file's records into it.  The intervals are
 * trace-cmd's, so the two tools' totals agree:
 *   - a task switched out in state R (preempted, prev_state 0 or 0x100)
 *     is runnable until it is switched in;
 *   - switched out in any other state it is blocked, in that state, until
 *     a sched_wakeup of it (then runnable until switched in), or until it
 *     is switched in when no wake-up was recorded;
 *   - it runs from a switch in to the next switch out on that CPU (and to
 *     the end of the trace if still running then); pid 0, the idle tasks,
 *     only runs;
 *   - a system call counts when its sys_enter and sys_exit (same number)
 *     were both seen; its time is the time between;
 *   - events lost on a CPU forget every open interval (what is open may
 *     have ended unseen).
 * Times are in the trace clock's units: nanoseconds for the ns clocks.
 * Every call takes the record's CPU: a stack belongs to the sched_switch
 * just before it on that CPU only.
 */
#ifndef TR_FMT_TPROF_H
#define TR_FMT_TPROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct fmt_tprof;
struct tep_handle;
struct tfile_event;

struct fmt_tprof *fmt_tprof_new(void);
void fmt_tprof_free(struct fmt_tprof *p);

/* sched_switch: prev_state as recorded (the kernel's TASK_REPORT bits). */
void fmt_tprof_switch(struct fmt_tprof *p, uint64_t ts, int cpu, int prev_pid,
		      const char *prev_comm, uint64_t prev_state, int next_pid,
		      const char *next_comm);
/* sched_wakeup of pid (recorded on cpu). */
void fmt_tprof_wakeup(struct fmt_tprof *p, uint64_t ts, int cpu, int pid, const char *comm);
/* raw_syscalls:sys_enter / sys_exit of pid. */
void fmt_tprof_sys_enter(struct fmt_tprof *p, uint64_t ts, int cpu, int pid, long nr);
void fmt_tprof_sys_exit(struct fmt_tprof *p, uint64_t ts, int cpu, int pid, long nr);
/* exceptions:page_fault_user (user) or page_fault_kernel of pid. */
void fmt_tprof_fault(struct fmt_tprof *p, int cpu, int pid, bool user);
/* ftrace:kernel_stack of pid: n return addresses, innermost first. */
void fmt_tprof_stack(struct fmt_tprof *p, int cpu, int pid, const uint64_t *ip, size_t n);
/* Any other record on cpu (so a later stack is not the last switch's). */
void fmt_tprof_other(struct fmt_tprof *p, int cpu);
/* Events were lost on cpu before the next record. */
void fmt_tprof_lost(struct fmt_tprof *p, int cpu);
/* The trace ends at ts: the tasks still running ran until then. */
void fmt_tprof_end(struct fmt_tprof *p, uint64_t ts);
/* The name of system call nr, for the print (copied). */
void fmt_tprof_syscall_name(struct fmt_tprof *p, long nr, const char *name);

struct fmt_tprof_opts {
	bool by_comm;		/* one entry per task name, the tasks' figures added */
	/* The kernel function at ip ("func+0x12"), or NULL: printed as hex. */
	const char *(*sym)(void *arg, uint64_t ip, char *buf, size_t len);
	void *sym_arg;
};

/*
 * Per task (by pid; by name with by_comm): run time and slices; runnable
 * time (preempted, and wake-up to run) with its distribution; blocked time
 * per state with its distribution; system calls by number; page faults;
 * the stacks it blocked at, most time first, each with its count and time.
 * Times in milliseconds to the nanosecond.
 */
void fmt_tprof_print(struct fmt_tprof *p, FILE *out, const struct fmt_tprof_opts *o);

/* ---- from a trace file's records ---- */

struct fmt_tprof_src;
/*
 * The decoder of one file's records (tep) into p.  NULL when the file
 * has no sched_switch format: there is nothing to profile.
 */
struct fmt_tprof_src *fmt_tprof_src_new(struct tep_handle *tep, struct fmt_tprof *p);
/* One record, in time order across CPUs and buffers. */
void fmt_tprof_src_event(struct fmt_tprof_src *s, const struct tfile_event *ev);
void fmt_tprof_src_free(struct fmt_tprof_src *s);
/* "func+0x12" for fmt_tprof_opts.sym, from the file's kallsyms (arg: the tep). */
const char *fmt_tprof_src_sym(void *tep, uint64_t ip, char *buf, size_t len);

#endif
