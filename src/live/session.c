// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One live tracing session (see session.h): readers, the command, the
 * tracing_on sequence and the wait, shared by record, stream, hist and top.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live-local.h"
#include "parse.h"
#include "tfile.h"
#include "session.h"
#include "setup.h"
#include "tfw.h"

/* How long an ended command gets to exit after the forwarded signal. */
#define SESSION_END_GRACE_MS 2000

/* One of opts.more: its readers, its stats from before and its lock. */
struct session_more {
	struct rec *rec;
	struct rec_kstats *before;
	int lock_fd;
	char *lock_path;
};

struct session {
	struct session_opts o;
	const struct session_tool *t;	/* its hooks (never NULL) */
	void *targ;
	struct session_more *more;	/* o.nmore entries */
	struct rec *rec;
	struct rec_kstats *before;
	struct tfile_clocks clocks;	/* the clock pairing's start (valid when read) */
	pid_t child;
	/*
	 * With o.child_map: the seized processes, the command first and then
	 * each process a seized one forks (the kernel attaches them), until
	 * their exit; and the maps read as each exited (or as the session
	 * ended), one a pid, the latest kept.
	 */
	pid_t *tracees;
	size_t ntracees;
	struct tfile_procmap *maps;
	size_t nmaps;
	struct sigaction old_chld;
	bool chld_set;
	int go_fd;		/* writing one byte lets the command exec */
	int status;		/* wait status once reaped, -1 before */
	int lock_fd;
	char *lock_path;	/* unlinked at the end, while still locked */
	char *journal;		/* the undo table beside the lock (tfs_journal()), or NULL */
	int free_fd;		/* free_buffer, held open: see hold_free_buffer() */
	enum session_end end;
	char *own_filter;	/* session_own_filter() */
	uint64_t t0;
	bool cleared;		/* the buffer was found empty, as clearing leaves it */
	bool ran;		/* readers ran and were stopped: clear what they left */
};

uint64_t tr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

bool session_runnable(const char *argv0)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool ok = false;

	if (strchr(argv0, '/'))
		return access(argv0, X_OK) == 0;
	copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !ok; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", argv0);

		ok = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return ok;
}

/*
 * Fork argv held on a pipe: it execs when a byte arrives on *go_fd, and
 * exits unstarted (127) when *go_fd is closed.  Returns the pid or -errno.
 */
static pid_t spawn_held(char **argv, int *go_fd, const struct session_opts *o)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		char c;

		close(p[1]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		close(p[0]);
		/* Groups first: once the uid is not root, they cannot change. */
		if (o->run_user && (initgroups(o->run_user, o->run_gid) || setgid(o->run_gid) ||
				    setuid(o->run_uid))) {
			fprintf(stderr, "tr: cannot run '%s' as '%s': %s\n", argv[0], o->run_user,
				strerror(errno));
			_exit(127);
		}
		execvp(argv[0], argv);
		/* The child has no tr_error() of its own to go through. */
		fprintf(stderr, "tr: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

/*
 * Two live sessions on one buffer would read each other's events and undo
 * each other's settings: the second one is refused.  The lock lives beside
 * the state file ($TR_STATE_DIR, default /run/tr), holds the owner's pid and
 * goes when the session ends (tr top's instances have a new name each time).
 */
static int take_lock(const struct tfs_inst *in, int *lock_fd, char **lock_path)
{
	const char *dir = getenv("TR_STATE_DIR");
	const char *name = in && in->name ? in->name : NULL;
	char *path, pid[32];
	struct stat a, b;
	int fd, tries = 0;

	if (!dir || !*dir)
		dir = "/run/tr";
	mkdir(dir, 0755);
	path = xasprintf("%s/session%s%s.lock", dir, name ? "-" : "", name ? name : "");
again:
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(path);
		return 0;	/* nowhere to keep a lock (read-only /run): go on unguarded */
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

		pid[n > 0 ? n : 0] = '\0';
		close(fd);
		free(path);
		if (name)
			return tr_fail(-EBUSY, "instance '%s' is in use by another tr session "
					       "(pid %s)", name, *pid ? str_rstrip(pid) : "?");
		return tr_fail(-EBUSY, "the top-level buffer is in use by another tr session "
				       "(pid %s): use -B NAME to trace in an instance of your own",
			       *pid ? str_rstrip(pid) : "?");
	}
	if (fstat(fd, &a) || stat(path, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		/*
		 * The session before unlinked this file as it ended, after we
		 * opened it: the lock that counts is on the file now at path.
		 */
		close(fd);
		if (++tries < 10)
			goto again;
		free(path);
		return tr_fail(-EBUSY, "cannot take the session lock in %s", dir);
	}
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, strlen(pid), 0) < 0) {
		/* Only the message of a refused second session would lack the pid. */
	}
	*lock_fd = fd;
	*lock_path = path;
	return 0;
}

