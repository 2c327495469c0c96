// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace-cmd's protocol v3 messages, encoded and parsed (netmsg.h).  The
 * parser trusts no field: every size is checked against what the buffer
 * holds before anything is read, and no count is used to allocate.
 */
#include <errno.h>
#include <string.h>

#include "netmsg.h"

static const char *const names[NETMSG_NR] = {
	"CLOSE", "TINIT", "RINIT", "SEND_DATA", "FIN_DATA", "NOT_SUPP", "TRACE_REQ",
	"TRACE_RESP", "CLOSE_RESP", "TIME_SYNC", "TRACE_PROXY", "CONT",
};

/* The fixed part of each command, as trace-cmd sizes it (its packed structs). */
static const uint32_t body_size[NETMSG_NR] = {
	[NETMSG_TINIT] = 12, [NETMSG_RINIT] = 4, [NETMSG_TRACE_REQ] = 16,
	[NETMSG_TRACE_RESP] = 12 + 8 + 16 + 4, [NETMSG_TIME_SYNC] = 16 + 4,
	[NETMSG_TRACE_PROXY] = 16 + 8,
};

const char *netmsg_name(uint32_t cmd)
{
	return cmd < NETMSG_NR ? names[cmd] : "unknown";
}

ssize_t netmsg_take(const void *buf, size_t len, struct netmsg *m, const char **why)
{
	const uint8_t *p = buf;
	uint32_t size, cmd, csize;

	if (len < NETMSG_HDR)
		return 0;
	size = netmsg_be32(p);
	cmd = netmsg_be32(p + 4);
	csize = netmsg_be32(p + 8);
	if (size < NETMSG_HDR || size > NETMSG_MAX) {
		*why = size < NETMSG_HDR ? "message shorter than its header"
					 : "message over 8192 bytes";
		return -EBADMSG;
	}
	if (cmd >= NETMSG_NR) {
		*why = "unknown message type";
		return -EBADMSG;
	}
	if (csize > size - NETMSG_HDR) {
		*why = "message's command part larger than the message";
		return -EBADMSG;
	}
	if (len < size)
		return 0;
	m->cmd = cmd;
	m->body = p + NETMSG_HDR;
	m->body_len = csize;
	m->data = p + NETMSG_HDR + csize;
	m->data_len = size - NETMSG_HDR - csize;
	return size;
}

ssize_t netmsg_take_str(const void *buf, size_t len, size_t max, const char **why)
{
	const uint8_t *nul = memchr(buf, 0, len < max ? len : max);

	if (nul)
		return nul - (const uint8_t *)buf + 1;
	if (len >= max) {
		*why = "handshake string too long";
		return -EBADMSG;
	}
	return 0;
}

int netmsg_tinit_parse(const struct netmsg *m, struct netmsg_tinit *t, const char **why)
{
	uint32_t nopt;
	const uint8_t *p, *end;

	memset(t, 0, sizeof(*t));
	if (m->cmd != NETMSG_TINIT || m->body_len < body_size[NETMSG_TINIT]) {
		*why = m->cmd != NETMSG_TINIT ? "expected TINIT" : "short TINIT";
		return -EBADMSG;
	}
	t->cpus = netmsg_be32(m->body);
	t->page_size = netmsg_be32(m->body + 4);
	nopt = netmsg_be32(m->body + 8);
	if (!t->cpus || t->cpus > NETMSG_MAX_CPUS) {
		*why = "CPU count out of range";
		return -EBADMSG;
	}
	if (t->page_size < 4096 || t->page_size > (64u << 20) ||
	    (t->page_size & (t->page_size - 1))) {
		*why = "page size out of range";
		return -EBADMSG;
	}
	p = m->data;
	end = m->data + m->data_len;
	for (uint32_t i = 0; i < nopt; i++) {
		const uint8_t *nul = p < end ? memchr(p, 0, end - p) : NULL;

		if (!nul) {
			*why = "TINIT option not NUL-terminated";
			return -EBADMSG;
		}
		if (!strcmp((const char *)p, "tcp"))
			t->tcp = true;
		else if (!strcmp((const char *)p, "vsock"))
			t->vsock = true;
		p = nul + 1;
	}
	/*
	 * Then tr's strings, past the count: trace-cmd's listener reads the
	 * options it was told of and no further (one it does not know among
	 * them, it warns about).  Unknown ones ignored.
	 */
	while (p < end) {
		const uint8_t *nul = memchr(p, 0, end - p);

		if (!nul)
			break;
		if (!strcmp((const char *)p, NETMSG_TR_SESSION))
			t->session = true;
		p = nul + 1;
	}
	return 0;
}

