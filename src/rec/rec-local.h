/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder's state, shared by rec.c (the readers) and rec-rotate.c
 * (the segments of a recording that rotates).  Private to src/rec.
 */
#ifndef TR_REC_LOCAL_H
#define TR_REC_LOCAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "rec.h"
#include "tfile.h"
#include "tfw.h"

/* rec.used: the segment number above this bit, the bytes taken in it below. */
#define REC_SEG_SHIFT 48
#define REC_USED_MASK ((1ull << REC_SEG_SHIFT) - 1)

struct reader {
	struct rec *r;
	int cpu;
	int fd;			/* trace_pipe_raw */
	int kick_fd;		/* eventfd: rec_kick(), or -1 */
	int pipe[2];
	int out;		/* temp file (file sink) or -1 */
	pthread_t thread;
	bool running;
	pid_t tid;
	size_t pipe_size;
	char *buf;		/* page_size * n, for read() and the callback sink */
	size_t buf_size;
	char *stage;		/* mmap file sink: sub-buffers not yet written */
	size_t stage_len, stage_size;
	/* The mapped buffer (reader mmap): the meta page and the sub-buffers. */
	struct tr_trace_buffer_meta *meta;
	size_t meta_len;
	char *map;
	size_t map_len;
	uint32_t cur_id;	/* the sub-buffer GET_READER gave last */
	uint32_t cur_off;	/* bytes of its data already handed over */
	bool cur_valid;
	uint64_t cur_ts;	/* the time stamp at cur_off (what follows is relative to it) */
	uint64_t flushed_ns;	/* when the last opts.flush_ms hand-over ended */
	struct rec_cpu_stat st;
	/* Rotation (rec-rotate.c): the segment out belongs to, and the last one's file. */
	uint16_t seg;
	int old_out;		/* -1 when none waits to be written */
	uint64_t old_bytes;
	bool done;		/* the thread has ended: it takes no part in rotations */
};

struct rec {
	struct rec_opts o;
	uint32_t page_size;
	struct tfile_layout layout;
	int nreaders;
	struct reader *rd;
	int stop_fd;		/* eventfd: readers leave their wait */
	int event_fd;		/* eventfd: a reader failed, or all drains are done */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;		/* readers that have set their tid */
	int finished;
	bool go, quit, stopped, failed;
	int err;
	uint64_t budget;	/* rec_set_budget(): page data all CPUs may write, 0: no limit */
	/*
	 * Of it, taken (atomic).  With rotation the top REC_SEG_SHIFT bits
	 * number the segment, and the budget is each segment's.
	 */
	uint64_t used;
	/* Rotation (rec_set_rotate(), rec-rotate.c); guarded by lock. */
	rec_rotate_fn rot_fn;
	void *rot_arg;
	bool rot_pending;	/* a full segment waits for every reader to leave it, or to be written */
	int rot_left;		/* readers yet to leave it */
	bool rot_quit, rot_running;
	pthread_t rot_thread;
	pthread_cond_t rot_cond;	/* the rotator's: a segment is ready, or quit */
	uint64_t rotations;
	char rot_failure[256];	/* why a part was not written (rec_failure()) */
	/*
	 * What rec_spool_meta() gathered (kallsyms in an unlinked file), kept
	 * for rec_write_file(), which so need not gather it again; or NULL.
	 */
	struct tfw_meta *meta;
	/* meta.dat says record-tgid: rec_spool_cmdlines() keeps saved_tgids too. */
	bool spool_tgids;
	/*
	 * meta.dat written without kallsyms (rec_spool_meta(), defer): a
	 * thread rec_open() starts for a spool (rec_ksyms_main()), so that its
	 * tid is among the readers' tr filters out, waits for go (r->lock,
	 * r->cond); let go by rec_spool_kallsyms_start() once tracing is on,
	 * it reads them into the spool's kallsyms file, which meta's are
	 * then.  Until rec_spool_kallsyms_wait() joins it, meta is the
	 * thread's alone.
	 */
	struct spool_ksyms {
		char *dir;
		pthread_t thread;
		pid_t tid;
		bool running, go, pending;
		int err;
		unsigned delay_ms;	/* TR_DELAY_KALLSYMS (tests) */
	} ksyms;
	/* Fault injection for tests: TR_FAULT_READER=CPU:PAGES (see rec_open). */
	int fault_cpu;
	uint64_t fault_bytes;
	/* TR_DELAY_READER=CPU:MS: that CPU's reader lags (see rec_open). */
	int delay_cpu;
	unsigned delay_ms;
};


/*
 * The header of what set_event enables in instance in, for recorder r's
 * CPUs and sub-buffer size, version 6 (the spool's meta.dat, -N's
 * metadata); without kallsyms when no_kallsyms.  0 or -errno (reported).
 */
int rec_gather_meta(struct rec *r, struct tfs_inst *in, bool no_kallsyms, struct tfw_meta *m);
/* The spool's kallsyms thread (struct spool_ksyms), in rec-spool.c. */
void *rec_ksyms_main(void *arg);
void rec_notify(int fd);
/* Write what the mapped reader has gathered (it was reserved already). */
int rec_stage_flush(struct reader *rd);
/* A new file for CPU cpu's pages: the spool's cpuN.raw, or an anonymous temp file. */
int rec_out_open(struct rec *r, int cpu, int *fd);

/*
 * rec-rotate.c.  rec_rot_next(): the segment whose word is v is full:
 * start the next, once the last one is written (0: try again), or -errno.
 * rec_rot_follow(): move reader rd to segment seg.  rec_rot_end(): rd's
 * thread ends.  rec_rot_stop(): write a last full segment and join the
 * rotator (after the readers).
 */
int rec_rot_next(struct reader *rd, uint64_t v);
int rec_rot_follow(struct reader *rd, uint16_t seg);
void rec_rot_end(struct reader *rd);
void rec_rot_stop(struct rec *r);

/* rec-file.c: under record-tgid, the kernel's saved_tgids into m's VERSION option. */
void rec_add_tgids(struct tfw_meta *m);

#endif
