// SPDX-License-Identifier: GPL-2.0-or-later
/* The metrics endpoint's HTTP request parser, content negotiation and exposition writer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"
#include "http.h"
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

UNIT_MAIN(T(a_scrape), T(incomplete_until_the_empty_line), T(refusals_say_why), T(negotiation),
	  T(exposition_both_ways), T(names_made_valid))
