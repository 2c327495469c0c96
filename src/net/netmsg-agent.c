// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's messages of trace-cmd's protocol (netmsg.h): TRACE_REQ,
 * TRACE_RESP, TIME_SYNC and the "ptp" payloads inside it, encoded and
 * parsed, and the offset worked out from a measurement's probes.  As in
 * netmsg.c no field is trusted: every length is checked against the
 * message before it is read, and no count sizes an allocation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netmsg.h"

enum { PARAM_ARGS = 0, PARAM_PROTOS = 1 };

#define REQ_BODY 16u
#define RESP_BODY 40u
#define TSYNC_BODY 20u

static size_t put_hdr(uint8_t *buf, uint32_t cmd, uint32_t body, uint32_t size)
{
	netmsg_put_be32(buf, size);
	netmsg_put_be32(buf + 4, cmd);
	netmsg_put_be32(buf + 8, body);
	memset(buf + NETMSG_HDR, 0, body);
	return size;
}

static int bad(const char **why, const char *reason)
{
	*why = reason;
	return -EBADMSG;
}

/* The ARGS parameter: be32 argc, then argc NUL-terminated strings filling it. */
static int req_args(const uint8_t *p, uint32_t len, struct netmsg_trace_req *r, const char **why)
{
	const uint8_t *end = p + len;
	uint32_t argc;

	if (len < 4)
		return bad(why, "TRACE_REQ's arguments are cut short");
	argc = netmsg_be32(p);
	p += 4;
	if (argc > NETMSG_MAX_ARGS)
		return bad(why, "TRACE_REQ has more than 64 arguments");
	for (uint32_t i = 0; i < argc; i++) {
		const uint8_t *nul = p < end ? memchr(p, 0, end - p) : NULL;

		if (!nul)
			return bad(why, "TRACE_REQ argument not NUL-terminated");
		if (nul - p + 1 > NETMSG_MAX_ARG)
			return bad(why, "TRACE_REQ argument over 256 bytes");
		r->argv[i] = (const char *)p;
		p = nul + 1;
	}
	if (p != end)
		return bad(why, "stray bytes after TRACE_REQ's arguments");
	r->argc = argc;
	return 0;
}

/* The PROTOS parameter: NUL-terminated names, then an empty one. */
static int req_protos(const uint8_t *p, uint32_t len, struct netmsg_trace_req *r, const char **why)
{
	const uint8_t *end = p + len;

	while (p < end) {
		const uint8_t *nul = memchr(p, 0, end - p);

		if (!nul)
			return bad(why, "TRACE_REQ protocol name not NUL-terminated");
		if (nul - p <= NETMSG_PNAME && !strcmp((const char *)p, NETMSG_TSYNC_PTP))
			r->ptp = true;
		p = nul + 1;
	}
	return 0;
}

int netmsg_trace_req_parse(const struct netmsg *m, struct netmsg_trace_req *r, const char **why)
{
	const uint8_t *p = m->data, *end = m->data + m->data_len;
	bool args = false, protos = false;

	memset(r, 0, sizeof(*r));
	if (m->cmd != NETMSG_TRACE_REQ)
		return bad(why, "expected TRACE_REQ");
	if (m->body_len < REQ_BODY)
		return bad(why, "short TRACE_REQ");
	r->trace_id = netmsg_be64(m->body + 8);
	while (p < end) {
		uint32_t id, len;
		int e = 0;

		if (end - p < 8)
			return bad(why, "TRACE_REQ parameter header cut short");
		id = netmsg_be32(p);
		len = netmsg_be32(p + 4);
		p += 8;
		if (len > (size_t)(end - p))
			return bad(why, "TRACE_REQ parameter longer than the message");
		if (id == PARAM_ARGS) {
			if (args)
				return bad(why, "TRACE_REQ gives its arguments twice");
			args = true;
			e = req_args(p, len, r, why);
		} else if (id == PARAM_PROTOS) {
			if (protos)
				return bad(why, "TRACE_REQ gives its protocols twice");
			protos = true;
			e = req_protos(p, len, r, why);
		} else if (id == NETMSG_PARAM_TR_SESSION) {
			r->session = true;
		}
		/* Other parameters are a newer host's: left alone, as trace-cmd does. */
		if (e)
			return e;
		p += len;
	}
	return 0;
}

