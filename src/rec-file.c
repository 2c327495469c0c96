// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finishing a recording: turning the recorder's per-CPU temp files into a
 * trace.dat file, and the summary of what was recorded and lost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "tfw.h"

int rec_stats_snapshot(const struct tfs_inst *in, int ncpus, struct rec_kstats **out)
{
	struct rec_kstats *s = xcalloc(ncpus ? ncpus : 1, sizeof(*s));
	int r = 0;

	for (int c = 0; c < ncpus; c++) {
		int e = rec_kstats_read(in, c, &s[c], NULL);

		/* An offline CPU has no stats: it simply reads as zeroes. */
		if (e && e != -ENOENT && !r)
			r = e;
	}
	*out = s;
	return r;
}

static void add_stats_options(struct tfw_meta *m, const struct tfs_inst *in, int ncpus,
			      struct rec_kstats *after)
{
	for (int c = 0; c < ncpus; c++) {
		char *text = NULL, *opt;

		if (rec_kstats_read(in, c, &after[c], &text))
			continue;
		opt = xasprintf("CPU: %d\n%s", c, text);
		tfw_meta_add_option(m, TFW_OPT_CPUSTAT, opt, strlen(opt) + 1);
		free(opt);
		free(text);
	}
}

static void summarize(struct rec *r, int ncpus, const struct rec_kstats *before,
		      const struct rec_kstats *after, unsigned flags, struct rec_summary *sum)
{
	sum->ncpus = ncpus;
	sum->cpu = xcalloc(ncpus ? ncpus : 1, sizeof(*sum->cpu));
	for (int c = 0; c < ncpus; c++) {
		const struct rec_cpu_stat *st = rec_cpu_stat(r, c);
		struct rec_cpu_summary *s = &sum->cpu[c];

		s->bytes = st->bytes;
		s->missed_pages = st->missed_pages;
		if (before) {
			s->events = after[c].read - before[c].read;
			s->lost = (after[c].overrun - before[c].overrun) +
				  (after[c].dropped - before[c].dropped);
			if (flags & REC_LOSS_SINCE_RESET)
				s->lost = after[c].overrun + after[c].dropped;
		} else {
			s->events = after[c].read;
		}
		/* The page flags can know of losses the counters do not show. */
		if (st->missed_events > s->lost)
			s->lost = st->missed_events;
		if (st->missed_pages && !s->lost)
			s->lost = st->missed_pages;
		sum->total.events += s->events;
		sum->total.lost += s->lost;
		sum->total.missed_pages += s->missed_pages;
		sum->total.bytes += s->bytes;
	}
}

int rec_write_file(struct rec *r, int fd, struct tfs_inst *in, const struct strv *events,
		   const struct rec_kstats *before, unsigned flags, struct rec_summary *sum)
{
	int ncpus = rec_ncpus(r), e;
	struct rec_kstats *after = xcalloc(ncpus ? ncpus : 1, sizeof(*after));
	struct strv all = { 0 };
	struct tfw_meta m;
	struct tfw_buffer bufs[2];
	struct tfw_src *src = NULL, *none = NULL;
	struct tfw_result res;
	char *set = NULL;

	memset(sum, 0, sizeof(*sum));
	rec_scan_missed(r);
	for (size_t i = 0; events && i < events->n; i++)
		strv_push(&all, events->v[i]);
	if (!tfs_read(in, "set_event", &set)) {
		char *save = NULL;

		for (char *l = strtok_r(set, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			strv_push(&all, l);
		free(set);
	}
	e = tfw_meta_gather(&m, in, &all);
	strv_free(&all);
	if (e) {
		free(after);
		return e;
	}
	/* The file has as many CPUs as there are per-CPU buffers. */
	if (m.cpus < ncpus)
		m.cpus = ncpus;
	m.page_size = rec_page_size(r);
	add_stats_options(&m, in, ncpus, after);
	summarize(r, ncpus, before, after, flags, sum);

	src = xcalloc(m.cpus, sizeof(*src));
	for (int c = 0; c < m.cpus; c++) {
		src[c].fd = rec_cpu_fd(r, c);
		src[c].size = src[c].fd >= 0 ? rec_cpu_stat(r, c)->bytes : 0;
	}
	if (in->name) {
		none = xcalloc(m.cpus, sizeof(*none));
		for (int c = 0; c < m.cpus; c++)
			none[c].fd = -1;
		bufs[0] = (struct tfw_buffer){ NULL, none };
		bufs[1] = (struct tfw_buffer){ in->name, src };
	} else {
		bufs[0] = (struct tfw_buffer){ NULL, src };
	}
	e = tfw_write(fd, &m, bufs, in->name ? 2 : 1, TFW_CONSUME | TFW_FIT, &res);
	sum->file_bytes = res.bytes;
	/* What the file holds, after any trimming for room. */
	sum->total.bytes = 0;
	for (int c = 0; c < ncpus && c < m.cpus; c++) {
		sum->cpu[c].bytes = src[c].size;
		sum->total.bytes += src[c].size;
	}
	sum->dropped_bytes = res.dropped_bytes;
	sum->dropped_kallsyms = res.dropped_kallsyms;
	sum->dropped_cmdlines = res.dropped_cmdlines;
	if (e)
		tr_fail(e, "cannot write the trace file: %s", strerror(-e));
	free(src);
	free(none);
	free(after);
	tfw_meta_free(&m);
	return e;
}

static void human(char *buf, size_t n, uint64_t bytes)
{
	if (bytes >= 1ULL << 20)
		snprintf(buf, n, "%.1f MiB", bytes / 1048576.0);
	else if (bytes >= 10ULL << 10)
		snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, n, "%llu B", (unsigned long long)bytes);
}

void rec_summary_print(FILE *f, const struct rec_summary *s, const char *path)
{
	char b[32];

	fprintf(f, "%6s %12s %10s %12s\n", "CPU", "events", "lost", "bytes");
	for (int c = 0; c < s->ncpus; c++) {
		human(b, sizeof(b), s->cpu[c].bytes);
		fprintf(f, "%6d %12llu %10llu %12s\n", c, (unsigned long long)s->cpu[c].events,
			(unsigned long long)s->cpu[c].lost, b);
	}
	human(b, sizeof(b), s->total.bytes);
	fprintf(f, "%6s %12llu %10llu %12s\n", "total", (unsigned long long)s->total.events,
		(unsigned long long)s->total.lost, b);
	if (s->total.missed_pages)
		fprintf(f, "%llu sub-buffers were marked as following lost events\n",
			(unsigned long long)s->total.missed_pages);
	human(b, sizeof(b), s->file_bytes);
	fprintf(f, "wrote '%s' (%s)\n", path, b);
}

void rec_summary_free(struct rec_summary *s)
{
	free(s->cpu);
	s->cpu = NULL;
}
