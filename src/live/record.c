// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tr record (live-record.h) as one tool of the runner (session.h) around
 * the recorder (rec.h): the spool, --max-size and its rotation, the
 * guests, -N's listener and the memory maps as the tool's hooks, and the
 * trace.dat file written at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evsel.h"
#include "parse.h"
#include "live-record.h"
#include "rec.h"
#include "session.h"
#include "setup.h"
#include "tfile.h"
#include "tfs.h"
#include "tfw.h"
#include "trigger.h"

/*
 * Will the instance record user stacks (the userstacktrace option, as the
 * set-up leaves it)?  Then the traced processes' memory maps go in the
 * file, as trace-cmd's --proc-map keeps them.
 */
static bool wants_maps(const struct live_record_opts *o)
{
	char *v = NULL;
	bool on;

	for (size_t i = o->setup->options.n; i-- > 0;) {
		if (!strcmp(o->setup->options.v[i], "userstacktrace"))
			return true;
		if (!strcmp(o->setup->options.v[i], "nouserstacktrace"))
			return false;
	}
	on = !tfs_read(o->inst, "options/userstacktrace", &v) && v[0] == '1';
	free(v);
	return on;
}

/*
 * The traced processes' maps as PROCMAPS options, one a pid, the latest
 * read of each kept; with a spool, each new or changed one is appended to
 * its procmaps as it is read, so a restored file has them too.
 */
struct kept_maps {
	struct tfw_opt *opts;
	int *pids;
	size_t n;
	const char *spool;
	bool spool_failed;
};

/* One recording, the record tool's state (its hooks' arg). */
struct progress_ctx {
	const struct live_record_opts *o;
	struct live_record_result *res;
	struct session *sess;
	struct kept_maps *maps;		/* with user stacks, else NULL */
	uint64_t *lost;
	unsigned flush_ms;		/* the spool's, or 0 */
	uint64_t next_progress, next_flush;	/* session_elapsed_ns() due times */
	bool latency;			/* a max-latency tracer: the trace text, no readers */
	const char *spool;		/* the spool directory, or NULL (-N, a latency tracer) */
	struct kept_maps kept;
	struct tfw_opt *topts;		/* the times' options (rec_time_options()) */
	size_t ntopts;
};

static void keep_map(struct kept_maps *k, const struct tfile_procmap *m)
{
	struct tfw_opt o;
	size_t i;

	tfw_opt_procmap(&o, m);
	for (i = 0; i < k->n && k->pids[i] != m->pid; i++)
		;
	if (i < k->n && k->opts[i].data.len == o.data.len &&
	    !memcmp(k->opts[i].data.data, o.data.data, o.data.len)) {
		free(o.data.data);
		return;
	}
	if (i == k->n) {
		k->opts = xrealloc(k->opts, (k->n + 1) * sizeof(*k->opts));
		k->pids = xrealloc(k->pids, (k->n + 1) * sizeof(*k->pids));
		k->n++;
	} else {
		free(k->opts[i].data.data);
	}
	k->opts[i] = o;
	k->pids[i] = m->pid;
	if (k->spool && !k->spool_failed && rec_spool_procmap(k->spool, &o)) {
		tr_warn("%s: a crash would lose the memory maps", tr_failure());
		k->spool_failed = true;
	}
}

/* pid's map now, if it still has one. */
static void keep_live_map(struct kept_maps *k, int pid)
{
	struct tfile_procmap m;

	if (!tfw_procmap_read(pid, &m))
		keep_map(k, &m);
	tfile_procmap_free(&m);
}

/* The session's map of a process of the command's, read as it exited (session.h). */
static void on_map(void *arg, const struct tfile_procmap *m)
{
	struct progress_ctx *p = arg;

	keep_map(p->maps, m);
}

/*
 * The live processes whose maps are wanted: the -P ones, the pids the
 * instance's set_event_pid (and set_ftrace_pid) lists now (with -c, the kernel adds their
 * children as they fork and drops them as they exit) and those of the
 * command's seized by the session.  Each map is read now.
 */