static void drop_lock(int fd, char *path)
{
	/* One file per instance name would pile up in /run/tr: gone with the session. */
	if (fd >= 0) {
		if (path)
			unlink(path);
		close(fd);
	}
	free(path);
}

/*
 * The journal: what the session changed, as tr reset undoes it, kept up to
 * date beside the lock so that a tr killed mid-session can be cleaned up
 * after (session_orphans()).  A failure only costs that.
 */
static void journal(struct session *s)
{
	if (s->journal && tfs_journal(s->journal))
		tr_warn("cannot write '%s': a crash would leave tracing set up", s->journal);
}

int session_orphans(bool adopt, struct strv *dead)
{
	const char *dir = getenv("TR_STATE_DIR");
	DIR *d;
	struct dirent *de;
	int first = 0;

	if (!dir || !*dir)
		dir = "/run/tr";
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *lock, *jpath, pid[32] = "";
		int fd;
		ssize_t got;

		if (strncmp(de->d_name, "session", 7) || n < 12 ||
		    strcmp(de->d_name + n - 5, ".lock"))
			continue;
		lock = xasprintf("%s/%s", dir, de->d_name);
		jpath = xasprintf("%s/%.*s.undo", dir, (int)(n - 5), de->d_name);
		fd = open(lock, O_RDWR | O_CLOEXEC);
		/* A lock no one holds, with a journal: its tr died mid-session. */
		if (fd >= 0 && !access(jpath, F_OK) && !flock(fd, LOCK_EX | LOCK_NB)) {
			const char *name = de->d_name[7] == '-' ? de->d_name + 8 : NULL;
			int r = 0;

			got = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[got > 0 ? got : 0] = '\0';
			if (name)
				strv_push_owned(dead, xasprintf("pid %s, instance '%.*s'",
								 *pid ? str_rstrip(pid) : "?",
								 (int)(strlen(name) - 5), name));
			else
				strv_push_owned(dead, xasprintf("pid %s, the top-level buffer",
								 *pid ? str_rstrip(pid) : "?"));
			if (adopt && !(r = tfs_state_adopt(jpath)))
				unlink(lock);
			if (r && !first)
				first = tr_fail(r, "cannot take over '%s': %s", jpath, strerror(-r));
		}
		if (fd >= 0)
			close(fd);
		free(lock);
		free(jpath);
	}
	if (d)
		closedir(d);
	return first;
}

/*
 * The kernel's own guard for a tracer that dies: while free_buffer is open
 * the buffer is the tracer's; when it is closed, by the tracer or by its
 * death for any reason, the kernel shrinks the buffer to nothing and, with
 * the disable_on_free option, turns tracing off (Documentation/trace/
 * ftrace.rst).  The size is saved first so a clean end puts it back (the
 * descriptor is closed in session_free(), before tr restores tracefs).
 * Kernels without the option still free the buffer.
 */
static void hold_free_buffer(struct session *s)
{
	char *path, *size = NULL;
	bool one_size;

	/*
	 * Not with -k (the recording is to go on after tr ends, and closing
	 * free_buffer would stop it), and not when the CPUs' buffers differ
	 * in size (buffer_size_kb reads "X": the kernel's freeing would lose
	 * sizes tr could not write back as one value).
	 */
	if (s->o.keep_at_end || !tfs_exists(s->o.inst, "free_buffer") ||
	    tfs_read(s->o.inst, "buffer_size_kb", &size))
		return;
	one_size = size[strspn(size, "0123456789")] == '\n' ||
		   !size[strspn(size, "0123456789")];
	free(size);
	if (!one_size || tfs_save(s->o.inst, "buffer_size_kb"))
		return;
	if (tfs_exists(s->o.inst, "options/disable_on_free") &&
	    tfs_set(s->o.inst, "options/disable_on_free", "1"))
		return;
	path = tfs_path(s->o.inst, "free_buffer");
	s->free_fd = open(path, O_WRONLY | O_CLOEXEC);
	free(path);
}

/* Is a tracer other than nop selected in the instance? */
static bool tracer_set(const struct tfs_inst *in)
{
	char *t = NULL;
	bool set = !tfs_read(in, "current_tracer", &t) && strcmp(str_rstrip(t), "nop");

	free(t);
	return set;
}

char *session_pid_filter(const pid_t *pids, size_t n)
{
	char *f = NULL;

	for (size_t i = 0; i < n; i++) {
		char *t = xasprintf("%s%scommon_pid != %d", f ? f : "", f ? " && " : "",
				    (int)pids[i]);

		free(f);
		f = t;
	}
	return f;
}

