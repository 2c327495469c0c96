// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Filling a trace.dat meta from tracefs and /proc (see tfw.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tfs.h"
#include "tfw-local.h"
#include "tfw.h"

static int slurp(const char *path, struct tfw_blob *b)
{
	char *data;
	size_t len;
	int r = read_file(path, &data, &len);

	if (r)
		return r;
	free(b->data);
	b->data = data;
	b->len = len;
	return 0;
}

/* What /proc/kallsyms is read into before it is written out. */
#define KALLSYMS_BUF (1 << 16)

int tfw_meta_gather_kallsyms_into(struct tfw_meta *m, int out)
{
	int in = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC), e = 0;
	uint64_t len = 0;
	size_t fill = 0;
	char *buf;

	if (in < 0)
		return -errno;
	buf = xmalloc(KALLSYMS_BUF);
	/*
	 * Note that a read of /proc/kallsyms returns one seq_file page (4 KiB)
	 * whatever is asked: the buffer is filled by several before each
	 * write, or the file takes a write per page.
	 */
	for (;;) {
		ssize_t n = read(in, buf + fill, KALLSYMS_BUF - fill);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = -errno;
			break;
		}
		fill += (size_t)n;
		if (n && fill < KALLSYMS_BUF)
			continue;
		if (fill && (e = tfw_pwrite_all(out, buf, fill, len)))
			break;
		len += fill;
		fill = 0;
		if (!n)
			break;
	}
	free(buf);
	close(in);
	if (e)
		return e;
	tfw_meta_drop_kallsyms(m);
	m->kallsyms = (struct tfw_blob){ .len = len };
	m->kallsyms_fd = out;
	m->kallsyms_off = 0;
	m->kallsyms_in_file = true;
	return 0;
}

/*
 * /proc/kallsyms into an unlinked temp file, a piece at a time: holding
 * its megabytes was most of tr record's memory.  0, or -errno and nothing
 * kept (the caller reads it into memory instead).
 */
static int spool_kallsyms(struct tfw_meta *m)
{
	const char *dir = getenv("TMPDIR");
	int out = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), e;

	if (out < 0)
		return -errno;
	e = tfw_meta_gather_kallsyms_into(m, out);
	if (e)
		close(out);
	return e;
}

static int slurp_tfs(const struct tfs_inst *in, const char *file, struct tfw_blob *b)
{
	char *p = tfs_path(in, file);
	int r = slurp(p, b);

	free(p);
	return r;
}

/*
 * The VERSION option: tr's version, and after its NUL the instance's
 * funcgraph-* options and those of how addresses print (sym-offset,
 * sym-addr, print-parent), as trace_options lists them (tfw.h).  The
 * kernel's text follows them, and so does tr report's (which takes the
 * kernel's defaults for a file without).  Kernels without function_graph
 * have no funcgraph-* options.
 */
static void add_version(struct tfw_meta *m, const struct tfs_inst *in)
{
	static const char version[] = "tr " TR_VERSION;
	char *opts = tfs_text_options(in);
	struct tfw_blob b = { 0 };

	tfw_blob_append(&b, version, sizeof(version));
	if (*opts)
		tfw_blob_append(&b, opts, strlen(opts) + 1);
	free(opts);
	tfw_meta_add_option(m, TFW_OPT_VERSION, b.data, b.len);
	free(b.data);
}

static int add_format(struct tfw_meta *m, const char *system, const char *event)
{
	char *f = xasprintf("events/%s/%s/format", system, event);
	struct tfw_blob b = { 0 };
	int r = slurp_tfs(NULL, f, &b);

	if (!r)
		tfw_meta_add_format(m, system, b.data, b.len);
	free(b.data);
	free(f);
	return r;
}

/* All of events/ftrace: the formats of what tracers and trace_marker write. */
static int add_ftrace(struct tfw_meta *m)
{
	char *dir = tfs_path(NULL, "events/ftrace");
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strv names = { 0 };

	free(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && de->d_type != DT_REG)
			strv_push(&names, de->d_name);
	closedir(d);
	strv_sort(&names);
	for (size_t i = 0; i < names.n; i++)
		add_format(m, "ftrace", names.v[i]);
	strv_free(&names);
	return 0;
}

