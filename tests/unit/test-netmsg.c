// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace-cmd's protocol v3 messages (netmsg.h): the bytes trace-cmd sends
 * and expects, and hostile ones refused; --allow ranges and HOST:PORT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/vm_sockets.h>

#include "net.h"
#include "netmsg.h"
#include "unit.h"

/* TINIT as trace-cmd record -N -t sends it for 2 CPUs of 4 KB pages. */
static const uint8_t tc_tinit[] = {
	0, 0, 0, 28,  0, 0, 0, 1,  0, 0, 0, 12,
	0, 0, 0, 2,  0, 0, 16, 0,  0, 0, 0, 1,
	't', 'c', 'p', 0,
};

TEST(tinit_matches_trace_cmd)
{
	uint8_t buf[NETMSG_MAX];
	struct netmsg m;
	struct netmsg_tinit t;
	const char *why = NULL;

	CHECK(netmsg_put_tinit(buf, 2, 4096, false) == sizeof(tc_tinit));
	CHECK(!memcmp(buf, tc_tinit, sizeof(tc_tinit)));
	CHECK(netmsg_take(tc_tinit, sizeof(tc_tinit), &m, &why) == sizeof(tc_tinit));
	CHECK(m.cmd == NETMSG_TINIT && m.body_len == 12 && m.data_len == 4);
	CHECK(!netmsg_tinit_parse(&m, &t, &why));
	CHECK(t.cpus == 2 && t.page_size == 4096 && t.tcp && !t.vsock);
}

TEST(partial_messages_wait)
{
	struct netmsg m;
	const char *why = NULL;

	for (size_t n = 0; n < sizeof(tc_tinit); n++)
		CHECK(netmsg_take(tc_tinit, n, &m, &why) == 0);
}

TEST(rinit_round_trip)
{
	uint8_t buf[NETMSG_MAX];
	uint32_t ports[3] = { 1, 40000, 65535 }, got[4];
	struct netmsg m;
	const char *why = NULL;
	uint32_t n = 0;
	bool tg = true;
	size_t len = netmsg_put_rinit(buf, ports, 3, false, NULL);

	/* header, cpus, then "1\0" "40000\0" "65535\0" */
	CHECK(len == 12 + 4 + 2 + 6 + 6);
	CHECK(!memcmp(buf + 16, "1\0" "40000\0" "65535", 14));
	CHECK(netmsg_take(buf, len, &m, &why) == (ssize_t)len);
	CHECK(!netmsg_rinit_parse(&m, got, 4, &n, &tg, NULL, &why));
	CHECK(n == 3 && got[0] == 1 && got[1] == 40000 && got[2] == 65535 && !tg);
	/* More CPUs than the caller has room for. */
	CHECK(netmsg_rinit_parse(&m, got, 2, &n, NULL, NULL, &why) == -EBADMSG);
	CHECK(netmsg_put_rinit(buf, ports, 0, false, NULL) == 0);
	/* tr listen names saved_tgids after the ports: trace-cmd reads the ports alone. */
	len = netmsg_put_rinit(buf, ports, 3, true, NULL);
	CHECK(len == 12 + 4 + 2 + 6 + 6 + sizeof(NETMSG_TR_TGIDS));
	CHECK(!memcmp(buf + 30, NETMSG_TR_TGIDS, sizeof(NETMSG_TR_TGIDS)));
	CHECK(netmsg_take(buf, len, &m, &why) == (ssize_t)len);
	CHECK(!netmsg_rinit_parse(&m, got, 4, &n, &tg, NULL, &why));
	CHECK(n == 3 && got[2] == 65535 && tg);
	/* Another listener's strings there are ignored. */
	memcpy(buf + 30, "tr-saved-tgidz", sizeof(NETMSG_TR_TGIDS));
	CHECK(!netmsg_rinit_parse(&m, got, 4, &n, &tg, NULL, &why) && n == 3 && !tg);
	/* An unterminated one too. */
	m.data_len--;
	memcpy(buf + 30, NETMSG_TR_TGIDS "x", sizeof(NETMSG_TR_TGIDS));
	CHECK(!netmsg_rinit_parse(&m, got, 4, &n, &tg, NULL, &why) && n == 3 && !tg);
	/* vsock's ports are 32-bit: trace-cmd listen -V's are mostly above 65535. */
	ports[1] = 70000;
	ports[2] = 4294967294u;
	len = netmsg_put_rinit(buf, ports, 3, false, NULL);
	CHECK(netmsg_take(buf, len, &m, &why) == (ssize_t)len);
	CHECK(!netmsg_rinit_parse(&m, got, 4, &n, NULL, NULL, &why));
	CHECK(n == 3 && got[1] == 70000 && got[2] == 4294967294u);
}

