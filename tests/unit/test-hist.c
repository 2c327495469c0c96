// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hist spec parser, the parser of the kernel's hist output (on real
 * output captured from a 6.12 kernel in tests/data/hist/, one file per
 * modifier), the renderer and the userspace aggregator's sorting.
 * Run from the top of the tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "hist.h"
#include "fixtures.h"
#include "unit.h"

TEST(field_modifiers)
{
	struct hist_field f;

	CHECK(!hist_field_parse("next_comm", true, false, &f));
	CHECK_STR(f.name, "next_comm");
	CHECK(f.mod == HIST_MOD_NONE);
	free(f.name);
	CHECK(!hist_field_parse("call_site.sym-offset", true, false, &f));
	CHECK(f.mod == HIST_MOD_SYM_OFFSET);
	CHECK_OWNED(hist_field_str(&f), "call_site.sym-offset");
	free(f.name);
	CHECK(!hist_field_parse("call_site.sym", true, false, &f));
	CHECK(f.mod == HIST_MOD_SYM);
	free(f.name);
	CHECK(!hist_field_parse("bytes_req.buckets=32", true, false, &f));
	CHECK(f.mod == HIST_MOD_BUCKETS && f.buckets == 32);
	CHECK_OWNED(hist_field_str(&f), "bytes_req.buckets=32");
	free(f.name);
	CHECK(!hist_field_parse("common_pid.execname", true, false, &f));
	CHECK(f.mod == HIST_MOD_EXECNAME);
	free(f.name);
	CHECK(!hist_field_parse("id.syscall", true, false, &f));
	CHECK(f.mod == HIST_MOD_SYSCALL);
	free(f.name);
	CHECK(!hist_field_parse("bytes_req.log2", true, false, &f));
	CHECK(f.mod == HIST_MOD_LOG2);
	free(f.name);
	CHECK(!hist_field_parse("next_pid.hex", true, false, &f));
	CHECK(f.mod == HIST_MOD_HEX);
	free(f.name);
	CHECK(!hist_field_parse("common_timestamp.usecs", true, false, &f));
	CHECK(f.mod == HIST_MOD_USECS);
	free(f.name);
	CHECK(!hist_field_parse("bytes_req.percent", false, false, &f));
	CHECK(f.mod == HIST_MOD_PERCENT);
	free(f.name);
	CHECK(!hist_field_parse("bytes_req.graph", false, false, &f));
	CHECK(f.mod == HIST_MOD_GRAPH);
	free(f.name);
	CHECK(!hist_field_parse("hitcount.descending", false, true, &f));
	CHECK(f.descending);
	free(f.name);
}

TEST(field_errors)
{
	struct hist_field f;

	CHECK(hist_field_parse("next_pid.nosuch", true, false, &f) == -EINVAL);
	CHECK(strstr(tr_failure(), "unknown modifier '.nosuch'"));
	CHECK(hist_field_parse("bytes.percent", true, false, &f) == -EINVAL);
	CHECK(strstr(tr_failure(), "applies to values only"));
	CHECK(hist_field_parse("bytes.log2", false, false, &f) == -EINVAL);
	CHECK(strstr(tr_failure(), "applies to keys only"));
	CHECK(hist_field_parse("b.buckets", true, false, &f) == -EINVAL);
	CHECK(hist_field_parse("b.buckets=0", true, false, &f) == -EINVAL);
	CHECK(hist_field_parse("b.buckets=1x", true, false, &f) == -EINVAL);
	CHECK(hist_field_parse("b.hexx", true, false, &f) == -EINVAL);
	CHECK(hist_field_parse("1abc", true, false, &f) == -EINVAL);
	CHECK(hist_field_parse("", true, false, &f) == -EINVAL);
	CHECK(hist_field_parse("a-b", true, false, &f) == -EINVAL);
	CHECK(hist_field_parse("x.upwards", false, true, &f) == -EINVAL);
}

TEST(spec_build_and_trigger)
{
	struct hist_spec s;

	CHECK(!hist_spec_build(&s, "kmem:kmalloc", "call_site.sym", "bytes_req,bytes_alloc",
			       "bytes_alloc.descending", "bytes_req > 100", 4096, NULL));
	CHECK_STR(s.system, "kmem");
	CHECK_STR(s.event, "kmalloc");
	CHECK(s.nkeys == 1 && s.nvals == 2 && s.nsort == 1);
	CHECK_OWNED(hist_spec_trigger(&s), "hist:keys=call_site.sym:vals=bytes_req,bytes_alloc:"
					   "sort=bytes_alloc.descending:size=4096 if bytes_req > 100");
	hist_spec_free(&s);

	CHECK(!hist_spec_build(&s, "sched/sched_switch", "prev_pid,next_pid", NULL, NULL, NULL, 0,
			       "shared"));
	CHECK_OWNED(hist_spec_trigger(&s), "hist:keys=prev_pid,next_pid:name=shared");
	hist_spec_free(&s);

	CHECK(!hist_spec_build(&s, "sched:sched_switch", "common_stacktrace", "hitcount", NULL,
			       NULL, 0, NULL));
	hist_spec_free(&s);
}

