// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr convert and tr split's engine (tfile-edit.h): a trace.dat read with
 * the reader, its metadata handed to the writer as it was, and its page
 * data either copied whole (convert) or cut into new sub-buffers event by
 * event (split).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tfile-edit.h"
#include "tfile-local.h"
#include "tfw-local.h"

/* At most this many parts from one split: more is a typo in -n. */
#define SPLIT_MAX_PARTS 10000
/* Pages are written to the staging files in batches of this many bytes. */
#define STAGE_BATCH (1u << 20)

/* "[local] global counter" -> "local"; a plain name stays as it is. */
static char *clock_name(const char *text)
{
	const char *o = text ? strchr(text, '[') : NULL, *c = o ? strchr(o, ']') : NULL;

	if (o && c)
		return xasprintf("%.*s", (int)(c - o - 1), o + 1);
	if (text && *text && !strchr(text, ' '))
		return xstrdup(text);
	return xstrdup("local");
}

int tfile_meta(struct tfile *tf, struct tfw_meta *m)
{
	const char *clock = NULL;
	uint32_t page_size = 0;
	int cpus = tf->info.cpus, e;

	memset(m, 0, sizeof(*m));
	if (tf->info.big_endian != tfw_host_big_endian())
		return tr_fail(-ENOTSUP, "'%s' was recorded on a %s-endian machine: tr writes "
			       "files in this machine's byte order only", tf->path,
			       tf->info.big_endian ? "big" : "little");
	for (int i = 0; i < tf->nbuffers; i++) {
		const struct tfile_buffer *b = &tf->buffers[i];

		if (b->latency)
			continue;
		if (!clock || !b->name[0])
			clock = b->clock && b->clock[0] ? b->clock : tf->info.clock;
		if (page_size && b->page_size != page_size)
			return tr_fail(-ENOTSUP, "'%s' has buffers of different sub-buffer sizes "
				       "(%u and %u bytes), which one file cannot hold", tf->path,
				       page_size, b->page_size);
		page_size = b->page_size;
		for (int c = 0; c < b->ncpus; c++)
			if (b->cpus[c].cpu >= cpus)
				cpus = b->cpus[c].cpu + 1;
	}
	/*
	 * Each buffer written gets a table of every CPU (v6 writes them all):
	 * as the reader, no more than TFILE_MAX_CPUS entries in all, however
	 * few bytes the input spent on declaring its CPUs and buffers.
	 */
	{
		size_t nb = 0;
		bool top = false;

		for (int i = 0; i < tf->nbuffers; i++) {
			nb += !tf->buffers[i].latency;
			top |= !tf->buffers[i].latency && !tf->buffers[i].name[0];
		}
		nb += !top;	/* an empty top level stands in (plan_make) */
		if (cpus > 0 && nb * (size_t)cpus > TFILE_MAX_CPUS)
			return tr_fail(-EOVERFLOW, "'%s' declares %d CPUs for %zu buffers: more than "
				       "the %d CPU buffers a file may hold", tf->path, cpus,
				       nb, TFILE_MAX_CPUS);
	}
	m->page_size = page_size ? page_size : tf->info.page_size;
	m->long_size = tf->info.long_size;
	m->cpus = cpus ? cpus : 1;
	m->clock = clock_name(clock ? clock : tf->info.clock);
	/* The file's own sizes (a peer's, in tr listen): no memory is this file's error. */
	e = tfw_blob_try_append(&m->header_page, tf->header_page, tf->header_page_len);
	e = e ?: tfw_blob_try_append(&m->header_event, tf->header_event, tf->header_event_len);
	for (size_t i = 0; !e && i < tf->formats.n; i++) {
		const char *sys = tf->formats.v[i], *text = strchr(sys, '\n');
		char *name;

		if (!text)
			continue;
		name = xasprintf("%.*s", (int)(text - sys), sys);
		tfw_meta_add_format(m, name, text + 1, strlen(text + 1));
		free(name);
	}
	if (!e && tf->kallsyms)
		e = tfw_blob_try_append(&m->kallsyms, tf->kallsyms, strlen(tf->kallsyms));
	if (!e && tf->printk)
		e = tfw_blob_try_append(&m->printk, tf->printk, strlen(tf->printk));
	if (!e && tf->cmdlines)
		e = tfw_blob_try_append(&m->cmdlines, tf->cmdlines, strlen(tf->cmdlines));
	if (!e && tf->modules)
		e = tfw_blob_try_append(&m->modules, tf->modules, strlen(tf->modules));
	if (!e && tf->btf_at) {
		void *d;
		size_t n;
		/* Read only now; a damaged section is reported by tfile_btf(). */
		int be = tfile_btf(tf, &d, &n);

		if (be) {
			tfw_meta_free(m);
			return be;
		}
		m->btf = (struct tfw_blob){ d, n };
	}
	for (size_t i = 0; !e && i < tf->nrawopts; i++) {
		tfw_meta_add_option(m, tf->rawopts[i].id, NULL, 0);
		e = tfw_blob_try_append(&m->opts[m->nopts - 1].data, tf->rawopts[i].data,
					tf->rawopts[i].len);
	}
	if (e) {
		tfw_meta_free(m);
		return tr_fail(e, "'%s': out of memory for its metadata (%llu bytes)", tf->path,
			       (unsigned long long)tf->size);
	}
	return 0;
}

