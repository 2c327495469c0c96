// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stream's hand-over and order across CPUs (see stream.h): one bounded
 * queue of sub-buffers per CPU, filled by that CPU's reader and walked in
 * place by the formatting thread, which takes the events out in time order.
 *
 * The bound is the back-pressure: a reader that finds its CPU's queue full
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

#include "stream.h"
#include "tr.h"

struct slot {
	uint64_t seq, ns;	/* of its hand-over */
	uint64_t last_ts;	/* of its last event, once tail_ts() walked it */
	bool tail_known, tail_any;
};

struct cpuq {
	/* Shared with the reader (under the lock). */
	uint8_t *pages;		/* cap sub-buffers, allocated at the first hand-over */
	struct slot *slot;
	size_t head, n;		/* slot[head..head+n) (modulo cap) are full */
	uint64_t idle_seq;	/* its reader's last report of an empty buffer; 0: none */
	bool waiting;		/* its reader waits for room */
	bool lacking;		/* the last drain stopped for want of its word */
	/* The formatting thread's own. */
	size_t avail;		/* of the n, those this drain may take */
	uint64_t vis_idle_seq;	/* idle_seq as this drain saw it */
	struct tfile_page pg;	/* the walk of slot[head], when loaded */
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
	size_t cap;
	uint64_t max_delay_ns;
	pthread_mutex_t lock;
	pthread_cond_t room;	/* a reader may go on */
	pthread_cond_t work;	/* the formatting thread may go on */
	uint64_t seq;		/* orders the hand-overs and idle reports */
	uint64_t seen_seq;	/* seq at the formatting thread's last look */
	size_t fresh;		/* sub-buffers handed over since then */
	bool closed, discard;
	bool word;		/* a CPU the last drain lacked has spoken */
	/* The formatting thread's own. */
	uint64_t force_ts;	/* release everything up to here (overdue events) */
	bool force;
	int taken_cpu;		/* whose peeked event the caller holds, or -1 */
	uint64_t bad_pages;
};

struct stream_order *stream_order_new(int ncpus, const struct tfile_layout *l, size_t cap,
				      uint64_t max_delay_ns)
{
	struct stream_order *o = xcalloc(1, sizeof(*o));

	o->l = l;
	o->q = xcalloc(ncpus, sizeof(*o->q));
	o->ncpus = ncpus;
	o->cap = cap < 2 ? 2 : cap;
	o->max_delay_ns = max_delay_ns;
	o->taken_cpu = -1;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->room, NULL);
	pthread_cond_init(&o->work, NULL);
	return o;
}

void stream_order_free(struct stream_order *o)
{
	if (!o)
		return;
	for (int i = 0; i < o->ncpus; i++) {
		free(o->q[i].pages);
		free(o->q[i].slot);
	}
	pthread_cond_destroy(&o->work);
	pthread_cond_destroy(&o->room);
	pthread_mutex_destroy(&o->lock);
	free(o->q);
	free(o);
}

static uint8_t *slot_page(const struct stream_order *o, const struct cpuq *q, size_t k)
{
	return q->pages + ((q->head + k) % o->cap) * o->l->page_size;
}

static struct slot *slot_at(const struct stream_order *o, const struct cpuq *q, size_t k)
{
	return &q->slot[(q->head + k) % o->cap];
}

/* Wake the formatting thread when half a queue's worth is new, or a reader waits on it. */
static void poke(struct stream_order *o)
{
	if (o->fresh >= o->cap / 2 || o->closed)
		pthread_cond_signal(&o->work);
	for (int i = 0; i < o->ncpus; i++)
		if (o->q[i].waiting && o->seq != o->seen_seq) {
			pthread_cond_signal(&o->work);
			break;
		}
}

