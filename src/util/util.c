// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Error reporting, signal flag, memory and string helpers shared by every
 * layer.  Nothing here prints to stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tr.h"

volatile sig_atomic_t tr_stop;
volatile sig_atomic_t tr_stop_signal;

static void on_stop(int sig)
{
	tr_stop = 1;
	tr_stop_signal = sig;
}

/*
 * Note that SA_RESTART is deliberately not set: a reader blocked in read()
 * of trace_pipe must come back with EINTR so its loop sees tr_stop.
 */
void tr_signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static double ms_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void tr_phase(const char *what)
{
	static int on = -1;
	static double t0;
	struct rusage ru;
	const char *d;

	if (on < 0) {
		d = getenv("TR_DEBUG");
		on = d && strstr(d, "timing");
		t0 = ms_of(CLOCK_MONOTONIC);
	}
	if (!on)
		return;
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "tr: timing: %-22s wall %8.2f ms  cpu %8.2f ms  peak %6ld KiB\n", what,
		ms_of(CLOCK_MONOTONIC) - t0, ms_of(CLOCK_PROCESS_CPUTIME_ID), ru.ru_maxrss);
}

static char detail[4096];
static char failure[1024];
/* A thread's own message buffer (tr_fail_own()), or NULL: the shared one. */
static __thread char *own_failure;
static __thread size_t own_failure_len;

int tr_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (own_failure)
		vsnprintf(own_failure, own_failure_len, fmt, ap);
	else
		vsnprintf(failure, sizeof(failure), fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

const char *tr_failure(void)
{
	if (own_failure)
		return own_failure[0] ? own_failure : NULL;
	return failure[0] ? failure : NULL;
}

void tr_fail_own(char *buf, size_t n)
{
	own_failure = n ? buf : NULL;
	own_failure_len = n;
	if (own_failure)
		own_failure[0] = '\0';
}

int tr_report(int err, const char *fmt, ...)
{
	char ctx[1024];
	va_list ap;

	if (failure[0]) {
		tr_error("%s", failure);
		failure[0] = '\0';
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	/* Never "Success": a caller without an errno still gets its context. */
	if (!err)
		return tr_error("%s", ctx);
	return tr_error("%s: %s", ctx, strerror(err < 0 ? -err : err));
}

void tr_detail_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
}

const char *tr_detail(void)
{
	return detail[0] ? detail : NULL;
}

void tr_detail_clear(void)
{
	detail[0] = '\0';
}

int tr_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("tr: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (detail[0]) {
		/* The kernel's own reason, indented so it reads as part of the error. */
		char *line, *save = NULL, *copy = xstrdup(detail);

		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "  %s\n", line);
		free(copy);
		tr_detail_clear();
	}
	return -1;
}

void tr_warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("tr: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void oom(void)
{
	fputs("tr: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	return s;
}

void xstrcatf(char **s, const char *fmt, ...)
{
	size_t have = *s ? strlen(*s) : 0;
	va_list ap;
	char *add;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	*s = xrealloc(*s, have + (size_t)r + 1);
	memcpy(*s + have, add, (size_t)r + 1);
	free(add);
}

void strv_push_owned(struct strv *sv, char *s)
{
	if (sv->n + 1 >= sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 16;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strv_push(struct strv *sv, const char *s)
{
	strv_push_owned(sv, xstrdup(s));
}

void strv_free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

bool strv_contains(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(struct strv *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
}

char *str_rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

bool tr_in_bounds(unsigned long long off, unsigned long long len, unsigned long long size)
{
	return off <= size && len <= size - off;
}

bool tr_image_read(const struct tr_image *im, unsigned long long off, size_t len, void *dst)
{
	if (!tr_in_bounds(off, len, im->size))
		return false;
	if (im->mem) {
		memcpy(dst, im->mem + off, len);
		return true;
	}
	for (size_t got = 0; got < len;) {
		ssize_t r = pread(im->fd, (char *)dst + got, len - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		/* Shorter than its size said: truncated while being read. */
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/*
 * tracefs files report a size of 0, so read until EOF rather than trusting
 * st_size.
 */
int read_file(const char *path, char **out, size_t *len)
{
	return read_file_flags(path, 0, out, len);
}

int read_file_flags(const char *path, int oflags, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | oflags);

	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			close(fd);
			free(buf);
			return -err;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	/* Doubling left up to half of it unused: /proc/kallsyms is megabytes. */
	if (cap - n > 65536)
		buf = xrealloc(buf, n + 1);
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int read_lines(const char *path, void (*fn)(void *arg, const char *text, size_t len), void *arg)
{
	enum { BLOCK = 65536 };
	char *buf;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	buf = xmalloc(BLOCK);
	for (;;) {
		ssize_t r = read(fd, buf + n, BLOCK - n);
		char *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0) {
			if (n)
				fn(arg, buf, n);
			break;
		}
		n += (size_t)r;
		nl = memrchr(buf, '\n', n);
		if (!nl && n == BLOCK)
			nl = buf + n - 1;	/* no newline in a whole block: cut it */
		if (nl) {
			size_t used = (size_t)(nl - buf) + 1;

			fn(arg, buf, used);
			memmove(buf, buf + used, n - used);
			n -= used;
		}
	}
	close(fd);
	free(buf);
	return err;
}

int syscall_names(void (*fn)(void *arg, unsigned nr, const char *name), void *arg)
{
	static const char *const paths[] = { "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
					     "/usr/include/asm/unistd_64.h" };
	char *text = NULL, *save = NULL;
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(paths) && !text; i++)
		if (read_file(paths[i], &text, &len))
			text = NULL;
	if (!text)
		return -ENOENT;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned nr;

		if (sscanf(l, "#define __NR_%63s %u", name, &nr) == 2)
			fn(arg, nr, name);
	}
	free(text);
	return 0;
}

const char *str_skip_quoted(const char *p)
{
	char q = *p;

	while (p[1] && p[1] != q)
		p += p[1] == '\\' && p[2] ? 2 : 1;
	return p[1] ? p + 1 : NULL;
}
