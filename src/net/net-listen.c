// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr listen's server (net.h): trace-cmd's protocol v3 on the listening
 * side, with the limits a server left running needs.  One thread per
 * client; each thread polls the client's control connection, its per-CPU
 * listening sockets and then its data connections, so a client costs one
 * thread whatever its CPU count.  Pages go to unlinked temp files beside
 * the output; at the end net_file_write() (net-writer.c, a child process)
 * writes the file from the client's metadata and those pages.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#include "net-local.h"
#include "net.h"
#include "netmsg.h"
#include "tr.h"

/*
 * A data connection's TLS handshake and its token, from its accept, or
 * --setup-timeout when shorter (the client's set-up is over by then; a tr
 * client needs a few round trips).
 */
#define NET_DATA_TLS_MS 10000

struct server;

struct client {
	struct server *s;
	pthread_t th;
	bool done;		/* the thread has finished: join it (under s->lock) */
	struct net_conn ctl;
	struct sockaddr_storage peer;
	char who[80];		/* "HOST:PORT" for the log */
	char host[64];
	uint32_t port;
	int ncpus;
	int fds;		/* of the server's descriptor budget */
	uint32_t page_size;
	int *lfd, *tfd;
	struct net_conn *dc;	/* the data connections */
	/*
	 * A tr client's session token (netmsg.h), and each CPU's connection
	 * still owing it or its TLS handshake (tls): by_ms, the deadline of
	 * both (0: nothing owed), and the token's bytes so far.
	 */
	struct netmsg_token token;
	struct proof {
		uint64_t by_ms;
		bool tls;
		size_t n;
		uint8_t got[NETMSG_TOKEN_LEN];
	} *proof;
	uint64_t *bytes;
	int meta_fd;
	uint64_t meta_len, total;
	bool meta_done, closed, over;
	/* saved_tgids, sent after the pages (netmsg.h): taken, then checked at its FIN_DATA. */
	char *tgids;
	size_t tgids_len;
	bool tgids_done;
	uint8_t rbuf[2 * NETMSG_MAX];
	size_t rlen;
	uint64_t deadline_ms, last_ms;
	uint64_t charged;	/* of the server's --max-total, under s->lock */
	bool over_total;
	int write_err;		/* a temp file's write failed: -errno */
	char why_buf[128];	/* a why made for this client */
	char fail[1024];	/* this thread's tr_fail() message (tr_fail_own()) */
};

struct server {
	const struct net_listen_opts *o;
	/*
	 * The log, the slots' done flags, the descriptors, the bytes: held
	 * briefly, never across a file's write or a peer's metadata parse
	 * (each client's thread has its own tr_fail() message).
	 */
	pthread_mutex_t lock;
	struct client **slots;
	int nslots;
	struct net_tls *tls;	/* --psk, or NULL */
	/*
	 * Descriptors: what RLIMIT_NOFILE leaves after NET_FD_RESERVE, and
	 * what the clients being served hold (CLIENT_FDS each, CPU_FDS more a
	 * CPU from TINIT on), under lock.  A client that would pass it is
	 * refused, so accept() never runs out.
	 */
	int fd_budget, fd_used;
	uint64_t bytes_used;	/* of o->max_total, under lock */
	unsigned delay_ms;	/* TR_DELAY_LISTEN_WRITE */
	_Atomic bool delayed;
};

/* The process's own: stdio, the listening socket, OpenSSL's, a file being written. */
#define NET_FD_RESERVE 16
/* The control connection, the metadata's temp file, the output file, its reopened metadata. */
#define CLIENT_FDS 4
/* A CPU's listening socket, its data connection and its temp file. */
#define CPU_FDS 3

/* Take n descriptors of the budget: false when they are not there. */
static bool fds_take(struct server *s, int n)
{
	bool ok;

	pthread_mutex_lock(&s->lock);
	ok = s->fd_used + n <= s->fd_budget;
	if (ok)
		s->fd_used += n;
	pthread_mutex_unlock(&s->lock);
	return ok;
}

static void fds_give(struct server *s, int n)
{
	pthread_mutex_lock(&s->lock);
	s->fd_used -= n;
	pthread_mutex_unlock(&s->lock);
}

/*
 * Charge n bytes a client sent to --max-total as often as the listener
 * will hold them at once (times), so that writing the file never passes
 * the total.  Pages: their temp file, the file they become (CHARGE_PAGES).
 * Metadata: its temp file, the file, and the two copies reading it back
 * holds in memory while the file is written, tfile's and tfw_meta's
 * (CHARGE_META).  saved_tgids: this buffer, tfw_meta's copy, the file.
 * False, with c->over_total, when they are not there.
 */
