// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A main for the fuzz targets without libFuzzer: run the target once on
 * each file named on the command line, as the fuzzer would have.  This is
 * what `make check` replays the regression corpus with.  With
 * TR_REPLAY_MAX_RSS_MB set, a peak resident size above it exits 3.  With
 * TR_REPLAY_FILE_CPU_S set, each file gets that many seconds of CPU time
 * (SIGXCPU past it), so one process can replay many files and a file that
 * loops still ends the run (tests/fuzz/replay then names it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Allow SECONDS more of CPU time from now: RLIMIT_CPU counts the whole
 * process's time, so the limit moves on before each file. */
static void cpu_budget(long seconds)
{
	struct rusage ru;
	struct rlimit rl;

	if (seconds <= 0 || getrusage(RUSAGE_SELF, &ru) || getrlimit(RLIMIT_CPU, &rl))
		return;
	rl.rlim_cur = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1 + seconds;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_CPU, &rl);
}

int main(int argc, char **argv)
{
	const char *cpu = getenv("TR_REPLAY_FILE_CPU_S");

	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = NULL;
		size_t len = 0, cap = 0, n;

		if (!f) {
			perror(argv[i]);
			return 2;
		}
		do {
			if (len == cap) {
				cap = cap ? cap * 2 : 65536;
				buf = realloc(buf, cap);
				if (!buf)
					return 2;
			}
			n = fread(buf + len, 1, cap - len, f);
			len += n;
		} while (n);
		fclose(f);
		cpu_budget(cpu ? atol(cpu) : 0);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	if (getenv("TR_REPLAY_MAX_RSS_MB")) {
		struct rusage ru;
		long max = atol(getenv("TR_REPLAY_MAX_RSS_MB"));

		getrusage(RUSAGE_SELF, &ru);
		if (ru.ru_maxrss / 1024 > max) {
			fprintf(stderr, "replay: peak resident size %ld MB, above %ld MB\n",
				ru.ru_maxrss / 1024, max);
			return 3;
		}
	}
	return 0;
}