TEST(session_token_round_trip)
{
	uint8_t buf[NETMSG_MAX];
	uint32_t ports[2] = { 40000, 40001 }, got[2];
	struct netmsg_token t = { .set = true }, back;
	struct netmsg_tinit ti;
	struct netmsg m;
	const char *why = NULL;
	uint32_t n;
	bool tg;
	size_t len;

	for (uint32_t i = 0; i < NETMSG_TOKEN_LEN; i++)
		t.b[i] = 0xf0 + i;
	/* TINIT names it after its one counted option: trace-cmd reads "tcp" alone. */
	len = netmsg_put_tinit(buf, 2, 4096, true);
	CHECK(len == sizeof(tc_tinit) + sizeof(NETMSG_TR_SESSION));
	CHECK(netmsg_be32(buf + 20) == 1);
	CHECK(!memcmp(buf + 24, "tcp\0" NETMSG_TR_SESSION, 4 + sizeof(NETMSG_TR_SESSION)));
	CHECK(netmsg_take(buf, len, &m, &why) == (ssize_t)len);
	CHECK(!netmsg_tinit_parse(&m, &ti, &why) && ti.tcp && ti.session);
	CHECK(!netmsg_tinit_parse(&(struct netmsg){ .cmd = NETMSG_TINIT, .body = tc_tinit + 12,
						   .body_len = 12, .data = tc_tinit + 24,
						   .data_len = 4 }, &ti, &why) && !ti.session);
	/* RINIT: the ports, saved_tgids, then the token. */
	len = netmsg_put_rinit(buf, ports, 2, true, &t);
	CHECK(len == 12 + 4 + 12 + sizeof(NETMSG_TR_TGIDS) + NETMSG_TOKEN_STR);
	CHECK(!memcmp(buf + len - NETMSG_TOKEN_STR, "tr-session=f0f1f2f3", 19));
	CHECK(buf[len - 1] == 0);
	CHECK(netmsg_take(buf, len, &m, &why) == (ssize_t)len);
	CHECK(!netmsg_rinit_parse(&m, got, 2, &n, &tg, &back, &why));
	CHECK(n == 2 && tg && back.set && !memcmp(back.b, t.b, NETMSG_TOKEN_LEN));
	CHECK(netmsg_token_eq(back.b, t.b));
	back.b[NETMSG_TOKEN_LEN - 1] ^= 1;
	CHECK(!netmsg_token_eq(back.b, t.b));
	/* trace-cmd's RINIT, and tr's without a token: none. */
	len = netmsg_put_rinit(buf, ports, 2, true, NULL);
	CHECK(netmsg_take(buf, len, &m, &why) == (ssize_t)len);
	CHECK(!netmsg_rinit_parse(&m, got, 2, &n, &tg, &back, &why) && !back.set);
	/* A token of a wrong length or digit is a bad RINIT, not one ignored. */
	len = netmsg_put_rinit(buf, ports, 2, false, &t);
	buf[len - 2] = 'g';
	CHECK(netmsg_take(buf, len, &m, &why) == (ssize_t)len);
	CHECK(netmsg_rinit_parse(&m, got, 2, &n, NULL, &back, &why) == -EBADMSG);
	CHECK_STR(why, "bad session token in RINIT");
	buf[len - 2] = 0;
	CHECK(netmsg_rinit_parse(&m, got, 2, &n, NULL, &back, &why) == -EBADMSG);
	/* Another string that only starts alike is ignored. */
	CHECK(netmsg_token_of((const uint8_t *)"tr-sessions", (const uint8_t *)"tr-sessions" + 11,
			      &back) == 0);
	CHECK(netmsg_token_of((const uint8_t *)"tr-session=", (const uint8_t *)"tr-session=" + 11,
			      &back) == -EBADMSG);
}

