// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ring buffer's sub-buffer format, parsed in one place for the
 * recorder, the trace.dat reader, stream, hist and top.
 *
 * Sub-buffer layout (from header_page): a u64 timestamp, a local_t commit
 * (bytes of event data; bit 31 set when events were lost before this page,
 * bit 30 when the count of them is stored as a long after the data), then
 * the events.  Each event starts with a 32-bit word: 5 bits of type_len and
 * 27 bits of time delta (in that order from the least significant bit on a
 * little-endian file, from the most significant on a big-endian one).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "page.h"
#include "tr.h"

/* No header field lies further into a sub-buffer than this. */
#define PAGE_FIELD_MAX (1 << 20)

enum {
	RB_DATA_MAX = 28,
	RB_PADDING = 29,
	RB_TIME_EXTEND = 30,
	RB_TIME_STAMP = 31,
	TS_SHIFT = 27,
};
#define TS_MSB (0xf8ULL << 56)

/* Find "field: TYPE NAME; offset:N; size:N;" for NAME in header_page. */
static int find_field(const char *text, size_t len, const char *name, int *off, int *size)
{
	char *copy = xmalloc(len + 1), *line, *save = NULL;
	int found = -1;

	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f = strstr(line, "field:"), *semi, *o, *s;
		size_t nl = strlen(name);

		if (!f || !(semi = strchr(f, ';')))
			continue;
		/* The word just before the ';' is the field's name. */
		if ((size_t)(semi - f) < nl || strncmp(semi - nl, name, nl) ||
		    (semi - nl > f && semi[-(long)nl - 1] != ' ' && semi[-(long)nl - 1] != '\t'))
			continue;
		o = strstr(semi, "offset:");
		s = strstr(semi, "size:");
		if (!o || !s)
			continue;
		/* Bounded so that no sum of them can overflow (a hostile file). */
		*off = (int)strtol(o + 7, NULL, 10);
		*size = (int)strtol(s + 5, NULL, 10);
		if (*off < 0 || *off > PAGE_FIELD_MAX || *size < 0 || *size > PAGE_FIELD_MAX)
			break;
		found = 0;
		break;
	}
	free(copy);
	return found;
}

int tfile_layout_parse(struct tfile_layout *l, const char *text, size_t len, bool big_endian,
		       uint32_t page_size)
{
	int size, dsize;

	*l = (struct tfile_layout){ .big_endian = big_endian, .page_size = page_size };
	if (!text || find_field(text, len, "timestamp", &l->ts_off, &size) || size != 8 ||
	    find_field(text, len, "commit", &l->commit_off, &l->commit_size) ||
	    (l->commit_size != 4 && l->commit_size != 8) ||
	    find_field(text, len, "data", &l->data_off, &dsize))
		return -EINVAL;
	if (l->ts_off < 0 || l->commit_off < 0 || l->data_off < l->ts_off + 8 ||
	    l->data_off < l->commit_off + l->commit_size || (uint32_t)l->data_off >= page_size)
		return -EINVAL;
	return 0;
}

static inline uint64_t get(const struct tfile_layout *l, const uint8_t *p, int n)
{
	return tfile_get(p, n, l->big_endian);
}

static inline uint32_t get32(const struct tfile_layout *l, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return l->big_endian ? __builtin_bswap32(v) : v;
#else
	return l->big_endian ? v : __builtin_bswap32(v);
#endif
}

void tfile_page_commit(const struct tfile_layout *l, const void *page, uint32_t *size,
		       uint32_t *flags)
{
	const char *p = (const char *)page + l->commit_off;
	uint64_t c = l->commit_size == 8 ? __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE)
					 : __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);

	/* Only the low 32 bits mean anything (see tfile_page_head()). */
	c &= 0xffffffffULL;
	*flags = (uint32_t)(c & (TFILE_MISSED_EVENTS | TFILE_MISSED_STORED));
	*size = (uint32_t)(c & ~(uint64_t)(TFILE_MISSED_EVENTS | TFILE_MISSED_STORED));
}

int tfile_page_head(const struct tfile_layout *l, const void *buf, size_t len,
		    struct tfile_page_head *h)
{
	const uint8_t *p = buf;
	uint64_t commit, flags, size, end;

