// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent (net.h): tr agent's server, speaking trace-cmd's agent
 * protocol (netmsg.h) to tr record -A and trace-cmd record -A.  One host
 * at a time, in the order trace-cmd's agent keeps: TRACE_REQ, TRACE_RESP,
 * the host's time sync connection, the metadata, the data connections,
 * the recording until CLOSE, CLOSE_RESP.  Every wait is bounded but the
 * recording's own, which the host ends (or its going away does).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#include "net-local.h"
#include "net.h"
#include "netmsg.h"
#include "tr.h"

#define AGENT_REQ_MS 10000	/* the request, each connection the host owes, a message */
#define AGENT_SEND_MS 30000	/* a host that stops reading pages: the reader gives up */
#define AGENT_PORT_TRIES 256

struct net_agent_job {
	const struct net_agent_opts *o;
	struct net_tls *tls;
	struct net_conn ctl, ts;
	struct sockaddr_storage peer, local;
	char who[80];
	uint64_t trace_id;
	bool ptp, started, closed, got_close;
	bool refused;		/* said in its one line already */
	int ncpus;
	struct net_conn *data;
	uint64_t sent;		/* bytes, added to by every CPU's reader */
	pthread_t ts_thread;
	bool ts_running;
	volatile sig_atomic_t ts_stop;
	int ts_done;		/* the time sync thread has returned (atomic) */
	int ts_err, clk;
	const char *ts_why;
	struct net_acceptor *acc;	/* the agent's listening socket: hosts that come meanwhile */
	struct netmsg_token token;	/* a tr host's (netmsg.h): its connections send it */
	uint8_t buf[NETMSG_MAX];
};

