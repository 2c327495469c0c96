/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace.dat reader's private parts, shared by src/tfile*.c only (the
 * interface is include/tfile.h).
 */
#ifndef TR_TFILE_LOCAL_H
#define TR_TFILE_LOCAL_H

#include "tfile.h"
#include "tfs-persist.h"
#include "tfw.h"

struct tfile;
/* In tf's compression (an enum tfw_zip, the writer's names: tfw_zip_parse). */
int tfile_unzip(struct tfile *tf, void *dst, size_t dlen, const void *src, size_t slen);
void tfile_unzip_free(struct tfile *tf);

/* Limits on what a file may ask us to allocate. */
#define TFILE_MAX_SECTION (64u << 20)	/* one decompressed metadata section */
/*
 * One decompressed chunk of trace data: trace-cmd writes 10 sub-buffers a
 * chunk (40 KB with 4 KB pages), so 16 MB is far past anything real.  The
 * chunks all cursors of a file hold at once are bounded too, whatever the
 * number of CPUs (a file's CPUs may all point at one small chunk that
 * inflates to the limit).
 */
#define TFILE_MAX_CHUNK (16u << 20)
#define TFILE_CHUNK_BUDGET (64u << 20)
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
	uint64_t chunk_mem;	/* cursors' chunk buffers, against TFILE_CHUNK_BUDGET */
	/*
	 * zstd's decompression context, made once a file: ZSTD_decompress()
	 * makes and frees one (some 160 KB) a chunk.
	 */
	void *zctx;
	char *cmdlines, *tgids;
	char *kallsyms;		/* kept for tfile_load_kallsyms() and tfile_kallsyms() */
	/* Where they lie in the file as they are (uncompressed), for tfile_kallsyms_extent(). */
	uint64_t kallsyms_at, kallsyms_len;
	bool kallsyms_loaded;	/* handed to the tep already */
	bool nomem;		/* a copy of the file's bytes found no memory: the open fails */
	char *printk;		/* printk_formats text, for the kernel's printer */
	char *modules;		/* MODULES_FILE: /proc/modules' text */
	uint64_t btf_at;	/* BTF_FILE: its section's offset, 0 for none (tfile_btf()) */
	/*
	 * LAST_BOOT_INFO: the instance the events come from and the boot
	 * they were recorded in; the kallsyms are mapped onto that boot's
	 * addresses at the end of the open (tfile_last_boot()).
	 */
	char *last_boot_name, *last_boot_bad;
	bool has_last_boot;
	struct tfs_last_boot last_boot;
	int64_t last_boot_delta;
	struct strv formats;
	/* TFILE_LAZY_FORMATS: the events' formats not parsed yet. */
	struct tfile_lazy {
		int id;
		char *sys, *text;	/* text NUL-terminated */
		size_t len;
	} *lazy;
	size_t nlazy;
	char *header_page;
	size_t header_page_len;
	char *header_event;	/* kept whole for tfile_meta() */
	size_t header_event_len;
	/*
	 * The options that describe the recording rather than the file's
	 * layout (not BUFFER, BUFFER_TEXT, CPUCOUNT, the v7 section pointers
	 * or STRINGS), as they were, in file order: tfile_meta() hands them on.
	 */
	struct tfile_rawopt {
		uint16_t id;
		uint32_t len;
		uint8_t *data;
	} *rawopts;
	size_t nrawopts;
	struct tfile_section *sections;	/* tfile_sections() */
	size_t nsections;
	struct tfile_optent *optents;	/* tfile_option_entries() */
	size_t noptents;
	/* TSC2NSEC: ns = ((ts * mult) >> shift) + offset */
	bool tsc2nsec;
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
};

/* A GUEST option (tfile-tsync.c): 0, or -EBADMSG for one that is not well formed. */
int tfile_guest_parse(const uint8_t *p, size_t n, bool big_endian, struct tfile_guest *out);

int tfile_bad(const struct tfile *tf, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
