// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function profiler's tables: trace_stat/functionN text as the kernel
 * writes it (with and without the time columns, 7-digit times, names cut
 * to 30 characters), rejected lines, the merge of CPUs (variance exactly
 * recombined), CPU selection, sorting and the three outputs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "unit.h"

static const char cpu0[] =
	"  Function                               Hit    Time            Avg             s^2\n"
	"  --------                               ---    ----            ---             ---\n"
	"  vfs_read                                 2    30.000 us       15.000 us       50.000 us    \n"
	"  ksys_read                                1    1234567 us      1234567 us      0.000 us    \n"
	"  a_function_with_a_very_long_na           3    3.000 us        1.000 us        0.000 us    \n";

static const char cpu1[] =
	"  Function                               Hit    Time            Avg             s^2\n"
	"  --------                               ---    ----            ---             ---\n"
	"  vfs_read                                 2    50.000 us       25.000 us       50.000 us    \n";

static const char hits_only[] =
	"  Function                               Hit\n"
	"  --------                               ---\n"
	"  schedule                                42\n";

TEST(parse_kernel_text)
{
	struct prof_table t = { 0 };

	CHECK(prof_parse(cpu0, 0, &t) == 0);
	CHECK(t.n == 3 && t.timed);
	CHECK_STR(t.v[0].func, "vfs_read");
	CHECK(t.v[0].cpu == 0 && t.v[0].hits == 2);
	CHECK(t.v[0].total_us == 30.0 && t.v[0].avg_us == 15.0 && t.v[0].var_us2 == 50.0);
	CHECK(t.v[1].total_us == 1234567.0);
	CHECK_STR(t.v[2].func, "a_function_with_a_very_long_na");
	prof_free(&t);

	CHECK(prof_parse(hits_only, 3, &t) == 0);
	CHECK(t.n == 1 && !t.timed && t.v[0].hits == 42 && t.v[0].cpu == 3);
	prof_free(&t);

	/* A table with no calls yet is the header alone. */
	CHECK(prof_parse(cpu0, 0, &t) == 0 && prof_parse("", 1, &t) == 0 && t.n == 3);
	prof_free(&t);
}

TEST(parse_rejects_other_text)
{
	static const char *const bad[] = {
		"  vfs_read  many\n",
		"  vfs_read  2  30.000 us  15.000 us\n",
		"  vfs_read  2  30.000 ms  15.000 us  0.000 us\n",
		"  vfs_read  2  30.000 us  15.000 us  0.000 us  extra\n",
		"  vfs_read\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct prof_table t = { 0 };

		CHECK(prof_parse(bad[i], 0, &t) == -EINVAL);
		CHECK(strstr(tr_failure(), "trace_stat/function0 line 1") != NULL);
		prof_free(&t);
	}
}

TEST(merge_cpus)
{
	struct prof_table t = { 0 }, m = { 0 };

	CHECK(prof_parse(cpu0, 0, &t) == 0 && prof_parse(cpu1, 1, &t) == 0);
	prof_merge(&t, &m);
	CHECK(m.n == 3 && m.timed);
	prof_sort(&m, PROF_SORT_NAME);
	CHECK_STR(m.v[2].func, "vfs_read");
	CHECK(m.v[2].cpu == -1 && m.v[2].hits == 4 && m.v[2].total_us == 80.0);
	CHECK(m.v[2].avg_us == 20.0);
	/*
	 * Calls 10, 20 on CPU 0 and 20, 30 on CPU 1 (each pair: variance 50):
	 * all four have mean 20 and sample variance 200/3.
	 */
	CHECK(fabs(m.v[2].var_us2 - 200.0 / 3) < 1e-9);
	prof_free(&m);

	/* Only CPU 1's rows. */
	{
		uint64_t mask[1] = { 1ULL << 1 };

		prof_keep_cpus(&t, mask, 64);
		CHECK(t.n == 1 && t.v[0].cpu == 1);
	}
	prof_free(&t);
}

TEST(sort_keys)
{
	struct prof_table t = { 0 };
	enum prof_sort by;

	CHECK(prof_parse(cpu0, 0, &t) == 0);
	CHECK(prof_sort_parse("hits", &by) == 0 && by == PROF_SORT_HITS);
	CHECK(prof_sort_parse("nope", &by) == -EINVAL);
	prof_sort(&t, PROF_SORT_TOTAL);
	CHECK_STR(t.v[0].func, "ksys_read");
	prof_sort(&t, PROF_SORT_HITS);
	CHECK_STR(t.v[0].func, "a_function_with_a_very_long_na");
	prof_sort(&t, PROF_SORT_STDDEV);
	CHECK_STR(t.v[0].func, "vfs_read");
	prof_sort(&t, PROF_SORT_NAME);
	CHECK_STR(t.v[0].func, "a_function_with_a_very_long_na");
	prof_free(&t);
}

static char *print(const struct prof_table *t, enum prof_out kind, size_t limit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	prof_print(f, t, kind, limit);
	fclose(f);
	return buf;
}

TEST(outputs)
{
	struct prof_table t = { 0 }, m = { 0 };

	CHECK(prof_parse(cpu1, 1, &t) == 0);
	prof_merge(&t, &m);
	CHECK_OWNED(print(&m, PROF_TEXT, 0),
		    "FUNCTION                             HITS       TOTAL(us)     AVG(us)  STDDEV(us)\n"
		    "vfs_read                                2          50.000      25.000       7.071\n");
	CHECK_OWNED(print(&t, PROF_TEXT, 0),
		    "CPU  FUNCTION                             HITS       TOTAL(us)     AVG(us)  STDDEV(us)\n"
		    "1    vfs_read                                2          50.000      25.000       7.071\n");
	CHECK_OWNED(print(&m, PROF_JSON, 0),
		    "{\"function\":\"vfs_read\",\"hits\":2,\"total_us\":50.000,\"avg_us\":25.000,"
		    "\"stddev_us\":7.071}\n");
	CHECK_OWNED(print(&t, PROF_CSV, 0),
		    "cpu,function,hits,total_us,avg_us,stddev_us\n1,vfs_read,2,50.000,25.000,7.071\n");
	CHECK_OWNED(print(&m, PROF_CSV, 0),
		    "function,hits,total_us,avg_us,stddev_us\nvfs_read,2,50.000,25.000,7.071\n");
	prof_free(&t);
	prof_free(&m);
	CHECK(prof_parse(cpu0, 0, &t) == 0);
	prof_merge(&t, &m);
	prof_sort(&m, PROF_SORT_TOTAL);
	CHECK_OWNED(print(&m, PROF_CSV, 1),
		    "function,hits,total_us,avg_us,stddev_us\nksys_read,1,1234567.000,1234567.000,0.000\n");
	prof_free(&t);
	prof_free(&m);
	CHECK(prof_parse(hits_only, 0, &t) == 0);
	prof_merge(&t, &m);
	CHECK_OWNED(print(&m, PROF_TEXT, 0),
		    "FUNCTION                             HITS\n"
		    "schedule                               42\n");
	prof_free(&t);
	prof_free(&m);
}

UNIT_MAIN(T(parse_kernel_text), T(parse_rejects_other_text), T(merge_cpus), T(sort_keys),
	  T(outputs))
