// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * HTTP request heads as RFC 9112 has them, reduced to what a scraper
 * sends: see include/http.h.  Every byte is the peer's: lengths are
 * checked before they are used, nothing is copied without a bound, and
 * the answer to anything unexpected is a status, never a guess.
 */
#include <string.h>
#include <strings.h>

#include "http.h"

static bool tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The end of the head: the offset past its empty line, 0 if not there yet. */
static size_t head_end(const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (b[i] != '\n')
			continue;
		if (i + 1 < len && b[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && b[i + 1] == '\r' && b[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* One line of [p, end): its length without CR LF (or LF); *next past it. */
static size_t line(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n;

	if (!nl)
		nl = end;
	*next = nl < end ? nl + 1 : end;
	n = (size_t)(nl - p);
	if (n && p[n - 1] == '\r')
		n--;
	return n;
}

static bool named(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && !strncasecmp(s, name, n);
}

/* Does the comma list v (n bytes) hold token t, in any case? */
static bool has_token(const char *v, size_t n, const char *t)
{
	size_t tl = strlen(t);

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		j = i;
		while (j < n && v[j] != ',')
			j++;
		size_t k = j;

		while (k > i && (v[k - 1] == ' ' || v[k - 1] == '\t'))
			k--;
		if (k - i == tl && !strncasecmp(v + i, t, tl))
			return true;
		i = j;
	}
	return false;
}

static int request_line(const char *p, size_t n, struct http_req *r)
{
	const char *sp1 = memchr(p, ' ', n), *sp2, *t, *q;
	size_t ml, tl, vl;

	if (!sp1)
		return -400;
	ml = (size_t)(sp1 - p);
	for (size_t i = 0; i < ml; i++)
		if (!tchar((unsigned char)p[i]))
			return -400;
	if (!ml)
		return -400;
	t = sp1 + 1;
	sp2 = memchr(t, ' ', n - ml - 1);
	if (!sp2)
		return -400;
	tl = (size_t)(sp2 - t);
	vl = n - ml - 1 - tl - 1;
	/* The version first: a request of another major is not read further. */
	if (vl != 8 || memcmp(sp2 + 1, "HTTP/", 5) || sp2[6] < '0' || sp2[6] > '9' ||
	    sp2[7] != '.' || sp2[8] < '0' || sp2[8] > '9')
		return -400;
	if (sp2[6] != '1' || (sp2[8] != '0' && sp2[8] != '1'))
		return -505;
	r->minor = sp2[8] - '0';
	if (ml == 3 && !memcmp(p, "GET", 3))
		r->method = HTTP_GET;
	else if (ml == 4 && !memcmp(p, "HEAD", 4))
		r->method = HTTP_HEAD;
	else
		return -405;
	if (!tl)
		return -400;
	for (size_t i = 0; i < tl; i++)
		if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f)
			return -400;
	if (t[0] != '/')
		return t[0] == '*' || memchr(t, ':', tl) ? -501 : -400;
	if (tl > HTTP_MAX_TARGET)
		return -414;
	q = memchr(t, '?', tl);
	if (q) {
		memcpy(r->path, t, (size_t)(q - t));
		r->path[q - t] = '\0';
		memcpy(r->query, q + 1, tl - (size_t)(q - t) - 1);
		r->query[tl - (size_t)(q - t) - 1] = '\0';
	} else {
		memcpy(r->path, t, tl);
		r->path[tl] = '\0';
	}
	return 0;
}

int http_parse(const char *buf, size_t len, struct http_req *r)
{
	size_t end, n, room;
	const char *orig = buf, *p, *stop, *next;
	int nfields = 0, rc;
	bool host = false, length = false, close = false, keep = false;

	memset(r, 0, sizeof(*r));
	/* Empty lines before the request line are skipped (RFC 9112 2.2). */
	while (len && (buf[0] == '\r' || buf[0] == '\n') && buf - orig < HTTP_MAX_HEAD) {
		size_t skip = buf[0] == '\r' ? (len > 1 && buf[1] == '\n' ? 2 : 0) : 1;

		if (!skip)
			break;
		buf += skip;
		len -= skip;
	}
	/* The skipped lines count toward the bound too. */
	room = HTTP_MAX_HEAD - (size_t)(buf - orig);
	end = head_end(buf, len < room ? len : room);
	if (!end)
		return len >= room ? -431 : 0;
	p = buf;
	stop = buf + end;
	n = line(p, stop, &next);
	rc = request_line(p, n, r);
	if (rc)
		return rc;
	for (p = next; p < stop; p = next) {
		const char *colon, *v;
		size_t nl, vl;

		n = line(p, stop, &next);
		if (!n)
			break;
		if (++nfields > HTTP_MAX_FIELDS)
			return -431;
		/* A continuation line (obs-fold) or a space before the colon. */
		if (p[0] == ' ' || p[0] == '\t')
			return -400;
		colon = memchr(p, ':', n);
		if (!colon || colon == p)
			return -400;
		nl = (size_t)(colon - p);
		for (size_t i = 0; i < nl; i++)
			if (!tchar((unsigned char)p[i]))
				return -400;
		v = colon + 1;
		vl = n - nl - 1;
		for (size_t i = 0; i < vl; i++)
			if (((unsigned char)v[i] < 0x20 && v[i] != '\t') || v[i] == 0x7f)
				return -400;
		while (vl && (*v == ' ' || *v == '\t'))
			v++, vl--;
		while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			vl--;
		if (named(p, nl, "Host")) {
			if (host)
				return -400;
			host = true;
		} else if (named(p, nl, "Content-Length")) {
			if (length || vl != 1 || v[0] != '0')
				return -400;
			length = true;
		} else if (named(p, nl, "Transfer-Encoding")) {
			return -400;
		} else if (named(p, nl, "Connection")) {
			close |= has_token(v, vl, "close");
			keep |= has_token(v, vl, "keep-alive");
		} else if (named(p, nl, "Accept")) {
			/* A second Accept field would be joined to the first: the first rules. */
			if (!r->accept) {
				r->accept = v;
				r->accept_len = vl;
			}
		} else if (named(p, nl, "Authorization")) {
			if (r->authorization)
				return -400;
			r->authorization = v;
			r->authorization_len = vl;
		}
	}
	/* A 1.1 request without Host is refused (RFC 9112 3.2). */
	if (r->minor == 1 && !host)
		return -400;
	r->keep_alive = r->minor == 1 ? !close : keep && !close;
	return (int)(stop - orig);
}

/* ---- content negotiation ---- */

/* q of one media range's parameters ("; version=1.0.0; q=0.5"): 1000ths. */
static int qvalue(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != ';')
			continue;
		size_t j = i + 1;

		while (j < n && (s[j] == ' ' || s[j] == '\t'))
			j++;
		if (j + 1 < n && (s[j] == 'q' || s[j] == 'Q') && s[j + 1] == '=') {
			int q = 0, d = 0;

			j += 2;
			if (j < n && (s[j] == '0' || s[j] == '1'))
				q = (s[j++] - '0') * 1000;
			else
				return 0;
			if (j < n && s[j] == '.')
				for (j++, d = 100; j < n && s[j] >= '0' && s[j] <= '9' && d; j++, d /= 10)
					q += (s[j] - '0') * d;
			return q > 1000 ? 1000 : q;
		}
	}
	return 1000;
}