/*
 * Strict decimal 1..2^32-2 in [p, nul): a vsock port is 32-bit (the
 * kernel's auto-bound ones are above 65535 mostly), 2^32-1 is its "any".
 */
int netmsg_port_of(const uint8_t *p, const uint8_t *nul, uint32_t *out)
{
	uint64_t v = 0;

	if (p == nul || nul - p > 10)
		return -1;
	for (; p < nul; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	if (!v || v >= UINT32_MAX)
		return -1;
	*out = v;
	return 0;
}

size_t netmsg_put_token(uint8_t *buf, const struct netmsg_token *t)
{
	static const char hex[] = "0123456789abcdef";
	size_t off = sizeof(NETMSG_TR_SESSION) - 1;

	memcpy(buf, NETMSG_TR_SESSION, off);
	buf[off++] = '=';
	for (uint32_t i = 0; i < NETMSG_TOKEN_LEN; i++) {
		buf[off++] = hex[t->b[i] >> 4];
		buf[off++] = hex[t->b[i] & 15];
	}
	buf[off++] = 0;
	return off;
}

static int hex_digit(uint8_t c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int netmsg_token_of(const uint8_t *p, const uint8_t *nul, struct netmsg_token *t)
{
	size_t name = sizeof(NETMSG_TR_SESSION) - 1;

	if ((size_t)(nul - p) < name + 1 || memcmp(p, NETMSG_TR_SESSION "=", name + 1))
		return 0;
	p += name + 1;
	if ((size_t)(nul - p) != 2 * NETMSG_TOKEN_LEN)
		return -EBADMSG;
	for (uint32_t i = 0; i < NETMSG_TOKEN_LEN; i++) {
		int hi = hex_digit(p[2 * i]), lo = hex_digit(p[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EBADMSG;
		t->b[i] = hi << 4 | lo;
	}
	t->set = true;
	return 1;
}

bool netmsg_token_eq(const uint8_t *a, const uint8_t *b)
{
	uint8_t d = 0;

	/* Every byte is looked at: a forger learns nothing from the time a refusal takes. */
	for (uint32_t i = 0; i < NETMSG_TOKEN_LEN; i++)
		d |= a[i] ^ b[i];
	return !d;
}

int netmsg_rinit_parse(const struct netmsg *m, uint32_t *ports, uint32_t max, uint32_t *n,
		       bool *tgids, struct netmsg_token *tok, const char **why)
{
	const uint8_t *p, *end;
	uint32_t cpus;

	*n = 0;
	if (tgids)
		*tgids = false;
	if (tok)
		memset(tok, 0, sizeof(*tok));
	if (m->cmd != NETMSG_RINIT || m->body_len < body_size[NETMSG_RINIT]) {
		*why = m->cmd != NETMSG_RINIT ? "expected RINIT" : "short RINIT";
		return -EBADMSG;
	}
	cpus = netmsg_be32(m->body);
	if (!cpus || cpus > max) {
		*why = "RINIT's CPU count out of range";
		return -EBADMSG;
	}
	p = m->data;
	end = m->data + m->data_len;
	for (uint32_t i = 0; i < cpus; i++) {
		const uint8_t *nul = p < end ? memchr(p, 0, end - p) : NULL;

		if (!nul || netmsg_port_of(p, nul, &ports[i])) {
			*why = "bad port in RINIT";
			return -EBADMSG;
		}
		p = nul + 1;
	}
	/* Then the listener's own strings, each NUL-terminated; unknown ones ignored. */
	while ((tgids || tok) && p < end) {
		const uint8_t *nul = memchr(p, 0, end - p);

		if (!nul)
			break;
		if (tgids && !strcmp((const char *)p, NETMSG_TR_TGIDS))
			*tgids = true;
		if (tok && netmsg_token_of(p, nul, tok) < 0) {
			*why = "bad session token in RINIT";
			return -EBADMSG;
		}
		p = nul + 1;
	}
	*n = cpus;
	return 0;
}

int netmsg_tgids_check(const void *text, size_t len, const char **why)
{
	const uint8_t *p = text, *end = p + len;

	if (len > NETMSG_MAX_TGIDS) {
		*why = "saved_tgids over 64 MB";
		return -EBADMSG;
	}
	while (p < end) {
		for (int field = 0; field < 2; field++) {
			uint64_t v = 0;
			const uint8_t *start = p;

			while (p < end && *p >= '0' && *p <= '9' && p - start < 10)
				v = v * 10 + (*p++ - '0');
			if (p == start || v > INT32_MAX || p == end ||
			    *p != (field ? '\n' : ' ')) {
				*why = "bad saved_tgids line";
				return -EBADMSG;
			}
			p++;
		}
	}
	return 0;
}

static size_t put_hdr(uint8_t *buf, uint32_t cmd, uint32_t size)
{
	netmsg_put_be32(buf, size);
	netmsg_put_be32(buf + 4, cmd);
	netmsg_put_be32(buf + 8, body_size[cmd]);
	memset(buf + NETMSG_HDR, 0, body_size[cmd]);
	return size;
}

size_t netmsg_put(uint8_t *buf, uint32_t cmd)
{
	return put_hdr(buf, cmd, NETMSG_HDR + body_size[cmd]);
}

size_t netmsg_put_tinit(uint8_t *buf, uint32_t cpus, uint32_t page_size, bool session)
{
	size_t n = NETMSG_HDR + 12 + 4 + (session ? sizeof(NETMSG_TR_SESSION) : 0);

	put_hdr(buf, NETMSG_TINIT, n);
	netmsg_put_be32(buf + NETMSG_HDR, cpus);
	netmsg_put_be32(buf + NETMSG_HDR + 4, page_size);
	netmsg_put_be32(buf + NETMSG_HDR + 8, 1);
	memcpy(buf + NETMSG_HDR + 12, "tcp", 4);
	if (session)
		memcpy(buf + NETMSG_HDR + 16, NETMSG_TR_SESSION, sizeof(NETMSG_TR_SESSION));
	return n;
}

size_t netmsg_put_rinit(uint8_t *buf, const uint32_t *ports, uint32_t n, bool tgids,
			const struct netmsg_token *tok)
{
	size_t off = NETMSG_HDR + 4;

	if (!n || n > NETMSG_MAX_CPUS)
		return 0;
	/* tr's own ports are 16-bit (net_bind()): 1024 CPUs' fit one message. */
	for (uint32_t i = 0; i < n; i++) {
		char d[10];
		int k = 0;
		uint32_t v = ports[i];

		do
			d[k++] = '0' + v % 10;
		while ((v /= 10));
		while (k)
			buf[off++] = d[--k];
		buf[off++] = 0;
	}
	if (tgids) {
		memcpy(buf + off, NETMSG_TR_TGIDS, sizeof(NETMSG_TR_TGIDS));
		off += sizeof(NETMSG_TR_TGIDS);
	}
	if (tok && tok->set)
		off += netmsg_put_token(buf + off, tok);
	put_hdr(buf, NETMSG_RINIT, off);
	netmsg_put_be32(buf + NETMSG_HDR, n);
	return off;
}

void netmsg_put_data_hdr(uint8_t *hdr, uint32_t n)
{
	netmsg_put_be32(hdr, NETMSG_HDR + n);
	netmsg_put_be32(hdr + 4, NETMSG_SEND_DATA);
	netmsg_put_be32(hdr + 8, 0);
}
