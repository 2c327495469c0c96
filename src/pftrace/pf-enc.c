// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The protobuf wire encoder (pf-local.h): the few functions Perfetto's
 * TracePacket format needs, and the look-up in the generated event table.
 */
#include <stdlib.h>
#include <string.h>

#include "pf-local.h"
#include "tr.h"

void pf_buf_free(struct pf_buf *b)
{
	free(b->p);
	*b = (struct pf_buf){ 0 };
}

static uint8_t *room(struct pf_buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	return b->p + b->len;
}

int pf_varint_size(uint64_t v)
{
	int n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

void pf_varint(struct pf_buf *b, uint64_t v)
{
	uint8_t *p = room(b, 10);

	b->len += put_varint(p, v);
}

void pf_tag(struct pf_buf *b, uint32_t field, int wire)
{
	pf_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void pf_uint(struct pf_buf *b, uint32_t field, uint64_t v)
{
	pf_tag(b, field, PF_WIRE_VARINT);
	pf_varint(b, v);
}

void pf_int(struct pf_buf *b, uint32_t field, int64_t v)
{
	pf_uint(b, field, (uint64_t)v);
}

void pf_fixed64(struct pf_buf *b, uint32_t field, uint64_t v)
{
	uint8_t *p;

	pf_tag(b, field, PF_WIRE_I64);
	p = room(b, 8);
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	b->len += 8;
}

void pf_raw(struct pf_buf *b, const void *data, size_t len)
{
	if (len) {
		memcpy(room(b, len), data, len);
		b->len += len;
	}
}

void pf_bytes(struct pf_buf *b, uint32_t field, const void *data, size_t len)
{
	pf_tag(b, field, PF_WIRE_LEN);
	pf_varint(b, len);
	pf_raw(b, data, len);
}

void pf_str(struct pf_buf *b, uint32_t field, const char *s)
{
	pf_bytes(b, field, s, strlen(s));
}

size_t pf_open(struct pf_buf *b, uint32_t field)
{
	size_t mark;

	pf_tag(b, field, PF_WIRE_LEN);
	mark = b->len;
	room(b, PF_LEN_ROOM);
	b->len += PF_LEN_ROOM;
	return mark;
}

/*
 * Write the length of what follows mark in its place, in the fewest bytes:
 * the body moves back by the room not used.  Note that Perfetto's decoder
 * would take a padded length too, but protoc-built readers and the output's
 * size are better served by the usual form.
 */
void pf_close(struct pf_buf *b, size_t mark)
{
	size_t body = mark + PF_LEN_ROOM, len = b->len - body;
	size_t n = put_varint(b->p + mark, len);

	if (n < PF_LEN_ROOM) {
		memmove(b->p + mark + n, b->p + body, len);
		b->len -= PF_LEN_ROOM - n;
	}
}

void pf_packed(struct pf_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += pf_varint_size(v[i]);
	pf_tag(b, field, PF_WIRE_LEN);
	pf_varint(b, len);
	room(b, len);
	for (size_t i = 0; i < n; i++)
		b->len += put_varint(b->p + b->len, v[i]);
}

static int cmp_event(const void *key, const void *elem)
{
	return strcmp(key, ((const struct pf_event *)elem)->name);
}

const struct pf_event *pf_event_find(const char *name)
{
	return bsearch(name, pf_events, pf_nevents, sizeof(pf_events[0]), cmp_event);
}
