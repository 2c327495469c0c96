// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The several-machine options of trace.dat: TIME_SHIFT parsed from bytes
 * built here (both byte orders, with and without trace-cmd 2.9's missing
 * fraction bits, cut short everywhere) and its correction checked against
 * worked examples of trace-cmd's formula (include/tfile.h), worked by hand
 * below; GUEST parsed and refused when malformed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tfile-local.h"
#include "unit.h"

struct buf {
	uint8_t p[4096];
	size_t n;
	bool be;
};

static void putn(struct buf *b, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		b->p[b->n + i] = (uint8_t)(v >> (8 * (b->be ? size - 1 - i : i)));
	b->n += size;
}

struct smp {
	int64_t time, offset, scaling, fraction;
};

/* A TIME_SHIFT option: CPU c has counts[c] samples from s (taken in turn). */
static void time_shift(struct buf *b, uint32_t flags, int ncpus, const int *counts,
		       const struct smp *s, bool fractions)
{
	const struct smp *at = s;

	putn(b, 0x1122334455667788ull, 8);
	putn(b, flags, 4);
	putn(b, ncpus, 4);
	for (int c = 0; c < ncpus; c++) {
		putn(b, counts[c], 4);
		for (int i = 0; i < counts[c]; i++)
			putn(b, at[i].time, 8);
		for (int i = 0; i < counts[c]; i++)
			putn(b, at[i].offset, 8);
		for (int i = 0; i < counts[c]; i++)
			putn(b, at[i].scaling, 8);
		at += counts[c];
	}
	if (!fractions)
		return;
	at = s;
	for (int c = 0; c < ncpus; c++) {
		for (int i = 0; i < counts[c]; i++)
			putn(b, at[i].fraction, 8);
		at += counts[c];
	}
}

static int parse(const struct buf *b, struct tfile_tsync *t)
{
	char why[128];

	return tfile_tsync_parse(b->p, b->n, b->be, t, why, sizeof(why));
}

TEST(one_sample_is_a_plain_offset)
{
	/* One sample: ts + offset, and its scaling is not applied (as trace-cmd). */
	struct smp s[] = { { 1000, -1000, 3, 1 } };
	struct tfile_tsync t;
	struct buf b = { 0 };

	time_shift(&b, 0, 1, (int[]){ 1 }, s, true);
	CHECK(parse(&b, &t) == 0);
	CHECK(t.peer_id == 0x1122334455667788ull && t.ncpus == 1 && t.nsamples == 1);
	CHECK(tfile_tsync_apply(&t, 0, 5000) == 4000);
	CHECK(tfile_tsync_apply(&t, 0, 0) == (uint64_t)-1000);	/* wraps, as trace-cmd */
	/* A CPU the option has no samples for keeps its time. */
	CHECK(tfile_tsync_apply(&t, 1, 5000) == 5000);
	CHECK(tfile_tsync_apply(&t, -1, 5000) == 5000);
	CHECK(tfile_tsync_apply(NULL, 0, 5000) == 5000);
	tfile_tsync_free(&t);
}

