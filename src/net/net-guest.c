// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A guest from the host's side (net.h): what trace-cmd record -A does
 * towards an agent, for tr record -A.  The clock offset is measured once
 * before the recording, every interval_ms while it runs (a thread), and
 * once after it; each CPU's pages go into a temp file (a thread each);
 * the guest's file is written from the agent's metadata and those pages,
 * with the offsets in a TIME_SHIFT option.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net-local.h"
#include "net.h"
#include "netmsg.h"
#include "tfw.h"
#include "tr.h"

#define GUEST_MS 30000		/* each answer the agent owes, and its last pages after CLOSE */
/*
 * A guest's CPUs, each a thread, a temp file and a connection here: at
 * most this many, or as many as this host has if it has more (a guest has
 * seldom more vCPUs than its host).  The protocol's own limit (1024)
 * would let one agent take some 3000 descriptors and 1024 threads.
 */
#define GUEST_MAX_CPUS 256
/*
 * A guest's metadata, held in memory (a memfd) while it records.  Nearly
 * all of it is kallsyms: 5.4 MB on a 6.18 kernel with its modules, 10 to
 * 15 MB on a distribution's kernel with hundreds of modules loaded; the
 * event formats and the rest add a few MB.  64 MB is four times the
 * largest of those, and a quarter of what the listener takes from a
 * client on disk (NET_MAX_META).
 */
#define GUEST_MAX_META (64u << 20)

struct net_guest {
	struct net_guest_opts o;
	struct net_tls *tls;
	struct net_conn ctl, ts;
	char *where;
	uint64_t trace_id;	/* the agent's */
	int ncpus;
	struct net_conn *data;
	int *tfd;
	uint64_t *bytes;
	pthread_t *rd;
	int nrd;
	int meta_fd;
	uint64_t total, max;
	bool max_reached;
	volatile int64_t deadline;	/* readers give up after this (CLOCK_MONOTONIC ns), 0: none */
	pthread_t ts_thread;
	bool ts_running, ts_stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int64_t *sync_ts, *sync_off;
	int nsync, cap;
	int ts_err;
	const char *ts_why;
	uint8_t buf[NETMSG_MAX];
};

uint64_t net_trace_id(void)
{
	uint64_t id = 0;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint64_t)time(NULL) << 32 ^ (uint64_t)getpid();
	return id;
}

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int fail(struct net_guest *g, int e, const char *what, const char *why)
{
	/* A failed TLS handshake is -EACCES: "Permission denied" would not say which key. */
	if (e == -EBADMSG || (e == -EACCES && *why))
		return tr_fail(e, "cannot record guest '%s' at '%s': %s: %s", g->o.name, g->where,
			       what, why);
	return tr_fail(e, "cannot record guest '%s' at '%s': %s: %s", g->o.name, g->where, what,
		       e == -ETIMEDOUT ? "no whole answer within 30 s"
		       : e == -ECONNRESET ? "connection closed"
		       : e == -EINTR	  ? "stopped (a signal) before the agent answered"
					  : strerror(-e));
}

static int temp_file(const char *dir)
{
	int fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);

	if (fd < 0) {
		char *path = xasprintf("%s/.tr-guest-XXXXXX", dir);

		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		free(path);
	}
	return fd < 0 ? -errno : fd;
}

/* port: 32-bit from a vsock agent; a TCP one above 65535 is a bad answer. */
static int dial(struct net_guest *g, uint32_t port, const struct netmsg_token *tok,
		struct net_conn *c)
{
	int fd, e;

	if (!g->o.vsock && port > 65535)
		return -EBADMSG;
	if (g->o.vsock) {
		struct sockaddr_storage a;
		struct net_cidr cid;

		if (net_cidr_parse(g->o.host, &cid) || cid.family != AF_VSOCK)
			return -EINVAL;
		net_sa_vsock(&a, cid.cid, port);
		fd = net_dial_sa(&a, GUEST_MS);
	} else {
		fd = net_dial(g->o.host, port, GUEST_MS, NULL);
	}

	if (fd < 0)
		return fd;
	c->fd = fd;
	e = g->tls ? net_conn_tls(c, g->tls, net_now_ms() + GUEST_MS, g->o.stop) : 0;
	/* tr agent's port takes a connection of this session only (netmsg.h). */
	if (!e && tok && tok->set)
		e = net_write_by(c, tok->b, NETMSG_TOKEN_LEN, net_now_ms() + GUEST_MS, g->o.stop);
	return e;
}

