// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user_events field format (see userfmt.h).  The kernel splits fields on
 * ';' and words on single spaces; this parser takes any run of blanks, and
 * uf_canonical() gives the kernel the single-spaced text it expects.
 * Nothing here allocates: libtr-user links this file too.
 */
#include <errno.h>
#include <string.h>

#include "userfmt.h"

struct word {
	size_t off, len;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_ident(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

static bool word_is(const char *text, const struct word *w, const char *s)
{
	return w->len == strlen(s) && !memcmp(text + w->off, s, w->len);
}

/* A decimal number lo..hi, the whole word. */
static bool decimal(const char *s, size_t n, unsigned long lo, unsigned long hi,
		    unsigned long *out)
{
	unsigned long v = 0;

	if (!n || n > 9)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static const struct {
	const char *name;
	uint8_t size;
} int_types[] = {
	{ "u8", 1 },  { "s8", 1 },  { "char", 1 },  { "unsigned char", 1 },
	{ "u16", 2 }, { "s16", 2 }, { "short", 2 }, { "unsigned short", 2 },
	{ "u32", 4 }, { "s32", 4 }, { "int", 4 },   { "unsigned int", 4 },
	{ "u64", 8 }, { "s64", 8 },
};

/* The size of an integer type given as normalized text, or 0. */
static unsigned int_size(const char *t, size_t n)
{
	for (size_t i = 0; i < sizeof(int_types) / sizeof(int_types[0]); i++)
		if (strlen(int_types[i].name) == n && !memcmp(int_types[i].name, t, n))
			return int_types[i].size;
	return 0;
}

/* The type's words joined by single spaces, into buf (n > 0); returns the full length. */
static size_t join_words(const char *text, const struct word *w, size_t nw, char *buf, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < nw; i++) {
		if (i) {
			if (len + 1 < n)
				buf[len] = ' ';
			len++;
		}
		for (size_t k = 0; k < w[i].len; k++, len++)
			if (len + 1 < n)
				buf[len] = text[w[i].off + k];
	}
	buf[len < n ? len : n - 1] = '\0';
	return len;
}

static int fail(struct uf_error *err, int field, size_t off, size_t len, const char *why)
{
	err->field = field;
	err->off = (uint16_t)off;
	err->len = (uint16_t)len;
	err->why = why;
	return -EINVAL;
}

/*
 * One field: its words, already split.  Fills f (type, name, kind, size) or
 * says why not.
 */
static const char *parse_field(const char *text, const struct word *w, size_t nw,
			       struct uf_field *f)
{
	size_t ntype = 1, need;
	char type[96];
	size_t tlen;

	if (word_is(text, &w[0], "unsigned") || word_is(text, &w[0], "struct"))
		ntype = 2;
	else if (word_is(text, &w[0], "__data_loc") || word_is(text, &w[0], "__rel_loc"))
		ntype = nw > 1 && word_is(text, &w[1], "unsigned") ? 3 : 2;
	need = ntype + 1 + (word_is(text, &w[0], "struct") ? 1 : 0);
	if (nw < ntype)
		return "incomplete type";
	if (nw < ntype + 1)
		return "no field name after the type";
	if (nw > need)
		return word_is(text, &w[0], "struct") ? "too many words: 'struct TYPE name SIZE'"
						      : "too many words (a size is only for 'struct' types)";
	if (nw < need)
		return "a struct field needs its size: 'struct TYPE name SIZE'";

	f->type_off = (uint16_t)w[0].off;
	f->type_len = (uint16_t)(w[ntype - 1].off + w[ntype - 1].len - w[0].off);
	f->name_off = (uint16_t)w[ntype].off;
	f->name_len = (uint16_t)w[ntype].len;
	if (!is_ident(text + f->name_off, f->name_len))
		return "bad field name (letters, digits and '_', not starting with a digit)";
	tlen = join_words(text, w, ntype, type, sizeof(type));
	if (tlen >= sizeof(type))
		return "type too long";
	/* As the kernel: signed unless the type starts with 'u'. */
	f->is_signed = type[0] != 'u';

	if (word_is(text, &w[0], "struct")) {
		unsigned long size;

		if (!is_ident(text + w[1].off, w[1].len))
			return "bad struct type name";
		if (!decimal(text + w[ntype + 1].off, w[ntype + 1].len, 1, 65535, &size))
			return "struct size must be a decimal number 1..65535";
		f->kind = UF_STRUCT;
		f->size = (uint32_t)size;
		return NULL;
	}
	if (!strncmp(type, "__data_loc ", 11) || !strncmp(type, "__rel_loc ", 10)) {
		const char *elem = strchr(type, ' ') + 1;
		size_t elen = strlen(elem);

		if (elen < 3 || strcmp(elem + elen - 2, "[]") || !int_size(elem, elen - 2))
			return "a __data_loc or __rel_loc field is an array of an integer type: "
			       "'__rel_loc char[] name'";
		f->kind = UF_DYN;
		f->rel = type[2] == 'r';
		/* The kernel checks the NUL of any type with "char" in it. */
		f->str = strstr(elem, "char") != NULL;
		f->size = 4;
		return NULL;
	}
	if (strchr(type, '[')) {
		char *open = strchr(type, '[');
		size_t blen = strlen(open);
		unsigned long n;

		if (!(open - type == 4 && !strncmp(type, "char", 4)) &&
		    !(open - type == 13 && !strncmp(type, "unsigned char", 13)))
			return "only char arrays have a fixed size (char[N]); use __rel_loc for others";
		if (blen < 3 || open[blen - 1] != ']' ||
		    !decimal(open + 1, blen - 2, 1, 1024, &n))
			return "array size must be a decimal number 1..1024";
		f->kind = UF_ARRAY;
		f->size = (uint32_t)n;
		return NULL;
	}
	if (!strcmp(type, "long") || !strcmp(type, "unsigned long") || strstr(type, "long"))
		return "'long' differs in size between user space and the kernel: use s64 or u64";
	f->size = int_size(type, tlen);
	if (!f->size)
		return "unknown type (u8..u64, s8..s64, char, short, int, char[N], "
		       "__data_loc/__rel_loc char[], struct NAME SIZE)";
	f->kind = UF_INT;
	return NULL;
}

int uf_parse(const char *fields, struct uf_format *out, struct uf_error *err)
{
	size_t pos = 0, total = strlen(fields);

	out->n = 0;
	out->size = 0;
	if (total >= 65535)
		return fail(err, -1, 0, 0, "format too long");
	while (pos <= total) {
		size_t end = pos, nw = 0;
		struct word w[6];
		bool too_many = false;

		while (end < total && fields[end] != ';')
			end++;
		for (size_t i = pos; i < end;) {
			if (is_blank(fields[i])) {
				i++;
				continue;
			}
			size_t s = i;

			while (i < end && !is_blank(fields[i]))
				i++;
			if (nw < 6)
				w[nw++] = (struct word){ s, i - s };
			else
				too_many = true;
		}
		if (nw) {
			struct uf_field *f;
			const char *why;
			size_t first = w[0].off, last = w[nw - 1].off + w[nw - 1].len;

			if (out->n == UF_MAX_FIELDS)
				return fail(err, (int)out->n, first, last - first, "too many fields");
			f = &out->f[out->n];
			memset(f, 0, sizeof(*f));
			why = too_many ? "too many words" : parse_field(fields, w, nw, f);
			if (why)
				return fail(err, (int)out->n, first, last - first, why);
			for (uint32_t k = 0; k < out->n; k++)
				if (out->f[k].name_len == f->name_len &&
				    !memcmp(fields + out->f[k].name_off, fields + f->name_off, f->name_len))
					return fail(err, (int)out->n, first, last - first,
						    "another field has this name");
			f->offset = out->size;
			out->size += f->size;
			if (out->size > 65535)
				return fail(err, (int)out->n, first, last - first,
					    "the fields add up to more than 64 KiB");
			out->n++;
		}
		pos = end + 1;
	}
	return 0;
}

const char *uf_name_problem(const char *name)
{
	size_t n = strlen(name);

	if (!n)
		return "empty name";
	if (n > UF_NAME_MAX)
		return "name too long (at most 238 bytes)";
	if (!is_ident(name, n))
		return "bad name (letters, digits and '_', not starting with a digit)";
	return NULL;
}

static void append(char *buf, size_t n, size_t *len, const char *s, size_t slen)
{
	for (size_t i = 0; i < slen; i++, (*len)++)
		if (*len + 1 < n)
			buf[*len] = s[i];
}

size_t uf_canonical(const char *fields, const struct uf_format *fmt, char *buf, size_t n)
{
	size_t len = 0;

	for (uint32_t i = 0; i < fmt->n; i++) {
		const struct uf_field *f = &fmt->f[i];
		char t[96], num[16];
		size_t tl;

		if (i)
			append(buf, n, &len, "; ", 2);
		uf_type(fields, f, t, sizeof(t));
		tl = strlen(t);
		append(buf, n, &len, t, tl);
		append(buf, n, &len, " ", 1);
		append(buf, n, &len, fields + f->name_off, f->name_len);
		if (f->kind == UF_STRUCT) {
			int k = (int)sizeof(num);
			uint32_t v = f->size;

			num[--k] = '\0';
			do
				num[--k] = (char)('0' + v % 10);
			while ((v /= 10) && k > 1);
			num[--k] = ' ';
			append(buf, n, &len, num + k, strlen(num + k));
		}
	}
	if (n)
		buf[len < n ? len : n - 1] = '\0';
	return len;
}

void uf_name(const char *fields, const struct uf_field *f, char *buf, size_t n)
{
	size_t l = f->name_len < n ? f->name_len : n - 1;

	memcpy(buf, fields + f->name_off, l);
	buf[l] = '\0';
}

void uf_type(const char *fields, const struct uf_field *f, char *buf, size_t n)
{
	size_t len = 0;
	bool blank = false;

	for (size_t i = f->type_off; i < (size_t)f->type_off + f->type_len; i++) {
		if (is_blank(fields[i])) {
			blank = true;
			continue;
		}
		if (blank && len + 1 < n)
			buf[len++] = ' ';
		blank = false;
		if (len + 1 < n)
			buf[len++] = fields[i];
	}
	buf[len] = '\0';
}

int uf_find(const char *fields, const struct uf_format *fmt, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; i < fmt->n; i++)
		if (fmt->f[i].name_len == n && !memcmp(fields + fmt->f[i].name_off, name, n))
			return (int)i;
	return -1;
}
