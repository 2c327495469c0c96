// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stream's hand-over and order across CPUs (stream-order.c): sub-buffers
 * wait in a bounded queue per CPU, and an event waits for the other CPUs to
 * hand over a later one or to report their buffer empty after it came, or
 * for max_delay; what comes out is in time order, and the data handed out
 * is the event's own, read in place.  A full queue refuses a page, or
 * makes its reader wait; nothing is lost and nothing is reordered.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream.h"
#include "unit.h"

#define MS 1000000ull

/* Small sub-buffers, so that a few events fill one. */
static const struct tfile_layout layout = {
	.ts_off = 0, .commit_off = 8, .commit_size = 8, .data_off = 16, .page_size = 256,
};

/* Add the event "cN-TS" (NUL-padded to whole words, as the kernel pads) to a page. */
static int page_add(struct tfile_page_out *p, int cpu, uint64_t ts)
{
	char data[24] = { 0 };
	size_t len = snprintf(data, sizeof(data), "c%d-%llu", cpu, (unsigned long long)ts) + 1;

	return tfile_page_out_add(p, ts, data, (len + 3) & ~(size_t)3, 0);
}

/* Hand over one sub-buffer of CPU cpu with the n events at ts[], at now. */
static int hand(struct stream_order *o, int cpu, uint64_t now, const uint64_t *ts, size_t n)
{
	uint8_t page[256];
	struct tfile_page_out p;

	tfile_page_out_start(&p, &layout, page);
	for (size_t i = 0; i < n; i++)
		CHECK(page_add(&p, cpu, ts[i]) == 1);
	tfile_page_out_finish(&p);
	return stream_order_put(o, cpu, page, now, false);
}

#define HAND(o, cpu, now, ...)                                                               \
	CHECK(hand(o, cpu, now, (const uint64_t[]){ __VA_ARGS__ },                            \
		   sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)) == 0)

/* The timestamps that may print now, as "ts ts ...". */
static char *take(struct stream_order *o, uint64_t now, bool all)
{
	struct tfile_event ev;
	char *s = xstrdup(""), *t;

	stream_order_due(o, now, all);
	while (stream_order_next(o, &ev) == 1) {
		char want[24];

		snprintf(want, sizeof(want), "c%d-%llu", ev.cpu, (unsigned long long)ev.ts);
		CHECK_STR((const char *)ev.data, want);
		t = xasprintf("%s%s%llu", s, *s ? " " : "", (unsigned long long)ev.ts);
		free(s);
		s = t;
	}
	return s;
}

TEST(waits_for_the_other_cpus)
{
	struct stream_order *o = stream_order_new(2, &layout, 8, 100 * MS);

	HAND(o, 0, 0, 10, 30);
	/* CPU 1 has said nothing: all of CPU 0's wait. */
	CHECK_OWNED(take(o, 50 * MS, false), "");
	CHECK(stream_order_held(o) == 2);
	/* CPU 1 hands over 20 and 40: up to 30 may print, 40 waits for CPU 0. */
	HAND(o, 1, 60 * MS, 20, 40);
	CHECK_OWNED(take(o, 60 * MS, false), "10 20 30");
	/* CPU 0 found its buffer empty after 40 came: 40 may print. */
	stream_order_idle(o, 0);
	CHECK_OWNED(take(o, 61 * MS, false), "40");
	CHECK(stream_order_held(o) == 0);
	stream_order_free(o);
}

TEST(an_idle_report_before_the_event_does_not_count)
{
	struct stream_order *o = stream_order_new(2, &layout, 8, 100 * MS);

	stream_order_idle(o, 1);
	HAND(o, 0, 0, 10);
	CHECK_OWNED(take(o, 1 * MS, false), "");
	stream_order_idle(o, 1);
	CHECK_OWNED(take(o, 2 * MS, false), "10");
	stream_order_free(o);
}

/* What is handed over after a drain began waits for the next one. */
TEST(a_drain_sees_the_queues_as_they_were)
{
	struct stream_order *o = stream_order_new(2, &layout, 8, 100 * MS);
	struct tfile_event ev;

	HAND(o, 0, 0, 10);
	HAND(o, 1, 0, 20);
	stream_order_due(o, 0, false);
	HAND(o, 0, 0, 15);
	CHECK(stream_order_next(o, &ev) == 1 && ev.ts == 10);
	/* 15 came after the drain began: 20 waits for it (CPU 0 said nothing later). */
	CHECK(stream_order_next(o, &ev) == 0);
	CHECK_OWNED(take(o, 0, false), "15");
	CHECK_OWNED(take(o, 0, true), "20");
	stream_order_free(o);
}

