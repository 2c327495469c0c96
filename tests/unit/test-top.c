// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The top model and decoder with hand-made records: CPU% from sched_switch
 * intervals, run-queue latency (also when the switch-in is read before
 * the wakeup, from another CPU), context switches, syscall counts, errors
 * and times, irq times, exact percentiles, eviction of exited tasks, -P,
 * the views built on top, and the decoder on the formats of a 6.18 kernel.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "hist.h"
#include "top-local.h"
#include "fixtures.h"
#include "unit.h"

#define MS 1000000ULL

static struct top_model *model(int ncpus)
{
	return top_model_new(&(struct top_model_opts){ .ncpus = ncpus });
}

static void sw(struct top_model *m, int cpu, uint64_t ts, int prev, const char *pcomm,
	       long state, int next, const char *ncomm)
{
	struct top_rec r = { .kind = TOP_EV_SWITCH, .id = 1, .cpu = cpu, .pid = prev, .ts = ts,
			     .tpid = prev, .tpid2 = next, .num = state };

	r.str = (struct top_str){ pcomm, (unsigned)strlen(pcomm) };
	r.str2 = (struct top_str){ ncomm, (unsigned)strlen(ncomm) };
	top_model_feed(m, &r, NULL);
}

static void wake(struct top_model *m, int cpu, uint64_t ts, int waker, int pid, const char *comm)
{
	struct top_rec r = { .kind = TOP_EV_WAKING, .id = 2, .cpu = cpu, .pid = waker, .ts = ts,
			     .tpid = pid };

	r.str = (struct top_str){ comm, (unsigned)strlen(comm) };
	top_model_feed(m, &r, NULL);
}

static void sys(struct top_model *m, int cpu, uint64_t ts, int pid, bool enter, long nr, long ret)
{
	struct top_rec r = { .kind = enter ? TOP_EV_SYS_ENTER : TOP_EV_SYS_EXIT, .id = enter ? 3 : 4,
			     .cpu = cpu, .pid = pid, .ts = ts, .tpid = pid, .num = nr, .num2 = ret };

	top_model_feed(m, &r, NULL);
}

static void simple(struct top_model *m, enum top_kind k, int id, int cpu, uint64_t ts, int pid,
		   int tpid, int tpid2, long num, const char *str)
{
	struct top_rec r = { .kind = k, .id = id, .cpu = cpu, .pid = pid, .ts = ts, .tpid = tpid,
			     .tpid2 = tpid2, .num = num };

	if (str) {
		r.str = (struct top_str){ str, (unsigned)strlen(str) };
		r.str2 = r.str;
	}
	top_model_feed(m, &r, NULL);
}

/* Build a view and find the row whose key is key; -1 if none. */
static long row_of(const struct top_table *t, uint64_t key)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (t->keys[i] == key)
			return (long)i;
	return -1;
}

static int col_of(const struct top_table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].name, name))
			return (int)c;
	return -1;
}

static double val(const struct top_table *t, uint64_t key, const char *col)
{
	long r = row_of(t, key);
	int c = col_of(t, col);

	if (r < 0 || c < 0)
		return NAN;
	return top_tcell(t, r, c)->v;
}

static const char *text(const struct top_table *t, uint64_t key, const char *col)
{
	long r = row_of(t, key);
	int c = col_of(t, col);

	return r < 0 || c < 0 ? NULL : top_tcell(t, r, c)->s;
}

static void build(struct top_model *m, const char *view, struct top_table *t)
{
	struct top_state st = { .view = top_view_find(view), .sort = -1 };

	CHECK(st.view != NULL);
	CHECK(top_view_build(m, &st, NULL, t) == 0);
}

