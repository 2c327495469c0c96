// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The names tr record writes under, and the opening of its output: see
 * rec-paths.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec-paths.h"
#include "rec.h"
#include "tr.h"

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *d = xstrdup(dirname(copy));

	free(copy);
	return d;
}

void rec_paths_decide(struct rec_paths *p, const char *output, const char *temp_dir)
{
	*p = (struct rec_paths){ .output = output ? output : "trace.dat", .fd = -1 };
	p->tmp_dir = temp_dir ? xstrdup(temp_dir) : dir_of(p->output);
	if (temp_dir) {
		const char *base = strrchr(p->output, '/');

		p->spool = xasprintf("%s/%s.spool", temp_dir, base ? base + 1 : p->output);
	} else {
		p->spool = rec_spool_path(p->output);
	}
}

/*
 * A new output is 0600, as perf makes perf.data: it holds the kernel's
 * symbols (the addresses kptr_restrict keeps from other users) and every
 * traced task's events.  An old one keeps the mode it has.
 */
int rec_output_open(const char *path, bool *created)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return tr_fail(-errno, "cannot write '%s': %s", path, strerror(errno));
	return fd;
}

int rec_paths_open(struct rec_paths *p)
{
	int fd = rec_output_open(p->output, &p->created);

	if (fd < 0)
		return fd;
	p->fd = fd;
	return 0;
}

void rec_paths_discard(const struct rec_paths *p)
{
	if (p->created)
		unlink(p->output);
}

int rec_paths_close(struct rec_paths *p)
{
	int fd = p->fd;

	p->fd = -1;
	if (fd >= 0 && close(fd))
		return tr_fail(-errno, "cannot write '%s': %s", p->output, strerror(errno));
	return 0;
}

void rec_paths_free(struct rec_paths *p)
{
	free(p->tmp_dir);
	free(p->spool);
	p->tmp_dir = p->spool = NULL;
}

char *rec_guest_path(const char *output, const char *name)
{
	const char *base = strrchr(output, '/'), *dot;

	base = base ? base + 1 : output;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return xasprintf("%s-%s", output, name);
	return xasprintf("%.*s-%s%s", (int)(dot - output), output, name, dot);
}