static void keep_live_maps(const struct live_record_opts *o, struct session *sess,
			   struct kept_maps *k)
{
	char *list = NULL, *save = NULL;
	size_t nt = 0;
	const pid_t *t = sess ? session_tracees(sess, &nt) : NULL;
	int pid;

	for (size_t i = 0; i < o->setup->pids.n; i++)
		if (!parse_int(o->setup->pids.v[i], 1, 1 << 22, &pid))
			keep_live_map(k, pid);
	for (int f = 0; f < 2; f++) {
		if (tfs_read(o->inst, f ? "set_ftrace_pid" : "set_event_pid", &list))
			continue;
		for (char *w = strtok_r(list, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
			if (!parse_int(w, 1, 1 << 22, &pid))
				keep_live_map(k, pid);
		free(list);
		list = NULL;
	}
	for (size_t i = 0; i < nt; i++)
		keep_live_map(k, t[i]);
}

/* The session's maps (those of the command's processes) kept too. */
static void keep_session_maps(struct session *sess, struct kept_maps *k)
{
	size_t n;
	const struct tfile_procmap *m = session_maps(sess, &n);

	for (size_t i = 0; i < n; i++)
		keep_map(k, &m[i]);
}

static void kept_maps_free(struct kept_maps *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->opts[i].data.data);
	free(k->opts);
	free(k->pids);
}

/* Is one of the session's triggers a snapshot? */
static bool has_snapshot_trigger(const struct tr_setup *s)
{
	bool found = false;

	for (size_t i = 0; i < s->triggers.n && !found; i++) {
		char *sys, *ev, *text;
		struct trig t;

		if (trig_split_event(s->triggers.v[i], &sys, &ev, &text))
			continue;
		if (!trig_parse(text, &t)) {
			found = !strcmp(t.cmd, "snapshot");
			trig_free(&t);
		}
		free(sys);
		free(ev);
		free(text);
	}
	return found;
}

/* Drain the snapshot buffer into a second file-sink recorder (NULL on failure). */
static struct rec *read_snapshot(struct tfs_inst *in, const char *dir)
{
	struct rec *snap = NULL;
	int r = rec_open(&(struct rec_opts){ .inst = in, .tmp_dir = dir, .snapshot = true,
					     .drain = true }, &snap);

