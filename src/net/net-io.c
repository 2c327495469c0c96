// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Blocking socket helpers for the agent (net-agent.c) and its host
 * (net-guest.c), over net_conn so that --psk's TLS is the same code
 * (net-local.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#include "net-local.h"
#include "net.h"
#include "netmsg.h"
#include "tr.h"

uint64_t net_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void net_set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

int net_wait_by(const struct net_conn *c, short events, uint64_t at_ms,
		volatile sig_atomic_t *stop)
{
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = events };
		uint64_t now = net_now_ms(), left;
		int n;

		if (stop && *stop)
			return -EINTR;
		if ((events & POLLIN) && net_conn_pending(c))
			return 0;
		if (now >= at_ms)
			return -ETIMEDOUT;
		left = at_ms - now;
		n = poll(&p, 1, left > NET_SLICE_MS ? NET_SLICE_MS : (int)left);
		if (n < 0 && errno != EINTR)
			return -errno;
		/* An error or hang-up is for the next read or write to say. */
		if (n > 0)
			return 0;
	}
}

/* One read or write of a whole buffer, by at_ms. */
static int io_by(struct net_conn *c, bool out, void *buf, size_t n, uint64_t at_ms,
		 volatile sig_atomic_t *stop)
{
	char *p = buf;

	while (n) {
		ssize_t r;
		int e;

		/*
		 * Checked on every pass, not only when a read would block: a peer
		 * that sends a byte at a time keeps a blocking socket's reads
		 * returning, and would otherwise never meet the deadline.
		 */
		if (at_ms != UINT64_MAX && net_now_ms() >= at_ms)
			return -ETIMEDOUT;
		r = out ? net_conn_write(c, p, n) : net_conn_read(c, p, n);

		if (r > 0) {
			p += r;
			n -= r;
			continue;
		}
		if (!r)
			return out ? -EPIPE : -ECONNRESET;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
		/* No deadline: a blocking socket whose SO_RCVTIMEO or SO_SNDTIMEO passed. */
		if (errno == EAGAIN && at_ms == UINT64_MAX)
			return -ETIMEDOUT;
		if (stop && *stop)
			return -EINTR;
		e = net_wait_by(c, c->want ? c->want : out ? POLLOUT : POLLIN, at_ms, stop);
		if (e)
			return e;
	}
	return 0;
}

int net_read_by(struct net_conn *c, void *buf, size_t n, uint64_t at_ms,
		volatile sig_atomic_t *stop)
{
	return io_by(c, false, buf, n, at_ms, stop);
}

int net_write_by(struct net_conn *c, const void *buf, size_t n, uint64_t at_ms,
		 volatile sig_atomic_t *stop)
{
	return io_by(c, true, (void *)buf, n, at_ms, stop);
}

int net_write_all(struct net_conn *c, const void *buf, size_t n)
{
	return io_by(c, true, (void *)buf, n, UINT64_MAX, NULL);
}

int net_read_all(struct net_conn *c, void *buf, size_t n)
{
	return io_by(c, false, buf, n, UINT64_MAX, NULL);
}

int net_read_msg_by(struct net_conn *c, uint8_t *buf, struct netmsg *m, const char **why,
		    uint64_t at_ms, volatile sig_atomic_t *stop)
{
	uint32_t size;
	ssize_t t;
	int e = net_read_by(c, buf, NETMSG_HDR, at_ms, stop);

	if (e)
		return e;
	size = netmsg_be32(buf);
	if (size < NETMSG_HDR || size > NETMSG_MAX) {
		*why = size < NETMSG_HDR ? "message shorter than its header"
					 : "message over 8192 bytes";
		return -EBADMSG;
	}
	e = net_read_by(c, buf + NETMSG_HDR, size - NETMSG_HDR, at_ms, stop);
	if (e)
		return e;
	t = netmsg_take(buf, size, m, why);
	return t < 0 ? (int)t : 0;
}

int net_put_meta(struct net_conn *c, const void *buf, size_t len, uint64_t at_ms,
		 volatile sig_atomic_t *stop)
{
	const uint8_t *p = buf;
	uint8_t hdr[NETMSG_HDR];
	int e = 0;

	while (len && !e) {
		uint32_t n = len > NETMSG_MAX_DATA ? NETMSG_MAX_DATA : len;

		netmsg_put_data_hdr(hdr, n);
		e = net_write_by(c, hdr, sizeof(hdr), at_ms, stop);
		if (!e)
			e = net_write_by(c, p, n, at_ms, stop);
		p += n;
		len -= n;
	}
	return e ? e : net_write_by(c, hdr, netmsg_put(hdr, NETMSG_FIN_DATA), at_ms,
						    stop);
}

