// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Laying out a trace.dat version 7 file (trace-cmd.dat.v7(5), see tfw.h):
 * sections with a 16-byte header {id2 flags2 string-id4 size8}, flag 1
 * meaning the content is {compressed size4, size4, data}.  The file is
 * written front to back; the offsets the header and the options need are
 * patched in once known, so nothing but one chunk of pages is held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "tfw-local.h"

#define TFW_ZSTD_STREAM_WLOG 16
#ifndef TFW_ZSTD_LEVEL
#define TFW_ZSTD_LEVEL 1
#endif

/* v7 section and option ids beyond those v6 has (trace-cmd.dat.v7(5)). */
enum {
	V7_HEADER_INFO = 16,
	V7_FTRACE_EVENTS = 17,
	V7_EVENT_FORMATS = 18,
	V7_KALLSYMS = 19,
	V7_PRINTK = 20,
	V7_CMDLINES = 21,
	V7_BUFFER_TEXT = 22,
	V7_BTF_FILE = 23,
	V7_MODULES_FILE = 25,
	V7_NSECT = 6,
};

int tfw_zip_parse(const char *name)
{
	if (!strcmp(name, "none"))
		return TFW_ZIP_NONE;
	if (!strcmp(name, "zstd"))
		return TFW_ZIP_ZSTD;
	if (!strcmp(name, "zlib"))
		return TFW_ZIP_ZLIB;
	return -EINVAL;
}

struct w {
	int fd;
	int zip;
	uint64_t pos;
	int err;
	ZSTD_CCtx *zctx;
	struct tfw_blob z;	/* compression output, reused */
};

static void wr(struct w *w, const void *p, size_t n)
{
	if (!w->err && n)
		w->err = tfw_pwrite_all(w->fd, p, n, w->pos);
	w->pos += n;
}

/* Compress n bytes of p into w->z as {csize4 usize4 data}; *len is its length. */
static int zip(struct w *w, const void *p, size_t n, size_t *len)
{
	uint32_t c, u;
	size_t cap, out;

	if (n > UINT32_MAX)
		return -EFBIG;
	cap = w->zip == TFW_ZIP_ZSTD ? ZSTD_compressBound(n) : compressBound(n);
	if (w->z.len < cap + 8) {
		free(w->z.data);
		w->z.data = xmalloc(cap + 8);
		w->z.len = cap + 8;
	}
	if (w->zip == TFW_ZIP_ZSTD) {
		if (!w->zctx)
			w->zctx = ZSTD_createCCtx();
		if (!w->zctx)
			return -ENOMEM;
		out = ZSTD_compressCCtx(w->zctx, w->z.data + 8, cap, p, n, TFW_ZSTD_LEVEL);
		if (ZSTD_isError(out))
			return -EIO;
	} else {
		uLongf o = cap;

		if (compress2((Bytef *)w->z.data + 8, &o, p, n, Z_DEFAULT_COMPRESSION) != Z_OK)
			return -EIO;
		out = o;
	}
	if (out > UINT32_MAX)
		return -EFBIG;
	c = out;
	u = n;
	memcpy(w->z.data, &c, 4);
	memcpy(w->z.data + 4, &u, 4);
	*len = out + 8;
	return 0;
}

/*
 * A section whose content is streamed: a prefix (a length) and a large
 * blob (kallsyms), compressed as they go, so neither is copied whole.
 * total is the content's length, which the compressors want up front.
 */
struct stream {
	struct w *w;
	uint64_t at;
	uint64_t total;
	z_stream zs;
	char out[1 << 16];
};

static void stream_out(struct stream *s, const void *p, size_t n)
{
	wr(s->w, p, n);
}

