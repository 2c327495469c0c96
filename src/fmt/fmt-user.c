// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User events in the kernel's words.  The kernel does not print a user
 * event through its print fmt ("a=%u", REC->a) but field by field
 * (print_event_fields() in kernel/trace/trace_output.c), and that is what
 * its trace file shows: integers as "0x5 (5)", one-byte ones as "'A'(65)",
 * strings as text, byte arrays as "01,02,03", and "<INVALID-SIZE>" for a
 * struct of a size other than 1, 2, 4 or 8.  libtraceevent follows the
 * print fmt instead, so tr prints these events here to say the same as
 * the kernel.
 */
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-local.h"

bool fmt_user_event(const struct tep_event *e)
{
	/* "user_events", "user_events_multi", and the per-group names the ABI
	 * reserves ("operators may change the system name"). */
	return e->system && !strncmp(e->system, "user_events", 11);
}

static void put(struct fmt_line *o, const char *s, size_t n)
{
	fmt_line_grow(o, n);
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void puts_(struct fmt_line *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_hex(struct fmt_line *o, unsigned long long v)
{
	char b[20];
	int n = 0;

	do
		b[sizeof(b) - ++n] = "0123456789abcdef"[v & 15];
	while ((v >>= 4));
	put(o, "0x", 2);
	put(o, b + sizeof(b) - n, (size_t)n);
}

static void put_dec(struct fmt_line *o, long long v)
{
	char b[24];
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	int n = 0;

	do
		b[sizeof(b) - ++n] = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		b[sizeof(b) - ++n] = '-';
	put(o, b + sizeof(b) - n, (size_t)n);
}

/* The kernel's isprint(): ASCII 32..126 and Latin-1 160..255. */
static bool k_isprint(unsigned char c)
{
	return (c >= 32 && c <= 126) || c >= 160;
}

/* "%.*s": up to n bytes, stopping at a NUL. */
static void put_text(struct fmt_line *o, const uint8_t *p, size_t n)
{
	const uint8_t *nul = memchr(p, 0, n);

	put(o, (const char *)p, nul ? (size_t)(nul - p) : n);
}

void fmt_dyn_text(struct fmt_line *o, const uint8_t *p, size_t n, unsigned kver)
{
	bool marks = !kver || kver >= (6 << 8 | 19);
	size_t i = 0;

	while (marks && i < n && (!p[i] || (p[i] >= 0x20 && p[i] < 0x7f)))
		i++;
	if (!marks || i >= n) {
		put_text(o, p, n);
		return;
	}
	for (i = 0; i < n; i++)
		put(o, p[i] >= 0x20 && p[i] < 0x7f ? (const char *)&p[i] : ".", 1);
	put(o, " (", 2);
	for (i = 0; i < n; i++) {
		/* "%02x" of a (signed) char: a byte over 0x7f as an int's eight digits. */
		unsigned v = (unsigned)(int)(signed char)p[i];
		char b[12];

		if (i)
			put(o, ":", 1);
		put(o, b, (size_t)snprintf(b, sizeof(b), "%02x", v));
	}
	put(o, ")", 1);
}

void fmt_user_text(struct tep_handle *tep, struct tep_event *e, const void *data,
		   uint32_t size, unsigned kver, struct fmt_line *out)
{
	const uint8_t *rec = data;
	struct tep_format_field *f = e->format.fields;

	if (!f) {
		puts_(out, "No fields found");
		return;
	}
	for (bool first = true; f; f = f->next, first = false) {
		bool has_char = f->type && strstr(f->type, "char");
		unsigned off = (unsigned)f->offset, sz = (unsigned)f->size;

		if (!first)
			put(out, " ", 1);
		puts_(out, f->name);
		put(out, "=", 1);
		if ((uint64_t)off + sz > size) {
			puts_(out, "<OVERFLOW>");
			continue;
		}
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			/* A location word: length << 16 | offset, from the record's start or,
			 * for __rel_loc, from the end of the word. */
			uint32_t loc = (uint32_t)tep_read_number(tep, rec + off, 4);
			unsigned doff = loc & 0xffff, dlen = loc >> 16;

			if (f->flags & TEP_FIELD_IS_RELATIVE)
				doff += off + 4;
			if ((uint64_t)doff + dlen > size) {
				puts_(out, "<OVERFLOW>");
				continue;
			}
			if (has_char) {
				fmt_dyn_text(out, rec + doff, dlen, kver);
				continue;
			}
			if (sz != 4) {
				puts_(out, "<INVALID-SIZE>");
				continue;
			}
			for (unsigned i = 0; i < dlen; i++) {
				char b[2] = { "0123456789abcdef"[rec[doff + i] >> 4],
					      "0123456789abcdef"[rec[doff + i] & 15] };

				if (i)
					put(out, ",", 1);
				put(out, b, 2);
			}
			continue;
		}
		if (has_char && strchr(f->type, '[')) {
			put_text(out, rec + off, sz);
			continue;
		}
		switch (sz) {
		case 1: {
			unsigned char c = rec[off];

			if (k_isprint(c)) {
				put(out, "'", 1);
				put(out, (const char *)&c, 1);
				put(out, "'", 1);
			}
			put(out, "(", 1);
			put_dec(out, c);
			put(out, ")", 1);
			break;
		}
		case 2:
		case 4:
		case 8: {
			unsigned long long v = tep_read_number(tep, rec + off, (int)sz);

			put_hex(out, v);
			put(out, " (", 2);
			/* "%d" of an unsigned short is the unsigned value; of an unsigned int,
			 * the signed one; "%lld" the signed one. */
			put_dec(out, sz == 2 ? (long long)(unsigned short)v
				     : sz == 4 ? (long long)(int)(unsigned)v : (long long)v);
			put(out, ")", 1);
			break;
		}
		default:
			puts_(out, "<INVALID-SIZE>");
			break;
		}
	}
}