int net_read_msg(struct net_conn *c, uint8_t *buf, struct netmsg *m, const char **why)
{
	/* A blocking socket: each read waits its SO_RCVTIMEO. */
	return net_read_msg_by(c, buf, m, why, UINT64_MAX, NULL);
}

void net_set_timeout(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

int net_wait_in(const struct net_conn *c, int ms)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int n;

	if (net_conn_pending(c))
		return 1;
	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n > 0;
}

socklen_t net_sa_len(const struct sockaddr_storage *a)
{
	switch (a->ss_family) {
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_VSOCK:
		return sizeof(struct sockaddr_vm);
	default:
		return sizeof(struct sockaddr_in);
	}
}

uint32_t net_sa_port(const struct sockaddr_storage *a)
{
	switch (a->ss_family) {
	case AF_INET6:
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	case AF_VSOCK:
		return ((const struct sockaddr_vm *)a)->svm_port;
	default:
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	}
}

void net_sa_set_port(struct sockaddr_storage *a, uint32_t port)
{
	if (a->ss_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
	else if (a->ss_family == AF_VSOCK)
		((struct sockaddr_vm *)a)->svm_port = port;
	else
		((struct sockaddr_in *)a)->sin_port = htons(port);
}

void net_sa_vsock(struct sockaddr_storage *a, uint32_t cid, uint32_t port)
{
	struct sockaddr_vm *vm = (struct sockaddr_vm *)a;

	memset(a, 0, sizeof(*a));
	vm->svm_family = AF_VSOCK;
	vm->svm_cid = cid;
	vm->svm_port = port;
}

int net_bind(int fd, struct sockaddr_storage *a, uint16_t port)
{
	uint32_t start, span = 65536 - 1024;

	if (a->ss_family != AF_VSOCK || port) {
		net_sa_set_port(a, port);
		return bind(fd, (struct sockaddr *)a, net_sa_len(a)) ? -errno : 0;
	}
	/*
	 * The kernel's "any port" for vsock is any of 2^32: the protocol's
	 * ports are 16-bit (netmsg.h), so one of 1024..65535 is taken here,
	 * from a varying start so that two listeners do not race for it.
	 */
	start = (uint32_t)(net_now_ms() * 2654435761u + (uint32_t)getpid()) % span;
	for (uint32_t i = 0; i < span; i++) {
		net_sa_set_port(a, 1024 + (start + i) % span);
		if (!bind(fd, (struct sockaddr *)a, net_sa_len(a)))
			return 0;
		if (errno != EADDRINUSE)
			return -errno;
	}
	return -EADDRINUSE;
}

int net_dial_sa(const struct sockaddr_storage *a, int timeout_ms)
{
	int fd = socket(a->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	net_set_timeout(fd, timeout_ms);
	if (a->ss_family == AF_VSOCK) {
		/* vsock's connect has its own limit (2 s by default), not SO_SNDTIMEO. */
		struct timeval tv = { .tv_sec = timeout_ms / 1000,
				      .tv_usec = timeout_ms % 1000 * 1000 };

		if (timeout_ms)
			setsockopt(fd, AF_VSOCK, SO_VM_SOCKETS_CONNECT_TIMEOUT, &tv, sizeof(tv));
	}
	if (connect(fd, (const struct sockaddr *)a, net_sa_len(a))) {
		int e = errno == EINPROGRESS ? -ETIMEDOUT : -errno;

		close(fd);
		return e;
	}
	return fd;
}

int net_dial(const char *host, uint16_t port, int timeout_ms, const char **why)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char sport[8];
	int e, fd = -1;

	snprintf(sport, sizeof(sport), "%u", port);
	if ((e = getaddrinfo(host, sport, &hints, &res))) {
		if (why)
			*why = gai_strerror(e);
		return -EHOSTUNREACH;
	}
	e = -ECONNREFUSED;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		struct sockaddr_storage a = { 0 };

		if (ai->ai_addrlen > sizeof(a))
			continue;
		memcpy(&a, ai->ai_addr, ai->ai_addrlen);
		if ((fd = net_dial_sa(&a, timeout_ms)) < 0) {
			e = fd;
			fd = -1;
		} else {
			/* Control messages are small and answered: no Nagle delay. */
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		}
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : e;
}

int net_listen_at(const struct sockaddr_storage *addr, uint16_t port, uint16_t *bound)
{
	struct sockaddr_storage a = *addr;
	socklen_t len = sizeof(a);
	int one = 1, e, fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (a.ss_family != AF_VSOCK)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((e = net_bind(fd, &a, port)) || (listen(fd, 4) && (e = -errno)) ||
	    (getsockname(fd, (struct sockaddr *)&a, &len) && (e = -errno))) {
		close(fd);
		return e;
	}
	*bound = net_sa_port(&a);
	return fd;
}

bool net_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_VSOCK)
		return ((const struct sockaddr_vm *)a)->svm_cid == ((const struct sockaddr_vm *)b)->svm_cid;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

