// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finishing a recording: turning the recorder's per-CPU temp files into a
 * trace.dat file, and the summary of what was recorded and lost.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "rec-local.h"
#include "rec.h"
#include "tfile.h"
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

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int rec_clock_pair(const struct tfs_inst *in, int i, struct tfile_clocks *c)
{
	uint64_t b0 = clock_ns(CLOCK_BOOTTIME), m0 = clock_ns(CLOCK_MONOTONIC),
		 r0 = clock_ns(CLOCK_REALTIME), b1, m1, r1;
	unsigned long long sec, usec;
	struct rec_kstats ks;
	char *text = NULL, *now;
	int n = 0;

	if (rec_kstats_read(in, 0, &ks, &text))
		return -EINVAL;
	b1 = clock_ns(CLOCK_BOOTTIME);
	m1 = clock_ns(CLOCK_MONOTONIC);
	r1 = clock_ns(CLOCK_REALTIME);
	now = strstr(text, "now ts:");
	/* A clock in ns prints "SECONDS.MICROSECONDS"; others a bare count. */
	if (!now || sscanf(now, "now ts: %llu.%6llu%n", &sec, &usec, &n) != 2 || n <= 0) {
		free(text);
		return -EINVAL;
	}
	free(text);
	c->trace[i] = sec * 1000000000ull + usec * 1000;
	c->boot[i] = b0 + (b1 - b0) / 2;
	c->mono[i] = m0 + (m1 - m0) / 2;
	c->real[i] = r0 + (r1 - r0) / 2;
	return 0;
}

/* One CPU's conversion, from a dummy software event's mapped page. */
static int tsc_conv_cpu(int cpu, uint32_t *mult, uint32_t *shift)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1 };
	long page = sysconf(_SC_PAGESIZE);
	volatile struct perf_event_mmap_page *p;
	uint32_t seq;
	bool cap;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	/* The kernel updates the page under a sequence count. */
	do {
		seq = p->lock;
		__sync_synchronize();
		cap = p->cap_user_time;
		*mult = p->time_mult;
		*shift = p->time_shift;
		__sync_synchronize();
	} while (p->lock != seq);
	munmap((void *)p, page);
	return cap && *mult ? 0 : -EOPNOTSUPP;
}

int rec_tsc2nsec(uint32_t *mult, uint32_t *shift)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t m = 0, s = 0;
	int e = 0;

	for (int cpu = 0; cpu < n && !e; cpu++) {
		e = tsc_conv_cpu(cpu, &m, &s);
		if (!e && cpu && (m != *mult || s != *shift))
			return tr_fail(-EOPNOTSUPP, "cannot convert the TSC to nanoseconds: CPU %d's "
				       "multiplier and shift differ from CPU 0's", cpu);
		*mult = m;
		*shift = s;
	}
	if (e == -EOPNOTSUPP)
		return tr_fail(e, "cannot convert the TSC to nanoseconds: the kernel gives user "
			       "space no conversion (perf's cap_user_time is 0: the TSC is not "
			       "the clocksource, or not stable)");
	if (e)
		return tr_fail(e, "cannot read the TSC's conversion (perf_event_open): %s",
			       strerror(-e));
	return 0;
}

/*
 * --date: the wall clock less the trace clock, in microseconds (trace-cmd's
 * DATE option), so a report's times are dates; --ts-offset: its
 * nanoseconds as the OFFSET option.  Both are text that readers take with
 * strtoll(, 0): a signed decimal suits them.  The two clocks advance
 * together, so a pairing read before tracing starts serves the whole
 * recording, and every file of it (meta.dat, a listener's, each part) can
 * carry the same value.
 */
static void add_opt(struct tfw_opt **opts, size_t *n, uint16_t id, const void *data, size_t len)
{
	struct tfw_opt *o;

	*opts = xrealloc(*opts, (*n + 1) * sizeof(**opts));
	o = &(*opts)[(*n)++];
	o->id = id;
	o->data = (struct tfw_blob){ 0 };
	tfw_blob_append(&o->data, data, len);
}