/* ---- the buffers of the output ---- */

/*
 * The output's buffers: the top level first (the v6 layout has it first
 * and unnamed; an empty one stands in when the input has none), then the
 * instances in file order.  of[] maps the input's buffer index to ours.
 */
struct plan {
	struct tfw_buffer *bufs;
	size_t nbufs;
	int *of;
	int cpus;
};

static void plan_make(struct tfile *tf, const struct tfw_meta *m, int version, struct plan *p)
{
	int top = -1;

	*p = (struct plan){ .cpus = m->cpus };
	p->bufs = xcalloc(tf->nbuffers + 1, sizeof(*p->bufs));
	p->of = xcalloc(tf->nbuffers ? tf->nbuffers : 1, sizeof(*p->of));
	for (int i = 0; i < tf->nbuffers; i++) {
		p->of[i] = -1;
		if (!tf->buffers[i].latency && !tf->buffers[i].name[0] && top < 0)
			top = i;
	}
	if (top >= 0 || version != 7)
		p->nbufs = 1;
	if (top >= 0)
		p->of[top] = 0;
	for (int i = 0; i < tf->nbuffers; i++) {
		if (tf->buffers[i].latency || i == top)
			continue;
		p->of[i] = p->nbufs;
		p->bufs[p->nbufs++].name = tf->buffers[i].name;
	}
	for (size_t i = 0; i < p->nbufs; i++) {
		p->bufs[i].cpu = xcalloc(m->cpus, sizeof(struct tfw_src));
		for (int c = 0; c < m->cpus; c++)
			p->bufs[i].cpu[c].fd = -1;
	}
}

/* Close the staging files and empty every source, for the next part. */
static void plan_reset(struct plan *p)
{
	for (size_t i = 0; i < p->nbufs; i++)
		for (int c = 0; c < p->cpus; c++) {
			struct tfw_src *s = &p->bufs[i].cpu[c];

			if (s->fd >= 0)
				close(s->fd);
			*s = (struct tfw_src){ .fd = -1 };
		}
}

static void plan_free(struct plan *p)
{
	plan_reset(p);
	for (size_t i = 0; i < p->nbufs; i++)
		free(p->bufs[i].cpu);
	free(p->bufs);
	free(p->of);
}