TEST(spec_build_errors)
{
	struct hist_spec s;

	CHECK(hist_spec_build(&s, "sched_switch", "x", NULL, NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "sched:*", "x", NULL, NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b:c", "x", NULL, NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", NULL, NULL, NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "x,,y", NULL, NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "hitcount", NULL, NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "x", "y", "z", NULL, 0, NULL) == -EINVAL);
	CHECK(strstr(tr_failure(), "sort key 'z'"));
	CHECK(hist_spec_build(&s, "a:b", "x", "y,y", NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "x", "common_stacktrace", NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "x.usecs", NULL, NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "x", NULL, NULL, NULL, 10, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "x", NULL, NULL, NULL, 1 << 18, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "a,b,c,d,e,f,g,h,i", NULL, NULL, NULL, 0, NULL) ==
	      -EINVAL);
	CHECK(strstr(tr_failure(), "too many"));
	/* Sorting by hitcount or a key is fine without naming it as a value. */
	CHECK(!hist_spec_build(&s, "a:b", "x", NULL, "x,hitcount.descending", NULL, 0, NULL));
	hist_spec_free(&s);
}

TEST(spec_from_trigger)
{
	struct hist_spec s;

	CHECK(!hist_spec_from_trigger("hist:keys=next_pid.hex:vals=hitcount,prev_pid:"
				      "sort=hitcount:size=2048 if next_pid != 0 [active]", &s));
	CHECK(s.nkeys == 1 && s.keys[0].mod == HIST_MOD_HEX);
	CHECK(s.nvals == 2);
	CHECK_STR(s.vals[1].name, "prev_pid");
	CHECK(s.size == 2048);
	CHECK_STR(s.filter, "next_pid != 0");
	hist_spec_free(&s);
	/* Variables and actions are not columns. */
	CHECK(!hist_spec_from_trigger("hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs:"
				      "sort=hitcount:size=2048:clock=global:name=x [paused]", &s));
	CHECK(s.nkeys == 1 && s.nvals == 1);
	CHECK_STR(s.name, "x");
	hist_spec_free(&s);
	CHECK(!hist_spec_from_trigger("hist:keys=bytes_req.buckets=32:vals=hitcount:"
				      "sort=bytes_req.buckets=32:size=2048 [active]", &s));
	hist_spec_free(&s);
	CHECK(hist_spec_from_trigger("traceon", &s) == -EINVAL);
}

static struct hist_result parsed;

/* Parse tests/data/hist/NAME.txt into parsed; 1 on success. */
static int load(const char *name)
{
	char *path = xasprintf("tests/data/hist/%s.txt", name), *text = NULL;
	size_t pos = 0, len;
	int r;

	memset(&parsed, 0, sizeof(parsed));
	if (read_file(path, &text, &len)) {
		printf("#   cannot read %s\n", path);
		free(path);
		return 0;
	}
	r = hist_output_parse(text, &pos, &parsed);
	if (r != 1)
		printf("#   %s: %s\n", path, tr_failure());
	free(text);
	free(path);
	return r;
}

static uint64_t sum_col(size_t c)
{
	uint64_t s = 0;

	for (size_t i = 0; i < parsed.nrows; i++)
		s += hist_cell(&parsed, i, c)->num;
	return s;
}

TEST(parse_plain)
{
	CHECK(load("plain") == 1);
	CHECK(parsed.ncols == 2 && parsed.nkeys == 1);
	CHECK(parsed.nrows == 12);
	CHECK(parsed.cols[0].kind == HIST_K_STR);
	CHECK_STR(hist_cell(&parsed, 0, 0)->text, "kworker/0:1");
	CHECK(hist_cell(&parsed, 0, 1)->num == 6);
	CHECK_STR(hist_cell(&parsed, 11, 0)->text, "swapper/1");
	CHECK(parsed.has_totals && parsed.hits == 2249 && parsed.entries == 12 &&
	      parsed.dropped == 0);
	CHECK(sum_col(1) == parsed.hits);
	hist_result_free(&parsed);
}

TEST(parse_hex)
{
	CHECK(load("hex") == 1);
	CHECK(parsed.cols[0].kind == HIST_K_HEX);
	CHECK(hist_cell(&parsed, 0, 0)->num == 0x1e);
	CHECK(parsed.ncols == 3);
	CHECK_STR(parsed.cols[2].name, "prev_pid");
	CHECK(sum_col(1) == parsed.hits);
	CHECK(hist_cell(&parsed, parsed.nrows - 1, 2)->num == 92528);
	hist_result_free(&parsed);
}

TEST(parse_sym)
{
	CHECK(load("sym") == 1);
	CHECK(parsed.cols[0].kind == HIST_K_SYM);
	CHECK(hist_cell(&parsed, 0, 0)->num == 0xffffffff811e9865ULL);
	CHECK_STR(hist_cell(&parsed, 0, 0)->text, "netfs_folioq_alloc");
	CHECK(sum_col(1) == parsed.hits);
	/* Two call sites in load_elf_binary: the table tells them apart. */
	CHECK_OWNED(hist_cell_text(&parsed.cols[0], hist_cell(&parsed, 8, 0)),
		    "[ffffffff811c6e28] load_elf_binary");
	CHECK_OWNED(hist_cell_text(&parsed.cols[0], hist_cell(&parsed, 10, 0)),
		    "[ffffffff811c6ece] load_elf_binary");
	hist_result_free(&parsed);
	CHECK(load("symoff") == 1);
	CHECK_STR(hist_cell(&parsed, 0, 0)->text, "p9_fcall_init+0x44/0x6f");
	CHECK_OWNED(hist_cell_text(&parsed.cols[0], hist_cell(&parsed, 0, 0)),
		    "p9_fcall_init+0x44/0x6f");
	CHECK(hist_cell(&parsed, 0, 3)->num == 4644896);
	CHECK(parsed.ncols == 4);
	hist_result_free(&parsed);
}

