// SPDX-License-Identifier: GPL-2.0-or-later
/* Number, size, duration, cpu-list and edit-distance parsing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"
#include "tr.h"
#include "unit.h"

TEST(numbers)
{
	uint64_t v;
	int i;

	CHECK(parse_u64("0", &v) == 0 && v == 0);
	CHECK(parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_u64("18446744073709551616", &v) == -ERANGE);
	CHECK(parse_u64("12abc", &v) == -EINVAL);
	CHECK(parse_u64("", &v) == -EINVAL);
	CHECK(parse_u64(" 1", &v) == -EINVAL);
	CHECK(parse_u64("-1", &v) == -EINVAL);
	CHECK(parse_u64("+1", &v) == -EINVAL);
	CHECK(parse_int("-5", -10, 10, &i) == 0 && i == -5);
	CHECK(parse_int("11", -10, 10, &i) == -ERANGE);
	CHECK(parse_int("-2147483648", -2147483647 - 1, 0, &i) == 0 && i == -2147483647 - 1);
	CHECK(parse_int("3x", 0, 10, &i) == -EINVAL);
}

TEST(signed_numbers)
{
	int64_t v;

	CHECK(parse_i64("-1500", &v) == 0 && v == -1500);
	CHECK(parse_i64("+20", &v) == 0 && v == 20);
	CHECK(parse_i64("7", &v) == 0 && v == 7);
	CHECK(parse_i64("-9223372036854775808", &v) == 0 && v == INT64_MIN);
	CHECK(parse_i64("9223372036854775808", &v) == -ERANGE);
	CHECK(parse_i64("-", &v) == -EINVAL);
	CHECK(parse_i64("--1", &v) == -EINVAL);
	CHECK(parse_i64("1ms", &v) == -EINVAL);
	CHECK(parse_i64("", &v) == -EINVAL);
}

TEST(sizes)
{
	uint64_t v;

	CHECK(parse_size("4096", &v) == 0 && v == 4096);
	CHECK(parse_size("64k", &v) == 0 && v == 65536);
	CHECK(parse_size("2M", &v) == 0 && v == 2 << 20);
	CHECK(parse_size("1G", &v) == 0 && v == 1ULL << 30);
	CHECK(parse_size("1KiB", &v) == 0 && v == 1024);
	CHECK(parse_size("1T", &v) == -EINVAL);
	CHECK(parse_size("k", &v) == -EINVAL);
	CHECK(parse_size("1.5M", &v) == -EINVAL);
	CHECK(parse_size("99999999999999999999G", &v) == -ERANGE);
	CHECK(parse_size("17179869184G", &v) == -ERANGE);
}

TEST(durations)
{
	uint64_t ns;

	CHECK(parse_duration("3", &ns) == 0 && ns == 3000000000ULL);
	CHECK(parse_duration("3s", &ns) == 0 && ns == 3000000000ULL);
	CHECK(parse_duration("250ms", &ns) == 0 && ns == 250000000ULL);
	CHECK(parse_duration("2m", &ns) == 0 && ns == 120000000000ULL);
	CHECK(parse_duration("1h", &ns) == 0 && ns == 3600000000000ULL);
	CHECK(parse_duration("10us", &ns) == 0 && ns == 10000);
	CHECK(parse_duration("0.3", &ns) == 0 && ns == 300000000ULL);
	CHECK(parse_duration("1.5s", &ns) == 0 && ns == 1500000000ULL);
	CHECK(parse_duration("0.5h", &ns) == 0 && ns == 1800000000000ULL);
	CHECK(parse_duration("1.", &ns) == -EINVAL);
	CHECK(parse_duration("5 s", &ns) == -EINVAL);
	CHECK(parse_duration("5sec", &ns) == -EINVAL);
	CHECK(parse_duration("-1s", &ns) == -EINVAL);
	CHECK(parse_duration("", &ns) == -EINVAL);
}

TEST(cpu_lists)
{
	uint64_t m[2];

	CHECK(parse_cpu_list("1-3,5", m, 128) == 0 && m[0] == 0x2e && m[1] == 0);
	CHECK(parse_cpu_list("0", m, 1) == 0 && m[0] == 1);
	CHECK(parse_cpu_list("64,127", m, 128) == 0 && m[0] == 0 && m[1] == (1ULL | 1ULL << 63));
	CHECK(parse_cpu_list("2", m, 2) == -ERANGE);
	CHECK(parse_cpu_list("3-1", m, 8) == -EINVAL);
	CHECK(parse_cpu_list("1,", m, 8) == -EINVAL);
	CHECK(parse_cpu_list(",1", m, 8) == -EINVAL);
	CHECK(parse_cpu_list("1-", m, 8) == -EINVAL);
	CHECK(parse_cpu_list("a", m, 8) == -EINVAL);
	CHECK(parse_cpu_list("", m, 8) == -EINVAL);
}

TEST(cpu_masks)
{
	uint64_t m[2];
	char *t;

	CHECK(parse_cpu_mask("3", m, 128) == 0 && m[0] == 3 && m[1] == 0);
	CHECK(parse_cpu_mask("0x2e", m, 128) == 0 && m[0] == 0x2e);
	CHECK(parse_cpu_mask("ff,ffffffff", m, 128) == 0 && m[0] == 0xffffffffffULL);
	CHECK(parse_cpu_mask("1,00000000,00000000", m, 128) == 0 && m[0] == 0 && m[1] == 1);
	CHECK(parse_cpu_mask("0", m, 8) == 0 && m[0] == 0);
	CHECK(parse_cpu_mask("100", m, 8) == -ERANGE);
	CHECK(parse_cpu_mask("0100", m, 9) == 0 && m[0] == 0x100);
	CHECK(parse_cpu_mask("0x", m, 8) == -EINVAL);
	CHECK(parse_cpu_mask("", m, 8) == -EINVAL);
	CHECK(parse_cpu_mask("3g", m, 8) == -EINVAL);
	CHECK(parse_cpu_mask(",3", m, 8) == -EINVAL);
	CHECK(parse_cpu_mask("3,", m, 8) == -EINVAL);
	CHECK(parse_cpu_mask("1,,3", m, 8) == -EINVAL);

	m[0] = 3, m[1] = 0;
	t = cpu_mask_format(m, 2);
	CHECK(!strcmp(t, "3"));
	free(t);
	m[0] = 0xb;
	t = cpu_mask_format(m, 8);
	CHECK(!strcmp(t, "0b"));
	free(t);
	t = cpu_list_format(m, 8);
	CHECK(!strcmp(t, "0-1,3"));
	free(t);
	m[0] = 1ULL << 32 | 5;
	t = cpu_mask_format(m, 33);
	CHECK(!strcmp(t, "1,00000005"));
	free(t);
	t = cpu_list_format(m, 64);
	CHECK(!strcmp(t, "0,2,32"));
	free(t);
	m[0] = 0;
	t = cpu_list_format(m, 64);
	CHECK(!strcmp(t, ""));
	free(t);
	/* A list and the mask it means agree. */
	CHECK(parse_cpu_list("0-1,3", m, 128) == 0);
	t = cpu_mask_format(m, 4);
	CHECK(!strcmp(t, "b"));
	free(t);
}