TEST(cpu_percent_from_switch_intervals)
{
	struct top_model *m = model(2);
	struct top_table t;

	/* CPU 0: busy runs 600 ms, is preempted by worker for 300 ms, then idle 100 ms. */
	sw(m, 0, 0, 0, "swapper/0", 0, 100, "busy");
	sw(m, 0, 600 * MS, 100, "busy", 0, 200, "worker");
	sw(m, 0, 900 * MS, 200, "worker", 1, 0, "swapper/0");
	/* CPU 1: busy again from 500 ms, never switched out: the tick charges it. */
	sw(m, 1, 500 * MS, 0, "swapper/1", 0, 300, "spin");
	top_model_tick(m, 1000 * MS);
	build(m, "tasks", &t);
	CHECK(val(&t, 100, "CPU%") == 60.0);
	CHECK(val(&t, 200, "CPU%") == 30.0);
	CHECK(val(&t, 300, "CPU%") == 50.0);
	CHECK(val(&t, 100, "ICSW") == 1 && val(&t, 100, "VCSW") == 0);
	CHECK(val(&t, 200, "VCSW") == 1 && val(&t, 200, "ICSW") == 0);
	CHECK_STR(text(&t, 100, "COMM"), "busy");
	/* Sorted by CPU% first: busy, spin, worker. */
	CHECK(t.nrows == 3 && t.keys[0] == 100 && t.keys[1] == 300 && t.keys[2] == 200);
	CHECK(row_of(&t, 0) < 0);	/* the idle task is not a row */
	top_table_free(&t);
	build(m, "cpus", &t);
	CHECK(val(&t, 0, "BUSY%") == 90.0);
	CHECK(val(&t, 1, "BUSY%") == 50.0);
	CHECK(val(&t, 0, "SWITCHES") == 3);
	top_table_free(&t);

	/* The second interval: spin runs all of it, with no record at all. */
	top_model_tick(m, 2000 * MS);
	build(m, "tasks", &t);
	CHECK(val(&t, 300, "CPU%") == 100.0);
	CHECK(val(&t, 300, "TIME") == 1500.0 * MS);
	CHECK(val(&t, 100, "CPU%") == 0.0);
	top_table_free(&t);
	top_model_free(m);
}

TEST(setup_time_before_tracing_is_nobodys)
{
	/* Made at 0, tracing on at 800 ms (a slow setup): CPU 1's first task sleeps at 900 ms. */
	struct top_model *m = model(2);
	struct top_table t;

	top_model_start(m, 800 * MS);
	sw(m, 1, 900 * MS, 300, "tr", 1, 0, "swapper/1");
	top_model_tick(m, 1800 * MS);
	build(m, "cpus", &t);
	CHECK(val(&t, 1, "BUSY%") == 10.0);	/* 100 ms of the 1 s interval, not 900 ms */
	top_table_free(&t);
	/* Once records came, a late start changes nothing. */
	top_model_start(m, 1700 * MS);
	top_model_tick(m, 2800 * MS);
	build(m, "cpus", &t);
	CHECK(val(&t, 1, "BUSY%") == 0.0);
	top_table_free(&t);
	top_model_free(m);
}

TEST(a_switch_not_seen_does_not_bill_idle_time)
{
	struct top_model *m = model(2);
	struct top_table t;

	/* CPU 1: 300 sleeps at 100 ms; the switch to 400 is not traced; 400 sleeps at 900 ms. */
	sw(m, 1, 100 * MS, 300, "a", 1, 0, "swapper/1");
	sw(m, 1, 900 * MS, 400, "b", 1, 0, "swapper/1");
	/* 500 makes a syscall on CPU 1 at 950 ms: it runs from there (its switch-in unseen too). */
	sys(m, 1, 950 * MS, 500, true, 0, 0);
	top_model_tick(m, 1000 * MS);
	build(m, "cpus", &t);
	CHECK(val(&t, 1, "BUSY%") == 15.0);	/* 300 until 100 ms, 500 from 950 ms */
	top_table_free(&t);
	build(m, "tasks", &t);
	CHECK(val(&t, 300, "TIME") == 100.0 * MS);
	CHECK(val(&t, 400, "TIME") == 0);
	CHECK(val(&t, 500, "TIME") == 50.0 * MS);
	top_table_free(&t);
	top_model_free(m);
}

TEST(cpu_time_taken_back_when_a_cpu_reports_late)
{
	struct top_model *m = model(1);
	struct top_table t;

	sw(m, 0, 0, 0, "swapper/0", 0, 100, "a");
	/* The tick charged a up to 1 s, but its switch-out at 700 ms is read after. */
	top_model_tick(m, 1000 * MS);
	sw(m, 0, 700 * MS, 100, "a", 1, 0, "swapper/0");
	top_model_tick(m, 2000 * MS);
	build(m, "tasks", &t);
	CHECK(val(&t, 100, "TIME") == 700.0 * MS);
	top_table_free(&t);
	top_model_free(m);
}

