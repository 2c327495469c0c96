// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's messages (netmsg.h): TRACE_RESP byte for byte as trace-cmd
 * 3.1.6's agent sends it, TRACE_REQ as its record -A lays it out, hostile
 * requests refused, the arguments an agent takes, TIME_SYNC and the ptp
 * payloads, and the offset of the fastest probe.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "netmsg.h"
#include "unit.h"

/* What trace-cmd agent -N answered tr record -A on this machine: 2 CPUs. */
static const uint8_t tc_resp[] = {
	0, 0, 0, 62,  0, 0, 0, 7,  0, 0, 0, 40,
	0, 0, 0, 0,  0, 0, 0, 2,  0, 0, 0x10, 0,
	0x2d, 0x9f, 0xfa, 0x29, 0xc7, 0xd6, 0x9b, 0x0e,
	'p', 't', 'p', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0x05, 0xde,
	'1', '5', '0', '0', 0, '1', '5', '0', '1', 0,
};

TEST(trace_resp_as_trace_cmd)
{
	uint8_t buf[NETMSG_MAX];
	uint32_t ports[4];
	struct netmsg m;
	struct netmsg_trace_resp r;
	const char *why = NULL;

	CHECK(netmsg_take(tc_resp, sizeof(tc_resp), &m, &why) == sizeof(tc_resp));
	CHECK(!netmsg_trace_resp_parse(&m, &r, ports, 4, &why));
	CHECK(r.cpus == 2 && r.page_size == 4096 && r.trace_id == 0x2d9ffa29c7d69b0eULL);
	CHECK_STR(r.proto, "ptp");
	CHECK(r.tsync_port == 1502 && ports[0] == 1500 && ports[1] == 1501);
	CHECK(netmsg_put_trace_resp(buf, &r, ports) == sizeof(tc_resp));
	CHECK(!memcmp(buf, tc_resp, sizeof(tc_resp)));
	/* One CPU more than the ports it gives. */
	CHECK(netmsg_trace_resp_parse(&m, &r, ports, 1, &why) == -EBADMSG);
}

TEST(trace_req_layout)
{
	const char *argv[] = { "-e", "sched:sched_switch", "-C", "mono" };
	uint8_t buf[NETMSG_MAX];
	struct netmsg m;
	struct netmsg_trace_req r;
	const char *why = NULL;
	size_t n = netmsg_put_trace_req(buf, 0x0102030405060708ULL, 4, argv, true, false);

	/* header, {flags, argc, id}, ARGS {0, len, argc, strings}, PROTOS {1, 5, "ptp\0\0"} */
	CHECK(n == 12 + 16 + 8 + 4 + 3 + 19 + 3 + 5 + 8 + 5);
	CHECK(buf[11] == 16 && buf[20] == 1 && buf[27] == 8);
	CHECK(!memcmp(buf + 28, "\0\0\0\0\0\0\0\x22\0\0\0\x04-e", 14));
	CHECK(!memcmp(buf + n - 13, "\0\0\0\x01\0\0\0\x05ptp\0", 13));
	CHECK(netmsg_take(buf, n, &m, &why) == (ssize_t)n);
	CHECK(!netmsg_trace_req_parse(&m, &r, &why));
	CHECK(r.trace_id == 0x0102030405060708ULL && r.argc == 4 && r.ptp);
	CHECK_STR(r.argv[1], "sched:sched_switch");
	CHECK_STR(r.argv[3], "mono");
}

