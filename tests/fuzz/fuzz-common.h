/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the fuzz targets share: the input goes into a memfd (tr's reader
 * wants a path and a regular file it can map), stdout goes to /dev/null,
 * and a cheap hash of the input picks the options, so one corpus file
 * always runs the same way (a crash replays).
 */
#ifndef TR_FUZZ_COMMON_H
#define TR_FUZZ_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int fuzz_fd = -1;
static char fuzz_path[64];

static const char *fuzz_file(const uint8_t *data, size_t size)
{
	if (fuzz_fd < 0) {
		int null = open("/dev/null", O_WRONLY);

		fuzz_fd = memfd_create("tr-fuzz", MFD_CLOEXEC);
		if (fuzz_fd < 0)
			abort();
		snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
		/* The report and the tables are written to stdout: not worth seeing here. */
		if (null >= 0) {
			fflush(stdout);
			dup2(null, 1);
			close(null);
		}
	}
	if (ftruncate(fuzz_fd, 0) || (size && pwrite(fuzz_fd, data, size, 0) != (ssize_t)size))
		abort();
	return fuzz_path;
}

/* FNV-1a of the tail of the input: the head is the trace.dat header, the same in all. */
static uint32_t fuzz_pick(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;
	size_t from = size > 64 ? size - 64 : 0;

	for (size_t i = from; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h ^ (uint32_t)size;
}

#endif
