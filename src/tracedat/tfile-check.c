// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr dump --validate: every sub-buffer of one buffer's CPU read and
 * walked, each event's id looked up among the file's formats, and the
 * timestamps checked to run forward, without formatting anything.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "tfile-local.h"

struct check_ctx {
	struct tfile *tf;
	const struct tfile_buffer *b;
	struct tfile_check *out;
	uint64_t last_ts;
	bool have_ts;
};

/* Remember the first problem, with where it is: "page N, byte B: what". */
static void problem(struct tfile_check *c, uint64_t page, uint32_t byte, const char *what)
{
	if (c->first_problem[0])
		return;
	snprintf(c->first_problem, sizeof(c->first_problem), "sub-buffer %llu, byte %u: %s",
		 (unsigned long long)page, byte, what);
}

static void check_page(struct check_ctx *x, const uint8_t *p, size_t len)
{
	const struct tfile_layout *l = &x->b->layout;
	struct tfile_check *c = x->out;
	uint64_t page = c->pages++;
	struct tfile_page pg;
	struct tfile_event ev;
	uint32_t bad = 0;
	int r;

	if (tfile_page_load(&pg, l, p, len, &bad)) {
		c->bad_pages++;
		problem(c, page, bad, "commit size past the end of the sub-buffer");
		return;
	}
	if (pg.end <= (uint32_t)l->data_off)
		c->empty_pages++;
	if (pg.missed)
		c->missed_pages++;
	while ((r = tfile_page_next(&pg, &ev, &bad)) == 1) {
		uint16_t id;

		c->events++;
		if (ev.size < 2) {
			c->bad_events++;
			problem(c, page, pg.pos, "an event too short for its id");
			continue;
		}
		id = (uint16_t)tfile_get(ev.data, 2, l->big_endian);
		if (!tep_find_event(tfile_tep(x->tf), id)) {
			c->unknown_ids++;
			problem(c, page, pg.pos, "an event id with no format in the file");
		}
		if (x->have_ts && ev.ts < x->last_ts) {
			c->backwards++;
			problem(c, page, pg.pos, "a timestamp before the one preceding it");
		}
		x->last_ts = ev.ts;
		x->have_ts = true;
	}
	if (r < 0) {
		c->bad_pages++;
		problem(c, page, bad, "a malformed event header");
	}
}

static int check_pages(void *arg, const void *pages, size_t len)
{
	struct check_ctx *x = arg;
	uint32_t ps = x->b->layout.page_size;
	const uint8_t *p = pages;

	for (size_t off = 0; off < len; off += ps)
		check_page(x, p + off, len - off < ps ? len - off : ps);
	x->out->bytes += len;
	return 0;
}

int tfile_check_cpu(struct tfile *tf, int buffer, int cpu_index, struct tfile_check *out)
{
	const struct tfile_buffer *b = tfile_buffer(tf, buffer);
	struct check_ctx x = { .tf = tf, .b = b, .out = out };
	int r;

	memset(out, 0, sizeof(*out));
	if (!b || b->latency || cpu_index < 0 || cpu_index >= b->ncpus)
		return -EINVAL;
	r = tfile_cpu_pages(tf, buffer, cpu_index, check_pages, &x);
	if (r) {
		out->unreadable = true;
		snprintf(out->first_problem, sizeof(out->first_problem), "%s", tr_failure());
	}
	return 0;
}