#define CHARGE_PAGES 2
#define CHARGE_META 4
#define CHARGE_TGIDS 3
static bool bytes_take(struct client *c, uint64_t n, unsigned times)
{
	struct server *s = c->s;
	bool ok;

	pthread_mutex_lock(&s->lock);
	ok = n <= (s->o->max_total - s->bytes_used) / times;
	if (ok) {
		s->bytes_used += times * n;
		c->charged += times * n;
	}
	pthread_mutex_unlock(&s->lock);
	if (!ok)
		c->over_total = true;
	return ok;
}

/* The client's file is written, its temp files closed: its bytes are free again. */
static void bytes_give(struct client *c)
{
	pthread_mutex_lock(&c->s->lock);
	c->s->bytes_used -= c->charged;
	c->charged = 0;
	pthread_mutex_unlock(&c->s->lock);
}

/* What a new client is refused for (--max-total, --min-free) into why[n], or false. */
static bool no_room(struct server *s, char *why, size_t n)
{
	const struct net_listen_opts *o = s->o;
	struct statvfs v;
	uint64_t used;

	pthread_mutex_lock(&s->lock);
	used = s->bytes_used;
	pthread_mutex_unlock(&s->lock);
	if (o->max_total - used < NET_MIN_ROOM) {
		snprintf(why, n, "the clients being received hold %llu MB of --max-total %llu MB",
			 (unsigned long long)(used >> 20), (unsigned long long)(o->max_total >> 20));
		return true;
	}
	if (o->min_free && !statvfs(o->dir, &v) &&
	    (uint64_t)v.f_bavail * v.f_frsize < o->min_free) {
		snprintf(why, n, "only %llu MB free in '%s' (--min-free)",
			 (unsigned long long)((uint64_t)v.f_bavail * v.f_frsize >> 20), o->dir);
		return true;
	}
	return false;
}

/*
 * The budget: the soft limit raised to the hard one (at most 65536), as
 * a server that holds several descriptors a client may.
 */
static int fd_budget(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return 1024 - NET_FD_RESERVE;
	if (r.rlim_cur < r.rlim_max && r.rlim_cur < 65536) {
		r.rlim_cur = r.rlim_max < 65536 ? r.rlim_max : 65536;
		setrlimit(RLIMIT_NOFILE, &r);
		getrlimit(RLIMIT_NOFILE, &r);
	}
	if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > 65536)
		r.rlim_cur = 65536;
	return r.rlim_cur > NET_FD_RESERVE ? (int)r.rlim_cur - NET_FD_RESERVE : 0;
}

static void slog(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void slog(struct server *s, const char *fmt, ...)
{
	char line[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&s->lock);
	if (s->o->log)
		s->o->log(s->o->log_arg, line);
	pthread_mutex_unlock(&s->lock);
}

static void accept_log(void *arg, const char *line)
{
	slog(arg, "%s", line);
}

static int file_write(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= w;
	}
	return 0;
}

/* An unlinked temp file in dir. */
static int temp_file(const char *dir)
{
	int fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);

	if (fd < 0) {
		char *path = xasprintf("%s/.tr-listen-XXXXXX", dir);

		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		free(path);
	}
	return fd;
}

/* Why a wait of the set-up ended (net_read_by()'s error), for the log. */
static const char *setup_why(int e, const char *late)
{
	return e == -EINTR ? "the listener is stopping" : e == -ETIMEDOUT ? late
	       : e == -ECONNRESET ? "connection closed in the handshake" : "connection error";
}

/* Read exactly n handshake bytes by the set-up's deadline; 0, or -1 with *why. */
static int read_exact(struct client *c, void *buf, size_t n, const char **why)
{
	int e = net_read_by(&c->ctl, buf, n, c->deadline_ms, c->s->o->stop);

	if (e)
		*why = setup_why(e, "handshake timed out");
	return e ? -1 : 0;
}

/* Write a handshake's answer by the set-up's deadline; 0, or -1 with *why. */
static int write_exact(struct client *c, const void *buf, size_t n, const char **why)
{
	int e = net_write_by(&c->ctl, buf, n, c->deadline_ms, c->s->o->stop);

	if (e)
		*why = e == -EINTR ? "the listener is stopping" : e == -ETIMEDOUT
			? "handshake timed out (the client reads nothing)"
			: "connection closed in the handshake";
	return e ? -1 : 0;
}

/* Fill rbuf until it holds one whole message, and take it. */
static int next_msg(struct client *c, struct netmsg *m, const char **why)
{
	for (;;) {
		ssize_t t = netmsg_take(c->rbuf, c->rlen, m, why);
		int w;
		ssize_t r;

		if (t < 0)
			return -1;
		if (t > 0)
			return t;
		if ((w = net_wait_by(&c->ctl, POLLIN, c->deadline_ms, c->s->o->stop))) {
			*why = setup_why(w, "timed out in the set-up");
			return -1;
		}
		r = net_conn_read(&c->ctl, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			*why = c->rlen ? "connection closed inside a message"
				       : "connection closed in the set-up";
			return -1;
		}
		c->rlen += r;
	}
}