static int count_cpus(const struct tfs_inst *in)
{
	char *dir = tfs_path(in, "per_cpu");
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	free(dir);
	if (!d)
		return (int)sysconf(_SC_NPROCESSORS_CONF);
	while ((de = readdir(d))) {
		int c;

		if (sscanf(de->d_name, "cpu%d", &c) == 1 && c + 1 > n)
			n = c + 1;
	}
	closedir(d);
	return n;
}

/* Whether in traces functions with their arguments: what prints them needs the BTF. */
static bool traces_args(const struct tfs_inst *in)
{
	char *tracer = NULL, *on = NULL;
	const char *opt = NULL;
	bool yes = false;

	if (tfs_read(in, "current_tracer", &tracer))
		return false;
	str_rstrip(tracer);
	if (!strcmp(tracer, "function"))
		opt = "options/func-args";
	else if (!strcmp(tracer, "function_graph"))
		opt = "options/funcgraph-args";
	if (opt && !tfs_read(in, opt, &on))
		yes = on[0] == '1';
	free(on);
	free(tracer);
	return yes;
}

void tfw_meta_gather_extras(struct tfw_meta *m, const struct tfs_inst *in)
{
	/* Unreadable, they cost what prints from them elsewhere: the file is still good. */
	if (!m->btf.len && traces_args(in))
		(void)slurp("/sys/kernel/btf/vmlinux", &m->btf);
	if (!m->modules.len)
		(void)slurp("/proc/modules", &m->modules);
}

void tfw_meta_gather_kallsyms(struct tfw_meta *m)
{
	tfw_meta_drop_kallsyms(m);
	/* Unreadable kallsyms only costs function names: the file is still good. */
	if (spool_kallsyms(m))
		slurp("/proc/kallsyms", &m->kallsyms);
}

int tfw_meta_gather(struct tfw_meta *m, struct tfs_inst *in, const struct strv *events)
{
	int r = tfw_meta_gather_partial(m, in, events);

	if (!r)
		tfw_meta_gather_kallsyms(m);
	return r;
}

int tfw_meta_gather_partial(struct tfw_meta *m, struct tfs_inst *in, const struct strv *events)
{
	struct strv seen = { 0 };
	struct utsname u;
	char *raw = NULL;
	int r;

	memset(m, 0, sizeof(*m));
	m->page_size = getpagesize();
	if (!tfs_read(in, "buffer_subbuf_size_kb", &raw)) {
		unsigned long kb = strtoul(raw, NULL, 10);

		if (kb)
			m->page_size = kb * 1024;
	}
	free(raw);
	raw = NULL;
	m->cpus = count_cpus(in);

	r = slurp_tfs(NULL, "events/header_page", &m->header_page);
	if (!r)
		r = slurp_tfs(NULL, "events/header_event", &m->header_event);
	if (r)
		return tr_fail(r, "cannot read the ring buffer's header formats: %s", strerror(-r));
	r = add_ftrace(m);
	if (r)
		return tr_fail(r, "cannot read the ftrace event formats: %s", strerror(-r));
	for (size_t i = 0; events && i < events->n; i++) {
		const char *colon = strchr(events->v[i], ':');
		char *sys;

		if (!colon || strv_contains(&seen, events->v[i]))
			continue;
		strv_push(&seen, events->v[i]);
		sys = xasprintf("%.*s", (int)(colon - events->v[i]), events->v[i]);
		if (strcmp(sys, "ftrace")) {
			r = add_format(m, sys, colon + 1);
			if (r && r != -ENOENT) {
				free(sys);
				strv_free(&seen);
				return tr_fail(r, "cannot read the format of '%s': %s", events->v[i],
					       strerror(-r));
			}
		}
		free(sys);
	}
	strv_free(&seen);

	slurp_tfs(NULL, "printk_formats", &m->printk);
	slurp_tfs(NULL, "saved_cmdlines", &m->cmdlines);

	if (!tfs_read(in, "trace_clock", &raw)) {
		m->clock = tfs_normalize("trace_clock", raw);
		str_rstrip(raw);
		tfw_meta_add_option(m, TFW_OPT_TRACECLOCK, raw, strlen(raw) + 1);
		free(raw);
	} else {
		m->clock = xstrdup("local");
	}
	if (!uname(&u)) {
		char *s = xasprintf("%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version,
				    u.machine);

		tfw_meta_add_option(m, TFW_OPT_UNAME, s, strlen(s) + 1);
		free(s);
	}
	add_version(m, in);
	return 0;
}
