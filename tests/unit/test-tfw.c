// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace.dat v6 writer: write small files from synthetic pages and read
 * the layout back byte by byte, as trace-cmd.dat.v6(5) describes it.  Also
 * the recorder's page-flag and stats parsers.  No tracefs, no root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evsel.h"
#include "rec.h"
#include "session.h"
#include "tfile-edit.h"
#include "tfile.h"
#include "tfs.h"
#include "tfw.h"
#include "fixtures.h"
#include "unit.h"

#define PAGE 4096

/* A cursor over the file read back. */
struct cur {
	const unsigned char *p;
	size_t len, off;
	bool bad;
};

static const void *take(struct cur *c, size_t n)
{
	const void *r;

	if (c->off + n > c->len) {
		c->bad = true;
		return "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
	}
	r = c->p + c->off;
	c->off += n;
	return r;
}

static uint16_t u16(struct cur *c)
{
	uint16_t v;

	memcpy(&v, take(c, 2), 2);
	return v;
}

static uint32_t u32(struct cur *c)
{
	uint32_t v;

	memcpy(&v, take(c, 4), 4);
	return v;
}

static uint64_t u64(struct cur *c)
{
	uint64_t v;

	memcpy(&v, take(c, 8), 8);
	return v;
}

static bool bytes_are(struct cur *c, const void *want, size_t n)
{
	return memcmp(take(c, n), want, n) == 0;
}

static char *str(struct cur *c)
{
	const char *s = (const char *)c->p + c->off;
	size_t n = strnlen(s, c->len - c->off);

	take(c, n + 1);
	return xstrdup(s);
}

/* A sub-buffer: timestamp, commit (with flags), then commit bytes of data. */
static void make_page(unsigned char *page, uint64_t ts, unsigned long commit, unsigned char fill)
{
	memset(page, 0, PAGE);
	memcpy(page, &ts, 8);
	memcpy(page + 8, &commit, 8);
	memset(page + 16, fill, commit & 0x3fffffff);
}

/* A 64-bit little-endian kernel's sub-buffer header. */
static const struct tfile_layout L64 = {
	.ts_off = 0, .commit_off = 8, .commit_size = 8, .data_off = 16, .page_size = PAGE,
};

static int count_event(void *arg, const struct tfile_event *ev)
{
	(void)ev;
	if (arg)
		(*(int *)arg)++;
	return 0;
}

static void meta_init(struct tfw_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->page_size = PAGE;
	m->cpus = 2;
	tfw_blob_append(&m->header_page, "field: u64 timestamp;\n", 22);
	tfw_blob_append(&m->header_event, "type_len : 5 bits\n", 18);
	tfw_meta_add_format(m, "ftrace", "name: function\n", 15);
	tfw_meta_add_format(m, "ftrace", "name: print\n", 12);
	tfw_meta_add_format(m, "sched", "name: sched_switch\n", 19);
	tfw_meta_add_format(m, "irq", "name: irq_handler_entry\n", 24);
	tfw_meta_add_format(m, "sched", "name: sched_wakeup\n", 19);
	tfw_blob_append(&m->kallsyms, "ffffffff81000000 T _stext\n", 26);
	tfw_blob_append(&m->printk, "0x1 : \"x\"\n", 10);
	tfw_blob_append(&m->cmdlines, "1 init\n", 7);
	tfw_meta_add_option(m, TFW_OPT_UNAME, "Linux test", 11);
	tfw_meta_add_option(m, TFW_OPT_TRACECLOCK, "[local] global", 15);
	m->clock = xstrdup("local");
}

static int scratch_fd(void)
{
	char path[] = "/tmp/tr-test-tfw.XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

static unsigned char *slurp_fd(int fd, size_t *len)
{
	struct stat st;
	unsigned char *buf;

	fstat(fd, &st);
	buf = xmalloc(st.st_size + 1);
	*len = pread(fd, buf, st.st_size, 0) == st.st_size ? (size_t)st.st_size : 0;
	return buf;
}

/* Check the part before the options, as the man page lays it out. */
static void check_front(struct cur *c, bool kallsyms)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char *s;

	CHECK(bytes_are(c, magic, 10));
	CHECK(bytes_are(c, "6", 2));
	CHECK(*(const unsigned char *)take(c, 1) == 0);	/* little endian (x86, arm64) */
	CHECK(*(const unsigned char *)take(c, 1) == sizeof(long));
	CHECK(u32(c) == PAGE);
	CHECK(bytes_are(c, "header_page", 12));
	CHECK(u64(c) == 22);
	CHECK(bytes_are(c, "field: u64 timestamp;\n", 22));
	CHECK(bytes_are(c, "header_event", 13));
	CHECK(u64(c) == 18);
	take(c, 18);
	CHECK(u32(c) == 2);	/* ftrace formats */
	CHECK(u64(c) == 15);
	CHECK(bytes_are(c, "name: function\n", 15));
	CHECK(u64(c) == 12);
	CHECK(bytes_are(c, "name: print\n", 12));
	CHECK(u32(c) == 2);	/* systems, in order of first appearance */
	s = str(c);
	CHECK_STR(s, "sched");
	free(s);
	CHECK(u32(c) == 2);
	CHECK(u64(c) == 19);
	CHECK(bytes_are(c, "name: sched_switch\n", 19));
	CHECK(u64(c) == 19);
	CHECK(bytes_are(c, "name: sched_wakeup\n", 19));
	s = str(c);
	CHECK_STR(s, "irq");
	free(s);
	CHECK(u32(c) == 1);
	CHECK(u64(c) == 24);
	take(c, 24);
	if (kallsyms) {
		CHECK(u32(c) == 26);
		CHECK(bytes_are(c, "ffffffff81000000 T _stext\n", 26));
	} else {
		CHECK(u32(c) == 0);
	}
	CHECK(u32(c) == 10);
	take(c, 10);
	CHECK(u64(c) == 7);
	CHECK(bytes_are(c, "1 init\n", 7));
	CHECK(u32(c) == 2);	/* cpus */
	CHECK(bytes_are(c, "options  ", 10));
}

