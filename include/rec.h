/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-CPU recorder: one reader thread per CPU, each draining its CPU's
 * per_cpu/cpuN/trace_pipe_raw (or snapshot_raw) in whole sub-buffers.
 *
 * Three ways to read a CPU's buffer, chosen by capability (rec_opts.reader):
 *  - mmap (Linux 6.10+): the buffer is mapped and each sub-buffer is taken
 *    in place with the GET_READER ioctl (see rec-mmap.h): no pipe, no copy
 *    for a full sub-buffer; the one the kernel is still writing waits
 *    until it is left, except at the end and (opts.partial) when idle,
 *    when it is copied and what follows later is handed over as a
 *    sub-buffer of its own;
 *  - splice: full pages move through a pipe without passing through user
 *    space, and the partly filled last one is read() at the end;
 *  - read: read() only (measuring, and the last resort).
 * AUTO maps the buffer for a callback sink only: for a file sink the
 * pages go to the page cache either way, and splice moves up to a pipe's
 * worth per syscall where the mapping needs one ioctl per sub-buffer (and
 * the mapped buffers count in RSS).
 * The snapshot buffer is never mapped, and while a buffer is mapped the
 * kernel refuses to arm a snapshot: a session with a snapshot trigger asks
 * for REC_READER_SPLICE.  Where mapping fails a CPU falls back to splice,
 * and rec_cpu_stat()->rd says which reader ran and why.
 *
 * Two sinks share the readers:
 *  - a file sink (opts.tmp_dir set): each CPU's pages go into an anonymous
 *    temp file in tmp_dir; tr record and tr extract then hand the files to
 *    the trace.dat writer (tfw.h);
 *  - a callback sink (opts.fn set): pages are handed, from the reader
 *    thread of their CPU, to fn(arg, cpu, pages, len) in runs of whole
 *    sub-buffers (len is a multiple of rec_page_size()), for live
 *    consumers such as tr stream and tr hist.  The callback runs
 *    concurrently for different CPUs.
 *
 * Each reader runs on the CPU it drains (unless opts.no_pin), at nice -20
 * where permitted, so that it preempts that CPU's writers when woken.  A reader
 * never sleeps after a pass that read something; when idle it waits in
 * poll() (the kernel wakes it at buffer_percent, see wake_percent) with a
 * timeout.
 * At rec_stop() it reads what is left, including the partly filled page
 * the writer was on, with non-blocking read()s until the buffer is empty;
 * stop tracing (tracing_on=0) before rec_stop() so that ends.
 *
 * Usage: rec_open() (threads are created, opened and parked, so their
 * thread ids are known for own-pid filters), set up tracing, rec_start(),
 * wait (rec_event_fd() turns readable if a reader fails, or when a drain
 * finishes), tracing_on=0, rec_stop(), read the per-CPU results, rec_free().
 */
#ifndef TR_REC_H
#define TR_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "page.h"
#include "net.h"
#include "tfs.h"

struct rec;

/* Whole sub-buffers from CPU cpu; return 0, or -errno to stop this reader. */
enum rec_reader {
	REC_READER_AUTO,	/* callback sink: mmap where the kernel maps the buffer, else splice; file sink: splice */
	REC_READER_MMAP,
	REC_READER_SPLICE,
	REC_READER_READ,
};
/* "mmap", "splice", "read" ("auto"); and back, -1 for a bad name. */
const char *rec_reader_name(int kind);
int rec_reader_parse(const char *name);

typedef int (*rec_page_fn)(void *arg, int cpu, const void *pages, size_t len);
/*
 * A callback sink's reader found its CPU's buffer empty after handing over
 * all it held (partial pages too): every event that CPU recorded before now
 * has been handed over.  Called from that CPU's reader thread, after the
 * pages it handed over (the live merge's watermark, stream.c).
 */
typedef void (*rec_idle_fn)(void *arg, int cpu);