TEST(edit_distances)
{
	CHECK(edit_distance("record", "record", 2) == 0);
	CHECK(edit_distance("recrod", "record", 2) == 1);	/* adjacent swap */
	CHECK(edit_distance("recor", "record", 2) == 1);
	CHECK(edit_distance("rekord", "record", 2) == 1);
	CHECK(edit_distance("stat", "start", 2) == 1);
	CHECK(edit_distance("abc", "record", 2) == 3);	/* capped at cap + 1 */
	CHECK(edit_distance("", "ab", 5) == 2);
}

/* Times as tr report prints them, and spans with units, for tr split --time. */
TEST(times)
{
	uint64_t ns = 0;

	CHECK(parse_time("12345.678901", &ns) == 0 && ns == 12345678901000ULL);
	CHECK(parse_time("12345", &ns) == 0 && ns == 12345000000000ULL);
	CHECK(parse_time("1.5s", &ns) == 0 && ns == 1500000000ULL);
	CHECK(parse_time("2.25ms", &ns) == 0 && ns == 2250000ULL);
	CHECK(parse_time("50us", &ns) == 0 && ns == 50000ULL);
	CHECK(parse_time("100ns", &ns) == 0 && ns == 100ULL);
	CHECK(parse_time("2.5m", &ns) == 0 && ns == 150000000000ULL);
	CHECK(parse_time(".5", &ns) == 0 && ns == 500000000ULL);
	CHECK(parse_time("1.1234567891234s", &ns) == 0 && ns == 1123456789ULL);
	CHECK(parse_time("", &ns) == -EINVAL);
	CHECK(parse_time(".", &ns) == -EINVAL);
	CHECK(parse_time("1.", &ns) == -EINVAL);
	CHECK(parse_time("1.5q", &ns) == -EINVAL);
	CHECK(parse_time("-1", &ns) == -EINVAL);
	CHECK(parse_time("1,5", &ns) == -EINVAL);
	CHECK(parse_time("99999999999999999999", &ns) == -ERANGE);
	CHECK(parse_time("99999999999", &ns) == -ERANGE);
}

