/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace.dat reader: trace-cmd's file versions 6 and 7 (with v7's zstd or
 * zlib compressed sections), and the ring-buffer sub-buffer parser that both
 * the file cursors and live readers (trace_pipe_raw) use.
 *
 * Opening a file maps it, checks every length it reads against what is
 * there, and loads the formats, kallsyms, printk formats and header layout
 * into a tep handle.  Event data is not read until a cursor asks for it:
 * one cursor per buffer and CPU, holding one sub-buffer (or, for compressed
 * data, one decompressed chunk) at a time.
 *
 * Errors: every function returns 0 (or a count) or a negative errno and
 * leaves the message with tr_fail(), naming the file and the offset:
 * "'x.dat': truncated at offset 1234 (in the CPU 1 data)".
 */
#ifndef TR_TFILE_H
#define TR_TFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tr.h"

struct tep_handle;

/* Where the page header's fields are (from header_page) and the page size. */
struct tfile_layout {
	bool big_endian;
	int ts_off;		/* u64 timestamp of the first event */
	int commit_off;		/* local_t commit: data size and the missed-event flags */
	int commit_size;	/* 4 or 8: the kernel's long */
	int data_off;		/* where the events start */
	uint32_t page_size;	/* the whole sub-buffer, header included */
};

/* Parse the header_page format text; 0 or -EINVAL. */
int tfile_layout_parse(struct tfile_layout *l, const char *text, size_t len, bool big_endian,
		       uint32_t page_size);

/* One event: the record as the kernel wrote it, with its absolute time. */
struct tfile_event {
	uint64_t ts;
	void *data;
	uint32_t size;
	int cpu;
	/* Events lost just before this one: 0, the count, or -1 when unknown. */
	int64_t missed;
};

/* Commit-field flags of a sub-buffer that lost events. */
#define TFILE_MISSED_EVENTS (1ULL << 31)
#define TFILE_MISSED_STORED (1ULL << 30)

/* A walk over the events of one sub-buffer. */
struct tfile_page {
	const struct tfile_layout *l;
	const uint8_t *buf;
	uint32_t pos, end;	/* offsets into buf */
	uint64_t ts;
	int64_t missed;		/* pending for the next event returned */
};

/*
 * Start on a sub-buffer of len bytes (at most l->page_size).  Returns 0, or
 * -EBADMSG when its commit size does not fit, with *bad_off set to the
 * offset within buf of the bad field.
 */
int tfile_page_load(struct tfile_page *pg, const struct tfile_layout *l, const void *buf,
		    size_t len, uint32_t *bad_off);
/*
 * Next data event: 1 and *ev filled, 0 at the end of the sub-buffer, or
 * -EBADMSG with *bad_off at the malformed event header.
 */
int tfile_page_next(struct tfile_page *pg, struct tfile_event *ev, uint32_t *bad_off);

struct tfile_cpu {
	int cpu;
	uint64_t offset, size;	/* in the file; for compressed data, the chunks */
};

struct tfile_buffer {
	char *name;		/* "" for the top-level buffer */
	char *clock;
	uint32_t page_size;
	bool compressed;
	bool latency;		/* text from the trace file, not ring-buffer pages */
	uint64_t text_offset, text_size;
	int ncpus;
	struct tfile_cpu *cpus;
	struct tfile_layout layout;
};

/* The file's metadata, for --stat. */
struct tfile_info {
	int version;
	bool big_endian;
	int long_size;
	uint32_t page_size;
	char *compression;	/* "none", "zstd", "zlib" */
	char *compression_version;
	int cpus;		/* CPUs the tracing machine had */
	char *uname;
	char *tracer_version;	/* the recording tool's version */
	char *clock;		/* trace_clock, current one in brackets */
	int64_t ts_offset;	/* added to every timestamp (DATE / OFFSET options) */
	struct strv options;	/* names of the options present */
	struct strv cpustats;	/* per_cpu/cpuN/stats at record time */
	uint64_t file_size;
	int nformats;
};

enum {
	TFILE_KEEP_FORMATS = 1 << 0,	/* keep the format texts for tfile_formats() */
	TFILE_NO_KALLSYMS = 1 << 1,	/* skip loading kallsyms (nothing is formatted) */
	TFILE_LAZY_KALLSYMS = 1 << 2,	/* keep them; tfile_load_kallsyms() parses them */
};

struct tfile;

int tfile_open(const char *path, unsigned flags, struct tfile **out);
void tfile_close(struct tfile *tf);

const char *tfile_path(const struct tfile *tf);
struct tep_handle *tfile_tep(struct tfile *tf);
const struct tfile_info *tfile_info(const struct tfile *tf);
int tfile_nbuffers(const struct tfile *tf);
const struct tfile_buffer *tfile_buffer(const struct tfile *tf, int i);
/* saved_cmdlines and saved_tgids text as stored (NUL-terminated; "" if none). */
const char *tfile_cmdlines(const struct tfile *tf);
const char *tfile_tgids(const struct tfile *tf);
/* With TFILE_KEEP_FORMATS: "system\nformat text" per event, in file order. */
const struct strv *tfile_formats(const struct tfile *tf);
/*
 * With TFILE_LAZY_KALLSYMS: hand the kallsyms to the tep handle now (the
 * first call; later ones do nothing).  Parsing them is most of the cost of
 * opening a file, and only events that print symbols need them.
 */
void tfile_load_kallsyms(struct tfile *tf);
/* A latency buffer's text (v6 "latency" or v7 BUFFER_TEXT); NULL otherwise. */
int tfile_text(struct tfile *tf, int buffer, char **text, size_t *len);

/* A cursor over one buffer's CPU, one sub-buffer in memory at a time. */
struct tfile_cursor;

int tfile_cursor_open(struct tfile *tf, int buffer, int cpu_index, struct tfile_cursor **out);
/* 1 and *ev (valid until the next call), 0 at the end, or -errno. */
int tfile_cursor_next(struct tfile_cursor *c, struct tfile_event *ev);
void tfile_cursor_free(struct tfile_cursor *c);

#ifdef TFILE_INTERNAL
/* Shared by src/tfile*.c only. */
enum { ZIP_NONE, ZIP_ZSTD, ZIP_ZLIB };
int tfile_zip_kind(const char *name);
int tfile_unzip(int kind, void *dst, size_t dlen, const void *src, size_t slen);

/* Limits on what a file may ask us to allocate. */
#define TFILE_MAX_SECTION (512u << 20)	/* one decompressed metadata section */
#define TFILE_MAX_CHUNK (256u << 20)	/* one decompressed chunk of trace data */
#define TFILE_MAX_PAGE (64u << 20)	/* one sub-buffer */
#define TFILE_MAX_CPUS 65536		/* CPU entries of all buffers together */

struct tfile {
	char *path;
	const uint8_t *map;
	uint64_t size;
	unsigned flags;
	bool swap;		/* file endianness differs from ours */
	int zip;
	struct tep_handle *tep;
	struct tfile_info info;
	int nbuffers;
	struct tfile_buffer *buffers;
	int ncpu_entries;	/* counted against TFILE_MAX_CPUS */
	char *cmdlines, *tgids;
	char *kallsyms;		/* kept for tfile_load_kallsyms() */
	struct strv formats;
	char *header_page;
	size_t header_page_len;
	/* TSC2NSEC: ns = ((ts * mult) >> shift) + offset */
	bool tsc2nsec;
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
};

int tfile_bad(const struct tfile *tf, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#endif

#endif