int net_accept_from(int lfd, const struct sockaddr_storage *peer, int ms,
		    volatile sig_atomic_t *stop)
{
	uint64_t end = net_now_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		uint64_t now = net_now_ms();
		int n, fd;

		if (stop && *stop)
			return -EINTR;
		if (now >= end)
			return -ETIMEDOUT;
		n = poll(&p, 1, end - now > NET_SLICE_MS ? NET_SLICE_MS : (int)(end - now));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			continue;
		fd = accept4(lfd, (struct sockaddr *)&from, &len, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		/* Another machine at a port the agent opened for this host: not its business. */
		if (net_same_host(&from, peer)) {
			if (from.ss_family != AF_VSOCK)
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
			return fd;
		}
		close(fd);
	}
}

int net_token_new(struct netmsg_token *t)
{
	size_t got = 0;

	while (got < NETMSG_TOKEN_LEN) {
		ssize_t r = getrandom(t->b + got, NETMSG_TOKEN_LEN - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += r;
	}
	t->set = true;
	return 0;
}

int net_token_take(struct net_conn *c, const struct netmsg_token *want, uint8_t *got,
		   size_t *n)
{
	while (*n < NETMSG_TOKEN_LEN) {
		ssize_t r = net_conn_read(c, got + *n, NETMSG_TOKEN_LEN - *n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (!r)
			return -ECONNRESET;
		*n += r;
	}
	return netmsg_token_eq(got, want->b) ? 1 : -EACCES;
}

const char *net_token_why(int e)
{
	return e == -EACCES ? "wrong session token"
	       : e == -ETIMEDOUT ? "no session token in time"
	       : e == -ECONNRESET ? "closed before its session token" : "connection error";
}

/* A refusal of a session's connection: one line naming the peer. */
static void session_refused(void (*log)(void *, const char *), void *arg, const char *who,
			    const struct sockaddr_storage *from, const char *why)
{
	char line[256], host[64];
	uint32_t port;

	if (!log)
		return;
	net_peer_name((const struct sockaddr *)from, host, sizeof(host), &port);
	snprintf(line, sizeof(line), "%s: refused a connection from %s:%u: %s", who, host, port,
		 why);
	log(arg, line);
}

int net_accept_session(int lfd, const struct sockaddr_storage *peer, struct net_tls *t,
		       const struct netmsg_token *tok, uint64_t at_ms, volatile sig_atomic_t *stop,
		       void (*log)(void *arg, const char *line), void *log_arg, const char *who,
		       struct net_conn *out)
{
	for (;;) {
		struct net_conn c = { .fd = -1 };
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		uint64_t now = net_now_ms(), by;
		uint8_t got[NETMSG_TOKEN_LEN];
		int fd, e;

		if (now >= at_ms)
			return -ETIMEDOUT;
		fd = net_accept_from(lfd, peer, at_ms - now, stop);
		if (fd < 0)
			return fd;
		getpeername(fd, (struct sockaddr *)&from, &len);
		c.fd = fd;
		/* Reads wait under poll, to the deadline: never in a blocking recv. */
		net_set_nonblock(fd, true);
		/*
		 * One connection that says nothing holds the next (in the
		 * listen queue) for NET_TOKEN_MS at most, not for the whole wait.
		 */
		now = net_now_ms();
		by = now + NET_TOKEN_MS < at_ms ? now + NET_TOKEN_MS : at_ms;
		e = t ? net_conn_tls(&c, t, by, stop) : 0;
		if (e && e != -EINTR) {
			session_refused(log, log_arg, who, &from,
					e == -ETIMEDOUT ? "TLS handshake timed out"
					: "TLS handshake failed (another --psk, or none)");
			net_conn_close(&c);
			continue;
		}
		if (!e && tok && tok->set) {
			e = net_read_by(&c, got, sizeof(got), by, stop);
			if (!e && !netmsg_token_eq(got, tok->b))
				e = -EACCES;
			if (e && e != -EINTR) {
				session_refused(log, log_arg, who, &from, net_token_why(e));
				net_conn_close(&c);
				continue;
			}
		}
		if (e) {
			net_conn_close(&c);
			return e;
		}
		net_set_nonblock(fd, false);
		*out = c;
		return 0;
	}
}

int net_vsock_probe(uint32_t *cid, bool *loopback, const char **why)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	int lfd, fd, dev;

	*loopback = false;
	*cid = VMADDR_CID_ANY;
	lfd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		*why = "no vsock in this kernel (module vsock not loaded?)";
		return -errno;
	}
	dev = open("/dev/vsock", O_RDONLY | O_CLOEXEC);
	if (dev >= 0) {
		unsigned int c;

		if (!ioctl(dev, IOCTL_VM_SOCKETS_GET_LOCAL_CID, &c))
			*cid = c;
		close(dev);
	}
	/* A listener of our own, and a connection to it through CID 1. */
	net_sa_vsock(&a, VMADDR_CID_ANY, 0);
	if (net_bind(lfd, &a, 0) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &len)) {
		int e = -errno;

		close(lfd);
		*why = "cannot listen on vsock";
		return e ? e : -EIO;
	}
	net_sa_vsock(&a, VMADDR_CID_LOCAL, net_sa_port(&a));
	fd = net_dial_sa(&a, 500);
	if (fd >= 0) {
		*loopback = true;
		close(fd);
	}
	close(lfd);
	return 0;
}

