// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A received recording's file (net.h's net_file_write()), written by a
 * child process: `tr __net-writer`, this binary run afresh.
 *
 * Why a process: the peer's metadata is parsed while the file is written
 * (tfile.h, and libtraceevent's format parser, whose allocations we do not
 * check), and a failed allocation there aborts.  In tr listen that would
 * end every client's recording, not only the one that sent it; in record
 * -A, every guest's.  In a child it ends that one file, and the child's
 * address space has a cap of its own.  Why exec and not a bare fork: the
 * listener has threads, and one of them may hold an allocator lock at the
 * fork (ASan's is not reset in a forked child); a fresh program has none.
 *
 * The two ends talk over a socketpair, the child's end at descriptor 3:
 * the parent sends a header, the CPU byte counts, the extra options and
 * the saved_tgids text, and the descriptors (SCM_RIGHTS, so no descriptor
 * number in the child need be chosen); the child answers with its cap,
 * then with its result.  A child that ends without a result died: its
 * status is the message.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net.h"
#include "netmsg.h"
#include "tfile-edit.h"
#include "tfile.h"
#include "tfw.h"
#include "tr.h"

extern char **environ;

#define WRITER_FD 3
#define WRITER_MAGIC 0x54525752u	/* "TRWR" */
/* Descriptors per SCM_RIGHTS message: the kernel takes at most 253. */
#define FDS_PER_MSG 200

struct writer_head {
	uint32_t magic;
	int32_t ppid;
	int32_t ncpus;
	int32_t version;
	int32_t zip;
	uint32_t nextra;
	uint64_t tgids_len;
};

struct writer_opt {
	uint32_t id;
	uint32_t pad;
	uint64_t len;
};

enum { ANSWER_CAP = 1, ANSWER_RESULT = 2 };

struct writer_answer {
	int32_t kind;
	int32_t err;		/* ANSWER_RESULT: 0 or -errno */
	uint64_t value;		/* the cap in MB (0: none), or the file's size */
	char msg[400];
};

/*
 * The metadata the peer sent is a trace.dat file up to its options.  A v6
 * one needs its "flyrecord" table to be read: an empty one, as long as
 * the most CPUs a file may have here.  A v7 one reads as it is.
 */
static int meta_finish(int meta_fd)
{
	char head[12] = { 0 };
	off_t end = lseek(meta_fd, 0, SEEK_END);

	if (end < 0 || pread(meta_fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return -EBADMSG;
	if (head[10] == '6') {
		size_t n = 10 + 16 * NETMSG_MAX_CPUS;
		char *z = calloc(1, n);
		int e;

		if (!z)
			return -ENOMEM;
		memcpy(z, "flyrecord", 10);
		e = pwrite(meta_fd, z, n, end) == (ssize_t)n ? 0 : -EIO;
		free(z);
		return e;
	}
	return 0;
}

/* The writing itself, in the child. */
static int write_here(int meta_fd, int ncpus, const int *cpu_fd, const uint64_t *cpu_bytes,
		      int out_fd, int version, int zip, const struct tfw_opt *extra,
		      size_t nextra, const char *tgids, size_t tgids_len, uint64_t *size)
{
	struct tfile *tf = NULL;
	struct tfw_meta m;
	struct tfw_src *src;
	struct tfw_buffer b;
	struct tfw_result res = { 0 };
	char proc[64];
	int e;

	*size = 0;
	e = meta_finish(meta_fd);
	if (e)
		return tr_fail(e, e == -ENOMEM ? "out of memory" : "the metadata is not a trace file");
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", meta_fd);
	e = tfile_open(proc, TFILE_KEEP_FORMATS | TFILE_LAZY_KALLSYMS, &tf);
	if (!e)
		e = tfile_meta(tf, &m);
	if (e) {
		tfile_close(tf);
		return e;
	}
	if (m.cpus < ncpus)
		m.cpus = ncpus;
	for (size_t i = 0; i < nextra; i++)
		tfw_meta_add_option(&m, extra[i].id, extra[i].data.data, extra[i].data.len);
	if (tgids_len)
		tfw_meta_add_tgids(&m, tgids, tgids_len);
	m.version = version;
	m.zip = version == 7 ? zip : TFW_ZIP_NONE;
	src = calloc(m.cpus ? m.cpus : 1, sizeof(*src));
	if (!src) {
		tfw_meta_free(&m);
		tfile_close(tf);
		return tr_fail(-ENOMEM, "out of memory for %d CPUs", m.cpus);
	}
	for (int i = 0; i < m.cpus; i++) {
		src[i].fd = i < ncpus ? cpu_fd[i] : -1;
		/* Whole sub-buffers only: a connection may break inside one. */
		src[i].size = i < ncpus ? cpu_bytes[i] / m.page_size * m.page_size : 0;
	}
	b = (struct tfw_buffer){ NULL, src };
	e = tfw_write(out_fd, &m, &b, 1, 0, &res);
	if (e)
		tr_fail(e, "cannot write the file: %s", strerror(-e));
	*size = res.bytes;
	free(src);
	tfw_meta_free(&m);
	tfile_close(tf);
	return e;
}

/* All n bytes each way over the socketpair, or -errno; -ECONNRESET at an end of file. */
static int io_all(int fd, bool out, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = out ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ECONNRESET;
		p += r;
		n -= r;
	}
	return 0;
}

static int send_all(int fd, const void *buf, size_t n) { return io_all(fd, true, (void *)buf, n); }
static int recv_all(int fd, void *buf, size_t n) { return io_all(fd, false, buf, n); }

static int send_fds(int sock, const int *fds, int n)
{
	for (int at = 0; at < n; at += FDS_PER_MSG) {
		int k = n - at < FDS_PER_MSG ? n - at : FDS_PER_MSG;
		char byte = 0, ctl[CMSG_SPACE(FDS_PER_MSG * sizeof(int))];
		struct iovec iov = { &byte, 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				     .msg_controllen = CMSG_SPACE(k * sizeof(int)) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		ssize_t r;

		memset(ctl, 0, sizeof(ctl));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(k * sizeof(int));
		memcpy(CMSG_DATA(cm), fds + at, k * sizeof(int));
		do
			r = sendmsg(sock, &mh, MSG_NOSIGNAL);
		while (r < 0 && errno == EINTR);
		if (r != 1)
			return r < 0 ? -errno : -EPIPE;
	}
	return 0;
}

static int recv_fds(int sock, int *fds, int n)
{
	for (int at = 0; at < n;) {
		char byte, ctl[CMSG_SPACE(FDS_PER_MSG * sizeof(int))];
		struct iovec iov = { &byte, 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };
		struct cmsghdr *cm;
		ssize_t r;
		int k;

		do
			r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		while (r < 0 && errno == EINTR);
		if (r != 1)
			return r < 0 ? -errno : -ECONNRESET;
		cm = CMSG_FIRSTHDR(&mh);
		if (!cm || cm->cmsg_type != SCM_RIGHTS || (mh.msg_flags & MSG_CTRUNC))
			return -EBADMSG;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k <= 0 || k > n - at)
			return -EBADMSG;
		memcpy(fds + at, CMSG_DATA(cm), k * sizeof(int));
		at += k;
	}
	return 0;
}

/*
 * The child's cap on its address space: what it has at the start and
 * room for the metadata many times over (the parsed formats and kallsyms
 * are several copies of it) or 1 GB, whichever is more.
 * TR_WRITER_MEM_MB=N gives N MB of room instead (the tests' way to run
 * it out).  None under ASan: its shadow memory is terabytes of address
 * space, so no cap would mean anything.  0: no cap.
 */
static uint64_t set_cap(int meta_fd)
{
#ifdef __SANITIZE_ADDRESS__
	(void)meta_fd;
	return 0;
#else
	unsigned long long pages = 0;
	const char *env = getenv("TR_WRITER_MEM_MB");
	uint64_t room = 1ull << 30, mb;
	struct rlimit rl;
	struct stat st;
	FILE *f = fopen("/proc/self/statm", "re");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	fclose(f);
	if (!pages)
		return 0;
	if (!fstat(meta_fd, &st) && (uint64_t)st.st_size * 8 > room)
		room = (uint64_t)st.st_size * 8;
	if (env && sscanf(env, "%llu", (unsigned long long *)&mb) == 1 && mb)
		room = mb << 20;
	rl.rlim_cur = rl.rlim_max = pages * (uint64_t)sysconf(_SC_PAGESIZE) + room;
	if (setrlimit(RLIMIT_AS, &rl))
		return 0;
	return room >> 20;
#endif
}

/*
 * The message for the log, where tfile.h named the metadata by the path
 * it was opened with, which means nothing to whoever reads the log.
 */
static void say(char *buf, size_t n, const char *msg, int meta_fd)
{
	char path[64];
	const char *at;
	size_t len;

	len = snprintf(path, sizeof(path), "'/proc/self/fd/%d'", meta_fd);
	at = strstr(msg, path);
	if (!at) {
		snprintf(buf, n, "%s", msg);
		return;
	}
	snprintf(buf, n, "%.*sthe metadata%s", (int)(at - msg), msg, at + len);
}

int net_writer_main(void)
{
	struct writer_head h;
	struct writer_answer a = { .kind = ANSWER_RESULT };
	struct tfw_opt *extra = NULL;
	uint64_t *bytes = NULL;
	char *tgids = NULL;
	int *fds = NULL, e, nfds = 0;

	/* The listener's SIGINT is for the listener: it waits for this file. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	e = recv_all(WRITER_FD, &h, sizeof(h));
	if (e || h.magic != WRITER_MAGIC)
		return 2;
	/* The thread that started this one waits for it; if it is gone, so is the file. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != h.ppid)
		return 2;
	if (h.ncpus < 0 || h.ncpus > (int)NETMSG_MAX_CPUS || h.nextra > 16)
		return 2;
	nfds = 2 + h.ncpus;
	fds = calloc(nfds, sizeof(*fds));
	bytes = calloc(h.ncpus + 1, sizeof(*bytes));
	extra = calloc(h.nextra + 1, sizeof(*extra));
	tgids = malloc(h.tgids_len + 1);
	if (!fds || !bytes || !extra || !tgids) {
		e = tr_fail(-ENOMEM, "out of memory");
		goto out;
	}
	e = recv_all(WRITER_FD, bytes, h.ncpus * sizeof(*bytes));
	for (uint32_t i = 0; !e && i < h.nextra; i++) {
		struct writer_opt o;

		e = recv_all(WRITER_FD, &o, sizeof(o));
		if (!e && !(extra[i].data.data = malloc(o.len + 1)))
			e = -ENOMEM;
		if (!e) {
			extra[i].id = o.id;
			extra[i].data.len = o.len;
			e = recv_all(WRITER_FD, extra[i].data.data, o.len);
		}
	}
	if (!e)
		e = recv_all(WRITER_FD, tgids, h.tgids_len);
	if (!e)
		e = recv_fds(WRITER_FD, fds, nfds);
	if (e)
		return 2;
	a.kind = ANSWER_CAP;
	a.value = set_cap(fds[0]);
	if (send_all(WRITER_FD, &a, sizeof(a)))
		return 2;
	memset(&a, 0, sizeof(a));
	a.kind = ANSWER_RESULT;
	e = write_here(fds[0], h.ncpus, fds + 2, bytes, fds[1], h.version, h.zip, extra,
		       h.nextra, tgids, h.tgids_len, &a.value);
out:
	a.err = e;
	if (e)
		say(a.msg, sizeof(a.msg), tr_failure() ? tr_failure() : strerror(-e),
		    fds ? fds[0] : -1);
	for (uint32_t i = 0; extra && i < h.nextra; i++)
		free(extra[i].data.data);
	free(extra);
	free(bytes);
	free(tgids);
	for (int i = 0; fds && i < nfds; i++)
		if (fds[i] > 0)
			close(fds[i]);
	free(fds);
	return send_all(WRITER_FD, &a, sizeof(a)) ? 2 : 0;
}

/* The parent's half: everything the child needs, then its descriptors. */
static int send_work(int sock, int meta_fd, int ncpus, const int *cpu_fd,
		     const uint64_t *cpu_bytes, int out_fd, int version, int zip,
		     const struct tfw_opt *extra, size_t nextra, const char *tgids,
		     size_t tgids_len)
{
	struct writer_head h = { WRITER_MAGIC, getpid(), ncpus, version, zip, nextra, tgids_len };
	int *fds = calloc(2 + ncpus, sizeof(*fds));
	int e = fds ? send_all(sock, &h, sizeof(h)) : -ENOMEM;

	if (!e)
		e = send_all(sock, cpu_bytes, ncpus * sizeof(*cpu_bytes));
	for (size_t i = 0; !e && i < nextra; i++) {
		struct writer_opt o = { extra[i].id, 0, extra[i].data.len };

		e = send_all(sock, &o, sizeof(o));
		if (!e)
			e = send_all(sock, extra[i].data.data, o.len);
	}
	if (!e && tgids_len)
		e = send_all(sock, tgids, tgids_len);
	if (!e) {
		fds[0] = meta_fd;
		fds[1] = out_fd;
		memcpy(fds + 2, cpu_fd, ncpus * sizeof(*fds));
		e = send_fds(sock, fds, 2 + ncpus);
	}
	free(fds);
	return e;
}

/* What the child's status says, when it gave no result. */
static int died(int status, uint64_t cap_mb)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && cap_mb)
		return tr_fail(-ENOMEM, "the file writer ran out of memory (its cap: %llu MB more "
			       "than it started with)", (unsigned long long)cap_mb);
	if (WIFSIGNALED(status))
		return tr_fail(-EIO, "the file writer was killed by signal %d (%s)",
			       WTERMSIG(status), strsignal(WTERMSIG(status)));
	return tr_fail(-EIO, "the file writer ended with status %d and no result",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int net_file_write(int meta_fd, int ncpus, const int *cpu_fd, const uint64_t *cpu_bytes,
		   int out_fd, int version, int zip, const struct tfw_opt *extra, size_t nextra,
		   const char *tgids, size_t tgids_len, uint64_t *size)
{
	char *argv[] = { "tr", NET_WRITER_CMD, NULL };
	struct writer_answer cap = { 0 }, res = { 0 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int sv[2], e, status = 0;
	pid_t pid;

	*size = 0;
	if (ncpus < 0 || ncpus > (int)NETMSG_MAX_CPUS)
		return tr_fail(-EINVAL, "%d CPUs: more than a file may have here", ncpus);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return tr_fail(-errno, "cannot start the file writer: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], WRITER_FD);
	posix_spawnattr_init(&attr);
	/* The calling thread may block signals; the writer starts with none blocked. */
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	e = posix_spawn(&pid, "/proc/self/exe", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(sv[1]);
	if (e) {
		close(sv[0]);
		return tr_fail(-e, "cannot start the file writer: %s", strerror(e));
	}
	e = send_work(sv[0], meta_fd, ncpus, cpu_fd, cpu_bytes, out_fd, version, zip, extra,
		      nextra, tgids, tgids_len);
	/* Its cap first, unless it failed before it had one. */
	if (!e)
		e = recv_all(sv[0], &cap, sizeof(cap));
	if (!e && cap.kind == ANSWER_RESULT)
		res = cap;
	else if (!e)
		e = recv_all(sv[0], &res, sizeof(res));
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (e || res.kind != ANSWER_RESULT)
		return died(status, cap.kind == ANSWER_CAP ? cap.value : 0);
	*size = res.value;
	if (res.err) {
		res.msg[sizeof(res.msg) - 1] = 0;
		if (res.err == -ENOMEM && cap.kind == ANSWER_CAP && cap.value)
			return tr_fail(-ENOMEM, "%s (the file writer's cap: %llu MB more than it "
				       "started with)", res.msg, (unsigned long long)cap.value);
		return tr_fail(res.err < 0 && res.err > -4096 ? res.err : -EIO, "%s", res.msg);
	}
	return 0;
}