static bool is_ftrace_sel(const struct evsel *e)
{
	return e->system && !strcmp(e->system, "ftrace");
}

/* own_filter with "common_pid" read as another field ("next_pid", "pid"). */
static char *own_on(const char *own_filter, const char *field)
{
	char *f = xstrdup(""), *t;
	const char *p = own_filter, *q;

	while ((q = strstr(p, "common_pid"))) {
		t = xasprintf("%s%.*s%s", f, (int)(q - p), p, field);
		free(f);
		f = t;
		p = q + strlen("common_pid");
	}
	t = xasprintf("%s%s", f, p);
	free(f);
	return t;
}

/* Does selector e, without a filter of its own, take in sched:NAME? */
static bool takes_sched(const struct evsel *e, const char *name)
{
	if (e->filter || e->user)
		return false;
	if (e->bare)
		return !fnmatch(e->spec, "sched", 0) || !fnmatch(e->spec, name, 0);
	return (!e->system || !fnmatch(e->system, "sched", 0)) &&
	       (!e->event || !fnmatch(e->event, name, 0));
}

/*
 * tr's own pids filtered out of a switch or a wake-up by the task it is
 * done by (common_pid) would take the switches from tr's readers to other
 * tasks, and their wake-ups, with them: those tasks would seem to run
 * from nowhere (report --profile counted a spinner's run time short by a
 * third under load).  These keep every switch or wake-up that has another
 * task on its other side, as the kernel's set_event_notrace_pid does.
 */
static void add_sched_filters(const struct evsel_list *in, const char *own_filter,
			      struct evsel_list *out)
{
	static const struct {
		const char *name, *field;
	} ev[] = { { "sched_switch", "next_pid" }, { "sched_wakeup", "pid" },
		   { "sched_waking", "pid" }, { "sched_wakeup_new", "pid" } };

	for (size_t k = 0; k < ARRAY_SIZE(ev); k++) {
		bool taken = false;

		for (size_t i = 0; i < in->n && !taken; i++)
			taken = takes_sched(&in->v[i], ev[k].name);
		if (taken) {
			char *other = own_on(own_filter, ev[k].field),
			     *spec = xasprintf("sched:%s", ev[k].name),
			     *f = xasprintf("(%s) || (%s)", own_filter, other);

			/* After the selector that took it in: its filter is the last written. */
			evsel_add(out, spec);
			evsel_add_filter(out, f);
			free(other);
			free(spec);
			free(f);
		}
	}
}

int session_events_to_enable(const struct evsel_list *in, const char *own_filter,
			     struct evsel_list *out)
{
	for (size_t i = 0; i < in->n; i++) {
		const struct evsel *e = &in->v[i];

		if (is_ftrace_sel(e)) {
			char *fmt;

			if (e->filter)
				return tr_fail(-EINVAL, "'%s' takes no filter: ftrace events "
							"cannot be filtered", e->spec);
			fmt = xasprintf("events/ftrace/%s/format", e->event ? e->event : "print");
			if (e->event && !has_glob(e->event) && !tfs_exists(NULL, fmt)) {
				free(fmt);
				return tr_fail(-ENOENT, "no such event '%s'", e->spec);
			}
			free(fmt);
			continue;
		}
		evsel_add(out, e->spec);
		/* -f '' clears the event's filter: tr's own clauses alone then, if any. */
		if (e->filter && !*e->filter && own_filter) {
			evsel_add_filter(out, own_filter);
		} else if (e->filter && own_filter) {
			char *f = xasprintf("(%s) && %s", e->filter, own_filter);

			evsel_add_filter(out, f);
			out->v[out->n - 1].user_filter = xstrdup(e->filter);
			free(f);
		} else if (e->filter || own_filter) {
			evsel_add_filter(out, e->filter ? e->filter : own_filter);
		}
	}
	if (own_filter)
		add_sched_filters(in, own_filter, out);
	return 0;
}

/*
 * The set-up's tracer, clock, options, buffer and pids: before the readers
 * open, since the kernel refuses to change current_tracer while
 * trace_pipe_raw files are open (EBUSY).
 */
static int apply_setup(struct tfs_inst *in, const struct tr_setup *su)
{
	struct tr_setup setup;

	if (!su)
		return 0;
	setup = *su;
	setup.events = NULL;
	setup.triggers = (struct strv){ 0 };
	return setup_apply(in, &setup);
}

