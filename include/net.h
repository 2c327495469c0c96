/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recordings over the network, in trace-cmd's protocol v3 (netmsg.h):
 * the listener behind tr listen, and the client half tr record -N uses.
 *
 * The listener is safe to leave running (redis's protected mode is the
 * model): it binds 127.0.0.1 unless told otherwise, takes peers only from
 * the --allow ranges (loopback when none is given), serves at most
 * max_clients at once and max_per_host from one address, stops a client
 * whose data passes max_size (its file is still written, readable up to
 * there) and one that would pass max_total for all of them, refuses one
 * while dir has less than min_free, keeps a file up to where the disk
 * filled, creates its files 0600, fails only the client whose data asked
 * for memory there is not, gives each client one deadline for its whole
 * set-up and a limit of silence checked on every pass (neither put off by
 * a byte at a time), writes each file under no lock,
 * ends within a fraction of a second of *stop whatever the peers do, and
 * takes a tr client's data connections only with its session's token
 * (netmsg.h), and parses every byte with netmsg.c.
 * Each connection, refusal and end is one line through opts.log; the
 * listener goes on serving the others.
 *
 * Each client's recording becomes one trace.dat in dir, named
 * PREFIX.HOST:PORT.dat from the peer's address and port (".N" is added
 * before ".dat" rather than overwrite a file), written by tr's own writer
 * (tfw.h) in the version and compression asked for, whatever the client
 * sent: its metadata (the v6 or v7 file up to the options) is read with
 * tfile.h and the CPUs' pages copied as they came.  A client that breaks
 * off after its metadata leaves a file of the whole pages it sent.
 *
 * Errors: 0 or a negative errno with tr_fail() set.
 */
#ifndef TR_NET_H
#define TR_NET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/*
 * An address range of --allow: "10.0.0.0/8", "::1", "192.168.1.7"; or,
 * for vsock, a context id alone: "3" (vsock has neither ranges nor a
 * loopback address: CID 1 is this machine, 2 the host of a guest).
 */
struct net_cidr {
	int family;		/* AF_INET, AF_INET6 or AF_VSOCK */
	uint8_t addr[16];
	int bits;
	uint32_t cid;		/* AF_VSOCK */
};
/* Parse a range (an address alone is /32 or /128).  0 or -EINVAL with tr_fail(). */
int net_cidr_parse(const char *s, struct net_cidr *c);
/* Does the peer address fall in the range?  (IPv4-mapped IPv6 counts as IPv4.) */
bool net_cidr_match(const struct net_cidr *c, const struct sockaddr *sa);
/* Loopback, or for vsock CID 1 or 2 (this machine, the host): allowed by default. */
bool net_cidr_loopback(const struct net_cidr *c);

/* "CID:PORT" of vsock (tr record -V): 0 or -EINVAL with tr_fail(). */
int net_vsock_parse(const char *s, uint32_t *cid, uint16_t *port);
/*
 * Can this machine speak vsock (*cid: its context id), and reach itself
 * over it (a loopback transport: CID 1)?  0, or -errno with *why.
 */
int net_vsock_probe(uint32_t *cid, bool *loopback, const char **why);

/*
 * "HOST:PORT", "[V6ADDR]:PORT" or "PORT" (localhost) into host and port
 * (host malloc'd).  0 or -EINVAL with tr_fail().
 */
int net_hostport_parse(const char *s, char **host, uint16_t *port);

/*
 * A peer's address as the file name takes it: digits, letters, '.', ':'
 * and '-' only; a vsock peer is "vsock-CID".
 */
void net_peer_name(const struct sockaddr *sa, char *host, size_t n, uint32_t *port);

typedef void (*net_log_fn)(void *arg, const char *line);

struct net_listen_opts {
	const char *bind;	/* address to listen on; NULL: 127.0.0.1 (vsock: any CID) */
	bool vsock;		/* listen on vsock, bind a CID: the data ports too */
	uint16_t port;
	const char *dir;	/* where the files go; NULL: "." */
	const char *prefix;	/* file names' prefix; NULL: "trace" */
	const struct net_cidr *allow;	/* peers allowed; none: loopback only */
	int nallow;
	int max_clients;	/* at once; 0: NET_MAX_CLIENTS */
	int max_per_host;	/* at once from one address; 0: NET_MAX_PER_HOST */
	uint64_t max_size;	/* page data per client; 0: NET_MAX_SIZE */
	/*
	 * What all the clients being received may hold at once, on disk and
	 * in memory: each byte a client sends counts twice (its temp file and
	 * the file it becomes) until its file is written.  A client that
	 * would pass it is ended (its file keeps what came); one that comes
	 * when less than NET_MIN_ROOM is left is refused.  0: NET_MAX_TOTAL.
	 */
	uint64_t max_total;
	/* Refuse a client while dir's file system has less free; 0: no check. */
	uint64_t min_free;
	int version;		/* of the files written: 6 or 7 */
	int zip;		/* v7: enum tfw_zip */
	unsigned setup_ms;	/* TLS, handshake and metadata, all told; 0: NET_SETUP_MS */
	/*
	 * No whole message and no whole sub-buffer from a client for this
	 * long ends it (bytes that make neither do not count); 0: NET_IDLE_MS.
	 */
	unsigned idle_ms;
	const char *psk_file;	/* TLS 1.3 with this pre-shared key on every connection, or NULL */
	net_log_fn log;		/* one line per connection, refusal and end */
	void *log_arg;
	volatile sig_atomic_t *stop;	/* set by a signal handler: stop serving */
	/* Called once listening (the port, when opts.port was 0), or NULL. */
	void (*ready)(void *arg, uint16_t port);
};

