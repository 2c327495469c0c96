// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Blocking socket helpers for the agent (net-agent.c) and its host
 * (net-guest.c), over net_conn so that --psk's TLS is the same code
 * (net-local.h).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "net-local.h"
#include "netmsg.h"

int net_write_all(struct net_conn *c, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = net_conn_write(c, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? (errno == EAGAIN ? -ETIMEDOUT : -errno) : -EPIPE;
		p += w;
		n -= w;
	}
	return 0;
}

int net_read_all(struct net_conn *c, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = net_conn_read(c, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (!r)
			return -ECONNRESET;
		p += r;
		n -= r;
	}
	return 0;
}

int net_put_meta(struct net_conn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint8_t hdr[NETMSG_HDR];
	int e = 0;

	while (len && !e) {
		uint32_t n = len > NETMSG_MAX_DATA ? NETMSG_MAX_DATA : len;

		netmsg_put_data_hdr(hdr, n);
		e = net_write_all(c, hdr, sizeof(hdr));
		if (!e)
			e = net_write_all(c, p, n);
		p += n;
		len -= n;
	}
	return e ? e : net_write_all(c, hdr, netmsg_put(hdr, NETMSG_FIN_DATA));
}

int net_read_msg(struct net_conn *c, uint8_t *buf, struct netmsg *m, const char **why)
{
	uint32_t size;
	ssize_t t;
	int e = net_read_all(c, buf, NETMSG_HDR);

	if (e)
		return e;
	size = (uint32_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3];
	if (size < NETMSG_HDR || size > NETMSG_MAX) {
		*why = size < NETMSG_HDR ? "message shorter than its header"
					 : "message over 8192 bytes";
		return -EBADMSG;
	}
	e = net_read_all(c, buf + NETMSG_HDR, size - NETMSG_HDR);
	if (e)
		return e;
	t = netmsg_take(buf, size, m, why);
	return t < 0 ? (int)t : 0;
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

int net_dial(const char *host, uint16_t port, int timeout_ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char sport[8];
	int e, fd = -1;

	snprintf(sport, sizeof(sport), "%u", port);
	if (getaddrinfo(host, sport, &hints, &res))
		return -EHOSTUNREACH;
	e = -ECONNREFUSED;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			e = -errno;
			continue;
		}
		net_set_timeout(fd, timeout_ms);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			e = errno == EINPROGRESS ? -ETIMEDOUT : -errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : e;
}

int net_listen_at(const struct sockaddr_storage *addr, uint16_t port, uint16_t *bound)
{
	struct sockaddr_storage a = *addr;
	socklen_t len = a.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						: sizeof(struct sockaddr_in);
	int one = 1, fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&a)->sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&a, len) || listen(fd, 4) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		int e = -errno;

		close(fd);
		return e;
	}
	*bound = ntohs(a.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port
					       : ((struct sockaddr_in *)&a)->sin_port);
	return fd;
}

bool net_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

static uint64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int net_accept_from(int lfd, const struct sockaddr_storage *peer, int ms)
{
	uint64_t end = mono_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		uint64_t now = mono_ms();
		int n, fd;

		if (now >= end)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)(end - now));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ETIMEDOUT;
		fd = accept4(lfd, (struct sockaddr *)&from, &len, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		/* Another machine at a port the agent opened for this host: not its business. */
		if (net_same_host(&from, peer)) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
			return fd;
		}
		close(fd);
	}
}
