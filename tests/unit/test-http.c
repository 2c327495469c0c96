// SPDX-License-Identifier: GPL-2.0-or-later
/* The metrics endpoint's HTTP request parser, content negotiation and exposition writer. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <unistd.h>

#include "expo.h"
#include "http.h"
#include "tr.h"
#include "unit.h"

static int parse(const char *s, struct http_req *r)
{
	return http_parse(s, strlen(s), r);
}

/* What Prometheus 3 sends. */
static const char scrape[] =
	"GET /metrics HTTP/1.1\r\n"
	"Host: 127.0.0.1:9464\r\n"
	"User-Agent: Prometheus/3.0.0\r\n"
	"Accept: application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,"
	"application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;"
	"escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n"
	"Accept-Encoding: gzip\r\n"
	"X-Prometheus-Scrape-Timeout-Seconds: 10\r\n"
	"\r\n";

TEST(a_scrape)
{
	struct http_req r;

	CHECK(parse(scrape, &r) == (int)strlen(scrape));
	CHECK(r.method == HTTP_GET && r.minor == 1 && r.keep_alive);
	CHECK_STR(r.path, "/metrics");
	CHECK_STR(r.query, "");
	CHECK(r.accept && http_negotiate(r.accept, r.accept_len) == HTTP_EXPO_OPENMETRICS);
	CHECK(!r.authorization);
	/* Bytes after the head are the next request's: not taken. */
	{
		char two[sizeof(scrape) * 2];

		snprintf(two, sizeof(two), "%s%s", scrape, scrape);
		CHECK(parse(two, &r) == (int)strlen(scrape));
	}
}

