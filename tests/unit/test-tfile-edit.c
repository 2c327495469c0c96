// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr split's sub-buffer writer (page.c) read back by the reader's own page
 * parser: compact and long events, time extends for gaps of more than 27
 * bits of nanoseconds, lost-event marks with their count, big-endian
 * layouts; and tr convert of a latency file.  No tracefs, no root.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "page.h"
#include "tfile-edit.h"
#include "tfile.h"
#include "tfw.h"
#include "fixtures.h"
#include "unit.h"

static const struct tfile_layout le8 = {
	.big_endian = false, .ts_off = 0, .commit_off = 8, .commit_size = 8, .data_off = 16,
	.page_size = 256,
};

struct rec {
	uint64_t ts;
	uint32_t size;
	int64_t missed;
	uint8_t fill;
};

/* Write recs into pages of l, read them back, and compare everything. */
static void round_trip(const struct tfile_layout *l, const struct rec *recs, size_t n,
		       size_t want_pages)
{
	uint8_t *pages = calloc(n + 1, l->page_size), data[200];
	struct tfile_page_out o;
	size_t np = 0, got = 0;

	tfile_page_out_start(&o, l, pages);
	for (size_t i = 0; i < n; i++) {
		int r;

		memset(data, recs[i].fill, recs[i].size);
		r = tfile_page_out_add(&o, recs[i].ts, data, recs[i].size, recs[i].missed);
		if (r == 0) {
			tfile_page_out_finish(&o);
			np++;
			tfile_page_out_start(&o, l, pages + np * l->page_size);
			r = tfile_page_out_add(&o, recs[i].ts, data, recs[i].size, recs[i].missed);
		}
		CHECK(r == 1);
	}
	tfile_page_out_finish(&o);
	np++;
	CHECK(np == want_pages);
	for (size_t p = 0; p < np; p++) {
		struct tfile_page pg;
		struct tfile_event ev;
		uint32_t bad = 0;

		CHECK(tfile_page_load(&pg, l, pages + p * l->page_size, l->page_size, &bad) == 0);
		while (tfile_page_next(&pg, &ev, &bad) == 1 && got < n) {
			const struct rec *w = &recs[got++];

			CHECK(ev.ts == w->ts);
			CHECK(ev.size >= w->size && ev.size <= w->size + 3);
			CHECK(ev.missed == w->missed);
			for (uint32_t k = 0; k < w->size; k++)
				if (((uint8_t *)ev.data)[k] != w->fill) {
					CHECK(!"event data differs");
					break;
				}
		}
	}
	CHECK(got == n);
	free(pages);
}

TEST(page_writer_round_trip)
{
	static const struct rec recs[] = {
		{ 1000, 8, 0, 1 },
		{ 1010, 112, 0, 2 },			/* the largest compact event */
		{ 1020, 116, 0, 3 },			/* a long one: type_len 0 */
		{ 1020 + (1ULL << 27) + 5, 4, 0, 4 },	/* needs a time extend */
		{ 5000000000000ULL, 6, 0, 5 },		/* an odd size, a huge gap */
	};

	round_trip(&le8, recs, 5, 2);
}

TEST(page_writer_lost_events_open_a_page)
{
	static const struct rec recs[] = {
		{ 100, 8, 0, 1 }, { 200, 8, 42, 2 }, { 300, 8, 0, 3 }, { 400, 8, -1, 4 },
		{ 500, 8, 0, 5 },
	};

	/* The count rides after the data; -1 (count unknown) is the flag alone. */
	round_trip(&le8, recs, 5, 3);
}

TEST(page_writer_time_going_back_opens_a_page)
{
	static const struct rec recs[] = { { 100, 8, 0, 1 }, { 90, 8, 0, 2 } };

	round_trip(&le8, recs, 2, 2);
}

TEST(page_writer_big_endian_4_byte_commit)
{
	static const struct tfile_layout be4 = {
		.big_endian = true, .ts_off = 0, .commit_off = 8, .commit_size = 4,
		.data_off = 12, .page_size = 128,
	};
	static const struct rec recs[] = {
		{ 7, 16, 3, 1 }, { 8 + (1ULL << 30), 40, 0, 2 }, { 9 + (1ULL << 30), 40, 0, 3 },
		{ 10 + (1ULL << 30), 40, 0, 4 },
	};

	round_trip(&be4, recs, 4, 2);
}

TEST(page_writer_refuses_an_event_bigger_than_a_page)
{
	uint8_t page[256], data[300] = { 0 };
	struct tfile_page_out o;

	tfile_page_out_start(&o, &le8, page);
	CHECK(tfile_page_out_add(&o, 1, data, 250, 0) == -EINVAL);
	CHECK(tfile_page_out_add(&o, 1, data, 232, 0) == 1);	/* 8 + 232 = 240 = 256 - 16 */
	CHECK(tfile_page_out_add(&o, 2, data, 4, 0) == 0);
}