static ssize_t take_bytes(const uint8_t *b, size_t n, const char **why)
{
	struct netmsg m;

	return netmsg_take(b, n, &m, why);
}

TEST(tgids_checked)
{
	static const char *const good[] = { "", "1 1\n", "123 45\n2147483647 7\n" };
	static const char *const bad[] = {
		"1 1", "1  1\n", "1 1\n\n", "-1 1\n", "1 1 \n", "1\n", " 1 1\n", "1\t1\n",
		"2147483648 1\n", "1 99999999999\n", "1 1\r\n", "a 1\n",
	};
	const char *why = NULL;

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		CHECK(!netmsg_tgids_check(good[i], strlen(good[i]), &why));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		why = NULL;
		CHECK(netmsg_tgids_check(bad[i], strlen(bad[i]), &why) == -EBADMSG);
		CHECK(why && !strcmp(why, "bad saved_tgids line"));
	}
	/* A NUL inside is no digit. */
	CHECK(netmsg_tgids_check("1 1\n\0 1\n", 8, &why) == -EBADMSG);
	CHECK(netmsg_tgids_check("", NETMSG_MAX_TGIDS + 1, &why) == -EBADMSG);
	CHECK(!strcmp(why, "saved_tgids over 64 MB"));
}

TEST(hostile_headers_refused)
{
	const char *why = NULL;
	uint8_t big[12] = { 0, 0, 0x20, 0x01, 0, 0, 0, 3 };	/* 8193 bytes */
	uint8_t small[12] = { 0, 0, 0, 11, 0, 0, 0, 3 };
	uint8_t cmd[12] = { 0, 0, 0, 12, 0, 0, 0, 99 };
	uint8_t csize[16] = { 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0, 5 };
	uint8_t neg[12] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 3 };

	CHECK(take_bytes(big, 12, &why) == -EBADMSG);
	CHECK_STR(why, "message over 8192 bytes");
	CHECK(take_bytes(small, 12, &why) == -EBADMSG);
	CHECK(take_bytes(cmd, 12, &why) == -EBADMSG);
	CHECK_STR(why, "unknown message type");
	CHECK(take_bytes(csize, 16, &why) == -EBADMSG);
	CHECK(take_bytes(neg, 12, &why) == -EBADMSG);
}

static int tinit_of(uint32_t cpus, uint32_t page, uint32_t nopt, const char *opts, size_t olen,
		    const char **why)
{
	uint8_t b[64] = { 0 };
	struct netmsg m;
	struct netmsg_tinit t;
	uint32_t size = 24 + olen;

	b[3] = size;
	b[7] = NETMSG_TINIT;
	b[11] = 12;
	b[12] = cpus >> 24; b[13] = cpus >> 16; b[14] = cpus >> 8; b[15] = cpus;
	b[16] = page >> 24; b[17] = page >> 16; b[18] = page >> 8; b[19] = page;
	b[23] = nopt;
	memcpy(b + 24, opts, olen);
	if (netmsg_take(b, size, &m, why) != size)
		return -1;
	return netmsg_tinit_parse(&m, &t, why);
}

TEST(tinit_fields_checked)
{
	const char *why = NULL;

	CHECK(tinit_of(2, 4096, 0, "", 0, &why) == 0);
	CHECK(tinit_of(0, 4096, 0, "", 0, &why) == -EBADMSG);
	CHECK(tinit_of(1025, 4096, 0, "", 0, &why) == -EBADMSG);
	CHECK(tinit_of(2, 4095, 0, "", 0, &why) == -EBADMSG);
	CHECK(tinit_of(2, 6000, 0, "", 0, &why) == -EBADMSG);
	CHECK(tinit_of(2, 0x80000000u, 0, "", 0, &why) == -EBADMSG);
	/* An option count past the data, an option without its NUL. */
	CHECK(tinit_of(2, 4096, 2, "tcp", 4, &why) == -EBADMSG);
	CHECK(tinit_of(2, 4096, 1, "tcp", 3, &why) == -EBADMSG);
	CHECK(tinit_of(2, 4096, 255, "", 0, &why) == -EBADMSG);
	/* Unknown options are skipped, as trace-cmd does. */
	CHECK(tinit_of(2, 4096, 2, "xyz\0tcp", 8, &why) == 0);
}