/* Read a flyrecord table at c's offset; returns the offsets and sizes. */
static void check_table(struct cur *c, uint64_t off[2], uint64_t size[2])
{
	CHECK(bytes_are(c, "flyrecord", 10));
	for (int i = 0; i < 2; i++) {
		off[i] = u64(c);
		size[i] = u64(c);
		CHECK(off[i] % PAGE == 0);
	}
	CHECK(u64(c) == 7);
	CHECK(bytes_are(c, "[local]", 7));
}

TEST(top_level_file)
{
	struct tfw_meta m;
	static unsigned char pages[3][PAGE];
	struct tfw_src src[2] = { { .mem = pages, .size = 2 * PAGE }, { .mem = pages[2], .size = PAGE } };
	struct tfw_buffer buf = { NULL, src };
	struct tfw_result res;
	struct cur c = { 0 };
	uint64_t off[2], size[2];
	int fd = scratch_fd();
	unsigned char *file;

	meta_init(&m);
	make_page(pages[0], 1000, 100, 0xa1);
	make_page(pages[1], 2000, 200, 0xa2);
	make_page(pages[2], 1500, 300, 0xb1);
	CHECK(fd >= 0);
	CHECK(tfw_write(fd, &m, &buf, 1, 0, &res) == 0);
	file = slurp_fd(fd, &c.len);
	c.p = file;
	CHECK(res.bytes == c.len);
	CHECK(res.data_bytes == 3 * PAGE);
	CHECK(!res.dropped_kallsyms && !res.dropped_bytes);
	check_front(&c, true);
	CHECK(u16(&c) == TFW_OPT_UNAME);
	CHECK(u32(&c) == 11);
	CHECK(bytes_are(&c, "Linux test", 11));
	CHECK(u16(&c) == TFW_OPT_TRACECLOCK);
	CHECK(u32(&c) == 15);
	take(&c, 15);
	CHECK(u16(&c) == TFW_OPT_DONE);
	CHECK(c.off == tfw_header_size(&m, 0, NULL));
	check_table(&c, off, size);
	CHECK(size[0] == 2 * PAGE && size[1] == PAGE);
	CHECK(off[0] >= c.off && off[1] >= off[0] + size[0]);
	CHECK(off[1] + size[1] <= c.len);
	CHECK(!c.bad);
	if (!c.bad && off[1] + size[1] <= c.len) {
		CHECK(memcmp(file + off[0], pages, 2 * PAGE) == 0);
		CHECK(memcmp(file + off[1], pages[2], PAGE) == 0);
	}
	free(file);
	close(fd);
	tfw_meta_free(&m);
}

/* Move m's kallsyms into an unlinked temp file, as tfw_meta_gather() spools it. */
static void kallsyms_to_file(struct tfw_meta *m)
{
	int fd = scratch_fd();

	CHECK(fd >= 0);
	CHECK(write(fd, m->kallsyms.data, m->kallsyms.len) == (ssize_t)m->kallsyms.len);
	free(m->kallsyms.data);
	m->kallsyms.data = NULL;
	m->kallsyms_fd = fd;
	m->kallsyms_in_file = true;
}

/* kallsyms spooled in a file: the same bytes in the file as from memory. */
TEST(kallsyms_from_temp_file)
{
	struct tfw_meta m;
	static unsigned char pages[1][PAGE];
	struct tfw_src src[2] = { { .mem = pages, .size = PAGE }, { .fd = -1 } };
	struct tfw_buffer buf = { NULL, src };
	struct tfw_result res;
	struct cur c = { 0 };
	int fd = scratch_fd();
	unsigned char *file;

	meta_init(&m);
	kallsyms_to_file(&m);
	make_page(pages[0], 1000, 100, 0xa1);
	CHECK(fd >= 0);
	CHECK(tfw_write(fd, &m, &buf, 1, 0, &res) == 0);
	file = slurp_fd(fd, &c.len);
	c.p = file;
	CHECK(res.bytes == c.len);
	check_front(&c, true);
	free(file);
	close(fd);
	tfw_meta_free(&m);
	CHECK(!m.kallsyms_in_file);
}