/* An unnamed file for staging pages, removed when closed. */
static int stage_open(const char *dir)
{
	char *path;
	int fd;

	if (!dir)
		dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	path = xasprintf("%s/tr-stage.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	else
		fd = tr_fail(-errno, "cannot create a staging file in '%s': %s", dir,
			     strerror(errno));
	free(path);
	return fd;
}

static int stage_write(struct tfw_src *s, const void *p, size_t n)
{
	int r = tfw_pwrite_all(s->fd, p, n, s->size);

	if (r)
		return tr_fail(r, "cannot write a staging file: %s", strerror(-r));
	s->size += n;
	return 0;
}

/* The output's source for one input buffer's CPU, or NULL if it has none. */
static struct tfw_src *plan_src(struct tfile *tf, struct plan *p, int buffer, int cpu_index)
{
	int o = p->of[buffer], cpu = tf->buffers[buffer].cpus[cpu_index].cpu;

	return o < 0 || cpu < 0 || cpu >= p->cpus ? NULL : &p->bufs[o].cpu[cpu];
}

/* ---- convert ---- */

struct copy {
	struct tfw_src *src;
	const char *tmp_dir;
	bool mapped;
};

static int copy_pages(void *arg, const void *pages, size_t len)
{
	struct copy *c = arg;

	if (c->mapped) {
		/* Mapped data stays valid until tfile_close(): no copy needed. */
		c->src->mem = pages;
		c->src->size = len;
		return 0;
	}
	if (c->src->fd < 0) {
		c->src->fd = stage_open(c->tmp_dir);
		if (c->src->fd < 0)
			return c->src->fd;
	}
	return stage_write(c->src, pages, len);
}

static void target(const struct tfile *tf, const struct tfile_edit_opts *o, struct tfw_meta *m)
{
	m->version = o->version ? o->version : tf->info.version;
	if (m->version != 7)
		m->zip = TFW_ZIP_NONE;
	else if (o->zip >= 0)
		m->zip = o->zip;
	else
		m->zip = tf->zip == TFW_ZIP_ZLIB ? TFW_ZIP_ZLIB :
			 tf->zip == TFW_ZIP_ZSTD ? TFW_ZIP_ZSTD : TFW_ZIP_NONE;
}

static int latency_buffer(const struct tfile *tf)
{
	for (int i = 0; i < tf->nbuffers; i++)
		if (tf->buffers[i].latency)
			return i;
	return -1;
}

int tfile_convert(struct tfile *tf, int fd, const struct tfile_edit_opts *o,
		  struct tfw_result *res)
{
	struct tfw_meta m;
	struct plan p;
	int r = tfile_meta(tf, &m), lat = latency_buffer(tf);

	if (r)
		return r;
	target(tf, o, &m);
	if (lat >= 0) {
		char *text = NULL;
		size_t len = 0;

		/*
		 * Note that trace-cmd reads a v6 latency file that has a
		 * TRACECLOCK option as if a clock followed "latency", losing the
		 * text's first bytes: the text has no clock, so leave it out.
		 */
		for (size_t i = 0; m.version != 7 && i < m.nopts; i++)
			if (m.opts[i].id == TFW_OPT_TRACECLOCK) {
				free(m.opts[i].data.data);
				memmove(&m.opts[i], &m.opts[i + 1], (m.nopts - i - 1) * sizeof(*m.opts));
				m.nopts--;
				i--;
			}
		r = tfile_text(tf, lat, &text, &len);
		if (!r && (r = tfw_write_latency(fd, &m, text, len, res)))
			tr_fail(r, "cannot write the file: %s", strerror(-r));
		free(text);
		tfw_meta_free(&m);
		return r;
	}
	plan_make(tf, &m, m.version, &p);
	for (int b = 0; b < tf->nbuffers && !r; b++)
		for (int c = 0; c < tf->buffers[b].ncpus && !r; c++) {
			struct copy cp = { .src = plan_src(tf, &p, b, c), .tmp_dir = o->tmp_dir,
					   .mapped = !tf->buffers[b].compressed };

			if (cp.src && cp.src->size)
				r = tr_fail(-EBADMSG, "'%s': corrupt buffer table (CPU %d twice)",
					    tf->path, tf->buffers[b].cpus[c].cpu);
			else if (cp.src)
				r = tfile_cpu_pages(tf, b, c, copy_pages, &cp);
		}
	if (!r && (r = tfw_write(fd, &m, p.bufs, p.nbufs, 0, res)))
		tr_fail(r, "cannot write the file: %s", strerror(-r));
	plan_free(&p);
	tfw_meta_free(&m);
	return r;
}

/* ---- split ---- */

/* One input buffer's CPU, in the order tr report merges them. */
struct stream {
	int buffer, cpu_index, cpu;
	struct tfile_cursor *c;
	struct tfile_event ev;	/* pass 1: the next event, if have */
	bool have;
	uint64_t *take;		/* EVENTS: events of this stream in each part */
};

/* What one part keeps of each stream. */
struct sel {
	int mode;
	uint64_t start, end;	/* TIME: [start, end) */
	int cpu;		/* CPU */
	size_t part;		/* EVENTS: index into stream.take */
};

static int open_streams(struct tfile *tf, struct stream **out, size_t *n)
{
	struct stream *s = NULL;
	size_t k = 0;

	for (int b = 0; b < tf->nbuffers; b++) {
		if (tf->buffers[b].latency)
			continue;
		s = xrealloc(s, (k + tf->buffers[b].ncpus + 1) * sizeof(*s));
		for (int c = 0; c < tf->buffers[b].ncpus; c++)
			s[k++] = (struct stream){ .buffer = b, .cpu_index = c,
						  .cpu = tf->buffers[b].cpus[c].cpu };
	}
	*out = s;
	*n = k;
	return 0;
}

static void close_cursors(struct stream *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		tfile_cursor_free(s[i].c);
		s[i].c = NULL;
		s[i].have = false;
	}
}