/* Convert in to out with version/zip and read the latency text back. */
static void latency_back(const char *in, int version, int zip, const char *want)
{
	char out[] = "/tmp/tr-test-edit-out.XXXXXX";
	int ofd = mkstemp(out);
	struct tfile *tf = NULL, *back = NULL;
	struct tfw_result res;
	char *got = NULL;
	size_t len = 0;

	CHECK(ofd >= 0);
	CHECK(tfile_open(in, TFILE_KEEP_FORMATS | TFILE_LAZY_KALLSYMS, &tf) == 0);
	if (tf)
		CHECK(tfile_convert(tf, ofd, &(struct tfile_edit_opts){ .version = version,
									.zip = zip }, &res) == 0);
	CHECK(tfile_open(out, 0, &back) == 0);
	if (back) {
		CHECK(tfile_info(back)->version == version);
		CHECK(version == 7 || !strv_contains(&tfile_info(back)->options, "traceclock"));
		CHECK(tfile_nbuffers(back) == 1 && tfile_buffer(back, 0)->latency);
		CHECK(tfile_text(back, 0, &got, &len) == 0);
		CHECK(got && len == strlen(want) && !memcmp(got, want, len));
		CHECK_STR(tfile_info(back)->uname, "Linux test 6.1");
		CHECK_STR(tfile_cmdlines(back), "1 init\n");
		free(got);
	}
	tfile_close(back);
	tfile_close(tf);
	close(ofd);
	unlink(out);
}

/*
 * A latency file converts between the versions with its text whole: v7
 * compressed holds it in chunks (this one takes three), v7 plain as is.
 */
TEST(convert_latency_file)
{
	static const char line[] = "  <idle>-0       0d.h1    1us : do_idle <-cpu_startup_entry\n";
	struct tfw_meta m = { .page_size = 4096, .cpus = 2 };
	char in[] = "/tmp/tr-test-edit-in.XXXXXX", v7[] = "/tmp/tr-test-edit-v7.XXXXXX";
	int ifd = mkstemp(in), fd7 = mkstemp(v7);
	struct tfile *tf = NULL;
	struct tfw_result res;
	size_t n = 300000 / (sizeof(line) - 1), len = 0;
	char *text = malloc(40 + n * (sizeof(line) - 1) + 1);

	len = sprintf(text, "# tracer: irqsoff\n# latency: 42 us\n");
	for (size_t i = 0; i < n; i++)
		len += sprintf(text + len, "%s", line);
	tfw_blob_append(&m.header_page, fx_header_page, strlen(fx_header_page));
	tfw_blob_append(&m.header_event, "# compressed entry header\n", 26);
	tfw_blob_append(&m.cmdlines, "1 init\n", 7);
	tfw_meta_add_option(&m, TFW_OPT_UNAME, "Linux test 6.1", 15);
	CHECK(ifd >= 0 && fd7 >= 0);
	CHECK(tfw_write_latency(ifd, &m, text, len, &res) == 0);
	latency_back(in, 6, -1, text);
	latency_back(in, 7, TFW_ZIP_ZSTD, text);
	latency_back(in, 7, TFW_ZIP_ZLIB, text);
	latency_back(in, 7, TFW_ZIP_NONE, text);
	/*
	 * And back from a compressed v7 one with a TRACECLOCK option, which a
	 * v6 latency file must not have (trace-cmd would read a clock there).
	 */
	m.version = 7;
	m.zip = TFW_ZIP_ZSTD;
	tfw_meta_add_option(&m, TFW_OPT_TRACECLOCK, "[local] global", 15);
	CHECK(ftruncate(ifd, 0) == 0);
	CHECK(tfw_write_latency(ifd, &m, text, len, &res) == 0);
	CHECK(tfile_open(in, TFILE_KEEP_FORMATS | TFILE_LAZY_KALLSYMS, &tf) == 0);
	if (tf)
		CHECK(strv_contains(&tfile_info(tf)->options, "traceclock"));
	if (tf)
		CHECK(tfile_convert(tf, fd7, &(struct tfile_edit_opts){ .version = 7,
								     .zip = TFW_ZIP_ZSTD },
				    &res) == 0);
	tfile_close(tf);
	latency_back(v7, 6, -1, text);
	latency_back(v7, 7, TFW_ZIP_ZLIB, text);
	tfw_meta_free(&m);
	free(text);
	close(ifd);
	close(fd7);
	unlink(in);
	unlink(v7);
}

UNIT_MAIN(T(page_writer_round_trip), T(page_writer_lost_events_open_a_page),
	  T(page_writer_time_going_back_opens_a_page), T(page_writer_big_endian_4_byte_commit),
	  T(page_writer_refuses_an_event_bigger_than_a_page), T(convert_latency_file))
