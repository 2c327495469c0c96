// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Laying out a trace.dat version 6 file (see tfw.h).  Gathering the
 * metadata from tracefs is in tfw-gather.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "tfw.h"
#include "tfw-local.h"

/* Copy size of one step when moving a temp file into the output. */
#define TFW_CHUNK (1ULL << 20)
/* The source is mapped this much at a time for direct writes (it counts in RSS). */
#define TFW_DIRECT_WINDOW (512U << 10)
/* Direct writes go in whole blocks of this size, at offsets aligned to it. */
#define TFW_DIRECT_ALIGN 4096U

void tfw_blob_append(struct tfw_blob *b, const void *data, size_t len)
{
	if (!len)
		return;
	b->data = xrealloc(b->data, b->len + len);
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

int tfw_blob_try_append(struct tfw_blob *b, const void *data, size_t len)
{
	char *p;

	if (!len)
		return 0;
	if (len > SIZE_MAX - b->len || !(p = realloc(b->data, b->len + len)))
		return -ENOMEM;
	b->data = p;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

void tfw_meta_add_option(struct tfw_meta *m, uint16_t id, const void *data, size_t len)
{
	struct tfw_opt *o;

	m->opts = xrealloc(m->opts, (m->nopts + 1) * sizeof(*m->opts));
	o = &m->opts[m->nopts++];
	o->id = id;
	o->data = (struct tfw_blob){ 0 };
	tfw_blob_append(&o->data, data, len);
}

static struct tfw_opt *version_opt(const struct tfw_meta *m)
{
	for (size_t i = 0; i < m->nopts; i++)
		if (m->opts[i].id == TFW_OPT_VERSION && m->opts[i].data.len > 3 &&
		    !memcmp(m->opts[i].data.data, "tr ", 3))
			return &m->opts[i];
	return NULL;
}

bool tfw_meta_has_text_option(const struct tfw_meta *m, const char *word)
{
	const struct tfw_opt *o = version_opt(m);
	const char *p, *end, *nul;
	size_t n = strlen(word);

	if (!o)
		return false;
	end = o->data.data + o->data.len;
	nul = memchr(o->data.data, 0, o->data.len);
	if (!nul)
		return false;
	/* The second string: one word a line, up to its NUL. */
	for (p = nul + 1; p < end && *p;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *stop = eol ? eol : end;
		const char *z = memchr(p, 0, (size_t)(stop - p));

		if (z)
			stop = z;
		if ((size_t)(stop - p) == n && !memcmp(p, word, n))
			return true;
		if (!eol || z)
			break;
		p = eol + 1;
	}
	return false;
}

void tfw_meta_add_tgids(struct tfw_meta *m, const char *text, size_t len)
{
	static const char head[] = "saved_tgids\n";
	struct tfw_opt *o = version_opt(m);
	size_t nuls = 0;

	if (!o)
		return;
	for (size_t k = 0; k < o->data.len; k++)
		nuls += !o->data.data[k];
	/* The version and the text options are the first two strings, even empty. */
	if (o->data.data[o->data.len - 1])
		tfw_blob_append(&o->data, "", 1), nuls++;
	if (nuls < 2)
		tfw_blob_append(&o->data, "", 1);
	tfw_blob_append(&o->data, head, sizeof(head) - 1);
	/* A NUL would end the string early: the lines up to the first. */
	tfw_blob_append(&o->data, text, strnlen(text, len));
	tfw_blob_append(&o->data, "", 1);
}

void tfw_meta_add_format(struct tfw_meta *m, const char *system, const char *data, size_t len)
{
	struct tfw_system *s = NULL;
	struct tfw_blob *b;

	if (!strcmp(system, "ftrace")) {
		m->ftrace = xrealloc(m->ftrace, (m->nftrace + 1) * sizeof(*m->ftrace));
		b = &m->ftrace[m->nftrace++];
	} else {
		for (size_t i = 0; i < m->nsystems && !s; i++)
			if (!strcmp(m->systems[i].name, system))
				s = &m->systems[i];
		if (!s) {
			m->systems = xrealloc(m->systems, (m->nsystems + 1) * sizeof(*m->systems));
			s = &m->systems[m->nsystems++];
			*s = (struct tfw_system){ .name = xstrdup(system) };
		}
		s->formats = xrealloc(s->formats, (s->n + 1) * sizeof(*s->formats));
		b = &s->formats[s->n++];
	}
	*b = (struct tfw_blob){ 0 };
	tfw_blob_append(b, data, len);
}

void tfw_meta_free(struct tfw_meta *m)
{
	free(m->header_page.data);
	free(m->header_event.data);
	for (size_t i = 0; i < m->nftrace; i++)
		free(m->ftrace[i].data);
	free(m->ftrace);
	for (size_t i = 0; i < m->nsystems; i++) {
		for (size_t j = 0; j < m->systems[i].n; j++)
			free(m->systems[i].formats[j].data);
		free(m->systems[i].formats);
		free(m->systems[i].name);
	}
	free(m->systems);
	tfw_meta_drop_kallsyms(m);
	free(m->printk.data);
	free(m->cmdlines.data);
	free(m->btf.data);
	free(m->modules.data);
	for (size_t i = 0; i < m->nopts; i++)
		free(m->opts[i].data.data);
	free(m->opts);
	free(m->clock);
	memset(m, 0, sizeof(*m));
}

void tfw_put(struct tfw_blob *b, const void *p, size_t n)
{
	tfw_blob_append(b, p, n);
}

/* Numbers are written in the host's byte order, which the file declares. */
void tfw_put16(struct tfw_blob *b, uint16_t v)
{
	tfw_put(b, &v, 2);
}

void tfw_put32(struct tfw_blob *b, uint32_t v)
{
	tfw_put(b, &v, 4);
}

void tfw_put64(struct tfw_blob *b, uint64_t v)
{
	tfw_put(b, &v, 8);
}

bool tfw_host_big_endian(void)
{
	uint16_t v = 1;

	return *(uint8_t *)&v == 0;
}

/* The parts v6 writes inline and v7 as sections: the same bytes. */
void tfw_put_header_info(const struct tfw_meta *m, struct tfw_blob *out)
{
	tfw_put(out, "header_page", 12);
	tfw_put64(out, m->header_page.len);
	tfw_put(out, m->header_page.data, m->header_page.len);
	tfw_put(out, "header_event", 13);
	tfw_put64(out, m->header_event.len);
	tfw_put(out, m->header_event.data, m->header_event.len);
}

void tfw_put_ftrace(const struct tfw_meta *m, struct tfw_blob *out)
{
	tfw_put32(out, m->nftrace);
	for (size_t i = 0; i < m->nftrace; i++) {
		tfw_put64(out, m->ftrace[i].len);
		tfw_put(out, m->ftrace[i].data, m->ftrace[i].len);
	}
}

void tfw_put_formats(const struct tfw_meta *m, struct tfw_blob *out)
{
	tfw_put32(out, m->nsystems);
	for (size_t i = 0; i < m->nsystems; i++) {
		const struct tfw_system *s = &m->systems[i];

		tfw_put(out, s->name, strlen(s->name) + 1);
		tfw_put32(out, s->n);
		for (size_t j = 0; j < s->n; j++) {
			tfw_put64(out, s->formats[j].len);
			tfw_put(out, s->formats[j].data, s->formats[j].len);
		}
	}
}

/*
 * Everything up to the end of the options, but for the kallsyms text (a
 * few MB not worth copying): that goes in at *kpos.  BUFFER options get a
 * zero offset; their positions in the blob go to buf_pos[] for patching.
 */
static void header(const struct tfw_meta *m, bool kallsyms, bool cmdlines, size_t nnames,
		   const char *const *names, struct tfw_blob *out, size_t *buf_pos, size_t *kpos)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t b;

	tfw_put(out, magic, sizeof(magic));
	tfw_put(out, "6", 2);
	b = tfw_host_big_endian();
	tfw_put(out, &b, 1);
	b = m->long_size ? m->long_size : (int)sizeof(long);
	tfw_put(out, &b, 1);
	tfw_put32(out, m->page_size);

	tfw_put_header_info(m, out);
	tfw_put_ftrace(m, out);
	tfw_put_formats(m, out);
	tfw_put32(out, kallsyms ? m->kallsyms.len : 0);
	*kpos = out->len;
	tfw_put32(out, m->printk.len);
	tfw_put(out, m->printk.data, m->printk.len);
	tfw_put64(out, cmdlines ? m->cmdlines.len : 0);
	if (cmdlines)
		tfw_put(out, m->cmdlines.data, m->cmdlines.len);

	tfw_put32(out, m->cpus);
	tfw_put(out, "options  ", 10);
	for (size_t i = 0; i < m->nopts; i++) {
		tfw_put16(out, m->opts[i].id);
		tfw_put32(out, m->opts[i].data.len);
		tfw_put(out, m->opts[i].data.data, m->opts[i].data.len);
	}
	for (size_t i = 0; i < nnames; i++) {
		size_t len = strlen(names[i]) + 1;

		tfw_put16(out, TFW_OPT_BUFFER);
		tfw_put32(out, 8 + len);
		if (buf_pos)
			buf_pos[i] = out->len;
		tfw_put64(out, 0);
		tfw_put(out, names[i], len);
	}
	tfw_put16(out, TFW_OPT_DONE);
}

void tfw_meta_drop_kallsyms(struct tfw_meta *m)
{
	if (m->kallsyms_in_file)
		close(m->kallsyms_fd);
	m->kallsyms_in_file = false;
	free(m->kallsyms.data);
	m->kallsyms = (struct tfw_blob){ 0 };
}

#define KALLSYMS_PIECE (1 << 16)

int tfw_kallsyms_each(const struct tfw_meta *m, void (*fn)(void *arg, const void *p, size_t n, bool last),
		      void *arg)
{
	char *buf;

	if (!m->kallsyms_in_file) {
		fn(arg, m->kallsyms.data, m->kallsyms.len, true);
		return 0;
	}
	buf = xmalloc(KALLSYMS_PIECE);
	for (uint64_t off = 0; off < m->kallsyms.len;) {
		size_t want = m->kallsyms.len - off < KALLSYMS_PIECE ? m->kallsyms.len - off
								       : KALLSYMS_PIECE;
		ssize_t n = pread(m->kallsyms_fd, buf, want, (off_t)(m->kallsyms_off + off));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? -errno : -EIO;

			free(buf);
			return e;
		}
		off += n;
		fn(arg, buf, n, off == m->kallsyms.len);
	}
	free(buf);
	return 0;
}