enum http_expo http_negotiate(const char *accept, size_t n)
{
	int om = -1, text = -1;

	for (size_t i = 0; accept && i < n;) {
		size_t j = i, k;
		const char *m;

		while (j < n && accept[j] != ',')
			j++;
		while (i < j && (accept[i] == ' ' || accept[i] == '\t'))
			i++;
		m = accept + i;
		for (k = 0; i + k < j && m[k] != ';' && m[k] != ' ' && m[k] != '\t'; k++)
			;
		int q = qvalue(m, j - i);

		if (named(m, k, "application/openmetrics-text")) {
			if (q > om)
				om = q;
		} else if (named(m, k, "text/plain") || named(m, k, "text/*") ||
			   named(m, k, "*/*")) {
			if (q > text)
				text = q;
		}
		i = j + 1;
	}
	return om > 0 && om >= text ? HTTP_EXPO_OPENMETRICS : HTTP_EXPO_TEXT;
}

const char *http_expo_type(enum http_expo e)
{
	return e == HTTP_EXPO_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; "
					    "charset=utf-8"
					  : "text/plain; version=0.0.4; charset=utf-8";
}

const char *http_reason(int status)
{
	static const struct {
		int code;
		const char *why;
	} t[] = {
		{ 200, "OK" },
		{ 400, "Bad Request" },
		{ 401, "Unauthorized" },
		{ 403, "Forbidden" },
		{ 404, "Not Found" },
		{ 405, "Method Not Allowed" },
		{ 408, "Request Timeout" },
		{ 414, "URI Too Long" },
		{ 431, "Request Header Fields Too Large" },
		{ 500, "Internal Server Error" },
		{ 501, "Not Implemented" },
		{ 503, "Service Unavailable" },
		{ 505, "HTTP Version Not Supported" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].code == status)
			return t[i].why;
	return "Error";
}
