// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace.dat reader, data half: the per-CPU cursors that feed the
 * sub-buffer parser (page.c) one sub-buffer at a time, straight from the
 * mapped file or from one decompressed chunk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tfile-local.h"

/* An n-byte integer in the file's byte order. */
static uint64_t get(const struct tfile_layout *l, const uint8_t *p, int n)
{
	return tfile_get(p, n, l->big_endian);
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

static void drop_chunk(struct tfile_cursor *c)
{
	c->tf->chunk_mem -= c->chunk_cap;
	free(c->chunk);
	c->chunk = NULL;
	c->chunk_cap = 0;
	c->data = NULL;
	c->data_len = c->page_off = 0;
}

/* Decompress the next chunk: 1, 0 when there are no more, or -errno. */
static int next_chunk(struct tfile_cursor *c)
{
	struct tfile *tf = c->tf;
	uint32_t csize, usize;
	uint64_t at = c->zpos;

	if (!c->chunks_left) {
		/* Done: give the budget back for the other cursors. */
		drop_chunk(c);
		return 0;
	}
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
		uint8_t *n;

		if (tf->chunk_mem - c->chunk_cap + usize > TFILE_CHUNK_BUDGET)
			return tfile_bad(tf, -EBADMSG, 0,
					 "corrupt data at offset %llu (in %s: its chunks and the "
					 "other CPUs' would need more than %u MB decompressed at "
					 "once)", (unsigned long long)at, c->where,
					 TFILE_CHUNK_BUDGET >> 20);
		n = realloc(c->chunk, usize);
		if (!n)
			return tfile_bad(tf, -ENOMEM, 0, "out of memory for a chunk of %u bytes",
					 usize);
		tf->chunk_mem += usize - c->chunk_cap;
		c->chunk = n;
		c->chunk_cap = usize;
	}
	if (tfile_unzip(tf, c->chunk, usize, tf->map + at + 8, csize))
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

/* In trace-cmd's order: the host's clock, then TSC to ns, then the offsets. */
static uint64_t adjust_ts(const struct tfile *tf, int cpu, uint64_t ts)
{
	if (tf->info.tsync)
		ts = tfile_tsync_apply(tf->info.tsync, cpu, ts);
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
				ev->raw_ts = ev->ts;
				ev->ts = adjust_ts(c->tf, c->cpu->cpu, ev->ts);
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
	drop_chunk(c);
	free(c);
}

int tfile_cpu_pages(struct tfile *tf, int buffer, int cpu_index,
		    int (*fn)(void *arg, const void *pages, size_t len), void *arg)
{
	struct tfile_cursor *c;
	int r = tfile_cursor_open(tf, buffer, cpu_index, &c);

	if (r)
		return r;
	if (!c->b->compressed) {
		r = c->data_len ? fn(arg, c->data, c->data_len) : 0;
	} else {
		while ((r = next_chunk(c)) == 1) {
			r = fn(arg, c->data, c->data_len);
			if (r)
				break;
		}
	}
	tfile_cursor_free(c);
	return r;
}