struct rec_opts {
	struct tfs_inst *inst;
	bool snapshot;		/* per_cpu/cpuN/snapshot_raw instead of trace_pipe_raw */
	const char *tmp_dir;	/* file sink: temp files in this directory */
	rec_page_fn fn;		/* callback sink, when tmp_dir is NULL */
	void *arg;
	unsigned idle_ms;	/* longest wait when idle; 0 = 200 ms */
	/*
	 * Do not wait for the kernel's wake-up (buffer_percent): sleep
	 * idle_ms between passes (trace-cmd's --poll, for a buffer whose
	 * wake-ups are unreliable or costly).
	 */
	bool poll_only;
	/* SCHED_FIFO at this priority (1-99) instead of nice -20; 0 = nice -20. */
	int rt_prio;
	bool drain;		/* read what is there now, then finish (no waiting) */
	uint64_t drain_limit;	/* drain: stop a CPU after this many bytes (0 = none) */
	/*
	 * The reader to use; the environment's TR_READER=mmap|splice|read
	 * overrides AUTO (the tests' way to compare the readers).
	 */
	enum rec_reader reader;
	bool no_splice;		/* use read() even for full pages (for measuring) */
	bool partial;		/* also hand over partly filled pages when idle (live output) */
	rec_idle_fn idle;	/* with partial: told when an idle reader emptied its buffer */
	bool no_pin;		/* do not run each reader on the CPU it reads */
	/*
	 * Wake the readers when this much of a CPU's buffer is full (the
	 * instance's buffer_percent, set through tfs_set() and so put back);
	 * 0 leaves it.  The kernel's default of 50 loses events at high
	 * rates with small buffers, when a reader is slow to be scheduled.
	 */
	unsigned wake_percent;
	/*
	 * A file sink, which wants no page soon: where the buffer holds many
	 * sub-buffers, wake at a quarter full instead (rec_wake_percent()).
	 */
	bool wake_by_size;
	/*
	 * A file sink whose per-CPU files are kept: tmp_dir/cpuN.raw (created
	 * or emptied) instead of anonymous temp files, so that what the
	 * readers wrote outlives the process (rec-spool.c).
	 */
	bool spool;
	/*
	 * A file sink: hand what the buffer holds to the file at least this
	 * often, the partly filled sub-buffer included, even when the
	 * kernel does not wake the reader; 0: only when woken and at the end.
	 */
	unsigned flush_ms;
};

/*
 * The buffer_percent to wake a file-sink reader at, for a buffer whose
 * buffer_size_kb reads size_kb ("1408", "7 (expanded: 1408)", or "X" when
 * the CPUs differ), of sub-buffers of subbuf bytes: 25 from 64 sub-buffers
 * up, else low (the most events kept when a buffer fills in a millisecond).
 */
unsigned rec_wake_percent(const char *size_kb, uint32_t subbuf, unsigned low);

/* Which reader a CPU used, and the reader's own figures (tr record -v). */
struct rec_reader_info {
	int kind;		/* enum rec_reader, never AUTO once open */
	int fallback_err;	/* mmap was wanted but failed: -errno, else 0 */
	int nice;		/* the reader thread's nice value (-20 where permitted) */
	int rt_prio;		/* its SCHED_FIFO priority, when rec_opts.rt_prio was granted */
	uint64_t slice_ns;	/* its time slice, where the kernel took one (6.12+), else 0 */
	uint64_t wakes;		/* waits in poll() that ended with data to read */
	uint64_t max_wake_subbufs;	/* the most sub-buffers read after one wake */
	uint64_t max_wake_ns;	/* the longest time to drain after one wake */
	uint64_t busy_ns;	/* all the time spent reading and handing over */
	uint64_t pieces;	/* mmap: sub-buffers taken while the kernel was writing them */
};

struct rec_cpu_stat {
	struct rec_reader_info rd;
	uint64_t bytes;		/* page data recorded */
	uint64_t pages;
	uint64_t missed_pages;	/* pages flagged RB_MISSED_EVENTS */
	uint64_t missed_events;	/* counts the kernel stored (RB_MISSED_STORED) */
	int err;		/* the error that stopped this reader, or 0 */
};

