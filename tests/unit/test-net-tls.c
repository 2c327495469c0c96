// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * net/'s TLS connections (net-local.h) over socket pairs: the handshake
 * runs without blocking under its deadline (a peer that says nothing is
 * -ETIMEDOUT at it, not a blocked recv), and a record that has come only in
 * part is not "pending" (poll() waits for the rest on the socket), while
 * the bytes of a whole record not yet handed over are.  The PSK is
 * HKDF-SHA-256 of the key file under tr's label, checked against bytes
 * computed apart from OpenSSL, and a key file others may read, or one too
 * short, is refused with one line naming it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "net-local.h"
#include "tr.h"
#include "unit.h"

static char key_path[] = "/tmp/tr-unit-psk-XXXXXX";

static void make_key(void)
{
	static const char key[] = "0123456789abcdef0123456789abcdef0123456789abcdef\n";
	int fd = mkstemp(key_path);

	if (fd < 0 || write(fd, key, sizeof(key) - 1) != (ssize_t)sizeof(key) - 1)
		abort();
	fchmod(fd, 0600);
	close(fd);
}

struct side {
	struct net_tls *tls;
	struct net_conn c;
	int e;
};

static void *client_hs(void *arg)
{
	struct side *s = arg;

	s->e = net_conn_tls(&s->c, s->tls, net_now_ms() + 5000, NULL);
	return NULL;
}

/* A TLS pair over a socket pair: srv, cli. */
static int pair(struct side *srv, struct side *cli)
{
	int sp[2];
	pthread_t th;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp))
		return -errno;
	*srv = (struct side){ .c = { .fd = sp[0] } };
	*cli = (struct side){ .c = { .fd = sp[1] } };
	if (net_tls_load(key_path, true, &srv->tls) || net_tls_load(key_path, false, &cli->tls))
		return -EIO;
	pthread_create(&th, NULL, client_hs, cli);
	srv->e = net_conn_tls(&srv->c, srv->tls, net_now_ms() + 5000, NULL);
	pthread_join(th, NULL);
	return srv->e ? srv->e : cli->e;
}

static void unpair(struct side *srv, struct side *cli)
{
	net_conn_close(&srv->c);
	net_conn_close(&cli->c);
	net_tls_free(srv->tls);
	net_tls_free(cli->tls);
}

TEST(handshake_and_whole_record_pending)
{
	struct side srv, cli;
	char buf[64];

	CHECK(pair(&srv, &cli) == 0);
	CHECK(net_write_all(&cli.c, "0123456789", 10) == 0);
	/* One byte of a whole record: the other nine are decrypted and pending. */
	CHECK(net_read_all(&srv.c, buf, 1) == 0);
	CHECK(net_conn_pending(&srv.c));
	CHECK(net_wait_by(&srv.c, POLLIN, net_now_ms() + 100, NULL) == 0);
	CHECK(net_read_all(&srv.c, buf, 9) == 0);
	CHECK(!memcmp(buf, "123456789", 9));
	CHECK(!net_conn_pending(&srv.c));
	unpair(&srv, &cli);
}

TEST(partial_record_waits_for_the_socket)
{
	struct side srv, cli;
	char rec[256], buf[64];
	int sp[2];
	ssize_t n;
	uint64_t t0;

	CHECK(pair(&srv, &cli) == 0);
	/*
	 * The client's record is taken off the wire and handed to the server
	 * through a second socket pair, the first 8 bytes now and the rest
	 * later: the server has a record not yet whole.
	 */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
	CHECK(net_write_all(&cli.c, "hello", 5) == 0);
	n = read(srv.c.fd, rec, sizeof(rec));
	CHECK(n > 8);
	close(srv.c.fd);
	srv.c.fd = sp[0];
	CHECK(SSL_set_fd(srv.c.ssl, sp[0]) == 1);
	net_set_nonblock(sp[0], true);
	CHECK(write(sp[1], rec, 8) == 8);
	CHECK(net_conn_read(&srv.c, buf, sizeof(buf)) == -1 && errno == EAGAIN);
	CHECK(!net_conn_pending(&srv.c));
	/* It waits on the socket (no spin): the deadline, not an instant return. */
	t0 = net_now_ms();
	CHECK(net_wait_by(&srv.c, POLLIN, t0 + 200, NULL) == -ETIMEDOUT);
	CHECK(net_now_ms() - t0 >= 190);
	CHECK(write(sp[1], rec + 8, n - 8) == n - 8);
	CHECK(net_read_by(&srv.c, buf, 5, net_now_ms() + 1000, NULL) == 0);
	CHECK(!memcmp(buf, "hello", 5));
	close(sp[1]);
	unpair(&srv, &cli);
}

