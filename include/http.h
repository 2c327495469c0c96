/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTTP tr's metrics endpoint speaks: requests read as hostile bytes,
 * answers written whole.  Only what a scraper sends is taken: HTTP/1.0 and
 * 1.1, GET and HEAD, no body, no chunks, no continuation lines, at most
 * HTTP_MAX_HEAD bytes and HTTP_MAX_FIELDS header fields; anything else is
 * refused with the status that says why.  Pure: no sockets, no allocation
 * (a fuzz target).
 *
 *   struct http_req r;
 *   n = http_parse(buf, len, &r);  // >0: the request took n bytes
 *                                  // 0: incomplete, read more (len < HTTP_MAX_HEAD)
 *                                  // <0: -status (400, 405, 414, 431, 501, 505)
 *   fmt = http_negotiate(r.accept); // which exposition format to answer in
 */
#ifndef TR_HTTP_H
#define TR_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bounds a peer cannot move: the whole head, the target, the fields. */
#define HTTP_MAX_HEAD 8192
#define HTTP_MAX_TARGET 1024
#define HTTP_MAX_FIELDS 64

enum http_method { HTTP_GET, HTTP_HEAD };

struct http_req {
	enum http_method method;
	int minor;			/* HTTP/1.minor: 0 or 1 */
	/* The target's path and query (after '?', "" if none), NUL-ended. */
	char path[HTTP_MAX_TARGET + 1];
	char query[HTTP_MAX_TARGET + 1];
	bool keep_alive;		/* 1.1 unless "Connection: close"; 1.0 only if asked */
	/* Pointers into the parsed buffer (not NUL-ended), NULL if absent. */
	const char *accept, *authorization;
	size_t accept_len, authorization_len;
};

/*
 * Parse the request head at buf (len bytes read so far).  Returns the
 * length of the head (up to and including its empty line), 0 if it is not
 * complete yet and could still fit, or the negated status to answer:
 *   400 bad syntax, a body (Content-Length other than 0, Transfer-Encoding),
 *       a field repeated that must not be, a control byte;
 *   405 a method other than GET and HEAD (r->method says nothing then);
 *   414 a target over HTTP_MAX_TARGET;
 *   431 a head over HTTP_MAX_HEAD or over HTTP_MAX_FIELDS fields;
 *   501 an absolute or authority target (tr is no proxy);
 *   505 a version other than HTTP/1.0 and 1.1.
 */
int http_parse(const char *buf, size_t len, struct http_req *r);

/* The exposition formats Prometheus asks for, in its Accept header. */
enum http_expo {
	HTTP_EXPO_TEXT,		/* text/plain; version=0.0.4 (the default) */
	HTTP_EXPO_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

/*
 * The format to answer an Accept header (n bytes, NULL for none) in: the
 * media range of highest q that names one of them (OpenMetrics on a tie,
 * as Prometheus ranks it first), text when nothing does.
 */
enum http_expo http_negotiate(const char *accept, size_t n);
/* Its Content-Type. */
const char *http_expo_type(enum http_expo e);

/* A status code's reason phrase ("Not Found"); "Error" for one not listed. */
const char *http_reason(int status);

/*
 * ---- Basic authentication (net-auth.c) ----
 * "Basic BASE64(USER:PASSWORD)", an Authorization header's value (len
 * bytes), into user and pass (NUL-ended, of ulen and plen bytes at most):
 * 0, -EINVAL when it is not one, -E2BIG when a part does not fit.  Pure (a
 * fuzz target).
 */
int http_basic_parse(const char *hdr, size_t len, char *user, size_t ulen, char *pass,
		     size_t plen);
/*
 * The users of a file in htpasswd's format: "USER:HASH" lines (# comments),
 * each HASH one crypt(3) knows ($2y$ bcrypt, $6$ SHA-512, $y$ yescrypt...);
 * refused when group or others may read it.  0 or -errno with tr_fail().
 */
struct http_auth;
int http_auth_load(const char *path, struct http_auth **out);
/*
 * Does the Authorization header (NULL: none) give a user and its
 * password?  0 yes; -EINVAL none or not Basic; -EACCES wrong; -EAGAIN
 * not checked (over the hashes a second the server computes).
 */
int http_auth_check(struct http_auth *a, const char *hdr, size_t len, uint64_t now_ms);
void http_auth_free(struct http_auth *a);

/*
 * ---- The server (net-http.c) ----
 * One thread, every connection non-blocking under one poll(): a scraper's
 * load is a request a second, and a peer that sends slowly, never ends its
 * head or never reads its answer costs a slot until its deadline, nothing
 * more.  Bounds: max_conns connections (max_per_addr from one address);
 * the whole head within head_ms of the connection (or of the last answer,
 * idle_ms on a kept-alive connection that has sent nothing yet); the whole
 * answer within write_ms.  A refusal is answered with its status when the
 * peer can take it and logged in one line; the server goes on.  Loopback
 * only unless allow says otherwise (net_allowed()).
 *
 * handle() runs on the server's thread for each GET or HEAD: it fills
 * *body (malloc'd, freed by the server) and *len, may set *ctype (default
 * text/plain), and returns the status (200, 404, 401...).  For HEAD the
 * body is measured, not sent.
 */
struct net_cidr;
struct http_server;
struct http_server_opts {
	const char *bind;		/* address; NULL: 127.0.0.1 */
	unsigned short port;		/* 0: any free one */
	const struct net_cidr *allow;
	int nallow;
	int max_conns, max_per_addr;	/* 0: 16, 4 */
	int head_ms, idle_ms, write_ms;	/* 0: 10000, 30000, 10000 */
	int (*handle)(void *arg, const struct http_req *r, enum http_expo fmt, char **body,
		      size_t *len, const char **ctype);
	void *arg;
	void (*log)(void *arg, const char *line);	/* or NULL; called on the server's thread */
	void *log_arg;
	/* HTTPS with this PEM certificate chain and key (both, or neither). */
	const char *tls_cert, *tls_key;
	/* Basic authentication against this users file (http_auth_load()), or NULL. */
	const char *auth_file;
};
/* Listen and serve on a thread of its own: 0 (*port the port bound) or -errno with tr_fail(). */
int http_server_start(const struct http_server_opts *o, struct http_server **out,
		      unsigned short *port);
/* The server thread's id (tr's own, to leave out of what it traces). */
pid_t http_server_tid(const struct http_server *s);
/* Stop it (within 100 ms), close every connection, free it. */
void http_server_stop(struct http_server *s);

#endif
