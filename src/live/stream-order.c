// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr stream's order across CPUs (see stream.h): the events each CPU's
 * reader handed over wait, copied, in a queue per CPU until no CPU can
 * still hand over an earlier one, or until they have waited the bound.
 *
 * A CPU can no longer hand over an event earlier than ts once it has
 * handed over one at ts or later (a CPU's events come in time order), or
 * once its reader, after the event was handed over, found its buffer empty:
 * an earlier event of that CPU was committed before then and so was handed
 * over before the reader saw the buffer empty.  The sequence numbers the
 * caller gives to hand-overs and idle reports say what came after what, so
 * no clock has to be compared with the trace clock.
 */
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "tr.h"

struct held {
	uint64_t ts, raw_ts, seq, ns;
	int64_t missed;
	size_t off;		/* of the data in the CPU's arena */
	uint32_t size;
};

struct cpuq {
	struct held *ev;
	size_t head, n, cap;	/* ev[head..n) wait */
	uint8_t *data;
	size_t dlen, dcap;
	uint64_t last_ts;	/* the latest event it handed over */
	bool any;
	uint64_t idle_seq;	/* its reader's last report of an empty buffer; 0: none */
};

struct stream_order {
	struct cpuq *q;
	int ncpus;
	uint64_t max_delay_ns;
	uint64_t force_ts;	/* release everything up to here (overdue events) */
	bool force;
};

struct stream_order *stream_order_new(int ncpus, uint64_t max_delay_ns)
{
	struct stream_order *o = xcalloc(1, sizeof(*o));

	o->q = xcalloc(ncpus, sizeof(*o->q));
	o->ncpus = ncpus;
	o->max_delay_ns = max_delay_ns;
	return o;
}

void stream_order_free(struct stream_order *o)
{
	if (!o)
		return;
	for (int i = 0; i < o->ncpus; i++) {
		free(o->q[i].ev);
		free(o->q[i].data);
	}
	free(o->q);
	free(o);
}

void stream_order_add(struct stream_order *o, const struct tfile_event *ev, uint64_t seq,
		      uint64_t now_ns)
{
	struct cpuq *q;
	struct held *h;
	size_t off;

	if (ev->cpu < 0 || ev->cpu >= o->ncpus)
		return;
	q = &o->q[ev->cpu];
	/* What was taken is dropped before the queue grows. */
	if (q->head == q->n) {
		q->head = q->n = 0;
		q->dlen = 0;
	} else if (q->head >= 1024 && q->head * 2 >= q->n) {
		size_t base = q->ev[q->head].off;

		q->n -= q->head;
		memmove(q->ev, q->ev + q->head, q->n * sizeof(*q->ev));
		q->head = 0;
		for (size_t k = 0; k < q->n; k++)
			q->ev[k].off -= base;
		memmove(q->data, q->data + base, q->dlen - base);
		q->dlen -= base;
	}
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 256;
		q->ev = xrealloc(q->ev, q->cap * sizeof(*q->ev));
	}
	off = (q->dlen + 7) & ~(size_t)7;	/* records keep their alignment */
	if (off + ev->size > q->dcap) {
		q->dcap = (off + ev->size) * 2;
		q->data = xrealloc(q->data, q->dcap);
	}
	memcpy(q->data + off, ev->data, ev->size);
	q->dlen = off + ev->size;
	h = &q->ev[q->n++];
	*h = (struct held){ ev->ts, ev->raw_ts, seq, now_ns, ev->missed, off, ev->size };
	if (!q->any || ev->ts > q->last_ts)
		q->last_ts = ev->ts;
	q->any = true;
}

void stream_order_idle(struct stream_order *o, int cpu, uint64_t seq)
{
	if (cpu >= 0 && cpu < o->ncpus && seq > o->q[cpu].idle_seq)
		o->q[cpu].idle_seq = seq;
}

/* Can no CPU but h's own still hand over an event earlier than h? */
static bool settled(const struct stream_order *o, int cpu, const struct held *h)
{
	for (int i = 0; i < o->ncpus; i++) {
		const struct cpuq *q = &o->q[i];

		if (i == cpu || (q->any && q->last_ts >= h->ts) || q->idle_seq > h->seq)
			continue;
		return false;
	}
	return true;
}

void stream_order_due(struct stream_order *o, uint64_t now_ns, bool all)
{
	if (all) {
		o->force = true;
		o->force_ts = UINT64_MAX;
		return;
	}
	/* The overdue events are the oldest of each queue; the latest of them bounds the rest. */
	for (int i = 0; i < o->ncpus; i++) {
		const struct cpuq *q = &o->q[i];

		for (size_t k = q->head; k < q->n && now_ns - q->ev[k].ns >= o->max_delay_ns; k++)
			if (!o->force || q->ev[k].ts > o->force_ts) {
				o->force = true;
				o->force_ts = q->ev[k].ts;
			}
	}
}

int stream_order_next(struct stream_order *o, struct tfile_event *ev)
{
	struct cpuq *best = NULL;
	struct held *h;
	int cpu = -1;

	for (int i = 0; i < o->ncpus; i++) {
		struct cpuq *q = &o->q[i];

		if (q->head < q->n && (!best || q->ev[q->head].ts < best->ev[best->head].ts)) {
			best = q;
			cpu = i;
		}
	}
	if (!best) {
		o->force = false;
		return 0;
	}
	h = &best->ev[best->head];
	if (!(o->force && h->ts <= o->force_ts) && !settled(o, cpu, h)) {
		o->force = false;
		return 0;
	}
	best->head++;
	*ev = (struct tfile_event){ .ts = h->ts, .raw_ts = h->raw_ts, .data = best->data + h->off,
				    .size = h->size, .cpu = cpu, .missed = h->missed };
	return 1;
}

size_t stream_order_held(const struct stream_order *o)
{
	size_t n = 0;

	for (int i = 0; i < o->ncpus; i++)
		n += o->q[i].n - o->q[i].head;
	return n;
}
