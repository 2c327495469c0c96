/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace.dat reader: trace-cmd's file versions 6 and 7 (with v7's zstd or
 * zlib compressed sections).  The sub-buffer parser its cursors use is
 * page.h's, shared with the live readers.
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

#include "page.h"
#include "tr.h"

struct tep_handle;

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

/*
 * tr record's clock pairing (tfw.h, TFW_OPT_VERSION): the trace clock and
 * CLOCK_BOOTTIME, CLOCK_MONOTONIC and CLOCK_REALTIME read together, at the
 * start [0] and at the end [1] of the recording, in ns (the trace clock as
 * the kernel counts it, before any offset option).
 */
struct tfile_clocks {
	bool valid;
	uint64_t trace[2], boot[2], mono[2], real[2];
};

/*
 * trace-cmd's host-guest time sync (the TIME_SHIFT option, which the host
 * writes into each guest's file): per guest CPU, samples of the offset
 * (and scaling) from the guest's clock to the host's, taken at guest
 * times.  A guest timestamp ts on CPU c becomes, with samples a and b
 * around it (the first two or the last two outside them):
 *
 *   cor = a.offset                                          without INTERPOLATE
 *   cor = a.offset + ((ts - a.time) * (b.offset - a.offset) + d / 2) / d,
 *         d = b.time - a.time                               with INTERPOLATE
 *   host = ((ts * a.scaling) >> a.fraction) + cor
 *
 * in 64-bit two's complement with C's division, as trace-cmd computes it
 * (so a file reads the same in both); one sample is ts + offset, unscaled;
 * a CPU without samples, or past the array, keeps its time.  The samples
 * are sorted by time, the first of equal times kept.
 */
struct tfile_ts_sample {
	int64_t time, offset, scaling, fraction;
};

struct tfile_tsync {
	uint64_t peer_id;	/* the host's trace id (its TRACEID option) */
	uint32_t flags;		/* TFILE_TSYNC_INTERPOLATE */
	int ncpus;
	struct tfile_tsync_cpu {
		uint32_t n;
		struct tfile_ts_sample *s;
	} *cpus;
	uint64_t nsamples;	/* of all CPUs */
};

#define TFILE_TSYNC_INTERPOLATE 0x1

/*
 * Parse a TIME_SHIFT option's n bytes: 0, or -EBADMSG with why (a phrase,
 * "the samples of CPU 1 run past the option") and *out empty.  Every count
 * is checked against the bytes there; a fraction outside 0-63 is refused
 * (no shift of a 64-bit time is that).  The fractions may be missing
 * altogether (trace-cmd 2.9 wrote none): then they are 0.
 */
int tfile_tsync_parse(const uint8_t *p, size_t n, bool big_endian, struct tfile_tsync *out,
		      char *why, size_t whylen);
void tfile_tsync_free(struct tfile_tsync *t);
/* A guest timestamp of CPU cpu on the host's clock. */
uint64_t tfile_tsync_apply(const struct tfile_tsync *t, int cpu, uint64_t ts);

/* A GUEST option (in the host's file): a guest recorded with it. */
struct tfile_guest {
	char *name;
	uint64_t trace_id;	/* the guest file's TRACEID */
	int nvcpus;
	int *pids;		/* per guest CPU: the host task that ran it (0: not said) */
};

/*
 * A PROCMAPS option (trace-cmd's --proc-map): one process's named mappings
 * (tfile-procmaps.c has the text's layout), ascending and apart.
 */
struct tfile_vma {
	uint64_t start, end;	/* [start, end) */
	char *name;		/* a path, or a pseudo-name such as [heap] */
};

struct tfile_procmap {
	int pid;		/* the process (its tgid) */
	char *exe;		/* /proc/PID/exe */
	size_t n;
	struct tfile_vma *vmas;
};

/*
 * Parse a PROCMAPS option's n bytes: 0, or -EBADMSG with why (a phrase,
 * "line 3 is not 'START END NAME'") and *out empty.  The text must end
 * with a NUL, hold exactly its count of lines, in order, none overlapping.
 */
int tfile_procmap_parse(const char *p, size_t n, struct tfile_procmap *out, char *why,
			size_t whylen);
void tfile_procmap_free(struct tfile_procmap *m);
/*
 * A log of PROCMAPS options one after another (the spool's procmaps,
 * appended to as maps are read): the last well-formed one of each pid, in
 * the order each pid first came, as *out (to free each, then the array).
 * Malformed ones and a last one without its NUL are passed over.
 */
size_t tfile_procmap_log_parse(const char *p, size_t n, struct tfile_procmap **out);
/*
 * The mapping the kernel's find_vma() would give for addr: the first one
 * ending above it (which need not hold it), or NULL.
 */