#define NET_MAX_CLIENTS 16
#define NET_MAX_PER_HOST 4
#define NET_MAX_SIZE (4ULL << 30)
#define NET_MAX_META (256u << 20)	/* a client's metadata (kallsyms is the most of it) */
#define NET_MAX_TOTAL (16ULL << 30)
#define NET_MIN_ROOM (1u << 20)
#define NET_MIN_FREE (256ULL << 20)	/* tr listen's --min-free (a small VM has 1G) */
#define NET_SETUP_MS 30000
#define NET_IDLE_MS 60000

/*
 * A client's file: the metadata it sent (meta_fd, a trace.dat of version 6
 * or 7 up to its options; a v6 one is given an empty CPU table at its end
 * to be read) and the pages of ncpus CPUs (cpu_bytes[i] bytes of cpu_fd[i],
 * whole sub-buffers used), written to out_fd in version (6, 7) and zip,
 * with the options extra[] and the saved_tgids text tgids (tgids_len
 * bytes, checked with netmsg_tgids_check(); 0: none).  *size: the file's
 * size.  0 or -errno with tr_fail().  Written by a child process (see
 * net-writer.c): a failed allocation or a fault while the peer's metadata
 * is parsed ends this file, not the caller.
 */
struct tfw_opt;
int net_file_write(int meta_fd, int ncpus, const int *cpu_fd, const uint64_t *cpu_bytes,
		   int out_fd, int version, int zip, const struct tfw_opt *extra, size_t nextra,
		   const char *tgids, size_t tgids_len, uint64_t *size);

/*
 * The writer child's entry: main() calls it when its only argument is
 * NET_WRITER_CMD, before anything else (no tracefs, no signal handlers).
 * Its exit status.
 */
#define NET_WRITER_CMD "__net-writer"
int net_writer_main(void);

/* Serve until *o->stop; waits for the clients being served.  0 or -errno. */
int net_listen(const struct net_listen_opts *o);

/*
 * The client: connect to a listener (tr's or trace-cmd's), shake hands and
 * announce ncpus CPUs of page_size sub-buffers; the listener answers with a
 * port per CPU, and a data connection is made to each.  Then send the
 * metadata (net_send_meta(), before any page), the pages of each CPU
 * (net_send_pages(), from one thread per CPU at a time), and net_finish().
 */
struct net_client;
/*
 * psk_file: TLS 1.3 with that key (tr listen --psk), or NULL for plain.
 * vsock: host is the listener's CID, in decimal, and every connection is vsock.
 * The set-up is given 30 s in all, and ends with -EINTR soon after *stop
 * is set (stop may be NULL).
 */
int net_connect(const char *host, uint16_t port, bool vsock, int ncpus, uint32_t page_size,
		const char *psk_file, volatile sig_atomic_t *stop, struct net_client **out);
/* The trace.dat file up to and including its options, as SEND_DATA then FIN_DATA. */
int net_send_meta(struct net_client *c, const void *buf, size_t len);
int net_send_pages(struct net_client *c, int cpu, const void *pages, size_t len);
/*
 * After the pages, before net_finish(): the kernel's saved_tgids, to a
 * listener that takes them (tr listen, netmsg.h); to any other nothing is
 * sent.  Text past NETMSG_MAX_TGIDS is left out, at a line's end.  0 or -errno.
 */
int net_send_tgids(struct net_client *c, const char *text, size_t len);
/* Close the data connections, then send CLOSE.  0 or -errno. */
int net_finish(struct net_client *c);
void net_client_free(struct net_client *c);


/*
 * ---- Host and guest (net-agent.c, net-guest.c): trace-cmd's agent
 * protocol (netmsg.h), over TCP or vsock. ----
 *
 * The trace clock both sides record with must be one a program can read
 * (the time sync notes times with clock_gettime()): mono, mono_raw, boot
 * or tai.  Its clockid, or -EINVAL for any other.
 */