	*h = (struct tfile_page_head){ 0 };
	if (len < (size_t)l->data_off)
		return -EBADMSG;
	/*
	 * Note that the kernel adds the flags to a signed long, so on a 64-bit
	 * kernel bit 31 comes sign-extended: only the low 32 bits mean anything.
	 */
	commit = get(l, p + l->commit_off, l->commit_size) & 0xffffffffULL;
	flags = commit & (TFILE_MISSED_EVENTS | TFILE_MISSED_STORED);
	size = commit & ~(TFILE_MISSED_EVENTS | TFILE_MISSED_STORED);
	if (size > len - l->data_off)
		return -EBADMSG;
	h->ts = get(l, p + l->ts_off, 8);
	h->size = size;
	if (flags & TFILE_MISSED_EVENTS) {
		h->missed = -1;
		/* The count sits right after the data, if the page had room for it. */
		end = l->data_off + size;
		if ((flags & TFILE_MISSED_STORED) && len - end >= (size_t)l->commit_size) {
			uint64_t n = get(l, p + end, l->commit_size);

			h->missed = n > INT64_MAX ? -1 : (int64_t)n;
		}
	}
	return 0;
}

int tfile_page_load(struct tfile_page *pg, const struct tfile_layout *l, const void *buf,
		    size_t len, uint32_t *bad_off)
{
	struct tfile_page_head h;

	*pg = (struct tfile_page){ .l = l, .buf = buf };
	if (tfile_page_head(l, buf, len, &h)) {
		*bad_off = len < (size_t)l->data_off ? 0 : (uint32_t)l->commit_off;
		return -EBADMSG;
	}
	pg->ts = h.ts;
	pg->pos = l->data_off;
	pg->end = l->data_off + h.size;
	pg->missed = h.missed;
	return 0;
}

int tfile_page_next(struct tfile_page *pg, struct tfile_event *ev, uint32_t *bad_off)
{
	const struct tfile_layout *l = pg->l;

	while (pg->end - pg->pos >= 4) {
		const uint8_t *e = pg->buf + pg->pos;
		uint32_t h = get32(l, e), type_len, delta, room = pg->end - pg->pos, len;
		uint64_t v = 0;

		if (l->big_endian) {
			type_len = h >> 27;
			delta = h & ((1u << 27) - 1);
		} else {
			type_len = h & 31;
			delta = h >> 5;
		}
		if (type_len > RB_DATA_MAX || type_len == 0) {
			if (type_len == RB_PADDING && delta == 0)
				return 0;	/* the rest of the page is empty */
			if (room < 8) {
				*bad_off = pg->pos;
				return -EBADMSG;
			}
			v = get32(l, e + 4);
		}
		switch (type_len) {
		case RB_PADDING:
			/* A discarded event: skip it, its time does not count. */
			if (v < 4 || v > room - 4) {
				*bad_off = pg->pos;
				return -EBADMSG;
			}
			pg->pos += 4 + v;
			continue;
		case RB_TIME_EXTEND:
			pg->ts += (v << TS_SHIFT) + delta;
			pg->pos += 8;
			continue;
		case RB_TIME_STAMP:
			v = (v << TS_SHIFT) + delta;
			/* Absolute stamps drop the top bits; take them from the current time. */
			if (pg->ts & TS_MSB) {
				uint64_t cur = pg->ts;

				v |= cur & TS_MSB;
				if (v < cur)
					v += 1ULL << 59;
			}
			pg->ts = v;
			pg->pos += 8;
			continue;
		case 0:
			if (v < 4 || v > room - 4) {
				*bad_off = pg->pos;
				return -EBADMSG;
			}
			len = 4 + v;
			ev->data = (void *)(e + 8);
			ev->size = v - 4;
			break;
		default:
			len = 4 + type_len * 4;
			if (len > room) {
				*bad_off = pg->pos;
				return -EBADMSG;
			}
			ev->data = (void *)(e + 4);
			ev->size = type_len * 4;
			break;
		}
		pg->ts += delta;
		pg->pos += len;
		ev->ts = pg->ts;
		ev->missed = pg->missed;
		pg->missed = 0;
		return 1;
	}
	return 0;
}


