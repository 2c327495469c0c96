// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function_graph printer on records made here: leaf and nested calls,
 * the duration column and its marks, a call whose exit is not in the buffer
 * (and an exit whose entry is not), a change of task, CPUs interleaved,
 * comments at the right depth and the irq markers.  The expected text is
 * laid out as the kernel's trace file shows it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "fmt-graph.h"
#include "unit.h"

static bool name_of(void *ctx, uint64_t addr, char *buf, size_t n)
{
	static const char *names[] = { "", "ksys_read", "vfs_read", "rw_verify_area",
				       "do_IRQ", "schedule", "ext4_file_read_iter" };

	(void)ctx;
	if (addr >= sizeof(names) / sizeof(names[0]) || !addr)
		return false;
	snprintf(buf, n, "%s", names[addr]);
	return true;
}

static const char *comm_of(void *ctx, int pid)
{
	(void)ctx;
	return pid == 77 ? "cat" : pid == 78 ? "a-very-long-name" : "<...>";
}

static const struct fmt_graph_env env = { .func_name = name_of, .comm = comm_of, .irq_lo = 4,
					   .irq_hi = 5 };

#define ENT(c, p, fn, d) { .kind = FG_ENTRY, .cpu = c, .pid = p, .func = fn, .depth = d }
#define EXIT(c, p, fn, d, ns) \
	{ .kind = FG_EXIT, .cpu = c, .pid = p, .func = fn, .depth = d, .calltime = 1000, \
	  .rettime = 1000 + (ns) }
#define OTHER(c, p, t) { .kind = FG_OTHER, .cpu = c, .pid = p, .text = t, .text_len = sizeof(t) - 1 }

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Print recs (in time order) as a report does: an entry is shown with the
 * next record of its CPU, which is skipped when it was the leaf's exit.
 */
static char *run_opts(const struct fmt_graph_rec *recs, size_t n, int ncpus, const char *prefix,
		      const char *opts)
{
	struct fmt_graph_opts o;
	struct fmt_graph *g;
	struct fmt_line out = { 0 };
	bool *done = calloc(n, sizeof(*done));

	fmt_graph_opts_default(&o);
	CHECK(fmt_graph_opts_apply(&o, opts, true, NULL, 0) == 0);
	g = fmt_graph_new(ncpus, &o);
	for (size_t i = 0; i < n; i++) {
		const struct fmt_graph_rec *next = NULL;
		size_t k;

		if (done[i])
			continue;
		for (k = i + 1; k < n; k++)
			if (!done[k] && recs[k].cpu == recs[i].cpu) {
				next = &recs[k];
				break;
			}
		if (fmt_graph_put(g, &env, prefix, &recs[i], next, &out))
			done[k] = true;
	}
	fmt_line_grow(&out, 1);
	out.p[out.len] = '\0';
	fmt_graph_free(g);
	free(done);
	return out.p;
}

static char *run(const struct fmt_graph_rec *recs, size_t n, int ncpus, const char *prefix)
{
	return run_opts(recs, n, ncpus, prefix, NULL);
}

TEST(leaf_and_nested)
{
	static const struct fmt_graph_rec r[] = {
		ENT(1, 77, 1, 0), ENT(1, 77, 2, 1), EXIT(1, 77, 2, 1, 194251),
		EXIT(1, 77, 1, 0, 1205698), ENT(1, 77, 2, 0), EXIT(1, 77, 2, 0, 8615),
	};

	CHECK_OWNED(run(r, N(r), 2, ""),
		    " 1)               |  ksys_read() {\n"
		    " 1) ! 194.251 us  |    vfs_read();\n"
		    " 1) # 1205.698 us |  }\n"
		    " 1)   8.615 us    |  vfs_read();\n");
}