static int stream_next(struct stream *s, struct tfile *tf)
{
	int r;

	if (!s->c && (r = tfile_cursor_open(tf, s->buffer, s->cpu_index, &s->c)))
		return r;
	r = tfile_cursor_next(s->c, &s->ev);
	s->have = r == 1;
	return r < 0 ? r : 0;
}

/*
 * An event's time as tr report prints it (microseconds, rounded): ranges
 * compare against that, so that a time copied from a report cuts there.
 */
static uint64_t shown(uint64_t ts)
{
	return ts > UINT64_MAX - 500 ? ts : (ts + 500) / 1000 * 1000;
}

/* The first event's time over all streams (tr report's first line), or 0. */
static int first_ts(struct tfile *tf, struct stream *s, size_t n, uint64_t *ts)
{
	bool any = false;
	int r = 0;

	*ts = 0;
	for (size_t i = 0; i < n && !r; i++) {
		r = stream_next(&s[i], tf);
		if (!r && s[i].have && (!any || shown(s[i].ev.ts) < *ts))
			*ts = shown(s[i].ev.ts), any = true;
	}
	close_cursors(s, n);
	return r;
}

/*
 * Pass 1 of an event-count split: merge the streams as tr report does (by
 * time, then stream order) and count each part's events per stream, so
 * that pass 2 can cut each stream on its own.
 */
static int count_parts(struct tfile *tf, struct stream *s, size_t n, uint64_t per,
		       size_t *nparts)
{
	uint64_t seen = 0;
	size_t cap = 0;
	int r = 0;

	*nparts = 0;
	for (size_t i = 0; i < n && !r; i++)
		r = stream_next(&s[i], tf);
	while (!r) {
		struct stream *min = NULL;
		size_t part;

		for (size_t i = 0; i < n; i++)
			if (s[i].have && (!min || s[i].ev.ts < min->ev.ts))
				min = &s[i];
		if (!min)
			break;
		part = seen++ / per;
		if (part >= cap) {
			if (part >= SPLIT_MAX_PARTS) {
				r = tr_fail(-E2BIG, "'%s' has more than %llu events: that would be "
					    "more than %d files", tf->path,
					    (unsigned long long)per * SPLIT_MAX_PARTS,
					    SPLIT_MAX_PARTS);
				break;
			}
			cap = cap ? cap * 2 : 16;
			for (size_t i = 0; i < n; i++) {
				s[i].take = xrealloc(s[i].take, cap * sizeof(*s[i].take));
				memset(s[i].take + *nparts, 0, (cap - *nparts) * sizeof(uint64_t));
			}
		}
		if (part + 1 > *nparts)
			*nparts = part + 1;
		min->take[part]++;
		r = stream_next(min, tf);
	}
	close_cursors(s, n);
	return r;
}

