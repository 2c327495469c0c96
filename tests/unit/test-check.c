// SPDX-License-Identifier: GPL-2.0-or-later
/* fmt_try_parse_formats: which event formats parse, fully or only their fields. */
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "fixtures.h"
#include "unit.h"

/* libtraceevent leaks what it had allocated for a format that fails to parse. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static const char good[] = "demo\nname: good\nID: 900\nformat:\n" FX_COMMON
			   "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n\n"
			   "print fmt: \"v=%d\", REC->v\n";
/* The fields parse; the print fmt calls a function libtraceevent does not know. */
static const char bad_print[] = "demo\nname: badprint\nID: 901\nformat:\n" FX_COMMON
				"\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n\n"
				"print fmt: \"v=%s\", __no_such_helper(REC->v, ((\n";
/* Not a format at all. */
static const char broken[] = "demo\nname: broken\nthis is not a format\n";

TEST(formats)
{
	struct strv f = { 0 };
	struct fmt_try_parse_opts o = { 0 };
	struct fmt_try_parse_result r;

	strv_push(&f, good);
	strv_push(&f, bad_print);
	strv_push(&f, broken);
	CHECK(fmt_try_parse_formats(&f, &o, &r) == 0);
	CHECK(r.total == 3);
	CHECK(r.bad.n == 2);
	CHECK(r.bad.n == 2 && !strncmp(r.bad.v[0], "demo:badprint: its print fmt does not parse", 43));
	CHECK(r.bad.n == 2 && !strncmp(r.bad.v[1], "demo:broken: the format does not parse", 38));
	fmt_try_parse_result_free(&r);

	strv_free(&f);
	strv_push(&f, good);
	CHECK(fmt_try_parse_formats(&f, &o, &r) == 0 && r.total == 1 && r.bad.n == 0);
	fmt_try_parse_result_free(&r);
	strv_free(&f);
}

UNIT_MAIN(T(formats))
