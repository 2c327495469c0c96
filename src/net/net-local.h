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
#include <stdint.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>

struct net_tls;
struct ssl_st;

struct net_conn {
	int fd;
	struct ssl_st *ssl;	/* NULL: plain */
	short want;		/* after EAGAIN: POLLIN or POLLOUT, what it waits for */
	bool partial;		/* TLS: the last read stopped inside a record */
};

/* The PSK's length (SHA-256's), and the least a key file must hold. */
#define NET_PSK_LEN 32
#define NET_KEY_MIN 32

/*
 * The PSK both ends derive from the key file's bytes: HKDF-SHA-256 (RFC
 * 5869) with no salt and the info "tr tls-psk v1".  0, or -EIO when
 * OpenSSL cannot.
 */
int net_psk_derive(const void *secret, size_t len, unsigned char out[NET_PSK_LEN]);
/*
 * Read the key file at path into *out (malloc'd, *len bytes, trailing
 * newlines not part of it): refused when group or others may read it
 * (-EPERM), when it holds fewer than NET_KEY_MIN bytes (-EINVAL) or more
 * than 64 KiB.  0 or -errno with tr_fail() naming the file.
 */
int net_key_file_read(const char *path, char **out, size_t *len);
/*
 * Open the secret (what: "key file", "TLS key") at path to read: its
 * descriptor, or -errno with tr_fail(), -EPERM ("WHAT 'PATH' is readable
 * by group or others") when its mode lets others read it.
 */
int net_open_private(const char *path, const char *what);
/*
 * A server's TLS (1.2 or later) with the PEM certificate chain at cert and
 * the private key at key (refused when others may read it, or when it is
 * not the certificate's).  0 or -errno with tr_fail() naming the file.
 */
int net_tls_load_cert(const char *cert, const char *key, struct net_tls **out);
/*
 * Load psk_file's key (net_key_file_read(), net_psk_derive()) for a
 * client or a server.  0 or -errno with tr_fail().
 */
int net_tls_load(const char *psk_file, bool server, struct net_tls **out);
void net_tls_free(struct net_tls *t);

/*
 * Make c TLS (c->fd connected): the handshake runs now, without blocking,
 * under poll until at_ms (net_now_ms()'s clock) or *stop (stop may be
 * NULL); the socket's blocking mode is kept.  0, or -EACCES (a different
 * key, or no TLS at the other end), -ETIMEDOUT, -EINTR (*stop), or -errno.
 */
int net_conn_tls(struct net_conn *c, struct net_tls *t, uint64_t at_ms,
		 volatile sig_atomic_t *stop);
/*
 * The same handshake a step at a time, for a caller that polls many
 * connections at once (tr listen's data ports): begin (c->fd connected and
 * non-blocking) then, each time c->fd is ready for c->want, step: 1 when
 * it is done, 0 when it waits for c->want again, -EACCES when it failed.
 * The caller owns the deadline.  begin: 0 or -ENOMEM.
 */
int net_conn_tls_begin(struct net_conn *c, struct net_tls *t);
int net_conn_tls_step(struct net_conn *c);
/* As read() and send(): -1 with errno EAGAIN when a TLS record is not whole yet. */
ssize_t net_conn_read(struct net_conn *c, void *buf, size_t n);
ssize_t net_conn_write(struct net_conn *c, const void *buf, size_t n);
/*
 * Bytes TLS has decrypted and not handed over, or whole records it read
 * and has not decrypted (poll() does not see them); not a record whose
 * rest is still to come, which poll() does see.
 */
bool net_conn_pending(const struct net_conn *c);
void net_conn_close(struct net_conn *c);


/* ---- net-io.c: the blocking helpers of the agent, its host and tr record -N ---- */
/*
 * Deadlines are absolute, in ms of CLOCK_MONOTONIC (net_now_ms()), one
 * per phase (a handshake, a message, the set-up), never per recv: a peer
 * sending a byte at a time cannot stretch them.  stop (may be NULL) is
 * the signal handler's flag, seen within NET_SLICE_MS.
 */
