// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracefs control layer: locating tracefs, reading and writing its
 * files, and the one table of everything tr changed so it can be put back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tfs.h"

enum undo_kind {
	UNDO_SET,	/* write value back to path */
	UNDO_APPEND,	/* append value to path (removes a trigger or probe) */
	UNDO_INSTANCE,	/* rmdir the instance dir at path */
};

struct undo {
	enum undo_kind kind;
	char *path;
	char *value;
};

static struct {
	char *root;
	const char *origin;
	struct tfs_inst top;
	struct tfs_inst **insts;
	size_t ninsts;
	struct undo *undo;
	size_t nundo, capundo;
} T;

static bool is_tracefs_dir(const char *dir)
{
	char *p = xasprintf("%s/tracing_on", dir);
	bool ok = access(p, F_OK) == 0;

	free(p);
	if (!ok) {
		/* Some files are missing on odd kernels; available_events never is. */
		p = xasprintf("%s/available_events", dir);
		ok = access(p, F_OK) == 0;
		free(p);
	}
	return ok;
}

static char *from_mount_table(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[4096], type[64];
	char *found = NULL;

	if (!f)
		return NULL;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "tracefs") && !found)
			found = xstrdup(dir);
	fclose(f);
	return found;
}

static int set_root(const char *dir, const char *origin)
{
	T.root = xstrdup(dir);
	T.origin = origin;
	T.top.name = NULL;
	T.top.dir = T.root;
	/* Readable is not enough: check we may change things before promising. */
	if (access(T.root, R_OK | X_OK) || (getenv("TR_TRACEFS") == NULL && geteuid() != 0 &&
					    access(T.root, W_OK))) {
		tr_detail_set("run tr as root, or as a member of the group that owns %s", T.root);
		return -EACCES;
	}
	return 0;
}

int tfs_open(void)
{
	const char *env = getenv("TR_TRACEFS");
	static const char *const candidates[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char *m;

	if (T.root)
		return 0;
	if (env && *env) {
		if (!is_tracefs_dir(env)) {
			tr_detail_set("no tracefs files in '%s' (from TR_TRACEFS)", env);
			return -ENOENT;
		}
		return set_root(env, "$TR_TRACEFS");
	}
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++)
		if (is_tracefs_dir(candidates[i]))
			return set_root(candidates[i], "mounted");
	m = from_mount_table();
	if (m) {
		int r = set_root(m, "mounted");

		free(m);
		return r;
	}
	if (geteuid() != 0) {
		tr_detail_set("tracefs is not mounted, and mounting it needs root");
		return -ENOENT;
	}
	if (mount("nodev", candidates[0], "tracefs", 0, NULL)) {
		int err = errno;

		tr_detail_set("mounting tracefs at %s failed: %s", candidates[0], strerror(err));
		return -ENOENT;
	}
	return set_root(candidates[0], "mounted by tr");
}

const char *tfs_root(void)
{
	return T.root;
}

const char *tfs_origin(void)
{
	return T.origin;
}

struct tfs_inst *tfs_top(void)
{
	return &T.top;
}