TEST(silent_peer_times_out_at_the_deadline)
{
	struct net_tls *t = NULL;
	struct net_conn c;
	int sp[2];
	uint64_t t0;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
	CHECK(net_tls_load(key_path, true, &t) == 0);
	c = (struct net_conn){ .fd = sp[0] };
	/* A record header alone: the handshake waits, under poll, for the deadline. */
	CHECK(write(sp[1], "\x16\x03\x01\x02\x00", 5) == 5);
	t0 = net_now_ms();
	CHECK(net_conn_tls(&c, t, t0 + 300, NULL) == -ETIMEDOUT);
	CHECK(net_now_ms() - t0 < 2000);
	net_conn_close(&c);
	close(sp[1]);
	net_tls_free(t);
}

TEST(psk_is_hkdf_sha256_with_the_label)
{
	/*
	 * Computed with Python's hmac module (RFC 5869: no salt, so a block of
	 * zeros; one block of output):
	 *   prk = hmac.new(b"\0" * 32, ikm, sha256).digest()
	 *   okm = hmac.new(prk, b"tr tls-psk v1\x01", sha256).digest()
	 */
	static const unsigned char expect[NET_PSK_LEN] = {
		0x96, 0x34, 0x8d, 0x98, 0x12, 0x67, 0x48, 0x43, 0x1c, 0x85, 0x34,
		0xd3, 0x30, 0xe2, 0xe9, 0x49, 0x15, 0x35, 0x61, 0xea, 0x9b, 0xf5,
		0x42, 0xab, 0x2d, 0x64, 0x56, 0xf7, 0x5c, 0x0e, 0xbd, 0xf6,
	};
	static const char ikm[] = "0123456789abcdef0123456789abcdef";
	unsigned char out[NET_PSK_LEN], other[NET_PSK_LEN];

	CHECK(net_psk_derive(ikm, 32, out) == 0);
	CHECK(!memcmp(out, expect, sizeof(expect)));
	/* Not the plain SHA-256 it was, and every byte of the key counts. */
	CHECK(net_psk_derive(ikm, 31, other) == 0);
	CHECK(memcmp(out, other, sizeof(out)));
}

/* Write n bytes of text to a fresh file of mode mode; its path in path. */
static void key_file(char *path, const char *text, size_t n, mode_t mode)
{
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, n) != (ssize_t)n || fchmod(fd, mode))
		abort();
	close(fd);
}

TEST(key_file_mode_and_length)
{
	static const char k32[] = "0123456789abcdef0123456789abcdef\n";
	static const mode_t refused[] = { 0644, 0640, 0604, 0660, 0666, 0744 };
	char *text, want[128];
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		char path[] = "/tmp/tr-unit-key-XXXXXX";

		key_file(path, k32, sizeof(k32) - 1, refused[i]);
		CHECK(net_key_file_read(path, &text, &len) == -EPERM);
		CHECK(!text);
		snprintf(want, sizeof(want), "key file '%s' is readable by group or others "
			 "(mode %04o): chmod 600 it", path, (unsigned)refused[i]);
		CHECK_STR(tr_failure(), want);
		unlink(path);
	}
	for (mode_t m = 0400; m <= 0600; m += 0200) {
		char path[] = "/tmp/tr-unit-key-XXXXXX";

		key_file(path, k32, sizeof(k32) - 1, m);
		CHECK(net_key_file_read(path, &text, &len) == 0);
		/* The newline is not part of the key. */
		CHECK(len == 32 && !memcmp(text, k32, 32));
		free(text);
		unlink(path);
	}
	{
		char path[] = "/tmp/tr-unit-key-XXXXXX";

		/* 31 bytes and a newline: too short. */
		key_file(path, k32 + 1, sizeof(k32) - 2, 0600);
		CHECK(net_key_file_read(path, &text, &len) == -EINVAL);
		CHECK(tr_failure() && strstr(tr_failure(), "is too short: give 32 bytes or more"));
		unlink(path);
		CHECK(net_key_file_read(path, &text, &len) == -ENOENT);
		CHECK(tr_failure() && strstr(tr_failure(), "cannot read the key file"));
	}
}

static void cleanup(void)
{
	unlink(key_path);
}

static void setup(void)
{
	make_key();
	atexit(cleanup);
}

TEST(start)
{
	setup();
}

UNIT_MAIN(T(start), T(handshake_and_whole_record_pending), T(partial_record_waits_for_the_socket),
	  T(silent_peer_times_out_at_the_deadline), T(psk_is_hkdf_sha256_with_the_label),
	  T(key_file_mode_and_length))
