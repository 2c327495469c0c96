/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where tr record writes: the output file, the directory of the per-CPU
 * temporary files, the spool a crash leaves (rec.h, rec_spool_path()) and
 * each guest's file (-A).  The names are decided by pure functions, so the
 * unit tests check them; opening is apart.
 *
 * Call order: rec_paths_decide(), rec_paths_open() (before tracefs is
 * touched: an output that cannot be written fails first), the recording,
 * rec_paths_discard() if nothing was recorded, rec_paths_close(),
 * rec_paths_free().  Errors are -errno with tr_fail() set.
 */
#ifndef TR_REC_PATHS_H
#define TR_REC_PATHS_H

#include <stdbool.h>

struct rec_paths {
	const char *output;	/* as given, or "trace.dat" */
	char *tmp_dir;		/* --temp DIR, or the output's directory */
	/*
	 * OUTPUT.spool; with --temp, DIR/BASENAME.spool: the spool holds the
	 * per-CPU data, which --temp moves off the output's file system.
	 */
	char *spool;
	int fd;			/* the output, read-write; -1 until rec_paths_open() */
	bool created;		/* rec_paths_open() made the file (it was not there) */
};

/* Fill p's names from the output (NULL: trace.dat) and --temp (NULL: none). */
void rec_paths_decide(struct rec_paths *p, const char *output, const char *temp_dir);
/*
 * Open p->output read-write, creating it if need be.  An old file is not
 * emptied here: the recording does that when it starts, so a session that
 * fails to open (a command not found) leaves it as it was.
 */
int rec_paths_open(struct rec_paths *p);
/* Nothing was recorded: remove the output if rec_paths_open() made it. */
void rec_paths_discard(const struct rec_paths *p);
/* Close the output: 0, or -errno ("cannot write 'OUTPUT'") from close(). */
int rec_paths_close(struct rec_paths *p);
void rec_paths_free(struct rec_paths *p);

/*
 * trace-cmd's name for a guest's file: "-NAME" before the output's
 * extension (trace-vm1.dat), or after a name without one (out-vm1).
 */
char *rec_guest_path(const char *output, const char *name);
/* Open path as rec_paths_open() does; *created says whether it made it.  fd or -errno. */
int rec_output_open(const char *path, bool *created);

#endif
