// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * markgen: write numbered lines into a trace_marker as fast as possible,
 * for benchmarking recorders.
 *
 *   markgen TRACE_MARKER EVENTS [WRITERS [RATE]]
 *
 * WRITERS processes (default 1), writer i pinned to CPU i modulo the CPU
 * count, share EVENTS between them and start together.  Each line is
 * "gen W SEQ".  Prints "generated N events in S s (R/s)" and exits 0 if
 * every write succeeded.  Also prints "markgen cpu S" (user + system seconds
 * of the writers) so a benchmark can subtract it from a recorder that ran
 * markgen as its command.  RATE (events per second, all writers together;
 * default 0, as fast as possible) paces them, every 1000 events, for a
 * long recording at a steady rate (bench/soak.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "gen W SEQ\n" without printf, which would cost as much as the write. */
static size_t line(char *buf, int w, unsigned long long seq)
{
	char tmp[24];
	size_t n = 0, k = 0;

	memcpy(buf, "gen ", 4);
	n = 4;
	buf[n++] = '0' + w % 10;
	buf[n++] = ' ';
	do {
		tmp[k++] = '0' + seq % 10;
		seq /= 10;
	} while (seq);
	while (k)
		buf[n++] = tmp[--k];
	buf[n++] = '\n';
	return n;
}

static double rate;	/* each writer's events per second, 0: no pacing */

/* Sleep until event i of a writer that started at t0 is due. */
static void pace(unsigned long long i, double t0)
{
	double due = t0 + i / rate, t = now();

	if (due > t) {
		struct timespec ts = { (time_t)(due - t), (long)((due - t - (time_t)(due - t)) * 1e9) };

		nanosleep(&ts, NULL);
	}
}

static int writer(const char *path, int w, unsigned long long first, unsigned long long count,
		  int go)
{
	double t0;
	cpu_set_t set;
	char buf[64], c;
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (fd < 0) {
		fprintf(stderr, "markgen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(w % (ncpu > 0 ? ncpu : 1), &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (read(go, &c, 1) < 0)
		return 1;
	t0 = now();
	for (unsigned long long i = 0; i < count; i++) {
		size_t n = line(buf, w, first + i);

		if (rate > 0 && i % 1000 == 0)
			pace(i, t0);
		if (write(fd, buf, n) != (ssize_t)n) {
			fprintf(stderr, "markgen: write: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long events, per;
	int writers = 1, p[2], bad = 0;
	double t0, t1;

	if (argc < 3) {
		fprintf(stderr, "usage: markgen TRACE_MARKER EVENTS [WRITERS [RATE]]\n");
		return 2;
	}
	events = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		writers = atoi(argv[3]);
	if (argc > 4)
		rate = strtod(argv[4], NULL);
	if (writers < 1 || writers > 64 || rate < 0 || pipe(p))
		return 2;
	rate /= writers;
	per = events / writers;
	for (int w = 0; w < writers; w++) {
		unsigned long long count = w == writers - 1 ? events - per * (writers - 1) : per;

		if (fork() == 0) {
			close(p[1]);
			_exit(writer(argv[1], w, per * w + 1, count, p[0]));
		}
	}
	close(p[0]);
	t0 = now();
	close(p[1]);	/* everyone's read() returns: go */
	for (int w = 0; w < writers; w++) {
		int st;

		wait(&st);
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	}
	t1 = now();
	{
		struct rusage ru;

		getrusage(RUSAGE_CHILDREN, &ru);
		printf("generated %llu events in %.3f s (%.0f/s)\n", events, t1 - t0,
		       events / (t1 - t0));
		printf("markgen cpu %.3f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
						  ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	}
	return bad;
}