TEST(duration_marks_and_widths)
{
	CHECK(fmt_graph_mark(10000) == ' ');
	CHECK(fmt_graph_mark(10001) == '+');
	CHECK(fmt_graph_mark(100001) == '!');
	CHECK(fmt_graph_mark(1000001) == '#');
	CHECK(fmt_graph_mark(10000001) == '*');
	CHECK(fmt_graph_mark(100000001) == '@');
	CHECK(fmt_graph_mark(1000000001) == '$');
	{
		static const struct fmt_graph_rec r[] = {
			ENT(0, 77, 2, 0), EXIT(0, 77, 2, 0, 16644),
			ENT(0, 77, 2, 0), EXIT(0, 77, 2, 0, 12345678),
			ENT(0, 77, 2, 0), EXIT(0, 77, 2, 0, 123456789),
			ENT(0, 77, 2, 0), EXIT(0, 77, 2, 0, 2500000000ULL),
			ENT(0, 77, 2, 0), EXIT(0, 77, 2, 0, 12345678901ULL),
		};

		/* 7 digits of microseconds: no decimals; more: the column is wider. */
		CHECK_OWNED(run(r, N(r), 1, ""),
			    " 0) + 16.644 us   |  vfs_read();\n"
			    " 0) * 12345.67 us |  vfs_read();\n"
			    " 0) @ 123456.7 us |  vfs_read();\n"
			    " 0) $ 2500000 us  |  vfs_read();\n"
			    " 0) $ 12345678 us |  vfs_read();\n");
	}
}

TEST(missing_exit_and_entry)
{
	/* The buffer starts inside vfs_read and ends inside ksys_read. */
	static const struct fmt_graph_rec r[] = {
		EXIT(0, 77, 2, 1, 5000), ENT(0, 77, 1, 0), ENT(0, 77, 3, 1),
	};

	CHECK_OWNED(run(r, N(r), 2, ""),
		    " 0)   5.000 us    |    } /* vfs_read */\n"
		    " 0)               |  ksys_read() {\n"
		    " 0)               |    rw_verify_area() {\n");
}

TEST(task_switch_and_interleaved_cpus)
{
	/*
	 * CPU 1's leaf is split by CPU 0's records in time order: the look-ahead
	 * is per CPU, so it still prints as one line where its entry is.
	 */
	static const struct fmt_graph_rec r[] = {
		ENT(1, 77, 2, 0), ENT(0, 78, 1, 0), EXIT(1, 77, 2, 0, 3000),
		ENT(0, 78, 3, 1), EXIT(0, 78, 3, 1, 2000), EXIT(0, 78, 1, 0, 20000),
		ENT(0, 77, 2, 0), EXIT(0, 77, 2, 0, 1000),
	};

	CHECK_OWNED(run(r, N(r), 12, "inst: "),
		    "inst:   1)   3.000 us    |  vfs_read();\n"
		    "inst:   0)               |  ksys_read() {\n"
		    "inst:   0)   2.000 us    |    rw_verify_area();\n"
		    "inst:   0) + 20.000 us   |  }\n"
		    "inst:  ------------------------------------------\n"
		    "inst:   0)   a-very--78   =>     cat-77    \n"
		    "inst:  ------------------------------------------\n"
		    "\n"
		    "inst:   0)   1.000 us    |  vfs_read();\n");
}

TEST(comments_at_depth)
{
	static const struct fmt_graph_rec r[] = {
		OTHER(0, 77, "before"),
		ENT(0, 77, 1, 0),
		OTHER(0, 77, "sched_switch: prev_pid=77"),
		ENT(0, 77, 2, 1),
		OTHER(0, 77, "in vfs_read"),
		ENT(0, 77, 3, 2), EXIT(0, 77, 3, 2, 1000),
		OTHER(0, 77, "after a leaf"),
		EXIT(0, 77, 2, 1, 2000),
		EXIT(0, 77, 1, 0, 3000),
		OTHER(0, 77, "at the top"),
	};

	CHECK_OWNED(run(r, N(r), 2, ""),
		    " 0)               |  /* before */\n"
		    " 0)               |  ksys_read() {\n"
		    " 0)               |  /* sched_switch: prev_pid=77 */\n"
		    " 0)               |    vfs_read() {\n"
		    " 0)               |      /* in vfs_read */\n"
		    " 0)   1.000 us    |      rw_verify_area();\n"
		    " 0)               |      /* after a leaf */\n"
		    " 0)   2.000 us    |    }\n"
		    " 0)   3.000 us    |  }\n"
		    " 0)               |  /* at the top */\n");
}