/* Why a temp file's write failed (c->write_err): the disk full, most likely. */
static const char *temp_why(struct client *c)
{
	snprintf(c->why_buf, sizeof(c->why_buf), "cannot write a temp file: %s",
		 strerror(-c->write_err));
	return c->why_buf;
}

static void consume(struct client *c, size_t n)
{
	memmove(c->rbuf, c->rbuf + n, c->rlen - n);
	c->rlen -= n;
}

/* The greeting, the version, the magic, TINIT: 0, or -1 with *why. */
static int handshake(struct client *c, struct netmsg_tinit *t, const char **why)
{
	char ver[64], magic[NETMSG_MAGIC_LEN];
	size_t n = 0;
	struct netmsg m;
	ssize_t used;

	if (write_exact(c, NETMSG_GREETING, 8, why))
		return -1;
	/* The version string, a byte at a time: nothing after it may be swallowed. */
	for (;;) {
		ssize_t k;

		if (read_exact(c, ver + n, 1, why))
			return -1;
		n++;
		k = netmsg_take_str(ver, n, sizeof(ver), why);
		if (k < 0)
			return -1;
		if (k > 0)
			break;
	}
	if (strcmp(ver, NETMSG_V3)) {
		*why = "not protocol v3 (trace-cmd before 2.8?)";
		return -1;
	}
	if (write_exact(c, NETMSG_V3_REPLY, sizeof(NETMSG_V3_REPLY), why) ||
	    read_exact(c, magic, sizeof(magic), why))
		return -1;
	if (memcmp(magic, NETMSG_MAGIC, sizeof(magic))) {
		*why = "bad magic in the handshake";
		return -1;
	}
	if (write_exact(c, NETMSG_OK, 2, why))
		return -1;
	if ((used = next_msg(c, &m, why)) < 0 || netmsg_tinit_parse(&m, t, why))
		return -1;
	consume(c, used);
	/* vsock is a stream whatever the client says (trace-cmd -V asks for no "tcp"). */
	if (!t->tcp && c->peer.ss_family != AF_VSOCK) {
		*why = "data over UDP is not supported (use trace-cmd record -t)";
		return -1;
	}
	return 0;
}

/* A listening socket per CPU on the address the client reached, and RINIT. */
static int open_ports(struct client *c, const char **why)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	uint32_t *ports = calloc(c->ncpus, sizeof(*ports));
	uint8_t buf[NETMSG_MAX];
	int r = -1;

	if (!ports) {
		*why = "out of memory";
		return -1;
	}
	if (getsockname(c->ctl.fd, (struct sockaddr *)&local, &len)) {
		*why = "cannot read the local address";
		goto out;
	}
	/* A vsock client reaches this machine by whichever of its CIDs (1, its own): any. */
	if (local.ss_family == AF_VSOCK)
		net_sa_vsock(&local, VMADDR_CID_ANY, 0);
	for (int i = 0; i < c->ncpus; i++) {
		struct sockaddr_storage a = local;
		socklen_t alen = sizeof(a);

		c->lfd[i] = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		/* Room in the queue for the client's connection behind one that owes a token. */
		if (c->lfd[i] < 0 || net_bind(c->lfd[i], &a, 0) || listen(c->lfd[i], 4) ||
		    getsockname(c->lfd[i], (struct sockaddr *)&a, &alen)) {
			*why = "cannot open a data port";
			goto out;
		}
		ports[i] = net_sa_port(&a);
	}
	if (write_exact(c, buf, netmsg_put_rinit(buf, ports, c->ncpus, true, &c->token), why))
		goto out;
	r = 0;
out:
	free(ports);
	return r;
}

/*
 * Control messages after TINIT: metadata, its end, saved_tgids and its end,
 * CLOSE.  0; 1 with *why
 * when the connection ended without CLOSE; -1 with *why on a bad message.
 */
