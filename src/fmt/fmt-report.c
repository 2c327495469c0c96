// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report pipeline behind `tr report`: open the files, give each a
 * formatter source (names, plugins, filters), learn task names from the
 * trace in a first quick pass, then merge every buffer's every CPU of every
 * file in one streaming pass and format each record.  Also --stat, --events
 * and --first-event/--last-event, which read the same cursors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>

#include "btf.h"
#include "fmt-tprof.h"
#include "fmt.h"
#include "tfs-persist.h"

struct input {
	struct run *x;
	struct tfile *tf;
	struct btf *btf;	/* the file's own (BTF_FILE), once loaded */
	int64_t ts_offset;	/* --ts-offset, added to every timestamp */
	struct fmt_src *src;
	struct tep_plugin_list *plugins;
	char **prefix;		/* per buffer: "" or "NAME: " */
};

struct cur {
	struct tfile_cursor *c;
	struct input *in;
	int buffer, cpu_index;
	const char *clock;	/* the buffer's trace clock (buffer_clock) */
	/* --stat */
	uint64_t events, lost;
	bool lost_unknown;
};

struct run {
	const struct fmt_report *r;
	struct btf *btf;	/* this kernel's, for files it wrote */
	bool btf_tried;
	FILE *out;
	struct fmt *f;
	struct input *in;
	size_t nin;
	struct cur *cur;
	size_t ncur;
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The cursor's next record, its time moved by the input's --ts-offset. */
static int cur_read(struct cur *c, struct tfile_event *ev)
{
	int r = tfile_cursor_next(c->c, ev);
	int64_t off = c->in->ts_offset;

	if (r == 1 && off) {
		/*
		 * The time stops at 0 or at the largest rather than wrapping.  The
		 * offset's magnitude is taken unsigned: -INT64_MIN has no int64_t.
		 */
		uint64_t mag = off < 0 ? 0 - (uint64_t)off : (uint64_t)off;

		if (off < 0)
			ev->ts = ev->ts < mag ? 0 : ev->ts - mag;
		else
			ev->ts = ev->ts > UINT64_MAX - mag ? UINT64_MAX : ev->ts + mag;
	}
	return r;
}

static int cur_next(void *ctx, struct tfile_event *ev)
{
	return cur_read(ctx, ev);
}

static bool cpu_wanted(const struct fmt_report *r, int cpu)
{
	if (!r->cpus)
		return true;
	if (cpu < 0 || cpu >= r->max_cpus)
		return false;
	return r->cpus[cpu / 64] >> (cpu % 64) & 1;
}

static bool buffer_wanted(const struct fmt_report *r, const struct tfile_buffer *b)
{
	if (!r->buffers.n)
		return true;
	for (size_t i = 0; i < r->buffers.n; i++)
		if (!strcmp(r->buffers.v[i], b->name[0] ? b->name : "top"))
			return true;
	return false;
}

/* Every --buffer must name a buffer of some input. */
static int check_buffers(struct run *x)
{
	for (size_t k = 0; k < x->r->buffers.n; k++) {
		const char *want = x->r->buffers.v[k];
		char *names = xstrdup("");
		bool found = false;

		for (size_t i = 0; i < x->nin && !found; i++)
			for (int b = 0; b < tfile_nbuffers(x->in[i].tf); b++) {
				const char *n = tfile_buffer(x->in[i].tf, b)->name;
				char *t = xasprintf("%s%s%s", names, *names ? ", " : "", n[0] ? n : "top");

				free(names);
				names = t;
				found |= !strcmp(want, n[0] ? n : "top");
			}
		if (!found) {
			int e = tr_fail(-ENOENT, "no buffer '%s' in %s%s%s (buffers: %s)", want,
					x->nin > 1 ? "the files" : "'",
					x->nin > 1 ? "" : tfile_path(x->in[0].tf),
					x->nin > 1 ? "" : "'", names);

			free(names);
			return e;
		}
		free(names);
	}
	return 0;
}

static int open_cursors(struct run *x)
{
	for (size_t i = 0; i < x->ncur; i++) {
		struct cur *c = &x->cur[i];
		int err;

		tfile_cursor_free(c->c);
		c->c = NULL;
		err = tfile_cursor_open(c->in->tf, c->buffer, c->cpu_index, &c->c);
		if (err)
			return err;
	}
	return 0;
}

static void list_cursors(struct run *x)
{
	for (size_t i = 0; i < x->nin; i++) {
		struct tfile *tf = x->in[i].tf;

		for (int b = 0; b < tfile_nbuffers(tf); b++) {
			const struct tfile_buffer *buf = tfile_buffer(tf, b);

			if (buf->latency || !buffer_wanted(x->r, buf))
				continue;
			for (int c = 0; c < buf->ncpus; c++) {
				if (!buf->cpus[c].size || !cpu_wanted(x->r, buf->cpus[c].cpu))
					continue;
				x->cur = xrealloc(x->cur, (x->ncur + 1) * sizeof(*x->cur));
				x->cur[x->ncur++] = (struct cur){ .in = &x->in[i], .buffer = b,
								  .cpu_index = c };
			}
		}
	}
}

/* Does any event in this file name tasks in its fields (so learning pays)? */

/*
 * First pass: names of tasks that saved_cmdlines does not know, and which
 * events occur, so the kallsyms are parsed only when one prints symbols
 * (or the text is raw or from plugins, which may).
 */
static void load_tep_kallsyms(void *tf) { tfile_load_kallsyms(tf); }

/* fmt_src_lazy(): tfile_load_event() of the file whose tep it is (TFILE_LAZY_FORMATS). */
static int load_event(void *tf, struct tep_handle *tep, int id)
{
	(void)tep;
	return tfile_load_event(tf, id);
}

static int learn_comms(struct run *x)
{
	struct tfile_event ev;
	bool *walked = xcalloc(x->nin + 1, sizeof(*walked));
	bool *names = xcalloc(x->nin + 1, sizeof(*names));
	int r;

	/* Once a file, not once a CPU: it reads every format's text. */
	for (size_t i = 0; i < x->nin; i++)
		names[i] = tfile_has_field(x->in[i].tf, "comm");
	for (size_t i = 0; i < x->ncur; i++) {
		struct cur *c = &x->cur[i];

		if (!names[c->in - x->in]) {
			/*
			 * The first record still says whether the CPU ran the
			 * function_graph tracer, so that its view starts at the top.
			 */
			if ((r = tfile_cursor_next(c->c, &ev)) == 1)
				fmt_src_learn(c->in->src, &ev);
			if (r < 0) {
				free(walked);
				free(names);
				return r;
			}
			continue;
		}
		walked[c->in - x->in] = true;
		while ((r = tfile_cursor_next(c->c, &ev)) == 1)
			fmt_src_learn(c->in->src, &ev);
		if (r < 0) {
			free(walked);
			free(names);
			return r;
		}
	}
	for (size_t i = 0; i < x->nin; i++)
		if (!walked[i] || x->r->plugins || x->r->fo.raw ||
		    fmt_src_needs_symbols(x->in[i].src)) {
			if (x->r->fo.lib) {
				tfile_load_kallsyms(x->in[i].tf);
				continue;
			}
			fmt_src_kallsyms(x->in[i].src, tfile_kallsyms_text(x->in[i].tf));
			fmt_src_tep_symbols_loader(x->in[i].src, load_tep_kallsyms, x->in[i].tf);
		}
	free(walked);
	free(names);
	return open_cursors(x);
}

static int output_error(struct run *x)
{
	int err = fmt_flush(x->f);

	if (err == -EPIPE)
		return 0;
	if (err)
		return tr_fail(err, "cannot write the report: %s", strerror(-err));
	return 0;
}

/*
 * The clock of the cursor's buffer.  Note that trace-cmd writes "local" as
 * an instance buffer's clock whatever it was, and the clock it set (-C) only
 * in the file's trace_clock: a clock that does not count ns in either is
 * the one (an instance that trace-cmd extract saved reads as ns, as in
 * trace-cmd report).
 */
static const char *buffer_clock(struct tfile *tf, int buffer)
{
	const struct tfile_buffer *b = tfile_buffer(tf, buffer);
	const char *top = tfile_info(tf)->clock;

	if (b->clock && *b->clock && (!fmt_clock_in_ns(b->clock) || !top))
		return b->clock;
	return top;
}

static void set_clock(struct cur *c)
{
	if (!c->clock)
		c->clock = buffer_clock(c->in->tf, c->buffer);
	fmt_src_clock(c->in->src, c->clock, tfile_info(c->in->tf)->tsc2nsec);
}

static int merge_peek(void *ctx, struct tfile_event **next)
{
	return fmt_merge_peek(ctx, next);
}

static void merge_skip(void *ctx)
{
	fmt_merge_skip(ctx);
}

static int print_events(struct run *x)
{
	struct fmt_merge *m = fmt_merge_new();
	struct tfile_event *ev;
	struct cur *c;
	uint64_t n = 0;
	int r = 0;

	for (size_t i = 0; i < x->ncur && !r; i++)
		r = fmt_merge_add(m, cur_next, &x->cur[i], &x->cur[i]);
	/* The function_graph view looks one record ahead on a CPU for leaf calls. */
	fmt_lookahead(x->f, merge_peek, merge_skip, m);
	/* A terminal's reader sees each line as it is done; others get large writes. */
	fmt_buffer(x->f, !isatty(fileno(x->out)));
	while (!r && (r = fmt_merge_next(m, &ev, (void **)&c)) == 1) {
		r = 0;
		set_clock(c);
		fmt_event(x->f, c->in->src, c->in->prefix[c->buffer], ev);
		if (!(++n & 4095) && (tr_stop || ferror(x->out) || fmt_error(x->f)))
			break;
	}
	/* What was printed before an error goes out, as before the error's message. */
	fmt_buffer(x->f, false);
	fmt_lookahead(x->f, NULL, NULL, NULL);
	fmt_merge_free(m);
	if (r < 0)
		return r;
	return 0;
}

/* --mem: every record of every buffer, in time order, into the table. */
static int print_mem(struct run *x)
{
	struct fmt_mem *mem;
	struct fmt_merge *m;
	struct tfile_event *ev;
	struct cur *c;
	int r = 0;

	tfile_load_kallsyms(x->in[0].tf);
	mem = fmt_mem_new(tfile_tep(x->in[0].tf));
	if (!fmt_mem_has_events(mem)) {
		fmt_mem_free(mem);
		return tr_fail(-ENOENT, "'%s' has no kmem allocation events (record -e kmem:kmalloc "
					"-e kmem:kfree)", tfile_path(x->in[0].tf));
	}
	m = fmt_merge_new();
	for (size_t i = 0; i < x->ncur && !r; i++)
		r = fmt_merge_add(m, cur_next, &x->cur[i], &x->cur[i]);
	while (!r && (r = fmt_merge_next(m, &ev, (void **)&c)) == 1) {
		r = 0;
		fmt_mem_event(mem, ev);
	}
	fmt_merge_free(m);
	if (r >= 0) {
		r = 0;
		fmt_mem_print(mem, x->out);
	}
	fmt_mem_free(mem);
	return r;
}

static void tprof_name(void *arg, unsigned nr, const char *name)
{
	fmt_tprof_syscall_name(arg, nr, name);
}

/* --profile: every record of every buffer, in time order, into the task profile. */
static int print_profile(struct run *x)
{
	struct tep_handle *tep = tfile_tep(x->in[0].tf);
	struct fmt_tprof *p = fmt_tprof_new();
	struct fmt_tprof_src *src = fmt_tprof_src_new(tep, p);
	struct fmt_tprof_opts o = { x->r->by_comm, fmt_tprof_src_sym, tep };
	struct fmt_merge *m;
	struct tfile_event *ev;
	uint64_t last = 0;
	struct cur *c;
	int r = 0;

	if (!src) {
		fmt_tprof_free(p);
		return tr_fail(-ENOENT, "'%s' has no sched_switch events to profile (record "
					"--profile)", tfile_path(x->in[0].tf));
	}
	tfile_load_kallsyms(x->in[0].tf);
	/* The names of this machine's system calls: a recording is mostly read where it was made. */
	syscall_names(tprof_name, p);
	m = fmt_merge_new();
	for (size_t i = 0; i < x->ncur && !r; i++)
		r = fmt_merge_add(m, cur_next, &x->cur[i], &x->cur[i]);
	while (!r && (r = fmt_merge_next(m, &ev, (void **)&c)) == 1) {
		r = 0;
		fmt_tprof_src_event(src, ev);
		last = ev->ts > last ? ev->ts : last;
	}
	fmt_merge_free(m);
	if (r >= 0) {
		r = 0;
		fmt_tprof_end(p, last);
		fmt_tprof_print(p, x->out, &o);
	}
	fmt_tprof_src_free(src);
	fmt_tprof_free(p);
	return r;
}

/* --first-event / --last-event: one line per buffer and CPU. */
static int print_ends(struct run *x)
{
	struct tfile_event ev, keep;
	uint8_t *copy = NULL;
	size_t cap = 0;
	int r = 0;

	for (size_t i = 0; i < x->ncur && !r; i++) {
		struct cur *c = &x->cur[i];
		bool have = false;

		set_clock(c);
		if (x->r->first) {
			r = cur_read(c, &ev);
			/* 1 is "printed one", not a reason to stop at this CPU. */
			if (r == 1) {
				fmt_event(x->f, c->in->src, c->in->prefix[c->buffer], &ev);
				r = 0;
			}
		}
		if (!x->r->last || r < 0)
			continue;
		/* Keep a copy: the cursor's memory moves on with the next chunk. */
		while ((r = cur_read(c, &ev)) == 1) {
			if (ev.size >= cap) {
				cap = ev.size + 1;
				copy = xrealloc(copy, cap);
			}
			memcpy(copy, ev.data, ev.size);
			keep = ev;
			keep.data = copy;
			have = true;
		}
		if (!r && have) {
			keep.missed = 0;
			fmt_event(x->f, c->in->src, c->in->prefix[c->buffer], &keep);
		}
	}
	free(copy);
	return r < 0 ? r : 0;
}

struct ev_count {
	char *name;		/* "system:event" */
	uint64_t n;
};

static int cmp_count(const void *a, const void *b)
{
	const struct ev_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* A time: seconds, or the count of a clock that does not count ns. */
static void put_ts(FILE *o, uint64_t ts, const char *unit)
{
	if (unit)
		fprintf(o, "%" PRIu64, ts);
	else
		fprintf(o, "%" PRIu64 ".%09" PRIu64, ts / 1000000000, ts % 1000000000);
}

/* What a clock that is not in ns counts, or NULL for ns. */
static const char *clock_unit(struct run *x)
{
	const struct tfile_info *in;
	const char *clock, *b, *e;

	if (!x->ncur)
		return NULL;
	in = tfile_info(x->cur[0].in->tf);
	clock = buffer_clock(x->cur[0].in->tf, x->cur[0].buffer);
	if (!clock || in->tsc2nsec || fmt_clock_in_ns(clock))
		return NULL;
	b = strchr(clock, '[');
	e = b ? strchr(b, ']') : NULL;
	if (b && e) {
		clock = b + 1;
	} else {
		e = clock + strcspn(clock, " \n");
	}
	if (!strncmp(clock, "uptime", e - clock))
		return "jiffies";
	if (!strncmp(clock, "counter", e - clock))
		return "counts";
	return "cycles";
}

/*
 * The clock the trace was recorded with.  The file stores the trace_clock
 * file as it read then ("[local] global counter ..."): the one in use is the
 * bracketed one; a file holding a bare name (or an odd text) prints as is.
 */
static void put_clock(FILE *o, const char *clock)
{
	const char *open = strchr(clock, '['), *close = open ? strchr(open, ']') : NULL;
	size_t n = strcspn(clock, "\n");

	if (open && close)
		fprintf(o, "%.*s", (int)(close - open - 1), open + 1);
	else
		fprintf(o, "%.*s", (int)n, clock);
}

/* The input whose TRACEID a guest's TIME_SHIFT names, or NULL. */
static struct input *host_of(struct run *x, const struct tfile_tsync *t)
{
	for (size_t i = 0; i < x->nin; i++) {
		const struct tfile_info *in = tfile_info(x->in[i].tf);

		if (in->has_trace_id && in->trace_id == t->peer_id && !in->tsync)
			return &x->in[i];
	}
	return NULL;
}

/* The name the host's GUEST option gives the guest file tf, or NULL. */
static const char *guest_name(struct input *host, struct tfile *tf)
{
	const struct tfile_info *h = tfile_info(host->tf), *g = tfile_info(tf);

	for (int k = 0; g->has_trace_id && k < h->nguests; k++)
		if (h->guests[k].trace_id == g->trace_id)
			return h->guests[k].name;
	return NULL;
}

/*
 * With several files (or a guest's), say whose clock each file's times are
 * on: a guest's moved to its host's by its time shift, the rest as recorded
 * (files from tr listen's several hosts: nothing relates their clocks).
 */
static void print_clocks(struct run *x)
{
	for (size_t i = 0; i < x->nin; i++) {
		struct tfile *tf = x->in[i].tf;
		const struct tfile_tsync *t = tfile_info(tf)->tsync;
		const char *name = base_name(tfile_path(tf));
		struct input *host;
		const char *guest;

		if (!t) {
			if (x->nin > 1)
				fprintf(x->out, "# %s: clock as recorded\n", name);
			continue;
		}
		host = host_of(x, t);
		guest = host ? guest_name(host, tf) : NULL;
		if (host)
			fprintf(x->out, "# %s: clock moved to %s's", name,
				base_name(tfile_path(host->tf)));
		else
			fprintf(x->out, "# %s: clock moved to its host's (trace id 0x%" PRIx64
				", not among the files)", name, t->peer_id);
		if (guest)
			fprintf(x->out, " (guest '%s')", guest);
		fprintf(x->out, ", by a time shift of %" PRIu64 " sample%s\n", t->nsamples,
			t->nsamples == 1 ? "" : "s");
	}
}

static void print_tsync_info(FILE *o, const struct tfile_info *in)
{
	const struct tfile_tsync *t = in->tsync;

	if (in->has_trace_id)
		fprintf(o, "trace id:       0x%" PRIx64 "\n", in->trace_id);
	if (t) {
		int with = 0;

		for (int c = 0; c < t->ncpus; c++)
			with += t->cpus[c].n > 0;
		fprintf(o, "time shift:     to the clock of trace id 0x%" PRIx64 ", %" PRIu64
			" sample%s on %d CPU%s%s\n", t->peer_id, t->nsamples,
			t->nsamples == 1 ? "" : "s", with, with == 1 ? "" : "s",
			t->flags & TFILE_TSYNC_INTERPOLATE ? ", interpolated" : "");
	}
	for (int k = 0; k < in->nguests; k++) {
		const struct tfile_guest *g = &in->guests[k];

		fprintf(o, "guest:          %s, trace id 0x%" PRIx64 ", %d vCPU%s", g->name,
			g->trace_id, g->nvcpus, g->nvcpus == 1 ? "" : "s");
		for (int c = 0; c < g->nvcpus && c < 64; c++)
			fprintf(o, "%s%d", c ? " " : " (host tasks ", g->pids[c]);
		fprintf(o, "%s\n", !g->nvcpus ? "" : g->nvcpus > 64 ? " ...)" : ")");
	}
}

static void print_info(FILE *o, struct tfile *tf)
{
	const struct tfile_info *in = tfile_info(tf);

	fprintf(o, "file:           %s\n", tfile_path(tf));
	fprintf(o, "version:        %d (%s-endian, %d-byte long, page size %u)\n", in->version,
		in->big_endian ? "big" : "little", in->long_size, in->page_size);
	fprintf(o, "compression:    %s%s%s\n", in->compression,
		*in->compression_version ? " " : "", in->compression_version);
	fprintf(o, "size:           %" PRIu64 " bytes\n", in->file_size);
	fprintf(o, "cpus:           %d\n", in->cpus);
	if (in->clock) {
		fprintf(o, "clock:          ");
		put_clock(o, in->clock);
		fputc('\n', o);
	}
	if (in->uname)
		fprintf(o, "uname:          %s\n", in->uname);
	if (in->tracer_version)
		fprintf(o, "recorded by:    %s\n", in->tracer_version);
	if (in->ts_offset)
		fprintf(o, "time offset:    %" PRId64 " ns\n", in->ts_offset);
	print_tsync_info(o, in);
	fprintf(o, "event formats:  %d\n", in->nformats);
	if (in->nprocmaps) {
		fprintf(o, "memory maps:    %d process%s (pid", in->nprocmaps,
			in->nprocmaps == 1 ? "" : "es");
		for (int k = 0; k < in->nprocmaps && k < 16; k++)
			fprintf(o, " %d", in->procmaps[k].pid);
		fprintf(o, "%s)\n", in->nprocmaps > 16 ? " ..." : "");
	}
	fprintf(o, "options:       ");
	for (size_t k = 0; k < in->options.n; k++)
		fprintf(o, " %s", in->options.v[k]);
	fprintf(o, "\nbuffers:       ");
	for (int b = 0; b < tfile_nbuffers(tf); b++) {
		const struct tfile_buffer *buf = tfile_buffer(tf, b);

		fprintf(o, " %s%s", buf->name[0] ? buf->name : "(top)",
			buf->latency ? " (latency text)" : "");
	}
	fputc('\n', o);
}

/* Add one input's counts by event id to counts[], by name (files may number events apart). */
static void add_counts(struct run *x, size_t i, const uint64_t *by_id, struct ev_count **counts,
		       size_t *ncounts)
{
	for (int id = 0; id < 65536; id++) {
		const char *sys, *name;
		char *full;
		size_t k;

		if (!by_id[id])
			continue;
		name = fmt_src_event_name(x->in[i].src, id, &sys);
		if (name)
			full = xasprintf("%s:%s", sys, name);
		else
			full = xasprintf("(unknown id %d)", id);
		for (k = 0; k < *ncounts && strcmp((*counts)[k].name, full); k++)
			;
		if (k < *ncounts) {
			(*counts)[k].n += by_id[id];
			free(full);
			continue;
		}
		*counts = xrealloc(*counts, (*ncounts + 1) * sizeof(**counts));
		(*counts)[(*ncounts)++] = (struct ev_count){ .name = full, .n = by_id[id] };
	}
}

static void free_counts(struct ev_count *counts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(counts[i].name);
	free(counts);
}

/*
 * A file with several buffers: each one's events and losses over its
 * CPUs, and its counts per event (by_buf[b], by event id).
 */
static void print_buffer_stats(struct run *x, size_t i, uint64_t **by_buf)
{
	const struct tfile *tf = x->in[i].tf;

	for (int b = 0; b < tfile_nbuffers(tf); b++) {
		const struct tfile_buffer *tb = tfile_buffer(tf, b);
		uint64_t events = 0, lost = 0;
		struct ev_count *counts = NULL;
		size_t ncounts = 0;
		bool unknown = false;

		if (!buffer_wanted(x->r, tb))
			continue;
		for (size_t k = 0; k < x->ncur; k++) {
			struct cur *c = &x->cur[k];

			if (c->in != &x->in[i] || c->buffer != b)
				continue;
			events += c->events;
			lost += c->lost;
			unknown |= c->lost_unknown;
		}
		fprintf(x->out, "  %-20s %12" PRIu64 " events %10" PRIu64 " lost%s%s%s\n",
			tb->name[0] ? tb->name : "(top)", events, lost, unknown ? " (and more)" : "",
			x->nin > 1 ? "  " : "", x->nin > 1 ? tfile_path(tf) : "");
		if (by_buf[b])
			add_counts(x, i, by_buf[b], &counts, &ncounts);
		if (ncounts > 1)
			qsort(counts, ncounts, sizeof(*counts), cmp_count);
		for (size_t k = 0; k < ncounts; k++)
			fprintf(x->out, "    %-38s %12" PRIu64 "\n", counts[k].name, counts[k].n);
		free_counts(counts, ncounts);
	}
}

/*
 * The user stack records (userstacktrace) and the processes among theirs
 * that the file has no memory map of: their stacks print as bare
 * addresses (a process gone before tr could read its map).
 */
struct user_stacks {
	uint64_t records;
	size_t procs;		/* distinct tgids of each file, the first 4096 */
	int seen[4096];
	const struct fmt_src *seen_in[4096];
	int *bare;		/* the tgids without a map */
	size_t nbare;
};

static void count_user_stack(struct user_stacks *u, struct fmt_src *src,
			     const struct tfile_event *ev)
{
	int tgid = fmt_src_user_stack_tgid(src, ev);
	size_t i;

	if (tgid < 0)
		return;
	u->records++;
	for (i = 0; i < u->procs && (u->seen[i] != tgid || u->seen_in[i] != src); i++)
		;
	if (i < u->procs || u->procs == ARRAY_SIZE(u->seen))
		return;
	u->seen_in[u->procs] = src;
	u->seen[u->procs++] = tgid;
	if (fmt_src_has_procmap(src, tgid))
		return;
	u->bare = xrealloc(u->bare, (u->nbare + 1) * sizeof(*u->bare));
	u->bare[u->nbare++] = tgid;
}

static void print_user_stacks(FILE *o, const struct user_stacks *u)
{
	if (!u->records)
		return;
	fprintf(o, "user stacks:    %" PRIu64 " of %zu process%s", u->records, u->procs,
		u->procs == 1 ? "" : "es");
	if (u->nbare) {
		fprintf(o, ", %zu without a memory map (pid", u->nbare);
		for (size_t i = 0; i < u->nbare && i < 16; i++)
			fprintf(o, " %d", u->bare[i]);
		fprintf(o, "%s): bare addresses", u->nbare > 16 ? " ..." : "");
	}
	fputc('\n', o);
}

static int print_stat(struct run *x)
{
	FILE *o = x->out;
	uint64_t total = 0, lost = 0, first = UINT64_MAX, last = 0;
	bool lost_unknown = false, several = false;
	struct ev_count *counts = NULL;
	size_t ncounts = 0;
	struct tfile_event ev;
	uint64_t ***by_buf = xcalloc(x->nin, sizeof(*by_buf));
	struct user_stacks us = { 0 };
	int r = 0;

	for (size_t i = 0; i < x->nin; i++)
		print_info(o, x->in[i].tf);
	for (size_t i = 0; i < x->nin && !r; i++) {
		uint64_t *by_id = xcalloc(65536, sizeof(*by_id));
		int nbuf = tfile_nbuffers(x->in[i].tf);

		by_buf[i] = xcalloc(nbuf, sizeof(*by_buf[i]));
		for (size_t k = 0; k < x->ncur; k++) {
			struct cur *c = &x->cur[k];
			uint64_t *bb = NULL;

			if (c->in != &x->in[i])
				continue;
			if (nbuf > 1) {
				if (!by_buf[i][c->buffer])
					by_buf[i][c->buffer] = xcalloc(65536, sizeof(uint64_t));
				bb = by_buf[i][c->buffer];
			}
			while ((r = cur_read(c, &ev)) == 1) {
				int id;

				if (!fmt_src_match(c->in->src, &ev))
					continue;
				id = fmt_src_event_id(c->in->src, &ev);
				c->events++;
				if (ev.missed > 0)
					c->lost += ev.missed;
				else if (ev.missed < 0)
					c->lost_unknown = true;
				if (ev.ts < first)
					first = ev.ts;
				if (ev.ts > last)
					last = ev.ts;
				by_id[id < 0 ? 0 : id]++;
				if (bb)
					bb[id < 0 ? 0 : id]++;
				count_user_stack(&us, c->in->src, &ev);
			}
			if (r < 0)
				break;
			r = 0;
			total += c->events;
			lost += c->lost;
			lost_unknown |= c->lost_unknown;
		}
		if (!r)
			add_counts(x, i, by_id, &counts, &ncounts);
		free(by_id);
	}
	if (r < 0)
		goto out;

	fprintf(o, "events:         %" PRIu64 "\n", total);
	fprintf(o, "lost events:    %" PRIu64 "%s\n", lost,
		lost_unknown ? " (and more, count unknown)" : "");
	if (total) {
		const char *unit = clock_unit(x);

		fprintf(o, "first event:    ");
		put_ts(o, first, unit);
		fprintf(o, "\nlast event:     ");
		put_ts(o, last, unit);
		fprintf(o, "\ntime span:      ");
		put_ts(o, last - first, unit);
		fprintf(o, " %s\n", unit ? unit : "s");
	}
	fprintf(o, "per cpu:\n");
	for (size_t i = 0; i < x->ncur; i++) {
		struct cur *c = &x->cur[i];
		const struct tfile_buffer *b = tfile_buffer(c->in->tf, c->buffer);

		fprintf(o, "  cpu %-4d %12" PRIu64 " events %10" PRIu64 " lost%s",
			b->cpus[c->cpu_index].cpu, c->events, c->lost,
			c->lost_unknown ? " (and more)" : "");
		if (b->name[0])
			fprintf(o, "  buffer %s", b->name);
		if (x->nin > 1)
			fprintf(o, "  %s", tfile_path(c->in->tf));
		fputc('\n', o);
	}
	print_user_stacks(o, &us);
	if (ncounts)
		qsort(counts, ncounts, sizeof(*counts), cmp_count);
	fprintf(o, "per event:\n");
	for (size_t i = 0; i < ncounts; i++)
		fprintf(o, "  %-40s %12" PRIu64 "\n", counts[i].name, counts[i].n);
	for (size_t i = 0; i < x->nin; i++)
		several |= tfile_nbuffers(x->in[i].tf) > 1;
	if (several) {
		fprintf(o, "per buffer:\n");
		for (size_t i = 0; i < x->nin; i++)
			if (tfile_nbuffers(x->in[i].tf) > 1)
				print_buffer_stats(x, i, by_buf[i]);
	}
out:
	free(us.bare);
	free_counts(counts, ncounts);
	for (size_t i = 0; i < x->nin; i++) {
		for (int b = 0; by_buf[i] && b < tfile_nbuffers(x->in[i].tf); b++)
			free(by_buf[i][b]);
		free(by_buf[i]);
	}
	free(by_buf);
	return r;
}

/* --events: the formats as stored, one blank line between them. */
static void print_formats(struct run *x)
{
	for (size_t i = 0; i < x->nin; i++) {
		const struct strv *fm = tfile_formats(x->in[i].tf);

		if (x->nin > 1)
			fprintf(x->out, "file: %s\n", tfile_path(x->in[i].tf));
		for (size_t k = 0; k < fm->n; k++) {
			const char *nl = strchr(fm->v[k], '\n');
			const char *text = nl ? nl + 1 : fm->v[k];
			size_t n = strlen(text);

			fprintf(x->out, "system: %.*s\n%s%s\n", (int)(nl ? nl - fm->v[k] : 0),
				fm->v[k], text, n && text[n - 1] == '\n' ? "" : "\n");
		}
	}
}

static char *file_format(void *ctx, const char *system, const char *name)
{
	const char *t = tfile_format(ctx, system, name);

	return t ? xstrdup(t) : NULL;
}

/*
 * A persistent buffer's previous boot: say so once, with how its addresses
 * were mapped (tfile_last_boot()), or why they could not be.
 */
static void note_last_boot(struct tfile *tf)
{
	const char *inst, *bad;
	int64_t delta;
	const struct tfs_last_boot *lb = tfile_last_boot(tf, &inst, &delta, &bad);

	if (!lb)
		return;
	if (bad)
		tr_warn("'%s' holds events of an earlier boot, but %s: kernel addresses print as "
			"they were, and symbols cannot be trusted", tfile_path(tf), bad);
	else if (!lb->current)
		tr_warn("'%s' holds events of an earlier boot (instance '%s'); symbols moved by its "
			"kernel text delta %s0x%llx", tfile_path(tf), inst ? inst : "",
			delta < 0 ? "-" : "",
			(unsigned long long)(delta < 0 ? -(uint64_t)delta : (uint64_t)delta));
}

/* Was the file written on this machine's running kernel (the same uname)? */
static bool from_here(struct tfile *tf)
{
	const char *un = tfile_info(tf)->uname;
	struct utsname u;
	char *mine;
	bool same;

	if (!un || uname(&u))
		return false;
	mine = xasprintf("%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version, u.machine);
	same = !strcmp(mine, un);
	free(mine);
	return same;
}

/* The release in a uname option ("Linux host 6.12.3 #1 SMP ... x86_64"). */
static char *uname_release(struct tfile *tf)
{
	const char *un = tfile_info(tf)->uname, *p;
	size_t n;

	if (!un)
		return NULL;
	p = un + strcspn(un, " ");
	p += strspn(p, " ");
	p += strcspn(p, " ");
	p += strspn(p, " ");
	n = strcspn(p, " \n");
	return n ? strndup(p, n) : NULL;
}

/*
 * The BTF of the kernel that wrote the file, when that is the kernel
 * running now: the enum constants formats name.
 */
static const struct btf *file_btf(struct run *x, struct tfile *tf)
{
	char *data;
	size_t len;

	if (!from_here(tf))
		return NULL;
	if (!x->btf_tried) {
		x->btf_tried = true;
		if (!read_file("/sys/kernel/btf/vmlinux", &data, &len)) {
			x->btf = btf_load(data, len);
			free(data);
		}
	}
	return x->btf;
}

/*
 * The BTF an input's printer needs (function arguments, the enum constants
 * formats name), at its first use: the file's own, as trace-cmd 3.4 and tr
 * record it with function arguments, so that they print on any machine;
 * else this kernel's, for a file this kernel wrote.
 */
static const struct btf *input_btf(void *ctx)
{
	struct input *in = ctx;
	void *data;
	size_t len;
	int e = tfile_btf(in->tf, &data, &len);

	if (!e) {
		in->btf = btf_load(data, len);
		free(data);
		if (in->btf)
			return in->btf;
		tr_warn("'%s': its BTF is damaged; function arguments print as numbers",
			tfile_path(in->tf));
	} else if (e != -ENOENT) {
		tr_warn("%s; function arguments print as numbers", tr_failure());
	}
	return file_btf(in->x, in->tf);
}

/* The overruns per_cpu/cpuN/stats counted when the file was written ("overrun: N"). */
static uint64_t file_overruns(struct tfile *tf)
{
	const struct strv *st = &tfile_info(tf)->cpustats;
	uint64_t n = 0;

	for (size_t i = 0; i < st->n; i++) {
		const char *p = strstr(st->v[i], "overrun:");

		if (p)
			n += strtoull(p + 8, NULL, 10);
	}
	return n;
}

/* --header: the kernel's trace file header of each file, its entries counted. */
static int print_headers(struct run *x)
{
	struct tfile_event ev;
	int r = 0;

	for (size_t i = 0; i < x->nin && !r; i++) {
		uint64_t n = 0;

		for (size_t k = 0; k < x->ncur && !r; k++) {
			if (x->cur[k].in != &x->in[i])
				continue;
			while ((r = tfile_cursor_next(x->cur[k].c, &ev)) == 1)
				n++;
		}
		if (r < 0)
			return r;
		r = 0;
		fmt_header(x->f, x->in[i].src, n, n + file_overruns(x->in[i].tf));
	}
	return open_cursors(x);
}

static int setup_input(struct run *x, struct input *in, int width)
{
	struct tep_handle *tep = tfile_tep(in->tf);
	int nb = tfile_nbuffers(in->tf);

	if (x->r->plugins)
		in->plugins = tep_load_plugins(tep);
	in->src = fmt_src_new(x->f, tep);
	fmt_src_lazy(in->src, load_event, NULL, in->tf);
	if (!x->r->fo.lib) {
		char *rel = uname_release(in->tf);

		fmt_src_formats(in->src, file_format, in->tf);
		fmt_src_printk(in->src, tfile_printk(in->tf));
		fmt_src_btf_lazy(in->src, input_btf, in);
		fmt_src_kernel(in->src, rel);
		free(rel);
		if (from_here(in->tf))
			fmt_src_vmemmap(in->src, fmt_running_vmemmap());
	}
	fmt_src_cpus(in->src, tfile_info(in->tf)->cpus);
	if (x->nin > 1)
		fmt_src_file(in->src, base_name(tfile_path(in->tf)));
	fmt_src_graph_opts(in->src, tfile_info(in->tf)->graph_opts);
	fmt_src_cmdlines(in->src, tfile_cmdlines(in->tf));
	fmt_src_tgids(in->src, tfile_tgids(in->tf));
	fmt_src_procmaps(in->src, tfile_info(in->tf)->procmaps, tfile_info(in->tf)->nprocmaps);
	fmt_src_overran(in->src, file_overruns(in->tf) > 0);
	note_last_boot(in->tf);
	if (x->r->fo.kind == FMT_TEXT && !x->r->fo.lib && !x->r->stat && !x->r->list_events) {
		const char *m = fmt_src_missing(in->src);

		if (m)
			tr_warn("'%s': tr prints these trace options of the recording as it can: %s",
				tfile_path(in->tf), m);
	}
	for (size_t k = 0; k < x->r->filters.n; k++) {
		int err = fmt_src_filter(in->src, x->r->filters.v[k]);

		if (err)
			return err;
	}
	fmt_src_filter_invert(in->src, x->r->invert);
	fmt_src_tasks(in->src, x->r->pids, x->r->npids, &x->r->comms);
	if (x->r->ts_offsets)
		in->ts_offset = x->r->ts_offsets[in - x->in];
	/*
	 * As trace-cmd: once any buffer has a name, every line starts with its
	 * buffer's name right-aligned to the longest, and the top level's
	 * with as many spaces -- or, with several files, the file's name.
	 */
	in->prefix = xcalloc(nb ? nb : 1, sizeof(*in->prefix));
	for (int b = 0; b < nb; b++) {
		const char *name = tfile_buffer(in->tf, b)->name;

		if (!width || (x->r->fo.kind != FMT_TEXT && !name[0]))
			in->prefix[b] = xstrdup("");
		else if (x->r->fo.kind != FMT_TEXT)
			in->prefix[b] = xasprintf("%s: ", name);	/* JSON's "buffer" */
		else if (name[0])
			in->prefix[b] = xasprintf("%*s: ", width, name);
		else if (x->nin > 1)
			in->prefix[b] = xasprintf("%*s: ", width, base_name(tfile_path(in->tf)));
		else
			in->prefix[b] = xasprintf("%*s", width + 2, "");
	}
	return 0;
}

static int print_latency(struct run *x)
{
	for (size_t i = 0; i < x->nin; i++)
		for (int b = 0; b < tfile_nbuffers(x->in[i].tf); b++) {
			char *text;
			size_t len;
			int err;

			const struct tfile_buffer *buf = tfile_buffer(x->in[i].tf, b);

			if (!buf->latency || !buffer_wanted(x->r, buf))
				continue;
			err = tfile_text(x->in[i].tf, b, &text, &len);
			if (err)
				return err;
			/* trace-cmd report ends the text with an empty line: so do we. */
			fwrite(text, 1, len, x->out);
			fputc('\n', x->out);
			free(text);
		}
	return 0;
}

int fmt_report_run(const struct fmt_report *r, FILE *out)
{
	struct run x = { .r = r, .out = out };
	unsigned flags = 0;
	int err = 0, width = 0, namew = 0;

	tep_set_loglevel(TEP_LOG_CRITICAL);
	if (r->list_events)
		flags |= TFILE_KEEP_FORMATS | TFILE_NO_KALLSYMS;
	if (r->stat)
		flags |= TFILE_NO_KALLSYMS;
	else
		flags |= TFILE_LAZY_KALLSYMS;
	/* The kernel's printer parses the print fmts from the formats' text. */
	if (!r->stat && !r->fo.lib && !r->fo.raw)
		flags |= TFILE_KEEP_FORMATS;
	/*
	 * Printing looks events up by the records' ids: their formats are
	 * parsed as they come.  What looks them up by name or walks them
	 * (filters, the tables) has them all.
	 */
	if (!r->list_events && !r->stat && !r->mem && !r->profile && !r->filters.n)
		flags |= TFILE_LAZY_FORMATS;
	x.nin = r->inputs.n;
	x.in = xcalloc(x.nin, sizeof(*x.in));
	for (size_t i = 0; i < x.nin && !err; i++) {
		x.in[i].x = &x;
		err = tfile_open(r->inputs.v[i], flags, &x.in[i].tf);
	}
	if (err)
		goto out;
	if (r->list_events) {
		print_formats(&x);
		goto out;
	}
	err = check_buffers(&x);
	if (err)
		goto out;
	x.f = fmt_new(out, &r->fo);
	/* With several files, their names count too (they head the top buffers). */
	for (size_t i = 0; i < x.nin; i++) {
		int n = strlen(base_name(tfile_path(x.in[i].tf)));

		if (x.nin > 1 && n > width)
			width = n;
		if (n > namew)
			namew = n;
	}
	for (size_t i = 0; i < x.nin; i++)
		for (int b = 0; b < tfile_nbuffers(x.in[i].tf); b++) {
			int n = strlen(tfile_buffer(x.in[i].tf, b)->name);

			if (n > width)
				width = n;
		}
	for (size_t i = 0; i < x.nin && !err; i++)
		err = setup_input(&x, &x.in[i], width);
	if (err)
		goto out;
	list_cursors(&x);
	err = open_cursors(&x);
	if (err)
		goto out;
	if (r->stat) {
		err = print_stat(&x);
		goto out;
	}
	if (r->mem) {
		err = print_mem(&x);
		goto out;
	}
	if (r->profile) {
		err = print_profile(&x);
		goto out;
	}
	/* Learn names first: a damaged file is then found before anything is printed. */
	err = learn_comms(&x);
	if (err)
		goto out;
	if (r->header) {
		err = print_headers(&x);
		if (err)
			goto out;
	} else if (r->fo.kind == FMT_TEXT && !r->first && !r->last)
		for (size_t i = 0; i < x.nin; i++) {
			/*
			 * With several files, trace-cmd names each, right-aligned to
			 * the longest name so far: the files' and the buffers' of the
			 * files before.
			 */
			if (x.nin > 1)
				fprintf(out, "%*s: ", namew, base_name(tfile_path(x.in[i].tf)));
			fprintf(out, "cpus=%d\n", tfile_info(x.in[i].tf)->cpus);
			for (int b = 0; b < tfile_nbuffers(x.in[i].tf); b++) {
				int n = strlen(tfile_buffer(x.in[i].tf, b)->name);

				if (n > namew)
					namew = n;
			}
		}
	if (r->fo.kind == FMT_TEXT && !r->fo.lib && !r->first && !r->last)
		print_clocks(&x);
	err = print_latency(&x);
	if (err)
		goto out;
	if (r->first || r->last)
		err = print_ends(&x);
	else
		err = print_events(&x);
out:
	if (!err && x.f)
		err = output_error(&x);
	for (size_t i = 0; i < x.ncur; i++)
		tfile_cursor_free(x.cur[i].c);
	free(x.cur);
	if (x.f) {
		char *unread = fmt_user_syms_unread(x.f);

		/* Once, after the stacks: those objects' addresses are by offset alone. */
		if (unread)
			tr_warn("no user symbols from %s", unread);
		free(unread);
	}
	/* The sources' filters point into the tep handles: free them first. */
	fmt_free(x.f);
	for (size_t i = 0; i < x.nin; i++) {
		struct input *in = &x.in[i];

		if (in->prefix)
			for (int b = 0; b < tfile_nbuffers(in->tf); b++)
				free(in->prefix[b]);
		free(in->prefix);
		if (in->plugins)
			tep_unload_plugins(in->plugins, tfile_tep(in->tf));
		tfile_close(in->tf);
		btf_free(in->btf);
	}
	free(x.in);
	btf_free(x.btf);
	return err;
}
