// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Rotation (rec_set_rotate() in rec.h): a recording cut into segments of
 * at most the budget each, handed one at a time to a writer on a thread
 * of their own, so that the readers never wait for a file to be written
 * unless the next segment fills first.
 *
 * The segment number sits in the top bits of rec.used beside the bytes
 * taken in it, so a reservation and the move to a new segment are one
 * compare-and-swap: a page is always written to the file of the segment
 * it was reserved in.  Each reader moves on by itself (rec_rot_follow)
 * and only its own thread touches its files; the rotator takes the old
 * files once every reader has left them.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec-local.h"

/* The name a segment's file of CPU cpu takes while it waits to be written. */
static char *rot_name(const struct rec *r, int cpu, bool old)
{
	return xasprintf("%s/cpu%d.%s", r->o.tmp_dir, cpu, old ? "rot" : "raw");
}

/* The current segment's number. */
static uint16_t seg_now(struct rec *r)
{
	return (uint16_t)(__atomic_load_n(&r->used, __ATOMIC_ACQUIRE) >> REC_SEG_SHIFT);
}

static void *rotator(void *arg)
{
	struct rec *r = arg;
	int ncpus = rec_ncpus(r);
	int *fds = xcalloc(ncpus ? ncpus : 1, sizeof(*fds));
	uint64_t *sizes = xcalloc(ncpus ? ncpus : 1, sizeof(*sizes));

	pthread_mutex_lock(&r->lock);
	for (;;) {
		int e;

		while (!(r->rot_pending && !r->rot_left) && !r->rot_quit)
			pthread_cond_wait(&r->rot_cond, &r->lock);
		if (!(r->rot_pending && !r->rot_left))
			break;
		pthread_mutex_unlock(&r->lock);
		/* A failure leaves the reader's pages in its last file, where they are kept too. */
		for (int i = 0; i < r->nreaders; i++)
			if (r->rd[i].done && r->rd[i].seg != seg_now(r))
				rec_rot_follow(&r->rd[i], seg_now(r));
		for (int c = 0; c < ncpus; c++)
			fds[c] = -1, sizes[c] = 0;
		for (int i = 0; i < r->nreaders; i++) {
			struct reader *rd = &r->rd[i];

			fds[rd->cpu] = rd->old_out;
			/* A page torn by a failed write is left out. */
			sizes[rd->cpu] = rd->old_bytes - rd->old_bytes % r->page_size;
		}
		e = r->rot_fn(r->rot_arg, fds, sizes, ncpus);
		/*
		 * Writing a part borrows megabytes (its compression buffers,
		 * its header) from this thread's malloc arena, and glibc keeps
		 * a thread arena's freed memory rather than return it: without
		 * this a long --rotate recording holds that much more for good
		 * (RSS three times its steady size).  Trimming once a part
		 * costs a walk of the arena, little beside writing the part.
		 */
		malloc_trim(0);
		for (int i = 0; i < r->nreaders; i++) {
			struct reader *rd = &r->rd[i];

			if (rd->old_out < 0)
				continue;
			close(rd->old_out);
			rd->old_out = -1;
			if (r->o.spool) {
				char *p = rot_name(r, rd->cpu, true);

				unlink(p);
				free(p);
			}
		}
		pthread_mutex_lock(&r->lock);
		r->rot_pending = false;
		r->rotations += !e;
		if (e && !r->err) {
			r->err = e;
			snprintf(r->rot_failure, sizeof(r->rot_failure), "%s",
				 tr_failure() ? tr_failure() : strerror(-e));
		}
		pthread_cond_broadcast(&r->cond);
		if (e) {
			__atomic_store_n(&r->failed, true, __ATOMIC_RELEASE);
			rec_notify(r->stop_fd);
			rec_notify(r->event_fd);
		}
	}
	pthread_mutex_unlock(&r->lock);
	free(fds);
	free(sizes);
	return NULL;
}

