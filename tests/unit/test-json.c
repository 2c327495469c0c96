// SPDX-License-Identifier: GPL-2.0-or-later
/* The one JSON string writer: quotes, control bytes, UTF-8 and bytes that are not. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "unit.h"

static char *esc(const char *p, size_t n)
{
	char *d = malloc(JSON_ESCAPED_MAX(n) + 1);
	size_t len = json_escape(d, p, n);

	CHECK(len <= JSON_ESCAPED_MAX(n));
	d[len] = '\0';
	return d;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1)

TEST(plain_and_quotes)
{
	CHECK_OWNED(ESC("sched"), "\"sched\"");
	CHECK_OWNED(ESC(""), "\"\"");
	CHECK_OWNED(ESC("a\"b\\c"), "\"a\\\"b\\\\c\"");
	CHECK_OWNED(ESC("a/b"), "\"a/b\"");
}

TEST(control_bytes)
{
	CHECK_OWNED(ESC("\n\t\r\b\f"), "\"\\n\\t\\r\\b\\f\"");
	CHECK_OWNED(ESC("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
	/* A NUL inside the given length is a character like any other. */
	CHECK_OWNED(ESC("a\0b"), "\"a\\u0000b\"");
}

TEST(utf8_passes_through)
{
	CHECK_OWNED(ESC("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
	CHECK_OWNED(ESC("\xe2\x82\xac"), "\"\xe2\x82\xac\"");
	CHECK_OWNED(ESC("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");
}

TEST(invalid_utf8_is_escaped)
{
	/* A stray continuation byte, a truncated sequence, an overlong '/', a surrogate. */
	CHECK_OWNED(ESC("\x80"), "\"\\u0080\"");
	CHECK_OWNED(ESC("\xc3"), "\"\\u00c3\"");
	CHECK_OWNED(ESC("\xe2\x82"), "\"\\u00e2\\u0082\"");
	CHECK_OWNED(ESC("\xc0\xaf"), "\"\\u00c0\\u00af\"");
	CHECK_OWNED(ESC("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");
	CHECK_OWNED(ESC("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"");
	CHECK_OWNED(ESC("\xff"), "\"\\u00ff\"");
}

TEST(worst_case_fits)
{
	char in[64], *out;

	memset(in, 1, sizeof(in));
	out = esc(in, sizeof(in));
	CHECK(strlen(out) == JSON_ESCAPED_MAX(sizeof(in)));
	free(out);
}

UNIT_MAIN(T(plain_and_quotes), T(control_bytes), T(utf8_passes_through), T(invalid_utf8_is_escaped),
	  T(worst_case_fits))
