// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace.dat reader, data half: the ring-buffer sub-buffer parser and the
 * per-CPU cursors that feed it one sub-buffer at a time, straight from the
 * mapped file or from one decompressed chunk.
 *
 * Sub-buffer layout (from header_page): a u64 timestamp, a local_t commit
 * (bytes of event data; bit 31 set when events were lost before this page,
 * bit 30 when the count of them is stored as a long after the data), then
 * the events.  Each event starts with a 32-bit word: 5 bits of type_len and
 * 27 bits of time delta (in that order from the least significant bit on a
 * little-endian file, from the most significant on a big-endian one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define TFILE_INTERNAL
#include "tfile.h"

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
		*off = atoi(o + 7);
		*size = atoi(s + 5);
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
	uint64_t v = 0;

	if (l->big_endian)
		for (int i = 0; i < n; i++)
			v = v << 8 | p[i];
	else
		for (int i = n - 1; i >= 0; i--)
			v = v << 8 | p[i];
	return v;
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

int tfile_page_load(struct tfile_page *pg, const struct tfile_layout *l, const void *buf,
		    size_t len, uint32_t *bad_off)
{
	const uint8_t *p = buf;
	uint64_t commit, flags, size;

	*pg = (struct tfile_page){ .l = l, .buf = p };
	if (len < (size_t)l->data_off) {
		*bad_off = 0;
		return -EBADMSG;
	}
	/*
	 * Note that the kernel adds the flags to a signed long, so on a 64-bit
	 * kernel bit 31 comes sign-extended: only the low 32 bits mean anything.
	 */
	commit = get(l, p + l->commit_off, l->commit_size) & 0xffffffffULL;
	flags = commit & (TFILE_MISSED_EVENTS | TFILE_MISSED_STORED);
	size = commit & ~(TFILE_MISSED_EVENTS | TFILE_MISSED_STORED);
	if (size > len - l->data_off) {
		*bad_off = l->commit_off;
		return -EBADMSG;
	}
	pg->ts = get(l, p + l->ts_off, 8);
	pg->pos = l->data_off;
	pg->end = l->data_off + size;
	if (flags & TFILE_MISSED_EVENTS) {
		pg->missed = -1;
		if ((flags & TFILE_MISSED_STORED) &&
		    len - pg->end >= (size_t)l->commit_size) {
			uint64_t n = get(l, p + pg->end, l->commit_size);

			pg->missed = n > INT64_MAX ? -1 : (int64_t)n;
		}
	}
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

/* ---- cursors ---- */

struct tfile_cursor {
	struct tfile *tf;
	const struct tfile_buffer *b;
	const struct tfile_cpu *cpu;
	const uint8_t *data;		/* the pages: mapped file or the current chunk */
	uint64_t data_len, page_off;
	uint64_t data_file_off;		/* file offset of data[0], or of the chunk */
	/* Compressed data: where the next chunk header is, and how many are left. */
	uint64_t zpos, zend;
	uint32_t chunks_left;
	uint8_t *chunk;
	size_t chunk_cap;
	struct tfile_page pg;
	bool in_page;
	int64_t carry;			/* lost events from a page without events */
	uint64_t dropped;		/* file offset up to which the mapping was released */
	char where[320];
};

int tfile_cursor_open(struct tfile *tf, int buffer, int cpu_index, struct tfile_cursor **out)
{
	const struct tfile_buffer *b = tfile_buffer(tf, buffer);
	struct tfile_cursor *c;

	*out = NULL;
	if (!b || b->latency || cpu_index < 0 || cpu_index >= b->ncpus)
		return -EINVAL;
	c = xcalloc(1, sizeof(*c));
	c->tf = tf;
	c->b = b;
	c->cpu = &b->cpus[cpu_index];
	c->dropped = c->cpu->offset;
	if (!b->name[0])
		snprintf(c->where, sizeof(c->where), "the CPU %d data", c->cpu->cpu);
	else
		snprintf(c->where, sizeof(c->where), "the CPU %d data of buffer '%s'", c->cpu->cpu,
			 b->name);
	if (b->compressed && c->cpu->size) {
		const uint8_t *p = tf->map + c->cpu->offset;

		if (c->cpu->size < 4) {
			int err = tfile_bad(tf, -EBADMSG, 0, "corrupt data at offset %llu (in %s)",
					    (unsigned long long)c->cpu->offset, c->where);

			tfile_cursor_free(c);
			return err;
		}
		c->chunks_left = (uint32_t)get(&b->layout, p, 4);
		c->zpos = c->cpu->offset + 4;
		/*
		 * Note that trace-cmd's recorded size leaves out the 4-byte chunk
		 * count, so the chunks are bounded by the buffer section instead.
		 */
		c->zend = b->text_offset + b->text_size;
		if (c->zend > tf->size || c->zend < c->cpu->offset + c->cpu->size)
			c->zend = tf->size;
	} else if (!b->compressed) {
		c->data = tf->map + c->cpu->offset;
		c->data_len = c->cpu->size;
		c->data_file_off = c->cpu->offset;
	}
	*out = c;
	return 0;
}

/* Decompress the next chunk: 1, 0 when there are no more, or -errno. */
static int next_chunk(struct tfile_cursor *c)
{
	struct tfile *tf = c->tf;
	uint32_t csize, usize;
	uint64_t at = c->zpos;

	if (!c->chunks_left)
		return 0;
	if (c->zend - c->zpos < 8)
		return tfile_bad(tf, -EBADMSG, 0, "corrupt data at offset %llu (in %s: chunk "
				 "header runs past the end)", (unsigned long long)at, c->where);
	csize = get(&c->b->layout, tf->map + at, 4);
	usize = get(&c->b->layout, tf->map + at + 4, 4);
	if (csize > c->zend - at - 8 || usize > TFILE_MAX_CHUNK)
		return tfile_bad(tf, -EBADMSG, 0,
				 "corrupt data at offset %llu (in %s: chunk of %u bytes, %u "
				 "decompressed)", (unsigned long long)at, c->where, csize, usize);
	if (usize > c->chunk_cap) {
		uint8_t *n = realloc(c->chunk, usize);

		if (!n)
			return tfile_bad(tf, -ENOMEM, 0, "out of memory for a chunk of %u bytes",
					 usize);
		c->chunk = n;
		c->chunk_cap = usize;
	}
	if (tfile_unzip(tf->zip, c->chunk, usize, tf->map + at + 8, csize))
		return tfile_bad(tf, -EBADMSG, 0,
				 "corrupt compressed data at offset %llu (in %s)",
				 (unsigned long long)at, c->where);
	c->chunks_left--;
	c->zpos = at + 8 + csize;
	c->data = c->chunk;
	c->data_len = usize;
	c->page_off = 0;
	c->data_file_off = at;
	return 1;
}

/*
 * Release the mapped file behind the cursor, so a big file read start to
 * end does not stay resident as it is read (the pages are clean: they come
 * back from the page cache if a cursor is opened again).  upto is the file
 * offset the cursor no longer needs.
 */
static void release_behind(struct tfile_cursor *c, uint64_t upto)
{
	const uint64_t chunk = 1 << 20, pg = 4096;
	uint64_t start, end;

	if (upto < c->dropped + chunk)
		return;
	start = (c->dropped + pg - 1) & ~(pg - 1);
	end = upto & ~(pg - 1);
	if (end > start)
		madvise((void *)(c->tf->map + start), end - start, MADV_DONTNEED);
	c->dropped = upto;
}

static uint64_t adjust_ts(const struct tfile *tf, uint64_t ts)
{
	if (tf->tsc2nsec)
		ts = (uint64_t)(((unsigned __int128)ts * tf->tsc_mult) >> tf->tsc_shift) +
		     tf->tsc_offset;
	return ts + tf->info.ts_offset;
}

static int page_error(struct tfile_cursor *c, uint32_t bad)
{
	if (c->b->compressed)
		return tfile_bad(c->tf, -EBADMSG, 0,
				 "corrupt event data in the chunk at offset %llu, byte %llu "
				 "decompressed (in %s)", (unsigned long long)c->data_file_off,
				 (unsigned long long)(c->page_off + bad), c->where);
	return tfile_bad(c->tf, -EBADMSG, 0, "corrupt event data at offset %llu (in %s)",
			 (unsigned long long)(c->data_file_off + c->page_off + bad), c->where);
}

int tfile_cursor_next(struct tfile_cursor *c, struct tfile_event *ev)
{
	uint32_t page_size = c->b->page_size, bad = 0;
	int r;

	for (;;) {
		if (c->in_page) {
			r = tfile_page_next(&c->pg, ev, &bad);
			if (r == 1) {
				ev->ts = adjust_ts(c->tf, ev->ts);
				ev->cpu = c->cpu->cpu;
				return 1;
			}
			if (r < 0)
				return page_error(c, bad);
			c->in_page = false;
			c->carry = c->pg.missed;
			c->page_off += page_size;
		}
		if (c->b->compressed)
			release_behind(c, c->zpos > 8 ? c->zpos - 8 : 0);
		else if (c->page_off < c->data_len)
			release_behind(c, c->data_file_off + c->page_off);
		if (c->page_off >= c->data_len) {
			if (!c->b->compressed)
				return 0;
			r = next_chunk(c);
			if (r <= 0)
				return r;
			continue;
		}
		{
			uint64_t left = c->data_len - c->page_off;

			r = tfile_page_load(&c->pg, &c->b->layout, c->data + c->page_off,
					    left < page_size ? left : page_size, &bad);
		}
		if (r)
			return page_error(c, bad);
		if (c->carry) {
			if (!c->pg.missed)
				c->pg.missed = c->carry;
			else if (c->pg.missed > 0 && c->carry > 0)
				c->pg.missed += c->carry;
			else
				c->pg.missed = -1;
			c->carry = 0;
		}
		c->in_page = true;
	}
}

void tfile_cursor_free(struct tfile_cursor *c)
{
	if (!c)
		return;
	free(c->chunk);
	free(c);
}
