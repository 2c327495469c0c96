/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-cmd's network protocol, version 3, as its listen and record -N
 * speak it (facts from trace-cmd's lib/trace-cmd/trace-msg.c and
 * tracecmd/trace-listen.c): the encoder and a parser that takes every byte
 * from the peer as hostile.  No sockets here: the callers (net.h) read and
 * write, these functions only look at buffers, so the fuzz target
 * (tests/fuzz/fuzz-netmsg.c) drives exactly what the listener runs.
 *
 * The exchange on the control connection:
 *
 *   listener: "tracecmd"                  (8 bytes)
 *   client:   "-1V3\0"                     (a v1 client sends its CPU count)
 *   listener: "V3\0"
 *   client:   "766679\0\0"                 (NETMSG_MAGIC, 8 bytes)
 *   listener: "OK"
 *   client:   TINIT  {cpus, page size, option count} "tcp\0"
 *   listener: RINIT  {cpus} then one port per CPU, decimal, NUL-terminated
 *   client:   SEND_DATA... FIN_DATA       the trace.dat file up to its options
 *   client:   (one TCP connection per CPU to its port: the raw sub-buffers)
 *   client:   (tr's listener only) SEND_DATA... FIN_DATA: saved_tgids
 *   client:   CLOSE                       after the data connections are closed
 *
 * tr's extension: the kernel fills saved_tgids (record-tgid) while the
 * recording runs, so it cannot go with the metadata.  tr listen names
 * NETMSG_TR_TGIDS in its RINIT, a string after the ports (trace-cmd's
 * record -N reads the ports and no further); a client that sees it may send
 * the text after its pages, before CLOSE.  trace-cmd's listener, which
 * answers any message but CLOSE after FIN_DATA with NOT_SUPP and a warning,
 * never names it, so it is never sent one.
 *
 * tr's other extension binds each data connection to its control one: a
 * data port takes the first connection from the client's address, and
 * anyone there (a local process, a host behind the same NAT) could be
 * first.  tr's client names NETMSG_TR_SESSION after TINIT's options,
 * past their count (trace-cmd's listener reads no further); tr listen
 * then answers with "tr-session=HEX" after RINIT's ports, a random token
 * of NETMSG_TOKEN_LEN bytes, and the client sends those bytes first on each
 * data connection.  The listener takes a data connection only with them,
 * and goes on waiting for the right one.  A client that did not ask
 * (trace-cmd's record -N) is sent no token and none is required of it:
 * the protocol itself has nothing to bind with.
 *
 * Every message is a header of three big-endian u32 {size, cmd, cmd_size}
 * (size counts the header), cmd_size bytes of the command's fixed part,
 * then size - 12 - cmd_size bytes of data.  trace-cmd refuses messages
 * over 8192 bytes: so does this parser.
 */
#ifndef TR_NETMSG_H
#define TR_NETMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The protocol's byte order (big-endian), for every encoder and parser of net/. */
static inline uint32_t netmsg_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t netmsg_be64(const uint8_t *p)
{
	return (uint64_t)netmsg_be32(p) << 32 | netmsg_be32(p + 4);
}

static inline void netmsg_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void netmsg_put_be64(uint8_t *p, uint64_t v)
{
	netmsg_put_be32(p, v >> 32);
	netmsg_put_be32(p + 4, (uint32_t)v);
}

#define NETMSG_MAX 8192u
#define NETMSG_HDR 12u
#define NETMSG_MAX_DATA (NETMSG_MAX - NETMSG_HDR)
/* The most CPUs a peer may announce (RINIT's ports must fit one message). */
#define NETMSG_MAX_CPUS 1024u

#define NETMSG_GREETING "tracecmd"	/* 8 bytes, no NUL */
#define NETMSG_V3 "-1V3"		/* sent with its NUL */
#define NETMSG_V3_REPLY "V3"		/* sent with its NUL */
#define NETMSG_MAGIC "766679\0"		/* sent as sizeof: 8 bytes */
#define NETMSG_MAGIC_LEN 8u
#define NETMSG_OK "OK"			/* 2 bytes, no NUL */

enum netmsg_cmd {
	NETMSG_CLOSE = 0,
	NETMSG_TINIT = 1,
	NETMSG_RINIT = 2,
	NETMSG_SEND_DATA = 3,
	NETMSG_FIN_DATA = 4,
	NETMSG_NOT_SUPP = 5,
	NETMSG_TRACE_REQ = 6,
	NETMSG_TRACE_RESP = 7,
	NETMSG_CLOSE_RESP = 8,
	NETMSG_TIME_SYNC = 9,
	NETMSG_TRACE_PROXY = 10,
	NETMSG_CONT = 11,
	NETMSG_NR
};

/* One message, pointing into the buffer it was taken from. */
struct netmsg {
	uint32_t cmd;
	const uint8_t *body;	/* the command's fixed part */
	uint32_t body_len;
	const uint8_t *data;	/* what follows it */
	uint32_t data_len;
};

/*
 * Take one message from the len bytes at buf.  Returns the bytes it used,
 * 0 when more are needed (a partial message), or -EBADMSG with *why set to
 * a static reason ("message of 9000 bytes").
 */
ssize_t netmsg_take(const void *buf, size_t len, struct netmsg *m, const char **why);

/*
 * Take a NUL-terminated string of at most max bytes (the NUL included)
 * from buf, as the handshake's version string: its length with the NUL,
 * 0 when more are needed, -EBADMSG when max bytes hold no NUL.
 */
ssize_t netmsg_take_str(const void *buf, size_t len, size_t max, const char **why);
/*
 * A port as a strict decimal 1..2^32-2 in [p, nul) (vsock's are 32-bit;
 * a TCP peer's above 65535 is refused by the caller): 0, or -1.
 */
int netmsg_port_of(const uint8_t *p, const uint8_t *nul, uint32_t *out);

/* TINIT's content: the client's CPU count, sub-buffer size and "tcp" option. */
struct netmsg_tinit {
	uint32_t cpus;
	uint32_t page_size;
	bool tcp;
	bool vsock;
	bool session;	/* NETMSG_TR_SESSION: a tr client, which proves its data connections */
};
/*
 * Parse a TINIT: cpus 1..NETMSG_MAX_CPUS, a page size that is a power of
 * two from 4 KB to 64 MB, options NUL-terminated inside the data (unknown
 * ones are ignored, as trace-cmd does).  0 or -EBADMSG with *why.
 */
int netmsg_tinit_parse(const struct netmsg *m, struct netmsg_tinit *t, const char **why);

/*
 * A session's token: what the connecting side of a data connection sends
 * first, to the side that announced it (netmsg.h's top, and the agent's
 * TRACE_RESP below).  Its announcement is NETMSG_TR_SESSION "=" and
 * 2 * NETMSG_TOKEN_LEN lowercase hex digits, NUL-terminated.
 */
#define NETMSG_TR_SESSION "tr-session"
#define NETMSG_TOKEN_LEN 16u
#define NETMSG_TOKEN_STR (sizeof(NETMSG_TR_SESSION) + 2 * NETMSG_TOKEN_LEN + 1)
struct netmsg_token {
	bool set;
	uint8_t b[NETMSG_TOKEN_LEN];
};
/* The announcement into buf (NETMSG_TOKEN_STR bytes, its NUL included): its length. */
size_t netmsg_put_token(uint8_t *buf, const struct netmsg_token *t);
/*
 * Is [p, nul) an announcement?  1 with *t filled, 0 when it is another
 * string, -EBADMSG when it starts as one but is not (a bad digit, a length).
 */
int netmsg_token_of(const uint8_t *p, const uint8_t *nul, struct netmsg_token *t);
/* Are a and b (NETMSG_TOKEN_LEN bytes) equal?  In a time that does not say where they differ. */
bool netmsg_token_eq(const uint8_t *a, const uint8_t *b);

/*
 * Parse an RINIT into ports[max]: *n ports (netmsg_port_of()).  *tgids
 * (when not NULL): NETMSG_TR_TGIDS follows them; *tok (when not NULL): the
 * session token that follows them, tok->set false when none.  0 or -EBADMSG.
 */
int netmsg_rinit_parse(const struct netmsg *m, uint32_t *ports, uint32_t max, uint32_t *n,
		       bool *tgids, struct netmsg_token *tok, const char **why);

/* tr listen's RINIT string: it takes saved_tgids after the pages. */
#define NETMSG_TR_TGIDS "tr-saved-tgids"
/* The most bytes of saved_tgids (pid_max is 4M: "PID TGID\n" lines). */
#define NETMSG_MAX_TGIDS (64u << 20)
/*
 * Check saved_tgids text as the kernel writes it: lines of two decimals
 * ("PID TGID"), each up to 2^31-1, every line ended, no more than
 * NETMSG_MAX_TGIDS bytes.  0 or -EBADMSG with *why.
 */
int netmsg_tgids_check(const void *text, size_t len, const char **why);

/* Encoders into buf (NETMSG_MAX bytes); they return the message's length. */
size_t netmsg_put(uint8_t *buf, uint32_t cmd);
/* session: name NETMSG_TR_SESSION after the options, past their count (tr's client). */
size_t netmsg_put_tinit(uint8_t *buf, uint32_t cpus, uint32_t page_size, bool session);
/*
 * 0 when n exceeds NETMSG_MAX_CPUS.  tgids: name NETMSG_TR_TGIDS after the
 * ports; tok (NULL, or not set: none): announce the session token.
 */
size_t netmsg_put_rinit(uint8_t *buf, const uint32_t *ports, uint32_t n, bool tgids,
			const struct netmsg_token *tok);
/* The 12-byte header of a SEND_DATA carrying n (<= NETMSG_MAX_DATA) bytes. */
void netmsg_put_data_hdr(uint8_t *hdr, uint32_t n);

const char *netmsg_name(uint32_t cmd);

/*
 * ---- The agent's messages (netmsg-agent.c): tr agent and tr record -A, as
 * trace-cmd's agent and record -A speak them (trace-msg.c, trace-agent.c,
 * trace-timesync-ptp.c).  On the agent's port the host sends TRACE_REQ;
 * the agent answers TRACE_RESP with a port per CPU and one for the time
 * sync; the host connects to the time sync port (the PTP-like exchange
 * below runs there), reads the agent's metadata (SEND_DATA... FIN_DATA) on
 * the control connection, connects to each CPU's port and reads the raw
 * sub-buffers; CLOSE ends the recording, CLOSE_RESP is the agent's answer.
 *
 * tr's extension, as for tr listen: tr record -A adds a parameter of its
 * own (NETMSG_PARAM_TR_SESSION, empty) to TRACE_REQ, which trace-cmd's
 * agent leaves alone as it does any it does not know; tr agent then
 * announces a session token after TRACE_RESP's ports, and the host sends
 * it first on the time sync connection and on each data connection.  The
 * agent takes those only with it; from a host that did not ask
 * (trace-cmd's record -A) it takes the first from the host's address.
 */
#define NETMSG_PARAM_TR_SESSION 0x74720001u	/* "tr", 1: far from trace-cmd's 0, 1, ... */
#define NETMSG_PNAME 16		/* a time sync protocol's name field */
#define NETMSG_MAX_ARGS 64	/* a request's arguments */
#define NETMSG_MAX_ARG 256	/* bytes of one argument, its NUL included */

struct netmsg_trace_req {
	uint64_t trace_id;	/* the host's */
	uint32_t argc;
	const char *argv[NETMSG_MAX_ARGS];	/* NUL-terminated, inside the message */
	bool ptp;		/* the host offers the "ptp" time sync */
	bool session;		/* NETMSG_PARAM_TR_SESSION: a tr host (it proves its connections) */
};
/*
 * Parse a TRACE_REQ: its parameters (the record arguments, the time sync
 * protocols offered) each within the message, at most NETMSG_MAX_ARGS
 * arguments of at most NETMSG_MAX_ARG bytes.  0 or -EBADMSG with *why.
 */
int netmsg_trace_req_parse(const struct netmsg *m, struct netmsg_trace_req *r, const char **why);
/* 0 when the arguments do not fit one message. */
size_t netmsg_put_trace_req(uint8_t *buf, uint64_t trace_id, uint32_t argc,
			    const char *const *argv, bool ptp, bool session);

struct netmsg_trace_resp {
	uint32_t cpus, page_size;
	uint64_t trace_id;	/* the agent's */
	char proto[NETMSG_PNAME + 1];	/* "ptp", or "" for no time sync */
	uint32_t tsync_port;	/* 32-bit for vsock, as the CPUs' ports */
	struct netmsg_token token;	/* announced after the ports (tr agent), or not set */
};
/*
 * Parse a TRACE_RESP, its ports (at most max) and a session token after
 * them.  0 or -EBADMSG with *why.
 */
int netmsg_trace_resp_parse(const struct netmsg *m, struct netmsg_trace_resp *r, uint32_t *ports,
			    uint32_t max, const char **why);
/* 0 when cpus exceeds NETMSG_MAX_CPUS.  r->token, when set, is announced. */
size_t netmsg_put_trace_resp(uint8_t *buf, const struct netmsg_trace_resp *r,
			     const uint32_t *ports);

/*
 * TIME_SYNC: a protocol name and a message id, then a payload.  The host
 * drives it with protocol "none": PROBE {u16 CPU, the host's byte order}
 * asks for one measurement, STOP ends.  Each measurement is the "ptp"
 * exchange, led by the agent:
 *
 *   agent: START {be32 series, be32 flags}     host: START (echoed)
 *   agent: PROBE {be32 n} for n = 1..339       host: PROBE {be32 n}, noting its clock
 *   agent: END                                 host: PROBES {be32 series, be32 count,
 *                                                     678 x {be64 ts, be32 n}}
 *   agent: OFFSET {be64 ts, be64 offset}: host clock - agent clock at agent time ts
 *
 * The agent notes its clock before sending each probe and when its echo
 * comes back; the offset is that of the probe with the shortest round trip.
 */
#define NETMSG_TSYNC_NONE "none"
#define NETMSG_TSYNC_PTP "ptp"
enum { NETMSG_TSYNC_PROBE = 1, NETMSG_TSYNC_STOP = 2 };
enum { NETMSG_PTP_START = 1, NETMSG_PTP_PROBE = 2, NETMSG_PTP_PROBES = 3, NETMSG_PTP_OFFSET = 4,
       NETMSG_PTP_END = 5 };
#define NETMSG_PTP_LOOP 339u
#define NETMSG_PTP_PROBES_LEN (8u + 2 * NETMSG_PTP_LOOP * 12u)
/* Flags of START: the fastest probe decides; trace-cmd notes times with trace markers. */
#define NETMSG_PTP_FASTEST 1u
#define NETMSG_PTP_MARKER 2u

struct netmsg_tsync {
	char proto[NETMSG_PNAME + 1];
	uint32_t id;
	const uint8_t *payload;
	uint32_t len;
};
int netmsg_tsync_parse(const struct netmsg *m, struct netmsg_tsync *t, const char **why);
/* len <= NETMSG_MAX_DATA - 20. */
size_t netmsg_put_tsync(uint8_t *buf, const char *proto, uint32_t id, const void *payload,
			uint32_t len);

/* The host's PROBES: its clock at each probe n (host[n - 1]; 0: not seen). */
void netmsg_ptp_put_probes(uint8_t *payload, uint32_t series, const int64_t *host, uint32_t n);
/*
 * Read a PROBES payload into host[NETMSG_PTP_LOOP] (0 where the host saw
 * no probe).  0 or -EBADMSG with *why.
 */
int netmsg_ptp_probes_parse(const uint8_t *payload, uint32_t len, int64_t *host,
			    const char **why);
/*
 * The offset from the n probes: sent[i] and back[i] the agent's clock,
 * host[i] the host's (0: lost).  The probe of the shortest round trip
 * gives *offset = host - (sent + back) / 2 at *ts = (sent + back) / 2, and
 * *rtt its round trip.  0, or -ENODATA when no probe is whole.
 */
int netmsg_ptp_offset(const int64_t *sent, const int64_t *back, const int64_t *host, uint32_t n,
		      int64_t *offset, int64_t *ts, int64_t *rtt);

/*
 * The record arguments an agent takes from a host, checked: -e SELECTOR,
 * -f FILTER (of the -e before it), -C CLOCK; nothing else (trace-cmd's
 * host sends "-C CLOCK" and its -A options).  events[i] and filters[i]
 * (NULL: none) point into argv.  0 or -EINVAL with *why.
 */
struct netmsg_agent_args {
	const char *events[NETMSG_MAX_ARGS];
	const char *filters[NETMSG_MAX_ARGS];
	uint32_t nevents;
	const char *clock;
};
int netmsg_agent_args_parse(uint32_t argc, const char *const *argv, struct netmsg_agent_args *a,
			    const char **why);

#endif
