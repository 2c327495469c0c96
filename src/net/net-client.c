// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The client half of trace-cmd's protocol v3 (net.h, netmsg.h): what
 * trace-cmd record -N does towards a listener, for tr record -N.  Data
 * always goes over TCP (trace-cmd's -t): its UDP default drops pages; or,
 * for tr record -V, everything over vsock (trace-cmd record -V).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "net-local.h"
#include "net.h"
#include "netmsg.h"
#include "tr.h"

/* The handshake, and the listener's answer to CLOSE, are each given this long. */
#define CLIENT_TIMEOUT_S 30

/* A TLS handshake's one time limit. */
static uint64_t client_deadline(void)
{
	return net_now_ms() + CLIENT_TIMEOUT_S * 1000;
}

struct net_client {
	struct net_conn ctl;
	int ncpus;
	struct net_conn *data;
	struct net_tls *tls;
	char *where;	/* "HOST:PORT", for messages */
	bool tgids;	/* the listener takes saved_tgids (netmsg.h) */
	struct netmsg_token token;	/* tr listen's: sent first on each data connection */
};

static int connect_to(const struct sockaddr_storage *a)
{
	return net_dial_sa(a, CLIENT_TIMEOUT_S * 1000);
}

static int fail(struct net_client *c, int e, const char *what, const char *why)
{
	if (e == -EBADMSG)
		return tr_fail(e, "cannot send to '%s': %s: %s", c->where, what, why);
	return tr_fail(e, "cannot send to '%s': %s: %s", c->where, what,
		       e == -ETIMEDOUT ? "no whole answer within 30 s"
		       : e == -ECONNRESET ? "connection closed"
		       : e == -EINTR	  ? "stopped (a signal) before the listener answered"
					  : strerror(-e));
}

int net_connect(const char *host, uint16_t port, bool vsock, int ncpus, uint32_t page_size,
		const char *psk_file, volatile sig_atomic_t *stop, struct net_client **out)
{
	/*
	 * One deadline for the whole set-up, and *stop seen within a poll
	 * slice: a signal interrupts a blocking read, and a wait with no
	 * deadline after it would outlast the listener's silence.
	 */
	uint64_t at = client_deadline();
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	struct net_client *c = xcalloc(1, sizeof(*c));
	uint8_t buf[NETMSG_MAX];
	uint32_t ports[NETMSG_MAX_CPUS];
	const char *why = "";
	struct netmsg m;
	uint32_t n;
	int e;

	*out = NULL;
	c->ctl.fd = -1;
	if (psk_file && (e = net_tls_load(psk_file, false, &c->tls))) {
		free(c);
		return e;
	}
	c->where = xasprintf(vsock ? "vsock:%s:%u" : strchr(host, ':') ? "[%s]:%u" : "%s:%u",
			     host, port);
	if (ncpus < 1 || (unsigned)ncpus > NETMSG_MAX_CPUS) {
		e = tr_fail(-EINVAL, "cannot send to '%s': %d CPUs (at most %u)", c->where, ncpus,
			    NETMSG_MAX_CPUS);
		goto fail;
	}
	if (vsock) {
		struct net_cidr cid;

		if (net_cidr_parse(host, &cid) || cid.family != AF_VSOCK) {
			e = tr_fail(-EINVAL, "cannot send to '%s': not a vsock CID", c->where);
			goto fail;
		}
		net_sa_vsock(&peer, cid.cid, port);
		c->ctl.fd = e = connect_to(&peer);
	} else {
		c->ctl.fd = e = net_dial(host, port, CLIENT_TIMEOUT_S * 1000, &why);
		if (e == -EHOSTUNREACH && *why) {
			e = tr_fail(e, "cannot send to '%s': %s", c->where, why);
			goto fail;
		}
	}
	if (c->ctl.fd < 0) {
		e = fail(c, e, "cannot connect", "");
		goto fail;
	}
	if (c->tls && (e = net_conn_tls(&c->ctl, c->tls, at, stop))) {
		e = fail(c, e == -EACCES ? -EBADMSG : e, "TLS",
			 "the listener refused the key (--psk), or speaks no TLS");
		goto fail;
	}
	/* The listener says what it is; v3 is asked for; the magic; "OK". */
	if ((e = net_read_by(&c->ctl, buf, 8, at, stop)) || memcmp(buf, NETMSG_GREETING, 8)) {
		e = fail(c, e ? e : -EBADMSG, "the handshake", "not a trace-cmd listener");
		goto fail;
	}
	if ((e = net_write_by(&c->ctl, NETMSG_V3, sizeof(NETMSG_V3), at, stop)) ||
	    (e = net_read_by(&c->ctl, buf, 3, at, stop)) ||
	    (memcmp(buf, NETMSG_V3_REPLY, 3) && (e = -EBADMSG)) ||
	    (e = net_write_by(&c->ctl, NETMSG_MAGIC, NETMSG_MAGIC_LEN, at, stop)) ||
	    (e = net_read_by(&c->ctl, buf, 2, at, stop)) || (memcmp(buf, NETMSG_OK, 2) && (e = -EBADMSG))) {
		e = fail(c, e, "the handshake", "the listener does not speak protocol v3");
		goto fail;
	}
	/* Named as a tr client: tr listen then binds the data connections to this one. */
	e = net_write_by(&c->ctl, buf, netmsg_put_tinit(buf, ncpus, page_size, true), at, stop);
	if (!e)
		e = net_read_msg_by(&c->ctl, buf, &m, &why, at, stop);
	if (!e && m.cmd != NETMSG_RINIT) {
		why = "the listener refused the recording";
		e = -EBADMSG;
	}
	if (!e)
		e = netmsg_rinit_parse(&m, ports, NETMSG_MAX_CPUS, &n, &c->tgids, &c->token, &why);
	if (!e && n != (uint32_t)ncpus) {
		why = "the listener answered for another CPU count";
		e = -EBADMSG;
	}
	for (uint32_t i = 0; !e && !vsock && i < n; i++)
		if (ports[i] > 65535) {
			why = "bad port in RINIT";
			e = -EBADMSG;
		}
	if (e) {
		e = fail(c, e, "the set-up", why);
		goto fail;
	}
	/* Each CPU's data connection goes to the address the control one reached. */
	if (getpeername(c->ctl.fd, (struct sockaddr *)&peer, &plen)) {
		e = fail(c, -errno, "the set-up", "");
		goto fail;
	}
	c->ncpus = ncpus;
	c->data = xmalloc(ncpus * sizeof(*c->data));
	for (int i = 0; i < ncpus; i++)
		c->data[i] = (struct net_conn){ .fd = -1 };
	for (int i = 0; i < ncpus; i++) {
		net_sa_set_port(&peer, ports[i]);
		c->data[i].fd = connect_to(&peer);
		if (c->data[i].fd < 0) {
			e = fail(c, c->data[i].fd, "cannot open a data connection", "");
			goto fail;
		}
		if (c->tls && (e = net_conn_tls(&c->data[i], c->tls, at, stop))) {
			e = fail(c, e, "TLS on a data connection", "");
			goto fail;
		}
		/* The session's token first: the listener takes no other connection. */
		if (c->token.set && (e = net_write_by(&c->data[i], c->token.b, NETMSG_TOKEN_LEN, at,
						       stop))) {
			e = fail(c, e, "a data connection", "");
			goto fail;
		}
		/* Pages wait as long as the listener needs: the ring buffer is the limit. */
		net_set_timeout(c->data[i].fd, 0);
	}
	*out = c;
	return 0;
fail:
	net_client_free(c);
	return e;
}

int net_send_meta(struct net_client *c, const void *buf, size_t len)
{
	int e = net_put_meta(&c->ctl, buf, len, UINT64_MAX, NULL);

	return e ? fail(c, e, "the metadata", "") : 0;
}

int net_send_pages(struct net_client *c, int cpu, const void *pages, size_t len)
{
	if (cpu < 0 || cpu >= c->ncpus)
		return -EINVAL;
	return net_write_all(&c->data[cpu], pages, len);
}

int net_send_tgids(struct net_client *c, const char *text, size_t len)
{
	int e;

	if (!c->tgids)
		return 0;
	if (len > NETMSG_MAX_TGIDS) {
		const char *nl = memrchr(text, '\n', NETMSG_MAX_TGIDS);

		len = nl ? (size_t)(nl + 1 - text) : 0;
	}
	e = net_put_meta(&c->ctl, text, len, UINT64_MAX, NULL);
	return e ? fail(c, e, "saved_tgids", "") : 0;
}

int net_finish(struct net_client *c)
{
	uint8_t buf[NETMSG_MAX];
	int e = 0;

	for (int i = 0; i < c->ncpus; i++)
		net_conn_close(&c->data[i]);
	if (!e)
		e = net_write_all(&c->ctl, buf, netmsg_put(buf, NETMSG_CLOSE));
	if (e)
		return fail(c, e, "the end of the recording", "");
	/*
	 * Wait for the listener to close: it then has every byte (closing
	 * first could reset the connection under what it has not read yet).
	 */
	if (!c->ctl.ssl)
		shutdown(c->ctl.fd, SHUT_WR);
	for (;;) {
		ssize_t r = net_conn_read(&c->ctl, buf, sizeof(buf));

		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		if (r < 0 && errno != ECONNRESET)
			return fail(c, errno == EAGAIN ? -ETIMEDOUT : -errno,
				    "the end of the recording", "");
		return 0;
	}
}

void net_client_free(struct net_client *c)
{
	if (!c)
		return;
	for (int i = 0; c->data && i < c->ncpus; i++)
		net_conn_close(&c->data[i]);
	net_conn_close(&c->ctl);
	net_tls_free(c->tls);
	free(c->data);
	free(c->where);
	free(c);
}