int rec_open(const struct rec_opts *o, struct rec **out);
int rec_ncpus(const struct rec *r);
uint32_t rec_page_size(const struct rec *r);
/* The sub-buffer layout of the running kernel (header_page), for page.h's parser. */
const struct tfile_layout *rec_layout(const struct rec *r);
/* The reader threads' ids (one per CPU read) and the spool's kallsyms thread's, for common_pid filters. */
size_t rec_tids(const struct rec *r, pid_t *tids, size_t max);
/*
 * A file sink: stop when the readers have written bytes of page data in
 * all (whole sub-buffers; 0: no limit).  The reader that reaches it stops
 * with -EFBIG and, like any reader's error, stops the others, which keep
 * what they wrote.  Call before rec_start().
 */
void rec_set_budget(struct rec *r, uint64_t bytes);
/*
 * Rotation: with a budget, a full recording is not stopped but cut into
 * segments of at most the budget each.  The reader that finds no room
 * starts the next segment, and each reader moves to it with a new file
 * (the spool's cpuN.raw; the last one's is renamed cpuN.rot) as it next
 * takes pages, or within its idle wait.  Once every reader has left a
 * segment, fn(arg, fds, sizes, ncpus) is called on a thread of the
 * recorder's own with that segment's files (indexed by CPU, -1 and 0 for
 * none), which it must not close; then they are closed and removed.
 * Only one segment waits at a time: a reader that fills the next before
 * the last is written waits, its pages kept in the ring buffer.  An error
 * from fn stops the recording like a reader's.  Call before rec_start().
 */
typedef int (*rec_rotate_fn)(void *arg, const int *fds, const uint64_t *sizes, int ncpus);
int rec_set_rotate(struct rec *r, rec_rotate_fn fn, void *arg);
/* Segments handed to the rotate function so far. */
uint64_t rec_rotations(const struct rec *r);
/* What stopped the recording when it was the rotate function's error (its message), or NULL. */
const char *rec_failure(const struct rec *r);
int rec_start(struct rec *r);
/* Readable when a reader stopped on an error, or when every drain finished. */
int rec_event_fd(const struct rec *r);
/* A reader's first error (-ENOSPC when the temp files' disk filled up), or 0. */
int rec_error(const struct rec *r);
/* Flush and join the readers.  Returns rec_error(). */
int rec_stop(struct rec *r);
/*
 * A callback sink with opts.partial: make CPU cpu's reader, if it waits
 * idle, hand over what its buffer holds now and report it (opts.idle) at
 * once, instead of at the end of its idle wait (a live merge that waits
 * for a quiet CPU's word).  Safe from any thread; nothing for a busy reader
 * but one such pass when it next waits.
 */
void rec_kick(struct rec *r, int cpu);
/* Is there a reader for this CPU (below rec_ncpus(), offline CPUs have none)? */
bool rec_has_cpu(const struct rec *r, int cpu);
const struct rec_cpu_stat *rec_cpu_stat(const struct rec *r, int cpu);
/* File sink: CPU cpu's temp file (its size is rec_cpu_stat()->bytes). */
int rec_cpu_fd(const struct rec *r, int cpu);
/*
 * File sink: count the missed-events flags in the recorded page headers.
 * quiet (indexed by CPU, or NULL) marks CPUs known to have lost nothing,
 * which are not read back.
 */
void rec_scan_missed(struct rec *r, const bool *quiet);
void rec_free(struct rec *r);

/* The kernel's per_cpu/cpuN/stats of an instance. */
struct rec_kstats {
	uint64_t entries, overrun, commit_overrun, bytes, dropped, read;
};
/* Parse stats text; unknown lines are ignored.  text may be kept (CPUSTAT). */
void rec_kstats_parse(const char *text, struct rec_kstats *s);
int rec_kstats_read(const struct tfs_inst *in, int cpu, struct rec_kstats *s, char **text);

/*
 * Finishing a file-sink recording: the trace.dat file and the per-CPU
 * summary.  before[] holds each CPU's stats from before recording
 * (indexed by CPU, rec_ncpus() entries), or is NULL.
 */
