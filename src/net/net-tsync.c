// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The "ptp" time sync of trace-cmd's agent protocol (netmsg.h), both
 * sides.  The agent leads each measurement: it notes its clock before
 * each of 339 probes and when the echo is back, the host notes its own
 * when a probe arrives, and the probe with the shortest round trip gives
 * the offset.  The clocks are read with clock_gettime() of the clock the
 * recording's trace clock counts (net_clock_id()): "mono" is
 * CLOCK_MONOTONIC, so a time taken here is what an event's timestamp
 * would say at that instant.  trace-cmd reads its times from trace
 * markers of the same clock instead; the two agree to the cost of a
 * marker write.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "net-local.h"
#include "net.h"
#include "netmsg.h"

/* A round's messages are a reply each: this long at most for one. */
#define TSYNC_MSG_MS 10000
/* And a whole measurement (about 340 round trips) by this long from its start. */
#define TSYNC_ROUND_MS 30000
/* The agent runs at most this many measurements a second, whatever the host asks. */
#define TSYNC_MIN_GAP_NS 10000000LL

static int64_t now_ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int net_clock_id(const char *trace_clock)
{
	static const struct {
		const char *name;
		clockid_t id;
	} clocks[] = {
		{ "mono", CLOCK_MONOTONIC }, { "mono_raw", CLOCK_MONOTONIC_RAW },
		{ "boot", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
	};

	for (size_t i = 0; trace_clock && i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcmp(trace_clock, clocks[i].name))
			return clocks[i].id;
	return -EINVAL;
}

/* The deadline and stop flag of the measurement a message belongs to. */
struct by {
	uint64_t at_ms;
	volatile sig_atomic_t *stop;
};

static int send_tsync(struct net_conn *c, const struct by *by, const char *proto, uint32_t id,
		      const void *p, uint32_t len)
{
	uint8_t buf[NETMSG_MAX];

	return net_write_by(c, buf, netmsg_put_tsync(buf, proto, id, p, len), by->at_ms, by->stop);
}

/*
 * Read one TIME_SYNC of protocol proto: its id and payload (into buf).
 * Note that trace-cmd writes a message's header and its payload with two
 * write()s: under Nagle the second waits for the ACK of the first, which
 * a receiver in delayed-ACK ("pingpong") mode holds up to 40 ms, and one
 * direction of every probe would be that much late (an offset wrong by
 * 20 ms).  TCP_QUICKACK before each read has this side ACK at once.
 */
static int recv_tsync(struct net_conn *c, const struct by *by, uint8_t *buf, const char *proto,
		      struct netmsg_tsync *t, const char **why)
{
	struct netmsg m;
	int one = 1, e;

	setsockopt(c->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
	e = net_read_msg_by(c, buf, &m, why, by->at_ms, by->stop);

	if (!e)
		e = netmsg_tsync_parse(&m, t, why);
	if (!e && strcmp(t->proto, proto)) {
		*why = "TIME_SYNC of another protocol";
		e = -EBADMSG;
	}
	return e;
}

int net_tsync_measure(struct net_conn *c, clockid_t clk, uint16_t cpu, volatile sig_atomic_t *stop,
		      int64_t *offset, int64_t *ts, const char **why)
{
	const struct by by = { net_now_ms() + TSYNC_ROUND_MS, stop };
	static __thread int64_t host[NETMSG_PTP_LOOP];
	static __thread uint8_t buf[NETMSG_MAX], probes[NETMSG_PTP_PROBES_LEN];
	struct netmsg_tsync t;
	uint32_t series;
	int e;

	memset(host, 0, sizeof(host));
	e = send_tsync(c, &by, NETMSG_TSYNC_NONE, NETMSG_TSYNC_PROBE, &cpu, sizeof(cpu));
	if (!e)
		e = recv_tsync(c, &by, buf, NETMSG_TSYNC_PTP, &t, why);
	if (e)
		return e;
	if (t.id != NETMSG_PTP_START || t.len < 8) {
		*why = "expected the agent's START";
		return -EBADMSG;
	}
	series = netmsg_be32(t.payload);
	e = send_tsync(c, &by, NETMSG_TSYNC_PTP, NETMSG_PTP_START, t.payload, 8);
	/* Each probe is echoed as it comes; a peer gets no more than a round's worth. */
	for (uint32_t i = 0; !e; i++) {
		uint32_t n;

		e = recv_tsync(c, &by, buf, NETMSG_TSYNC_PTP, &t, why);
		if (e || t.id == NETMSG_PTP_END)
			break;
		if (t.id != NETMSG_PTP_PROBE || t.len < 4 || i >= NETMSG_PTP_LOOP ||
		    (n = netmsg_be32(t.payload)) < 1 || n > NETMSG_PTP_LOOP) {
			*why = "bad PROBE";
			return -EBADMSG;
		}
		host[n - 1] = now_ns(clk);
		e = send_tsync(c, &by, NETMSG_TSYNC_PTP, NETMSG_PTP_PROBE, t.payload, 4);
	}
	if (e)
		return e;
	netmsg_ptp_put_probes(probes, series, host, NETMSG_PTP_LOOP);
	e = send_tsync(c, &by, NETMSG_TSYNC_PTP, NETMSG_PTP_PROBES, probes, sizeof(probes));
	if (!e)
		e = recv_tsync(c, &by, buf, NETMSG_TSYNC_PTP, &t, why);
	if (e)
		return e;
	if (t.id != NETMSG_PTP_OFFSET || t.len < 16) {
		*why = "expected the agent's OFFSET";
		return -EBADMSG;
	}
	*ts = (int64_t)((uint64_t)netmsg_be32(t.payload) << 32 | netmsg_be32(t.payload + 4));
	*offset = (int64_t)((uint64_t)netmsg_be32(t.payload + 8) << 32 | netmsg_be32(t.payload + 12));
	return 0;
}

/* One measurement, the agent leading. */
static int lead(struct net_conn *c, clockid_t clk, uint32_t series, const char **why)
{
	/* No stop flag: the host's last measurement comes after the agent's recording ends. */
	const struct by by = { net_now_ms() + TSYNC_ROUND_MS, NULL };
	static __thread int64_t sent[NETMSG_PTP_LOOP], back[NETMSG_PTP_LOOP], host[NETMSG_PTP_LOOP];
	static __thread uint8_t buf[NETMSG_MAX];
	struct netmsg_tsync t;
	uint8_t start[8], res[16];
	int64_t offset = 0, ts = 0, rtt;
	int e;

	netmsg_put_be32(start, series);
	netmsg_put_be32(start + 4, NETMSG_PTP_FASTEST | NETMSG_PTP_MARKER);
	e = send_tsync(c, &by, NETMSG_TSYNC_PTP, NETMSG_PTP_START, start, 8);
	if (!e)
		e = recv_tsync(c, &by, buf, NETMSG_TSYNC_PTP, &t, why);
	if (!e && t.id != NETMSG_PTP_START) {
		*why = "expected START back";
		e = -EBADMSG;
	}
	for (uint32_t n = 1; !e && n <= NETMSG_PTP_LOOP; n++) {
		uint8_t p[4];

		netmsg_put_be32(p, n);
		sent[n - 1] = now_ns(clk);
		e = send_tsync(c, &by, NETMSG_TSYNC_PTP, NETMSG_PTP_PROBE, p, 4);
		if (!e)
			e = recv_tsync(c, &by, buf, NETMSG_TSYNC_PTP, &t, why);
		back[n - 1] = now_ns(clk);
		if (!e && (t.id != NETMSG_PTP_PROBE || t.len < 4 || netmsg_be32(t.payload) != n)) {
			*why = "bad PROBE echo";
			e = -EBADMSG;
		}
	}
	if (!e)
		e = send_tsync(c, &by, NETMSG_TSYNC_PTP, NETMSG_PTP_END, NULL, 0);
	if (!e)
		e = recv_tsync(c, &by, buf, NETMSG_TSYNC_PTP, &t, why);
	if (!e && t.id != NETMSG_PTP_PROBES) {
		*why = "expected PROBES";
		e = -EBADMSG;
	}
	if (!e)
		e = netmsg_ptp_probes_parse(t.payload, t.len, host, why);
	if (e)
		return e;
	/* No whole probe: an offset of 0 at time 0, which trace-cmd's host leaves out. */
	netmsg_ptp_offset(sent, back, host, NETMSG_PTP_LOOP, &offset, &ts, &rtt);
	netmsg_put_be64(res, (uint64_t)ts);
	netmsg_put_be64(res + 8, (uint64_t)offset);
	return send_tsync(c, &by, NETMSG_TSYNC_PTP, NETMSG_PTP_OFFSET, res, sizeof(res));
}

int net_tsync_serve(struct net_conn *c, clockid_t clk, volatile sig_atomic_t *stop,
		    const char **why)
{
	static __thread uint8_t buf[NETMSG_MAX];
	int64_t last = 0, grace = 0;
	uint32_t series = 0;

	net_set_timeout(c->fd, TSYNC_MSG_MS);
	for (;;) {
		struct netmsg_tsync t;
		int e = net_wait_in(c, 200);

		if (e < 0)
			return e;
		if (!e) {
			if (!__atomic_load_n(stop, __ATOMIC_ACQUIRE))
				continue;
			/* The host has 10 s after the recording for its last measurement and STOP. */
			if (!grace)
				grace = now_ns(CLOCK_MONOTONIC) + 10000000000LL;
			if (now_ns(CLOCK_MONOTONIC) > grace)
				return 0;
			continue;
		}
		e = recv_tsync(c, &(struct by){ net_now_ms() + TSYNC_MSG_MS, NULL }, buf,
			       NETMSG_TSYNC_NONE, &t, why);
		if (e == -ECONNRESET)
			return 0;
		if (e)
			return e;
		if (t.id == NETMSG_TSYNC_STOP)
			return 0;
		if (t.id != NETMSG_TSYNC_PROBE) {
			*why = "unknown time sync request";
			return -EBADMSG;
		}
		if (last && now_ns(CLOCK_MONOTONIC) - last < TSYNC_MIN_GAP_NS) {
			int64_t wait = TSYNC_MIN_GAP_NS - (now_ns(CLOCK_MONOTONIC) - last);

			nanosleep(&(struct timespec){ 0, wait }, NULL);
		}
		last = now_ns(CLOCK_MONOTONIC);
		e = lead(c, clk, ++series, why);
		if (e)
			return e;
	}
}
