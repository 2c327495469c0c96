// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TLS 1.3 with an external pre-shared key for tr's own ends (net-local.h):
 * no certificates, both sides prove they hold the key, and the traffic is
 * encrypted.  The metrics endpoint's HTTPS (TLS 1.2 or later, with a
 * certificate and its key, as Prometheus scrapes) uses the same
 * connection code.  The PSK is derived from the --psk file's content with HKDF
 * (SHA-256) under tr's own label, so any secret of 32 bytes or more will do
 * (openssl rand -hex 32 >key; chmod 600 key).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "net-local.h"
#include "tr.h"

#define PSK_IDENTITY "tr"
/* A cipher suite every TLS 1.3 OpenSSL has; the PSK's hash is its hash. */
#define PSK_SUITE "TLS_AES_128_GCM_SHA256"
static const unsigned char suite_id[2] = { 0x13, 0x01 };
/*
 * HKDF's info: the PSK is bound to tr and to this use, so the same file
 * given to another program (or to a later version of this derivation)
 * yields a different key.  Changing it breaks every pairing of ends.
 */
#define PSK_LABEL "tr tls-psk v1"
/* More than any sane key file: a FIFO or /dev/zero given as --psk ends here. */
#define KEY_FILE_MAX 65536

struct net_tls {
	SSL_CTX *ctx;
	SSL_SESSION *sess;
};

static SSL_SESSION *session_of(SSL *ssl, const unsigned char *key, size_t n)
{
	const SSL_CIPHER *cipher = SSL_CIPHER_find(ssl, suite_id);
	SSL_SESSION *s = cipher ? SSL_SESSION_new() : NULL;

	if (s && (!SSL_SESSION_set1_master_key(s, key, n) || !SSL_SESSION_set_cipher(s, cipher) ||
		  !SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION))) {
		SSL_SESSION_free(s);
		s = NULL;
	}
	return s;
}

static struct net_tls *tls_of(SSL *ssl)
{
	return SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
}

static int use_session(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
		       SSL_SESSION **sess)
{
	struct net_tls *t = tls_of(ssl);

	(void)md;
	*id = (const unsigned char *)PSK_IDENTITY;
	*idlen = strlen(PSK_IDENTITY);
	SSL_SESSION_up_ref(t->sess);
	*sess = t->sess;
	return 1;
}

static int find_session(SSL *ssl, const unsigned char *id, size_t idlen, SSL_SESSION **sess)
{
	struct net_tls *t = tls_of(ssl);

	*sess = NULL;
	if (idlen != strlen(PSK_IDENTITY) || memcmp(id, PSK_IDENTITY, idlen))
		return 1;	/* no such key: the handshake fails */
	SSL_SESSION_up_ref(t->sess);
	*sess = t->sess;
	return 1;
}

int net_psk_derive(const void *secret, size_t len, unsigned char out[NET_PSK_LEN])
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	EVP_KDF_CTX *kctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	OSSL_PARAM params[4];
	int r;

	/* No salt: HKDF then extracts with a block of zeros, as RFC 5869 says. */
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
	params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, len);
	params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (char *)PSK_LABEL,
						      strlen(PSK_LABEL));
	params[3] = OSSL_PARAM_construct_end();
	r = kctx && EVP_KDF_derive(kctx, out, NET_PSK_LEN, params) == 1;
	EVP_KDF_CTX_free(kctx);
	EVP_KDF_free(kdf);
	return r ? 0 : -EIO;
}

int net_open_private(const char *path, const char *what)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	struct stat st;

	/* Checked on what was opened, so a file swapped in after the check is not read. */
	if (fd < 0 || fstat(fd, &st)) {
		e = -errno;
		if (fd >= 0)
			close(fd);
		return tr_fail(e, "cannot read the %s '%s': %s", what, path, strerror(-e));
	}
	if (st.st_mode & (S_IRGRP | S_IROTH)) {
		close(fd);
		return tr_fail(-EPERM, "%s '%s' is readable by group or others (mode %04o): "
				       "chmod 600 it", what, path, (unsigned)(st.st_mode & 07777));
	}
	return fd;
}