int stream_order_put(struct stream_order *o, int cpu, const void *page, uint64_t now_ns,
		     bool wait)
{
	struct cpuq *q;
	struct slot *s;
	size_t at;

	if (cpu < 0 || cpu >= o->ncpus)
		return -EINVAL;
	q = &o->q[cpu];
	pthread_mutex_lock(&o->lock);
	while (q->n == o->cap && !o->discard) {
		if (!wait) {
			pthread_mutex_unlock(&o->lock);
			return -EAGAIN;
		}
		q->waiting = true;
		poke(o);
		pthread_cond_wait(&o->room, &o->lock);
		q->waiting = false;
	}
	if (o->discard) {
		pthread_mutex_unlock(&o->lock);
		return 0;
	}
	if (!q->pages) {
		q->pages = xmalloc(o->cap * o->l->page_size);
		q->slot = xcalloc(o->cap, sizeof(*q->slot));
	}
	at = (q->head + q->n) % o->cap;
	pthread_mutex_unlock(&o->lock);
	/* The slot past the last is the reader's alone until it is counted. */
	memcpy(q->pages + at * o->l->page_size, page, o->l->page_size);
	pthread_mutex_lock(&o->lock);
	s = &q->slot[at];
	*s = (struct slot){ .seq = ++o->seq, .ns = now_ns };
	q->n++;
	o->fresh++;
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
		bool stuck = false;

		for (int i = 0; i < o->ncpus; i++)
			stuck |= o->q[i].waiting;
		if (o->closed || o->fresh >= o->cap / 2 || o->word ||
		    (stuck && o->seq != o->seen_seq))
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

/* Give slot[head] back to the reader. */
static void release(struct stream_order *o, struct cpuq *q)
{
	q->loaded = false;
	q->avail--;
	pthread_mutex_lock(&o->lock);
	q->head = (q->head + 1) % o->cap;
	q->n--;
	/* Half a queue at a time, not a wake-up per sub-buffer (see also wake_readers()). */
	if (q->waiting && q->n <= o->cap / 2)
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
			if (tfile_page_load(&q->pg, o->l, slot_page(o, q, 0), o->l->page_size,
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

/* The time stamp of the last event of the k-th sub-buffer this drain may take. */
static bool tail_ts(struct stream_order *o, struct cpuq *q, size_t k, uint64_t *ts)
{
	struct slot *s = slot_at(o, q, k);

	if (!s->tail_known) {
		struct tfile_event ev;
		struct tfile_page pg;
		uint32_t bad;

		s->tail_known = true;
		if (!tfile_page_load(&pg, o->l, slot_page(o, q, k), o->l->page_size, &bad))
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
	 * latest overdue event is the last of its latest overdue sub-buffer.
	 */
	for (int i = 0; i < o->ncpus; i++) {
		struct cpuq *q = &o->q[i];
		size_t k = 0;
		uint64_t ts;

		while (k < q->avail && now_ns - slot_at(o, q, k)->ns >= o->max_delay_ns)
			k++;
		while (k > 0 && !tail_ts(o, q, k - 1, &ts))
			k--;
		if (k > 0 && (!o->force || ts > o->force_ts)) {
			o->force = true;
			o->force_ts = ts;
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
	for (int i = 0; i < o->ncpus; i++)
		if (o->q[i].waiting && o->q[i].n < o->cap) {
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
	    !settled(o, cpu, &best->peek, slot_at(o, best, 0)->seq)) {
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

		for (size_t k = 0; k < q->n; k++) {
			struct tfile_event ev;
			struct tfile_page pg;
			uint32_t bad;

			if (k == 0 && q->loaded) {
				pg = q->pg;
				n += q->peeked;
			} else if (tfile_page_load(&pg, o->l, slot_page(o, q, k), o->l->page_size,
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
	r = false;
	for (int i = 0; o->q[cpu].lacking && i < o->ncpus; i++)
		r |= o->q[i].waiting;
	pthread_mutex_unlock(&o->lock);
	return r;
}

uint64_t stream_order_bad_pages(const struct stream_order *o)
{
	return o->bad_pages;
}