static int control(struct client *c, const char **why)
{
	ssize_t r;

next:
	r = net_conn_read(&c->ctl, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0) {
		*why = c->rlen ? "connection closed inside a message" : "connection lost";
		return 1;
	}
	c->rlen += r;
	for (;;) {
		struct netmsg m;
		ssize_t t = netmsg_take(c->rbuf, c->rlen, &m, why);

		if (t < 0)
			return -1;
		if (!t) {
			/* Room is made for a whole message: TLS may have more now. */
			if (net_conn_pending(&c->ctl))
				goto next;
			return 0;
		}
		switch (m.cmd) {
		case NETMSG_SEND_DATA:
			if (c->tgids_done) {
				*why = "data after saved_tgids";
				return -1;
			}
			if (c->meta_done) {
				char *t;

				if (c->tgids_len + m.data_len > NETMSG_MAX_TGIDS) {
					*why = "saved_tgids over 64 MB";
					return -1;
				}
				if (!bytes_take(c, m.data_len, CHARGE_TGIDS)) {
					*why = "over --max-total";
					return -1;
				}
				/* The peer's size: a failure ends this client, not the listener. */
				t = realloc(c->tgids, c->tgids_len + m.data_len + 1);
				if (!t) {
					*why = "out of memory for saved_tgids";
					return -1;
				}
				c->tgids = t;
				memcpy(c->tgids + c->tgids_len, m.data, m.data_len);
				c->tgids_len += m.data_len;
				c->tgids[c->tgids_len] = 0;
				break;
			}
			if (c->meta_len + m.data_len > NET_MAX_META) {
				*why = "metadata over 256 MB";
				return -1;
			}
			if (!bytes_take(c, m.data_len, CHARGE_META)) {
				*why = "over --max-total";
				return -1;
			}
			if ((c->write_err = file_write(c->meta_fd, m.data, m.data_len))) {
				*why = temp_why(c);
				return -1;
			}
			c->meta_len += m.data_len;
			break;
		case NETMSG_FIN_DATA:
			if (c->meta_done && !c->tgids_done) {
				c->tgids_done = true;
				if (netmsg_tgids_check(c->tgids, c->tgids_len, why)) {
					free(c->tgids);
					c->tgids = NULL;
					c->tgids_len = 0;
					return -1;
				}
			}
			c->meta_done = true;
			break;
		case NETMSG_CLOSE:
			c->closed = true;
			break;
		default:
			*why = "unexpected message";
			return -1;
		}
		/* Progress is a whole message: bytes of one, a byte at a time, are not. */
		c->last_ms = net_now_ms();
		consume(c, t);
	}
}

static int data_in(struct client *c, int i, char *buf, size_t cap)
{
	ssize_t r;

next:
	r = net_conn_read(&c->dc[i], buf, cap);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0) {
		net_conn_close(&c->dc[i]);
		return 0;
	}
	if (c->total + r > c->s->o->max_size) {
		r = c->s->o->max_size - c->total;
		c->over = true;
	}
	if (!bytes_take(c, r, CHARGE_PAGES))
		return 0;
	if ((c->write_err = file_write(c->tfd[i], buf, r)))
		return -1;
	/* Progress is a whole sub-buffer: a recorder sends nothing less. */
	if ((c->bytes[i] + r) / c->page_size != c->bytes[i] / c->page_size)
		c->last_ms = net_now_ms();
	c->bytes[i] += r;
	c->total += r;
	if (!c->over && !c->over_total && net_conn_pending(&c->dc[i]))
		goto next;
	return 0;
}

/* CPU i's connection is not the client's: say so, close it, wait for another. */
static void refuse_data(struct client *c, int i, const char *why)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	char h[64] = "?";
	uint32_t port = 0;

	if (!getpeername(c->dc[i].fd, (struct sockaddr *)&a, &alen))
		net_peer_name((struct sockaddr *)&a, h, sizeof(h), &port);
	slog(c->s, "%s: refused a data connection from %s:%u: %s", c->who, h, port, why);
	net_conn_close(&c->dc[i]);
	c->proof[i].by_ms = 0;
	c->proof[i].tls = false;
}

/*
 * Read what has come of CPU i's token: the right one makes the connection
 * the CPU's and closes its port; a wrong, short or missing one is refused
 * and the port waits on.
 */
static void prove(struct client *c, int i)
{
	/* A trace-cmd client's is taken as it is: the protocol has nothing to prove it with. */
	if (c->token.set) {
		int e = net_token_take(&c->dc[i], &c->token, c->proof[i].got, &c->proof[i].n);

		if (e < 0) {
			refuse_data(c, i, net_token_why(e));
			return;
		}
		if (!e)
			return;
	}
	c->proof[i].by_ms = 0;
	close(c->lfd[i]);
	c->lfd[i] = -1;
}

/*
 * A step of CPU i's TLS handshake, when its socket is ready for what the
 * last one wanted: done, the token is next (often here already).  It runs
 * in the client's loop, never waiting, so a peer that sends it a byte at
 * a time stalls none of the client's other connections and no stop; the
 * loop drops it at by_ms.
 */
static void shake(struct client *c, int i)
{
	int e = net_conn_tls_step(&c->dc[i]);

	if (e < 0) {
		refuse_data(c, i, "TLS handshake failed (another --psk, or none)");
		return;
	}
	if (!e)
		return;
	c->proof[i].tls = false;
	prove(c, i);
}

/*
 * A data connection: from the client's address, TLS if the listener has a
 * key, and from a tr client the session's token before anything else.
 */
