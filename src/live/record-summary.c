// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What tr record says on stderr (live-record.h): the status line redrawn
 * while it records, and once it is done the summary of what was written
 * and the warnings of what went wrong, from the recording's result.  The
 * exit status is the command's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "live-record.h"
#include "rec.h"
#include "tr.h"

void live_record_summary(const struct live_record_say *say, const struct live_record_result *res)
{
	const struct rec_summary *sum = &res->sum;

	if (res->latency) {
		if (!say->quiet)
			rec_latency_print(stderr, say->tracer, res->max_us, res->latency_bytes,
					  say->output);
		return;
	}
	if (res->failure[0])
		tr_error("%s: recording stopped early", res->failure);
	else if (res->reader_err == -ENOSPC)
		tr_warn("no space left on the file system of '%s': recording stopped early",
			say->output);
	else if (res->reader_err)
		tr_warn("a reader stopped early: %s", strerror(-res->reader_err));
	if (say->verbose)
		rec_readers_print(stderr, sum);
	if (!say->quiet)
		rec_summary_print(stderr, sum, say->net ? NULL : say->output);
	if (!say->quiet && say->net)
		fprintf(stderr, "sent to '%s'\n", say->net);
	if (sum->fell_back_v6)
		tr_warn("no room to compress '%s': it was written as version 6", say->output);
	if (sum->dropped_kallsyms)
		tr_warn("no room for kernel symbols in '%s': addresses will not be named",
			say->output);
	if (sum->btf_left_out)
		tr_warn("'%s' has no room for the kernel's BTF (only compressed version 7 files "
			"do): its function arguments print by name only where this kernel runs",
			say->output);
	if (sum->dropped_cmdlines)
		tr_warn("no room for the saved command names in '%s'", say->output);
	if (sum->dropped_bytes)
		tr_warn("no room for %llu bytes of events: the newest were left out",
			(unsigned long long)sum->dropped_bytes);
	if (res->rotations && !say->quiet)
		fprintf(stderr, "rotated %llu times at --max-size: the earlier parts are '%s.1' "
			"(newest) to '%s.%u'\n", (unsigned long long)res->rotations, say->output,
			say->output,
			res->rotations < say->rotate ? (unsigned)res->rotations : say->rotate);
	if (res->max_size_reached && !say->quiet)
		fprintf(stderr, "stopped at --max-size: '%s' would have grown past it\n",
			say->output);
	if (res->spool_kept)
		tr_warn("what was recorded is kept in '%s': 'tr restore %s' writes it", say->spool,
			say->output);
}

/*
 * One line on stderr, redrawn in place: elapsed, events/s since the last
 * line, MB written, and the CPUs that lost events so far.
 */
void live_status_draw(void *arg, const struct live_progress *p)
{
	struct live_status *st = arg;
	double dt = (p->elapsed_ns - st->last_ns) / 1e9;
	double rate = dt > 0 ? (p->events - st->last_events) / dt : 0;
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "\r%.1f s, %.0f events/s, %.1f MB written",
		     p->elapsed_ns / 1e9, rate, p->bytes / 1e6);
	for (int c = 0, first = 1; c < p->ncpus && n < (int)sizeof(line) - 40; c++) {
		if (!p->lost[c])
			continue;
		n += snprintf(line + n, sizeof(line) - n, "%s cpu%d %llu", first ? ", lost:" : "",
			      c, (unsigned long long)p->lost[c]);
		first = 0;
	}
	fprintf(stderr, "%s\033[K", line);
	fflush(stderr);
	st->drawn = true;
	st->last_ns = p->elapsed_ns;
	st->last_events = p->events;
}

void live_status_erase(struct live_status *st)
{
	if (st->drawn)
		fputs("\r\033[K", stderr);
	st->drawn = false;
}

