/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside net/: a connection that is a plain socket or TLS 1.3 over it,
 * authenticated by an external pre-shared key (--psk), through OpenSSL.
 * Reads and writes go through net_conn_*() so the listener and the client
 * are the same code either way.
 */
#ifndef TR_NET_LOCAL_H
#define TR_NET_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct net_tls;
struct ssl_st;

struct net_conn {
	int fd;
	struct ssl_st *ssl;	/* NULL: plain */
};

/*
 * Load the key of psk_file (its bytes, at least 16, hashed with SHA-256
 * into the PSK; a trailing newline is not part of it) for a client or a
 * server.  0 or -errno with tr_fail().
 */
int net_tls_load(const char *psk_file, bool server, struct net_tls **out);
void net_tls_free(struct net_tls *t);

/*
 * Make c TLS (c->fd connected, blocking, with timeouts set): the handshake
 * runs now.  0, or -EACCES (a different key, or no TLS at the other end),
 * or -errno.
 */
int net_conn_tls(struct net_conn *c, struct net_tls *t);
/* As read() and send(): -1 with errno EAGAIN when a TLS record is not whole yet. */
ssize_t net_conn_read(struct net_conn *c, void *buf, size_t n);
ssize_t net_conn_write(struct net_conn *c, const void *buf, size_t n);
/* Bytes TLS has decrypted and not handed over (poll() does not see them). */
bool net_conn_pending(const struct net_conn *c);
void net_conn_close(struct net_conn *c);

#endif
