// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The spool: what tr record keeps beside its output while it records, so
 * that a process killed at any instant leaves a recording that
 * rec_restore() completes (see rec.h).  What is needed to read the pages
 * is written before the first page, as SQLite writes its journal before
 * the database: meta.dat when recording starts (and kallsyms beside it
 * once tracing is on), then the readers' pages into cpuN.raw as they
 * come, and cmdlines (and, under record-tgid, tgids) at each flush.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "parse.h"
#include "rec-local.h"
#include "rec.h"
#include "tfile-edit.h"
#include "tfile.h"
#include "tfw.h"

char *rec_spool_path(const char *output)
{
	return xasprintf("%s.spool", output);
}

static void unlink_in(const char *dir, const char *name);

/* Write a small file whole under a temporary name, then rename it over name. */
static int put_file(const char *dir, const char *name, const char *data, size_t len)
{
	char *tmp = xasprintf("%s/.%s.new", dir, name), *path = xasprintf("%s/%s", dir, name);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600), e = 0;

	if (fd < 0) {
		e = -errno;
		goto out;
	}
	while (len) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w < 0 ? -errno : -EIO;
			break;
		}
		data += w;
		len -= w;
	}
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e)
		unlink(tmp);
out:
	if (e)
		tr_fail(e, "cannot write '%s': %s", path, strerror(-e));
	free(tmp);
	free(path);
	return e;
}

pid_t rec_spool_owner(const char *dir, bool *alive)
{
	char *path = xasprintf("%s/owner", dir), *text = NULL, comm[64] = "";
	long pid = 0;
	size_t len;

	*alive = false;
	if (!read_file_flags(path, O_NOFOLLOW, &text, &len))
		pid = strtol(text, NULL, 10);
	free(path);
	free(text);
	if (pid > 0) {
		/* A pid taken since by another program is not the recording. */
		char *p = xasprintf("/proc/%ld/comm", pid);
		FILE *f = fopen(p, "re");

		if (f && fgets(comm, sizeof(comm), f))
			*alive = !strcmp(comm, "tr\n");
		if (f)
			fclose(f);
		free(p);
	}
	return (pid_t)pid;
}

char *rec_spool_output(const char *dir)
{
	char *path = xasprintf("%s/owner", dir), *text = NULL, *out = NULL, *spool, *nl;
	struct stat a, b;
	size_t len;

	if (!read_file_flags(path, O_NOFOLLOW, &text, &len) && (nl = strchr(text, '\n')) && nl[1]) {
		out = nl + 1;
		out[strcspn(out, "\n")] = '\0';
		out = xstrdup(out);
	}
	free(path);
	free(text);
	if (!out)
		return NULL;
	/* A spool moved or copied elsewhere no longer says where the parts are. */
	spool = rec_spool_path(out);
	if (stat(spool, &a) || stat(dir, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		free(out);
		out = NULL;
	}
	free(spool);
	return out;
}

int rec_spool_create(const char *dir, const char *output)
{
	char *owner;
	int e;

	if (mkdir(dir, 0700)) {
		bool alive;
		pid_t pid;

		e = -errno;
		if (e != -EEXIST)
			return tr_fail(e, "cannot create '%s': %s", dir, strerror(-e));
		pid = rec_spool_owner(dir, &alive);
		if (alive)
			return tr_fail(-EBUSY, "cannot record to '%s': tr %d is recording there",
				       output, (int)pid);
		/* Never overwrite what a dead recording left: it is all there is of it. */
		return tr_fail(-EEXIST, "cannot record to '%s': '%s' holds an unfinished "
			       "recording; run 'tr restore %s' or remove it", output, dir, output);
	}
	owner = xasprintf("%d\n%s\n", (int)getpid(), output);
	e = put_file(dir, "owner", owner, strlen(owner));
	free(owner);
	if (e)
		rmdir(dir);
	return e;
}

/*
 * This boot's id (/proc/sys/kernel/random/boot_id, a new one at each
 * boot), or NULL.  Kernel addresses (KASLR) and module addresses hold
 * only within one boot.
 */
static char *boot_id(void)
{
	char *text = NULL;
	size_t len;

	if (read_file("/proc/sys/kernel/random/boot_id", &text, &len))
		return NULL;
	str_rstrip(text);
	return text;
}

/*
 * meta.dat from m, with the options extra[] (taken out of m again: the
 * output adds its own), under a temporary name then renamed over the old.
 * 0 or -errno, unreported: the kallsyms thread calls it too.
 */
static int write_meta(const char *inst_name, const char *dir, struct tfw_meta *m,
		      const struct tfw_opt *extra, size_t nextra)
{
	struct tfw_buffer bufs[2];
	struct tfw_src *none;
	struct tfw_result res;
	char *tmp, *path;
	size_t nbufs = 0;
	int fd, e;

	for (size_t i = 0; i < nextra; i++)
		tfw_meta_add_option(m, extra[i].id, extra[i].data.data, extra[i].data.len);
	none = xcalloc(m->cpus, sizeof(*none));
	for (int c = 0; c < m->cpus; c++)
		none[c].fd = -1;
	if (inst_name)
		bufs[nbufs++] = (struct tfw_buffer){ NULL, none };
	bufs[nbufs++] = (struct tfw_buffer){ inst_name, none };
	tmp = xasprintf("%s/.meta.dat.new", dir);
	path = xasprintf("%s/meta.dat", dir);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		e = -errno;
	} else {
		e = tfw_write(fd, m, bufs, nbufs, 0, &res);
		if (close(fd) && !e)
			e = -errno;
		if (!e && rename(tmp, path))
			e = -errno;
		if (e)
			unlink(tmp);
	}
	free(tmp);
	free(path);
	free(none);
	for (size_t i = 0; i < nextra; i++)
		free(m->opts[--m->nopts].data.data);
	return e;
}