TEST(runqueue_latency_wakeup_and_preemption)
{
	struct top_model *m = model(2);
	struct top_table t;

	/* Woken at 100 ms on CPU 1, switched in at 150 ms on CPU 0: 50 ms. */
	wake(m, 1, 100 * MS, 7, 300, "sleeper");
	sw(m, 0, 150 * MS, 0, "swapper/0", 0, 300, "sleeper");
	/* Preempted at 200 ms, back at 230 ms: 30 ms. */
	sw(m, 0, 200 * MS, 300, "sleeper", 0, 400, "other");
	sw(m, 0, 230 * MS, 400, "other", 1, 300, "sleeper");
	/* Read out of order: the switch-in (CPU 0, 320 ms) before the wakeup (CPU 1, 310 ms). */
	sw(m, 0, 300 * MS, 300, "sleeper", 1, 0, "swapper/0");
	sw(m, 0, 320 * MS, 0, "swapper/0", 0, 300, "sleeper");
	wake(m, 1, 310 * MS, 7, 300, "sleeper");
	top_model_tick(m, 1000 * MS);
	build(m, "tasks", &t);
	CHECK(val(&t, 300, "WAKEUPS") == 2);
	CHECK(val(&t, 300, "RQMAX") == 50.0 * MS);
	CHECK(val(&t, 300, "RQAVG") == 30.0 * MS);	/* (50 + 30 + 10) / 3 */
	CHECK(val(&t, 300, "ICSW") == 1 && val(&t, 300, "VCSW") == 1);
	top_table_free(&t);
	top_model_free(m);
}

TEST(stale_wakeup_does_not_count)
{
	struct top_model *m = model(1);
	struct top_table t;

	/* Woken while still running (no switch), then sleeps: that wakeup is void. */
	sw(m, 0, 0, 0, "swapper/0", 0, 300, "t");
	wake(m, 0, 10 * MS, 7, 300, "t");
	sw(m, 0, 20 * MS, 300, "t", 1, 0, "swapper/0");
	sw(m, 0, 500 * MS, 0, "swapper/0", 0, 300, "t");
	top_model_tick(m, 1000 * MS);
	build(m, "tasks", &t);
	CHECK(val(&t, 300, "RQMAX") == 0);
	top_table_free(&t);
	top_model_free(m);
}

TEST(wakeup_whose_switch_in_was_not_seen_is_forgotten)
{
	struct top_model *m = model(2);
	struct top_table t;

	/* Woken at 100 ms, runs (a syscall at 120 ms) without a switch-in we saw. */
	wake(m, 1, 100 * MS, 7, 300, "t");
	sys(m, 0, 120 * MS, 300, true, 0, 0);
	sw(m, 0, 130 * MS, 300, "t", 1, 0, "swapper/0");
	/* Woken by a task whose wakeups are filtered out, switched in at 900 ms. */
	sw(m, 0, 900 * MS, 0, "swapper/0", 0, 300, "t");
	top_model_tick(m, 1000 * MS);
	build(m, "tasks", &t);
	CHECK(val(&t, 300, "RQMAX") == 0);
	top_table_free(&t);
	top_model_free(m);
}