static void take_data(struct client *c, int i)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	char h[64];
	uint32_t port;
	unsigned limit;
	int fd;

	/* One connection at a time proves itself; the next waits in the queue. */
	if (c->dc[i].fd >= 0)
		return;
	fd = accept4(c->lfd[i], (struct sockaddr *)&a, &alen, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	net_peer_name((struct sockaddr *)&a, h, sizeof(h), &port);
	if (!net_same_host(&a, &c->peer)) {
		slog(c->s, "%s: refused a data connection from %s:%u (not the client's address)",
		     c->who, h, port);
		close(fd);
		return;
	}
	c->dc[i].fd = fd;
	limit = c->s->tls ? NET_DATA_TLS_MS : NET_TOKEN_MS;
	if (limit > c->s->o->setup_ms)
		limit = c->s->o->setup_ms;
	c->proof[i] = (struct proof){ .by_ms = net_now_ms() + limit };
	if (c->s->tls) {
		if (net_conn_tls_begin(&c->dc[i], c->s->tls)) {
			refuse_data(c, i, "out of memory for TLS");
			return;
		}
		c->proof[i].tls = true;
		shake(c, i);
		return;
	}
	/* A client sends its token at once: often it is here already. */
	prove(c, i);
}

/*
 * After RINIT: take the data connections and read everything until the
 * client has said CLOSE and closed them, or broke off, or went silent.
 * Returns NULL when it ended well, else why not.
 */
static const char *serve(struct client *c)
{
	int n = 1 + 2 * c->ncpus;
	struct pollfd *p = calloc(n, sizeof(*p));
	size_t cap = 256 << 10;
	char *buf = malloc(cap);
	const char *why = NULL, *lost = NULL;
	const struct net_listen_opts *o = c->s->o;

	if (!p || !buf) {
		free(p);
		free(buf);
		return "out of memory";
	}
	c->last_ms = net_now_ms();
	while (!why) {
		bool open_data = false;
		uint64_t now;
		int k;

		bool pending = !c->closed && net_conn_pending(&c->ctl);

		p[0] = (struct pollfd){ .fd = c->closed ? -1 : c->ctl.fd, .events = POLLIN };
		for (int i = 0; i < c->ncpus; i++) {
			/*
			 * After CLOSE the client's connections are all made: one
			 * that waited behind a refused one is in the queue now.
			 */
			if (c->closed && c->lfd[i] >= 0 && c->dc[i].fd < 0)
				take_data(c, i);
			/* A port whose connection still owes its token takes no other yet. */
			p[1 + i] = (struct pollfd){ .fd = c->dc[i].fd >= 0 ? -1 : c->lfd[i],
						    .events = POLLIN };
			p[1 + c->ncpus + i] = (struct pollfd){
				.fd = c->dc[i].fd,
				.events = c->proof[i].tls ? c->dc[i].want : POLLIN,
			};
			open_data |= c->dc[i].fd >= 0 || (!c->closed && c->lfd[i] >= 0);
			pending |= net_conn_pending(&c->dc[i]);
		}
		if (c->closed && !open_data)
			break;
		k = poll(p, n, pending ? 0 : 2 * NET_SLICE_MS);
		if (pending) {
			/* What TLS decrypted already is read as if poll() had seen it. */
			k = k < 0 ? 1 : k + 1;
			if (!c->closed && net_conn_pending(&c->ctl))
				p[0].revents |= POLLIN;
			for (int i = 0; i < c->ncpus; i++)
				if (net_conn_pending(&c->dc[i]))
					p[1 + c->ncpus + i].revents |= POLLIN;
		}
		if (*o->stop) {
			why = "the listener is stopping";
			break;
		}
		if (k < 0 && errno != EINTR) {
			why = "poll failed";
			break;
		}
		/*
		 * The limits, on every pass: bytes that never make a whole
		 * message or sub-buffer do not put them off.
		 */
		now = net_now_ms();
		if (!c->meta_done && now >= c->deadline_ms) {
			why = "no metadata in time";
			break;
		}
		if (now - c->last_ms >= o->idle_ms) {
			why = "silent for too long";
			break;
		}
		for (int i = 0; i < c->ncpus; i++)
			if (c->proof[i].by_ms && now >= c->proof[i].by_ms)
				refuse_data(c, i, c->proof[i].tls ? "TLS handshake timed out"
								  : net_token_why(-ETIMEDOUT));
		if (k <= 0)
			continue;
		if (p[0].revents && (k = control(c, &why))) {
			if (k < 0)
				break;
			/*
			 * The client is gone (its process or its host died) without
			 * CLOSE: what it sent on the data connections before that is
			 * still in their buffers, and in its connections not yet
			 * taken.  Read on until they end (or go silent).
			 */
			lost = why;
			why = NULL;
			c->closed = true;
			for (int i = 0; i < c->ncpus; i++)
				if (c->lfd[i] >= 0)
					take_data(c, i);
		}
		for (int i = 0; i < c->ncpus && !why; i++) {
			if (p[1 + i].revents && c->lfd[i] >= 0)
				take_data(c, i);
			if (!p[1 + c->ncpus + i].revents || c->dc[i].fd < 0)
				;
			else if (c->proof[i].tls)
				shake(c, i);
			else if (c->proof[i].by_ms)
				prove(c, i);
			else if (data_in(c, i, buf, cap))
				why = temp_why(c);
			if (c->over)
				why = "over --max-size";
			if (c->over_total)
				why = "over --max-total";
		}
	}
	free(p);
	free(buf);
	return why ? why : lost;
}

