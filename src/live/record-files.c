// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What tr record settles before tracefs is touched and after the
 * recording (live-record.h): the user COMMAND runs as, the output with its
 * temp directory and spool (rec-paths.h) and the guests' files beside it;
 * the one line a failed recording ends with; the files closed.  The
 * command only names them and reports what these return.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "live-record.h"
#include "rec-paths.h"
#include "tr.h"

int live_record_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return tr_fail(-ENOENT, "no such user '%s'%s%s", name, errno ? ": " : "",
			       errno ? strerror(errno) : "");
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

int live_record_files_open(struct rec_paths *p, const char *output, const char *temp_dir,
			   struct live_record_opts *o)
{
	int r;

	rec_paths_decide(p, output, temp_dir);
	if ((r = rec_paths_open(p)))
		return r;
	o->fd = p->fd;
	o->output = p->output;
	o->tmp_dir = p->tmp_dir;
	o->spool_dir = p->spool;
	for (size_t i = 0; i < o->nguests; i++)
		o->guests[i].net.tmp_dir = p->tmp_dir;
	return o->nguests ? live_guests_files(o->guests, o->nguests, p->output) : 0;
}

int live_record_failed(const struct rec_paths *p, const struct live_record_result *res, int r)
{
	/* A failing disk (EIO): the one line says where the recording is. */
	if (res->spool_kept && tr_failure()) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", tr_failure());
		r = tr_fail(r, "%s; what was recorded is kept in '%s': 'tr restore %s' writes it",
			    why, p->spool, p->output);
	}
	/* Nothing was recorded: leave no empty file behind. */
	if (!res->sum.cpu && !res->latency)
		rec_paths_discard(p);
	return r;
}

int live_record_files_close(struct rec_paths *p, struct live_guest *g, size_t n, bool failed)
{
	int r = rec_paths_close(p);

	live_guests_close(g, n, failed);
	rec_paths_free(p);
	return r;
}
