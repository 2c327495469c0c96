// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JSON string writer (see json.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tr.h"

size_t utf8_len(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t len;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;	/* continuation byte, overlong lead, or beyond U+10FFFF */
	len = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = p[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t json_escape(char *dst, const char *src, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)src;
	char *d = dst;

	*d++ = '"';
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t u;

		if (c == '"' || c == '\\') {
			*d++ = '\\';
			*d++ = c;
		} else if (c >= 0x20 && c < 0x7f) {
			*d++ = c;
		} else if (c >= 0x80 && (u = utf8_len(p + i, n - i))) {
			memcpy(d, p + i, u);
			d += u;
			i += u;
			continue;
		} else if (c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f') {
			*d++ = '\\';
			*d++ = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : c == '\b' ? 'b' : 'f';
		} else {
			memcpy(d, "\\u00", 4);
			d += 4;
			*d++ = hex[c >> 4];
			*d++ = hex[c & 15];
		}
		i++;
	}
	*d++ = '"';
	return d - dst;
}

void json_fputs(FILE *f, const char *s)
{
	char small[256], *buf;
	size_t n = s ? strlen(s) : 0, len;

	buf = JSON_ESCAPED_MAX(n) <= sizeof(small) ? small : malloc(JSON_ESCAPED_MAX(n));
	if (!buf) {
		fputs("\"\"", f);
		return;
	}
	len = json_escape(buf, s ? s : "", n);
	fwrite(buf, 1, len, f);
	if (buf != small)
		free(buf);
}

size_t csv_quote(char *dst, const char *p, size_t n)
{
	size_t len = 0;

	if (!memchr(p, ',', n) && !memchr(p, '"', n) && !memchr(p, '\n', n) &&
	    !memchr(p, '\r', n)) {
		memcpy(dst, p, n);
		return n;
	}
	dst[len++] = '"';
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '"')
			dst[len++] = '"';
		dst[len++] = p[i];
	}
	dst[len++] = '"';
	return len;
}

void csv_fputs(FILE *f, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	char *q;

	if (!n)
		return;
	q = xmalloc(CSV_QUOTED_MAX(n));
	fwrite(q, 1, csv_quote(q, s, n), f);
	free(q);
}