TEST(agent_session_token)
{
	const char *argv[] = { "-e", "sched:sched_switch" };
	uint8_t buf[NETMSG_MAX];
	uint32_t ports[4];
	struct netmsg m;
	struct netmsg_trace_req r;
	struct netmsg_trace_resp resp, back;
	const char *why = NULL;
	size_t n = netmsg_put_trace_req(buf, 7, 2, argv, true, true);

	/* The host's mark: a parameter of tr's own, empty, after trace-cmd's. */
	CHECK(!memcmp(buf + n - 8, "\x74\x72\0\x01\0\0\0\0", 8));
	CHECK(netmsg_take(buf, n, &m, &why) == (ssize_t)n);
	CHECK(!netmsg_trace_req_parse(&m, &r, &why) && r.session && r.ptp && r.argc == 2);
	n = netmsg_put_trace_req(buf, 7, 2, argv, true, false);
	CHECK(netmsg_take(buf, n, &m, &why) == (ssize_t)n);
	CHECK(!netmsg_trace_req_parse(&m, &r, &why) && !r.session);
	/* The agent's answer: the ports, then the token; trace-cmd's has none. */
	CHECK(netmsg_take(tc_resp, sizeof(tc_resp), &m, &why) == sizeof(tc_resp));
	CHECK(!netmsg_trace_resp_parse(&m, &resp, ports, 4, &why) && !resp.token.set);
	resp.token.set = true;
	memset(resp.token.b, 0xab, NETMSG_TOKEN_LEN);
	n = netmsg_put_trace_resp(buf, &resp, ports);
	CHECK(n == sizeof(tc_resp) + NETMSG_TOKEN_STR);
	CHECK(netmsg_take(buf, n, &m, &why) == (ssize_t)n);
	CHECK(!netmsg_trace_resp_parse(&m, &back, ports, 4, &why));
	CHECK(back.token.set && netmsg_token_eq(back.token.b, resp.token.b));
	CHECK(ports[0] == 1500 && ports[1] == 1501 && back.tsync_port == 1502);
	buf[n - 2] = 'X';
	CHECK(netmsg_trace_resp_parse(&m, &back, ports, 4, &why) == -EBADMSG);
}

/* A TRACE_REQ of the given parameter bytes. */
static size_t req_with(uint8_t *buf, const void *params, size_t len)
{
	memset(buf, 0, 28);
	buf[3] = 28 + len;
	buf[2] = (28 + len) >> 8;
	buf[7] = 6;
	buf[11] = 16;
	memcpy(buf + 28, params, len);
	return 28 + len;
}

TEST(hostile_requests_refused)
{
	uint8_t buf[NETMSG_MAX], p[600];
	struct netmsg m;
	struct netmsg_trace_req r;
	const char *why = NULL;
	size_t n;

	/* An argument without its NUL. */
	n = req_with(buf, "\0\0\0\0\0\0\0\x06\0\0\0\x01-e", 14);
	CHECK(netmsg_take(buf, n, &m, &why) == (ssize_t)n);
	CHECK(netmsg_trace_req_parse(&m, &r, &why) == -EBADMSG);
	/* A parameter longer than the message. */
	n = req_with(buf, "\0\0\0\0\0\0\x10\0\0\0\0\0", 12);
	netmsg_take(buf, n, &m, &why);
	CHECK(netmsg_trace_req_parse(&m, &r, &why) == -EBADMSG);
	/* 65 arguments. */
	memcpy(p, "\0\0\0\0\0\0\0\0\0\0\0\x41", 12);
	memset(p + 12, 0, 65);
	p[7] = 4 + 65;
	n = req_with(buf, p, 12 + 65);
	netmsg_take(buf, n, &m, &why);
	CHECK(netmsg_trace_req_parse(&m, &r, &why) == -EBADMSG);
	/* An argument of 300 bytes. */
	memcpy(p, "\0\0\0\0\0\0\x01\x31\0\0\0\x01", 12);
	memset(p + 12, 'a', 300);
	p[12 + 300] = 0;
	n = req_with(buf, p, 12 + 301);
	netmsg_take(buf, n, &m, &why);
	CHECK(netmsg_trace_req_parse(&m, &r, &why) == -EBADMSG);
	/* The arguments twice. */
	n = req_with(buf, "\0\0\0\0\0\0\0\x04\0\0\0\0" "\0\0\0\0\0\0\0\x04\0\0\0\0", 24);
	netmsg_take(buf, n, &m, &why);
	CHECK(netmsg_trace_req_parse(&m, &r, &why) == -EBADMSG);
	/* A parameter of a newer host is let pass; a cut one is not. */
	n = req_with(buf, "\0\0\0\x09\0\0\0\x02xy", 10);
	netmsg_take(buf, n, &m, &why);
	CHECK(!netmsg_trace_req_parse(&m, &r, &why) && r.argc == 0 && !r.ptp);
	n = req_with(buf, "\0\0\0\x09\0\0", 6);
	netmsg_take(buf, n, &m, &why);
	CHECK(netmsg_trace_req_parse(&m, &r, &why) == -EBADMSG);
}