TEST(syscalls_counts_errors_times)
{
	struct top_model *m = model(2);
	struct top_table t;

	top_model_syscall_name(m, 110, "getppid");
	top_model_syscall_name(m, 0, "read");
	for (int i = 0; i < 5; i++) {
		sys(m, 0, 1000 + i * 10000ULL, 500, true, 110, 0);
		sys(m, 0, 1000 + i * 10000ULL + 100 * (i + 1), 500, false, 110, 499);
	}
	/* A read that fails, and one that migrated: its exit is read first, from CPU 1. */
	sys(m, 0, 100000, 500, true, 0, 0);
	sys(m, 0, 100400, 500, false, 0, -11);
	sys(m, 1, 200900, 500, false, 0, 64);
	sys(m, 0, 200000, 500, true, 0, 0);
	/* Another task's getppid. */
	sys(m, 1, 300000, 501, true, 110, 0);
	sys(m, 1, 300050, 501, false, 110, 500);
	top_model_tick(m, 1000 * MS);
	build(m, "syscalls", &t);
	CHECK(val(&t, 110, "COUNT") == 6);
	CHECK(val(&t, 110, "ERRORS") == 0);
	CHECK(val(&t, 110, "TOTAL") == 100 + 200 + 300 + 400 + 500 + 50);
	CHECK(val(&t, 110, "MAX") == 500);
	CHECK(val(&t, 110, "AVG") == 1550.0 / 6);
	CHECK_STR(text(&t, 110, "SYSCALL"), "getppid");
	CHECK(val(&t, 0, "COUNT") == 2);
	CHECK(val(&t, 0, "ERRORS") == 1);
	CHECK(val(&t, 0, "TOTAL") == 400 + 900);
	CHECK(val(&t, 0, "MAX") == 900);
	top_table_free(&t);

	/* Drill-down: pid 500's syscalls, then the tasks making getppid. */
	struct top_state st = { .view = top_view_find("syscalls"), .sort = -1,
				.drill_field = TF_PID, .drill_value = 500 };

	CHECK(!top_view_build(m, &st, NULL, &t));
	CHECK(val(&t, 110, "COUNT") == 5);
	top_table_free(&t);
	st = (struct top_state){ .view = top_view_find("syscall-tasks"), .sort = -1,
				 .drill_field = TF_NR, .drill_value = 110 };
	CHECK(!top_view_build(m, &st, NULL, &t));
	CHECK(t.nrows == 2 && val(&t, 500, "COUNT") == 5 && val(&t, 501, "COUNT") == 1);
	top_table_free(&t);
	top_model_free(m);
}

TEST(irqs_and_softirqs)
{
	struct top_model *m = model(2);
	struct top_table t;

	simple(m, TOP_EV_IRQ_ENTRY, 10, 0, 1000, 0, 0, 0, 24, "eth0");
	simple(m, TOP_EV_IRQ_EXIT, 11, 0, 6000, 0, 0, 0, 24, NULL);
	simple(m, TOP_EV_IRQ_ENTRY, 10, 1, 2000, 0, 0, 0, 24, "eth0");
	simple(m, TOP_EV_IRQ_EXIT, 11, 1, 4000, 0, 0, 0, 24, NULL);
	simple(m, TOP_EV_SOFTIRQ_ENTRY, 12, 0, 7000, 0, 0, 0, 1, NULL);
	simple(m, TOP_EV_SOFTIRQ_EXIT, 13, 0, 7300, 0, 0, 0, 1, NULL);
	top_model_tick(m, 1000 * MS);
	build(m, "irqs", &t);
	CHECK(val(&t, 24, "COUNT") == 2);
	CHECK(val(&t, 24, "TOTAL") == 7000);
	CHECK(val(&t, 24, "MAX") == 5000);
	CHECK_STR(text(&t, 24, "IRQ"), "irq 24: eth0");
	CHECK(val(&t, 1ULL << 32 | 1, "COUNT") == 1);
	CHECK_STR(text(&t, 1ULL << 32 | 1, "IRQ"), "softirq TIMER");
	top_table_free(&t);
	build(m, "cpus", &t);
	CHECK(val(&t, 0, "IRQS") == 1 && val(&t, 0, "IRQTIME") == 5000);
	CHECK(val(&t, 0, "SOFTIRQS") == 1 && val(&t, 0, "SIRQTIME") == 300);
	CHECK(val(&t, 1, "IRQTIME") == 2000);
	top_table_free(&t);
	top_model_free(m);
}

