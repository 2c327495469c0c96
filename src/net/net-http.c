// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The metrics endpoint's HTTP server: see include/http.h.  One thread
 * polls the listening socket and every connection; each connection is a
 * buffer for its head, an answer being written and one deadline, so a
 * peer can hold at most its slot until then.  Nothing a peer sends is
 * trusted: the head goes through http_parse() within HTTP_MAX_HEAD bytes,
 * and whatever it sends past a head is the next request's.
 */
#include <errno.h>
#include <sched.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http.h"
#include "net-local.h"
#include "net.h"
#include "tr.h"

enum { HANDSHAKE, READING, WRITING };

struct conn {
	struct net_conn nc;		/* the socket, and its TLS when the server has TLS */
	struct sockaddr_storage peer;
	char host[64];
	uint32_t port;
	int state;
	uint64_t deadline;
	bool close_after;	/* close once the answer is out */
	bool answered;		/* has answered a request (idle_ms applies then) */
	char in[HTTP_MAX_HEAD];
	size_t have;
	char *out;
	size_t out_len, out_off;
};

struct http_server {
	struct http_server_opts o;
	struct net_acceptor acc;
	int lfd;
	struct conn **conns;
	int nconns;
	atomic_bool stop;
	atomic_int tid;		/* the thread's, once it runs */
	pthread_t thread;
	struct net_tls *tls;	/* HTTPS, or NULL */
	struct http_auth *auth;	/* Basic authentication, or NULL */
};

static void say(struct http_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct http_server *s, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!s->o.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->o.log(s->o.log_arg, line);
}

static void drop(struct http_server *s, int i)
{
	struct conn *c = s->conns[i];

	net_conn_close(&c->nc);
	free(c->out);
	free(c);
	s->conns[i] = s->conns[--s->nconns];
}

/* The answer to c: status line, the fields, and body unless HEAD. */
static void answer(struct http_server *s, struct conn *c, int status, const char *ctype,
		   const char *body, size_t len, bool head)
{
	char top[320];
	int n;

	n = snprintf(top, sizeof(top),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "Connection: %s\r\n%s\r\n",
		     status, http_reason(status), ctype ? ctype : "text/plain; charset=utf-8", len,
		     c->close_after ? "close" : "keep-alive",
		     status == 401 ? "WWW-Authenticate: Basic realm=\"tr serve\", charset=\"UTF-8\"\r\n"
				   : "");
	free(c->out);
	c->out_len = (size_t)n + (head ? 0 : len);
	c->out = xmalloc(c->out_len);
	memcpy(c->out, top, (size_t)n);
	if (!head && len)
		memcpy(c->out + n, body, len);
	c->out_off = 0;
	c->state = WRITING;
	c->deadline = net_now_ms() + (uint64_t)s->o.write_ms;
}

/* A refusal: its status and reason as the body, the connection closed after. */
static void refuse(struct http_server *s, struct conn *c, int status, const char *why)
{
	char body[160];
	int n = snprintf(body, sizeof(body), "%d %s\n", status, http_reason(status));

	say(s, "%s:%u: %d %s: %s", c->host, c->port, status, http_reason(status), why);
	c->close_after = true;
	answer(s, c, status, NULL, body, (size_t)n, false);
}

static const char *refusal(int status)
{
	switch (status) {
	case 405: return "a method other than GET or HEAD";
	case 414: return "a target longer than 1024 bytes";
	case 431: return "a head longer than 8192 bytes or of more than 64 fields";
	case 501: return "an absolute target (not a proxy)";
	case 505: return "a version other than HTTP/1.0 and 1.1";
	default: return "a malformed request";
	}
}

/* A whole head in c->in: answer it. */
static void serve(struct http_server *s, struct conn *c)
{
	struct http_req r;
	int n = http_parse(c->in, c->have, &r);
	char *body = NULL;
	size_t len = 0;
	const char *ctype = NULL;
	int status;

	if (n == 0)
		return;
	if (n < 0) {
		refuse(s, c, -n, refusal(-n));
		return;
	}
	c->close_after = !r.keep_alive;
	if (s->auth && (status = http_auth_check(s->auth, r.authorization, r.authorization_len,
						 net_now_ms()))) {
		say(s, "%s:%u: 401 Unauthorized: %s", c->host, c->port,
		    status == -EINVAL ? "no Basic credentials"
		    : status == -EAGAIN ? "too many checks this second, not checked"
					: "wrong user or password");
		status = 401;
	} else {
		status = s->o.handle(s->o.arg, &r, http_negotiate(r.accept, r.accept_len), &body,
				     &len, &ctype);
	}
	if (!body && status != 200) {
		body = xasprintf("%d %s\n", status, http_reason(status));
		len = strlen(body);
	}
	answer(s, c, status, ctype, body ? body : "", body ? len : 0, r.method == HTTP_HEAD);
	free(body);
	/* What came after the head is the next request's. */
	memmove(c->in, c->in + n, c->have - (size_t)n);
	c->have -= (size_t)n;
	c->answered = true;
}

