/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The field format of a user event ("u32 count; __rel_loc char[] msg"):
 * parsed by the same rules the kernel applies, into the layout of the
 * payload a write carries after its write_index.
 *
 * Pure and allocation-free (no tr.h), because two programs use it: tr,
 * which checks a format before registering it and encodes values typed on
 * the command line, and the application library (libtr-user), which encodes
 * C values.  Errors come back as a struct uf_error naming the bad field and
 * why, for the caller to word.
 *
 * Field types, as the kernel takes them (type name [size]):
 *   u8 s8 u16 s16 u32 s32 u64 s64, char short int (and "unsigned" forms)
 *   char[N], unsigned char[N]        fixed arrays, N <= 1024, shown as text
 *   __data_loc TYPE[] / __rel_loc TYPE[]  a 32-bit location word (length << 16
 *                                    | offset), the data after the fixed part;
 *                                    char ones are NUL-terminated strings
 *   struct NAME name SIZE            SIZE opaque bytes
 * "long" is refused: its size differs between user space and the kernel.
 */
#ifndef TR_USERFMT_H
#define TR_USERFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for any format that fits the kernel's 512-byte description. */
#define UF_MAX_FIELDS 128
/* The longest event name: the tracepoint name "NAME.<16 hex digits>" of a
 * multi-format event must still be a valid tracefs file name (255). */
#define UF_NAME_MAX 238

enum uf_kind {
	UF_INT,		/* an integer of 1, 2, 4 or 8 bytes */
	UF_ARRAY,	/* char[N]: fixed text */
	UF_DYN,		/* __data_loc / __rel_loc: a location word */
	UF_STRUCT,	/* struct NAME SIZE: opaque bytes */
};

struct uf_field {
	/* Where the type ("unsigned int", "__rel_loc char[]", "struct pt")
	 * and the name are in the text given to uf_parse(). */
	uint16_t type_off, type_len;
	uint16_t name_off, name_len;
	uint8_t kind;		/* enum uf_kind */
	bool is_signed;		/* as the kernel decides it: type does not start with 'u' */
	bool rel;		/* UF_DYN: __rel_loc (offset from the end of the word) */
	bool str;		/* UF_DYN: of char, a NUL-terminated string */
	uint32_t size;		/* bytes in the fixed part */
	uint32_t offset;	/* from the start of the payload */
};

struct uf_format {
	uint32_t n;
	uint32_t size;		/* the fixed part, the smallest payload the kernel takes */
	struct uf_field f[UF_MAX_FIELDS];
};

struct uf_error {
	int field;		/* 0-based index of the bad field; -1: the whole format */
	uint16_t off, len;	/* its text */
	const char *why;	/* "unknown type 'long'", ... (static) */
};

/*
 * Parse FIELDS (the part after the name; may be empty).  0, or -EINVAL with
 * err filled.  Empty fields (";;", a trailing ';') are skipped, as the
 * kernel does.  Field names must be C identifiers and distinct (stricter
 * than the kernel, which takes anything: filters and hist keys need names).
 */
int uf_parse(const char *fields, struct uf_format *out, struct uf_error *err);

/* NULL if NAME can be a user event's name, else why not (static text). */
const char *uf_name_problem(const char *name);

/*
 * The canonical text of a parsed format, as the kernel's dynamic_events
 * shows it ("u32 a; struct pt p 8"), which is also what it matches a
 * registration against: the length it needs (without the NUL); writes at
 * most n bytes, NUL included.
 */
size_t uf_canonical(const char *fields, const struct uf_format *fmt, char *buf, size_t n);

/* Copy field i's name or type into buf (NUL-terminated, truncated to n). */
void uf_name(const char *fields, const struct uf_field *f, char *buf, size_t n);
void uf_type(const char *fields, const struct uf_field *f, char *buf, size_t n);

/* The field called NAME, or -1. */
int uf_find(const char *fields, const struct uf_format *fmt, const char *name);

#endif