const struct tfile_vma *tfile_procmap_find(const struct tfile_procmap *m, uint64_t addr);

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
	bool tsc2nsec;		/* timestamps are converted to ns (TSC2NSEC option) */
	/*
	 * The text-shaping trace options at record time (tr's option:
	 * funcgraph-*, sym-offset, sym-addr, print-parent, raw, hex, bin,
	 * context-info, ... (tfs_text_options()), "tracer:NAME", and the
	 * eprobes' dynamic_events lines), or NULL.
	 */
	char *graph_opts;
	struct tfile_clocks clocks;	/* valid when tr record stored a pairing */
	bool has_trace_id;	/* TRACEID: the recording's id, which its guests' */
	uint64_t trace_id;	/*   TIME_SHIFT options name as their peer */
	/*
	 * TIME_SHIFT: this is a guest's file and its cursors' times are on the
	 * host's clock (ev->raw_ts keeps the guest's); NULL otherwise.
	 */
	struct tfile_tsync *tsync;
	struct tfile_guest *guests;	/* GUEST options (well-formed ones), file order */
	int nguests;
	struct tfile_procmap *procmaps;	/* PROCMAPS options (well-formed ones), file order */
	int nprocmaps;
	struct strv options;	/* names of the options present */
	struct strv cpustats;	/* per_cpu/cpuN/stats at record time */
	uint64_t file_size;
	int nformats;
};