TEST(leaf_only_for_same_task_and_function)
{
	/* The next record is another task's exit, or lost events came before it. */
	static const struct fmt_graph_rec r[] = {
		ENT(0, 77, 2, 0), EXIT(0, 79, 2, 0, 1000),
	};
	struct fmt_graph_rec lost[] = { ENT(0, 77, 2, 0), EXIT(0, 77, 2, 0, 1000) };

	lost[1].missed = true;
	CHECK_OWNED(run(r, N(r), 1, ""),
		    " 0)               |  vfs_read() {\n"
		    " ------------------------------------------\n"
		    " 0)     cat-77     =>    <...>-79   \n"
		    " ------------------------------------------\n"
		    "\n"
		    " 0)   1.000 us    |  }\n");
	CHECK_OWNED(run(lost, N(lost), 1, ""),
		    " 0)               |  vfs_read() {\n"
		    " 0)   1.000 us    |  }\n");
}

TEST(irq_markers_and_unknown_symbols)
{
	static const struct fmt_graph_rec r[] = {
		ENT(0, 77, 4, 0), ENT(0, 77, 99, 1), EXIT(0, 77, 99, 1, 1000),
		EXIT(0, 77, 4, 0, 50000),
	};

	CHECK_OWNED(run(r, N(r), 1, ""),
		    " 0)   ==========> |\n"
		    " 0)               |  do_IRQ() {\n"
		    " 0)   1.000 us    |    0x63();\n"
		    " 0) + 50.000 us   |  }\n"
		    " 0)   <========== |\n");
}

/*
 * A file's depth may be any 32-bit value (the field is a u32, read into an
 * int): records at depth D (an entry, a nested one at D + 1 with a comment
 * inside, a leaf, a comment and the exits) for each of depths, under opts.
 */
static char *run_depths(const uint32_t *depths, size_t n, const char *opts)
{
	struct fmt_graph_rec *r = calloc(n * 8, sizeof(*r));
	char *out;

	for (size_t i = 0; i < n; i++) {
		int d = (int)depths[i], d1 = (int)(depths[i] + 1u);
		const struct fmt_graph_rec set[8] = {
			ENT(0, 77, 1, d), ENT(0, 77, 2, d1), OTHER(0, 77, "in vfs_read"),
			EXIT(0, 77, 2, d1, 1000), ENT(0, 77, 3, d1), EXIT(0, 77, 3, d1, 500),
			OTHER(0, 77, "after the leaf"), EXIT(0, 77, 1, d, 3000),
		};

		memcpy(r + i * 8, set, sizeof(set));
	}
	out = run_opts(r, n * 8, 1, "", opts);
	free(r);
	return out;
}

/*
 * The kernel's text of run_depths()'s records for one depth, each of its
 * seven lines indented by lv[i] levels; close is the last line's brace.
 */
static char *depths_text(const int lv[7], const char *close)
{
	static const char *const cols[7][2] = {
		{ "               ", "ksys_read() {" }, { "               ", "vfs_read() {" },
		{ "               ", "/* in vfs_read */" }, { "   1.000 us    ", "}" },
		{ "   0.500 us    ", "rw_verify_area();" }, { "               ", "/* after the leaf */" },
		{ "   3.000 us    ", NULL },
	};
	struct fmt_line out = { 0 };

	for (int i = 0; i < 7; i++)
		fmt_line_printf(&out, " 0)%s|  %*s%s\n", cols[i][0], lv[i] * 2, "",
				cols[i][1] ? cols[i][1] : close);
	fmt_line_grow(&out, 1);
	out.p[out.len] = '\0';
	return out.p;
}

/* The longest line of s. */
static size_t longest_line(const char *s)
{
	size_t max = 0;

	for (const char *nl; *s; s = nl + 1) {
		nl = strchrnul(s, '\n');
		if ((size_t)(nl - s) > max)
			max = nl - s;
		if (!*nl)
			break;
	}
	return max;
}

/*
 * Whatever the depth, the printer's arithmetic stays in range (the unit
 * tests run under UBSan: INT_MAX * 2 was a signed overflow) and a line's
 * indentation is at most 1024 levels (a depth of 2^30 was 2 GB of blanks);
 * the depths a kernel writes print as before.
 */
