// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The k-way merge: a binary min-heap of streams keyed by (timestamp, order
 * added), each holding its next record.  A record handed out stays valid
 * until the next call, which is when its stream advances; so the merge
 * never copies event data and holds one record per stream.
 */
#include <errno.h>
#include <stdlib.h>

#include "fmt.h"

struct stream {
	fmt_next_fn next;
	void *ctx, *tag;
	unsigned seq;
	struct tfile_event ev;
};

struct fmt_merge {
	struct stream *s;	/* every stream ever added */
	unsigned n, cap;
	unsigned *heap;		/* indices into s of the live streams */
	unsigned nheap;
	int pending;		/* stream handed out last, to advance; -1 none */
	/* fmt_merge_peek read the top stream's next record: re-place it (or drop it: ended) */
	bool moved, ended;
};

struct fmt_merge *fmt_merge_new(void)
{
	struct fmt_merge *m = xcalloc(1, sizeof(*m));

	m->pending = -1;
	return m;
}

void fmt_merge_free(struct fmt_merge *m)
{
	if (!m)
		return;
	free(m->s);
	free(m->heap);
	free(m);
}

static inline bool before(const struct fmt_merge *m, unsigned a, unsigned b)
{
	const struct stream *x = &m->s[a], *y = &m->s[b];

	return x->ev.ts < y->ev.ts || (x->ev.ts == y->ev.ts && x->seq < y->seq);
}

static void sift_down(struct fmt_merge *m, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, min = i, t;

		if (l < m->nheap && before(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < m->nheap && before(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

static void sift_up(struct fmt_merge *m, unsigned i)
{
	while (i) {
		unsigned p = (i - 1) / 2, t;

		if (!before(m, m->heap[i], m->heap[p]))
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[p];
		m->heap[p] = t;
		i = p;
	}
}

int fmt_merge_add(struct fmt_merge *m, fmt_next_fn next, void *ctx, void *tag)
{
	struct stream *st;
	int r;

	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 16;
		m->s = xrealloc(m->s, m->cap * sizeof(*m->s));
		m->heap = xrealloc(m->heap, m->cap * sizeof(*m->heap));
	}
	st = &m->s[m->n];
	*st = (struct stream){ .next = next, .ctx = ctx, .tag = tag, .seq = m->n };
	r = next(ctx, &st->ev);
	if (r < 0)
		return r;
	m->n++;
	if (r == 0)
		return 0;
	m->heap[m->nheap] = m->n - 1;
	sift_up(m, m->nheap++);
	return 0;
}

int fmt_merge_next(struct fmt_merge *m, struct tfile_event **ev, void **tag)
{
	struct stream *st;

	if (m->moved) {
		m->moved = false;
		if (m->ended) {
			m->ended = false;
			m->heap[0] = m->heap[--m->nheap];
		}
		if (m->nheap)
			sift_down(m, 0);
	} else if (m->pending >= 0) {
		/* The stream at the top gave out its record last time: advance it. */
		int r;

		st = &m->s[m->heap[0]];
		r = st->next(st->ctx, &st->ev);
		m->pending = -1;
		if (r < 0)
			return r;
		if (r == 0) {
			m->heap[0] = m->heap[--m->nheap];
			if (m->nheap)
				sift_down(m, 0);
		} else {
			sift_down(m, 0);
		}
	}
	if (!m->nheap)
		return 0;
	st = &m->s[m->heap[0]];
	*ev = &st->ev;
	if (tag)
		*tag = st->tag;
	m->pending = m->heap[0];
	return 1;
}

int fmt_merge_peek(struct fmt_merge *m, struct tfile_event **ev)
{
	struct stream *st;
	int r;

	if (m->pending < 0)
		return m->moved && !m->ended ? (*ev = &m->s[m->heap[0]].ev, 1) : 0;
	st = &m->s[m->heap[0]];
	r = st->next(st->ctx, &st->ev);
	m->pending = -1;
	if (r < 0)
		return r;
	m->moved = true;
	m->ended = r == 0;
	if (r == 1)
		*ev = &st->ev;
	return r;
}

void fmt_merge_skip(struct fmt_merge *m)
{
	if (!m->moved || m->ended)
		return;
	/* As if the peeked record had been handed out: the next call advances its stream. */
	m->moved = false;
	m->pending = m->heap[0];
}
