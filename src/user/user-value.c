// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pure parts of the user events layer (see user.h): reading
 * user_events_status, and laying out values typed on the command line as
 * the payload the kernel expects.  No tracefs here, so all of it is
 * unit-tested.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user.h"

void uev_status_free(struct uev_status *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].tracepoint);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/*
 * The kernel writes one line per event, "NAME" or "NAME # Used by ftrace
 * perf", then a blank line, "Active: N" and "Busy: N".
 */
int uev_status_parse(const char *text, struct uev_status *out)
{
	char *copy = xstrdup(text), *line, *save = NULL;
	bool counts = false;
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (line = strtok_r(copy, "\n", &save); line && !r; line = strtok_r(NULL, "\n", &save)) {
		int v;

		str_rstrip(line);
		if (!*line)
			continue;
		if (sscanf(line, "Active: %d", &v) == 1) {
			out->active = v, counts = true;
			continue;
		}
		if (sscanf(line, "Busy: %d", &v) == 1) {
			out->busy = v, counts = true;
			continue;
		}
		if (counts || isspace((unsigned char)*line)) {
			r = tr_fail(-EINVAL, "unexpected line in user_events_status: '%s'", line);
			break;
		}
		char *hash = strstr(line, " #");
		unsigned used = 0;

		if (hash) {
			char *w, *wsave = NULL;

			*hash = '\0';
			for (w = strtok_r(hash + 2, " ", &wsave); w; w = strtok_r(NULL, " ", &wsave)) {
				if (!strcmp(w, "ftrace"))
					used |= UEV_FTRACE;
				else if (!strcmp(w, "perf"))
					used |= UEV_PERF;
				else if (!strcmp(w, "other"))
					used |= UEV_OTHER;
			}
		}
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n].tracepoint = xstrdup(line);
		out->v[out->n].used_by = used;
		out->n++;
	}
	free(copy);
	if (r)
		uev_status_free(out);
	return r;
}

const char *uev_used_by_text(unsigned used_by)
{
	static const char *const text[8] = {
		"", "ftrace", "perf", "ftrace, perf",
		"another tracer", "ftrace and another tracer", "perf and another tracer",
		"ftrace, perf and another tracer",
	};

	return text[used_by & 7];
}

bool uev_multi_split(const char *tracepoint, char *name, size_t n)
{
	const char *dot = strrchr(tracepoint, '.');
	size_t len = dot ? (size_t)(dot - tracepoint) : strlen(tracepoint);
	bool multi = dot && dot[1] && strspn(dot + 1, "0123456789abcdefABCDEF") == strlen(dot + 1);

	if (!multi)
		len = strlen(tracepoint);
	if (n) {
		if (len >= n)
			len = n - 1;
		memcpy(name, tracepoint, len);
		name[len] = '\0';
	}
	return multi;
}

void uev_buf_free(struct uev_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

/* Decimal or 0x hex, a leading '-' only for signed types; fits size bytes. */
static int parse_int_value(const char *s, unsigned size, bool is_signed, uint64_t *out,
			   const char **range)
{
	static const char *const uranges[9] = { NULL, "0..255", "0..65535", NULL, "0..4294967295",
						NULL, NULL, NULL, "0..18446744073709551615" };
	static const char *const sranges[9] = { NULL, "-128..127", "-32768..32767", NULL,
						"-2147483648..2147483647", NULL, NULL, NULL,
						"-9223372036854775808..9223372036854775807" };
	bool neg = *s == '-';
	const char *d = neg ? s + 1 : s;
	int base = 10;
	uint64_t v = 0, max;

	*range = is_signed ? sranges[size] : uranges[size];
	if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
		base = 16, d += 2;
	if (!*d)
		return -EINVAL;
	for (; *d; d++) {
		int dig;

		if (*d >= '0' && *d <= '9')
			dig = *d - '0';
		else if (base == 16 && isxdigit((unsigned char)*d))
			dig = tolower((unsigned char)*d) - 'a' + 10;
		else
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)dig) / (uint64_t)base)
			return -ERANGE;
		v = v * (uint64_t)base + (uint64_t)dig;
	}
	if (neg && !is_signed)
		return -ERANGE;
	if (is_signed) {
		uint64_t lim = (uint64_t)1 << (size * 8 - 1);	/* |min|; max is lim - 1 */

		if (neg ? v > lim : v > lim - 1)
			return -ERANGE;
		v = neg ? (uint64_t)0 - v : v;
	} else {
		max = size == 8 ? UINT64_MAX : ((uint64_t)1 << (size * 8)) - 1;
		if (v > max)
			return -ERANGE;
	}
	*out = v;
	return 0;
}

/* Hex bytes, "01,02,ff" (as the kernel prints arrays) or "0102ff". */
static int parse_hex_bytes(const char *s, uint8_t **out, size_t *n)
{
	size_t cap = strlen(s) / 2 + 1, len = 0;
	uint8_t *b = xmalloc(cap);

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	while (*s) {
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1])) {
			free(b);
			return -EINVAL;
		}
		char pair[3] = { s[0], s[1], 0 };

		b[len++] = (uint8_t)strtoul(pair, NULL, 16);
		s += 2;
		if (*s == ',' && s[1])
			s++;
	}
	*out = b;
	*n = len;
	return 0;
}