struct rec_cpu_summary {
	uint64_t events;	/* from the kernel's "read events" */
	uint64_t lost;		/* overrun + dropped since before, or the stored missed counts */
	uint64_t missed_pages;	/* sub-buffers flagged as following lost events */
	uint64_t bytes;
	struct rec_reader_info rd;
};

/* One buffer of a recording of several (tr record -B A ... -B B ...). */
struct rec_buf_summary {
	const char *name;	/* the instance's, or NULL for the top level */
	uint64_t events, lost, bytes;
};

struct rec_summary {
	int ncpus;
	struct rec_cpu_summary *cpu;	/* every buffer's counts together */
	struct rec_cpu_summary total;
	struct rec_buf_summary *bufs;	/* each buffer's, when there are several */
	size_t nbufs;
	uint64_t file_bytes;
	uint64_t dropped_bytes;	/* pages left out for lack of disk space */
	bool dropped_kallsyms;
	bool dropped_cmdlines;
	uint64_t snapshot_bytes;	/* the "snapshot" buffer, when there is one */
	bool fell_back_v6;	/* no room to compress (v7 needs the temp files whole): v6 */
	/* Function arguments were traced, but the file's kind has no place for the BTF. */
	bool btf_left_out;
};

int rec_stats_snapshot(const struct tfs_inst *in, int ncpus, struct rec_kstats **out);
struct tfile_clocks;
/* A further buffer for rec_write_file(): an instance's recorder and its stats from before. */
struct rec_file_buf {
	struct rec *rec;
	struct tfs_inst *inst;
	const struct rec_kstats *before;
};
/*
 * Write the trace.dat file to fd: the recorder's pages for instance in
 * (as a BUFFER of that name when it is not the top level), the formats of
 * events (plus everything enabled in the instance's set_event), stats as
 * CPUSTAT options.  snap, if not NULL, is a second file-sink recorder that
 * drained the instance's snapshot buffer: its pages go in as a BUFFER
 * named "snapshot".  more[] are further instances recorded at the same
 * time, each a BUFFER of its name after in's (the top level first, empty
 * when in is an instance); their events' formats come from their
 * set_event too, and sum counts them with in's.  clocks, if not NULL,
 * holds the clock pairing's start (rec_clock_pair() below).  extra[] are
 * options added as they are (rec_time_options(), a guest's).  Fills sum;
 * returns 0 or -errno with tr_fail() set.
 */
int rec_write_file(struct rec *r, int fd, struct tfs_inst *in, const struct strv *events,
		   const struct rec_kstats *before, unsigned flags, struct rec *snap,
		   const struct rec_file_buf *more, size_t nmore,
		   const struct tfile_clocks *clocks, const struct tfw_opt *extra, size_t nextra,
		   struct rec_summary *sum);

/*
 * With in's userstacktrace option on, the memory maps of the processes
 * its set_event_pid and set_ftrace_pid list (the first 64; with -c the
 * kernel keeps their children there while they live) as PROCMAPS options
 * appended to *opts (tr extract's; a process gone has none).
 */
void rec_pid_maps(const struct tfs_inst *in, struct tfw_opt **opts, size_t *nopts);

/*
 * The options that say how to read a recording's times, appended to
 * *opts (*nopts entries, their data malloc'd): with REC_FILE_DATE in
 * flags, DATE, the wall clock less in's trace clock now, in microseconds
 * (as trace-cmd record --date writes it; a warning and none for a clock
 * not in nanoseconds); a ts_offset other than 0 as OFFSET (ns, as
 * --ts-offset); a tsc_mult other than 0 as TSC2NSEC (rec_tsc2nsec()).
 * Readers add DATE and OFFSET to every timestamp.  Read once, after the
 * trace clock is set and before tracing starts, so that every file of the
 * recording carries the same: the output, the spool's meta.dat (and so a
 * restored file and each rotated part), a listener's (-N).
 */
void rec_time_options(const struct tfs_inst *in, unsigned flags, int64_t ts_offset,
		      uint32_t tsc_mult, uint32_t tsc_shift, struct tfw_opt **opts, size_t *nopts);

