// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The task profile's model (fmt-tprof): a hand-fed schedule whose run,
 * runnable and blocked times are known, wake-ups of tasks that were not
 * asleep, stacks that belong to a blocking switch and ones that do not,
 * system calls across a switch, lost events, the end of the trace, the
 * merge by name and the printed text.
 */
#include <stdlib.h>
#include <string.h>

#include "fmt-tprof-local.h"
#include "unit.h"

static struct tprof_task *find(struct fmt_tprof *p, int pid)
{
	for (size_t i = 0; i < p->ntasks; i++)
		if (p->tasks[i].pid == pid)
			return &p->tasks[i];
	return NULL;
}

static char *print(struct fmt_tprof *p, bool by_comm)
{
	struct fmt_tprof_opts o = { .by_comm = by_comm };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fmt_tprof_print(p, f, &o);
	fclose(f);
	return text;
}

static const uint64_t ips[] = { 0x1000, 0x2000, 0x3000 };

/*
 * cpu 0: idle -> A at 0; A blocks (S) at 1 ms with its stack; woken at
 * 21 ms, in at 21.05 ms; preempted (R+) at 22 ms by B; B blocks (D) at
 * 25 ms for A; B woken at 26 ms, runs at 27 ms on cpu 1 until the end.
 */
static struct fmt_tprof *schedule(void)
{
	struct fmt_tprof *p = fmt_tprof_new();

	fmt_tprof_switch(p, 0, 0, 0, "swapper/0", 0, 100, "sleeper");
	fmt_tprof_sys_enter(p, 900000, 0, 100, 230);
	fmt_tprof_switch(p, 1000000, 0, 100, "sleeper", 1, 0, "swapper/0");
	fmt_tprof_stack(p, 0, 100, ips, 3);
	fmt_tprof_wakeup(p, 21000000, 1, 100, "sleeper");
	fmt_tprof_switch(p, 21050000, 0, 0, "swapper/0", 0, 100, "sleeper");
	fmt_tprof_sys_exit(p, 21060000, 0, 100, 230);
	fmt_tprof_fault(p, 0, 100, true);
	fmt_tprof_fault(p, 0, 100, false);
	fmt_tprof_fault(p, 0, 100, true);
	fmt_tprof_switch(p, 22000000, 0, 100, "sleeper", 0x100, 200, "spin");
	/* A stack after a preemption is not where the task blocked. */
	fmt_tprof_stack(p, 0, 100, ips, 2);
	fmt_tprof_switch(p, 25000000, 0, 200, "spin", 2, 100, "sleeper");
	fmt_tprof_other(p, 0);
	/* The stack came after another record: not the switch's. */
	fmt_tprof_stack(p, 0, 200, ips, 3);
	fmt_tprof_wakeup(p, 26000000, 0, 200, "spin");
	fmt_tprof_switch(p, 27000000, 1, 0, "swapper/1", 0, 200, "spin");
	fmt_tprof_end(p, 30000000);
	return p;
}

TEST(intervals)
{
	struct fmt_tprof *p = schedule();
	struct tprof_task *a = find(p, 100), *b = find(p, 200);

	CHECK(a && b);
	/* A ran 0-1 ms and 21.05-22 ms and from 25 ms to the end (30). */
	CHECK(a->run == 1000000 + 950000 + 5000000 && a->slices == 2);
	CHECK(a->nblocked == 1 && a->blocked[0].state == 1);
	CHECK(a->blocked[0].d.n == 1 && a->blocked[0].d.total == 20000000);
	CHECK(a->wake.n == 1 && a->wake.total == 50000);
	CHECK(a->preempt.n == 1 && a->preempt.total == 3000000);
	CHECK(a->nsys == 1 && a->sys[0].nr == 230 && a->sys[0].count == 1 &&
	      a->sys[0].total == 20160000);
	CHECK(a->faults_user == 2 && a->faults_kernel == 1);
	CHECK(a->nstacks == 1 && a->stacks[0].n == 3 && a->stacks[0].count == 1 &&
	      a->stacks[0].total == 20000000 && a->stacks[0].ip[2] == 0x3000);
	CHECK(b->run == 3000000 + 3000000 && b->slices == 1);
	CHECK(b->nblocked == 1 && b->blocked[0].state == 2 && b->blocked[0].d.total == 1000000);
	CHECK(b->wake.n == 1 && b->wake.total == 1000000);
	CHECK(b->nstacks == 0);
	/* Idle runs only. */
	CHECK(find(p, 0)->nblocked == 0 && find(p, 0)->preempt.n == 0);
	fmt_tprof_free(p);
}