bool tfs_inst_valid_name(const char *name)
{
	if (!name || !*name || strlen(name) > 200 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	return strchr(name, '/') == NULL;
}

char *tfs_path(const struct tfs_inst *in, const char *file)
{
	return xasprintf("%s/%s", (in ? in : &T.top)->dir, file);
}

bool tfs_exists(const struct tfs_inst *in, const char *file)
{
	char *p = tfs_path(in, file);
	bool r = access(p, F_OK) == 0;

	free(p);
	return r;
}

int tfs_read(const struct tfs_inst *in, const char *file, char **out)
{
	char *p = tfs_path(in, file);
	int r = read_file(p, out, NULL);

	free(p);
	return r;
}

/* "[local] global counter" -> "local" */
static char *selected_word(const char *raw)
{
	const char *a = strchr(raw, '['), *b = a ? strchr(a, ']') : NULL;

	if (!a || !b)
		return str_rstrip(xstrdup(raw));
	return xasprintf("%.*s", (int)(b - a - 1), a + 1);
}

static const char *base_name(const char *file)
{
	const char *s = strrchr(file, '/');

	return s ? s + 1 : file;
}

/*
 * What a control file's contents mean, in the form tr writes it, so that a
 * read can be compared with the value about to be written.
 */
char *tfs_normalize(const char *file, const char *raw)
{
	const char *b = base_name(file);
	char *v;

	/*
	 * "local [global] ...", hwlat_detector/mode's "none [round-robin]
	 * per-cpu", timestamp_mode's "[delta] absolute".
	 */
	if (!strcmp(b, "trace_clock") || !strcmp(b, "mode") || !strcmp(b, "timestamp_mode"))
		return selected_word(raw);
	if (!strcmp(b, "buffer_size_kb") || !strcmp(b, "buffer_total_size_kb")) {
		/* "7 (expanded: 1408)": the size the buffer will have once used. */
		const char *e = strstr(raw, "expanded: ");

		if (e)
			return xasprintf("%llu", strtoull(e + 10, NULL, 10));
	}
	v = str_rstrip(xstrdup(raw));
	/* "0*": disabled, but soft-enabled by a trigger; the '*' is not ours to write. */
	if (!strcmp(b, "enable") && v[0] && v[1] == '*')
		v[1] = '\0';
	if ((!strcmp(b, "filter") && !strcmp(v, "none")) ||
	    /* set_ftrace_filter, set_graph_function: "#### all functions enabled ####" */
	    (!strncmp(b, "set_", 4) && strstr(v, "#### all functions enabled ####")) ||
	    (strstr(b, "_pid") && !strcmp(v, "no pid"))) {
		v[0] = '\0';
	} else if (!strcmp(b, "filter") && !strcmp(v, "0")) {
		v[0] = '\0';
	}
	/* Multi-line lists compare as one line of words. */
	for (char *c = v; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return v;
}

/* The log that explains a refused write to path: its instance's, else the top one. */
static char *errlog_for(const char *path)
{
	const char *inst = strstr(path, "/instances/");

	if (inst) {
		const char *end = strchr(inst + 11, '/');

		if (end) {
			char *p = xasprintf("%.*s/error_log", (int)(end - path), path);

			if (access(p, R_OK) == 0)
				return p;
			free(p);
		}
	}
	return xasprintf("%s/error_log", T.root);
}

/* The newest entry of error_log if it is not in before, without its timestamp. */
static void detail_from_errlog(const char *log, const char *before)
{
	char *now = NULL, *last = NULL, *p;

	if (!log || read_file(log, &now, NULL))
		return;
	if (!before || strcmp(now, before)) {
		for (p = now; (p = strchr(p, '[')); p++)
			if (p == now || p[-1] == '\n')
				last = p;
		if (last) {
			char *msg = strchr(last, ']');

			msg = msg ? msg + 1 : last;
			while (*msg == ' ')
				msg++;
			tr_detail_set("%s", str_rstrip(msg));
		}
	}
	free(now);
}

static int raw_write(const char *path, const char *value, bool append)
{
	int flags = O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
	int fd = open(path, flags);
	size_t len = strlen(value);
	int r = 0;

	if (fd < 0)
		return -errno;
	/*
	 * An empty value means "clear", which O_TRUNC already did.  Some files
	 * take one word per write (set_ftrace_filter returns after the first
	 * function name), so keep writing until all of it is taken.
	 */
	for (size_t done = 0; len && done < len && !r;) {
		ssize_t n = write(fd, value + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			r = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	if (close(fd) && !r)
		r = -errno;
	return r;
}

/* Write, and on refusal leave the kernel's reason in tr_detail(). */
static int logged_write(const char *path, const char *value, bool append)
{
	char *log = errlog_for(path), *before = NULL;
	int r;

	tr_detail_clear();
	read_file(log, &before, NULL);
	errno = 0;
	r = raw_write(path, value, append);
	if (r)
		detail_from_errlog(log, before);
	free(before);
	free(log);
	return r;
}

static void undo_push(enum undo_kind kind, const char *path, const char *value)
{
	if (T.nundo == T.capundo) {
		T.capundo = T.capundo ? T.capundo * 2 : 32;
		T.undo = xrealloc(T.undo, T.capundo * sizeof(*T.undo));
	}
	T.undo[T.nundo++] = (struct undo){ kind, xstrdup(path), value ? xstrdup(value) : NULL };
}

static bool saved(const char *path)
{
	for (size_t i = 0; i < T.nundo; i++)
		if (T.undo[i].kind == UNDO_SET && !strcmp(T.undo[i].path, path))
			return true;
	return false;
}

/*
 * A pid file that reads empty can still hold a list, emptied by the kernel
 * as its tasks exited (event-fork, function-fork): a list with no pid in it
 * filters out every task, silently -- only trace_marker's records still
 * come (seen on 6.18 after --follow -c).  Clearing the file (O_TRUNC) takes
 * the list away, so these are written even when they read as wanted.
 */
static bool pid_list(const char *path)
{
	const char *b = base_name(path);

	return !strcmp(b, "set_event_pid") || !strcmp(b, "set_event_notrace_pid") ||
	       !strcmp(b, "set_ftrace_pid") || !strcmp(b, "set_ftrace_notrace_pid");
}

static int set_path(const char *path, const char *value)
{
	char *raw = NULL, *cur, *want;
	int r = read_file(path, &raw, NULL);

	if (r)
		return r;
	cur = tfs_normalize(path, raw);
	want = tfs_normalize(path, value);
	if (!strcmp(cur, want)) {
		r = 0;
	} else {
		r = logged_write(path, value, false);
		if (!r && !saved(path))
			undo_push(UNDO_SET, path, cur);
		/* A refused filter stays in the file as an error report: put the old one back. */
		if (r && !strcmp(base_name(path), "filter"))
			raw_write(path, cur[0] ? cur : "0", false);
	}
	free(raw);
	free(cur);
	free(want);
	return r;
}

int tfs_set_path(const char *path, const char *value)
{
	return set_path(path, value);
}

int tfs_set(const struct tfs_inst *in, const char *file, const char *value)
{
	char *p = tfs_path(in, file);
	int r = set_path(p, value);

	free(p);
	return r;
}

int tfs_ensure(const struct tfs_inst *in, const char *file, const char *value)
{
	char *p = tfs_path(in, file), *raw = NULL, *cur, *want;
	int r = read_file(p, &raw, NULL);

	if (!r) {
		cur = tfs_normalize(p, raw);
		want = tfs_normalize(p, value);
		if (strcmp(cur, want) || pid_list(p))
			r = logged_write(p, value, false);
		free(cur);
		free(want);
		free(raw);
	}
	free(p);
	return r;
}

int tfs_write(const struct tfs_inst *in, const char *file, const char *value, bool append)
{
	char *p = tfs_path(in, file);
	int r = logged_write(p, value, append);

	free(p);
	return r;
}

int tfs_write_plain(const struct tfs_inst *in, const char *file, const char *value)
{
	char *p = tfs_path(in, file);
	int r = raw_write(p, value, false);

	free(p);
	return r;
}

int tfs_write_bytes(const struct tfs_inst *in, const char *file, const void *buf, size_t len)
{
	char *p = tfs_path(in, file), *log = errlog_for(p), *before = NULL;
	int fd, r = 0;
	ssize_t n;

	tr_detail_clear();
	read_file(log, &before, NULL);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
	} else {
		/* One write(): a marker is one record, never split. */
		do
			n = write(fd, buf, len);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			r = -errno;
		else if ((size_t)n != len)
			r = -EMSGSIZE;
		if (close(fd) && !r)
			r = -errno;
	}
	if (r)
		detail_from_errlog(log, before);
	free(before);
	free(log);
	free(p);
	return r;
}

int tfs_save(const struct tfs_inst *in, const char *file)
{
	char *p = tfs_path(in, file), *raw = NULL;
	int r = read_file(p, &raw, NULL);

	if (!r && !saved(p)) {
		char *cur = tfs_normalize(p, raw);

		undo_push(UNDO_SET, p, cur);
		free(cur);
	}
	free(raw);
	free(p);
	return r;
}

int tfs_append_undo(const struct tfs_inst *in, const char *file, const char *line,
		    const char *undo_line)
{
	char *p = tfs_path(in, file);
	int r;

	/*
	 * A hist trigger that uses timestamps switches the instance's
	 * trace_clock to its own clock (global by default) and nobody puts it
	 * back: remember it first, so it is restored after the trigger goes.
	 */
	if (!strcmp(base_name(file), "trigger") && !strncmp(line, "hist", 4))
		tfs_save(in, "trace_clock");
	r = logged_write(p, line, true);

	if (!r)
		undo_push(UNDO_APPEND, p, undo_line);
	free(p);
	return r;
}

void tfs_undo_note(const struct tfs_inst *in, const char *file, const char *undo_line)
{
	char *p = tfs_path(in, file);

	undo_push(UNDO_APPEND, p, undo_line);
	free(p);
}

static int inst_find(const char *name, struct tfs_inst **out)
{
	for (size_t i = 0; i < T.ninsts; i++)
		if (!strcmp(T.insts[i]->name, name)) {
			*out = T.insts[i];
			return 0;
		}
	return -ENOENT;
}

int tfs_inst_get(const char *name, bool create, struct tfs_inst **out)
{
	struct tfs_inst *in;
	char *dir;
	struct stat st;

	if (!name || !*name) {
		*out = &T.top;
		return 0;
	}
	if (!tfs_inst_valid_name(name)) {
		tr_detail_set("an instance name is one path component");
		return -EINVAL;
	}
	if (!inst_find(name, out))
		return 0;
	dir = xasprintf("%s/instances/%s", T.root, name);
	in = xcalloc(1, sizeof(*in));
	in->name = xstrdup(name);
	in->dir = dir;
	if (stat(dir, &st)) {
		char *tracing_on;

		if (!create || errno != ENOENT) {
			int err = errno;

			free(in->name);
			free(in->dir);
			free(in);
			return -err;
		}
		if (mkdir(dir, 0755)) {
			int err = errno;

			tr_detail_set("cannot create '%s': %s", dir, strerror(err));
			free(in->name);
			free(in->dir);
			free(in);
			return -err;
		}
		in->created = true;
		undo_push(UNDO_INSTANCE, dir, name);
		/* Off until the caller has finished configuring it. */
		tracing_on = xasprintf("%s/tracing_on", dir);
		raw_write(tracing_on, "0", false);
		free(tracing_on);
	}
	T.insts = xrealloc(T.insts, (T.ninsts + 1) * sizeof(*T.insts));
	T.insts[T.ninsts++] = in;
	*out = in;
	return 0;
}

static void inst_forget(const char *name)
{
	for (size_t i = 0; i < T.ninsts; i++)
		if (!strcmp(T.insts[i]->name, name)) {
			free(T.insts[i]->name);
			free(T.insts[i]->dir);
			free(T.insts[i]);
			T.insts[i] = T.insts[--T.ninsts];
			return;
		}
}

static void state_drop(const char *value, const char *under);

int tfs_inst_destroy(const char *name)
{
	char *dir;
	int r = 0;

	if (!tfs_inst_valid_name(name))
		return -EINVAL;
	dir = xasprintf("%s/instances/%s", T.root, name);
	if (rmdir(dir))
		r = -errno;
	/* It is gone now: forget any undo aimed inside it, here and in the kept notes. */
	for (size_t i = 0; !r && i < T.nundo; i++)
		if (!strncmp(T.undo[i].path, dir, strlen(dir)))
			T.undo[i].kind = UNDO_SET, T.undo[i].path[0] = '\0';
	if (!r)
		state_drop(NULL, dir);
	inst_forget(name);
	free(dir);
	return r;
}

/*
 * The names in directory p (freed here), dot entries left out, sorted, added
 * to names.  0, or -errno from opendir; a missing directory is 0 (nothing)
 * when missing_ok.
 */
static int list_names(char *p, bool missing_ok, struct strv *names)
{
	DIR *d = opendir(p);
	struct dirent *de;
	int r = d ? 0 : -errno;

	free(p);
	if (!d)
		return r == -ENOENT && missing_ok ? 0 : r;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			strv_push(names, de->d_name);
	closedir(d);
	strv_sort(names);
	return 0;
}

int tfs_inst_list(struct strv *names)
{
	return list_names(xasprintf("%s/instances", T.root), true, names);
}

/* Beside funcgraph-*: the options the kernel's printer reads (trace.c, trace_output.c). */
static const char *const text_opts[] = {
	"sym-offset", "sym-addr", "print-parent", "raw", "hex", "bin", "verbose", "context-info",
	"annotate", "latency-format", "fields", "record-tgid", "irq-info", "userstacktrace",
	"sym-userobj", "printk-msg-only", "trace_printk", NULL
};

static bool strv_has(const char *const *v, const char *s)
{
	for (; *v; v++)
		if (!strcmp(*v, s))
			return true;
	return false;
}

char *tfs_text_options(const struct tfs_inst *in)
{
	struct strv names = { 0 };
	char *out = NULL, *text = NULL, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	tfs_list_dir(in, "options", &names);
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		char *file, *val = NULL;

		if (strncmp(n, "funcgraph-", 10) && !strv_has(text_opts, n))
			continue;
		file = xasprintf("options/%s", n);
		if (!tfs_read(in, file, &val))
			fprintf(f, "%s%s\n", val[0] == '0' ? "no" : "", n);
		free(val);
		free(file);
	}
	/* The tracer heads the kernel's trace file ("# tracer: nop"). */
	if (!tfs_read(in, "current_tracer", &text)) {
		str_rstrip(text);
		fprintf(f, "tracer:%s\n", text);
	}
	free(text);
	text = NULL;
	/* Eprobes print the event they are on, which their formats do not say. */
	if (!tfs_read(NULL, "dynamic_events", &text))
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (!strncmp(l, "e:", 2))
				fprintf(f, "%s\n", l);
	free(text);
	fclose(f);
	strv_free(&names);
	return out;
}

int tfs_list_dir(const struct tfs_inst *in, const char *dir, struct strv *names)
{
	return list_names(tfs_path(in, dir), false, names);
}

const char *tfs_option_tracer(const char *opt)
{
	/* From the kernel's tracers' flag tables: options named for one tracer. */
	static const struct {
		const char *prefix, *tracer;
	} owners[] = {
		{ "func_stack_trace", "function" }, { "func-no-repeats", "function" },
		{ "funcgraph-", "function_graph" }, { "sleep-time", "function_graph" },
		{ "graph-time", "function_graph" }, { "display-graph", "irqsoff, wakeup..." },
		{ "blk_", "blk" }, { "test_nop_", "nop" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(owners); i++)
		if (!strncmp(opt, owners[i].prefix, strlen(owners[i].prefix)))
			return owners[i].tracer;
	return NULL;
}

/*
 * Undo newest first.  Settings of an instance that is about to be removed
 * are skipped: removing it takes them along.  Keeps going after a failure
 * so one stuck file does not strand the rest; returns the first error.
 */
/* Does the file read as value already (normalized as tfs_set() compares)? */
static bool unchanged(const char *path, const char *value)
{
	char *raw = NULL, *cur;
	bool same;

	if (pid_list(path) || read_file(path, &raw, NULL))
		return false;
	cur = tfs_normalize(path, raw);
	same = !strcmp(cur, value);
	free(cur);
	free(raw);
	return same;
}

/* Put one saved setting back; 0 or -errno.  Settings of doomed instances are skipped. */
static int restore_one(const struct undo *u)
{
	int r = 0;

	/*
	 * Settings inside an instance about to be removed go with it; but
	 * triggers are taken out one by one, since a synthetic event they
	 * refer to can only be removed after them.  Options too: a tracer's
	 * own (funcgraph-*, sleep-time, func_stack_trace) are the tracer's,
	 * shared by every instance, so the instance's file changed the top
	 * level's as well.
	 */
	if (u->kind == UNDO_SET && !strstr(u->path, "/options/")) {
		for (size_t j = 0; j < T.nundo; j++)
			if (T.undo[j].kind == UNDO_INSTANCE && T.undo[j].path[0] &&
			    !strncmp(u->path, T.undo[j].path, strlen(T.undo[j].path)))
				return 0;
	}
	switch (u->kind) {
	case UNDO_SET:
		/*
		 * Not a write of the value that is there already: writing
		 * trace_clock, even its current clock, empties the buffer (a
		 * hist trigger's clock= that matched it would lose the trace).
		 */
		if (unchanged(u->path, u->value))
			break;
		r = raw_write(u->path, (!strcmp(base_name(u->path), "filter") && !u->value[0])
						? "0" : u->value, false);
		break;
	case UNDO_APPEND:
		r = raw_write(u->path, u->value, true);
		break;
	case UNDO_INSTANCE:
		if (rmdir(u->path) && errno != ENOENT)
			r = -errno;
		inst_forget(u->value);
		break;
	}
	return r;
}

size_t tfs_undo_mark(void)
{
	return T.nundo;
}

int tfs_restore(void)
{
	return tfs_restore_to(0);
}

int tfs_restore_to(size_t mark)
{
	int first = 0;

	/*
	 * Newest first, in two passes: tracing_on goes back last, so that
	 * nothing tr enabled records into a buffer someone else reads after us.
	 */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = T.nundo; k-- > mark;) {
			struct undo *u = &T.undo[k];
			bool on = u->kind == UNDO_SET && !strcmp(base_name(u->path), "tracing_on");
			int r;

			if (!u->path[0] || on != (pass == 1))
				continue;
			r = restore_one(u);
			if (r && !first) {
				first = r;
				tr_detail_set("could not restore '%s': %s", u->path, strerror(-r));
			}
		}
	}
	for (size_t k = mark; k < T.nundo; k++) {
		free(T.undo[k].path);
		free(T.undo[k].value);
	}
	T.nundo = mark;
	return first;
}

char *tfs_state_path(void)
{
	const char *dir = getenv("TR_STATE_DIR");

	return xasprintf("%s/state", dir && *dir ? dir : "/run/tr");
}

/* Values go on one line each; newlines inside them are escaped. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else
			fputc(*s, f);
	}
}

/* The undo table as state file lines, oldest first. */
static void put_undo(FILE *f)
{
	static const char *const kinds[] = { "set", "append", "instance" };

	for (size_t k = 0; k < T.nundo; k++) {
		if (!T.undo[k].path[0])
			continue;
		fprintf(f, "%s\t", kinds[T.undo[k].kind]);
		put_escaped(f, T.undo[k].path);
		fputc('\t', f);
		put_escaped(f, T.undo[k].value ? T.undo[k].value : "");
		fputc('\n', f);
	}
}

/*
 * The state file accumulates across tr start runs: the first saved value of
 * a file is the one before tr touched it, so it is never overwritten.
 */
int tfs_keep(void)
{
	char *path = tfs_state_path(), *dir = xstrdup(path);
	FILE *f;
	int r = 0;

	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0700);
	f = fopen(path, "ae");
	if (!f) {
		r = -errno;
		tr_detail_set("cannot write state file '%s': %s", path, strerror(errno));
	} else {
		put_undo(f);
		if (fclose(f))
			r = -errno;
	}
	for (size_t k = 0; k < T.nundo; k++) {
		free(T.undo[k].path);
		free(T.undo[k].value);
	}
	T.nundo = 0;
	free(path);
	free(dir);
	return r;
}