TEST(latency_percentiles_exact)
{
	struct top_model *m = top_model_new(&(struct top_model_opts){ .ncpus = 2 });
	struct top_table t;
	struct top_state st = { .view = top_view_find("latency"), .sort = -1 };

	/* 100 pairs on key i, the i-th lasting i us; ends on CPU i % 2. */
	for (int i = 1; i <= 100; i++) {
		struct top_rec s = { .id = 5, .cpu = 0, .ts = i * 1000000ULL, .lat_start = true,
				     .lat_skey = i };
		struct top_rec e = { .id = 6, .cpu = i % 2, .ts = s.ts + i * 1000ULL,
				     .lat_end = true, .lat_ekey = i };

		top_model_feed(m, &s, NULL);
		top_model_feed(m, &e, NULL);
	}
	/* An end without a start, and a start without an end, count nothing. */
	top_model_feed(m, &(struct top_rec){ .id = 6, .ts = 5, .lat_end = true, .lat_ekey = 999 },
		       NULL);
	top_model_feed(m, &(struct top_rec){ .id = 5, .ts = 9e9, .lat_start = true, .lat_skey = 1 },
		       NULL);
	top_model_tick(m, 10000 * MS);
	CHECK(!top_view_build(m, &st, NULL, &t));
	CHECK(t.nrows == 2);
	/* p50: rank 50; 50 us lies in [49152, 53247] ns, which holds 50..53 us. */
	CHECK(val(&t, 0, "COUNT") == 50 && val(&t, 1, "COUNT") == 50);
	CHECK(val(&t, 1, "MIN") == 1000 && val(&t, 0, "MAX") == 100000);
	CHECK(val(&t, 0, "AVG") == 51000 && val(&t, 1, "AVG") == 50000);
	CHECK_STR(t.note, "all: count 100  min 1.0us  avg 50.5us  p50 53.2us  p99 100.0us  "
			  "max 100.0us");
	/* CPU 0 (even: 2..100 us): p50 rank 25 is 50 us again; p99 rank 50 is 100 us (the max). */
	CHECK(val(&t, 0, "P50") == 53247 && val(&t, 0, "P99") == 100000);
	/* CPU 1 (odd: 1..99 us): rank 25 is 49 us, in [47104, 49151]. */
	CHECK(val(&t, 1, "P50") == 49151);
	CHECK(t.has_hist);
	/* log2 buckets: 1 us lies in [512, 1024) ns; 66..100 us in [65536, 131072). */
	CHECK(t.hist.lo == 9 && t.hist.hi == 16);
	CHECK(t.hist.count[9] == 1 && t.hist.count[16] == 100 - 66 + 1);
	top_table_free(&t);
	top_model_free(m);
}

TEST(events_view_interval_and_total)
{
	struct top_model *m = model(1);
	struct top_table t;

	for (int i = 0; i < 30; i++)
		simple(m, TOP_EV_OTHER, 42, 0, i * MS, 77, 0, 0, 0, NULL);
	for (int i = 0; i < 10; i++)
		simple(m, TOP_EV_OTHER, 43, 0, (100 + i) * MS, 78, 0, 0, 0, NULL);
	top_model_tick(m, 500 * MS);
	for (int i = 0; i < 20; i++)
		simple(m, TOP_EV_OTHER, 42, 0, (600 + i) * MS, 77, 0, 0, 0, NULL);
	top_model_tick(m, 1000 * MS);
	build(m, "events", &t);
	CHECK(val(&t, 42, "COUNT") == 20 && val(&t, 42, "TOTAL") == 50);
	CHECK(val(&t, 42, "RATE/s") == 40);
	CHECK(val(&t, 43, "COUNT") == 0 && val(&t, 43, "TOTAL") == 10);
	CHECK(fabs(val(&t, 42, "SHARE%") - 100.0 * 50 / 60) < 1e-9);
	CHECK_STR(text(&t, 42, "EVENT"), "event 42");
	top_table_free(&t);
	/* An event's tasks. */
	struct top_state st = { .view = top_view_find("event-tasks"), .sort = -1,
				.drill_field = TF_EVENT, .drill_value = 43 };

	CHECK(!top_view_build(m, &st, NULL, &t));
	CHECK(t.nrows == 1 && val(&t, 78, "TOTAL") == 10);
	top_table_free(&t);
	/* z zeroes, names stay. */
	top_model_zero(m);
	top_model_tick(m, 1500 * MS);
	build(m, "events", &t);
	CHECK(val(&t, 42, "TOTAL") == 0);
	top_table_free(&t);
	top_model_free(m);
}

