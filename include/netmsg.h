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
 *   client:   CLOSE                       after the data connections are closed
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

/* TINIT's content: the client's CPU count, sub-buffer size and "tcp" option. */
struct netmsg_tinit {
	uint32_t cpus;
	uint32_t page_size;
	bool tcp;
	bool vsock;
};
/*
 * Parse a TINIT: cpus 1..NETMSG_MAX_CPUS, a page size that is a power of
 * two from 4 KB to 64 MB, options NUL-terminated inside the data (unknown
 * ones are ignored, as trace-cmd does).  0 or -EBADMSG with *why.
 */
int netmsg_tinit_parse(const struct netmsg *m, struct netmsg_tinit *t, const char **why);
/* Parse an RINIT into ports[max]: *n ports, each 1..65535.  0 or -EBADMSG. */
int netmsg_rinit_parse(const struct netmsg *m, uint16_t *ports, uint32_t max, uint32_t *n,
		       const char **why);

/* Encoders into buf (NETMSG_MAX bytes); they return the message's length. */
size_t netmsg_put(uint8_t *buf, uint32_t cmd);
size_t netmsg_put_tinit(uint8_t *buf, uint32_t cpus, uint32_t page_size);
/* 0 when n exceeds NETMSG_MAX_CPUS. */
size_t netmsg_put_rinit(uint8_t *buf, const uint16_t *ports, uint32_t n);
/* The 12-byte header of a SEND_DATA carrying n (<= NETMSG_MAX_DATA) bytes. */
void netmsg_put_data_hdr(uint8_t *hdr, uint32_t n);

const char *netmsg_name(uint32_t cmd);

#endif