/* An instance goes in a BUFFER option pointing at its own flyrecord. */
TEST(instance_buffer_from_temp_file)
{
	struct tfw_meta m;
	static unsigned char page[PAGE];
	struct tfw_src none[2] = { { .fd = -1 }, { .fd = -1 } };
	struct tfw_src src[2] = { { .fd = -1 }, { .fd = scratch_fd(), .size = 2 * PAGE } };
	struct tfw_buffer bufs[2] = { { NULL, none }, { "myinst", src } };
	struct tfw_result res;
	struct cur c = { 0 };
	uint64_t off[2], size[2], boff = 0;
	int fd = scratch_fd();
	unsigned char *file;
	struct stat st;
	char *name;

	meta_init(&m);
	make_page(page, 42, 64, 0xc1);
	CHECK(pwrite(src[1].fd, page, PAGE, 0) == PAGE);
	make_page(page, 43, 128 | (1UL << 31), 0xc2);
	CHECK(pwrite(src[1].fd, page, PAGE, PAGE) == PAGE);
	CHECK(tfw_write(fd, &m, bufs, 2, TFW_CONSUME, &res) == 0);
	/* Consumed: the temp file was moved into the output. */
	CHECK(fstat(src[1].fd, &st) == 0 && st.st_size == 0);
	file = slurp_fd(fd, &c.len);
	c.p = file;
	check_front(&c, true);
	for (;;) {
		uint16_t id = u16(&c);
		uint32_t len;

		if (id == TFW_OPT_DONE || c.bad)
			break;
		len = u32(&c);
		if (id == TFW_OPT_BUFFER) {
			CHECK(len == 8 + 7);
			boff = u64(&c);
			name = str(&c);
			CHECK_STR(name, "myinst");
			free(name);
		} else {
			take(&c, len);
		}
	}
	CHECK(boff != 0);
	check_table(&c, off, size);
	CHECK(size[0] == 0 && size[1] == 0);
	c.off = boff;
	check_table(&c, off, size);
	CHECK(size[0] == 0 && size[1] == 2 * PAGE);
	CHECK(!c.bad);
	if (!c.bad && off[1] + size[1] <= c.len) {
		uint64_t missed = 0;

		CHECK(file[off[1] + 16] == 0xc1 && file[off[1] + PAGE + 16] == 0xc2);
		struct tfile_page_head h;

		CHECK(!tfile_page_head(&L64, file + off[1], PAGE, &h) && h.missed == 0);
		CHECK(!tfile_page_head(&L64, file + off[1] + PAGE, PAGE, &h) && h.missed == -1);
		(void)missed;
	}
	free(file);
	close(fd);
	close(src[1].fd);
	tfw_meta_free(&m);
}

/* Write a file from a 2.3 MB temp source (several direct-write windows). */
static unsigned char *file_from_temp(bool direct, size_t *len)
{
	enum { NPAGES = 577 };
	struct tfw_meta m;
	static unsigned char page[PAGE];
	struct tfw_src src[2] = { { .fd = scratch_fd(), .size = NPAGES * PAGE }, { .fd = -1 } };
	struct tfw_buffer buf = { NULL, src };
	struct tfw_result res;
	unsigned char *file;
	int fd = scratch_fd();

	meta_init(&m);
	for (int i = 0; i < NPAGES; i++) {
		make_page(page, 1000 + i, 100 + i % 50, (unsigned char)i);
		CHECK(pwrite(src[0].fd, page, PAGE, (off_t)i * PAGE) == PAGE);
	}
	if (direct)
		unsetenv("TR_NO_DIRECT");
	else
		setenv("TR_NO_DIRECT", "1", 1);
	CHECK(tfw_write(fd, &m, &buf, 1, TFW_CONSUME, &res) == 0);
	unsetenv("TR_NO_DIRECT");
	file = slurp_fd(fd, len);
	CHECK(res.bytes == *len);
	close(fd);
	close(src[0].fd);
	tfw_meta_free(&m);
	return file;
}

/* The pages written through O_DIRECT are the same bytes as copied ones. */
TEST(direct_write_same_bytes)
{
	size_t a_len, b_len;
	unsigned char *a = file_from_temp(true, &a_len), *b = file_from_temp(false, &b_len);

	CHECK(a_len == b_len && a_len > 577 * PAGE);
	CHECK(a_len == b_len && !memcmp(a, b, a_len));
	free(a);
	free(b);
}

/* A file sink wakes at a quarter full where the buffer has 64 sub-buffers or more. */
TEST(wake_percent_by_size)
{
	CHECK(rec_wake_percent("1408", 4096, 5) == 25);
	CHECK(rec_wake_percent("256", 4096, 5) == 25);
	CHECK(rec_wake_percent("252", 4096, 5) == 5);
	CHECK(rec_wake_percent("16", 4096, 5) == 5);
	CHECK(rec_wake_percent("7 (expanded: 1408)", 4096, 5) == 25);
	CHECK(rec_wake_percent("1408", 65536, 5) == 5);
	CHECK(rec_wake_percent("X", 4096, 5) == 5);
	CHECK(rec_wake_percent(NULL, 4096, 5) == 5);
	CHECK(rec_wake_percent("1408", 0, 5) == 5);
}

TEST(missed_events_flags)
{
	static unsigned char page[PAGE];
	unsigned long n = 17;
	struct tfile_page_head h;

	make_page(page, 1, 40, 0);
	CHECK(!tfile_page_head(&L64, page, PAGE, &h) && h.missed == 0 && h.size == 40);
	make_page(page, 1, 40 | (1UL << 31) | (1UL << 30), 0);
	memcpy(page + 16 + 40, &n, sizeof(n));
	CHECK(!tfile_page_head(&L64, page, PAGE, &h) && h.missed == 17);
	/* A stored count that would lie past the page is not read: lost, count unknown. */
	make_page(page, 1, (PAGE - 16) | (1UL << 31) | (1UL << 30), 0);
	CHECK(!tfile_page_head(&L64, page, PAGE, &h) && h.missed == -1);
}

/*
 * The kernel adds the flags to a signed long: on a 64-bit kernel the commit
 * word of a page that lost events reads 0xffffffffc0000064.  The recorder's
 * loss count and the file reader's must both see 100 bytes and 7 lost.
 */