TEST(parse_execname_syscall)
{
	CHECK(load("execname") == 1);
	CHECK(parsed.cols[0].kind == HIST_K_TASK);
	CHECK_STR(hist_cell(&parsed, 0, 0)->text, "migration/0");
	CHECK(hist_cell(&parsed, 0, 0)->num == 19);
	CHECK(sum_col(1) == parsed.hits);
	hist_result_free(&parsed);
	CHECK(load("syscall") == 1);
	CHECK(parsed.cols[0].kind == HIST_K_SYSCALL);
	CHECK_STR(hist_cell(&parsed, 0, 0)->text, "sys_clock_nanosleep");
	CHECK(hist_cell(&parsed, 0, 0)->num == 230);
	CHECK(hist_cell(&parsed, 2, 0)->num == 8);
	hist_result_free(&parsed);
}

TEST(parse_log2_buckets)
{
	CHECK(load("log2") == 1);
	CHECK(parsed.cols[0].kind == HIST_K_RANGE);
	CHECK(hist_cell(&parsed, 0, 0)->num == 256 && hist_cell(&parsed, 0, 0)->num2 == 8);
	CHECK(sum_col(1) == parsed.hits);
	hist_result_free(&parsed);
	CHECK(load("buckets") == 1);
	CHECK(hist_cell(&parsed, 1, 0)->num == 32 && hist_cell(&parsed, 1, 0)->num2 == 63);
	CHECK(hist_cell(&parsed, 0, 0)->num == 0 && hist_cell(&parsed, 0, 0)->num2 == 31);
	hist_result_free(&parsed);
}

TEST(parse_special_fields)
{
	CHECK(load("usecs") == 1);
	CHECK(parsed.cols[0].kind == HIST_K_NUM);
	CHECK(hist_cell(&parsed, 0, 0)->num == 41175808);
	CHECK(parsed.nrows == 20);
	hist_result_free(&parsed);
	CHECK(load("cpu") == 1);
	CHECK(parsed.nrows == 2 && sum_col(1) == parsed.hits);
	hist_result_free(&parsed);
	CHECK(load("multikey") == 1);
	CHECK(parsed.nkeys == 2);
	CHECK(hist_cell(&parsed, 0, 0)->num == 16 && hist_cell(&parsed, 0, 1)->num == 0);
	CHECK(hist_cell(&parsed, 0, 2)->num == 149);
	CHECK(sum_col(2) == parsed.hits);
	hist_result_free(&parsed);
	CHECK(load("string") == 1);
	CHECK_STR(hist_cell(&parsed, 0, 0)->text, "/usr/bin/sleep");
	hist_result_free(&parsed);
	CHECK(load("filter") == 1);
	CHECK(strstr(parsed.trigger, "if next_pid != 0"));
	CHECK(sum_col(1) == parsed.hits);
	hist_result_free(&parsed);
	CHECK(load("nokeyhit") == 1);
	CHECK(parsed.nrows == 1 && hist_cell(&parsed, 0, 2)->num == 346786);
	hist_result_free(&parsed);
}

TEST(parse_stacktrace)
{
	const char *t;

	CHECK(load("stacktrace") == 1);
	CHECK(parsed.cols[0].kind == HIST_K_STACK);
	CHECK(parsed.nrows == 5);
	t = hist_cell(&parsed, 0, 0)->text;
	CHECK(t && !strncmp(t, "__schedule+0x3bb/0x53c\nschedule+0x36/0x51\n", 41));
	CHECK(hist_cell(&parsed, 0, 1)->num == 1);
	CHECK(parsed.hits == 2128 && parsed.entries == 97);
	hist_result_free(&parsed);
	CHECK(load("stacktrace_old") == 1);
	hist_result_free(&parsed);
}

/* A stack-valued field of a synthetic event: "{ stack.stacktrace   frame...\n, lat: ~ 2^10}". */
TEST(parse_stack_field)
{
	const char *t;

	CHECK(load("stackfield") == 1);
	CHECK(parsed.nkeys == 2 && parsed.cols[0].kind == HIST_K_STACK);
	CHECK(parsed.cols[0].mod == HIST_MOD_STACKTRACE);
	CHECK_STR(parsed.cols[0].name, "stack");
	CHECK(parsed.nrows == 28 && parsed.hits == 161 && parsed.entries == 28);
	t = hist_cell(&parsed, 0, 0)->text;
	CHECK(t && !strncmp(t, "__schedule+0x3bb/0x53c\nschedule_idle+0x26/0x30\n", 46));
	CHECK(hist_cell(&parsed, 0, 1)->num == 1024);
	hist_result_free(&parsed);
}

/* onchange().save(): a "\tchanged:" line under each entry; the table reads as without. */
TEST(parse_onchange)
{
	CHECK(load("onchange") == 1);
	CHECK(parsed.nrows == 5 && parsed.hits == 5);
	CHECK(hist_cell(&parsed, 0, 0)->num == 83 && hist_cell(&parsed, 0, 1)->num == 1);
	hist_result_free(&parsed);
}