/* Flush the page being built (if it holds events) to the staging buffer. */
static int flush_page(struct tfile_page_out *po, struct tfw_blob *batch, struct tfw_src *src,
		      const char *tmp_dir, bool last)
{
	int r = 0;

	if (!po->empty) {
		tfile_page_out_finish(po);
		tfw_blob_append(batch, po->buf, po->l->page_size);
		tfile_page_out_start(po, po->l, po->buf);
	}
	if (batch->len && (last || batch->len >= STAGE_BATCH)) {
		if (src->fd < 0 && (src->fd = stage_open(tmp_dir)) < 0)
			return src->fd;
		r = stage_write(src, batch->data, batch->len);
		batch->len = 0;
	}
	return r;
}

/* Cut what sel keeps of one stream into new sub-buffers in src. */
static int cut_stream(struct tfile *tf, struct stream *s, const struct sel *sel,
		      struct tfw_src *src, const char *tmp_dir, struct tfile_part *part)
{
	const struct tfile_buffer *b = &tf->buffers[s->buffer];
	uint64_t want = sel->mode == TFILE_SPLIT_EVENTS ? s->take[sel->part] : UINT64_MAX, got = 0;
	uint8_t *page = xmalloc(b->page_size);
	struct tfw_blob batch = { 0 };
	struct tfile_page_out po;
	int r = 0;

	if (!s->c)
		r = tfile_cursor_open(tf, s->buffer, s->cpu_index, &s->c);
	tfile_page_out_start(&po, &b->layout, page);
	while (!r && got < want) {
		struct tfile_event ev;

		r = tfile_cursor_next(s->c, &ev);
		if (r <= 0)
			break;
		r = 0;
		if (sel->mode == TFILE_SPLIT_TIME) {
			if (shown(ev.ts) < sel->start)
				continue;
			if (shown(ev.ts) >= sel->end)
				break;
		}
		got++;
		if (!part->events || ev.ts < part->first_ts)
			part->first_ts = ev.ts;
		if (ev.ts > part->last_ts)
			part->last_ts = ev.ts;
		part->events++;
		r = tfile_page_out_add(&po, ev.raw_ts, ev.data, ev.size, ev.missed);
		if (r == 0) {
			r = flush_page(&po, &batch, src, tmp_dir, false);
			if (!r)
				r = tfile_page_out_add(&po, ev.raw_ts, ev.data, ev.size, ev.missed);
		}
		if (r < 0) {
			if (r == -EINVAL)
				r = tr_fail(r, "'%s': an event of %u bytes on CPU %d does not fit "
					    "in a sub-buffer", tf->path, ev.size, s->cpu);
			break;
		}
		r = 0;
	}
	if (!r)
		r = flush_page(&po, &batch, src, tmp_dir, true);
	free(batch.data);
	free(page);
	return r;
}

static int write_part(struct tfile *tf, struct tfw_meta *m, struct plan *p, struct stream *s,
		      size_t n, const struct sel *sel, const char *tmp_dir,
		      struct tfile_part *part)
{
	struct tfw_result res;
	int fd, r = 0;

