// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stream's hand-over and order across CPUs (see stream.h): one queue of
 * sub-buffers per CPU, filled by that CPU's reader and walked in place by
 * the formatting thread, which takes the events out in time order.  The
 * queues draw their sub-buffers from one pool, so that a busy CPU can hold
 * what idle ones do not need; each CPU keeps a few of them (RESERVE) for
 * itself, so that a quiet CPU can always hand over the events the others'
 * wait for.  Freed sub-buffers are reused last-in first-out: memory is
 * touched only as deep as the queues ever get.
 *
 * The pool is the bound and the back-pressure: a reader that finds no room
 * waits, and so takes no more pages from the kernel, whose ring buffer
 * holds what comes meanwhile (and, when that overflows, marks the next
 * sub-buffer with the loss, which prints as the kernel counted it).
 *
 * A CPU can no longer hand over an event earlier than ts once it has
 * handed over one at ts or later (a CPU's events come in time order), or
 * once its reader, after the event was handed over, found its buffer empty:
 * an earlier event of that CPU was committed before then and so was handed
 * over before the reader saw the buffer empty.  Sequence numbers given to
 * the hand-overs and idle reports say what came after what, so no clock
 * has to be compared with the trace clock.
 *
 * Each drain (stream_order_due()) sees the queues as they are at that
 * moment: what is handed over later waits for the next one, so that what
 * a drain prints was all taken from the kernel before the caller read the
 * task names (saved_cmdlines) for it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "session.h"
#include "stream.h"
#include "tr.h"

/* A sub-buffer of the pool, and its place in a CPU's queue. */
struct slot {
	uint64_t seq, ns;	/* of its hand-over */
	uint64_t last_ts;	/* of its last event, once tail_ts() walked it */
	bool tail_known, tail_any;
	uint32_t next;		/* the next in its CPU's queue, or NONE */
};

#define NONE UINT32_MAX

struct cpuq {
	/* Shared with the reader (under the lock). */
	uint32_t head, tail;	/* the pool's sub-buffers queued, oldest first; NONE: none */
	size_t n;
	uint64_t idle_seq;	/* its reader's last report of an empty buffer; 0: none */
	bool waiting;		/* its reader waits for room */
	bool lacking;		/* the last drain stopped for want of its word */
	/* The formatting thread's own. */
	size_t avail;		/* of the n, those this drain may take */
	uint64_t vis_idle_seq;	/* idle_seq as this drain saw it */
	struct tfile_page pg;	/* the walk of the head, when loaded */
	bool loaded;
	struct tfile_event peek;	/* its next event, when peeked */
	bool peeked;
	uint64_t last_ts;	/* the latest event walked */
	bool any;
};

struct stream_order {
	const struct tfile_layout *l;
	struct cpuq *q;
	int ncpus;
	uint64_t max_delay_ns;
	pthread_mutex_t lock;
	pthread_cond_t room;	/* a reader may go on */
	pthread_cond_t work;	/* the formatting thread may go on */
	/* The pool (under the lock). */
	uint8_t *pages;		/* npool sub-buffers, touched as they are first used */
	struct slot *slot;	/* one per sub-buffer */
	uint32_t *free;		/* the free ones, the last freed on top */
	size_t npool, nfree;
	size_t reserve;		/* each CPU's own, taken from the pool */
	size_t owed;		/* what the CPUs below their reserve may still take */
	size_t nwaiting;	/* readers waiting for room */
	uint64_t seq;		/* orders the hand-overs and idle reports */
	uint64_t seen_seq;	/* seq at the formatting thread's last look */
	uint64_t puts;		/* hand-overs so far */
	uint64_t seen_puts;	/* puts at the formatting thread's last look */
	size_t fresh;		/* sub-buffers handed over since then */
	bool closed, discard;
	bool word;		/* a CPU the last drain lacked has spoken */
	/* The formatting thread's own. */
	uint64_t force_ts;	/* release everything up to here (overdue events) */
	bool force;
	int taken_cpu;		/* whose peeked event the caller holds, or -1 */
	uint64_t bad_pages;
	struct stream_order_stats st;	/* under the lock */
};

/* Sub-buffers each CPU keeps for itself: a few, and never more than a quarter of its share. */
#define RESERVE 16

struct stream_order *stream_order_new(int ncpus, const struct tfile_layout *l, size_t cap,
				      uint64_t max_delay_ns)
{
	struct stream_order *o = xcalloc(1, sizeof(*o));

	o->l = l;
	o->q = xcalloc(ncpus, sizeof(*o->q));
	o->ncpus = ncpus;
	if (cap < 2)
		cap = 2;
	o->npool = cap * (size_t)ncpus;
	o->reserve = cap / 4 < RESERVE ? (cap / 4 ? cap / 4 : 1) : RESERVE;
	o->owed = o->reserve * (size_t)ncpus;
	o->max_delay_ns = max_delay_ns;
	o->taken_cpu = -1;
	for (int i = 0; i < ncpus; i++)
		o->q[i].head = o->q[i].tail = NONE;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->room, NULL);
	pthread_cond_init(&o->work, NULL);
	return o;
}