int rec_gather_meta(struct rec *r, struct tfs_inst *in, bool no_kallsyms, struct tfw_meta *m)
{
	struct strv events = { 0 };
	char *set = NULL;
	int e;

	if (!tfs_read(in, "set_event", &set)) {
		char *save = NULL;

		for (char *l = strtok_r(set, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			strv_push(&events, l);
		free(set);
	}
	e = no_kallsyms ? tfw_meta_gather_partial(m, in, &events) : tfw_meta_gather(m, in, &events);
	strv_free(&events);
	if (e)
		return e;
	if (m->cpus < rec_ncpus(r))
		m->cpus = rec_ncpus(r);
	m->page_size = rec_page_size(r);
	m->version = 6;
	return 0;
}

int rec_spool_meta(struct rec *r, struct tfs_inst *in, const char *dir, const struct tfw_opt *extra,
		   size_t nextra, bool defer)
{
	struct tfw_meta m;
	int e;

	/* Deferred only to the thread rec_open() started for a spool. */
	if (r->meta || !r->ksyms.running)
		defer = false;
	e = rec_gather_meta(r, in, defer, &m);
	if (e)
		return e;
	/*
	 * Whether each flush keeps saved_tgids: decided once, by the text
	 * options meta.dat holds (the instance's, as recording starts), as
	 * rec_restore() decides whether to take them.
	 */
	r->spool_tgids = tfw_meta_has_text_option(&m, "record-tgid");
	e = write_meta(in->name, dir, &m, extra, nextra);
	/* Kernel symbols are most of it: a file system short of room goes without. */
	if (e == -ENOSPC && m.kallsyms.len) {
		tfw_meta_drop_kallsyms(&m);
		e = write_meta(in->name, dir, &m, extra, nextra);
	}
	if (e) {
		char *path = xasprintf("%s/meta.dat", dir);

		tr_fail(e, "cannot write '%s': %s", path, strerror(-e));
		free(path);
	}
	/* Kept for the file at the end (rec_write_file()): gathering is most of start-up. */
	if (!e && !r->meta) {
		r->meta = xmalloc(sizeof(*r->meta));
		*r->meta = m;
	} else {
		tfw_meta_free(&m);
	}
	/*
	 * Until the thread has written meta.dat again, kallsyms.boot names
	 * this boot: a restore after a crash in between takes this boot's
	 * /proc/kallsyms, whose addresses are the recording's (see boot_id()).
	 */
	if (!e && defer) {
		char *boot = boot_id();
		bool marked = boot && !put_file(dir, "kallsyms.boot", boot, strlen(boot));

		free(boot);
		/* No marker, no deferring: meta.dat gets them now, as without defer. */
		if (!marked) {
			defer = false;
			tfw_meta_gather_kallsyms(r->meta);
			if (r->meta->kallsyms.len)
				write_meta(in->name, dir, r->meta, extra, nextra);
		}
	}
	if (!e && defer) {
		struct spool_ksyms *k = &r->ksyms;
		int ms;

		k->dir = xstrdup(dir);
		if (getenv("TR_DELAY_KALLSYMS") && !parse_int(getenv("TR_DELAY_KALLSYMS"), 0, 60000, &ms))
			k->delay_ms = (unsigned)ms;
		k->pending = true;
	}
	return e;
}

/* Free room the spool's file system needs for the kernel's symbols to go there. */
#define REC_SPOOL_KSYMS_ROOM (64ull << 20)

/*
 * The kernel's symbols into the spool's kallsyms file, m's from then on:
 * the output copies them from there at the end.  Not meta.dat written
 * again with them: that wrote their megabytes twice more (to a temp file
 * and to meta.dat), a tenth of a recording's CPU.  Written as
 * .kallsyms.new and renamed, so a crash leaves them whole or not at all,
 * and kallsyms.boot goes only once they are there.  Short of room, m
 * takes them from a temp file elsewhere (tfw_meta_gather_kallsyms()) and
 * kallsyms.boot stays.  0 or -errno, unreported.
 */
static int spool_kallsyms(const char *dir, struct tfw_meta *m)
{
	char *tmp = xasprintf("%s/.kallsyms.new", dir), *path = xasprintf("%s/kallsyms", dir);
	struct statvfs sv;
	int fd = -1, e = 0;

	/*
	 * Megabytes: on a nearly full file system they would take the
	 * readers' room, if only until the write fails.
	 */
	if (statvfs(dir, &sv) || (uint64_t)sv.f_bavail * sv.f_frsize < REC_SPOOL_KSYMS_ROOM)
		e = -ENOSPC;
	if (!e && (fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		e = -errno;
	if (!e)
		e = tfw_meta_gather_kallsyms_into(m, fd);
	if (e && fd >= 0)
		close(fd);
	/* m has them in the file (its fd) even where it cannot take its name. */
	if (!e && !m->kallsyms.len)
		e = -ENODATA;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e)
		unlink(tmp);
	else
		unlink_in(dir, "kallsyms.boot");
	if (e && !m->kallsyms_in_file)
		tfw_meta_gather_kallsyms(m);
	free(tmp);
	free(path);
	return e;
}

void *rec_ksyms_main(void *arg)
{
	struct rec *r = arg;
	struct spool_ksyms *k = &r->ksyms;
	bool work;

	/* Its tid goes into tr's own-pid filter with the readers' (rec_tids()). */
	pthread_mutex_lock(&r->lock);
	k->tid = gettid();
	pthread_cond_broadcast(&r->cond);
	while (!k->go)
		pthread_cond_wait(&r->cond, &r->lock);
	work = k->pending;
	pthread_mutex_unlock(&r->lock);
	if (!work)
		return NULL;
	/* TR_DELAY_KALLSYMS=MS, for tests: a crash before they are kept. */
	if (k->delay_ms)
		usleep(k->delay_ms * 1000u);
	k->err = spool_kallsyms(k->dir, r->meta);
	return NULL;
}

/* Let the thread go: to its work if rec_spool_meta() left it some, else to its end. */
static void ksyms_go(struct rec *r, bool work)
{
	pthread_mutex_lock(&r->lock);
	if (!work)
		r->ksyms.pending = false;
	r->ksyms.go = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

void rec_spool_kallsyms_start(struct rec *r)
{
	if (r->ksyms.running)
		ksyms_go(r, true);
}

void rec_spool_kallsyms_cancel(struct rec *r)
{
	struct spool_ksyms *k = &r->ksyms;

	if (k->running) {
		ksyms_go(r, false);
		pthread_join(k->thread, NULL);
	}
	free(k->dir);
	*k = (struct spool_ksyms){ 0 };
}

int rec_spool_kallsyms_wait(struct rec *r)
{
	int e;

	/* Never let go (the session ended first): its work now, so the file has them. */
	rec_spool_kallsyms_start(r);
	if (r->ksyms.running)
		pthread_join(r->ksyms.thread, NULL);
	r->ksyms.running = false;
	e = r->ksyms.err;
	rec_spool_kallsyms_cancel(r);
	return e;
}

/*
 * Under record-tgid, saved_tgids as it is now: the kernel fills it as the
 * recording runs, so meta.dat, written at the start, cannot hold it, and a
 * restored file takes it from here (a crash loses at most one flush's new
 * tasks).  Read only then: it is a line per pid the kernel knows.
 */
static int spool_tgids(const char *dir)
{
	char *path = tfs_path(NULL, "saved_tgids"), *text = NULL;
	size_t len = 0;
	int e = 0;

	if (!read_file(path, &text, &len))
		e = put_file(dir, "tgids", text, len);
	free(text);
	free(path);
	return e;
}

int rec_spool_cmdlines(const struct rec *r)
{
	char *path = tfs_path(NULL, "saved_cmdlines"), *text = NULL;
	size_t len;
	int e = read_file(path, &text, &len);

	free(path);
	/* A kernel without saved_cmdlines leaves meta.dat's (none): not the spool's failure. */
	if (!e)
		e = put_file(r->o.tmp_dir, "cmdlines", text, len);
	else
		e = 0;
	free(text);
	return e || !r->spool_tgids ? e : spool_tgids(r->o.tmp_dir);
}

int rec_spool_procmap(const char *dir, const struct tfw_opt *o)
{
	char *path = xasprintf("%s/procmaps", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600), e = 0;
	ssize_t w;

	if (fd < 0) {
		e = -errno;
	} else {
		/* One write: a crash leaves at worst the last one short, which the reader drops. */
		w = write(fd, o->data.data, o->data.len);
		if (w != (ssize_t)o->data.len)
			e = w < 0 ? -errno : -ENOSPC;
		if (close(fd) && !e)
			e = -errno;
	}
	if (e)
		tr_fail(e, "cannot write '%s': %s", path, strerror(-e));
	free(path);
	return e;
}

/*
 * The spool's procmaps (rec_spool_procmap()) as PROCMAPS options of m:
 * the last well-formed one of each pid.  A short or malformed one (a
 * crash mid-write, or a hand-edited spool) is passed over.
 */
static void add_spooled_maps(const char *dir, struct tfw_meta *m)
{
	char *path = xasprintf("%s/procmaps", dir), *text = NULL;
	struct tfile_procmap *maps = NULL;
	size_t len = 0, n = 0;

	if (!read_file_flags(path, O_NOFOLLOW, &text, &len))
		n = tfile_procmap_log_parse(text, len, &maps);
	for (size_t i = 0; i < n; i++) {
		struct tfw_opt o;

		tfw_opt_procmap(&o, &maps[i]);
		tfw_meta_add_option(m, o.id, o.data.data, o.data.len);
		free(o.data.data);
		tfile_procmap_free(&maps[i]);
	}
	free(maps);
	free(text);
	free(path);
}

/* The spool's tgids (spool_tgids()), as a recording of record-tgid keeps them. */
static void add_spooled_tgids(const char *dir, struct tfw_meta *m)
{
	char *path, *text = NULL;
	size_t len = 0;

	if (!tfw_meta_has_text_option(m, "record-tgid"))
		return;
	path = xasprintf("%s/tgids", dir);
	if (!read_file_flags(path, O_NOFOLLOW, &text, &len) && len)
		tfw_meta_add_tgids(m, text, len);
	free(text);
	free(path);
}

/* Room beside the header for moving pages from cpuN.raw, some at a time. */
#define REC_SPOOL_SPARE (64u << 10)

static void unlink_in(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);

	unlink(p);
	free(p);
}

static uint64_t file_size(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;
	uint64_t n = stat(p, &st) ? 0 : (uint64_t)st.st_blocks * 512;

	free(p);
	return n;
}

bool rec_spool_make_room(const char *dir, int fd)
{
	uint64_t held = file_size(dir, "meta.dat") + file_size(dir, "kallsyms") +
			file_size(dir, "cmdlines") + file_size(dir, "tgids"), avail;
	struct statvfs sv;

	if (!held || fstatvfs(fd, &sv))
		return false;
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	/*
	 * The output's header is the spool's meta.dat, kallsyms and cmdlines
	 * over again, and room for it plus a few pages to move at a time is
	 * all that writing the output needs (the pages move out of cpuN.raw).
	 * Short of that, the file is written by cutting pages: better to give
	 * up the spool's copy, and with it recovery should tr die in the next
	 * moments, than to lose the pages for certain.  The kallsyms file
	 * stays: the output's are copied from it.
	 */
	if (avail >= held + REC_SPOOL_SPARE)
		return false;
	unlink_in(dir, "meta.dat");
	unlink_in(dir, "cmdlines");
	unlink_in(dir, "tgids");
	return true;
}

void rec_spool_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(dir);
}

/*
 * The VERSION option's first string (the recording tool) says the file was
 * restored: tr report --stat prints it as "recorded by:", and trace-cmd
 * reads no further than it.
 */
static void mark_restored(struct tfw_meta *m)
{
	static const char note[] = " (restored by tr restore: the recording ended abruptly)";

	for (size_t i = 0; i < m->nopts; i++) {
		struct tfw_opt *o = &m->opts[i];
		size_t first = strnlen(o->data.data, o->data.len);
		struct tfw_blob b = { 0 };

		if (o->id != TFW_OPT_VERSION)
			continue;
		tfw_blob_append(&b, o->data.data, first);
		tfw_blob_append(&b, note, sizeof(note) - 1);
		if (first < o->data.len)
			tfw_blob_append(&b, o->data.data + first, o->data.len - first);
		else
			tfw_blob_append(&b, "", 1);
		free(o->data.data);
		o->data = b;
		return;
	}
}

/*
 * A spool whose recording died before its kallsyms were written
 * (kallsyms.boot is there): m takes this boot's, whose addresses are the
 * recording's when the boot is the same (REC_KSYMS_NOW); after a restart
 * they would name the wrong functions (REC_KSYMS_LOST).
 */
static int boot_kallsyms(const char *dir, struct tfw_meta *m)
{
	char *path = xasprintf("%s/kallsyms.boot", dir), *then = NULL, *now = boot_id();
	size_t len;
	int r = REC_KSYMS_KEPT;

	if (!read_file_flags(path, O_NOFOLLOW, &then, &len)) {
		str_rstrip(then);
		r = REC_KSYMS_LOST;
		if (now && !strcmp(now, then)) {
			tfw_meta_gather_kallsyms(m);
			if (m->kallsyms.len)
				r = REC_KSYMS_NOW;
		}
	}
	free(path);
	free(then);
	free(now);
	return r;
}

/*
 * The spool's kallsyms into m: meta.dat's (path, open as tf) where it was
 * written with them, else the kallsyms file the thread wrote beside it
 * (spool_kallsyms()).  Copied from there in pieces as the file is
 * written: a copy in memory for each part of a rotating recording grew
 * its RSS at every rotation.  1 if found, 0 if neither has them, -errno
 * with tr_fail().
 */
static int kept_kallsyms(const char *dir, struct tfile *tf, const char *path, struct tfw_meta *m)
{
	char *file = NULL;
	struct stat st;

	if (!tfile_kallsyms_extent(tf, &m->kallsyms_off, &m->kallsyms.len)) {
		file = xasprintf("%s/kallsyms", dir);
		if (stat(file, &st) || !st.st_size) {
			free(file);
			return 0;
		}
		path = file;
		m->kallsyms_off = 0;
		m->kallsyms.len = (size_t)st.st_size;
	}
	m->kallsyms_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (m->kallsyms_fd < 0) {
		int e = tr_fail(-errno, "cannot read '%s': %s", path, strerror(errno));

		m->kallsyms = (struct tfw_blob){ 0 };
		free(file);
		return e;
	}
	m->kallsyms_in_file = true;
	free(file);
	return 1;
}

/*
 * Write to fd a trace.dat of the spool's meta.dat (header, formats,
 * kallsyms, options), the command names of cmdlines (the spool's file,
 * or saved_cmdlines now with fresh) and the pages fill(arg, src, cpus,
 * page_size) puts in src (cpus entries, indexed by CPU, fd -1 for none).
 * With restored the recording tool says so and the fds fill opened are
 * closed here.  0 or -errno with tr_fail().
 */
static int write_spooled(const char *dir, int fd, unsigned flags, bool restored, bool fresh,
			 int (*fill)(void *arg, struct tfw_src *src, int cpus, uint32_t page_size),
			 void *arg, uint64_t *file_bytes, int *ksyms)
{
	char *path = xasprintf("%s/meta.dat", dir), *cmd = NULL;
	struct tfw_buffer *bufs = NULL;
	struct tfw_src *src = NULL, *none = NULL;
	struct tfile *tf = NULL;
	struct tfw_result tres;
	struct tfw_meta m;
	size_t nbufs = 0, len;
	int e;

	memset(&m, 0, sizeof(m));
	e = tfile_open(path, TFILE_KEEP_FORMATS | TFILE_NO_KALLSYMS | TFILE_NOFOLLOW, &tf);
	if (e) {
		if (e == -ENOENT && restored)
			tr_fail(e, "cannot restore '%s': it has no meta.dat (the recording ended "
				   "before its first event was read)", dir);
		else if (e == -ENOENT)
			tr_fail(e, "cannot read '%s': %s", path, strerror(-e));
		goto out;
	}
	e = tfile_meta(tf, &m);
	if (e)
		goto out;
	e = kept_kallsyms(dir, tf, path, &m);
	if (e < 0)
		goto out;
	if (!e && restored)
		*ksyms = boot_kallsyms(dir, &m);
	e = 0;
	free(path);
	path = fresh ? tfs_path(NULL, "saved_cmdlines") : xasprintf("%s/cmdlines", dir);
	if (read_file_flags(path, O_NOFOLLOW, &cmd, &len) && fresh) {
		free(path);
		path = xasprintf("%s/cmdlines", dir);
	}
	if (cmd || !read_file_flags(path, O_NOFOLLOW, &cmd, &len)) {
		free(m.cmdlines.data);
		m.cmdlines = (struct tfw_blob){ cmd, len };
		cmd = NULL;
	}
	if (fresh)
		rec_add_tgids(&m);
	else
		add_spooled_tgids(dir, &m);
	if (restored)
		mark_restored(&m);
	add_spooled_maps(dir, &m);
	/* The recorded buffer is the last of meta.dat's; an empty top level may come first. */
	none = xcalloc(m.cpus, sizeof(*none));
	src = xcalloc(m.cpus, sizeof(*src));
	bufs = xcalloc(tfile_nbuffers(tf) + 1, sizeof(*bufs));
	for (int c = 0; c < m.cpus; c++)
		none[c].fd = src[c].fd = -1;
	e = fill(arg, src, m.cpus, m.page_size);
	if (e)
		goto out;
	for (int i = 0; i < tfile_nbuffers(tf); i++) {
		const char *name = tfile_buffer(tf, i)->name;
		bool last = i == tfile_nbuffers(tf) - 1;

		bufs[nbufs++] = (struct tfw_buffer){ name[0] ? name : NULL, last ? src : none };
	}
	if (!nbufs)
		bufs[nbufs++] = (struct tfw_buffer){ NULL, src };
	if (flags & REC_FILE_V7) {
		m.version = 7;
		m.zip = REC_ZIP_OF(flags);
	} else {
		m.version = 6;
	}
	e = tfw_write(fd, &m, bufs, nbufs, 0, &tres);
	*file_bytes = tres.bytes;
	if (e)
		tr_fail(e, "cannot write the trace file: %s", strerror(-e));
out:
	for (int c = 0; restored && src && c < m.cpus; c++)
		if (src[c].fd >= 0)
			close(src[c].fd);
	free(src);
	free(none);
	free(bufs);
	free(cmd);
	free(path);
	tfw_meta_free(&m);
	tfile_close(tf);
	return e;
}

struct raw_files {
	const char *dir;
	struct rec_restore_result *res;
};

/* dir/cpuN.EXT opened, and its whole sub-buffers' length in *size; -1 if none. */
static int open_pages(const char *dir, int cpu, const char *ext, uint32_t page_size,
		      uint64_t *size)
{
	char *p = xasprintf("%s/cpu%d.%s", dir, cpu, ext);
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;

	free(p);
	*size = 0;
	/* A page cut short by the kill is left out: whole sub-buffers only. */
	if (fd >= 0 && !fstat(fd, &st))
		*size = (uint64_t)st.st_size - (uint64_t)st.st_size % page_size;
	return fd;
}

/* Append len bytes of in (from 0) to out at *at. */
static int copy_in(int out, uint64_t *at, int in, uint64_t len)
{
	loff_t from = 0, to = (loff_t)*at;

	while (len) {
		ssize_t n = copy_file_range(in, &from, out, &to, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		len -= (uint64_t)n;
	}
	*at = (uint64_t)to;
	return 0;
}

/*
 * Each CPU's cpuN.raw, as far as its last whole sub-buffer.  A rotating
 * recording that died with a full part not yet written out (cpuN.rot, see
 * rec_spool_rotate()) has that part's pages go first, in an unnamed file
 * in the spool: the file restored then holds two parts, but nothing is lost.
 */
static int open_raw(void *arg, struct tfw_src *src, int cpus, uint32_t page_size)
{
	struct raw_files *rf = arg;

	rf->res->cpus = cpus;
	for (int c = 0; c < cpus; c++) {
		uint64_t rot_size, at = 0;
		int rot = open_pages(rf->dir, c, "rot", page_size, &rot_size), both, e = 0;

		src[c].fd = open_pages(rf->dir, c, "raw", page_size, &src[c].size);
		if (rot >= 0 && rot_size) {
			both = open(rf->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
			if (both < 0)
				e = -errno;
			if (!e)
				e = copy_in(both, &at, rot, rot_size);
			if (!e && src[c].fd >= 0)
				e = copy_in(both, &at, src[c].fd, src[c].size);
			if (e) {
				if (both >= 0)
					close(both);
				close(rot);
				return tr_fail(e, "cannot read '%s/cpu%d.rot': %s", rf->dir, c,
					       strerror(-e));
			}
			if (src[c].fd >= 0)
				close(src[c].fd);
			src[c].fd = both;
			src[c].size = at;
			rf->res->rotated = true;
		}
		if (rot >= 0)
			close(rot);
		rf->res->bytes += src[c].size;
	}
	return 0;
}

/*
 * Is dir a spool this user may restore from?  What is in it is parsed as
 * a recording and its owner file names where the parts go: one another
 * user owns, or can write in, could make root running tr restore read
 * that user's files (the spool's own are opened with O_NOFOLLOW) or
 * rename files where it says.  0 or -EPERM with tr_fail().
 */
static int spool_trusted(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return tr_fail(-errno, "cannot restore from '%s': %s", dir, strerror(errno));
	if (st.st_uid != geteuid())
		return tr_fail(-EPERM, "cannot restore from '%s': it belongs to uid %u, not to "
			       "the user running tr restore (uid %u)", dir, (unsigned)st.st_uid,
			       (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return tr_fail(-EPERM, "cannot restore from '%s': other users can write in it "
			       "(mode %04o)", dir, (unsigned)(st.st_mode & 07777));
	return 0;
}

int rec_restore(const char *dir, int fd, unsigned flags, struct rec_restore_result *res)
{
	struct raw_files rf = { dir, res };
	bool alive;
	pid_t pid;
	int e;

	memset(res, 0, sizeof(*res));
	if ((e = spool_trusted(dir)))
		return e;
	pid = rec_spool_owner(dir, &alive);
	if (alive)
		return tr_fail(-EBUSY, "cannot restore '%s': tr %d is still recording into it",
			       dir, (int)pid);
	return write_spooled(dir, fd, flags, true, false, open_raw, &rf, &res->file_bytes,
			     &res->kallsyms);
}

struct segment {
	const int *fds;
	const uint64_t *sizes;
	int ncpus;
};

static int segment_src(void *arg, struct tfw_src *src, int cpus, uint32_t page_size)
{
	const struct segment *sg = arg;

	(void)page_size;
	for (int c = 0; c < cpus && c < sg->ncpus; c++) {
		src[c].fd = sg->fds[c];
		src[c].size = sg->fds[c] >= 0 ? sg->sizes[c] : 0;
	}
	return 0;
}

/* OUTPUT.n, or OUTPUT itself for 0. */
static char *numbered(const char *output, unsigned n)
{
	return n ? xasprintf("%s.%u", output, n) : xstrdup(output);
}

int rec_spool_rotate(const char *dir, const char *output, unsigned keep, unsigned flags,
		     const int *fds, const uint64_t *sizes, int ncpus)
{
	struct segment sg = { fds, sizes, ncpus };
	char *tmp = xasprintf("%s.rotating", output), *p = numbered(output, keep);
	uint64_t bytes;
	int fd, e = 0;

	/* The oldest goes first, so the new one never takes a place beyond the N kept. */
	if (unlink(p) && errno != ENOENT)
		e = tr_fail(-errno, "cannot remove '%s': %s", p, strerror(errno));
	free(p);
	fd = e ? -1 : open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (!e && fd < 0)
		e = tr_fail(-errno, "cannot write '%s': %s", tmp, strerror(errno));
	if (!e && (e = write_spooled(dir, fd, flags, false, true, segment_src, &sg, &bytes, NULL)))
		tr_fail(e, "cannot write '%s': %s", tmp, strerror(-e));
	if (fd >= 0 && close(fd) && !e)
		e = tr_fail(-errno, "cannot write '%s': %s", tmp, strerror(errno));
	/*
	 * The part is whole in OUTPUT.rotating: the spool's copy (the fds stay
	 * open) goes before the part takes its name, so that after a crash
	 * the part is in one place only, cpuN.rot or OUTPUT.rotating, and
	 * rec_spool_settle() knows which.
	 */
	for (int c = 0; !e && c < ncpus; c++) {
		char *rot;

		if (fds[c] < 0)
			continue;
		rot = xasprintf("cpu%d.rot", c);
		unlink_in(dir, rot);
		free(rot);
	}
	for (unsigned k = keep; !e && k > 1; k--) {
		char *from = numbered(output, k - 1), *to = numbered(output, k);

		if (rename(from, to) && errno != ENOENT)
			e = tr_fail(-errno, "cannot rename '%s': %s", from, strerror(errno));
		free(from);
		free(to);
	}
	p = numbered(output, 1);
	if (!e && rename(tmp, p))
		e = tr_fail(-errno, "cannot rename '%s': %s", tmp, strerror(errno));
	if (e)
		unlink(tmp);
	free(p);
	free(tmp);
	return e;
}

int rec_spool_peek(const char *output, int *fd)
{
	char *dir = rec_spool_path(output);
	struct rec_restore_result res;
	struct stat st;
	int e = 0;

	*fd = -1;
	/* Only where the recording did not end: its output empty or gone, its spool there. */
	if ((!stat(output, &st) && st.st_size) || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		free(dir);
		return -ENOENT;
	}
	*fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (*fd < 0) {
		e = tr_fail(-errno, "cannot make a temp file in '%s': %s", dir, strerror(errno));
	} else if ((e = rec_restore(dir, *fd, 0, &res))) {
		close(*fd);
		*fd = -1;
	}
	free(dir);
	return e;
}

/* Does the spool hold a full part not yet written out (cpuN.rot)? */
static bool has_rot(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		found = !strncmp(de->d_name, "cpu", 3) && n > 4 && !strcmp(de->d_name + n - 4, ".rot");
	}
	if (d)
		closedir(d);
	return found;
}

int rec_spool_settle(const char *dir, const char *output)
{
	char *tmp = xasprintf("%s.rotating", output), *from, *to;
	struct stat st;
	unsigned n = 1;
	int e = 0;

	if (stat(tmp, &st)) {
		free(tmp);
		return 0;
	}
	/* The part is still in the spool (rec_restore() takes it): this copy is cut short. */
	if (has_rot(dir)) {
		if (unlink(tmp) && errno != ENOENT)
			e = tr_fail(-errno, "cannot remove '%s': %s", tmp, strerror(errno));
		free(tmp);
		return e;
	}
	/*
	 * Whole, and not yet OUTPUT.1: finish the move up of the older parts
	 * (the oldest was removed first, so there is a gap) and name it.
	 */
	for (;; n++) {
		char *p = numbered(output, n);
		bool there = !stat(p, &st);

		free(p);
		if (!there)
			break;
	}
	for (; !e && n > 1; n--) {
		from = numbered(output, n - 1);
		to = numbered(output, n);
		if (rename(from, to))
			e = tr_fail(-errno, "cannot rename '%s': %s", from, strerror(errno));
		free(from);
		free(to);
	}
	to = numbered(output, 1);
	if (!e && rename(tmp, to))
		e = tr_fail(-errno, "cannot rename '%s': %s", tmp, strerror(errno));
	free(to);
	free(tmp);
	return e ? e : 1;
}