#define NET_SLICE_MS 100
struct netmsg;
uint64_t net_now_ms(void);
/*
 * Wait for c to take events (POLLIN: TLS's pending bytes count; POLLOUT)
 * before at_ms: 0, -ETIMEDOUT, -EINTR when *stop, or -errno.
 */
int net_wait_by(const struct net_conn *c, short events, uint64_t at_ms,
		volatile sig_atomic_t *stop);
/*
 * Whole reads and writes on a socket of either blocking mode, done by at_ms
 * (or *stop): 0, -ETIMEDOUT, -EINTR, -ECONNRESET (the peer's end), -errno.
 */
int net_read_by(struct net_conn *c, void *buf, size_t n, uint64_t at_ms,
		volatile sig_atomic_t *stop);
int net_write_by(struct net_conn *c, const void *buf, size_t n, uint64_t at_ms,
		 volatile sig_atomic_t *stop);
/* One whole message by at_ms: as net_read_msg(). */
int net_read_msg_by(struct net_conn *c, uint8_t *buf, struct netmsg *m, const char **why,
		    uint64_t at_ms, volatile sig_atomic_t *stop);
/* A socket's O_NONBLOCK on or off. */
void net_set_nonblock(int fd, bool on);
struct netmsg;
struct sockaddr_storage;
/* Whole writes and reads; a read past SO_RCVTIMEO is -ETIMEDOUT, the peer's end -ECONNRESET. */
int net_write_all(struct net_conn *c, const void *buf, size_t n);
int net_read_all(struct net_conn *c, void *buf, size_t n);
/* The metadata as SEND_DATA messages, then FIN_DATA, by at_ms (UINT64_MAX: none): 0 or -errno. */
int net_put_meta(struct net_conn *c, const void *buf, size_t len, uint64_t at_ms,
		 volatile sig_atomic_t *stop);
/* One whole message into buf (NETMSG_MAX bytes).  0, -EBADMSG with *why, or -errno. */
int net_read_msg(struct net_conn *c, uint8_t *buf, struct netmsg *m, const char **why);
/* SO_RCVTIMEO and SO_SNDTIMEO (0: none). */
void net_set_timeout(int fd, int ms);
/* Wait up to ms for fd to be readable (TLS's pending bytes count): 1, 0 on timeout, -errno. */
int net_wait_in(const struct net_conn *c, int ms);
/*
 * Connect to host:port (every address it resolves to, in turn): a fd or
 * -errno; -EHOSTUNREACH with *why (when why is not NULL) the resolver's
 * reason when the name does not resolve.
 */
int net_dial(const char *host, uint16_t port, int timeout_ms, const char **why);
/* Connect to one address (IPv4, IPv6 or vsock): a fd or -errno. */
int net_dial_sa(const struct sockaddr_storage *a, int timeout_ms);
/* An address's length for bind() and connect(), its port, a new port. */
socklen_t net_sa_len(const struct sockaddr_storage *a);
uint32_t net_sa_port(const struct sockaddr_storage *a);
void net_sa_set_port(struct sockaddr_storage *a, uint32_t port);
/* A vsock address. */
void net_sa_vsock(struct sockaddr_storage *a, uint32_t cid, uint32_t port);
/*
 * Bind fd to a's address at port; port 0 is any free one, for vsock one of
 * 1024..65535 (the protocol's ports are 16-bit).  0 or -errno.
 */
int net_bind(int fd, struct sockaddr_storage *a, uint16_t port);
/* A socket listening on addr's address and port (0: any free one): a fd or -errno. */
int net_listen_at(const struct sockaddr_storage *addr, uint16_t port, uint16_t *bound);
/*
 * Accept one connection on lfd from the host of peer (any port), within
 * ms; others are closed.  A fd, -ETIMEDOUT, -EINTR (*stop; may be NULL),
 * or -errno.
 */
int net_accept_from(int lfd, const struct sockaddr_storage *peer, int ms,
		    volatile sig_atomic_t *stop);
