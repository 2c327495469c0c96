// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr record --daemonize (live-record.h): the recording goes on in a child
 * of its own session, and the command returns once tracing is on.
 *
 * The fork comes before anything else is made (no thread, no tracefs
 * change, no file): the child does all of it, so a failure on the way is
 * reported on the terminal it still has, and the parent, which waits on a
 * pipe for the child's "recording" byte, exits with the child's status.
 * Once the byte is sent the child lets go of the terminal (its standard
 * descriptors go to /dev/null) and records until SIGINT, SIGTERM or
 * --duration; the pidfile names it meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live-record.h"
#include "tr.h"

#define READY 'R'

/* The pid in path, or 0 (no file, not a number). */
static pid_t pidfile_pid(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;
	long v;
	char *end;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	v = strtol(buf, &end, 10);
	return v > 0 && v < (1L << 22) && (*end == '\n' || !*end) ? (pid_t)v : 0;
}

/* Whether pid runs this binary: a recycled pid is someone else's. */
static bool is_us(pid_t pid)
{
	char self[4096], other[4096], path[64];
	ssize_t a, b;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	a = readlink("/proc/self/exe", self, sizeof(self) - 1);
	b = readlink(path, other, sizeof(other) - 1);
	return a > 0 && a == b && !memcmp(self, other, a);
}

/* Write our pid into path by a rename, so a reader sees a whole one. */
static int write_pidfile(const char *path)
{
	char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
	char buf[32];
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid()), e = 0;

	if (fd < 0)
		e = -errno;
	else if (write(fd, buf, n) != n || close(fd))
		e = -EIO;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e)
		unlink(tmp);
	free(tmp);
	return e ? tr_fail(e, "cannot write the pidfile '%s': %s", path, strerror(-e)) : 0;
}

int live_daemon_fork(struct live_daemon *d, const char *pidfile, pid_t *child, int *status)
{
	pid_t old = pidfile_pid(pidfile), pid;
	int p[2];
	char c;
	ssize_t n;

	*d = (struct live_daemon){ .ready_fd = -1, .pidfile = pidfile };
	if (old && !kill(old, 0) && is_us(old))
		return tr_fail(-EEXIST, "a recording in the background is running as pid %d "
			       "(pidfile '%s')", (int)old, pidfile);
	if (pipe2(p, O_CLOEXEC))
		return tr_fail(-errno, "cannot start in the background: %s", strerror(errno));
	/* The caller flushed its stdout: the child must not print it again. */
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(p[0]);
		close(p[1]);
		return tr_fail(e, "cannot start in the background: %s", strerror(-e));
	}
	if (!pid) {
		close(p[0]);
		d->ready_fd = p[1];
		/* Out of the terminal's process group: its Ctrl-C is not for us. */
		setsid();
		return write_pidfile(pidfile);
	}
	close(p[1]);
	*child = pid;
	do
		n = read(p[0], &c, 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == 1 && c == READY) {
		*status = 0;
		return 1;
	}
	/* It ended before recording: its message is on the terminal already. */
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : 1;
	if (!*status)
		*status = 1;
	return 1;
}

void live_daemon_ready(void *arg)
{
	struct live_daemon *d = arg;
	char c = READY;
	int null;

	if (d->ready_fd < 0)
		return;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	if (write(d->ready_fd, &c, 1) != 1) {
		/* The parent is gone: nobody waits for the byte. */
	}
	close(d->ready_fd);
	d->ready_fd = -1;
}

void live_daemon_done(struct live_daemon *d)
{
	if (d->pidfile && pidfile_pid(d->pidfile) == getpid())
		unlink(d->pidfile);
	if (d->ready_fd >= 0)
		close(d->ready_fd);
	d->ready_fd = -1;
}
