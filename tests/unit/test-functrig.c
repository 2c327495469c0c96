// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * set_ftrace_filter entries and commands as tr checks them before the
 * kernel sees them: everything the kernel takes must pass (the forms of
 * Documentation/trace/ftrace.rst), and what it cannot take is named.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trigger.h"
#include "unit.h"

static const char funcs[] = "vfs_read\nvfs_write\nvfs_open\nschedule\n"
			    "ext4_sync_file [ext4]\ntcp_v4_rcv.cold\n";

TEST(filter_entries)
{
	/* Globs, negation, modules (loaded or not: the kernel keeps those). */
	CHECK(!trig_func_filter_check(funcs, "vfs_read"));
	CHECK(!trig_func_filter_check(funcs, "vfs_*"));
	CHECK(!trig_func_filter_check(funcs, "*_sync_*"));
	CHECK(!trig_func_filter_check(funcs, "tcp_v4_rcv.cold"));
	CHECK(!trig_func_filter_check(funcs, "!vfs_write"));
	CHECK(!trig_func_filter_check(funcs, "!vfs_w*"));
	CHECK(!trig_func_filter_check(funcs, "*:mod:ext4"));
	CHECK(!trig_func_filter_check(funcs, ":mod:9p"));
	CHECK(!trig_func_filter_check(funcs, "!*:mod:ext4"));
	CHECK(!trig_func_filter_check(funcs, "!:mod:9p"));
	CHECK(!trig_func_filter_check(funcs, "*:mod:!ext4"));
	CHECK(!trig_func_filter_check(funcs, "ext4_*:mod:ext*"));

	CHECK(trig_func_filter_check(funcs, "nosuch") == -ENOENT);
	CHECK(strstr(tr_failure(), "no function matches 'nosuch'"));
	CHECK(trig_func_filter_check(funcs, "!nosuch") == -ENOENT);
	CHECK(trig_func_filter_check(funcs, "") == -EINVAL);
	CHECK(trig_func_filter_check(funcs, "!") == -EINVAL);
	CHECK(trig_func_filter_check(funcs, "vfs read") == -EINVAL);
	CHECK(trig_func_filter_check(funcs, "*:mod:") == -EINVAL);
	CHECK(strstr(tr_failure(), "bad module"));
}

TEST(index_entries)
{
	/* All digits: line N of available_filter_functions, from 1 (the kernel's index form). */
	CHECK(!trig_func_filter_check(funcs, "1"));
	CHECK(!trig_func_filter_check(funcs, "6"));
	CHECK(!trig_func_filter_check(funcs, "!3"));
	CHECK(trig_func_filter_check(funcs, "0") == -ENOENT);
	CHECK(strstr(tr_failure(), "no function number 0: available_filter_functions has 6"));
	CHECK(trig_func_filter_check(funcs, "7") == -ENOENT);
	CHECK(trig_func_filter_check(funcs, "99999999999999999999999") == -ENOENT);
	CHECK(trig_func_filter_check("", "1") == -ENOENT);

	/* The graph files take names: the index as the name at that line. */
	CHECK_OWNED(trig_func_by_index(funcs, "1"), "vfs_read");
	CHECK_OWNED(trig_func_by_index(funcs, "5"), "ext4_sync_file");
	CHECK_OWNED(trig_func_by_index(funcs, "!6"), "!tcp_v4_rcv.cold");
	CHECK(!trig_func_by_index(funcs, "0"));
	CHECK(!trig_func_by_index(funcs, "7"));
	CHECK(!trig_func_by_index(funcs, "vfs_read"));
	CHECK(!trig_func_by_index(funcs, "1x"));
	CHECK(!trig_func_by_index(funcs, ""));
}

TEST(commands)
{
	struct ftrig f;

	CHECK(trig_func_is_command("vfs_read:dump"));
	CHECK(!trig_func_is_command("vfs_*:mod:ext4"));
	CHECK(!trig_func_is_command("!vfs_read"));

	CHECK(!trig_func_parse("vfs_read:enable_event:sched:sched_switch:2", &f));
	CHECK_STR(f.func, "vfs_read");
	CHECK_STR(f.target, "sched:sched_switch");
	CHECK(f.count == 2);
	CHECK_OWNED(trig_func_text(&f), "vfs_read:enable_event:sched:sched_switch:2");
	CHECK_OWNED(trig_func_removal(&f), "!vfs_read:enable_event:sched:sched_switch:0");
	trig_func_free(&f);

	CHECK(!trig_func_parse("vfs_*:disable_event:sched:sched_switch", &f));
	CHECK(f.count == -1);
	CHECK_OWNED(trig_func_removal(&f), "!vfs_*:disable_event:sched:sched_switch");
	trig_func_free(&f);

	CHECK(!trig_func_parse("vfs_read:dump", &f));
	CHECK_OWNED(trig_func_removal(&f), "!vfs_read:dump");
	trig_func_free(&f);
	CHECK(!trig_func_parse("vfs_read:cpudump", &f));
	trig_func_free(&f);
	CHECK(!trig_func_parse("schedule:traceoff:5", &f));
	CHECK_OWNED(trig_func_removal(&f), "!schedule:traceoff:0");
	trig_func_free(&f);

	/* As set_ftrace_filter lists them, so list's output goes back to del. */
	CHECK(!trig_func_parse("vfs_read:traceoff:count=3", &f));
	CHECK(f.count == 3);
	trig_func_free(&f);
	CHECK(!trig_func_parse("vfs_read:enable_event:sched:sched_switch:unlimited", &f));
	CHECK(f.count == -1);
	trig_func_free(&f);

	CHECK(trig_func_parse("vfs_read", &f) == -EINVAL);
	CHECK(trig_func_parse("vfs_read:nosuch", &f) == -EINVAL);
	CHECK(strstr(tr_failure(), "unknown function command 'nosuch'"));
	CHECK(trig_func_parse("vfs_read:enable_event:sched", &f) == -EINVAL);
	CHECK(strstr(tr_failure(), "needs SYSTEM:EVENT"));
	CHECK(trig_func_parse("vfs_read:traceoff:x", &f) == -EINVAL);
	CHECK(trig_func_parse("vfs_read:traceoff:1:2", &f) == -EINVAL);
	CHECK(trig_func_parse("!vfs_read:dump", &f) == -EINVAL);
	CHECK(trig_func_parse(":dump", &f) == -EINVAL);
	CHECK(trig_func_parse("vfs_read:hist", &f) == -EINVAL);
}

UNIT_MAIN(T(filter_entries), T(index_entries), T(commands))