TEST(missed_events_sign_extended)
{
	static unsigned char page[PAGE];
	uint64_t commit = 0xffffffffc0000064ULL, n = 7;
	struct tfile_page_head h;
	struct tfile_page pg;
	struct tfile_walk_stats st = { 0 };
	uint32_t bad;

	uint32_t pad[2] = { 29 | 1u << 5, 96 };	/* one discarded 100-byte event */

	memset(page, 0, sizeof(page));
	memcpy(page + 8, &commit, 8);
	memcpy(page + 16, pad, 8);
	memcpy(page + 16 + 100, &n, 8);
	CHECK(!tfile_page_head(&L64, page, PAGE, &h));
	CHECK(h.size == 100 && h.missed == 7);
	CHECK(!tfile_page_load(&pg, &L64, page, PAGE, &bad) && pg.missed == 7);
	CHECK(!tfile_pages_walk(&L64, 0, page, PAGE, count_event, NULL, &st));
	CHECK(st.missed_pages == 1 && st.missed_events == 7 && st.bad_pages == 0);
}

/*
 * The walk's lost is what the events carry: a sub-buffer's stored count on
 * its first event, one for a flag without a count, nothing for a flagged
 * sub-buffer that delivers no event (missed_pages still counts it).
 */
TEST(walk_counts_lost_as_events_carry_it)
{
	static unsigned char pages[3 * PAGE];
	struct tfile_walk_stats st = { 0 };
	uint32_t w = 2 | 5u << 5;	/* one 8-byte data event, delta 5: 12 bytes */
	uint64_t stored = 12 | TFILE_MISSED_EVENTS | TFILE_MISSED_STORED, n = 9;
	uint64_t flag = 12 | TFILE_MISSED_EVENTS, empty = TFILE_MISSED_EVENTS;
	int events = 0;

	make_page(pages, 1, 0, 0);
	memcpy(pages + 8, &stored, 8);
	memcpy(pages + 16, &w, 4);
	memcpy(pages + 16 + 12, &n, 8);
	make_page(pages + PAGE, 2, 0, 0);
	memcpy(pages + PAGE + 8, &flag, 8);
	memcpy(pages + PAGE + 16, &w, 4);
	make_page(pages + 2 * PAGE, 3, 0, 0);
	memcpy(pages + 2 * PAGE + 8, &empty, 8);
	CHECK(!tfile_pages_walk(&L64, 0, pages, sizeof(pages), count_event, &events, &st));
	CHECK(events == 2 && st.missed_pages == 3 && st.missed_events == 9);
	CHECK(st.lost == 10);
}

/* A corrupt sub-buffer is counted and skipped; the walk goes on with the next. */
TEST(walk_skips_bad_pages)
{
	static unsigned char pages[2 * PAGE];
	struct tfile_walk_stats st = { 0 };
	uint64_t bad_commit = PAGE;	/* more data than the page holds */
	int events = 0;

	make_page(pages, 1, 0, 0);
	memcpy(pages + 8, &bad_commit, 8);
	make_page(pages + PAGE, 1, 0, 0);
	/* One 8-byte data event (type_len 2, delta 5) on the second page. */
	{
		uint32_t w = 2 | 5u << 5;
		uint64_t c = 12;

		memcpy(pages + PAGE + 16, &w, 4);
		memcpy(pages + PAGE + 8, &c, 8);
	}
	CHECK(!tfile_pages_walk(&L64, 1, pages, sizeof(pages), count_event, &events, &st));
	CHECK(st.pages == 2 && st.bad_pages == 1 && st.events == 1 && events == 1);
}

TEST(kernel_stats)
{
	struct rec_kstats s;

	rec_kstats_parse("entries: 5\noverrun: 12\ncommit overrun: 1\nbytes: 4096\n"
			 "oldest event ts:  1123.204411\nnow ts:  1123.295780\n"
			 "dropped events: 3\nread events: 20\n",
			 &s);
	CHECK(s.entries == 5 && s.overrun == 12 && s.commit_overrun == 1 && s.bytes == 4096);
	CHECK(s.dropped == 3 && s.read == 20);
	rec_kstats_parse("", &s);
	CHECK(s.entries == 0 && s.read == 0);
}

/* The recorder's own pids are ANDed into every filter; ftrace events are left out. */
TEST(own_pid_filters)
{
	struct evsel_list in = { 0 }, out = { 0 };
	pid_t own[] = { 100, 101 };

	CHECK(evsel_add(&in, "sched:sched_switch") == 0);
	CHECK(evsel_add_filter(&in, "prev_pid != 0 || next_pid == 1") == 0);
	CHECK(evsel_add(&in, "irq") == 0);
	CHECK(evsel_add(&in, "ftrace:*") == 0);
	char *f = session_pid_filter(own, 2);

	CHECK_STR(f, "common_pid != 100 && common_pid != 101");
	CHECK(session_pid_filter(own, 0) == NULL);
	CHECK(session_events_to_enable(&in, f, &out) == 0);
	CHECK(out.n == 2);
	if (out.n == 2) {
		CHECK_STR(out.v[0].spec, "sched:sched_switch");
		CHECK_STR(out.v[0].filter, "(prev_pid != 0 || next_pid == 1) && "
					   "common_pid != 100 && common_pid != 101");
		CHECK_STR(out.v[1].spec, "irq");
		CHECK_STR(out.v[1].filter, "common_pid != 100 && common_pid != 101");
	}
	evsel_list_free(&out);
	/* No own pids (--no-filter, -P): filters stay as typed. */
	CHECK(session_events_to_enable(&in, NULL, &out) == 0);
	CHECK(out.n == 2 && out.v[1].filter == NULL);
	CHECK_STR(out.n ? out.v[0].filter : NULL, "prev_pid != 0 || next_pid == 1");
	evsel_list_free(&out);
	/* ftrace events cannot be filtered. */
	CHECK(evsel_add_filter(&in, "buf ~ \"x*\"") == 0);
	CHECK(session_events_to_enable(&in, f, &out) == -EINVAL);
	evsel_list_free(&out);
	evsel_list_free(&in);
	free(f);
}