/* One buffer's events (with the session's own filter), --follow and triggers. */
static int apply_buffer_events(struct session *s, struct tfs_inst *in,
			       const struct tr_setup *su, const struct evsel_list *events)
{
	int r = 0;

	if (events) {
		struct evsel_list enable = { 0 };

		r = session_events_to_enable(events, s->own_filter, &enable);
		if (!r)
			r = setup_events(in, &enable);
		evsel_list_free(&enable);
	}
	if (!r && s->o.follow && s->child > 0)
		r = setup_follow(in, s->child, su && su->children, su ? su->tracer : NULL);
	if (!r && su && su->triggers.n)
		r = setup_apply(in, &(struct tr_setup){ .triggers = su->triggers });
	return r;
}

/*
 * Once the readers and the command exist: the events with tr's own pids
 * filtered out, --follow, the set-up's triggers, and a max-latency
 * tracer's maximum back to 0.
 */
static int apply_events(struct session *s)
{
	const struct tr_setup *su = s->o.setup;
	bool scoped = s->o.follow || (su && su->pids.n);
	int r = 0;

	if (!s->o.no_filter && !scoped && !s->o.passive) {
		pid_t own[1024];

		s->own_filter = session_pid_filter(own, session_own_pids(s, own, ARRAY_SIZE(own)));
	}
	r = apply_buffer_events(s, s->o.inst, su, s->o.events);
	for (size_t i = 0; !r && i < s->o.nmore; i++)
		r = apply_buffer_events(s, s->o.more[i].inst, s->o.more[i].setup,
					s->o.more[i].events);
	if (!r && su)
		r = setup_max_latency_reset(s->o.inst, su->tracer);
	return r;
}

/* SIGCHLD (a tracee stopped) ends the wait's poll early: a fork waits for tr. */
static void on_chld(int sig)
{
	(void)sig;
}

int session_open_tool(const struct session_opts *o, const struct session_tool *t, void *arg,
		      struct session **out)
{
	struct session *s = xcalloc(1, sizeof(*s));
	int r;

	*out = s;
	s->o = *o;
	s->t = t;
	s->targ = arg;
	s->o.rec.inst = o->inst;
	if (o->sink) {
		s->o.rec.fn = session_sink_pages;
		s->o.rec.arg = o->sink;
	}
	s->go_fd = -1;
	s->lock_fd = -1;
	s->free_fd = -1;
	s->status = -1;
	if (o->passive) {
		s->o.no_readers = true;
		s->o.keep_buffer = true;
	}
	if (s->o.no_readers)
		s->o.nmore = 0;
	s->more = xcalloc(s->o.nmore ? s->o.nmore : 1, sizeof(*s->more));
	for (size_t i = 0; i < s->o.nmore; i++)
		s->more[i].lock_fd = -1;
	/* Before anything is touched: nothing to undo for a typo. */
	if (o->command && !session_runnable(o->command[0]))
		return tr_fail(-ENOENT, "cannot run '%s': command not found", o->command[0]);
	tr_phase("session open");
	r = o->passive ? 0 : take_lock(o->inst, &s->lock_fd, &s->lock_path);
	if (!r && s->lock_path)
		s->journal = xasprintf("%.*s.undo",
				       (int)(strlen(s->lock_path) - strlen(".lock")), s->lock_path);
	for (size_t i = 0; !r && i < s->o.nmore; i++)
		r = take_lock(s->o.more[i].inst, &s->more[i].lock_fd, &s->more[i].lock_path);
	if (!r)
		r = apply_setup(o->inst, o->setup);
	for (size_t i = 0; !r && i < s->o.nmore; i++)
		r = apply_setup(s->o.more[i].inst, s->o.more[i].setup);
	tr_phase("set-up applied");
	/*
	 * Tracing stays off while the caller sets up (rtla creates its
	 * instances that way): nothing half-configured is recorded, and
	 * tracing_on=1 means the session has started.  Not under a tracer
	 * (current_tracer is set before the readers open): seen on 6.12,
	 * function_graph with set_graph_function records calls outside the
	 * graph function at depth 0 after the ring buffer was off while one
	 * of them ran, so there tracing is left as it is, as before.
	 */
	if (!r && !o->passive && !tracer_set(o->inst) &&
	    (r = tfs_set(o->inst, "tracing_on", "0")))
		tr_fail(r, "cannot turn tracing off: %s", strerror(-r));
	for (size_t i = 0; !r && i < s->o.nmore; i++) {
		struct tfs_inst *in = s->o.more[i].inst;

		if (!tracer_set(in) && (r = tfs_set(in, "tracing_on", "0")))
			tr_fail(r, "cannot turn tracing off in '%s': %s", in->name, strerror(-r));
	}
	if (!r && !o->passive)
		hold_free_buffer(s);
	if (!r && !s->o.no_readers)
		r = rec_open(&s->o.rec, &s->rec);
	for (size_t i = 0; !r && i < s->o.nmore; i++) {
		struct rec_opts ro = s->o.rec;

		ro.inst = s->o.more[i].inst;
		/* The spool holds the first buffer's CPUs (cpuN.raw): the others' in temp files. */
		ro.spool = NULL;
		ro.flush_ms = 0;
		r = rec_open(&ro, &s->more[i].rec);
	}
	if (r)
		return r;
	if (o->sink && s->rec)
		o->sink->layout = rec_layout(s->rec);
	tr_phase("readers open");
	if (o->command) {
		s->child = spawn_held(o->command, &s->go_fd, o);
		if (s->child < 0) {
			r = (int)s->child;
			s->child = 0;
			return tr_fail(r, "cannot start '%s': %s", o->command[0], strerror(-r));
		}
		/*
		 * Seized while it waits to exec: a stop only at its exit, at
		 * signals and at forks, whose children are seized the same way.
		 */
		if (o->child_map) {
			long opts = PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;

			if (ptrace(PTRACE_SEIZE, s->child, NULL, (void *)opts)) {
				tr_warn("cannot keep the memory map of '%s' (ptrace): %s: its user "
					"stacks will not name objects", o->command[0], strerror(errno));
			} else {
				struct sigaction sa = { .sa_handler = on_chld, .sa_flags = SA_RESTART };

				s->tracees = xmalloc(sizeof(*s->tracees));
				s->tracees[s->ntracees++] = s->child;
				s->chld_set = !sigaction(SIGCHLD, &sa, &s->old_chld);
			}
		}
	}
	r = apply_events(s);
	journal(s);
	tr_phase("events enabled");
	return r;
}