static void alog(const struct net_agent_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void alog(const struct net_agent_opts *o, const char *fmt, ...)
{
	char line[768];
	va_list ap;

	if (!o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->log(o->log_arg, line);
}

uint64_t net_agent_trace_id(const struct net_agent_job *j)
{
	return j->trace_id;
}

int net_agent_send_pages(void *job, int cpu, const void *pages, size_t len)
{
	struct net_agent_job *j = job;
	int e;

	if (cpu < 0 || cpu >= j->ncpus)
		return -EINVAL;
	/* Pages wait for a slow host, not for one that stopped reading, nor past a stop. */
	e = net_write_by(&j->data[cpu], pages, len, net_now_ms() + AGENT_SEND_MS, j->o->stop);
	if (!e)
		__atomic_add_fetch(&j->sent, len, __ATOMIC_RELAXED);
	return e;
}

static void refuse_busy(struct net_agent_job *j);

bool net_agent_closed(struct net_agent_job *j)
{
	refuse_busy(j);
	/* A signal ends the recording whatever the host does. */
	if (*j->o->stop)
		j->closed = true;
	while (!j->closed) {
		struct netmsg m;
		const char *why = "";
		uint8_t reply[NETMSG_HDR + 64];
		int e = net_wait_in(&j->ctl, 0);

		if (e == 0)
			break;
		/* A message begun is whole within the request's time. */
		e = e < 0 ? e : net_read_msg_by(&j->ctl, j->buf, &m, &why,
						net_now_ms() + AGENT_REQ_MS, j->o->stop);
		if (e || m.cmd == NETMSG_CLOSE) {
			j->closed = true;
			j->got_close = !e;
			if (e)
				alog(j->o, "%s: the host went away: %s", j->who,
				     e == -EBADMSG ? why : strerror(-e));
			break;
		}
		/* Anything else is answered as trace-cmd does, and the recording goes on. */
		if (m.cmd != NETMSG_NOT_SUPP)
			net_write_by(&j->ctl, reply, netmsg_put(reply, NETMSG_NOT_SUPP),
				     net_now_ms() + AGENT_REQ_MS, j->o->stop);
	}
	return j->closed;
}

static void *ts_main(void *arg)
{
	struct net_agent_job *j = arg;

	j->ts_err = net_tsync_serve(&j->ts, j->clk, &j->ts_stop, &j->ts_why);
	__atomic_store_n(&j->ts_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A socket on the control connection's address; with a fixed agent port, the next free one. */
static int open_port(struct net_agent_job *j, uint16_t *next, uint16_t *bound)
{
	for (int i = 0; i < AGENT_PORT_TRIES; i++) {
		int fd = net_listen_at(&j->local, *next, bound);

		if (fd >= 0 || !*next || *next == 65535) {
			if (fd >= 0 && *next)
				*next = *bound + 1;
			return fd;
		}
		(*next)++;
	}
	return -EADDRINUSE;
}

/*
 * Accept the host's connection on lfd as c, all within AGENT_REQ_MS: TLS
 * with --psk, and from a tr host the session's token first.  Any other
 * is refused (one line) and the wait goes on.
 */
static int take(struct net_agent_job *j, int lfd, struct net_conn *c)
{
	int e = net_accept_session(lfd, &j->peer, j->tls, &j->token, net_now_ms() + AGENT_REQ_MS,
				   j->o->stop, j->o->log, j->o->log_arg, j->who, c);

	if (!e)
		net_set_timeout(c->fd, AGENT_REQ_MS);
	return e;
}

int net_agent_start(struct net_agent_job *j, int ncpus, int clk, const void *meta, size_t len)
{
	struct netmsg_trace_resp r = { .page_size = (uint32_t)sysconf(_SC_PAGESIZE),
				       .trace_id = j->trace_id, .token = j->token };
	uint32_t *ports = NULL;
	uint16_t next = j->o->port ? j->o->port + 1 : 0;
	int *lfd = NULL, tlfd = -1, e = 0;
	const char *what = "open a port";

	if (ncpus < 1 || (unsigned)ncpus > NETMSG_MAX_CPUS)
		return tr_fail(-EINVAL, "%d CPUs: at most %u", ncpus, NETMSG_MAX_CPUS);
	j->started = true;
	j->clk = clk;
	j->ncpus = ncpus;
	j->data = xmalloc(ncpus * sizeof(*j->data));
	lfd = xmalloc(ncpus * sizeof(*lfd));
	ports = xmalloc(ncpus * sizeof(*ports));
	for (int i = 0; i < ncpus; i++) {
		j->data[i] = (struct net_conn){ .fd = -1 };
		lfd[i] = -1;
	}
	for (int i = 0; i < ncpus && e >= 0; i++) {
		uint16_t port = 0;

		e = lfd[i] = open_port(j, &next, &port);
		ports[i] = port;
	}
	if (e >= 0 && j->ptp && clk >= 0) {
		uint16_t tport = 0;

		e = tlfd = open_port(j, &next, &tport);
		r.tsync_port = tport;
		strcpy(r.proto, NETMSG_TSYNC_PTP);
	}
	if (e >= 0) {
		e = 0;
		r.cpus = ncpus;
		what = "answer the request";
		e = net_write_by(&j->ctl, j->buf, netmsg_put_trace_resp(j->buf, &r, ports),
				 net_now_ms() + AGENT_REQ_MS, j->o->stop);
	}
	if (!e && tlfd >= 0) {
		what = "take the time sync connection";
		j->ts = (struct net_conn){ .fd = -1 };
		e = take(j, tlfd, &j->ts);
		if (!e && !(e = -pthread_create(&j->ts_thread, NULL, ts_main, j)))
			j->ts_running = true;
	}
	if (!e) {
		/* A trace-cmd host reads it only after its first clock sync. */
		what = "send the metadata";
		e = net_put_meta(&j->ctl, meta, len, net_now_ms() + AGENT_SEND_MS, j->o->stop);
	}
	for (int i = 0; !e && i < ncpus; i++) {
		what = "take a data connection";
		e = take(j, lfd[i], &j->data[i]);
		/* Written under net_agent_send_pages()'s deadline. */
		if (!e)
			net_set_nonblock(j->data[i].fd, true);
	}
	for (int i = 0; i < ncpus; i++)
		if (lfd[i] >= 0)
			close(lfd[i]);
	if (tlfd >= 0)
		close(tlfd);
	free(lfd);
	free(ports);
	if (e)
		return tr_fail(e, "cannot %s: %s", what,
			       e == -ETIMEDOUT ? "the host did not come"
			       : e == -EINTR ? "the agent is stopping" : strerror(-e));
	alog(j->o, "%s: recording %d CPUs%s", j->who, ncpus,
	     tlfd >= 0 ? ", clock sync ptp" : ", no clock sync");
	return 0;
}

static void job_end(struct net_agent_job *j, int e)
{
	uint8_t msg[NETMSG_HDR + 64];

	for (int i = 0; j->data && i < j->ncpus; i++)
		net_conn_close(&j->data[i]);
	if (!e && j->got_close)
		net_write_by(&j->ctl, msg, netmsg_put(msg, NETMSG_CLOSE_RESP),
			     net_now_ms() + AGENT_REQ_MS, j->o->stop);
	else if (!j->started)
		net_write_by(&j->ctl, msg, netmsg_put(msg, NETMSG_NOT_SUPP),
			     net_now_ms() + AGENT_REQ_MS, j->o->stop);
	if (j->ts_running) {
		__atomic_store_n(&j->ts_stop, 1, __ATOMIC_RELEASE);
		/*
		 * The host has its grace for a last measurement, unless a
		 * signal came: then the socket is shut, which ends any wait
		 * of the thread at once (bounded: the grace is 10 s).
		 */
		for (int i = 0; i < 2 * 12000 / NET_SLICE_MS; i++) {
			if (__atomic_load_n(&j->ts_done, __ATOMIC_ACQUIRE))
				break;
			if (*j->o->stop)
				shutdown(j->ts.fd, SHUT_RDWR);
			poll(NULL, 0, NET_SLICE_MS / 2);
		}
		shutdown(j->ts.fd, SHUT_RDWR);
		pthread_join(j->ts_thread, NULL);
		if (j->ts_err)
			alog(j->o, "%s: clock sync stopped: %s", j->who,
			     j->ts_err == -EBADMSG ? j->ts_why : strerror(-j->ts_err));
	}
	if (j->refused)
		;
	else if (e)
		alog(j->o, "%s: ended: %s", j->who, tr_failure() ? tr_failure() : strerror(-e));
	else
		alog(j->o, "%s: ended: %llu bytes of events sent", j->who,
		     (unsigned long long)j->sent);
	net_conn_close(&j->ts);
	net_conn_close(&j->ctl);
	free(j->data);
}

/* One host, from its connection to the end of its recording. */
static void serve_one(const struct net_agent_opts *o, struct net_tls *tls,
		      struct net_acceptor *acc, int fd, const struct sockaddr_storage *peer)
{
	struct net_agent_job *j = xcalloc(1, sizeof(*j));
	struct netmsg_trace_req req;
	struct netmsg_agent_args args;
	socklen_t len = sizeof(j->local);
	char host[64];
	uint32_t port;
	const char *why = "";
	struct netmsg m;
	uint64_t at;
	int e;

	j->o = o;
	j->tls = tls;
	j->ctl = (struct net_conn){ .fd = fd };
	j->ts = (struct net_conn){ .fd = -1 };
	j->peer = *peer;
	j->acc = acc;
	net_peer_name((const struct sockaddr *)peer, host, sizeof(host), &port);
	snprintf(j->who, sizeof(j->who), "%s:%u", host, port);
	getsockname(fd, (struct sockaddr *)&j->local, &len);
	/* A vsock peer reaches this machine by whichever of its CIDs (1, its own): any. */
	if (j->local.ss_family == AF_VSOCK)
		net_sa_vsock(&j->local, VMADDR_CID_ANY, 0);
	/*
	 * The request, TLS and all, within one deadline on a socket that
	 * never blocks: a host trickling bytes cannot hold the agent longer,
	 * and a signal ends the wait.
	 */
	net_set_nonblock(fd, true);
	at = net_now_ms() + AGENT_REQ_MS;
	e = tls ? net_conn_tls(&j->ctl, tls, at, o->stop) : 0;
	if (e == -EACCES)
		why = "TLS handshake failed (another key, or no TLS: see --psk)";
	if (!e)
		e = net_read_msg_by(&j->ctl, j->buf, &m, &why, at, o->stop);
	if (!e)
		e = netmsg_trace_req_parse(&m, &req, &why);
	if (!e)
		e = netmsg_agent_args_parse(req.argc, req.argv, &args, &why);
	if (e) {
		alog(o, "%s: refused: %s", j->who,
		     e == -ETIMEDOUT ? "no request in time"
		     : e == -EINTR ? "the agent is stopping"
		     : e == -ECONNRESET ? "closed before its request"
		     : e == -EBADMSG || e == -EINVAL || e == -EACCES ? why : strerror(-e));
		j->started = j->refused = true;	/* no answer to a peer that never asked */
		job_end(j, 0);
		free(j);
		return;
	}
	j->ptp = req.ptp;
	j->trace_id = net_trace_id();
	/* A tr host proves its connections: a host's only, not the first comer's. */
	if (req.session && (e = net_token_new(&j->token))) {
		alog(o, "%s: refused: no random bytes for its session: %s", j->who, strerror(-e));
		j->refused = true;
		job_end(j, 0);
		free(j);
		return;
	}
	alog(o, "%s: connected: %u events%s%s", j->who, args.nevents, args.clock ? ", clock " : "",
	     args.clock ? args.clock : "");
	e = o->run(o->run_arg, j, &args);
	job_end(j, e);
	free(j);
}

/*
 * One host at a time: one that connects while another's recording runs is
 * told so in the log and closed at once, rather than left to time out in
 * the listen queue (its tr record -A then fails at its request).
 */
static void refuse_busy(struct net_agent_job *j)
{
	struct sockaddr_storage peer;
	char host[64];
	uint32_t port;
	int fd;

	while ((fd = net_accept(j->acc, 0, &peer, host, sizeof(host), &port)) >= 0 ||
	       fd == -EACCES) {
		if (fd < 0)
			continue;
		alog(j->o, "%s:%u: refused: busy recording for %s", host, port, j->who);
		close(fd);
	}
}

static void accept_log(void *arg, const char *line)
{
	alog(arg, "%s", line);
}

int net_agent_serve(const struct net_agent_opts *o)
{
	struct sockaddr_storage a;
	const char *bind_to = o->bind ? o->bind : o->vsock ? "vsock" : "127.0.0.1";
	struct net_tls *tls = NULL;
	struct net_acceptor acc;
	uint16_t port;
	int lfd, e;

	if ((e = net_bind_addr(o->bind, o->vsock, &a)))
		return e;
	if (o->psk_file && (e = net_tls_load(o->psk_file, true, &tls)))
		return e;
	lfd = net_listen_at(&a, o->port, &port);
	if (lfd < 0) {
		net_tls_free(tls);
		return tr_fail(lfd, "cannot listen on %s port %u: %s", bind_to, o->port,
			       strerror(-lfd));
	}
	if (o->ready)
		o->ready(o->log_arg, port);
	acc = (struct net_acceptor){ .lfd = lfd, .allow = o->allow, .nallow = o->nallow,
				     .log = accept_log, .log_arg = (void *)o };
	while (!*o->stop) {
		struct sockaddr_storage peer;
		char host[64];
		uint32_t pport;
		int fd = net_accept(&acc, 200, &peer, host, sizeof(host), &pport);

		if (fd >= 0)
			serve_one(o, tls, &acc, fd, &peer);
	}
	close(lfd);
	net_tls_free(tls);
	return 0;
}
