// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-CPU recorder (see rec.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rec.h"
#include "rec-mmap.h"
#include "rec-local.h"

/* The readers' scheduling priority (see reader_main). */
#define REC_READER_NICE -20

/* The largest pipe we ask for; the kernel may give less (pipe-max-size). */
#define REC_PIPE_SIZE (1 << 20)

/*
 * Sub-buffers the mapped reader gathers before one write to its temp file.
 * The kernel hands over one sub-buffer per GET_READER ioctl; writing each
 * on its own was one pwrite() per sub-buffer, a syscall as dear as the
 * copy here (bench/record.md has what perf counted).  The copy also frees
 * the ring's sub-buffer sooner than a write to the page cache would.
 */
#define REC_STAGE_SUBBUFS 16

void rec_notify(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, 8) < 0) {
		/* An eventfd write only fails on overflow: it is readable anyway. */
	}
}

/*
 * Count a sub-buffer's lost-events flag and stored count.  A page whose
 * header does not parse is left for the reader of the file to report.
 */
static void count_missed(const struct rec *r, const void *page, struct rec_cpu_stat *st)
{
	struct tfile_page_head h;

	if (tfile_page_head(&r->layout, page, r->page_size, &h) || !h.missed)
		return;
	st->missed_pages++;
	if (h.missed > 0)
		st->missed_events += h.missed;
}

static void scan_pages(struct reader *rd, const char *p, size_t len)
{
	uint32_t ps = rd->r->page_size;

	for (size_t off = 0; off + ps <= len; off += ps)
		count_missed(rd->r, p + off, &rd->st);
}

static int write_out(struct reader *rd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = pwrite(rd->out, p, len, rd->st.bytes);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		/* Count whole pages only; a torn page is cut off below. */
		rd->st.bytes += w;
		p += w;
		len -= w;
	}
	return 0;
}

int rec_stage_flush(struct reader *rd)
{
	int e;

	if (!rd->stage_len)
		return 0;
	e = write_out(rd, rd->stage, rd->stage_len);
	rd->stage_len = 0;
	return e;
}

/*
 * rec_set_budget(): take up to *len bytes (whole pages) of what is left of
 * the budget for a file sink; *len is cut to what was granted.  -EFBIG
 * when not one page is left: the recording has reached its size; with
 * rotation the next segment starts instead (rec-rotate.c).
 */