/* TLS's handshake, a step at a time: once done the head is read under the same deadline. */
static void shake(struct http_server *s, struct conn *c, int i)
{
	int r = net_conn_tls_step(&c->nc);

	if (r > 0) {
		c->state = READING;
		c->nc.want = 0;
	} else if (r < 0) {
		say(s, "%s:%u: closed: TLS handshake failed (not TLS, or no cipher in common)",
		    c->host, c->port);
		drop(s, i);
	}
}

static void read_some(struct http_server *s, struct conn *c, int i)
{
	ssize_t n = net_conn_read(&c->nc, c->in + c->have, sizeof(c->in) - c->have);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		drop(s, i);
		return;
	}
	if (n < 0)
		return;
	c->nc.want = 0;		/* TLS waits in its own direction only after an EAGAIN */
	c->have += (size_t)n;
	serve(s, c);
}

static void write_some(struct http_server *s, struct conn *c, int i)
{
	ssize_t n = net_conn_write(&c->nc, c->out + c->out_off, c->out_len - c->out_off);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop(s, i);
		return;
	}
	c->nc.want = 0;
	c->out_off += (size_t)n;
	if (c->out_off < c->out_len)
		return;
	if (c->close_after) {
		/* TLS says it is done with close_notify, as drop() closes. */
		if (!c->nc.ssl)
			shutdown(c->nc.fd, SHUT_WR);
		drop(s, i);
		return;
	}
	free(c->out);
	c->out = NULL;
	c->state = READING;
	c->deadline = net_now_ms() + (uint64_t)(c->have ? s->o.head_ms : s->o.idle_ms);
	/* A request that came in with the last one (pipelined). */
	if (c->have)
		serve(s, c);
}

static void take(struct http_server *s)
{
	struct sockaddr_storage peer;
	struct conn *c;
	char host[64];
	uint32_t port = 0;
	int fd = net_accept(&s->acc, 0, &peer, host, sizeof(host), &port), same = 0;

	if (fd < 0) {
		/* Out of descriptors: a connection (the first in the table) makes room. */
		if (fd == -EMFILE && s->nconns) {
			say(s, "%s:%u: closed to make room for new connections",
			    s->conns[0]->host, s->conns[0]->port);
			drop(s, 0);
		}
		return;
	}
	net_set_nonblock(fd, true);
	c = xcalloc(1, sizeof(*c));
	c->nc.fd = fd;
	c->peer = peer;
	snprintf(c->host, sizeof(c->host), "%s", host);
	c->port = port;
	c->state = READING;
	c->deadline = net_now_ms() + (uint64_t)s->o.head_ms;
	for (int i = 0; i < s->nconns; i++)
		same += net_same_host(&s->conns[i]->peer, &peer);
	if (s->nconns >= s->o.max_conns || same >= s->o.max_per_addr) {
		/* Told why, if it takes a few bytes now; never waited for. */
		static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
					   "Connection: close\r\n\r\n";

		say(s, "%s:%u: 503 Service Unavailable: %s", host, port,
		    same >= s->o.max_per_addr ? "too many connections from this address"
					      : "too many connections");
		if (!s->tls)
			(void)!send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
		free(c);
		return;
	}
	if (s->tls) {
		if (net_conn_tls_begin(&c->nc, s->tls)) {
			say(s, "%s:%u: closed: out of memory for TLS", host, port);
			net_conn_close(&c->nc);
			free(c);
			return;
		}
		c->state = HANDSHAKE;
	}
	s->conns[s->nconns++] = c;
}

/* Deadlines passed: a head never finished is answered 408; the rest close. */
static void expire(struct http_server *s, uint64_t now)
{
	for (int i = s->nconns - 1; i >= 0; i--) {
		struct conn *c = s->conns[i];

		if (now < c->deadline)
			continue;
		if (c->state == HANDSHAKE) {
			say(s, "%s:%u: closed: TLS handshake not done in time", c->host, c->port);
		} else if (c->state == READING && (c->have || !c->answered)) {
			refuse(s, c, 408, c->have ? "the head did not come whole in time"
						  : "nothing sent in time");
			/* Its answer gets write_ms; a peer that reads nothing then goes. */
			continue;
		}
		if (c->state == WRITING)
			say(s, "%s:%u: closed: the answer was not taken in time", c->host, c->port);
		drop(s, i);
	}
}

/*
 * What a connection waits for: its state's direction, unless TLS asked for
 * the other (a handshake step, a record that must be written to read).
 */