TEST(rinit_ports_checked)
{
	static const char *bad[] = { "0", "4294967295", "12a", "", "-1", "12345678901", "+5" };
	const char *why = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t b[64] = { 0 };
		struct netmsg m;
		uint32_t p[1];
		uint32_t n;
		size_t l = strlen(bad[i]) + 1, size = 16 + l;

		b[3] = size;
		b[7] = NETMSG_RINIT;
		b[11] = 4;
		b[15] = 1;
		memcpy(b + 16, bad[i], l);
		CHECK(netmsg_take(b, size, &m, &why) == (ssize_t)size);
		CHECK(netmsg_rinit_parse(&m, p, 1, &n, NULL, NULL, &why) == -EBADMSG);
	}
}

TEST(handshake_strings)
{
	const char *why = NULL;
	char longs[64];

	CHECK(sizeof(NETMSG_V3) == 5 && sizeof(NETMSG_MAGIC) == NETMSG_MAGIC_LEN);
	CHECK(netmsg_take_str("-1V3\0rest", 9, 64, &why) == 5);
	CHECK(netmsg_take_str("-1V", 3, 64, &why) == 0);
	memset(longs, 'x', sizeof(longs));
	CHECK(netmsg_take_str(longs, sizeof(longs), sizeof(longs), &why) == -EBADMSG);
}

static struct sockaddr_in v4(const char *a)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	inet_pton(AF_INET, a, &s.sin_addr);
	return s;
}

TEST(allow_ranges)
{
	struct net_cidr c;
	struct sockaddr_in a = v4("10.1.2.3"), b = v4("11.1.2.3"), l = v4("127.0.0.1");
	struct sockaddr_in6 m = { .sin6_family = AF_INET6 };

	CHECK(!net_cidr_parse("10.0.0.0/8", &c));
	CHECK(net_cidr_match(&c, (struct sockaddr *)&a));
	CHECK(!net_cidr_match(&c, (struct sockaddr *)&b));
	CHECK(!net_cidr_loopback(&c));
	inet_pton(AF_INET6, "::ffff:10.9.9.9", &m.sin6_addr);
	CHECK(net_cidr_match(&c, (struct sockaddr *)&m));
	CHECK(!net_cidr_parse("10.1.2.3", &c) && c.bits == 32);
	CHECK(!net_cidr_parse("127.0.0.1", &c) && net_cidr_loopback(&c));
	CHECK(net_cidr_match(&c, (struct sockaddr *)&l));
	CHECK(!net_cidr_parse("::1", &c) && net_cidr_loopback(&c));
	CHECK(!net_cidr_match(&c, (struct sockaddr *)&l));
	CHECK(!net_cidr_parse("0.0.0.0/0", &c) && net_cidr_match(&c, (struct sockaddr *)&b));
	CHECK(net_cidr_parse("10.0.0.0/33", &c) == -EINVAL);
	CHECK(net_cidr_parse("10.0.0.0/8x", &c) == -EINVAL);
	CHECK(net_cidr_parse("example.com", &c) == -EINVAL);
	CHECK(net_cidr_parse("/8", &c) == -EINVAL);
}

TEST(host_port)
{
	char *h = NULL;
	uint16_t p = 0;

	CHECK(!net_hostport_parse("127.0.0.1:5000", &h, &p) && p == 5000);
	CHECK_OWNED(h, "127.0.0.1");
	CHECK(!net_hostport_parse("[::1]:80", &h, &p) && p == 80);
	CHECK_OWNED(h, "::1");
	CHECK(!net_hostport_parse("6000", &h, &p) && p == 6000);
	CHECK_OWNED(h, "localhost");
	CHECK(net_hostport_parse("host:0", &h, &p) == -EINVAL);
	CHECK(net_hostport_parse("host:65536", &h, &p) == -EINVAL);
	CHECK(net_hostport_parse(":80", &h, &p) == -EINVAL);
	CHECK(net_hostport_parse("::1:80", &h, &p) == -EINVAL);
	CHECK(net_hostport_parse("[::1]80", &h, &p) == -EINVAL);
	CHECK(!h);
}