/* A latency file: the header, "latency  \0", then the text to the end; tr's reader agrees. */
TEST(latency_file)
{
	static const char text[] = "# tracing_max_latency: 42 us\n# tracer: irqsoff\n";
	struct tfw_meta m;
	struct tfw_result res;
	struct cur c = { 0 };
	struct tfile *tf = NULL;
	char path[] = "/tmp/tr-test-tfw-lat.XXXXXX";
	int fd = mkstemp(path);
	unsigned char *file;
	char *got = NULL;
	size_t len = 0;

	meta_init(&m);
	/* (libtraceevent reads past the end of meta_init()'s made-up printk line) */
	free(m.printk.data);
	m.printk = (struct tfw_blob){ 0 };
	CHECK(fd >= 0);
	CHECK(tfw_write_latency(fd, &m, text, strlen(text), &res) == 0);
	file = slurp_fd(fd, &c.len);
	c.p = file;
	CHECK(res.bytes == c.len);
	CHECK(bytes_are(&c, "\x17\x08\x44tracing6", 12));
	c.off = tfw_header_size(&m, 0, NULL);
	CHECK(bytes_are(&c, "latency  ", 10));
	CHECK(bytes_are(&c, text, strlen(text)));
	CHECK(c.off == c.len);
	CHECK(tfile_open(path, 0, &tf) == 0);
	if (tf) {
		CHECK(tfile_nbuffers(tf) == 1 && tfile_buffer(tf, 0)->latency);
		CHECK(tfile_text(tf, 0, &got, &len) == 0);
		CHECK_STR(got, text);
		free(got);
		tfile_close(tf);
	}
	unlink(path);
	free(file);
	close(fd);
	tfw_meta_free(&m);
}

/* A page of n tr_test events (16 bytes each: header word, 12 bytes of data) from value v. */
static void event_page(unsigned char *page, uint64_t ts, int n, int v)
{
	unsigned long commit = 16UL * n;

	memset(page, 0, PAGE);
	memcpy(page, &ts, 8);
	memcpy(page + 8, &commit, 8);
	for (int i = 0; i < n; i++) {
		unsigned char *e = page + 16 + 16 * i;
		uint32_t hdr = 3 | (1u << 5);	/* type_len 3 (12 bytes), delta 1 */
		uint16_t type = 42;
		int32_t pid = 1, val = v + i;

		memcpy(e, &hdr, 4);
		memcpy(e + 4, &type, 2);
		memcpy(e + 8, &pid, 4);
		memcpy(e + 12, &val, 4);
	}
}

/*
 * v7, each compression: more pages than one chunk on CPU 1, none on
 * CPU 0 (left out of the buffer, as trace-cmd does), an instance buffer;
 * tr's reader gets every event back in order.
 */