TEST(spec_vars_actions)
{
	struct hist_spec s;

	/* NAME=EXPR among the values is a variable; "x.buckets=N" is not. */
	CHECK(!hist_spec_build(&s, "sched:sched_switch", "next_pid",
			       "lat=common_timestamp.usecs-$ts0,prev_prio,st=prev_state", NULL, NULL,
			       0, NULL));
	CHECK(s.nvals == 1 && s.nvars == 2);
	CHECK_STR(s.vars[0], "lat=common_timestamp.usecs-$ts0");
	CHECK(!hist_spec_add_action(&s, "onmatch(sched.sched_waking).trace(wl,$lat,next_pid)"));
	CHECK(!hist_spec_add_action(&s, "onchange($st).save(prev_comm,prev_pid)"));
	CHECK(!hist_spec_add_action(&s, "onmax($lat).snapshot()"));
	CHECK(!hist_spec_add_action(&s, "onmatch(sched.sched_waking).wl($lat,next_pid)"));
	CHECK_OWNED(hist_spec_trigger(&s),
		    "hist:keys=next_pid:vals=prev_prio:lat=common_timestamp.usecs-$ts0:"
		    "st=prev_state:sort=hitcount.descending:"
		    "onmatch(sched.sched_waking).trace(wl,$lat,next_pid):"
		    "onchange($st).save(prev_comm,prev_pid):onmax($lat).snapshot():"
		    "onmatch(sched.sched_waking).wl($lat,next_pid)");
	hist_spec_free(&s);

	/* Only variables: hitcount is the value. */
	CHECK(!hist_spec_build(&s, "a:b", "x", "y=z", NULL, NULL, 0, NULL));
	CHECK(s.nvals == 0 && s.nvars == 1);
	CHECK_OWNED(hist_spec_trigger(&s), "hist:keys=x:y=z:sort=hitcount.descending");
	CHECK(hist_spec_add_action(&s, "onchange(x).save(y)") == -EINVAL);
	CHECK(strstr(tr_failure(), "tracks a $variable"));
	CHECK(hist_spec_add_action(&s, "onmatch(b).trace(s,$y)") == -EINVAL);
	CHECK(hist_spec_add_action(&s, "onmax($y)") == -EINVAL);
	CHECK(hist_spec_add_action(&s, "onmax($y).save(a") == -EINVAL);
	CHECK(hist_spec_add_action(&s, "onmax($y).wl(a)") == -EINVAL);
	CHECK(hist_spec_add_action(&s, "onfoo($y).save(a)") == -EINVAL);
	CHECK(hist_spec_add_action(&s, "onmax($y).save(a) if x") == -EINVAL);
	CHECK(hist_spec_add_action(&s, "onmax($y).save(a):x") == -EINVAL);
	hist_spec_free(&s);

	CHECK(hist_spec_build(&s, "a:b", "x", "y=z,y=w", NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(strstr(tr_failure(), "defined twice"));
	CHECK(hist_spec_build(&s, "a:b", "x", "y=", NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "x", "y=a b", NULL, NULL, 0, NULL) == -EINVAL);
	CHECK(hist_spec_build(&s, "a:b", "x", "y=a:b", NULL, NULL, 0, NULL) == -EINVAL);

	/* .stacktrace is a key modifier. */
	CHECK(!hist_spec_build(&s, "synthetic:wl", "stack.stacktrace,lat.log2", NULL, NULL, NULL, 0,
			       NULL));
	CHECK(s.keys[0].mod == HIST_MOD_STACKTRACE);
	CHECK_OWNED(hist_spec_trigger(&s),
		    "hist:keys=stack.stacktrace,lat.log2:sort=hitcount.descending");
	hist_spec_free(&s);
	CHECK(hist_spec_build(&s, "a:b", "x", "y.stacktrace", NULL, NULL, 0, NULL) == -EINVAL);
}

TEST(parse_percent_graph)
{
	CHECK(load("percent") == 1);
	CHECK(parsed.cols[2].kind == HIST_K_PERCENT && parsed.cols[3].kind == HIST_K_PERCENT);
	CHECK(hist_cell(&parsed, parsed.nrows - 1, 2)->pct > 96.37 &&
	      hist_cell(&parsed, parsed.nrows - 1, 2)->pct < 96.39);
	/* Read while active: the totals and the rows were not taken at one instant. */
	hist_result_free(&parsed);
	CHECK(load("graph") == 1);
	CHECK(parsed.cols[2].kind == HIST_K_GRAPH);
	CHECK(hist_cell(&parsed, 0, 2)->num == 0);
	CHECK(hist_cell(&parsed, 0, 3)->num == 512);
	CHECK(hist_cell(&parsed, parsed.nrows - 1, 2)->num == 20);
	CHECK(hist_cell(&parsed, parsed.nrows - 1, 3)->num == 4644896);
	hist_result_free(&parsed);
}

TEST(parse_several_sections)
{
	const char *text =
		"# event histogram\n#\n# trigger info: hist:keys=a:vals=hitcount:sort=hitcount:"
		"size=2048 [active]\n#\n\n{ a:          1 } hitcount:          2\n\nTotals:\n"
		"    Hits: 2\n    Entries: 1\n    Dropped: 0\n\n"
		"# event histogram\n#\n# trigger info: hist:keys=b:vals=hitcount:sort=hitcount:"
		"size=2048 [paused]\n#\n\n{ b: x, y: z } hitcount:          5\n\nTotals:\n"
		"    Hits: 7\n    Entries: 1\n    Dropped: 3\n";
	struct hist_result r;
	size_t pos = 0;

	CHECK(hist_output_parse(text, &pos, &r) == 1);
	CHECK_STR(r.cols[0].name, "a");
	CHECK(r.nrows == 1 && r.hits == 2);
	hist_result_free(&r);
	CHECK(hist_output_parse(text, &pos, &r) == 1);
	CHECK_STR(r.cols[0].name, "b");
	/* A string key holding ", y: " stays whole. */
	CHECK_STR(hist_cell(&r, 0, 0)->text, "x, y: z");
	CHECK(r.dropped == 3);
	hist_result_free(&r);
	CHECK(hist_output_parse(text, &pos, &r) == 0);
	pos = 0;
	CHECK(hist_output_parse("# trigger info: hist:keys=a [active]\n{ b: 1 } hitcount: 1\n",
				&pos, &r) == -EINVAL);
	CHECK(strstr(tr_failure(), "line 2"));
}

TEST(parse_cpu_key_and_pick_ours)
{
	/*
	 * 7.3's trigger info shows a common_cpu key twice over; the rows once.
	 * Two triggers on one event: ours is the one with our keys, values and
	 * filter.
	 */
	const char *text =
		"# event histogram\n#\n# trigger info: hist:keys=id:vals=hitcount:sort=hitcount."
		"descending:size=2048 if ret < 0 [active]\n#\n\n{ id:          3 } hitcount:"
		"          4\n\nTotals:\n    Hits: 4\n    Entries: 1\n    Dropped: 0\n\n"
		"# event histogram\n#\n# trigger info: hist:keys=common_cpucommon_cpu:vals=hitcount"
		":sort=hitcount.descending:size=2048 [active]\n#\n\n{ common_cpu:          1 } "
		"hitcount:       1484\n{ common_cpu:          0 } hitcount:        678\n\nTotals:\n"
		"    Hits: 2162\n    Entries: 2\n    Dropped: 0\n";
	struct hist_spec cpu, err, other;
	struct hist_result r;

	CHECK(!hist_spec_build(&cpu, "sched:sched_switch", "common_cpu", NULL, NULL, NULL, 0, NULL));
	CHECK(!hist_spec_build(&err, "raw_syscalls:sys_exit", "id", NULL, NULL, "ret < 0", 0, NULL));
	CHECK(!hist_spec_build(&other, "raw_syscalls:sys_exit", "id", "ret", NULL, NULL, 0, NULL));
	CHECK(!hist_kernel_ours(text, &cpu, &r));
	CHECK_STR(r.cols[0].name, "common_cpu");
	CHECK(r.nrows == 2 && hist_cell(&r, 0, 1)->num == 1484 && hist_cell(&r, 1, 0)->num == 0);
	hist_result_free(&r);
	CHECK(!hist_kernel_ours(text, &err, &r));
	CHECK(r.nrows == 1 && hist_cell(&r, 0, 0)->num == 3 && hist_cell(&r, 0, 1)->num == 4);
	hist_result_free(&r);
	/* Same keys, another value and no filter: not in the file. */
	CHECK(hist_kernel_ours(text, &other, &r) == -ENOENT);
	hist_spec_free(&cpu);
	hist_spec_free(&err);
	hist_spec_free(&other);
}

TEST(parse_latency_max)
{
	/* The end event's hist of a latency set-up: onmax() lines follow the entries. */
	CHECK(load("lat_end") == 1);
	CHECK(parsed.nkeys == 1);
	CHECK(parsed.has_max && parsed.max == 15899);
	CHECK_STR(parsed.max_saved, "next_comm: kworker/u8:2  prev_pid: 85  prev_comm: cat");
	CHECK(hist_cell(&parsed, 0, 1)->num == 4);
	hist_result_free(&parsed);
	CHECK(load("lat_synth") == 1);
	CHECK(parsed.cols[0].kind == HIST_K_RANGE && parsed.nrows == 10);
	CHECK(hist_cell(&parsed, 0, 0)->num2 == 5 && hist_cell(&parsed, 0, 1)->num == 5);
	CHECK(sum_col(1) == parsed.hits);
	hist_result_free(&parsed);
}

/* onmax().snapshot(): no max per entry; the one after the entries (as the 6.12 guest printed it). */
TEST(parse_snapshot_max)
{
	static const char text[] =
		"# event histogram\n#\n# trigger info: hist:keys=common_pid:vals=hitcount:p=pid:"
		"sort=hitcount:size=2048:onmax($p).snapshot() [active]\n#\n\n"
		"{ common_pid:        255 } hitcount:          1\n"
		"{ common_pid:        261 } hitcount:          1\n\n"
		"Snapshot taken (see tracing/snapshot).  Details:\n"
		"\ttriggering value { onmax($p) }:        261\ttriggered by event with key: "
		"{ common_pid:        261 }\n\n"
		"Totals:\n    Hits: 2\n    Entries: 2\n    Dropped: 0\n";
	struct hist_result r;
	size_t pos = 0;

	CHECK(hist_output_parse(text, &pos, &r) == 1);
	CHECK(r.nrows == 2 && r.hits == 2);
	CHECK(r.has_max && r.max == 261 && !r.max_saved);
	hist_result_free(&r);
}

TEST(latency_keys)
{
	CHECK_OWNED(hist_latency_keys(NULL), "lat.log2");
	CHECK_OWNED(hist_latency_keys("next_comm"), "lat.log2,next_comm");
	CHECK_OWNED(hist_latency_keys("lat.buckets=10,next_comm"), "lat.buckets=10,next_comm");
}

struct sw {
	unsigned short type;
	unsigned char flags, preempt;
	int pid;
	char prev_comm[16];
	int prev_pid, prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid, next_prio;
};

/* Run n switches to task i % 3 (comm "t<i%3>", pid 100 + i % 3, prio i) through a spec. */
static int user_run(struct tep_handle *tep, const char *keys, const char *vals, const char *sort,
		    const char *filter, uint64_t size, int n, struct hist_result *r)
{
	struct hist_spec s;
	struct hist_user *u;

	if (hist_spec_build(&s, "sched:sched_switch", keys, vals, sort, filter, size, NULL) ||
	    hist_user_new(tep, &s, &u)) {
		printf("#   %s\n", tr_failure());
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct sw e = { .type = 372, .pid = 7, .next_pid = 100 + i % 3, .next_prio = i,
				.prev_pid = i };
		struct tfile_event ev = { .ts = 1000ULL * i, .data = &e, .size = sizeof(e),
					  .cpu = i & 1 };

		snprintf(e.next_comm, sizeof(e.next_comm), "t%d", i % 3);
		hist_user_event(u, &ev);
	}
	hist_user_result(u, r);
	hist_user_free(u);
	hist_spec_free(&s);
	return 0;
}

TEST(user_engine)
{
	struct tep_handle *tep = fx_tep("sched", fx_sched_switch, NULL);
	struct hist_result r;

	CHECK(tep);
	if (!tep)
		return;

	/* String key, sum of a value, sorted by the value descending. */
	CHECK(!user_run(tep, "next_comm", "next_prio", "next_prio.descending", NULL, 0, 9, &r));
	CHECK(r.nrows == 3 && r.hits == 9 && r.entries == 3 && r.dropped == 0);
	CHECK(r.cols[0].kind == HIST_K_STR);
	CHECK_STR(hist_cell(&r, 0, 0)->text, "t2");	/* 2+5+8 = 15 */
	CHECK(hist_cell(&r, 0, 1)->num == 3 && hist_cell(&r, 0, 2)->num == 15);
	CHECK_STR(hist_cell(&r, 2, 0)->text, "t0");	/* 0+3+6 = 9 */
	hist_result_free(&r);

	/* log2 and buckets as the kernel makes them; common_cpu. */
	CHECK(!user_run(tep, "next_prio.log2", NULL, "next_prio", NULL, 0, 9, &r));
	/* 0,1 -> 2^0; 2 -> 2^1; 3,4 -> 2^2; 5..8 -> 2^3 */
	CHECK(r.nrows == 4);
	CHECK(hist_cell(&r, 0, 0)->num2 == 0 && hist_cell(&r, 0, 1)->num == 2);
	CHECK(hist_cell(&r, 3, 0)->num2 == 3 && hist_cell(&r, 3, 1)->num == 4);
	hist_result_free(&r);
	CHECK(!user_run(tep, "next_prio.buckets=5,common_cpu", NULL, "next_prio,common_cpu", NULL, 0,
			10, &r));
	CHECK(r.nrows == 4);
	CHECK(hist_cell(&r, 0, 0)->num == 0 && hist_cell(&r, 0, 0)->num2 == 4);
	CHECK(hist_cell(&r, 0, 2)->num == 3 && hist_cell(&r, 1, 2)->num == 2);
	hist_result_free(&r);

	/* A filter (libtraceevent's), and a table that is full. */
	CHECK(!user_run(tep, "next_pid", NULL, NULL, "next_pid != 101", 0, 30, &r));
	CHECK(r.nrows == 2 && r.hits == 20);
	hist_result_free(&r);
	CHECK(!user_run(tep, "prev_pid", NULL, NULL, NULL, 100, 300, &r));
	CHECK(r.entries == 128 && r.dropped == 300 - 128 && r.hits == 300);
	hist_result_free(&r);

	/* Events the ring buffer lost are not "Dropped" (a full table): the footer says which. */
	{
		struct hist_spec ls;
		struct hist_user *lu;
		struct hist_render_opts o = { .kind = HIST_OUT_TABLE };
		char *txt = NULL;
		size_t tlen = 0;
		FILE *f;

		CHECK(!hist_spec_build(&ls, "sched:sched_switch", "next_pid", NULL, NULL, NULL, 0,
				       NULL));
		CHECK(!hist_user_new(tep, &ls, &lu));
		hist_user_lost(lu, 5);
		hist_user_result(lu, &r);
		CHECK(r.lost == 5 && r.dropped == 0);
		f = open_memstream(&txt, &tlen);
		CHECK(!hist_render(f, &r, &o));
		fclose(f);
		CHECK(strstr(txt, "Dropped: 0\n") && strstr(txt, "Lost 5 events: the ring buffer"));
		CHECK(!strstr(txt, "raise --size"));
		free(txt);
		hist_result_free(&r);
		hist_user_free(lu);
		hist_spec_free(&ls);
	}

	/* .percent of the column total; hex key. */
	CHECK(!user_run(tep, "next_pid.hex", "next_prio.percent", "next_pid", NULL, 0, 3, &r));
	CHECK(r.cols[0].kind == HIST_K_HEX && hist_cell(&r, 0, 0)->num == 100);
	CHECK(hist_cell(&r, 2, 2)->pct > 66.6 && hist_cell(&r, 2, 2)->pct < 66.7);
	hist_result_free(&r);

	/* What it cannot do says why. */
	struct hist_spec s;
	struct hist_user *u;

	CHECK(!hist_spec_build(&s, "sched:sched_switch", "common_stacktrace", NULL, NULL, NULL, 0,
			       NULL));
	CHECK(hist_user_new(tep, &s, &u) == -ENOTSUP);
	hist_spec_free(&s);
	CHECK(!hist_spec_build(&s, "sched:sched_switch", "nosuch", NULL, NULL, NULL, 0, NULL));
	CHECK(hist_user_new(tep, &s, &u) == -ENOENT);
	hist_spec_free(&s);
	CHECK(!hist_spec_build(&s, "sched:sched_switch", "next_pid", "next_comm", NULL, NULL, 0, NULL));
	CHECK(hist_user_new(tep, &s, &u) == -EINVAL);
	hist_spec_free(&s);

	/* Variables over the event's own fields change no column: the same table. */
	CHECK(!user_run(tep, "next_pid", "x=next_prio*2,t=common_timestamp.usecs,next_prio",
			"next_pid", NULL, 0, 3, &r));
	CHECK(r.nrows == 3 && hist_cell(&r, 2, 2)->num == 2);
	hist_result_free(&r);
	/* A $reference, an action, a stack field: named as what it cannot do. */
	CHECK(!hist_spec_build(&s, "sched:sched_switch", "next_pid", "lat=common_timestamp-$ts0",
			       NULL, NULL, 0, NULL));
	CHECK(hist_user_new(tep, &s, &u) == -ENOTSUP);
	CHECK(strstr(tr_failure(), "cannot read '$ts0'"));
	hist_spec_free(&s);
	CHECK(!hist_spec_build(&s, "sched:sched_switch", "next_pid", "y=nosuch", NULL, NULL, 0,
			       NULL));
	CHECK(hist_user_new(tep, &s, &u) == -ENOENT);
	hist_spec_free(&s);
	CHECK(!hist_spec_build(&s, "sched:sched_switch", "next_pid", "st=prev_state", NULL, NULL, 0,
			       NULL));
	CHECK(!hist_spec_add_action(&s, "onchange($st).save(prev_comm)"));
	CHECK(hist_user_new(tep, &s, &u) == -ENOTSUP);
	CHECK(strstr(tr_failure(), "cannot run actions ('onchange($st).save(prev_comm)')"));
	hist_spec_free(&s);
	CHECK(!hist_spec_build(&s, "sched:sched_switch", "next_pid.stacktrace", NULL, NULL, NULL, 0,
			       NULL));
	CHECK(hist_user_new(tep, &s, &u) == -ENOTSUP);
	CHECK(strstr(tr_failure(), ".stacktrace' needs the kernel engine"));
	hist_spec_free(&s);
	tep_free(tep);
}

static char *render_to_string(const struct hist_result *r, enum hist_out kind, bool bars)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct hist_render_opts o = { .kind = kind, .bars = bars, .width = 10 };

	hist_render(f, r, &o);
	fclose(f);
	return buf;
}

TEST(render_table_json_csv)
{
	char *s;

	CHECK(load("multikey") == 1);
	s = render_to_string(&parsed, HIST_OUT_TABLE, true);
	CHECK(!strncmp(s, "prev_pid  next_pid  hitcount\n", 29));
	CHECK(strstr(s, "\n      16         0       149  |##########\n"));
	CHECK(strstr(s, "Totals:  Hits: 1542  Entries: 82  Dropped: 0\n") || strstr(s, "Totals:"));
	free(s);
	s = render_to_string(&parsed, HIST_OUT_JSON, false);
	CHECK(strstr(s, "{\"prev_pid\":16,\"next_pid\":0,\"hitcount\":149}"));
	CHECK(strstr(s, "\"totals\":{\"hits\":"));
	free(s);
	s = render_to_string(&parsed, HIST_OUT_CSV, false);
	CHECK(!strncmp(s, "prev_pid,next_pid,hitcount\n16,0,149\n", 36));
	free(s);
	hist_result_free(&parsed);

	CHECK(load("execname") == 1);
	s = render_to_string(&parsed, HIST_OUT_JSON, false);
	CHECK(strstr(s, "{\"common_pid\":19,\"common_pid_comm\":\"migration/0\",\"hitcount\":1}"));
	free(s);
	s = render_to_string(&parsed, HIST_OUT_TABLE, false);
	CHECK(strstr(s, "migration/0 [19]"));
	free(s);
	hist_result_free(&parsed);

	CHECK(load("stacktrace") == 1);
	s = render_to_string(&parsed, HIST_OUT_TABLE, false);
	CHECK(strstr(s, "__schedule+0x3bb/0x53c  "));
	CHECK(strstr(s, "\nschedule+0x36/0x51\n"));
	free(s);
	s = render_to_string(&parsed, HIST_OUT_CSV, false);
	CHECK(strstr(s, "__schedule+0x3bb/0x53c;schedule+0x36/0x51;"));
	free(s);
	s = render_to_string(&parsed, HIST_OUT_JSON, false);
	CHECK(strstr(s, "\"common_stacktrace\":[\"__schedule+0x3bb/0x53c\",\"schedule+0x36/0x51\","));
	free(s);
	hist_result_free(&parsed);

	CHECK(load("log2") == 1);
	s = render_to_string(&parsed, HIST_OUT_CSV, false);
	CHECK(!strncmp(s, "bytes_req_log2,bytes_req_max,hitcount\n8,256,1\n", 46));
	free(s);
	hist_result_free(&parsed);
}

TEST(render_dropped_advice)
{
	struct hist_spec s;
	struct hist_result r;
	char *out;

	CHECK(!hist_spec_build(&s, "a:b", "x", NULL, NULL, NULL, 0, NULL));
	hist_result_init(&r, &s);
	r.has_totals = true;
	r.hits = 10;
	r.entries = 1;
	r.dropped = 4;
	hist_cell(&r, hist_result_add_row(&r), 1)->num = 6;
	out = render_to_string(&r, HIST_OUT_TABLE, false);
	CHECK(strstr(out, "Dropped: 4"));
	CHECK(strstr(out, "raise --size"));
	free(out);
	hist_result_free(&r);
	hist_spec_free(&s);
}

TEST(result_sort)
{
	struct hist_spec s;
	struct hist_result r;
	static const uint64_t k[] = { 5, 1, 3, 2 }, h[] = { 1, 9, 9, 4 };

	CHECK(!hist_spec_build(&s, "a:b", "x", NULL, "hitcount.descending,x", NULL, 0, NULL));
	hist_result_init(&r, &s);
	for (size_t i = 0; i < 4; i++) {
		size_t row = hist_result_add_row(&r);

		hist_cell(&r, row, 0)->num = k[i];
		hist_cell(&r, row, 1)->num = h[i];
	}
	hist_result_sort(&r, &s);
	CHECK(hist_cell(&r, 0, 0)->num == 1 && hist_cell(&r, 1, 0)->num == 3);
	CHECK(hist_cell(&r, 2, 0)->num == 2 && hist_cell(&r, 3, 0)->num == 5);
	hist_result_free(&r);
	hist_spec_free(&s);
}

/* --define: one trigger per other event, its variables in order, keyed as told or as -k. */
TEST(spec_defines)
{
	struct strv d = { 0 }, k = { 0 };
	struct hist_spec *v;
	size_t n;

	strv_push(&d, "sched:sched_waking:waking_pid=pid");
	strv_push(&d, "sched/sched_waking:ts0=common_timestamp.usecs");
	strv_push(&d, "sched:sched_process_exec:p=pid");
	strv_push(&k, "sched:sched_waking=pid");
	CHECK(!hist_spec_defines(&d, &k, "common_pid", &v, &n));
	CHECK(n == 2);
	CHECK_OWNED(hist_spec_trigger(&v[0]),
		    "hist:keys=pid:waking_pid=pid:ts0=common_timestamp.usecs");
	CHECK_STR(v[1].system, "sched");
	CHECK_STR(v[1].event, "sched_process_exec");
	CHECK_OWNED(hist_spec_trigger(&v[1]), "hist:keys=common_pid:p=pid");
	for (size_t i = 0; i < n; i++)
		hist_spec_free(&v[i]);
	free(v);

	/* Without -k, an event without --define-keys has no key to go by. */
	CHECK(hist_spec_defines(&d, &k, NULL, &v, &n) == -EINVAL);
	CHECK(strstr(tr_failure(), "--define-keys sched:sched_process_exec=FIELD"));
	CHECK(!v && !n);
	strv_free(&d);
	strv_free(&k);

	strv_push(&d, "ts0=common_timestamp");
	CHECK(hist_spec_defines(&d, &k, "pid", &v, &n) == -EINVAL);
	CHECK(strstr(tr_failure(), "bad --define 'ts0=common_timestamp'"));
	strv_free(&d);
	strv_push(&d, "a:b:x=y:z");
	CHECK(hist_spec_defines(&d, &k, "pid", &v, &n) == -EINVAL);
	strv_free(&d);
	strv_push(&d, "a:b:x=y");
	strv_push(&d, "a:b:x=z");
	CHECK(hist_spec_defines(&d, &k, "pid", &v, &n) == -EINVAL);
	CHECK(strstr(tr_failure(), "'x' defined twice"));
	strv_free(&d);
	strv_push(&d, "a:b:x=y");
	strv_push(&k, "a:c=pid");
	CHECK(hist_spec_defines(&d, &k, "pid", &v, &n) == -EINVAL);
	CHECK(strstr(tr_failure(), "'a:c=pid' names an event no --define has"));
	strv_free(&k);
	strv_push(&k, "a:b");
	CHECK(hist_spec_defines(&d, &k, "pid", &v, &n) == -EINVAL);
	CHECK(strstr(tr_failure(), "bad --define-keys 'a:b'"));
	strv_free(&k);
	strv_push(&k, "a:b=x");
	strv_push(&k, "a/b=y");
	CHECK(hist_spec_defines(&d, &k, "pid", &v, &n) == -EINVAL);
	CHECK(strstr(tr_failure(), "given twice"));
	strv_free(&k);
	strv_free(&d);
}

UNIT_MAIN(T(field_modifiers), T(field_errors), T(spec_build_and_trigger), T(spec_build_errors),
	  T(spec_from_trigger), T(parse_plain), T(parse_hex), T(parse_sym),
	  T(parse_execname_syscall), T(parse_log2_buckets), T(parse_special_fields),
	  T(parse_stacktrace), T(parse_stack_field), T(parse_onchange), T(spec_vars_actions),
	  T(parse_percent_graph), T(parse_several_sections), T(parse_cpu_key_and_pick_ours),
	  T(parse_latency_max), T(latency_keys), T(user_engine), T(render_table_json_csv),
	  T(render_dropped_advice), T(result_sort), T(spec_defines),
	  T(parse_snapshot_max))