/* PREFIX.HOST:PORT.dat in dir, or with .N before .dat: never an existing file. */
static int create_output(struct client *c, char **path)
{
	const struct net_listen_opts *o = c->s->o;

	for (int i = 0; i < 1000; i++) {
		char *p = i ? xasprintf("%s/%s.%s:%u.%d.dat", o->dir, o->prefix, c->host, c->port, i)
			    : xasprintf("%s/%s.%s:%u.dat", o->dir, o->prefix, c->host, c->port);
		/* 0600: a recording carries kallsyms (the kernel's addresses) and the events. */
		int fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd >= 0) {
			*path = p;
			return fd;
		}
		free(p);
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Write the client's file: 0, or -errno with tr_fail() (this thread's own message). */
static int assemble(struct client *c, char **path, uint64_t *size)
{
	const struct net_listen_opts *o = c->s->o;
	int fd, e;

	*size = 0;
	*path = NULL;
	fd = create_output(c, path);
	if (fd < 0)
		return tr_fail(fd, "cannot create the output file: %s", strerror(-fd));
	/* The first file only (TR_DELAY_LISTEN_WRITE): a slow disk under one client. */
	if (c->s->delay_ms && !atomic_exchange(&c->s->delayed, true))
		for (uint64_t end = net_now_ms() + c->s->delay_ms;
		     net_now_ms() < end && !*o->stop;)
			usleep(20000);
	e = net_file_write(c->meta_fd, c->ncpus, c->tfd, c->bytes, fd, o->version, o->zip,
			   NULL, 0, c->tgids,
			   c->tgids_done ? c->tgids_len : 0, size);
	if (close(fd) && !e)
		e = tr_fail(-errno, "cannot write '%s': %s", *path, strerror(errno));
	return e;
}

static void client_end(struct client *c, const char *why)
{
	struct server *s = c->s;
	char *path = NULL;
	uint64_t size = 0;
	bool full;
	int e;

	if (!c->meta_done) {
		slog(s, "%s: ended, no file: %s before the metadata was complete", c->who,
		     why ? why : "closed");
		return;
	}
	/*
	 * Under no lock: a file of gigabytes (and a peer's metadata of up to
	 * 256 MB parsed) holds up no accept, no log line and no other client,
	 * whose files are written at the same time.
	 */
	e = assemble(c, &path, &size);
	/* A full disk keeps what was written: a client's recording up to there, not nothing. */
	full = (e == -ENOSPC || e == -EDQUOT) && path;
	if (s->o->log) {
		char line[768], early[160] = "";
		const char *name = path ? strrchr(path, '/') + 1 : "";

		if (why)
			snprintf(early, sizeof(early), " early (%s)", why);
		if (full)
			snprintf(line, sizeof(line), "%s: ended%s: kept a partial file '%s': %s",
				 c->who, early, name, strerror(-e));
		else if (e)
			snprintf(line, sizeof(line), "%s: ended%s, no file: %s", c->who, early,
				 tr_failure() ? tr_failure() : strerror(-e));
		else
			snprintf(line, sizeof(line), "%s: ended%s: wrote '%s' (%llu bytes, %llu of "
				 "events)", c->who, early, name, (unsigned long long)size,
				 (unsigned long long)c->total);
		slog(s, "%s", line);
	}
	if (e && path && !full)
		unlink(path);
	free(path);
}