/*
 * ---- Session tokens (netmsg.h): a data connection proves it belongs to
 * its control connection. ----
 * A new token, from getrandom(): 0 or -errno.
 */
struct netmsg_token;
int net_token_new(struct netmsg_token *t);
/* The longest a connection that owes a token is waited for: a real peer sends it at once. */
#define NET_TOKEN_MS 3000
/*
 * Read what is left of a token into got (*n bytes of it so far), without
 * waiting: 1 when it is whole and equal to want's, 0 when more is to come,
 * -EACCES when it differs, -ECONNRESET when the peer closed first, -errno.
 * Nothing past the token is read.
 */
int net_token_take(struct net_conn *c, const struct netmsg_token *want, uint8_t *got,
		   size_t *n);
/* Why net_token_take() (or its deadline) refused a connection, for the log. */
const char *net_token_why(int e);
/*
 * The connection of a session on lfd, for the agent: from the host of
 * peer, TLS with t (NULL: plain), and when tok is set, the token first.
 * Others are refused, each with one line through log naming it, and
 * waiting goes on until at_ms or *stop.  0 with *out, -ETIMEDOUT, -EINTR
 * or -errno.
 */
int net_accept_session(int lfd, const struct sockaddr_storage *peer, struct net_tls *t,
		       const struct netmsg_token *tok, uint64_t at_ms, volatile sig_atomic_t *stop,
		       void (*log)(void *arg, const char *line), void *log_arg, const char *who,
		       struct net_conn *out);

/*
 * The address a server listens on: bind_to (NULL: 127.0.0.1, or for vsock
 * any CID of this machine), port 0.  0 or -EINVAL with tr_fail().
 */
int net_bind_addr(const char *bind_to, bool vsock, struct sockaddr_storage *a);
/*
 * Is the peer in one of the --allow ranges (vsock: CIDs)?  With none,
 * loopback and vsock CIDs 1 (this machine) and 2 (the host of a guest).
 */
struct net_cidr;
bool net_allowed(const struct net_cidr *allow, int nallow, const struct sockaddr *sa);
/*
 * The accept step of tr listen and tr agent: wait up to wait_ms for a
 * connection on lfd, take it, and refuse (one line through log, the
 * connection closed) a peer outside allow (none: loopback, net_allowed()).
 * When descriptors run out the queued connection would make poll() return
 * at once for ever: it says so once and leaves lfd alone for a second.
 * The connection's fd (peer, host, port filled), or -ETIMEDOUT (none
 * came), -EMFILE (no descriptor: a caller with clients may reap some),
 * -EACCES (refused, said), or another -errno.
 */
struct net_acceptor {
	int lfd;
	const struct net_cidr *allow;
	int nallow;
	void (*log)(void *arg, const char *line);	/* or NULL */
	void *log_arg;
	uint64_t backoff_ms;	/* until then lfd is not polled */
	bool starved;		/* said "cannot accept" already */
};
int net_accept(struct net_acceptor *a, int wait_ms, struct sockaddr_storage *peer, char *host,
	       size_t hostlen, uint32_t *port);
bool net_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

/* ---- net-tsync.c: the "ptp" exchange (netmsg.h) ---- */
/*
 * The host's side of one measurement, led by the agent: *offset (host
 * clock minus the agent's) at the agent's time *ts, whole within 30 s
 * and given up when *stop (may be NULL) is set.  0, -EBADMSG with *why,
 * -ETIMEDOUT, -EINTR, or -errno.
 */
int net_tsync_measure(struct net_conn *c, clockid_t clk, uint16_t cpu, volatile sig_atomic_t *stop,
		      int64_t *offset, int64_t *ts, const char **why);
/*
 * The agent's side: serve measurements until the host's STOP (0), its
 * end of the connection (0), an error (-errno), or *stop and then 10 s
 * without a STOP.
 */
int net_tsync_serve(struct net_conn *c, clockid_t clk, volatile sig_atomic_t *stop,
		    const char **why);

#endif
