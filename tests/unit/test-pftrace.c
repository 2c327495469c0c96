// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Perfetto writer: the wire encoder against the protobuf encoding
 * document's own examples, the generated event table, and a converted
 * file walked by a decoder written here (not the encoder read backwards).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pf-local.h"
#include "pftrace.h"
#include "tfile.h"
#include "unit.h"

static bool bytes_are(const struct pf_buf *b, const char *hex)
{
	size_t n = strlen(hex) / 2;

	if (b->len != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		if (b->p[i] != v)
			return false;
	}
	return true;
}

TEST(varints)
{
	static const struct {
		uint64_t v;
		const char *hex;
	} t[] = {
		{ 0, "00" }, { 1, "01" }, { 127, "7f" }, { 128, "8001" }, { 150, "9601" },
		{ 300, "ac02" }, { 16383, "ff7f" }, { 16384, "808001" },
		{ UINT64_MAX, "ffffffffffffffffff01" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_buf b = { 0 };

		pf_varint(&b, t[i].v);
		CHECK(bytes_are(&b, t[i].hex));
		CHECK(pf_varint_size(t[i].v) == (int)strlen(t[i].hex) / 2);
		pf_buf_free(&b);
	}
}

TEST(tags_and_scalars)
{
	struct pf_buf b = { 0 };

	/* The encoding document's first example: field 1 = 150. */
	pf_uint(&b, 1, 150);
	CHECK(bytes_are(&b, "089601"));
	b.len = 0;
	pf_tag(&b, PF_EVENT_GENERIC, PF_WIRE_LEN);	/* 327 << 3 | 2 */
	CHECK(bytes_are(&b, "ba14"));
	b.len = 0;
	/* A negative int32 or int64 is ten bytes: its 64-bit two's complement. */
	pf_int(&b, 2, -1);
	CHECK(bytes_are(&b, "10ffffffffffffffffff01"));
	b.len = 0;
	pf_int(&b, 2, (int32_t)-2);
	CHECK(bytes_are(&b, "10feffffffffffffffff01"));
	b.len = 0;
	/* fixed64: wire type 1, eight bytes little-endian; a kernel address in 9, not 11. */
	pf_fixed64(&b, 3, 0xffffffff81496a1aull);
	CHECK(bytes_are(&b, "191a6a4981ffffffff"));
	pf_buf_free(&b);
}

TEST(length_delimited)
{
	struct pf_buf b = { 0 };
	size_t m;

	/* The document's string: field 2 = "testing". */
	pf_str(&b, 2, "testing");
	CHECK(bytes_are(&b, "120774657374696e67"));
	b.len = 0;
	pf_bytes(&b, 5, "", 0);
	CHECK(bytes_are(&b, "2a00"));
	b.len = 0;
	/* Its nested message: field 3 holding field 1 = 150. */
	m = pf_open(&b, 3);
	pf_uint(&b, 1, 150);
	pf_close(&b, m);
	CHECK(bytes_are(&b, "1a03089601"));
	pf_buf_free(&b);
}

TEST(nesting_moves_the_body_once)
{
	struct pf_buf b = { 0 };
	char big[300];
	size_t outer, inner;

	memset(big, 'x', sizeof(big));
	outer = pf_open(&b, 1);
	inner = pf_open(&b, 2);
	pf_bytes(&b, 3, big, sizeof(big));	/* 1a ac02 + 300 */
	pf_close(&b, inner);			/* 12 af02 + 303 */
	pf_uint(&b, 4, 1);
	pf_close(&b, outer);			/* 0a b402 + 306 + 2 */
	CHECK(b.len == 3 + 3 + 3 + 300 + 2);
	CHECK(b.p[0] == 0x0a && b.p[1] == 0xb4 && b.p[2] == 0x02);
	CHECK(b.p[3] == 0x12 && b.p[4] == 0xaf && b.p[5] == 0x02);
	CHECK(b.p[6] == 0x1a && b.p[7] == 0xac && b.p[8] == 0x02);
	CHECK(b.p[9] == 'x' && b.p[308] == 'x');
	CHECK(b.p[309] == 0x20 && b.p[310] == 0x01);
	pf_buf_free(&b);
}

TEST(packed)
{
	static const uint64_t v[] = { 3, 270, 86942 };
	struct pf_buf b = { 0 };

	/* The document's packed example: field 4 = [3, 270, 86942]. */
	pf_packed(&b, 4, v, 3);
	CHECK(bytes_are(&b, "2206038e029ea705"));
	b.len = 0;
	pf_packed(&b, 4, v, 0);	/* an empty packed field is left out */
	CHECK(b.len == 0);
	pf_buf_free(&b);
}

TEST(generated_table)
{
	const struct pf_event *e = pf_event_find("sched_switch");

	for (size_t i = 1; i < pf_nevents; i++)
		CHECK(strcmp(pf_events[i - 1].name, pf_events[i].name) < 0);
	CHECK(pf_nevents > 400);
	CHECK(e && e->num == 4 && e->nfields == 7);
	if (e) {
		CHECK_STR(e->fields[0].name, "prev_comm");
		CHECK(e->fields[0].type == PF_STRING);
		CHECK(e->fields[3].num == 4 && e->fields[3].type == PF_INT64);
	}
	e = pf_event_find("print");
	CHECK(e && e->num == 3);
	e = pf_event_find("sched_waking");
	CHECK(e && e->num == 20);
	CHECK(!pf_event_find("no_such_event"));
	CHECK(PF_TRACE_PACKET == 1 && PF_PACKET_FTRACE_EVENTS == 1 && PF_BUNDLE_COMPACT_SCHED == 4);
}

/* ---- a decoder of our own, for the converted file ---- */

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		v |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return v;
	}
	r->bad = true;
	return v;
}

