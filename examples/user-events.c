// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An application that logs through user events with libtr-user.
 *
 *   user-events [-n COUNT] [-f] [-m] [-t] [-w]
 *
 * Emits COUNT events (default 10) of
 *   tr_example: u32 seq; s64 value; __rel_loc char[] msg
 * with seq 0..COUNT-1, value seq*seq-1000 and msg "event SEQ", and prints
 * how many it emitted and how many the library actually wrote (an emit
 * writes only while a tool traces the event).  -f emits the second half in
 * a child process after fork(); -m uses the multi-format event
 * tr_example_multi with "u64 seq; __rel_loc char[] msg"; -t prints the mean
 * cost of one emit in nanoseconds.  -w writes each tr_example event with
 * tr_user_writev() from a payload laid out here, one iovec per field, the
 * same event tr_user_emit() writes.
 *
 *   tr user add tr_example 'u32 seq; s64 value; __rel_loc char[] msg'
 *   tr record -e user_events:tr_example -o ex.dat ./user-events -n 1000
 *   tr report -i ex.dat
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tr-user.h>

TR_USER_EVENT(example, "tr_example", "u32 seq; s64 value; __rel_loc char[] msg");
TR_USER_EVENT_MULTI(example_multi, "tr_example_multi", "u64 seq; __rel_loc char[] msg");

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/*
 * tr_example laid out by hand: the kernel reads the fields packed, in order
 * (u32 at 0, s64 at 4, the __rel_loc word at 12), and a __rel_loc word holds
 * the data's length (with its NUL) in the high half and, in the low half, its
 * offset from the end of the word: 0, as msg follows at once.
 */
static int write_fields(uint32_t seq, int64_t value, const char *msg)
{
	uint32_t loc = (uint32_t)(strlen(msg) + 1) << 16;
	struct iovec iov[] = {
		{ &seq, sizeof(seq) },
		{ &value, sizeof(value) },
		{ &loc, sizeof(loc) },
		{ (void *)msg, strlen(msg) + 1 },
	};

	return tr_user_writev(&example, iov, 4);
}

/* Emit seq in [from, to); count what the library wrote. */
static int run(unsigned from, unsigned to, bool multi, bool vec, unsigned long *written)
{
	char msg[32];

	for (unsigned seq = from; seq < to; seq++) {
		int r;

		if (vec) {
			snprintf(msg, sizeof(msg), "event %u", seq);
			r = write_fields(seq, (int64_t)seq * seq - 1000, msg);
		} else if (multi) {
			snprintf(msg, sizeof(msg), "event %u", seq);
			r = tr_user_emit(&example_multi, (uint64_t)seq, msg);
		} else {
			/* The arguments are built only when the event is traced. */
			r = tr_user_emit(&example, seq, (int64_t)seq * seq - 1000,
					 (snprintf(msg, sizeof(msg), "event %u", seq), msg));
		}
		if (r < 0) {
			fprintf(stderr, "user-events: emit failed: %s\n", strerror(-r));
			return 1;
		}
		*written += (unsigned long)r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long count = 10, written = 0;
	bool do_fork = false, multi = false, timing = false, vec = false;
	unsigned long long t0;
	int c, status = 0;

	while ((c = getopt(argc, argv, "n:fmtw")) != -1) {
		switch (c) {
		case 'n':
			count = strtoul(optarg, NULL, 10);
			break;
		case 'f':
			do_fork = true;
			break;
		case 'm':
			multi = true;
			break;
		case 't':
			timing = true;
			break;
		case 'w':
			vec = true;
			break;
		default:
			fprintf(stderr, "usage: user-events [-n COUNT] [-f] [-m] [-t] [-w]\n");
			return 64;
		}
	}
	t0 = now_ns();
	if (!do_fork) {
		status = run(0, (unsigned)count, multi, vec, &written);
	} else {
		unsigned half = (unsigned)(count / 2);
		pid_t pid;

		status = run(0, half, multi, vec, &written);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			unsigned long child_written = 0;
			int st = run(half, (unsigned)count, multi, vec, &child_written);

			printf("child: emitted %lu written %lu\n", count - half, child_written);
			return st;
		}
		if (pid < 0 || waitpid(pid, &c, 0) < 0 || !WIFEXITED(c) || WEXITSTATUS(c))
			status = 1;
		count = half;
	}
	if (timing && count)
		printf("ns per emit: %.1f\n", (double)(now_ns() - t0) / (double)count);
	printf("emitted %lu written %lu\n", count, written);
	return status;
}
