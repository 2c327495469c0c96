/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Things every part of tr shares: exit codes, the one error reporter, and
 * the stop flag that signal handlers set.
 *
 * Layers below the commands never print to stdout and never exit.  They
 * return 0 or a negative errno and may leave a detail for the caller with
 * tr_detail_set() (for example the kernel's own line from error_log); only
 * the command reports it, once, with tr_error().
 */
#ifndef TR_H
#define TR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#define TR_VERSION "0.1.0"

enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 64,	/* argp's default for usage errors */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Set by SIGINT/SIGTERM handlers; loops poll it and tear down themselves. */
extern volatile sig_atomic_t tr_stop;
/* The signal that set tr_stop, so the process can report it at exit. */
extern volatile sig_atomic_t tr_stop_signal;
void tr_signals_install(void);

/*
 * Print "tr: MESSAGE" (and the pending detail, if any, on the lines below)
 * to stderr; always returns -1 so callers can write "return tr_error(...)".
 */
int tr_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A detail a layer leaves for the next tr_error(): the kernel's reason from
 * error_log, or which part of an input was bad.  Cleared when reported.
 */
/*
 * For layers: describe a failure in the words the user should see ("cannot
 * enable event 'sched:x': no such event") and return -err.  The command then
 * calls tr_report(), which prints it (or its own context when no layer said
 * anything) with the detail below it.
 */
int tr_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *tr_failure(void);
/*
 * From now on this thread's tr_fail() and tr_failure() use buf (n bytes;
 * NULL, 0: the shared message again): threads that each fail on their
 * own, such as tr listen's clients, need not take turns.
 */
void tr_fail_own(char *buf, size_t n);
int tr_report(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void tr_detail_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *tr_detail(void);
void tr_detail_clear(void);

/*
 * With TR_DEBUG=timing in the environment, print to stderr the wall and
 * CPU time since main() started and the peak RSS so far, naming the phase
 * just reached ("formats loaded", "tracing on"): a start-up that grew slow
 * shows where.  Otherwise nothing, at the cost of one test.
 */
void tr_phase(const char *what);

/* Memory helpers that abort on exhaustion: there is no sane recovery. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Append fmt's text to *s (malloc'd, or NULL for an empty string). */
void xstrcatf(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growable array of owned strings. */
struct strv {
	char **v;
	size_t n, cap;
};
void strv_push(struct strv *sv, const char *s);
void strv_push_owned(struct strv *sv, char *s);
void strv_free(struct strv *sv);
bool strv_contains(const struct strv *sv, const char *s);
void strv_sort(struct strv *sv);

/* Remove trailing whitespace in place; returns s. */
char *str_rstrip(char *s);
/*
 * p at a quote (' or "): the matching closing quote, a backslash escaping
 * the character after it; NULL when the string runs to the end unclosed.
 */
const char *str_skip_quoted(const char *p);

/* Read a whole file (NUL-terminated); returns 0 or -errno. */
int read_file(const char *path, char **out, size_t *len);
/* read_file() with oflags added to open()'s (O_NOFOLLOW for a file in a spool). */
int read_file_flags(const char *path, int oflags, char **out, size_t *len);
/*
 * Read path a block at a time, handing fn whole lines (each ending in a
 * newline, but perhaps the last): for files of megabytes that are parsed
 * into something smaller.  0 or -errno; a line longer than a block is cut.
 */
int read_lines(const char *path, void (*fn)(void *arg, const char *text, size_t len), void *arg);

/*
 * Bytes read by bounded pieces, from memory (mem) or a file (fd, by pread:
 * never a mapping, which a file truncated under the reader would fault),
 * for parsers of untrusted binary files (ELF): each piece is copied out,
 * so a misaligned structure is no fault either.
 */
struct tr_image {
	const unsigned char *mem;	/* or NULL: read fd */
	int fd;
	unsigned long long size;
};
/* Is [off, off + len) within size bytes?  (No wrap-around.) */
bool tr_in_bounds(unsigned long long off, unsigned long long len, unsigned long long size);
/* Copy len bytes at off into dst: false when they are not all there. */
bool tr_image_read(const struct tr_image *im, unsigned long long off, size_t len, void *dst);

/*
 * The syscall names of x86-64's numbering, from the system's headers
 * (linux-libc-dev's asm/unistd_64.h): fn(arg, nr, "openat") for each.
 * 0, or -ENOENT when the headers are not installed.
 */
int syscall_names(void (*fn)(void *arg, unsigned nr, const char *name), void *arg);

#endif
