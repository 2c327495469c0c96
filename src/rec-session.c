// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The parts of a recording session around the recorder (see rec.h): the
 * events to enable with the recorder's own pids filtered out, and the
 * command started once tracing is set up.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "evsel.h"
#include "rec.h"
#include "tfs.h"

static bool is_ftrace_sel(const struct evsel *e)
{
	return e->system && !strcmp(e->system, "ftrace");
}

int rec_events_to_enable(const struct evsel_list *in, const pid_t *own, size_t nown,
			 struct evsel_list *out)
{
	char *pidf = NULL;

	for (size_t i = 0; i < nown; i++) {
		char *n = xasprintf("%s%scommon_pid != %d", pidf ? pidf : "", pidf ? " && " : "",
				    (int)own[i]);

		free(pidf);
		pidf = n;
	}
	for (size_t i = 0; i < in->n; i++) {
		const struct evsel *e = &in->v[i];

		if (is_ftrace_sel(e)) {
			char *fmt;

			if (e->filter) {
				free(pidf);
				return tr_fail(-EINVAL, "'%s' takes no filter: ftrace events "
							"cannot be filtered", e->spec);
			}
			fmt = xasprintf("events/ftrace/%s/format", e->event ? e->event : "print");
			if (e->event && !has_glob(e->event) && !tfs_exists(NULL, fmt)) {
				free(fmt);
				free(pidf);
				return tr_fail(-ENOENT, "no such event '%s'", e->spec);
			}
			free(fmt);
			continue;
		}
		evsel_add(out, e->spec);
		if (e->filter && pidf) {
			char *f = xasprintf("(%s) && %s", e->filter, pidf);

			evsel_add_filter(out, f);
			free(f);
		} else if (e->filter || pidf) {
			evsel_add_filter(out, e->filter ? e->filter : pidf);
		}
	}
	free(pidf);
	return 0;
}

pid_t rec_spawn(char **argv, int *go_fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		char c;

		close(p[1]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		close(p[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "tr: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

bool rec_runnable(const char *argv0)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool ok = false;

	if (strchr(argv0, '/'))
		return access(argv0, X_OK) == 0;
	copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !ok; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", argv0);

		ok = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return ok;
}