TEST(hostile_depths)
{
	static const uint32_t extreme[] = { 0x7fffffff, 0xffffffff, 0x80000000, 0x7ffffffe,
					    0x3fffffff, 0x40000000, 0xfffffffe, 0, 1, 1023,
					    1024, 1025 };
	static const uint32_t alternating[] = { 0, 0x7fffffff, 1, 0xffffffff, 0, 0x80000000,
						2, 0x3fffffff, 3 };
	static const char *opts[] = { "", "noirqs,proc,abstime", "tail,retval,overrun,noduration" };
	char *a, *b;

	for (size_t o = 0; o < N(opts); o++) {
		a = run_depths(extreme, N(extreme), opts[o]);
		CHECK(strlen(a) < N(extreme) * 8 * 2200);
		CHECK(longest_line(a) < 2 * 1024 + 200);
		free(a);
		a = run_depths(alternating, N(alternating), opts[o]);
		CHECK(strlen(a) < N(alternating) * 8 * 2200);
		CHECK(longest_line(a) < 2 * 1024 + 200);
		free(a);
	}

	/*
	 * Past 1024 levels a line is indented as at 1024: INT_MAX - 1's lines
	 * are 1024's; a comment inside the nested
	 * call goes one level further in (2050 blanks), one after it at the
	 * leaf's level: the longest line.
	 */
	a = run_depths((const uint32_t[]){ 1024 }, 1, "");
	b = run_depths((const uint32_t[]){ 0x7ffffffe }, 1, "");
	CHECK_STR(a, b);
	CHECK(longest_line(a) ==
	      strlen(" 0)               |  ") + 2 * 1024 + strlen("/* after the leaf */"));
	free(a);
	free(b);

	/* A negative depth (a u32 past INT_MAX) is the top level. */
	a = run_depths((const uint32_t[]){ 0xffffffff }, 1, "");
	b = depths_text((const int[]){ 0, 0, 0, 0, 0, 0, 0 }, "} /* ksys_read */");
	CHECK_STR(a, b);
	free(a);
	free(b);

	/* A kernel's depths print as they always did. */
	a = run_depths((const uint32_t[]){ 1 }, 1, "");
	b = depths_text((const int[]){ 1, 2, 3, 2, 2, 2, 1 }, "}");
	CHECK_STR(a, b);
	free(a);
	free(b);
}

/* The options' words as trace_options and --graph-opt spell them. */
TEST(option_words)
{
	struct fmt_graph_opts o;
	char bad[16] = "";

	fmt_graph_opts_default(&o);
	CHECK(o.cpu && o.overhead && o.duration && o.irqs);
	CHECK(!o.proc && !o.abstime && !o.tail && !o.retval && !o.retval_hex && !o.overrun);
	CHECK(fmt_graph_opts_apply(&o, "funcgraph-proc\nnofuncgraph-cpu\nfuncgraph-args\n", false,
				   NULL, 0) == 0);
	CHECK(o.proc && !o.cpu);
	CHECK(fmt_graph_opts_apply(&o, "abstime, noproc,retval-hex", true, bad, sizeof(bad)) == 0);
	CHECK(o.abstime && !o.proc && o.retval_hex);
	CHECK(fmt_graph_opts_apply(&o, "tail,sleep-time,cpu", true, bad, sizeof(bad)) == -EINVAL);
	CHECK_STR(bad, "sleep-time");
	CHECK(o.tail);
	CHECK(fmt_graph_opts_apply(&o, "nofuncgraph-", true, bad, sizeof(bad)) == -EINVAL);
	CHECK_STR(bad, "nofuncgraph-");
}