void stream_order_free(struct stream_order *o)
{
	if (!o)
		return;
	free(o->pages);
	free(o->slot);
	free(o->free);
	pthread_cond_destroy(&o->work);
	pthread_cond_destroy(&o->room);
	pthread_mutex_destroy(&o->lock);
	free(o->q);
	free(o);
}

static uint8_t *page_of(const struct stream_order *o, uint32_t i)
{
	return o->pages + (size_t)i * o->l->page_size;
}

/* May cpu's reader take a sub-buffer from the pool now (under the lock)? */
static bool room(const struct stream_order *o, const struct cpuq *q)
{
	return o->nfree && (q->n < o->reserve || o->nfree > o->owed);
}

/* Room that readers, waiting or not, may take: what is free beyond the reserves. */
static size_t spare(const struct stream_order *o)
{
	return o->nfree > o->owed ? o->nfree - o->owed : 0;
}

/*
 * What wakes the formatting thread: the first hand-over (its first records
 * load what the printer lacks, such as the kernel's symbols, the longest
 * wait of the formatting: the sooner it starts, the less piles up behind
 * it), an eighth of the pool new since it last looked, or a reader waiting
 * for room.  Note that a drain takes only what was there when it began:
 * draining often keeps the queues shallow, and the pool free for a stall.
 */
static bool work_due(const struct stream_order *o)
{
	return o->closed || o->fresh >= (o->npool + 7) / 8 || (o->puts && !o->seen_puts) ||
	       (o->nwaiting && o->seq != o->seen_seq);
}

static void poke(struct stream_order *o)
{
	if (work_due(o))
		pthread_cond_signal(&o->work);
}

int stream_order_put(struct stream_order *o, int cpu, const void *page, uint64_t now_ns,
		     bool wait)
{
	struct cpuq *q;
	uint32_t at;

	if (cpu < 0 || cpu >= o->ncpus)
		return -EINVAL;
	q = &o->q[cpu];
	pthread_mutex_lock(&o->lock);
	if (!o->pages) {
		/* Not touched until used: the pool costs what the queues hold at their deepest. */
		o->pages = xmalloc(o->npool * o->l->page_size);
		o->slot = xcalloc(o->npool, sizeof(*o->slot));
		o->free = xmalloc(o->npool * sizeof(*o->free));
		for (size_t i = 0; i < o->npool; i++)
			o->free[i] = (uint32_t)(o->npool - 1 - i);
		o->nfree = o->npool;
	}
	while (!room(o, q) && !o->discard) {
		uint64_t t0, dt;

		if (!wait) {
			pthread_mutex_unlock(&o->lock);
			return -EAGAIN;
		}
		t0 = tr_now_ns();
		q->waiting = true;
		o->nwaiting++;
		poke(o);
		pthread_cond_wait(&o->room, &o->lock);
		o->nwaiting--;
		q->waiting = false;
		dt = tr_now_ns() - t0;
		o->st.waits++;
		o->st.wait_ns += dt;
		if (dt > o->st.max_wait_ns)
			o->st.max_wait_ns = dt;
	}
	if (o->discard) {
		pthread_mutex_unlock(&o->lock);
		return 0;
	}
	at = o->free[--o->nfree];
	if (q->n < o->reserve)
		o->owed--;
	pthread_mutex_unlock(&o->lock);
	/* A sub-buffer off the free list is the reader's alone until it is queued. */
	memcpy(page_of(o, at), page, o->l->page_size);
	pthread_mutex_lock(&o->lock);
	o->slot[at] = (struct slot){ .seq = ++o->seq, .ns = now_ns, .next = NONE };
	if (q->tail == NONE)
		q->head = at;
	else
		o->slot[q->tail].next = at;
	q->tail = at;
	q->n++;
	o->fresh++;
	o->puts++;
	o->st.puts++;
	if (o->npool - o->nfree > o->st.max_fill)
		o->st.max_fill = o->npool - o->nfree;
	poke(o);
	pthread_mutex_unlock(&o->lock);
	return 0;
}

void stream_order_idle(struct stream_order *o, int cpu)
{
	if (cpu < 0 || cpu >= o->ncpus)
		return;
	pthread_mutex_lock(&o->lock);
	o->q[cpu].idle_seq = ++o->seq;
	if (o->q[cpu].lacking) {
		o->word = true;
		pthread_cond_signal(&o->work);
	}
	pthread_mutex_unlock(&o->lock);
}

