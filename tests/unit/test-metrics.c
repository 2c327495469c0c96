// SPDX-License-Identifier: GPL-2.0-or-later
/* tr serve's registry (metrics.h) and its aggregator (serve-local.h), with hand-made records. */
#include <stdlib.h>
#include <string.h>

#include "expo.h"
#include "metrics.h"
#include "serve-local.h"
#include "unit.h"

static char *text_of(struct mx *m)
{
	struct expo e;

	expo_init(&e, HTTP_EXPO_TEXT);
	mx_write(m, &e);
	expo_end(&e);
	return e.buf;
}

static bool has(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

TEST(folding_into_other)
{
	struct mx *m = mx_new();
	struct mx_family *f = mx_family(m, "t_x", MX_COUNTER, NULL, "h",
					(const char *[]){ "k", NULL }, 3);
	char *t;

	mx_add(mx_series(f, (const char *[]){ "a" }), 1);
	mx_add(mx_series(f, (const char *[]){ "b" }), 2);
	/* The third set is the cap: it and every later one go to "other", and stay there. */
	mx_add(mx_series(f, (const char *[]){ "c" }), 4);
	mx_add(mx_series(f, (const char *[]){ "d" }), 8);
	mx_add(mx_series(f, (const char *[]){ "a" }), 16);
	/* A set named "other" is the fold's own series, not a second one. */
	mx_add(mx_series(f, (const char *[]){ "other" }), 32);
	CHECK(mx_family_size(f) == 3);
	CHECK(mx_family_folded(f) == 2);
	t = text_of(m);
	CHECK(has(t, "t_x_total{k=\"a\"} 17"));
	CHECK(has(t, "t_x_total{k=\"b\"} 2"));
	CHECK(has(t, "t_x_total{k=\"other\"} 44"));
	free(t);
	mx_free(m);
}

TEST(histograms_and_scales)
{
	struct mx *m = mx_new();
	uint64_t le[3];
	struct mx_family *h, *c;
	struct mx_series *s;
	char *t;

	mx_log2_bounds(le, 3, 1000);
	CHECK(le[0] == 1000 && le[2] == 4000);
	h = mx_family_hist(m, "t_lat_seconds", "seconds", "h", NULL, 0, le, 3, 1e-9);
	s = mx_series(h, NULL);
	mx_observe(s, 500);
	mx_observe(s, 1000);	/* on a bound: in it (le is "less or equal") */
	mx_observe(s, 3000);
	mx_observe(s, 9000000);
	c = mx_family(m, "t_time_seconds", MX_COUNTER, "seconds", "h", NULL, 0);
	mx_family_scale(c, 1e-9);
	mx_add(mx_series(c, NULL), 1500000000);
	t = text_of(m);
	CHECK(has(t, "t_lat_seconds_bucket{le=\"1e-06\"} 2"));
	CHECK(has(t, "t_lat_seconds_bucket{le=\"2e-06\"} 2"));
	CHECK(has(t, "t_lat_seconds_bucket{le=\"4e-06\"} 3"));
	CHECK(has(t, "t_lat_seconds_bucket{le=\"+Inf\"} 4"));
	CHECK(has(t, "t_lat_seconds_sum 0.0090045"));
	CHECK(has(t, "t_lat_seconds_count 4"));
	CHECK(has(t, "t_time_seconds_total 1.5"));
	free(t);
	mx_free(m);
}

static struct top_rec rec(enum top_kind k, int cpu, int pid, uint64_t ts)
{
	return (struct top_rec){ .kind = k, .cpu = cpu, .pid = pid, .ts = ts };
}

TEST(aggregator_counts_and_times)
{
	struct mx *m = mx_new();
	struct serve_agg *a = serve_agg_new(m, &(struct serve_agg_opts){ .ncpus = 2,
									 .max_syscalls = 3 });
	struct top_rec r;
	char *t;

	serve_agg_syscall_name(a, 39, "getpid");
	serve_agg_syscall_name(a, 110, "getppid");
	serve_agg_syscall_name(a, 0, "read");
	/* Before any scrape ranks them, every call counts in "other". */
	for (int i = 0; i < 3; i++) {
		r = rec(TOP_EV_SYS_ENTER, 0, 100, 1000 + 10 * i);
		r.num = 110;
		serve_agg_feed(a, &r);
		r = rec(TOP_EV_SYS_EXIT, 0, 100, 1002 + 10 * i);
		r.num = 110;
		r.num2 = i == 0 ? -2 : 0;
		serve_agg_feed(a, &r);
	}
	r = rec(TOP_EV_SYS_ENTER, 0, 101, 2000);
	r.num = 39;
	serve_agg_feed(a, &r);
	r = rec(TOP_EV_SYS_ENTER, 0, 102, 2000);
	r.num = 0;
	serve_agg_feed(a, &r);
	serve_agg_feed(a, &r);
	/* Room for two of their own: the two most entered get them, from now on. */
	serve_agg_rank(a);
	r = rec(TOP_EV_SYS_ENTER, 1, 100, 5000);
	r.num = 110;
	serve_agg_feed(a, &r);
	r = rec(TOP_EV_SYS_EXIT, 1, 100, 5000 + 3000);
	r.num = 110;
	serve_agg_feed(a, &r);

	/* A wakeup on CPU 0, its switch in on CPU 1 5 us later. */
	r = rec(TOP_EV_WAKING, 0, 1, 10000);
	r.tpid = 300;
	serve_agg_feed(a, &r);
	r = rec(TOP_EV_SWITCH, 1, 0, 15000);
	r.tpid = 0, r.tpid2 = 300, r.num = 1;
	serve_agg_feed(a, &r);
	serve_agg_lost(a, 1, 7);
	t = text_of(m);
	CHECK(has(t, "tr_syscalls_total{syscall=\"other\"} 6"));
	CHECK(has(t, "tr_syscalls_total{syscall=\"getppid\"} 1"));
	CHECK(has(t, "tr_syscalls_total{syscall=\"read\"} 0"));
	CHECK(!strstr(t, "syscall=\"getpid\""));
	CHECK(has(t, "tr_syscall_errors_total{syscall=\"other\"} 1"));
	CHECK(has(t, "tr_syscall_duration_seconds_bucket{syscall=\"getppid\",le=\"2e-06\"} 0"));
	CHECK(has(t, "tr_syscall_duration_seconds_bucket{syscall=\"getppid\",le=\"4e-06\"} 1"));
	CHECK(has(t, "tr_syscall_duration_seconds_count{syscall=\"other\"} 3"));
	CHECK(has(t, "tr_context_switches_total{cpu=\"1\"} 1"));
	CHECK(has(t, "tr_runqueue_latency_seconds_bucket{cpu=\"1\",le=\"4e-06\"} 0"));
	CHECK(has(t, "tr_runqueue_latency_seconds_bucket{cpu=\"1\",le=\"8e-06\"} 1"));
	CHECK(has(t, "tr_runqueue_latency_seconds_sum{cpu=\"1\"} 5e-06"));
	CHECK(has(t, "tr_lost_events_total{cpu=\"1\"} 7"));
	CHECK(has(t, "tr_events_total{cpu=\"0\"} 10"));
	free(t);
	serve_agg_free(a);
	mx_free(m);
}

TEST(kernel_counts_into_the_same_families)
{
	struct mx *m = mx_new();
	struct serve_agg *a = serve_agg_new(m, &(struct serve_agg_opts){ .ncpus = 2,
									 .max_syscalls = 3,
									 .kernel_counts = true });
	struct top_rec r;
	char *t;

	serve_agg_syscall_name(a, 110, "getppid");
	/* Records only time: their counts are the kernel's. */
	r = rec(TOP_EV_SYS_ENTER, 0, 100, 1000);
	r.num = 110;
	serve_agg_feed(a, &r);
	r = rec(TOP_EV_SYS_EXIT, 0, 100, 3000);
	r.num = 110;
	r.num2 = -2;
	serve_agg_feed(a, &r);
	r = rec(TOP_EV_SWITCH, 1, 0, 4000);
	r.tpid = 0, r.tpid2 = 300;
	serve_agg_feed(a, &r);
	serve_agg_count(a, SERVE_CNT_SYSCALL, 110, NULL, 5);
	serve_agg_rank(a);
	serve_agg_count(a, SERVE_CNT_SYSCALL, 110, NULL, 7);
	serve_agg_count(a, SERVE_CNT_SYSCALL_ERR, 110, NULL, 2);
	serve_agg_count(a, SERVE_CNT_SWITCH, 1, NULL, 9);
	serve_agg_count(a, SERVE_CNT_SWITCH, 5, NULL, 9);	/* no such CPU */
	serve_agg_count(a, SERVE_CNT_FAULT_USER, 0, NULL, 4);
	serve_agg_count(a, SERVE_CNT_IRQ, 24, "virtio0", 3);
	serve_agg_count(a, SERVE_CNT_SOFTIRQ, 1, NULL, 6);
	serve_agg_count(a, SERVE_CNT_SOFTIRQ, 99, NULL, 6);	/* no such vector */
	t = text_of(m);
	CHECK(has(t, "tr_syscalls_total{syscall=\"other\"} 5"));
	CHECK(has(t, "tr_syscalls_total{syscall=\"getppid\"} 7"));
	CHECK(has(t, "tr_syscall_errors_total{syscall=\"getppid\"} 2"));
	CHECK(has(t, "tr_syscall_duration_seconds_count{syscall=\"other\"} 1"));
	CHECK(has(t, "tr_context_switches_total{cpu=\"1\"} 9"));
	CHECK(has(t, "tr_page_faults_total{cpu=\"0\",mode=\"user\"} 4"));
	CHECK(has(t, "tr_irqs_total{irq=\"24\",name=\"virtio0\"} 3"));
	CHECK(has(t, "tr_softirqs_total{vec=\"TIMER\"} 6"));
	free(t);
	serve_agg_free(a);
	mx_free(m);
}

UNIT_MAIN(T(folding_into_other), T(histograms_and_scales), T(aggregator_counts_and_times),
	  T(kernel_counts_into_the_same_families))
