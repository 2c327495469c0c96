// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stream's order across CPUs (stream-order.c): an event waits for the
 * other CPUs to hand over a later one or to report their buffer empty
 * after it came, or for max_delay; what comes out is in time order, and
 * the data handed out is the event's own.
 */
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "unit.h"

#define MS 1000000ull

static void add(struct stream_order *o, int cpu, uint64_t ts, uint64_t seq, uint64_t now)
{
	char data[16];

	snprintf(data, sizeof(data), "c%d-%llu", cpu, (unsigned long long)ts);
	stream_order_add(o, &(struct tfile_event){ .ts = ts, .raw_ts = ts, .data = data,
						   .size = strlen(data) + 1, .cpu = cpu },
			 seq, now);
}

/* The timestamps that may print now, as "ts ts ...". */
static char *take(struct stream_order *o, uint64_t now, bool all)
{
	struct tfile_event ev;
	char *s = xstrdup(""), *t;

	stream_order_due(o, now, all);
	while (stream_order_next(o, &ev) == 1) {
		char want[16];

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
	struct stream_order *o = stream_order_new(2, 100 * MS);

	add(o, 0, 10, 1, 0);
	add(o, 0, 30, 1, 0);
	/* CPU 1 has said nothing: all of CPU 0's wait. */
	CHECK_OWNED(take(o, 50 * MS, false), "");
	CHECK(stream_order_held(o) == 2);
	/* CPU 1 hands over 20 and 40: up to 30 may print, 40 waits for CPU 0. */
	add(o, 1, 20, 2, 60 * MS);
	add(o, 1, 40, 2, 60 * MS);
	CHECK_OWNED(take(o, 60 * MS, false), "10 20 30");
	/* CPU 0 found its buffer empty after 40 came: 40 may print. */
	stream_order_idle(o, 0, 3);
	CHECK_OWNED(take(o, 61 * MS, false), "40");
	CHECK(stream_order_held(o) == 0);
	stream_order_free(o);
}

TEST(an_idle_report_before_the_event_does_not_count)
{
	struct stream_order *o = stream_order_new(2, 100 * MS);

	stream_order_idle(o, 1, 4);
	add(o, 0, 10, 5, 0);
	CHECK_OWNED(take(o, 1 * MS, false), "");
	stream_order_idle(o, 1, 6);
	CHECK_OWNED(take(o, 2 * MS, false), "10");
	stream_order_free(o);
}

TEST(held_no_longer_than_max_delay)
{
	struct stream_order *o = stream_order_new(3, 100 * MS);

	add(o, 0, 10, 1, 0);
	add(o, 0, 50, 2, 40 * MS);
	add(o, 2, 30, 3, 50 * MS);
	CHECK_OWNED(take(o, 99 * MS, false), "");
	/* 10 is due; 30 of CPU 2 came later but is earlier than nothing due: it waits. */
	CHECK_OWNED(take(o, 100 * MS, false), "10");
	/* 50 is due at 140 ms: the earlier 30 goes out first, in order. */
	CHECK_OWNED(take(o, 140 * MS, false), "30 50");
	/*
	 * A CPU that catches up late prints late (the order is kept only
	 * within the bound), as soon as the others are past it.
	 */
	add(o, 1, 20, 4, 150 * MS);
	CHECK_OWNED(take(o, 150 * MS, false), "20");
	stream_order_free(o);
}

TEST(a_cpu_without_reader_and_the_end)
{
	struct stream_order *o = stream_order_new(3, 100 * MS);

	stream_order_idle(o, 1, UINT64_MAX);
	add(o, 0, 10, 1, 0);
	add(o, 2, 5, 2, 0);
	add(o, 2, 15, 2, 0);
	CHECK_OWNED(take(o, 1 * MS, false), "5 10");
	/* max_delay 0 aside, the end lets everything out. */
	CHECK_OWNED(take(o, 2 * MS, true), "15");
	stream_order_free(o);

	o = stream_order_new(2, 0);
	add(o, 1, 7, 1, 5);
	add(o, 0, 3, 2, 5);
	CHECK_OWNED(take(o, 5, false), "3 7");
	stream_order_free(o);
}

/* Many events through one queue: the arena is compacted and the data stays right. */
TEST(a_long_queue_keeps_its_data)
{
	struct stream_order *o = stream_order_new(2, 100 * MS);
	uint64_t ts = 1, printed = 0;
	struct tfile_event ev;

	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 200; i++, ts++)
			add(o, 0, ts, round + 1, 0);
		/* CPU 1 is level with the middle of the round. */
		add(o, 1, ts - 100, round + 1, 0);
		stream_order_due(o, 0, false);
		while (stream_order_next(o, &ev) == 1) {
			char want[16];

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

UNIT_MAIN(T(waits_for_the_other_cpus), T(an_idle_report_before_the_event_does_not_count),
	  T(held_no_longer_than_max_delay), T(a_cpu_without_reader_and_the_end),
	  T(a_long_queue_keeps_its_data))
