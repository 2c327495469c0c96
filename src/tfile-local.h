/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace.dat reader's private parts, shared by src/tfile*.c only (the
 * interface is include/tfile.h).
 */
#ifndef TR_TFILE_LOCAL_H
#define TR_TFILE_LOCAL_H

#include "tfile.h"

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
