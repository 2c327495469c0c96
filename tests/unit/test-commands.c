// SPDX-License-Identifier: GPL-2.0-or-later
/* The command table, typo suggestions and the tracefs value normalizer. */
#include <stdlib.h>

#include "cmd.h"
#include "tfs.h"
#include "unit.h"

TEST(table_is_sane)
{
	for (size_t i = 0; i < tr_ncommands; i++) {
		CHECK(tr_commands[i].name && tr_commands[i].fn && tr_commands[i].summary);
		CHECK(cmd_find(tr_commands[i].name) == &tr_commands[i]);
		for (size_t j = i + 1; j < tr_ncommands; j++)
			CHECK(strcmp(tr_commands[i].name, tr_commands[j].name));
	}
	CHECK(cmd_find("nosuch") == NULL);
}

TEST(ours_or_coreutils)
{
	CHECK(cmd_is_ours("stat"));
	CHECK(cmd_is_ours("--help"));
	CHECK(cmd_is_ours("--version"));
	CHECK(!cmd_is_ours("a-z"));
	CHECK(!cmd_is_ours("-d"));
	CHECK(!cmd_is_ours("--delete"));
	CHECK(!cmd_is_ours("--squeeze-repeats"));
}

TEST(suggestions)
{
	CHECK_STR(cmd_suggest("stta"), "stat");
	CHECK_STR(cmd_suggest("lsit"), "list");
	CHECK_STR(cmd_suggest("instnace"), "instance");
	CHECK_STR(cmd_suggest("--verison"), "--version");
	CHECK(cmd_suggest("a-z") == NULL);
	CHECK(cmd_suggest("abc") == NULL);
	CHECK(cmd_suggest("xyzzy") == NULL);
	CHECK(cmd_suggest("-d") == NULL);
}

TEST(normalize_values)
{
	CHECK_OWNED(tfs_normalize("trace_clock", "[local] global counter\n"), "local");
	CHECK_OWNED(tfs_normalize("trace_clock", "local [global]\n"), "global");
	CHECK_OWNED(tfs_normalize("x/buffer_size_kb", "7 (expanded: 1408)\n"), "1408");
	CHECK_OWNED(tfs_normalize("buffer_size_kb", "1408\n"), "1408");
	CHECK_OWNED(tfs_normalize("events/a/b/filter", "none\n"), "");
	CHECK_OWNED(tfs_normalize("events/a/b/filter", "0"), "");
	CHECK_OWNED(tfs_normalize("events/a/b/filter", "pid == 1\n"), "pid == 1");
	CHECK_OWNED(tfs_normalize("set_event_pid", "no pid\n"), "");
	CHECK_OWNED(tfs_normalize("set_event_pid", "12\n34\n"), "12 34");
	CHECK_OWNED(tfs_normalize("set_ftrace_filter", "#### all functions enabled ####\n"), "");
	CHECK_OWNED(tfs_normalize("tracing_on", "1\n"), "1");
	CHECK_OWNED(tfs_normalize("events/sched/sched_switch/enable", "0*\n"), "0");
	CHECK_OWNED(tfs_normalize("events/sched/sched_switch/enable", "1*\n"), "1");
}

TEST(trigger_removal)
{
	CHECK_OWNED(tfs_trigger_removal("traceoff:count=2"), "!traceoff");
	CHECK_OWNED(tfs_trigger_removal("traceon:unlimited"), "!traceon");
	CHECK_OWNED(tfs_trigger_removal("traceoff:3 if pid == 1"), "!traceoff");
	CHECK_OWNED(tfs_trigger_removal("enable_event:sched:sched_switch:5"),
		    "!enable_event:sched:sched_switch");
	CHECK_OWNED(tfs_trigger_removal("enable_event:sched:sched_wakeup:unlimited if prev_pid == 1"),
		    "!enable_event:sched:sched_wakeup");
	CHECK_OWNED(tfs_trigger_removal("stacktrace:count=5 if pid > 1"), "!stacktrace");
	CHECK_OWNED(tfs_trigger_removal("hist:keys=pid:vals=hitcount:sort=hitcount:size=2048 [active]"),
		    "!hist:keys=pid:vals=hitcount:sort=hitcount:size=2048");
	CHECK_OWNED(tfs_trigger_removal("hist:keys=pid:vals=hitcount:size=2048 if pid > 1 [paused]"),
		    "!hist:keys=pid:vals=hitcount:size=2048 if pid > 1");
}

UNIT_MAIN(T(table_is_sane), T(ours_or_coreutils), T(suggestions), T(normalize_values),
	  T(trigger_removal))
