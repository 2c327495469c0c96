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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "top.h"

struct tfs_inst;
struct net_cidr;

/*
 * --hist 'SYS:EVENT -k KEY[.MOD][,KEY] [-v VAL[,VAL]] [-f FILTER] [-n NAME]':
 * tr hist's table as counter families tr_NAME_hits_total and
 * tr_NAME_VAL_total, one label per key (NAME: the event's name).
 */
struct serve_hist {
	char *name;
	struct hist_spec spec;
};
/* A --hist's text into h (tr_fail() names what is wrong); serve_hist_free() it. */
int serve_hist_parse(const char *text, struct serve_hist *h);
void serve_hist_free(struct serve_hist *h);

/*
 * --latency [NAME=]START,END[,MATCH] (tr top's pairs): a histogram
 * tr_NAME_latency_seconds (NAME: START's and END's names joined by _).
 */
struct serve_lat {
	char *name;
	struct top_lat_spec spec;
};
int serve_lat_parse(const char *text, struct serve_lat *l);
void serve_lat_free(struct serve_lat *l);

/* Where a --hist is counted: the kernel's hist triggers where it has them (auto), or not. */
enum serve_engine { SERVE_ENGINE_AUTO, SERVE_ENGINE_KERNEL, SERVE_ENGINE_USER };

struct serve_opts {
	struct tfs_inst *inst;		/* tracing happens here */
	char **command;			/* serve while it runs (NULL: until stopped) */
	uint64_t duration_ns;		/* or this long (0: no limit) */
	const char *bind;		/* NULL: 127.0.0.1 */
	unsigned short port;		/* 0: any free one */
	const struct net_cidr *allow;
	int nallow;
	const char *tls_cert, *tls_key;	/* HTTPS (both or neither) */
	const char *auth_file;		/* Basic authentication's users (htpasswd's format) */
	size_t max_syscalls;		/* syscall label sets (0: 64), the rest "other" */
	const struct serve_hist *hists;	/* --hist */
	size_t nhists;
	const struct serve_lat *lats;	/* --latency */
	size_t nlats;
	enum serve_engine engine;
	size_t max_series;		/* label sets of each --hist family (0: 1000) */
	bool by_comm;			/* the per-command families (--by comm) */
	size_t max_comms;		/* their label sets (0: 200) */
	/* Called once the server listens, with its address ("127.0.0.1:9464"). */
	void (*listening)(void *arg, const char *addr);
	/* A refused request or peer, one line (the server's thread). */
	void (*log)(void *arg, const char *line);
	void *arg;
};

/* At most this many --hist, and as many --latency. */
#define SERVE_MAX_USER 16

/* The default port: the one tr serve is known by. */
#define SERVE_PORT 9464

int serve_run(const struct serve_opts *o);

#endif