struct kpw {
	int fd;
	uint64_t off;
	int err;
};

static void kallsyms_pwrite_piece(void *arg, const void *p, size_t n, bool last)
{
	struct kpw *k = arg;

	(void)last;
	if (!k->err)
		k->err = tfw_pwrite_all(k->fd, p, n, k->off);
	k->off += n;
}

int tfw_kallsyms_pwrite(const struct tfw_meta *m, int fd, uint64_t off)
{
	struct kpw k = { .fd = fd, .off = off };
	int r = tfw_kallsyms_each(m, kallsyms_pwrite_piece, &k);

	return r ? r : k.err;
}

uint64_t tfw_header_size(const struct tfw_meta *m, size_t nbuffer_opts, const char *const *names)
{
	struct tfw_blob b = { 0 };
	uint64_t n;
	size_t kpos;

	header(m, true, true, nbuffer_opts, names, &b, NULL, &kpos);
	n = b.len + m->kallsyms.len;
	free(b.data);
	return n;
}

uint64_t tfw_align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static size_t table_len(const struct tfw_meta *m)
{
	return 10 + 16 * (size_t)m->cpus + 8 + strlen(m->clock ? m->clock : "local") + 2;
}

int tfw_pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;

	while (n) {
		ssize_t w = pwrite(fd, c, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		c += w;
		n -= w;
		off += w;
	}
	return 0;
}