TEST(incomplete_until_the_empty_line)
{
	struct http_req r;
	size_t n = strlen(scrape);

	for (size_t i = 0; i < n; i++)
		CHECK(http_parse(scrape, i, &r) == 0);
	CHECK(parse("HEAD /metrics?x=1 HTTP/1.0\n\n", &r) == 28);
	CHECK(r.method == HTTP_HEAD && r.minor == 0 && !r.keep_alive);
	CHECK_STR(r.path, "/metrics");
	CHECK_STR(r.query, "x=1");
	/* Empty lines before the request line are skipped. */
	CHECK(parse("\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &r) == 46);
	CHECK(r.keep_alive);
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive, close\r\n\r\n", &r) > 0);
	CHECK(!r.keep_alive);
}

TEST(refusals_say_why)
{
	struct http_req r;
	char *big;

	CHECK(parse("POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -405);
	CHECK(parse("get /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -405);
	CHECK(parse("G(T / HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -400);
	CHECK(parse("GET / HTTP/2.0\r\nHost: x\r\n\r\n", &r) == -505);
	CHECK(parse("GET / HTTP/1.2\r\nHost: x\r\n\r\n", &r) == -505);
	CHECK(parse("GET / HTTP/1.1x\r\nHost: x\r\n\r\n", &r) == -400);
	CHECK(parse("GET /\r\n\r\n", &r) == -400);
	CHECK(parse("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -400);
	CHECK(parse("GET http://h/metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -501);
	CHECK(parse("GET * HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -501);
	CHECK(parse("GET /a\x01 HTTP/1.1\r\nHost: x\r\n\r\n", &r) == -400);
	/* 1.1 needs a Host, one only. */
	CHECK(parse("GET / HTTP/1.1\r\n\r\n", &r) == -400);
	CHECK(parse("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", &r) == -400);
	/* No bodies, no folding, no space before the colon, no control bytes. */
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde", &r) == -400);
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", &r) > 0);
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
		    &r) == -400);
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", &r) == -400);
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n", &r) == -400);
	CHECK(parse("GET / HTTP/1.1\r\nHost : x\r\n\r\n", &r) == -400);
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nA: b\x7f\r\n\r\n", &r) == -400);
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\n: b\r\n\r\n", &r) == -400);
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n",
		    &r) == -400);

	/* Bounds: the target, the head, the fields. */
	big = malloc(3 * HTTP_MAX_HEAD);
	memset(big, 'a', 3 * HTTP_MAX_HEAD);
	memcpy(big, "GET /", 5);
	strcpy(big + 5 + HTTP_MAX_TARGET, " HTTP/1.1\r\nHost: x\r\n\r\n");
	CHECK(parse(big, &r) == -414);
	big[5 + HTTP_MAX_TARGET - 1] = '\0';
	strcat(big, " HTTP/1.1\r\nHost: x\r\n\r\n");
	CHECK(parse(big, &r) > 0 && strlen(r.path) == HTTP_MAX_TARGET);
	memset(big, 'a', 3 * HTTP_MAX_HEAD);
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	CHECK(http_parse(big, HTTP_MAX_HEAD - 1, &r) == 0);
	CHECK(http_parse(big, HTTP_MAX_HEAD, &r) == -431);
	CHECK(http_parse(big, 3 * HTTP_MAX_HEAD, &r) == -431);
	{
		size_t o = (size_t)sprintf(big, "GET / HTTP/1.1\r\nHost: x\r\n");

		for (int i = 0; i < HTTP_MAX_FIELDS; i++)
			o += (size_t)sprintf(big + o, "X%d: y\r\n", i);
		strcpy(big + o, "\r\n");
		CHECK(parse(big, &r) == -431);
	}
	free(big);
	CHECK_STR(http_reason(431), "Request Header Fields Too Large");
	CHECK_STR(http_reason(299), "Error");
}

TEST(negotiation)
{
	static const struct {
		const char *accept;
		enum http_expo want;
	} t[] = {
		{ "text/plain;version=0.0.4;q=0.3,*/*;q=0.2", HTTP_EXPO_TEXT },
		{ "application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  HTTP_EXPO_OPENMETRICS },
		{ "application/openmetrics-text;q=0.2, text/plain;q=0.9", HTTP_EXPO_TEXT },
		{ "application/openmetrics-text;q=0.5, text/plain;q=0.5", HTTP_EXPO_OPENMETRICS },
		{ "application/openmetrics-text;q=0", HTTP_EXPO_TEXT },
		{ "Application/OpenMetrics-Text", HTTP_EXPO_OPENMETRICS },
		{ "application/json", HTTP_EXPO_TEXT },
		{ "", HTTP_EXPO_TEXT },
		{ ",,;;q=,application/openmetrics-text;q=1.5", HTTP_EXPO_OPENMETRICS },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK(http_negotiate(t[i].accept, strlen(t[i].accept)) == t[i].want);
	CHECK(http_negotiate(NULL, 0) == HTTP_EXPO_TEXT);
	CHECK(strstr(http_expo_type(HTTP_EXPO_OPENMETRICS), "application/openmetrics-text"));
	CHECK_STR(http_expo_type(HTTP_EXPO_TEXT), "text/plain; version=0.0.4; charset=utf-8");
}

static char *body(enum http_expo fmt)
{
	struct expo e;
	static const double le[] = { 1e-6, 1e-3, 1 };
	static const uint64_t cum[] = { 1, 5, 7 };

	expo_init(&e, fmt);
	expo_family(&e, "tr_context_switches", EXPO_COUNTER, NULL, "Context switches.");
	expo_u64(&e, (const char *[]){ "cpu", "0", NULL }, 1234);
	expo_family(&e, "tr_runq_latency_seconds", EXPO_HISTOGRAM, "seconds",
		    "Wakeup to running, \\ and\nnewline.");
	expo_histogram(&e, (const char *[]){ "cpu", "1", NULL }, le, cum, 3, 9, 2.5);
	expo_family(&e, "tr_comm_events", EXPO_GAUGE, NULL, NULL);
	expo_double(&e, (const char *[]){ "comm", "a\"b\\c\nd\xff", NULL }, 0.1);
	expo_double(&e, NULL, INFINITY);
	expo_double(&e, (const char *[]){ "comm", "n", NULL }, 30);
	expo_family(&e, "tr_aggregation", EXPO_INFO, NULL, "Where tr counts.");
	expo_u64(&e, (const char *[]){ "where", "kernel", NULL }, 0);
	expo_end(&e);
	return e.buf;
}

TEST(exposition_both_ways)
{
	char *s = body(HTTP_EXPO_OPENMETRICS);

	CHECK_STR(s, "# TYPE tr_context_switches counter\n"
		     "# HELP tr_context_switches Context switches.\n"
		     "tr_context_switches_total{cpu=\"0\"} 1234\n"
		     "# TYPE tr_runq_latency_seconds histogram\n"
		     "# UNIT tr_runq_latency_seconds seconds\n"
		     "# HELP tr_runq_latency_seconds Wakeup to running, \\\\ and\\nnewline.\n"
		     "tr_runq_latency_seconds_bucket{cpu=\"1\",le=\"1e-06\"} 1\n"
		     "tr_runq_latency_seconds_bucket{cpu=\"1\",le=\"0.001\"} 5\n"
		     "tr_runq_latency_seconds_bucket{cpu=\"1\",le=\"1.0\"} 7\n"
		     "tr_runq_latency_seconds_bucket{cpu=\"1\",le=\"+Inf\"} 9\n"
		     "tr_runq_latency_seconds_sum{cpu=\"1\"} 2.5\n"
		     "tr_runq_latency_seconds_count{cpu=\"1\"} 9\n"
		     "# TYPE tr_comm_events gauge\n"
		     "tr_comm_events{comm=\"a\\\"b\\\\c\\nd\xef\xbf\xbd\"} 0.1\n"
		     "tr_comm_events +Inf\n"
		     "tr_comm_events{comm=\"n\"} 30\n"
		     "# TYPE tr_aggregation info\n"
		     "# HELP tr_aggregation Where tr counts.\n"
		     "tr_aggregation_info{where=\"kernel\"} 1\n"
		     "# EOF\n");
	free(s);
	s = body(HTTP_EXPO_TEXT);
	CHECK_STR(s, "# TYPE tr_context_switches_total counter\n"
		     "# HELP tr_context_switches_total Context switches.\n"
		     "tr_context_switches_total{cpu=\"0\"} 1234\n"
		     "# TYPE tr_runq_latency_seconds histogram\n"
		     "# HELP tr_runq_latency_seconds Wakeup to running, \\\\ and\\nnewline.\n"
		     "tr_runq_latency_seconds_bucket{cpu=\"1\",le=\"1e-06\"} 1\n"
		     "tr_runq_latency_seconds_bucket{cpu=\"1\",le=\"0.001\"} 5\n"
		     "tr_runq_latency_seconds_bucket{cpu=\"1\",le=\"1\"} 7\n"
		     "tr_runq_latency_seconds_bucket{cpu=\"1\",le=\"+Inf\"} 9\n"
		     "tr_runq_latency_seconds_sum{cpu=\"1\"} 2.5\n"
		     "tr_runq_latency_seconds_count{cpu=\"1\"} 9\n"
		     "# TYPE tr_comm_events gauge\n"
		     "tr_comm_events{comm=\"a\\\"b\\\\c\\nd\xef\xbf\xbd\"} 0.1\n"
		     "tr_comm_events +Inf\n"
		     "tr_comm_events{comm=\"n\"} 30\n"
		     "# TYPE tr_aggregation_info gauge\n"
		     "# HELP tr_aggregation_info Where tr counts.\n"
		     "tr_aggregation_info{where=\"kernel\"} 1\n");
	free(s);
}

TEST(names_made_valid)
{
	char b[16];

	expo_name(b, sizeof(b), "kmem:kmalloc.bytes");
	CHECK_STR(b, "kmem_kmalloc_by");
	expo_name(b, sizeof(b), "9lives");
	CHECK_STR(b, "_9lives");
	expo_name(b, sizeof(b), "__name__");
	CHECK_STR(b, "_name__");
	expo_name(b, sizeof(b), "");
	CHECK_STR(b, "_");
	expo_name(b, 1, "abc");
	CHECK_STR(b, "");
}


/* ---- the server, over loopback ---- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char logged[4096];

static void log_line(void *arg, const char *line)
{
	(void)arg;
	pthread_mutex_lock(&log_lock);
	if (strlen(logged) + strlen(line) + 2 < sizeof(logged)) {
		strcat(logged, line);
		strcat(logged, "\n");
	}
	pthread_mutex_unlock(&log_lock);
}

static bool log_has(const char *s)
{
	bool yes;

	pthread_mutex_lock(&log_lock);
	yes = strstr(logged, s) != NULL;
	pthread_mutex_unlock(&log_lock);
	return yes;
}

static int handle(void *arg, const struct http_req *r, enum http_expo fmt, char **body,
		  size_t *len, const char **ctype)
{
	(void)arg;
	if (strcmp(r->path, "/metrics"))
		return 404;
	*body = xasprintf("x_total %d\n%s", fmt == HTTP_EXPO_OPENMETRICS,
			  fmt == HTTP_EXPO_OPENMETRICS ? "# EOF\n" : "");
	*len = strlen(*body);
	*ctype = http_expo_type(fmt);
	return 200;
}

static int dial(unsigned short port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/*
 * What the server sends on fd until it has sent until (when not NULL), or
 * closes, or ms pass (a bound, not a sleep): NUL-ended in buf; *closed if
 * it closed.
 */
static size_t drain(int fd, char *buf, size_t cap, const char *until, int ms, bool *closed)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	size_t have = 0;

	*closed = false;
	buf[0] = '\0';
	while (have + 1 < cap && !(until && strstr(buf, until))) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t t = now_ms();
		ssize_t n;

		if (t >= end || poll(&p, 1, (int)(end - t)) <= 0)
			break;
		n = recv(fd, buf + have, cap - 1 - have, 0);
		if (n <= 0) {
			*closed = true;
			break;
		}
		have += (size_t)n;
		buf[have] = '\0';
	}
	return have;
}

static void send_str(int fd, const char *s)
{
	CHECK(send(fd, s, strlen(s), MSG_NOSIGNAL) == (ssize_t)strlen(s));
}

TEST(server_answers_and_bounds)
{
	struct http_server *srv = NULL;
	unsigned short port = 0;
	char buf[4096];
	bool closed;
	int fd, fds[3];
	uint64_t t0;

	CHECK(http_server_start(&(struct http_server_opts){ .handle = handle, .log = log_line,
							      .head_ms = 300, .idle_ms = 2000,
							      .max_per_addr = 2 },
				&srv, &port) == 0);
	CHECK(port > 0);

	/* Two requests in one send on a kept-alive connection: two answers, in order. */
	fd = dial(port);
	CHECK(fd >= 0);
	send_str(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text\r\n\r\n"
		     "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n");
	drain(fd, buf, sizeof(buf), "404 Not Found\n", 2000, &closed);
	CHECK(!closed);
	CHECK(!strncmp(buf, "HTTP/1.1 200 OK\r\n", 17));
	CHECK(strstr(buf, "Content-Type: application/openmetrics-text; version=1.0.0"));
	CHECK(strstr(buf, "Content-Length: 16\r\nConnection: keep-alive\r\n\r\nx_total 1\n# EOF\n"
			  "HTTP/1.1 404 Not Found\r\n"));
	close(fd);

	/* HEAD: the length of the body, not the body. */
	fd = dial(port);
	send_str(fd, "HEAD /metrics HTTP/1.0\r\n\r\n");
	drain(fd, buf, sizeof(buf), NULL, 2000, &closed);
	CHECK(closed);
	CHECK(strstr(buf, "Content-Length: 10\r\n"));
	CHECK(strstr(buf, "Connection: close\r\n\r\n") && !strstr(buf, "x_total"));
	close(fd);

	/* Garbage: 400, logged, closed; the server goes on. */
	fd = dial(port);
	send_str(fd, "BLAH\r\n\r\n");
	drain(fd, buf, sizeof(buf), NULL, 2000, &closed);
	CHECK(closed && !strncmp(buf, "HTTP/1.1 400 Bad Request", 24));
	CHECK(log_has("400 Bad Request: a malformed request"));
	close(fd);

	/* A head that never ends: 408 at its deadline (300 ms), whatever it trickles. */
	fd = dial(port);
	t0 = now_ms();
	send_str(fd, "GET /metrics HTTP/1.1\r\n");
	closed = false;
	for (int i = 0; i < 20 && !strstr(buf, "408"); i++) {
		(void)!send(fd, "X: y\r\n", 6, MSG_NOSIGNAL);
		drain(fd, buf, sizeof(buf), "\r\n\r\n", 50, &closed);
	}
	CHECK(strstr(buf, "HTTP/1.1 408 Request Timeout") != NULL);
	if (!closed)
		drain(fd, buf, sizeof(buf), NULL, 3000, &closed);
	CHECK(closed);
	CHECK(now_ms() - t0 < 2000);
	CHECK(log_has("408 Request Timeout: the head did not come whole in time"));
	close(fd);

	/* Two connections from one address at most: the third is told 503 and closed. */
	for (int i = 0; i < 3; i++)
		fds[i] = dial(port);
	drain(fds[2], buf, sizeof(buf), NULL, 2000, &closed);
	CHECK(closed && strstr(buf, "503 Service Unavailable"));
	CHECK(log_has("too many connections from this address"));
	/* The first two still answer. */
	send_str(fds[0], "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
	drain(fds[0], buf, sizeof(buf), "x_total 0\n", 2000, &closed);
	CHECK(!strncmp(buf, "HTTP/1.1 200", 12));

	/* Stopping with clients connected is prompt. */
	t0 = now_ms();
	http_server_stop(srv);
	CHECK(now_ms() - t0 < 1000);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	CHECK(dial(port) < 0);
}

TEST(basic_credentials_decoded)
{
	char u[16], p[16];

	CHECK(!http_basic_parse("Basic dXNlcjpwYXNz", 18, u, sizeof(u), p, sizeof(p)));
	CHECK_STR(u, "user");
	CHECK_STR(p, "pass");
	/* The scheme in any case, blanks around, padding, an empty password. */
	CHECK(!http_basic_parse("basic  YTo= ", 12, u, sizeof(u), p, sizeof(p)));
	CHECK_STR(u, "a");
	CHECK_STR(p, "");
	/* A password may hold ':' (only the first one splits). */
	CHECK(!http_basic_parse("Basic YTpiOmM=", 14, u, sizeof(u), p, sizeof(p)));
	CHECK_STR(p, "b:c");
	CHECK(http_basic_parse("Bearer abcd", 11, u, sizeof(u), p, sizeof(p)) == -EINVAL);
	CHECK(http_basic_parse("Basic ****", 10, u, sizeof(u), p, sizeof(p)) == -EINVAL);
	CHECK(http_basic_parse("Basic YWJj", 10, u, sizeof(u), p, sizeof(p)) == -EINVAL); /* no ':' */
	CHECK(http_basic_parse("Basic YQBiOmM=", 14, u, sizeof(u), p, sizeof(p)) == -EINVAL); /* NUL */
	CHECK(http_basic_parse("Basic YWJj", 9, u, sizeof(u), p, sizeof(p)) == -EINVAL); /* cut */
	/* "aaaaaaaaaaaaaaaaaaaa:b": a user longer than its buffer. */
	CHECK(http_basic_parse("Basic YWFhYWFhYWFhYWFhYWFhYWFhYWE6Yg==", 38, u, sizeof(u), p,
			       sizeof(p)) == -E2BIG);
}

/* A users file of text (mode m) in a temporary path (freed by the caller). */
static char *users_file(const char *text, mode_t m)
{
	char *path = xstrdup("/tmp/tr-test-users-XXXXXX");
	int fd = mkstemp(path);

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	fchmod(fd, m);
	close(fd);
	return path;
}

/* "prom" with the password "pw" (openssl passwd -6 -salt abcdefgh pw). */
#define PW_HASH "$6$abcdefgh$KQeXafAQAaOoKTevphVU215RvJdgzyfASRasIOuh12hO8u0r1bGW92ZnTmC9IjsiQ8VPiTXBiZF49dFL1U4wX/"

TEST(users_and_passwords)
{
	struct http_auth *a;
	char *path;
	/* "prom:pw", "prom:no", "nobody:pw" */
	const char *good = "Basic cHJvbTpwdw==", *bad = "Basic cHJvbTpubw==",
		   *who = "Basic bm9ib2R5OnB3";

	path = users_file("# scrapers\n\nprom:" PW_HASH "\n", 0600);
	CHECK(!http_auth_load(path, &a));
	CHECK(http_auth_check(a, good, strlen(good), 1000) == 0);
	CHECK(http_auth_check(a, bad, strlen(bad), 1000) == -EACCES);
	CHECK(http_auth_check(a, who, strlen(who), 1000) == -EACCES);
	CHECK(http_auth_check(a, NULL, 0, 1000) == -EINVAL);
	CHECK(http_auth_check(a, "Bearer x", 8, 1000) == -EINVAL);
	/* Past 4 hashes in a second, refused unchecked; a header accepted before still passes. */
	CHECK(http_auth_check(a, bad, strlen(bad), 1000) == -EACCES);
	CHECK(http_auth_check(a, bad, strlen(bad), 1500) == -EAGAIN);
	CHECK(http_auth_check(a, good, strlen(good), 1500) == 0);
	CHECK(http_auth_check(a, bad, strlen(bad), 2000) == -EACCES);
	http_auth_free(a);
	unlink(path);
	free(path);

	/* Refused: readable by others, a line without a hash, a plain password, no user. */
	path = users_file("prom:" PW_HASH "\n", 0644);
	CHECK(http_auth_load(path, &a) == -EPERM && !a);
	CHECK(strstr(tr_failure(), "readable by group or others"));
	unlink(path);
	free(path);
	path = users_file("prom:" PW_HASH "\njust-a-name\n", 0600);
	CHECK(http_auth_load(path, &a) == -EINVAL);
	CHECK(strstr(tr_failure(), ":2: want USER:HASH"));
	unlink(path);
	free(path);
	path = users_file("prom:secret\n", 0600);
	CHECK(http_auth_load(path, &a) == -EINVAL);
	CHECK(strstr(tr_failure(), "no crypt(3) hash"));
	unlink(path);
	free(path);
	path = users_file("# nobody\n", 0600);
	CHECK(http_auth_load(path, &a) == -EINVAL);
	CHECK(strstr(tr_failure(), "names no user"));
	unlink(path);
	free(path);
	CHECK(http_auth_load("/nonexistent/users", &a) == -ENOENT);
}

UNIT_MAIN(T(a_scrape), T(incomplete_until_the_empty_line), T(refusals_say_why), T(negotiation),
	  T(exposition_both_ways), T(names_made_valid),
	  T(server_answers_and_bounds), T(basic_credentials_decoded), T(users_and_passwords))
