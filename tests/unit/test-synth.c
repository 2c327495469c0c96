// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The synthetic event definition check (tr synth add): what is tr's to
 * refuse before the kernel sees it, and what is left to the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "unit.h"

TEST(definitions)
{
	char *line;

	CHECK(!synth_def("wakelat", "u64 lat; pid_t pid", &line));
	CHECK_OWNED(line, "wakelat u64 lat; pid_t pid");
	/* Arrays either way, dynamic strings and stacks: the kernel judges the types. */
	CHECK(!synth_def("s", "u64 x; pid_t pid; ", &line));
	CHECK_OWNED(line, "s u64 x; pid_t pid; ");
	CHECK(!synth_def("s", "char comm[16]; char[] name; unsigned long[] stack", &line));
	CHECK_OWNED(line, "s char comm[16]; char[] name; unsigned long[] stack");
	CHECK(!synth_def("s", "nosuchtype x", &line));
	free(line);
}

TEST(refusals)
{
	char *line;

	CHECK(synth_def("1x", "u64 a", &line) == -EINVAL && !line);
	CHECK(strstr(tr_failure(), "bad synthetic event name '1x'"));
	CHECK(synth_def("a/b", "u64 a", &line) == -EINVAL);
	CHECK(synth_def("x", "", &line) == -EINVAL);
	CHECK(strstr(tr_failure(), "needs fields"));
	CHECK(synth_def("x", "u64", &line) == -EINVAL);
	CHECK(strstr(tr_failure(), "field 'u64' in 'u64' needs a type and a name"));
	CHECK(synth_def("x", "u64 a;; u64 b", &line) == -EINVAL);
	CHECK(strstr(tr_failure(), "empty field"));
	CHECK(synth_def("x", "u64 a-b", &line) == -EINVAL);
	CHECK(strstr(tr_failure(), "bad field name 'a-b'"));
	CHECK(synth_def("x", "char s[16", &line) == -EINVAL);
}

UNIT_MAIN(T(definitions), T(refusals))