static const struct fmt_graph_rec call[] = {
	{ .kind = FG_ENTRY, .cpu = 1, .pid = 77, .func = 1, .depth = 0, .ts = 512345678901ULL },
	{ .kind = FG_ENTRY, .cpu = 1, .pid = 77, .func = 2, .depth = 1, .ts = 512345679000ULL },
	{ .kind = FG_EXIT, .cpu = 1, .pid = 77, .func = 2, .depth = 1, .calltime = 1000,
	  .rettime = 1000 + 194251, .ts = 512345873251ULL, .retval = 0xfffffff2,
	  .has_retval = true, .overrun = 3 },
	{ .kind = FG_EXIT, .cpu = 1, .pid = 77, .func = 1, .depth = 0, .calltime = 1000,
	  .rettime = 1000 + 1205698, .ts = 513551376000ULL, .retval = 4096, .has_retval = true },
	{ .kind = FG_OTHER, .cpu = 1, .pid = 77, .text = "mark", .text_len = 4,
	  .ts = 514000000000ULL },
};

TEST(columns_abstime_proc_nocpu)
{
	CHECK_OWNED(run_opts(call, N(call), 2, "", "abstime,proc"),
		    "  512.345678 |   1)     cat-77     |               |  ksys_read() {\n"
		    "  512.345679 |   1)     cat-77     | ! 194.251 us  |    vfs_read();\n"
		    "  513.551376 |   1)     cat-77     | # 1205.698 us |  }\n"
		    "  514.000000 |   1)     cat-77     |               |  /* mark */\n");
	CHECK_OWNED(run_opts(call, N(call), 2, "i: ", "nocpu"),
		    "i:               |  ksys_read() {\n"
		    "i: ! 194.251 us  |    vfs_read();\n"
		    "i: # 1205.698 us |  }\n"
		    "i:               |  /* mark */\n");
}

TEST(nooverhead_and_noduration)
{
	CHECK_OWNED(run_opts(call, N(call), 2, "", "nooverhead"),
		    " 1)               |  ksys_read() {\n"
		    " 1)   194.251 us  |    vfs_read();\n"
		    " 1)   1205.698 us |  }\n"
		    " 1)               |  /* mark */\n");
	CHECK_OWNED(run_opts(call, N(call), 2, "", "noduration"),
		    " 1) ksys_read() {\n"
		    " 1)   vfs_read();\n"
		    " 1) }\n"
		    " 1) /* mark */\n");
}

TEST(tail_retval_overrun)
{
	/* Nested, so that each exit prints its brace. */
	static const struct fmt_graph_rec r[] = {
		{ .kind = FG_ENTRY, .cpu = 0, .pid = 77, .func = 1, .depth = 0 },
		{ .kind = FG_ENTRY, .cpu = 0, .pid = 77, .func = 2, .depth = 1 },
		{ .kind = FG_OTHER, .cpu = 0, .pid = 77, .text = "x", .text_len = 1 },
		{ .kind = FG_EXIT, .cpu = 0, .pid = 77, .func = 2, .depth = 1, .calltime = 0,
		  .rettime = 2000, .retval = 0xfffffff2, .has_retval = true, .overrun = 3 },
		{ .kind = FG_EXIT, .cpu = 0, .pid = 77, .func = 1, .depth = 0, .calltime = 0,
		  .rettime = 3000, .retval = 4096, .has_retval = true },
	};

	CHECK_OWNED(run_opts(r, N(r), 1, "", "tail"),
		    " 0)               |  ksys_read() {\n"
		    " 0)               |    vfs_read() {\n"
		    " 0)               |      /* x */\n"
		    " 0)   2.000 us    |    } /* vfs_read */\n"
		    " 0)   3.000 us    |  } /* ksys_read */\n");
	/* -14 as an int is an error code: decimal; 4096 is not: hex. */
	CHECK_OWNED(run_opts(r, N(r), 1, "", "retval,overrun"),
		    " 0)               |  ksys_read() {\n"
		    " 0)               |    vfs_read() {\n"
		    " 0)               |      /* x */\n"
		    " 0)   2.000 us    |    } /* vfs_read = -14 */\n"
		    " (Overruns: 3)\n"
		    " 0)   3.000 us    |  } /* ksys_read = 0x1000 */\n"
		    " (Overruns: 0)\n");
	CHECK_OWNED(run_opts(r + 1, 1, 1, "", "retval,retval-hex"),
		    " 0)               |    vfs_read() {\n");
	/* A leaf: the value after the call; retval-hex keeps errors in hex. */
	CHECK_OWNED(run_opts(call + 1, 2, 2, "", "retval"),
		    " 1) ! 194.251 us  |    vfs_read(); /* = -14 */\n");
	CHECK_OWNED(run_opts(call + 1, 2, 2, "", "retval,retval-hex"),
		    " 1) ! 194.251 us  |    vfs_read(); /* = 0xfffffff2 */\n");
	/* A kernel without funcgraph_exit's retval: nothing to show. */
	{
		struct fmt_graph_rec nr[] = { call[1], call[2] };

		nr[1].has_retval = false;
		CHECK_OWNED(run_opts(nr, 2, 2, "", "retval"),
			    " 1) ! 194.251 us  |    vfs_read();\n");
	}
}

