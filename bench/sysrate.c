// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysrate: make RATE getppid() calls a second for SECONDS (each is two
 * events, raw_syscalls:sys_enter and sys_exit), in bursts of 500 with a
 * sleep to keep the rate; or, with -n N, take N command names in turn
 * (tr-bench-0 ... tr-bench-N-1, written to /proc/self/comm), one call
 * under each.  Prints the calls it made.
 *
 *   sysrate RATE SECONDS
 *   sysrate -n N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long calls = 0;

	if (argc == 3 && !strcmp(argv[1], "-n")) {
		long n = atol(argv[2]);
		FILE *f = fopen("/proc/self/comm", "w");

		if (!f)
			return 1;
		setvbuf(f, NULL, _IONBF, 0);
		for (long i = 0; i < n; i++) {
			fprintf(f, "tr-bench-%ld", i);
			getppid();
			calls++;
		}
		fclose(f);
	} else if (argc == 3) {
		double rate = atof(argv[1]), secs = atof(argv[2]), t0 = now();

		while (now() - t0 < secs) {
			for (int i = 0; i < 500; i++)
				getppid();
			calls += 500;
			/* Ahead of the rate: sleep until the calls made are due. */
			double due = t0 + calls / rate, t = now();

			if (due > t)
				usleep((useconds_t)((due - t) * 1e6));
		}
	} else {
		fprintf(stderr, "usage: sysrate RATE SECONDS | sysrate -n N\n");
		return 64;
	}
	printf("%ld\n", calls);
	return 0;
}