static void *client_run(void *arg)
{
	struct client *c = arg;
	struct server *s = c->s;
	struct netmsg_tinit t;
	const char *why = NULL;

	tr_fail_own(c->fail, sizeof(c->fail));
	/*
	 * One deadline for the whole set-up (TLS, the handshake, TINIT, the
	 * metadata), on a socket that never blocks: no recv or send has a
	 * time limit of its own for a peer to renew byte by byte.
	 */
	net_set_nonblock(c->ctl.fd, true);
	c->deadline_ms = net_now_ms() + s->o->setup_ms;
	if (s->tls) {
		int e = net_conn_tls(&c->ctl, s->tls, c->deadline_ms, s->o->stop);

		if (e) {
			slog(s, "%s: refused: %s", c->who,
			     e == -EINTR ? "the listener is stopping"
			     : e == -ETIMEDOUT ? "TLS handshake timed out"
			     : "TLS handshake failed (another --psk, or none)");
			goto out;
		}
	}
	if (handshake(c, &t, &why)) {
		slog(s, "%s: refused: %s", c->who, why);
		goto out;
	}
	/*
	 * Its CPUs' descriptors, from what the others leave; no client may
	 * take more than half of the budget.
	 */
	if (CPU_FDS * (int)t.cpus + CLIENT_FDS > s->fd_budget / 2 ||
	    !fds_take(s, CPU_FDS * t.cpus)) {
		slog(s, "%s: refused: %u CPUs need %d descriptors, more than are left "
		     "(ulimit -n)", c->who, t.cpus, CPU_FDS * t.cpus);
		goto out;
	}
	c->fds += CPU_FDS * t.cpus;
	c->ncpus = t.cpus;
	c->page_size = t.page_size;
	/* A tr client binds its data connections to this one (netmsg.h); trace-cmd's cannot. */
	if (t.session && net_token_new(&c->token)) {
		slog(s, "%s: refused: no random bytes for its session token", c->who);
		goto out;
	}
	/* Sized by the peer (at most NETMSG_MAX_CPUS): a failure ends this client only. */
	c->proof = calloc(c->ncpus, sizeof(*c->proof));
	c->lfd = malloc(c->ncpus * sizeof(int));
	c->dc = malloc(c->ncpus * sizeof(*c->dc));
	c->tfd = malloc(c->ncpus * sizeof(int));
	c->bytes = calloc(c->ncpus, sizeof(uint64_t));
	if (!c->proof || !c->lfd || !c->dc || !c->tfd || !c->bytes) {
		slog(s, "%s: refused: out of memory for %d CPUs", c->who, c->ncpus);
		free(c->lfd);
		c->lfd = NULL;
		goto out;
	}
	for (int i = 0; i < c->ncpus; i++)
		c->lfd[i] = c->tfd[i] = -1, c->dc[i] = (struct net_conn){ .fd = -1 };
	c->meta_fd = temp_file(s->o->dir);
	for (int i = 0; i < c->ncpus && c->meta_fd >= 0; i++)
		if ((c->tfd[i] = temp_file(s->o->dir)) < 0)
			break;
	if (c->meta_fd < 0 || c->tfd[c->ncpus - 1] < 0) {
		slog(s, "%s: refused: cannot create temp files in '%s': %s", c->who, s->o->dir,
		     strerror(errno));
		goto out;
	}
	if (open_ports(c, &why)) {
		slog(s, "%s: refused: %s", c->who, why);
		goto out;
	}
	slog(s, "%s: recording %d CPUs", c->who, c->ncpus);
	why = serve(c);
	client_end(c, why);
out:
	for (int i = 0; c->lfd && i < c->ncpus; i++) {
		if (c->lfd[i] >= 0)
			close(c->lfd[i]);
		net_conn_close(&c->dc[i]);
		if (c->tfd[i] >= 0)
			close(c->tfd[i]);
	}
	if (c->meta_fd >= 0)
		close(c->meta_fd);
	net_conn_close(&c->ctl);
	bytes_give(c);
	fds_give(s, c->fds);
	pthread_mutex_lock(&s->lock);
	c->done = true;
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void client_free(struct client *c)
{
	free(c->lfd);
	free(c->dc);
	free(c->proof);
	free(c->tfd);
	free(c->bytes);
	free(c->tgids);
	free(c);
}

/* Join the clients that have finished; the number still running. */
static int reap(struct server *s, bool all)
{
	int running = 0;

	for (int i = 0; i < s->nslots; i++) {
		struct client *c = s->slots[i];
		bool done;

		if (!c)
			continue;
		pthread_mutex_lock(&s->lock);
		done = c->done;
		pthread_mutex_unlock(&s->lock);
		if (!done && !all) {
			running++;
			continue;
		}
		pthread_join(c->th, NULL);
		client_free(c);
		s->slots[i] = NULL;
	}
	return running;
}

static int open_listener(const struct net_listen_opts *o, int *out, uint16_t *port)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	const char *bind_to = o->bind ? o->bind : o->vsock ? "vsock" : "127.0.0.1";
	int fd, one = 1, e;

	if ((e = net_bind_addr(o->bind, o->vsock, &a)))
		return e;
	fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0 && !o->vsock)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	e = fd < 0 ? -errno : net_bind(fd, &a, o->port);
	if (!e && (listen(fd, 64) || getsockname(fd, (struct sockaddr *)&a, &alen)))
		e = -errno;
	if (e) {
		if (fd >= 0)
			close(fd);
		return tr_fail(e, "cannot listen on %s port %u: %s", bind_to, o->port,
			       strerror(-e));
	}
	*port = net_sa_port(&a);
	*out = fd;
	return 0;
}