int net_bind_addr(const char *bind_to, bool vsock, struct sockaddr_storage *a)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICHOST };
	struct addrinfo *res = NULL;
	int e;

	memset(a, 0, sizeof(*a));
	if (vsock) {
		struct net_cidr c;

		/* Any CID of this machine's unless one is named. */
		if (!bind_to) {
			net_sa_vsock(a, VMADDR_CID_ANY, 0);
			return 0;
		}
		if (net_cidr_parse(bind_to, &c) || c.family != AF_VSOCK)
			return tr_fail(-EINVAL, "cannot listen on '%s': not a vsock CID", bind_to);
		net_sa_vsock(a, c.cid, 0);
		return 0;
	}
	if (!bind_to)
		bind_to = "127.0.0.1";
	e = getaddrinfo(bind_to, NULL, &hints, &res);
	if (e)
		return tr_fail(-EINVAL, "cannot listen on '%s': %s", bind_to, gai_strerror(e));
	memcpy(a, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

bool net_allowed(const struct net_cidr *allow, int nallow, const struct sockaddr *sa)
{
	static const struct net_cidr loop4 = { .family = AF_INET, .addr = { 127 }, .bits = 8 };
	static const struct net_cidr loop6 = { .family = AF_INET6, .addr = { [15] = 1 },
					       .bits = 128 };
	static const struct net_cidr local = { .family = AF_VSOCK, .cid = VMADDR_CID_LOCAL };
	static const struct net_cidr host = { .family = AF_VSOCK, .cid = VMADDR_CID_HOST };

	if (!nallow)
		return net_cidr_match(&loop4, sa) || net_cidr_match(&loop6, sa) ||
		       net_cidr_match(&local, sa) || net_cidr_match(&host, sa);
	for (int i = 0; i < nallow; i++)
		if (net_cidr_match(&allow[i], sa))
			return true;
	return false;
}

int net_accept(struct net_acceptor *a, int wait_ms, struct sockaddr_storage *peer, char *host,
	       size_t hostlen, uint32_t *port)
{
	struct pollfd p = { .fd = a->lfd, .events = POLLIN };
	socklen_t len = sizeof(*peer);
	char line[160];
	int fd, r;

	/* Out of descriptors: the listening socket is left alone a while. */
	if (net_now_ms() < a->backoff_ms)
		p.fd = -1;
	r = poll(&p, 1, wait_ms);
	if (r < 0)
		return -errno;
	if (!r || !p.revents)
		return -ETIMEDOUT;
	fd = accept4(a->lfd, (struct sockaddr *)peer, &len, SOCK_CLOEXEC);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
		/*
		 * The connection stays queued and poll() would say so at once,
		 * for ever: wait a second, say it once.
		 */
		if (!a->starved && a->log) {
			snprintf(line, sizeof(line), "cannot accept a client: %s: waiting for "
				 "clients to end", strerror(errno));
			a->log(a->log_arg, line);
		}
		a->starved = true;
		a->backoff_ms = net_now_ms() + 1000;
		return -EMFILE;
	}
	if (fd < 0)
		return -errno;
	a->starved = false;
	net_peer_name((struct sockaddr *)peer, host, hostlen, port);
	if (!net_allowed(a->allow, a->nallow, (struct sockaddr *)peer)) {
		if (a->log) {
			snprintf(line, sizeof(line), "%s:%u: refused: address not allowed (see "
				 "--allow)", host, *port);
			a->log(a->log_arg, line);
		}
		close(fd);
		return -EACCES;
	}
	return fd;
}
