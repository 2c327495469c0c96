/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory-mapped ring buffer's user ABI (Linux 6.10+, uapi
 * linux/trace_mmap.h), written out here because Debian bookworm's kernel
 * headers are 6.1's and lack it.  These are the kernel's layout and ioctl
 * number, facts of the ABI; nothing else of the kernel is assumed.
 *
 * Mapping per_cpu/cpuN/trace_pipe_raw: offset 0 is the meta page
 * (meta_page_size bytes), followed at offset meta_page_size by nr_subbufs
 * sub-buffers of subbuf_size bytes each, header included.  The
 * TRACE_MMAP_IOCTL_GET_READER ioctl hands the reader the next sub-buffer
 * (reader.id), or, when the writer is still on the reader sub-buffer,
 * leaves reader.id as it was and marks what the writer added since as read:
 * the reader keeps its own offset into that sub-buffer.  On a sub-buffer
 * read whole, reader.read is its commit.  Nothing changes when nothing was
 * written (the ioctl returns 0 both ways).  While mapped, read() and
 * splice() of the file are refused (EAGAIN/EBUSY), as is arming a snapshot.
 */
#ifndef TR_REC_MMAP_H
#define TR_REC_MMAP_H

#include <stdint.h>
#include <sys/ioctl.h>

struct tr_trace_buffer_meta {
	uint32_t meta_page_size;	/* bytes mapped before the first sub-buffer */
	uint32_t meta_struct_len;	/* sizeof this struct as the kernel knows it */
	uint32_t subbuf_size;		/* one sub-buffer, its header included */
	uint32_t nr_subbufs;		/* the ring's sub-buffers plus the reader's */
	struct {
		uint64_t lost_events;	/* lost before the reader sub-buffer was taken */
		uint32_t id;		/* the reader sub-buffer, 0..nr_subbufs-1 */
		uint32_t read;		/* bytes of it the kernel counts as read */
	} reader;
	uint64_t flags;
	uint64_t entries;		/* the per-CPU counters, as of the last ioctl */
	uint64_t overrun;
	uint64_t read;
	uint64_t reserved1;
	uint64_t reserved2;
};

#define TR_TRACE_MMAP_IOCTL_GET_READER _IO('R', 0x20)

#endif
