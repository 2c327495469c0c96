// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Basic authentication for the metrics endpoint (http.h): users and
 * crypt(3) hashes from a file in htpasswd's format ("USER:HASH" lines, as
 * `htpasswd -B` or `openssl passwd -6` make them), checked with
 * libcrypt's crypt_r (bcrypt, yescrypt, SHA-512 ...).
 *
 * A hash costs tens of milliseconds by design, on the server's one
 * thread, so what a peer can make it spend is bounded: a header once
 * accepted is remembered by its digest (a scraper sends the same one every
 * time), and at most AUTH_CHECKS_PER_S hashes are computed a second; past
 * that a request is refused unchecked.  An unknown user costs a hash too,
 * so that timing does not tell which users exist.
 */
#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "http.h"
#include "net-local.h"
#include "tr.h"

#define AUTH_FILE_MAX 65536
#define AUTH_MAX_USERS 1000
#define AUTH_REMEMBERED 8
#define AUTH_CHECKS_PER_S 4

struct user {
	char *name, *hash;
};

struct http_auth {
	struct user *u;
	size_t n;
	unsigned char ok[AUTH_REMEMBERED][32];	/* SHA-256 of headers accepted */
	size_t nok, next_ok;
	uint64_t window_ms;			/* the second the checks are counted in */
	int checks;
};

int http_basic_parse(const char *hdr, size_t len, char *user, size_t ulen, char *pass,
		     size_t plen)
{
	unsigned char dec[HTTP_MAX_HEAD];
	const char *p = hdr, *end = hdr + len, *colon;
	int n;

	if (len < 6 || strncasecmp(p, "Basic ", 6))
		return -EINVAL;
	p += 6;
	while (p < end && *p == ' ')
		p++;
	while (end > p && end[-1] == ' ')
		end--;
	/* Base64 in groups of 4; EVP_DecodeBlock pads each group's missing bytes with zeros. */
	if ((end - p) % 4 || end - p > (long)(sizeof(dec) / 3 * 4))
		return -EINVAL;
	n = EVP_DecodeBlock(dec, (const unsigned char *)p, (int)(end - p));
	if (n < 0)
		return -EINVAL;
	for (const char *q = end; q > p && q[-1] == '='; q--)
		n--;
	colon = memchr(dec, ':', (size_t)n);
	if (!colon || memchr(dec, '\0', (size_t)n))
		return -EINVAL;
	if ((size_t)(colon - (char *)dec) >= ulen || (size_t)(n - (colon - (char *)dec) - 1) >= plen)
		return -E2BIG;
	memcpy(user, dec, (size_t)(colon - (char *)dec));
	user[colon - (char *)dec] = '\0';
	memcpy(pass, colon + 1, (size_t)(n - (colon - (char *)dec) - 1));
	pass[n - (colon - (char *)dec) - 1] = '\0';
	OPENSSL_cleanse(dec, sizeof(dec));
	return 0;
}

void http_auth_free(struct http_auth *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->u[i].name);
		free(a->u[i].hash);
	}
	free(a->u);
	free(a);
}

/* One "USER:HASH" line (NUL-ended, no newline) into a, or -EINVAL naming it by number. */
static int add_line(struct http_auth *a, char *line, const char *path, int no)
{
	char *colon = strchr(line, ':'), *hash;

	if (!colon || colon == line)
		return tr_fail(-EINVAL, "%s:%d: want USER:HASH", path, no);
	*colon = '\0';
	hash = colon + 1;
	if (hash[0] != '$' || crypt_checksalt(hash) != CRYPT_SALT_OK)
		return tr_fail(-EINVAL, "%s:%d: '%s' has no crypt(3) hash this libcrypt knows "
					"(htpasswd -B, openssl passwd -6)", path, no, line);
	if (a->n == AUTH_MAX_USERS)
		return tr_fail(-EINVAL, "%s: more than %d users", path, AUTH_MAX_USERS);
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->u[i].name, line))
			return tr_fail(-EINVAL, "%s:%d: user '%s' twice", path, no, line);
	a->u = xrealloc(a->u, (a->n + 1) * sizeof(*a->u));
	a->u[a->n].name = xstrdup(line);
	a->u[a->n++].hash = xstrdup(hash);
	return 0;
}

int http_auth_load(const char *path, struct http_auth **out)
{
	int fd = net_open_private(path, "users file"), e = 0, no = 0;
	struct http_auth *a;
	char *text, *line, *save = NULL;
	ssize_t n;

	*out = NULL;
	if (fd < 0)
		return fd;
	text = xmalloc(AUTH_FILE_MAX + 1);
	n = read(fd, text, AUTH_FILE_MAX + 1);
	e = n < 0 ? -errno : 0;
	close(fd);
	if (e || n > AUTH_FILE_MAX) {
		free(text);
		return e ? tr_fail(e, "cannot read the users file '%s': %s", path, strerror(-e))
			 : tr_fail(-EFBIG, "users file '%s' is over %d bytes", path, AUTH_FILE_MAX);
	}
	text[n] = '\0';
	a = xcalloc(1, sizeof(*a));
	/* Lines counted as they come: strtok_r would skip empty ones without a number. */
	for (line = text; line && !e; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		no++;
		str_rstrip(line);
		if (*line && *line != '#')
			e = add_line(a, line, path, no);
	}
	free(text);
	if (!e && !a->n)
		e = tr_fail(-EINVAL, "users file '%s' names no user", path);
	if (e) {
		http_auth_free(a);
		return e;
	}
	*out = a;
	return 0;
}

static void digest(const char *hdr, size_t len, unsigned char out[32])
{
	unsigned int n = 32;

	EVP_Digest(hdr, len, out, &n, EVP_sha256(), NULL);
}

int http_auth_check(struct http_auth *a, const char *hdr, size_t len, uint64_t now_ms)
{
	char user[256], pass[1024];
	struct crypt_data *cd;
	unsigned char d[32];
	const struct user *u = NULL;
	const char *got;
	bool ok;

	if (!hdr || http_basic_parse(hdr, len, user, sizeof(user), pass, sizeof(pass)))
		return -EINVAL;
	digest(hdr, len, d);
	for (size_t i = 0; i < a->nok; i++)
		if (!memcmp(a->ok[i], d, sizeof(d)))
			return 0;
	if (now_ms / 1000 != a->window_ms / 1000) {
		a->window_ms = now_ms;
		a->checks = 0;
	}
	if (++a->checks > AUTH_CHECKS_PER_S) {
		OPENSSL_cleanse(pass, sizeof(pass));
		return -EAGAIN;
	}
	for (size_t i = 0; i < a->n && !u; i++)
		if (!strcmp(a->u[i].name, user))
			u = &a->u[i];
	cd = xcalloc(1, sizeof(*cd));
	/* An unknown user is hashed against the first one's setting: the same cost. */
	got = crypt_r(pass, u ? u->hash : a->u[0].hash, cd);
	ok = u && got && got[0] != '*' && strlen(got) == strlen(u->hash) &&
	     !CRYPTO_memcmp(got, u->hash, strlen(got));
	OPENSSL_cleanse(cd, sizeof(*cd));
	free(cd);
	OPENSSL_cleanse(pass, sizeof(pass));
	if (!ok)
		return -EACCES;
	memcpy(a->ok[a->next_ok], d, sizeof(d));
	a->next_ok = (a->next_ok + 1) % AUTH_REMEMBERED;
	if (a->nok < AUTH_REMEMBERED)
		a->nok++;
	return 0;
}
