// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live formatting (see stream.h).
 *
 * Note that the readers hand over partly filled sub-buffers only after
 * their CPU was quiet for a while (rec_opts.idle_ms), so a CPU's events
 * can come long after a busy CPU's later ones: stream-order.c holds each
 * event until the other CPUs have caught up with it, or --max-delay.
 *
 * The formatting runs on a thread of its own, woken when the queues fill,
 * so that a reader whose queue is full waits no longer than it takes to
 * format what is there, and so that it goes on while the session waits
 * for the readers to finish (they hand over the rest then).  The memory
 * is the queues' bound (queue_pages() per CPU, pooled) whatever the rate:
 * at a rate the formatting cannot keep up with, the kernel's ring buffer
 * is the buffer, and what it cannot hold prints as its lost events.
 *
 * Note where losses come from at a high rate (TR_DEBUG=stream prints the
 * formatting's figures; bench/stream.sh measures them): not from the
 * formatting's pace, which keeps up with a writer, but from its stall at
 * the first event that needs the kernel's symbols, while the readers fill
 * the queues and the ring buffer behind it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "btf.h"
#include "rec.h"
#include "session.h"
#include "stream.h"


struct stream {
	struct stream_opts o;
	struct rec *rec;		/* the session's; not ours to free */
	struct tep_handle *tep;
	struct session_lazy *lazy;	/* the formats as the records need them */
	struct fmt *fmt;
	struct fmt_src *src;
	struct tfile_layout layout;
	int ncpus;
	struct stream_order *order;	/* the readers' queues */
	pthread_t thread;		/* formats what they hand over */
	bool running;
	/* The thread starts before the session (its tid is filtered out), then waits for go. */
	pthread_mutex_t gate;
	pthread_cond_t gate_cond;
	pid_t tid;
	enum { STREAM_WAIT, STREAM_GO, STREAM_QUIT } state;
	int err;			/* the formatting's write error (the thread's) */
	uint64_t cmdlines_ns;		/* saved_cmdlines last read */
	int nameless;			/* a pid saved_cmdlines had no name for then */
	bool tgids;			/* record-tgid: saved_tgids read with them */
	int tgidless;			/* a pid saved_tgids had no process for then */
	int exec_id;			/* sched:sched_process_exec's id, or -1 */
	char *clock;		/* the instance's trace_clock, for the time column */
	struct btf *btf;	/* this kernel's constants, for the kernel's printer */
	/* TR_DEBUG=stream: where the formatting thread's time went, and the losses. */
	bool debug;
	uint64_t t0, fmt_ns, wait_ns, events, drains, max_drain_ns, max_drain_at, cpu_ns;
	uint64_t lost_pages, lost_events, first_lost_ns;
};

/* Called from each CPU's reader thread: whole sub-buffers, waiting for room. */
static int on_pages(void *arg, int cpu, const void *pages, size_t len)
{
	struct stream *s = arg;
	uint64_t now = tr_now_ns();
	const uint8_t *p = pages;
	int r = 0;

	for (size_t off = 0; s->debug && off + s->layout.page_size <= len;
	     off += s->layout.page_size) {
		struct tfile_page_head h;
		uint64_t zero = 0;

		if (tfile_page_head(&s->layout, p + off, s->layout.page_size, &h) || !h.missed)
			continue;
		__atomic_fetch_add(&s->lost_pages, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->lost_events, h.missed > 0 ? h.missed : 0, __ATOMIC_RELAXED);
		__atomic_compare_exchange_n(&s->first_lost_ns, &zero, now - s->t0, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
	for (size_t off = 0; !r && off + s->layout.page_size <= len; off += s->layout.page_size)
		r = stream_order_put(s->order, cpu, p + off, now, true);
	return r;
}

/* Called from a CPU's reader thread when it found the buffer empty. */
static void on_idle(void *arg, int cpu)
{
	struct stream *s = arg;

	stream_order_idle(s->order, cpu);
}

static int load_text(const struct tfs_inst *in, const char *file, char **out)
{
	int r = tfs_read(in, file, out);

	if (r == -ENOENT && in)
		r = tfs_read(NULL, file, out);
	return r;
}

/* The kernel's printer parses the print fmt from the event's format file. */
static char *live_format(void *ctx, const char *system, const char *name)
{
	char *path = xasprintf("events/%s/%s/format", system, name), *text = NULL;

	(void)ctx;
	if (tfs_read(NULL, path, &text))
		text = NULL;
	free(path);
	return text;
}

static void cmdlines(struct stream *s, uint64_t now)
{
	char *text = NULL;

	if (!load_text(NULL, "saved_cmdlines", &text))
		fmt_src_cmdlines(s->src, text);
	free(text);
	text = NULL;
	/* The kernel's TGID column comes from there as it prints: new tasks too. */
	if (s->tgids && !load_text(NULL, "saved_tgids", &text))
		fmt_src_tgids(s->src, text);
	free(text);
	s->cmdlines_ns = now;
}

/*
 * Print what the readers have handed over so far and may print by now
 * (all of it at the end), in time order across CPUs.
 */
static int drain(struct stream *s, bool all)
{
	uint64_t now = tr_now_ns();
	struct tfile_event ev;
	bool read = false;

	stream_order_due(s->order, now, all);
	/*
	 * The kernel saves task names as it records events: learn the new
	 * ones, once a batch (STREAM_BATCH_MS, as the drains used to come) and
	 * at the end.  Note that the file is big (saved_cmdlines_size lines,
	 * thousands): read at every drain it cost more than the formatting.
	 */
	if (all || now - s->cmdlines_ns >= STREAM_BATCH_MS * 1000000ull) {
		cmdlines(s, now);
		read = true;
	}
	while (stream_order_next(s->order, &ev) == 1) {
		int pid;

		/*
		 * An exec renames its task: the kernel's text shows the new
		 * name (saved by the time the record is read) from the record on.
		 */
		if (!read && s->exec_id >= 0 && fmt_src_event_id(s->src, &ev) == s->exec_id) {
			cmdlines(s, now);
			read = true;
		}
		/* A task with no name yet: saved since the last read, most likely. */
		if (!read) {
			pid = fmt_src_pid(s->src, &ev);
			if (pid > 0 && pid != s->nameless &&
			    !strcmp(fmt_src_comm(s->src, pid), "<...>")) {
				cmdlines(s, now);
				read = true;
				if (!strcmp(fmt_src_comm(s->src, pid), "<...>"))
					s->nameless = pid;	/* the kernel has none: do not ask again */
			}
		}
		/* Likewise a task without a process under record-tgid. */
		if (!read && s->tgids) {
			pid = fmt_src_pid(s->src, &ev);
			if (pid > 0 && pid != s->tgidless && !fmt_src_tgid(s->src, pid)) {
				cmdlines(s, now);
				read = true;
				if (!fmt_src_tgid(s->src, pid))
					s->tgidless = pid;
			}
		}
		fmt_src_learn(s->src, &ev);
		fmt_event(s->fmt, s->src, "", &ev);
		s->events++;
	}
	if (s->debug) {
		uint64_t dt = tr_now_ns() - now;

		s->fmt_ns += dt;
		s->drains++;
		if (dt > s->max_drain_ns) {
			s->max_drain_ns = dt;
			s->max_drain_at = now - s->t0;
		}
	}
	return fmt_flush(s->fmt);
}

/* Often enough that nothing waits much past --max-delay, and never less than 10 ms. */
static unsigned stream_tick_ms(const struct stream_opts *o)
{
	uint64_t ms = o->max_delay_ns / 2000000;

	if (!o->max_delay_ns || ms > STREAM_BATCH_MS)
		return STREAM_BATCH_MS;
	return ms < 10 ? 10 : (unsigned)ms;
}

/*
 * The formatting thread: print as the queues fill, or at each tick; once
 * the queues are closed, the rest.  A write error ends it, and from then
 * on the readers' pages are dropped so that they never wait.
 */
/*
 * Note that the formatting thread runs at the readers' nice -20 (where
 * permitted): with a bounded queue, a formatter that is not scheduled
 * stalls the readers and the kernel's buffer overflows on a loaded host.
 * It takes no more CPU than at nice 0, only sooner.
 */
#define STREAM_FORMAT_NICE -20

static void *format_main(void *arg)
{
	struct stream *s = arg;
	unsigned ms = stream_tick_ms(&s->o);
	bool closed, go;
	int r;

	setpriority(PRIO_PROCESS, gettid(), STREAM_FORMAT_NICE);

	pthread_mutex_lock(&s->gate);
	s->tid = gettid();
	pthread_cond_broadcast(&s->gate_cond);
	while (s->state == STREAM_WAIT)
		pthread_cond_wait(&s->gate_cond, &s->gate);
	go = s->state == STREAM_GO;
	pthread_mutex_unlock(&s->gate);
	if (!go)
		return NULL;
	do {
		uint64_t t = s->debug ? tr_now_ns() : 0;

		closed = stream_order_wait(s->order, ms);
		if (s->debug)
			s->wait_ns += tr_now_ns() - t;
		r = drain(s, closed);
		/*
		 * What waits for a quiet CPU's reader need not wait for the end
		 * of its idle wait (idle_ms): ask it now.  Note that asking only
		 * once a reader waited for room let the busy CPUs' events fill
		 * the queues while they waited, and the queues are what takes
		 * up a stall of the formatting.
		 */
		for (int i = 0; !r && !closed && i < s->ncpus; i++)
			if (stream_order_lacks(s->order, i))
				rec_kick(s->rec, i);
	} while (!r && !closed);
	if (r) {
		__atomic_store_n(&s->err, r, __ATOMIC_RELEASE);
		stream_order_discard(s->order);
	}
	if (s->debug) {
		struct timespec ts;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		s->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return NULL;
}

/* This kernel's BTF, read when a format first names a constant (it is megabytes). */
static const struct btf *stream_btf(void *arg)
{
	struct stream *s = arg;
	char *text = NULL;
	size_t len;

	if (!read_file("/sys/kernel/btf/vmlinux", &text, &len))
		s->btf = btf_load(text, len);
	free(text);
	return s->btf;
}

static int stream_new(const struct stream_opts *o, FILE *out, struct stream **out_s)
{
	struct stream *s = xcalloc(1, sizeof(*s));
	char *text = NULL;
	int r;

	s->o = *o;
	s->debug = getenv("TR_DEBUG") && strstr(getenv("TR_DEBUG"), "stream");
	pthread_mutex_init(&s->gate, NULL);
	pthread_cond_init(&s->gate_cond, NULL);
	*out_s = s;
	/*
	 * Only ftrace's own formats now (the printer's, and those of the events
	 * that need no enabling); the rest as their first records come.  A
	 * filter is compiled for the events the tep has: then all of them.
	 */
	if (o->filters && o->filters->n)
		s->tep = session_tep(&(struct session_tep_opts){ .all = true });
	else
		s->tep = session_tep(&(struct session_tep_opts){
			.systems = &(struct strv){ .v = (char *[]){ "ftrace" }, .n = 1 },
			.printk = true });
	if (!s->tep)
		return tr_fail(-EIO, "cannot load the event formats from %s", tfs_root());
	tr_phase("formats loaded");
	s->fmt = fmt_new(out, &o->fo);
	/*
	 * A file or a pipe takes the text in 64 KiB writes, each drain's rest
	 * at its end; a terminal line by line, as stdio gives it: small
	 * writes cost the formatting thread much of its time at a high rate.
	 */
	fmt_buffer(s->fmt, !isatty(fileno(out)));
	s->src = fmt_src_new(s->fmt, s->tep);
	if (!(o->filters && o->filters->n)) {
		s->lazy = session_lazy_new(o->inst);
		fmt_src_lazy(s->src, session_lazy_event, session_lazy_syms, s->lazy);
	}
	if (!load_text(NULL, "saved_cmdlines", &text))
		fmt_src_cmdlines(s->src, text);
	free(text);
	text = NULL;
	s->exec_id = -1;
	if (!load_text(NULL, "events/sched/sched_process_exec/id", &text))
		s->exec_id = (int)strtol(text, NULL, 10);
	free(text);
	/* load_text() leaves text as it was when it fails: not a freed one. */
	text = NULL;
	if (!load_text(NULL, "saved_tgids", &text))
		fmt_src_tgids(s->src, text);
	free(text);
	text = NULL;
	for (size_t i = 0; o->filters && i < o->filters->n; i++)
		if ((r = fmt_src_filter(s->src, o->filters->v[i])))
			return r;
	fmt_src_filter_invert(s->src, o->invert);
	if (!o->fo.lib) {
		struct utsname u;

		fmt_src_formats(s->src, live_format, NULL);
		if (!s->lazy)
			fmt_src_tep_symbols(s->src);
		fmt_src_vmemmap(s->src, fmt_running_vmemmap());
		if (!uname(&u))
			fmt_src_kernel(s->src, u.release);
		if (!load_text(NULL, "printk_formats", &text))
			fmt_src_printk(s->src, text);
		free(text);
		fmt_src_btf_lazy(s->src, stream_btf, s);
	}
	tr_phase("printer ready");
	return 0;
}

/*
 * Note that the readers splice rather than map the buffers (rec.h's AUTO
 * for a callback): a mapped buffer is resident whole, whether its CPU
 * records anything or not, memory which the pool of queues uses better
 * (bench/stream.sh measures the peak RSS).  TR_READER still chooses (the
 * tests' knob).
 */
static void stream_rec_opts(struct stream *s, struct rec_opts *ro)
{
	*ro = (struct rec_opts){ .fn = on_pages, .idle = on_idle, .arg = s, .partial = true,
				 .idle_ms = STREAM_BATCH_MS / 2, .wake_percent = 5,
				 .reader = getenv("TR_READER") ? REC_READER_AUTO :
								  REC_READER_SPLICE };
}

/* Start the formatting thread, parked until stream_gate(); 0 or -errno with tr_fail(). */
static int stream_thread(struct stream *s)
{
	int r = pthread_create(&s->thread, NULL, format_main, s);

	if (r)
		return tr_fail(-r, "cannot start the formatting thread: %s", strerror(r));
	s->running = true;
	pthread_mutex_lock(&s->gate);
	while (!s->tid)
		pthread_cond_wait(&s->gate_cond, &s->gate);
	pthread_mutex_unlock(&s->gate);
	return 0;
}

static void stream_gate(struct stream *s, int state)
{
	pthread_mutex_lock(&s->gate);
	s->state = state;
	pthread_cond_broadcast(&s->gate_cond);
	pthread_mutex_unlock(&s->gate);
}

/* A CPU's share of the queues' pool, in sub-buffers: see STREAM_QUEUE_BYTES. */
static unsigned queue_pages(const struct stream *s)
{
	uint64_t per = STREAM_QUEUE_BYTES / (uint64_t)(s->ncpus > 0 ? s->ncpus : 1) /
		       (s->layout.page_size ? s->layout.page_size : 4096);

	if (per < STREAM_QUEUE_PAGES)
		return STREAM_QUEUE_PAGES;
	return per > STREAM_QUEUE_MAX ? STREAM_QUEUE_MAX : (unsigned)per;
}

static void stream_attach(struct stream *s, struct rec *rec)
{
	s->rec = rec;
	s->ncpus = rec_ncpus(rec);
	s->layout = *rec_layout(rec);
	s->order = stream_order_new(s->ncpus, &s->layout, queue_pages(s), s->o.max_delay_ns);
	for (int i = 0; i < s->ncpus; i++)
		if (!rec_has_cpu(rec, i))
			stream_order_no_reader(s->order, i);
	/*
	 * How the instance prints (sym-offset, raw, context-info, ...), as a
	 * file keeps it: the options set up by now, -O among them.
	 */
	if (!s->o.fo.lib) {
		char *text = tfs_text_options(s->o.inst);

		fmt_src_graph_opts(s->src, text);
		s->tgids = !strncmp(text, "record-tgid\n", 12) || strstr(text, "\nrecord-tgid\n");
		free(text);
	}
	/* The clock set up by now is the one the timestamps count in. */
	if (!load_text(s->o.inst, "trace_clock", &s->clock))
		fmt_src_clock(s->src, s->clock, false);
	s->t0 = tr_now_ns();
	stream_gate(s, STREAM_GO);
}

static int stream_tick(void *arg, bool fd_ready)
{
	struct stream *s = arg;
	int r = __atomic_load_n(&s->err, __ATOMIC_ACQUIRE);

	(void)fd_ready;
	if (r == -EPIPE)
		return 1;	/* the reader of the output went away: end quietly */
	if (r && !tr_failure())
		r = tr_fail(r, "cannot write the events: %s", strerror(-r));
	return r;
}

/* TR_DEBUG=stream: the formatting thread's figures, to stderr (stdout is the events'). */
static void debug_report(struct stream *s)
{
	struct stream_order_stats st;

	stream_order_stats(s->order, &st);
	fprintf(stderr, "tr: stream: %.3f s, %llu events in %llu drains: formatting %.3f s "
		"(longest %.1f ms, at %.3f s), waiting %.3f s; its cpu %.3f s\n",
		(tr_now_ns() - s->t0) / 1e9, (unsigned long long)s->events,
		(unsigned long long)s->drains, s->fmt_ns / 1e9, s->max_drain_ns / 1e6,
		s->max_drain_at / 1e9, s->wait_ns / 1e9, s->cpu_ns / 1e9);
	fprintf(stderr, "tr: stream: %llu sub-buffers, at most %zu queued; readers waited for "
		"room %llu times, %.3f s (longest %.1f ms); %llu sub-buffers after losses "
		"(%llu events), the first at %.3f s\n",
		(unsigned long long)st.puts, st.max_fill, (unsigned long long)st.waits,
		st.wait_ns / 1e9, st.max_wait_ns / 1e6, (unsigned long long)s->lost_pages,
		(unsigned long long)s->lost_events, s->first_lost_ns / 1e9);
}

/*
 * The readers are done (or never ran): let the formatting finish with the
 * rest; the corrupt sub-buffers it skipped are added to *bad.
 */
static int stream_finish(struct stream *s, uint64_t *bad)
{
	int r;

	stream_order_close(s->order);
	pthread_join(s->thread, NULL);
	s->running = false;
	/* Readers that still run (a session that failed to start) wait for nothing now. */
	stream_order_discard(s->order);
	r = s->err;
	*bad += stream_order_bad_pages(s->order);
	if (r == -EPIPE)
		r = 0;
	else if (r && !tr_failure())
		r = tr_fail(r, "cannot write the events: %s", strerror(-r));
	if (s->debug)
		debug_report(s);
	return r;
}

static void stream_free(struct stream *s)
{
	if (!s)
		return;
	if (s->src)
		fmt_src_free(s->src);
	if (s->fmt)
		fmt_free(s->fmt);
	if (s->tep)
		tep_free(s->tep);
	session_lazy_free(s->lazy);
	stream_order_free(s->order);
	free(s->clock);
	btf_free(s->btf);
	pthread_cond_destroy(&s->gate_cond);
	pthread_mutex_destroy(&s->gate);
	free(s);
}

/* The readers are open: the formatting gets their CPUs and layout, and goes. */
static int stream_prepare(void *arg, struct session *sess)
{
	stream_attach(arg, session_rec(sess));
	return 0;
}

/* What the readers handed over last, even after a reader's error. */
static int stream_end(void *arg, struct session *sess, struct session_result *res)
{
	struct stream *s = arg;

	(void)sess;
	if (s->running && s->state != STREAM_GO) {
		stream_gate(s, STREAM_QUIT);
		pthread_join(s->thread, NULL);
		s->running = false;
	}
	return s->running ? stream_finish(s, &res->bad_pages) : 0;
}

int stream_run(const struct stream_opts *o, FILE *out)
{
	struct stream *s = NULL;
	int r;

	r = stream_new(o, out, &s);
	if (!r)
		r = stream_thread(s);
	if (!r) {
		const struct session_tool tool = { .prepare = stream_prepare, .tick = stream_tick,
						   .tick_ms = stream_tick_ms(o),
						   .finish = stream_end };
		struct session_opts so = { .inst = o->inst, .duration_ns = o->duration_ns,
					   .command = o->command, .setup = o->setup,
					   .events = o->events, .no_filter = o->no_filter,
					   .follow = o->follow, .own_tids = &s->tid,
					   .nown_tids = 1 };

		stream_rec_opts(s, &so.rec);
		r = session_tool_run(&so, &tool, s);
	}
	stream_free(s);
	return r;
}