static short events(const struct conn *c)
{
	if (c->nc.ssl && c->nc.want)
		return c->nc.want;
	return c->state == WRITING ? POLLOUT : POLLIN;
}

static void *loop(void *arg)
{
	struct http_server *s = arg;
	struct pollfd *p = xcalloc((size_t)s->o.max_conns + 1, sizeof(*p));

	atomic_store(&s->tid, (int)gettid());

	while (!atomic_load(&s->stop)) {
		uint64_t now = net_now_ms(), next = now + NET_SLICE_MS;
		int n = 0, nc = s->nconns;
		bool pending = false;

		p[n++] = (struct pollfd){ .fd = now < s->acc.backoff_ms ? -1 : s->lfd,
					  .events = POLLIN };
		for (int i = 0; i < nc; i++) {
			struct conn *c = s->conns[i];

			p[n++] = (struct pollfd){ .fd = c->nc.fd, .events = events(c) };
			if (c->deadline < next)
				next = c->deadline;
			/* Decrypted bytes poll() cannot see: read them without waiting. */
			pending |= c->state == READING && net_conn_pending(&c->nc);
		}
		if (poll(p, (nfds_t)n, next > now && !pending ? (int)(next - now) : 0) < 0 &&
		    errno != EINTR)
			break;
		/* Backwards: drop() moves the last connection into the slot it frees. */
		for (int i = nc - 1; i >= 0; i--) {
			short re = p[i + 1].revents;
			struct conn *c = s->conns[i];

			if (c->state == READING && net_conn_pending(&c->nc))
				re |= POLLIN;
			if (!re)
				continue;
			if (c->state == HANDSHAKE)
				shake(s, c, i);
			else if (c->state == READING && (re & (POLLIN | POLLOUT | POLLHUP | POLLERR)))
				read_some(s, c, i);
			else if (c->state == WRITING && (re & (POLLIN | POLLOUT | POLLHUP | POLLERR)))
				write_some(s, c, i);
		}
		if (p[0].revents & POLLIN)
			take(s);
		expire(s, net_now_ms());
	}
	free(p);
	return NULL;
}

static void server_free(struct http_server *s)
{
	net_tls_free(s->tls);
	http_auth_free(s->auth);
	free(s->conns);
	free(s);
}

int http_server_start(const struct http_server_opts *o, struct http_server **out,
		      unsigned short *port)
{
	struct http_server *s = xcalloc(1, sizeof(*s));
	struct sockaddr_storage a;
	uint16_t bound = 0;
	int r;

	s->o = *o;
	if (s->o.max_conns <= 0)
		s->o.max_conns = 16;
	if (s->o.max_per_addr <= 0)
		s->o.max_per_addr = 4;
	if (s->o.head_ms <= 0)
		s->o.head_ms = 10000;
	if (s->o.idle_ms <= 0)
		s->o.idle_ms = 30000;
	if (s->o.write_ms <= 0)
		s->o.write_ms = 10000;
	if (!!o->tls_cert != !!o->tls_key) {
		free(s);
		return tr_fail(-EINVAL, "HTTPS needs both a certificate and its key");
	}
	r = o->tls_cert ? net_tls_load_cert(o->tls_cert, o->tls_key, &s->tls) : 0;
	if (!r && o->auth_file)
		r = http_auth_load(o->auth_file, &s->auth);
	if (!r)
		r = net_bind_addr(o->bind, false, &a);
	if (r) {
		server_free(s);
		return r;
	}
	s->lfd = net_listen_at(&a, o->port, &bound);
	if (s->lfd < 0) {
		r = s->lfd;
		server_free(s);
		return tr_fail(r, "cannot listen on %s port %u: %s", o->bind ? o->bind : "127.0.0.1",
			       o->port, strerror(-r));
	}
	net_set_nonblock(s->lfd, true);
	s->acc = (struct net_acceptor){ .lfd = s->lfd, .allow = o->allow, .nallow = o->nallow,
					.log = o->log, .log_arg = o->log_arg };
	s->conns = xcalloc((size_t)s->o.max_conns, sizeof(*s->conns));
	r = pthread_create(&s->thread, NULL, loop, s);
	if (r) {
		close(s->lfd);
		server_free(s);
		return tr_fail(-r, "cannot start the HTTP server: %s", strerror(r));
	}
	/* The thread's id is known at once: it is the first thing the thread does. */
	while (!atomic_load(&s->tid))
		sched_yield();
	*port = bound;
	*out = s;
	return 0;
}

pid_t http_server_tid(const struct http_server *s)
{
	return atomic_load(&((struct http_server *)s)->tid);
}

void http_server_stop(struct http_server *s)
{
	if (!s)
		return;
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	while (s->nconns)
		drop(s, s->nconns - 1);
	close(s->lfd);
	server_free(s);
}
