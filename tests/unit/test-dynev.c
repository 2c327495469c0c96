// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobe_profile and uprobe_profile as the kernel writes them
 * ("  %-44s %15lu %15lu" and "  %s %-44s %15lu"), read into counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dynev.h"
#include "unit.h"

TEST(profiles)
{
	struct dynev_hits *v = NULL;
	size_t n = 0;

	CHECK(!dynev_profile_parse("  trk                                          "
				   "             12               3\n"
				   "  r_vfs                                         "
				   "             0               0\n",
				   'k', &v, &n));
	CHECK(!dynev_profile_parse("  /usr/bin/true main                        "
				   "               7\n\n", 'u', &v, &n));
	CHECK(n == 3);
	CHECK(v[0].kind == 'k');
	CHECK_STR(v[0].event, "trk");
	CHECK(v[0].hits == 12 && v[0].missed == 3 && !v[0].file);
	CHECK_STR(v[1].event, "r_vfs");
	CHECK(v[1].hits == 0);
	CHECK(v[2].kind == 'u');
	CHECK_STR(v[2].event, "main");
	CHECK_STR(v[2].file, "/usr/bin/true");
	CHECK(v[2].hits == 7 && v[2].missed == 0);

	/* A line of neither shape is named, and what was read stays the caller's. */
	CHECK(dynev_profile_parse("  trk 12\n", 'k', &v, &n) == -EINVAL);
	CHECK(strstr(tr_failure(), "unexpected line in kprobe_profile: 'trk'"));
	CHECK(dynev_profile_parse("  trk twelve 0\n", 'k', &v, &n) == -EINVAL);
	CHECK(n == 3);
	dynev_profile_free(v, n);
}

UNIT_MAIN(T(profiles))