size_t netmsg_put_trace_req(uint8_t *buf, uint64_t trace_id, uint32_t argc,
			    const char *const *argv, bool ptp, bool session)
{
	size_t off = NETMSG_HDR + REQ_BODY, args_len = 4;

	for (uint32_t i = 0; i < argc; i++)
		args_len += strlen(argv[i]) + 1;
	if (argc > NETMSG_MAX_ARGS ||
	    off + 8 + args_len + (ptp ? 8 + 5 : 0) + (session ? 8 : 0) > NETMSG_MAX)
		return 0;
	put_hdr(buf, NETMSG_TRACE_REQ, REQ_BODY, 0);
	netmsg_put_be64(buf + NETMSG_HDR + 8, trace_id);
	netmsg_put_be32(buf + off, PARAM_ARGS);
	netmsg_put_be32(buf + off + 4, args_len);
	netmsg_put_be32(buf + off + 8, argc);
	off += 12;
	for (uint32_t i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		memcpy(buf + off, argv[i], n);
		off += n;
	}
	if (ptp) {
		netmsg_put_be32(buf + off, PARAM_PROTOS);
		netmsg_put_be32(buf + off + 4, 5);
		memcpy(buf + off + 8, "ptp\0", 5);
		off += 13;
	}
	if (session) {
		netmsg_put_be32(buf + off, NETMSG_PARAM_TR_SESSION);
		netmsg_put_be32(buf + off + 4, 0);
		off += 8;
	}
	netmsg_put_be32(buf, off);
	return off;
}

int netmsg_trace_resp_parse(const struct netmsg *m, struct netmsg_trace_resp *r, uint32_t *ports,
			    uint32_t max, const char **why)
{
	const uint8_t *p = m->data, *end = m->data + m->data_len;
	uint32_t tport;

	memset(r, 0, sizeof(*r));
	if (m->cmd != NETMSG_TRACE_RESP)
		return bad(why, m->cmd == NETMSG_NOT_SUPP ? "the agent refused the request"
							  : "expected TRACE_RESP");
	if (m->body_len < RESP_BODY)
		return bad(why, "short TRACE_RESP");
	r->cpus = netmsg_be32(m->body + 4);
	r->page_size = netmsg_be32(m->body + 8);
	r->trace_id = netmsg_be64(m->body + 12);
	memcpy(r->proto, m->body + 20, NETMSG_PNAME);
	r->proto[NETMSG_PNAME] = 0;
	tport = netmsg_be32(m->body + 36);
	if (!r->cpus || r->cpus > max || r->cpus > NETMSG_MAX_CPUS)
		return bad(why, "TRACE_RESP's CPU count out of range");
	if (r->proto[0] && (!tport || tport == UINT32_MAX))
		return bad(why, "TRACE_RESP's time sync port out of range");
	r->tsync_port = r->proto[0] ? tport : 0;
	for (uint32_t i = 0; i < r->cpus; i++) {
		const uint8_t *nul = p < end ? memchr(p, 0, end - p) : NULL;

		if (!nul || netmsg_port_of(p, nul, &ports[i]))
			return bad(why, "bad port in TRACE_RESP");
		p = nul + 1;
	}
	/* Then tr agent's strings, each NUL-terminated; unknown ones ignored. */
	while (p < end) {
		const uint8_t *nul = memchr(p, 0, end - p);

		if (!nul)
			break;
		if (netmsg_token_of(p, nul, &r->token) < 0)
			return bad(why, "bad session token in TRACE_RESP");
		p = nul + 1;
	}
	return 0;
}

size_t netmsg_put_trace_resp(uint8_t *buf, const struct netmsg_trace_resp *r,
			     const uint32_t *ports)
{
	size_t off = NETMSG_HDR + RESP_BODY;

	if (!r->cpus || r->cpus > NETMSG_MAX_CPUS)
		return 0;
	put_hdr(buf, NETMSG_TRACE_RESP, RESP_BODY, 0);
	netmsg_put_be32(buf + NETMSG_HDR + 4, r->cpus);
	netmsg_put_be32(buf + NETMSG_HDR + 8, r->page_size);
	netmsg_put_be64(buf + NETMSG_HDR + 12, r->trace_id);
	memcpy(buf + NETMSG_HDR + 20, r->proto, strnlen(r->proto, NETMSG_PNAME));
	netmsg_put_be32(buf + NETMSG_HDR + 36, r->tsync_port);
	for (uint32_t i = 0; i < r->cpus; i++)
		off += sprintf((char *)buf + off, "%u", ports[i]) + 1;
	if (r->token.set)
		off += netmsg_put_token(buf + off, &r->token);
	netmsg_put_be32(buf, off);
	return off;
}