int net_listen(const struct net_listen_opts *opts)
{
	struct net_listen_opts o = *opts;
	struct server s = { .o = &o, .fd_budget = fd_budget() };
	struct net_acceptor acc = { .allow = opts->allow, .nallow = opts->nallow,
				    .log = accept_log, .log_arg = &s };
	uint16_t port = 0;
	int lfd = -1, e;

	if (!o.dir)
		o.dir = ".";
	if (!o.prefix)
		o.prefix = "trace";
	if (!o.max_clients)
		o.max_clients = NET_MAX_CLIENTS;
	if (!o.max_per_host)
		o.max_per_host = NET_MAX_PER_HOST;
	if (!o.max_size)
		o.max_size = NET_MAX_SIZE;
	if (!o.max_total)
		o.max_total = NET_MAX_TOTAL;
	if (!o.setup_ms)
		o.setup_ms = NET_SETUP_MS;
	if (!o.idle_ms)
		o.idle_ms = NET_IDLE_MS;
	/*
	 * TR_DELAY_LISTEN_WRITE=MS holds the first client's file MS (at most
	 * a minute) once it is created, before it is written: the tests' way
	 * to have one file take long to write and see the others go on.
	 */
	if (getenv("TR_DELAY_LISTEN_WRITE") &&
	    (sscanf(getenv("TR_DELAY_LISTEN_WRITE"), "%u", &s.delay_ms) != 1 ||
	     s.delay_ms > 60000))
		s.delay_ms = 0;
	if (o.psk_file && (e = net_tls_load(o.psk_file, true, &s.tls)))
		return e;
	e = open_listener(&o, &lfd, &port);
	if (e) {
		net_tls_free(s.tls);
		return e;
	}
	pthread_mutex_init(&s.lock, NULL);
	acc.lfd = lfd;
	s.nslots = o.max_clients;
	s.slots = xcalloc(s.nslots, sizeof(*s.slots));
	if (o.ready)
		o.ready(o.log_arg, port);
	while (!*o.stop) {
		struct sockaddr_storage a;
		struct client *c;
		char host[64], why[160];
		uint32_t cport;
		int fd, slot = -1, running, same = 0;

		fd = net_accept(&acc, 200, &a, host, sizeof(host), &cport);
		if (fd < 0) {
			/* Nothing came, or no descriptor for it: clients that ended give theirs back. */
			if (fd == -ETIMEDOUT || fd == -EMFILE)
				reap(&s, false);
			continue;
		}
		running = reap(&s, false);
		for (int i = 0; i < s.nslots; i++) {
			if (!s.slots[i] && slot < 0)
				slot = i;
			else if (s.slots[i] && net_same_host(&s.slots[i]->peer, &a))
				same++;
		}
		/* One peer cannot hold every slot. */
		if (same >= o.max_per_host) {
			slog(&s, "%s:%u: refused: %d clients from this address already "
			     "(--max-per-host)", host, cport, same);
			close(fd);
			continue;
		}
		if (slot < 0) {
			slog(&s, "%s:%u: refused: %d clients already (--max-clients)", host, cport,
			     running);
			close(fd);
			continue;
		}
		if (no_room(&s, why, sizeof(why))) {
			slog(&s, "%s:%u: refused: %s", host, cport, why);
			close(fd);
			continue;
		}
		if (!fds_take(&s, CLIENT_FDS)) {
			slog(&s, "%s:%u: refused: out of descriptors (ulimit -n)", host, cport);
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			slog(&s, "%s:%u: refused: out of memory", host, cport);
			fds_give(&s, CLIENT_FDS);
			close(fd);
			continue;
		}
		c->s = &s;
		c->fds = CLIENT_FDS;
		c->ctl = (struct net_conn){ .fd = fd };
		c->meta_fd = -1;
		c->peer = a;
		snprintf(c->host, sizeof(c->host), "%s", host);
		c->port = cport;
		snprintf(c->who, sizeof(c->who), "%s:%u", host, cport);
		slog(&s, "%s: connected", c->who);
		if (pthread_create(&c->th, NULL, client_run, c)) {
			slog(&s, "%s: refused: cannot start a thread", c->who);
			fds_give(&s, CLIENT_FDS);
			close(fd);
			free(c);
			continue;
		}
		s.slots[slot] = c;
	}
	reap(&s, true);
	close(lfd);
	free(s.slots);
	net_tls_free(s.tls);
	pthread_mutex_destroy(&s.lock);
	return 0;
}