TEST(agent_takes_events_and_clock_only)
{
	struct netmsg_agent_args a;
	const char *why = NULL;

	CHECK(!netmsg_agent_args_parse(6, (const char *[]){ "-e", "sched:a", "-f", "pid==1", "-C",
							   "mono" }, &a, &why));
	CHECK(a.nevents == 1 && !strcmp(a.filters[0], "pid==1") && !strcmp(a.clock, "mono"));
	CHECK(netmsg_agent_args_parse(2, (const char *[]){ "-p", "function" }, &a, &why) ==
	      -EINVAL);
	CHECK(netmsg_agent_args_parse(2, (const char *[]){ "-f", "x==1" }, &a, &why) == -EINVAL);
	CHECK(netmsg_agent_args_parse(1, (const char *[]){ "-e" }, &a, &why) == -EINVAL);
	CHECK(netmsg_agent_args_parse(2, (const char *[]){ "-C", "../x" }, &a, &why) == -EINVAL);
	CHECK(netmsg_agent_args_parse(4, (const char *[]){ "-C", "mono", "-C", "boot" }, &a,
				      &why) == -EINVAL);
	CHECK(net_clock_id("mono") >= 0 && net_clock_id("boot") >= 0);
	CHECK(net_clock_id("local") == -EINVAL && net_clock_id(NULL) == -EINVAL);
}

TEST(time_sync_round_trip)
{
	uint8_t buf[NETMSG_MAX], probes[NETMSG_PTP_PROBES_LEN];
	int64_t host[NETMSG_PTP_LOOP] = { 0 }, got[NETMSG_PTP_LOOP];
	struct netmsg m;
	struct netmsg_tsync t;
	const char *why = NULL;
	size_t n;

	host[0] = 100;
	host[1] = -5;
	netmsg_ptp_put_probes(probes, 7, host, NETMSG_PTP_LOOP);
	n = netmsg_put_tsync(buf, "ptp", NETMSG_PTP_PROBES, probes, sizeof(probes));
	/* The biggest message of the exchange still fits trace-cmd's 8192 bytes. */
	CHECK(n == 12 + 20 + 8144 && n <= NETMSG_MAX);
	CHECK(netmsg_take(buf, n, &m, &why) == (ssize_t)n);
	CHECK(!netmsg_tsync_parse(&m, &t, &why));
	CHECK_STR(t.proto, "ptp");
	CHECK(t.id == NETMSG_PTP_PROBES && t.len == sizeof(probes));
	CHECK(!netmsg_ptp_probes_parse(t.payload, t.len, got, &why));
	CHECK(got[0] == 100 && got[1] == -5 && got[2] == 0);
	/* A count the payload does not hold. */
	probes[7] = 200;
	CHECK(netmsg_ptp_probes_parse(probes, 100, got, &why) == -EBADMSG);
	CHECK(netmsg_ptp_probes_parse(probes, 4, got, &why) == -EBADMSG);
}

TEST(fastest_probe_gives_the_offset)
{
	int64_t sent[3] = { 1000, 2000, 3000 }, back[3] = { 1100, 2020, 3200 };
	int64_t host[3] = { 51050, 52013, 0 }, off = 0, ts = 0, rtt = 0;

	CHECK(!netmsg_ptp_offset(sent, back, host, 3, &off, &ts, &rtt));
	CHECK(rtt == 20 && ts == 2010 && off == 50003);
	host[0] = host[1] = 0;
	CHECK(netmsg_ptp_offset(sent, back, host, 3, &off, &ts, &rtt) == -ENODATA);
}

UNIT_MAIN(T(trace_resp_as_trace_cmd), T(trace_req_layout), T(agent_session_token),
	  T(hostile_requests_refused),
	  T(agent_takes_events_and_clock_only), T(time_sync_round_trip),
	  T(fastest_probe_gives_the_offset))
