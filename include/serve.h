/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tr serve: the kernel's activity as metrics a Prometheus scrapes, from a
 * live session of its own (one tool of the session runner, session.h).
 * The events are counted in user space as the readers walk their pages
 * (src/serve/serve-agg.c); a scrape writes the registry (metrics.h) with
 * what is read at that moment (CPU time, the ring buffer's counters, tr's
 * own CPU and memory).
 *
 * Errors: 0 or -errno with tr_fail() set.  Nothing here prints to stdout:
 * listening() and log() are the command's.
 */
#ifndef TR_SERVE_H
#define TR_SERVE_H

#include <stddef.h>
#include <stdint.h>

struct tfs_inst;
struct net_cidr;

struct serve_opts {
	struct tfs_inst *inst;		/* tracing happens here */
	char **command;			/* serve while it runs (NULL: until stopped) */
	uint64_t duration_ns;		/* or this long (0: no limit) */
	const char *bind;		/* NULL: 127.0.0.1 */
	unsigned short port;		/* 0: any free one */
	const struct net_cidr *allow;
	int nallow;
	size_t max_syscalls;		/* syscall label sets (0: 64), the rest "other" */
	/* Called once the server listens, with its address ("127.0.0.1:9464"). */
	void (*listening)(void *arg, const char *addr);
	/* A refused request or peer, one line (the server's thread). */
	void (*log)(void *arg, const char *line);
	void *arg;
};

/* The default port: the one tr serve is known by. */
#define SERVE_PORT 9464

int serve_run(const struct serve_opts *o);

#endif