static uint64_t stream_begin(struct w *w, struct stream *s, uint16_t id, uint64_t total)
{
	uint16_t flags = w->zip != TFW_ZIP_NONE;
	uint32_t strid = 0;

	s->w = w;
	s->at = w->pos;
	s->total = total;
	wr(w, &id, 2);
	wr(w, &flags, 2);
	wr(w, &strid, 4);
	wr(w, &total, 8);		/* patched when compressed */
	if (!flags)
		return s->at;
	wr(w, &(uint64_t){ 0 }, 8);	/* csize4 usize4, patched */
	if (total > UINT32_MAX && !w->err)
		w->err = -EFBIG;
	if (w->zip == TFW_ZIP_ZSTD) {
		if (!w->zctx)
			w->zctx = ZSTD_createCCtx();
		if (!w->zctx && !w->err)
			w->err = -ENOMEM;
		if (w->zctx) {
			ZSTD_CCtx_reset(w->zctx, ZSTD_reset_session_only);
			ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_compressionLevel, TFW_ZSTD_LEVEL);
			/*
			 * A streamed section is kallsyms' megabytes: with the
			 * level's own window the compressor keeps a megabyte
			 * or two of it (tr record's RSS).  Measured on 6.18's
			 * 5.4 MB kallsyms: a 128 KB window made a 953 KB
			 * context, 64 KB 521 KB (no more than the data chunks
			 * need anyway) for 0.7% more compressed bytes.
			 */
			ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_windowLog, TFW_ZSTD_STREAM_WLOG);
			ZSTD_CCtx_setPledgedSrcSize(w->zctx, total);
		}
	} else {
		memset(&s->zs, 0, sizeof(s->zs));
		if (deflateInit(&s->zs, Z_DEFAULT_COMPRESSION) != Z_OK && !w->err)
			w->err = -ENOMEM;
	}
	return s->at;
}

/* Feed n bytes; with end, the last of them.  */
static void stream_feed(struct stream *s, const void *p, size_t n, bool end)
{
	struct w *w = s->w;

	if (w->zip == TFW_ZIP_NONE) {
		stream_out(s, p, n);
		return;
	}
	if (w->zip == TFW_ZIP_ZSTD) {
		ZSTD_inBuffer in = { p, n, 0 };
		size_t left;

		if (!w->zctx)
			return;
		do {
			ZSTD_outBuffer out = { s->out, sizeof(s->out), 0 };

			left = ZSTD_compressStream2(w->zctx, &out, &in,
						    end ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left)) {
				if (!w->err)
					w->err = -EIO;
				return;
			}
			stream_out(s, s->out, out.pos);
		} while (end ? left != 0 : in.pos < in.size);
		return;
	}
	s->zs.next_in = (Bytef *)p;
	s->zs.avail_in = n;
	for (;;) {
		int r;

		s->zs.next_out = (Bytef *)s->out;
		s->zs.avail_out = sizeof(s->out);
		r = deflate(&s->zs, end ? Z_FINISH : Z_NO_FLUSH);
		if (r == Z_STREAM_ERROR) {
			if (!w->err)
				w->err = -EIO;
			return;
		}
		stream_out(s, s->out, sizeof(s->out) - s->zs.avail_out);
		if (end ? r == Z_STREAM_END : s->zs.avail_in == 0 && s->zs.avail_out != 0)
			break;
	}
}

static void stream_end(struct stream *s)
{
	struct w *w = s->w;
	uint64_t size = w->pos - s->at - 16;
	uint32_t sizes[2] = { (uint32_t)(size - 8), (uint32_t)s->total };

	if (w->zip == TFW_ZIP_NONE)
		return;
	if (w->zip == TFW_ZIP_ZLIB)
		deflateEnd(&s->zs);
	if (!w->err)
		w->err = tfw_pwrite_all(w->fd, &size, 8, s->at + 8);
	if (!w->err)
		w->err = tfw_pwrite_all(w->fd, sizes, 8, s->at + 16);
}

/* A section of a length prefix (4 or 8 bytes) and a blob, streamed. */
static void feed_piece(void *arg, const void *p, size_t n, bool last)
{
	stream_feed(arg, p, n, last);
}

/* m: b is m's kallsyms, which may be in its temp file (tfw_kallsyms_each). */
static uint64_t blob_section(struct w *w, uint16_t id, const struct tfw_blob *b, int lenw,
			     const struct tfw_meta *m)
{
	struct stream *s = xcalloc(1, sizeof(*s));
	uint64_t len8 = b->len, at = stream_begin(w, s, id, lenw + b->len);
	uint32_t len4 = b->len;
	int r;

	stream_feed(s, lenw == 4 ? (void *)&len4 : (void *)&len8, lenw, false);
	if (m) {
		r = tfw_kallsyms_each(m, feed_piece, s);
		if (r && !w->err)
			w->err = r;
	} else {
		stream_feed(s, b->data, b->len, true);
	}
	stream_end(s);
	free(s);
	return at;
}