struct rec *session_rec(struct session *s)
{
	return s->rec;
}

pid_t session_child(const struct session *s)
{
	return s->child;
}

const pid_t *session_tracees(const struct session *s, size_t *n)
{
	*n = s->ntracees;
	return s->tracees;
}

const struct tfile_procmap *session_maps(const struct session *s, size_t *n)
{
	*n = s->nmaps;
	return s->maps;
}

const char *session_own_filter(const struct session *s)
{
	return s->own_filter;
}

size_t session_own_pids(const struct session *s, pid_t *pids, size_t max)
{
	size_t n = 0;

	if (max)
		pids[n++] = getpid();
	if (s->rec)
		n += rec_tids(s->rec, pids + n, max - n);
	for (size_t i = 0; i < s->o.nown_tids && n < max; i++)
		pids[n++] = s->o.own_tids[i];
	for (size_t i = 0; i < s->o.nmore; i++)
		if (s->more[i].rec)
			n += rec_tids(s->more[i].rec, pids + n, max - n);
	return n;
}

enum session_end session_end(const struct session *s)
{
	return s->end;
}

const struct rec_kstats *session_stats_before(const struct session *s)
{
	return s->before;
}

struct rec *session_more_rec(struct session *s, size_t i)
{
	return i < s->o.nmore ? s->more[i].rec : NULL;
}

const struct rec_kstats *session_more_stats_before(const struct session *s, size_t i)
{
	return i < s->o.nmore ? s->more[i].before : NULL;
}

const struct tfile_clocks *session_clocks(const struct session *s)
{
	return &s->clocks;
}

int session_child_status(const struct session *s)
{
	return s->status;
}

uint64_t session_elapsed_ns(const struct session *s)
{
	return s->t0 ? tr_now_ns() - s->t0 : 0;
}

/* Keep m as pid's map (the latest one read wins), and tell the caller. */
static void keep_map(struct session *s, struct tfile_procmap *m)
{
	size_t i;

	for (i = 0; i < s->nmaps && s->maps[i].pid != m->pid; i++)
		;
	if (i == s->nmaps)
		s->maps = xrealloc(s->maps, ++s->nmaps * sizeof(*s->maps));
	else
		tfile_procmap_free(&s->maps[i]);
	s->maps[i] = *m;
	if (s->t->on_map)
		s->t->on_map(s->targ, &s->maps[i]);
}

static void drop_tracee(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->ntracees; i++)
		if (s->tracees[i] == pid) {
			s->tracees[i] = s->tracees[--s->ntracees];
			return;
		}
}

/*
 * Seized process pid stopped: at its exit, its memory map is still there
 * to read (the kernel reports the exit before it lets the memory go), and
 * it is let go; a fork adds the new process (attached by the kernel, as
 * the fork options ask) to the tracees; a signal is passed on; a stop by a
 * stopping signal stays a stop (PTRACE_LISTEN) until it is continued.
 */