static int reserve(struct reader *rd, size_t *len)
{
	struct rec *r = rd->r;
	uint64_t v, used, grant;
	int e;

	if (!r->budget || r->o.fn)
		return 0;
	for (;;) {
		v = __atomic_load_n(&r->used, __ATOMIC_ACQUIRE);
		if (r->rot_fn && (uint16_t)(v >> REC_SEG_SHIFT) != rd->seg) {
			if ((e = rec_rot_follow(rd, (uint16_t)(v >> REC_SEG_SHIFT))))
				return e;
			continue;
		}
		used = v & REC_USED_MASK;
		grant = used < r->budget ? r->budget - used : 0;
		if (grant > *len)
			grant = *len;
		grant -= grant % r->page_size;
		if (!grant) {
			if (!r->rot_fn)
				return -EFBIG;
			if ((e = rec_rot_next(rd, v)))
				return e;
			continue;
		}
		if (__atomic_compare_exchange_n(&r->used, &v, v + grant, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
	}
	*len = grant;
	return 0;
}

/* Give back what was reserved and not used, unless a new segment has begun since. */
static void unreserve(struct reader *rd, size_t len)
{
	struct rec *r = rd->r;
	uint64_t v;

	if (!r->budget || r->o.fn || !len)
		return;
	v = __atomic_load_n(&r->used, __ATOMIC_ACQUIRE);
	do {
		if (r->rot_fn && (uint16_t)(v >> REC_SEG_SHIFT) != rd->seg)
			return;
	} while (!__atomic_compare_exchange_n(&r->used, &v, v - len, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
}

/* Hand data to the sink: write it to the temp file or call back. */
static int sink(struct reader *rd, const char *p, size_t len)
{
	struct rec *r = rd->r;

	size_t want = len;
	int e;

	if (r->o.fn) {
		scan_pages(rd, p, len);
		if (r->delay_ms && rd->cpu == r->delay_cpu) {
			struct timespec ts = { r->delay_ms / 1000, r->delay_ms % 1000 * 1000000L };

			nanosleep(&ts, NULL);
		}
		return r->o.fn(r->o.arg, rd->cpu, p, len);
	}
	/*
	 * Past the budget the pages are dropped and the reader stops with
	 * -EFBIG; with rotation the rest goes to the next part.
	 */
	if ((e = reserve(rd, &want)))
		return e;
	if (want < len && r->rot_fn)
		return (e = sink(rd, p, want)) ? e : sink(rd, p + want, len - want);
	if (want < len)
		return (e = sink(rd, p, want)) ? e : -EFBIG;
	if (!rd->stage)
		return write_out(rd, p, len);
	/*
	 * The mapped reader sees each header as it passes: count the losses
	 * now, so the temp file need not be read again for them
	 * (rec_scan_missed skips it).
	 */
	scan_pages(rd, p, len);
	if (rd->stage_len + len > rd->stage_size) {
		int e = rec_stage_flush(rd);

		if (e)
			return e;
	}
	if (len > rd->stage_size)
		return write_out(rd, p, len);
	memcpy(rd->stage + rd->stage_len, p, len);
	rd->stage_len += len;
	return rd->stage_len == rd->stage_size ? rec_stage_flush(rd) : 0;
}

/*
 * Move full pages: trace_pipe_raw -> pipe -> temp file (or -> buffer ->
 * callback).  Returns bytes moved, 0 for "nothing ready", or -errno.
 */
static ssize_t splice_pass(struct reader *rd)
{
	size_t want = rd->pipe_size;
	int e = rd->r->o.fn ? 0 : reserve(rd, &want);
	ssize_t n = e ? -1 : splice(rd->fd, NULL, rd->pipe[1], NULL, want,
				    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	ssize_t left;

	if (e)
		return e;
	if (!rd->r->o.fn)
		unreserve(rd, n > 0 ? want - n : want);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return 0;
	left = n;
	while (left > 0) {
		ssize_t m;

		if (rd->r->o.fn) {
			size_t want = (size_t)left < rd->buf_size ? (size_t)left : rd->buf_size;
			int e;

			m = read(rd->pipe[0], rd->buf, want);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return m < 0 ? -errno : -EIO;
			e = sink(rd, rd->buf, m);
			if (e)
				return e;
		} else {
			loff_t off = rd->st.bytes;

			m = splice(rd->pipe[0], NULL, rd->out, &off, left, SPLICE_F_MOVE);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return m < 0 ? -errno : -EIO;
			rd->st.bytes += m;
		}
		left -= m;
	}
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A sub-buffer header's field, in the running kernel's byte order and long size. */
static void head_put(char *page, int off, int size, uint64_t v)
{
	if (size == 8) {
		memcpy(page + off, &v, 8);
	} else {
		uint32_t w = (uint32_t)v;

		memcpy(page + off, &w, 4);
	}
}

/* The smallest event the ring buffer writes (a 4-byte header and 4 bytes of data). */
#define REC_EVENT_MIN 8

/*
 * The part of the sub-buffer page that the writer may still be adding to
 * (data bytes start..size) as a sub-buffer of its own in rd->buf: its
 * header's time stamp is the one at start, so the first event's delta
 * reads as it did in place; the rest of the page is zero.  The time stamp
 * at size is kept for the next part.
 */
static void mmap_piece(struct reader *rd, const char *page, uint32_t start, uint32_t size)
{
	const struct tfile_layout *l = &rd->r->layout;
	uint32_t ps = rd->r->page_size, bad;
	struct tfile_event ev;
	struct tfile_page pg;
	char *b = rd->buf;

	memset(b, 0, ps);
	if (!start)
		memcpy(b, page, l->data_off);
	else
		head_put(b, l->ts_off, 8, rd->cur_ts);
	head_put(b, l->commit_off, l->commit_size, size - start);
	memcpy(b + l->data_off, page + l->data_off + start, size - start);
	/* Walk it for the time stamp at its end; a bad event stops the walk there. */
	if (!tfile_page_load(&pg, l, b, ps, &bad))
		while (tfile_page_next(&pg, &ev, &bad) == 1)
			;
	rd->cur_ts = pg.ts;
}

/*
 * One sub-buffer through the mapping: ask the kernel for the reader
 * sub-buffer and hand over what is new in it.  A sub-buffer the writer has
 * left (full, or flagged as following lost events, which the kernel only
 * does to one it has left) goes to the sink in place; one still being
 * written goes as a copy of its new part (mmap_piece).  Returns the bytes
 * handed over (one sub-buffer), 0 when nothing is new, or -errno.
 */
static ssize_t mmap_pass(struct reader *rd, bool take_partial)
{
	const struct tfile_layout *l = &rd->r->layout;
	uint32_t ps = rd->r->page_size, full = ps - l->data_off, id, start, size;
	const char *page;
	uint32_t flags;
	bool done;
	int e;

	if (ioctl(rd->fd, TR_TRACE_MMAP_IOCTL_GET_READER) < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	id = __atomic_load_n(&rd->meta->reader.id, __ATOMIC_ACQUIRE);
	if (id >= rd->meta->nr_subbufs)
		return -EPROTO;
	page = rd->map + (size_t)id * ps;
	tfile_page_commit(l, page, &size, &flags);
	if (size > full)
		return -EPROTO;
	if (!rd->cur_valid || id != rd->cur_id) {
		rd->cur_id = id;
		rd->cur_off = 0;
		rd->cur_valid = true;
	}
	start = rd->cur_off;
	if (size <= start)
		return 0;
	/*
	 * Left by the writer: full, or with no room for the smallest event
	 * (the kernel then leaves it without padding), or flagged.  A
	 * sub-buffer still being written waits for more unless asked for
	 * (the end, or a live consumer when idle): the kernel hands it
	 * again as long as it grows, and it grows until the writer leaves
	 * it, so nothing is lost by waiting, and pieces would fill the file
	 * with half-empty sub-buffers.
	 */
	done = size > full - REC_EVENT_MIN || flags;
	if (!done && !take_partial)
		return 0;
	rd->cur_off = size;
	if (!start && done) {
		e = sink(rd, page, ps);
	} else {
		mmap_piece(rd, page, start, size);
		rd->st.rd.pieces++;
		e = sink(rd, rd->buf, ps);
	}
	return e ? e : (ssize_t)ps;
}

/*
 * Map CPU's buffer (rd->fd open): the meta page, then the sub-buffers.
 * 0, or -errno and nothing mapped (the caller falls back to splice).
 */
static int mmap_open(struct reader *rd)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct tr_trace_buffer_meta *m;
	int e;

	m = mmap(NULL, pg, PROT_READ, MAP_SHARED, rd->fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	rd->meta = m;
	rd->meta_len = pg;
	if (m->meta_page_size > pg) {
		size_t len = m->meta_page_size;

		munmap(m, pg);
		rd->meta = NULL;
		m = mmap(NULL, len, PROT_READ, MAP_SHARED, rd->fd, 0);
		if (m == MAP_FAILED)
			return -errno;
		rd->meta = m;
		rd->meta_len = len;
	}
	/* A layout we do not know (an older draft of the ABI, another sub-buffer size): do not guess. */
	if (m->meta_struct_len < offsetof(struct tr_trace_buffer_meta, flags) ||
	    m->subbuf_size != rd->r->page_size || !m->nr_subbufs || m->meta_page_size < pg) {
		e = -EPROTO;
		goto fail;
	}
	rd->map_len = (size_t)m->subbuf_size * m->nr_subbufs;
	rd->map = mmap(NULL, rd->map_len, PROT_READ, MAP_SHARED, rd->fd, m->meta_page_size);
	if (rd->map == MAP_FAILED) {
		e = -errno;
		rd->map = NULL;
		goto fail;
	}
	/*
	 * Note that what an earlier reader took of the reader sub-buffer (a
	 * previous tr extract, through a mapping or not) is still in it:
	 * start after it, at its time stamp, or it would be recorded twice.
	 */
	if (m->reader.id < m->nr_subbufs && m->reader.read) {
		const struct tfile_layout *l = &rd->r->layout;
		const char *page = rd->map + (size_t)m->reader.id * m->subbuf_size;
		uint32_t read = m->reader.read, bad;
		struct tfile_event ev;
		struct tfile_page pg;

		if (read > m->subbuf_size - l->data_off) {
			e = -EPROTO;
			goto fail;
		}
		rd->buf = xcalloc(1, m->subbuf_size);
		memcpy(rd->buf, page, l->data_off + read);
		head_put(rd->buf, l->commit_off, l->commit_size, read);
		if (!tfile_page_load(&pg, l, rd->buf, m->subbuf_size, &bad))
			while (tfile_page_next(&pg, &ev, &bad) == 1)
				;
		rd->cur_ts = pg.ts;
		rd->cur_id = m->reader.id;
		rd->cur_off = read;
		rd->cur_valid = true;
		free(rd->buf);
		rd->buf = NULL;
	}
	return 0;
fail:
	munmap(rd->meta, rd->meta_len);
	rd->meta = NULL;
	return e;
}

static void mmap_close(struct reader *rd)
{
	if (rd->map)
		munmap(rd->map, rd->map_len);
	if (rd->meta)
		munmap(rd->meta, rd->meta_len);
	rd->map = NULL;
	rd->meta = NULL;
}

/* One page with read(): full or not.  Returns bytes, 0 when empty, or -errno. */
static ssize_t read_pass(struct reader *rd)
{
	ssize_t n = read(rd->fd, rd->buf, rd->r->page_size);
	int e;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR || errno == ENODATA ? 0 : -errno;
	if (n == 0)
		return 0;
	/* A short read is the data part of a partial page: keep whole pages. */
	if ((size_t)n < rd->r->page_size) {
		memset(rd->buf + n, 0, rd->r->page_size - n);
		n = rd->r->page_size;
	}
	e = sink(rd, rd->buf, n);
	return e ? e : n;
}

/* Bytes taken from the ring: written, or gathered to be. */
static uint64_t taken(const struct reader *rd)
{
	return rd->st.bytes + rd->stage_len;
}

static bool over_limit(const struct reader *rd)
{
	return rd->r->o.drain_limit && taken(rd) >= rd->r->o.drain_limit;
}

/* One pass of the reader this CPU uses. */
static ssize_t pass(struct reader *rd)
{
	switch (rd->st.rd.kind) {
	case REC_READER_MMAP:
		return mmap_pass(rd, false);
	case REC_READER_READ:
		return read_pass(rd);
	default:
		return splice_pass(rd);
	}
}

/* What a live consumer wants when idle: partly filled pages too, until empty. */
static ssize_t partial_pass(struct reader *rd)
{
	return rd->st.rd.kind == REC_READER_MMAP ? mmap_pass(rd, true) : read_pass(rd);
}

/* Read what is left: full pages, then the partial one, until empty. */
static int flush(struct reader *rd)
{
	ssize_t n;

	if (rd->st.rd.kind == REC_READER_MMAP) {
		while ((n = mmap_pass(rd, true)) > 0 && !over_limit(rd))
			;
		return n < 0 ? (int)n : rec_stage_flush(rd);
	}
	if (rd->st.rd.kind == REC_READER_SPLICE)
		while ((n = splice_pass(rd)) > 0 && !over_limit(rd))
			;
	else
		n = 0;
	while (n >= 0 && !over_limit(rd) && (n = read_pass(rd)) > 0)
		;
	return n < 0 ? (int)n : 0;
}

/*
 * opts.flush_ms: once that long has passed since the last time, take what
 * the buffer holds (the page the kernel is writing too) and write out
 * what is staged, so the file is never more than flush_ms behind what the
 * kernel recorded.  Returns 0 or -errno.
 */
static int flush_due(struct reader *rd)
{
	uint64_t now;
	ssize_t n;

	if (!rd->r->o.flush_ms)
		return 0;
	now = now_ns();
	if (now - rd->flushed_ns < rd->r->o.flush_ms * 1000000ull)
		return 0;
	while ((n = partial_pass(rd)) > 0)
		;
	rd->flushed_ns = now_ns();
	return n < 0 ? (int)n : rec_stage_flush(rd);
}

/* How long an idle reader may wait: idle_ms, or less when a flush is due sooner. */
static int wait_ms(const struct reader *rd)
{
	const struct rec_opts *o = &rd->r->o;
	uint64_t due, now;

	if (!o->flush_ms)
		return (int)o->idle_ms;
	due = rd->flushed_ns + o->flush_ms * 1000000ull;
	now = now_ns();
	if (due <= now)
		return 0;
	return (due - now) / 1000000 + 1 < o->idle_ms ? (int)((due - now) / 1000000 + 1)
						       : (int)o->idle_ms;
}

static void reader_fail(struct reader *rd, int err)
{
	struct rec *r = rd->r;

	rd->st.err = err;
	if (rd->out >= 0) {
		/* Cut a torn last page so the temp file holds whole pages only. */
		rd->st.bytes -= rd->st.bytes % r->page_size;
		if (ftruncate(rd->out, rd->st.bytes)) {
			/* Then the size we report is what the writer copies. */
		}
	}
	pthread_mutex_lock(&r->lock);
	if (!r->err)
		r->err = err;
	pthread_mutex_unlock(&r->lock);
	__atomic_store_n(&r->failed, true, __ATOMIC_RELEASE);
	rec_notify(r->stop_fd);
	rec_notify(r->event_fd);
}

/*
 * A run of passes that read something ended: the reader's own figures
 * (how much piled up between wake-ups, how long draining took).
 */
static void burst_end(struct reader *rd, uint64_t *pages, uint64_t t0)
{
	uint64_t dt = now_ns() - t0;

	rd->st.rd.wakes++;
	rd->st.rd.busy_ns += dt;
	if (*pages > rd->st.rd.max_wake_subbufs)
		rd->st.rd.max_wake_subbufs = *pages;
	if (dt > rd->st.rd.max_wake_ns)
		rd->st.rd.max_wake_ns = dt;
	*pages = 0;
}

/* sched_setattr(2)'s argument, as far as SCHED_ATTR_SIZE_VER0; glibc 2.36 lacks it. */
struct rec_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

/*
 * Note that a reader must run the moment the kernel wakes it: at -b 16 a
 * CPU's buffer is four sub-buffers, which a busy writer fills in well
 * under a millisecond, while the scheduler lets the writer finish its
 * slice first.  At nice -20 the woken reader preempts it, and a small
 * buffer loses far less (bench/record.md).  SCHED_FIFO loses less still,
 * but a real-time thread that spins by mistake takes a CPU.
 *
 * Since Linux 6.12 a thread can also ask for a short time slice
 * (sched_runtime of a SCHED_OTHER thread), which lets it preempt a
 * running thread on wake-up where a nice value alone waits for the
 * running one to reach its fair share: with a 0.1 ms slice a small
 * buffer loses less again.  Older kernels ignore the slice.  Where neither is permitted the reader
 * stays as it is (-v says what it got).
 */
#define REC_READER_SLICE_NS 100000

static void reader_priority(struct reader *rd)
{
	struct rec_sched_attr a = { .size = sizeof(a), .policy = SCHED_OTHER,
				    .nice = REC_READER_NICE, .runtime = REC_READER_SLICE_NS };

	/*
	 * Real time when asked (tr record -r, as trace-cmd's): the reader
	 * preempts every writer on its CPU at once.  It never spins (it
	 * sleeps when idle), so the CPU is given back.
	 */
	if (rd->r->o.rt_prio) {
		struct sched_param sp = { .sched_priority = rd->r->o.rt_prio };

		rd->st.rd.nice = getpriority(PRIO_PROCESS, gettid());
		if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0) {
			rd->st.rd.rt_prio = rd->r->o.rt_prio;
			return;
		}
	}

	if (setpriority(PRIO_PROCESS, gettid(), REC_READER_NICE) == 0)
		rd->st.rd.nice = REC_READER_NICE;
	else
		rd->st.rd.nice = getpriority(PRIO_PROCESS, gettid());
	if (rd->st.rd.nice != REC_READER_NICE ||
	    syscall(SYS_sched_setattr, 0, &a, 0) != 0)
		return;
	/* What the kernel kept: 0 where it has no custom slices. */
	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) == 0 && a.policy == SCHED_OTHER)
		rd->st.rd.slice_ns = a.runtime;
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct rec *r = rd->r;
	bool idle_spin = false;
	uint64_t burst = 0, burst_t0 = 0;
	int err = 0;

	/*
	 * Note that a reader runs on the CPU it drains: the kernel wakes it
	 * there, and it preempts that CPU's writers while it empties the
	 * buffer, instead of waiting for a turn on a CPU that is just as busy
	 * (unpinned readers lost events where pinned ones lost none, with
	 * pinned writers: bench/record.md).  A CPU we may not run on (cpuset)
	 * leaves the reader unpinned.
	 */
	if (!r->o.no_pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(rd->cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	reader_priority(rd);
	pthread_mutex_lock(&r->lock);
	rd->tid = gettid();
	r->ready++;
	pthread_cond_broadcast(&r->cond);
	while (!r->go && !r->quit)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	if (r->quit)
		return NULL;
	rd->flushed_ns = now_ns();

	while (!r->o.drain) {
		uint64_t t = burst ? 0 : now_ns();
		uint16_t seg = (uint16_t)(__atomic_load_n(&r->used, __ATOMIC_ACQUIRE) >> REC_SEG_SHIFT);
		ssize_t n;

		/* An idle reader leaves a full segment too, so that it can be written. */
		if (r->rot_fn && seg != rd->seg && (err = rec_rot_follow(rd, seg)))
			break;
		n = pass(rd);
		struct pollfd p[3] = { { .fd = rd->fd, .events = POLLIN },
				       { .fd = r->stop_fd, .events = POLLIN },
				       { .fd = rd->kick_fd, .events = POLLIN } };
		uint64_t kicks;

		if (n < 0) {
			err = (int)n;
			break;
		}
		if (n > 0 && !burst)
			burst_t0 = t;
		burst += n / r->page_size;
		if (!n && burst)
			burst_end(rd, &burst, burst_t0);
		/* Caught up: what was gathered goes to the file before we wait. */
		if (!n && (err = rec_stage_flush(rd)))
			break;
		if (__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE))
			break;
		if ((err = flush_due(rd)))
			break;
		if (n > 0 && r->fault_bytes && rd->cpu == r->fault_cpu &&
		    taken(rd) >= r->fault_bytes) {
			err = -EIO;
			break;
		}
		if (n > 0) {
			idle_spin = false;
			continue;
		}
		if (__atomic_load_n(&r->stopped, __ATOMIC_ACQUIRE))
			break;
		/*
		 * Idle.  poll() wakes us when the kernel thinks enough is there
		 * (buffer_percent); if it says "ready" but no full page came,
		 * sleep instead, or a partial page would keep us spinning.
		 */
		if (idle_spin) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
			if (poll(p + 1, 1, 0) > 0)
				break;
			idle_spin = false;
			continue;
		}
		/* --poll: no wake-up from the kernel, only the stop and the sleep. */
		if (r->o.poll_only)
			p[0].fd = -1;
		switch (poll(p, 3, wait_ms(rd))) {
		case 0:
		kicked:
			/* Quiet for a while, or asked: a live consumer wants what is there. */
			if (r->o.partial) {
				while ((n = partial_pass(rd)) > 0)
					;
				if (n < 0)
					err = (int)n;
				else if (r->o.idle)
					r->o.idle(r->o.arg, rd->cpu);
			}
			break;
		case -1:
			break;
		default:
			if (p[1].revents)
				goto out;
			if (p[2].revents && read(rd->kick_fd, &kicks, sizeof(kicks)) == sizeof(kicks))
				goto kicked;
			idle_spin = true;
		}
		if (err)
			break;
	}
out:
	/* After another reader's failure (a full disk) stop at once, all alike. */
	if (!err && !__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE))
		err = flush(rd);
	else if (!err)
		err = rec_stage_flush(rd);	/* keep what was taken from the ring */
	if (err)
		reader_fail(rd, err);
	rec_rot_end(rd);
	pthread_mutex_lock(&r->lock);
	if (++r->finished == r->nreaders && r->o.drain)
		rec_notify(r->event_fd);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

void rec_kick(struct rec *r, int cpu)
{
	for (int i = 0; i < r->nreaders; i++)
		if (r->rd[i].cpu == cpu && r->rd[i].kick_fd >= 0)
			rec_notify(r->rd[i].kick_fd);
}

static int cpu_list(const struct tfs_inst *in, int **cpus, int *n)
{
	char *dir = tfs_path(in, "per_cpu");
	DIR *d = opendir(dir);
	struct dirent *de;
	int c;

	*cpus = NULL;
	*n = 0;
	free(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "cpu%d", &c) == 1) {
			*cpus = xrealloc(*cpus, (*n + 1) * sizeof(**cpus));
			(*cpus)[(*n)++] = c;
		}
	closedir(d);
	return 0;
}

static int tmpfile_in(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		char *p = xasprintf("%s/.tr-record.XXXXXX", dir);

		fd = mkostemp(p, O_CLOEXEC);
		if (fd >= 0)
			unlink(p);
		free(p);
	}
	return fd < 0 ? -errno : fd;
}

int rec_out_open(struct rec *r, int cpu, int *fd)
{
	int e = 0;

	if (r->o.spool) {
		char *name = xasprintf("%s/cpu%d.raw", r->o.tmp_dir, cpu);

		*fd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (*fd < 0) {
			e = -errno;
			tr_fail(e, "cannot create '%s': %s", name, strerror(-e));
		}
		free(name);
	} else {
		*fd = tmpfile_in(r->o.tmp_dir);
		if (*fd < 0) {
			e = *fd;
			tr_fail(e, "cannot make a temp file in '%s': %s", r->o.tmp_dir, strerror(-e));
		}
	}
	return e;
}

static int reader_open(struct rec *r, struct reader *rd, int cpu)
{
	char *file = xasprintf("per_cpu/cpu%d/%s", cpu, r->o.snapshot ? "snapshot_raw"
								 : "trace_pipe_raw");
	char *path = tfs_path(r->o.inst, file);
	int e;

	rd->r = r;
	rd->cpu = cpu;
	rd->out = -1;
	rd->pipe[0] = rd->pipe[1] = -1;
	rd->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (rd->fd < 0) {
		e = -errno;
		tr_fail(e, "cannot open '%s': %s", path, strerror(-e));
		goto out;
	}
	rd->st.rd.kind = r->o.reader;
	if (rd->st.rd.kind == REC_READER_MMAP) {
		e = mmap_open(rd);
		if (!e) {
			/* Pieces of sub-buffers are put together in buf: one is enough. */
			rd->buf_size = r->page_size;
			rd->buf = xmalloc(rd->buf_size);
			if (r->o.tmp_dir && !r->o.fn) {
				rd->stage_size = (size_t)r->page_size * REC_STAGE_SUBBUFS;
				rd->stage = xmalloc(rd->stage_size);
			}
			goto sink;
		}
		rd->st.rd.fallback_err = e;
		rd->st.rd.kind = REC_READER_SPLICE;
	}
	if (pipe2(rd->pipe, O_CLOEXEC)) {
		e = -errno;
		tr_fail(e, "cannot make a pipe: %s", strerror(-e));
		goto out;
	}
	/* A big pipe moves many pages per splice; settle for what we get. */
	for (int sz = REC_PIPE_SIZE; sz >= (int)r->page_size; sz /= 2)
		if (fcntl(rd->pipe[1], F_SETPIPE_SZ, sz) >= 0)
			break;
	e = fcntl(rd->pipe[1], F_GETPIPE_SZ);
	rd->pipe_size = e > 0 ? (size_t)e : r->page_size;
	rd->pipe_size -= rd->pipe_size % r->page_size;
	if (rd->pipe_size < r->page_size)
		rd->pipe_size = r->page_size;
	rd->buf_size = rd->pipe_size;
	rd->buf = xmalloc(rd->buf_size);
sink:
	e = r->o.tmp_dir && !r->o.fn ? rec_out_open(r, cpu, &rd->out) : 0;
out:
	free(path);
	free(file);
	return e;
}

int rec_open(const struct rec_opts *o, struct rec **out)
{
	struct rec *r = xcalloc(1, sizeof(*r));
	sigset_t all, old;
	char *raw = NULL;
	int *cpus, n, e;

	*out = NULL;
	r->o = *o;
	/*
	 * TR_FAULT_READER=CPU:PAGES makes CPU's reader fail with EIO once it
	 * has written PAGES pages: the tests' way to see a reader that breaks
	 * mid-recording end it cleanly.
	 */
	if (getenv("TR_FAULT_READER")) {
		unsigned cpu, pages;

		if (sscanf(getenv("TR_FAULT_READER"), "%u:%u", &cpu, &pages) == 2 && pages) {
			r->fault_cpu = cpu;
			r->fault_bytes = pages;	/* in pages until the page size is known */
		}
	}
	/*
	 * TR_DELAY_READER=CPU:MS makes CPU's reader sleep MS before each
	 * hand-over to a callback sink: the tests' way to have one CPU's
	 * reader lag the others (tr stream's ordering across CPUs).
	 */
	if (getenv("TR_DELAY_READER")) {
		unsigned cpu, ms;

		if (sscanf(getenv("TR_DELAY_READER"), "%u:%u", &cpu, &ms) == 2 && ms <= 60000) {
			r->delay_cpu = cpu;
			r->delay_ms = ms;
		}
	}
	if (!r->o.idle_ms)
		r->o.idle_ms = 200;
	if (r->o.reader == REC_READER_AUTO && getenv("TR_READER") &&
	    rec_reader_parse(getenv("TR_READER")) > 0)
		r->o.reader = rec_reader_parse(getenv("TR_READER"));
	if (r->o.no_splice)
		r->o.reader = REC_READER_READ;
	/*
	 * The snapshot buffer cannot be mapped; AUTO maps for a live consumer
	 * (falling back per CPU) and splices into the temp files.  Note that
	 * the mapped reader costs more for a file sink: the kernel hands over
	 * one sub-buffer per GET_READER ioctl, where one splice moves a pipe's
	 * worth, and the page-cache copy is the same; and the mapped buffers
	 * count in the peak RSS.  Splice loses no more at -b 16
	 * (bench/record.md has the figures of when this was decided).
	 */
	if (r->o.reader == REC_READER_AUTO)
		r->o.reader = r->o.fn && !r->o.snapshot ? REC_READER_MMAP : REC_READER_SPLICE;
	if (r->o.snapshot && r->o.reader == REC_READER_MMAP)
		r->o.reader = REC_READER_SPLICE;
	r->page_size = getpagesize();
	if (!tfs_read(o->inst, "buffer_subbuf_size_kb", &raw) && strtoul(raw, NULL, 10))
		r->page_size = strtoul(raw, NULL, 10) * 1024;
	free(raw);
	raw = NULL;
	e = tfs_read(tfs_top(), "events/header_page", &raw);
	if (!e && tfile_layout_parse(&r->layout, raw, strlen(raw), false, r->page_size))
		e = -EINVAL;
	free(raw);
	raw = NULL;
	if (e) {
		tr_fail(e, "cannot read the ring buffer's page layout (events/header_page)");
		free(r);
		return e;
	}
	r->fault_bytes *= r->page_size;
	/*
	 * A buffer nobody used yet reads "7 (expanded: 1408)": the kernel grows
	 * it when the first event or tracer is enabled, and a resize fails
	 * with EBUSY while a reader has it mapped.  The caller enables events
	 * after the readers are open, so grow it to that size now, as the
	 * kernel would (a fresh VM's top-level buffer: "cannot enable event
	 * ...: Device or resource busy", and a 7 KB buffer left behind).
	 */
	if (r->o.reader == REC_READER_MMAP && !tfs_read(o->inst, "buffer_size_kb", &raw)) {
		const char *x = strstr(raw, "(expanded: ");

		if (x) {
			char kb[24];

			snprintf(kb, sizeof(kb), "%lu", strtoul(x + 11, NULL, 10));
			e = tfs_write(o->inst, "buffer_size_kb", kb, false);
			if (e)
				tr_warn("cannot grow the ring buffer to %s KiB before mapping it: %s",
					kb, strerror(-e));
		}
	}
	free(raw);
	raw = NULL;
	if (o->wake_percent && tfs_exists(o->inst, "buffer_percent")) {
		unsigned wake = o->wake_percent;
		char v[16];

		if (o->wake_by_size && !tfs_read(o->inst, "buffer_size_kb", &raw))
			wake = rec_wake_percent(raw, r->page_size, wake);
		free(raw);
		raw = NULL;
		snprintf(v, sizeof(v), "%u", wake);
		e = tfs_set(o->inst, "buffer_percent", v);
		if (e) {
			tr_fail(e, "cannot set buffer_percent to %s: %s", v, strerror(-e));
			free(r);
			return e;
		}
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	pthread_cond_init(&r->rot_cond, NULL);
	r->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	e = cpu_list(o->inst, &cpus, &n);
	if (e) {
		tr_fail(e, "cannot list the per-CPU buffers: %s", strerror(-e));
		rec_free(r);
		return e;
	}
	r->rd = xcalloc(n ? n : 1, sizeof(*r->rd));
	r->nreaders = n;
	for (int i = 0; i < n; i++)
		r->rd[i].fd = r->rd[i].out = r->rd[i].old_out = r->rd[i].pipe[0] =
			r->rd[i].pipe[1] = r->rd[i].kick_fd = -1;
	/* Readers are numbered by CPU; per_cpu lists them in any order. */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (cpus[j] < cpus[i]) {
				int t = cpus[i];

				cpus[i] = cpus[j];
				cpus[j] = t;
			}
	for (int i = 0; i < n; i++) {
		if (o->fn && o->partial)
			r->rd[i].kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		e = reader_open(r, &r->rd[i], cpus[i]);
		if (e) {
			free(cpus);
			rec_free(r);
			return e;
		}
	}
	free(cpus);

	/* Readers take no signals: the main thread handles SIGINT/SIGTERM. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < n; i++) {
		e = -pthread_create(&r->rd[i].thread, NULL, reader_main, &r->rd[i]);
		if (e) {
			tr_fail(e, "cannot start a reader thread: %s", strerror(-e));
			break;
		}
		r->rd[i].running = true;
	}
	/* A spool's kallsyms are read on a thread once tracing is on (rec_spool_meta()). */
	if (!e && o->spool && !pthread_create(&r->ksyms.thread, NULL, rec_ksyms_main, r))
		r->ksyms.running = true;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_lock(&r->lock);
	while (!e && (r->ready < n || (r->ksyms.running && !r->ksyms.tid)))
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	if (e) {
		rec_free(r);
		return e;
	}
	*out = r;
	return 0;
}

static const char *const reader_names[] = {
	[REC_READER_AUTO] = "auto",
	[REC_READER_MMAP] = "mmap",
	[REC_READER_SPLICE] = "splice",
	[REC_READER_READ] = "read",
};

/*
 * Note that each wake-up costs a reader a poll, two context switches and a
 * splice round, whatever it then moves, and at 5% a 256 KB buffer wakes
 * every 3 sub-buffers: woken at a quarter, it costs tr less CPU, with no
 * more lost.  Small buffers keep the low figure: at -b 16 (four
 * sub-buffers) a quarter means two, and lost more than one did
 * (bench/record.md).
 */
#define REC_WAKE_MANY_SUBBUFS 64
#define REC_WAKE_QUARTER 25

unsigned rec_wake_percent(const char *size_kb, uint32_t subbuf, unsigned low)
{
	const char *x = size_kb ? strstr(size_kb, "(expanded: ") : NULL;
	char *end;
	unsigned long long kb;

	if (!size_kb || !subbuf)
		return low;
	errno = 0;
	kb = strtoull(x ? x + 11 : size_kb, &end, 10);
	if (errno || end == (x ? x + 11 : size_kb))
		return low;
	return kb * 1024 / subbuf >= REC_WAKE_MANY_SUBBUFS ? REC_WAKE_QUARTER : low;
}

const char *rec_reader_name(int kind)
{
	return kind >= 0 && kind < (int)ARRAY_SIZE(reader_names) ? reader_names[kind] : "?";
}

int rec_reader_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(reader_names); i++)
		if (!strcmp(name, reader_names[i]))
			return (int)i;
	return -1;
}

int rec_ncpus(const struct rec *r)
{
	return r->nreaders ? r->rd[r->nreaders - 1].cpu + 1 : 0;
}

const struct tfile_layout *rec_layout(const struct rec *r)
{
	return &r->layout;
}

uint32_t rec_page_size(const struct rec *r)
{
	return r->page_size;
}

size_t rec_tids(const struct rec *r, pid_t *tids, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < r->nreaders && n < max; i++)
		tids[n++] = r->rd[i].tid;
	if (r->ksyms.running && n < max)
		tids[n++] = r->ksyms.tid;
	return n;
}

