// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main: the command table, the root parser, and the wrapper every command
 * runs through (signals, tracefs, restore, and the final check that stdout
 * really took what we wrote).
 *
 * tr shares its name with coreutils' tr.  A first argument that is not one
 * of our commands or options is handed, with the whole command line, to the
 * next tr in PATH, so "echo abc | tr a-z A-Z" keeps working with ours first.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "parse.h"
#include "caps.h"
#include "net.h"
#include "tfs.h"

/*
 * Exec the next tr in PATH that is not this binary, else /usr/bin/tr.
 * Only returns on failure.
 */
static int passthrough(char **argv)
{
	struct stat self, st;
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;

	if (stat("/proc/self/exe", &self))
		self.st_ino = 0;
	copy = xstrdup(path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/tr", *dir ? dir : ".");

		if (!stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK) &&
		    !(st.st_dev == self.st_dev && st.st_ino == self.st_ino)) {
			free(copy);
			execv(cand, argv);
			tr_error("cannot run '%s': %s", cand, strerror(errno));
			free(cand);
			return EXIT_RUNTIME;
		}
		free(cand);
	}
	free(copy);
	if (!stat("/usr/bin/tr", &st) && !(st.st_dev == self.st_dev && st.st_ino == self.st_ino)) {
		execv("/usr/bin/tr", argv);
		tr_error("cannot run '/usr/bin/tr': %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	tr_error("'%s' is not a tr command, and there is no system tr to hand it to", argv[1]);
	return EXIT_USAGE;
}

static int open_tracefs(void)
{
	int r = tfs_open();

	if (r == -EACCES)
		return tr_error("permission denied on tracefs at %s", tfs_root());
	if (r)
		return tr_error("cannot find tracefs");
	return 0;
}

/*
 * Shared set-up and tear-down around every command, as git's run_builtin():
 * the command decides the status; restoring tracefs or flushing stdout can
 * only turn success into failure.
 */
static bool stdout_reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

static int run_builtin(const struct tr_cmd *cmd, int argc, char **argv)
{
	char *name = xasprintf("tr %s", cmd->name);
	int status, r;

	argv[0] = name;
	tr_signals_install();
	if ((cmd->flags & CMD_TRACEFS) && open_tracefs()) {
		free(name);
		return EXIT_RUNTIME;
	}
	status = cmd->fn(argc, argv);
	/* Commands that open tracefs themselves (check) are restored too. */
	if (tfs_root()) {
		r = tfs_restore();
		if (r) {
			tr_error("could not put tracefs back as it was");
			if (!status)
				status = EXIT_RUNTIME;
		}
	}
	caps_free();
	free(name);
	if (fflush(stdout) || ferror(stdout)) {
		/*
		 * The reader went away (tr stream | head): not our failure.  The
		 * EPIPE of the failed write may be long overwritten by now, so
		 * ask the descriptor too: a pipe without a reader polls POLLERR.
		 */
		if (errno == EPIPE || stdout_reader_gone())
			return status;
		tr_error("write failure on standard output: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct root_args a = { 0 };

	/* A received file's writer (net-writer.c): none of a command's set-up. */
	if (argc == 2 && !strcmp(argv[1], NET_WRITER_CMD))
		return net_writer_main();
	tr_phase("main");
	if (argc > 1 && !cmd_is_ours(argv[1])) {
		const char *sugg = NULL;

		/*
		 * Only someone at a terminal gets the typo rule: a script piping
		 * into coreutils' tr must never be caught by it.
		 */
		if (isatty(STDIN_FILENO) && (sugg = cmd_suggest(argv[1]))) {
			fprintf(stderr, "tr: '%s' is not a tr command; did you mean '%s'?\n", argv[1],
				sugg);
			return EXIT_USAGE;
		}
		return passthrough(argv);
	}
	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&tr_root_argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (!a.cmd)
		return EXIT_USAGE;
	return run_builtin(a.cmd, argc - a.cmd_index, argv + a.cmd_index);
}