TEST(v7_round_trip)
{
	enum { NPAGES = TFW_V7_CHUNK_PAGES + 5, PER_PAGE = 50 };
	static const char *const names[] = { "none", "zstd", "zlib" };
	/*
	 * VERSION options: tr's with the funcgraph options after the NUL, one
	 * not from tr with bytes after its NUL, tr's without options.
	 */
	static const struct {
		const char *data;
		size_t len;
		const char *version, *graph;
	} vers[] = {
		{ "tr 0.1.0\0funcgraph-proc\nnofuncgraph-cpu\n", 41, "tr 0.1.0",
		  "funcgraph-proc\nnofuncgraph-cpu\n" },
		{ "3.1.6\0funcgraph-proc\n", 22, "3.1.6", NULL },
		{ "tr 0.1.0", 9, "tr 0.1.0", NULL },
	};
	unsigned char *pages = xcalloc(NPAGES, PAGE);

	for (int i = 0; i < NPAGES; i++)
		event_page(pages + (size_t)i * PAGE, 1000 + 100 * i, PER_PAGE, i * PER_PAGE);
	for (int z = 0; z < 3; z++) {
		struct tfw_meta m = { 0 };
		struct tfw_src none[2] = { { .fd = -1 }, { .fd = -1 } };
		struct tfw_src src[2] = { { .fd = -1 }, { .mem = pages, .size = (uint64_t)NPAGES * PAGE } };
		struct tfw_buffer bufs[2] = { { NULL, none }, { "inst", src } };
		struct tfw_result res;
		struct tfile *tf = NULL;
		struct tfile_cursor *c = NULL;
		struct tfile_event ev;
		char path[] = "/tmp/tr-test-tfw7.XXXXXX";
		int fd = mkstemp(path), n = 0, ok = 1, r;
		struct stat st;

		m.page_size = PAGE;
		m.cpus = 2;
		m.version = 7;
		m.zip = tfw_zip_parse(names[z]);
		CHECK(m.zip >= 0);
		tfw_blob_append(&m.header_page, fx_header_page, strlen(fx_header_page));
		tfw_blob_append(&m.header_event, "type_len : 5 bits\n", 18);
		tfw_meta_add_format(&m, "test", fx_tr_test, strlen(fx_tr_test));
		tfw_blob_append(&m.cmdlines, "1 init\n", 7);
		tfw_meta_add_option(&m, TFW_OPT_UNAME, "Linux test", 11);
		tfw_meta_add_option(&m, TFW_OPT_VERSION, vers[z].data, vers[z].len);
		m.clock = xstrdup("local");
		CHECK(fd >= 0);
		CHECK(tfw_write(fd, &m, bufs, 2, TFW_CONSUME | TFW_FIT, &res) == 0);
		CHECK(fstat(fd, &st) == 0 && (uint64_t)st.st_size == res.bytes);
		CHECK(res.data_bytes == (uint64_t)NPAGES * PAGE);
		if (z)	/* compressed: the repetitive pages shrink a lot */
			CHECK(res.bytes < (uint64_t)NPAGES * PAGE / 4);
		CHECK(tfile_open(path, 0, &tf) == 0);
		if (!tf)
			goto next;
		CHECK(tfile_info(tf)->version == 7);
		CHECK_STR(tfile_info(tf)->compression, names[z]);
		CHECK(tfile_info(tf)->cpus == 2);
		CHECK_STR(tfile_info(tf)->tracer_version, vers[z].version);
		if (vers[z].graph)
			CHECK_STR(tfile_info(tf)->graph_opts, vers[z].graph);
		else
			CHECK(tfile_info(tf)->graph_opts == NULL);
		CHECK(tfile_nbuffers(tf) == 2);
		CHECK_STR(tfile_buffer(tf, 0)->name, "");
		CHECK(tfile_buffer(tf, 0)->ncpus == 0);
		CHECK_STR(tfile_buffer(tf, 1)->name, "inst");
		CHECK(tfile_buffer(tf, 1)->ncpus == 1 && tfile_buffer(tf, 1)->cpus[0].cpu == 1);
		CHECK(tfile_buffer(tf, 1)->compressed == (z != 0));
		CHECK(tfile_cursor_open(tf, 1, 0, &c) == 0);
		while (c && (r = tfile_cursor_next(c, &ev)) == 1) {
			int32_t v;

			memcpy(&v, (char *)ev.data + 8, 4);
			if (v != n)
				ok = 0;
			n++;
		}
		CHECK(ok);
		CHECK(n == NPAGES * PER_PAGE);
		tfile_cursor_free(c);
		tfile_close(tf);
next:
		unlink(path);
		close(fd);
		tfw_meta_free(&m);
	}
	free(pages);
}

/* Write m (no pages) as a file of version ver, compression zip, to path. */
static void write_meta_file(struct tfw_meta *m, const char *path, int ver, int zip)
{
	struct tfw_src none[2] = { { .fd = -1 }, { .fd = -1 } };
	struct tfw_buffer buf = { NULL, none };
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	m->version = ver;
	m->zip = zip;
	CHECK(fd >= 0);
	CHECK(tfw_write(fd, m, &buf, 1, 0, NULL) == 0);
	close(fd);
}

/*
 * A rotating recording's parts take the kallsyms from the spool's meta.dat
 * (v6, uncompressed) where they lie, in pieces: tfile_kallsyms_extent()
 * finds them also when they are not loaded, and a file written from there
 * holds the same text.  A compressed file has no such extent.
 */
TEST(kallsyms_extent_copied)
{
	static const char ksyms[] = "ffffffff81000000 T _stext\nffffffff81000010 t tr_one\n"
				    "ffffffff81000020 T tr_two\n";
	char meta[] = "/tmp/tr-test-tfwk.XXXXXX", part[] = "/tmp/tr-test-tfwp.XXXXXX";
	struct tfw_meta m = { 0 }, m2;
	struct tfile *tf = NULL, *tf2 = NULL;
	uint64_t off = 0, len = 0;
	char got[sizeof(ksyms)] = "";
	int fd = mkstemp(meta), fd2 = mkstemp(part);

	CHECK(fd >= 0 && fd2 >= 0);
	close(fd2);
	m.page_size = PAGE;
	m.cpus = 2;
	tfw_blob_append(&m.header_page, fx_header_page, strlen(fx_header_page));
	tfw_blob_append(&m.header_event, "type_len : 5 bits\n", 18);
	tfw_meta_add_format(&m, "test", fx_tr_test, strlen(fx_tr_test));
	tfw_blob_append(&m.kallsyms, ksyms, strlen(ksyms));
	m.clock = xstrdup("local");
	write_meta_file(&m, meta, 6, TFW_ZIP_NONE);
	CHECK(tfile_open(meta, TFILE_KEEP_FORMATS | TFILE_NO_KALLSYMS, &tf) == 0);
	if (!tf)
		goto out;
	CHECK(tfile_kallsyms_text(tf) == NULL);
	CHECK(tfile_kallsyms_extent(tf, &off, &len));
	CHECK(len == strlen(ksyms));
	CHECK(pread(fd, got, strlen(ksyms), (off_t)off) == (ssize_t)strlen(ksyms));
	CHECK_STR(got, ksyms);
	/* A part written from meta.dat, the kallsyms read from it where they lie. */
	CHECK(tfile_meta(tf, &m2) == 0);
	CHECK(m2.kallsyms.data == NULL && m2.kallsyms.len == 0);
	m2.kallsyms_fd = dup(fd);
	m2.kallsyms_in_file = true;
	m2.kallsyms_off = off;
	m2.kallsyms.len = len;
	write_meta_file(&m2, part, 7, TFW_ZIP_ZSTD);
	tfw_meta_free(&m2);
	CHECK(tfile_open(part, 0, &tf2) == 0);
	if (tf2) {
		CHECK(tfile_kallsyms_text(tf2) != NULL);
		if (tfile_kallsyms_text(tf2))
			CHECK_STR(tfile_kallsyms_text(tf2), ksyms);
		/* Compressed: not where a writer could copy them from. */
		CHECK(!tfile_kallsyms_extent(tf2, &off, &len));
		tfile_close(tf2);
	}
	tfile_close(tf);
out:
	close(fd);
	unlink(meta);
	unlink(part);
	tfw_meta_free(&m);
}