int uev_encode_values(const char *event, const char *fields, const struct uf_format *fmt,
		      const struct strv *assignments, size_t max_event, struct uev_buf *out)
{
	const char **value = xcalloc(fmt->n ? fmt->n : 1, sizeof(*value));
	size_t cap = fmt->size + 64, len = fmt->size;
	uint8_t *p = xcalloc(1, cap);
	char fname[128], ftype[96];
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < assignments->n && !r; i++) {
		const char *a = assignments->v[i], *eq = strchr(a, '=');
		char name[128];
		int k;

		if (!eq || eq == a) {
			r = tr_fail(-EINVAL, "bad value '%s' for user event '%s': FIELD=VALUE", a, event);
			break;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - a), a);
		k = uf_find(fields, fmt, name);
		if (k < 0) {
			r = tr_fail(-EINVAL, "user event '%s' has no field '%s'", event, name);
			break;
		}
		if (value[k]) {
			r = tr_fail(-EINVAL, "field '%s' of user event '%s' is given twice", name, event);
			break;
		}
		value[k] = eq + 1;
	}
	for (uint32_t i = 0; i < fmt->n && !r; i++) {
		const struct uf_field *f = &fmt->f[i];
		const char *v = value[i] ? value[i] : NULL;
		uint8_t *bytes = NULL;
		size_t nb = 0;

		uf_name(fields, f, fname, sizeof(fname));
		uf_type(fields, f, ftype, sizeof(ftype));
		switch (f->kind) {
		case UF_INT: {
			uint64_t x = 0;
			const char *range;
			int e = v ? parse_int_value(v, f->size, f->is_signed, &x, &range) : 0;

			if (e == -ERANGE)
				r = tr_fail(-ERANGE, "value '%s' of field '%s' is out of range for %s (%s)",
					    v, fname, ftype, range);
			else if (e)
				r = tr_fail(-EINVAL, "value '%s' of field '%s' is not a number (%s)", v,
					    fname, ftype);
			else if (f->size == 1)
				p[f->offset] = (uint8_t)x;
			else if (f->size == 2)
				memcpy(p + f->offset, &(uint16_t){ (uint16_t)x }, 2);
			else if (f->size == 4)
				memcpy(p + f->offset, &(uint32_t){ (uint32_t)x }, 4);
			else
				memcpy(p + f->offset, &x, 8);
			break;
		}
		case UF_ARRAY:
			if (v && strlen(v) > f->size - 1)
				r = tr_fail(-E2BIG, "string of %zu bytes is too long for field '%s' (%s: at most %u)",
					    strlen(v), fname, ftype, f->size - 1);
			else if (v)
				memcpy(p + f->offset, v, strlen(v));
			break;
		case UF_STRUCT:
			if (v && parse_hex_bytes(v, &bytes, &nb))
				r = tr_fail(-EINVAL, "value '%s' of field '%s' is not hex bytes (%s %u: \"01,02,...\")",
					    v, fname, ftype, f->size);
			else if (nb > f->size)
				r = tr_fail(-E2BIG, "%zu bytes are too many for field '%s' (%s: %u bytes)",
					    nb, fname, ftype, f->size);
			else if (nb)
				memcpy(p + f->offset, bytes, nb);
			break;
		case UF_DYN: {
			size_t at = len, dl;

			if (f->str) {
				dl = (v ? strlen(v) : 0) + 1;
			} else if (v && parse_hex_bytes(v, &bytes, &nb)) {
				r = tr_fail(-EINVAL, "value '%s' of field '%s' is not hex bytes (%s: \"01,02,...\")",
					    v, fname, ftype);
				break;
			} else {
				dl = nb;
			}
			if (8 + len + dl > max_event || len + dl > 0xffff) {
				r = tr_fail(-E2BIG, "value of field '%s' is too long: the event would be %zu bytes, "
					    "the ring buffer takes at most %zu", fname, 8 + len + dl, max_event);
				break;
			}
			if (len + dl > cap) {
				size_t old = cap;

				cap = (len + dl) * 2;
				p = xrealloc(p, cap);
				memset(p + old, 0, cap - old);
			}
			if (f->str && v)
				memcpy(p + at, v, dl - 1);
			else if (!f->str && nb)
				memcpy(p + at, bytes, nb);
			len += dl;
			/* __data_loc counts from the record's start (after its 8-byte header is
			 * prepended), __rel_loc from the end of the location word. */
			uint32_t off = f->rel ? (uint32_t)(at - (f->offset + 4)) : (uint32_t)(at + 8);
			uint32_t loc = (uint32_t)dl << 16 | (off & 0xffff);

			memcpy(p + f->offset, &loc, 4);
			break;
		}
		}
		free(bytes);
	}
	if (!r && 8 + len > max_event)
		r = tr_fail(-E2BIG, "user event '%s' is %zu bytes, the ring buffer takes at most %zu",
			    event, 8 + len, max_event);
	free(value);
	if (r) {
		free(p);
		return r;
	}
	out->p = p;
	out->len = len;
	return 0;
}

int uev_split_line(const char *line, struct strv *out)
{
	const char *s = line;

	while (*s) {
		char *w, *o;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		w = o = xmalloc(strlen(s) + 1);
		while (*s && *s != ' ' && *s != '\t') {
			if (*s == '"') {
				for (s++; *s && *s != '"'; s++) {
					if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
						s++;
					*o++ = *s;
				}
				if (*s != '"') {
					free(w);
					return tr_fail(-EINVAL, "unclosed quote in '%s'", line);
				}
				s++;
			} else {
				*o++ = *s++;
			}
		}
		*o = '\0';
		strv_push_owned(out, w);
	}
	return 0;
}