TEST(noirqs_leaves_handlers_out)
{
	/* do_IRQ (4) is in the irq text: it and what it calls go, with their markers. */
	static const struct fmt_graph_rec r[] = {
		ENT(0, 77, 1, 0),
		ENT(0, 77, 4, 1), ENT(0, 77, 2, 2), EXIT(0, 77, 2, 2, 1000), ENT(0, 77, 3, 2),
		EXIT(0, 77, 3, 2, 1000), EXIT(0, 77, 4, 1, 50000),
		ENT(0, 77, 4, 1), EXIT(0, 77, 4, 1, 2000),
		EXIT(0, 77, 1, 0, 60000),
	};

	CHECK_OWNED(run_opts(r, N(r), 1, "", "noirqs"),
		    " 0)               |  ksys_read() {\n"
		    " 0) + 60.000 us   |  }\n");
	CHECK_OWNED(run_opts(r + 7, 2, 1, "", "abstime,proc,noduration"),
		    "    0.000000 |   0)     cat-77     | ==========>\n"
		    "    0.000000 |   0)     cat-77     |   do_IRQ();\n"
		    "    0.000000 |   0)     cat-77     | <==========\n");
}

static bool args_of(void *ctx, uint64_t func, const uint64_t *args, int nargs, char *buf,
		    size_t n)
{
	(void)ctx;
	(void)nargs;
	if (func != 2)
		return false;
	snprintf(buf, n, "file=0x%llx, count=%lld", (unsigned long long)args[0],
		 (long long)args[1]);
	return true;
}

static bool sym_off_of(void *ctx, uint64_t addr, char *buf, size_t n)
{
	(void)ctx;
	if (addr < 0x100 || addr >= 0x200)
		return false;
	snprintf(buf, n, "ksys_read+0x%llx/0x100", (unsigned long long)(addr - 0x100));
	return true;
}

/*
 * 6.13+: print_graph_entry_leaf() and print_graph_retval() put the caller
 * and the value in one comment after the leaf ("<-ksys_read+0x1c/0x100
 * ret=-14"), print_graph_entry_nested() the caller after
 * the brace; the arguments (print_function_args()) go in the parentheses.
 */