int netmsg_tsync_parse(const struct netmsg *m, struct netmsg_tsync *t, const char **why)
{
	memset(t, 0, sizeof(*t));
	if (m->cmd != NETMSG_TIME_SYNC)
		return bad(why, "expected TIME_SYNC");
	if (m->body_len < TSYNC_BODY)
		return bad(why, "short TIME_SYNC");
	memcpy(t->proto, m->body, NETMSG_PNAME);
	t->proto[NETMSG_PNAME] = 0;
	t->id = netmsg_be32(m->body + 16);
	t->payload = m->data;
	t->len = m->data_len;
	return 0;
}

size_t netmsg_put_tsync(uint8_t *buf, const char *proto, uint32_t id, const void *payload,
			uint32_t len)
{
	size_t n = NETMSG_HDR + TSYNC_BODY + len;

	put_hdr(buf, NETMSG_TIME_SYNC, TSYNC_BODY, n);
	memcpy(buf + NETMSG_HDR, proto, strnlen(proto, NETMSG_PNAME));
	netmsg_put_be32(buf + NETMSG_HDR + 16, id);
	if (len)
		memcpy(buf + NETMSG_HDR + TSYNC_BODY, payload, len);
	return n;
}

void netmsg_ptp_put_probes(uint8_t *payload, uint32_t series, const int64_t *host, uint32_t n)
{
	uint32_t count = 0;

	memset(payload, 0, NETMSG_PTP_PROBES_LEN);
	netmsg_put_be32(payload, series);
	for (uint32_t i = 0; i < n && i < NETMSG_PTP_LOOP; i++) {
		uint8_t *s = payload + 8 + 12 * i;

		if (!host[i])
			continue;
		netmsg_put_be64(s, (uint64_t)host[i]);
		netmsg_put_be32(s + 8, i + 1);
		count++;
	}
	netmsg_put_be32(payload + 4, count);
}

int netmsg_ptp_probes_parse(const uint8_t *payload, uint32_t len, int64_t *host,
			    const char **why)
{
	uint32_t count;

	memset(host, 0, NETMSG_PTP_LOOP * sizeof(*host));
	if (len < 8)
		return bad(why, "short PROBES");
	count = netmsg_be32(payload + 4);
	if (count > 2 * NETMSG_PTP_LOOP || 8 + (uint64_t)count * 12 > len)
		return bad(why, "PROBES count out of range");
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *s = payload + 8 + 12 * i;
		uint32_t id = netmsg_be32(s + 8);

		if (id >= 1 && id <= NETMSG_PTP_LOOP)
			host[id - 1] = (int64_t)netmsg_be64(s);
	}
	return 0;
}

int netmsg_ptp_offset(const int64_t *sent, const int64_t *back, const int64_t *host, uint32_t n,
		      int64_t *offset, int64_t *ts, int64_t *rtt)
{
	int64_t best = -1;

	for (uint32_t i = 0; i < n; i++) {
		int64_t d, mid;

		if (!sent[i] || !back[i] || !host[i] || back[i] < sent[i])
			continue;
		d = back[i] - sent[i];
		if (best >= 0 && d >= best)
			continue;
		mid = sent[i] + d / 2;
		best = d;
		*offset = host[i] - mid;
		*ts = mid;
		*rtt = d;
	}
	return best < 0 ? -ENODATA : 0;
}

/* A clock name: lowercase letters, digits, '_' and '-', as trace_clock lists them. */
static bool clock_name(const char *s)
{
	size_t n = strlen(s);

	return n && n < 32 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

int netmsg_agent_args_parse(uint32_t argc, const char *const *argv, struct netmsg_agent_args *a,
			    const char **why)
{
	memset(a, 0, sizeof(*a));
	for (uint32_t i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(o, "-e") && strcmp(o, "-f") && strcmp(o, "-C")) {
			*why = "only -e, -f and -C are taken";
			return -EINVAL;
		}
		if (!v || !*v) {
			*why = "an option without its value";
			return -EINVAL;
		}
		i++;
		if (!strcmp(o, "-e")) {
			if (a->nevents == NETMSG_MAX_ARGS) {
				*why = "too many events";
				return -EINVAL;
			}
			a->events[a->nevents++] = v;
		} else if (!strcmp(o, "-f")) {
			if (!a->nevents || a->filters[a->nevents - 1]) {
				*why = "-f without an -e of its own before it";
				return -EINVAL;
			}
			a->filters[a->nevents - 1] = v;
		} else {
			if (a->clock || !clock_name(v)) {
				*why = a->clock ? "-C given twice" : "bad clock name";
				return -EINVAL;
			}
			a->clock = v;
		}
	}
	return 0;
}