static void traced_stop(struct session *s, pid_t pid, int st)
{
	int ev = (unsigned)st >> 16, sig = WSTOPSIG(st);
	struct tfile_procmap m;
	unsigned long msg;

	if (ev == PTRACE_EVENT_EXIT) {
		if (!tfw_procmap_read(pid, &m))
			keep_map(s, &m);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		drop_tracee(s, pid);
	} else if (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
		if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg) && msg) {
			s->tracees = xrealloc(s->tracees, (s->ntracees + 1) * sizeof(*s->tracees));
			s->tracees[s->ntracees++] = (pid_t)msg;
		}
		ptrace(PTRACE_CONT, pid, NULL, NULL);
	} else if (ev == PTRACE_EVENT_STOP) {
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			ptrace(PTRACE_LISTEN, pid, NULL, NULL);
		else
			ptrace(PTRACE_CONT, pid, NULL, NULL);
	} else if (ev) {
		ptrace(PTRACE_CONT, pid, NULL, NULL);
	} else {
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
}

/*
 * The command's descendants under ptrace (not the command itself: reap()
 * waits for it): each stop handled, each one gone dropped.  The command
 * waits for them, so this runs as often as the command's own wait.
 */
static void follow_tracees(struct session *s)
{
	for (size_t i = 0; i < s->ntracees;) {
		pid_t pid = s->tracees[i];
		int st;
		pid_t w;

		if (pid == s->child) {
			i++;
			continue;
		}
		w = waitpid(pid, &st, WNOHANG | __WALL);
		if (w == pid && WIFSTOPPED(st)) {
			traced_stop(s, pid, st);
			/* Gone from the list: the last one took its place. */
			if (i < s->ntracees && s->tracees[i] == pid)
				i++;
			continue;
		}
		if (w == pid || (w < 0 && errno == ECHILD))
			drop_tracee(s, pid);	/* gone without an exit stop (SIGKILL) */
		else
			i++;
	}
}

/*
 * The session ends: each descendant still seized is stopped, its map read
 * while it lives, and let go; one that does not stop within a second is
 * left to the kernel, which lets it go when tr exits.
 */
static void release_tracees(struct session *s)
{
	follow_tracees(s);
	for (size_t i = 0; i < s->ntracees;) {
		pid_t pid = s->tracees[i];
		struct tfile_procmap m;
		int st = 0, sig = 0;
		pid_t w = 0;

		if (pid == s->child) {
			i++;
			continue;
		}
		ptrace(PTRACE_INTERRUPT, pid, NULL, NULL);
		for (int t = 0; t < 100 && !(w = waitpid(pid, &st, WNOHANG | __WALL)); t++)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		if (w == pid && WIFSTOPPED(st)) {
			int ev = (unsigned)st >> 16;
			unsigned long msg;

			/* Stopped at a fork instead: the child, attached, is let go in turn. */
			if ((ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) &&
			    !ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg) && msg) {
				s->tracees = xrealloc(s->tracees,
						      (s->ntracees + 1) * sizeof(*s->tracees));
				s->tracees[s->ntracees++] = (pid_t)msg;
			}
			if (!tfw_procmap_read(pid, &m))
				keep_map(s, &m);
			/* A signal it stopped for is passed on as it goes. */
			if (!ev)
				sig = WSTOPSIG(st);
			ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)sig);
		}
		drop_tracee(s, pid);
	}
}

static bool reap(struct session *s, int flags)
{
	int st;

	for (;;) {
		follow_tracees(s);
		if (s->child <= 0)
			return false;
		if (waitpid(s->child, &st, flags) != s->child)
			return false;
		if (!WIFSTOPPED(st))
			break;
		traced_stop(s, s->child, st);
	}
	s->status = st;
	s->child = 0;
	return true;
}

/*
 * The session ended before the command did (a signal, the duration, a
 * reader's error): pass on the signal that stopped tr (SIGTERM otherwise)
 * so the command neither writes on into a stopped buffer nor holds an
 * instance that is about to be removed; SIGKILL after the grace period.
 */
static void end_child(struct session *s)
{
	int sig = tr_stop_signal ? tr_stop_signal : SIGTERM;

	if (s->child <= 0)
		return;
	kill(s->child, sig);
	for (int i = 0; i < SESSION_END_GRACE_MS / 10; i++) {
		struct timespec ts = { 0, 10000000 };

		if (reap(s, WNOHANG))
			return;
		nanosleep(&ts, NULL);
	}
	tr_warn("'%s' (pid %d) did not exit on signal %d: killed", s->o.command[0],
		(int)s->child, sig);
	kill(s->child, SIGKILL);
	reap(s, 0);
}

/* Release the held command: it execs now. */
static void release_child(struct session *s)
{
	if (s->go_fd < 0)
		return;
	if (write(s->go_fd, "g", 1) != 1)
		tr_warn("cannot start '%s': %s", s->o.command[0], strerror(errno));
	close(s->go_fd);
	s->go_fd = -1;
}