TEST(peer_names_are_file_names)
{
	struct sockaddr_in a = v4("10.0.0.7");
	struct sockaddr_in6 m = { .sin6_family = AF_INET6, .sin6_port = htons(99) };
	struct sockaddr_vm vm = { .svm_family = AF_VSOCK, .svm_cid = 3, .svm_port = 70000 };
	char h[64];
	uint32_t p;

	a.sin_port = htons(4242);
	net_peer_name((struct sockaddr *)&a, h, sizeof(h), &p);
	CHECK_STR(h, "10.0.0.7");
	CHECK(p == 4242);
	inet_pton(AF_INET6, "::ffff:192.168.0.1", &m.sin6_addr);
	net_peer_name((struct sockaddr *)&m, h, sizeof(h), &p);
	CHECK_STR(h, "192.168.0.1");
	CHECK(p == 99);
	inet_pton(AF_INET6, "fe80::1", &m.sin6_addr);
	net_peer_name((struct sockaddr *)&m, h, sizeof(h), &p);
	CHECK_STR(h, "fe80::1");
	CHECK(!strchr(h, '/'));
	/* A vsock peer's port is 32-bit (the kernel's auto-bound ones are). */
	net_peer_name((struct sockaddr *)&vm, h, sizeof(h), &p);
	CHECK_STR(h, "vsock-3");
	CHECK(p == 70000);
}

TEST(vsock_addresses)
{
	struct sockaddr_vm g = { .svm_family = AF_VSOCK, .svm_cid = 3 };
	struct sockaddr_vm one = { .svm_family = AF_VSOCK, .svm_cid = 1 };
	struct sockaddr_in l = v4("127.0.0.1");
	struct net_cidr c;
	uint32_t cid = 0;
	uint16_t port = 0;

	CHECK(!net_vsock_parse("3:5000", &cid, &port) && cid == 3 && port == 5000);
	CHECK(!net_vsock_parse("4294967294:1", &cid, &port) && cid == 4294967294u);
	CHECK(net_vsock_parse("3", &cid, &port) == -EINVAL);
	CHECK(net_vsock_parse("x:5", &cid, &port) == -EINVAL);
	CHECK(net_vsock_parse("0:5", &cid, &port) == -EINVAL);
	CHECK(net_vsock_parse("4294967295:5", &cid, &port) == -EINVAL);
	CHECK(net_vsock_parse("3:0", &cid, &port) == -EINVAL);
	CHECK(net_vsock_parse("3:65536", &cid, &port) == -EINVAL);
	CHECK(net_vsock_parse(":5", &cid, &port) == -EINVAL);
	CHECK(net_vsock_parse("+3:5", &cid, &port) == -EINVAL);
	/* --allow CID: that CID only, never an IP peer; 1 and 2 count as local. */
	CHECK(!net_cidr_parse("3", &c) && c.family == AF_VSOCK && c.cid == 3);
	CHECK(net_cidr_match(&c, (struct sockaddr *)&g));
	CHECK(!net_cidr_match(&c, (struct sockaddr *)&one));
	CHECK(!net_cidr_match(&c, (struct sockaddr *)&l));
	CHECK(!net_cidr_loopback(&c));
	CHECK(!net_cidr_parse("1", &c) && net_cidr_loopback(&c));
	CHECK(!net_cidr_parse("2", &c) && net_cidr_loopback(&c));
	CHECK(!net_cidr_parse("127.0.0.1", &c) && !net_cidr_match(&c, (struct sockaddr *)&one));
	CHECK(net_cidr_parse("0", &c) == -EINVAL);
	CHECK(net_cidr_parse("3x", &c) == -EINVAL);
	CHECK(net_cidr_parse("4294967295", &c) == -EINVAL);
}

UNIT_MAIN(T(tinit_matches_trace_cmd), T(partial_messages_wait), T(rinit_round_trip),
	  T(session_token_round_trip),
	  T(tgids_checked), T(hostile_headers_refused), T(tinit_fields_checked), T(rinit_ports_checked),
	  T(handshake_strings), T(allow_ranges), T(host_port), T(peer_names_are_file_names),
	  T(vsock_addresses))