/*
 * A second descriptor of the output, opened with O_DIRECT, or -1.  Writing
 * pages from a mapping of the temp file through it spares the kernel the
 * copy into the output's page cache: for a recording's 70 MB of pages it
 * took 6-8 ms of CPU against copy_file_range's 19 ms, the difference being
 * spent waiting for the disk.  TR_NO_DIRECT=1 turns it off (tests).
 */
static int open_direct(int fd)
{
	struct stat st;
	char path[64];

	if (getenv("TR_NO_DIRECT") || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
}

/*
 * Copy what can go directly (whole aligned blocks) from src to *dfd, moving
 * the offsets and length on.  A refusal (alignment, a file system without
 * direct I/O, a source that cannot be mapped) closes *dfd, leaving the rest
 * to copy_file_range.  Returns 0, or a negative errno for a real failure.
 */
static int direct_range(int src, uint64_t *soff, int *dfd, uint64_t *doff, uint64_t *len)
{
	if (*soff % TFW_DIRECT_ALIGN || *doff % TFW_DIRECT_ALIGN ||
	    (uint64_t)sysconf(_SC_PAGESIZE) > TFW_DIRECT_ALIGN)
		return 0;
	while (*len >= TFW_DIRECT_ALIGN && *dfd >= 0) {
		uint64_t n = *len < TFW_DIRECT_WINDOW ? *len : TFW_DIRECT_WINDOW;
		void *p;
		ssize_t w;
		int e;

		n -= n % TFW_DIRECT_ALIGN;
		p = mmap(NULL, n, PROT_READ, MAP_SHARED, src, *soff);
		if (p == MAP_FAILED)
			goto refused;
		do
			w = pwrite(*dfd, p, n, *doff);
		while (w < 0 && errno == EINTR);
		e = errno;
		munmap(p, n);
		if (w < 0 && (e == EINVAL || e == EOPNOTSUPP || e == ENOTSUP))
			goto refused;
		if (w < 0)
			return -e;
		if (w == 0)
			return -EIO;
		/* A short write still ends on a block: go on from there. */
		*soff += w;
		*doff += w;
		*len -= w;
		if (w % TFW_DIRECT_ALIGN)
			goto refused;
	}
	return 0;
refused:
	close(*dfd);
	*dfd = -1;
	return 0;
}

/* Copy len bytes from src at soff to dst at doff, in the kernel where it can. */
static int copy_range(int src, uint64_t soff, int dst, int *dfd, uint64_t doff, uint64_t len)
{
	/* Set by whichever thread finds out first (tr listen writes files at once). */
	static _Atomic bool no_cfr;
	char *buf = NULL;
	int r = 0;

	if (*dfd >= 0) {
		r = direct_range(src, &soff, dfd, &doff, &len);
		if (r)
			return r;
	}

	while (len && !no_cfr) {
		loff_t si = soff, di = doff;
		ssize_t n = copy_file_range(src, &si, dst, &di, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP)) {
			no_cfr = true;
			break;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;	/* the source is shorter than it said */
		soff += n;
		doff += n;
		len -= n;
	}
	if (len)
		buf = xmalloc(1 << 16);
	while (len && !r) {
		ssize_t n = pread(src, buf, len < (1 << 16) ? len : (1 << 16), soff);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			break;
		}
		r = tfw_pwrite_all(dst, buf, n, doff);
		soff += n;
		doff += n;
		len -= n;
	}
	free(buf);
	return r;
}

