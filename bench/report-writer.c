// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The load for bench/report.sh: write N short lines to a trace_marker file
 * as fast as one thread can, so the recorder gets millions of ftrace:print
 * events.  Usage: report-writer TRACE_MARKER N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char line[64];
	long n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s TRACE_MARKER N\n", argv[0]);
		return 64;
	}
	n = atol(argv[2]);
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		int len = snprintf(line, sizeof(line), "bench %ld", i);

		if (write(fd, line, len) < 0) {
			perror("write");
			return 1;
		}
	}
	close(fd);
	return 0;
}