TEST(two_samples_step_or_interpolate)
{
	struct smp s[] = { { 1000, 100, 1, 0 }, { 2000, 300, 1, 0 } };
	struct tfile_tsync t;

	for (int be = 0; be <= 1; be++) {
		struct buf b = { .be = be };

		/* Without INTERPOLATE the earlier sample's offset holds, before and after too. */
		time_shift(&b, 0, 1, (int[]){ 2 }, s, true);
		CHECK(parse(&b, &t) == 0);
		CHECK(tfile_tsync_apply(&t, 0, 1500) == 1600);
		CHECK(tfile_tsync_apply(&t, 0, 500) == 600);
		CHECK(tfile_tsync_apply(&t, 0, 3000) == 3100);
		tfile_tsync_free(&t);

		/*
		 * With it: cor = 100 + ((ts - 1000) * 200 + 500) / 1000.
		 * 1500: 100 + 100500 / 1000 = 200 -> 1700
		 * 1250: 100 + 50500 / 1000 = 150 -> 1400
		 * 1002: 100 + 900 / 1000 = 100 -> 1102
		 * 1003: 100 + 1100 / 1000 = 101 -> 1104 (rounded to nearest)
		 *  500: 100 + -99500 / 1000 = 100 - 99 = 1 -> 501 (C division truncates)
		 */
		b.n = 0;
		time_shift(&b, TFILE_TSYNC_INTERPOLATE, 1, (int[]){ 2 }, s, true);
		CHECK(parse(&b, &t) == 0);
		CHECK(t.flags == TFILE_TSYNC_INTERPOLATE);
		CHECK(tfile_tsync_apply(&t, 0, 1500) == 1700);
		CHECK(tfile_tsync_apply(&t, 0, 1250) == 1400);
		CHECK(tfile_tsync_apply(&t, 0, 1002) == 1102);
		CHECK(tfile_tsync_apply(&t, 0, 1003) == 1104);
		CHECK(tfile_tsync_apply(&t, 0, 500) == 501);
		CHECK(tfile_tsync_apply(&t, 0, 2000) == 2300);
		tfile_tsync_free(&t);
	}
}

TEST(many_samples_pick_the_pair_around)
{
	/* Given out of order: sorted by time on reading. */
	struct smp s[] = { { 4000, -100, 1, 0 }, { 1000, 100, 1, 0 }, { 2000, 300, 1, 0 } };
	struct tfile_tsync t;
	struct buf b = { 0 };

	time_shift(&b, TFILE_TSYNC_INTERPOLATE, 1, (int[]){ 3 }, s, true);
	CHECK(parse(&b, &t) == 0);
	CHECK(t.cpus[0].s[0].time == 1000 && t.cpus[0].s[2].time == 4000);
	/*
	 * 3000, between 2000 and 4000: 300 + (1000 * -400 + 1000) / 2000
	 *   = 300 + -399000 / 2000 = 300 - 199 = 101 -> 3101
	 * 2000, on a sample: that sample and the next: 300 -> 2300
	 * 1500, between the first two: 100 + (500 * 200 + 500) / 1000 = 200 -> 1700
	 * 5000, past the last: the last two: 300 + (3000 * -400 + 1000) / 2000
	 *   = 300 - 599 = -299 -> 4701
	 * 1000, on the first: 100 -> 1100
	 * 4000, on the last: 300 + (2000 * -400 + 1000) / 2000 = 300 - 399 = -99
	 *   -> 3901, not 3900: the rounding term is added before a negative quotient
	 *   truncates toward zero
	 */
	CHECK(tfile_tsync_apply(&t, 0, 3000) == 3101);
	CHECK(tfile_tsync_apply(&t, 0, 2000) == 2300);
	CHECK(tfile_tsync_apply(&t, 0, 1500) == 1700);
	CHECK(tfile_tsync_apply(&t, 0, 5000) == 4701);
	CHECK(tfile_tsync_apply(&t, 0, 1000) == 1100);
	CHECK(tfile_tsync_apply(&t, 0, 4000) == 3901);
	tfile_tsync_free(&t);
}

TEST(many_samples_binary_search)
{
	/* 1001 samples at 0, 10, ..., 10000 with offset 7 * i: the step form finds each. */
	static struct smp s[1001];
	struct tfile_tsync t;
	bool ok = true;

	for (int i = 0; i <= 1000; i++)
		s[i] = (struct smp){ 10 * i, 7 * i, 1, 0 };
	/* Too big for struct buf: built here, little-endian. */
	{
		size_t cap = 16 + 4 + 1001 * 32;
		uint8_t *p = malloc(cap);
		size_t n = 0;
		char why[128];

		for (int i = 0; i < 8; i++)
			p[n++] = 0;
		p[n++] = 0, p[n++] = 0, p[n++] = 0, p[n++] = 0;			/* flags */
		p[n++] = 1, p[n++] = 0, p[n++] = 0, p[n++] = 0;			/* CPUs */
		p[n++] = 1001 & 0xff, p[n++] = 1001 >> 8, p[n++] = 0, p[n++] = 0;
		for (int f = 0; f < 4; f++)
			for (int i = 0; i <= 1000; i++) {
				int64_t v = f == 0 ? s[i].time : f == 1 ? s[i].offset
							: f == 2 ? 1 : 0;

				for (int k = 0; k < 8; k++)
					p[n++] = (uint8_t)((uint64_t)v >> (8 * k));
			}
		CHECK(tfile_tsync_parse(p, n, false, &t, why, sizeof(why)) == 0);
		free(p);
	}
	for (uint64_t ts = 1; ts < 10000 && t.ncpus; ts += 3)
		ok &= tfile_tsync_apply(&t, 0, ts) == ts + 7 * (ts / 10);
	CHECK(ok);
	tfile_tsync_free(&t);
}