TEST(retaddr_args_ret)
{
	static const struct fmt_graph_env aenv = { .func_name = name_of, .sym_off = sym_off_of,
						   .args_text = args_of, .comm = comm_of };
	struct fmt_graph_rec r[] = {
		{ .kind = FG_ENTRY, .cpu = 0, .pid = 77, .func = 1, .depth = 0, .has_retaddr = true,
		  .retaddr = 0x999 },
		{ .kind = FG_ENTRY, .cpu = 0, .pid = 77, .func = 2, .depth = 1, .has_retaddr = true,
		  .retaddr = 0x11c, .nargs = 6, .args = { 0xffff8881, 5 } },
		{ .kind = FG_EXIT, .cpu = 0, .pid = 77, .func = 2, .depth = 1, .calltime = 0,
		  .rettime = 2000, .retval = 0xfffffff2, .has_retval = true },
		{ .kind = FG_ENTRY, .cpu = 0, .pid = 77, .func = 3, .depth = 1, .nargs = 6,
		  .args = { 1, 2, 3, 4, 5, 6 } },
		{ .kind = FG_EXIT, .cpu = 0, .pid = 77, .func = 1, .depth = 0, .calltime = 0,
		  .rettime = 3000, .retval = 0, .has_retval = true },
	};
	struct fmt_graph_opts o;
	struct fmt_graph *g;
	struct fmt_line out = { 0 };

	fmt_graph_opts_default(&o);
	CHECK(fmt_graph_opts_apply(&o, "funcgraph-retaddr,retval,args", true, NULL, 0) == 0);
	CHECK(o.retaddr && o.retval && o.args);
	o.ret_eq = false;
	g = fmt_graph_new(1, &o);
	CHECK(!fmt_graph_put(g, &aenv, "", &r[0], &r[1], &out));
	CHECK(fmt_graph_put(g, &aenv, "", &r[1], &r[2], &out));
	/* No prototype: the values plain, where the kernel would write "()". */
	CHECK(!fmt_graph_put(g, &aenv, "", &r[3], &r[4], &out));
	CHECK(!fmt_graph_put(g, &aenv, "", &r[4], NULL, &out));
	fmt_line_grow(&out, 1);
	out.p[out.len] = '\0';
	CHECK_STR(out.p,
		  " 0)               |  ksys_read() { /* <-0x999 */\n"
		  " 0)   2.000 us    |    vfs_read(file=0xffff8881, count=5); /* <-ksys_read+0x1c/0x100"
		  " ret=-14 */\n"
		  " 0)               |    rw_verify_area(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) {\n"
		  " 0)   3.000 us    |  } /* ksys_read ret=0x0 */\n");
	free(out.p);
	fmt_graph_free(g);
}

/* A BTF blob made here: the kinds print_function_args() tells apart. */
static size_t make_btf(uint8_t *out)
{
	static const char strs[] = "\0int\0unsigned int\0kuid\0buf\0count\0id\0flags\0my_read";
	enum { S_INT = 1, S_UINT = 5, S_KUID = 18, S_BUF = 23, S_COUNT = 27, S_ID = 33,
	       S_FLAGS = 36, S_MY_READ = 42 };
	const uint32_t types[] = {
		S_INT, 1u << 24, 4, 1u << 24 | 32,		/* 1: int (signed) */
		S_UINT, 1u << 24, 4, 32,			/* 2: unsigned int */
		0, 2u << 24, 0,					/* 3: void * */
		S_KUID, 4u << 24, 16,				/* 4: struct kuid, 16 bytes */
		0, 10u << 24, 3,				/* 5: void *const */
		0, 13u << 24 | 4, 1,				/* 6: int (*)(4 params) */
		S_BUF, 5, S_COUNT, 2, S_ID, 4, S_FLAGS, 1,
		S_MY_READ, 12u << 24, 6,			/* 7: my_read */
	};
	uint32_t hdr[6] = { 0x0001eb9f, 24, 0, sizeof(types), sizeof(types), sizeof(strs) };

	memcpy(out, hdr, 24);
	memcpy(out + 24, types, sizeof(types));
	memcpy(out + 24 + sizeof(types), strs, sizeof(strs));
	return 24 + sizeof(types) + sizeof(strs);
}

/* print_function_args() (trace_output.c) on the prototype: name=value, by kind. */
TEST(btf_args_as_the_kernel)
{
	uint8_t blob[512];
	size_t len = make_btf(blob);
	struct btf *b = btf_load(blob, len);
	static const uint64_t args[6] = { 0xffff8881, 0x80, 7, 8, (uint64_t)-2, 9 };
	char buf[256];

	CHECK(b != NULL);
	CHECK(btf_func_args(b, "my_read", args, 6, true, buf, sizeof(buf)));
	CHECK_STR(buf, "buf=0xffff8881, count=0x80, id=(STRUCT)[0x7:0x8], flags=-2");
	/* Before 6.18 unsigned ints were decimal too. */
	CHECK(btf_func_args(b, "my_read", args, 6, false, buf, sizeof(buf)));
	CHECK_STR(buf, "buf=0xffff8881, count=128, id=(STRUCT)[0x7:0x8], flags=-2");
	/* Past the registers there are: "..." (inside a struct: "...]"). */
	CHECK(btf_func_args(b, "my_read", args, 2, true, buf, sizeof(buf)));
	CHECK_STR(buf, "buf=0xffff8881, count=0x80, ...");
	CHECK(btf_func_args(b, "my_read", args, 3, true, buf, sizeof(buf)));
	CHECK_STR(buf, "buf=0xffff8881, count=0x80, id=(STRUCT)[0x7:...]");
	CHECK(!btf_func_args(b, "kuid", args, 6, true, buf, sizeof(buf)));
	CHECK(!btf_func_args(b, "nosuch", args, 6, true, buf, sizeof(buf)));
	/* A short buffer is cut, never overrun. */
	CHECK(btf_func_args(b, "my_read", args, 6, true, buf, 8));
	CHECK_STR(buf, "buf=0xf");
	btf_free(b);
}