static void add_sample(struct net_guest *g, int64_t ts, int64_t off)
{
	pthread_mutex_lock(&g->lock);
	if (g->nsync == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->sync_ts = xrealloc(g->sync_ts, g->cap * sizeof(*g->sync_ts));
		g->sync_off = xrealloc(g->sync_off, g->cap * sizeof(*g->sync_off));
	}
	g->sync_ts[g->nsync] = ts;
	g->sync_off[g->nsync++] = off;
	pthread_mutex_unlock(&g->lock);
}

/* stop: the set-up's SIGINT for the first measurement; NULL for those while recording. */
static int measure(struct net_guest *g, volatile sig_atomic_t *stop)
{
	int64_t off, ts;
	int e = net_tsync_measure(&g->ts, g->o.clock, 0, stop, &off, &ts, &g->ts_why);

	/* An agent that saw no whole probe says time 0: no sample. */
	if (!e && ts)
		add_sample(g, ts, off);
	return e;
}

static void *ts_main(void *arg)
{
	struct net_guest *g = arg;
	uint8_t msg[NETMSG_MAX];
	bool stop = false;

	while (!stop && !g->ts_err) {
		pthread_mutex_lock(&g->lock);
		if (g->o.interval_ms && !g->ts_stop) {
			struct timespec t;

			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_sec += g->o.interval_ms / 1000;
			t.tv_nsec += (long)(g->o.interval_ms % 1000) * 1000000;
			if (t.tv_nsec >= 1000000000) {
				t.tv_sec++;
				t.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&g->cond, &g->lock, &t);
		} else {
			while (!g->ts_stop)
				pthread_cond_wait(&g->cond, &g->lock);
		}
		stop = g->ts_stop;
		pthread_mutex_unlock(&g->lock);
		g->ts_err = measure(g, NULL);
	}
	if (!g->ts_err)
		g->ts_err = net_write_all(&g->ts, msg, netmsg_put_tsync(msg, NETMSG_TSYNC_NONE,
									NETMSG_TSYNC_STOP, NULL, 0));
	return NULL;
}

/* A CPU's pages into its temp file, to the agent's end of the connection. */
struct reader {
	struct net_guest *g;
	int cpu;
};

static void *rd_main(void *arg)
{
	struct reader *r = arg;
	struct net_guest *g = r->g;
	int cpu = r->cpu;
	size_t cap = 1 << 16;
	char *buf = xmalloc(cap);

	free(r);
	for (;;) {
		int64_t end = __atomic_load_n(&g->deadline, __ATOMIC_ACQUIRE);
		int w = net_wait_in(&g->data[cpu], 200);
		ssize_t n;

		if (w < 0 || (!w && end && mono_ns() > end))
			break;
		if (!w)
			continue;
		n = net_conn_read(&g->data[cpu], buf, cap);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		if (__atomic_add_fetch(&g->total, n, __ATOMIC_RELAXED) > g->max) {
			g->max_reached = true;
			break;
		}
		if (pwrite(g->tfd[cpu], buf, n, g->bytes[cpu]) != n)
			break;
		g->bytes[cpu] += n;
	}
	free(buf);
	return NULL;
}

static int guest_max_cpus(void)
{
	long host = sysconf(_SC_NPROCESSORS_CONF);

	return host > GUEST_MAX_CPUS && host <= NETMSG_MAX_CPUS ? (int)host : GUEST_MAX_CPUS;
}

/* SEND_DATA... FIN_DATA into a memfd. */
static int read_meta(struct net_guest *g, const char **why)
{
	uint64_t len = 0;
	struct netmsg m;
	int e;

	g->meta_fd = memfd_create("tr-guest-meta", MFD_CLOEXEC);
	if (g->meta_fd < 0)
		return -errno;
	for (;;) {
		e = net_read_msg_by(&g->ctl, g->buf, &m, why, net_now_ms() + GUEST_MS, g->o.stop);
		if (e)
			return e;
		if (m.cmd == NETMSG_FIN_DATA)
			return len ? 0 : (*why = "no metadata", -EBADMSG);
		if (m.cmd != NETMSG_SEND_DATA) {
			*why = "expected the metadata";
			return -EBADMSG;
		}
		if ((len += m.data_len) > GUEST_MAX_META) {
			*why = "metadata over 64 MB";
			return -EBADMSG;
		}
		if (write(g->meta_fd, m.data, m.data_len) != (ssize_t)m.data_len)
			return -EIO;
	}
}

