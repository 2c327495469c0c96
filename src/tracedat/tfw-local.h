/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the v6 layout (tfw.c) and the v7 one (tfw-v7.c): appending
 * numbers in the host's byte order, the parts both versions write the same
 * way, and whole writes at an offset.
 */
#ifndef TR_TFW_LOCAL_H
#define TR_TFW_LOCAL_H

#include "tfw.h"

void tfw_put(struct tfw_blob *b, const void *p, size_t n);
void tfw_put16(struct tfw_blob *b, uint16_t v);
void tfw_put32(struct tfw_blob *b, uint32_t v);
void tfw_put64(struct tfw_blob *b, uint64_t v);
bool tfw_host_big_endian(void);
uint64_t tfw_align_up(uint64_t v, uint64_t a);
int tfw_pwrite_all(int fd, const void *p, size_t n, uint64_t off);
/* kallsyms to fd at off, from memory or in pieces from its temp file.  0 or -errno. */
int tfw_kallsyms_pwrite(const struct tfw_meta *m, int fd, uint64_t off);
/* Piece after piece of kallsyms: fn(arg, p, n, last).  0 or -errno. */
int tfw_kallsyms_each(const struct tfw_meta *m, void (*fn)(void *arg, const void *p, size_t n, bool last),
		      void *arg);

/* "header_page\0" size8 data "header_event\0" size8 data */
void tfw_put_header_info(const struct tfw_meta *m, struct tfw_blob *out);
/* count4 {size8 format}... */
void tfw_put_ftrace(const struct tfw_meta *m, struct tfw_blob *out);
/* count4 {"system\0" count4 {size8 format}...}... */
void tfw_put_formats(const struct tfw_meta *m, struct tfw_blob *out);

/* With text (a latency file), a BUFFER_TEXT section instead of the buffers. */
int tfw_write_v7(int fd, struct tfw_meta *m, struct tfw_buffer *bufs, size_t nbufs,
		 const char *text, size_t tlen, struct tfw_result *res);

#endif