/*
 * The kernel's conversion of the TSC to nanoseconds, as perf hands it to
 * user space (time_mult, time_shift of a perf event's mapped page), the
 * same on every CPU: what trace-cmd's --tsc2nsec stores.  0, or
 * -EOPNOTSUPP with tr_fail() set where the kernel does not give one.
 */
int rec_tsc2nsec(uint32_t *mult, uint32_t *shift);

/*
 * The clock pairing: the instance's trace clock (per_cpu/cpu0/stats "now
 * ts", to the microsecond) read between two readings of CLOCK_BOOTTIME,
 * CLOCK_MONOTONIC and CLOCK_REALTIME (the midpoints taken), into slot i of
 * c (0: start, 1: end).  rec_write_file() reads the end itself and stores
 * the pair, given the start, in the file's VERSION option (tfw.h), where
 * tr convert --to perfetto finds it.  -EINVAL (no message) for a trace
 * clock that does not count nanoseconds (counter, uptime, x86-tsc...).
 */
int rec_clock_pair(const struct tfs_inst *in, int i, struct tfile_clocks *c);
enum {
	/* Count losses since the buffer was last reset, not since before (extract). */
	REC_LOSS_SINCE_RESET = 1 << 0,
	/*
	 * Also the formats of every event found in the pages (extract: events
	 * disabled since they were recorded are no longer in set_event).
	 */
	REC_FORMATS_FROM_DATA = 1 << 1,
	/* Write trace.dat version 7 (version 6 without it). */
	REC_FILE_V7 = 1 << 2,
	/* Store the wall-clock offset (the DATE option): reports print dates. */
	REC_FILE_DATE = 1 << 3,
};
/* v7's compression (enum tfw_zip) goes in the flags' top byte. */
#define REC_ZIP(z) ((unsigned)(z) << 24)
#define REC_ZIP_OF(flags) ((int)((flags) >> 24))
/*
 * The flags of --file-version and --compression (version 0: not given,
 * zip -1: not given): v6 alone on request; otherwise v7 with zstd unless
 * zip names another, as trace-cmd's default (README says why).  tr record
 * adds REC_FILE_DATE itself.
 */
unsigned rec_file_flags(int version, int zip);
/*
 * The summary alone, for a recording that wrote no file (tr record -N):
 * events and losses from the stats before[] and now, bytes as read.
 */
void rec_summarize(struct rec *r, const struct tfs_inst *in, const struct rec_kstats *before,
		   struct rec_summary *sum);
/* path NULL: no "wrote" line (nothing was written locally). */
void rec_summary_print(FILE *f, const struct rec_summary *s, const char *path);
/* One line per CPU: the reader it used (and why not mmap), and its figures. */
void rec_readers_print(FILE *f, const struct rec_summary *s);

/*
 * Under a max-latency tracer (setup_latency_tracer()) a recording is the
 * text of the trace file, not the ring buffer.  Write a latency file (tfw_write_latency()) from instance in: the text of
 * its trace file, after a first line "# tracing_max_latency: N us" with
 * the instance's tracing_max_latency now (trace-cmd report prints it like
 * the rest of the text).  No kallsyms or printk formats: the text is
 * formatted already.  *max_us and *bytes are filled; 0 or -errno with
 * tr_fail().
 */
int rec_write_latency(int fd, struct tfs_inst *in, uint64_t *max_us, uint64_t *bytes);
/* "irqsoff: max latency 15009 us" and "wrote 'FILE' (SIZE)". */
void rec_latency_print(FILE *f, const char *tracer, uint64_t max_us, uint64_t bytes,
		       const char *path);
void rec_summary_free(struct rec_summary *s);