int tfs_journal(const char *path)
{
	char *tmp = xasprintf("%s.new", path);
	FILE *f = fopen(tmp, "we");
	int r = 0;

	if (!f) {
		r = -errno;
	} else {
		put_undo(f);
		if (fclose(f))
			r = -errno;
		if (!r && rename(tmp, path))
			r = -errno;
	}
	if (r)
		unlink(tmp);
	free(tmp);
	return r;
}

int tfs_state_adopt(const char *path)
{
	char *state = tfs_state_path(), *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r = read_file(path, &buf, &len);

	if (!r) {
		f = fopen(state, "ae");
		if (!f || fwrite(buf, 1, len, f) != len)
			r = -errno;
		if (f && fclose(f) && !r)
			r = -errno;
	}
	if (!r)
		unlink(path);
	free(buf);
	free(state);
	return r;
}

int tfs_events(const struct tfs_inst *in, struct strv *out)
{
	char *buf, *line, *save = NULL;
	/* Instances share the top level's events and have no list of their own. */
	int r = tfs_read(in, "available_events", &buf);

	if (r == -ENOENT && in && in != &T.top)
		r = tfs_read(NULL, "available_events", &buf);
	if (r)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		strv_push(out, line);
	free(buf);
	strv_sort(out);
	return 0;
}