static int wait_poll(struct session *s, struct pollfd *p, size_t np, int *stdin_fd,
		     uint64_t end, uint64_t next_tick)
{
	for (;;) {
		uint64_t now, until = 0;
		int ms = 100, r;
		bool failed = false;

		p[0] = (struct pollfd){ .fd = s->rec ? rec_event_fd(s->rec) : -1, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = *stdin_fd, .events = POLLIN };
		for (size_t i = 2; i < np; i++)
			p[i] = (struct pollfd){ .fd = rec_event_fd(s->more[i - 2].rec),
						.events = POLLIN };
		if (tr_stop) {
			s->end = SESSION_STOPPED;
			return 0;
		}
		if (reap(s, WNOHANG)) {
			s->end = SESSION_CHILD_EXITED;
			return 0;
		}
		now = tr_now_ns();
		if (end && now >= end) {
			s->end = SESSION_DURATION;
			return 0;
		}
		if (next_tick && now >= next_tick) {
			next_tick += s->t->tick_ms * 1000000ULL;
			if (next_tick <= now)
				next_tick = now + s->t->tick_ms * 1000000ULL;
			r = s->t->tick(s->targ, false);
			if (r) {
				s->end = SESSION_TICK;
				return r < 0 ? r : 0;
			}
			continue;
		}
		if (end)
			until = end;
		if (next_tick && (!until || next_tick < until))
			until = next_tick;
		if (until && (until - now) / 1000000 < (uint64_t)ms)
			ms = (until - now + 999999) / 1000000;
		/* A command's exit is noticed by polling waitpid: keep the period short. */
		if (s->child > 0 && ms > 20)
			ms = 20;
		if (poll(p, np, ms) <= 0)
			continue;
		for (size_t i = 0; i < np; i++)
			failed |= i != 1 && p[i].revents;
		if (failed) {
			s->end = SESSION_READER_FAILED;
			return 0;
		}
		if (p[1].revents) {
			r = s->t->tick ? s->t->tick(s->targ, true) : 0;
			if (r) {
				s->end = SESSION_TICK;
				return r < 0 ? r : 0;
			}
			if (p[1].revents & (POLLHUP | POLLERR | POLLNVAL))
				*stdin_fd = -1;	/* nothing more will come from it */
		}
	}
}

/* Does every CPU's buffer read as clearing leaves it? */
static bool pristine(const struct rec_kstats *k, int ncpus)
{
	for (int c = 0; c < ncpus; c++)
		if (k[c].entries || k[c].overrun || k[c].commit_overrun || k[c].bytes ||
		    k[c].dropped || k[c].read)
			return false;
	return true;
}

/* The wait: until the command ends, the duration passes, a signal, a reader fails or tick says so. */
static int wait_loop(struct session *s)
{
	uint64_t end = s->o.duration_ns ? s->t0 + s->o.duration_ns : 0;
	uint64_t next_tick = s->t->tick_ms ? s->t0 + s->t->tick_ms * 1000000ULL : 0;
	int stdin_fd = s->t->poll_stdin ? STDIN_FILENO : -1;
	/* The first buffer's readers, stdin, then the further buffers' readers. */
	size_t np = 2 + s->o.nmore;
	struct pollfd *p = xcalloc(np, sizeof(*p));
	int r = wait_poll(s, p, np, &stdin_fd, end, next_tick);

	free(p);
	return r;
}

/* The error of the first reader that stopped on one, of any buffer; -EIO if none says. */
static int first_reader_error(const struct session *s)
{
	if (s->rec && rec_error(s->rec))
		return rec_error(s->rec);
	for (size_t i = 0; i < s->o.nmore; i++)
		if (rec_error(s->more[i].rec))
			return rec_error(s->more[i].rec);
	return -EIO;
}

