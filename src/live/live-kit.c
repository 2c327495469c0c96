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

#include "fmt.h"
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

/* Parse system:event's format unless tep has it (0, or -errno / the tep_errno). */
static int parse_named(struct tep_handle *tep, const char *sysev)
{
	char *sys = xstrdup(sysev), *ev = strchr(sys, ':'), *path, *text = NULL;
	int r = -EINVAL;

	if (ev) {
		*ev++ = '\0';
		r = 0;
		if (!tep_find_event_by_name(tep, sys, ev)) {
			path = xasprintf("events/%s/%s/format", sys, ev);
			r = tfs_read(NULL, path, &text);
			if (!r)
				r = tfile_parse_event(tep, text, strlen(text), sys) ? -EINVAL : 0;
			free(text);
			free(path);
		}
	}
	free(sys);
	return r;
}

#define SESSION_LAZY_SCANS 8

struct session_lazy {
	const struct tfs_inst *in;
	int scans;		/* reads of every id file so far */
	struct strv names;	/* "system:event" by index ... */
	int *ids;		/* ... and its id */
};

struct session_lazy *session_lazy_new(const struct tfs_inst *in)
{
	struct session_lazy *l = xcalloc(1, sizeof(*l));

	l->in = in;
	return l;
}

void session_lazy_free(struct session_lazy *l)
{
	if (!l)
		return;
	strv_free(&l->names);
	free(l->ids);
	free(l);
}

/* Every event's id, from its id file: what the kernel gives no index of. */
static void scan_ids(struct session_lazy *l)
{
	struct strv ev = { 0 };

	l->scans++;
	strv_free(&l->names);
	free(l->ids);
	l->ids = NULL;
	if (tfs_events(NULL, &ev))
		return;
	l->ids = xcalloc(ev.n ? ev.n : 1, sizeof(*l->ids));
	for (size_t i = 0; i < ev.n; i++) {
		char *colon = strchr(ev.v[i], ':'), *path, *text = NULL;

		l->ids[i] = -1;
		if (!colon)
			continue;
		path = xasprintf("events/%.*s/%s/id", (int)(colon - ev.v[i]), ev.v[i], colon + 1);
		if (!tfs_read(NULL, path, &text))
			l->ids[i] = atoi(text);
		free(text);
		free(path);
	}
	l->names = ev;
}

int session_lazy_event(void *arg, struct tep_handle *tep, int id)
{
	struct session_lazy *l = arg;
	struct strv on = { 0 };
	char *text = NULL, *line, *save = NULL;

	/* Most likely one of the instance's enabled events: one read names them all. */
	if (!tfs_read(l->in, "set_event", &text)) {
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			strv_push(&on, line);
		free(text);
		for (size_t i = 0; i < on.n; i++)
			parse_named(tep, on.v[i]);
		strv_free(&on);
		if (tep_find_event(tep, id))
			return 0;
	}
	/*
	 * Enabled some other way (a trigger, a tracer, a probe made since):
	 * ask every id file, again for an id they did not have, but only a few
	 * times: ids from corrupt records would otherwise each cost a scan.
	 */
	for (int pass = !!l->scans; pass < 2; pass++) {
		if (pass && l->scans >= SESSION_LAZY_SCANS)
			break;
		if (pass)
			scan_ids(l);
		for (size_t i = 0; i < l->names.n; i++)
			if (l->ids[i] == id)
				return parse_named(tep, l->names.v[i]);
	}
	return -ENOENT;
}

/* fmt_src_tep_symbols_loader(): libtraceevent's table, when it first prints. */
static void tep_syms_load(void *tep)
{
	char *text = NULL;
	size_t len;

	if (!read_file("/proc/kallsyms", &text, &len))
		tep_parse_kallsyms(tep, text);
	free(text);
}

static void lines_to_ksyms(void *arg, const char *text, size_t len)
{
	fmt_src_kallsyms_lines(arg, text, len);
}

/*
 * The printer's own table, not libtraceevent's: that one costs some 18 MB
 * for a kernel's 120,000 symbols, four times the text, and a tenth of a
 * second in which a live stream's buffers fill.  libtraceevent reads them
 * again if it comes to print.
 */
int session_lazy_syms(void *arg, struct fmt_src *src, struct tep_handle *tep)
{
	int r;

	(void)arg;
	r = read_lines("/proc/kallsyms", lines_to_ksyms, src);
	fmt_src_kallsyms_end(src);
	fmt_src_tep_symbols_loader(src, tep_syms_load, tep);
	return r;
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
	/* The kernel writes in the host's order: the events are read where they were made. */
	tfs_read(NULL, "events/header_page", &text);
	tep = tfile_tep_new(&(struct tfile_tep_opts){ .big_endian = tep_is_bigendian(),
						      .header_page = text,
						      .header_page_len = text ? strlen(text) : 0 });
	free(text);
	if (!tep)
		return NULL;
	text = NULL;
	if (o->printk && !tfs_read(NULL, "printk_formats", &text))
		tep_parse_printk_formats(tep, text);
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

int session_sink_pages(void *arg, int cpu, const void *pages, size_t len)
{
	struct session_sink *k = arg;

	pthread_mutex_lock(&k->lock);
	tfile_pages_walk(k->layout, cpu, pages, len, k->fn, k->arg, &k->st);
	pthread_mutex_unlock(&k->lock);
	return 0;
}

void session_sink_destroy(struct session_sink *k)
{
	pthread_mutex_destroy(&k->lock);
}