TEST(exited_tasks_are_evicted_their_counts_kept)
{
	struct top_model *m = model(1);
	struct top_table t;
	struct top_stats s;

	sw(m, 0, 0, 0, "swapper/0", 0, 600, "short");
	sys(m, 0, 10, 600, true, 39, 0);
	sys(m, 0, 20, 600, false, 39, 600);
	simple(m, TOP_EV_EXIT, 9, 0, 30, 600, 600, 0, 0, "short");
	sw(m, 0, 40, 600, "short", 0x10, 0, "swapper/0");
	for (int i = 1; i <= 3; i++) {
		top_model_tick(m, i * 1000 * MS);
		build(m, "tasks", &t);
		CHECK(row_of(&t, 600) >= 0);
		CHECK_STR(text(&t, 600, "STATE"), "exited");
		top_table_free(&t);
	}
	top_model_tick(m, 4000 * MS);
	build(m, "tasks", &t);
	CHECK(row_of(&t, 600) < 0);
	top_table_free(&t);
	top_model_stats(m, &s);
	CHECK(s.tasks == 1);	/* the idle task */
	build(m, "syscalls", &t);
	CHECK(val(&t, 39, "COUNT") == 1 && val(&t, 39, "TOTAL") == 10);
	top_table_free(&t);
	/* A second one folds into the same row. */
	sys(m, 0, 5000 * MS, 601, true, 39, 0);
	sys(m, 0, 5000 * MS + 30, 601, false, 39, 601);
	simple(m, TOP_EV_EXIT, 9, 0, 5001 * MS, 601, 601, 0, 0, "short2");
	for (int i = 5; i <= 9; i++)
		top_model_tick(m, i * 1000 * MS);
	build(m, "syscalls", &t);
	CHECK(val(&t, 39, "COUNT") == 2 && val(&t, 39, "TOTAL") == 40);
	top_table_free(&t);
	build(m, "events", &t);
	CHECK(val(&t, 9, "TOTAL") == 2);
	top_table_free(&t);
	top_model_free(m);
}

TEST(rows_are_bounded_totals_stay)
{
	struct top_model *m = model(1);
	struct top_table t;
	struct top_stats st;

	/* 40,000 tasks making one syscall each: more rows than the model keeps. */
	for (int pid = 1; pid <= 40000; pid++)
		sys(m, 0, pid * 10ULL, pid, false, 7, 0);
	top_model_tick(m, 1000 * MS);
	build(m, "syscalls", &t);
	CHECK(t.nrows == 1 && val(&t, 7, "COUNT") == 40000);
	top_table_free(&t);
	build(m, "events", &t);
	CHECK(val(&t, 4, "TOTAL") == 40000);
	top_table_free(&t);
	build(m, "syscall-tasks", &t);
	CHECK(t.nrows < 40000 && val(&t, (uint64_t)-3, "COUNT") == 40000 - (t.nrows - 1));
	CHECK_STR(text(&t, (uint64_t)-3, "COMM"), "<other>");
	top_table_free(&t);
	top_model_stats(m, &st);
	CHECK(st.tasks == 40000);
	top_model_free(m);
}

static int tgid_of(void *arg, int pid)
{
	(void)arg;
	return pid == 701 ? 700 : pid;
}

TEST(pid_filter_threads_and_children)
{
	pid_t pids[] = { 700 };
	struct top_model *m = top_model_new(&(struct top_model_opts){
		.ncpus = 1, .pids = pids, .npids = 1, .children = true, .tgid_of = tgid_of });
	struct top_table t;

	sys(m, 0, 10, 700, false, 1, 0);
	sys(m, 0, 20, 701, false, 1, 0);	/* a thread of 700 */
	sys(m, 0, 30, 800, false, 1, 0);	/* someone else */
	simple(m, TOP_EV_FORK, 8, 0, 40, 700, 700, 702, 0, "child");
	sys(m, 0, 50, 702, false, 1, 0);	/* 700's child */
	top_model_tick(m, 1000 * MS);
	build(m, "syscalls", &t);
	CHECK(val(&t, 1, "COUNT") == 3);
	top_table_free(&t);
	top_model_free(m);
}

TEST(row_filter_and_sort)
{
	struct top_model *m = model(1);
	struct top_table t;
	struct top_state st = { .view = top_view_find("tasks"), .sort = -1 };

	sw(m, 0, 0, 0, "swapper/0", 0, 10, "alpha");
	sw(m, 0, 100 * MS, 10, "alpha", 0, 11, "beta");
	sw(m, 0, 300 * MS, 11, "beta", 0, 12, "alphabet");
	top_model_tick(m, 1000 * MS);
	strcpy(st.filter, "ALPHA");
	CHECK(!top_view_build(m, &st, NULL, &t));
	CHECK(t.nrows == 2 && t.keys[0] == 12 && t.keys[1] == 10);
	top_table_free(&t);
	st.filter[0] = '\0';
	st.sort = 1;	/* COMM: names ascend */
	CHECK(!top_view_build(m, &st, NULL, &t));
	CHECK(t.nrows == 3 && t.keys[0] == 10 && t.keys[1] == 12 && t.keys[2] == 11);
	top_table_free(&t);
	st.reverse = true;
	CHECK(!top_view_build(m, &st, NULL, &t));
	CHECK(t.keys[0] == 11);
	top_table_free(&t);
	top_model_free(m);
}