int tfile_pages_walk(const struct tfile_layout *l, int cpu, const void *pages, size_t len,
		     tfile_event_fn fn, void *arg, struct tfile_walk_stats *st)
{
	const uint8_t *p = pages;
	uint32_t ps = l->page_size, bad;

	for (size_t off = 0; off + ps <= len; off += ps) {
		struct tfile_page pg;
		struct tfile_event ev;
		int r;

		st->pages++;
		if (tfile_page_load(&pg, l, p + off, ps, &bad)) {
			st->bad_pages++;
			continue;
		}
		if (pg.missed) {
			st->missed_pages++;
			if (pg.missed > 0)
				st->missed_events += pg.missed;
		}
		while ((r = tfile_page_next(&pg, &ev, &bad)) == 1) {
			ev.cpu = cpu;
			st->events++;
			if (ev.missed)
				st->lost += ev.missed > 0 ? (uint64_t)ev.missed : 1;
			r = fn(arg, &ev);
			if (r)
				return r;
		}
		if (r < 0)
			st->bad_pages++;
	}
	return 0;
}

/* ---- writing sub-buffers ---- */

static void put(const struct tfile_layout *l, uint8_t *p, uint64_t v, int n)
{
	if (l->big_endian)
		for (int i = n - 1; i >= 0; i--, v >>= 8)
			p[i] = v & 0xff;
	else
		for (int i = 0; i < n; i++, v >>= 8)
			p[i] = v & 0xff;
}

static void put_head(const struct tfile_layout *l, uint8_t *p, uint32_t type_len, uint32_t delta)
{
	put(l, p, l->big_endian ? type_len << 27 | delta : delta << 5 | type_len, 4);
}

void tfile_page_out_start(struct tfile_page_out *o, const struct tfile_layout *l, void *buf)
{
	*o = (struct tfile_page_out){ .l = l, .buf = buf, .pos = l->data_off, .empty = true };
	memset(buf, 0, l->page_size);
}

int tfile_page_out_add(struct tfile_page_out *o, uint64_t ts, const void *data, uint32_t size,
		       int64_t missed)
{
	const struct tfile_layout *l = o->l;
	uint32_t room = l->page_size, len, ext = 0;
	uint64_t delta = 0;
	bool compact = size && size % 4 == 0 && size <= RB_DATA_MAX * 4;

	len = compact ? 4 + size : 8 + size;
	if (o->empty) {
		/* A stored count of lost events goes right after the data. */
		if (missed > 0)
			room -= l->commit_size;
		if (l->data_off + len > room)
			return -EINVAL;
		o->ts = ts;
		o->missed = missed;
		put(l, o->buf + l->ts_off, ts, 8);
	} else {
		/* Lost events are a property of a page's start; time only moves on. */
		if (missed || ts < o->ts)
			return 0;
		delta = ts - o->ts;
		if (delta >= 1ULL << TS_SHIFT)
			ext = 8;
		if (o->missed > 0)
			room -= l->commit_size;
		if (o->pos + ext + len > room)
			return 0;
	}
	if (ext) {
		put_head(l, o->buf + o->pos, RB_TIME_EXTEND, delta & ((1u << TS_SHIFT) - 1));
		put(l, o->buf + o->pos + 4, delta >> TS_SHIFT, 4);
		o->pos += 8;
		delta = 0;
	}
	if (compact) {
		put_head(l, o->buf + o->pos, size / 4, delta);
		memcpy(o->buf + o->pos + 4, data, size);
	} else {
		put_head(l, o->buf + o->pos, 0, delta);
		put(l, o->buf + o->pos + 4, size + 4, 4);
		memcpy(o->buf + o->pos + 8, data, size);
	}
	o->pos += len;
	o->ts = ts;
	o->empty = false;
	return 1;
}

void tfile_page_out_finish(struct tfile_page_out *o)
{
	const struct tfile_layout *l = o->l;
	uint64_t commit = o->pos - l->data_off;

	if (o->missed) {
		commit |= TFILE_MISSED_EVENTS;
		if (o->missed > 0) {
			commit |= TFILE_MISSED_STORED;
			put(l, o->buf + o->pos, o->missed, l->commit_size);
		}
	}
	put(l, o->buf + l->commit_off, commit, l->commit_size);
}