static char *unescape(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

/*
 * /sys/class/block/DEV/trace/enable or act_mask (tr start -p blk --blk-dev).
 * The prefix is checked before anything past it is read: a line of the
 * state file may be shorter.
 */
static bool blk_trace_file(const char *file)
{
	const char *dev, *slash;

	if (strncmp(file, "/sys/class/block/", 17))
		return false;
	dev = file + 17;
	slash = strchr(dev, '/');
	return slash && slash > dev && *dev != '.' &&
	       (!strcmp(slash, "/trace/enable") || !strcmp(slash, "/trace/act_mask"));
}

/*
 * Undo what earlier tr start runs kept, as recorded in the state file, newest
 * first, then remove the file.  Things already gone (an instance the user
 * removed, a trigger cleared by hand) are not errors.
 */

int tfs_state_undo(const char *prefix)
{
	return tfs_state_undo_keep(prefix, NULL, NULL);
}

int tfs_state_undo_keep(const char *prefix,
			bool (*stays)(const char *kind, const char *file, const char *value, void *arg),
			void *arg)
{
	char *path = tfs_state_path(), *buf = NULL, *line, *save = NULL;
	struct strv lines = { 0 }, keep = { 0 };
	int r = read_file(path, &buf, NULL), first = 0;
	size_t mark = T.nundo;

	if (r) {
		free(path);
		return r == -ENOENT ? 0 : r;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		strv_push(&lines, line);
	for (size_t k = lines.n; k-- > 0;) {
		char *kind = lines.v[k], *p = strchr(kind, '\t'), *v, *file, *value;

		if (!p)
			continue;
		v = strchr(p + 1, '\t');
		if (!v)
			continue;
		file = xasprintf("%.*s", (int)(v - p - 1), p + 1);
		size_t plen = prefix ? strlen(prefix) : 0;

		if (prefix && (strncmp(file, prefix, plen) || (file[plen] && file[plen] != '/'))) {
			/* Someone else's: stays noted for a later reset. */
			strv_push(&keep, lines.v[k]);
			free(file);
			continue;
		}
		free(file);
		/* Whole, before the split: what stays() keeps is noted again as it was. */
		char *orig = stays ? xstrdup(lines.v[k]) : NULL;

		*p++ = '\0';
		*v++ = '\0';
		file = unescape(p);
		value = unescape(v);
		if (orig && stays(kind, file, value, arg)) {
			strv_push(&keep, orig);
			free(orig);
			free(file);
			free(value);
			continue;
		}
		free(orig);
		/*
		 * Only tracefs, the tracing sysctls and the block devices' blk
		 * tracing switches: the file is ours, but be strict.
		 */
		if (!strncmp(file, T.root, strlen(T.root)) || !strncmp(file, "/proc/sys/kernel/", 17) ||
		    blk_trace_file(file)) {
			if (!strcmp(kind, "set"))
				r = set_path(file, value);
			else if (!strcmp(kind, "append"))
				r = raw_write(file, value, true);
			else if (!strcmp(kind, "instance"))
				r = rmdir(file) ? -errno : 0;
			if (r == -ENOENT || r == -EINVAL)
				r = 0;
			if (r && !first) {
				first = r;
				tr_detail_set("could not undo '%s': %s", file, strerror(-r));
			}
		}
		free(file);
		free(value);
	}
	/* set_path() recorded undo entries; reset means keep what we wrote. */
	for (size_t k = mark; k < T.nundo; k++) {
		free(T.undo[k].path);
		free(T.undo[k].value);
	}
	T.nundo = mark;
	strv_free(&lines);
	free(buf);
	if (keep.n) {
		FILE *f = fopen(path, "we");

		/* keep holds them newest first; the file lists them oldest first. */
		for (size_t k = keep.n; f && k-- > 0;)
			fprintf(f, "%s\n", keep.v[k]);
		if (f)
			fclose(f);
	} else {
		unlink(path);
	}
	strv_free(&keep);
	free(path);
	return first;
}

bool tfs_state_has(const char *value)
{
	char *path = tfs_state_path(), *buf = NULL, *line, *save = NULL;
	bool found = false;

	if (!read_file(path, &buf, NULL)) {
		for (line = strtok_r(buf, "\n", &save); line && !found;
		     line = strtok_r(NULL, "\n", &save)) {
			char *v = strrchr(line, '\t');

			found = v && !strcmp(v + 1, value);
		}
		free(buf);
	}
	free(path);
	return found;
}

/*
 * Drop the kept notes whose undo value is value, or (value NULL) whose path
 * lies under under: "KIND\tPATH\tVALUE" lines.
 */
static void state_drop(const char *value, const char *under)
{
	char *path = tfs_state_path(), *buf = NULL, *line, *save = NULL;
	struct strv keep = { 0 };
	bool dropped = false;

	if (read_file(path, &buf, NULL)) {
		free(path);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v = strrchr(line, '\t'), *p = strchr(line, '\t');
		bool drop = value ? v && !strcmp(v + 1, value)
				  : p && !strncmp(p + 1, under, strlen(under)) &&
					    (p[1 + strlen(under)] == '/' || p[1 + strlen(under)] == '\t');

		if (drop)
			dropped = true;
		else
			strv_push(&keep, line);
	}
	if (dropped) {
		FILE *f = keep.n ? fopen(path, "we") : NULL;

		for (size_t k = 0; f && k < keep.n; k++)
			fprintf(f, "%s\n", keep.v[k]);
		if (f)
			fclose(f);
		else if (!keep.n)
			unlink(path);
	}
	strv_free(&keep);
	free(buf);
	free(path);
}

void tfs_state_forget(const char *value)
{
	state_drop(value, NULL);
}

static void subdirs(const char *dir, struct strv *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && de->d_type == DT_DIR)
			strv_push(out, de->d_name);
	if (d)
		closedir(d);
	strv_sort(out);
}

int tfs_each_event_file(const struct tfs_inst *in, const char *file,
			int (*fn)(const char *system, const char *event, char *content, void *ctx),
			void *ctx)
{
	char *evdir = tfs_path(in, "events");
	struct strv systems = { 0 };
	int r = 0;

	subdirs(evdir, &systems);
	for (size_t s = 0; s < systems.n && !r; s++) {
		char *sdir = xasprintf("%s/%s", evdir, systems.v[s]);
		struct strv events = { 0 };

		subdirs(sdir, &events);
		for (size_t e = 0; e < events.n && !r; e++) {
			char *path = xasprintf("%s/%s/%s", sdir, events.v[e], file), *raw = NULL;

			if (!read_file(path, &raw, NULL))
				r = fn(systems.v[s], events.v[e], raw, ctx);
			free(raw);
			free(path);
		}
		strv_free(&events);
		free(sdir);
	}
	strv_free(&systems);
	free(evdir);
	return r;
}