TEST(cell_text)
{
	char b[32];
	const struct top_col tcol = { "T", "t", TA_SUM, TF_TIME, TF_NONE, TU_TIME, 8 };
	const struct top_col ncol = { "N", "n", TA_SUM, TF_COUNT, TF_NONE, TU_NUM, 5 };

	top_cell_text(&tcol, &(struct top_cell){ .v = 850 }, b, sizeof(b));
	CHECK_STR(b, "850ns");
	top_cell_text(&tcol, &(struct top_cell){ .v = 12300 }, b, sizeof(b));
	CHECK_STR(b, "12.3us");
	top_cell_text(&tcol, &(struct top_cell){ .v = 4.5e6 }, b, sizeof(b));
	CHECK_STR(b, "4.50ms");
	top_cell_text(&tcol, &(struct top_cell){ .v = 1.25e9 }, b, sizeof(b));
	CHECK_STR(b, "1.25s");
	top_cell_text(&ncol, &(struct top_cell){ .v = 12345 }, b, sizeof(b));
	CHECK_STR(b, "12345");
	top_cell_text(&ncol, &(struct top_cell){ .v = 1234567 }, b, sizeof(b));
	CHECK_STR(b, "1.2M");
	top_hist_label(10, b, sizeof(b));
	CHECK_STR(b, "[1K, 2K)");
	top_hist_label(9, b, sizeof(b));
	CHECK_STR(b, "[512, 1K)");
	top_hist_label(0, b, sizeof(b));
	CHECK_STR(b, "[0, 2)");
	top_hist_label(25, b, sizeof(b));
	CHECK_STR(b, "[32M, 64M)");
}

TEST(latency_spec)
{
	struct top_lat_spec l;

	CHECK(!top_lat_parse(NULL, &l));
	CHECK_STR(l.start, "sched:sched_waking");
	CHECK_STR(l.end, "sched:sched_switch");
	CHECK_STR(l.start_field, "pid");
	CHECK_STR(l.end_field, "next_pid");
	top_lat_free(&l);
	CHECK(!top_lat_parse("raw_syscalls:sys_enter,raw_syscalls:sys_exit", &l));
	CHECK_STR(l.start_field, "common_pid");
	CHECK_STR(l.end_field, "common_pid");
	top_lat_free(&l);
	CHECK(!top_lat_parse("a:b,c:d,x", &l));
	CHECK_STR(l.start_field, "x");
	CHECK_STR(l.end_field, "x");
	top_lat_free(&l);
	CHECK(top_lat_parse("a:b", &l) == -EINVAL);
	CHECK(strstr(tr_failure(), "START,END[,MATCH]"));
	CHECK(top_lat_parse("a:b,c:d,x=", &l) == -EINVAL);
	CHECK(top_lat_parse("a:b,c:d,x,y", &l) == -EINVAL);
}

/* Formats as a 6.18 kernel shows them (its sched_switch is fixtures.h's). */
static const char fmt_migrate[] =
	"name: sched_migrate_task\nID: 371\nformat:\n" FX_COMMON
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:int orig_cpu;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:int dest_cpu;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d\", __get_str(comm), REC->pid\n";
static const char fmt_sys_exit[] =
	"name: sys_exit\nID: 442\nformat:\n" FX_COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";

static void put(uint8_t *b, int off, const void *v, size_t n)
{
	memcpy(b + off, v, n);
}