/* Next field: 1 with its number, wire type and (for LEN) the body; 0 at the end. */
static int rd_field(struct rd *r, uint32_t *num, int *wire, struct rd *body, uint64_t *val)
{
	uint64_t tag;

	if (r->p >= r->end || r->bad)
		return 0;
	tag = rd_varint(r);
	*num = (uint32_t)(tag >> 3);
	*wire = (int)(tag & 7);
	if (*wire == 0) {
		*val = rd_varint(r);
	} else if (*wire == 2) {
		uint64_t n = rd_varint(r);

		if (n > (uint64_t)(r->end - r->p)) {
			r->bad = true;
			return 0;
		}
		*body = (struct rd){ r->p, r->p + n, false };
		r->p += n;
	} else {
		r->bad = true;
		return 0;
	}
	return !r->bad;
}

static uint64_t count_varints(struct rd r)
{
	uint64_t n = 0;

	while (r.p < r.end && !r.bad) {
		rd_varint(&r);
		n++;
	}
	return n;
}

struct counts {
	uint64_t packets, bundles, events, compact_switch, compact_waking, threads;
	bool sysinfo, clocks, bad;
};

static void walk_bundle(struct rd b, struct counts *c)
{
	struct rd body;
	uint32_t num;
	int wire;
	uint64_t v;

	c->bundles++;
	while (rd_field(&b, &num, &wire, &body, &v)) {
		if (num == PF_BUNDLE_EVENT) {
			c->events++;
		} else if (num == PF_BUNDLE_COMPACT_SCHED) {
			struct rd f;

			while (rd_field(&body, &num, &wire, &f, &v)) {
				if (num == PF_COMPACT_SWITCH_TIMESTAMP)
					c->compact_switch += count_varints(f);
				if (num == PF_COMPACT_WAKING_TIMESTAMP)
					c->compact_waking += count_varints(f);
			}
			c->bad |= body.bad;
		}
	}
	c->bad |= b.bad;
}