/* trace-cmd list --proto's text: C declarations, from the same blob. */
TEST(btf_prototypes)
{
	uint8_t blob[512];
	struct btf *b = btf_load(blob, make_btf(blob));
	char buf[256];

	CHECK(b != NULL);
	CHECK(btf_func_proto(b, "my_read", buf, sizeof(buf)));
	/* Type 5 is a const pointer (CONST of void *), not a pointer to const. */
	CHECK_STR(buf, "int my_read(void *const buf, unsigned int count, struct kuid id, int flags)");
	CHECK(!btf_func_proto(b, "kuid", buf, sizeof(buf)));
	CHECK_STR(buf, "");
	CHECK(btf_func_proto(b, "my_read", buf, 12));
	CHECK_STR(buf, "int my_read");
	btf_free(b);
}

static void count_func(void *arg, const char *name)
{
	CHECK_STR(name, "f");
	++*(int *)arg;
}

/*
 * Qualifiers, a pointer to a function, "..." and a pointer to itself (a
 * damaged blob): the chain stops at its depth, as "?".
 */
TEST(btf_prototype_declarators)
{
	static const char strs[] = "\0char\0f\0cb\0p";
	enum { S_CHAR = 1, S_F = 6, S_CB = 8, S_P = 11 };
	const uint32_t types[] = {
		S_CHAR, 1u << 24, 1, 1u << 24 | 8,		/* 1: char */
		0, 10u << 24, 1,				/* 2: const char */
		0, 2u << 24, 2,					/* 3: const char * */
		0, 13u << 24 | 1, 1, 0, 3,			/* 4: char (const char *) */
		0, 2u << 24, 4,					/* 5: char (*)(const char *) */
		0, 2u << 24, 6,					/* 6: a pointer to itself */
		0, 13u << 24 | 3, 3, S_CB, 5, S_P, 6, 0, 0,	/* 7: (cb, p, ...) */
		S_F, 12u << 24, 7,				/* 8: f */
	};
	uint32_t hdr[6] = { 0x0001eb9f, 24, 0, sizeof(types), sizeof(types), sizeof(strs) };
	uint8_t blob[512];
	struct btf *b;
	char buf[256];
	int n = 0;

	memcpy(blob, hdr, 24);
	memcpy(blob + 24, types, sizeof(types));
	memcpy(blob + 24 + sizeof(types), strs, sizeof(strs));
	b = btf_load(blob, 24 + sizeof(types) + sizeof(strs));
	CHECK(b != NULL);
	CHECK(btf_func_proto(b, "f", buf, sizeof(buf)));
	CHECK(!strncmp(buf, "const char *f(char (*cb)(const char *), ? **", 44));
	CHECK(strlen(buf) > 8 && !strcmp(buf + strlen(buf) - 8, "*p, ...)"));
	btf_each_func(b, count_func, &n);
	CHECK(n == 1);
	btf_free(b);
}

UNIT_MAIN(T(leaf_and_nested), T(duration_marks_and_widths), T(missing_exit_and_entry),
	  T(task_switch_and_interleaved_cpus), T(comments_at_depth),
	  T(leaf_only_for_same_task_and_function), T(irq_markers_and_unknown_symbols),
	  T(option_words), T(columns_abstime_proc_nocpu), T(nooverhead_and_noduration),
	  T(tail_retval_overrun), T(noirqs_leaves_handlers_out), T(retaddr_args_ret),
	  T(btf_args_as_the_kernel), T(btf_prototypes), T(btf_prototype_declarators),
	  T(hostile_depths))
