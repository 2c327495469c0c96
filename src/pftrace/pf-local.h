/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Perfetto writer's private parts (the interface is include/pftrace.h):
 * the protobuf wire encoder and the generated event table.
 *
 * The encoder is the protobuf wire format and nothing more: varints, tags,
 * length-delimited fields (strings, bytes, nested messages) and packed
 * repeated varints, appended to a growable buffer.  A nested message or a
 * packed field is opened with pf_open(), which leaves room for its length,
 * and closed with pf_close(), which writes the length in as few bytes as it
 * needs (moving the body back), so the output is what any protobuf
 * library would write.  Nothing here fails: memory is xrealloc's.
 */
#ifndef TR_PF_LOCAL_H
#define TR_PF_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "pf-schema.h"

struct pf_buf {
	uint8_t *p;
	size_t len, cap;
};

enum { PF_WIRE_VARINT = 0, PF_WIRE_I64 = 1, PF_WIRE_LEN = 2 };

/* The room pf_open() leaves: a length up to 2^35 - 1 fits in 5 varint bytes. */
#define PF_LEN_ROOM 5

void pf_buf_free(struct pf_buf *b);
/* Bytes one varint of v takes (1 to 10). */
int pf_varint_size(uint64_t v);
void pf_varint(struct pf_buf *b, uint64_t v);
void pf_tag(struct pf_buf *b, uint32_t field, int wire);
/* field as a varint; a negative int32/int64 as its 64-bit two's complement (10 bytes). */
void pf_uint(struct pf_buf *b, uint32_t field, uint64_t v);
void pf_int(struct pf_buf *b, uint32_t field, int64_t v);
/* field as 8 little-endian bytes (fixed64): 9 bytes with the tag where a kernel address takes 11. */
void pf_fixed64(struct pf_buf *b, uint32_t field, uint64_t v);
/* Bytes as they are (no tag): for building a field's text. */
void pf_raw(struct pf_buf *b, const void *data, size_t len);
void pf_bytes(struct pf_buf *b, uint32_t field, const void *data, size_t len);
void pf_str(struct pf_buf *b, uint32_t field, const char *s);
/* Open a nested message or packed field; returns the mark pf_close() takes. */
size_t pf_open(struct pf_buf *b, uint32_t field);
void pf_close(struct pf_buf *b, size_t mark);
/* A packed repeated field of varints, whole. */
void pf_packed(struct pf_buf *b, uint32_t field, const uint64_t *v, size_t n);

/* The generated table (pf-events.c): Perfetto's typed ftrace events. */
enum pf_type { PF_INT32, PF_INT64, PF_UINT32, PF_UINT64, PF_STRING, PF_BYTES, PF_BOOL };

struct pf_field {
	const char *name;
	uint32_t num;
	enum pf_type type;
};

struct pf_event {
	const char *name;		/* the kernel's event name */
	uint32_t num;			/* its field in FtraceEvent */
	const struct pf_field *fields;
	uint32_t nfields;
};

extern const struct pf_event pf_events[];
extern const size_t pf_nevents;

/* The typed event of that name, or NULL (binary search). */
const struct pf_event *pf_event_find(const char *name);

#endif