/*
 * saved_tgids in tr's VERSION option: written only where the option is tr's,
 * read back in v6 and v7, before or after a clock pairing, and carried by
 * tfile_meta() into a file written from the first (a rotation's part).
 */
TEST(tgids_in_version)
{
	static const char opts[] = "tr 0.1.0\0norecord-tgid-ish\nrecord-tgid\nnoraw\n";
	static const char pairing[] = "clock-pairing 1 2 3 4 5 6 7 8";
	static const char tgids[] = "100 100\n101 100\n";
	char path[] = "/tmp/tr-test-tfwt.XXXXXX", part[] = "/tmp/tr-test-tfwu.XXXXXX";
	int fd = mkstemp(path), fd2 = mkstemp(part);

	CHECK(fd >= 0 && fd2 >= 0);
	close(fd);
	close(fd2);
	for (int k = 0; k < 4; k++) {
		struct tfw_meta m = { 0 }, m2;
		struct tfile *tf = NULL, *tf2 = NULL;
		struct tfw_opt *o;

		m.page_size = PAGE;
		m.cpus = 2;
		tfw_blob_append(&m.header_page, fx_header_page, strlen(fx_header_page));
		tfw_blob_append(&m.header_event, "type_len : 5 bits\n", 18);
		tfw_meta_add_format(&m, "test", fx_tr_test, strlen(fx_tr_test));
		m.clock = xstrdup("local");
		/* Not tr's: nothing is added to it. */
		tfw_meta_add_option(&m, TFW_OPT_VERSION, "3.1.6", 6);
		tfw_meta_add_tgids(&m, tgids, sizeof(tgids));
		CHECK(m.opts[0].data.len == 6);
		CHECK(!tfw_meta_has_text_option(&m, "record-tgid"));
		m.nopts = 0;
		free(m.opts[0].data.data);
		/* k & 1: the text options empty; k & 2: a clock pairing first. */
		if (k & 1)
			tfw_meta_add_option(&m, TFW_OPT_VERSION, "tr 0.1.0", 9);
		else
			tfw_meta_add_option(&m, TFW_OPT_VERSION, opts, sizeof(opts));
		CHECK(tfw_meta_has_text_option(&m, "record-tgid") == !(k & 1));
		CHECK(!tfw_meta_has_text_option(&m, "record"));
		CHECK(!tfw_meta_has_text_option(&m, "raw"));
		o = &m.opts[0];
		if (k & 2) {
			if (k & 1)
				tfw_blob_append(&o->data, "", 1);
			tfw_blob_append(&o->data, pairing, sizeof(pairing));
		}
		tfw_meta_add_tgids(&m, tgids, sizeof(tgids) - 1);
		write_meta_file(&m, path, k & 1 ? 7 : 6, TFW_ZIP_NONE);
		CHECK(tfile_open(path, TFILE_KEEP_FORMATS, &tf) == 0);
		if (tf) {
			CHECK_STR(tfile_tgids(tf), tgids);
			CHECK_STR(tfile_info(tf)->tracer_version, "tr 0.1.0");
			CHECK(tfile_info(tf)->clocks.valid == !!(k & 2));
			if (!(k & 1))
				CHECK_STR(tfile_info(tf)->graph_opts, opts + 9);
			CHECK(tfile_meta(tf, &m2) == 0);
			write_meta_file(&m2, part, 7, TFW_ZIP_ZSTD);
			tfw_meta_free(&m2);
			CHECK(tfile_open(part, 0, &tf2) == 0);
			if (tf2)
				CHECK_STR(tfile_tgids(tf2), tgids);
			tfile_close(tf2);
			tfile_close(tf);
		}
		tfw_meta_free(&m);
	}
	unlink(path);
	unlink(part);
}

/*
 * trace-cmd 3.4's BTF_FILE and MODULES_FILE: the bytes as they were, in
 * compressed v7 files, and carried by tfile_meta() into a file written
 * from one; left out of v6 and uncompressed v7 files (which 3.4 could not
 * read with them).  A damaged BTF section fails tfile_btf(), not the open.
 */