	part->events = part->first_ts = part->last_ts = 0;
	for (size_t i = 0; i < n && !r; i++) {
		struct tfw_src *src = plan_src(tf, p, s[i].buffer, s[i].cpu_index);

		if (!src || (sel->mode == TFILE_SPLIT_CPU && s[i].cpu != sel->cpu))
			continue;
		r = cut_stream(tf, &s[i], sel, src, tmp_dir, part);
		if (sel->mode != TFILE_SPLIT_EVENTS) {
			tfile_cursor_free(s[i].c);
			s[i].c = NULL;
		}
	}
	if (r) {
		plan_reset(p);
		return r;
	}
	{
		struct stat in, out;

		/* A part named like the input would truncate the file being read. */
		if (!stat(tf->path, &in) && !stat(part->path, &out) && in.st_dev == out.st_dev &&
		    in.st_ino == out.st_ino) {
			plan_reset(p);
			return tr_fail(-EEXIST, "'%s' is the input file: give the parts another "
				       "name with -o", part->path);
		}
	}
	/*
	 * 0600 when new, as tr record's output: a part holds the kernel's
	 * symbols and the traced tasks' events.  An old one keeps its mode.
	 */
	fd = open(part->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		r = tr_fail(-errno, "cannot write '%s': %s", part->path, strerror(errno));
	else if ((r = tfw_write(fd, m, p->bufs, p->nbufs, 0, &res)))
		tr_fail(r, "cannot write '%s': %s", part->path, strerror(-r));
	if (fd >= 0 && close(fd) && !r)
		r = tr_fail(-errno, "cannot write '%s': %s", part->path, strerror(errno));
	plan_reset(p);
	return r;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int tfile_split(struct tfile *tf, const struct tfile_split_opts *o,
		void (*done)(void *arg, const struct tfile_part *p), void *arg)
{
	struct tfw_meta m;
	struct plan p;
	struct stream *s = NULL;
	size_t n = 0, nparts = 0;
	int *cpus = NULL, r;
	uint64_t t0 = 0;

	if (latency_buffer(tf) >= 0)
		return tr_fail(-ENOTSUP, "'%s' is a latency tracer's file (text, not events): "
			       "there is nothing to split", tf->path);
	r = tfile_meta(tf, &m);
	if (r)
		return r;
	target(tf, &o->edit, &m);
	plan_make(tf, &m, m.version, &p);
	open_streams(tf, &s, &n);
	if (o->mode == TFILE_SPLIT_TIME) {
		nparts = o->nranges;
		r = first_ts(tf, s, n, &t0);
	} else if (o->mode == TFILE_SPLIT_EVENTS) {
		r = count_parts(tf, s, n, o->events ? o->events : 1, &nparts);
	} else {
		/* The CPUs that have data, in order, once each. */
		cpus = xcalloc(n ? n : 1, sizeof(*cpus));
		for (size_t i = 0; i < n; i++) {
			const struct tfile_cpu *c = &tf->buffers[s[i].buffer].cpus[s[i].cpu_index];
			bool seen = false;

			for (size_t j = 0; j < nparts; j++)
				seen |= cpus[j] == c->cpu;
			if (c->size && !seen)
				cpus[nparts++] = c->cpu;
		}
		qsort(cpus, nparts, sizeof(*cpus), cmp_int);
	}
	for (size_t k = 0; k < nparts && !r; k++) {
		struct sel sel = { .mode = o->mode, .part = k, .cpu = -1 };
		struct tfile_part part = { .cpu = -1 };
		char *path;

		if (o->mode == TFILE_SPLIT_TIME) {
			const struct tfile_range *g = &o->ranges[k];

			sel.start = !g->has_start ? 0 : g->start_rel ? t0 + g->start : g->start;
			sel.end = !g->has_end ? UINT64_MAX : g->end_rel ? t0 + g->end : g->end;
			if (sel.end <= sel.start) {
				r = tr_fail(-EDOM, "time range %zu is empty: its end (%llu ns) is "
					    "not after its start (%llu ns)", k + 1,
					    (unsigned long long)sel.end,
					    (unsigned long long)sel.start);
				break;
			}
		} else if (o->mode == TFILE_SPLIT_CPU) {
			sel.cpu = part.cpu = cpus[k];
		}
		if (o->mode == TFILE_SPLIT_CPU)
			path = xasprintf("%s.cpu%d", o->prefix, cpus[k]);
		else
			path = xasprintf("%s.%zu", o->prefix, k + 1);
		part.path = path;
		r = write_part(tf, &m, &p, s, n, &sel, o->edit.tmp_dir, &part);
		if (!r && done)
			done(arg, &part);
		free(path);
	}
	close_cursors(s, n);
	for (size_t i = 0; i < n; i++)
		free(s[i].take);
	free(s);
	free(cpus);
	plan_free(&p);
	tfw_meta_free(&m);
	return r;
}
