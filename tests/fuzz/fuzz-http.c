// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the metrics endpoint's reading of a request (http_parse()),
 * every prefix of the input as it arrives, and the Accept header's
 * negotiation and the Basic credentials' decoding (http_basic_parse())
 * over the same bytes.  What comes back must be what the
 * parser promises: a length within the input, the path a NUL-ended string
 * starting with '/' within its bound, the fields it points to inside the
 * input, a refusal one of the statuses it names, and a complete head not
 * made incomplete by more bytes, and credentials NUL-ended within their
 * buffers.  Its corpus is regress/http/
 * (tests/fuzz/make-http-seeds.py).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool inside(const char *p, size_t n, const uint8_t *data, size_t size)
{
	return !p || ((const uint8_t *)p >= data && (const uint8_t *)p + n <= data + size);
}

/* Decoded credentials fit their buffers, NUL-ended, the user without a ':'. */
static void basic(const char *hdr, size_t len)
{
	char user[32], pass[64];

	if (http_basic_parse(hdr, len, user, sizeof(user), pass, sizeof(pass)))
		return;
	if (strnlen(user, sizeof(user)) == sizeof(user) || strnlen(pass, sizeof(pass)) == sizeof(pass) ||
	    strchr(user, ':'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_req r;
	int first = 0;

	for (size_t len = 0; len <= size; len += len < 64 ? 1 : 37) {
		int n = http_parse((const char *)data, len, &r);

		if (n > 0) {
			if ((size_t)n > len || strlen(r.path) > HTTP_MAX_TARGET || r.path[0] != '/' ||
			    strlen(r.query) > HTTP_MAX_TARGET || (r.minor != 0 && r.minor != 1) ||
			    !inside(r.accept, r.accept_len, data, len) ||
			    !inside(r.authorization, r.authorization_len, data, len))
				abort();
			if (!first)
				first = n;
			else if (n != first)
				abort();	/* more bytes changed a complete head */
			(void)http_negotiate(r.accept, r.accept_len);
			if (r.authorization)
				basic(r.authorization, r.authorization_len);
		} else if (n < 0) {
			if (n != -400 && n != -405 && n != -414 && n != -431 && n != -501 && n != -505)
				abort();
		} else if (first || len >= HTTP_MAX_HEAD) {
			abort();
		}
	}
	(void)http_negotiate((const char *)data, size);
	basic((const char *)data, size);
	return 0;
}