/*
 * The spool: while tr record runs, what it has read is kept beside the
 * output in the directory rec_spool_path(FILE), "FILE.spool":
 *   owner     the recording tr's pid and the output's name
 *   meta.dat  a trace.dat (v6) with everything but the pages: header
 *             files, formats, kallsyms, printk formats, options; written
 *             before recording starts, without kallsyms when deferred
 *   kallsyms  then the kernel's symbols, read once tracing is on
 *   kallsyms.boot  until they are there, this boot's id
 *   cmdlines  saved_cmdlines as of the last flush (renamed into place)
 *   tgids     under record-tgid, saved_tgids as of the last flush (likewise)
 *   procmaps  PROCMAPS options of the traced processes (with user stacks),
 *             appended as each is read or changes; the last of a pid counts
 *   cpuN.raw  CPU N's sub-buffers as the reader wrote them (rec_opts.spool)
 * At a clean end the output is written from them and the directory goes.
 * After a crash rec_restore() makes the output of what is there.  The
 * functions return 0 or -errno with tr_fail() set.
 */
char *rec_spool_path(const char *output);
/*
 * Make the directory and its owner file.  One that exists is never reused:
 * -EBUSY while its owner lives, else -EEXIST (a crash's leftovers).
 */
int rec_spool_create(const char *dir, const char *output);
/* The owner's pid (0 if unknown); *alive if it is a running tr. */
pid_t rec_spool_owner(const char *dir, bool *alive);
/*
 * The output the owner file names, when dir is still that output's spool
 * (where its rotated parts are named from); else NULL.  To be freed.
 */
char *rec_spool_output(const char *dir);
/*
 * meta.dat for recorder r of instance in, with the formats of what
 * set_event enables and the options extra[] (rec_time_options()), which a
 * restored file and each rotated part take from it.
 */
int rec_spool_meta(struct rec *r, struct tfs_inst *in, const char *dir, const struct tfw_opt *extra,
		   size_t nextra, bool defer);
/*
 * With defer, rec_spool_meta() writes meta.dat without kallsyms: reading
 * /proc/kallsyms is most of tr record's start-up.
 * rec_spool_kallsyms_start(), once tracing is on, reads them on a thread
 * into the spool's kallsyms file (the output's are copied from it, and
 * rec_restore() takes them from there); until then the spool's
 * kallsyms.boot names the boot, whose kallsyms rec_restore() takes after a
 * crash (struct rec_restore_result).  rec_spool_kallsyms_wait() joins it
 * (doing the work first if it never started) and returns its -errno
 * (the spool then lacks kallsyms; the output still has them); call it
 * before the output is written from the kept header.  _cancel() joins
 * without starting it (an error path); rec_free() does.
 */
void rec_spool_kallsyms_start(struct rec *r);
int rec_spool_kallsyms_wait(struct rec *r);
void rec_spool_kallsyms_cancel(struct rec *r);
/*
 * The kernel's saved_cmdlines into r's spool, and its saved_tgids where
 * meta.dat was written under record-tgid (rec_spool_meta() decides, once).
 */
int rec_spool_cmdlines(const struct rec *r);
/*
 * Append PROCMAPS option o (tfw_opt_procmap()) to the spool's procmaps,
 * which a restored file takes its maps from (the last one of each pid).
 */
int rec_spool_procmap(const char *dir, const struct tfw_opt *o);
/*
 * Before the output fd is written: where its file system has no room for
 * the header twice, drop the spool's copy (meta.dat, cmdlines, tgids) so the pages
 * need not be cut.  True if it did: the spool can no longer be restored.
 */
bool rec_spool_make_room(const char *dir, int fd);
void rec_spool_remove(const char *dir);

/*
 * Reading a dead recording without restoring it (tr report FILE): when
 * output is empty or missing and its spool is there, *fd is an unnamed
 * temp file in the spool holding what rec_restore() would write (v6, not
 * compressed, so it is quick).  -ENOENT (no message) when there is no
 * such spool; -EBUSY while its owner records; other -errno with tr_fail().
 */
int rec_spool_peek(const char *output, int *fd);

/*
 * A rotating recording's full segment (rec_set_rotate()'s fds and sizes)
 * as OUTPUT.1, a trace.dat of meta.dat's header and formats and the
 * command names of now, in the version of flags: OUTPUT.keep is removed,
 * OUTPUT.k becomes OUTPUT.k+1, and the new file, written as
 * OUTPUT.rotating, is renamed OUTPUT.1.
 */
