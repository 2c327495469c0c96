/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A very small unit-test harness: TEST(name) { CHECK(...); } and a main that
 * runs them all and prints "unit FILE: N passed, N failed".  Each TEST is one
 * counted test; a failing CHECK prints where and goes on, so one run shows
 * every broken expectation.
 */
#ifndef TR_UNIT_H
#define TR_UNIT_H

#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

static int unit_failed_checks;

#define CHECK(cond)                                                                       \
	do {                                                                              \
		if (!(cond)) {                                                            \
			printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);   \
			unit_failed_checks++;                                             \
		}                                                                         \
	} while (0)

#define CHECK_STR(a, b)                                                                     \
	do {                                                                                \
		const char *a_ = (a), *b_ = (b);                                            \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                         \
			printf("#   %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__,             \
			       a_ ? a_ : "(null)", b_ ? b_ : "(null)");                     \
			unit_failed_checks++;                                               \
		}                                                                           \
	} while (0)

/* Compare a malloc'ed result and free it. */
#define CHECK_OWNED(expr, expect)                  \
	do {                                       \
		char *o_ = (expr);                 \
		CHECK_STR(o_, expect);             \
		free(o_);                          \
	} while (0)

#define TEST(name) static void name(void)

static int unit_run(const char *file, const struct unit_test *t, size_t n)
{
	int passed = 0, failed = 0;

	for (size_t i = 0; i < n; i++) {
		int before = unit_failed_checks;

		t[i].fn();
		if (unit_failed_checks == before) {
			printf("ok %zu - %s: %s\n", i + 1, file, t[i].name);
			passed++;
		} else {
			printf("not ok %zu - %s: %s\n", i + 1, file, t[i].name);
			failed++;
		}
	}
	printf("unit %s: %d passed, %d failed, 0 skipped\n", file, passed, failed);
	return failed ? 1 : 0;
}

#define UNIT_MAIN(...)                                                                    \
	int main(void)                                                                    \
	{                                                                                 \
		static const struct unit_test tests_[] = { __VA_ARGS__ };                 \
		return unit_run(__FILE__, tests_, sizeof(tests_) / sizeof(tests_[0]));    \
	}
#define T(fn) { #fn, fn }

#endif