TEST(scaling_and_fraction)
{
	/* (1000 * 3) >> 1 = 1500, + 100 */
	struct smp s[] = { { 0, 100, 3, 1 }, { 9000, 100, 3, 1 } };
	struct tfile_tsync t;
	struct buf b = { 0 };

	time_shift(&b, 0, 1, (int[]){ 2 }, s, true);
	CHECK(parse(&b, &t) == 0);
	CHECK(tfile_tsync_apply(&t, 0, 1000) == 1600);
	tfile_tsync_free(&t);
	/* trace-cmd 2.9 wrote no fraction bits: they are 0, (1000 * 3) + 100 */
	b.n = 0;
	time_shift(&b, 0, 1, (int[]){ 2 }, s, false);
	CHECK(parse(&b, &t) == 0);
	CHECK(tfile_tsync_apply(&t, 0, 1000) == 3100);
	tfile_tsync_free(&t);
}

TEST(per_cpu_samples)
{
	struct smp s[] = { { 0, 10, 1, 0 }, { 100, 10, 1, 0 }, { 0, -20, 1, 0 } };
	struct tfile_tsync t;
	struct buf b = { 0 };

	time_shift(&b, 0, 3, (int[]){ 2, 1, 0 }, s, true);
	CHECK(parse(&b, &t) == 0);
	CHECK(t.ncpus == 3 && t.nsamples == 3);
	CHECK(tfile_tsync_apply(&t, 0, 50) == 60);
	CHECK(tfile_tsync_apply(&t, 1, 50) == 30);
	CHECK(tfile_tsync_apply(&t, 2, 50) == 50);	/* no samples */
	CHECK(tfile_tsync_apply(&t, 3, 50) == 50);
	tfile_tsync_free(&t);
}

TEST(equal_times_keep_the_first)
{
	struct smp s[] = { { 100, 1, 1, 0 }, { 100, 2, 1, 0 }, { 200, 3, 1, 0 } };
	struct tfile_tsync t;
	struct buf b = { 0 };

	time_shift(&b, TFILE_TSYNC_INTERPOLATE, 1, (int[]){ 3 }, s, true);
	CHECK(parse(&b, &t) == 0);
	CHECK(t.cpus[0].n == 2 && t.cpus[0].s[0].offset == 1 && t.cpus[0].s[1].offset == 3);
	tfile_tsync_free(&t);
}