void stream_order_no_reader(struct stream_order *o, int cpu)
{
	if (cpu < 0 || cpu >= o->ncpus)
		return;
	pthread_mutex_lock(&o->lock);
	o->q[cpu].idle_seq = UINT64_MAX;
	pthread_mutex_unlock(&o->lock);
}

bool stream_order_wait(struct stream_order *o, unsigned ms)
{
	struct timespec until;
	bool closed;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&o->lock);
	for (;;) {
		if (work_due(o) || o->word)
			break;
		if (pthread_cond_timedwait(&o->work, &o->lock, &until) == ETIMEDOUT)
			break;
	}
	closed = o->closed;
	pthread_mutex_unlock(&o->lock);
	return closed;
}

void stream_order_close(struct stream_order *o)
{
	pthread_mutex_lock(&o->lock);
	o->closed = true;
	pthread_cond_signal(&o->work);
	pthread_mutex_unlock(&o->lock);
}

void stream_order_discard(struct stream_order *o)
{
	pthread_mutex_lock(&o->lock);
	o->discard = true;
	pthread_cond_broadcast(&o->room);
	pthread_mutex_unlock(&o->lock);
}

/* Give the queue's head back to the pool. */
static void release(struct stream_order *o, struct cpuq *q)
{
	uint32_t at;

	q->loaded = false;
	q->avail--;
	pthread_mutex_lock(&o->lock);
	at = q->head;
	q->head = o->slot[at].next;
	if (q->head == NONE)
		q->tail = NONE;
	q->n--;
	if (q->n < o->reserve)
		o->owed++;
	o->free[o->nfree++] = at;
	/*
	 * An eighth of the pool at a time, not a wake-up per sub-buffer (see
	 * also wake_readers()).  A reader below its reserve never waits.
	 */
	if (o->nwaiting && spare(o) >= (o->npool + 7) / 8)
		pthread_cond_broadcast(&o->room);
	pthread_mutex_unlock(&o->lock);
}

/* The CPU's next event this drain may take, walking its sub-buffers in place. */
static bool peek(struct stream_order *o, int cpu)
{
	struct cpuq *q = &o->q[cpu];
	uint32_t bad;
	int r;

	while (!q->peeked && q->avail) {
		if (!q->loaded) {
			if (tfile_page_load(&q->pg, o->l, page_of(o, q->head), o->l->page_size,
					    &bad)) {
				o->bad_pages++;
				release(o, q);
				continue;
			}
			q->loaded = true;
		}
		r = tfile_page_next(&q->pg, &q->peek, &bad);
		if (r == 1) {
			q->peek.cpu = cpu;
			q->peek.raw_ts = q->peek.ts;
			q->peeked = true;
			if (!q->any || q->peek.ts > q->last_ts)
				q->last_ts = q->peek.ts;
			q->any = true;
			break;
		}
		/* Its end, or a corrupt event: its events up to there are out, the rest skipped. */
		if (r < 0)
			o->bad_pages++;
		release(o, q);
	}
	return q->peeked;
}

/* The caller is done with the event it took last: walk on past it. */
static void move_on(struct stream_order *o)
{
	if (o->taken_cpu >= 0) {
		o->q[o->taken_cpu].peeked = false;
		peek(o, o->taken_cpu);
		o->taken_cpu = -1;
	}
}

/* The time stamp of the last event of the pool's sub-buffer at. */
static bool tail_ts(struct stream_order *o, uint32_t at, uint64_t *ts)
{
	struct slot *s = &o->slot[at];

	if (!s->tail_known) {
		struct tfile_event ev;
		struct tfile_page pg;
		uint32_t bad;

		s->tail_known = true;
		if (!tfile_page_load(&pg, o->l, page_of(o, at), o->l->page_size, &bad))
			while (tfile_page_next(&pg, &ev, &bad) == 1) {
				s->last_ts = ev.ts;
				s->tail_any = true;
			}
	}
	*ts = s->last_ts;
	return s->tail_any;
}