static void walk(const uint8_t *p, size_t n, struct counts *c)
{
	struct rd r = { p, p + n, false }, pkt, body;
	uint32_t num;
	int wire;
	uint64_t v;

	while (rd_field(&r, &num, &wire, &pkt, &v)) {
		c->packets++;
		while (rd_field(&pkt, &num, &wire, &body, &v)) {
			if (num == PF_PACKET_FTRACE_EVENTS)
				walk_bundle(body, c);
			else if (num == PF_PACKET_SYSTEM_INFO)
				c->sysinfo = true;
			else if (num == PF_PACKET_CLOCK_SNAPSHOT)
				c->clocks = true;
			else if (num == PF_PACKET_PROCESS_TREE) {
				struct rd t;

				while (rd_field(&body, &num, &wire, &t, &v))
					c->threads++;
			}
		}
		c->bad |= pkt.bad;
	}
	c->bad |= r.bad;
}

static int convert(const char *path, bool compact, struct counts *c, struct pf_result *res)
{
	struct tfile *tf;
	struct pf_opts o = { .no_compact_sched = !compact };
	FILE *f = tmpfile();
	uint8_t *buf;
	long n;
	int r;

	memset(c, 0, sizeof(*c));
	if (!f)
		return -errno;
	if ((r = tfile_open(path, 0, &tf))) {
		fclose(f);
		return r;
	}
	r = pf_convert(&tf, 1, fileno(f), &o, res);
	tfile_close(tf);
	n = lseek(fileno(f), 0, SEEK_END);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (n > 0 && pread(fileno(f), buf, (size_t)n, 0) == n)
		walk(buf, (size_t)n, c);
	CHECK(n >= 0 && (uint64_t)n == res->bytes);
	free(buf);
	fclose(f);
	return r;
}

TEST(a_converted_file_holds_every_event)
{
	struct pf_result res;
	struct counts c;

	/* report-v6.dat: 73 events, 44 of them sched_switch and 8 sched_waking. */
	CHECK(convert("tests/data/report-v6.dat", true, &c, &res) == 0);
	CHECK(!c.bad && c.sysinfo && c.clocks);
	CHECK(c.packets == res.packets);
	CHECK(c.events + c.compact_switch + c.compact_waking == 73);
	/*
	 * Each CPU's first switch goes whole (trace_processor drops a compact
	 * one), and so do the 9 whose prev_pid is not the CPU's last next_pid
	 * (trace-cmd -F recorded some tasks only): compact would lose it.
	 */
	CHECK(c.compact_switch == 44 - 2 - 9);
	CHECK(res.typed + res.compact + res.generic == 73);
	CHECK(res.compact == c.compact_switch + c.compact_waking);
	CHECK(c.threads >= 4);
	pf_result_free(&res);

	CHECK(convert("tests/data/report-v6.dat", false, &c, &res) == 0);
	CHECK(!c.bad && c.events == 73 && c.compact_switch == 0 && res.compact == 0);
	pf_result_free(&res);

	/* report-lost.dat: 207 events, 2794 lost. */
	CHECK(convert("tests/data/report-lost.dat", true, &c, &res) == 0);
	CHECK(!c.bad && c.events == 207 && res.lost == 2794);
	pf_result_free(&res);
}

TEST(a_write_error_is_returned)
{
	struct tfile *tf;
	struct pf_opts o = { 0 };
	struct pf_result res;

	CHECK(tfile_open("tests/data/report-v7.dat", 0, &tf) == 0);
	if (!tf)
		return;
	CHECK(pf_convert(&tf, 1, -1, &o, &res) == -EBADF);
	pf_result_free(&res);
	tfile_close(tf);
}

UNIT_MAIN(T(varints), T(tags_and_scalars), T(length_delimited), T(nesting_moves_the_body_once),
	  T(packed), T(generated_table), T(a_converted_file_holds_every_event),
	  T(a_write_error_is_returned))