TEST(wakeup_of_a_running_task_and_lost_events)
{
	struct fmt_tprof *p = fmt_tprof_new();
	struct tprof_task *t;

	fmt_tprof_switch(p, 0, 0, 0, "swapper/0", 0, 7, "x");
	/* Not asleep: nothing to end or start. */
	fmt_tprof_wakeup(p, 10, 1, 7, "x");
	fmt_tprof_switch(p, 100, 0, 7, "x", 1, 0, "swapper/0");
	fmt_tprof_lost(p, 0);
	/* What was open is forgotten: no blocked, no wake-up interval. */
	fmt_tprof_wakeup(p, 500, 1, 7, "x");
	fmt_tprof_switch(p, 600, 0, 0, "swapper/0", 0, 7, "x");
	fmt_tprof_end(p, 700);
	t = find(p, 7);
	CHECK(t->nblocked == 0 && t->wake.n == 0 && t->preempt.n == 0);
	CHECK(t->run == 100 + 100 && t->slices == 1);
	/* A switch in with no wake-up recorded ends the blocked time there. */
	fmt_tprof_switch(p, 800, 0, 7, "x", 2, 0, "swapper/0");
	fmt_tprof_switch(p, 1800, 0, 0, "swapper/0", 0, 7, "x");
	t = find(p, 7);
	CHECK(t->nblocked == 1 && t->blocked[0].d.total == 1000 && t->wake.n == 0);
	fmt_tprof_free(p);
}

TEST(distribution)
{
	struct tprof_dist d = { 0 };

	tprof_dist_add(&d, 999);		/* < 1 us */
	tprof_dist_add(&d, 1000);		/* 1 .. 2 us */
	tprof_dist_add(&d, 3999);		/* 2 .. 4 us */
	tprof_dist_add(&d, 1000000);		/* 512 .. 1024 us: 1000 us */
	tprof_dist_add(&d, UINT64_MAX / 2);	/* the last bucket */
	CHECK(d.b[0] == 1 && d.b[1] == 1 && d.b[2] == 1 && d.b[10] == 1);
	CHECK(d.b[TPROF_BUCKETS - 1] == 1);
	CHECK(d.n == 5 && d.min == 999 && d.max == UINT64_MAX / 2);
}

TEST(text_and_by_comm)
{
	struct fmt_tprof *p = schedule();
	char *text;

	fmt_tprof_syscall_name(p, 230, "clock_nanosleep");
	text = print(p, false);
	CHECK(strstr(text, "\ntask: sleeper-100\n"
			   "  run                       6.950000 ms        2 slices\n") != NULL);
	CHECK(strstr(text, "  blocked S                20.000000 ms        1 times  avg"
			   "     20.000000 ms  max     20.000000 ms\n") != NULL);
	CHECK(strstr(text, "    wake-up to run          0.050000 ms        1 times") != NULL);
	CHECK(strstr(text, "    clock_nanosleep        20.160000 ms        1 calls") != NULL);
	CHECK(strstr(text, "  page faults         2 user, 1 kernel\n") != NULL);
	CHECK(strstr(text, "  blocked S at, 1 times,     20.000000 ms\n"
			   "      => 0x1000\n      => 0x2000\n      => 0x3000\n") != NULL);
	CHECK(strstr(text, "  blocked D ") != NULL);
	/* The bucket of 20 ms, the only one, with the whole bar. */
	CHECK(strstr(text, " 16384 .. 32768 us        1 |########################################\n") != NULL);
	free(text);

	/* Two tasks of one name are one entry, their figures added. */
	fmt_tprof_switch(p, 31000000, 1, 200, "spin", 1, 300, "sleeper");
	fmt_tprof_end(p, 32000000);
	text = print(p, true);
	CHECK(strstr(text, "\ncomm: sleeper (2 tasks)\n"
			   "  run                       7.950000 ms        2 slices\n") != NULL);
	CHECK(strstr(text, "\ncomm: spin (1 task)\n") != NULL);
	CHECK(strstr(text, "task:") == NULL);
	free(text);
	fmt_tprof_free(p);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "intervals", intervals },
		{ "wakeup_of_a_running_task_and_lost_events", wakeup_of_a_running_task_and_lost_events },
		{ "distribution", distribution },
		{ "text_and_by_comm", text_and_by_comm },
	};

	return unit_run("test-tprof", tests, sizeof(tests) / sizeof(tests[0]));
}
