/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The function profiler (tr profile): the kernel counts, per CPU, each
 * traced function's calls and the time spent in them while
 * function_profile_enabled is 1, and shows the counts in
 * trace_stat/functionN.  This layer runs it around a command and reads the
 * tables back:
 *
 *   prof_run(&opts, &table);             // enable, run, disable, read (tracefs)
 *   prof_merge(&table, &merged);         // or keep the per-CPU rows
 *   prof_sort(&merged, PROF_SORT_TOTAL);
 *   prof_print(stdout, &merged, PROF_TEXT);
 *   prof_free(&table); prof_free(&merged);
 *
 * function_profile_enabled exists at the top level only; the profiler
 * follows the top level's set_ftrace_filter, which -l sets for the run.
 * Every write goes through tfs_set(), so the caller's tfs_restore() puts
 * function_profile_enabled and the filter back.
 *
 * Times are microseconds.  The kernel shows a sample variance (its "s^2"
 * column, in us^2 though it prints "us"); rows keep it so that CPUs can be
 * merged exactly, and show its square root.  Function names are as the
 * kernel prints them: cut to 30 characters.
 *
 * Errors: 0 or -errno with tr_fail() set; nothing here prints to stdout
 * except prof_print, to the FILE it is given.
 */
#ifndef TR_PROFILE_H
#define TR_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tr.h"

struct prof_row {
	char *func;
	int cpu;		/* -1 in merged rows */
	uint64_t hits;
	double total_us, avg_us;
	double var_us2;		/* sample variance of one call's time */
};

struct prof_table {
	struct prof_row *v;
	size_t n, cap;
	/* The kernel has times (CONFIG_FUNCTION_GRAPH_TRACER): else only hits. */
	bool timed;
};

/*
 * Add the rows of one trace_stat/functionN text (cpu N) to t.  0, or
 * -EINVAL with tr_fail() naming the line that is not the kernel's format.
 */
int prof_parse(const char *text, int cpu, struct prof_table *t);
/* One row per function, summed over the CPUs (out must be empty). */
void prof_merge(const struct prof_table *in, struct prof_table *out);
/* Only the rows of these CPUs (bitmap of max_cpus). */
void prof_keep_cpus(struct prof_table *t, const uint64_t *cpus, int max_cpus);

enum prof_sort { PROF_SORT_TOTAL, PROF_SORT_HITS, PROF_SORT_AVG, PROF_SORT_STDDEV, PROF_SORT_NAME };
/* "total", "hits", "avg", "stddev", "name": 0, or -EINVAL. */
int prof_sort_parse(const char *s, enum prof_sort *out);
/* Largest first (names A to Z); ties by name, then CPU. */
void prof_sort(struct prof_table *t, enum prof_sort by);
void prof_free(struct prof_table *t);

enum prof_out { PROF_TEXT, PROF_JSON, PROF_CSV };
/*
 * The table: text columns (with CPU when the rows are per CPU), one JSON
 * object a line, or CSV with a header.  at most limit rows (0: all).
 */
void prof_print(FILE *f, const struct prof_table *t, enum prof_out kind, size_t limit);

struct prof_opts {
	struct strv funcs;	/* -l: set_ftrace_filter for the run (globs); empty = leave */
	char **command;		/* run this (argv, NULL-ended), or NULL */
	uint64_t duration_ns;	/* or this long (0: no limit) */
};

/*
 * Reset and enable the profiler, run the command (or wait), disable it and
 * read every CPU's table into out (per-CPU rows).  0 or -errno.
 */
int prof_run(const struct prof_opts *o, struct prof_table *out);

#endif