TEST(held_no_longer_than_max_delay)
{
	struct stream_order *o = stream_order_new(3, &layout, 8, 100 * MS);

	HAND(o, 0, 0, 10);
	HAND(o, 0, 40 * MS, 50);
	HAND(o, 2, 50 * MS, 30);
	CHECK_OWNED(take(o, 99 * MS, false), "");
	/* 10 is due; 30 of CPU 2 came later but is earlier than nothing due: it waits. */
	CHECK_OWNED(take(o, 100 * MS, false), "10");
	/* 50 is due at 140 ms: the earlier 30 goes out first, in order. */
	CHECK_OWNED(take(o, 140 * MS, false), "30 50");
	/*
	 * A CPU that catches up late prints late (the order is kept only
	 * within the bound), as soon as the others are past it.
	 */
	HAND(o, 1, 150 * MS, 20);
	CHECK_OWNED(take(o, 150 * MS, false), "20");
	stream_order_free(o);
}

TEST(a_cpu_without_reader_and_the_end)
{
	struct stream_order *o = stream_order_new(3, &layout, 8, 100 * MS);

	stream_order_no_reader(o, 1);
	HAND(o, 0, 0, 10);
	HAND(o, 2, 0, 5, 15);
	CHECK_OWNED(take(o, 1 * MS, false), "5 10");
	/* max_delay 0 aside, the end lets everything out. */
	CHECK_OWNED(take(o, 2 * MS, true), "15");
	stream_order_free(o);

	o = stream_order_new(2, &layout, 8, 0);
	HAND(o, 1, 5, 7);
	HAND(o, 0, 5, 3);
	CHECK_OWNED(take(o, 5, false), "3 7");
	stream_order_free(o);
}

/* Many sub-buffers round the ring: each slot is reused and the data stays right. */
TEST(a_long_queue_keeps_its_data)
{
	struct stream_order *o = stream_order_new(2, &layout, 32, 100 * MS);
	uint64_t ts = 1, printed = 0;
	struct tfile_event ev;

	for (int round = 0; round < 50; round++) {
		uint8_t page[256];
		struct tfile_page_out p;

		tfile_page_out_start(&p, &layout, page);
		for (int i = 0; i < 200; i++, ts++)
			if (page_add(&p, 0, ts) != 1) {
				tfile_page_out_finish(&p);
				CHECK(stream_order_put(o, 0, page, 0, false) == 0);
				tfile_page_out_start(&p, &layout, page);
				CHECK(page_add(&p, 0, ts) == 1);
			}
		tfile_page_out_finish(&p);
		CHECK(stream_order_put(o, 0, page, 0, false) == 0);
		/* CPU 1 is level with the middle of the round. */
		HAND(o, 1, 0, ts - 100);
		stream_order_due(o, 0, false);
		while (stream_order_next(o, &ev) == 1) {
			char want[24];

			snprintf(want, sizeof(want), "c%d-%llu", ev.cpu, (unsigned long long)ev.ts);
			CHECK_STR((const char *)ev.data, want);
			printed++;
		}
	}
	/* Each round lets out all but CPU 0's 99 past CPU 1's (equal timestamps go out). */
	CHECK(printed == 10050 - 99 && stream_order_held(o) == 99);
	stream_order_due(o, 0, true);
	while (stream_order_next(o, &ev) == 1) {
		CHECK(ev.cpu == 0 && ev.ts == 10000 - stream_order_held(o));
		printed++;
	}
	CHECK(printed == 10050);
	stream_order_free(o);
}

/* A full queue refuses a page until the formatting has taken one. */
TEST(a_full_queue_refuses)
{
	struct stream_order *o = stream_order_new(1, &layout, 4, 100 * MS);

	for (uint64_t i = 1; i <= 4; i++)
		HAND(o, 0, 0, i);
	CHECK(hand(o, 0, 0, (const uint64_t[]){ 5 }, 1) == -EAGAIN);
	CHECK(stream_order_held(o) == 4);
	/* 1 goes out; its sub-buffer is given back when the walk moves past it. */
	CHECK_OWNED(take(o, 0, true), "1 2 3 4");
	HAND(o, 0, 0, 5);
	CHECK_OWNED(take(o, 0, true), "5");
	/* Once discarded, puts never wait and keep nothing. */
	stream_order_discard(o);
	for (uint64_t i = 6; i <= 10; i++)
		CHECK(hand(o, 0, 0, &i, 1) == 0);
	CHECK(stream_order_held(o) == 0);
	stream_order_free(o);
}