int net_key_file_read(const char *path, char **out, size_t *len)
{
	int fd = net_open_private(path, "key file"), e = 0;
	size_t n = 0, cap = 256;
	char *buf;

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap >= KEY_FILE_MAX) {
				e = -EFBIG;
				break;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = -errno;
			break;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	if (e) {
		OPENSSL_cleanse(buf, n);
		free(buf);
		if (e == -EFBIG)
			return tr_fail(e, "key file '%s' is too long: give at most %d bytes", path,
				       KEY_FILE_MAX);
		return tr_fail(e, "cannot read the key file '%s': %s", path, strerror(-e));
	}
	/* "echo secret >key" and "printf secret >key" are the same key. */
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (n < NET_KEY_MIN) {
		OPENSSL_cleanse(buf, n);
		free(buf);
		return tr_fail(-EINVAL, "key file '%s' is too short: give %d bytes or more "
					"(openssl rand -hex 32 >'%s')", path, NET_KEY_MIN, path);
	}
	*out = buf;
	*len = n;
	return 0;
}

int net_tls_load(const char *psk_file, bool server, struct net_tls **out)
{
	unsigned char key[NET_PSK_LEN];
	struct net_tls *t;
	char *text;
	size_t len;
	SSL *probe;
	int e;

	*out = NULL;
	e = net_key_file_read(psk_file, &text, &len);
	if (e)
		return e;
	e = net_psk_derive(text, len, key);
	OPENSSL_cleanse(text, len);
	free(text);
	t = xcalloc(1, sizeof(*t));
	if (e)
		goto fail;
	t->ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	if (!t->ctx || !SSL_CTX_set_min_proto_version(t->ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_ciphersuites(t->ctx, PSK_SUITE))
		goto fail;
	SSL_CTX_set_app_data(t->ctx, t);
	/*
	 * OpenSSL writes with write(): a peer gone must be an error to handle
	 * (a recorder puts tracefs back), not SIGPIPE killing the process.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (server) {
		SSL_CTX_set_psk_find_session_callback(t->ctx, find_session);
		/*
		 * No session tickets: a client never reads its data connections,
		 * and unread bytes make its close() a reset, which throws away
		 * what the listener has not read yet.
		 */
		SSL_CTX_set_num_tickets(t->ctx, 0);
	}
	else
		SSL_CTX_set_psk_use_session_callback(t->ctx, use_session);
	/* A session needs an SSL to find its cipher by. */
	probe = SSL_new(t->ctx);
	if (probe)
		t->sess = session_of(probe, key, sizeof(key));
	SSL_free(probe);
	OPENSSL_cleanse(key, sizeof(key));
	if (!t->sess)
		goto fail;
	*out = t;
	return 0;
fail:
	OPENSSL_cleanse(key, sizeof(key));
	net_tls_free(t);
	return tr_fail(-EIO, "cannot set up TLS: %s",
		       ERR_reason_error_string(ERR_get_error()) ?: "OpenSSL failed");
}

/* The private key at path, refused when others may read it (checked on what was opened). */
static int read_private_key(const char *path, EVP_PKEY **out)
{
	int fd = net_open_private(path, "TLS key"), e = 0;
	BIO *b;

	*out = NULL;
	if (fd < 0)
		return fd;
	b = BIO_new_fd(fd, BIO_CLOSE);
	if (b)
		*out = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	else
		close(fd);
	BIO_free(b);
	if (!*out) {
		e = tr_fail(-EINVAL, "TLS key '%s' is not a PEM private key (without a passphrase): "
				     "%s", path,
			    ERR_reason_error_string(ERR_get_error()) ?: "OpenSSL could not read it");
		ERR_clear_error();
	}
	return e;
}

