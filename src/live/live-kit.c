// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every live consumer of a session needs besides the session itself
 * (see session.h): the event formats of the running kernel, and one locked
 * sink for the readers' pages.  tr stream, hist (and its latency) and top
 * all take them from here.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>

#include "session.h"
#include "tfile.h"

/*
 * libtracefs leaves out the formats libtraceevent 1.7 cannot parse: the
 * multi-format user events ("NAME.<hex id>").  tfile_parse_event() can.
 */
static void add_unparsed_formats(struct tep_handle *tep)
{
	struct strv ev = { 0 };

	tfs_events(NULL, &ev);
	for (size_t i = 0; i < ev.n; i++) {
		char *colon = strchr(ev.v[i], ':'), *rel, *text = NULL;

		if (!colon || !strchr(colon, '.'))
			continue;
		*colon = '\0';
		if (!tep_find_event_by_name(tep, ev.v[i], colon + 1)) {
			rel = xasprintf("events/%s/%s/format", ev.v[i], colon + 1);
			if (!tfs_read(NULL, rel, &text))
				tfile_parse_event(tep, text, strlen(text), ev.v[i]);
			free(text);
			free(rel);
		}
	}
	strv_free(&ev);
}

static void parse_format(struct tep_handle *tep, const char *system, const char *event)
{
	char *path = xasprintf("events/%s/%s/format", system, event), *text = NULL;

	if (!tfs_read(NULL, path, &text))
		tep_parse_event(tep, text, strlen(text), system);
	free(text);
	free(path);
}

struct tep_handle *session_tep(const struct session_tep_opts *o)
{
	struct tep_handle *tep;
	char *text = NULL;

	if (o->all) {
		tep = tracefs_local_events(tfs_root());
		if (tep)
			add_unparsed_formats(tep);
		return tep;
	}
	tep = tep_alloc();
	if (!tep)
		return NULL;
	/* The kernel writes in the host's order: the events are read where they were made. */
	tep_set_file_bigendian(tep, tep_is_local_bigendian(tep) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	if (!tfs_read(NULL, "events/header_page", &text))
		tep_parse_header_page(tep, text, strlen(text), sizeof(long));
	free(text);
	for (size_t i = 0; o->systems && i < o->systems->n; i++) {
		char *dir = xasprintf("%s/events/%s", tfs_root(), o->systems->v[i]);
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.' && e->d_type == DT_DIR)
				parse_format(tep, o->systems->v[i], e->d_name);
		if (d)
			closedir(d);
		free(dir);
	}
	for (size_t i = 0; o->events && i < o->events->n; i++) {
		char *sys = xstrdup(o->events->v[i]), *ev = strchr(sys, ':');

		if (ev) {
			*ev++ = '\0';
			if (!tep_find_event_by_name(tep, sys, ev))
				parse_format(tep, sys, ev);
		}
		free(sys);
	}
	return tep;
}

void session_sink_init(struct session_sink *k, tfile_event_fn fn, void *arg)
{
	memset(k, 0, sizeof(*k));
	pthread_mutex_init(&k->lock, NULL);
	k->fn = fn;
	k->arg = arg;
}

void session_sink_attach(struct session_sink *k, struct session *s)
{
	k->layout = rec_layout(session_rec(s));
}

int session_sink_pages(void *arg, int cpu, const void *pages, size_t len)
{
	struct session_sink *k = arg;

	pthread_mutex_lock(&k->lock);
	tfile_pages_walk(k->layout, cpu, pages, len, k->fn, k->arg, &k->st);
	pthread_mutex_unlock(&k->lock);
	return 0;
}

int session_sink_run(struct session_sink *k, struct session_opts *o, struct session **out)
{
	int r;

	o->rec.fn = session_sink_pages;
	o->rec.arg = k;
	r = session_open(o, out);
	if (r)
		return r;
	session_sink_attach(k, *out);
	r = session_run(*out);
	if (!r && k->st.bad_pages)
		tr_warn("%llu corrupt sub-buffers from the kernel were skipped",
			(unsigned long long)k->st.bad_pages);
	return r;
}

void session_sink_destroy(struct session_sink *k)
{
	pthread_mutex_destroy(&k->lock);
}
