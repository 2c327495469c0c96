// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The echo of tr top (see top-echo.h): the formatter writes to a FILE made
 * with fopencookie(), whose write function cuts the text into lines for
 * the ring, so the report's text format comes out unchanged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "top-echo.h"

#define ECHO_MAX 2000

struct top_echo {
	struct fmt *fmt;
	struct fmt_src *src;
	FILE *f;
	bool on, lat_by_task;
	enum top_field f1, f2;
	uint64_t v1, v2;
	char *pend;		/* a line not ended yet */
	size_t pend_len;
	char *ring[ECHO_MAX];
	size_t n, head;
};

static void ring_add(struct top_echo *e, const char *s, size_t n)
{
	if (e->n == ECHO_MAX) {
		free(e->ring[e->head]);
		e->ring[e->head] = xasprintf("%.*s", (int)n, s);
		e->head = (e->head + 1) % ECHO_MAX;
		return;
	}
	e->ring[(e->head + e->n++) % ECHO_MAX] = xasprintf("%.*s", (int)n, s);
}

static ssize_t on_write(void *cookie, const char *buf, size_t n)
{
	struct top_echo *e = cookie;
	size_t start = 0;

	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n')
			continue;
		e->pend = xrealloc(e->pend, e->pend_len + i - start + 1);
		memcpy(e->pend + e->pend_len, buf + start, i - start);
		ring_add(e, e->pend, e->pend_len + i - start);
		e->pend_len = 0;
		start = i + 1;
	}
	if (start < n) {
		e->pend = xrealloc(e->pend, e->pend_len + n - start + 1);
		memcpy(e->pend + e->pend_len, buf + start, n - start);
		e->pend_len += n - start;
	}
	return (ssize_t)n;
}

int top_echo_new(struct tep_handle *tep, const char *cmdlines, struct top_echo **out)
{
	struct top_echo *e = xcalloc(1, sizeof(*e));

	e->f = fopencookie(e, "w", (cookie_io_functions_t){ .write = on_write });
	if (!e->f) {
		int r = -errno;

		free(e);
		return tr_fail(r, "cannot make the echo formatter: %s", strerror(-r));
	}
	setvbuf(e->f, NULL, _IONBF, 0);
	e->fmt = fmt_new(e->f, &(struct fmt_opts){ .kind = FMT_TEXT });
	e->src = fmt_src_new(e->fmt, tep);
	if (cmdlines)
		fmt_src_cmdlines(e->src, cmdlines);
	*out = e;
	return 0;
}

void top_echo_clear(struct top_echo *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->ring[(e->head + i) % ECHO_MAX]);
	e->n = e->head = 0;
	e->pend_len = 0;
}

void top_echo_set(struct top_echo *e, bool on, enum top_field f1, uint64_t v1,
		  enum top_field f2, uint64_t v2, bool lat_by_task)
{
	e->on = on;
	e->f1 = f1, e->v1 = v1, e->f2 = f2, e->v2 = v2;
	e->lat_by_task = lat_by_task;
	top_echo_clear(e);
}

bool top_echo_on(const struct top_echo *e)
{
	return e && e->on;
}

static bool match(const struct top_echo *e, const struct top_rec *r, enum top_field f, uint64_t v)
{
	switch (f) {
	case TF_NONE: return true;
	case TF_PID: return (uint64_t)(int64_t)r->pid == v;
	case TF_EVENT: return (uint64_t)r->id == v;
	case TF_CPU: return (uint64_t)r->cpu == v;
	case TF_NR:
		return (r->kind == TOP_EV_SYS_ENTER || r->kind == TOP_EV_SYS_EXIT) &&
		       (uint64_t)r->num == v;
	case TF_IRQ:
		if (v >> 32)
			return (r->kind == TOP_EV_SOFTIRQ_ENTRY || r->kind == TOP_EV_SOFTIRQ_EXIT) &&
			       (uint64_t)r->num == (v & 0xffffffff);
		return (r->kind == TOP_EV_IRQ_ENTRY || r->kind == TOP_EV_IRQ_EXIT) &&
		       (uint64_t)r->num == v;
	case TF_LATKEY:
		if (!e->lat_by_task)
			return (r->lat_start || r->lat_end) && (uint64_t)r->cpu == v;
		return (r->lat_start && r->lat_skey == v) || (r->lat_end && r->lat_ekey == v);
	default:
		return false;
	}
}

void top_echo_event(struct top_echo *e, const struct top_rec *r, const struct tfile_event *ev)
{
	if (!e->on)
		return;
	fmt_src_learn(e->src, ev);
	if (match(e, r, e->f1, e->v1) && match(e, r, e->f2, e->v2)) {
		fmt_event(e->fmt, e->src, "", ev);
		fmt_flush(e->fmt);
	}
}

size_t top_echo_lines(struct top_echo *e, char **out, size_t max)
{
	size_t n = e->n < max ? e->n : max;

	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(e->ring[(e->head + e->n - n + i) % ECHO_MAX]);
	return n;
}

void top_echo_free(struct top_echo *e)
{
	if (!e)
		return;
	top_echo_clear(e);
	fmt_src_free(e->src);
	fmt_free(e->fmt);
	fclose(e->f);
	free(e->pend);
	free(e);
}