int net_guest_open(const struct net_guest_opts *o, struct net_guest **out)
{
	struct net_guest *g = xcalloc(1, sizeof(*g));
	struct netmsg_trace_resp r;
	static uint32_t ports[NETMSG_MAX_CPUS];
	const char *why = "";
	struct netmsg m;
	int e;

	*out = NULL;
	g->o = *o;
	g->ctl = g->ts = (struct net_conn){ .fd = -1 };
	g->meta_fd = -1;
	g->max = o->max_size ? o->max_size : NET_MAX_SIZE;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->where = xasprintf(o->vsock ? "vsock:%s:%u" : strchr(o->host, ':') ? "[%s]:%u" : "%s:%u",
			     o->host, o->port);
	*out = g;
	if (o->psk_file && (e = net_tls_load(o->psk_file, false, &g->tls)))
		return e;
	e = dial(g, o->port, NULL, &g->ctl);
	if (e)
		return fail(g, e, e == -EACCES ? "TLS" : "cannot connect",
			    "the agent refused the key (--psk), or speaks no TLS");
	net_set_timeout(g->ctl.fd, GUEST_MS);
	/* Each answer by its deadline, and a signal seen within a poll slice. */
	e = net_write_by(&g->ctl, g->buf,
			 netmsg_put_trace_req(g->buf, o->trace_id, o->argc, o->argv, o->clock >= 0,
					      true),
			 net_now_ms() + GUEST_MS, o->stop);
	if (!e)
		e = net_read_msg_by(&g->ctl, g->buf, &m, &why, net_now_ms() + GUEST_MS, o->stop);
	if (!e)
		e = netmsg_trace_resp_parse(&m, &r, ports, NETMSG_MAX_CPUS, &why);
	if (e)
		return fail(g, e, "the request", why);
	g->trace_id = r.trace_id;
	g->ncpus = r.cpus;
	if (g->ncpus > guest_max_cpus())
		return tr_fail(-EBADMSG, "cannot record guest '%s' at '%s': it has %d CPUs, more "
			       "than the %d a guest may have here", g->o.name, g->where, g->ncpus,
			       guest_max_cpus());
	if (r.proto[0] && o->clock >= 0) {
		if (strcmp(r.proto, NETMSG_TSYNC_PTP))
			return fail(g, -EBADMSG, "the clock sync", "not the ptp the host offered");
		e = dial(g, r.tsync_port, &r.token, &g->ts);
		if (!e)
			e = measure(g, o->stop);
		if (e)
			return fail(g, e, "the clock sync", g->ts_why ? g->ts_why : "");
		if (pthread_create(&g->ts_thread, NULL, ts_main, g))
			return fail(g, -EAGAIN, "the clock sync", "");
		g->ts_running = true;
	}
	e = read_meta(g, &why);
	if (e)
		return fail(g, e, "the metadata", why);
	g->data = xmalloc(g->ncpus * sizeof(*g->data));
	g->tfd = xmalloc(g->ncpus * sizeof(*g->tfd));
	g->bytes = xcalloc(g->ncpus, sizeof(*g->bytes));
	g->rd = xcalloc(g->ncpus, sizeof(*g->rd));
	for (int i = 0; i < g->ncpus; i++) {
		g->data[i] = (struct net_conn){ .fd = -1 };
		g->tfd[i] = -1;
	}
	for (int i = 0; i < g->ncpus; i++) {
		struct reader *rd;

		if ((g->tfd[i] = temp_file(o->tmp_dir ? o->tmp_dir : ".")) < 0)
			return fail(g, g->tfd[i], "a temp file", "");
		if ((e = dial(g, ports[i], &r.token, &g->data[i])))
			return fail(g, e, "a data connection", "");
		/* Pages come when the guest has them: no time limit until CLOSE. */
		net_set_timeout(g->data[i].fd, 0);
		rd = xmalloc(sizeof(*rd));
		*rd = (struct reader){ g, i };
		if (pthread_create(&g->rd[i], NULL, rd_main, rd)) {
			free(rd);
			return fail(g, -EAGAIN, "a reader", "");
		}
		g->nrd++;
	}
	return 0;
}