void rec_pid_maps(const struct tfs_inst *in, struct tfw_opt **opts, size_t *nopts)
{
	static const char *const files[] = { "set_event_pid", "set_ftrace_pid" };
	int seen[64], nseen = 0;
	char *v = NULL;
	bool on = !tfs_read(in, "options/userstacktrace", &v) && v[0] == '1';

	free(v);
	for (size_t f = 0; on && f < ARRAY_SIZE(files); f++) {
		char *list = NULL, *save = NULL;

		if (tfs_read(in, files[f], &list))
			continue;
		for (char *w = strtok_r(list, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
			struct tfile_procmap m;
			int pid, i;

			if (parse_int(w, 1, 1 << 22, &pid))
				continue;
			for (i = 0; i < nseen && seen[i] != pid; i++)
				;
			if (i < nseen || nseen == ARRAY_SIZE(seen))
				continue;
			seen[nseen++] = pid;
			if (tfw_procmap_read(pid, &m))
				continue;
			*opts = xrealloc(*opts, (*nopts + 1) * sizeof(**opts));
			tfw_opt_procmap(&(*opts)[(*nopts)++], &m);
			tfile_procmap_free(&m);
		}
		free(list);
	}
}

void rec_time_options(const struct tfs_inst *in, unsigned flags, int64_t ts_offset,
		      uint32_t tsc_mult, uint32_t tsc_shift, struct tfw_opt **opts, size_t *nopts)
{
	struct tfile_clocks c = { 0 };
	char text[32];

	if (flags & REC_FILE_DATE) {
		if (!rec_clock_pair(in, 0, &c)) {
			long long us = ((long long)c.real[0] - (long long)c.trace[0]) / 1000;

			snprintf(text, sizeof(text), "%lld", us);
			add_opt(opts, nopts, TFW_OPT_DATE, text, strlen(text) + 1);
		} else {
			tr_warn("--date: the trace clock does not count nanoseconds: no date stored");
		}
	}
	if (ts_offset) {
		snprintf(text, sizeof(text), "%lld", (long long)ts_offset);
		add_opt(opts, nopts, TFW_OPT_OFFSET, text, strlen(text) + 1);
	}
	if (tsc_mult) {
		/* trace-cmd's layout: multiplier, shift, offset (none: 0). */
		uint8_t d[16] = { 0 };

		memcpy(d, &tsc_mult, 4);
		memcpy(d + 4, &tsc_shift, 4);
		add_opt(opts, nopts, TFW_OPT_TSC2NSEC, d, sizeof(d));
	}
}

/*
 * The pairing goes after the VERSION option's text options, as a third
 * NUL-terminated string (the second is written even when empty):
 * "clock-pairing T B M R T B M R", start then end.  trace-cmd reads the
 * version up to its first NUL and no further.
 */
static void add_clock_pairing(struct tfw_meta *m, const struct tfile_clocks *c)
{
	for (size_t i = 0; i < m->nopts; i++) {
		struct tfw_opt *o = &m->opts[i];
		size_t len = o->data.len, nuls = 0;
		char *text;

		if (o->id != TFW_OPT_VERSION)
			continue;
		for (size_t k = 0; k < len; k++)
			nuls += !o->data.data[k];
		if (len && o->data.data[len - 1])
			tfw_blob_append(&o->data, "", 1), nuls++;
		if (nuls < 2)
			tfw_blob_append(&o->data, "", 1);
		text = xasprintf("clock-pairing %llu %llu %llu %llu %llu %llu %llu %llu",
				 (unsigned long long)c->trace[0], (unsigned long long)c->boot[0],
				 (unsigned long long)c->mono[0], (unsigned long long)c->real[0],
				 (unsigned long long)c->trace[1], (unsigned long long)c->boot[1],
				 (unsigned long long)c->mono[1], (unsigned long long)c->real[1]);
		tfw_blob_append(&o->data, text, strlen(text) + 1);
		free(text);
		return;
	}
}

/*
 * Under record-tgid the kernel keeps each task's process in saved_tgids,
 * which its trace file prints beside the pid: the file keeps them, read as
 * the recording ends (tasks it saw start are there only by then).
 */
void rec_add_tgids(struct tfw_meta *m)
{
	char *path, *text = NULL;
	size_t len = 0;

	if (!tfw_meta_has_text_option(m, "record-tgid"))
		return;
	path = tfs_path(NULL, "saved_tgids");
	if (!read_file(path, &text, &len) && len)
		tfw_meta_add_tgids(m, text, len);
	free(text);
	free(path);
}

/* Each CPU's stats after recording, and their text for the file's CPUSTAT options. */
static void read_after(const struct tfs_inst *in, int ncpus, struct rec_kstats *after,
		       char **texts)
{
	for (int c = 0; c < ncpus; c++)
		if (rec_kstats_read(in, c, &after[c], &texts[c]))
			texts[c] = NULL;
}

static void add_stats_options(struct tfw_meta *m, int ncpus, char **texts)
{
	for (int c = 0; c < ncpus; c++) {
		char *opt;

		if (!texts[c])
			continue;
		opt = xasprintf("CPU: %d\n%s", c, texts[c]);
		tfw_meta_add_option(m, TFW_OPT_CPUSTAT, opt, strlen(opt) + 1);
		free(opt);
	}
}

/*
 * quiet[c]: the kernel's counters saw nothing lost on CPU c while recording,
 * so none of its pages can carry a missed-events mark and reading every
 * page header back (a pread per page) can be skipped.  Without the counters
 * from before, or when losses count from the last reset, every CPU is
 * scanned.
 */
static bool *quiet_cpus(int ncpus, const struct rec_kstats *before,
			const struct rec_kstats *after, char **texts, unsigned flags)
{
	bool *q = xcalloc(ncpus ? ncpus : 1, sizeof(*q));

	for (int c = 0; c < ncpus && before && !(flags & REC_LOSS_SINCE_RESET); c++)
		q[c] = texts[c] && after[c].overrun == before[c].overrun &&
		       after[c].dropped == before[c].dropped &&
		       after[c].commit_overrun == before[c].commit_overrun;
	return q;
}

/* Set seen[id] for every event in the recorded pages. */
static void data_event_ids(struct rec *r, bool *seen)
{
	uint32_t ps = rec_page_size(r);
	struct tfile_layout l;
	uint8_t *page;
	char *hp = NULL;

	if (tfs_read(NULL, "events/header_page", &hp) ||
	    tfile_layout_parse(&l, hp, strlen(hp), false, ps)) {
		free(hp);
		return;
	}
	free(hp);
	page = xmalloc(ps);
	for (int c = 0; c < rec_ncpus(r); c++) {
		int fd = rec_cpu_fd(r, c);
		uint64_t size = rec_cpu_stat(r, c)->bytes;

		for (uint64_t off = 0; fd >= 0 && off + ps <= size; off += ps) {
			struct tfile_page pg;
			struct tfile_event ev;
			uint32_t bad;

			if (pread(fd, page, ps, off) != (ssize_t)ps)
				break;
			if (tfile_page_load(&pg, &l, page, ps, &bad))
				continue;
			while (tfile_page_next(&pg, &ev, &bad) == 1) {
				uint16_t id;

				if (ev.size >= 2) {
					memcpy(&id, ev.data, 2);
					seen[id] = true;
				}
			}
		}
	}
	free(page);
}

static bool id_file_is(const char *system, const char *event, bool *seen)
{
	char *f = xasprintf("events/%s/%s/id", system, event), *v = NULL;
	bool hit = false;

	if (!tfs_read(NULL, f, &v)) {
		unsigned long id = strtoul(v, NULL, 10);

		hit = id < 65536 && seen[id];
		if (hit)
			seen[id] = false;
	}
	free(f);
	free(v);
	return hit;
}

/*
 * Add to names the "system:event" of every event in the recorded pages,
 * so that the file has the formats of events disabled since (tr extract).
 * Reading the id files of all events costs some 50 ms; it stops as soon
 * as every id seen is named.  ftrace's own events are always in the file.
 */
static void add_data_events(struct rec *r, struct strv *names)
{
	bool *seen = xcalloc(65536, sizeof(*seen));
	struct strv avail = { 0 };
	size_t left = 0;
	char *dir = tfs_path(NULL, "events/ftrace");
	DIR *d = opendir(dir);
	struct dirent *de;

	data_event_ids(r, seen);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			id_file_is("ftrace", de->d_name, seen);
	if (d)
		closedir(d);
	free(dir);
	for (size_t i = 0; i < 65536; i++)
		left += seen[i];
	if (left)
		tfs_events(NULL, &avail);
	for (size_t i = 0; i < avail.n && left; i++) {
		char *colon = strchr(avail.v[i], ':');

		if (!colon)
			continue;
		*colon = '\0';
		if (id_file_is(avail.v[i], colon + 1, seen)) {
			*colon = ':';
			strv_push(names, avail.v[i]);
			left--;
		}
	}
	strv_free(&avail);
	free(seen);
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
		s->rd = st->rd;
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

void rec_summarize(struct rec *r, const struct tfs_inst *in, const struct rec_kstats *before,
		   struct rec_summary *sum)
{
	int ncpus = rec_ncpus(r);
	struct rec_kstats *after = xcalloc(ncpus ? ncpus : 1, sizeof(*after));

	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < ncpus; c++)
		rec_kstats_read(in, c, &after[c], NULL);
	summarize(r, ncpus, before, after, 0, sum);
	free(after);
}

/* A recorder's temp files as the sources of one buffer of cpus CPUs. */
static struct tfw_src *sources(struct rec *r, int cpus)
{
	struct tfw_src *src = xcalloc(cpus ? cpus : 1, sizeof(*src));

	for (int c = 0; c < cpus; c++) {
		src[c].fd = r ? rec_cpu_fd(r, c) : -1;
		src[c].size = src[c].fd >= 0 ? rec_cpu_stat(r, c)->bytes : 0;
	}
	return src;
}

/* The events enabled in an instance (its set_event), added to names. */
static void add_set_events(struct tfs_inst *in, struct strv *names)
{
	char *set = NULL, *save = NULL;

	if (tfs_read(in, "set_event", &set))
		return;
	for (char *l = strtok_r(set, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		strv_push(names, l);
	free(set);
}

/* Does m hold the format of event sys:ev (its text begins "name: EV")? */
static bool has_format(const struct tfw_meta *m, const char *sys, const char *ev)
{
	size_t len = strlen(ev);

	for (size_t i = 0; i < m->nsystems; i++) {
		if (strcmp(m->systems[i].name, sys))
			continue;
		for (size_t k = 0; k < m->systems[i].n; k++) {
			const struct tfw_blob *f = &m->systems[i].formats[k];

			if (f->len > len + 7 && !strncmp(f->data, "name: ", 6) &&
			    !strncmp(f->data + 6, ev, len) && f->data[6 + len] == '\n')
				return true;
		}
	}
	return false;
}

/*
 * Take the header the spool's meta.dat was written from (rec_spool_meta())
 * instead of gathering it again, which would read /proc/kallsyms and the
 * formats a second time; the command names are read anew.  Only where it
 * has the format of every event in names; else -ENOENT, m untouched.
 */
static int take_spool_meta(struct rec *r, const struct strv *names, struct tfw_meta *m)
{
	char *path, *cmd = NULL;
	size_t len;

	if (!r->meta)
		return -ENOENT;
	for (size_t i = 0; i < names->n; i++) {
		const char *colon = strchr(names->v[i], ':');
		char *sys;
		bool ok;

		if (!colon)
			continue;
		sys = xasprintf("%.*s", (int)(colon - names->v[i]), names->v[i]);
		ok = !strcmp(sys, "ftrace") || has_format(r->meta, sys, colon + 1);
		free(sys);
		if (!ok)
			return -ENOENT;
	}
	*m = *r->meta;
	free(r->meta);
	r->meta = NULL;
	path = tfs_path(NULL, "saved_cmdlines");
	if (!read_file(path, &cmd, &len)) {
		free(m->cmdlines.data);
		m->cmdlines = (struct tfw_blob){ cmd, len };
	}
	free(path);
	return 0;
}

/*
 * A further buffer's counts, added to sum's per-CPU and total ones, and
 * its own line in sum->bufs (slot i).
 */
static void summarize_more(const struct rec_file_buf *b, struct rec_summary *sum, size_t i)
{
	int ncpus = rec_ncpus(b->rec);
	struct rec_kstats *after = xcalloc(ncpus ? ncpus : 1, sizeof(*after));
	char **texts = xcalloc(ncpus ? ncpus : 1, sizeof(*texts));
	struct rec_summary one = { 0 };
	bool *quiet;

	read_after(b->inst, ncpus, after, texts);
	quiet = quiet_cpus(ncpus, b->before, after, texts, 0);
	rec_scan_missed(b->rec, quiet);
	free(quiet);
	summarize(b->rec, ncpus, b->before, after, 0, &one);
	for (int c = 0; c < ncpus && c < sum->ncpus; c++) {
		sum->cpu[c].events += one.cpu[c].events;
		sum->cpu[c].lost += one.cpu[c].lost;
		sum->cpu[c].missed_pages += one.cpu[c].missed_pages;
	}
	sum->total.events += one.total.events;
	sum->total.lost += one.total.lost;
	sum->total.missed_pages += one.total.missed_pages;
	sum->bufs[i] = (struct rec_buf_summary){ b->inst->name, one.total.events,
						 one.total.lost, 0 };
	for (int c = 0; c < ncpus; c++)
		free(texts[c]);
	free(texts);
	free(after);
	rec_summary_free(&one);
}

int rec_write_file(struct rec *r, int fd, struct tfs_inst *in, const struct strv *events,
		   const struct rec_kstats *before, unsigned flags, struct rec *snap,
		   const struct rec_file_buf *more, size_t nmore,
		   const struct tfile_clocks *clocks, const struct tfw_opt *extra, size_t nextra,
		   struct rec_summary *sum)
{
	int ncpus = rec_ncpus(r), e;
	struct rec_kstats *after = xcalloc(ncpus ? ncpus : 1, sizeof(*after));
	char **texts = xcalloc(ncpus ? ncpus : 1, sizeof(*texts));
	bool *quiet;
	struct strv all = { 0 };
	struct tfw_meta m;
	/* The top level, in, the further buffers and the snapshot. */
	struct tfw_buffer *bufs = xcalloc(nmore + 3, sizeof(*bufs));
	struct tfw_src *src = NULL, *none = NULL, *ssrc = NULL;
	struct tfw_src **msrc = xcalloc(nmore ? nmore : 1, sizeof(*msrc));
	size_t nbufs = 0;
	struct tfw_result res;

	memset(sum, 0, sizeof(*sum));
	read_after(in, ncpus, after, texts);
	quiet = quiet_cpus(ncpus, before, after, texts, flags);
	rec_scan_missed(r, quiet);
	free(quiet);
	for (size_t i = 0; events && i < events->n; i++)
		strv_push(&all, events->v[i]);
	if (flags & REC_FORMATS_FROM_DATA)
		add_data_events(r, &all);
	if (snap) {
		rec_scan_missed(snap, NULL);
		add_data_events(snap, &all);
	}
	add_set_events(in, &all);
	for (size_t i = 0; i < nmore; i++)
		add_set_events(more[i].inst, &all);
	e = 0;
	/* The kept header is the kallsyms thread's until it is done. */
	rec_spool_kallsyms_wait(r);
	if (snap || nmore || (flags & REC_FORMATS_FROM_DATA) || take_spool_meta(r, &all, &m))
		e = tfw_meta_gather(&m, in, &all);
	strv_free(&all);
	if (e) {
		for (int c = 0; c < ncpus; c++)
			free(texts[c]);
		free(texts);
		free(after);
		free(bufs);
		free(msrc);
		return e;
	}
	/* The file has as many CPUs as there are per-CPU buffers. */
	if (m.cpus < ncpus)
		m.cpus = ncpus;
	if (snap && m.cpus < rec_ncpus(snap))
		m.cpus = rec_ncpus(snap);
	for (size_t i = 0; i < nmore; i++)
		if (m.cpus < rec_ncpus(more[i].rec))
			m.cpus = rec_ncpus(more[i].rec);
	m.page_size = rec_page_size(r);
	if (flags & REC_FILE_V7) {
		m.version = 7;
		m.zip = REC_ZIP_OF(flags);
	}
	/* What another machine needs to print it (tfw_write() says which files have room). */
	tfw_meta_gather_extras(&m, in);
	for (size_t i = 0; i < nmore; i++)
		tfw_meta_gather_extras(&m, more[i].inst);
	add_stats_options(&m, ncpus, texts);
	for (size_t i = 0; i < nextra; i++)
		tfw_meta_add_option(&m, extra[i].id, extra[i].data.data, extra[i].data.len);
	if (clocks && clocks->valid) {
		struct tfile_clocks pair = *clocks;

		if (!rec_clock_pair(in, 1, &pair))
			add_clock_pairing(&m, &pair);
	}
	rec_add_tgids(&m);
	summarize(r, ncpus, before, after, flags, sum);
	if (nmore) {
		sum->nbufs = nmore + 1;
		sum->bufs = xcalloc(sum->nbufs, sizeof(*sum->bufs));
		sum->bufs[0] = (struct rec_buf_summary){ in->name, sum->total.events,
							 sum->total.lost, 0 };
	}
	for (size_t i = 0; i < nmore; i++)
		summarize_more(&more[i], sum, i + 1);

	src = sources(r, m.cpus);
	if (in->name) {
		none = sources(NULL, m.cpus);
		bufs[nbufs++] = (struct tfw_buffer){ NULL, none };
	}
	bufs[nbufs++] = (struct tfw_buffer){ in->name, src };
	for (size_t i = 0; i < nmore; i++) {
		msrc[i] = sources(more[i].rec, m.cpus);
		bufs[nbufs++] = (struct tfw_buffer){ more[i].inst->name, msrc[i] };
	}
	if (snap) {
		ssrc = sources(snap, m.cpus);
		bufs[nbufs++] = (struct tfw_buffer){ "snapshot", ssrc };
	}
	e = tfw_write(fd, &m, bufs, nbufs, TFW_CONSUME | TFW_FIT, &res);
	/*
	 * Compressing reads the temp files while the output grows, so it needs
	 * room for both; v6 moves them in place and trims to fit.  The pages
	 * are still whole in the temp files: write v6 instead.
	 */
	if (e == -ENOSPC && m.version == 7) {
		if (ftruncate(fd, 0) == 0) {
			m.version = 6;
			m.zip = TFW_ZIP_NONE;
			sum->fell_back_v6 = true;
			e = tfw_write(fd, &m, bufs, nbufs, TFW_CONSUME | TFW_FIT, &res);
		}
	}
	sum->file_bytes = res.bytes;
	/* What the file holds, after any trimming for room. */
	sum->total.bytes = 0;
	for (int c = 0; c < ncpus && c < m.cpus; c++) {
		sum->cpu[c].bytes = src[c].size;
		sum->total.bytes += src[c].size;
	}
	if (nmore)
		sum->bufs[0].bytes = sum->total.bytes;
	for (size_t i = 0; i < nmore; i++)
		for (int c = 0; c < m.cpus; c++) {
			if (c < ncpus)
				sum->cpu[c].bytes += msrc[i][c].size;
			sum->total.bytes += msrc[i][c].size;
			sum->bufs[i + 1].bytes += msrc[i][c].size;
		}
	for (int c = 0; ssrc && c < m.cpus; c++)
		sum->snapshot_bytes += ssrc[c].size;
	sum->dropped_bytes = res.dropped_bytes;
	sum->dropped_kallsyms = res.dropped_kallsyms;
	sum->btf_left_out = m.btf.len && (m.version != 7 || m.zip == TFW_ZIP_NONE);
	sum->dropped_cmdlines = res.dropped_cmdlines;
	if (e)
		tr_fail(e, "cannot write the trace file: %s", strerror(-e));
	free(src);
	free(none);
	free(ssrc);
	for (size_t i = 0; i < nmore; i++)
		free(msrc[i]);
	free(msrc);
	free(bufs);
	for (int c = 0; c < ncpus; c++)
		free(texts[c]);
	free(texts);
	free(after);
	tfw_meta_free(&m);
	return e;
}

int rec_write_latency(int fd, struct tfs_inst *in, uint64_t *max_us, uint64_t *bytes)
{
	struct tfw_meta m;
	struct tfw_result res;
	char *text = NULL, *max = NULL, *all;
	int e;

	*max_us = 0;
	*bytes = 0;
	e = tfs_read(in, "tracing_max_latency", &max);
	if (e)
		return tr_fail(e, "cannot read tracing_max_latency: %s", strerror(-e));
	*max_us = strtoull(max, NULL, 10);
	free(max);
	e = tfs_read(in, "trace", &text);
	if (e)
		return tr_fail(e, "cannot read the latency trace: %s", strerror(-e));
	e = tfw_meta_gather(&m, in, NULL);
	if (e) {
		free(text);
		return e;
	}
	/* Nothing in the file is formatted from the symbols: leave the megabytes out. */
	tfw_meta_drop_kallsyms(&m);
	free(m.printk.data);
	m.printk = (struct tfw_blob){ 0 };
	/*
	 * Note that trace-cmd, seeing a TRACECLOCK option, reads a clock after
	 * "latency" as after a flyrecord table, and so loses the text's first
	 * eight bytes: leave it out, as trace-cmd does (the text has no clock).
	 */
	for (size_t i = 0; i < m.nopts; i++)
		if (m.opts[i].id == TFW_OPT_TRACECLOCK) {
			free(m.opts[i].data.data);
			m.opts[i--] = m.opts[--m.nopts];
		}
	all = xasprintf("# tracing_max_latency: %llu us\n%s", (unsigned long long)*max_us, text);
	e = tfw_write_latency(fd, &m, all, strlen(all), &res);
	*bytes = res.bytes;
	if (e)
		tr_fail(e, "cannot write the trace file: %s", strerror(-e));
	free(all);
	free(text);
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

void rec_latency_print(FILE *f, const char *tracer, uint64_t max_us, uint64_t bytes,
		       const char *path)
{
	char b[32];

	human(b, sizeof(b), bytes);
	fprintf(f, "%s: max latency %llu us\nwrote '%s' (%s)\n", tracer,
		(unsigned long long)max_us, path, b);
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
	for (size_t i = 0; i < s->nbufs; i++) {
		human(b, sizeof(b), s->bufs[i].bytes);
		fprintf(f, "buffer %s: %llu events, %llu lost, %s\n",
			s->bufs[i].name ? s->bufs[i].name : "top", (unsigned long long)s->bufs[i].events,
			(unsigned long long)s->bufs[i].lost, b);
	}
	if (s->snapshot_bytes) {
		human(b, sizeof(b), s->snapshot_bytes);
		fprintf(f, "snapshot buffer: %s, kept as buffer 'snapshot'\n", b);
	}
	if (!path)
		return;
	human(b, sizeof(b), s->file_bytes);
	fprintf(f, "wrote '%s' (%s)\n", path, b);
}

void rec_readers_print(FILE *f, const struct rec_summary *s)
{
	for (int c = 0; c < s->ncpus; c++) {
		const struct rec_reader_info *rd = &s->cpu[c].rd;

		fprintf(f, "cpu%d: reader %s", c, rec_reader_name(rd->kind));
		if (rd->fallback_err)
			fprintf(f, " (mmap failed: %s)", strerror(-rd->fallback_err));
		if (rd->rt_prio)
			fprintf(f, ", SCHED_FIFO %d", rd->rt_prio);
		else
			fprintf(f, ", nice %d", rd->nice);
		if (rd->slice_ns)
			fprintf(f, ", slice %.3f ms", rd->slice_ns / 1e6);
		fprintf(f, ", %llu wake-ups, at most %llu sub-buffers and %.3f ms per wake-up, "
			   "%.3f ms reading in all",
			(unsigned long long)rd->wakes, (unsigned long long)rd->max_wake_subbufs,
			rd->max_wake_ns / 1e6, rd->busy_ns / 1e6);
		if (rd->kind == REC_READER_MMAP)
			fprintf(f, ", %llu taken while being written",
				(unsigned long long)rd->pieces);
		fputc('\n', f);
	}
}

void rec_summary_free(struct rec_summary *s)
{
	free(s->cpu);
	s->cpu = NULL;
	free(s->bufs);
	s->bufs = NULL;
	s->nbufs = 0;
}

unsigned rec_file_flags(int version, int zip)
{
	if (version == 6)
		return 0;
	return REC_FILE_V7 | REC_ZIP(zip < 0 ? TFW_ZIP_ZSTD : zip);
}