int net_clock_id(const char *trace_clock);

/*
 * The agent (tr agent): serves one host at a time, on bind (127.0.0.1 by
 * default) and from the --allow ranges (loopback when none), each
 * request checked (netmsg_agent_args_parse()) and then run by run():
 * which records, calling net_agent_start() once it knows its CPUs and
 * metadata, sending each CPU's sub-buffers with net_agent_send_pages() and
 * ending when net_agent_closed() says the host asked or went away.  It
 * returns 0 or -errno with tr_fail().  The ports of the CPUs and the time
 * sync are PORT+1, PORT+2, ... (the first free ones; any with port 0), so
 * that a virtual machine's port forwarding can name them; they take only
 * the host of the control connection, within 10 s, and from a tr host
 * only a connection that sends the session's token first (netmsg.h).  A request takes 10 s
 * at most; a time sync is at most 100 measurements a second.  Each
 * connection, refusal and end is one line through log.
 */
struct netmsg_agent_args;
struct net_agent_job;
struct net_agent_opts {
	const char *bind;	/* NULL: 127.0.0.1 (vsock: any CID) */
	bool vsock;		/* listen on vsock (trace-cmd agent's default), bind a CID */
	uint16_t port;
	const struct net_cidr *allow;
	int nallow;
	const char *psk_file;	/* TLS 1.3 with this key on every connection, or NULL */
	net_log_fn log;
	void *log_arg;
	volatile sig_atomic_t *stop;
	void (*ready)(void *arg, uint16_t port);
	/* clockid: net_clock_id() of args->clock, or -1 for no time sync. */
	int (*run)(void *arg, struct net_agent_job *job, const struct netmsg_agent_args *args);
	void *run_arg;
};
int net_agent_serve(const struct net_agent_opts *o);
/*
 * Answer the host (TRACE_RESP with ncpus ports), take its time sync and
 * data connections and send the metadata (the trace.dat file up to its
 * options; a TRACEID option of net_agent_trace_id() in it).  clk: the
 * recording's clockid for the time sync, or -1 for none.  0 or -errno.
 */
int net_agent_start(struct net_agent_job *j, int ncpus, int clk, const void *meta, size_t len);
uint64_t net_agent_trace_id(const struct net_agent_job *j);
/* The recorder's callback sink (arg: the job). */
int net_agent_send_pages(void *job, int cpu, const void *pages, size_t len);
/*
 * Has the host sent CLOSE, or gone?  Does not block.  A host that connects
 * meanwhile is refused (closed, one line: busy).
 */
bool net_agent_closed(struct net_agent_job *j);

/*
 * A guest, from the host's side (tr record -A): net_guest_open() asks the
 * agent at host:port to record with argv (netmsg_agent_args's options),
 * measures the clock offset once, reads the agent's metadata and starts a
 * thread per CPU taking its pages into a temp file in tmp_dir.  While the
 * recording runs, the offset is measured every interval_ms (0: only at
 * the start and the end).  net_guest_stop() ends it: CLOSE, the last
 * measurement, every page.  net_guest_write() writes the guest's file
 * with its offsets as a TIME_SHIFT option (tfw_opt_time_shift()), which
 * trace-cmd report applies.
 */
struct net_guest;
struct net_guest_opts {
	const char *name, *host;	/* vsock: host is the agent's CID, in decimal */
	bool vsock;
	uint16_t port;
	const char *const *argv;
	uint32_t argc;
	uint64_t trace_id;	/* the host's (its file's TRACEID) */
	int clock;		/* clockid of the trace clock */
	unsigned interval_ms;
	const char *psk_file;
	const char *tmp_dir;
	uint64_t max_size;	/* of page data; 0: NET_MAX_SIZE */
	volatile sig_atomic_t *stop;	/* the set-up ends with -EINTR soon after it is set */
};
struct net_guest_result {
	int cpus;
	uint64_t data_bytes, file_bytes;
	int nsync;		/* measurements */
	int64_t offset_min, offset_max;	/* ns, host minus guest */
	bool max_size_reached;
};
int net_guest_open(const struct net_guest_opts *o, struct net_guest **out);
int net_guest_stop(struct net_guest *g);
int net_guest_write(struct net_guest *g, int fd, int version, int zip,
		    struct net_guest_result *res);
/* The GUEST option of the host's file (tfw_opt_guest()). */
void net_guest_option(const struct net_guest *g, struct tfw_opt *opt);
void net_guest_free(struct net_guest *g);
/* A random trace id, as trace-cmd makes one per recording. */
uint64_t net_trace_id(void);

#endif