TEST(suggestions)
{
	static const char *const words[] = { "sched:sched_switch", "sched:sched_wakeup", "nop",
					     "print-parent" };

	CHECK(!strcmp(suggest_closest("sched:sched_swich", words, 4), "sched:sched_switch"));
	CHECK(!strcmp(suggest_closest("print-parnet", words, 4), "print-parent"));
	CHECK(suggest_closest("sched:sched_switch", words, 4) == NULL);	/* exact: no hint */
	CHECK(suggest_closest("zzzz", words, 4) == NULL);
	CHECK(suggest_closest("no", words, 4) == NULL);		/* too short to guess */
	CHECK(suggest_closest("x", words, 0) == NULL);
}

TEST(globs)
{
	CHECK(glob_match("sched_*", "sched_switch"));
	CHECK(!glob_match("sched_*", "irq_handler_entry"));
	CHECK(has_glob("a*") && has_glob("a?") && has_glob("[ab]") && !has_glob("abc"));
}

TEST(filters_enclosed)
{
	static const char *const good[] = {
		"", "pid > 0", "(pid > 0) || (pid < 0)", "((a == 1) && (b == 2)) || c == 3",
		"comm == \"a(b\"", "comm == 'x)'", "comm == \"it's\"", "comm == '\"'",
		"comm ~ \"*)*\" && (pid > 0)",
	};
	static const struct { const char *f, *why; } bad[] = {
		{ "1) || (1", "unbalanced parentheses" },
		{ "pid > 0) || (pid > 0", "unbalanced parentheses" },
		{ ")(", "unbalanced parentheses" },
		{ "(pid > 0", "unbalanced parentheses" },
		{ "pid > 0)", "unbalanced parentheses" },
		{ "((pid > 0)", "unbalanced parentheses" },
		{ "comm == \"a", "unclosed quote" },
		{ "comm == 'a\"", "unclosed quote" },
		/* No escapes, as the kernel: the quote ends at \", the rest is outside. */
		{ "comm == \"a\\\"b\"", "unclosed quote" },
		{ "comm == \"a\\\" ) || (pid > 0", "unbalanced parentheses" },
	};
	const char *why;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		why = NULL;
		CHECK(parse_filter_enclosed(good[i], &why) == 0);
		CHECK(!why);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		CHECK(parse_filter_enclosed(bad[i].f, &why) == -EINVAL);
		CHECK_STR(why, bad[i].why);
	}
}

UNIT_MAIN(T(numbers), T(signed_numbers), T(sizes), T(durations), T(cpu_lists), T(cpu_masks),
	  T(edit_distances), T(times), T(suggestions), T(globs),
	  T(filters_enclosed))
