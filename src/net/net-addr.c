// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Addresses for tr listen and tr record -N: --allow ranges, HOST:PORT,
 * and a peer's address as a file name takes it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/vm_sockets.h>

#include "net.h"
#include "parse.h"
#include "tr.h"

/* A vsock context id: 1 (this machine), 2 (the host), a guest's; not -1U (any). */
static int parse_cid(const char *s, uint32_t *cid)
{
	uint64_t v;

	if (parse_u64(s, &v) || !v || v >= UINT32_MAX)
		return -EINVAL;
	*cid = v;
	return 0;
}

int net_cidr_parse(const char *s, struct net_cidr *c)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	int max;

	memset(c, 0, sizeof(*c));
	/* A number alone is a vsock context id (vsock has no ranges). */
	if (!slash && *s >= '0' && *s <= '9' && !strchr(s, '.') && !strchr(s, ':')) {
		if (parse_cid(s, &c->cid))
			return tr_fail(-EINVAL, "bad vsock CID '%s': give a number of 1 to %u", s,
				       UINT32_MAX - 1);
		c->family = AF_VSOCK;
		return 0;
	}
	if (!n || n >= sizeof(addr))
		return tr_fail(-EINVAL, "bad address range '%s'", s);
	memcpy(addr, s, n);
	addr[n] = 0;
	if (inet_pton(AF_INET, addr, c->addr) == 1) {
		c->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, addr, c->addr) == 1) {
		c->family = AF_INET6;
		max = 128;
	} else {
		return tr_fail(-EINVAL, "bad address range '%s': not an IPv4 or IPv6 address", s);
	}
	c->bits = max;
	if (slash && parse_int(slash + 1, 0, max, &c->bits))
		return tr_fail(-EINVAL, "bad address range '%s': prefix length must be 0 to %d",
			       s, max);
	return 0;
}

static bool prefix_eq(const uint8_t *a, const uint8_t *b, int bits)
{
	int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, whole))
		return false;
	if (!rest)
		return true;
	return ((a[whole] ^ b[whole]) & (0xff << (8 - rest))) == 0;
}

bool net_cidr_match(const struct net_cidr *c, const struct sockaddr *sa)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (sa->sa_family == AF_VSOCK)
		return c->family == AF_VSOCK &&
		       c->cid == ((const struct sockaddr_vm *)(const void *)sa)->svm_cid;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		return c->family == AF_INET && prefix_eq(c->addr, (const void *)&in->sin_addr,
							 c->bits);
	}
	if (sa->sa_family == AF_INET6) {
		const uint8_t *a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;

		if (c->family == AF_INET6)
			return prefix_eq(c->addr, a, c->bits);
		/* ::ffff:a.b.c.d on a dual-stack socket is the IPv4 peer. */
		return !memcmp(a, mapped, 12) && prefix_eq(c->addr, a + 12, c->bits);
	}
	return false;
}

bool net_cidr_loopback(const struct net_cidr *c)
{
	static const uint8_t one[16] = { [15] = 1 };

	if (c->family == AF_VSOCK)
		return c->cid == VMADDR_CID_LOCAL || c->cid == VMADDR_CID_HOST;
	if (c->family == AF_INET)
		return c->bits >= 8 && c->addr[0] == 127;
	return c->bits == 128 && !memcmp(c->addr, one, 16);
}

int net_hostport_parse(const char *s, char **host, uint16_t *port)
{
	const char *colon;
	char *h;
	int p;

	*host = NULL;
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return tr_fail(-EINVAL, "bad address '%s': give [ADDR]:PORT", s);
		h = strndup(s + 1, close - s - 1);
		colon = close + 1;
	} else if ((colon = strrchr(s, ':'))) {
		if (strchr(s, ':') != colon)
			return tr_fail(-EINVAL, "bad address '%s': write an IPv6 address as "
						"[ADDR]:PORT", s);
		h = strndup(s, colon - s);
	} else {
		h = xstrdup("localhost");
		colon = s - 1;
	}
	if (!h)
		abort();
	if (!*h || parse_int(colon + 1, 1, 65535, &p)) {
		free(h);
		return tr_fail(-EINVAL, "bad address '%s': give HOST:PORT with a port of 1 to 65535",
			       s);
	}
	*host = h;
	*port = p;
	return 0;
}

int net_vsock_parse(const char *s, uint32_t *cid, uint16_t *port)
{
	const char *colon = strchr(s, ':');
	char *c;
	int p, e;

	if (!colon)
		return tr_fail(-EINVAL, "bad vsock address '%s': give CID:PORT", s);
	c = strndup(s, colon - s);
	if (!c)
		abort();
	e = parse_cid(c, cid);
	free(c);
	if (e)
		return tr_fail(-EINVAL, "bad vsock address '%s': the CID must be a number of 1 to %u",
			       s, UINT32_MAX - 1);
	if (parse_int(colon + 1, 1, 65535, &p))
		return tr_fail(-EINVAL, "bad vsock address '%s': give a port of 1 to 65535", s);
	*port = p;
	return 0;
}

void net_peer_name(const struct sockaddr *sa, char *host, size_t n, uint32_t *port)
{
	char buf[INET6_ADDRSTRLEN] = "unknown";
	size_t j = 0;

	*port = 0;
	if (sa->sa_family == AF_VSOCK) {
		const struct sockaddr_vm *vm = (const void *)sa;

		snprintf(buf, sizeof(buf), "vsock-%u", vm->svm_cid);
		*port = vm->svm_port;
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf));
		*port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof(buf));
		*port = ntohs(in6->sin6_port);
		/* An IPv4 peer of a dual-stack socket is named as IPv4. */
		if (!strncmp(buf, "::ffff:", 7) && strchr(buf + 7, '.'))
			memmove(buf, buf + 7, strlen(buf + 7) + 1);
	}
	/* No path separators, nothing a shell or a file system takes specially. */
	for (size_t i = 0; buf[i] && j + 1 < n; i++) {
		char ch = buf[i];
		bool ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
			  (ch >= 'A' && ch <= 'Z') || ch == ':' || ch == '-' || (ch == '.' && j);

		host[j++] = ok ? ch : '_';
	}
	host[j] = 0;
}