int rec_start(struct rec *r)
{
	pthread_mutex_lock(&r->lock);
	r->go = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void rec_set_budget(struct rec *r, uint64_t bytes)
{
	r->budget = bytes - bytes % r->page_size;
	if (bytes && !r->budget)
		r->budget = r->page_size;
}

int rec_event_fd(const struct rec *r)
{
	return r->event_fd;
}

int rec_error(const struct rec *r)
{
	int e;

	pthread_mutex_lock((pthread_mutex_t *)&r->lock);
	e = r->err;
	pthread_mutex_unlock((pthread_mutex_t *)&r->lock);
	return e;
}

int rec_stop(struct rec *r)
{
	if (!r->stopped) {
		__atomic_store_n(&r->stopped, true, __ATOMIC_RELEASE);
		rec_notify(r->stop_fd);
		for (int i = 0; i < r->nreaders; i++)
			if (r->rd[i].running) {
				pthread_join(r->rd[i].thread, NULL);
				r->rd[i].running = false;
			}
		/* A segment the readers left at the end is written before the last file. */
		rec_rot_stop(r);
		/*
		 * The mapped buffers count in our RSS (the whole buffer, from
		 * the start): give them back before the file is written.
		 */
		for (int i = 0; i < r->nreaders; i++)
			mmap_close(&r->rd[i]);
	}
	return rec_error(r);
}

static const struct reader *find_cpu(const struct rec *r, int cpu)
{
	for (int i = 0; i < r->nreaders; i++)
		if (r->rd[i].cpu == cpu)
			return &r->rd[i];
	return NULL;
}

bool rec_has_cpu(const struct rec *r, int cpu)
{
	return find_cpu(r, cpu);
}

const struct rec_cpu_stat *rec_cpu_stat(const struct rec *r, int cpu)
{
	static const struct rec_cpu_stat none;
	const struct reader *rd = find_cpu(r, cpu);

	return rd ? &rd->st : &none;
}

int rec_cpu_fd(const struct rec *r, int cpu)
{
	const struct reader *rd = find_cpu(r, cpu);

	return rd ? rd->out : -1;
}

void rec_scan_missed(struct rec *r, const bool *quiet)
{
	/*
	 * Only the 16-byte header of each page is needed: read those rather
	 * than map the file, which would count every page in our RSS.
	 */
	for (int i = 0; i < r->nreaders; i++) {
		struct reader *rd = &r->rd[i];
		unsigned char *page = NULL;

		/* The mapped reader counted them as it went (sink). */
		if (rd->out < 0 || !rd->st.bytes || rd->stage)
			continue;
		if (quiet && quiet[rd->cpu])
			continue;
		page = xcalloc(1, r->page_size);
		rd->st.missed_pages = rd->st.missed_events = 0;
		for (uint64_t off = 0; off + r->page_size <= rd->st.bytes; off += r->page_size) {
			uint32_t head = r->layout.data_off;
			struct tfile_page_head h;

			/* The header says whether to look further (the rest is stale here). */
			if (pread(rd->out, page, head, off) != (ssize_t)head)
				break;
			if (tfile_page_head(&r->layout, page, r->page_size, &h) || !h.missed)
				continue;
			/* The stored count sits after the data: read the whole page. */
			if (pread(rd->out, page, r->page_size, off) == (ssize_t)r->page_size)
				count_missed(r, page, &rd->st);
		}
		free(page);
	}
}

void rec_free(struct rec *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->quit = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	rec_spool_kallsyms_cancel(r);
	if (r->go)
		rec_stop(r);
	rec_rot_stop(r);
	for (int i = 0; i < r->nreaders; i++) {
		struct reader *rd = &r->rd[i];

		if (rd->running)
			pthread_join(rd->thread, NULL);
		mmap_close(rd);
		if (rd->fd >= 0)
			close(rd->fd);
		if (rd->pipe[0] >= 0)
			close(rd->pipe[0]);
		if (rd->pipe[1] >= 0)
			close(rd->pipe[1]);
		if (rd->out >= 0)
			close(rd->out);
		if (rd->old_out >= 0)
			close(rd->old_out);
		if (rd->kick_fd >= 0)
			close(rd->kick_fd);
		free(rd->buf);
		free(rd->stage);
	}
	free(r->rd);
	if (r->stop_fd >= 0)
		close(r->stop_fd);
	if (r->event_fd >= 0)
		close(r->event_fd);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	pthread_cond_destroy(&r->rot_cond);
	if (r->meta)
		tfw_meta_free(r->meta);
	free(r->meta);
	free(r);
}

void rec_kstats_parse(const char *text, struct rec_kstats *s)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "entries:", offsetof(struct rec_kstats, entries) },
		{ "overrun:", offsetof(struct rec_kstats, overrun) },
		{ "commit overrun:", offsetof(struct rec_kstats, commit_overrun) },
		{ "bytes:", offsetof(struct rec_kstats, bytes) },
		{ "dropped events:", offsetof(struct rec_kstats, dropped) },
		{ "read events:", offsetof(struct rec_kstats, read) },
	};
	const char *line = text;

	memset(s, 0, sizeof(*s));
	while (line && *line) {
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
			size_t k = strlen(keys[i].key);

			if (!strncmp(line, keys[i].key, k))
				*(uint64_t *)((char *)s + keys[i].off) = strtoull(line + k, NULL, 10);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

int rec_kstats_read(const struct tfs_inst *in, int cpu, struct rec_kstats *s, char **text)
{
	char *file = xasprintf("per_cpu/cpu%d/stats", cpu), *buf = NULL;
	int r = tfs_read(in, file, &buf);

	free(file);
	if (r) {
		memset(s, 0, sizeof(*s));
		return r;
	}
	rec_kstats_parse(buf, s);
	if (text)
		*text = buf;
	else
		free(buf);
	return 0;
}
