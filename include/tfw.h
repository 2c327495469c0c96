/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace.dat writer: version 6 of trace-cmd's file format, as described
 * in trace-cmd.dat.v6(5), so that trace-cmd report and KernelShark read
 * what tr records.
 *
 * The writer is in two halves.  tfw_meta holds everything but the ring
 * buffer pages (header files, event formats, kallsyms, printk formats,
 * saved cmdlines, options); tfw_meta_gather() fills it from tracefs, and
 * tests fill it by hand.  tfw_write() lays out a file from a meta and the
 * per-CPU page data of one or more buffers, which come from memory or from
 * files (the recorder's per-CPU temp files).
 *
 * Layout written (all numbers little- or big-endian as the host):
 *
 *   magic "\x17\x08\x44tracing" "6\0" endian longsize pagesize
 *   "header_page\0" size8 data  "header_event\0" size8 data
 *   count4 {size8 format}...                     ftrace's own formats
 *   count4 {"system\0" count4 {size8 format}...}... event formats
 *   size4 kallsyms  size4 printk_formats  size8 saved_cmdlines
 *   cpus4 "options  \0" {id2 size4 data}... 0:2
 *   "flyrecord\0" {offset8 size8} x cpus  size8 "[clock]"  pad to page
 *   cpu 0 pages, pad, cpu 1 pages, pad ...
 *   then for each instance buffer (a BUFFER option points here):
 *   "flyrecord\0" {offset8 size8} x cpus size8 "[clock]" pad, pages...
 *
 * A latency tracer's recording (tfw_write_latency()) has the same header,
 * without BUFFER options, and then "latency  \0" and text to the end of
 * the file: what the kernel's trace file showed, as trace-cmd writes it.
 */
#ifndef TR_TFW_H
#define TR_TFW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tr.h"

/* Option IDs of the trace.dat format (shared by versions 6 and 7). */
enum tfw_option {
	TFW_OPT_DONE = 0,
	TFW_OPT_DATE = 1,
	TFW_OPT_CPUSTAT = 2,
	TFW_OPT_BUFFER = 3,
	TFW_OPT_TRACECLOCK = 4,
	TFW_OPT_UNAME = 5,
	TFW_OPT_HOOK = 6,
	TFW_OPT_OFFSET = 7,
	TFW_OPT_CPUCOUNT = 8,
	/*
	 * The recording tool: "tr 0.1.0", NUL, then tr's own settings that
	 * shape the report (tfs_text_options()) -- the recorded instance's
	 * funcgraph-* options and the others that shape the kernel's text
	 * (sym-offset, raw, context-info, ...) as trace_options lists them
	 * ("funcgraph-cpu\nnosym-offset\n..."), "tracer:NAME", then the
	 * eprobes' dynamic_events lines -- NUL.  Then further NUL-terminated
	 * strings, each named by its first word: "clock-pairing ..." (rec.h)
	 * and "saved_tgids\n" with the kernel's saved_tgids lines (written
	 * under record-tgid, tfw_meta_add_tgids()).  trace-cmd and KernelShark
	 * read the version up to its NUL and nothing more, without a word; an
	 * option id of tr's own would have them warn "unknown option".
	 */
	TFW_OPT_VERSION = 9,
	TFW_OPT_PROCMAPS = 10,
	/* Host and guest (trace-cmd record -A; net.h writes them): the recording's 8-byte id, */
	TFW_OPT_TRACEID = 11,
	/* in a guest's file the host's id and the clock offsets measured, */
	TFW_OPT_TIME_SHIFT = 12,
	/* in the host's file each guest's name, id and CPUs. */
	TFW_OPT_GUEST = 13,
	/* --tsc2nsec: the x86-tsc clock's multiplier (4 bytes), shift (4) and offset (8). */
	TFW_OPT_TSC2NSEC = 14,
	/*
	 * trace-cmd 3.4: "INSTANCE:" and the instance's last_boot_info, with
	 * its NUL, when a persistent instance held the previous boot's data.
	 */
	TFW_OPT_LAST_BOOT_INFO = 24,
};

/*
 * The options of a host-and-guest recording (tfw-guest.c), into o (its
 * data malloc'd): TRACEID, the recording's id; TIME_SHIFT, in a guest's
 * file, the host's id, TFW_TSYNC_INTERPOLATE, and for each of cpus CPUs
 * the n measurements (ts[i] the guest's time, offsets[i] the host's clock
 * minus the guest's), scalings of 1 and fractions of 0; GUEST, in the
 * host's file, a guest's name, id and CPUs (no host tasks known: -1).
 */
#define TFW_TSYNC_INTERPOLATE 1u
struct tfw_opt;
void tfw_opt_traceid(struct tfw_opt *o, uint64_t id);
void tfw_opt_time_shift(struct tfw_opt *o, uint64_t host_id, int cpus, uint32_t n,
			const int64_t *ts, const int64_t *offsets);
void tfw_opt_guest(struct tfw_opt *o, const char *name, uint64_t guest_id, int cpus);
/*
 * A PROCMAPS option of m (tfile.h), and m read from /proc/PID/exe and
 * /proc/PID/maps: 0, or -errno (-ESRCH: the process has no memory left).
 */
struct tfile_procmap;
void tfw_opt_procmap(struct tfw_opt *o, const struct tfile_procmap *m);
int tfw_procmap_read(int pid, struct tfile_procmap *out);

/* Compression of a v7 file's sections and page data. */
enum tfw_zip {
	TFW_ZIP_NONE,
	TFW_ZIP_ZSTD,
	TFW_ZIP_ZLIB,
};

/* "none", "zstd", "zlib" -> enum tfw_zip, or -EINVAL. */
int tfw_zip_parse(const char *name);

struct tfw_blob {
	char *data;
	size_t len;
};

struct tfw_system {
	char *name;
	struct tfw_blob *formats;
	size_t n;
};

struct tfw_opt {
	uint16_t id;
	struct tfw_blob data;
};

struct tfw_meta {
	uint32_t page_size;	/* the ring buffer's sub-buffer size */
	struct tfw_blob header_page, header_event;
	struct tfw_blob *ftrace;	/* events/ftrace/<event>/format */
	size_t nftrace;
	struct tfw_system *systems;
	size_t nsystems;
	struct tfw_blob kallsyms, printk, cmdlines;
	/*
	 * trace-cmd 3.4's sections: the kernel's BTF, when function arguments
	 * were recorded, and /proc/modules; empty for none.  Only compressed
	 * v7 files hold them: v6 has no sections, and trace-cmd 3.4 cannot
	 * read a file that holds them uncompressed.
	 */
	struct tfw_blob btf, modules;
	/*
	 * kallsyms is megabytes: tfw_meta_gather() spools it into an
	 * unlinked temp file (in $TMPDIR, else /tmp) rather than memory,
	 * and the writers copy it from there in pieces; then kallsyms.data
	 * is NULL and kallsyms.len is their length, from kallsyms_off in
	 * the file (0 there; a spool's meta.dat has them further in).
	 */
	bool kallsyms_in_file;
	int kallsyms_fd;
	uint64_t kallsyms_off;
	int cpus;
	struct tfw_opt *opts;	/* BUFFER options are added by tfw_write() */
	size_t nopts;
	char *clock;		/* "local": goes after each flyrecord table as "[local]" */
	int version;		/* file version: 6 (also 0) or 7 */
	int zip;		/* v7 only: enum tfw_zip */
	int long_size;		/* the traced kernel's long, 4 or 8; 0: the host's */
};

/*
 * One CPU's pages: in memory (mem != NULL), or the first size bytes of the
 * file fd.  Size is a multiple of the page size.  With consume, tfw_write()
 * may shrink the file as it copies it (to need little free space) and
 * trim its tail when the output's file system is short of room.
 */
struct tfw_src {
	const void *mem;
	int fd;
	uint64_t size;
};

/* A buffer: the top level (name NULL, must come first) or an instance. */
struct tfw_buffer {
	const char *name;
	struct tfw_src *cpu;	/* meta->cpus entries */
};

/* What tfw_write() had to leave out to fit. */
struct tfw_result {
	uint64_t bytes;		/* file size written */
	uint64_t data_bytes;	/* page data written */
	uint64_t dropped_bytes;	/* page data trimmed for lack of space */
	bool dropped_kallsyms;
	bool dropped_cmdlines;
};

enum {
	TFW_CONSUME = 1 << 0,	/* sources are temp files tfw_write() may shrink */
	TFW_FIT = 1 << 1,	/* check free space first; drop kallsyms, cmdlines, newest pages */
};

/* Append to a blob, growing it; and NUL-terminate a text blob (len counts the NUL). */
void tfw_blob_append(struct tfw_blob *b, const void *data, size_t len);
/* The same for bytes a peer sized (a received file's metadata): 0, or -ENOMEM and b as it was. */
int tfw_blob_try_append(struct tfw_blob *b, const void *data, size_t len);
void tfw_meta_add_option(struct tfw_meta *m, uint16_t id, const void *data, size_t len);
void tfw_meta_add_format(struct tfw_meta *m, const char *system, const char *data, size_t len);
void tfw_meta_free(struct tfw_meta *m);
/* Leave kallsyms out (a file that formats nothing from symbols). */
void tfw_meta_drop_kallsyms(struct tfw_meta *m);
/*
 * What a recording of in needs beyond tfw_meta_gather() for another
 * machine to print it (struct tfw_meta says which files have room): the
 * kernel's BTF when in traces function arguments (function with
 * func-args, function_graph with funcgraph-args), and /proc/modules when
 * modules are loaded.  Call it for each instance recorded; what one call
 * took is not taken again.
 */
struct tfs_inst;
void tfw_meta_gather_extras(struct tfw_meta *m, const struct tfs_inst *in);
/* Whether tr's VERSION option names this trace option set ("record-tgid"). */
bool tfw_meta_has_text_option(const struct tfw_meta *m, const char *word);
/*
 * Keep the kernel's saved_tgids text (len bytes, "PID TGID" lines) in
 * tr's VERSION option, after its text options; a second call replaces
 * nothing, it adds.  Without a VERSION option of tr's, nothing.
 */
void tfw_meta_add_tgids(struct tfw_meta *m, const char *text, size_t len);

/*
 * Write the whole file to fd (from offset 0; the file is truncated to what
 * was written).  Returns 0 or -errno; on -ENOSPC without TFW_FIT the file
 * is left truncated to its last complete page of data where possible.
 *
 * With m->version 7 the file is trace-cmd.dat.v7(5): the header names the
 * compression, then one section each for the header files, the ftrace and
 * event formats, kallsyms, printk formats and saved cmdlines (compressed
 * when m->zip is not none), a BUFFER section per buffer whose CPU data is
 * page-aligned and, compressed, a chunk count and chunks of up to
 * TFW_V7_CHUNK_PAGES pages ({compressed size4, size4, data}), and last
 * one options section (uncompressed) that the header points to.  As
 * trace-cmd does, a buffer lists only the CPUs that have data.  The
 * compression happens here, after recording, so it never slows the
 * readers.  TFW_FIT and TFW_CONSUME are v6 only: v7 reads the sources
 * and leaves them as they are.
 */
#define TFW_V7_CHUNK_PAGES 32
int tfw_write(int fd, struct tfw_meta *m, struct tfw_buffer *bufs, size_t nbufs, unsigned flags,
	      struct tfw_result *res);

/*
 * Write a latency file: the meta's header, then "latency  \0" and len
 * bytes of text (the trace file of a max-latency tracer).  With m->version
 * 7, the v7 layout with the text in a BUFFER_TEXT section (compressed, as
 * trace-cmd does, in chunks after a chunk count).  Returns 0 or -errno;
 * res->bytes is the file size.
 */
int tfw_write_latency(int fd, struct tfw_meta *m, const char *text, size_t len,
		      struct tfw_result *res);

/* Bytes of the header up to and including the options (for tests and budgets). */
uint64_t tfw_header_size(const struct tfw_meta *m, size_t nbuffer_opts, const char *const *names);

struct tfs_inst;
/*
 * Fill a meta from tracefs for instance in: header files, all of
 * events/ftrace, the formats of events (a list of "system:event"),
 * kallsyms, printk formats, saved cmdlines, CPU count, page size, clock,
 * uname.  Stats (CPUSTAT) are added by the caller with tfw_meta_add_option().
 */
int tfw_meta_gather(struct tfw_meta *m, struct tfs_inst *in, const struct strv *events);
/*
 * tfw_meta_gather() in two steps: all but kallsyms, then kallsyms alone.
 * Reading /proc/kallsyms is most of the gathering (some 70 ms of CPU), so
 * tr record takes it after tracing is on.  The second step touches only
 * m and a temp file: it may run on another thread while nothing else uses m.
 */
int tfw_meta_gather_partial(struct tfw_meta *m, struct tfs_inst *in, const struct strv *events);
void tfw_meta_gather_kallsyms(struct tfw_meta *m);
/*
 * The second step into the file out (empty, open for reading and writing)
 * instead of a temp file: m's kallsyms are then out's, which m owns.
 * 0, or -errno with m as it was and out the caller's (a failed write may
 * have left some of them in it).
 */
int tfw_meta_gather_kallsyms_into(struct tfw_meta *m, int out);

#endif