TEST(hostile_options_are_refused)
{
	struct smp s[] = { { 0, 10, 1, 0 }, { 100, 10, 1, 0 } };
	struct tfile_tsync t;
	struct buf b = { 0 }, full = { 0 };
	char why[128];
	int refused = 0, cuts = 0;

	time_shift(&full, 0, 2, (int[]){ 1, 1 }, s, true);
	/*
	 * Every cut is refused, but the one that drops all the fraction bits
	 * exactly (trace-cmd 2.9's form).
	 */
	for (size_t n = 0; n < full.n; n++, cuts++) {
		refused += tfile_tsync_parse(full.p, n, false, &t, why, sizeof(why)) == -EBADMSG;
		tfile_tsync_free(&t);
	}
	CHECK(refused == cuts - 1);
	CHECK(tfile_tsync_parse(full.p, full.n - 16, false, &t, why, sizeof(why)) == 0);
	tfile_tsync_free(&t);
	/* A count past the bytes there: refused before anything is allocated for it. */
	putn(&b, 0, 8), putn(&b, 0, 4), putn(&b, 0x7fffffff, 4);
	CHECK(tfile_tsync_parse(b.p, b.n, false, &t, why, sizeof(why)) == -EBADMSG);
	CHECK(strstr(why, "CPUs in") != NULL);
	b.n = 0;
	putn(&b, 0, 8), putn(&b, 0, 4), putn(&b, 1, 4), putn(&b, 0xffffffff, 4);
	CHECK(tfile_tsync_parse(b.p, b.n, false, &t, why, sizeof(why)) == -EBADMSG);
	CHECK(strstr(why, "run past") != NULL);
	CHECK(t.cpus == NULL && t.ncpus == 0);
	/* A shift of 64 bits or more, or a negative one, is no fraction. */
	for (int k = 0; k < 2; k++) {
		struct smp f[] = { { 0, 1, 1, k ? 64 : -1 } };

		b.n = 0;
		time_shift(&b, 0, 1, (int[]){ 1 }, f, true);
		CHECK(tfile_tsync_parse(b.p, b.n, false, &t, why, sizeof(why)) == -EBADMSG);
		CHECK(strstr(why, "fraction bits") != NULL);
	}
}

TEST(overflow_wraps_without_trapping)
{
	/* INT64_MIN / -1 and huge products: some time, no trap (UBSan checks the rest). */
	struct smp s[] = { { INT64_MIN, INT64_MIN, -1, 0 }, { INT64_MAX, INT64_MAX, -1, 63 },
			   { -1, 0, INT64_MIN, 0 } };
	struct tfile_tsync t;
	struct buf b = { 0 };

	time_shift(&b, TFILE_TSYNC_INTERPOLATE, 1, (int[]){ 3 }, s, true);
	CHECK(parse(&b, &t) == 0);
	for (uint64_t ts = 0; ts < 64; ts++) {
		(void)tfile_tsync_apply(&t, 0, ts << 58);
		(void)tfile_tsync_apply(&t, 0, (uint64_t)INT64_MIN + ts);
	}
	tfile_tsync_free(&t);
	/* times one apart with d = -1 cannot happen sorted; a wrap gives d = -1 */
	struct smp w[] = { { INT64_MIN, INT64_MIN, 1, 0 }, { INT64_MAX, 0, 1, 0 } };

	b.n = 0;
	time_shift(&b, TFILE_TSYNC_INTERPOLATE, 1, (int[]){ 2 }, w, true);
	CHECK(parse(&b, &t) == 0);
	(void)tfile_tsync_apply(&t, 0, 0);
	(void)tfile_tsync_apply(&t, 0, (uint64_t)INT64_MIN);
	tfile_tsync_free(&t);
}

TEST(guest_option)
{
	struct buf b = { 0 };
	struct tfile_guest g;

	memcpy(b.p, "vm1", 4);
	b.n = 4;
	putn(&b, 0xabcdef, 8);
	putn(&b, 2, 4);
	putn(&b, 1, 4), putn(&b, 4321, 4);
	putn(&b, 0, 4), putn(&b, 1234, 4);
	CHECK(tfile_guest_parse(b.p, b.n, false, &g) == 0);
	CHECK_STR(g.name, "vm1");
	CHECK(g.trace_id == 0xabcdef && g.nvcpus == 2 && g.pids[0] == 1234 &&
	      g.pids[1] == 4321);
	free(g.name);
	free(g.pids);
	/* cut anywhere: refused */
	for (size_t n = 0; n < b.n; n++)
		CHECK(tfile_guest_parse(b.p, n, false, &g) == -EBADMSG);
	/* a vCPU number past the count */
	b.p[4 + 8 + 4] = 2;
	CHECK(tfile_guest_parse(b.p, b.n, false, &g) == -EBADMSG);
}

UNIT_MAIN(T(one_sample_is_a_plain_offset), T(two_samples_step_or_interpolate),
	  T(many_samples_pick_the_pair_around), T(many_samples_binary_search),
	  T(scaling_and_fraction), T(per_cpu_samples), T(equal_times_keep_the_first),
	  T(hostile_options_are_refused), T(overflow_wraps_without_trapping), T(guest_option))