enum {
	TFILE_KEEP_FORMATS = 1 << 0,	/* keep the format texts for tfile_formats() */
	TFILE_NO_KALLSYMS = 1 << 1,	/* skip loading kallsyms (nothing is formatted) */
	TFILE_LAZY_KALLSYMS = 1 << 2,	/* keep them; tfile_load_kallsyms() parses them */
	TFILE_LAZY_FORMATS = 1 << 3,	/* ftrace's at open, the events' by tfile_load_event() */
	TFILE_NOFOLLOW = 1 << 4,	/* refuse a symbolic link (O_NOFOLLOW: a spool's files) */
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
/*
 * Call fn for each well-formed "PID COMM" line of saved_cmdlines text (pid
 * 1 to INT_MAX, a name of 1 to 255 bytes after one blank): in one pass, so
 * a text of 200,000 empty lines costs what its length does.  comm is not
 * NUL-terminated.
 */
void tfile_cmdlines_each(const char *text, void (*fn)(void *arg, int pid, const char *comm,
						       size_t len), void *arg);
/* With TFILE_KEEP_FORMATS: "system\nformat text" per event, in file order. */
const struct strv *tfile_formats(const struct tfile *tf);
/*
 * With TFILE_LAZY_KALLSYMS: hand the kallsyms to the tep handle now (the
 * first call; later ones do nothing).  Parsing them is most of the cost of
 * opening a file, and only events that print symbols need them.
 */
void tfile_load_kallsyms(struct tfile *tf);

/*
 * The event-format handle (libtraceevent's tep_handle), built one way for
 * a trace file (tfile_open), the running kernel (the live layer's
 * session_tep) and tr check-events: the recording machine's byte order,
 * long size and page size, then its header page, then its formats.
 * Records are read on this machine: libtraceevent swaps when the orders
 * differ.  NULL when out of memory.
 */
struct tfile_tep_opts {
	bool big_endian;		/* the recording machine's byte order */
	int long_size;			/* 0: this machine's */
	int page_size;			/* 0: this machine's */
	const char *header_page;	/* events/header_page, or NULL; need not end in NUL */
	size_t header_page_len;
};
struct tep_handle *tfile_tep_new(const struct tfile_tep_opts *o);
/* The header page, when it comes after the handle (a trace file's does). */
void tfile_tep_header_page(struct tep_handle *tep, const char *text, size_t n, int long_size);
/*
 * One format text into the handle; one from a file goes through
 * tfile_format_sanitize() first (sanitize), the running kernel's as it
 * is.  0 or the tep_errno.
 */
int tfile_tep_add_format(struct tep_handle *tep, const char *sys, const char *text, size_t n,
			 bool sanitize);

/*
 * tep_parse_event(), also for the event names libtraceevent 1.7 cannot
 * read: a multi-format user event is "NAME.<hex id>", and the '.' stops its
 * parser.  0 or the tep_errno.
 */
int tfile_parse_event(struct tep_handle *tep, const char *buf, size_t n, const char *sys);

/*
 * With TFILE_LAZY_FORMATS: parse event id's format into the tep handle
 * (0, also when it is there already; -ENOENT when the file has none).  A
 * file holds every event's format, and a report of a few events spent a
 * sixth of its time parsing the others.  tfile_load_events() parses them
 * all, for what looks events up by name or walks them.
 */
int tfile_load_event(struct tfile *tf, int id);
void tfile_load_events(struct tfile *tf);
/* Has any event (parsed or not) a field whose name contains part? */
bool tfile_has_field(struct tfile *tf, const char *part);

/* The kallsyms text (loading them as above), or NULL if the file has none. */
const char *tfile_kallsyms(struct tfile *tf);
/* The same text, not handed to the tep handle (a printer with its own table). */
const char *tfile_kallsyms_text(const struct tfile *tf);
/*
 * Where the kallsyms lie in the file, uncompressed (also under
 * TFILE_NO_KALLSYMS): a writer copies them from there in pieces instead of
 * holding their megabytes.  false when the file has none or compresses them.
 */
bool tfile_kallsyms_extent(const struct tfile *tf, uint64_t *off, uint64_t *len);
/*
 * The BTF of the kernel that wrote the file (v7's BTF_FILE section, which
 * trace-cmd 3.4 and tr record when function arguments were traced): 0 with
 * *data (malloc'd, the caller's) and *len; -ENOENT when the file has none;
 * another -errno, reported, when the section is damaged.
 */
int tfile_btf(struct tfile *tf, void **data, size_t *len);
/*
 * A file of a persistent buffer's previous boot (trace-cmd 3.4's
 * LAST_BOOT_INFO option): that boot's kernel text and module addresses, or
 * NULL for an ordinary file.  *instance is the instance it names, *delta
 * the text delta the kallsyms were moved by (this boot's text minus that
 * one's: at the open, so every symbol names what that boot had there), and
 * *bad, when not NULL, why the addresses could not be mapped (then the
 * symbols are this boot's and cannot be trusted for these events).
 */
struct tfs_last_boot;
const struct tfs_last_boot *tfile_last_boot(const struct tfile *tf, const char **instance,
					    int64_t *delta, const char **bad);
/* /proc/modules as the file holds it (v7's MODULES_FILE), or NULL. */
const char *tfile_modules(const struct tfile *tf);
/* printk_formats text ("0xADDR : \"string\"" lines), or NULL. */
const char *tfile_printk(const struct tfile *tf);
/* With TFILE_KEEP_FORMATS: the format file of system:name, or NULL. */
const char *tfile_format(const struct tfile *tf, const char *system, const char *name);
/* A latency buffer's text (v6 "latency" or v7 BUFFER_TEXT); NULL otherwise. */
int tfile_text(struct tfile *tf, int buffer, char **text, size_t *len);

/*
 * The file's parts in file order, for tr dump: v7's sections (each with its
 * 16-byte header) and v6's parts, which have no headers (id -1).  name is
 * what the part holds ("the event formats", "buffer 'x'").
 */
struct tfile_section {
	char *name;
	int id;
	uint64_t offset, size;	/* in the file */
	uint64_t usize;		/* decompressed (size when not compressed) */
	bool compressed;
};
const struct tfile_section *tfile_sections(const struct tfile *tf, size_t *n);
/* Every option as read, in file order: its id, name and where its data is. */
struct tfile_optent {
	uint16_t id;
	const char *name;	/* NULL for an id tr does not know */
	uint64_t offset;
	uint32_t size;
};
const struct tfile_optent *tfile_option_entries(const struct tfile *tf, size_t *n);

/*
 * Check every sub-buffer of one buffer's CPU (tr dump --validate): each
 * is walked as a cursor would, each event's id must have a format in the
 * file, and time must not run backwards.  Returns 0 with the counts in
 * *out (a problem is a count, not an error), or -EINVAL for a latency
 * buffer or a bad index.
 */
struct tfile_check {
	uint64_t bytes, pages, events;
	uint64_t empty_pages, missed_pages;	/* no events; following lost events */
	uint64_t bad_pages;	/* commit size or an event header that does not fit */
	uint64_t bad_events;	/* too short to hold an id */
	uint64_t unknown_ids;	/* events whose id has no format */
	uint64_t backwards;	/* events older than the one before */
	bool unreadable;	/* the data could not be read (a corrupt chunk) */
	char first_problem[160];
};
int tfile_check_cpu(struct tfile *tf, int buffer, int cpu_index, struct tfile_check *out);

/* A cursor over one buffer's CPU, one sub-buffer in memory at a time. */
struct tfile_cursor;

int tfile_cursor_open(struct tfile *tf, int buffer, int cpu_index, struct tfile_cursor **out);
/* 1 and *ev (valid until the next call), 0 at the end, or -errno. */
int tfile_cursor_next(struct tfile_cursor *c, struct tfile_event *ev);
void tfile_cursor_free(struct tfile_cursor *c);

/*
 * The raw sub-buffers of one buffer's CPU, in file order, for copying them
 * into another file: fn gets the mapped pages in one call, or each
 * decompressed chunk in turn (valid during the call; mapped pages until
 * tfile_close()).  fn returns 0 or a negative errno that stops the walk and
 * is returned.
 */
int tfile_cpu_pages(struct tfile *tf, int buffer, int cpu_index,
		    int (*fn)(void *arg, const void *pages, size_t len), void *arg);

#endif