/* Write a section of id with content b (compressed when the file is); its offset. */
static uint64_t section(struct w *w, uint16_t id, const struct tfw_blob *b)
{
	uint64_t at = w->pos;
	uint16_t flags = w->zip != TFW_ZIP_NONE;
	uint32_t strid = 0;
	const void *data = b->data;
	uint64_t size = b->len;
	int r;

	if (flags) {
		size_t zlen = 0;

		r = zip(w, b->data, b->len, &zlen);
		if (r && !w->err)
			w->err = r;
		data = w->z.data;
		size = r ? 0 : zlen;
	}
	wr(w, &id, 2);
	wr(w, &flags, 2);
	wr(w, &strid, 4);
	wr(w, &size, 8);
	wr(w, data, size);
	return at;
}

static int read_src(const struct tfw_src *s, uint64_t off, void *buf, size_t n)
{
	if (s->mem) {
		memcpy(buf, (const char *)s->mem + off, n);
		return 0;
	}
	while (n) {
		ssize_t got = pread(s->fd, buf, n, off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		buf = (char *)buf + got;
		n -= got;
		off += got;
	}
	return 0;
}

/*
 * A temp file is compressed from a mapping, a window at a time, rather
 * than read into a buffer: the same pages without the copy (a tenth of
 * the compressing time for a recording's 70 MB).  The window counts in RSS
 * while it is mapped.
 */
#define TFW_V7_MAP_WINDOW (1U << 20)

struct window {
	const char *p;
	uint64_t off, len;
	bool off_limits;	/* not mappable: read instead */
};

/* The n bytes at off of s, from a mapped window of it, or NULL to read them. */
static const char *window_at(struct window *win, const struct tfw_src *s, uint64_t off, size_t n)
{
	struct stat st;
	void *p;

	if (win->off_limits || s->mem || s->fd < 0)
		return NULL;
	if (win->p && off >= win->off && off + n <= win->off + win->len)
		return win->p + (off - win->off);
	if (win->p)
		munmap((void *)win->p, win->len);
	win->p = NULL;
	/* Past the end of the file a mapping faults: map only what is there. */
	if (off % (uint64_t)sysconf(_SC_PAGESIZE) || fstat(s->fd, &st) ||
	    (uint64_t)st.st_size < s->size) {
		win->off_limits = true;
		return NULL;
	}
	win->off = off;
	win->len = s->size - off < TFW_V7_MAP_WINDOW ? s->size - off : TFW_V7_MAP_WINDOW;
	if (win->len < n)
		win->len = n;
	p = mmap(NULL, win->len, PROT_READ, MAP_SHARED, s->fd, (off_t)off);
	if (p == MAP_FAILED) {
		win->off_limits = true;
		return NULL;
	}
	win->p = p;
	return win->p;
}

static void window_drop(struct window *win)
{
	if (win->p)
		munmap((void *)win->p, win->len);
	win->p = NULL;
}

struct cpu_entry {
	uint32_t cpu;
	uint64_t off, size;
};

/*
 * One BUFFER section: each CPU with data, page-aligned, as is or as a
 * chunk count and chunks.  Fills ents (the CPUs listed) and returns the
 * section's offset.
 */
static uint64_t buffer_section(struct w *w, const struct tfw_meta *m, const struct tfw_buffer *b,
			       char *chunk, struct cpu_entry *ents, uint32_t *nents)
{
	uint64_t at = w->pos, size;
	uint16_t id = TFW_OPT_BUFFER, flags = w->zip != TFW_ZIP_NONE;
	uint32_t strid = 0;
	size_t step = (size_t)m->page_size * TFW_V7_CHUNK_PAGES;

	wr(w, &id, 2);
	wr(w, &flags, 2);
	wr(w, &strid, 4);
	wr(w, &(uint64_t){ 0 }, 8);	/* patched below */
	*nents = 0;
	for (int c = 0; c < m->cpus && !w->err; c++) {
		const struct tfw_src *s = &b->cpu[c];
		struct cpu_entry *e;
		struct window win = { 0 };
		uint64_t done = 0, count_at;
		uint32_t count = 0;

		if (!s->size)
			continue;
		e = &ents[(*nents)++];
		w->pos = tfw_align_up(w->pos, m->page_size);
		e->cpu = c;
		e->off = w->pos;
		count_at = w->pos;
		if (flags)
			wr(w, &count, 4);	/* patched below */
		while (done < s->size && !w->err) {
			size_t n = s->size - done < step ? s->size - done : step, zlen = 0;
			const char *p = window_at(&win, s, done, n);
			int r = p ? 0 : read_src(s, done, chunk, n);

			if (!p)
				p = chunk;
			if (!r && flags)
				r = zip(w, p, n, &zlen);
			if (r) {
				w->err = r;
				break;
			}
			if (flags) {
				wr(w, w->z.data, zlen);
				count++;
			} else {
				wr(w, p, n);
			}
			done += n;
		}
		window_drop(&win);
		/* As trace-cmd records it: the chunks' bytes, without the count. */
		e->size = flags ? w->pos - count_at - 4 : s->size;
		if (flags && !w->err)
			w->err = tfw_pwrite_all(w->fd, &count, 4, count_at);
	}
	size = w->pos - at - 16;
	if (!w->err)
		w->err = tfw_pwrite_all(w->fd, &size, 8, at + 8);
	return at;
}

/*
 * A latency file's BUFFER_TEXT section: the text, compressed as trace-cmd
 * writes it (a chunk count, then chunks) when the file is.
 */
static uint64_t text_section(struct w *w, const struct tfw_meta *m, const char *text, size_t len)
{
	uint64_t at = w->pos, size;
	uint16_t id = V7_BUFFER_TEXT, flags = w->zip != TFW_ZIP_NONE;
	uint32_t strid = 0, count = 0;
	size_t step = (size_t)m->page_size * TFW_V7_CHUNK_PAGES, count_at;

	wr(w, &id, 2);
	wr(w, &flags, 2);
	wr(w, &strid, 4);
	wr(w, &(uint64_t){ 0 }, 8);	/* patched below */
	if (!flags) {
		wr(w, text, len);
	} else {
		count_at = w->pos;
		wr(w, &count, 4);	/* patched below */
		for (size_t done = 0; done < len && !w->err; done += step, count++) {
			size_t n = len - done < step ? len - done : step, zlen = 0;
			int r = zip(w, text + done, n, &zlen);

			if (r) {
				w->err = r;
				break;
			}
			wr(w, w->z.data, zlen);
		}
		if (!w->err)
			w->err = tfw_pwrite_all(w->fd, &count, 4, count_at);
	}
	size = w->pos - at - 16;
	if (!w->err)
		w->err = tfw_pwrite_all(w->fd, &size, 8, at + 8);
	return at;
}

static void option(struct tfw_blob *o, uint16_t id, const void *p, uint32_t n)
{
	tfw_put16(o, id);
	tfw_put32(o, n);
	tfw_put(o, p, n);
}

int tfw_write_v7(int fd, struct tfw_meta *m, struct tfw_buffer *bufs, size_t nbufs,
		 const char *text, size_t tlen, struct tfw_result *res)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct w w = { .fd = fd, .zip = m->zip };
	struct tfw_blob b = { 0 }, opts = { 0 };
	const char *zname = "none", *zver = "";
	const char *clock = m->clock ? m->clock : "local";
	uint64_t sect[V7_NSECT], *bat = xcalloc(nbufs ? nbufs : 1, sizeof(*bat)), opt_at, patch_at;
	uint64_t text_at = 0, btf_at = 0, modules_at = 0;
	struct cpu_entry **ents = xcalloc(nbufs, sizeof(*ents));
	uint32_t *nents = xcalloc(nbufs, sizeof(*nents));
	char *chunk = NULL;
	uint8_t c8;

	if (m->zip == TFW_ZIP_ZSTD) {
		zname = "zstd";
		zver = ZSTD_versionString();
	} else if (m->zip == TFW_ZIP_ZLIB) {
		zname = "zlib";
		zver = zlibVersion();
	}
	if (ftruncate(fd, 0))
		w.err = -errno;
	wr(&w, magic, sizeof(magic));
	wr(&w, "7", 2);
	c8 = tfw_host_big_endian();
	wr(&w, &c8, 1);
	c8 = m->long_size ? m->long_size : (int)sizeof(long);
	wr(&w, &c8, 1);
	wr(&w, &m->page_size, 4);
	wr(&w, zname, strlen(zname) + 1);
	wr(&w, zver, strlen(zver) + 1);
	patch_at = w.pos;
	wr(&w, &(uint64_t){ 0 }, 8);	/* the options section, patched at the end */

	tfw_put_header_info(m, &b);
	sect[0] = section(&w, V7_HEADER_INFO, &b);
	b.len = 0;
	tfw_put_ftrace(m, &b);
	sect[1] = section(&w, V7_FTRACE_EVENTS, &b);
	b.len = 0;
	tfw_put_formats(m, &b);
	sect[2] = section(&w, V7_EVENT_FORMATS, &b);
	free(b.data);
	/* The big ones are streamed through the compressor, not copied. */
	sect[3] = blob_section(&w, V7_KALLSYMS, &m->kallsyms, 4, m);
	sect[4] = blob_section(&w, V7_PRINTK, &m->printk, 4, NULL);
	sect[5] = blob_section(&w, V7_CMDLINES, &m->cmdlines, 8, NULL);
	/*
	 * As trace-cmd 3.4 writes them: the bytes as they are, no length
	 * before them.  Compressed files only: 3.4 takes these two from its
	 * decompressor, and so fails (silently) on any file holding them
	 * uncompressed.
	 */
	if (m->btf.len && w.zip != TFW_ZIP_NONE)
		btf_at = section(&w, V7_BTF_FILE, &m->btf);
	if (m->modules.len && w.zip != TFW_ZIP_NONE)
		modules_at = section(&w, V7_MODULES_FILE, &m->modules);

	chunk = xmalloc((size_t)m->page_size * TFW_V7_CHUNK_PAGES);
	for (size_t i = 0; i < nbufs; i++) {
		ents[i] = xcalloc(m->cpus ? m->cpus : 1, sizeof(**ents));
		for (int c = 0; c < m->cpus; c++)
			res->data_bytes += bufs[i].cpu[c].size;
		bat[i] = buffer_section(&w, m, &bufs[i], chunk, ents[i], &nents[i]);
	}
	free(chunk);
	if (text)
		text_at = text_section(&w, m, text, tlen);

	for (size_t i = 0; i < m->nopts; i++)
		option(&opts, m->opts[i].id, m->opts[i].data.data, m->opts[i].data.len);
	option(&opts, TFW_OPT_CPUCOUNT, &(uint32_t){ m->cpus }, 4);
	for (int i = 0; i < V7_NSECT; i++)
		option(&opts, V7_HEADER_INFO + i, &sect[i], 8);
	if (btf_at)
		option(&opts, V7_BTF_FILE, &btf_at, 8);
	if (modules_at)
		option(&opts, V7_MODULES_FILE, &modules_at, 8);
	for (size_t i = 0; i < nbufs; i++) {
		const char *name = bufs[i].name ? bufs[i].name : "";
		size_t nl = strlen(name) + 1, cl = strlen(clock) + 1;

		tfw_put16(&opts, TFW_OPT_BUFFER);
		tfw_put32(&opts, 8 + nl + cl + 4 + 4 + nents[i] * 20);
		tfw_put64(&opts, bat[i]);
		tfw_put(&opts, name, nl);
		tfw_put(&opts, clock, cl);
		tfw_put32(&opts, m->page_size);
		tfw_put32(&opts, nents[i]);
		for (uint32_t j = 0; j < nents[i]; j++) {
			tfw_put32(&opts, ents[i][j].cpu);
			tfw_put64(&opts, ents[i][j].off);
			tfw_put64(&opts, ents[i][j].size);
		}
	}
	if (text) {
		/* {offset8, name "", clock}: the top level's text */
		size_t cl = strlen(clock) + 1;

		tfw_put16(&opts, V7_BUFFER_TEXT);
		tfw_put32(&opts, 8 + 1 + cl);
		tfw_put64(&opts, text_at);
		tfw_put(&opts, "", 1);
		tfw_put(&opts, clock, cl);
	}
	option(&opts, TFW_OPT_DONE, &(uint64_t){ 0 }, 8);	/* no next options section */

	/* The options stay uncompressed, as trace-cmd leaves its last ones. */
	w.zip = TFW_ZIP_NONE;
	opt_at = section(&w, TFW_OPT_DONE, &opts);
	if (!w.err)
		w.err = tfw_pwrite_all(fd, &opt_at, 8, patch_at);
	if (!w.err && ftruncate(fd, w.pos))
		w.err = -errno;
	res->bytes = w.pos;

	for (size_t i = 0; i < nbufs; i++)
		free(ents[i]);
	free(ents);
	free(nents);
	free(bat);
	free(opts.data);
	free(w.z.data);
	ZSTD_freeCCtx(w.zctx);
	return w.err;
}