int session_run(struct session *s)
{
	struct tfs_inst *in = s->o.inst;
	int r = 0, rr;

	/*
	 * Start from an empty buffer, as trace-cmd does.  Clearing waits for
	 * the kernel (some 20 ms): a buffer that holds nothing and counts
	 * nothing, as clearing leaves it, is left as it is.
	 */
	if (s->rec && rec_stats_snapshot(in, rec_ncpus(s->rec), &s->before) == 0 &&
	    pristine(s->before, rec_ncpus(s->rec)))
		s->cleared = true;
	if (!s->o.keep_buffer && !s->cleared) {
		if ((r = tfs_write(in, "trace", "", false)))
			return tr_fail(r, "cannot clear the ring buffer: %s", strerror(-r));
		free(s->before);
		s->before = NULL;
	}
	tr_phase("buffer cleared");
	for (size_t i = 0; i < s->o.nmore; i++) {
		struct session_more *m = &s->more[i];
		struct tfs_inst *min = s->o.more[i].inst;

		if (!s->o.keep_buffer && (r = tfs_write(min, "trace", "", false)))
			return tr_fail(r, "cannot clear the ring buffer of '%s': %s", min->name,
				       strerror(-r));
		rec_stats_snapshot(min, rec_ncpus(m->rec), &m->before);
		r = rec_start(m->rec);
		if (r)
			return r;
	}
	if (s->rec) {
		if (!s->before)
			rec_stats_snapshot(in, rec_ncpus(s->rec), &s->before);
		s->clocks.valid = !rec_clock_pair(in, 0, &s->clocks);
		r = rec_start(s->rec);
		if (r)
			return r;
	}
	if (s->t->on_start)
		s->t->on_start(s->targ, tr_now_ns());
	for (size_t i = 0; i < s->o.nmore; i++) {
		struct tfs_inst *min = s->o.more[i].inst;

		r = tfs_set(min, "tracing_on", "1");
		if (r)
			return tr_fail(r, "cannot turn tracing on in '%s': %s", min->name,
				       strerror(-r));
	}
	r = tfs_set(in, "tracing_on", "1");
	if (r)
		return tr_fail(r, "cannot turn tracing on: %s", strerror(-r));
	journal(s);
	s->t0 = tr_now_ns();
	tr_phase("tracing on");
	if (s->t->on_running)
		s->t->on_running(s->targ);
	release_child(s);
	r = wait_loop(s);
	if (s->t->on_end) {
		int e = s->t->on_end(s->targ);

		if (!r)
			r = e;
	}
	if (s->end != SESSION_CHILD_EXITED)
		end_child(s);
	/* Not left stopped at a fork while the file is written. */
	release_tracees(s);
	rr = s->o.passive ? 0 : tfs_set(in, "tracing_on", "0");
	if (rr)
		tr_warn("cannot turn tracing off: %s", strerror(-rr));
	for (size_t i = 0; i < s->o.nmore; i++) {
		struct tfs_inst *min = s->o.more[i].inst;

		rr = tfs_set(min, "tracing_on", "0");
		if (rr)
			tr_warn("cannot turn tracing off in '%s': %s", min->name, strerror(-rr));
	}
	if (s->rec) {
		rr = rec_stop(s->rec);
		if (rr && s->end != SESSION_READER_FAILED)
			s->end = SESSION_READER_FAILED;
		s->ran = true;
	}
	for (size_t i = 0; i < s->o.nmore; i++) {
		if (rec_stop(s->more[i].rec) && s->end != SESSION_READER_FAILED)
			s->end = SESSION_READER_FAILED;
	}
	/* -k: tracing goes on into the buffers once the readers are gone (tfs_set: kept). */
	if (s->o.keep_at_end && !s->o.passive) {
		for (size_t i = 0; i < s->o.nmore; i++)
			tfs_set(s->o.more[i].inst, "tracing_on", "1");
		tfs_set(in, "tracing_on", "1");
	}
	if (!r && s->end == SESSION_READER_FAILED) {
		rr = first_reader_error(s);
		r = tr_fail(rr, "a reader stopped: %s", strerror(-rr));
	}
	return r;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	if (s->go_fd >= 0) {
		close(s->go_fd);	/* the command dies unstarted */
		s->go_fd = -1;
		reap(s, 0);
	}
	if (s->child > 0)
		end_child(s);
	/*
	 * What the readers could not take (the last events of a CPU whose
	 * reader stopped) would otherwise greet the next user of the buffer.
	 * Not before now: the caller reads the per-CPU stats first, and
	 * clearing resets them.
	 */
	if (s->ran && !s->o.keep_buffer && !s->o.keep_at_end) {
		tfs_write(s->o.inst, "trace", "", false);
		for (size_t i = 0; i < s->o.nmore; i++)
			tfs_write(s->o.more[i].inst, "trace", "", false);
	}
	rec_free(s->rec);
	/* The kernel frees the buffer now; tr puts its size back as it restores tracefs. */
	if (s->free_fd >= 0)
		close(s->free_fd);
	free(s->before);
	free(s->own_filter);
	for (size_t i = 0; i < s->o.nmore; i++) {
		rec_free(s->more[i].rec);
		free(s->more[i].before);
		drop_lock(s->more[i].lock_fd, s->more[i].lock_path);
	}
	free(s->more);
	/* The journal goes first, while the lock still holds. */
	if (s->lock_fd >= 0 && s->journal)
		unlink(s->journal);
	release_tracees(s);
	for (size_t i = 0; i < s->nmaps; i++)
		tfile_procmap_free(&s->maps[i]);
	free(s->maps);
	free(s->tracees);
	if (s->chld_set)
		sigaction(SIGCHLD, &s->old_chld, NULL);
	free(s->journal);
	drop_lock(s->lock_fd, s->lock_path);
	free(s);
}
