// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * top-model-bench: tr top's aggregation model on one core, without tracefs.
 *
 *   bench/top.sh builds it against build/obj/ (make tr first)
 *   build/top-model-bench [EVENTS] [TASKS]
 *
 * Feeds EVENTS (default 10 M) records of a mix that looks like a busy
 * system (sched_switch, sched_waking, raw_syscalls enter/exit, other
 * events) over TASKS (default 10,000) tasks on 2 CPUs, ticking every
 * 1,000,000 records and building the tasks, syscalls and events views at
 * each tick, and prints records per CPU second (the model alone: decoding
 * and the page walk come on top) and the peak RSS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "top-local.h"	/* the model is top/'s own, not in include/ */

static double now(void)
{
	struct timespec ts;

	/* CPU time: a shared machine's other work does not count. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	int tasks = argc > 2 ? atoi(argv[2]) : 10000;
	struct top_model *m = top_model_new(&(struct top_model_opts){ .ncpus = 2 });
	int cur[2] = { 0, 0 };
	uint64_t seed = 88172645463325252ULL, ts = 1000;
	double t0, t;
	size_t rows = 0;
	struct rusage ru;

	for (int i = 0; i < 400; i++) {
		char name[16];

		snprintf(name, sizeof(name), "sys_%d", i);
		top_model_syscall_name(m, i, name);
	}
	t0 = now();
	for (long i = 0; i < n; i++) {
		struct top_rec r = { .ts = ts += 100 };
		int cpu = (int)(rnd(&seed) & 1), pid = 1 + (int)(rnd(&seed) % tasks);
		unsigned k = rnd(&seed) % 10;
		static const char comm[] = "worker";

		r.cpu = cpu;
		if (k < 3) {
			r.kind = TOP_EV_SWITCH;
			r.id = 1;
			r.pid = r.tpid = cur[cpu];
			r.tpid2 = pid;
			r.num = k & 1;
			r.str = r.str2 = (struct top_str){ comm, 6 };
			cur[cpu] = pid;
		} else if (k < 5) {
			r.kind = TOP_EV_WAKING;
			r.id = 2;
			r.pid = cur[cpu];
			r.tpid = pid;
			r.str = (struct top_str){ comm, 6 };
		} else if (k < 9) {
			r.kind = k & 1 ? TOP_EV_SYS_ENTER : TOP_EV_SYS_EXIT;
			r.id = k & 1 ? 3 : 4;
			r.pid = cur[cpu];
			r.num = rnd(&seed) % 40;
			r.num2 = -(long)(rnd(&seed) % 3);
		} else {
			r.kind = TOP_EV_OTHER;
			r.id = 10 + (int)(rnd(&seed) % 20);
			r.pid = cur[cpu];
		}
		top_model_feed(m, &r, NULL);
		if (i % 1000000 == 999999) {
			static const char *const views[] = { "tasks", "syscalls", "events" };

			top_model_tick(m, ts);
			for (size_t v = 0; v < 3; v++) {
				struct top_state st = { .view = top_view_find(views[v]), .sort = -1 };
				struct top_table tb;

				if (!top_view_build(m, &st, NULL, &tb))
					rows += tb.nrows;
				top_table_free(&tb);
			}
		}
	}
	t = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	printf("model: %ld records over %d tasks in %.2f s: %.1f M records/s (%.0f ns each, "
	       "views built included), peak RSS %.1f MiB, %zu rows built\n",
	       n, tasks, t, n / t / 1e6, t * 1e9 / n, ru.ru_maxrss / 1024.0, rows);
	top_model_free(m);
	return 0;
}
