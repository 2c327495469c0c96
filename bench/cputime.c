// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cputime: run a command and print "USER SYS MAXRSS_KB" of it and every
 * descendant it waited for, with microsecond resolution (GNU time's %U %S
 * have 10 ms, too coarse for a recorder that spends 0.1 s in all).
 *
 *   cputime OUTFILE COMMAND [ARGS...]
 *
 * The figures go to OUTFILE; the command's exit status is returned.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: cputime OUTFILE COMMAND [ARGS...]\n");
		return 64;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return 1;
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%ld.%06ld %ld.%06ld %ld\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
		(long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss);
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