int net_tls_load_cert(const char *cert, const char *key, struct net_tls **out)
{
	struct net_tls *t = xcalloc(1, sizeof(*t));
	EVP_PKEY *pkey = NULL;
	const char *why = NULL;
	int e = read_private_key(key, &pkey);

	*out = NULL;
	if (e) {
		free(t);
		return e;
	}
	t->ctx = SSL_CTX_new(TLS_server_method());
	if (!t->ctx || !SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION))
		why = "OpenSSL failed";
	else if (SSL_CTX_use_certificate_chain_file(t->ctx, cert) != 1)
		e = tr_fail(-EINVAL, "cannot use the TLS certificate '%s': %s", cert,
			    ERR_reason_error_string(ERR_get_error()) ?: "not a PEM certificate");
	else if (SSL_CTX_use_PrivateKey(t->ctx, pkey) != 1 || SSL_CTX_check_private_key(t->ctx) != 1)
		e = tr_fail(-EINVAL, "TLS key '%s' is not the key of the certificate '%s'", key,
			    cert);
	EVP_PKEY_free(pkey);
	ERR_clear_error();
	if (why)
		e = tr_fail(-EIO, "cannot set up TLS: %s", why);
	if (e) {
		net_tls_free(t);
		return e;
	}
	/* As for the PSK ends: a scraper gone is an error to handle, not SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	*out = t;
	return 0;
}

void net_tls_free(struct net_tls *t)
{
	if (!t)
		return;
	SSL_SESSION_free(t->sess);
	SSL_CTX_free(t->ctx);
	free(t);
}

int net_conn_tls_begin(struct net_conn *c, struct net_tls *t)
{
	c->ssl = SSL_new(t->ctx);
	if (!c->ssl || !SSL_set_fd(c->ssl, c->fd))
		return -ENOMEM;
	if (SSL_is_server(c->ssl))
		SSL_set_accept_state(c->ssl);
	else
		SSL_set_connect_state(c->ssl);
	c->want = POLLIN;
	return 0;
}

int net_conn_tls_step(struct net_conn *c)
{
	int r = SSL_do_handshake(c->ssl), err;

	if (r == 1) {
		ERR_clear_error();
		c->partial = false;
		c->want = POLLIN;
		return 1;
	}
	err = SSL_get_error(c->ssl, r);
	if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
		ERR_clear_error();
		c->partial = false;
		return -EACCES;
	}
	/* A record not whole yet: what is missing comes through the socket. */
	c->partial = err == SSL_ERROR_WANT_READ;
	c->want = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
	return 0;
}

int net_conn_tls(struct net_conn *c, struct net_tls *t, uint64_t at_ms,
		 volatile sig_atomic_t *stop)
{
	int flags = fcntl(c->fd, F_GETFL), e;

	if ((e = net_conn_tls_begin(c, t)))
		return e;
	/*
	 * Without blocking, under poll against the one deadline: a peer that
	 * sends a record a byte at a time cannot hold a recv past it.
	 */
	if (flags >= 0 && !(flags & O_NONBLOCK))
		fcntl(c->fd, F_SETFL, flags | O_NONBLOCK);
	while (!(e = net_conn_tls_step(c)))
		if ((e = net_wait_by(c, c->want, at_ms, stop)))
			break;
	c->partial = false;
	if (flags >= 0 && !(flags & O_NONBLOCK))
		fcntl(c->fd, F_SETFL, flags);
	return e < 0 ? e : 0;
}

ssize_t net_conn_read(struct net_conn *c, void *buf, size_t n)
{
	int r;

	if (!c->ssl) {
		c->want = POLLIN;
		return read(c->fd, buf, n);
	}
	r = SSL_read(c->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
	c->partial = false;
	if (r > 0)
		return r;
	switch (SSL_get_error(c->ssl, r)) {
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_WANT_READ:
		/* What SSL_has_pending() saw is a record not yet whole: the socket has the rest. */
		c->partial = true;
		c->want = POLLIN;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_WANT_WRITE:
		c->want = POLLOUT;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_SYSCALL:
		ERR_clear_error();
		if (!errno)
			return 0;	/* the peer went away without close_notify */
		return -1;
	default:
		ERR_clear_error();
		errno = EPROTO;
		return -1;
	}
}

ssize_t net_conn_write(struct net_conn *c, const void *buf, size_t n)
{
	int r, err;

	if (!c->ssl) {
		c->want = POLLOUT;
		return send(c->fd, buf, n, MSG_NOSIGNAL);
	}
	r = SSL_write(c->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
	if (r > 0)
		return r;
	err = SSL_get_error(c->ssl, r);
	if (err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ) {
		c->want = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
		errno = EAGAIN;
		return -1;
	}
	ERR_clear_error();
	if (!errno)
		errno = EPIPE;
	return -1;
}

bool net_conn_pending(const struct net_conn *c)
{
	/*
	 * Records read from the socket but not yet decrypted count: poll()
	 * cannot see them.  SSL_has_pending() is true for a record not yet
	 * whole too: once a read said so (WANT_READ), only the socket can
	 * bring the rest, and taking it as readable would spin.
	 */
	if (!c->ssl)
		return false;
	if (SSL_pending(c->ssl) > 0)
		return true;
	return !c->partial && SSL_has_pending(c->ssl);
}

void net_conn_close(struct net_conn *c)
{
	if (c->ssl) {
		/* A handshake not over has nothing to shut down: its error is not kept. */
		SSL_shutdown(c->ssl);
		ERR_clear_error();
		SSL_free(c->ssl);
		c->ssl = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