void stream_order_due(struct stream_order *o, uint64_t now_ns, bool all)
{
	move_on(o);
	pthread_mutex_lock(&o->lock);
	for (int i = 0; i < o->ncpus; i++) {
		o->q[i].avail = o->q[i].n;
		o->q[i].vis_idle_seq = o->q[i].idle_seq;
		o->q[i].lacking = false;
	}
	o->seen_seq = o->seq;
	o->seen_puts = o->puts;
	o->word = false;
	o->fresh = 0;
	pthread_mutex_unlock(&o->lock);
	for (int i = 0; i < o->ncpus; i++)
		peek(o, i);
	if (all) {
		o->force = true;
		o->force_ts = UINT64_MAX;
		return;
	}
	/*
	 * The overdue events are the oldest of each queue; the latest of them
	 * bounds the rest.  A CPU's hand-overs come in time order, so its
	 * latest overdue event is the last of its latest overdue sub-buffer
	 * that has any.  Note that the links of the first avail sub-buffers
	 * are fixed until this thread releases them.
	 */
	for (int i = 0; i < o->ncpus; i++) {
		struct cpuq *q = &o->q[i];
		uint32_t at = q->head, last = NONE;
		uint64_t ts, best = 0;
		bool found = false;
		size_t k;

		/* (The link past the last of avail is the reader's to write.) */
		for (k = 0; k < q->avail && now_ns - o->slot[at].ns >= o->max_delay_ns; k++) {
			last = at;
			if (k + 1 < q->avail)
				at = o->slot[at].next;
		}
		/* Its last overdue one, unless that is empty: then the last that is not. */
		if (last != NONE && tail_ts(o, last, &ts)) {
			best = ts;
			found = true;
		}
		if (!found && last != NONE) {
			bool any = false;

			for (at = q->head;; at = o->slot[at].next) {
				if (tail_ts(o, at, &ts)) {
					best = ts;
					any = true;
				}
				if (at == last)
					break;
			}
			found = any;
		}
		if (found && (!o->force || best > o->force_ts)) {
			o->force = true;
			o->force_ts = best;
		}
	}
}

/*
 * Can no CPU but cpu still hand over an event earlier than h (handed over
 * at seq)?  The CPUs whose word is wanted are marked lacking.
 */
static bool settled(struct stream_order *o, int cpu, const struct tfile_event *h, uint64_t seq)
{
	bool ok = true;

	for (int i = 0; i < o->ncpus; i++) {
		struct cpuq *q = &o->q[i];

		if (i == cpu || q->peeked || (q->any && q->last_ts >= h->ts) ||
		    q->vis_idle_seq > seq)
			continue;
		pthread_mutex_lock(&o->lock);
		q->lacking = true;
		pthread_mutex_unlock(&o->lock);
		ok = false;
	}
	return ok;
}

/* The drain stops here: a reader that waits goes on if there is any room. */
static void wake_readers(struct stream_order *o)
{
	pthread_mutex_lock(&o->lock);
	for (int i = 0; o->nwaiting && i < o->ncpus; i++)
		if (o->q[i].waiting && room(o, &o->q[i])) {
			pthread_cond_broadcast(&o->room);
			break;
		}
	pthread_mutex_unlock(&o->lock);
}

int stream_order_next(struct stream_order *o, struct tfile_event *ev)
{
	struct cpuq *best = NULL;
	int cpu = -1;

	move_on(o);
	for (int i = 0; i < o->ncpus; i++) {
		struct cpuq *q = &o->q[i];

		if (peek(o, i) && (!best || q->peek.ts < best->peek.ts)) {
			best = q;
			cpu = i;
		}
	}
	if (!best) {
		o->force = false;
		wake_readers(o);
		return 0;
	}
	if (!(o->force && best->peek.ts <= o->force_ts) &&
	    !settled(o, cpu, &best->peek, o->slot[best->head].seq)) {
		o->force = false;
		wake_readers(o);
		return 0;
	}
	*ev = best->peek;
	o->taken_cpu = cpu;
	return 1;
}

size_t stream_order_held(struct stream_order *o)
{
	size_t n = 0;

	move_on(o);
	pthread_mutex_lock(&o->lock);
	for (int i = 0; i < o->ncpus; i++) {
		struct cpuq *q = &o->q[i];
		uint32_t at = q->head;

		for (size_t k = 0; k < q->n; k++, at = o->slot[at].next) {
			struct tfile_event ev;
			struct tfile_page pg;
			uint32_t bad;

			if (k == 0 && q->loaded) {
				pg = q->pg;
				n += q->peeked;
			} else if (tfile_page_load(&pg, o->l, page_of(o, at), o->l->page_size,
						   &bad)) {
				continue;
			}
			while (tfile_page_next(&pg, &ev, &bad) == 1)
				n++;
		}
	}
	pthread_mutex_unlock(&o->lock);
	return n;
}

bool stream_order_lacks(struct stream_order *o, int cpu)
{
	bool r;

	if (cpu < 0 || cpu >= o->ncpus)
		return false;
	pthread_mutex_lock(&o->lock);
	r = o->q[cpu].lacking;
	pthread_mutex_unlock(&o->lock);
	return r;
}

uint64_t stream_order_bad_pages(const struct stream_order *o)
{
	return o->bad_pages;
}

void stream_order_stats(struct stream_order *o, struct stream_order_stats *st)
{
	pthread_mutex_lock(&o->lock);
	*st = o->st;
	pthread_mutex_unlock(&o->lock);
}