/*
 * Move a source into place.  A consumed temp file is copied tail first and
 * shrunk behind the copy, so the move needs only one chunk of free space.
 */
static int copy_src(int fd, int *dfd, uint64_t off, struct tfw_src *s, bool consume,
		    uint32_t page, uint64_t chunk)
{
	uint64_t end = s->size;

	if (s->mem)
		return tfw_pwrite_all(fd, s->mem, s->size, off);
	if (!consume)
		return copy_range(s->fd, 0, fd, dfd, off, s->size);
	while (end) {
		uint64_t start = end > chunk ? end - chunk : 0;
		int r;

		start = start / page * page;
		r = copy_range(s->fd, start, fd, dfd, off + start, end - start);
		if (r)
			return r;
		if (ftruncate(s->fd, start))
			return -errno;
		end = start;
	}
	return 0;
}

static uint64_t total_data(struct tfw_buffer *bufs, size_t nbufs, int cpus, uint64_t *largest)
{
	uint64_t t = 0;

	*largest = 0;
	for (size_t b = 0; b < nbufs; b++)
		for (int c = 0; c < cpus; c++) {
			t += bufs[b].cpu[c].size;
			if (bufs[b].cpu[c].size > *largest)
				*largest = bufs[b].cpu[c].size;
		}
	return t;
}