TEST(decoder_on_kernel_formats)
{
	struct tep_handle *tep = fx_tep("sched", fx_sched_switch, "sched", fmt_migrate,
					"raw_syscalls", fmt_sys_exit, NULL);
	struct top_decoder *d = NULL;
	struct top_lat_spec lat;
	struct top_rec r;
	uint8_t rec[64] = { 0 }, mig[40] = { 0 }, ex[24] = { 0 };
	uint16_t id;
	int32_t i32;
	int64_t i64;
	uint32_t loc;

	CHECK(tep);
	if (!tep)
		return;
	CHECK(!top_lat_parse("sched:sched_switch,sched:sched_switch,prev_pid=next_pid", &lat));
	CHECK(!top_decoder_new(tep, &lat, &d));
	if (!d)
		return;
	CHECK(top_decoder_has(d, TOP_EV_SWITCH) && !top_decoder_has(d, TOP_EV_WAKING));
	CHECK_STR(top_decoder_event_name(d, 442), "raw_syscalls:sys_exit");

	id = 372, put(rec, 0, &id, 2);
	i32 = 55, put(rec, 4, &i32, 4);
	put(rec, 8, "bash", 5);
	i32 = 55, put(rec, 24, &i32, 4);
	i64 = 0x100, put(rec, 32, &i64, 8);	/* preempted: R+ */
	put(rec, 40, "make", 5);
	i32 = 66, put(rec, 56, &i32, 4);
	CHECK(top_decode(d, &(struct tfile_event){ .ts = 99, .data = rec, .size = 64, .cpu = 1 },
			 &r) == TOP_EV_SWITCH);
	CHECK(r.ts == 99 && r.cpu == 1 && r.pid == 55 && r.tpid == 55 && r.tpid2 == 66);
	CHECK(r.num == 0x100 && r.str.len == 16 && !strcmp(r.str.s, "bash"));
	CHECK(!strcmp(r.str2.s, "make"));
	CHECK(r.lat_start && r.lat_skey == 55 && r.lat_end && r.lat_ekey == 66);
	/* Too short for next_pid: only counted. */
	CHECK(top_decode(d, &(struct tfile_event){ .data = rec, .size = 40 }, &r) == TOP_EV_OTHER);
	CHECK(r.id == 372);

	id = 371, put(mig, 0, &id, 2);
	loc = (5u << 16) | 28, put(mig, 8, &loc, 4);
	i32 = 77, put(mig, 12, &i32, 4);
	i32 = 3, put(mig, 24, &i32, 4);
	put(mig, 28, "ktsk", 5);
	CHECK(top_decode(d, &(struct tfile_event){ .data = mig, .size = 36 }, &r) == TOP_EV_MIGRATE);
	CHECK(r.tpid == 77 && r.num == 3 && r.str.len == 5 && !strcmp(r.str.s, "ktsk"));
	/* A __data_loc pointing past the record is not read. */
	loc = (5u << 16) | 60, put(mig, 8, &loc, 4);
	CHECK(top_decode(d, &(struct tfile_event){ .data = mig, .size = 36 }, &r) == TOP_EV_MIGRATE);
	CHECK(r.str.s == NULL);

	id = 442, put(ex, 0, &id, 2);
	i64 = 110, put(ex, 8, &i64, 8);
	i64 = -14, put(ex, 16, &i64, 8);
	CHECK(top_decode(d, &(struct tfile_event){ .data = ex, .size = 24 }, &r) == TOP_EV_SYS_EXIT);
	CHECK(r.num == 110 && r.num2 == -14);
	top_decoder_free(d);
	top_lat_free(&lat);
	CHECK(!top_lat_parse("sched:nosuch,sched:sched_switch", &lat));
	CHECK(top_decoder_new(tep, &lat, &d) == -ENOENT);
	CHECK(strstr(tr_failure(), "no event 'sched:nosuch'"));
	top_lat_free(&lat);
	tep_free(tep);
}

UNIT_MAIN(T(cpu_percent_from_switch_intervals), T(setup_time_before_tracing_is_nobodys),
	  T(a_switch_not_seen_does_not_bill_idle_time),
	  T(cpu_time_taken_back_when_a_cpu_reports_late),
	  T(runqueue_latency_wakeup_and_preemption), T(stale_wakeup_does_not_count),
	  T(wakeup_whose_switch_in_was_not_seen_is_forgotten),
	  T(syscalls_counts_errors_times), T(irqs_and_softirqs), T(latency_percentiles_exact),
	  T(events_view_interval_and_total), T(exited_tasks_are_evicted_their_counts_kept),
	  T(rows_are_bounded_totals_stay), T(pid_filter_threads_and_children), T(row_filter_and_sort), T(cell_text),
	  T(latency_spec), T(decoder_on_kernel_formats))