TEST(btf_and_modules_sections)
{
	static const unsigned char btf[] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					     0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0 };
	static const char mods[] = "ext4 1056768 1 - Live 0xffffffffc0400000\n";
	static const struct { int ver, zip; bool kept; } kinds[] = {
		{ 7, TFW_ZIP_ZSTD, true }, { 7, TFW_ZIP_ZLIB, true },
		{ 7, TFW_ZIP_NONE, false }, { 6, TFW_ZIP_NONE, false },
	};
	char path[] = "/tmp/tr-test-tfwb.XXXXXX", part[] = "/tmp/tr-test-tfwc.XXXXXX";
	int fd = mkstemp(path), fd2 = mkstemp(part);

	CHECK(fd >= 0 && fd2 >= 0);
	close(fd);
	close(fd2);
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct tfw_meta m = { 0 }, m2;
		struct tfile *tf = NULL, *tf2 = NULL;
		void *data = NULL;
		size_t len = 0;

		m.page_size = PAGE;
		m.cpus = 1;
		tfw_blob_append(&m.header_page, fx_header_page, strlen(fx_header_page));
		tfw_blob_append(&m.header_event, "type_len : 5 bits\n", 18);
		tfw_blob_append(&m.btf, btf, sizeof(btf));
		tfw_blob_append(&m.modules, mods, strlen(mods));
		m.clock = xstrdup("local");
		write_meta_file(&m, path, kinds[k].ver, kinds[k].zip);
		CHECK(tfile_open(path, 0, &tf) == 0);
		if (!tf)
			goto next;
		if (!kinds[k].kept) {
			CHECK(tfile_btf(tf, &data, &len) == -ENOENT && !data);
			CHECK(tfile_modules(tf) == NULL);
			goto next;
		}
		CHECK(tfile_btf(tf, &data, &len) == 0);
		CHECK(len == sizeof(btf) && data && !memcmp(data, btf, len));
		free(data);
		CHECK(tfile_modules(tf) && !strcmp(tfile_modules(tf), mods));
		CHECK(tfile_meta(tf, &m2) == 0);
		write_meta_file(&m2, part, 7, TFW_ZIP_ZSTD);
		tfw_meta_free(&m2);
		CHECK(tfile_open(part, 0, &tf2) == 0);
		if (tf2) {
			CHECK(tfile_btf(tf2, &data, &len) == 0);
			CHECK(len == sizeof(btf) && data && !memcmp(data, btf, len));
			free(data);
			CHECK(tfile_modules(tf2) && !strcmp(tfile_modules(tf2), mods));
			tfile_close(tf2);
		}
		/* The compressed BTF damaged: the file opens, tfile_btf() says what is wrong. */
		if (kinds[k].zip == TFW_ZIP_ZSTD) {
			const struct tfile_section *sec;
			size_t nsec, i;
			uint64_t at = 0;

			sec = tfile_sections(tf, &nsec);
			for (i = 0; i < nsec; i++)
				if (sec[i].id == 23)
					at = sec[i].offset;
			CHECK(at != 0);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			CHECK(fd >= 0 && pwrite(fd, "\xff\xff\xff\xff", 4, at + 24) == 4);
			close(fd);
			tfile_close(tf);
			tf = NULL;
			CHECK(tfile_open(path, 0, &tf) == 0);
			if (tf) {
				CHECK(tfile_btf(tf, &data, &len) == -EBADMSG && !data);
				CHECK(strstr(tr_failure(), "corrupt compressed data") != NULL);
			}
		}
next:
		tfile_close(tf);
		tfw_meta_free(&m);
	}
	unlink(path);
	unlink(part);
}

/* dir/name holds text; NULL text: there is no dir/name. */
static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd;

	if (!text) {
		unlink(p);
		free(p);
		return;
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	free(p);
}

/*
 * tfw_meta_gather_extras() takes the kernel's BTF for a tracer that prints
 * function arguments, and only then (a tracefs stand-in, TR_TRACEFS).  On
 * a kernel without BTF there is nothing to take in any case.
 */
TEST(btf_taken_for_arguments)
{
	static const struct { const char *tracer, *opt, *on; bool takes; } cases[] = {
		{ "function_graph\n", "options/funcgraph-args", "1\n", true },
		{ "function\n", "options/func-args", "1\n", true },
		{ "function_graph\n", "options/funcgraph-args", "0\n", false },
		{ "function\n", "options/funcgraph-args", "1\n", false },
		{ "nop\n", "options/func-args", "1\n", false },
	};
	char dir[] = "/tmp/tr-test-tfs.XXXXXX";
	struct stat st;
	size_t size = stat("/sys/kernel/btf/vmlinux", &st) ? 0 : (size_t)st.st_size;
	char *opts;

	CHECK(mkdtemp(dir) != NULL);
	opts = xasprintf("%s/options", dir);
	CHECK(mkdir(opts, 0700) == 0);
	put(dir, "tracing_on", "1\n");
	setenv("TR_TRACEFS", dir, 1);
	CHECK(tfs_open() == 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tfw_meta m = { 0 };

		put(dir, "current_tracer", cases[i].tracer);
		put(dir, cases[i].opt, cases[i].on);
		tfw_meta_gather_extras(&m, tfs_top());
		CHECK(m.btf.len == (cases[i].takes ? size : 0));
		/* What is taken already is not read again. */
		if (m.btf.len) {
			m.btf.data[0] ^= 1;
			tfw_meta_gather_extras(&m, tfs_top());
			CHECK(m.btf.len == size && m.btf.data[0] != (char)0x9f);
		}
		put(dir, cases[i].opt, NULL);
		tfw_meta_free(&m);
	}
	unsetenv("TR_TRACEFS");
	put(dir, "current_tracer", NULL);
	put(dir, "tracing_on", NULL);
	CHECK(rmdir(opts) == 0 && rmdir(dir) == 0);
	free(opts);
}

UNIT_MAIN(T(top_level_file), T(kallsyms_from_temp_file), T(instance_buffer_from_temp_file), T(missed_events_flags),
	  T(missed_events_sign_extended), T(walk_counts_lost_as_events_carry_it),
	  T(walk_skips_bad_pages),
	  T(kernel_stats), T(own_pid_filters), T(latency_file), T(v7_round_trip),
	  T(direct_write_same_bytes), T(wake_percent_by_size), T(kallsyms_extent_copied),
	  T(tgids_in_version), T(btf_and_modules_sections), T(btf_taken_for_arguments))