/*
 * One pool for all CPUs: a busy CPU takes what the others leave, except the
 * few each keeps for itself (a quarter of its share, at most 16), so that a
 * quiet CPU can still hand over the event the busy one's wait for.
 */
TEST(a_busy_cpu_uses_the_pool_the_others_leave)
{
	struct stream_order *o = stream_order_new(3, &layout, 8, 100 * MS);
	uint64_t ts;

	/* 24 in the pool, 2 kept by each of CPUs 1 and 2. */
	for (ts = 1; ts <= 20; ts++)
		HAND(o, 0, 0, ts);
	CHECK(hand(o, 0, 0, &ts, 1) == -EAGAIN);
	HAND(o, 1, 0, 100);
	HAND(o, 1, 0, 101);
	CHECK(hand(o, 1, 0, (const uint64_t[]){ 102 }, 1) == -EAGAIN);
	/* CPU 2 is quiet: its word lets CPU 0's events out, and frees their room. */
	stream_order_idle(o, 2);
	CHECK_OWNED(take(o, 0, false), "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20");
	HAND(o, 2, 0, 102);
	for (ts = 103; ts <= 120; ts++)
		HAND(o, 0, 0, ts);
	CHECK(stream_order_held(o) == 21);
	CHECK_OWNED(take(o, 0, true), "100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 "
				      "115 116 117 118 119 120");
	stream_order_free(o);
}

struct writer {
	struct stream_order *o;
	int cpu, pages;
	int done;		/* pages put so far (atomic) */
};

/* A CPU's reader: pages of 10 events, CPU c's timestamps c, c+2, c+4, ... */
static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t ts = w->cpu;

	for (int k = 0; k < w->pages; k++) {
		uint8_t page[256];
		struct tfile_page_out p;

		tfile_page_out_start(&p, &layout, page);
		for (int i = 0; i < 10; i++, ts += 2)
			page_add(&p, w->cpu, ts);
		tfile_page_out_finish(&p);
		stream_order_put(w->o, w->cpu, page, 0, true);
		__atomic_add_fetch(&w->done, 1, __ATOMIC_RELEASE);
	}
	stream_order_idle(w->o, w->cpu);
	return NULL;
}

/*
 * Two readers against a pool of 4 sub-buffers each: a reader waits while
 * the pool is full, and every event comes out once, in time order.
 */
TEST(a_full_queue_makes_its_reader_wait)
{
	struct stream_order *o = stream_order_new(2, &layout, 4, 10000 * MS);
	struct writer w[2] = { { o, 0, 300, 0 }, { o, 1, 300, 0 } };
	struct timespec pause = { 0, 50 * MS };
	uint64_t n = 0, last = 0;
	struct tfile_event ev;
	pthread_t t[2];
	bool closed = false, joined = false, ordered = true, intact = true;

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, writer_main, &w[i]);
	/* Nothing is taken yet: the readers stop when the pool is full, each with its own. */
	nanosleep(&pause, NULL);
	CHECK(__atomic_load_n(&w[0].done, __ATOMIC_ACQUIRE) +
		      __atomic_load_n(&w[1].done, __ATOMIC_ACQUIRE) == 8);
	CHECK(__atomic_load_n(&w[0].done, __ATOMIC_ACQUIRE) >= 1);
	CHECK(__atomic_load_n(&w[1].done, __ATOMIC_ACQUIRE) >= 1);
	while (!closed) {
		closed = stream_order_wait(o, 10);
		stream_order_due(o, 0, closed);
		while (stream_order_next(o, &ev) == 1) {
			char want[24];

			snprintf(want, sizeof(want), "c%d-%llu", ev.cpu, (unsigned long long)ev.ts);
			intact &= !strcmp((const char *)ev.data, want);
			ordered &= n == 0 || ev.ts == last + 1;
			last = ev.ts;
			n++;
		}
		/* All but the last out: every page is in, the readers are done. */
		if (n >= 6000 - 1 && !joined) {
			pthread_join(t[0], NULL);
			pthread_join(t[1], NULL);
			joined = true;
			stream_order_close(o);
		}
	}
	CHECK(intact && ordered);
	CHECK(n == 6000 && last == 5999);
	CHECK(stream_order_held(o) == 0);
	stream_order_free(o);
}

UNIT_MAIN(T(waits_for_the_other_cpus), T(an_idle_report_before_the_event_does_not_count),
	  T(a_drain_sees_the_queues_as_they_were), T(held_no_longer_than_max_delay),
	  T(a_cpu_without_reader_and_the_end), T(a_long_queue_keeps_its_data),
	  T(a_full_queue_refuses), T(a_busy_cpu_uses_the_pool_the_others_leave),
	  T(a_full_queue_makes_its_reader_wait))