int rec_spool_rotate(const char *dir, const char *output, unsigned keep, unsigned flags,
		     const int *fds, const uint64_t *sizes, int ncpus);

struct rec_restore_result {
	int cpus;
	uint64_t bytes;		/* page data recovered */
	uint64_t file_bytes;
	bool rotated;		/* a full part not yet written out is in the file too */
	/*
	 * REC_KSYMS_KEPT: the spool's kallsyms (or the recording had none);
	 * tr died before it wrote them: REC_KSYMS_NOW, this boot's, the same
	 * boot as the recording's; REC_KSYMS_LOST, none (a restart since).
	 */
	int kallsyms;
};
enum { REC_KSYMS_KEPT, REC_KSYMS_NOW, REC_KSYMS_LOST };
/*
 * Write to fd the trace.dat a dead recording's spool holds: meta.dat's
 * header and formats, the last cmdlines, every CPU's whole sub-buffers,
 * in the version of flags (REC_FILE_V7 | REC_ZIP(z), or 0 for v6).  The
 * file's recording tool reads "tr ... (restored ...)".  -EBUSY while the
 * owner still runs; -EPERM for a dir the user (euid) does not own or others
 * can write in, and the spool's files are opened with O_NOFOLLOW.  The
 * spool is left for the caller to remove.
 */
int rec_restore(const char *dir, int fd, unsigned flags, struct rec_restore_result *res);
/*
 * A rotating recording that died while writing a part out leaves
 * OUTPUT.rotating: cut short while the spool still holds the part
 * (cpuN.rot, which rec_restore() puts before the last part's pages), and
 * then removed; else whole, and then moved into place as OUTPUT.1 as
 * rec_spool_rotate() would have (returns 1).  0 when there is nothing to
 * do; -errno with tr_fail().  Call before the spool is removed.
 */
int rec_spool_settle(const char *dir, const char *output);

/*
 * tr record -N's network sink (rec-net.c): the pages of each CPU go to a
 * listener (net.h) as they are read, after the file's metadata.  Set host
 * and port; live_record() (live-record.h) does the rest when its opts.net is set.
 */
struct net_client;
struct rec_net {
	const char *host;	/* vsock: the CID, in decimal */
	uint16_t port;
	bool vsock;
	const char *psk_file;	/* TLS with this key (tr listen --psk), or NULL */
	struct net_client *client;
	uint64_t *bytes;	/* sent, per CPU */
	bool tgid;		/* record-tgid: saved_tgids goes at the end */
};
/* The callback sink (arg: the struct rec_net). */
int rec_net_page(void *arg, int cpu, const void *pages, size_t len);
/*
 * Connect for r's CPUs and send the metadata of what in has enabled now,
 * with the options extra[] (rec_time_options()).
 */
int rec_net_start(struct rec_net *n, struct rec *r, struct tfs_inst *in,
		  const struct tfw_opt *extra, size_t nextra);
/* Fill the summary, end the recording with the listener, free the client. */
int rec_net_end(struct rec_net *n, struct rec *r, struct tfs_inst *in,
		const struct rec_kstats *before, struct rec_summary *sum);
/* Drop the connection (after a failure); safe to call again. */
void rec_net_free(struct rec_net *n);
/*
 * The v6 file up to and including its options (and extra[]) for the events
 * enabled in in now: the metadata trace-cmd's protocol sends before any
 * page.  *buf is malloc'd.  *tgid (when not NULL): record-tgid is on.
 * 0 or -errno with tr_fail().
 */
struct tfw_opt;
int rec_net_meta(struct rec *r, struct tfs_inst *in, const struct tfw_opt *extra, size_t nextra,
		 void **buf, size_t *len, bool *tgid);

/* The spool's flush interval (rec_opts.flush_ms) unless told otherwise. */
#define REC_FLUSH_MS 1000
/* --rotate (rec_spool_rotate()): at most this many earlier parts. */
#define REC_ROTATE_MAX 1000

#endif
