// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace.dat reader: the sub-buffer parser on hand-built pages (every
 * event type, lost events, big-endian, malformed lengths), and whole v6 and
 * v7 files built here byte by byte, then truncated at every length and
 * corrupted, which must give one error naming the file and an offset.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <zlib.h>

#include "tfile.h"
#include "fixtures.h"
#include "unit.h"

/* A growable byte buffer with little- or big-endian appends. */
struct buf {
	uint8_t *p;
	size_t n;
	bool be;
};

static void put(struct buf *b, const void *s, size_t n)
{
	if (!n && b->p)
		return;
	b->p = realloc(b->p, b->n + n + 1);
	if (n)
		memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void putn(struct buf *b, uint64_t v, int size)
{
	uint8_t t[8];

	for (int i = 0; i < size; i++)
		t[b->be ? size - 1 - i : i] = v >> (8 * i);
	put(b, t, size);
}

static void puts0(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static void pad_to(struct buf *b, size_t align)
{
	while (b->n % align)
		put(b, "", 1);
}

/* One event header word. */
static uint32_t hdr(bool be, uint32_t type_len, uint32_t delta)
{
	return be ? type_len << 27 | delta : delta << 5 | type_len;
}

/* A page: ts, commit, then the events in ev (len bytes). */
static void make_page(struct buf *pg, bool be, uint64_t ts, uint64_t commit, const struct buf *ev)
{
	pg->be = be;
	putn(pg, ts, 8);
	putn(pg, commit, 8);
	put(pg, ev->p, ev->n);
	while (pg->n < 4096)
		put(pg, "", 1);
}

/* A tr_test event (id 42) of value v for pid, as data after a small header. */
static void add_event(struct buf *ev, uint32_t delta, int pid, int v)
{
	putn(ev, hdr(ev->be, 3, delta), 4);
	putn(ev, 42, 2);
	putn(ev, 0, 2);
	putn(ev, pid, 4);
	putn(ev, v, 4);
}

static void layout(struct tfile_layout *l, bool be)
{
	CHECK(tfile_layout_parse(l, fx_header_page, strlen(fx_header_page), be, 4096) == 0);
	CHECK(l->commit_off == 8 && l->commit_size == 8 && l->data_off == 16);
}

TEST(page_events_and_time)
{
	for (int be = 0; be <= 1; be++) {
		struct buf ev = { .be = be }, pg = { 0 };
		struct tfile_layout l;
		struct tfile_page p;
		struct tfile_event e;
		uint32_t bad;

		layout(&l, be);
		add_event(&ev, 10, 100, 1);			/* ts 1010 */
		putn(&ev, hdr(be, 30, 5), 4);			/* extend: +(2<<27)+5 */
		putn(&ev, 2, 4);
		add_event(&ev, 1, 100, 2);
		putn(&ev, hdr(be, 29, 7), 4);			/* padding (discarded), 8 bytes */
		putn(&ev, 4, 4);
		putn(&ev, hdr(be, 0, 3), 4);			/* type_len 0: length word */
		putn(&ev, 16, 4);				/* 12 bytes of data */
		putn(&ev, 42, 2);
		putn(&ev, 0, 2);
		putn(&ev, 101, 4);
		putn(&ev, 3, 4);
		putn(&ev, hdr(be, 31, 9), 4);			/* absolute stamp (5<<27)+9 */
		putn(&ev, 5, 4);
		add_event(&ev, 1, 102, 4);
		make_page(&pg, be, 1000, ev.n, &ev);
		CHECK(tfile_page_load(&p, &l, pg.p, pg.n, &bad) == 0);
		CHECK(tfile_page_next(&p, &e, &bad) == 1 && e.ts == 1010 && e.size == 12 && !e.missed);
		CHECK(tfile_page_next(&p, &e, &bad) == 1 && e.ts == 1010 + (2ULL << 27) + 5 + 1);
		CHECK(tfile_page_next(&p, &e, &bad) == 1 && e.size == 12 &&
		      e.ts == 1010 + (2ULL << 27) + 5 + 1 + 3);
		CHECK(tfile_page_next(&p, &e, &bad) == 1 && e.ts == (5ULL << 27) + 9 + 1);
		CHECK(tfile_page_next(&p, &e, &bad) == 0);
		free(ev.p);
		free(pg.p);
	}
}

TEST(page_lost_events)
{
	struct buf ev = { 0 }, pg = { 0 };
	struct tfile_layout l;
	struct tfile_page p;
	struct tfile_event e;
	uint32_t bad;
	uint64_t commit;

	layout(&l, false);
	add_event(&ev, 1, 7, 1);
	/* As the kernel leaves it: bit 31 sign-extended into the upper word. */
	commit = 0xffffffff00000000ULL | TFILE_MISSED_EVENTS | TFILE_MISSED_STORED | ev.n;
	putn(&ev, 339, 8);		/* the count, after the data */
	make_page(&pg, false, 50, commit, &ev);
	CHECK(tfile_page_load(&p, &l, pg.p, pg.n, &bad) == 0);
	CHECK(tfile_page_next(&p, &e, &bad) == 1 && e.missed == 339 && e.ts == 51);
	CHECK(tfile_page_next(&p, &e, &bad) == 0);
	/* Without the stored count: unknown. */
	memset(pg.p + 8, 0, 8);
	pg.p[8] = 16;
	pg.p[11] = 0x80;
	CHECK(tfile_page_load(&p, &l, pg.p, pg.n, &bad) == 0);
	CHECK(tfile_page_next(&p, &e, &bad) == 1 && e.missed == -1);
	free(ev.p);
	free(pg.p);
}

TEST(page_malformed)
{
	struct buf ev = { 0 }, pg = { 0 };
	struct tfile_layout l;
	struct tfile_page p;
	struct tfile_event e;
	uint32_t bad = 0;

	layout(&l, false);
	/* A commit larger than the page. */
	make_page(&pg, false, 0, 5000, &ev);
	CHECK(tfile_page_load(&p, &l, pg.p, pg.n, &bad) == -EBADMSG && bad == 8);
	CHECK(tfile_page_load(&p, &l, pg.p, 10, &bad) == -EBADMSG);
	free(pg.p);
	/* A type_len 0 event whose length runs past the data. */
	pg = (struct buf){ 0 };
	putn(&ev, hdr(false, 0, 1), 4);
	putn(&ev, 4000, 4);
	make_page(&pg, false, 0, ev.n, &ev);
	CHECK(tfile_page_load(&p, &l, pg.p, pg.n, &bad) == 0);
	CHECK(tfile_page_next(&p, &e, &bad) == -EBADMSG && bad == 16);
	free(pg.p);
	/* A data event longer than the commit says. */
	pg = (struct buf){ 0 };
	free(ev.p);
	ev = (struct buf){ 0 };
	add_event(&ev, 1, 1, 1);
	make_page(&pg, false, 0, 8, &ev);
	CHECK(tfile_page_load(&p, &l, pg.p, pg.n, &bad) == 0);
	CHECK(tfile_page_next(&p, &e, &bad) == -EBADMSG);
	free(ev.p);
	free(pg.p);
	/* A bad fx_header_page. */
	CHECK(tfile_layout_parse(&l, "nonsense", 8, false, 4096) == -EINVAL);
	CHECK(tfile_layout_parse(&l, fx_header_page, strlen(fx_header_page), false, 8) == -EINVAL);
}

/* The parts both versions share, for the v6 layout. */
static void v6_meta(struct buf *f, uint32_t ncpus)
{
	putn(f, strlen(fx_header_page), 8);
	put(f, fx_header_page, strlen(fx_header_page));
	put(f, "header_event", 13);
	putn(f, 4, 8);
	put(f, "none", 4);
	putn(f, 0, 4);				/* ftrace formats */
	putn(f, 1, 4);				/* one system */
	puts0(f, "trtest");
	putn(f, 1, 4);
	putn(f, strlen(fx_tr_test), 8);
	put(f, fx_tr_test, strlen(fx_tr_test));
	putn(f, 0, 4);				/* kallsyms */
	putn(f, 0, 4);				/* printk */
	putn(f, 15, 8);
	put(f, "100 one\n101 two", 15);		/* saved_cmdlines */
	putn(f, ncpus, 4);
}

static void header(struct buf *f, const char *ver)
{
	const uint8_t magic[] = { 0x17, 0x08, 0x44 };

	put(f, magic, 3);
	put(f, "tracing", 7);
	puts0(f, ver);
	put(f, (uint8_t[]){ f->be, 8 }, 2);
	putn(f, 4096, 4);
}

/* Two CPUs, two events on CPU 0 and one on CPU 1. */
static void cpu_pages(struct buf *p0, struct buf *p1, bool be)
{
	struct buf e0 = { .be = be }, e1 = { .be = be };

	add_event(&e0, 10, 100, 1);
	add_event(&e0, 20, 101, 2);
	add_event(&e1, 15, 102, 3);
	make_page(p0, be, 1000, e0.n, &e0);
	make_page(p1, be, 1000, e1.n, &e1);
	free(e0.p);
	free(e1.p);
}

/* extra: more options, each "id (2 bytes), size (4), data", in the file's byte order */
static struct buf build_v6_opts(bool be, const struct buf *extra)
{
	struct buf f = { .be = be }, p0 = { 0 }, p1 = { 0 };
	size_t table;

	header(&f, "6");
	put(&f, "header_page", 12);
	v6_meta(&f, 2);
	put(&f, "options  ", 10);
	putn(&f, 5, 2);				/* uname */
	putn(&f, 6, 4);
	puts0(&f, "Linux");
	if (extra)
		put(&f, extra->p, extra->n);
	putn(&f, 0, 2);
	put(&f, "flyrecord", 10);
	table = f.n;
	putn(&f, 0, 8), putn(&f, 4096, 8), putn(&f, 0, 8), putn(&f, 4096, 8);
	cpu_pages(&p0, &p1, be);
	pad_to(&f, 4096);
	for (int i = 0; i < 8; i++)	/* patch the offsets */
		f.p[table + (be ? 7 - i : i)] = (uint8_t)(f.n >> (8 * i));
	put(&f, p0.p, p0.n);
	for (int i = 0; i < 8; i++)
		f.p[table + 16 + (be ? 7 - i : i)] = (uint8_t)(f.n >> (8 * i));
	put(&f, p1.p, p1.n);
	free(p0.p);
	free(p1.p);
	return f;
}

static struct buf build_v6(bool be)
{
	return build_v6_opts(be, NULL);
}

/* A v7 section: header then payload, compressed with zlib if asked. */
static void section(struct buf *f, uint16_t id, const struct buf *payload, bool zip)
{
	putn(f, id, 2);
	putn(f, zip, 2);
	putn(f, 0, 4);
	if (!zip) {
		putn(f, payload->n, 8);
		put(f, payload->p, payload->n);
		return;
	}
	uLongf clen = compressBound(payload->n);
	uint8_t *c = malloc(clen);

	compress2(c, &clen, payload->p, payload->n, 9);
	putn(f, clen + 8, 8);
	putn(f, clen, 4);
	putn(f, payload->n, 4);
	put(f, c, clen);
	free(c);
}

static struct buf build_v7(bool zip)
{
	struct buf f = { 0 }, s = { 0 }, p0 = { 0 }, p1 = { 0 }, opt = { 0 };
	size_t first_at, off[6], fly, cpu0 = 0, cpu1 = 0, n0 = 0, n1 = 0;

	header(&f, "7");
	puts0(&f, zip ? "zlib" : "none");
	puts0(&f, zip ? "1.2.13" : "");
	first_at = f.n;
	putn(&f, 0, 8);
	/* header info */
	off[0] = f.n;
	put(&s, "header_page", 12);
	putn(&s, strlen(fx_header_page), 8);
	put(&s, fx_header_page, strlen(fx_header_page));
	put(&s, "header_event", 13);
	putn(&s, 0, 8);
	section(&f, 16, &s, zip);
	free(s.p), s = (struct buf){ 0 };
	/* event formats */
	off[1] = f.n;
	putn(&s, 1, 4);
	puts0(&s, "trtest");
	putn(&s, 1, 4);
	putn(&s, strlen(fx_tr_test), 8);
	put(&s, fx_tr_test, strlen(fx_tr_test));
	section(&f, 18, &s, zip);
	free(s.p), s = (struct buf){ 0 };
	/* cmdlines */
	off[2] = f.n;
	putn(&s, 15, 8);
	put(&s, "100 one\n101 two", 15);
	section(&f, 21, &s, zip);
	free(s.p), s = (struct buf){ 0 };
	/* the flyrecord section */
	cpu_pages(&p0, &p1, false);
	fly = f.n;
	putn(&f, 3, 2);
	putn(&f, zip, 2);
	putn(&f, 0, 4);
	putn(&f, 0, 8);			/* size, patched below */
	pad_to(&f, 4096);
	for (int c = 0; c < 2; c++) {
		struct buf *pg = c ? &p1 : &p0;
		size_t at = f.n;

		if (zip) {
			uLongf clen = compressBound(pg->n);
			uint8_t *z = malloc(clen);

			compress2(z, &clen, pg->p, pg->n, 9);
			putn(&f, 1, 4);
			putn(&f, clen, 4);
			putn(&f, pg->n, 4);
			put(&f, z, clen);
			free(z);
		} else {
			put(&f, pg->p, pg->n);
		}
		if (c)
			cpu1 = at, n1 = f.n - at;
		else
			cpu0 = at, n0 = f.n - at;
	}
	for (int i = 0; i < 8; i++)
		f.p[fly + 8 + i] = (uint8_t)((f.n - fly - 16) >> (8 * i));
	/* the options */
	{
		uint16_t ids[] = { 16, 18, 21 };

		for (int i = 0; i < 3; i++) {
			putn(&opt, ids[i], 2);
			putn(&opt, 8, 4);
			putn(&opt, off[i], 8);
		}
	}
	putn(&opt, 3, 2);
	putn(&opt, 8 + 1 + 6 + 4 + 4 + 2 * 20, 4);
	putn(&opt, fly, 8);
	puts0(&opt, "");
	puts0(&opt, "local");
	putn(&opt, 4096, 4);
	putn(&opt, 2, 4);
	putn(&opt, 0, 4), putn(&opt, cpu0, 8), putn(&opt, n0, 8);
	putn(&opt, 1, 4), putn(&opt, cpu1, 8), putn(&opt, n1, 8);
	putn(&opt, 8, 2);
	putn(&opt, 4, 4);
	putn(&opt, 2, 4);
	putn(&opt, 0, 2);
	putn(&opt, 8, 4);
	putn(&opt, 0, 8);
	for (int i = 0; i < 8; i++)
		f.p[first_at + i] = (uint8_t)(f.n >> (8 * i));
	section(&f, 0, &opt, false);
	free(opt.p);
	free(p0.p);
	free(p1.p);
	return f;
}

static char *write_tmp(const struct buf *b, size_t n)
{
	char *path = strdup("/tmp/tr-test-tfile.XXXXXX");
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK(write(fd, b->p, n) == (ssize_t)n);
	close(fd);
	return path;
}

/* Open, read both CPUs' events: "cpu:ts:pid" lines. */
static int read_all(const char *path, char *out, size_t len)
{
	struct tfile *tf;
	int r = tfile_open(path, 0, &tf);

	out[0] = '\0';
	if (r)
		return r;
	for (int b = 0; b < tfile_nbuffers(tf); b++)
		for (int c = 0; c < tfile_buffer(tf, b)->ncpus; c++) {
			struct tfile_cursor *cur;
			struct tfile_event e;

			r = tfile_cursor_open(tf, b, c, &cur);
			if (r)
				goto out;
			while ((r = tfile_cursor_next(cur, &e)) == 1)
				snprintf(out + strlen(out), len - strlen(out), "%d:%llu:%d ", e.cpu,
					 (unsigned long long)e.ts,
					 (int)tep_read_number(tfile_tep(tf), (char *)e.data + 4, 4));
			tfile_cursor_free(cur);
			if (r)
				goto out;
		}
out:
	tfile_close(tf);
	return r;
}

static const char expect[] = "0:1010:100 0:1030:101 1:1015:102 ";

TEST(v6_file)
{
	for (int be = 0; be <= 1; be++) {
		struct buf f = build_v6(be);
		char *path = write_tmp(&f, f.n), out[256];
		struct tfile *tf;

		CHECK(read_all(path, out, sizeof(out)) == 0);
		CHECK_STR(out, expect);
		CHECK(tfile_open(path, 0, &tf) == 0);
		if (tf) {
			CHECK(tfile_info(tf)->version == 6 && tfile_info(tf)->big_endian == be);
			CHECK_STR(tfile_info(tf)->uname, "Linux");
			CHECK_STR(tfile_cmdlines(tf), "100 one\n101 two");
			CHECK(tep_find_event(tfile_tep(tf), 42) != NULL);
			tfile_close(tf);
		}
		unlink(path);
		free(path);
		free(f.p);
	}
}

TEST(v7_file)
{
	for (int zip = 0; zip <= 1; zip++) {
		struct buf f = build_v7(zip);
		char *path = write_tmp(&f, f.n), out[256];
		struct tfile *tf;

		CHECK(read_all(path, out, sizeof(out)) == 0);
		CHECK_STR(out, expect);
		CHECK(tfile_open(path, 0, &tf) == 0);
		if (tf) {
			CHECK(tfile_info(tf)->version == 7);
			CHECK_STR(tfile_info(tf)->compression, zip ? "zlib" : "none");
			CHECK(tfile_nbuffers(tf) == 1 && tfile_buffer(tf, 0)->compressed == zip);
			CHECK_STR(tfile_buffer(tf, 0)->clock, "local");
			tfile_close(tf);
		}
		unlink(path);
		free(path);
		free(f.p);
	}
}

/*
 * A guest's file (TIME_SHIFT: CPU 0 is 5000 ns behind the host, CPU 1 has no
 * samples) reads on the host's clock; raw_ts keeps the guest's.  A
 * TIME_SHIFT that does not hold what it says is an error naming it.
 */
TEST(v6_time_shift)
{
	for (int be = 0; be <= 1; be++) {
		struct buf o = { .be = be }, f;
		char *path, out[256];
		struct tfile *tf;

		putn(&o, 11, 2), putn(&o, 8, 4), putn(&o, 0x42, 8);	/* TRACEID */
		putn(&o, 12, 2), putn(&o, 8 + 4 + 4 + 4 + 24 + 4, 4);	/* TIME_SHIFT */
		putn(&o, 0x99, 8), putn(&o, 0, 4), putn(&o, 2, 4);
		putn(&o, 1, 4), putn(&o, 500, 8), putn(&o, 5000, 8), putn(&o, 1, 8);
		putn(&o, 0, 4);
		f = build_v6_opts(be, &o);
		path = write_tmp(&f, f.n);
		CHECK(read_all(path, out, sizeof(out)) == 0);
		CHECK_STR(out, "0:6010:100 0:6030:101 1:1015:102 ");
		CHECK(tfile_open(path, 0, &tf) == 0);
		if (tf) {
			const struct tfile_info *in = tfile_info(tf);
			struct tfile_cursor *c;
			struct tfile_event e;

			CHECK(in->has_trace_id && in->trace_id == 0x42);
			CHECK(in->tsync && in->tsync->peer_id == 0x99 && in->tsync->ncpus == 2);
			CHECK(tfile_cursor_open(tf, 0, 0, &c) == 0);
			CHECK(tfile_cursor_next(c, &e) == 1 && e.raw_ts == 1010 && e.ts == 6010);
			tfile_cursor_free(c);
			tfile_close(tf);
		}
		unlink(path);
		free(path);
		free(f.p);
		/* One byte short of its sample. */
		free(o.p);
		o = (struct buf){ .be = be };
		putn(&o, 12, 2), putn(&o, 8 + 4 + 4 + 4 + 23, 4);
		putn(&o, 0x99, 8), putn(&o, 0, 4), putn(&o, 1, 4);
		putn(&o, 1, 4), putn(&o, 500, 8), putn(&o, 5000, 8), putn(&o, 1, 7);
		f = build_v6_opts(be, &o);
		path = write_tmp(&f, f.n);
		CHECK(tfile_open(path, 0, &tf) == -EBADMSG);
		CHECK(tr_failure() && strstr(tr_failure(), "corrupt option TIME_SHIFT at offset") &&
		      strstr(tr_failure(), "run past its end"));
		unlink(path);
		free(path);
		free(f.p);
		free(o.p);
	}
}

/*
 * Cut each file at every length: each must fail with one message naming
 * the file (or succeed, where the cut only loses padding), never crash.
 */
TEST(truncated_everywhere)
{
	struct buf files[3] = { build_v6(false), build_v7(false), build_v7(true) };

	for (int k = 0; k < 3; k++) {
		struct buf *f = &files[k];
		int fails = 0;

		for (size_t n = 0; n < f->n; n += (n < 4096 ? 1 : 61)) {
			char *path = write_tmp(f, n), out[256];
			int r;

			tr_fail(0, "%s", "");
			r = read_all(path, out, sizeof(out));
			if (r) {
				const char *msg = tr_failure();

				fails++;
				if (!msg || !strstr(msg, path) ||
				    (!strstr(msg, "truncated at offset") && !strstr(msg, "not a trace") &&
				     !strstr(msg, "corrupt"))) {
					printf("#   cut at %zu: '%s'\n", n, msg ? msg : "(none)");
					CHECK(0);
				}
			}
			unlink(path);
			free(path);
		}
		CHECK(fails > 0);
		free(f->p);
	}
}

TEST(corrupt_bytes)
{
	struct buf f = build_v7(true);
	unsigned seed = 1;

	/* Random bytes anywhere: whatever the reader says, it must not crash. */
	for (int i = 0; i < 400; i++) {
		struct buf g = { .p = malloc(f.n + 1), .n = f.n };
		char *path, out[4096];

		memcpy(g.p, f.p, f.n);
		for (int k = 0; k < 4; k++) {
			seed = seed * 1103515245 + 12345;
			g.p[(seed >> 8) % g.n] = seed >> 24;
		}
		path = write_tmp(&g, g.n);
		read_all(path, out, sizeof(out));
		unlink(path);
		free(path);
		free(g.p);
	}
	free(f.p);
}

TEST(not_a_trace)
{
	struct buf f = { 0 };
	char *path, out[64];

	put(&f, "hello, world\n", 13);
	path = write_tmp(&f, f.n);
	CHECK(read_all(path, out, sizeof(out)) == -EBADMSG);
	CHECK(tr_failure() && strstr(tr_failure(), "not a trace file"));
	unlink(path);
	free(path);
	free(f.p);
	/* Version 5 and 8 are not ours. */
	f = build_v6(false);
	f.p[10] = '8';
	path = write_tmp(&f, f.n);
	CHECK(read_all(path, out, sizeof(out)) == -ENOTSUP);
	CHECK(tr_failure() && strstr(tr_failure(), "corrupt header at offset 10"));
	unlink(path);
	free(path);
	free(f.p);
}

/* A v6 latency file: the text of the trace file after the header. */
TEST(v6_latency_text)
{
	struct buf f = { 0 };
	const char text[] = "# tracer: irqsoff\n  <idle>-0  0d..1  0us : foo\n";
	struct tfile *tf;
	char *path, *got;
	size_t len;

	header(&f, "6");
	put(&f, "header_page", 12);
	v6_meta(&f, 2);
	put(&f, "latency  ", 10);
	put(&f, text, strlen(text));
	path = write_tmp(&f, f.n);
	CHECK(tfile_open(path, 0, &tf) == 0);
	if (tf) {
		CHECK(tfile_nbuffers(tf) == 1 && tfile_buffer(tf, 0)->latency);
		CHECK(tfile_text(tf, 0, &got, &len) == 0 && len == strlen(text));
		CHECK_STR(got, text);
		free(got);
		tfile_close(tf);
	}
	unlink(path);
	free(path);
	free(f.p);
}

UNIT_MAIN(T(page_events_and_time), T(page_lost_events), T(page_malformed), T(v6_file), T(v6_time_shift),
	  T(v7_file), T(truncated_everywhere), T(corrupt_bytes), T(not_a_trace),
	  T(v6_latency_text))