/*
 * Make the file fit the free space of fd's file system: leave kallsyms out,
 * then the saved cmdlines, then cut the newest pages of the fullest CPUs,
 * which frees their room in the temp files (on the same file system as the
 * output).
 */
/* The timestamp in the header of a source's last page. */
static bool last_page_ts(const struct tfw_src *s, uint32_t page, uint64_t *ts)
{
	uint64_t off = s->size - page;

	if (s->mem) {
		memcpy(ts, (const char *)s->mem + off, 8);
		return true;
	}
	return pread(s->fd, ts, 8, off) == 8;
}

static void fit(int fd, struct tfw_meta *m, struct tfw_buffer *bufs, size_t nbufs,
		uint64_t hdr, bool consume, struct tfw_result *res, bool *kallsyms, bool *cmdlines,
		uint64_t *chunk)
{
	struct statvfs sv;
	uint64_t avail, largest, data = total_data(bufs, nbufs, m->cpus, &largest), need;

	if (fstatvfs(fd, &sv))
		return;
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	/*
	 * The header, and a table per buffer (padding is left as holes and
	 * takes no room).  Moving a temp file needs one chunk of room: take
	 * small chunks when room is short.
	 */
	need = tfw_align_up(hdr + table_len(m), m->page_size) +
	       (nbufs - 1) * tfw_align_up(table_len(m), m->page_size);
	if (consume && need + *chunk > avail)
		*chunk = m->page_size;
	need += consume ? (largest < *chunk ? largest : *chunk) : data;
	if (need <= avail)
		return;
	if (m->kallsyms.len) {
		*kallsyms = false;
		res->dropped_kallsyms = true;
		need -= m->kallsyms.len;
		if (need <= avail)
			return;
	}
	if (m->cmdlines.len) {
		*cmdlines = false;
		res->dropped_cmdlines = true;
		need -= m->cmdlines.len;
		if (need <= avail)
			return;
	}
	if (!consume)
		return;
	/* Cut the newest page of all, one at a time, so what stays is a time prefix. */
	while (need > avail) {
		struct tfw_src *newest = NULL;
		uint64_t newest_ts = 0, cut = m->page_size;

		for (size_t b = 0; b < nbufs; b++)
			for (int c = 0; c < m->cpus; c++) {
				struct tfw_src *s = &bufs[b].cpu[c];
				uint64_t ts = 0;

				if (s->size < m->page_size || !last_page_ts(s, m->page_size, &ts))
					continue;
				if (!newest || ts > newest_ts)
					newest = s, newest_ts = ts;
			}
		if (!newest)
			return;
		newest->size -= cut;
		res->dropped_bytes += cut;
		/* Shrinking the temp file is what frees the room. */
		if (newest->fd >= 0 && !newest->mem && ftruncate(newest->fd, newest->size) == 0)
			avail += cut;
		else
			need -= cut;
	}
}

int tfw_write_latency(int fd, struct tfw_meta *m, const char *text, size_t len,
		      struct tfw_result *res)
{
	struct tfw_blob hdr = { 0 };
	struct tfw_result dummy;
	size_t kpos;
	int r = 0;

	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (m->version == 7)
		return tfw_write_v7(fd, m, NULL, 0, text ? text : "", len, res);
	header(m, true, true, 0, NULL, &hdr, NULL, &kpos);
	res->bytes = hdr.len + m->kallsyms.len + 10 + len;
	if (ftruncate(fd, 0))
		r = -errno;
	if (!r)
		r = tfw_pwrite_all(fd, hdr.data, kpos, 0);
	if (!r && m->kallsyms.len)
		r = tfw_kallsyms_pwrite(m, fd, kpos);
	if (!r)
		r = tfw_pwrite_all(fd, hdr.data + kpos, hdr.len - kpos, kpos + m->kallsyms.len);
	if (!r)
		r = tfw_pwrite_all(fd, "latency  ", 10, hdr.len + m->kallsyms.len);
	if (!r && len)
		r = tfw_pwrite_all(fd, text, len, hdr.len + m->kallsyms.len + 10);
	free(hdr.data);
	return r;
}