int rec_set_rotate(struct rec *r, rec_rotate_fn fn, void *arg)
{
	sigset_t all, old;
	int e;

	if (!r->budget || r->o.fn)
		return tr_fail(-EINVAL, "cannot rotate a recording without a size");
	r->rot_fn = fn;
	r->rot_arg = arg;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = -pthread_create(&r->rot_thread, NULL, rotator, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		r->rot_fn = NULL;
		return tr_fail(e, "cannot start the rotating thread: %s", strerror(-e));
	}
	r->rot_running = true;
	return 0;
}

uint64_t rec_rotations(const struct rec *r)
{
	uint64_t n;

	pthread_mutex_lock((pthread_mutex_t *)&r->lock);
	n = r->rotations;
	pthread_mutex_unlock((pthread_mutex_t *)&r->lock);
	return n;
}

int rec_rot_next(struct reader *rd, uint64_t v)
{
	struct rec *r = rd->r;
	uint64_t next = (uint64_t)(uint16_t)((v >> REC_SEG_SHIFT) + 1) << REC_SEG_SHIFT;
	int e = 0;

	pthread_mutex_lock(&r->lock);
	/*
	 * One segment waits at a time: its pages stay in the ring buffer
	 * meanwhile.  Another reader may start the next one first: then this
	 * one is to leave it, not to wait for it.
	 */
	while (r->rot_pending && !r->err && seg_now(r) == (uint16_t)(v >> REC_SEG_SHIFT))
		pthread_cond_wait(&r->cond, &r->lock);
	if (r->err) {
		e = r->err;
	} else if (r->rot_pending) {
		/* Moved on by another reader: the caller follows. */
	} else if (__atomic_compare_exchange_n(&r->used, &v, next, false, __ATOMIC_ACQ_REL,
					       __ATOMIC_RELAXED)) {
		r->rot_pending = true;
		r->rot_left = 0;
		for (int i = 0; i < r->nreaders; i++)
			r->rot_left += !r->rd[i].done;
	}
	pthread_mutex_unlock(&r->lock);
	return e;
}

int rec_rot_follow(struct reader *rd, uint16_t seg)
{
	struct rec *r = rd->r;
	int e = rec_stage_flush(rd), fd;

	/* What was gathered was reserved in the segment being left: it goes to its file. */
	if (e)
		return e;
	if (r->o.spool) {
		char *cur = rot_name(r, rd->cpu, false), *old = rot_name(r, rd->cpu, true);

		e = rename(cur, old) ? -errno : 0;
		if (e)
			tr_fail(e, "cannot rename '%s': %s", cur, strerror(-e));
		free(cur);
		free(old);
		if (e)
			return e;
	}
	e = rec_out_open(r, rd->cpu, &fd);
	if (e)
		return e;
	pthread_mutex_lock(&r->lock);
	rd->old_out = rd->out;
	rd->old_bytes = rd->st.bytes;
	rd->out = fd;
	__atomic_store_n(&rd->st.bytes, 0, __ATOMIC_RELAXED);
	rd->seg = seg;
	/* A reader that has ended was not counted (the rotator moves it on). */
	if (r->rot_pending && !rd->done && !--r->rot_left)
		pthread_cond_signal(&r->rot_cond);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

/*
 * A reader's thread ends: it leaves a full segment first, so that its file
 * holds only pages of the segment the recording ends in.  Segments begun
 * after it ended are left for it by the rotator.
 */
void rec_rot_end(struct reader *rd)
{
	struct rec *r = rd->r;

	if (!r->rot_fn)
		return;
	if (rd->seg != seg_now(r))
		rec_rot_follow(rd, seg_now(r));
	pthread_mutex_lock(&r->lock);
	rd->done = true;
	pthread_mutex_unlock(&r->lock);
}

void rec_rot_stop(struct rec *r)
{
	if (!r->rot_running)
		return;
	pthread_mutex_lock(&r->lock);
	r->rot_quit = true;
	pthread_cond_signal(&r->rot_cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->rot_thread, NULL);
	r->rot_running = false;
}

const char *rec_failure(const struct rec *r)
{
	const char *m;

	pthread_mutex_lock((pthread_mutex_t *)&r->lock);
	m = r->rot_failure[0] ? r->rot_failure : NULL;
	pthread_mutex_unlock((pthread_mutex_t *)&r->lock);
	return m;
}