static void stop_sync(struct net_guest *g)
{
	if (!g->ts_running)
		return;
	pthread_mutex_lock(&g->lock);
	g->ts_stop = true;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->ts_thread, NULL);
	g->ts_running = false;
}

static void stop_readers(struct net_guest *g, int64_t within_ns)
{
	__atomic_store_n(&g->deadline, mono_ns() + within_ns, __ATOMIC_RELEASE);
	for (int i = 0; i < g->nrd; i++)
		pthread_join(g->rd[i], NULL);
	g->nrd = 0;
}

int net_guest_stop(struct net_guest *g)
{
	uint8_t msg[NETMSG_HDR + 64];
	const char *why = "";
	struct netmsg m;
	int e = net_write_all(&g->ctl, msg, netmsg_put(msg, NETMSG_CLOSE));

	stop_sync(g);
	stop_readers(g, GUEST_MS * 1000000LL);
	/* The agent's CLOSE_RESP says it sent everything; other messages are let pass. */
	for (int i = 0; !e && i < 16; i++) {
		e = net_read_msg(&g->ctl, g->buf, &m, &why);
		if (!e && m.cmd == NETMSG_CLOSE_RESP)
			break;
	}
	if (e)
		return fail(g, e, "the end of the recording", why);
	if (g->ts_err)
		return fail(g, g->ts_err, "the clock sync", g->ts_why ? g->ts_why : "");
	return 0;
}

int net_guest_write(struct net_guest *g, int fd, int version, int zip,
		    struct net_guest_result *res)
{
	struct tfw_opt opt = { 0 };
	int e;

	memset(res, 0, sizeof(*res));
	stop_sync(g);
	stop_readers(g, 0);
	res->cpus = g->ncpus;
	res->nsync = g->nsync;
	res->max_size_reached = g->max_reached;
	for (int i = 0; i < g->nsync; i++) {
		if (!i || g->sync_off[i] < res->offset_min)
			res->offset_min = g->sync_off[i];
		if (!i || g->sync_off[i] > res->offset_max)
			res->offset_max = g->sync_off[i];
	}
	for (int i = 0; i < g->ncpus; i++)
		res->data_bytes += g->bytes[i];
	if (g->meta_fd < 0)
		return tr_fail(-ENODATA, "guest '%s' sent no metadata", g->o.name);
	/* Every CPU gets the same measurements: the clock is one for all of them. */
	if (g->nsync)
		tfw_opt_time_shift(&opt, g->o.trace_id, g->ncpus, g->nsync, g->sync_ts, g->sync_off);
	e = net_file_write(g->meta_fd, g->ncpus, g->tfd, g->bytes, fd, version, zip, &opt,
			   g->nsync ? 1 : 0, NULL, 0, &res->file_bytes);
	free(opt.data.data);
	return e;
}

void net_guest_option(const struct net_guest *g, struct tfw_opt *opt)
{
	tfw_opt_guest(opt, g->o.name, g->trace_id, g->ncpus);
}

void net_guest_free(struct net_guest *g)
{
	if (!g)
		return;
	for (int i = 0; g->data && i < g->ncpus; i++)
		shutdown(g->data[i].fd, SHUT_RDWR);
	if (g->ts_running) {
		shutdown(g->ts.fd, SHUT_RDWR);
		stop_sync(g);
	}
	stop_readers(g, 0);
	for (int i = 0; g->data && i < g->ncpus; i++) {
		net_conn_close(&g->data[i]);
		if (g->tfd[i] >= 0)
			close(g->tfd[i]);
	}
	net_conn_close(&g->ts);
	net_conn_close(&g->ctl);
	if (g->meta_fd >= 0)
		close(g->meta_fd);
	net_tls_free(g->tls);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	free(g->data);
	free(g->tfd);
	free(g->bytes);
	free(g->rd);
	free(g->sync_ts);
	free(g->sync_off);
	free(g->where);
	free(g);
}
