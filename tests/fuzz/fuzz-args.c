// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the parsers of what users type.  The first byte of the input
 * picks one, the rest is the string (cut at a NUL):
 *
 *   0, 1  a filter (report -F; hist -f, an expression only) through the
 *         fence (fmt_filter_parse) and, when it takes it, libtraceevent's
 *         compiler over the events of tests/data/report-v7.dat: a filter
 *         the fence takes must never crash libtraceevent
 *   2..4  hist keys (with modifiers), values, sort keys for
 *         sched:sched_switch; a spec that builds is run over the file
 *   5     a hist variable or action
 *   6     --ts-offset (parse_i64)
 *   7     split --time's bounds, sizes, durations, counts and CPU lists
 *   8     top --latency
 *
 * Run from the top of the tree (tests/fuzz/run and the replay are).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-filter.h"
#include "hist.h"
#include "parse.h"
#include "tfile.h"
#include "top.h"
#include "tr.h"

#define DATA "tests/data/report-v7.dat"

static struct tfile *tf;

static void filter(const char *s, unsigned flags)
{
	struct tep_event_filter *f;

	if (!tf && tfile_open(DATA, TFILE_NO_KALLSYMS, &tf)) {
		fprintf(stderr, "fuzz-args: cannot open %s: run from the top of the tree\n", DATA);
		abort();
	}
	if (!fmt_filter_compile(tfile_tep(tf), s, flags, flags ? "sched/sched_switch" : ".*", &f))
		tep_filter_free(f);
}

static void hist(const char *keys, const char *vals, const char *sort)
{
	struct hist_spec s = { 0 };

	if (!hist_spec_build(&s, "sched:sched_switch", keys, vals, sort, NULL, 0, NULL)) {
		struct hist_result res = { 0 };
		FILE *out = fopen("/dev/null", "w");
		struct hist_render_opts ro = { .kind = HIST_OUT_JSON };

		if (!hist_user_file(&s, DATA, &res) && out)
			hist_render(out, &res, &ro);
		if (out)
			fclose(out);
		hist_result_free(&res);
	}
	hist_spec_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	uint64_t u, mask[1024 / 64];
	int64_t i;
	int n;

	if (!size)
		return 0;
	s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	tep_set_loglevel(TEP_LOG_CRITICAL);
	switch (data[0] % 9) {
	case 0: filter(s, 0); break;
	case 1: filter(s, FMT_FILTER_EXPR); break;
	case 2: hist(s, NULL, NULL); break;
	case 3: hist("prev_pid", s, NULL); break;
	case 4: hist("prev_comm,prev_pid", "prev_prio", s); break;
	case 5: {
		struct hist_spec h = { 0 };

		if (!hist_spec_build(&h, "sched:sched_switch", "prev_pid", NULL, NULL, NULL, 0,
				     NULL))
			hist_spec_add_var(&h, s);
		hist_spec_free(&h);
		break;
	}
	case 6: parse_i64(s, &i); break;
	case 7:
		parse_time(s[0] == '+' ? s + 1 : s, &u);
		parse_duration(s, &u);
		parse_size(s, &u);
		parse_u64(s, &u);
		parse_int(s, -5, 5, &n);
		parse_cpu_list(s, mask, 1024);
		parse_cpu_mask(s, mask, 1024);
		break;
	case 8: {
		struct top_lat_spec l = { 0 };

		if (!top_lat_parse(s, &l))
			top_lat_free(&l);
		break;
	}
	}
	tr_detail_clear();
	free(s);
	return 0;
}