int tfw_write(int fd, struct tfw_meta *m, struct tfw_buffer *bufs, size_t nbufs, unsigned flags,
	      struct tfw_result *res)
{
	const char **names = xcalloc(nbufs, sizeof(*names));
	size_t *buf_pos = xcalloc(nbufs, sizeof(*buf_pos));
	uint64_t **offs = xcalloc(nbufs, sizeof(*offs));
	uint64_t *start = xcalloc(nbufs, sizeof(*start));
	struct tfw_blob hdr = { 0 };
	struct tfw_result dummy;
	bool kallsyms = true, cmdlines = true, consume = flags & TFW_CONSUME;
	uint64_t pos, largest, chunk = TFW_CHUNK;
	size_t kpos, klen;
	uint32_t page = m->page_size;
	int r = 0, dfd = -1;

	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (m->version == 7) {
		free(names);
		free(buf_pos);
		free(offs);
		free(start);
		return tfw_write_v7(fd, m, bufs, nbufs, NULL, 0, res);
	}
	for (size_t b = 1; b < nbufs; b++)
		names[b - 1] = bufs[b].name;
	if (flags & TFW_FIT)
		fit(fd, m, bufs, nbufs, tfw_header_size(m, nbufs - 1, names),
		    consume, res, &kallsyms, &cmdlines, &chunk);
	header(m, kallsyms, cmdlines, nbufs - 1, names, &hdr, buf_pos, &kpos);
	klen = kallsyms ? m->kallsyms.len : 0;

	/* Lay out every buffer's table and pages before writing anything. */
	pos = hdr.len + klen;
	for (size_t b = 0; b < nbufs; b++) {
		start[b] = pos;
		if (b > 0)
			memcpy(hdr.data + buf_pos[b - 1], &pos, 8);
		pos = tfw_align_up(pos + table_len(m), page);
		offs[b] = xcalloc(m->cpus, sizeof(**offs));
		for (int c = 0; c < m->cpus; c++) {
			offs[b][c] = pos;
			pos = tfw_align_up(pos + bufs[b].cpu[c].size, page);
		}
	}
	res->bytes = pos;
	res->data_bytes = total_data(bufs, nbufs, m->cpus, &largest);

	/*
	 * The file gets its final length first: pages never written (after a
	 * failure) read back as zeroes, which is an empty sub-buffer, so the
	 * tables stay true and the file stays readable.
	 */
	if (ftruncate(fd, 0) || ftruncate(fd, pos))
		r = -errno;
	if (!r)
		r = tfw_pwrite_all(fd, hdr.data, kpos, 0);
	if (!r && klen)
		r = tfw_kallsyms_pwrite(m, fd, kpos);
	if (!r)
		r = tfw_pwrite_all(fd, hdr.data + kpos, hdr.len - kpos, kpos + klen);
	for (size_t b = 0; b < nbufs && !r; b++) {
		struct tfw_blob t = { 0 };
		const char *clock = m->clock ? m->clock : "local";

		tfw_put(&t, "flyrecord", 10);
		for (int c = 0; c < m->cpus; c++) {
			tfw_put64(&t, offs[b][c]);
			tfw_put64(&t, bufs[b].cpu[c].size);
		}
		tfw_put64(&t, strlen(clock) + 2);
		tfw_put(&t, "[", 1);
		tfw_put(&t, clock, strlen(clock));
		tfw_put(&t, "]", 1);
		r = tfw_pwrite_all(fd, t.data, t.len, start[b]);
		free(t.data);
	}
	if (!r)
		dfd = open_direct(fd);
	for (size_t b = 0; b < nbufs && !r; b++)
		for (int c = 0; c < m->cpus && !r; c++)
			if (bufs[b].cpu[c].size)
				r = copy_src(fd, &dfd, offs[b][c], &bufs[b].cpu[c], consume, page,
					     chunk);
	if (dfd >= 0)
		close(dfd);

	for (size_t b = 0; b < nbufs; b++)
		free(offs[b]);
	free(offs);
	free(start);
	free(buf_pos);
	free(names);
	free(hdr.data);
	return r;
}