	if (r) {
		tr_warn("cannot read the snapshot buffer: %s", tr_failure());
		return NULL;
	}
	rec_start(snap);
	r = rec_stop(snap);
	if (r)
		tr_warn("the snapshot buffer was not read whole: %s", strerror(-r));
	return snap;
}


static unsigned flush_ms(const struct live_record_opts *o)
{
	return o->spool_dir ? (o->flush_ms ? o->flush_ms : REC_FLUSH_MS) : 0;
}

/*
 * The events the kernel wrote into a CPU's buffer since before[]: read,
 * still there, or overwritten.  Not what the readers took: they wake when
 * the kernel says (buffer_percent), so on a quiet buffer the figures of
 * what was read stay at zero for seconds while events come in.
 */
static uint64_t written(const struct rec_kstats *k, const struct rec_kstats *before)
{
	uint64_t now = k->read + k->entries + k->overrun;
	uint64_t was = before ? before->read + before->entries + before->overrun : 0;

	return now > was ? now - was : 0;
}

/*
 * The session's tick: every flush_ms the spool's cmdlines (the readers
 * flush on their own), every LIVE_PROGRESS_MS the figures for the caller's
 * progress.
 */
/*
 * Tracing is on: the spool's kallsyms are read now, not before
 * (rec_spool_meta()); and the caller hears of it (--daemonize).
 */
static void on_running(void *arg)
{
	struct progress_ctx *p = arg;

	if (p->spool && p->sess && session_rec(p->sess))
		rec_spool_kallsyms_start(session_rec(p->sess));
	if (p->o->on_recording)
		p->o->on_recording(p->o->recording_arg);
}

static int progress_tick(void *arg, bool fd_ready)
{
	struct progress_ctx *p = arg;
	struct rec *r = session_rec(p->sess);
	const struct rec_kstats *before = session_stats_before(p->sess);
	struct live_progress pr = { .elapsed_ns = session_elapsed_ns(p->sess) };

	(void)fd_ready;
	if (!r || !pr.elapsed_ns)
		return 0;
	if (p->flush_ms && pr.elapsed_ns >= p->next_flush) {
		/* Half an interval early counts as on time: ticks come a little late or early. */
		p->next_flush = pr.elapsed_ns + p->flush_ms * 500000ull;
		/*
		 * A name missing from the spool costs a "<...>" in a restored
		 * file: go on, unless the directory is gone (removed while
		 * recording), where nothing written now would be kept.
		 */
		int e = rec_spool_cmdlines(r);

		if (e == -ENOENT)
			return e;
		/* The maps as they are now, for a crash: the changed ones are appended. */
		if (p->maps)
			keep_live_maps(p->o, p->sess, p->maps);
	}
	if (!p->o->progress || pr.elapsed_ns < p->next_progress)
		return 0;
	p->next_progress = pr.elapsed_ns + LIVE_PROGRESS_MS * 500000ull;
	pr.ncpus = rec_ncpus(r);
	if (!p->lost)
		p->lost = xcalloc(pr.ncpus ? pr.ncpus : 1, sizeof(*p->lost));
	for (int c = 0; c < pr.ncpus; c++) {
		struct rec_kstats k = { 0 };

		/* The readers' own counter, written by their threads. */
		pr.bytes += __atomic_load_n(&rec_cpu_stat(r, c)->bytes, __ATOMIC_RELAXED);
		if (rec_kstats_read(p->o->inst, c, &k, NULL))
			continue;
		pr.events += written(&k, before ? &before[c] : NULL);
		if (before) {
			k.overrun -= before[c].overrun;
			k.dropped -= before[c].dropped;
		}
		p->lost[c] = k.overrun + k.dropped;
	}
	/* The further buffers (-B ... -B ...) count in the same figures. */
	for (size_t i = 0; i < p->o->nmore; i++) {
		struct rec *mr = session_more_rec(p->sess, i);
		const struct rec_kstats *mb = session_more_stats_before(p->sess, i);

		for (int c = 0; mr && c < pr.ncpus && c < rec_ncpus(mr); c++) {
			struct rec_kstats k = { 0 };

			pr.bytes += __atomic_load_n(&rec_cpu_stat(mr, c)->bytes, __ATOMIC_RELAXED);
			if (rec_kstats_read(p->o->more[i].inst, c, &k, NULL))
				continue;
			pr.events += written(&k, mb ? &mb[c] : NULL);
			if (mb) {
				k.overrun -= mb[c].overrun;
				k.dropped -= mb[c].dropped;
			}
			p->lost[c] += k.overrun + k.dropped;
		}
	}
	pr.lost = p->lost;
	p->o->progress(p->o->progress_arg, &pr);
	return 0;
}

/*
 * --max-size: the pages may take what the header (meta.dat, whose size the
 * file's header will have give or take the statistics options) leaves,
 * less a page per CPU and buffer for alignment and 64 KiB for the options
 * added at the end.  Version 7 compresses, so it only comes out smaller.
 */
static int set_budget(struct rec *r, const char *spool, uint64_t max)
{
	char *meta = xasprintf("%s/meta.dat", spool);
	uint64_t room = 2ull * (rec_ncpus(r) + 2) * rec_page_size(r) + (64 << 10), head;
	struct stat st;
	int e = stat(meta, &st) ? -errno : 0;

	free(meta);
	if (e)
		return tr_fail(e, "cannot read the spool's header: %s", strerror(-e));
	head = (uint64_t)st.st_size + room;
	if (max < head + (uint64_t)rec_ncpus(r) * rec_page_size(r))
		return tr_fail(-EINVAL, "--max-size is too small: the file's header and formats "
			       "alone take %llu KiB here", (unsigned long long)(head >> 10));
	rec_set_budget(r, max - head);
	return 0;
}

/* The rotator's callback (rec_set_rotate()): a full part becomes OUTPUT.1. */
static int rotate_part(void *arg, const int *fds, const uint64_t *sizes, int ncpus)
{
	const struct live_record_opts *o = arg;

	return rec_spool_rotate(o->spool_dir, o->output, o->rotate, o->file_flags, fds, sizes,
				ncpus);
}

/*
 * The session (session.h) applies the set-up in its order; then the file:
 * the ring buffer's pages, or under a max-latency tracer the trace text.
 */
/*
 * The session is open (readers parked, the command held): what is needed
 * to read the pages goes to the spool, or the listener, before the first
 * page; the guests' readers start; the output is emptied.
 */
static int record_prepare(void *arg, struct session *sess)
{
	struct progress_ctx *p = arg;
	const struct live_record_opts *o = p->o;
	const char *spool = p->spool;
	int r = 0;

	p->sess = sess;
	/*
	 * Note that tracing_max_latency is a result, not a setting: it is left
	 * as the recording ends, matching the max buffer (cleared by the
	 * session's clearing of the buffer), as trace-cmd leaves it.
	 */
	/*
	 * The times' options, once the trace clock is set: the same in every
	 * file of the recording, the spool's and a listener's included.
	 */
	if (!p->latency)
		rec_time_options(o->inst, o->file_flags, o->ts_offset, o->tsc_mult, o->tsc_shift,
				 &p->topts, &p->ntopts);
	/*
	 * What is needed to read the pages goes to the spool before the first
	 * page; its kallsyms once tracing is on (on_running), unless the
	 * spool's size counts against --max-size, whose budget and rotated
	 * parts are reckoned from the whole header.
	 */
	if (spool && !(r = rec_spool_meta(session_rec(sess), o->inst, spool, p->topts, p->ntopts,
					   !o->max_size)))
		rec_spool_cmdlines(session_rec(sess));
	/* No room even for that: record all the same, only a crash would lose it. */
	if (r == -ENOSPC && !o->max_size) {
		tr_warn("%s: a crash would lose this recording", tr_failure());
		r = 0;
	}
	if (!r && spool && o->max_size)
		r = set_budget(session_rec(sess), spool, o->max_size);
	if (!r && spool && o->max_size && o->rotate)
		r = rec_set_rotate(session_rec(sess), rotate_part, (void *)o);
	/* The guests start with the host: their readers first, then tracing, as the host's. */
	if (!r && o->nguests)
		r = live_guests_open(o);
	/* The output is emptied now that the recording can start (see cmd-record.c). */
	if (!r && o->net) {
		struct tfw_opt *all = xcalloc(p->ntopts + p->kept.n + 1, sizeof(*all));

		if (p->ntopts)
			memcpy(all, p->topts, p->ntopts * sizeof(*p->topts));
		if (p->kept.n)
			memcpy(all + p->ntopts, p->kept.opts, p->kept.n * sizeof(*p->kept.opts));
		r = rec_net_start(o->net, session_rec(sess), o->inst, all, p->ntopts + p->kept.n);
		free(all);
	}
	else if (!r && ftruncate(o->fd, 0) && errno != EINVAL)
		r = tr_fail(-errno, "cannot write the trace file: %s", strerror(errno));
	return r;
}

/*
 * The session ended: the file, from the readers' pages (or the listener's
 * end, or the latency tracer's text), with the further buffers, the
 * guests and the maps; then what the recording made goes.
 */
static int record_write(struct progress_ctx *p, struct session *sess)
{
	const struct live_record_opts *o = p->o;
	struct live_record_result *res = p->res;
	struct rec_file_buf *more = xcalloc(o->nmore ? o->nmore : 1, sizeof(*more));
	struct tfw_opt *gopts = NULL;
	size_t ngopts = 0;
	struct rec *snap = NULL;
	bool shed;
	int r;

	if (o->net) {
		r = rec_net_end(o->net, session_rec(sess), o->inst, session_stats_before(sess),
				&res->sum);
		goto out;
	}
	if (p->latency) {
		res->latency = true;
		r = rec_write_latency(o->fd, o->inst, &res->max_us, &res->latency_bytes);
		goto out;
	}
	if (has_snapshot_trigger(o->setup))
		snap = read_snapshot(o->inst, o->tmp_dir);
	for (size_t i = 0; i < o->nmore; i++)
		more[i] = (struct rec_file_buf){ session_more_rec(sess, i), o->more[i].inst,
						 session_more_stats_before(sess, i) };
	if (o->nguests)
		live_guests_finish(o, &gopts, &ngopts);
	if (p->ntopts) {
		gopts = xrealloc(gopts, (ngopts + p->ntopts) * sizeof(*gopts));
		memcpy(gopts + ngopts, p->topts, p->ntopts * sizeof(*p->topts));
		ngopts += p->ntopts;
		p->ntopts = 0;
	}
	/*
	 * The maps: the command's processes' as each exited (or as the session
	 * ended), then those still alive now (the -P processes, set_event_pid's
	 * pids); a process gone before now keeps its last one read.
	 */
	if (p->maps) {
		keep_session_maps(sess, &p->kept);
		keep_live_maps(o, NULL, &p->kept);
		gopts = xrealloc(gopts, (ngopts + p->kept.n + 1) * sizeof(*gopts));
		if (p->kept.n)
			memcpy(gopts + ngopts, p->kept.opts, p->kept.n * sizeof(*p->kept.opts));
		ngopts += p->kept.n;
		p->kept.n = 0;
	}
	/* meta.dat complete (its kallsyms) before its size is counted. */
	if (p->spool)
		rec_spool_kallsyms_wait(session_rec(sess));
	shed = p->spool && rec_spool_make_room(p->spool, o->fd);
	r = rec_write_file(session_rec(sess), o->fd, o->inst, NULL, session_stats_before(sess),
			   o->file_flags, snap, more, o->nmore, session_clocks(sess), gopts, ngopts,
			   &res->sum);
	if (r)
		tr_fail(r, "cannot write '%s': %s", o->output, strerror(-r));
	/*
	 * The spool goes once the file is whole on disk, not before (nor is
	 * kept unrestorable).  A file system that fails writes (EIO) may say
	 * so only here, at writeback.
	 */
	if (!r && fdatasync(o->fd) && errno != EINVAL)
		r = tr_fail(-errno, "cannot write '%s': %s", o->output, strerror(errno));
	if (p->spool && !shed && r) {
		res->spool_kept = true;
		p->spool = NULL;
	}
out:
	free(more);
	for (size_t i = 0; i < ngopts; i++)
		free(gopts[i].data.data);
	free(gopts);
	rec_free(snap);
	return r;
}

static int record_finish(void *arg, struct session *sess, struct session_result *end)
{
	struct progress_ctx *p = arg;
	const struct live_record_opts *o = p->o;
	struct live_record_result *res = p->res;
	int r = 0;

	/* A reader that stopped early still leaves what it read: the file is written. */
	if (!end->err && end->reader_err) {
		res->reader_err = end->reader_err;
		if (end->reader_failure)
			snprintf(res->failure, sizeof(res->failure), "%s", end->reader_failure);
		if (rec_error(session_rec(sess)) == -EFBIG) {
			res->max_size_reached = true;
			res->reader_err = 0;
		}
	}
	if (!end->err) {
		res->end = end->end;
		res->rotations = session_rec(sess) ? rec_rotations(session_rec(sess)) : 0;
		res->child_status = end->child_status;
		r = record_write(p, sess);
	}
	kept_maps_free(&p->kept);
	for (size_t i = 0; i < p->ntopts; i++)
		free(p->topts[i].data.data);
	free(p->topts);
	live_guests_free(o);
	if (p->spool)
		rec_spool_remove(p->spool);
	if (o->net)
		rec_net_free(o->net);
	free(p->lost);
	return r;
}

/*
 * The session (session.h) applies the set-up in its order; then the file:
 * the ring buffer's pages, or under a max-latency tracer the trace text.
 */
int live_record(const struct live_record_opts *o, struct live_record_result *res)
{
	bool latency = setup_latency_tracer(o->setup->tracer);
	struct progress_ctx prog = { .o = o, .res = res, .latency = latency,
				     .flush_ms = latency || o->net ? 0 : flush_ms(o),
				     /* -N sends the pages away: there is nothing here to spool. */
				     .spool = latency || o->net ? NULL : o->spool_dir };
	const char *spool = prog.spool;
	unsigned tick_ms = prog.flush_ms;
	bool mapped_ok = !has_snapshot_trigger(o->setup);
	bool maps = !latency && wants_maps(o);
	int r;

	memset(res, 0, sizeof(*res));
	prog.kept.spool = spool;
	for (size_t i = 0; i < o->nmore; i++)
		mapped_ok &= !has_snapshot_trigger(o->more[i].setup);
	if (o->progress && !latency && (!tick_ms || tick_ms > LIVE_PROGRESS_MS))
		tick_ms = LIVE_PROGRESS_MS;
	if (spool && (r = rec_spool_create(spool, o->output)))
		return r;
	/*
	 * The -P processes' maps as the recording begins (into the spool too):
	 * one gone by the end keeps this one.  -N sends the file's options
	 * before the first page: these are all it can have.
	 */
	if (maps && o->net && o->command)
		tr_warn("-N sends the file's options as recording starts: no memory map of '%s' "
			"goes with it (its user stacks stay addresses)", o->command[0]);
	if (maps) {
		prog.maps = &prog.kept;
		for (size_t i = 0; i < o->setup->pids.n; i++) {
			int pid;

			if (!parse_int(o->setup->pids.v[i], 1, 1 << 22, &pid))
				keep_live_map(&prog.kept, pid);
		}
	}
	{
		/* -k, the guests, -N and the spool's rotation are the record tool's hooks. */
		const struct session_tool tool = {
			.prepare = record_prepare,
			.on_running = spool || o->on_recording ? on_running : NULL,
			.tick = tick_ms ? progress_tick : NULL, .tick_ms = tick_ms,
			.on_map = on_map, .finish = record_finish, .reader_error_ok = true };

		return session_tool_run(&(struct session_opts){
			.inst = o->inst, .command = o->command,
			.setup = o->setup, .events = o->events,
			.no_filter = o->no_filter, .follow = o->follow,
			.duration_ns = o->duration_ns, .no_readers = latency,
			.more = o->more, .nmore = o->nmore,
			.keep_at_end = o->keep_at_end, .keep_buffer = o->keep_buffer,
			.run_user = o->run_user,
			.run_uid = o->run_uid, .run_gid = o->run_gid,
			.child_map = maps && !o->net,
			/* -N: the pages go to the listener, not to temp files. */
			.rec = { .tmp_dir = o->net ? NULL : spool ? spool : o->tmp_dir,
				 .fn = o->net ? rec_net_page : NULL, .arg = o->net,
				 .spool = spool, .flush_ms = prog.flush_ms,
				 .wake_percent = 5, .wake_by_size = true,
				 .idle_ms = o->idle_ms, .poll_only = o->poll_only,
				 .rt_prio = o->rt_prio,
				 /* A mapped buffer refuses to arm a snapshot. */
				 .reader = mapped_ok ? REC_READER_AUTO : REC_READER_SPLICE } },
					&tool, &prog);
	}
}
